/*
 * resume-check.c - the rows of the resume check: stage 1's "resume" row
 * (the declaration), stage 6's sample.resume.* rows judged from
 * obs.resume, and the informative rows of the checkpoint inventory (see
 * include/kernodeck/resume.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/compare.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/obs-sample.h"
#include "kernodeck/resume.h"
#include "kernodeck/state.h"
#include "kernodeck/yamlio.h"

#define RESUME_LIKELY_CAP 1024

static const char *
or_str(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

static void
num_str(const json_t *v, char *buf, size_t len)
{
	if (json_is_number(v))
		snprintf(buf, len, "%.9g", json_number_value(v));
	else
		snprintf(buf, len, "%s", json_is_null(v) ? "not finite" : "?");
}

static void
rule_str(const struct resume_rule *r, char *buf, size_t len)
{
	if (r->tolerance)
		snprintf(buf, len, "|a - b| <= %g + %g * |b|", r->atol, r->rtol);
	else
		snprintf(buf, len, "exact (bit for bit)");
}

/* --- stage 1 --- */

void
resume_reference_rows(const json_t *ref, struct kd_rows *rows)
{
	const char *label = "resume check declared (resume:)";
	const char *goal = yamlio_get_str(ref, "goal");
	struct resume_spec s;
	char why[512], rule[128];
	struct kd_row *r;
	int rc = resume_spec_parse(ref, &s, why, sizeof why);

	if (rc == 1) {
		if (goal != NULL && strcmp(goal, "training-trajectory") == 0) {
			r = kd_rows_add(rows, "resume", KD_R_FAIL, label, "not declared",
					"a resume: section (goal training-trajectory)", NULL);
			kd_row_set_error(r, "goal training-trajectory needs the resume check, and resume: is not declared",
					 "declare resume: (run, resume, steps, interrupt_at, interrupt, checkpoint, metrics, compare, rule): doc/reference-format.md");
		}
		return;
	}
	if (rc != 0) {
		r = kd_rows_add(rows, "resume", KD_R_FAIL, label, "malformed", "a well-formed resume: section", NULL);
		kd_row_set_error(r, why, "see the resume: section in doc/reference-format.md");
		return;
	}
	rule_str(&s.rule, rule, sizeof rule);
	kd_rows_addf(rows, "resume", KD_R_PASS, label, NULL,
		     "%lld steps, interrupted at %lld (%s); %zu key%s compared, %s%s",
		     s.steps, s.interrupt_at, s.kill ? "kill" : "stop", s.nkeys, s.nkeys == 1 ? "" : "s",
		     rule, s.reference_metrics ? "; against the reference trajectory" : "");
}

/* --- the likely cause of a divergence --- */

const char *
resume_missing_phrase(const char *kind, int buffers_only)
{
	static const struct { const char *kind, *phrase; } p[] = {
		{ "model", "no model weights: the resumed run starts from fresh weights" },
		{ "optimizer", "no optimizer state: momentum and adaptive statistics restart from zero" },
		{ "scheduler", "no scheduler state: the learning rate restarts from its first value" },
		{ "rng_torch", "no RNG state (torch CPU): dropout and shuffling restart from the seed" },
		{ "rng_numpy", "no NumPy RNG state: NumPy's random draws restart from the seed" },
		{ "rng_python", "no Python RNG state: random's draws restart from the seed" },
		{ "counter", "no step or epoch counter: the schedule and the logs start counting again" },
		{ "data_position", "no sampler or data-position state: the resumed run replays the data order from the start" },
	};

	if (buffers_only && strcmp(kind, "optimizer") == 0)
		return "optimizer state without per-parameter buffers: momentum restarts from zero";
	for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
		if (strcmp(p[i].kind, kind) == 0)
			return p[i].phrase;
	return NULL;
}

/* "ckpt-20.pt holds no RNG state (torch CPU): ...; ..." from the inventory,
 * or "" when it holds every kind (or was not read). */
