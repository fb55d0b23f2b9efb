/*
 * report.c - the headless reporter: the rows of each stage as text, YAML,
 * JSON or JUnit XML.  The walkthrough draws the same rows.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/report.h"
#include "kernodeck/stage.h"
#include "kernodeck/treeout.h"
#include "kernodeck/yamlio.h"

int
report_parse_format(const char *s, enum kd_format *out)
{
	if (strcmp(s, "text") == 0)
		*out = KD_FMT_TEXT;
	else if (strcmp(s, "yaml") == 0)
		*out = KD_FMT_YAML;
	else if (strcmp(s, "json") == 0)
		*out = KD_FMT_JSON;
	else
		return -1;
	return 0;
}

static int
in_range(int i, int only, int upto)
{
	return only >= 0 ? i == only : i <= upto;
}

/* The verdict over the stages reported: "passed", "deviation" (passed
 * with deviations), or the status of the first that neither passed nor
 * deviated ("failed", "pending", "stale"), as check's exit status. */
static const char *
overall_status(const struct kd_ctx *ctx, int only, int upto)
{
	int dev = 0, strict_failed = 0;

	for (int i = 0; i < KD_NSTAGES; i++) {
		enum kd_status s = ctx->state.st[i].status;
		if (!in_range(i, only, upto))
			continue;
		if (s == KD_ST_DEVIATION)
			dev = 1;
		else if (s != KD_ST_PASSED)
			return kd_status_name(s);
		if (ctx->strict_verdict && !stage_strict_ok(&ctx->state, i, NULL, 0))
			strict_failed = 1;
	}
	return strict_failed ? "failed" : dev ? "deviation" : "passed";
}

/* Mark each deviation of a stage's tree that its check no longer needs. */
static void
mark_needed(const struct kd_ctx *ctx, int i, json_t *stage)
{
	json_t *d;
	size_t k;

	json_array_foreach(json_object_get(stage, "deviations"), k, d) {
		const char *c = json_string_value(json_object_get(d, "check"));
		json_object_set_new(d, "needed",
				    json_boolean(stage_deviation_needed(&ctx->state, i, c)));
	}
}

json_t *
report_tree(const struct kd_ctx *ctx, int only, int upto)
{
	json_t *root = json_object(), *stages = json_array(), *st = state_to_json(&ctx->state);
	json_t *sts = json_object_get(st, "stages");

	json_object_set_new(root, "kernodeck", json_string(PACKAGE_VERSION));
	json_object_set_new(root, "project", json_string(ctx->project_dir));
	json_object_set_new(root, "reference_identity", json_string(ctx->ref_id));
	json_object_set_new(root, "status", json_string(overall_status(ctx, only, upto)));
	for (int i = 0; i < KD_NSTAGES; i++) {
		json_t *o;
		if (!in_range(i, only, upto))
			continue;
		o = json_deep_copy(json_object_get(sts, kd_stages[i]->id));
		mark_needed(ctx, i, o);
		json_object_set_new(o, "id", json_string(kd_stages[i]->id));
		json_object_set_new(o, "title", json_string(kd_stages[i]->title));
		if (kd_ctx_obs(ctx, i) != NULL)
			json_object_set(o, "observations", kd_ctx_obs(ctx, i));
		json_array_append_new(stages, o);
	}
	json_object_set_new(root, "stages", stages);
	json_decref(st);
	return root;
}

static const char *
nz(const char *s)
{
	return s ? s : "";
}

void
report_print(FILE *fp, const struct kd_ctx *ctx, int only, int upto, enum kd_format fmt)
{
	if (fmt != KD_FMT_TEXT) {
		json_t *t = report_tree(ctx, only, upto);
		treeout_print_tree(fp, t, fmt);
		json_decref(t);
		return;
	}
	fprintf(fp, "project %s  reference %.12s\n", ctx->project_dir,
		ctx->ref_id[0] ? ctx->ref_id : "(none)");
	for (int i = 0; i < KD_NSTAGES; i++) {
		const struct kd_stage_state *ss = &ctx->state.st[i];
		if (!in_range(i, only, upto))
			continue;
		fprintf(fp, "\n%d %-10s %s\n", i + 1, kd_stages[i]->id, kd_status_name(ss->status));
		for (size_t k = 0; k < ss->rows.n; k++) {
			const struct kd_row *r = &ss->rows.v[k];
			const struct kd_deviation *d = stage_find_deviation(&ctx->state, i, r->id);
			fprintf(fp, "  %-4s %-28s %s", d && r->status == KD_R_FAIL ? "dev" :
				kd_rstat_name(r->status), r->id, nz(r->observed));
			if (r->expected && *r->expected)
				fprintf(fp, "  (expected %s)", r->expected);
			fputc('\n', fp);
			if (r->status == KD_R_FAIL && r->first_error)
				fprintf(fp, "       error: %s\n", r->first_error);
			if (r->status == KD_R_FAIL && r->hint)
				fprintf(fp, "       hint: %s\n", r->hint);
			if (d != NULL && !stage_deviation_needed(&ctx->state, i, r->id))
				fprintf(fp, "       deviation no longer needed (the check passes now; "
					"deviate --withdraw takes it back): %s\n", d->why);
			else if (d != NULL)
				fprintf(fp, "       deviation (%s): %s\n",
					d->intentional ? "intentional" : "to fix", d->why);
		}
	}
}

