/*
 * main.c - kernodeck's entry: the walkthrough (screens/), or the headless
 * command named first (the table of src/cmd/cmd.c, KD_CMD_LIST in cmd.h).
 */
#include "config.h"

#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernodeck/caps.h"
#include "kernodeck/cmd.h"
#include "kernodeck/frame.h"
#include "kernodeck/secrets.h"
#include "kernodeck/stage.h"
#include "kernodeck/stop.h"
#include "kernodeck/termout.h"

static void
usage(FILE *fp)
{
	char ids[KD_CAP_STAGE_IDS], line[KD_CAP_STAGE_IDS + 128], syn[KD_CAP_CMD_SYNOPSIS];

	fputs("usage: kernodeck ", fp);
	cmd_put_wrapped(fp, cmd_synopsis(&kd_cmd_walkthrough, syn, sizeof syn), 17, 17, 80);
	fputs("       kernodeck COMMAND [ARGS]\n\n", fp);
	snprintf(line, sizeof line, "Walk a PyTorch project through %s stages (%s) until "
		 "its rebuild is proven.", stage_count_word(), stage_id_list(ids, sizeof ids, ", "));
	cmd_put_wrapped(fp, line, 0, 0, 80);
	fputs("\ncommands:\n", fp);
	for (size_t i = 0; kd_cmd_table[i] != NULL; i++) {
		const struct kd_cmd_entry *e = kd_cmd_table[i];
		size_t lead = strlen("  kernodeck ") + strlen(e->name) + 1;

		fprintf(fp, "  kernodeck %s ", e->name);
		cmd_put_wrapped(fp, cmd_synopsis(e, syn, sizeof syn) + strlen(e->name) + 1, lead,
				lead, 80);
	}
	fputs("\n  kernodeck --help | --version\n\n"
	      "exit status: 0 passed (or deviations recorded), 1 a check failed or a stage is\n"
	      "pending/stale, 2 bad usage or a malformed input file, 3 the environment failed.\n"
	      "See kernodeck(1).\n", fp);
}

/* `kernodeck demo` opens the walkthrough on what it created through this
 * (cmd.h): the core never calls into screens/. */
static int
open_walkthrough(const char *project_dir)
{
	return tui_main(project_dir, NULL, NULL);
}

int
main(int argc, char **argv)
{
	const struct kd_cmd_entry *e;

	setlocale(LC_ALL, "");
	/* a closed stderr pipe must not kill a headless run; children get the
	 * default disposition back (run.c) */
	signal(SIGPIPE, SIG_IGN);
	/* the credentials this machine holds, hidden wherever they appear */
	secrets_collect(environ);
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
			  strcmp(argv[1], "help") == 0)) {
		usage(stdout);
		return KD_EXIT_OK;
	}
	if (argc >= 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)) {
		printf("kernodeck %s\n", PACKAGE_VERSION);
		return KD_EXIT_OK;
	}
	cmd_open_walkthrough = open_walkthrough;
	if (argc >= 2 && (e = cmd_find(argv[1])) != NULL) {
		int rc;
		/* every byte a command prints goes through termout (demo opens
		 * the walkthrough: curses owns stdout) */
		termout_install(e == &kd_cmd_demo ? 2 : 3);
		rc = e->exec(argc - 1, argv + 1);
		/* a command that caught Ctrl-C (stop.h) stopped its program and
		 * saved: now end by the same signal */
		kd_stop_finish();
		return rc;
	}
	termout_install(2);   /* curses owns stdout */
	return cmd_walkthrough(argc, argv);
}
