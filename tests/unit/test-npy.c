/* test-npy.c - the NPY reader against files written by NumPy
 * (tests/fixtures/npy/, made by make-fixtures.py there). */
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

#include "kernodeck/inspect.h"
#include "kernodeck/npy.h"
#include "kernodeck/tensor.h"
#include "kernodeck/yamlio.h"
#include "testutil.h"

#define FIX KD_SRCDIR "/tests/fixtures/npy/"

/* Load a fixture and check it holds 0, 1, 2... (bool: i % 2) in C order. */
static void
expect_counting(const char *name, enum kd_dtype dt, int big, int fortran, int ndim,
		const uint64_t *shape)
{
	struct kd_tensor t;
	struct npy_info info;
	struct kd_err err = { 0 };
	int rc = npy_open(name, &t, &info, &err);

	if (rc != 0)
		fail_msg("%s: %s", name, err.msg);
	assert_int_equal(t.dtype, dt);
	assert_int_equal(t.big_endian, big);
	assert_int_equal(t.fortran, fortran);
	assert_int_equal(t.ndim, ndim);
	for (int i = 0; i < ndim; i++)
		assert_int_equal(t.shape[i], shape[i]);
	tu_expect_counting(name, &t);
}

static void
test_every_dtype(void **state)
{
	static const struct { const char *code; enum kd_dtype dt; } types[] = {
		{ "f2", KD_DT_F16 }, { "f4", KD_DT_F32 }, { "f8", KD_DT_F64 },
		{ "i2", KD_DT_I16 }, { "i4", KD_DT_I32 }, { "i8", KD_DT_I64 },
		{ "u2", KD_DT_U16 }, { "u4", KD_DT_U32 }, { "u8", KD_DT_U64 },
	};
	const uint64_t shape[] = { 3, 4 };
	char path[512];

	(void)state;
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
		snprintf(path, sizeof path, FIX "%s-le.npy", types[i].code);
		expect_counting(path, types[i].dt, 0, 0, 2, shape);
		snprintf(path, sizeof path, FIX "%s-be.npy", types[i].code);
		expect_counting(path, types[i].dt, 1, 0, 2, shape);
	}
	expect_counting(FIX "i1.npy", KD_DT_I8, 0, 0, 2, shape);
	expect_counting(FIX "u1.npy", KD_DT_U8, 0, 0, 2, shape);
	expect_counting(FIX "b1.npy", KD_DT_BOOL, 0, 0, 2, shape);
}

static void
test_fortran(void **state)
{
	const uint64_t s2[] = { 3, 4 }, s3[] = { 2, 3, 4 };

	(void)state;
	expect_counting(FIX "f8-be-fortran.npy", KD_DT_F64, 1, 1, 2, s2);
	expect_counting(FIX "i4-le-fortran-3d.npy", KD_DT_I32, 0, 1, 3, s3);
}

static void
test_versions(void **state)
{
	const uint64_t shape[] = { 3, 4 };
	struct kd_tensor t;
	struct npy_info info;
	struct kd_err err = { 0 };

	(void)state;
	assert_int_equal(npy_open(FIX "f4-le.npy", &t, &info, &err), 0);
	assert_int_equal(info.major, 1);
	assert_int_equal(npy_open(FIX "f4-v2.npy", &t, &info, &err), 0);
	assert_int_equal(info.major, 2);
	assert_int_equal(npy_open(FIX "f4-v3.npy", &t, &info, &err), 0);
	assert_int_equal(info.major, 3);
	assert_string_equal(info.descr, "<f4");
	expect_counting(FIX "f4-v2.npy", KD_DT_F32, 0, 0, 2, shape);
	expect_counting(FIX "f4-v3.npy", KD_DT_F32, 0, 0, 2, shape);
}

