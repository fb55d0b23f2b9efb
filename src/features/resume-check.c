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
#include "kernodeck/run.h"
#include "kernodeck/state.h"
#include "kernodeck/yamlio.h"

#define RESUME_LIKELY_CAP 3000

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

/* --- the diagnosis: the kinds of state the checkpoint lacks, ranked by
 * what the run visibly uses and what the trajectory rules out --- */

#define RESUME_CAUSES 12

struct cause {
	int score;               /* higher first */
	const char *kind;
	const char *phrase;      /* resume_missing_phrase */
	const char *use;         /* "train.py:57: ...", or NULL */
};

static const struct { const char *kind, *name; } kind_names[] = {
	{ "model", "the model" }, { "optimizer", "the optimizer" }, { "scheduler", "a scheduler" },
	{ "rng_torch", "the torch RNG" }, { "rng_cuda", "the CUDA RNG" }, { "rng_numpy", "NumPy's RNG" },
	{ "rng_python", "Python's RNG" }, { "counter", "a step counter" },
	{ "data_position", "the data position" },
};

static const char *
kind_name(const char *kind)
{
	for (size_t i = 0; i < sizeof kind_names / sizeof kind_names[0]; i++)
		if (strcmp(kind_names[i].kind, kind) == 0)
			return kind_names[i].name;
	return kind;
}

/* Did a learning-rate key (lr, learning_rate) agree at the first resumed
 * step?  Then the rate did not restart. */
static int
lr_held(const json_t *obs)
{
	const json_t *at = obs_sample_resume_trajectory_at_first(obs), *v;
	const char *key;

	json_object_foreach((json_t *)at, key, v)
		if ((strcasestr(key, "lr") != NULL || strcasestr(key, "learning_rate") != NULL) && json_is_true(v))
			return 1;
	return 0;
}

/* Why kind cannot be the cause, into buf, or NULL: the script never uses
 * it, the rate agreed at the first resumed step, the resumed run counted
 * on from the right step. */
static const char *
ruled_out(const json_t *obs, const char *kind, const json_t *uses, char *buf, size_t len)
{
	const char *script = obs_sample_resume_inventory_script(obs), *base;
	const json_t *t = obs_sample_resume_trajectory(obs);

	base = script && strrchr(script, '/') ? strrchr(script, '/') + 1 : script;
	if (strcmp(kind, "scheduler") == 0 && lr_held(obs)) {
		snprintf(buf, len, "the learning rate restarting (it agrees at step %lld)",
			 (long long)obs_sample_traj_from(t));
		return buf;
	}
	if (strcmp(kind, "counter") == 0 && t != NULL && obs_sample_resume_trajectory_missing(obs) == NULL) {
		snprintf(buf, len, "the step counter (the resumed run counts on from step %lld)",
			 (long long)obs_sample_traj_from(t));
		return buf;
	}
	if (uses != NULL && json_object_get(uses, kind) == NULL && strcmp(kind, "model") != 0 &&
	    strcmp(kind, "counter") != 0) {
		snprintf(buf, len, "%s (%s never visibly uses it)", kind_name(kind), base ? base : "the script");
		return buf;
	}
	return NULL;
}

/* The causes, most likely first (*n of them), and what the evidence
 * rules out, "; "-joined, into ruled. */
