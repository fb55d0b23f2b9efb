/*
 * cmd-deviate.c - `kernodeck deviate DIR --stage ID --check CHECK --why
 * TEXT`: record a deviation headless, under the same rules as the
 * walkthrough (stage_record_deviation); `--withdraw` takes one back.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/cmd.h"
#include "kernodeck/ctx.h"
#include "kernodeck/stage.h"
#include "kernodeck/state.h"

static void
print_err(const struct kd_err *err)
{
	char buf[2200];

	fprintf(stderr, "kernodeck: %s\n", kd_err_format(err, buf, sizeof buf));
}

static int
cmd_deviate(int argc, char **argv)
{
	const struct kd_cmd_entry *e = &kd_cmd_deviate;
	const char *stage = NULL, *check = NULL, *why = NULL, *what = NULL, *state_dir = NULL;
	const char *dir = NULL;
	struct kd_err err = { 0 };
	struct kd_ctx ctx;
	int c, i, rc, intentional = 0, withdraw = 0;

	cmd_getopt_reset();
	while ((c = cmd_getopt(e, argc, argv)) != -1) {
		switch (c) {
		case 's': stage = optarg; break;
		case 'c': check = optarg; break;
		case 'w': why = optarg; break;
		case 'W': what = optarg; break;
		case 'i': intentional = 1; break;
		case 'x': withdraw = 1; break;
		case 'd': state_dir = optarg; break;
		case KD_CMD_HELP: return cmd_help(e);
		default: return cmd_usage_error(e, NULL);
		}
	}
	if (optind < argc)
		dir = argv[optind++];
	if (withdraw && (why || what || intentional))
		return cmd_usage_error(e, "--withdraw takes no --why, --what or --intentional");
	if (dir == NULL || optind < argc || stage == NULL || check == NULL ||
	    (why == NULL && !withdraw))
		return cmd_usage_error(e, NULL);
	if ((i = stage_index(stage)) < 0) {
		fprintf(stderr, "kernodeck deviate: unknown stage \"%s\"\n", stage);
		return KD_EXIT_USAGE;
	}
	if ((rc = cmd_open_project(e, e->project, &ctx, dir, state_dir)) != 0)
		return rc;
	if (withdraw)
		rc = stage_withdraw_deviation(&ctx.state, i, check, &err);
	else
		rc = stage_record_deviation(&ctx.state, i, check, what, why, intentional,
					    kd_author(), &err);
	if (rc == 0)
		rc = kd_ctx_save_state(&ctx, &err);
	if (rc != 0) {
		print_err(&err);
		kd_ctx_close(&ctx);
		return cmd_exit_of(rc);
	}
	if (withdraw)
		printf("deviation withdrawn: stage %s, check %s; stage is now %s\n", stage, check,
		       kd_status_name(ctx.state.st[i].status));
	else
		printf("deviation recorded: stage %s, check %s (%s); stage is now %s\n", stage,
		       check, intentional ? "intentional" : "to fix",
		       kd_status_name(ctx.state.st[i].status));
	kd_ctx_close(&ctx);
	return KD_EXIT_OK;
}

static const struct kd_opt deviate_opts[] = {
	{ "stage", 's', "ID", KD_OPT_NEEDED },
	{ "check", 'c', "CHECK", KD_OPT_NEEDED },
	{ "why", 'w', "TEXT", 0 },
	{ "what", 'W', "TEXT", 0 },
	{ "intentional", 'i', NULL, 0 },
	{ "withdraw", 'x', NULL, 0 },
	{ "state-dir", 'd', "DIR", 0 },
	{ NULL, 0, NULL, 0 },
};

const struct kd_cmd_entry kd_cmd_deviate = {
	.name = "deviate",
	.args = "DIR",
	.opts = deviate_opts,
	.project = KD_PROJECT_LOCKED,
	.help = "Record why a check's difference is accepted (--why, with --what and\n"
		"--intentional), or take back a deviation recorded earlier (--withdraw).\n",
	.exec = cmd_deviate,
};
