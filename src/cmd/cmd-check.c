/*
 * cmd-check.c - `kernodeck check`: the stages headless, under the same
 * rules as the walkthrough.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/caps.h"
#include "kernodeck/cmd.h"
#include "kernodeck/fleet.h"
#include "kernodeck/paths.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/ctx.h"
#include "kernodeck/report.h"
#include "kernodeck/runner.h"
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

/* DIR has no kernodeck/ yet and is a subfolder of a git repository: it is
 * not made a project (its kernodeck/ would go into the parent's
 * .git/info/exclude) unless --init says so.  The project above, when there
 * is one, is named.  Returns 0, or 2 with the message printed. */
static int
check_not_subfolder(const char *dir)
{
	char *abs = kd_abspath(dir), *kd = abs ? fsutil_join(abs, "kernodeck") : NULL;
	char *top = NULL, *p;
	int rc = 0;

	if (abs == NULL || kd == NULL || fsutil_exists(kd))
		goto out;
	/* the nearest folder above holding .git */
	top = strdup(abs);
	while (top != NULL && (p = strrchr(top, '/')) != NULL && p != top) {
		char *g;
		*p = '\0';
		g = fsutil_join(top, ".git");
		if (g != NULL && fsutil_exists(g)) {
			char *tk = fsutil_join(top, "kernodeck");
			if (tk != NULL && fsutil_exists(tk))
				fprintf(stderr, "kernodeck check: %s is a subfolder of the project %s: "
					"run kernodeck check %s\n", abs, top, top);
			else
				fprintf(stderr, "kernodeck check: %s is a subfolder of the git repository "
					"%s, not a project: run kernodeck check %s, or give --init to "
					"make this folder a project (its kernodeck/ then goes into %s/.git/"
					"info/exclude); nothing was written\n", abs, top, top, top);
			free(tk);
			free(g);
			rc = 2;
			break;
		}
		free(g);
	}
out:
	free(top);
	free(kd);
	free(abs);
	return rc;
}

/* Is abs, or a folder above it, a git repository? */
static int
in_git_repository(const char *abs)
{
	char *top = strdup(abs), *p;
	int found = 0;

	while (top != NULL && !found) {
		char *g = fsutil_join(top, ".git");
		found = g != NULL && fsutil_exists(g);
		free(g);
		if ((p = strrchr(top, '/')) == NULL || p == top)
			break;
		*p = '\0';
	}
	free(top);
	return found;
}

/* DIR is a project when its state folder (kernodeck/, or --state-dir) is
 * there already (made by kernodeck init, check --init or an earlier check)
 * or when it is in a git repository.  Anything else, a plain folder, is not
 * made one unless asked: 2 with the message printed, nothing written. */
static int
check_is_project(const char *dir, const char *state_dir)
{
	char *abs = kd_abspath(dir);
	char *sd = state_dir ? kd_abspath(state_dir) : abs ? fsutil_join(abs, "kernodeck") : NULL;
	struct stat st;
	int rc = 0;

	if (abs == NULL || sd == NULL || stat(abs, &st) != 0 || !S_ISDIR(st.st_mode) || fsutil_exists(sd) ||
	    in_git_repository(abs))
		goto out;
	fprintf(stderr, "kernodeck check: %s is not a project: no git repository and no %s "
		"(reference.yaml, state.yaml); nothing was written.  To make it one, run "
		"kernodeck init %s (or kernodeck check --init %s)\n", abs,
		state_dir ? sd : "kernodeck/ folder", dir, dir);
	rc = 2;
out:
	free(sd);
	free(abs);
	return rc;
}

/* check --stage ID headless follows the walkthrough's rule: an earlier
 * stage that failed, is stale or was cancelled blocks it unless --force.
 * Blocked: the message, the report of the stages up to it, and 1; -1 when
 * the stage may run. */
static int
check_gate(struct kd_ctx *ctx, int only, int force, enum kd_format fmt, const char *junit)
{
	struct kd_err err = { 0 };
	char why[2048];
	int b = stage_gate(ctx, only, why, sizeof why);

	if (b < 0)
		return -1;
	if (force) {
		fprintf(stderr, "kernodeck check: --force: stage %d (%s) runs although %s\n",
			only + 1, kd_stages[only]->id, why);
		return -1;
	}
	fprintf(stderr, "kernodeck check: stage %d (%s) was not run: %s  Check the stages in "
		"order (kernodeck check %s), or give --force to run %s anyway.\n", only + 1,
		kd_stages[only]->id, why, ctx->project_dir, kd_stages[only]->id);
	if (!ctx->readonly)
		kd_ctx_save_state(ctx, NULL);   /* a stale mark the gate found */
	report_print(stdout, ctx, -1, only, fmt);
	if (junit != NULL && report_junit(junit, ctx, -1, only, &err) != 0) {
		print_err(&err);
		return KD_EXIT_ENV;
	}
	return KD_EXIT_FAILED;
}