static void
likely_cause(const json_t *obs, char *buf, size_t len)
{
	const json_t *kinds = obs_sample_resume_inventory_kinds(obs), *k;
	const char *ck = or_str(obs_sample_resume_inventory_checkpoint(obs), "the checkpoint");
	const char *base = strrchr(ck, '/');
	size_t i, o = 0;

	buf[0] = '\0';
	json_array_foreach(kinds, i, k) {
		const char *kind = or_str(obs_sample_kind_kind(k), "");
		int present = obs_sample_kind_present(k);
		int no_buffers = present && strcmp(kind, "optimizer") == 0 &&
				 json_is_false(obs_sample_kind_buffers(k));
		const char *ph;

		if ((present && !no_buffers) || strcmp(kind, "rng_cuda") == 0)
			continue;
		if ((ph = resume_missing_phrase(kind, no_buffers)) == NULL || o + 1 >= len)
			continue;
		if (o == 0)
			o = (size_t)snprintf(buf, len, "%s holds %s", base ? base + 1 : ck, ph);
		else
			o += (size_t)snprintf(buf + o, len - o, "; %s", ph);
		if (o >= len)
			o = len - 1;
	}
}

/* --- stage 6 --- */

static void
row_run(const json_t *runs, const char *name, const char *label, struct kd_rows *rows)
{
	const json_t *run = json_object_get(runs, name), *fail = obs_sample_resume_run_failure(run);
	const char *log = obs_sample_resume_run_log(run), *ended = obs_sample_resume_run_ended(run);
	const char *fstep = obs_sample_failure_step(fail), *ferr = obs_sample_failure_error(fail);
	const char *frame = obs_sample_failure_frame(fail), *code = obs_sample_failure_code(fail);
	char id[64], obs[1024], fe[2048];
	struct kd_row *r;

	if (run == NULL)
		return;
	snprintf(id, sizeof id, "sample.resume.%s", name);
	if (!obs_sample_resume_run_started(run)) {
		r = kd_rows_add(rows, id, KD_R_FAIL, label, "could not start", "exit 0", log);
		kd_row_set_error(r, obs_sample_resume_run_error(run), "check resume.run and resume.resume: the program must exist");
		return;
	}
	if (obs_sample_resume_run_ok(run)) {
		kd_rows_addf(rows, id, KD_R_PASS, label, "exit 0 (or killed on purpose)", "%s in %.1f s",
			     or_str(ended, "?"), obs_sample_resume_run_seconds(run))->evidence =
			log ? strdup(log) : NULL;
		return;
	}
	snprintf(obs, sizeof obs, "%s%s%s", or_str(ended, "failed"), fstep ? " in step " : "",
		 or_str(fstep, ""));
	r = kd_rows_add(rows, id, KD_R_FAIL, label, obs, "exit 0", log);
	if (frame != NULL)
		snprintf(fe, sizeof fe, "%s (innermost frame: %s%s%s)", or_str(ferr, "?"), frame,
			 code ? ": " : "", or_str(code, ""));
	else
		snprintf(fe, sizeof fe, "%s", or_str(ferr, or_str(ended, "failed")));
	kd_row_set_error(r, fe, obs_sample_resume_run_timed_out(run)
			 ? "the run did not finish in time: KD_TIMEOUT_RESUME (else KD_TIMEOUT_SAMPLE) sets the limit in seconds"
			 : obs_sample_resume_run_cancelled(run) ? "cancelled: check again"
			 : "the log holds the whole output; fix the first error and check again");
}

static void
row_metrics(const json_t *obs, struct kd_rows *rows)
{
	const json_t *a = obs_sample_resume_metrics_uninterrupted(obs);
	const json_t *b = obs_sample_resume_metrics_resumed(obs);
	const char *ea = obs_sample_metrics_error(a), *eb = obs_sample_metrics_error(b);
	struct kd_row *row;
	const char *label = "both metrics files reread";

	if (obs_sample_resume_metrics(obs) == NULL)
		return;
	if (ea != NULL || eb != NULL) {
		row = kd_rows_add(rows, "sample.resume.metrics", KD_R_FAIL, label, "cannot be read",
				  "one JSON object per step", NULL);
		kd_row_set_error(row, ea != NULL ? ea : eb,
				 "each line of the metrics file must be {\"step\": N, KEY: value, ...}, steps 1, 2, 3 ...");
		return;
	}
	kd_rows_addf(rows, "sample.resume.metrics", KD_R_PASS, label, "one JSON object per step",
		     "uninterrupted: steps %lld-%lld; resumed: steps %lld-%lld%s%s",
		     (long long)obs_sample_metrics_first_step(a), (long long)obs_sample_metrics_last_step(a),
		     (long long)obs_sample_metrics_first_step(b), (long long)obs_sample_metrics_last_step(b),
		     obs_sample_metrics_restarted(b) ? " (restarted after the checkpoint)" : "",
		     obs_sample_metrics_truncated_last(b) ? " (a cut last line dropped)" : "");
}

