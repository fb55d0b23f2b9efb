/* test-freeze.c - pip freeze parsing on the real outputs of
 * tests/fixtures/pip (sources in its SOURCES.md) and on kernodeck's own. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/caps.h"
#include "kernodeck/parse-freeze.h"
#include "kernodeck/inspect.h"
#include "kernodeck/pipline.h"

#define FIX KD_SRCDIR "/tests/fixtures/pip/pip_freeze/"

static json_t *
load(const char *name)
{
	struct kd_err err = { 0 };
	json_t *t = NULL;

	if (inspect_freeze(name, &t, &err) != 0)
		fail_msg("%s: %s", name, err.msg);
	return t;
}

static size_t
count_kind(const json_t *t, const char *list, const char *kind)
{
	const json_t *p;
	size_t i, n = 0;

	json_array_foreach(json_object_get(t, list), i, p)
		if (kind == NULL || strcmp(json_string_value(json_object_get(p, "kind")), kind) == 0)
			n++;
	return n;
}

static const json_t *
pkg(const json_t *t, const char *canon)
{
	const json_t *p;
	size_t i;

	json_array_foreach(json_object_get(t, "packages"), i, p)
		if (strcmp(json_string_value(json_object_get(p, "canonical_name")), canon) == 0)
			return p;
	fail_msg("no package %s", canon);
	return NULL;
}

static const char *
s(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static void
test_real_01(void **state)
{
	json_t *t = load(FIX "01.txt");

	(void)state;
	assert_int_equal(count_kind(t, "packages", NULL), 24);
	assert_int_equal(count_kind(t, "packages", "pinned"), 10);
	assert_int_equal(count_kind(t, "packages", "direct_url"), 13);
	assert_int_equal(count_kind(t, "packages", "editable_local"), 1);
	const json_t *r = pkg(t, "ranger");
	assert_string_equal(s(r, "version"), "0.1.dev0");
	assert_string_equal(s(r, "path"),
			    "/data/run01/scv1442/AIWIN/se-ecgnet/Ranger-Deep-Learning-Optimizer-master");
	assert_string_equal(s(pkg(t, "olefile"), "path"),
			    "/Users/ktietz/demo/mc3/conda-bld/olefile_1629805411829/work");
	assert_string_equal(s(pkg(t, "typing-extensions"), "name"), "typing-extensions");
	assert_true(json_is_null(json_object_get(pkg(t, "numpy"), "version")));
	assert_string_equal(s(pkg(t, "pillow"), "name"), "Pillow");
	/* every file:/// line and the editable path are local paths */
	assert_int_equal(count_kind(t, "warnings", "local-path"), 14);
	assert_int_equal(count_kind(t, "warnings", "credential"), 0);
	assert_int_equal(json_array_size(json_object_get(t, "unrecognised")), 0);
	json_decref(t);
}

static void
test_real_03_vcs(void **state)
{
	json_t *t = load(FIX "03.txt");

	(void)state;
	assert_int_equal(count_kind(t, "packages", NULL), 1);
	const json_t *p = pkg(t, "connectors");
	assert_string_equal(s(p, "kind"), "editable_vcs");
	assert_string_equal(s(p, "commit"), "668058edb20f206df647f74bc725fc4c3775813c");
	assert_string_equal(s(p, "subdirectory"), "connectors");
	assert_true(json_is_null(json_object_get(p, "version")));
	json_decref(t);
}

static void
test_real_05_windows(void **state)
{
	json_t *t = load(FIX "05.txt");

	(void)state;
	assert_int_equal(count_kind(t, "packages", NULL), 1);
	const json_t *p = pkg(t, "uvtest");
	assert_string_equal(s(p, "kind"), "editable_local");
	assert_string_equal(s(p, "version"), "0.1.0");
	assert_string_equal(s(p, "path"), "c:\\users\\user\\desktop\\uvtest");
	assert_int_equal(count_kind(t, "warnings", "local-path"), 1);
	json_decref(t);
}

