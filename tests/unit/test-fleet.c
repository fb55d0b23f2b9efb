/* test-fleet.c - the fleet matrix: folding, outliers, durations, unreachable
 * columns, bad node files, and a linear build for many nodes. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernodeck/fleet.h"
#include "kernodeck/fsutil.h"

/* A node file's tree: stage system with os and driver, compute with one
 * timed row. */
static json_t *
node(const char *name, const char *os, const char *os_status, const char *driver, double ms)
{
	char timed[64];

	snprintf(timed, sizeof timed, "passed on cpu in %.1f ms", ms);
	return json_pack("{s:s, s:s, s:s, s:[{s:s, s:s, s:[{s:s, s:s, s:s}, {s:s, s:s, s:s}]},"
			 " {s:s, s:s, s:[{s:s, s:s, s:s}]}]}",
			 "node", name, "run", "r", "status", strcmp(os_status, "pass") ? "failed" : "passed",
			 "stages", "id", "system", "status", "passed", "rows",
			 "id", "system.os", "status", os_status, "observed", os,
			 "id", "system.driver", "status", "pass", "observed", driver,
			 "id", "compute", "status", "passed", "rows",
			 "id", "compute.device", "status", "pass", "observed", timed);
}

static const struct fleet_check *
find(const struct fleet_matrix *m, const char *id)
{
	for (size_t i = 0; i < m->nchecks; i++)
		if (strcmp(m->checks[i].id, id) == 0)
			return &m->checks[i];
	return NULL;
}

static void
test_agree_folds(void **state)
{
	struct fleet_matrix m = { 0 };
	(void)state;
	fleet_add_node(&m, "n1", node("n1", "Debian 12", "pass", "550", 0.1), NULL);
	fleet_add_node(&m, "n2", node("n2", "Debian 12", "pass", "550", 0.4), NULL);
	fleet_add_node(&m, "n3", node("n3", "Debian 12", "pass", "550", 12.5), NULL);
	fleet_build(&m);
	assert_int_equal(m.nchecks, 3);
	assert_int_equal(find(&m, "system.os")->agree, 3);
	assert_int_equal(find(&m, "compute.device")->noutliers, 0);   /* durations left out */
	assert_int_equal(m.ndiffer, 0);
	assert_int_equal(fleet_exit_status(&m), 0);
	fleet_matrix_free(&m);
}

static void
test_outlier_named_even_when_passing(void **state)
{
	struct fleet_matrix m = { 0 };
	json_t *t, *d;
	char sum[128];
	(void)state;
	fleet_add_node(&m, "n1", node("n1", "Debian 12", "pass", "550", 1), NULL);
	fleet_add_node(&m, "n2", node("n2", "Debian 12", "pass", "535", 1), NULL);
	fleet_add_node(&m, "n3", node("n3", "Debian 12", "pass", "550", 1), NULL);
	fleet_build(&m);
	const struct fleet_check *c = find(&m, "system.driver");
	assert_int_equal(c->noutliers, 1);
	assert_string_equal(m.nodes[c->outliers[0]].name, "n2");
	assert_int_equal(m.nfailed, 0);
	assert_int_equal(fleet_exit_status(&m), 1);
	fleet_summary(&m, sum, sizeof sum);
	assert_string_equal(sum, "fleet: 3 nodes, 1 differs");
	t = fleet_tree(&m);
	d = json_array_get(json_object_get(t, "differences"), 0);
	assert_string_equal(json_string_value(json_object_get(d, "check")), "system.driver");
	assert_string_equal(json_string_value(json_object_get(json_object_get(d, "values"), "n2")), "535");
	assert_string_equal(json_string_value(json_object_get(d, "text")),
			    "n2: 535 (pass) where 2 nodes have 550 (pass)");
	json_decref(t);
	fleet_matrix_free(&m);
}

