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
#include "kernodeck/beneath.h"
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
#define RESUME_READER_BASE (1ULL << 30)   /* the reader's memory limit: Python, NumPy (torch) */
#define RESUME_READER_FACTOR 4ULL         /* ... and this many times its files' bytes */

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
	s->metrics_pattern = json_string_value(json_object_get(r, "metrics_pattern"));
	if (s->metrics_pattern != NULL && s->metrics != NULL) {
		snprintf(why, len, "resume: declare metrics (a JSON Lines file) or metrics_pattern (the printed lines), not both");
		return -1;
	}
	if (path_ok(s->checkpoint, "checkpoint", why, len) != 0 ||
	    (s->metrics_pattern == NULL && path_ok(s->metrics, "metrics", why, len) != 0))
		return -1;
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
	if (s->metrics_pattern != NULL &&
	    metrics_pattern_parse(s->metrics_pattern, s->keys, s->nkeys, &s->pattern, rwhy, sizeof rwhy) != 0) {
		snprintf(why, len, "resume.metrics_pattern: %s", rwhy);
		return -1;
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
	struct kd_ctx *ctx;
	const char *kill_when;   /* kill mode: the checkpoint that, complete, ends the run */
	char **peek;             /* kill mode: the reader's vector for its step (RESUME_PEEK) */
	char *peek_log;          /* kill mode: the log every read of it appends to, once named */
	long long at;            /* kill mode: interrupt_at */
	int named;               /* kill mode: the checkpoint's name says its step ({step}) */
	long long last_size;
	struct stat peeked;      /* the checkpoint as last read */
	long long seen_step;     /* the step it recorded then, or -1 */
	int kill_seen;
	const struct resume_spec *spec;
	FILE *printed;           /* metrics_pattern: the matching lines as JSON Lines */
	size_t printed_bytes;
	json_t *lines;           /* the inventory script's JSON lines, or NULL */
};

static void run_script(struct kd_ctx *ctx, const char *what, char **argv,
		       const struct kd_sink *sink, int quiet, const char *log, json_t *out);

/* A checkpoint is complete when it ends with a zip end record (torch.save's
 * format) or, for another format, when its size held still for one poll. */
static int
ckpt_complete(struct follow *f)
{
	unsigned char tail[22];
	struct stat st;
	struct kd_err err = { 0 };
	int fd, ok = 0;

	/* read below the work folder without following a link */
	if (lstat(f->kill_when, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0 ||
	    (fd = beneath_open_read(f->kill_when, O_RDONLY | O_CLOEXEC, &err)) < 0)
		return 0;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return 0;
	}
	if (st.st_size >= 22)
		ok = pread(fd, tail, sizeof tail, st.st_size - 22) == 22 &&
		     memcmp(tail, "PK\005\006", 4) == 0;
	close(fd);
	if (!ok && (long long)st.st_size == f->last_size)
		ok = 1;
	f->last_size = (long long)st.st_size;
	return ok;
}

/* The step counter the checkpoint records, read by the checkpoint script
 * (the allow-list reader, f->peek), or -1 when it holds none or cannot be
 * read. */
static long long
peek_step(struct follow *f)
{
	json_t *out = json_object(), *lines, *step;
	long long v = -1;

	/* one log for every read of the run (logs/STAMP-resume-peek.log), each
	 * headed by the runner's "# kernodeck: run ARGV" line like any other */
	if (f->peek_log == NULL)
		f->peek_log = kd_ctx_log_path(f->ctx, "resume-peek");
	run_script(f->ctx, "peek", f->peek, NULL, 1, f->peek_log, out);
	lines = json_object_get(json_object_get(out, "peek"), "lines");
	step = json_object_get(json_array_get(lines, json_array_size(lines) - 1), "step");
	if (json_is_integer(step))
		v = (long long)json_integer_value(step);
	json_decref(out);
	return v;
}

/* Kill mode: SIGKILL once a complete checkpoint records a step of at least
 * interrupt_at (read anew each time the file changes); a checkpoint that
 * records no step counter will do only when its name says its step. */