/* Observed text of a trajectory comparison. */
static void
traj_observed(const json_t *t, const char *aname, const char *bname, char *buf, size_t len)
{
	char d[64];

	num_str(obs_sample_traj_worst_diff(t), d, sizeof d);
	snprintf(buf, len, "steps %lld-%lld: %lld values compared, %lld diverging; worst difference %s (step %lld, %s)",
		 (long long)obs_sample_traj_from(t), (long long)obs_sample_traj_to(t),
		 (long long)obs_sample_traj_compared(t), (long long)obs_sample_traj_diverging(t), d,
		 (long long)obs_sample_traj_worst_step(t), or_str(obs_sample_traj_worst_key(t), "?"));
	(void)aname;
	(void)bname;
}

static void
traj_first(const json_t *t, const char *aname, const char *bname, char *buf, size_t len)
{
	const json_t *f = obs_sample_traj_first(t);
	char a[64], b[64];

	if (f == NULL && obs_sample_traj_missing(t) != NULL) {
		snprintf(buf, len, "step %lld is missing from the %s metrics",
			 (long long)obs_sample_traj_missing_step(t), or_str(obs_sample_traj_missing_in(t), "?"));
		return;
	}
	/* the two values are under the runs' names */
	num_str(json_object_get(f, aname), a, sizeof a);
	num_str(json_object_get(f, bname), b, sizeof b);
	snprintf(buf, len, "first divergence at step %lld, %s: %s %s, %s %s",
		 (long long)obs_sample_traj_first_step(t), or_str(obs_sample_traj_first_key(t), "?"),
		 aname, a, bname, b);
}

static void
row_trajectory(const json_t *obs, struct kd_rows *rows)
{
	const json_t *t = obs_sample_resume_trajectory(obs);
	struct resume_rule rule;
	char seen[1024], fe[2048], exp[256], rs[128], why[256], cause[RESUME_LIKELY_CAP];
	struct kd_row *row;

	if (t == NULL)
		return;
	if (resume_rule_parse(obs_sample_resume_rule(obs), &rule, why, sizeof why) != 0)
		snprintf(rs, sizeof rs, "the declared rule");
	else
		rule_str(&rule, rs, sizeof rs);
	snprintf(exp, sizeof exp, "the resumed run follows the uninterrupted one: %s", rs);
	traj_observed(t, "uninterrupted", "resumed", seen, sizeof seen);
	row = kd_rows_add(rows, "sample.resume.trajectory", obs_sample_traj_pass(t)
			  ? KD_R_PASS : KD_R_FAIL, "resumed trajectory follows the uninterrupted one", seen, exp, NULL);
	if (row->status == KD_R_PASS)
		return;
	traj_first(t, "uninterrupted", "resumed", fe, sizeof fe);
	likely_cause(obs, cause, sizeof cause);
	if (cause[0] != '\0') {
		size_t n = strlen(fe);
		snprintf(fe + n, sizeof fe - n, "; likely cause: %s", cause);
	}
	kd_row_set_error(row, fe, cause[0] ? "save the missing state in the checkpoint and restore it on resume"
			 : "compare what the checkpoint holds (the inventory rows) with what the training loop uses");
}

static void
row_inventory(const json_t *obs, struct kd_rows *rows)
{
	const char *ck = or_str(obs_sample_resume_inventory_checkpoint(obs), "?");
	const json_t *refused = obs_sample_resume_inventory_refused(obs);
	char cause[RESUME_LIKELY_CAP];
	struct kd_row *row;
	size_t n = 0, present = 0, i;
	const json_t *k;

	if (obs_sample_resume_inventory(obs) == NULL)
		return;
	if (obs_sample_resume_inventory_error(obs) != NULL) {
		row = kd_rows_add(rows, "sample.resume.inventory", KD_R_WARN, "checkpoint inventory",
				  refused ? "refused: needs full unpickling" : "not read",
				  ck, obs_sample_resume_inventory_log(obs));
		kd_row_set_error(row, obs_sample_resume_inventory_error(obs),
				 refused ? "kernodeck never unpickles arbitrary objects: save plain state (state_dict, tensors, numbers) in checkpoints"
				 : "see the log");
		return;
	}
	json_array_foreach(obs_sample_resume_inventory_kinds(obs), i, k) {
		if (strcmp(or_str(obs_sample_kind_kind(k), ""), "rng_cuda") == 0)
			continue;
		n++;
		present += obs_sample_kind_present(k);
	}
	likely_cause(obs, cause, sizeof cause);
	row = kd_rows_addf(rows, "sample.resume.inventory", cause[0] ? KD_R_WARN : KD_R_PASS,
			   "checkpoint inventory", "model, optimizer, scheduler, RNG states, counters, data position",
			   "%s: %zu of %zu kinds of state (loader: %s)", ck, present, n,
			   or_str(obs_sample_resume_inventory_loader(obs), "?"));
	if (cause[0])
		kd_row_set_error(row, cause, "a resumed run needs every kind of state its training loop uses");
}

