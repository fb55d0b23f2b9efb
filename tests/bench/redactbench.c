/*
 * redactbench.c - time redact_text on one file (the redaction benchmark,
 * tests/bench/redact.sh): prints the best of RUNS runs, with VALUES
 * values registered by value first (as secrets_collect does at start).
 *
 * Usage: kd-redactbench FILE [RUNS] [VALUES]
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
	int values = argc > 3 ? atoi(argv[3]) : 0;

	if (argc < 2 || fsutil_read_file(argv[1], 1u << 30, &buf, &len, &err) != 0) {
		fprintf(stderr, "usage: redactbench FILE [RUNS]\n");
		return 2;
	}
	for (int i = 0; i < values; i++) {
		char name[32], v[32];
		snprintf(name, sizeof name, "BENCH_%d_TOKEN", i);
		snprintf(v, sizeof v, "Zq%08dxK!%04d", i * 7919, i);
		redact_value_add(name, v);
	}
	for (int i = 0; i < runs; i++) {
		double t0 = now();
		out = redact_text(buf, len, &olen);
		double t = now() - t0;
		if (t < best)
			best = t;
		free(out);
	}
	printf("%zu bytes, %d known values: redact_text best of %d: %.1f ms\n", len, values,
	       runs, best * 1e3);
	free(buf);
	return 0;
}