static int
follow_kill_now(void *u)
{
	struct follow *f = u;
	struct stat st;

	if (f->kill_when == NULL || f->kill_seen || !ckpt_complete(f) || lstat(f->kill_when, &st) != 0)
		return 0;
	if (st.st_ino == f->peeked.st_ino && st.st_size == f->peeked.st_size &&
	    st.st_mtim.tv_sec == f->peeked.st_mtim.tv_sec && st.st_mtim.tv_nsec == f->peeked.st_mtim.tv_nsec)
		return 0;
	f->peeked = st;
	f->seen_step = peek_step(f);
	f->kill_seen = f->seen_step >= 0 ? f->seen_step >= f->at : f->named;
	return f->kill_seen;
}

/* metrics_pattern: a printed line that matches, as one JSON Lines record
 * (NaN and the infinities as Python's json writes them, for the reader to
 * name), up to KD_CAP_METRICS_FILE bytes. */
static void
printed_line(struct follow *f, const char *line, size_t len)
{
	const struct resume_spec *s = f->spec;
	double v[METRICS_MAX_KEYS];
	long long step;
	char rec[64 * (METRICS_MAX_KEYS + 1)];
	size_t o;

	if (!metrics_pattern_match(&s->pattern, line, len, &step, v))
		return;
	o = (size_t)snprintf(rec, sizeof rec, "{\"step\": %lld", step);
	for (size_t k = 0; k < s->nkeys && o < sizeof rec; k++) {
		json_t *key = json_string(s->keys[k]);
		char *kq = json_dumps(key, JSON_ENCODE_ANY);

		o += (size_t)snprintf(rec + o, sizeof rec - o, ", %s: ", kq ? kq : "\"?\"");
		if (o < sizeof rec)
			o += (size_t)(isnan(v[k]) ? snprintf(rec + o, sizeof rec - o, "NaN")
				      : isinf(v[k]) ? snprintf(rec + o, sizeof rec - o, v[k] < 0 ? "-Infinity" : "Infinity")
				      : snprintf(rec + o, sizeof rec - o, "%.17g", v[k]));
		free(kq);
		json_decref(key);
	}
	if (o + 2 >= sizeof rec || f->printed_bytes + o + 2 > KD_CAP_METRICS_FILE)
		return;
	fprintf(f->printed, "%s}\n", rec);
	f->printed_bytes += o + 2;
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
	if (f->printed != NULL)
		printed_line(f, line, len);
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
 * cancellation and log); the record goes into runs[name].  Kill mode:
 * kill_when is the checkpoint that ends it, peek the reader's vector that
 * reads its step.  Returns 1 when it succeeded (exit 0, or killed on
 * purpose), 0 otherwise. */
static int
run_one(struct kd_ctx *ctx, const char *name, char **argv, const char *kill_when, char **peek,
	const struct resume_spec *s, FILE *printed, const struct kd_sink *sink, json_t *runs)
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
	f.ctx = ctx;
	f.spec = s;
	f.printed = printed;
	f.kill_when = kill_when;
	f.peek = peek;
	f.at = s->interrupt_at;
	f.named = strstr(s->checkpoint, "{step}") != NULL;
	f.seen_step = -1;
	f.last_size = -1;
	json_object_set_new(runs, name, rec);
	if (argv == NULL) {
		json_object_set_new(rec, "started", json_false());
		json_object_set_new(rec, "error", json_string("out of memory"));
		json_decref(av);
		goto out;
	}
	for (size_t i = 0; argv[i] != NULL; i++)
		json_array_append_new(av, json_string(argv[i]));
	json_object_set_new(rec, "argv", av);
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
	if (r->killed_on_request && f.seen_step >= 0)
		snprintf(how, sizeof how, "killed by kernodeck (SIGKILL) once the checkpoint recorded step %lld",
			 f.seen_step);
	else if (r->killed_on_request)
		snprintf(how, sizeof how, "killed by kernodeck (SIGKILL) once the checkpoint was complete");
	else
		run_describe(r, how, sizeof how);
	json_object_set_new(rec, "ended", json_string(how));
	if (kill_when != NULL && f.seen_step >= 0)
		json_object_set_new(rec, "checkpoint_step", json_integer(f.seen_step));
	json_object_set_new(rec, "exit_code", r->exited ? json_integer(r->exit_code) : json_null());
	json_object_set_new(rec, "timed_out", json_boolean(r->timed_out));
	json_object_set_new(rec, "cancelled", json_boolean(r->cancelled));
	json_object_set_new(rec, "killed_on_purpose", json_boolean(r->killed_on_request));
	json_object_set_new(rec, "seconds", json_real(r->elapsed_s));
	if (r->mem_hit)
		json_object_set_new(rec, "memory_limit_hit", json_true());
	if (f.tr.step != NULL)
		json_object_set_new(rec, "step_reached", json_string(f.tr.step));
	ok = step_ok(&st) || (r->killed_on_request && !r->cancelled && !r->timed_out);
	if (!ok)
		json_object_set_new(rec, "failure", failure_of(&f));