static void
test_real_08_arbitrary(void **state)
{
	json_t *t = load(FIX "08.txt");

	(void)state;
	assert_int_equal(count_kind(t, "packages", NULL), 66);
	assert_int_equal(count_kind(t, "packages", "arbitrary"), 1);
	assert_int_equal(count_kind(t, "packages", "pinned"), 65);
	assert_string_equal(s(pkg(t, "distro-info"), "version"), "0.21ubuntu2");
	assert_string_equal(s(pkg(t, "ruamel-yaml"), "name"), "ruamel.yaml");
	assert_int_equal(json_array_size(json_object_get(t, "warnings")), 0);
	json_decref(t);
}

static void
test_real_10_direct_vcs(void **state)
{
	json_t *t = load(FIX "10.txt");

	(void)state;
	assert_int_equal(count_kind(t, "packages", NULL), 3);
	const json_t *p = pkg(t, "packaging");
	assert_string_equal(s(p, "kind"), "vcs");
	assert_string_equal(s(p, "commit"), "d49fdc500a7c057b71851847ff8d7cc92865bcf2");
	assert_string_equal(s(pkg(t, "six"), "version"), "1.14.0");
	json_decref(t);
}

static void
test_noise_and_credentials(void **state)
{
	json_t *t = load(FIX "k01-noise.txt");
	char *dump;

	(void)state;
	assert_int_equal(count_kind(t, "packages", NULL), 7);
	assert_string_equal(s(pkg(t, "torch"), "local_label"), "cu121");
	const json_t *m = pkg(t, "mylib");
	assert_string_equal(s(m, "kind"), "editable_vcs");
	assert_string_equal(s(m, "version"), "0.3.1");
	assert_string_equal(s(m, "commit"), "0123456789abcdef0123456789abcdef01234567");
	assert_int_equal(count_kind(t, "warnings", "credential"), 2);
	/* the credentials are not repeated anywhere */
	dump = json_dumps(t, 0);
	assert_null(strstr(dump, "s3cretpass"));
	assert_null(strstr(dump, "glpat-abcdef123456"));
	assert_non_null(strstr(dump, "pypi.example.org/packages/private_pkg-1.0"));
	free(dump);
	assert_int_equal(json_array_size(json_object_get(t, "unrecognised")), 0);
	json_decref(t);
}

static void
test_memory_and_errors(void **state)
{
	struct kd_err err = { 0 };
	json_t *t = NULL;
	static const char bin[] = "numpy==1.0\n\0\x01";

	(void)state;
	/* the prompt of another command turns reading off until pip freeze */
	static const char txt[] = "$ cat notes.txt\nhello==world\n$ pip list --format=freeze\n"
				  "a==1\nb===x\nnot a package line\n";
	assert_int_equal(freeze_parse(txt, sizeof txt - 1, "<t>", &t, &err), 0);
	assert_int_equal(count_kind(t, "packages", NULL), 2);
	assert_int_equal(json_array_size(json_object_get(t, "unrecognised")), 1);
	json_decref(t);
	assert_int_equal(freeze_parse(bin, sizeof bin - 1, "bin.txt", &t, &err), KD_EINPUT);
	assert_null(t);
	assert_int_equal(err.line, 2);
	assert_int_equal(inspect_freeze(FIX "does-not-exist.txt", &t, &err), KD_EINPUT);
	assert_int_equal(freeze_parse("", 0, "<empty>", &t, &err), 0);
	assert_int_equal(count_kind(t, "packages", NULL), 0);
	json_decref(t);
	/* over KD_CAP_INPUT_LINES lines: refused at the first line too many,
	 * before a tree of a hundred times the input is built */
	size_t big = (size_t)(KD_CAP_INPUT_LINES + 1) * 6;
	char *many = malloc(big);
	assert_non_null(many);
	for (size_t i = 0; i < big; i += 6)
		memcpy(many + i, "a==1\n\n", 6);
	assert_int_equal(freeze_parse(many, (size_t)KD_CAP_INPUT_LINES / 2 * 6, "<m>", &t, &err), 0);
	json_decref(t);
	t = NULL;
	assert_int_equal(freeze_parse(many, big, "<m>", &t, &err), KD_EINPUT);
	assert_null(t);
	assert_int_equal(err.line, KD_CAP_INPUT_LINES + 1);
	assert_non_null(strstr(err.msg, "KD_CAP_INPUT_LINES"));
	free(many);
}

/* "numpy==1 .0" is refused (pip refuses it), never read as "1"; a marker
 * or a comment after the version is fine.  A pasted freeze quoted with
 * "> " (nested too) and a fence glued to its last line read as clean. */