static size_t
rank_causes(const json_t *obs, struct cause *c, char *ruled, size_t rlen)
{
	const json_t *kinds = obs_sample_resume_inventory_kinds(obs), *k;
	const json_t *uses = obs_sample_resume_inventory_uses(obs), *t = obs_sample_resume_trajectory(obs);
	long long first = obs_sample_traj_first(t) ? (long long)obs_sample_traj_first_step(t) : 0;
	size_t i, n = 0, ro = 0;
	char why[256];

	ruled[0] = '\0';
	json_array_foreach(kinds, i, k) {
		const char *kind = or_str(obs_sample_kind_kind(k), "");
		int present = obs_sample_kind_present(k);
		int no_buffers = present && strcmp(kind, "optimizer") == 0 &&
				 json_is_false(obs_sample_kind_buffers(k));
		const char *ph = resume_missing_phrase(kind, no_buffers), *why_not;

		if ((present && !no_buffers) || strcmp(kind, "rng_cuda") == 0 || ph == NULL || n == RESUME_CAUSES)
			continue;
		if ((why_not = ruled_out(obs, kind, uses, why, sizeof why)) != NULL) {
			if (ro + 1 < rlen)
				ro += (size_t)snprintf(ruled + ro, rlen - ro, "%s%s", ro ? "; " : "", why_not);
			if (ro >= rlen)
				ro = rlen - 1;
			continue;
		}
		c[n].kind = kind;
		c[n].phrase = ph;
		c[n].use = uses ? json_string_value(json_object_get(uses, kind)) : NULL;
		/* used visibly: likelier; the model: the likeliest; momentum shows
		 * only from the second resumed step (the first loss is computed
		 * before the first update) */
		c[n].score = strcmp(kind, "model") == 0 ? 4 : c[n].use ? 3 : 1;
		if (strcmp(kind, "optimizer") == 0 && t != NULL && first == obs_sample_traj_from(t))
			c[n].score -= 2;
		n++;
	}
	for (size_t x = 1; x < n; x++)   /* stable: the inventory's order among equals */
		for (size_t y = x; y > 0 && c[y].score > c[y - 1].score; y--) {
			struct cause tmp = c[y];
			c[y] = c[y - 1];
			c[y - 1] = tmp;
		}
	return n;
}

