/* test-inventory.c - inventories (freeze, pip inspect) and their
 * comparison by canonical name. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/inspect.h"
#include "kernodeck/inventory.h"
#include "kernodeck/parse-inspect.h"

#define FIX KD_SRCDIR "/tests/fixtures/pip/inventory/"

static const char *
s(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));
	return v ? v : "(null)";
}

static json_t *
inv(const char *text)
{
	struct kd_err err = { 0 };
	json_t *p = NULL;

	if (inventory_parse(text, strlen(text), "<mem>", &p, NULL, &err) != 0)
		fail_msg("%s", err.msg);
	return p;
}

static void
test_local_label_only(void **state)
{
	struct kd_err err = { 0 };
	json_t *ref = NULL, *nw = NULL, *c;
	const char *fmt = NULL;
	const json_t *d;

	(void)state;
	assert_int_equal(inventory_load(FIX "ref-cu121.txt", &ref, &fmt, &err), 0);
	assert_string_equal(fmt, "freeze");
	assert_int_equal(inventory_load(FIX "new-cpu.json", &nw, &fmt, &err), 0);
	assert_string_equal(fmt, "pip-inspect");
	c = inventory_compare(ref, nw, 0);
	assert_int_equal(json_array_size(json_object_get(c, "missing")), 0);
	assert_int_equal(json_array_size(json_object_get(c, "extra")), 0);
	assert_int_equal(json_array_size(json_object_get(c, "version_changed")), 0);
	assert_int_equal(json_array_size(json_object_get(c, "local_label_changed")), 2);
	assert_int_equal(json_integer_value(json_object_get(c, "same")), 2);  /* numpy, Pillow */
	d = json_array_get(json_object_get(c, "local_label_changed"), 0);
	assert_string_equal(s(d, "canonical_name"), "torch");
	assert_string_equal(s(d, "ref_local"), "cu121");
	assert_string_equal(s(d, "new_local"), "cpu");
	d = json_array_get(json_object_get(c, "differences"), 0);
	assert_string_equal(s(d, "kind"), "local-label");
	assert_non_null(strstr(s(d, "detail"), "+cu121 -> +cpu"));
	json_decref(c);
	json_decref(ref);
	json_decref(nw);
}

static void
test_all_kinds(void **state)
{
	json_t *a = inv("A-Pkg==1.0\nkeep==2.0\ngone==1\ndown==2.0\nweird===0.21ubuntu2\n"
			"pip==23.0\nsame-norm==1.0\nurlpkg @ git+https://x.org/u@aaaa\n");
	json_t *b = inv("a_pkg==1.1\nkeep==2.0\nnew==3\ndown==1.9\nweird===0.22ubuntu1\n"
			"pip==24.0\nSame.Norm==1.0.0\nurlpkg @ git+https://x.org/u@bbbb\n");
	json_t *c = inventory_compare(a, b, 0);
	const json_t *d;
	size_t i;

	(void)state;
	assert_int_equal(json_array_size(json_object_get(c, "missing")), 1);
	assert_string_equal(s(json_array_get(json_object_get(c, "missing"), 0), "canonical_name"), "gone");
	assert_int_equal(json_array_size(json_object_get(c, "extra")), 1);
	assert_string_equal(s(json_array_get(json_object_get(c, "extra"), 0), "new_version"), "3");
	assert_int_equal(json_array_size(json_object_get(c, "version_changed")), 5);
	assert_int_equal(json_integer_value(json_object_get(c, "same")), 2);
	json_array_foreach(json_object_get(c, "version_changed"), i, d) {
		const char *cn = s(d, "canonical_name");
		if (strcmp(cn, "a-pkg") == 0)
			assert_string_equal(s(d, "direction"), "up");
		else if (strcmp(cn, "down") == 0)
			assert_string_equal(s(d, "direction"), "down");
		else if (strcmp(cn, "weird") == 0 || strcmp(cn, "urlpkg") == 0)
			assert_string_equal(s(d, "direction"), "unknown");
	}
	/* sorted, tooling flagged */
	d = json_array_get(json_object_get(c, "differences"), 0);
	assert_string_equal(s(d, "canonical_name"), "a-pkg");
	json_array_foreach(json_object_get(c, "differences"), i, d)
		assert_int_equal(json_is_true(json_object_get(d, "tooling")),
				 strcmp(s(d, "canonical_name"), "pip") == 0);
	json_decref(c);
	json_decref(a);
	json_decref(b);
	/* trees are accepted as well as arrays; empty sides */
	c = inventory_compare(NULL, NULL, 0);
	assert_int_equal(json_array_size(json_object_get(c, "differences")), 0);
	json_decref(c);
}

