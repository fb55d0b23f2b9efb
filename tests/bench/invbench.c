/*
 * invbench.c - `kd-invbench`: the parsers of tests/bench/parse.sh timed
 * inside one process, without the process start (about 45 shared
 * libraries to map and relocate) and without printing the result, which
 * `kernodeck inspect` and `kernodeck diff` both include.
 *
 *   kd-invbench [-n RUNS] compare A B    inventory_load(A), inventory_load(B)
 *                                        and inventory_compare (the contract
 *                                        stage's work)
 *   kd-invbench [-n RUNS] pip-check FILE inspect_pip_check(FILE)
 *
 * Prints medians over RUNS (default 20), in milliseconds: a line of CPU
 * times (the process's CPU clock, which a busy machine disturbs less than
 * wall time) "cpu_parse_a ... cpu_parse_b ... cpu_compare ... cpu_total
 * ..." (or "cpu_total ..."), a line "wall_total ...", then the counts it
 * found, so that a wrong input cannot pass unnoticed.
 * Files are read each time (from the page cache), as the commands do.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernodeck/inspect.h"
#include "kernodeck/inventory.h"

#define IB_MAX_RUNS 1000

static double
ib_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double
ib_now(void)
{
	return ib_clock(CLOCK_MONOTONIC);
}

static double
ib_cpu(void)
{
	return ib_clock(CLOCK_PROCESS_CPUTIME_ID);
}

static int
ib_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of n values (sorts them). */
static double
ib_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, ib_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int
ib_compare(const char *a, const char *b, int runs)
{
	static double ta[IB_MAX_RUNS], tb[IB_MAX_RUNS], tc[IB_MAX_RUNS], tt[IB_MAX_RUNS];
	static double wt[IB_MAX_RUNS];
	size_t na = 0, nb = 0, nd = 0;
	struct kd_err err = { 0 };

	for (int i = 0; i < runs; i++) {
		json_t *pa = NULL, *pb = NULL, *cmp;
		double w0 = ib_now(), t0 = ib_cpu(), t1, t2, t3;

		if (inventory_load(a, &pa, NULL, &err) != 0 ||
		    (t1 = ib_cpu(), inventory_load(b, &pb, NULL, &err)) != 0) {
			fprintf(stderr, "kd-invbench: %s\n", err.msg);
			json_decref(pa);
			return 2;
		}
		t2 = ib_cpu();
		cmp = inventory_compare(pa, pb, 0);
		t3 = ib_cpu();
		wt[i] = ib_now() - w0;
		ta[i] = t1 - t0;
		tb[i] = t2 - t1;
		tc[i] = t3 - t2;
		tt[i] = t3 - t0;
		na = json_array_size(pa);
		nb = json_array_size(pb);
		nd = json_array_size(json_object_get(cmp, "differences"));
		json_decref(cmp);
		json_decref(pa);
		json_decref(pb);
	}
	printf("cpu_parse_a %.3f cpu_parse_b %.3f cpu_compare %.3f cpu_total %.3f\n",
	       ib_median(ta, runs), ib_median(tb, runs), ib_median(tc, runs), ib_median(tt, runs));
	printf("wall_total %.3f\n", ib_median(wt, runs));
	printf("packages %zu %zu differences %zu\n", na, nb, nd);
	return 0;
}

static int
ib_pip_check(const char *f, int runs)
{
	static double tp[IB_MAX_RUNS], wt[IB_MAX_RUNS];
	struct kd_err err = { 0 };
	size_t np = 0;

	for (int i = 0; i < runs; i++) {
		json_t *out = NULL;
		double w0 = ib_now(), t0 = ib_cpu();

		if (inspect_pip_check(f, &out, &err) != 0) {
			fprintf(stderr, "kd-invbench: %s\n", err.msg);
			return 2;
		}
		tp[i] = ib_cpu() - t0;
		wt[i] = ib_now() - w0;
		np = json_array_size(json_object_get(out, "problems"));
		json_decref(out);
	}
	printf("cpu_total %.3f\n", ib_median(tp, runs));
	printf("wall_total %.3f\n", ib_median(wt, runs));
	printf("problems %zu\n", np);
	return 0;
}

int
main(int argc, char **argv)
{
	int runs = 20, i = 1;

	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		runs = atoi(argv[2]);
		i = 3;
	}
	if (runs < 1 || runs > IB_MAX_RUNS) {
		fprintf(stderr, "kd-invbench: RUNS must be 1 to %d\n", IB_MAX_RUNS);
		return 2;
	}
	if (argc - i == 3 && strcmp(argv[i], "compare") == 0)
		return ib_compare(argv[i + 1], argv[i + 2], runs);
	if (argc - i == 2 && strcmp(argv[i], "pip-check") == 0)
		return ib_pip_check(argv[i + 1], runs);
	fprintf(stderr, "usage: kd-invbench [-n RUNS] compare A B | pip-check FILE\n");
	return 2;
}