out:
	json_object_set_new(rec, "ok", json_boolean(ok));
	free(f.peek_log);
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

const char *const resume_what[RESUME_NWHICH] = {
	"the resume check: the uninterrupted run",
	"the resume check: the interrupted run",
	"the resume check: the checkpoint reader, the step the interrupted run's checkpoint "
	"records (kill mode: only when that checkpoint changes, while the run goes on)",
	"the resume check: the checkpoint reader, on the interrupted run's checkpoint",
	"the resume check: the resumed run",
	"the resume check: the checkpoint reader, comparing the final checkpoints",
};

/* The training script resume.run names (its first argument but the
 * interpreter ending in .py, without placeholders, from the project
 * folder), for what the reader says it visibly uses; NULL when none. */
static char *
training_script(const char *project_dir, const struct resume_spec *s)
{
	const json_t *a;
	size_t i;

	json_array_foreach(s->run, i, a) {
		const char *t = json_string_value(a);
		size_t n = t ? strlen(t) : 0;

		if (i == 0 || n < 4 || strcmp(t + n - 3, ".py") != 0 || strchr(t, '{') != NULL)
			continue;
		return t[0] == '/' ? strdup(t) : fsutil_join(project_dir, t);
	}
	return NULL;
}

/* The checkpoint reader: the project's interpreter, reader, then args (up
 * to nine, NULL-terminated; a NULL among them ends them). */
static char **
reader_argv(const char *project_dir, const char *reader, const char *const *args, size_t nargs)
{
	char **argv = calloc(nargs + 3, sizeof *argv);
	size_t n = 0;

	if (argv == NULL)
		return NULL;
	if ((argv[n++] = venv_python(project_dir)) == NULL || (argv[n++] = strdup(reader)) == NULL)
		goto oom;
	for (size_t k = 0; k < nargs && args[k] != NULL; k++)
		if ((argv[n++] = strdup(args[k])) == NULL)
			goto oom;
	return argv;
oom:
	argv_free(argv);
	return NULL;
}

/* resume.run or resume.resume with every placeholder substituted. */
static char **
run_argv(const char *project_dir, const struct resume_spec *s, enum resume_which which,
	 const char *out_a, const char *out_b, const char *ckpt)
{
	const json_t *tpl = which == RESUME_RESUMED ? s->resume : s->run, *a;
	char steps[32], inter[32];
	char **argv = calloc(json_array_size(tpl) + 1, sizeof *argv);
	size_t i;

	snprintf(steps, sizeof steps, "%lld", which == RESUME_INTERRUPTED && !s->kill ? s->interrupt_at : s->steps);
	snprintf(inter, sizeof inter, "%lld", s->interrupt_at);
	if (argv == NULL)
		return NULL;
	json_array_foreach(tpl, i, a) {
		const char *t = json_string_value(a);
		if (i == 0 && (strcmp(t, "python") == 0 || strcmp(t, "python3") == 0))
			argv[i] = venv_python(project_dir);
		else
			argv[i] = resume_expand(t, steps, which == RESUME_UNINTERRUPTED ? out_a : out_b, ckpt, inter);
		if (argv[i] == NULL) {
			argv_free(argv);
			return NULL;
		}
	}
	return argv;
}

