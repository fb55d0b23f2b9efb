/*
 * cmd-act.c - `kernodeck act DIR [--stage ID [ACTION [ARG]]] [--yes]
 * [--python PATH] [--state-dir DIR]`: a stage's walkthrough actions
 * headless.
 *
 * Without ACTION it lists the stage's actions (all stages' without
 * --stage): name, key, what ARG they take and, for a required ARG, those
 * the last check offers.  With ACTION it runs the very `run`
 * function the walkthrough's key runs, under the same lock, with ARG made
 * into the row id the walkthrough would pass (the action's arg_prefix put
 * before it), then saves the state as the frame does, and prints what the
 * action said and each stage status that changed.  An action with a
 * `confirm` text asks first on a terminal (--yes: do not ask; without a
 * terminal and without --yes it declines, exit 1).
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
#include "kernodeck/stage.h"
#include "kernodeck/stop.h"

static void
act_on_line(void *u, const char *line, size_t len)
{
	(void)u;
	printf("%.*s\n", (int)len, line);
	fflush(stdout);
}

static const struct kd_action *
find_action(const struct kd_stage_ops *st, const char *name)
{
	for (size_t k = 0; k < st->nactions; k++)
		if (strcmp(st->actions[k].name, name) == 0)
			return &st->actions[k];
	return NULL;
}

/* The ARGs the saved rows of stage i offer to action a, which requires one:
 * the ids that start with its prefix, each cut at the next dot, once. */
static void
list_args(const struct kd_ctx *ctx, int i, const struct kd_action *a)
{
	const struct kd_rows *rows = &ctx->state.st[i].rows;
	size_t plen = strlen(a->arg_prefix), shown = 0;

	for (size_t r = 0; r < rows->n; r++) {
		const char *id = rows->v[r].id, *w;
		int seen = 0;
		size_t n;

		if (id == NULL || strncmp(id, a->arg_prefix, plen) != 0 || id[plen] == '\0')
			continue;
		w = id + plen;
		n = strcspn(w, ".");
		for (size_t q = 0; q < r && !seen; q++) {
			const char *o = rows->v[q].id;
			seen = o != NULL && strncmp(o, a->arg_prefix, plen) == 0 &&
			       strncmp(o + plen, w, n) == 0 && (o[plen + n] == '.' || o[plen + n] == '\0');
		}
		if (seen)
			continue;
		printf("%s%.*s", shown++ ? ", " : "      last check: ", (int)n, w);
	}
	if (shown)
		putchar('\n');
}

static void
list_stage(const struct kd_ctx *ctx, int i)
{
	const struct kd_stage_ops *st = kd_stages[i];
	char word[80];

	printf("%s:\n", st->id);
	if (st->nactions == 0)
		printf("  (no actions)\n");
	for (size_t k = 0; k < st->nactions; k++) {
		const struct kd_action *a = &st->actions[k];

		if (a->arg_name == NULL)
			snprintf(word, sizeof word, "%s", a->name);
		else
			snprintf(word, sizeof word, a->arg_required ? "%s %s" : "%s [%s]", a->name,
				 a->arg_name);
		printf("  %-24s (key %c) %s%s\n", word, a->key, a->label,
		       a->confirm ? "; asks first (--yes)" : "");
		if (a->arg_required && a->arg_prefix != NULL)
			list_args(ctx, i, a);
	}
}

/* Ask once on the terminal.  1: go on. */
static int
confirm(const struct kd_action *a, const char *stage, int yes)
{
	char line[64];

	if (yes)
		return 1;
	if (!isatty(STDIN_FILENO)) {
		fprintf(stderr, "kernodeck act: not confirmed: %s %s %s; there is no terminal to "
			"ask, pass --yes to run it\n", stage, a->name, a->confirm);
		return 0;
	}
	fprintf(stderr, "%s %s %s. Go on? [y/N] ", stage, a->name, a->confirm);
	fflush(stderr);
	if (fgets(line, sizeof line, stdin) == NULL)
		return 0;
	return line[0] == 'y' || line[0] == 'Y';
}

/* An action's outcome as the exit status.  It differs from cmd_exit_of on
 * purpose in one code: an action re-runs checks or records a verdict, and
 * its KD_EFAIL (a check failed, a confirmation declined) is exit 1, as
 * `kernodeck check` gives it; the other codes map as every command's do. */
static int
exit_of(int rc)
{
	return rc == 0 || rc == KD_EFAIL ? rc : cmd_exit_of(rc);
}