/* A stage that did not run (check stopped before it), was never checked,
 * or is stale: one skipped test case, with why. */
static void
junit_skipped(FILE *fp, int i, const struct kd_stage_state *ss, int after_stop)
{
	const char *why = after_stop ? "not run: check stopped at an earlier stage"
			  : ss->status == KD_ST_STALE ? "stale: an earlier stage changed; not checked again"
			  : "not run: the stage has no check results";

	fprintf(fp, "  <testsuite name=\"%s\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\">\n"
		"    <testcase classname=\"kernodeck.%s\" name=\"%s\"><skipped message=\"%s\"/>"
		"</testcase>\n  </testsuite>\n", kd_stages[i]->id, kd_stages[i]->id,
		kd_stages[i]->id, why);
}

/* Is stage i a skipped test case in the JUnit report? */
static int
junit_skips(const struct kd_ctx *ctx, int i, int only, int upto)
{
	return only < 0 && (i > upto || ctx->state.st[i].rows.n == 0 ||
			    ctx->state.st[i].status == KD_ST_STALE);
}

static int
junit_nskipped(const struct kd_ctx *ctx, int only, int upto)
{
	int n = 0;

	for (int i = 0; i < KD_NSTAGES; i++)
		n += junit_skips(ctx, i, only, upto);
	return n;
}

/* Is row r of stage i a failure: failing without a deviation, or under
 * check --strict a warning not acknowledged or a deviation kernodeck
 * recorded itself? */
static int
junit_fails(const struct kd_ctx *ctx, int i, const struct kd_row *r)
{
	if (r->status == KD_R_FAIL && stage_find_deviation(&ctx->state, i, r->id) == NULL)
		return 1;
	return ctx->strict_verdict && stage_row_strict_fails(&ctx->state, i, r);
}

/* XML text with the five special characters escaped. */
static void
xml_put(FILE *fp, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&apos;", fp); break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
				fputc('?', fp);
			else
				fputc(*s, fp);
		}
	}
}

int
report_junit(const char *path, const struct kd_ctx *ctx, int only, int upto, struct kd_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	int tests = 0, failures = 0, rc;

	if (fp == NULL)
		return kd_err_sys(err, KD_EENV, path, 0, "cannot build %s", path);
	for (int i = 0; i < KD_NSTAGES; i++)
		if (in_range(i, only, upto) && !junit_skips(ctx, i, only, upto))
			for (size_t k = 0; k < ctx->state.st[i].rows.n; k++) {
				const struct kd_row *r = &ctx->state.st[i].rows.v[k];
				tests++;
				failures += junit_fails(ctx, i, r);
			}
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(fp, "<testsuites name=\"kernodeck\" tests=\"%d\" failures=\"%d\" errors=\"0\" "
		"skipped=\"%d\">\n", tests + junit_nskipped(ctx, only, upto), failures,
		junit_nskipped(ctx, only, upto));
	for (int i = 0; i < KD_NSTAGES; i++) {
		const struct kd_stage_state *ss = &ctx->state.st[i];
		int t = 0, f = 0;
		if (junit_skips(ctx, i, only, upto)) {
			junit_skipped(fp, i, ss, i > upto);
			continue;
		}
		if (!in_range(i, only, upto))
			continue;
		for (size_t k = 0; k < ss->rows.n; k++) {
			t++;
			f += junit_fails(ctx, i, &ss->rows.v[k]);
		}
		fprintf(fp, "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\">\n",
			kd_stages[i]->id, t, f);
		for (size_t k = 0; k < ss->rows.n; k++) {
			const struct kd_row *r = &ss->rows.v[k];
			const struct kd_deviation *d = stage_find_deviation(&ctx->state, i, r->id);
			fprintf(fp, "    <testcase classname=\"kernodeck.%s\" name=\"", kd_stages[i]->id);
			xml_put(fp, r->id);
			fprintf(fp, "\">");
			if (junit_fails(ctx, i, r)) {
				fprintf(fp, "<failure message=\"");
				xml_put(fp, r->first_error ? r->first_error : r->observed);
				fprintf(fp, "\">observed: ");
				xml_put(fp, r->observed);
				fprintf(fp, "\nexpected: ");
				xml_put(fp, r->expected);
				if (r->hint) {
					fprintf(fp, "\nhint: ");
					xml_put(fp, r->hint);
				}
				fprintf(fp, "</failure>");
			} else if (d != NULL) {
				fprintf(fp, "<system-out>deviation: ");
				xml_put(fp, d->why);
				fprintf(fp, "</system-out>");
			}
			fprintf(fp, "</testcase>\n");
		}
		fprintf(fp, "  </testsuite>\n");
	}
	fprintf(fp, "</testsuites>\n");
	fclose(fp);
	rc = fsutil_write_atomic(path, buf, len, 0, err);
	free(buf);
	return rc;
}