char **
resume_argv(const char *project_dir, const struct resume_spec *s, enum resume_which which,
	    const char *out_a, const char *out_b, const char *reader)
{
	char inter[32], steps[32], atol[64], rtol[64];
	char *ckpt, *ca = NULL, *cb = NULL, *script = NULL, **argv = NULL;

	snprintf(inter, sizeof inter, "%lld", s->interrupt_at);
	snprintf(steps, sizeof steps, "%lld", s->steps);
	snprintf(atol, sizeof atol, "%.17g", s->rule.atol);
	snprintf(rtol, sizeof rtol, "%.17g", s->rule.rtol);
	if ((ckpt = resume_expand(s->checkpoint, NULL, out_b, NULL, inter)) == NULL)
		return NULL;
	switch (which) {
	case RESUME_UNINTERRUPTED:
	case RESUME_INTERRUPTED:
	case RESUME_RESUMED:
		argv = run_argv(project_dir, s, which, out_a, out_b, ckpt);
		break;
	case RESUME_PEEK:
		if (reader != NULL) {
			const char *args[] = { "step", ckpt };
			argv = reader_argv(project_dir, reader, args, 2);
		}
		break;
	case RESUME_INVENTORY:
		if (reader != NULL) {
			script = training_script(project_dir, s);
			const char *args[] = { "inventory", ckpt, script ? "--script" : NULL, script };
			argv = reader_argv(project_dir, reader, args, 4);
		}
		break;
	case RESUME_FINAL:
		ca = resume_expand(s->checkpoint, NULL, out_a, NULL, steps);
		cb = resume_expand(s->checkpoint, NULL, out_b, NULL, steps);
		if (reader != NULL && ca != NULL && cb != NULL) {
			const char *args[] = { "compare", ca, cb, "--rule", s->rule.tolerance ? "tolerance" : "exact",
					       "--atol", atol, "--rtol", rtol };
			argv = reader_argv(project_dir, reader, args, 9);
		}
		break;
	case RESUME_NWHICH:
		break;
	}
	free(script);
	free(ca);
	free(cb);
	free(ckpt);
	return argv;
}

/* --- the checkpoint script --- */

/* The checkpoint reader's memory limit: RESUME_READER_BASE plus
 * RESUME_READER_FACTOR times the bytes of the files it reads (the reader
 * itself refuses to hold more than that factor times a file), at most the
 * limit of every run (run_memory_limit). */
static unsigned long long
reader_limit(char *const *args)
{
	unsigned long long all = run_memory_limit(), v = RESUME_READER_BASE;
	struct stat st;

	for (; *args != NULL; args++)
		if (stat(*args, &st) == 0 && S_ISREG(st.st_mode))
			v += RESUME_READER_FACTOR * (unsigned long long)st.st_size;
	return all != 0 && all < v ? all : v;
}

/* The files the reader is given (argv[2...]) that exist, each opened
 * below the work folder without following a link (beneath_open_read): a
 * link the project's code planted at a checkpoint's path is refused, with
 * the reason in why, and the reader is not run.  0 or -1. */
static int
reader_files_ok(char *const *argv, char *why, size_t len)
{
	struct kd_err err = { 0 };
	struct stat st;

	for (size_t k = 2; argv[k] != NULL; k++) {
		int fd;

		if (argv[k][0] != '/' || lstat(argv[k], &st) != 0)
			continue;
		if ((fd = beneath_open_read(argv[k], O_RDONLY | O_CLOEXEC, &err)) < 0) {
			kd_err_format(&err, why, len);
			return -1;
		}
		close(fd);
	}
	return 0;
}

/* Run the checkpoint reader's vector argv (resume_argv: the project
 * interpreter runs share/ckpt-inventory.py) as a step; its JSON lines go
 * into out[what] with the run's record.  argv NULL: the reader is not
 * installed.  quiet: nothing to the sink, and the run appended to log (or
 * none) instead of a log of its own. */