/* What the checkpoint holds and what the run visibly uses, for a person. */
static void
held_and_used(const json_t *obs, char *buf, size_t len)
{
	const json_t *kinds = obs_sample_resume_inventory_kinds(obs), *k, *uses = obs_sample_resume_inventory_uses(obs), *v;
	const char *ck = or_str(obs_sample_resume_inventory_checkpoint(obs), "the checkpoint"), *key;
	const char *script = obs_sample_resume_inventory_script(obs);
	size_t i, o = 0, m = 0;

	o = (size_t)snprintf(buf, len, "%s holds", strrchr(ck, '/') ? strrchr(ck, '/') + 1 : ck);
	json_array_foreach(kinds, i, k)
		if (obs_sample_kind_present(k) && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s %s", m++ ? "," : "",
					      kind_name(or_str(obs_sample_kind_kind(k), "?")));
	if (m == 0 && o < len)
		o += (size_t)snprintf(buf + o, len - o, " nothing kernodeck recognises");
	if (uses == NULL || o >= len)
		return;
	o += (size_t)snprintf(buf + o, len - o, "; %s visibly uses", script && strrchr(script, '/')
			      ? strrchr(script, '/') + 1 : or_str(script, "the script"));
	m = 0;
	json_object_foreach((json_t *)uses, key, v)
		if (o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s %s", m++ ? "," : "", kind_name(key));
	if (m == 0 && o < len)
		snprintf(buf + o, len - o, " none of them");
}

/* The diagnosis: what is held and used, the possible causes ranked (each
 * with the line that uses it), what the evidence rules out; "" when the
 * checkpoint lacks nothing (or was not read). */
static void
likely_cause(const json_t *obs, int full, char *buf, size_t len)
{
	struct cause c[RESUME_CAUSES];
	char ruled[512];
	size_t n = rank_causes(obs, c, ruled, sizeof ruled), o = 0;
	const char *ck = or_str(obs_sample_resume_inventory_checkpoint(obs), "the checkpoint");

	ck = strrchr(ck, '/') ? strrchr(ck, '/') + 1 : ck;
	buf[0] = '\0';
	if (obs_sample_resume_inventory_kinds(obs) == NULL)
		return;
	if (full) {
		held_and_used(obs, buf, len);
		o = strlen(buf);
		if (n > 0 && o < len)
			o += (size_t)snprintf(buf + o, len - o, "; possible causes, most likely first: ");
	}
	for (size_t i = 0; i < n && o + 1 < len; i++) {
		if (full)
			o += (size_t)snprintf(buf + o, len - o, "%s(%zu) %s", i ? "; " : "", i + 1, c[i].phrase);
		else
			o += (size_t)snprintf(buf + o, len - o, "%s%s%s", i ? "; " : i == 0 ? ck : "",
					      i ? "" : " holds ", c[i].phrase);
		if (c[i].use != NULL && o < len)
			o += (size_t)snprintf(buf + o, len - o, " (used at %s)", c[i].use);
	}
	if (full && ruled[0] != '\0' && o < len)
		snprintf(buf + o, len - o, "; ruled out by the evidence: %s", ruled);
	if (!full && n == 0)
		buf[0] = '\0';
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
	if (obs_sample_resume_run_memory_limit_hit(run))
		snprintf(fe, sizeof fe, "%s", or_str(ended, "the memory limit was reached"));
	kd_row_set_error(r, fe, obs_sample_resume_run_timed_out(run)
			 ? "the run did not finish in time: KD_TIMEOUT_RESUME (else KD_TIMEOUT_SAMPLE) sets the limit in seconds"
			 : obs_sample_resume_run_memory_limit_hit(run) ? KD_HINT_MEMORY_LIMIT
			 : obs_sample_resume_run_cancelled(run) ? "cancelled: check again"
			 : "the log holds the whole output; fix the first error and check again");
}

/* A verdict whose precondition is missing: failed, "not run", never a
 * pass; a deviation recorded on the precondition's row leaves it failing. */
static void
row_not_run(struct kd_rows *rows, const char *id, const char *label, const char *expected,
	    const char *why)
{
	struct kd_row *r = kd_rows_addf(rows, id, KD_R_FAIL, label, expected, "not run: %s", why);

	kd_row_set_error(r, why, "this check needs the interruption and the resumed run: mend the row that failed first and check again");
}

/* The interrupted run: in kill mode, a run that was not killed fails (it
 * interrupted nothing), whatever its exit. */
static void
row_interrupted(const json_t *obs, const json_t *runs, struct kd_rows *rows)
{
	const json_t *run = json_object_get(runs, "interrupted");
	struct kd_row *r;
	char seen[300], exp[160];

	if (!obs_sample_resume_finished_before_kill(obs)) {
		row_run(runs, "interrupted", "interrupted run", rows);
		return;
	}
	snprintf(seen, sizeof seen, "not killed: %s", or_str(obs_sample_resume_run_ended(run), "it ended"));
	snprintf(exp, sizeof exp, "killed (SIGKILL) once the checkpoint of step %lld was complete",
		 (long long)obs_sample_resume_interrupt_at(obs));
	r = kd_rows_add(rows, "sample.resume.interrupted", KD_R_FAIL, "interrupted run (killed by kernodeck)",
			seen, exp, obs_sample_resume_run_log(run));
	kd_row_set_error(r, or_str(obs_sample_resume_not_run(obs), "the interrupted run was not killed"),
			 "the run must save resume.checkpoint at step interrupt_at and go on training past it, so that kernodeck can kill it there");
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
	if (ea == NULL && b == NULL) {
		row_not_run(rows, "sample.resume.metrics", label, "one JSON object per step",
			    or_str(obs_sample_resume_not_run(obs), "the resumed run did not run"));
		return;
	}
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
	char seen[1024], fe[RESUME_LIKELY_CAP + 512], exp[256], rs[128], why[256], cause[RESUME_LIKELY_CAP];
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
	likely_cause(obs, 1, cause, sizeof cause);
	if (cause[0] != '\0') {
		size_t n = strlen(fe);
		snprintf(fe + n, sizeof fe - n, "; %s", cause);
	}
	kd_row_set_error(row, fe, strstr(cause, "possible causes") ? "save the state named first in the checkpoint, restore it on resume, and check again"
			 : "compare what the checkpoint holds (the inventory rows) with what the training loop uses");
}

static void
row_inventory(const json_t *obs, struct kd_rows *rows)
{
	const char *ck = or_str(obs_sample_resume_inventory_checkpoint(obs), "?");
	const json_t *refused = obs_sample_resume_inventory_refused(obs);
	char cause[RESUME_LIKELY_CAP], rec[160] = "";
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
	if (obs_sample_resume_inventory_step_key(obs) != NULL)
		snprintf(rec, sizeof rec, "; records step %lld (%s)", (long long)obs_sample_resume_inventory_step(obs),
			 obs_sample_resume_inventory_step_key(obs));
	likely_cause(obs, 0, cause, sizeof cause);
	row = kd_rows_addf(rows, "sample.resume.inventory", cause[0] ? KD_R_WARN : KD_R_PASS,
			   "checkpoint inventory", "model, optimizer, scheduler, RNG states, counters, data position",
			   "%s: %zu of %zu kinds of state (loader: %s)%s", ck, present, n,
			   or_str(obs_sample_resume_inventory_loader(obs), "?"), rec);
	if (cause[0])
		kd_row_set_error(row, cause, "a resumed run needs every kind of state its training loop uses");
}

/* " (model: 0 of 6 differ; optimizer: ...; RNG states: the same)", model
 * tensors first, RNG states as states. */
static void
final_classes(const json_t *obs, char *buf, size_t len)
{
	static const char *const order[] = { "model", "optimizer", "other", "rng" };
	const json_t *cl = obs_sample_resume_final_classes(obs);
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; cl != NULL && i < 4 && o + 1 < len; i++) {
		const json_t *c = json_object_get(cl, order[i]);
		long long n = json_integer_value(json_object_get(c, "compared"));
		long long d = json_integer_value(json_object_get(c, "differ"));

		if (c == NULL)
			continue;
		if (strcmp(order[i], "rng") == 0)
			o += (size_t)snprintf(buf + o, len - o, "%sRNG states: %s", o ? "; " : " (",
					      d == 0 ? "the same" : "not the same");
		else
			o += (size_t)snprintf(buf + o, len - o, "%s%s: %lld of %lld differ", o ? "; " : " (",
					      order[i], d, n);
	}
	if (o > 0 && o + 1 < len)
		snprintf(buf + o, len - o, ")");
}

