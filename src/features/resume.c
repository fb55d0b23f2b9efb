/*
 * resume.c - the resume exercise of stage 6: its declaration, its three
 * runs, the checkpoint inventory and the comparisons (see
 * include/kernodeck/resume.h; the rows are in src/features/resume-check.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/argv.h"
#include "kernodeck/caps.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/paths.h"
#include "kernodeck/pytrace.h"
#include "kernodeck/resume.h"
#include "kernodeck/run.h"
#include "kernodeck/step.h"
#include "kernodeck/venv.h"
#include "kernodeck/yamlio.h"

#define RESUME_INV_LINES 256   /* lines of the inventory script kept */

static const char *const placeholders[] = { "steps", "out", "checkpoint", "step" };

/* --- the declaration --- */

int
resume_rule_parse(const json_t *t, struct resume_rule *r, char *why, size_t len)
{
	const char *kind = json_string_value(json_object_get(t, "kind"));
	const json_t *atol = json_object_get(t, "atol"), *rtol = json_object_get(t, "rtol");
	const char *just = json_string_value(json_object_get(t, "justification"));

	memset(r, 0, sizeof *r);
	if (!json_is_object(t) || kind == NULL) {
		snprintf(why, len, "no rule declared (kind: exact, or tolerance with atol, rtol and a justification)");
		return -1;
	}
	if (strcmp(kind, "exact") == 0)
		return 0;
	if (strcmp(kind, "tolerance") != 0) {
		snprintf(why, len, "kind %s: the resume check knows exact and tolerance", kind);
		return -1;
	}
	if (!json_is_number(atol) || !json_is_number(rtol) || json_number_value(atol) < 0 ||
	    json_number_value(rtol) < 0) {
		snprintf(why, len, "a tolerance needs atol and rtol, numbers >= 0");
		return -1;
	}
	if (just == NULL || just[strspn(just, " \t\n")] == '\0') {
		snprintf(why, len, "a tolerance needs a written justification; there is no default");
		return -1;
	}
	r->tolerance = 1;
	r->atol = json_number_value(atol);
	r->rtol = json_number_value(rtol);
	return 0;
}

int
resume_rule_accepts(const struct resume_rule *r, double a, double b)
{
	if (!r->tolerance)
		return a == b;
	return fabs(a - b) <= r->atol + r->rtol * fabs(b);
}

/* Every {NAME} in s is one of the four placeholders. */
static int
placeholders_ok(const char *s, const char *where, char *why, size_t len)
{
	for (const char *p = strchr(s, '{'); p != NULL; p = strchr(p + 1, '{')) {
		const char *e = strchr(p, '}');
		size_t n = e ? (size_t)(e - p - 1) : 0, k;

		for (k = 0; e != NULL && k < 4; k++)
			if (strlen(placeholders[k]) == n && strncmp(p + 1, placeholders[k], n) == 0)
				break;
		if (e == NULL || k == 4) {
			snprintf(why, len, "%s: unknown placeholder %.*s: only {steps}, {out}, {checkpoint} and {step}",
				 where, e ? (int)(n + 2) : (int)strlen(p), p);
			return -1;
		}
	}
	return 0;
}

static int
argv_ok(const json_t *v, const char *name, char *why, size_t len)
{
	char where[64];
	size_t i;
	json_t *a;

	if (!json_is_array(v) || json_array_size(v) == 0) {
		snprintf(why, len, "resume.%s is not declared as an argument vector ([python, train.py, ...])", name);
		return -1;
	}
	if (json_array_size(v) >= RESUME_MAX_ARGS) {
		snprintf(why, len, "resume.%s has too many arguments", name);
		return -1;
	}
	json_array_foreach(v, i, a) {
		snprintf(where, sizeof where, "resume.%s[%zu]", name, i);
		if (!json_is_string(a)) {
			snprintf(why, len, "%s must be text (quote numbers)", where);
			return -1;
		}
		if (placeholders_ok(json_string_value(a), where, why, len) != 0)
			return -1;
	}
	return 0;
}

static int
path_ok(const char *s, const char *name, char *why, size_t len)
{
	char where[64];

	snprintf(where, sizeof where, "resume.%s", name);
	if (s == NULL || *s == '\0') {
		snprintf(why, len, "%s is not declared", where);
		return -1;
	}
	if (placeholders_ok(s, where, why, len) != 0)
		return -1;
	if (strncmp(s, "{out}/", 6) != 0) {
		snprintf(why, len, "%s must start with {out}/: each run writes into its own folder", where);
		return -1;
	}
	return 0;
}

