/* test-safetensors.c - the safetensors reader: good files and each rule of
 * the validation (tests/fixtures/npy/, made by make-fixtures.py there). */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/inspect.h"
#include "kernodeck/npy.h"
#include "kernodeck/safetensors.h"
#include "kernodeck/yamlio.h"
#include "testutil.h"

#define FIX KD_SRCDIR "/tests/fixtures/npy/"

static void
test_good(void **state)
{
	struct st_file f;
	struct kd_err err = { 0 };
	const struct kd_tensor *t;

	(void)state;
	assert_int_equal(st_open(FIX "good.safetensors", &f, &err), 0);
	assert_int_equal(f.n, 6);
	assert_non_null(f.metadata);
	assert_string_equal(json_string_value(json_object_get(f.metadata, "format")), "pt");
	t = st_find(&f, "emb");
	assert_non_null(t);
	assert_int_equal(t->dtype, KD_DT_F32);
	assert_int_equal(t->ndim, 2);
	assert_int_equal(t->shape[0], 3);
	assert_int_equal(t->shape[1], 4);
	tu_expect_counting(FIX "good.safetensors", t);
	static const struct { const char *name; enum kd_dtype dt; int n; } all[] = {
		{ "ids", KD_DT_I64, 3 }, { "half", KD_DT_F16, 6 }, { "bf", KD_DT_BF16, 6 },
		{ "mask", KD_DT_BOOL, 4 }, { "small", KD_DT_U8, 4 },
	};
	for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
		t = st_find(&f, all[k].name);
		assert_non_null(t);
		assert_int_equal(t->dtype, all[k].dt);
		assert_int_equal(t->count, all[k].n);
		tu_expect_counting(FIX "good.safetensors", t);
	}
	assert_null(st_find(&f, "nope"));
	st_free(&f);
}

static void
expect_refused(const char *path, const char *needle)
{
	struct st_file f;
	struct kd_err err = { 0 };
	int rc = st_open(path, &f, &err);

	if (rc != KD_EINPUT)
		fail_msg("%s: accepted (rc %d), wanted a refusal", path, rc);
	if (strstr(err.msg, needle) == NULL)
		fail_msg("%s: message \"%s\" lacks \"%s\"", path, err.msg, needle);
}

static void
test_refusals(void **state)
{
	(void)state;
	expect_refused(FIX "bad-st-overlap.safetensors", "overlaps");
	expect_refused(FIX "bad-st-hole.safetensors", "hole");
	expect_refused(FIX "bad-st-size.safetensors", "needs 12");
	expect_refused(FIX "bad-st-bounds.safetensors", "past its end");
	expect_refused(FIX "bad-st-dtype.safetensors", "unknown dtype \"F31\"");
	expect_refused(FIX "bad-st-trailing.safetensors", "after the last tensor");
	expect_refused(FIX "bad-st-truncated.safetensors", "past its end");
	expect_refused(FIX "bad-st-header-len.safetensors", "KD_CAP_SAFETENSORS_HEADER");
	expect_refused(FIX "bad-st-json.safetensors", "not valid JSON");
	expect_refused(FIX "bad-st-duplicate.safetensors", "not valid JSON");
	expect_refused(FIX "f4-le.npy", "cap");   /* an NPY's first 8 bytes as a length */
}

/* A FIFO is refused at once (it blocked forever), as a folder is. */
static void
test_not_regular(void **state)
{
	struct st_file f;
	struct kd_tensor t;
	struct npy_info info;
	struct kd_err err = { 0 };
	char dir[] = "/tmp/kd-st-fifo-XXXXXX", fifo[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof fifo, "%s/p", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(10);   /* a regression blocks in open(): fail instead of hanging */
	assert_int_equal(st_open(fifo, &f, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "not a regular file"));
	assert_int_equal(npy_open(fifo, &t, &info, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "not a regular file"));
	assert_int_equal(st_open(dir, &f, &err), KD_EINPUT);
	alarm(0);
	unlink(fifo);
	rmdir(dir);
}

static void
test_header_rules(void **state)
{
	struct st_file f;
	struct kd_err err = { 0 };
	const char *ok = "{\"a\":{\"dtype\":\"F8_E4M3\",\"shape\":[2],\"data_offsets\":[0,2]}}";
	const char *neg = "{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}";
	const char *extra = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"x\":1}}";
	const char *arr = "[1,2]";
	const char *meta = "{\"__metadata__\":{\"k\":1}}";
	const char *empty = "{}";
	const char *rev = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,0]}}";
	const char *big = "{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],"
			  "\"data_offsets\":[0,0]}}";

	(void)state;
	assert_int_equal(st_parse_header(ok, strlen(ok), 8 + strlen(ok), 2, "m", &f, &err), 0);
	assert_int_equal(f.t[0].dtype, KD_DT_F8E4M3);
	st_free(&f);
	assert_int_equal(st_parse_header(empty, 2, 10, 0, "m", &f, &err), 0);
	assert_int_equal(f.n, 0);
	st_free(&f);
	assert_int_equal(st_parse_header(neg, strlen(neg), 0, 4, "m", &f, &err), KD_EINPUT);
	assert_int_equal(st_parse_header(extra, strlen(extra), 0, 4, "m", &f, &err), KD_EINPUT);
	assert_int_equal(st_parse_header(arr, strlen(arr), 0, 0, "m", &f, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "start with '{'"));
	/* shape x dtype size over 64 bits: said so, never "needs 0" */
	assert_int_equal(st_parse_header(big, strlen(big), 0, 0, "m", &f, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "overflows"));
	assert_null(strstr(err.msg, "needs 0"));
	assert_int_equal(st_parse_header(meta, strlen(meta), 0, 0, "m", &f, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "not a string"));
	assert_int_equal(st_parse_header(rev, strlen(rev), 0, 4, "m", &f, &err), KD_EINPUT);
}

static void
test_inspect(void **state)
{
	json_t *out = NULL, *t;
	struct kd_err err = { 0 };
	size_t i;

	(void)state;
	assert_int_equal(inspect_safetensors(FIX "good.safetensors", &out, &err), 0);
	assert_int_equal(json_array_size(json_object_get(out, "tensors")), 6);
	json_array_foreach(json_object_get(out, "tensors"), i, t) {
		if (strcmp(json_string_value(json_object_get(t, "name")), "emb") != 0)
			continue;
		assert_string_equal(json_string_value(json_object_get(t, "dtype")), "float32");
		assert_int_equal(json_integer_value(yamlio_get(t, "stats.count")), 12);
		assert_true(json_real_value(yamlio_get(t, "stats.max")) == 11.0);
	}
	assert_string_equal(json_string_value(yamlio_get(out, "metadata.format")), "pt");
	json_decref(out);
	assert_int_equal(inspect_safetensors(FIX "bad-st-hole.safetensors", &out, &err), KD_EINPUT);
	assert_null(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_not_regular),
		cmocka_unit_test(test_header_rules),
		cmocka_unit_test(test_inspect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
