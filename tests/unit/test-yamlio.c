/* test-yamlio.c - YAML trees: resolution, round trips, refusals, lines. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/caps.h"
#include "kernodeck/yamlio.h"
#include "kernodeck/yamlpatch.h"

static json_t *
load(const char *text, int *rc, struct kd_err *err)
{
	struct yamlio_doc doc;
	json_t *root;

	*rc = yamlio_load_mem(text, strlen(text), "t.yaml", &doc, err);
	if (*rc != 0)
		return NULL;
	root = json_incref(doc.root);
	yamlio_doc_free(&doc);
	return root;
}

static void
test_scalars_resolve(void **state)
{
	struct kd_err err;
	int rc;
	json_t *r = load("a: 1\nb: 1.5\nc: true\nd: ~\ne: hello\nf: \"1\"\ng: '1.0e3'\nh: 1e3\n", &rc, &err);

	(void)state;
	assert_int_equal(rc, 0);
	assert_true(json_is_integer(json_object_get(r, "a")));
	assert_true(json_is_real(json_object_get(r, "b")));
	assert_true(json_is_true(json_object_get(r, "c")));
	assert_true(json_is_null(json_object_get(r, "d")));
	assert_string_equal(json_string_value(json_object_get(r, "e")), "hello");
	assert_string_equal(json_string_value(json_object_get(r, "f")), "1");
	assert_string_equal(json_string_value(json_object_get(r, "g")), "1.0e3");
	assert_true(json_is_real(json_object_get(r, "h")));
	json_decref(r);
}

static void
test_round_trip_keeps_types(void **state)
{
	json_t *t = json_pack("{s:s, s:s, s:s, s:s, s:i, s:f, s:b, s:n, s:[s,s], s:{}, s:[], s:s}",
			      "plain", "text", "looks_int", "42", "looks_bool", "true",
			      "multi", "line one\nline two\n", "n", 7, "x", 0.25, "yes", 1,
			      "nothing", "list", "a", "b: c", "empty_map", "empty_list",
			      "unicode", "café — ü");
	size_t len;
	char *s = yamlio_dump(t, 0, &len);
	struct kd_err err;
	int rc;
	json_t *back;

	(void)state;
	assert_non_null(s);
	back = load(s, &rc, &err);
	assert_int_equal(rc, 0);
	assert_true(json_equal(t, back));
	json_decref(back);
	free(s);
	json_decref(t);
}

static void
test_sorted_is_canonical(void **state)
{
	json_t *a = json_pack("{s:i, s:i}", "b", 1, "a", 2);
	json_t *b = json_pack("{s:i, s:i}", "a", 2, "b", 1);
	char *sa = yamlio_dump(a, YAMLIO_SORT_KEYS, NULL);
	char *sb = yamlio_dump(b, YAMLIO_SORT_KEYS, NULL);

	(void)state;
	assert_string_equal(sa, sb);
	free(sa);
	free(sb);
	json_decref(a);
	json_decref(b);
}

static void
test_refusals_name_line(void **state)
{
	static const struct { const char *text; int line; const char *word; } cases[] = {
		{ "a: 1\nb: 2\na: 3\n", 3, "duplicate" },
		{ "a: [1, 2\nb: 3\n", 2, "malformed" },
		{ "x: &k 1\ny: *k\n", 2, "alias" },
		{ "a: 1\n---\nb: 2\n", 2, "several" },
		{ "a:\n  - b\n c: d\n", 3, "malformed" },
		{ "? [a, b]\n: 1\n", 1, "key" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct kd_err err;
		int rc;
		json_t *r = load(cases[i].text, &rc, &err);
		assert_null(r);
		assert_int_equal(rc, KD_EINPUT);
		assert_string_equal(err.file, "t.yaml");
		if (err.line != cases[i].line)
			fail_msg("case %zu: line %d, wanted %d (%s)", i, err.line, cases[i].line, err.msg);
		assert_non_null(strstr(err.msg, cases[i].word));
	}
}

static void
test_binary_and_depth(void **state)
{
	struct yamlio_doc doc;
	struct kd_err err;
	char deep[1024];
	size_t n = 0;

	(void)state;
	assert_int_equal(yamlio_load_mem("a: 1\n\0b", 8, "bin", &doc, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "binary"));
	assert_int_equal(err.line, 2);
	for (int i = 0; i < KD_CAP_YAML_DEPTH + 5; i++)
		deep[n++] = '[';
	for (int i = 0; i < KD_CAP_YAML_DEPTH + 5; i++)
		deep[n++] = ']';
	deep[n] = '\0';
	assert_int_equal(yamlio_load_mem(deep, n, "deep", &doc, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "nested"));
}

static void
test_lines_and_paths(void **state)
{
	const char *text = "top:\n  list:\n    - name: one\n    - name: two\n";
	struct yamlio_doc doc;
	struct kd_err err;
	json_t *two;

	(void)state;
	assert_int_equal(yamlio_load_mem(text, strlen(text), "p", &doc, &err), 0);
	two = yamlio_get(doc.root, "top.list[1].name");
	assert_string_equal(json_string_value(two), "two");
	assert_int_equal(yamlio_line_of(&doc, two), 4);
	assert_int_equal(yamlio_set(doc.root, "top.new.deep", json_string("v")), 0);
	assert_string_equal(yamlio_get_str(doc.root, "top.new.deep"), "v");
	assert_null(yamlio_get(doc.root, "top.list[7]"));
	yamlio_doc_free(&doc);
}

/* yamlpatch: the person's comments, blank lines, order and quoting stay
 * when kernodeck fills a field; what cannot be done in place is refused. */
