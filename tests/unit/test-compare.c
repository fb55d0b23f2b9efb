/* test-compare.c - the comparison rule, identifiers, and the CSV / JSON
 * Lines tables the comparison reads. */
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
#include <unistd.h>

#include "kernodeck/compare.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/outputs.h"
#include "kernodeck/tabular.h"

static struct cmp_rule
rule_from(const char *json)
{
	json_error_t je;
	json_t *j = json_loads(json, 0, &je);
	struct cmp_rule r;
	char why[256];

	assert_non_null(j);
	if (cmp_rule_parse(j, &r, why, sizeof why) != 0)
		fail_msg("rule %s refused: %s", json, why);
	json_decref(j);
	return r;
}

static int
rule_refused(const char *json, const char *needle)
{
	json_t *j = json_loads(json, 0, NULL);
	struct cmp_rule r;
	char why[256] = "";
	int rc = cmp_rule_parse(j, &r, why, sizeof why);

	json_decref(j);
	return rc != 0 && strstr(why, needle) != NULL;
}

static void
test_rule_parse(void **state)
{
	struct cmp_rule r;
	char buf[128];

	(void)state;
	r = rule_from("{\"kind\": \"tolerance\", \"atol\": 1e-5, \"rtol\": 1e-4}");
	assert_int_equal(r.kind, CMP_TOLERANCE);
	assert_true(r.atol == 1e-5 && r.rtol == 1e-4 && !r.nan_equal);
	assert_string_equal(cmp_rule_str(&r, buf, sizeof buf), "|out - ref| <= 1e-05 + 0.0001*|ref|");
	r = rule_from("{\"kind\": \"tolerance\", \"atol\": 0.5}");
	assert_true(r.rtol == 0);
	r = rule_from("{\"kind\": \"metric\", \"metric\": \"exact-categories\"}");
	assert_true(r.threshold == 1.0);
	r = rule_from("{\"kind\": \"exact\", \"nan_equal\": true}");
	assert_true(r.nan_equal);
	assert_true(rule_refused("{\"kind\": \"tolerance\"}", "no default"));
	assert_true(rule_refused("{\"kind\": \"tolerance\", \"atol\": null, \"rtol\": null}", "no default"));
	assert_true(rule_refused("{\"kind\": \"tolerance\", \"atol\": -1}", "non-negative"));
	assert_true(rule_refused("{\"kind\": \"metric\", \"metric\": \"cosine-min\"}", "threshold"));
	assert_true(rule_refused("{\"kind\": \"metric\", \"metric\": \"l2\"}", "unknown metric"));
	assert_true(rule_refused("{\"kind\": \"close\"}", "unknown rule kind"));
	assert_true(rule_refused("{\"atol\": 1}", "kind is not declared"));
	assert_true(rule_refused("{\"kind\": \"exact\", \"nan_equal\": \"yes\"}", "nan_equal"));
	assert_true(rule_refused("null", "no comparison rule"));
}

static void
test_digest(void **state)
{
	json_t *a = json_loads("{\"kind\": \"tolerance\", \"atol\": 1e-5, \"rtol\": 1e-4}", 0, NULL);
	json_t *b = json_loads("{\"rtol\": 1e-4, \"atol\": 1e-5, \"kind\": \"tolerance\"}", 0, NULL);
	json_t *c = json_loads("{\"rtol\": 2e-4, \"atol\": 1e-5, \"kind\": \"tolerance\"}", 0, NULL);
	char da[65], db[65], dc[65];

	(void)state;
	cmp_rule_digest(a, da);
	cmp_rule_digest(b, db);
	cmp_rule_digest(c, dc);
	assert_int_equal(strlen(da), 64);
	assert_string_equal(da, db);     /* key order does not matter */
	assert_string_not_equal(da, dc); /* a value does */
	json_decref(a);
	json_decref(b);
	json_decref(c);
}

/* rows x cols data over a caller's array (no strings, no ids). */
static struct cmp_data
data_of(double *v, size_t rows, size_t cols)
{
	struct cmp_data d = { .rows = rows, .cols = cols, .v = v };
	return d;
}