static void
row_final(const json_t *obs, struct kd_rows *rows)
{
	const char *absent = obs_sample_resume_final_absent(obs), *err = obs_sample_resume_final_error(obs);
	const json_t *d;
	const char *label = "final checkpoints agree tensor by tensor", *tensor;
	struct kd_row *row;
	char fe[1024], a[64], b[64];

	if (obs_sample_resume_final(obs) == NULL)
		return;
	if (absent != NULL) {
		kd_rows_addf(rows, "sample.resume.final", KD_R_INFO, label, NULL,
			     "not compared: the %s run wrote no checkpoint of the last step (%s)", absent,
			     or_str(strcmp(absent, "resumed") == 0 ? obs_sample_resume_final_resumed(obs) :
				    obs_sample_resume_final_uninterrupted(obs), "?"));
		return;
	}
	if (err != NULL) {
		row = kd_rows_add(rows, "sample.resume.final", KD_R_WARN, label, "not compared", "the same tensors",
				  obs_sample_resume_final_log(obs));
		kd_row_set_error(row, err, "see the log");
		return;
	}
	num_str(obs_sample_resume_final_worst_max_abs(obs), a, sizeof a);
	row = kd_rows_addf(rows, "sample.resume.final", obs_sample_resume_final_differ(obs) == 0
			   ? KD_R_PASS : KD_R_FAIL, label, "under the resume rule",
			   "%lld tensors compared, %lld differ; worst difference %s (%s)",
			   (long long)obs_sample_resume_final_compared(obs),
			   (long long)obs_sample_resume_final_differ(obs), a,
			   or_str(obs_sample_resume_final_worst_tensor(obs), "-"));
	if (row->status == KD_R_PASS)
		return;
	d = json_array_get(obs_sample_resume_final_differing(obs), 0);
	tensor = or_str(obs_sample_tensor_tensor(d), "?");
	if (obs_sample_tensor_only_in(d) != NULL)
		snprintf(fe, sizeof fe, "tensor %s is only in the %s run's checkpoint", tensor,
			 strcmp(obs_sample_tensor_only_in(d), "a") == 0 ? "uninterrupted" : "resumed");
	else if (obs_sample_tensor_first(d) != NULL) {
		num_str(obs_sample_tensor_first_a(d), a, sizeof a);
		num_str(obs_sample_tensor_first_b(d), b, sizeof b);
		snprintf(fe, sizeof fe, "tensor %s differs in %lld of %lld elements; element %lld: uninterrupted %s, resumed %s",
			 tensor, (long long)obs_sample_tensor_differ(d), (long long)obs_sample_tensor_elements(d),
			 (long long)obs_sample_tensor_first_index(d), a, b);
	} else
		snprintf(fe, sizeof fe, "tensor %s: %s", tensor, or_str(obs_sample_tensor_error(d), "differs"));
	kd_row_set_error(row, fe, "the resumed run ends in another state: see the trajectory row for where it starts");
}

static void
row_reference(const json_t *obs, struct kd_rows *rows)
{
	const json_t *t = obs_sample_resume_reference(obs);
	const char *label = "trajectory agrees with the reference machine's";
	struct resume_rule rule;
	char seen[1024], fe[1024], rs[160], why[256];
	struct kd_row *row;

	if (t == NULL)
		return;
	if (obs_sample_traj_error(t) != NULL) {
		row = kd_rows_add(rows, "sample.resume.reference", KD_R_FAIL, label, "cannot be read",
				  "resume.reference_metrics", NULL);
		kd_row_set_error(row, obs_sample_traj_error(t), "fix resume.reference_metrics (the reference machine's metrics.jsonl)");
		return;
	}
	if (resume_rule_parse(obs_sample_resume_reference_rule(obs), &rule, why, sizeof why) == 0)
		rule_str(&rule, rs, sizeof rs);
	else
		snprintf(rs, sizeof rs, "resume.reference_rule");
	traj_observed(t, "reference", "this machine", seen, sizeof seen);
	row = kd_rows_add(rows, "sample.resume.reference", obs_sample_traj_pass(t) ? KD_R_PASS
			  : KD_R_FAIL, label, seen, rs, NULL);
	if (row->status == KD_R_PASS)
		return;
	traj_first(t, "reference", "this machine", fe, sizeof fe);
	kd_row_set_error(row, fe, "the trajectory differs from the reference machine's beyond resume.reference_rule");
}

