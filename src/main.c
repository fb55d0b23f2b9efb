/*
 * main.c - kernodeck's command table: the walkthrough, and the headless
 * commands (check, deviate, act, capture, inspect, replay, diff, demo, dossier).
 */
#include "config.h"

#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/caps.h"
#include "kernodeck/cmd.h"
#include "kernodeck/frame.h"
#include "kernodeck/stage.h"
#include "kernodeck/stop.h"

/* `kernodeck demo`: create the demo (src/cmd-demo.c), then open the
 * walkthrough on it here, where the program meets screens/. */
static int
main_demo(int argc, char **argv)
{
	char *dir = NULL;
	int rc = cmd_demo(argc, argv, &dir);

	if (rc == 0 && dir != NULL)
		rc = tui_main(dir, NULL, NULL);
	free(dir);
	return rc;
}

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *synopsis;
};

static const struct command commands[] = {
	{ "check", cmd_check, "check [DIR] [--stage ID] [--python PATH] [--format text|yaml|json] [--junit FILE]" },
	{ "deviate", cmd_deviate, "deviate DIR --stage ID --check CHECK --why TEXT [--what TEXT] [--intentional]" },
	{ "act", cmd_act, "act DIR [--stage ID [ACTION [ARG]]] [--yes] [--python PATH]" },
	{ "capture", cmd_capture, "capture [DIR] [--python PATH] [--state-dir DIR]" },
	{ "inspect", cmd_inspect, "inspect KIND FILE [--format text|json|yaml]" },
	{ "hash", cmd_hash, "hash [--cache DIR] [--threads N] [--progress] PATH..." },
	{ "dossier", cmd_dossier, "dossier [DIR] [--out DIR] [--relative] [--redact] [--leave-out FILE]" },
	{ "replay", cmd_replay, "replay DOSSIER [--workdir DIR] [--data DIR] [--python PATH] [--yes]" },
	{ "diff", cmd_diff, "diff A B [--format text|json]" },
	{ "demo", main_demo, "demo [DIR] [--create-only]" },
	{ NULL, NULL, NULL },
};

/* Print text with its words wrapped before column width (text has single
 * spaces and no newline). */
static void
put_wrapped(FILE *fp, const char *text, size_t width)
{
	size_t col = 0;

	for (const char *w = text, *e; *w != '\0'; w = *e ? e + 1 : e) {
		size_t n;
		e = strchr(w, ' ');
		if (e == NULL)
			e = w + strlen(w);
		n = (size_t)(e - w);
		if (col > 0 && col + 1 + n >= width) {
			fputc('\n', fp);
			col = 0;
		} else if (col > 0) {
			fputc(' ', fp);
			col++;
		}
		fwrite(w, 1, n, fp);
		col += n;
	}
	fputc('\n', fp);
}

_Static_assert(KD_NSTAGES == 7, "the usage below says seven stages");

static void
usage(FILE *fp)
{
	char ids[KD_CAP_STAGE_IDS], line[KD_CAP_STAGE_IDS + 128];

	fputs("usage: kernodeck [DIR] [--state-dir DIR] [--python PATH]\n"
	      "       kernodeck COMMAND [ARGS]\n\n", fp);
	snprintf(line, sizeof line, "Walk a PyTorch project through seven stages (%s) until "
		 "its rebuild is proven.", stage_id_list(ids, sizeof ids, ", "));
	put_wrapped(fp, line, 80);
	fputs("\ncommands:\n", fp);
	for (const struct command *c = commands; c->name; c++)
		fprintf(fp, "  kernodeck %s\n", c->synopsis);
	fputs("\n  kernodeck --help | --version\n\n"
	      "exit status: 0 passed (or deviations recorded), 1 a check failed or a stage is\n"
	      "pending/stale, 2 bad usage or a malformed input file, 3 the environment failed.\n"
	      "See kernodeck(1).\n", fp);
}

int
main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	/* a closed stderr pipe must not kill a headless run; children get the
	 * default disposition back (run.c) */
	signal(SIGPIPE, SIG_IGN);
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
			  strcmp(argv[1], "help") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)) {
		printf("kernodeck %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (argc >= 2)
		for (const struct command *c = commands; c->name; c++)
			if (strcmp(argv[1], c->name) == 0) {
				int rc = c->run(argc - 1, argv + 1);
				/* a command that caught Ctrl-C (stop.h) stopped its
				 * program and saved: now end by the same signal */
				kd_stop_finish();
				return rc;
			}
	return cmd_walkthrough(argc, argv);
}