static void
test_unreachable_is_a_column(void **state)
{
	struct fleet_matrix m = { 0 };
	json_t *t;
	(void)state;
	fleet_add_node(&m, "n1", node("n1", "Debian 12", "pass", "550", 1), NULL);
	fleet_add_node(&m, "n2", NULL, "did not answer within 60 s");
	fleet_add_node(&m, "n3", node("n3", "Debian 12", "pass", "550", 1), NULL);
	fleet_build(&m);
	assert_int_equal(m.nunreachable, 1);
	assert_int_equal(m.ndiffer, 0);
	assert_int_equal(fleet_exit_status(&m), 1);
	t = fleet_tree(&m);
	assert_int_equal(json_array_size(json_object_get(t, "differences")), 0);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(t, "nodes"), 1),
							      "status")), "unreachable");
	json_decref(t);
	fleet_matrix_free(&m);
}

static void
test_gather_bad_and_stale_files(void **state)
{
	char dir[] = "/tmp/kd-fleet-test.XXXXXX", p[256], *s;
	const char *expected[] = { "n1", "n2", "n3", "n4" };
	struct fleet_matrix m;
	struct kd_err err = { 0 };
	json_t *t;
	FILE *fp;
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof p, "%s/n1.yaml", dir);
	t = node("n1", "Debian 12", "pass", "550", 1);
	s = json_dumps(t, 0);   /* JSON is YAML */
	json_decref(t);
	fp = fopen(p, "w");
	fputs(s, fp);
	fclose(fp);
	free(s);
	snprintf(p, sizeof p, "%s/n2.yaml", dir);
	fp = fopen(p, "w");
	fputs("node: n2\nstages: [\n", fp);   /* truncated */
	fclose(fp);
	snprintf(p, sizeof p, "%s/n3.yaml", dir);
	fp = fopen(p, "w");
	fputs("node: n3\nrun: old\nstages: []\n", fp);   /* an earlier run */
	fclose(fp);
	assert_int_equal(fleet_gather(&m, dir, "7", expected, NULL, 4, "r", &err), 0);
	assert_int_equal(m.nnodes, 4);
	assert_int_equal(m.nodes[0].status, FLEET_PASSED);
	assert_int_equal(m.nodes[1].status, FLEET_FAILED);
	assert_non_null(strstr(m.nodes[1].reason, "n2.yaml:"));   /* names file and line */
	assert_int_equal(m.nodes[2].status, FLEET_UNREACHABLE);
	assert_non_null(strstr(m.nodes[2].reason, "from run old"));
	assert_int_equal(m.nodes[3].status, FLEET_UNREACHABLE);
	fleet_matrix_free(&m);
	fsutil_rmtree(dir, NULL);
}

/* A node file with an env stage (CUDA_VISIBLE_DEVICES when cvd is not
 * NULL) and a throughput row of gflops. */
static json_t *
node_env(const char *name, const char *cvd, double gflops)
{
	char gf[96];
	json_t *t = node(name, "Debian 12", "pass", "550", 1), *rows = json_array();

	snprintf(gf, sizeof gf, "%.4g GFLOP/s on cpu, float32 256x256 (median of 5 windows of 0.2 s)",
		 gflops);
	json_array_append_new(json_object_get(json_array_get(json_object_get(t, "stages"), 1), "rows"),
			      json_pack("{s:s, s:s, s:s}", "id", "compute.perf-matmul", "status", "info",
					"observed", gf));
	if (cvd != NULL)
		json_array_append_new(rows, json_pack("{s:s, s:s, s:s}", "id", "env.CUDA_VISIBLE_DEVICES",
						      "status", "info", "observed", cvd));
	json_array_append_new(json_object_get(t, "stages"),
			      json_pack("{s:s, s:s, s:o}", "id", FLEET_ENV_STAGE, "status", "passed",
					"rows", rows));
	return t;
}

/* A variable one node sets and the others do not list: "unset" on those,
 * the one node named. */