int
resume_spec_parse(const json_t *ref, struct resume_spec *s, char *why, size_t len)
{
	const json_t *r = json_object_get(ref, "resume"), *keys, *k;
	const char *intr;
	char rwhy[300];
	size_t i;

	memset(s, 0, sizeof *s);
	if (r == NULL || json_is_null(r))
		return 1;
	if (!json_is_object(r)) {
		snprintf(why, len, "resume must be a mapping");
		return -1;
	}
	s->run = json_object_get(r, "run");
	s->resume = json_object_get(r, "resume");
	if (argv_ok(s->run, "run", why, len) != 0 || argv_ok(s->resume, "resume", why, len) != 0)
		return -1;
	if (!json_is_integer(json_object_get(r, "steps")) || !json_is_integer(json_object_get(r, "interrupt_at"))) {
		snprintf(why, len, "resume.steps and resume.interrupt_at must be whole numbers");
		return -1;
	}
	s->steps = (long long)json_integer_value(json_object_get(r, "steps"));
	s->interrupt_at = (long long)json_integer_value(json_object_get(r, "interrupt_at"));
	if (s->interrupt_at < 1 || s->steps <= s->interrupt_at || s->steps > 10000000) {
		snprintf(why, len, "resume.interrupt_at (%lld) must be at least 1 and below resume.steps (%lld)",
			 s->interrupt_at, s->steps);
		return -1;
	}
	intr = json_string_value(json_object_get(r, "interrupt"));
	if (intr == NULL || (strcmp(intr, "stop") != 0 && strcmp(intr, "kill") != 0)) {
		snprintf(why, len, "resume.interrupt must be stop (run to interrupt_at) or kill (SIGKILL once its checkpoint is complete)");
		return -1;
	}
	s->kill = strcmp(intr, "kill") == 0;
	s->checkpoint = json_string_value(json_object_get(r, "checkpoint"));
	s->metrics = json_string_value(json_object_get(r, "metrics"));
	if (path_ok(s->checkpoint, "checkpoint", why, len) != 0 || path_ok(s->metrics, "metrics", why, len) != 0)
		return -1;
	if (strstr(s->checkpoint, "{step}") == NULL) {
		snprintf(why, len, "resume.checkpoint must name the step: {out}/ckpt-{step}.pt");
		return -1;
	}
	keys = json_object_get(r, "compare");
	if (!json_is_array(keys) || json_array_size(keys) == 0 || json_array_size(keys) > METRICS_MAX_KEYS) {
		snprintf(why, len, "resume.compare must list the metric keys compared (1 to %d): [loss]", METRICS_MAX_KEYS);
		return -1;
	}
	json_array_foreach(keys, i, k) {
		if (!json_is_string(k) || strcmp(json_string_value(k), "step") == 0) {
			snprintf(why, len, "resume.compare[%zu] must be a metric key (text, not step)", i);
			return -1;
		}
		s->keys[s->nkeys++] = json_string_value(k);
	}
	s->rule_tree = json_object_get(r, "rule");
	if (resume_rule_parse(s->rule_tree, &s->rule, rwhy, sizeof rwhy) != 0) {
		snprintf(why, len, "resume.rule: %s", rwhy);
		return -1;
	}
	s->reference_metrics = json_string_value(json_object_get(r, "reference_metrics"));
	if (s->reference_metrics != NULL && *s->reference_metrics == '\0')
		s->reference_metrics = NULL;
	s->reference_rule_tree = json_object_get(r, "reference_rule");
	if (s->reference_metrics != NULL &&
	    resume_rule_parse(s->reference_rule_tree, &s->reference_rule, rwhy, sizeof rwhy) != 0) {
		snprintf(why, len, "resume.reference_rule (a rule of its own for the reference machine's trajectory): %s", rwhy);
		return -1;
	}
	return 0;
}

char *
resume_expand(const char *tpl, const char *steps, const char *out, const char *checkpoint,
	      const char *step)
{
	const char *vals[4] = { steps, out, checkpoint, step };
	size_t tl = strlen(tpl), longest = 0, o = 0;
	char *buf;

	for (size_t k = 0; k < 4; k++)
		if (vals[k] != NULL && strlen(vals[k]) > longest)
			longest = strlen(vals[k]);
	/* a placeholder takes at least 5 bytes ({out}) */
	if ((buf = malloc(tl + (tl / 5 + 1) * longest + 1)) == NULL)
		return NULL;
	for (const char *p = tpl; *p; ) {
		int done = 0;

		for (size_t k = 0; *p == '{' && k < 4 && !done; k++) {
			size_t n = strlen(placeholders[k]);
			if (vals[k] != NULL && strncmp(p + 1, placeholders[k], n) == 0 && p[n + 1] == '}') {
				memcpy(buf + o, vals[k], strlen(vals[k]));
				o += strlen(vals[k]);
				p += n + 2;
				done = 1;
			}
		}
		if (!done)
			buf[o++] = *p++;
	}
	buf[o] = '\0';
	return buf;
}