static void
test_pip_inspect(void **state)
{
	struct kd_err err = { 0 };
	json_t *t = NULL;
	const json_t *p;
	char *dump;

	(void)state;
	assert_int_equal(inspect_pip_inspect(FIX "inspect-vcs.json", &t, &err), 0);
	assert_string_equal(s(t, "pip_version"), "23.0.1");
	p = json_array_get(json_object_get(t, "packages"), 0);
	assert_string_equal(s(p, "kind"), "vcs");
	assert_string_equal(s(p, "commit"), "0123456789abcdef0123456789abcdef01234567");
	assert_string_equal(s(p, "location"), "/p/.venv-rebuild/lib/python3.11/site-packages");
	p = json_array_get(json_object_get(t, "packages"), 1);
	assert_string_equal(s(p, "kind"), "editable_local");
	assert_string_equal(s(p, "canonical_name"), "local-dev");
	p = json_array_get(json_object_get(t, "packages"), 2);
	assert_string_equal(s(p, "kind"), "direct_url");
	dump = json_dumps(t, 0);
	assert_null(strstr(dump, "hunter2"));
	free(dump);
	json_decref(t);
	t = NULL;
	/* Debian's location and installer */
	assert_int_equal(inspect_pip_inspect(FIX "new-cpu.json", &t, &err), 0);
	p = json_array_get(json_object_get(t, "packages"), 3);
	assert_string_equal(s(p, "location"), "/usr/lib/python3/dist-packages");
	assert_string_equal(s(p, "installer"), "debian");
	assert_string_equal(s(json_array_get(json_object_get(t, "packages"), 1), "local_label"), "cpu");
	json_decref(t);
	/* malformed: line of the error counts the skipped lines */
	{
		static const char bad[] = "WARNING: x\n{\n \"installed\": [\n}";
		assert_int_equal(pipinspect_parse(bad, strlen(bad), "bad.json", &t, &err), KD_EINPUT);
	}
	assert_int_equal(err.line, 4);
	assert_int_equal(pipinspect_parse("no json here", 12, "x", &t, &err), KD_EINPUT);
	assert_int_equal(pipinspect_parse("{\"version\": \"1\"}", 16, "x", &t, &err), KD_EINPUT);
}

/* The first occurrence of a name wins on each side; a package without a
 * canonical_name is indexed by its name; the lists keep each side's order
 * and "differences" is sorted; many packages (the index grows). */