/* The rules seen with this comparison against the first ones seen; a new
 * change records a deviation automatically (as for result.rule). */
static int
row_rule(struct kd_ctx *ctx, struct kd_result *res, const json_t *obs, struct kd_err *err)
{
	json_t *settings = ctx->state.settings, *both;
	const char *label = "resume rules unchanged since the first comparison";
	const char *base, *basec, *seen;
	char digest[65], what[2048], now[32], *canon;
	struct kd_row *row;
	const json_t *rule = obs_sample_resume_rule(obs), *ref_rule = obs_sample_resume_reference_rule(obs);
	int idx = stage_pos(&kd_stage_sample), fresh, rc = 0;

	if (settings == NULL || obs_sample_resume_trajectory(obs) == NULL)
		return 0;
	both = json_pack("{s:O, s:O}", "rule", rule ? rule : json_null(),
			 "reference_rule", ref_rule ? ref_rule : json_null());
	cmp_rule_digest(both, digest);
	canon = cmp_rule_canonical(both);
	json_decref(both);
	base = json_string_value(yamlio_get(settings, "sample.resume_rule_baseline.digest"));
	basec = json_string_value(yamlio_get(settings, "sample.resume_rule_baseline.rule"));
	seen = json_string_value(yamlio_get(settings, "sample.resume_rule_seen.digest"));
	fsutil_utc_now(now, sizeof now);
	if (base == NULL || strcmp(base, digest) == 0) {
		if (base == NULL)
			yamlio_set(settings, "sample.resume_rule_baseline",
				   json_pack("{s:s, s:s, s:s}", "digest", digest, "rule", canon ? canon : "", "at", now));
		if (seen == NULL || strcmp(seen, digest) != 0)
			yamlio_set(settings, "sample.resume_rule_seen", json_pack("{s:s, s:s}", "digest", digest, "at", now));
		kd_rows_addf(&res->rows, "sample.resume.rule-changed", KD_R_PASS, label, "unchanged",
			     "rules %.12s%s", digest, base == NULL ? ", first comparison" : ", as at the first comparison");
		goto out;
	}
	fresh = seen == NULL || strcmp(seen, digest) != 0;
	snprintf(what, sizeof what, "resume rules %s -> %s", basec ? basec : base, canon ? canon : digest);
	row = kd_rows_addf(&res->rows, "sample.resume.rule-changed", KD_R_FAIL, label, "unchanged",
			   "changed after a comparison was seen: %s", what);
	kd_row_set_error(row, what, "a deviation was recorded automatically; review it, a rule should change only with a written justification");
	if (!fresh)
		goto out;
	yamlio_set(settings, "sample.resume_rule_seen", json_pack("{s:s, s:s}", "digest", digest, "at", now));
	stage_apply_rows(&ctx->state, idx, &res->rows, ctx->ref_id);
	rc = stage_record_deviation(&ctx->state, idx, "sample.resume.rule-changed", what,
				    "recorded automatically: a resume rule was changed after a comparison had been shown",
				    0, KD_AUTHOR_AUTOMATIC, err);
out:
	free(canon);
	return rc;
}