static void
run_script(struct kd_ctx *ctx, const char *what, char **argv,
	   const struct kd_sink *sink, int quiet, const char *log, json_t *out)
{
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
	st.what = quiet ? NULL : logname;
	st.log_path = quiet ? log : NULL;
	st.argv = (const char *const *)argv;
	st.timeout_s = kd_env_seconds("KD_TIMEOUT_RESUME", ctx->timeout_sample);
	st.mem_limit = argv != NULL ? reader_limit(argv + 2) : 0;
	st.on_line = follow_line;
	st.u = &f;
	json_object_set_new(out, what, rec);
	if (argv == NULL || !fsutil_exists(argv[1])) {
		json_object_set_new(rec, "error", json_string("share/ckpt-inventory.py is not installed"));
		goto out;
	}
	if (reader_files_ok(argv, ebuf, sizeof ebuf) != 0) {
		json_object_set_new(rec, "error", json_string(ebuf));
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
		else if (json_is_object(json_object_get(l, "uses"))) {
			json_object_set(inv, "uses", json_object_get(l, "uses"));
			json_object_set(inv, "script", json_object_get(l, "script"));
		} else if (json_is_true(json_object_get(l, "end")))
			end = l;
	}
	json_object_set_new(inv, "kinds", kinds);
	if (json_object_get(rec, "log"))
		json_object_set(inv, "log", json_object_get(rec, "log"));
	if (end != NULL && json_is_true(json_object_get(end, "ok"))) {
		json_object_set(inv, "loader", json_object_get(end, "loader"));
		if (json_is_integer(json_object_get(end, "step"))) {
			json_object_set(inv, "step", json_object_get(end, "step"));
			json_object_set(inv, "step_key", json_object_get(end, "step_key"));
		}
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

			/* the first step compared, key by key: evidence for the diagnosis
			 * (a learning rate that agrees there did not restart) */
			if (st == from) {
				if (!json_object_get(o, "at_first"))
					json_object_set_new(o, "at_first", json_object());
				json_object_set_new(json_object_get(o, "at_first"), a->keys[k],
						    json_boolean(resume_rule_accepts(rule, vb, va)));
			}
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
	char *ca, *cb, *reader = kd_share_path("ckpt-inventory.py"), **argv;
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
	argv = resume_argv(ctx->project_dir, s, RESUME_FINAL, da, db, reader);
	run_script(ctx, "final", argv, sink, 0, NULL, scripts);
	argv_free(argv);
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
			if (json_object_get(l, "classes"))
				json_object_set(fin, "classes", json_object_get(l, "classes"));
		} else if (json_array_size(json_object_get(fin, "differing")) < 20) {
			json_array_append(json_object_get(fin, "differing"), l);
		}
	}
	if (!json_object_get(fin, "compared") && !json_object_get(fin, "error"))
		json_object_set(fin, "error", json_object_get(json_object_get(scripts, "final"), "error"));
out:
	json_decref(scripts);
	free(reader);
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

/* Why the resumed run cannot start after the interrupted one, into buf,
 * or NULL: it did not start or failed (stop), it was not killed (kill), or
 * it left no checkpoint. */
static const char *
interruption_missing(const struct resume_spec *s, const json_t *rec, const char *ckpt_rel,
		     int ckpt_exists, char *buf, size_t len)
{
	const char *what = strstr(s->checkpoint, "{step}") ? "the checkpoint of step" : "a checkpoint recording step";

	if (!json_is_true(json_object_get(rec, "started")))
		return "the interrupted run did not start";
	if (json_is_true(json_object_get(rec, "cancelled")))
		return "the resume check was cancelled";
	if (s->kill && !json_is_true(json_object_get(rec, "killed_on_purpose")))
		snprintf(buf, len, ckpt_exists ? "the interrupted run was not killed: it ended before %s %lld%s was complete (%s)"
			 : "the interrupted run was not killed: it never wrote %s %lld%s (%s)", what, s->interrupt_at,
			 strstr(s->checkpoint, "{step}") ? "" : " or later", ckpt_rel);
	else if (!s->kill && !json_is_true(json_object_get(rec, "ok")))
		return "the interrupted run failed";
	else if (!ckpt_exists)
		snprintf(buf, len, "the interrupted run wrote no checkpoint (%s)", ckpt_rel);
	else
		return NULL;
	return buf;
}

