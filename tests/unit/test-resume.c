/* test-resume.c - the resume: declaration (placeholders, steps, interrupt,
 * paths, keys, rules), the expansion of templates, the rules' judgement,
 * stage 1's "resume" row and the phrases naming a missing kind of state. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/resume.h"

static const char *good =
	"{\"goal\": \"training-trajectory\", \"resume\": {"
	"\"run\": [\"python\", \"train.py\", \"--steps\", \"{steps}\", \"--out\", \"{out}\"],"
	"\"resume\": [\"python\", \"train.py\", \"--steps\", \"{steps}\", \"--out\", \"{out}\", \"--resume\", \"{checkpoint}\"],"
	"\"steps\": 40, \"interrupt_at\": 20, \"interrupt\": \"stop\","
	"\"checkpoint\": \"{out}/ckpt-{step}.pt\", \"metrics\": \"{out}/metrics.jsonl\","
	"\"compare\": [\"loss\"], \"rule\": {\"kind\": \"exact\"}}}";

/* Parse good with key set to the JSON value v (NULL: removed). */
static int
parse_with(const char *key, const char *v, char *why, size_t len)
{
	json_t *ref = json_loads(good, 0, NULL), *r;
	struct resume_spec s;
	int rc;

	assert_non_null(ref);
	r = json_object_get(ref, "resume");
	if (v == NULL)
		json_object_del(r, key);
	else
		json_object_set_new(r, key, json_loads(v, JSON_DECODE_ANY, NULL));
	rc = resume_spec_parse(ref, &s, why, len);
	json_decref(ref);
	return rc;
}

static void
expect_refused(const char *key, const char *v, const char *want)
{
	char why[512] = "";

	if (parse_with(key, v, why, sizeof why) != -1)
		fail_msg("%s=%s: accepted, wanted \"%s\"", key, v ? v : "(none)", want);
	if (strstr(why, want) == NULL)
		fail_msg("%s=%s: got \"%s\", wanted \"%s\"", key, v ? v : "(none)", why, want);
}

static void
test_good(void **state)
{
	json_t *ref = json_loads(good, 0, NULL);
	struct resume_spec s;
	char why[512];

	(void)state;
	assert_int_equal(resume_spec_parse(ref, &s, why, sizeof why), 0);
	assert_int_equal(s.steps, 40);
	assert_int_equal(s.interrupt_at, 20);
	assert_false(s.kill);
	assert_int_equal(s.nkeys, 1);
	assert_string_equal(s.keys[0], "loss");
	assert_false(s.rule.tolerance);
	json_decref(ref);
	/* no section: 1 */
	ref = json_loads("{\"goal\": \"close-values\"}", 0, NULL);
	assert_int_equal(resume_spec_parse(ref, &s, why, sizeof why), 1);
	json_decref(ref);
}

static void
test_refused(void **state)
{
	(void)state;
	expect_refused("run", "[\"python\", \"train.py\", \"--seed\", \"{seed}\"]",
		       "resume.run[3]: unknown placeholder {seed}: only {steps}, {out}, {checkpoint} and {step}");
	expect_refused("run", "[\"python\", \"{out\"]", "resume.run[1]: unknown placeholder {out");
	expect_refused("run", "[\"python\", 3]", "resume.run[1] must be text");
	expect_refused("run", "\"python train.py\"", "resume.run is not declared as an argument vector");
	expect_refused("resume", NULL, "resume.resume is not declared");
	expect_refused("interrupt_at", "40", "resume.interrupt_at (40) must be at least 1 and below resume.steps (40)");
	expect_refused("interrupt_at", "0", "must be at least 1");
	expect_refused("steps", "\"40\"", "whole numbers");
	expect_refused("interrupt", "\"pause\"", "resume.interrupt must be stop");
	expect_refused("checkpoint", "\"ckpt-{step}.pt\"", "resume.checkpoint must start with {out}/");
	/* "{out}/last.pt" (no {step}) is the one file the trainer overwrites:
	 * accepted (test-resume's good cases, resume-trainers.sh) */
	expect_refused("metrics", NULL, "resume.metrics is not declared");
	expect_refused("compare", "[]", "resume.compare must list");
	expect_refused("compare", "[\"step\"]", "resume.compare[0] must be a metric key");
	expect_refused("rule", NULL, "resume.rule: no rule declared");
	expect_refused("rule", "{\"kind\": \"tolerance\", \"atol\": 1e-6, \"rtol\": 0}",
		       "resume.rule: a tolerance needs a written justification");
	expect_refused("rule", "{\"kind\": \"tolerance\", \"atol\": -1, \"rtol\": 0, \"justification\": \"x\"}",
		       "atol and rtol, numbers >= 0");
	expect_refused("rule", "{\"kind\": \"metric\"}", "the resume check knows exact and tolerance");
	expect_refused("reference_metrics", "\"reference/metrics.jsonl\"",
		       "resume.reference_rule (a rule of its own");
}