int
resume_check_rows(struct kd_ctx *ctx, struct kd_result *res, struct kd_err *err)
{
	const json_t *obs = res->obs, *runs;
	const char *error = obs_sample_resume_error(obs);
	struct kd_rows *rows = &res->rows;
	struct kd_row *row;
	size_t start = rows->n;
	int rc;

	if (obs_sample_resume(obs) == NULL)
		return 0;
	if (obs_sample_resume_required_missing(obs)) {
		row = kd_rows_add(rows, "sample.resume", KD_R_FAIL, "resume check (goal training-trajectory)",
				  "not declared", "a resume: section", NULL);
		kd_row_set_error(row, "goal training-trajectory needs the resume check, and resume: is not declared",
				 "declare resume: in the reference (stage 1): doc/reference-format.md");
		return 0;
	}
	if (obs_sample_resume_declaration_error(obs) != NULL) {
		row = kd_rows_add(rows, "sample.resume", KD_R_FAIL, "resume check declared", "malformed",
				  "a well-formed resume: section", NULL);
		kd_row_set_error(row, obs_sample_resume_declaration_error(obs), "fix resume: in the reference (stage 1)");
		return 0;
	}
	if (obs_sample_resume_interpreter_missing(obs) != NULL || error != NULL) {
		row = kd_rows_add(rows, "sample.resume", KD_R_FAIL, "resume check runs", "not run", "three runs", NULL);
		kd_row_set_error(row, error != NULL ? error : "the project interpreter is missing",
				 error != NULL ? "see the error" : "run stage 3 (rebuild) first");
		return 0;
	}
	runs = obs_sample_resume_runs(obs);
	row_run(runs, "uninterrupted", "uninterrupted run", rows);
	row_run(runs, "interrupted", obs_sample_resume_finished_before_kill(obs)
		? "interrupted run (finished before the kill)" : "interrupted run", rows);
	if (obs_sample_resume_checkpoint_missing(obs)) {
		row = kd_rows_addf(rows, "sample.resume.checkpoint", KD_R_FAIL, "checkpoint of the interrupted step written",
				   "resume.checkpoint", "%s does not exist",
				   or_str(obs_sample_resume_checkpoint(obs), "?"));
		kd_row_set_error(row, "the interrupted run wrote no checkpoint of step interrupt_at",
				 "make the run save resume.checkpoint at that step (or change interrupt_at)");
	}
	row_inventory(obs, rows);
	row_run(runs, "resumed", "resumed run", rows);
	if (obs_sample_resume_cancelled(obs))
		kd_rows_fail(rows, "sample.resume.cancelled", "resume check finished", "cancelled", "three runs",
			     "the resume check was cancelled", "check again");
	row_metrics(obs, rows);
	row_trajectory(obs, rows);
	row_final(obs, rows);
	row_reference(obs, rows);
	resume_describe_rows(obs, rows);
	for (size_t i = start; i < rows->n; i++)
		if (rows->v[i].evidence == NULL)
			rows->v[i].evidence = strdup("sample.yaml");
	rc = row_rule(ctx, res, obs, err);
	return rc;
}

void
resume_describe_rows(const json_t *obs, struct kd_rows *rows)
{
	static const struct { const char *kind, *label; } labels[] = {
		{ "model", "model weights" }, { "optimizer", "optimizer state" },
		{ "scheduler", "LR scheduler" }, { "rng_torch", "RNG state: torch CPU" },
		{ "rng_cuda", "RNG state: CUDA (per device)" }, { "rng_numpy", "RNG state: NumPy" },
		{ "rng_python", "RNG state: Python" }, { "counter", "step or epoch counter" },
		{ "data_position", "sampler or data position" },
	};
	const json_t *k;
	size_t i;

	json_array_foreach(obs_sample_resume_inventory_kinds(obs), i, k) {
		const char *kind = or_str(obs_sample_kind_kind(k), "?"), *label = kind;
		int present = obs_sample_kind_present(k);
		char id[96], where[512] = "", extra[160] = "";
		size_t o = 0, j;
		const json_t *w;

		for (j = 0; j < sizeof labels / sizeof labels[0]; j++)
			if (strcmp(labels[j].kind, kind) == 0)
				label = labels[j].label;
		json_array_foreach(obs_sample_kind_where(k), j, w)
			if (o < sizeof where)
				o += (size_t)snprintf(where + o, sizeof where - o, "%s%s", j ? ", " : "",
						      json_string_value(w) ? json_string_value(w) : "?");
		if (strcmp(kind, "model") == 0)
			snprintf(extra, sizeof extra, ", %lld tensors, %lld parameters",
				 (long long)obs_sample_kind_tensors(k), (long long)obs_sample_kind_parameters(k));
		else if (strcmp(kind, "optimizer") == 0 && present)
			snprintf(extra, sizeof extra, json_is_true(obs_sample_kind_buffers(k))
				 ? ", with per-parameter buffers" : ", without per-parameter buffers");
		else if (strcmp(kind, "rng_cuda") == 0 && present)
			snprintf(extra, sizeof extra, ", %lld device(s)", (long long)obs_sample_kind_devices(k));
		snprintf(id, sizeof id, "sample.resume.kind.%s", kind);
		kd_rows_addf(rows, id, KD_R_INFO, label, NULL, "%s%s%s%s", present ? "present (" : "absent",
			     present ? where : "", present ? ")" : "", extra);
	}
}