static void
test_shapes(void **state)
{
	struct kd_tensor t;
	struct npy_info info;
	struct kd_err err = { 0 };
	double *v = NULL;

	(void)state;
	assert_int_equal(npy_open(FIX "scalar.npy", &t, &info, &err), 0);
	assert_int_equal(t.ndim, 0);
	assert_int_equal(t.count, 1);
	assert_int_equal(tensor_load(FIX "scalar.npy", &t, &v, &err), 0);
	assert_true(v[0] == 7.0);
	free(v);
	assert_int_equal(npy_open(FIX "empty.npy", &t, &info, &err), 0);
	assert_int_equal(t.ndim, 2);
	assert_int_equal(t.shape[0], 0);
	assert_int_equal(t.count, 0);
	assert_int_equal(tensor_load(FIX "empty.npy", &t, &v, &err), 0);
	assert_null(v);
	assert_int_equal(npy_open(FIX "vector.npy", &t, &info, &err), 0);
	assert_int_equal(t.ndim, 1);
	assert_int_equal(t.shape[0], 5);
}

static void
test_stats(void **state)
{
	struct kd_tensor t;
	struct npy_info info;
	struct kd_stats st;
	struct kd_err err = { 0 };

	(void)state;
	assert_int_equal(npy_open(FIX "nonfinite.npy", &t, &info, &err), 0);
	assert_int_equal(tensor_stats(FIX "nonfinite.npy", &t, &st, &err), 0);
	assert_int_equal(st.count, 6);
	assert_int_equal(st.nan, 1);
	assert_int_equal(st.posinf, 1);
	assert_int_equal(st.neginf, 1);
	assert_true(st.min == 1.0 && st.max == 3.0);
	assert_true(fabs(st.sum / (double)st.finite - 2.0) < 1e-12);
}

static void
expect_refused(const char *path, const char *needle)
{
	struct kd_tensor t;
	struct npy_info info;
	struct kd_err err = { 0 };
	int rc = npy_open(path, &t, &info, &err);

	if (rc != KD_EINPUT)
		fail_msg("%s: accepted (rc %d), wanted a refusal", path, rc);
	if (strstr(err.msg, needle) == NULL)
		fail_msg("%s: message \"%s\" lacks \"%s\"", path, err.msg, needle);
	assert_non_null(strstr(err.msg, path));
}

static void
test_refusals(void **state)
{
	(void)state;
	expect_refused(FIX "bad-truncated.npy", "truncated");
	expect_refused(FIX "bad-trailing.npy", "inconsistent");
	expect_refused(FIX "bad-magic.npy", "not an NPY file");
	expect_refused(FIX "bad-version.npy", "version 4.0");
	expect_refused(FIX "bad-header-short.npy", "truncated");
	expect_refused(FIX "bad-missing-key.npy", "fortran_order");
	expect_refused(FIX "bad-extra-key.npy", "unexpected or repeated key 'x'");
	expect_refused(FIX "bad-structured.npy", "structured");
	expect_refused(FIX "bad-object.npy", "not a numeric array");
	expect_refused(FIX "bad-complex.npy", "not a numeric array");
	expect_refused(FIX "bad-shape-list.npy", "tuple");
	expect_refused(FIX "bad-negative-dim.npy", "non-negative");
	expect_refused(FIX "bad-overflow.npy", "overflows");
	expect_refused(FIX "bad-not-dict.npy", "expected '{'");
	expect_refused(FIX "no-such-file.npy", "cannot open");
}

