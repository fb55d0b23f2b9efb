/* test-metrics.c - the strict metrics.jsonl reader of the resume check:
 * good files, gaps, repeated steps, NaN and infinities, missing keys, a
 * truncated last line, a line that is not JSON, a huge file, and the one
 * restart a resumed run's file may have; every error names file and line. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernodeck/caps.h"
#include "kernodeck/metrics.h"

static char dir[] = "/tmp/kd-test-metrics-XXXXXX";
static char path[512];
static const char *const keys[] = { "loss", "acc" };

static void
put(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Read the file; on an error, its formatted message into msg. */
static int
read_it(const char *text, long long restart, struct kd_metrics *m, char *msg, size_t len)
{
	struct kd_err err = { 0 };
	int rc;

	put(text);
	rc = metrics_read(path, keys, 2, restart, m, &err);
	if (rc != 0)
		kd_err_format(&err, msg, len);
	return rc;
}

static void
expect_error(const char *text, long long restart, const char *want)
{
	struct kd_metrics m;
	char msg[1200] = "", want_full[1200];

	assert_int_equal(read_it(text, restart, &m, msg, sizeof msg), KD_EINPUT);
	snprintf(want_full, sizeof want_full, "%s:%s", path, want);
	if (strstr(msg, want_full) == NULL)
		fail_msg("got \"%s\", wanted \"%s\"", msg, want_full);
	assert_int_equal(m.n, 0);
}

static void
test_good(void **state)
{
	struct kd_metrics m;
	char msg[1200];

	(void)state;
	assert_int_equal(read_it("{\"step\": 1, \"loss\": 2.5, \"acc\": 0.1, \"lr\": 0.1}\n"
				 "{\"step\": 2, \"loss\": 2.25, \"acc\": 0.2, \"note\": \"NaN in a string\"}\n"
				 "\n{\"step\": 3, \"loss\": 1e-3, \"acc\": 1}\n", 0, &m, msg, sizeof msg), 0);
	assert_int_equal(m.n, 3);
	assert_int_equal(m.step[2], 3);
	assert_true(m.v[1 * 2 + 0] == 2.25);
	assert_true(m.v[2 * 2 + 1] == 1.0);
	assert_int_equal(m.line[2], 4);
	assert_int_equal(metrics_find(&m, 2), 1);
	assert_int_equal(metrics_find(&m, 9), -1);
	assert_false(m.truncated_last);
	metrics_free(&m);
}

static void
test_gap_and_repeat(void **state)
{
	(void)state;
	expect_error("{\"step\": 1, \"loss\": 1, \"acc\": 0}\n{\"step\": 3, \"loss\": 1, \"acc\": 0}\n",
		     0, "2: step 3 follows step 1: step 2 is missing");
	expect_error("{\"step\": 1, \"loss\": 1, \"acc\": 0}\n{\"step\": 7, \"loss\": 1, \"acc\": 0}\n",
		     0, "2: step 7 follows step 1: steps 2 to 6 are missing");
	expect_error("{\"step\": 1, \"loss\": 1, \"acc\": 0}\n{\"step\": 2, \"loss\": 1, \"acc\": 0}\n"
		     "{\"step\": 2, \"loss\": 1, \"acc\": 0}\n", 0, "3: step 2 appears again (first on line 2)");
	expect_error("{\"step\": 4, \"loss\": 1, \"acc\": 0}\n{\"step\": 3, \"loss\": 1, \"acc\": 0}\n",
		     0, "2: step 3 comes after step 4");
}

static void
test_nonfinite(void **state)
{
	(void)state;
	expect_error("{\"step\": 1, \"loss\": 1, \"acc\": 0}\n{\"step\": 2, \"loss\": NaN, \"acc\": 0}\n",
		     0, "2: \"loss\" is NaN at step 2");
	expect_error("{\"step\": 1, \"loss\": 1, \"acc\": -Infinity}\n", 0,
		     "1: \"acc\" is -Infinity at step 1");
	expect_error("{\"step\": 1, \"loss\": Infinity, \"acc\": 0}\n", 0, "1: \"loss\" is Infinity at step 1");
}

