/*
 * redactbench.c - time redact_text and redact_scan on one file (the
 * redaction benchmark, tests/bench/redact.sh): prints the best of N runs.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/redact.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	struct kd_err err;
	char *buf = NULL, *out;
	size_t len = 0, olen;
	double best = 1e9;
	int runs = argc > 2 ? atoi(argv[2]) : 5;

	if (argc < 2 || fsutil_read_file(argv[1], 1u << 30, &buf, &len, &err) != 0) {
		fprintf(stderr, "usage: redactbench FILE [RUNS]\n");
		return 2;
	}
	for (int i = 0; i < runs; i++) {
		double t0 = now();
		out = redact_text(buf, len, &olen);
		double t = now() - t0;
		if (t < best)
			best = t;
		free(out);
	}
	printf("%zu bytes: redact_text best of %d: %.1f ms\n", len, runs, best * 1e3);
	free(buf);
	return 0;
}