static void
test_expand_and_rule(void **state)
{
	struct resume_rule r;
	char why[256];
	char *e;
	json_t *t;

	(void)state;
	e = resume_expand("{out}/ckpt-{step}.pt", "40", "/w/b", "/w/b/ckpt-20.pt", "20");
	assert_string_equal(e, "/w/b/ckpt-20.pt");
	free(e);
	e = resume_expand("--steps={steps}{steps}{x}{", "400", NULL, NULL, NULL);
	assert_string_equal(e, "--steps=400400{x}{");
	free(e);
	e = resume_expand("{out}/m.jsonl", NULL, NULL, NULL, NULL);   /* a NULL value leaves it */
	assert_string_equal(e, "{out}/m.jsonl");
	free(e);
	t = json_loads("{\"kind\": \"tolerance\", \"atol\": 0.001, \"rtol\": 0.01, \"justification\": \"j\"}", 0, NULL);
	assert_int_equal(resume_rule_parse(t, &r, why, sizeof why), 0);
	assert_true(resume_rule_accepts(&r, 1.0105, 1.0));    /* 0.0105 <= 0.001 + 0.01 */
	assert_false(resume_rule_accepts(&r, 1.0115, 1.0));
	json_decref(t);
	t = json_loads("{\"kind\": \"exact\"}", 0, NULL);
	assert_int_equal(resume_rule_parse(t, &r, why, sizeof why), 0);
	assert_true(resume_rule_accepts(&r, 0.5, 0.5));
	assert_false(resume_rule_accepts(&r, 0.5, 0.5000000000000001));
	json_decref(t);
}

static void
test_reference_row(void **state)
{
	struct kd_rows rows = { 0 };
	json_t *ref = json_loads(good, 0, NULL);
	const struct kd_row *r;

	(void)state;
	resume_reference_rows(ref, &rows);
	r = kd_rows_find(&rows, "resume");
	assert_non_null(r);
	assert_int_equal(r->status, KD_R_PASS);
	assert_non_null(strstr(r->observed, "40 steps, interrupted at 20 (stop)"));
	kd_rows_free(&rows);
	json_object_del(ref, "resume");
	resume_reference_rows(ref, &rows);
	r = kd_rows_find(&rows, "resume");
	assert_non_null(r);
	assert_int_equal(r->status, KD_R_FAIL);
	assert_non_null(strstr(r->first_error, "goal training-trajectory needs the resume check"));
	kd_rows_free(&rows);
	json_object_set_new(ref, "goal", json_string("close-values"));
	resume_reference_rows(ref, &rows);
	assert_int_equal(rows.n, 0);   /* not required, not declared: no row */
	kd_rows_free(&rows);
	json_decref(ref);
}

static void
test_phrases(void **state)
{
	(void)state;
	assert_string_equal(resume_missing_phrase("rng_torch", 0),
			    "no RNG state (torch CPU): dropout and shuffling restart from the seed");
	assert_non_null(strstr(resume_missing_phrase("optimizer", 1), "without per-parameter buffers"));
	assert_non_null(strstr(resume_missing_phrase("data_position", 0), "replays the data order"));
	assert_null(resume_missing_phrase("rng_cuda_unknown", 0));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_expand_and_rule),
		cmocka_unit_test(test_reference_row),
		cmocka_unit_test(test_phrases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