static void
test_env_unset_is_a_value(void **state)
{
	struct fleet_matrix m = { 0 };
	const struct fleet_check *c;
	json_t *t, *d;
	(void)state;
	fleet_add_node(&m, "n1", node_env("n1", NULL, 10), NULL);
	fleet_add_node(&m, "n2", node_env("n2", NULL, 10), NULL);
	fleet_add_node(&m, "n3", node_env("n3", "1", 10), NULL);
	fleet_add_node(&m, "old", node("old", "Debian 12", "pass", "550", 1), NULL);   /* no env stage */
	fleet_build(&m);
	c = find(&m, "env.CUDA_VISIBLE_DEVICES");
	assert_non_null(c);
	assert_int_equal(c->answered, 3);
	assert_int_equal(c->noutliers, 1);
	assert_string_equal(m.nodes[c->outliers[0]].name, "n3");
	assert_int_equal(fleet_exit_status(&m), 1);
	t = fleet_tree(&m);
	d = NULL;
	for (size_t k = 0; k < json_array_size(json_object_get(t, "differences")); k++) {
		json_t *e = json_array_get(json_object_get(t, "differences"), k);
		if (strcmp(json_string_value(json_object_get(e, "check")), "env.CUDA_VISIBLE_DEVICES") == 0)
			d = e;
	}
	assert_non_null(d);
	assert_string_equal(json_string_value(json_object_get(d, "text")),
			    "n3: 1 (info) where 2 nodes have unset (info); 1 node without this check");
	json_decref(t);
	fleet_matrix_free(&m);
}

/* Throughputs: a node below the fraction of the median is named with the
 * median; another fraction judges again; noise above it is no difference. */
static void
test_slow_node_below_median(void **state)
{
	struct fleet_matrix m = { 0 };
	const struct fleet_check *c;
	json_t *t, *d;
	(void)state;
	fleet_add_node(&m, "n1", node_env("n1", NULL, 10), NULL);
	fleet_add_node(&m, "n2", node_env("n2", NULL, 2), NULL);
	fleet_add_node(&m, "n3", node_env("n3", NULL, 9), NULL);
	fleet_add_node(&m, "n4", node_env("n4", NULL, 11), NULL);
	fleet_add_node(&m, "n5", node_env("n5", NULL, 7.5), NULL);
	fleet_build(&m);
	c = find(&m, "compute.perf-matmul");
	assert_true(c->measured);
	assert_true(c->median > 8.99 && c->median < 9.01);
	assert_int_equal(c->noutliers, 1);   /* 7.5 >= 0.8 x 9: not slow */
	assert_string_equal(m.nodes[c->outliers[0]].name, "n2");
	t = fleet_tree(&m);
	d = json_array_get(json_object_get(t, "differences"), 0);
	assert_string_equal(json_string_value(json_object_get(d, "text")),
			    "n2: 2 GFLOP/s on cpu, float32 256x256 (median of 5 windows of 0.2 s) (info), "
			    "below 0.8 of the fleet's median 9; where 4 nodes have 10 GFLOP/s on cpu, float32 "
			    "256x256 (median of 5 windows of 0.2 s) (info)");
	json_decref(t);
	fleet_set_slow(&m, 0.9);
	c = find(&m, "compute.perf-matmul");
	assert_int_equal(c->noutliers, 2);
	assert_int_equal(m.ndiffer, 2);
	fleet_set_slow(&m, 0.1);
	assert_int_equal(find(&m, "compute.perf-matmul")->noutliers, 0);
	assert_int_equal(fleet_exit_status(&m), 0);
	fleet_matrix_free(&m);
}

/* 20,000 nodes: linear, well under a second on any machine (a quadratic
 * build would take minutes). */
static void
test_many_nodes_linear(void **state)
{
	struct fleet_matrix m = { 0 };
	char name[32];
	clock_t t0;
	(void)state;
	for (int i = 0; i < 20000; i++) {
		snprintf(name, sizeof name, "n%05d", i);
		fleet_add_node(&m, name, node(name, "Debian 12", "pass", i % 1000 == 3 ? "535" : "550", i % 9), NULL);
	}
	t0 = clock();
	fleet_build(&m);
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 5.0);
	assert_int_equal(find(&m, "system.driver")->noutliers, 20);
	assert_int_equal(find(&m, "system.driver")->agree, 19980);
	assert_int_equal(m.ndiffer, 20);
	fleet_matrix_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agree_folds),
		cmocka_unit_test(test_outlier_named_even_when_passing),
		cmocka_unit_test(test_unreachable_is_a_column),
		cmocka_unit_test(test_gather_bad_and_stale_files),
		cmocka_unit_test(test_env_unset_is_a_value),
		cmocka_unit_test(test_slow_node_below_median),
		cmocka_unit_test(test_many_nodes_linear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