static void
test_header_literals(void **state)
{
	struct kd_tensor t;
	struct kd_err err = { 0 };
	char descr[32];
	const char *py2 = "{'descr': '<i8', 'fortran_order': False, 'shape': (3L, 4L), }          \n";
	const char *dq = "{\"descr\": \">u2\", \"fortran_order\": True, \"shape\": (7,)}";
	const char *nocomma = "{'descr': '<f4', 'fortran_order': False, 'shape': (5), }";
	const char *dup = "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (5,)}";
	const char *after = "{'descr': '<f4', 'fortran_order': False, 'shape': (5,)} x";

	(void)state;
	assert_int_equal(npy_parse_header(py2, strlen(py2), "py2", &t, descr, sizeof descr, &err), 0);
	assert_int_equal(t.dtype, KD_DT_I64);
	assert_int_equal(t.shape[1], 4);
	assert_int_equal(t.count, 12);
	assert_int_equal(npy_parse_header(dq, strlen(dq), "dq", &t, descr, sizeof descr, &err), 0);
	assert_int_equal(t.big_endian, 1);
	assert_int_equal(t.fortran, 1);
	assert_int_equal(npy_parse_header(nocomma, strlen(nocomma), "x", &t, descr, sizeof descr, &err),
			 KD_EINPUT);
	assert_non_null(strstr(err.msg, "trailing comma"));
	assert_int_equal(npy_parse_header(dup, strlen(dup), "x", &t, descr, sizeof descr, &err),
			 KD_EINPUT);
	assert_int_equal(npy_parse_header(after, strlen(after), "x", &t, descr, sizeof descr, &err),
			 KD_EINPUT);
	assert_int_equal(npy_parse_header("", 0, "x", &t, descr, sizeof descr, &err), KD_EINPUT);
}

static void
test_minifloats(void **state)
{
	const unsigned char h1[2] = { 0x00, 0x3c };   /* float16 1.0 */
	const unsigned char hm[2] = { 0x00, 0xc0 };   /* -2.0 */
	const unsigned char hinf[2] = { 0x00, 0x7c };
	const unsigned char hsub[2] = { 0x01, 0x00 }; /* smallest subnormal */
	const unsigned char bf[2] = { 0x80, 0x3f };   /* bfloat16 1.0 */
	const unsigned char e4 = 0x38, e4nan = 0x7f, e5 = 0x3c, e5inf = 0x7c;

	(void)state;
	assert_true(tensor_decode(h1, KD_DT_F16, 0) == 1.0);
	assert_true(tensor_decode(hm, KD_DT_F16, 0) == -2.0);
	assert_true(isinf(tensor_decode(hinf, KD_DT_F16, 0)));
	assert_true(tensor_decode(hsub, KD_DT_F16, 0) == ldexp(1.0, -24));
	assert_true(tensor_decode(bf, KD_DT_BF16, 0) == 1.0);
	assert_true(tensor_decode(&e4, KD_DT_F8E4M3, 0) == 1.0);
	assert_true(isnan(tensor_decode(&e4nan, KD_DT_F8E4M3, 0)));
	assert_true(tensor_decode(&e5, KD_DT_F8E5M2, 0) == 1.0);
	assert_true(isinf(tensor_decode(&e5inf, KD_DT_F8E5M2, 0)));
}

static void
test_inspect(void **state)
{
	json_t *out = NULL;
	struct kd_err err = { 0 };

	(void)state;
	assert_int_equal(inspect_npy(FIX "f8-be-fortran.npy", &out, &err), 0);
	assert_string_equal(json_string_value(yamlio_get(out, "version")), "1.0");
	assert_string_equal(json_string_value(yamlio_get(out, "header.dtype")), "float64");
	assert_string_equal(json_string_value(yamlio_get(out, "header.byte_order")), "big");
	assert_true(json_is_true(yamlio_get(out, "header.fortran_order")));
	assert_int_equal(json_integer_value(yamlio_get(out, "stats.count")), 12);
	assert_true(json_real_value(yamlio_get(out, "stats.max")) == 11.0);
	assert_true(json_real_value(yamlio_get(out, "stats.mean")) == 5.5);
	json_decref(out);
	assert_int_equal(inspect_npy(FIX "bad-truncated.npy", &out, &err), KD_EINPUT);
	assert_null(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_dtype),
		cmocka_unit_test(test_fortran),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_header_literals),
		cmocka_unit_test(test_minifloats),
		cmocka_unit_test(test_inspect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