static void
test_duplicates_and_order(void **state)
{
	json_t *a = inv("zeta==1\nFoo==1.0\nfoo==2.0\nalpha==1\nmid==1\n");
	json_t *b = inv("FOO==9\nmid==1.0\nfoo==1.0\nnew-b==1\nnew-a==1\nmid==7\n");
	json_t *c = inventory_compare(a, b, 0);
	const json_t *l;

	(void)state;
	/* foo: ref 1.0 (first); on the new side "FOO" comes first: 9 */
	l = json_object_get(c, "version_changed");
	assert_int_equal(json_array_size(l), 1);
	assert_string_equal(s(json_array_get(l, 0), "canonical_name"), "foo");
	assert_string_equal(s(json_array_get(l, 0), "ref_version"), "1.0");
	assert_string_equal(s(json_array_get(l, 0), "new_version"), "9");
	assert_string_equal(s(json_array_get(l, 0), "name"), "FOO");
	/* missing in the reference's order, extra in the new side's */
	l = json_object_get(c, "missing");
	assert_int_equal(json_array_size(l), 2);
	assert_string_equal(s(json_array_get(l, 0), "canonical_name"), "zeta");
	assert_string_equal(s(json_array_get(l, 1), "canonical_name"), "alpha");
	l = json_object_get(c, "extra");
	assert_int_equal(json_array_size(l), 2);
	assert_string_equal(s(json_array_get(l, 0), "canonical_name"), "new-b");
	assert_string_equal(s(json_array_get(l, 1), "canonical_name"), "new-a");
	assert_int_equal(json_integer_value(json_object_get(c, "same")), 1);   /* mid */
	l = json_object_get(c, "differences");
	assert_int_equal(json_array_size(l), 5);
	assert_string_equal(s(json_array_get(l, 0), "canonical_name"), "alpha");
	assert_string_equal(s(json_array_get(l, 4), "canonical_name"), "zeta");
	json_decref(c);
	json_decref(a);
	json_decref(b);

	/* no canonical_name: the name, made canonical; no name at all: left out */
	a = json_pack("[{s:s, s:s}, {s:s}]", "name", "My_Pkg", "version", "1", "version", "2");
	b = json_pack("[{s:s, s:s, s:s}]", "name", "x", "canonical_name", "my-pkg", "version", "2");
	c = inventory_compare(a, b, 0);
	l = json_object_get(c, "version_changed");
	assert_int_equal(json_array_size(l), 1);
	assert_string_equal(s(json_array_get(l, 0), "canonical_name"), "my-pkg");
	assert_int_equal(json_array_size(json_object_get(c, "differences")), 1);
	json_decref(c);
	json_decref(a);
	json_decref(b);

	/* 3,000 packages a side, every tenth changed, the last one missing */
	a = json_array();
	b = json_array();
	for (int i = 0; i < 3000; i++) {
		char nm[32], v[32];
		snprintf(nm, sizeof nm, "pkg-%d", i);
		snprintf(v, sizeof v, "1.%d", i);
		json_array_append_new(a, json_pack("{s:s, s:s}", "canonical_name", nm, "version", v));
		if (i == 2999)
			continue;
		snprintf(v, sizeof v, "1.%d", i % 10 ? i : i + 1);
		json_array_append_new(b, json_pack("{s:s, s:s}", "canonical_name", nm, "version", v));
	}
	c = inventory_compare(a, b, 0);
	assert_int_equal(json_array_size(json_object_get(c, "version_changed")), 300);
	assert_int_equal(json_array_size(json_object_get(c, "missing")), 1);
	assert_int_equal(json_array_size(json_object_get(c, "extra")), 0);
	assert_int_equal(json_integer_value(json_object_get(c, "same")), 2699);
	json_decref(c);
	json_decref(a);
	json_decref(b);
}

static void
test_label_system(void **state)
{
	json_t *pkgs = json_pack("[{s:s, s:s}, {s:s, s:s}, {s:s}, {s:s, s:s}]",
		"canonical_name", "a", "location", "/p/.venv-rebuild/lib/python3.11/site-packages",
		"canonical_name", "b", "location", "/usr/lib/python3/dist-packages",
		"canonical_name", "c",
		"canonical_name", "d", "location", "/p/.venv-rebuild-other/lib");

	(void)state;
	assert_int_equal(inventory_label_system(pkgs, "/p/.venv-rebuild/"), 2);
	assert_true(json_is_false(json_object_get(json_array_get(pkgs, 0), "system")));
	assert_true(json_is_true(json_object_get(json_array_get(pkgs, 1), "system")));
	assert_null(json_object_get(json_array_get(pkgs, 2), "system"));
	/* a sibling folder with the same prefix is outside */
	assert_true(json_is_true(json_object_get(json_array_get(pkgs, 3), "system")));
	assert_true(inventory_is_tooling("setuptools"));
	assert_false(inventory_is_tooling("torch"));
	json_decref(pkgs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_local_label_only),
		cmocka_unit_test(test_all_kinds),
		cmocka_unit_test(test_pip_inspect),
		cmocka_unit_test(test_label_system),
		cmocka_unit_test(test_duplicates_and_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