/* --- one run --- */

struct follow {
	const struct kd_sink *sink;
	struct pytrace tr;
	const char *kill_when;   /* kill mode: the checkpoint that, complete, ends the run */
	long long last_size;
	int kill_seen;
	json_t *lines;           /* the inventory script's JSON lines, or NULL */
};

/* A checkpoint is complete when it ends with a zip end record (torch.save's
 * format) or, for another format, when its size held still for one poll. */
static int
ckpt_complete(struct follow *f)
{
	unsigned char tail[22];
	struct stat st;
	int fd, ok = 0;

	if (stat(f->kill_when, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		return 0;
	if (st.st_size >= 22 && (fd = open(f->kill_when, O_RDONLY | O_CLOEXEC)) >= 0) {
		ok = pread(fd, tail, sizeof tail, st.st_size - 22) == 22 &&
		     memcmp(tail, "PK\005\006", 4) == 0;
		close(fd);
	}
	if (!ok && (long long)st.st_size == f->last_size)
		ok = 1;
	f->last_size = (long long)st.st_size;
	return ok;
}

static int
follow_kill_now(void *u)
{
	struct follow *f = u;

	if (f->kill_when == NULL || f->kill_seen)
		return 0;
	return f->kill_seen = ckpt_complete(f);
}

static void
follow_line(void *u, const char *line, size_t len)
{
	struct follow *f = u;

	if (f->lines != NULL) {
		json_t *o = len > 0 && line[0] == '{' && len < KD_CAP_JSON_LINE
			    ? json_loadb(line, len, 0, NULL) : NULL;
		if (json_is_object(o) && json_array_size(f->lines) < RESUME_INV_LINES)
			json_array_append(f->lines, o);
		json_decref(o);
		return;
	}
	if (f->sink != NULL && f->sink->on_line != NULL)
		f->sink->on_line(f->sink->u, line, len);
	if (pytrace_feed(&f->tr, line, len))
		kd_sink_step(f->sink, f->tr.step, -1);
}

/* The first error of a failed run: its step (the traceback's, else the
 * last announced), error line and innermost frame. */
static json_t *
failure_of(struct follow *f)
{
	json_t *fail = json_object();
	char buf[256];
	const char *step = pytrace_failed_step(&f->tr, buf, sizeof buf);

	if (step == NULL)
		step = f->tr.step;
	json_object_set_new(fail, "step", step ? json_string(step) : json_null());
	json_object_set_new(fail, "error", f->tr.error ? json_string(f->tr.error) : json_null());
	if (pytrace_frame(&f->tr) != NULL)
		json_object_set_new(fail, "frame", json_string(pytrace_frame(&f->tr)));
	if (pytrace_code(&f->tr) != NULL)
		json_object_set_new(fail, "code", json_string(pytrace_code(&f->tr)));
	return fail;
}

/* Run argv in the project folder through the step runner (its timeout,
 * cancellation and log); the record goes into runs[name].  Returns 1 when
 * it succeeded (exit 0, or killed on purpose), 0 otherwise. */
static int
run_one(struct kd_ctx *ctx, const char *name, char **argv, const char *kill_when,
	const struct kd_sink *sink, json_t *runs)
{
	static const char *const env[] = { "PYTHONUNBUFFERED=1", NULL };
	struct follow f;
	struct kd_step st;
	struct kd_err err = { 0 };
	const struct run_result *r = &st.r;
	char logname[64], how[256], ebuf[1200];
	json_t *rec = json_object(), *av = json_array();
	int ok = 0;

	snprintf(logname, sizeof logname, "resume-%s", name);
	memset(&f, 0, sizeof f);
	memset(&st, 0, sizeof st);
	pytrace_init(&f.tr);
	f.sink = sink;
	f.kill_when = kill_when;
	f.last_size = -1;
	for (size_t i = 0; argv[i] != NULL; i++)
		json_array_append_new(av, json_string(argv[i]));
	json_object_set_new(rec, "argv", av);
	json_object_set_new(runs, name, rec);
	st.what = logname;
	st.argv = (const char *const *)argv;
	st.env_set = env;
	st.timeout_s = kd_env_seconds("KD_TIMEOUT_RESUME", ctx->timeout_sample);
	st.on_line = follow_line;
	st.kill_now = kill_when ? follow_kill_now : NULL;
	st.u = &f;
	if (step_run(ctx, sink, &st, &err) != 0) {
		json_object_set_new(rec, "started", json_false());
		json_object_set_new(rec, "error", json_string(kd_err_format(&err, ebuf, sizeof ebuf)));
		goto out;
	}
	if (st.log != NULL)
		json_object_set_new(rec, "log", json_string(kd_ctx_relpath(ctx, st.log)));
	json_object_set_new(rec, "started", json_true());
	json_object_set_new(rec, "ended", json_string(r->killed_on_request ? "killed by kernodeck (SIGKILL) once the checkpoint was complete"
						     : run_describe(r, how, sizeof how)));
	json_object_set_new(rec, "exit_code", r->exited ? json_integer(r->exit_code) : json_null());
	json_object_set_new(rec, "timed_out", json_boolean(r->timed_out));
	json_object_set_new(rec, "cancelled", json_boolean(r->cancelled));
	json_object_set_new(rec, "killed_on_purpose", json_boolean(r->killed_on_request));
	json_object_set_new(rec, "seconds", json_real(r->elapsed_s));
	if (f.tr.step != NULL)
		json_object_set_new(rec, "step_reached", json_string(f.tr.step));
	ok = step_ok(&st) || (r->killed_on_request && !r->cancelled && !r->timed_out);
	if (!ok)
		json_object_set_new(rec, "failure", failure_of(&f));
out:
	json_object_set_new(rec, "ok", json_boolean(ok));
	pytrace_free(&f.tr);
	step_free(&st);
	return ok;
}

/* --- argument vectors --- */

static char *
project_python(const struct kd_ctx *ctx)
{
	return venv_python(ctx->project_dir);
}

/* Expand a template; "python"/"python3" first stands for the project
 * interpreter.  argv is NULL-terminated; free with argv_free. */
static char **
make_argv(const char *project_dir, const json_t *tpl, const char *steps, const char *out,
	  const char *ckpt, const char *step)
{
	char **argv = calloc(json_array_size(tpl) + 1, sizeof *argv);
	size_t i;
	json_t *a;

	if (argv == NULL)
		return NULL;
	json_array_foreach(tpl, i, a) {
		const char *s = json_string_value(a);
		if (i == 0 && (strcmp(s, "python") == 0 || strcmp(s, "python3") == 0))
			argv[i] = venv_python(project_dir);
		else
			argv[i] = resume_expand(s, steps, out, ckpt, step);
	}
	return argv;
}

/* The checkpoint reader: the project interpreter, script, then args. */
static char **
script_argv(const char *project_dir, const char *script, const char *const *args)
{
	char **argv = calloc(12, sizeof *argv);
	size_t n = 0;

	if (argv == NULL)
		return NULL;
	argv[n++] = venv_python(project_dir);
	argv[n++] = strdup(script);
	for (; *args != NULL && n < 11; args++)
		argv[n++] = strdup(*args);
	return argv;
}

const char *const resume_vec_what[RESUME_NV] = {
	"the resume check: the uninterrupted run",
	"the resume check: the interrupted run",
	"the resume check: the checkpoint reader, on the interrupted run's checkpoint",
	"the resume check: the resumed run",
	"the resume check: the checkpoint reader, comparing the final checkpoints",
};

char **
resume_vector(const struct resume_spec *s, enum resume_vec which, const char *project_dir,
	      const char *kdir, const char *script)
{
	char steps[32], inter[32], atol[64], rtol[64];
	char *da = fsutil_join(kdir, "resume/uninterrupted"), *db = fsutil_join(kdir,
								       "resume/interrupted");
	char *ckpt = NULL, *ca = NULL, *cb = NULL, **v = NULL;

	snprintf(steps, sizeof steps, "%lld", s->steps);
	snprintf(inter, sizeof inter, "%lld", s->interrupt_at);
	snprintf(atol, sizeof atol, "%.17g", s->rule.atol);
	snprintf(rtol, sizeof rtol, "%.17g", s->rule.rtol);
	if (da == NULL || db == NULL || (ckpt = resume_expand(s->checkpoint, NULL, db, NULL, inter)) == NULL)
		goto out;
	switch (which) {
	case RESUME_V_UNINTERRUPTED:
		v = make_argv(project_dir, s->run, steps, da, ckpt, inter);
		break;
	case RESUME_V_INTERRUPTED:
		v = make_argv(project_dir, s->run, s->kill ? steps : inter, db, ckpt, inter);
		break;
	case RESUME_V_INVENTORY: {
		const char *args[] = { "inventory", ckpt, NULL };
		v = script_argv(project_dir, script, args);
		break;
	}
	case RESUME_V_RESUMED:
		v = make_argv(project_dir, s->resume, steps, db, ckpt, inter);
		break;
	case RESUME_V_FINAL: {
		ca = resume_expand(s->checkpoint, NULL, da, NULL, steps);
		cb = resume_expand(s->checkpoint, NULL, db, NULL, steps);
		const char *args[] = { "compare", ca ? ca : "", cb ? cb : "", "--rule",
				       s->rule.tolerance ? "tolerance" : "exact", "--atol", atol,
				       "--rtol", rtol, NULL };
		v = script_argv(project_dir, script, args);
		break;
	}
	case RESUME_NV:
		break;
	}
out:
	free(ca);
	free(cb);
	free(ckpt);
	free(da);
	free(db);
	return v;
}

/* --- the checkpoint script --- */

/* Run the checkpoint reader's vector which (resume_vector: the project
 * interpreter runs share/ckpt-inventory.py) as a step; its JSON lines go
 * into out[what] with the run's record. */
static void
run_script(struct kd_ctx *ctx, const struct resume_spec *s, enum resume_vec which,
	   const char *what, const struct kd_sink *sink, json_t *out)
{
	char *script = kd_share_path("ckpt-inventory.py");
	char **argv = script ? resume_vector(s, which, ctx->project_dir, ctx->state_dir, script)
		      : NULL;
	struct follow f;
	struct kd_step st;
	struct kd_err err = { 0 };
	char logname[64], how[256], ebuf[1200];
	json_t *rec = json_object();

	memset(&f, 0, sizeof f);
	memset(&st, 0, sizeof st);
	pytrace_init(&f.tr);
	f.sink = sink;
	f.lines = json_array();
	snprintf(logname, sizeof logname, "resume-%s", what);
	st.what = logname;
	st.argv = (const char *const *)argv;
	st.timeout_s = kd_env_seconds("KD_TIMEOUT_RESUME", ctx->timeout_sample);
	st.on_line = follow_line;
	st.u = &f;
	json_object_set_new(out, what, rec);
	if (script == NULL || argv == NULL || !fsutil_exists(script)) {
		json_object_set_new(rec, "error", json_string("share/ckpt-inventory.py is not installed"));
		goto out;
	}
	if (step_run(ctx, sink, &st, &err) != 0) {
		json_object_set_new(rec, "error", json_string(kd_err_format(&err, ebuf, sizeof ebuf)));
		goto out;
	}
	if (st.log != NULL)
		json_object_set_new(rec, "log", json_string(kd_ctx_relpath(ctx, st.log)));
	json_object_set_new(rec, "ended", json_string(run_describe(&st.r, how, sizeof how)));
	json_object_set(rec, "lines", f.lines);
	if (json_array_size(f.lines) == 0 ||
	    !json_is_true(json_object_get(json_array_get(f.lines, json_array_size(f.lines) - 1), "end")))
		json_object_set_new(rec, "error", json_string(st.r.tail && *st.r.tail ? st.r.tail
							       : "the script wrote no end line"));
out:
	json_decref(f.lines);
	pytrace_free(&f.tr);
	step_free(&st);
	argv_free(argv);
	free(script);
}

/* The inventory lines as obs.inventory {kinds: [...], loader, error}. */
static void
inventory_obs(json_t *scripts, const char *ckpt_rel, json_t *obs)
{
	json_t *rec = json_object_get(scripts, "inventory"), *lines = json_object_get(rec, "lines");
	json_t *inv = json_object(), *kinds = json_array(), *l, *end = NULL;
	size_t i;

	json_object_set_new(inv, "checkpoint", json_string(ckpt_rel));
	json_array_foreach(lines, i, l) {
		if (json_object_get(l, "kind"))
			json_array_append(kinds, l);
		else if (json_is_true(json_object_get(l, "end")))
			end = l;
	}
	json_object_set_new(inv, "kinds", kinds);
	if (json_object_get(rec, "log"))
		json_object_set(inv, "log", json_object_get(rec, "log"));
	if (end != NULL && json_is_true(json_object_get(end, "ok"))) {
		json_object_set(inv, "loader", json_object_get(end, "loader"));
	} else {
		const json_t *e = end ? json_object_get(end, "error") : json_object_get(rec, "error");
		json_object_set_new(inv, "error", json_string(json_string_value(e) ? json_string_value(e)
							       : "the inventory did not end"));
		if (end && json_object_get(end, "refused"))
			json_object_set(inv, "refused", json_object_get(end, "refused"));
	}
	json_object_set_new(obs, "inventory", inv);
}

/* --- the comparisons --- */

static json_t *
num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Read a metrics file into m; its record (file, steps, error) into o. */
static int
read_metrics(const struct kd_ctx *ctx, const char *path, const struct resume_spec *s,
	     long long restart, struct kd_metrics *m, json_t *o)
{
	struct kd_err err = { 0 };
	char ebuf[1200];

	json_object_set_new(o, "file", json_string(kd_ctx_relpath(ctx, path)));
	if (metrics_read(path, s->keys, s->nkeys, restart, m, &err) != 0) {
		json_object_set_new(o, "error", json_string(kd_err_format(&err, ebuf, sizeof ebuf)));
		return -1;
	}
	json_object_set_new(o, "steps", json_integer((json_int_t)m->n));
	json_object_set_new(o, "first_step", json_integer(m->step[0]));
	json_object_set_new(o, "last_step", json_integer(m->step[m->n - 1]));
	if (m->truncated_last)
		json_object_set_new(o, "truncated_last", json_true());
	if (m->restarted)
		json_object_set_new(o, "restarted", json_true());
	if (m->dropped)
		json_object_set_new(o, "superseded", json_integer((json_int_t)m->dropped));
	return 0;
}

/* Compare b (the run checked) against a (the one it must follow) for the
 * steps from..to, key by key under rule: compared, first divergence,
 * worst difference, missing steps. */
static json_t *
compare_trajectories(const struct kd_metrics *a, const struct kd_metrics *b, long long from,
		     long long to, const struct resume_rule *rule, const char *aname,
		     const char *bname)
{
	json_t *o = json_object();
	size_t compared = 0, diverging = 0;
	double worst = -1;

	json_object_set_new(o, "from", json_integer(from));
	json_object_set_new(o, "to", json_integer(to));
	for (long long st = from; st <= to; st++) {
		long ia = metrics_find(a, st), ib = metrics_find(b, st);

		if (ia < 0 || ib < 0) {
			if (!json_object_get(o, "missing"))
				json_object_set_new(o, "missing", json_pack("{s:I, s:s}", "step", (json_int_t)st,
									    "in", ia < 0 ? aname : bname));
			continue;
		}
		for (size_t k = 0; k < a->nkeys; k++) {
			double va = a->v[(size_t)ia * a->nkeys + k], vb = b->v[(size_t)ib * b->nkeys + k];
			double d = fabs(va - vb);

			compared++;
			if (!resume_rule_accepts(rule, vb, va)) {
				if (diverging++ == 0)
					json_object_set_new(o, "first", json_pack("{s:I, s:s, s:o, s:o, s:o}",
						"step", (json_int_t)st, "key", a->keys[k], aname, num_or_null(va),
						bname, num_or_null(vb), "diff", num_or_null(d)));
			}
			if (d > worst) {
				worst = d;
				json_object_set_new(o, "worst", json_pack("{s:I, s:s, s:o, s:o, s:o}",
					"step", (json_int_t)st, "key", a->keys[k], aname, num_or_null(va),
					bname, num_or_null(vb), "diff", num_or_null(d)));
			}
		}
	}
	json_object_set_new(o, "compared", json_integer((json_int_t)compared));
	json_object_set_new(o, "diverging", json_integer((json_int_t)diverging));
	json_object_set_new(o, "pass", json_boolean(compared > 0 && diverging == 0 &&
						    !json_object_get(o, "missing")));
	return o;
}

/* The two trajectories of the first compared key, for the plot. */
static json_t *
plot_obs(const struct kd_metrics *a, const struct kd_metrics *b, long long steps)
{
	json_t *o = json_object(), *va = json_array(), *vb = json_array();
	long long n = steps < RESUME_PLOT_POINTS ? steps : RESUME_PLOT_POINTS;

	for (long long st = 1; st <= n; st++) {
		long ia = metrics_find(a, st), ib = b ? metrics_find(b, st) : -1;
		json_array_append_new(va, ia >= 0 ? num_or_null(a->v[(size_t)ia * a->nkeys]) : json_null());
		json_array_append_new(vb, ib >= 0 ? num_or_null(b->v[(size_t)ib * b->nkeys]) : json_null());
	}
	json_object_set_new(o, "key", json_string(a->keys[0]));
	json_object_set_new(o, "uninterrupted", va);
	json_object_set_new(o, "resumed", vb);
	return o;
}

/* The final checkpoints of both runs, tensor by tensor, under the rule. */
static void
compare_final(struct kd_ctx *ctx, const struct resume_spec *s, const char *da,
	      const char *db, const struct kd_sink *sink, json_t *o)
{
	char steps[32];
	char *ca, *cb;
	json_t *fin = json_object(), *scripts = json_object(), *lines, *l;
	size_t i;

	snprintf(steps, sizeof steps, "%lld", s->steps);
	ca = resume_expand(s->checkpoint, NULL, da, NULL, steps);
	cb = resume_expand(s->checkpoint, NULL, db, NULL, steps);
	json_object_set_new(o, "final", fin);
	json_object_set_new(fin, "uninterrupted", json_string(kd_ctx_relpath(ctx, ca)));
	json_object_set_new(fin, "resumed", json_string(kd_ctx_relpath(ctx, cb)));
	if (!fsutil_exists(ca) || !fsutil_exists(cb)) {
		json_object_set_new(fin, "absent", json_string(!fsutil_exists(ca) ? "uninterrupted" : "resumed"));
		goto out;
	}
	kd_sink_step(sink, "comparing the final checkpoints", -1);
	run_script(ctx, s, RESUME_V_FINAL, "final", sink, scripts);
	lines = json_object_get(json_object_get(scripts, "final"), "lines");
	json_object_set(fin, "log", json_object_get(json_object_get(scripts, "final"), "log"));
	json_object_set_new(fin, "differing", json_array());
	json_array_foreach(lines, i, l) {
		if (json_is_true(json_object_get(l, "end"))) {
			if (!json_is_true(json_object_get(l, "ok")))
				json_object_set(fin, "error", json_object_get(l, "error"));
			json_object_set(fin, "compared", json_object_get(l, "compared"));
			json_object_set(fin, "differ", json_object_get(l, "differ"));
			json_object_set(fin, "worst", json_object_get(l, "worst"));
		} else if (json_array_size(json_object_get(fin, "differing")) < 20) {
			json_array_append(json_object_get(fin, "differing"), l);
		}
	}
	if (!json_object_get(fin, "compared") && !json_object_get(fin, "error"))
		json_object_set(fin, "error", json_object_get(json_object_get(scripts, "final"), "error"));
out:
	json_decref(scripts);
	free(ca);
	free(cb);
}

/* The uninterrupted trajectory against the reference machine's. */
static void
compare_reference(const struct kd_ctx *ctx, const struct resume_spec *s,
		  const struct kd_metrics *a, json_t *o)
{
	struct kd_metrics m;
	json_t *r = json_object(), *c;
	char *p;

	json_object_set_new(o, "reference", r);
	p = s->reference_metrics[0] == '/' ? strdup(s->reference_metrics)
					   : fsutil_join(ctx->project_dir, s->reference_metrics);
	if (read_metrics(ctx, p, s, 0, &m, r) != 0) {
		free(p);
		return;
	}
	c = compare_trajectories(&m, a, 1, s->steps, &s->reference_rule, "reference", "this machine");
	json_object_update(r, c);
	json_decref(c);
	metrics_free(&m);
	free(p);
}

/* --- gather --- */

/* A fresh, empty folder for one run under the kernodeck folder. */
static char *
fresh_folder(const struct kd_ctx *ctx, const char *name, json_t *o)
{
	char rel[64];
	char *d;
	struct kd_err err = { 0 };
	char ebuf[1200];

	snprintf(rel, sizeof rel, "resume/%s", name);
	d = kd_ctx_path(ctx, rel);
	if (d == NULL)
		return NULL;
	if ((fsutil_exists(d) && fsutil_rmtree(d, &err) != 0) || fsutil_mkdirs(d, &err) != 0) {
		json_object_set_new(o, "error", json_string(kd_err_format(&err, ebuf, sizeof ebuf)));
		free(d);
		return NULL;
	}
	return d;
}

/* The three runs; 1 when all three succeeded. */
static int
run_exercise(struct kd_ctx *ctx, const struct resume_spec *s, const char *da, const char *db,
	     const struct kd_sink *sink, json_t *o)
{
	char steps[32], inter[32], *ckpt, **argv;
	json_t *runs = json_object(), *scripts = json_object();
	int ok;

	json_object_set_new(o, "runs", runs);
	snprintf(steps, sizeof steps, "%lld", s->steps);
	snprintf(inter, sizeof inter, "%lld", s->interrupt_at);
	ckpt = resume_expand(s->checkpoint, NULL, db, NULL, inter);
	json_object_set_new(o, "checkpoint", json_string(kd_ctx_relpath(ctx, ckpt)));

	kd_sink_step(sink, "resume check: the uninterrupted run", -1);
	argv = resume_vector(s, RESUME_V_UNINTERRUPTED, ctx->project_dir, ctx->state_dir, NULL);
	ok = argv != NULL && run_one(ctx, "uninterrupted", argv, NULL, sink, runs);
	argv_free(argv);
	if (!ok && json_is_true(json_object_get(json_object_get(runs, "uninterrupted"), "cancelled")))
		goto out;

	kd_sink_step(sink, s->kill ? "resume check: the interrupted run (killed at its checkpoint)"
		     : "resume check: the interrupted run", -1);
	argv = resume_vector(s, RESUME_V_INTERRUPTED, ctx->project_dir, ctx->state_dir, NULL);
	ok = argv != NULL && run_one(ctx, "interrupted", argv, s->kill ? ckpt : NULL, sink, runs) && ok;
	argv_free(argv);
	if (!fsutil_exists(ckpt)) {
		json_object_set_new(o, "checkpoint_missing", json_true());
		ok = 0;
		goto out;
	}
	if (s->kill && !json_is_true(json_object_get(json_object_get(runs, "interrupted"), "killed_on_purpose")))
		json_object_set_new(o, "finished_before_kill", json_true());
	kd_sink_step(sink, "resume check: the checkpoint inventory", -1);
	run_script(ctx, s, RESUME_V_INVENTORY, "inventory", sink, scripts);
	inventory_obs(scripts, kd_ctx_relpath(ctx, ckpt), o);
	if (kd_sink_cancelled(sink))
		goto out;
	kd_sink_step(sink, "resume check: the resumed run", -1);
	argv = resume_vector(s, RESUME_V_RESUMED, ctx->project_dir, ctx->state_dir, NULL);
	ok = argv != NULL && run_one(ctx, "resumed", argv, NULL, sink, runs) && ok;
	argv_free(argv);
out:
	json_decref(scripts);
	free(ckpt);
	return ok;
}

void
resume_gather(struct kd_ctx *ctx, const struct kd_sink *sink, json_t *obs)
{
	struct resume_spec s;
	struct kd_metrics ma, mb;
	char why[512], *da = NULL, *db = NULL, *pa = NULL, *pb = NULL;
	json_t *o;
	int rc = resume_spec_parse(ctx->ref, &s, why, sizeof why), have_a = 0, have_b = 0;
	const char *goal = yamlio_get_str(ctx->ref, "goal");

	if (rc == 1) {
		if (goal != NULL && strcmp(goal, "training-trajectory") == 0)
			json_object_set_new(obs, "resume", json_pack("{s:b}", "required_missing", 1));
		return;
	}
	o = json_object();
	json_object_set_new(obs, "resume", o);
	if (rc != 0) {
		json_object_set_new(o, "declaration_error", json_string(why));
		return;
	}
	json_object_set_new(o, "steps", json_integer(s.steps));
	json_object_set_new(o, "interrupt_at", json_integer(s.interrupt_at));
	json_object_set_new(o, "interrupt", json_string(s.kill ? "kill" : "stop"));
	json_object_set(o, "compare", json_object_get(json_object_get(ctx->ref, "resume"), "compare"));
	json_object_set(o, "rule", (json_t *)s.rule_tree);
	{
		const char *a0 = json_string_value(json_array_get(s.run, 0));
		char *py = project_python(ctx);
		int missing = (strcmp(a0, "python") == 0 || strcmp(a0, "python3") == 0) &&
			      access(py, X_OK) != 0;

		if (missing)
			json_object_set_new(o, "interpreter_missing", json_string(py));
		free(py);
		if (missing)
			return;
	}
	if ((da = fresh_folder(ctx, "uninterrupted", o)) == NULL ||
	    (db = fresh_folder(ctx, "interrupted", o)) == NULL)
		goto out;
	run_exercise(ctx, &s, da, db, sink, o);
	if (kd_sink_cancelled(sink)) {
		json_object_set_new(o, "cancelled", json_true());
		goto out;
	}
	kd_sink_step(sink, "resume check: rereading the metrics", -1);
	pa = resume_expand(s.metrics, NULL, da, NULL, NULL);
	pb = resume_expand(s.metrics, NULL, db, NULL, NULL);
	json_object_set_new(o, "metrics", json_pack("{s:{}, s:{}}", "uninterrupted", "resumed"));
	have_a = read_metrics(ctx, pa, &s, 0, &ma,
			      json_object_get(json_object_get(o, "metrics"), "uninterrupted")) == 0;
	have_b = read_metrics(ctx, pb, &s, s.interrupt_at, &mb,
			      json_object_get(json_object_get(o, "metrics"), "resumed")) == 0;
	if (have_a && have_b)
		json_object_set_new(o, "trajectory", compare_trajectories(&ma, &mb, s.interrupt_at + 1, s.steps,
									   &s.rule, "uninterrupted", "resumed"));
	if (have_a)
		json_object_set_new(o, "plot", plot_obs(&ma, have_b ? &mb : NULL, s.steps));
	compare_final(ctx, &s, da, db, sink, o);
	if (have_a && s.reference_metrics != NULL)
		compare_reference(ctx, &s, &ma, o);
	if (s.reference_rule_tree != NULL)
		json_object_set(o, "reference_rule", (json_t *)s.reference_rule_tree);
out:
	if (have_a)
		metrics_free(&ma);
	if (have_b)
		metrics_free(&mb);
	free(pa);
	free(pb);
	free(da);
	free(db);
}