static void
test_tolerance_edges(void **state)
{
	struct cmp_rule r = rule_from("{\"kind\": \"tolerance\", \"atol\": 0.01, \"rtol\": 0.1}");
	/* bound for ref 1.0: 0.01 + 0.1 = 0.11 */
	double ref[2] = { 1.0, 2.0 }, in[2] = { 1.109, 2.0 }, out[2] = { 1.111, 2.0 };
	struct cmp_data dr = data_of(ref, 1, 2), di = data_of(in, 1, 2), dout = data_of(out, 1, 2);
	struct cmp_report rep;

	(void)state;
	cmp_run(&r, &di, &dr, &rep);
	assert_true(rep.pass);
	assert_int_equal(rep.mismatched, 0);
	assert_true(fabs(rep.max_abs - 0.109) < 1e-12);
	assert_true(fabs(rep.max_rel - 0.109) < 1e-12);
	cmp_run(&r, &dout, &dr, &rep);
	assert_false(rep.pass);
	assert_int_equal(rep.mismatched, 1);
	assert_int_equal(rep.compared, 2);
	assert_true(rep.has_worst);
	assert_int_equal(rep.worst_row, 0);
	assert_int_equal(rep.worst_col, 0);
	assert_true(rep.worst_out == 1.111 && rep.worst_ref == 1.0);
	/* the bound is relative to ref, not out (NumPy's isclose) */
	{
		struct cmp_rule rr = rule_from("{\"kind\": \"tolerance\", \"atol\": 0, \"rtol\": 0.5}");
		double a[1] = { 3.0 }, b[1] = { 2.0 };
		struct cmp_data da = data_of(a, 1, 1), db = data_of(b, 1, 1);
		cmp_run(&rr, &da, &db, &rep);   /* |3-2| = 1 <= 0.5*2 */
		assert_true(rep.pass);
		cmp_run(&rr, &db, &da, &rep);   /* |2-3| = 1 <= 0.5*3 */
		assert_true(rep.pass);
		b[0] = 1.9;
		cmp_run(&rr, &da, &db, &rep);   /* 1.1 > 0.95 */
		assert_false(rep.pass);
	}
}

static void
test_nan_inf(void **state)
{
	struct cmp_rule r = rule_from("{\"kind\": \"tolerance\", \"atol\": 1, \"rtol\": 0}");
	struct cmp_rule rn = rule_from("{\"kind\": \"tolerance\", \"atol\": 1, \"rtol\": 0, \"nan_equal\": true}");
	double a[3] = { NAN, INFINITY, 1 }, b[3] = { NAN, INFINITY, 1 }, c[3] = { 0, -INFINITY, 1 };
	struct cmp_data da = data_of(a, 1, 3), db = data_of(b, 1, 3), dc = data_of(c, 1, 3);
	struct cmp_report rep;

	(void)state;
	cmp_run(&r, &da, &db, &rep);    /* NaN never equal by default */
	assert_false(rep.pass);
	assert_int_equal(rep.mismatched, 1);
	assert_int_equal(rep.nan_mismatch, 0);
	cmp_run(&rn, &da, &db, &rep);   /* NaN equals NaN when declared; inf == inf */
	assert_true(rep.pass);
	cmp_run(&rn, &da, &dc, &rep);   /* NaN against 0, inf against -inf */
	assert_false(rep.pass);
	assert_int_equal(rep.mismatched, 2);
	assert_int_equal(rep.nan_mismatch, 1);
}

static void
test_exact_and_metrics(void **state)
{
	struct cmp_rule ex = rule_from("{\"kind\": \"exact\"}");
	struct cmp_rule cos = rule_from("{\"kind\": \"metric\", \"metric\": \"cosine-min\", \"threshold\": 0.99}");
	struct cmp_rule cat = rule_from("{\"kind\": \"metric\", \"metric\": \"exact-categories\", \"threshold\": 0.75}");
	struct cmp_rule am = rule_from("{\"kind\": \"metric\", \"metric\": \"argmax-categories\"}");
	double a[4] = { 1, 0, 0, 1 }, b[4] = { 1, 0, 0, 1 }, c[4] = { 2, 0.01, 0, 3 }, d[4] = { 0, 1, 0, 1 };
	struct cmp_data da = data_of(a, 2, 2), db = data_of(b, 2, 2), dc = data_of(c, 2, 2), dd = data_of(d, 2, 2);
	struct cmp_report rep;

	(void)state;
	cmp_run(&ex, &da, &db, &rep);
	assert_true(rep.pass);
	b[3] = 1 + 1e-15;
	cmp_run(&ex, &da, &db, &rep);
	assert_false(rep.pass);
	cmp_run(&cos, &dc, &da, &rep);        /* scaled rows keep cosine ~1 */
	assert_true(rep.pass);
	assert_true(rep.metric > 0.99);
	cmp_run(&cos, &dd, &da, &rep);        /* row 0 is orthogonal */
	assert_false(rep.pass);
	assert_int_equal(rep.metric_row, 0);
	assert_true(fabs(rep.metric) < 1e-12);
	b[3] = 1;
	d[0] = 1; d[1] = 0; d[2] = 0; d[3] = 2;  /* 3 of 4 equal */
	cmp_run(&cat, &dd, &da, &rep);
	assert_true(rep.pass);
	assert_true(rep.metric == 0.75);
	cmp_run(&am, &dd, &da, &rep);         /* argmax of both rows agree */
	assert_true(rep.pass);
	{
		double x[2] = { 1, 2 };
		struct cmp_data dx = data_of(x, 1, 2);
		cmp_run(&ex, &dx, &da, &rep);
		assert_true(rep.error);
		assert_non_null(strstr(rep.msg, "cannot compare"));
	}
}