static int
cmd_act(int argc, char **argv)
{
	const struct kd_cmd_entry *e = &kd_cmd_act;
	const char *stage = NULL, *python = NULL, *state_dir = NULL, *dir = NULL;
	const char *name = NULL, *word = NULL;
	const struct kd_stage_ops *st;
	const struct kd_action *a;
	struct kd_sink sink = { kd_sink_print_step, act_on_line, kd_stop_requested, NULL };
	struct kd_err err = { 0 };
	struct kd_ctx ctx;
	enum kd_status before[KD_NSTAGES];
	char buf[2200], *arg = NULL, ref_before[65];
	int c, i = -1, yes = 0, rc, src;

	kd_stop_install();   /* Ctrl-C stops the running program, then kernodeck */
	cmd_getopt_reset();
	while ((c = cmd_getopt(e, argc, argv)) != -1) {
		switch (c) {
		case 's': stage = optarg; break;
		case 'p': python = optarg; break;
		case 'd': state_dir = optarg; break;
		case 'y': yes = 1; break;
		case KD_CMD_HELP: return cmd_help(e);
		default: return cmd_usage_error(e, NULL);
		}
	}
	if (optind < argc)
		dir = argv[optind++];
	if (optind < argc)
		name = argv[optind++];
	if (optind < argc)
		word = argv[optind++];
	if (dir == NULL || optind < argc)
		return cmd_usage_error(e, NULL);
	if (stage != NULL && (i = stage_index(stage)) < 0) {
		char ids[KD_CAP_STAGE_IDS];
		fprintf(stderr, "kernodeck act: unknown stage \"%s\" (%s)\n", stage,
			stage_id_list(ids, sizeof ids, ", "));
		return KD_EXIT_USAGE;
	}
	if (name == NULL) {
		/* the listing reads the last check's rows; it changes nothing, so
		 * another kernodeck's lock does not stop it */
		if ((rc = cmd_open_project(e, KD_PROJECT_READ, &ctx, dir, state_dir)) != 0)
			return rc;
		for (int s = 0; s < KD_NSTAGES; s++)
			if (i < 0 || s == i)
				list_stage(&ctx, s);
		kd_ctx_close(&ctx);
		return KD_EXIT_OK;
	}
	if (i < 0) {
		return cmd_usage_error(e, "--stage ID is needed to run an action");
	}
	st = kd_stages[i];
	if ((a = find_action(st, name)) == NULL) {
		fprintf(stderr, "kernodeck act: stage %s has no action \"%s\"", st->id, name);
		for (size_t k = 0; k < st->nactions; k++)
			fprintf(stderr, "%s%s", k ? ", " : " (its actions: ", st->actions[k].name);
		fputs(st->nactions ? ")\n" : "; it has none)\n", stderr);
		return KD_EXIT_USAGE;
	}
	if (word == NULL && a->arg_required) {
		fprintf(stderr, "kernodeck act: %s %s needs %s (`kernodeck act %s --stage %s` "
			"lists those of the last check)\n", st->id, a->name, a->arg_name, dir, st->id);
		return KD_EXIT_USAGE;
	}
	if (word != NULL && a->arg_name == NULL) {
		fprintf(stderr, "kernodeck act: %s %s takes no argument (got \"%s\")\n", st->id,
			a->name, word);
		return KD_EXIT_USAGE;
	}
	if (word != NULL) {
		/* the row id, as the walkthrough's selection gives it; a whole row id
		 * (from `kernodeck check --format yaml`) is taken as it is */
		size_t plen = a->arg_prefix ? strlen(a->arg_prefix) : 0;
		size_t len = plen + strlen(word) + 1;
		int whole = plen == 0 || strncmp(word, a->arg_prefix, plen) == 0;

		if (word[0] == '\0') {
			fprintf(stderr, "kernodeck act: %s %s: %s is empty\n", st->id, a->name,
				a->arg_name);
			return KD_EXIT_USAGE;
		}
		if ((arg = malloc(len)) == NULL)
			return KD_EXIT_ENV;
		snprintf(arg, len, "%s%s", whole ? "" : a->arg_prefix, word);
	}
	if (a->confirm != NULL && !confirm(a, st->id, yes)) {
		free(arg);
		return KD_EXIT_FAILED;
	}
	if ((rc = cmd_open_project(e, e->project, &ctx, dir, state_dir)) != 0) {
		free(arg);
		return rc;
	}
	ctx.python_override = python;
	for (int s = 0; s < KD_NSTAGES; s++)
		before[s] = ctx.state.st[s].status;
	memcpy(ref_before, ctx.ref_id, sizeof ref_before);
	kd_err_clear(&err);
	rc = a->run(&ctx, arg, &sink, &err);
	if (rc != 0)
		fprintf(stderr, "kernodeck act: %s %s: %s\n", st->id, a->name,
			kd_err_format(&err, buf, sizeof buf));
	/* the frame saves after every action, whatever it returned */
	kd_err_clear(&err);
	if ((src = kd_ctx_save_state(&ctx, &err)) != 0) {
		fprintf(stderr, "kernodeck act: the state was not saved: %s\n",
			kd_err_format(&err, buf, sizeof buf));
		if (rc == 0)
			rc = src;
	}
	if (strcmp(ref_before, ctx.ref_id) != 0)
		printf("reference.yaml changed\n");
	for (int s = 0; s < KD_NSTAGES; s++)
		if (ctx.state.st[s].status != before[s])
			printf("stage %s: %s -> %s\n", kd_stages[s]->id, kd_status_name(before[s]),
			       kd_status_name(ctx.state.st[s].status));
	if (rc == 0)
		printf("%s %s: done; stage %s is %s\n", st->id, a->name, st->id,
		       kd_status_name(ctx.state.st[i].status));
	kd_ctx_close(&ctx);
	free(arg);
	return exit_of(rc);
}

static const struct kd_opt act_opts[] = {
	{ "stage", 's', "ID [ACTION [ARG]]", 0 },
	{ "yes", 'y', NULL, KD_OPT_SHORT },
	{ "python", 'p', "PATH", 0 },
	{ "state-dir", 'd', "DIR", 0 },
	{ NULL, 0, NULL, 0 },
};

const struct kd_cmd_entry kd_cmd_act = {
	.name = "act",
	.args = "DIR",
	.opts = act_opts,
	.project = KD_PROJECT_LOCKED,   /* the listing: KD_PROJECT_READ */
	.help = "Without ACTION, list the stage's actions (every stage's without --stage).\n"
		"With ACTION, run it as its key in the walkthrough does, save the state and\n"
		"print what changed.  ARG is what the walkthrough's selected row gives: a\n"
		"package for the contract marks, a credential number for leave-out...",
	.exec = cmd_act,
};
