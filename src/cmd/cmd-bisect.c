/*
 * cmd-bisect.c - `kernodeck bisect DOSSIER [DIR] [--data DIR] [--layers
 * LIST] [--format text|json] [--state-dir DIR]`: the arguments, the
 * project's sample result checked to be there, then the bisect engine
 * (src/features/bisect.c).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kernodeck/bisect.h"
#include "kernodeck/cmd.h"
#include "kernodeck/ctx.h"
#include "kernodeck/err.h"
#include "kernodeck/paths.h"
#include "kernodeck/rows.h"
#include "kernodeck/stage.h"
#include "kernodeck/stop.h"

static int
cmd_bisect(int argc, char **argv)
{
	const struct kd_cmd_entry *e = &kd_cmd_bisect;
	struct kd_sink sink = { kd_sink_print_step, NULL, kd_stop_requested, NULL };
	struct bisect_opts o = { .layers = BISECT_ALL, .plan = stderr, .sink = &sink };
	const char *state_dir = NULL, *dir = ".", *bad = NULL;
	char *dossier = NULL, *data = NULL, buf[2200];
	struct kd_err err = { 0 };
	struct kd_ctx ctx;
	json_t *report = NULL;
	size_t badlen = 0;
	int c, rc, json = 0;

	kd_stop_install();   /* Ctrl-C stops the running program, then kernodeck */
	cmd_getopt_reset();
	while ((c = cmd_getopt(e, argc, argv)) != -1) {
		switch (c) {
		case 'D': free(data); data = kd_abspath(optarg); break;
		case 'd': state_dir = optarg; break;
		case 'l':
			if (bisect_parse_layers(optarg, &o.layers, &bad, &badlen) != 0) {
				free(data);
				return cmd_usage_error(e, "unknown layer \"%.*s\" (the layers: env, "
						       "settings, packages, data)", (int)badlen, bad);
			}
			break;
		case 'f':
			if (strcmp(optarg, "json") == 0) {
				json = 1;
			} else if (strcmp(optarg, "text") != 0) {
				free(data);
				return cmd_usage_error(e, "unknown format %s (text or json)", optarg);
			}
			break;
		case KD_CMD_HELP:
			free(data);
			return cmd_help(e);
		default:
			free(data);
			return cmd_usage_error(e, NULL);
		}
	}
	if (argc - optind < 1 || argc - optind > 2) {
		free(data);
		return cmd_usage_error(e, argc - optind < 1 ? "a dossier is needed" :
				       "one project folder at most");
	}
	dossier = kd_abspath(argv[optind]);
	if (argc - optind == 2)
		dir = argv[optind + 1];
	if ((rc = cmd_open_project(e, e->project, &ctx, dir, state_dir)) != 0) {
		free(dossier);
		free(data);
		return rc;
	}
	if (kd_ctx_obs(&ctx, stage_pos(&kd_stage_sample)) == NULL) {
		fprintf(stderr, "kernodeck bisect: %s: no sample result (stage %s has not run): run "
			"`kernodeck check --stage %s` first\n", ctx.project_dir, kd_stage_sample.id,
			kd_stage_sample.id);
		rc = KD_EXIT_USAGE;
		goto out;
	}
	o.dossier = dossier;
	o.data = data;
	kd_err_clear(&err);
	rc = bisect_run(&ctx, &o, &report, &err);
	if (report != NULL) {
		if (json) {
			char *s = json_dumps(report, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			if (s != NULL)
				printf("%s\n", s);
			free(s);
		} else {
			bisect_print(stdout, report);
		}
	}
	if (rc != 0 && !(rc == KD_EFAIL && report != NULL))
		fprintf(stderr, "kernodeck bisect: %s\n", kd_err_format(&err, buf, sizeof buf));
out:
	json_decref(report);
	kd_ctx_close(&ctx);
	free(dossier);
	free(data);
	return rc;
}

static const struct kd_opt bisect_opts[] = {
	{ "data", 'D', "DIR", 0 },
	{ "layers", 'l', "env,settings,packages,data", 0 },
	{ "format", 'f', "text|json", 0 },
	{ "state-dir", 'd', "DIR", 0 },
	{ NULL, 0, NULL, 0 },
};

const struct kd_cmd_entry kd_cmd_bisect = {
	.name = "bisect",
	.args = "DOSSIER [DIR]",
	.opts = bisect_opts,
	.project = KD_PROJECT_LOCKED,
	.help = "In project DIR (default .), whose sample result differs from the dossier's, run\n"
		"stage 6's entry point again on the sample, first as this machine has it, then with\n"
		"one layer at a time set as in the dossier: env (its run-changing variables; then\n"
		"halving among them), settings (its precision and determinism settings), packages\n"
		"(a side venv from its requirements-lock.txt, from the folders it names; then halving\n"
		"among the packages that differ), data (with --data DIR: its data, checked by digest).\n"
		"Each run works in its own copy under kernodeck/bisect/ through the step runner; its\n"
		"outputs are compared with the dossier's bit for bit and under the declared rule: per\n"
		"layer, the difference vanishes, shrinks or stays.  When no layer alone makes it\n"
		"vanish, the layers that ran are run together (all, then the smallest sets) and the\n"
		"smallest set that does is named.  The plan is printed on stderr first; the report\n"
		"goes to kernodeck/bisect/bisect.yaml.  Exit 0 when a layer (or variable, or a set\n"
		"of layers together) explains it, 1 when none does or nothing differs, 2\n"
		"a bad dossier, no sample result, an unknown layer, 3 a run that failed.",
	.exec = cmd_bisect,
};