/* The step the resumed run starts after: interrupt_at for a checkpoint
 * named by its step, else the step counter the checkpoint records (the
 * one file a trainer overwrites), else interrupt_at, said in o. */
static long long
resumed_from(const struct resume_spec *s, json_t *o)
{
	const json_t *st = json_object_get(json_object_get(o, "inventory"), "step");

	if (strstr(s->checkpoint, "{step}") == NULL && json_is_integer(st))
		return (long long)json_integer_value(st);
	if (strstr(s->checkpoint, "{step}") == NULL)
		json_object_set_new(o, "step_unknown", json_true());
	return s->interrupt_at;
}

/* metrics_pattern: the records a run printed, saved as rel under the
 * kernodeck folder for the metrics reader (an error goes into o). */
static void
save_printed(const struct kd_ctx *ctx, const char *rel, const char *text, size_t len, json_t *o)
{
	char *path = kd_ctx_path(ctx, rel), ebuf[1200];
	struct kd_err err = { 0 };

	if (path != NULL && fsutil_write_atomic(path, text ? text : "", text ? len : 0, 0, &err) != 0 &&
	    !json_object_get(o, "error"))
		json_object_set_new(o, "error", json_string(kd_err_format(&err, ebuf, sizeof ebuf)));
	free(path);
}

/* The three runs.  Each needs the one before: the resumed run starts only
 * after an interruption that happened (stopped at interrupt_at, or killed
 * by kernodeck) and left its checkpoint; otherwise o.not_run says why and
 * nothing that depends on it is run. */
static void
run_exercise(struct kd_ctx *ctx, const struct resume_spec *s, const char *da, const char *db,
	     const struct kd_sink *sink, json_t *o)
{
	char inter[32], *ckpt, **argv, **peek = NULL, why[512], *ta = NULL, *tb = NULL;
	char *reader = kd_share_path("ckpt-inventory.py");
	size_t la = 0, lb = 0;
	const char *missing;
	json_t *runs = json_object(), *scripts = json_object(), *rec;
	FILE *pa = s->metrics_pattern ? open_memstream(&ta, &la) : NULL;
	FILE *pb = s->metrics_pattern ? open_memstream(&tb, &lb) : NULL;

	json_object_set_new(o, "runs", runs);
	snprintf(inter, sizeof inter, "%lld", s->interrupt_at);
	ckpt = resume_expand(s->checkpoint, NULL, db, NULL, inter);
	json_object_set_new(o, "checkpoint", json_string(kd_ctx_relpath(ctx, ckpt)));

	kd_sink_step(sink, "resume check: the uninterrupted run", -1);
	argv = resume_argv(ctx->project_dir, s, RESUME_UNINTERRUPTED, da, db, reader);
	run_one(ctx, "uninterrupted", argv, NULL, NULL, s, pa, sink, runs);
	argv_free(argv);
	if (json_is_true(json_object_get(json_object_get(runs, "uninterrupted"), "cancelled"))) {
		json_object_set_new(o, "not_run", json_string("the resume check was cancelled"));
		goto out;
	}

	kd_sink_step(sink, s->kill ? "resume check: the interrupted run (killed at its checkpoint)"
		     : "resume check: the interrupted run", -1);
	argv = resume_argv(ctx->project_dir, s, RESUME_INTERRUPTED, da, db, reader);
	if (s->kill)
		peek = resume_argv(ctx->project_dir, s, RESUME_PEEK, da, db, reader);
	run_one(ctx, "interrupted", argv, s->kill ? ckpt : NULL, peek, s, pb, sink, runs);
	argv_free(argv);
	argv_free(peek);
	rec = json_object_get(runs, "interrupted");
	if (!fsutil_exists(ckpt))
		json_object_set_new(o, "checkpoint_missing", json_true());
	if (s->kill && json_is_true(json_object_get(rec, "started")) &&
	    !json_is_true(json_object_get(rec, "killed_on_purpose")))
		json_object_set_new(o, "finished_before_kill", json_true());
	if ((missing = interruption_missing(s, rec, kd_ctx_relpath(ctx, ckpt), fsutil_exists(ckpt),
					    why, sizeof why)) != NULL) {
		json_object_set_new(o, "not_run", json_string(missing));
		goto out;
	}
	{
		kd_sink_step(sink, "resume check: the checkpoint inventory", -1);
		argv = resume_argv(ctx->project_dir, s, RESUME_INVENTORY, da, db, reader);
		run_script(ctx, "inventory", argv, sink, 0, NULL, scripts);
		argv_free(argv);
		inventory_obs(scripts, kd_ctx_relpath(ctx, ckpt), o);
		json_object_set_new(o, "resumed_from", json_integer(resumed_from(s, o)));
	}
	if (kd_sink_cancelled(sink)) {
		json_object_set_new(o, "not_run", json_string("the resume check was cancelled"));
		goto out;
	}
	kd_sink_step(sink, "resume check: the resumed run", -1);
	argv = resume_argv(ctx->project_dir, s, RESUME_RESUMED, da, db, reader);
	run_one(ctx, "resumed", argv, NULL, NULL, s, pb, sink, runs);
	argv_free(argv);
	if (!json_is_true(json_object_get(json_object_get(runs, "resumed"), "started")))
		json_object_set_new(o, "not_run", json_string("the resumed run did not start"));
out:
	if (pa != NULL)
		fclose(pa);
	if (pb != NULL)
		fclose(pb);
	if (s->metrics_pattern != NULL) {
		save_printed(ctx, "resume/printed-uninterrupted.jsonl", ta, la, o);
		save_printed(ctx, "resume/printed-resumed.jsonl", tb, lb, o);
	}
	free(ta);
	free(tb);
	json_decref(scripts);
	free(reader);
	free(ckpt);
}

