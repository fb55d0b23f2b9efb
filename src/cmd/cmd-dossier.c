/*
 * cmd-dossier.c - `kernodeck dossier [DIR] [--state-dir DIR] [--out DIR]
 * [--relative] [--redact] [--leave-out FILE]...`: write the dossier of a
 * project headless, as stage 7 does, without running the other stages.  A
 * credential found blocks the write and is named (file, line, kind), never
 * shown.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/cmd.h"
#include "kernodeck/ctx.h"
#include "kernodeck/dossier.h"
#include "kernodeck/obs-dossier.h"
#include "kernodeck/paths.h"
#include "kernodeck/yamlio.h"

static int
cmd_dossier(int argc, char **argv)
{
	const struct kd_cmd_entry *e = &kd_cmd_dossier;
	const char *dir = ".", *out = NULL, *state_dir = NULL;
	int relative = 0, redact = 0, rc, c;
	json_t *leave = json_array();
	struct kd_ctx ctx;
	struct kd_err err;
	json_t *s = NULL, *f;
	char buf[2048];
	size_t i;

	cmd_getopt_reset();
	while ((c = cmd_getopt(e, argc, argv)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'd': state_dir = optarg; break;
		case 'r': relative = 1; break;
		case 'R': redact = 1; break;
		case 'l': {
			char *a = kd_abspath(optarg);
			json_array_append_new(leave, json_string(a));
			free(a);
			break;
		}
		case KD_CMD_HELP:
			json_decref(leave);
			return cmd_help(e);
		default:
			json_decref(leave);
			return cmd_usage_error(e, NULL);
		}
	}
	if (optind < argc)
		dir = argv[optind++];
	if (optind < argc) {
		json_decref(leave);
		return cmd_usage_error(e, "one project folder at most");
	}
	kd_err_clear(&err);
	if ((rc = cmd_open_project(e, e->project, &ctx, dir, state_dir)) != 0) {
		json_decref(leave);
		return rc;
	}
	/* files left out are remembered in the state, as the stage's o does */
	if (json_array_size(leave) > 0) {
		json_t *ex = yamlio_get(ctx.state.settings, "dossier.exclude");
		if (!json_is_array(ex))
			yamlio_set(ctx.state.settings, "dossier.exclude", json_array());
		json_array_extend(yamlio_get(ctx.state.settings, "dossier.exclude"), leave);
		kd_ctx_save_state(&ctx, NULL);
	}
	json_decref(leave);
	if (redact) {
		struct dossier_plan p;
		int changed = 0;
		if ((rc = dossier_plan_build(&ctx, relative, &p, &err)) == 0) {
			rc = dossier_redact_sources(&p, &changed, &err);
			if (rc == 0 && p.nfindings > 0)
				printf("redacted %zu credential(s) in %d file(s): each value is now "
				       "${NAME}, to be provided from the environment\n", p.nfindings,
				       changed);
			dossier_plan_free(&p);
		}
		if (rc == 0 && changed > 0)
			rc = kd_ctx_reload_ref(&ctx, &err);
		if (rc != 0) {
			fprintf(stderr, "kernodeck dossier: %s\n", kd_err_format(&err, buf, sizeof buf));
			kd_ctx_close(&ctx);
			return rc;
		}
	}
	char *absout = out ? kd_abspath(out) : NULL;
	rc = dossier_write(&ctx, absout, relative, &s, &err);
	free(absout);
	if (rc != 0) {
		fprintf(stderr, "kernodeck dossier: %s\n", kd_err_format(&err, buf, sizeof buf));
	} else if (obs_dossier_written(s)) {
		printf("dossier written to %s\n", obs_dossier_out(s));
		if (obs_dossier_moved_aside(s) != NULL)
			printf("the previous dossier is kept in %s\n", obs_dossier_moved_aside(s));
		json_array_foreach(obs_dossier_removed_backups(s), i, f)
			printf("an older dossier kernodeck wrote is removed: %s\n",
			       json_string_value(f));
		if (obs_dossier_backup_error(s) != NULL)
			fprintf(stderr, "kernodeck dossier: an older dossier is not removed: %s\n",
				obs_dossier_backup_error(s));
	} else {
		fprintf(stderr, "kernodeck dossier: not written: credentials found\n");
		json_array_foreach(obs_dossier_findings(s), i, f) {
			const char *src = obs_dossier_finding_source(f);
			fprintf(stderr, "  %s:%lld: %s%s%s%s\n", obs_dossier_finding_file(f),
				(long long)obs_dossier_finding_line(f), obs_dossier_finding_kind(f),
				src ? "  (from " : "", src ? src : "", src ? ")" : "");
		}
		fputs("redact them (the dossier stage's x: values become ${NAME}) or leave their "
		      "files out (o)\n", stderr);
		rc = KD_EXIT_FAILED;
	}
	json_decref(s);
	kd_ctx_close(&ctx);
	return rc;
}

static const struct kd_opt dossier_opts[] = {
	{ "state-dir", 'd', "DIR", 0 },
	{ "out", 'o', "DIR", 0 },
	{ "relative", 'r', NULL, 0 },
	{ "redact", 'R', NULL, 0 },
	{ "leave-out", 'l', "FILE", KD_OPT_MANY },
	{ NULL, 0, NULL, 0 },
};

const struct kd_cmd_entry kd_cmd_dossier = {
	.name = "dossier",
	.args = "[DIR]",
	.opts = dossier_opts,
	.project = KD_PROJECT_LOCKED,
	.help = "Write the dossier (default DIR/kernodeck/dossier); credentials found block it:\n"
		"--redact puts ${NAME} in their place in the sources, --leave-out keeps a file\n"
		"out, --relative writes the project's absolute paths relative to it.",
	.exec = cmd_dossier,
};