static int
cmd_check(int argc, char **argv)
{
	const struct kd_cmd_entry *e = &kd_cmd_check;
	const char *stage = NULL, *python = NULL, *junit = NULL, *state_dir = NULL, *dir = ".";
	enum kd_format fmt = KD_FMT_TEXT;
	struct kd_sink sink = { kd_sink_print_step, check_on_line, kd_stop_requested, NULL };
	struct kd_err err = { 0 };
	struct kd_ctx ctx;
	struct kd_runner run;
	int c, only = -1, last = -1, rc, strict = 0, quiet = 0, exit_code = KD_EXIT_OK, init = 0;
	int force = 0;
	char why[2048];

	kd_stop_install();   /* Ctrl-C stops the running program, then kernodeck */
	cmd_getopt_reset();
	while ((c = cmd_getopt(e, argc, argv)) != -1) {
		switch (c) {
		case 's': stage = optarg; break;
		case 'p': python = optarg; break;
		case 'j': junit = optarg; break;
		case 'd': state_dir = optarg; break;
		case 'S': strict = 1; break;
		case 'q': quiet = 1; break;
		case 'I': init = 1; break;
		case 'F': force = 1; break;
		case 'f':
			if (report_parse_format(optarg, &fmt) != 0) {
				fprintf(stderr, "kernodeck check: unknown format \"%s\" (text, yaml or json)\n", optarg);
				return KD_EXIT_USAGE;
			}
			break;
		case KD_CMD_HELP: return cmd_help(e);
		default: return cmd_usage_error(e, NULL);
		}
	}
	if (optind < argc)
		dir = argv[optind++];
	if (optind < argc)
		return cmd_usage_error(e, "one project folder at most");
	if (stage != NULL && (only = stage_index(stage)) < 0) {
		char ids[KD_CAP_STAGE_IDS];
		fprintf(stderr, "kernodeck check: unknown stage \"%s\" (%s)\n", stage,
			stage_id_list(ids, sizeof ids, ", "));
		return KD_EXIT_USAGE;
	}
	if (quiet) {   /* no progress either: a run that passes says nothing on stderr */
		sink.on_line = NULL;
		sink.on_step = NULL;
	}
	if (!init && state_dir == NULL && (rc = check_not_subfolder(dir)) != 0)
		return rc;
	if (!init && (rc = check_is_project(dir, state_dir)) != 0)
		return rc;
	rc = kd_ctx_open(&ctx, dir, state_dir, KD_LOCK_REQUIRED, &err);
	if (rc != 0) {
		print_err(&err);
		kd_ctx_close(&ctx);
		return rc == KD_EFAIL ? KD_EXIT_ENV : rc;
	}
	ctx.python_override = python;
	runner_begin(&run, &ctx, only < 0, fleet_latest);   /* every stage, one after the other */
	if (strict)
		ctx.strict = ctx.strict_verdict = 1;
	if (only > 0 && (rc = check_gate(&ctx, only, force, fmt, junit)) >= 0) {
		kd_ctx_close(&ctx);
		return rc;
	}
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
			exit_code = KD_EXIT_FAILED;
			break;
		}
		if (strict && !stage_strict_ok(&ctx.state, i, why, sizeof why)) {
			fprintf(stderr, "kernodeck: --strict: stage %d (%s): %s\n", i + 1,
				kd_stages[i]->id, why);
			exit_code = KD_EXIT_FAILED;
		}
		if (only < 0 && i + 1 < KD_NSTAGES) {
			ctx.state.current = i + 1;
			kd_ctx_save_state(&ctx, NULL);
		}
	}
	runner_end(&run);
	report_print(stdout, &ctx, only, last < 0 ? 0 : last, fmt);
	if (junit != NULL && report_junit(junit, &ctx, only, last < 0 ? 0 : last, &err) != 0) {
		print_err(&err);
		if (exit_code == KD_EXIT_OK)
			exit_code = KD_EXIT_ENV;
	}
	kd_ctx_close(&ctx);
	return exit_code;
}

static const struct kd_opt check_opts[] = {
	{ "stage", 's', "ID", 0 },
	{ "python", 'p', "PATH", 0 },
	{ "strict", 'S', NULL, 0 },
	{ "format", 'f', "text|yaml|json", 0 },
	{ "junit", 'j', "FILE", 0 },
	{ "state-dir", 'd', "DIR", 0 },
	{ "quiet", 'q', NULL, 0 },
	{ "init", 'I', NULL, 0 },
	{ "force", 'F', NULL, 0 },
	{ NULL, 0, NULL, 0 },
};

const struct kd_cmd_entry kd_cmd_check = {
	.name = "check",
	.args = "[DIR]",
	.opts = check_opts,
	.exec = cmd_check,
};
