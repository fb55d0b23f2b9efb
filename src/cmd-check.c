/*
 * cmd-check.c - `kernodeck check`: the stages headless, under the same
 * rules as the walkthrough.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernodeck/caps.h"
#include "kernodeck/cmd.h"
#include "kernodeck/ctx.h"
#include "kernodeck/report.h"
#include "kernodeck/stop.h"

static void
check_on_line(void *u, const char *line, size_t len)
{
	(void)u;
	fprintf(stderr, "  | %.*s\n", (int)len, line);
}

static void
print_err(const struct kd_err *err)
{
	char buf[2200];

	fprintf(stderr, "kernodeck: %s\n", kd_err_format(err, buf, sizeof buf));
}

static int
check_usage(FILE *fp, int rc)
{
	fputs("usage: kernodeck check [DIR] [--stage ID] [--python PATH] [--strict]\n"
	      "                       [--format text|yaml|json] [--junit FILE] [--state-dir DIR]\n"
	      "                       [--quiet]\n", fp);
	return rc;
}

int
cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "stage", required_argument, NULL, 's' },
		{ "python", required_argument, NULL, 'p' },
		{ "format", required_argument, NULL, 'f' },
		{ "junit", required_argument, NULL, 'j' },
		{ "state-dir", required_argument, NULL, 'd' },
		{ "strict", no_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *stage = NULL, *python = NULL, *junit = NULL, *state_dir = NULL, *dir = ".";
	enum kd_format fmt = KD_FMT_TEXT;
	struct kd_sink sink = { kd_sink_print_step, check_on_line, kd_stop_requested, NULL };
	struct kd_err err = { 0 };
	struct kd_ctx ctx;
	int c, only = -1, last = -1, rc, strict = 0, quiet = 0, exit_code = 0;
	char why[2048];

	kd_stop_install();   /* Ctrl-C stops the running program, then kernodeck */
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's': stage = optarg; break;
		case 'p': python = optarg; break;
		case 'j': junit = optarg; break;
		case 'd': state_dir = optarg; break;
		case 'S': strict = 1; break;
		case 'q': quiet = 1; break;
		case 'f':
			if (report_parse_format(optarg, &fmt) != 0) {
				fprintf(stderr, "kernodeck check: unknown format \"%s\" (text, yaml or json)\n", optarg);
				return 2;
			}
			break;
		case 'h': return check_usage(stdout, 0);
		default: return check_usage(stderr, 2);
		}
	}
	if (optind < argc)
		dir = argv[optind++];
	if (optind < argc)
		return check_usage(stderr, 2);
	if (stage != NULL && (only = stage_index(stage)) < 0) {
		char ids[KD_CAP_STAGE_IDS];
		fprintf(stderr, "kernodeck check: unknown stage \"%s\" (%s)\n", stage,
			stage_id_list(ids, sizeof ids, ", "));
		return 2;
	}
	if (quiet)
		sink.on_line = NULL;
	rc = kd_ctx_open(&ctx, dir, state_dir, KD_LOCK_REQUIRED, &err);
	if (rc != 0) {
		print_err(&err);
		kd_ctx_close(&ctx);
		return rc == KD_EFAIL ? 3 : rc;
	}
	ctx.python_override = python;
	if (strict)
		ctx.strict = 1;
	for (int i = 0; i < KD_NSTAGES; i++) {
		if (only >= 0 && i != only)
			continue;
		if (!quiet)
			fprintf(stderr, "kernodeck: stage %d, %s\n", i + 1, kd_stages[i]->id);
		last = i;
		rc = stage_run(&ctx, i, &sink, NULL, &err);
		if (rc != 0) {
			print_err(&err);
			exit_code = rc;
			break;
		}
		if (!stage_can_advance(&ctx.state, i, why, sizeof why)) {
			if (only < 0)
				fprintf(stderr, "kernodeck: stopped at stage %d (%s): %s\n", i + 1,
					kd_stages[i]->id, why);
			exit_code = 1;
			break;
		}
		if (only < 0 && i + 1 < KD_NSTAGES) {
			ctx.state.current = i + 1;
			kd_ctx_save_state(&ctx, NULL);
		}
	}
	report_print(stdout, &ctx, only, last < 0 ? 0 : last, fmt);
	if (junit != NULL && report_junit(junit, &ctx, only, last < 0 ? 0 : last, &err) != 0) {
		print_err(&err);
		if (exit_code == 0)
			exit_code = 3;
	}
	kd_ctx_close(&ctx);
	return exit_code;
}
