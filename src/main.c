/*
 * main.c - kernodeck's command table: the walkthrough, and the headless
 * commands (check, deviate, act, capture, inspect, replay, diff, fleet, demo,
 * dossier).
 */
#include "config.h"

#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernodeck/cmd.h"
#include "kernodeck/frame.h"
#include "kernodeck/secrets.h"
#include "kernodeck/stop.h"
#include "kernodeck/termout.h"

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
	{ "check", cmd_check, "check [DIR] [--stage ID] [--python PATH] [--strict] [--format text|yaml|json] [--junit FILE]\n"
	  "                  [--state-dir D] [--quiet]" },
	{ "deviate", cmd_deviate, "deviate DIR --stage ID --check CHECK --why TEXT [--what TEXT] [--intentional]\n"
	  "                  [--state-dir D]" },
	{ "act", cmd_act, "act DIR [--stage ID [ACTION [ARG]]] [--yes] [--python PATH] [--state-dir D]" },
	{ "capture", cmd_capture, "capture [DIR] [--python PATH] [--state-dir D]" },
	{ "inspect", cmd_inspect, "inspect KIND FILE [--format text|json|yaml]" },
	{ "hash", cmd_hash, "hash [--cache DIR] [--threads N] [--progress] PATH..." },
	{ "dossier", cmd_dossier, "dossier [DIR] [--state-dir D] [--out DIR] [--relative] [--redact] [--leave-out FILE]..." },
	{ "replay", cmd_replay, "replay DOSSIER [--workdir DIR] [--data DIR] [--python PATH] [--yes]" },
	{ "diff", cmd_diff, "diff A B [--format text|json|yaml] [--all]" },
	{ "fleet", cmd_fleet, "fleet [DIR] [--nodes N] [--stage ID]... [--collective] [--format text|yaml|json] [--junit FILE] [--timeout SECONDS] [--state-dir DIR] [--quiet] [-- SRUN_ARGS...]" },
	{ "demo", main_demo, "demo [DIR] [--training] [--create-only]" },
	{ NULL, NULL, NULL },
};

static void
usage(FILE *fp)
{
	fputs("usage: kernodeck [DIR] [--state-dir DIR] [--python PATH]\n"
	      "       kernodeck COMMAND [ARGS]\n\n"
	      "Walk a PyTorch project through seven stages (reference, system, rebuild,\n"
	      "contract, compute, sample, dossier) until its rebuild is proven.\n\n"
	      "commands:\n", fp);
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
	/* the credentials this machine holds, hidden wherever they appear */
	secrets_collect(environ);
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
				int rc;
				/* every byte a command prints goes through termout
				 * (demo opens the walkthrough: curses owns stdout) */
				termout_install(c->run == main_demo ? 2 : 3);
				rc = c->run(argc - 1, argv + 1);
				/* a command that caught Ctrl-C (stop.h) stopped its
				 * program and saved: now end by the same signal */
				kd_stop_finish();
				return rc;
			}
	termout_install(2);   /* curses owns stdout */
	return cmd_walkthrough(argc, argv);
}