static char *
patched(const char *text, json_t *root)
{
	size_t n = 0;
	char *out = yamlpatch_apply(text, strlen(text), root, &n);

	json_decref(root);
	return out;
}

static json_t *
tree(const char *text)
{
	struct yamlio_doc d;
	json_t *t;

	assert_int_equal(yamlio_load_mem(text, strlen(text), "<t>", &d, NULL), 0);
	t = json_incref(d.root);
	yamlio_doc_free(&d);
	return t;
}

static void
test_patch_keeps_comments(void **state)
{
	static const char txt[] =
		"# the reference of Zo\xc3\xa9's model\n"
		"schema: 1\n"
		"goal: close-values   # the loss curve\n"
		"\n"
		"code:\n"
		"  # trained at\n"
		"  commit: abc\n"
		"data:\n"
		"  - name: w\n"
		"    sha256:\n"
		"    provenance: \"our run\"   # keep the quotes\n"
		"python: {interpreter: /usr/bin/python3}\n";
	json_t *t = tree(txt);
	char *out;

	(void)state;
	json_object_set_new(json_array_get(json_object_get(t, "data"), 0), "sha256",
			    json_string("5891b5b5"));
	json_object_set_new(json_array_get(json_object_get(t, "data"), 0), "size",
			    json_integer(6));
	json_object_set_new(json_object_get(t, "code"), "commit", json_string("def: x"));
	json_object_set_new(t, "system", json_pack("{s:s, s:i}", "os", "Debian", "gpu_count", 0));
	out = patched(txt, t);
	assert_non_null(out);
	assert_string_equal(out,
		"# the reference of Zo\xc3\xa9's model\n"
		"schema: 1\n"
		"goal: close-values   # the loss curve\n"
		"\n"
		"code:\n"
		"  # trained at\n"
		"  commit: 'def: x'\n"
		"data:\n"
		"  - name: w\n"
		"    sha256: 5891b5b5\n"
		"    provenance: \"our run\"   # keep the quotes\n"
		"    size: 6\n"
		"python: {interpreter: /usr/bin/python3}\n"
		"system:\n"
		"  os: Debian\n"
		"  gpu_count: 0\n");
	free(out);
	/* nothing to change: the text as it is */
	out = patched(txt, tree(txt));
	assert_string_equal(out, txt);
	free(out);
	/* a key removed, a list grown, a flow mapping grown: not in place */
	t = tree(txt);
	json_object_del(t, "goal");
	assert_null(patched(txt, t));
	t = tree(txt);
	json_array_append_new(json_object_get(t, "data"), json_object());
	assert_null(patched(txt, t));
	t = tree(txt);
	json_object_set_new(json_object_get(t, "python"), "version", json_string("3.11"));
	assert_null(patched(txt, t));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalars_resolve),
		cmocka_unit_test(test_round_trip_keeps_types),
		cmocka_unit_test(test_sorted_is_canonical),
		cmocka_unit_test(test_refusals_name_line),
		cmocka_unit_test(test_binary_and_depth),
		cmocka_unit_test(test_lines_and_paths),
		cmocka_unit_test(test_patch_keeps_comments),
	};
	return cmocka_run_group_tests_name("yamlio", tests, NULL, NULL);
}
