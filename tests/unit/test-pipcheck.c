/* test-pipcheck.c - pip check parsing on the real outputs of
 * tests/fixtures/pip (sources in its SOURCES.md) and on kernodeck's own. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/inspect.h"
#include "kernodeck/parse-pipcheck.h"

#define FIX KD_SRCDIR "/tests/fixtures/pip/pip_check/"

static json_t *
load(const char *name)
{
	struct kd_err err = { 0 };
	json_t *t = NULL;

	if (inspect_pip_check(name, &t, &err) != 0)
		fail_msg("%s: %s", name, err.msg);
	return t;
}

static const char *
s(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));
	return v ? v : "(null)";
}

/* (package, version, requirement, kind, installed version) */
static void
is(const json_t *t, size_t i, const char *pkg, const char *ver, const char *req,
   const char *kind, const char *inst)
{
	const json_t *p = json_array_get(json_object_get(t, "problems"), i);

	assert_non_null(p);
	assert_string_equal(s(p, "package"), pkg);
	assert_string_equal(s(p, "version"), ver);
	assert_string_equal(s(p, "requirement"), req);
	assert_string_equal(s(p, "kind"), kind);
	assert_string_equal(s(p, "installed_version"), inst);
}

static size_t
nprob(const json_t *t)
{
	return json_array_size(json_object_get(t, "problems"));
}

static void
test_real_02_missing(void **state)
{
	json_t *t = load(FIX "02.txt");

	(void)state;
	assert_int_equal(nprob(t), 6);
	is(t, 0, "pytest", "3.3.1", "funcsigs", "missing", "(null)");
	is(t, 1, "pytest-mock", "1.6.3", "mock", "missing", "(null)");
	is(t, 2, "pickleshare", "0.7.4", "pathlib2", "missing", "(null)");
	is(t, 3, "ipython", "5.5.0", "backports.shutil-get-terminal-size", "missing", "(null)");
	is(t, 4, "ipython", "5.5.0", "pathlib2", "missing", "(null)");
	is(t, 5, "flake8", "3.5.0", "configparser", "missing", "(null)");
	assert_string_equal(s(json_array_get(json_object_get(t, "problems"), 3),
			      "canonical_dependency"), "backports-shutil-get-terminal-size");
	assert_string_equal(s(json_array_get(json_object_get(t, "problems"), 0), "line"),
			    "pytest 3.3.1 requires funcsigs, which is not installed.");
	assert_true(json_is_false(json_object_get(t, "clean")));
	json_decref(t);
}

static void
test_real_03_unsupported(void **state)
{
	json_t *t = load(FIX "03.txt");

	(void)state;
	assert_int_equal(nprob(t), 2);
	is(t, 0, "pycp2k", "0.2.2", "(null)", "unsupported", "(null)");
	is(t, 1, "transitions", "0.7.2", "(null)", "unsupported", "(null)");
	/* conda-build's WARNING after the output is not a problem */
	assert_int_equal(json_array_size(json_object_get(t, "warnings")), 1);
	json_decref(t);
}

static void
test_real_08_conflict_exit(void **state)
{
	json_t *t = load(FIX "08.txt");

	(void)state;
	assert_int_equal(nprob(t), 1);
	is(t, 0, "pyramid", "1.5.2", "WebOb>=1.3.1", "conflict", "0.8");
	assert_string_equal(s(json_array_get(json_object_get(t, "problems"), 0), "dependency"),
			    "WebOb");
	assert_int_equal(json_integer_value(json_object_get(t, "exit_code")), 1);
	json_decref(t);
}

static void
test_real_10_zero_version(void **state)
{
	json_t *t = load(FIX "10.txt");

	(void)state;
	assert_int_equal(nprob(t), 1);
	is(t, 0, "orix", "0.13.1", "diffpy-structure>=3.0.2", "conflict", "0.0.0");
	assert_true(json_is_null(json_object_get(t, "exit_code")));
	json_decref(t);
}

static void
test_clean(void **state)
{
	json_t *t = load(FIX "k01-clean.txt");

	(void)state;
	assert_int_equal(nprob(t), 0);
	assert_true(json_is_true(json_object_get(t, "clean")));
	assert_int_equal(json_integer_value(json_object_get(t, "exit_code")), 0);
	json_decref(t);
}

static void
test_mixed(void **state)
{
	json_t *t = load(FIX "k02-mixed.txt");

	(void)state;
	assert_int_equal(nprob(t), 5);
	is(t, 0, "tb-nightly", "2.1.0", "absl-py>=0.4", "missing", "(null)");
	assert_string_equal(s(json_array_get(json_object_get(t, "problems"), 0), "dependency"),
			    "absl-py");
	is(t, 1, "mypkg", "1.0", "foo[bar,baz]<2,>=1.5; python_version >= \"3.8\"", "conflict",
	   "2.1");
	/* split on the LAST ", but you have " */
	is(t, 2, "odd", "0.1", "x; extra == \", but you have \"", "conflict", "3.0+cpu");
	is(t, 3, "win-only", "1.2", "(null)", "unsupported", "(null)");
	is(t, 4, "(null)", "(null)", "(null)", "unknown", "(null)");
	assert_string_equal(s(json_array_get(json_object_get(t, "problems"), 4), "line"),
			    "Something pip printed that nobody expected");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(
		json_object_get(t, "problems"), 4), "line_number")), 8);
	assert_int_equal(json_array_size(json_object_get(t, "warnings")), 1);
	assert_int_equal(json_integer_value(json_object_get(t, "exit_code")), 1);
	json_decref(t);
}

/* A pip check pasted in an e-mail ("> ", "> > ") with the fence glued to
 * its last line: the version is "10.0.0b2", not "10.0.0b2.```". */
static void
test_pasted_quoted_fence(void **state)
{
	struct kd_err err = { 0 };
	json_t *t = NULL;
	static const char txt[] = "> ```\n> $ pip check\n"
		"> > flake8 3.5.0 requires configparser, which is not installed.\n"
		">> foo 1.0 has requirement pip>=10, but you have pip 10.0.0b2.```\n";

	(void)state;
	assert_int_equal(pipcheck_parse(txt, sizeof txt - 1, "<q>", &t, &err), 0);
	assert_int_equal(nprob(t), 2);
	is(t, 0, "flake8", "3.5.0", "configparser", "missing", "(null)");
	is(t, 1, "foo", "1.0", "pip>=10", "conflict", "10.0.0b2");
	json_decref(t);
}

static void
test_errors(void **state)
{
	struct kd_err err = { 0 };
	json_t *t = NULL;

	(void)state;
	assert_int_equal(pipcheck_parse("a\0b", 3, "bin", &t, &err), KD_EINPUT);
	assert_null(t);
	assert_int_equal(inspect_pip_check(FIX "nope.txt", &t, &err), KD_EINPUT);
	assert_int_equal(pipcheck_parse("", 0, "empty", &t, &err), 0);
	assert_int_equal(nprob(t), 0);
	json_decref(t);
	/* a half line is unknown, never a crash */
	assert_int_equal(pipcheck_parse("x 1 has requirement y, but you have", 35, "h", &t, &err), 0);
	assert_string_equal(s(json_array_get(json_object_get(t, "problems"), 0), "kind"), "unknown");
	json_decref(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_02_missing),
		cmocka_unit_test(test_real_03_unsupported),
		cmocka_unit_test(test_real_08_conflict_exit),
		cmocka_unit_test(test_real_10_zero_version),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_pasted_quoted_fence),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