static void
test_ids(void **state)
{
	char *ref[] = { "a", "b", "c" };
	char *same[] = { "a", "b", "c" }, *perm[] = { "c", "a", "b" };
	char *missing[] = { "a", "b" }, *extra[] = { "a", "b", "c", "d" }, *dup[] = { "a", "a", "c" };
	struct cmp_ids r;

	(void)state;
	cmp_ids_check(same, 3, ref, 3, 0, &r);
	assert_true(r.ok && r.same_order);
	assert_non_null(r.perm);
	cmp_ids_free(&r);
	cmp_ids_check(perm, 3, ref, 3, 0, &r);
	assert_false(r.ok);
	assert_false(r.same_order);
	assert_int_equal(r.first_misplaced, 0);
	cmp_ids_free(&r);
	cmp_ids_check(perm, 3, ref, 3, 1, &r);
	assert_true(r.ok);
	assert_int_equal(r.perm[0], 1);   /* ref "a" is output row 1 */
	assert_int_equal(r.perm[2], 0);
	cmp_ids_free(&r);
	cmp_ids_check(missing, 2, ref, 3, 1, &r);
	assert_false(r.ok);
	assert_int_equal(r.missing, 1);
	assert_string_equal(r.first_missing, "c");
	assert_null(r.perm);
	cmp_ids_free(&r);
	cmp_ids_check(extra, 4, ref, 3, 1, &r);
	assert_false(r.ok);
	assert_int_equal(r.extra, 1);
	assert_string_equal(r.first_extra, "d");
	cmp_ids_free(&r);
	cmp_ids_check(dup, 3, ref, 3, 1, &r);
	assert_false(r.ok);
	assert_int_equal(r.duplicates, 1);
	assert_int_equal(r.missing, 1);
	cmp_ids_free(&r);
}

static void
test_permute_and_report(void **state)
{
	struct cmp_rule r = rule_from("{\"kind\": \"tolerance\", \"atol\": 0.001, \"rtol\": 0}");
	double v[4] = { 10, 11, 20, 21 }, rv[4] = { 20, 21, 10, 11.5 };
	char *oid[] = { "x", "y" }, *rid[] = { "y", "x" };
	struct cmp_data out = { .rows = 2, .cols = 2, .v = v, .ids = oid };
	struct cmp_data ref = { .rows = 2, .cols = 2, .v = rv, .ids = rid };
	struct cmp_data p;
	struct cmp_ids ids;
	struct cmp_report rep;
	json_t *j, *w;

	(void)state;
	cmp_ids_check(oid, 2, rid, 2, 1, &ids);
	assert_int_equal(cmp_data_permute(&out, ids.perm, 2, rid, &p), 0);
	assert_true(p.v[0] == 20 && p.v[2] == 10);
	assert_string_equal(p.ids[0], "y");
	cmp_run(&r, &p, &ref, &rep);
	assert_false(rep.pass);
	assert_int_equal(rep.mismatched, 1);
	j = cmp_report_json(&r, &rep, &ref);
	w = json_object_get(j, "worst");
	assert_string_equal(json_string_value(json_object_get(w, "element")), "x[1]");
	assert_string_equal(json_string_value(json_object_get(w, "id")), "x");
	assert_true(json_real_value(json_object_get(j, "max_abs_error")) == 0.5);
	assert_int_equal(json_integer_value(json_object_get(j, "out_of_tolerance")), 1);
	json_decref(j);
	cmp_data_free(&p);
	cmp_ids_free(&ids);
}