static void
test_bad_version_and_paste(void **state)
{
	struct kd_err err = { 0 };
	json_t *t = NULL;
	static const char bad[] = "numpy==1 .0\ntorch==2.0 ; python_version > \"3\"\n"
				  "six==1.16.0  # pinned\n";
	static const char quoted[] = "> $ pip freeze\n> > numpy==1.26.4\n>> six==1.16.0\n"
				     ">torch==2.3.0+cpu```\n";

	(void)state;
	assert_int_equal(freeze_parse(bad, sizeof bad - 1, "<t>", &t, &err), 0);
	assert_int_equal(count_kind(t, "packages", NULL), 2);
	assert_string_equal(s(pkg(t, "torch"), "version"), "2.0");
	assert_string_equal(s(pkg(t, "six"), "version"), "1.16.0");
	assert_int_equal(json_array_size(json_object_get(t, "unrecognised")), 1);
	assert_int_equal(count_kind(t, "warnings", "version"), 1);
	assert_int_equal(json_integer_value(json_object_get(
		json_array_get(json_object_get(t, "warnings"), 0), "line")), 1);
	json_decref(t);
	assert_int_equal(freeze_parse(quoted, sizeof quoted - 1, "<q>", &t, &err), 0);
	assert_int_equal(count_kind(t, "packages", NULL), 3);
	assert_string_equal(s(pkg(t, "numpy"), "version"), "1.26.4");
	assert_string_equal(s(pkg(t, "torch"), "version"), "2.3.0+cpu");
	assert_int_equal(json_array_size(json_object_get(t, "unrecognised")), 0);
	json_decref(t);
}

/* pipline_command: the prompt marks, ASCII and multibyte, with and
 * without "#" as a prompt; bytes >= 0x80 that are no mark. */
static void
test_prompt_marks(void **state)
{
	static const struct { const char *line; long plain, hash; } cases[] = {
		{ "$ pip freeze", 2, 2 },
		{ "\xe2\x9d\xaf pip freeze", 4, 4 },            /* U+276F */
		{ "\xce\xbb python -m pip list", 3, 3 },         /* lambda */
		{ "\xe2\x9e\x9c  proj git:(main) pip freeze", -1, -1 },
		{ "caf\xc3\xa9 $ pip check", 8, 8 },
		{ "caf\xc3\xa9 \xe2\x9d\xaf pip check", 10, 10 },
		{ "x\xe2\x9d\xafpip", -1, -1 },
		{ "# pip freeze", -1, 2 },
		{ "# hello", -1, -1 },
		{ "root@h:/# pip freeze", -1, 10 },
		{ "+ pip check", 2, 2 },
		{ "++ echo $?", 3, 3 },
		{ "torch==2.3.0", -1, -1 },
		{ "python_version > '3'", -1, -1 },
		{ "(env) C:\\x> python -m pip freeze", 12, 12 },
		{ "% conda list", 2, 2 },
		{ "\xe2\x9d\xaf", -1, -1 },
		{ "  $  sudo pip3 freeze", 5, 5 },
		{ "\xce\xbb\xce\xbb pip", 5, 5 },
		{ "a b c d e $ pip", -1, -1 },
		{ "\xe2\x9d pip", -1, -1 },                      /* a mark cut short */
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *l = cases[i].line;
		if (pipline_command(l, strlen(l), 0) != cases[i].plain ||
		    pipline_command(l, strlen(l), 1) != cases[i].hash)
			fail_msg("case %zu \"%s\": %ld %ld, expected %ld %ld", i, l,
				 pipline_command(l, strlen(l), 0), pipline_command(l, strlen(l), 1),
				 cases[i].plain, cases[i].hash);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_01),
		cmocka_unit_test(test_real_03_vcs),
		cmocka_unit_test(test_real_05_windows),
		cmocka_unit_test(test_real_08_arbitrary),
		cmocka_unit_test(test_real_10_direct_vcs),
		cmocka_unit_test(test_noise_and_credentials),
		cmocka_unit_test(test_memory_and_errors),
		cmocka_unit_test(test_prompt_marks),
		cmocka_unit_test(test_bad_version_and_paste),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
