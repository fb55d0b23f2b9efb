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
deviate_usage(FILE *fp, int rc)
{
	fputs("usage: kernodeck deviate DIR --stage ID --check CHECK --why TEXT\n"
	      "                         [--what TEXT] [--intentional] [--state-dir DIR]\n"
	      "       kernodeck deviate DIR --stage ID --check CHECK --withdraw [--state-dir DIR]\n",
	      fp);
	return rc;
}

int
cmd_deviate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "stage", required_argument, NULL, 's' },
		{ "check", required_argument, NULL, 'c' },
		{ "why", required_argument, NULL, 'w' },
		{ "what", required_argument, NULL, 'W' },
		{ "intentional", no_argument, NULL, 'i' },
		{ "withdraw", no_argument, NULL, 'x' },
		{ "state-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *stage = NULL, *check = NULL, *why = NULL, *what = NULL, *state_dir = NULL;
	const char *dir = NULL;
	struct kd_err err = { 0 };
	struct kd_ctx ctx;
	int c, i, rc, intentional = 0, withdraw = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's': stage = optarg; break;
		case 'c': check = optarg; break;
		case 'w': why = optarg; break;
		case 'W': what = optarg; break;
		case 'i': intentional = 1; break;
		case 'x': withdraw = 1; break;
		case 'd': state_dir = optarg; break;
		case 'h': return deviate_usage(stdout, 0);
		default: return deviate_usage(stderr, 2);
		}
	}
	if (optind < argc)
		dir = argv[optind++];
	if (dir == NULL || optind < argc || stage == NULL || check == NULL ||
	    (why == NULL) != (withdraw != 0) || (withdraw && (what || intentional)))
		return deviate_usage(stderr, 2);
	if ((i = stage_index(stage)) < 0) {
		fprintf(stderr, "kernodeck deviate: unknown stage \"%s\"\n", stage);
		return 2;
	}
	rc = kd_ctx_open(&ctx, dir, state_dir, KD_LOCK_REQUIRED, &err);
	if (rc == 0 && withdraw)
		rc = stage_withdraw_deviation(&ctx.state, i, check, &err);
	else if (rc == 0)
		rc = stage_record_deviation(&ctx.state, i, check, what, why, intentional,
					    kd_author(), &err);
	if (rc == 0)
		rc = kd_ctx_save_state(&ctx, &err);
	if (rc != 0) {
		print_err(&err);
		kd_ctx_close(&ctx);
		return rc == KD_EFAIL ? 3 : rc;
	}
	if (withdraw)
		printf("deviation withdrawn: stage %s, check %s; stage is now %s\n", stage, check,
		       kd_status_name(ctx.state.st[i].status));
	else
		printf("deviation recorded: stage %s, check %s (%s); stage is now %s\n", stage,
		       check, intentional ? "intentional" : "to fix",
		       kd_status_name(ctx.state.st[i].status));
	kd_ctx_close(&ctx);
	return 0;
}