static void
row_final(const json_t *obs, struct kd_rows *rows)
{
	const char *absent = obs_sample_resume_final_absent(obs), *err = obs_sample_resume_final_error(obs);
	const json_t *d;
	const char *label = "final checkpoints agree tensor by tensor", *tensor;
	struct kd_row *row;
	char fe[1024], a[64], b[64], cls[256];

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
	final_classes(obs, cls, sizeof cls);
	row = kd_rows_addf(rows, "sample.resume.final", obs_sample_resume_final_differ(obs) == 0
			   ? KD_R_PASS : KD_R_FAIL, label, "under the resume rule",
			   "%lld tensors compared, %lld differ%s; worst difference %s (%s)",
			   (long long)obs_sample_resume_final_compared(obs),
			   (long long)obs_sample_resume_final_differ(obs), cls, a,
			   or_str(obs_sample_resume_final_worst_tensor(obs), "-"));
	if (row->status == KD_R_PASS)
		return;
	d = json_array_get(obs_sample_resume_final_differing(obs), 0);
	tensor = or_str(obs_sample_tensor_tensor(d), "?");
	if (strcmp(or_str(obs_sample_tensor_class(d), ""), "rng") == 0 && obs_sample_tensor_only_in(d) == NULL &&
	    !obs_sample_tensor_same(d))
		snprintf(fe, sizeof fe, "RNG state %s is not the same (compared as a state, not as numbers)", tensor);
	else if (obs_sample_tensor_only_in(d) != NULL)
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
	const char *not_run = or_str(obs_sample_resume_not_run(obs), obs_sample_resume_cancelled(obs)
				     ? "the resume check was cancelled" : "the resumed run did not run");
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
	row_interrupted(obs, runs, rows);
	if (obs_sample_resume_checkpoint_missing(obs)) {
		row = kd_rows_addf(rows, "sample.resume.checkpoint", KD_R_FAIL, "checkpoint of the interrupted step written",
				   "resume.checkpoint", "%s does not exist",
				   or_str(obs_sample_resume_checkpoint(obs), "?"));
		kd_row_set_error(row, "the interrupted run wrote no checkpoint of step interrupt_at",
				 "make the run save resume.checkpoint at that step (or change interrupt_at)");
	}
	row_inventory(obs, rows);
	if (json_object_get(runs, "resumed") != NULL)
		row_run(runs, "resumed", "resumed run", rows);
	else
		row_not_run(rows, "sample.resume.resumed", "resumed run", "exit 0", not_run);
	if (obs_sample_resume_cancelled(obs))
		kd_rows_fail(rows, "sample.resume.cancelled", "resume check finished", "cancelled", "three runs",
			     "the resume check was cancelled", "check again");
	row_metrics(obs, rows);
	if (obs_sample_resume_trajectory(obs) != NULL)
		row_trajectory(obs, rows);
	else
		row_not_run(rows, "sample.resume.trajectory", "resumed trajectory follows the uninterrupted one",
			    "the resumed run follows the uninterrupted one",
			    obs_sample_resume_not_run(obs) ? not_run : "a metrics file could not be read (sample.resume.metrics)");
	if (obs_sample_resume_final(obs) != NULL)
		row_final(obs, rows);
	else
		row_not_run(rows, "sample.resume.final", "final checkpoints agree tensor by tensor",
			    "the same tensors", not_run);
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
