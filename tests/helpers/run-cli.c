/*
 * run-cli.c - run one program through the runner (src/lib/run.c), for the
 * tests that kill the process holding the runner (tests/unit/test-run.c):
 *
 *   run-cli TIMEOUT PROGRAM [ARG...]
 *
 * Each line of the program's output is printed as it comes, then
 * "run: HOW" (run_describe).  Exit 0 when the program could be run.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "kernodeck/run.h"

static void
on_line(void *u, const char *line, size_t len)
{
	(void)u;
	printf("%.*s\n", (int)len, line);
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	struct run_opts o = { .on_line = on_line, .grace_s = 0.5 };
	struct run_result r;
	struct kd_err err;
	char how[128];

	if (argc < 3) {
		fputs("usage: run-cli TIMEOUT PROGRAM [ARG...]\n", stderr);
		return 2;
	}
	o.timeout_s = atof(argv[1]);
	o.argv = (const char *const *)argv + 2;
	if (run_program(&o, &r, &err) != 0) {
		fprintf(stderr, "run-cli: %s\n", err.msg);
		return 3;
	}
	printf("run: %s\n", run_describe(&r, how, sizeof how));
	run_result_free(&r);
	return 0;
}