void
resume_gather(struct kd_ctx *ctx, const struct kd_sink *sink, json_t *obs)
{
	struct resume_spec s;
	struct kd_metrics ma, mb;
	char why[512], *da = NULL, *db = NULL, *pa = NULL, *pb = NULL;
	json_t *o, *mo;
	int rc = resume_spec_parse(ctx->ref, &s, why, sizeof why), have_a = 0, have_b = 0, resumed;
	long long from;
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
	/* what follows the resumed run is judged only when it ran */
	resumed = json_object_get(o, "not_run") == NULL;
	from = json_is_integer(json_object_get(o, "resumed_from"))
	       ? (long long)json_integer_value(json_object_get(o, "resumed_from")) : s.interrupt_at;
	kd_sink_step(sink, "resume check: rereading the metrics", -1);
	if (s.metrics_pattern != NULL) {
		pa = kd_ctx_path(ctx, "resume/printed-uninterrupted.jsonl");
		pb = kd_ctx_path(ctx, "resume/printed-resumed.jsonl");
	} else {
		pa = resume_expand(s.metrics, NULL, da, NULL, NULL);
		pb = resume_expand(s.metrics, NULL, db, NULL, NULL);
	}
	mo = json_object();
	json_object_set_new(o, "metrics", mo);
	json_object_set_new(mo, "uninterrupted", json_object());
	have_a = read_metrics(ctx, pa, &s, 0, &ma, json_object_get(mo, "uninterrupted")) == 0;
	if (resumed) {
		json_object_set_new(mo, "resumed", json_object());
		have_b = read_metrics(ctx, pb, &s, from, &mb, json_object_get(mo, "resumed")) == 0;
	}
	if (have_a && have_b)
		json_object_set_new(o, "trajectory", compare_trajectories(&ma, &mb, from + 1, s.steps,
									   &s.rule, "uninterrupted", "resumed"));
	if (have_a)
		json_object_set_new(o, "plot", plot_obs(&ma, have_b ? &mb : NULL, s.steps));
	if (resumed)
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