static void
test_missing_and_bad(void **state)
{
	(void)state;
	expect_error("{\"step\": 1, \"loss\": 1, \"acc\": 0}\n{\"step\": 2, \"acc\": 0}\n", 0,
		     "2: step 2 has no \"loss\"");
	expect_error("{\"loss\": 1, \"acc\": 0}\n", 0, "1: no whole-number \"step\" key");
	expect_error("{\"step\": 1, \"loss\": \"low\", \"acc\": 0}\n", 0, "1: \"loss\" at step 1 is not a number");
	expect_error("{\"step\": 1, \"loss\": 1, \"acc\": 0}\n{\"step\": 2, \"lo\n{\"step\": 3, \"loss\": 1, \"acc\": 0}\n",
		     0, "2: not a JSON object");
	expect_error("[1, 2]\n", 0, "1: not a JSON object (another JSON value)");
	expect_error("", 0, " no step's metrics in the file");
}

static void
test_truncated_last(void **state)
{
	struct kd_metrics m;
	char msg[1200];

	(void)state;
	assert_int_equal(read_it("{\"step\": 1, \"loss\": 1, \"acc\": 0}\n{\"step\": 2, \"loss\": 0.5, \"acc\": 0}\n"
				 "{\"step\": 3, \"lo", 0, &m, msg, sizeof msg), 0);
	assert_int_equal(m.n, 2);
	assert_true(m.truncated_last);
	metrics_free(&m);
	/* a whole object without its newline is kept */
	assert_int_equal(read_it("{\"step\": 1, \"loss\": 1, \"acc\": 0}", 0, &m, msg, sizeof msg), 0);
	assert_int_equal(m.n, 1);
	assert_false(m.truncated_last);
	metrics_free(&m);
}

static void
test_restart(void **state)
{
	struct kd_metrics m;
	char msg[1200];

	(void)state;
	/* killed after step 4, resumed from the checkpoint of step 3 */
	assert_int_equal(read_it("{\"step\": 1, \"loss\": 1, \"acc\": 0}\n{\"step\": 2, \"loss\": 1, \"acc\": 0}\n"
				 "{\"step\": 3, \"loss\": 1, \"acc\": 0}\n{\"step\": 4, \"loss\": 9, \"acc\": 0}\n"
				 "{\"step\": 4, \"loss\": 0.5, \"acc\": 0}\n{\"step\": 5, \"loss\": 0.4, \"acc\": 0}\n",
				 3, &m, msg, sizeof msg), 0);
	assert_int_equal(m.n, 5);
	assert_true(m.restarted);
	assert_int_equal(m.dropped, 1);
	assert_true(m.v[3 * 2] == 0.5);
	metrics_free(&m);
	/* only one restart, and only to the step after the checkpoint */
	expect_error("{\"step\": 1, \"loss\": 1, \"acc\": 0}\n{\"step\": 2, \"loss\": 1, \"acc\": 0}\n"
		     "{\"step\": 3, \"loss\": 1, \"acc\": 0}\n{\"step\": 2, \"loss\": 1, \"acc\": 0}\n",
		     3, "4: step 2 comes after step 3");
}

static void
test_huge(void **state)
{
	FILE *f;
	char msg[1200];
	struct kd_metrics m;
	struct kd_err err = { 0 };

	(void)state;
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), (off_t)KD_CAP_METRICS_FILE + 1), 0);
	fclose(f);
	assert_int_not_equal(metrics_read(path, keys, 2, 0, &m, &err), 0);
	kd_err_format(&err, msg, sizeof msg);
	assert_non_null(strstr(msg, "metrics.jsonl"));
	assert_non_null(strstr(msg, "limit"));
	/* one line over the line cap */
	{
		size_t n = KD_CAP_METRICS_LINE + 100;
		char *big = malloc(n + 64);
		assert_non_null(big);
		strcpy(big, "{\"step\": 1, \"loss\": 1, \"acc\": 0, \"x\": \"");
		memset(big + strlen(big), 'a', n);
		strcpy(big + n, "\"}\n");
		expect_error(big, 0, "1: the line is ");
		free(big);
	}
}

static int
setup(void **state)
{
	(void)state;
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(path, sizeof path, "%s/metrics.jsonl", dir);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	unlink(path);
	rmdir(dir);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_gap_and_repeat),
		cmocka_unit_test(test_nonfinite),
		cmocka_unit_test(test_missing_and_bad),
		cmocka_unit_test(test_truncated_last),
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_huge),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