static void
test_csv(void **state)
{
	const char *csv = "id,score,label\r\n\"s,1\",0.5,cat\r\ns2,\"1e-3\",\"say \"\"hi\"\"\"\r\n"
			  "s3,nan,\"two\nlines\"\n\n";
	struct tab t;
	struct kd_err err = { 0 };
	struct cmp_data d;
	char buf[2200];

	(void)state;
	assert_int_equal(tab_parse_csv(csv, strlen(csv), "t.csv", &t, &err), 0);
	assert_int_equal(t.ncols, 3);
	assert_int_equal(t.nrows, 3);
	assert_string_equal(t.cols[1], "score");
	assert_string_equal(t.cells[0].s, "s,1");
	assert_true(t.cells[1].v == 0.5 && t.cells[1].s == NULL);
	assert_true(t.cells[4].v == 1e-3);
	assert_string_equal(t.cells[5].s, "say \"hi\"");
	assert_true(isnan(t.cells[7].v));
	assert_string_equal(t.cells[8].s, "two\nlines");
	assert_int_equal(t.lines[2], 4);
	assert_int_equal(cmp_from_tab(&t, tab_column(&t, "id"), &d), 0);
	assert_int_equal(d.cols, 2);
	assert_string_equal(d.ids[0], "s,1");
	assert_string_equal(d.colnames[1], "label");
	cmp_data_free(&d);
	tab_free(&t);

	assert_int_equal(tab_parse_csv("a,b\n1,2,3\n", 10, "t.csv", &t, &err), KD_EINPUT);
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.msg, "3 fields where the header has 2"));
	/* the file and line are said once, as kd_err_format puts them */
	assert_string_equal(kd_err_format(&err, buf, sizeof buf),
			    "t.csv:2: 3 fields where the header has 2");
	assert_int_equal(tab_parse_csv("a,b\n\"1,2\n", 9, "t.csv", &t, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "unterminated"));
	assert_int_equal(tab_parse_csv("a,b\n1\"x,2\n", 10, "t.csv", &t, &err), KD_EINPUT);
	assert_int_equal(tab_parse_csv("", 0, "t.csv", &t, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "no header"));
}

static void
test_jsonl(void **state)
{
	char dir[] = "/tmp/kdcmpXXXXXX", path[256];
	const char *good = "{\"id\": \"007\", \"emb\": [1, 2.5], \"ok\": true}\n"
			   "{\"id\": \"8\", \"emb\": [3, null], \"ok\": false}\n";
	const char *bad_len = "{\"id\": 1, \"emb\": [1, 2]}\n{\"id\": 2, \"emb\": [1]}\n";
	const char *bad_key = "{\"id\": 1, \"x\": 2}\n{\"id\": 2, \"y\": 3}\n";
	struct kd_err err = { 0 };
	struct kd_output o;
	struct tab t;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/o.jsonl", dir);
	assert_int_equal(fsutil_write_atomic(path, good, strlen(good), FSUTIL_RAW, &err), 0);
	assert_int_equal(output_load(path, NULL, NULL, "id", &o, &err), 0);
	assert_int_equal(o.data.rows, 2);
	assert_int_equal(o.data.cols, 3);
	assert_string_equal(o.data.ids[0], "007");
	assert_string_equal(o.data.colnames[1], "emb[1]");
	assert_true(o.data.v[1] == 2.5 && o.data.v[2] == 1.0);
	assert_true(isnan(o.data.v[4]));
	assert_int_equal(json_integer_value(json_object_get(o.desc, "nan")), 1);
	assert_string_equal(json_string_value(json_object_get(o.desc, "dtype")), "number");
	output_free(&o);
	assert_int_equal(fsutil_write_atomic(path, bad_len, strlen(bad_len), FSUTIL_RAW, &err), 0);
	assert_int_equal(tab_load_jsonl(path, &t, &err), KD_EINPUT);
	assert_int_equal(err.line, 2);
	assert_int_equal(fsutil_write_atomic(path, bad_key, strlen(bad_key), FSUTIL_RAW, &err), 0);
	assert_int_equal(tab_load_jsonl(path, &t, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "missing"));
	assert_int_equal(output_load(path, NULL, NULL, "nope", &o, &err), KD_EINPUT);
	unlink(path);
	rmdir(dir);
}

static void
test_outputs_npy(void **state)
{
	struct kd_output o;
	struct kd_err err = { 0 };

	(void)state;
	assert_int_equal(output_load(KD_SRCDIR "/tests/fixtures/npy/i4-le-fortran-3d.npy", NULL, NULL,
				     NULL, &o, &err), 0);
	assert_int_equal(o.data.rows, 2);
	assert_int_equal(o.data.cols, 12);
	assert_true(o.data.v[13] == 13);
	assert_string_equal(json_string_value(json_object_get(o.desc, "dtype")), "int32");
	output_free(&o);
	assert_int_equal(output_load(KD_SRCDIR "/tests/fixtures/npy/good.safetensors", NULL, "ids",
				     NULL, &o, &err), 0);
	assert_int_equal(o.data.rows, 3);
	assert_int_equal(o.data.cols, 1);
	output_free(&o);
	assert_int_equal(output_load(KD_SRCDIR "/tests/fixtures/npy/good.safetensors", NULL, NULL,
				     NULL, &o, &err), 0);
	assert_string_equal(json_string_value(json_object_get(o.desc, "tensor")), "emb");
	output_free(&o);
	assert_int_equal(output_load("/nonexistent.txt", NULL, NULL, NULL, &o, &err), KD_EINPUT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_parse),
		cmocka_unit_test(test_digest),
		cmocka_unit_test(test_tolerance_edges),
		cmocka_unit_test(test_nan_inf),
		cmocka_unit_test(test_exact_and_metrics),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_permute_and_report),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_jsonl),
		cmocka_unit_test(test_outputs_npy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
