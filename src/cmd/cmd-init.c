/*
 * cmd-init.c - `kernodeck init [DIR] [--state-dir DIR]`: make a folder a project, as
 * `check --init` does before it runs the stages, without running them
 * (issue 17, point 13).  The work is reference_init's.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernodeck/cmd.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/paths.h"
#include "kernodeck/reference.h"

/* What init made, or that it found everything there already. */
static void
init_report(const struct kd_ctx *ctx, int had_state, int made_ref, int excluded)
{
	/* stdout is the terminal filter's (termout.h): paths print as they are */
	const char *p = ctx->project_dir, *s = ctx->state_dir;

	if (had_state && !made_ref && excluded == 0) {
		printf("%s is a kernodeck project already (%s): nothing changed\n", p, s);
		return;
	}
	printf("%s is a kernodeck project: %s%s\n", p, s,
	       had_state ? " (there already)" : " made");
	if (made_ref)
		printf("  reference.yaml: written, to fill (schema 1, nothing claimed yet)\n");
	else
		printf("  reference.yaml: kept as it was\n");
	if (excluded > 0)
		printf("  .git/info/exclude: %d line(s) added (kernodeck's folder, .venv-rebuild/)\n",
		       excluded);
	printf("next: fill the reference (kernodeck %s, or kernodeck capture %s on the "
	       "reference machine), then kernodeck check %s\n", p, p, p);
}

static int
cmd_init(int argc, char **argv)
{
	const struct kd_cmd_entry *e = &kd_cmd_init;
	const char *state_dir = NULL, *dir = ".";
	struct kd_err err = { 0 };
	struct kd_ctx ctx;
	char buf[2200], *sd;
	int c, rc, had_state, made_ref = 0, excluded = 0;

	cmd_getopt_reset();
	while ((c = cmd_getopt(e, argc, argv)) != -1) {
		switch (c) {
		case 'd': state_dir = optarg; break;
		case KD_CMD_HELP: return cmd_help(e);
		default: return cmd_usage_error(e, NULL);
		}
	}
	if (optind < argc)
		dir = argv[optind++];
	if (optind < argc)
		return cmd_usage_error(e, "one project folder at most");
	sd = state_dir ? kd_abspath(state_dir) : NULL;
	if (sd == NULL) {
		char *abs = kd_abspath(dir);
		sd = abs ? fsutil_join(abs, "kernodeck") : NULL;
		free(abs);
	}
	had_state = sd != NULL && fsutil_exists(sd);
	free(sd);
	if ((rc = cmd_open_project(e, e->project, &ctx, dir, state_dir)) != 0)
		return rc;
	rc = reference_init(&ctx, &made_ref, &excluded, &err);
	if (rc != 0) {
		fprintf(stderr, "kernodeck init: %s\n", kd_err_format(&err, buf, sizeof buf));
		kd_ctx_close(&ctx);
		return cmd_exit_of(rc);
	}
	init_report(&ctx, had_state, made_ref, excluded);
	kd_ctx_close(&ctx);
	return KD_EXIT_OK;
}

static const struct kd_opt init_opts[] = {
	{ "state-dir", 'd', "DIR", 0 },
	{ NULL, 0, NULL, 0 },
};

const struct kd_cmd_entry kd_cmd_init = {
	.name = "init",
	.args = "[DIR]",
	.opts = init_opts,
	.project = KD_PROJECT_LOCKED,
	.help = "Make DIR (default .) a kernodeck project, as check --init does, without\n"
		"running the stages: its kernodeck/ folder (or --state-dir) with state.yaml\n"
		"and a reference.yaml to fill, and, in a git repository, kernodeck/ and\n"
		".venv-rebuild/ in .git/info/exclude.  What is there already is kept.\n"
		"`kernodeck check` refuses a folder that is in no git repository and has\n"
		"no kernodeck/ folder until it is made a project.",
	.exec = cmd_init,
};
