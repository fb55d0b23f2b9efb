/*
 * step.c - one program run as a logged, cancellable step: the log, the
 * sink, the kept output and the record, written once for every stage.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernodeck/argv.h"
#include "kernodeck/caps.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/pipline.h"
#include "kernodeck/rows.h"
#include "kernodeck/step.h"

const char *const step_pip_env_set[] = {
	"PIP_NO_INPUT=1", "PIP_DISABLE_PIP_VERSION_CHECK=1", NULL,
};
/* what would make the run depend on an activated shell */
const char *const step_pip_env_unset[] = {
	"VIRTUAL_ENV", "PYTHONHOME", "PYTHONPATH", "PIP_USER", NULL,
};

static void
keep_line(struct kd_step *s, const char *line, size_t len)
{
	size_t cap = s->keep_cap ? s->keep_cap : KD_CAP_PIP_OUTPUT;

	if (s->overflow)
		return;
	if (s->len + len + 2 > cap) {
		s->overflow = 1;
		return;
	}
	if (s->len + len + 2 > s->cap) {
		size_t nc = (s->len + len + 2) * 2;
		char *nb = realloc(s->buf, nc);
		if (nb == NULL) {
			s->overflow = 1;
			return;
		}
		s->buf = nb;
		s->cap = nc;
	}
	memcpy(s->buf + s->len, line, len);
	s->len += len;
	s->buf[s->len++] = '\n';
	s->buf[s->len] = '\0';
}

static void
step_line(void *u, const char *line, size_t len)
{
	struct kd_step *s = u;

	if (s->first_error == NULL && len >= 6 && strncmp(line, "ERROR:", 6) == 0)
		s->first_error = pipline_dup(line, len);
	if (s->first_lower == NULL && len >= 6 && strncmp(line, "error:", 6) == 0)
		s->first_lower = pipline_dup(line, len);
	if (s->stream && s->sink != NULL && s->sink->on_line != NULL)
		s->sink->on_line(s->sink->u, line, len);
	if (s->on_line != NULL)
		s->on_line(s->u, line, len);
	if (s->keep)
		keep_line(s, line, len);
}

static int
step_cancelled(void *u)
{
	struct kd_step *s = u;

	if (s->cancelled != NULL)
		return s->cancelled(s->u);
	return kd_sink_cancelled(s->sink);
}

static int
step_kill_now(void *u)
{
	struct kd_step *s = u;

	return s->kill_now(s->u);
}

void
step_free(struct kd_step *s)
{
	free(s->log);
	free(s->first_error);
	free(s->first_lower);
	free(s->buf);
	run_result_free(&s->r);
	s->log = s->first_error = s->first_lower = s->buf = NULL;
	s->len = s->cap = 0;
	s->overflow = 0;
	memset(&s->r, 0, sizeof s->r);
}

int
step_run(struct kd_ctx *ctx, const struct kd_sink *sink, struct kd_step *s, struct kd_err *err)
{
	struct run_opts o;

	step_free(s);
	s->sink = sink;
	if (ctx != NULL && s->what != NULL)
		s->log = kd_ctx_log_path(ctx, s->what);
	else if (s->log_path != NULL)
		s->log = strdup(s->log_path);
	memset(&o, 0, sizeof o);
	o.argv = s->argv;
	o.cwd = s->cwd != NULL ? s->cwd : ctx != NULL ? ctx->project_dir : NULL;
	o.env_base = ctx != NULL ? ctx->child_env : s->env_base;
	o.env_set = s->env_set;
	o.env_unset = s->env_unset;
	o.timeout_s = s->timeout_s;
	o.grace_s = s->grace_s;
	o.tail_cap = s->tail_cap;
	o.log_path = s->log;
	o.on_line = step_line;
	o.cancelled = step_cancelled;
	o.kill_now = s->kill_now != NULL ? step_kill_now : NULL;
	o.u = s;
	if (s->label != NULL)
		kd_sink_step(sink, s->label, -1);
	return run_program(&o, &s->r, err);
}

int
step_ok(const struct kd_step *s)
{
	const struct run_result *r = &s->r;

	return r->started && r->exited && r->exit_code == 0 && !r->cancelled && !r->timed_out;
}

json_t *
step_record(const struct kd_ctx *ctx, const struct kd_step *s, int rc, const struct kd_err *err)
{
	const struct run_result *r = &s->r;
	json_t *av = json_array(), *rec;
	char how[256];

	for (size_t i = 0; s->argv[i] != NULL; i++)
		json_array_append_new(av, json_string(s->argv[i]));
	rec = json_pack("{s:s, s:o, s:s}", "step", s->what ? s->what : "", "argv", av, "log",
			s->log && ctx ? kd_ctx_relpath(ctx, s->log) : "");
	if (rc != 0) {
		json_object_set_new(rec, "status", json_string("not started"));
		json_object_set_new(rec, "error", json_string(err ? err->msg : ""));
		return rec;
	}
	json_object_set_new(rec, "status", json_string(r->cancelled ? "cancelled" :
				r->timed_out ? "timed out" : step_ok(s) ? "ok" : "failed"));
	json_object_set_new(rec, "exit_code", r->exited ? json_integer(r->exit_code) : json_null());
	json_object_set_new(rec, "how", json_string(run_describe(r, how, sizeof how)));
	json_object_set_new(rec, "elapsed_s", json_real(r->elapsed_s));
	return rec;
}

/* See step.h. */
int
step_plan(struct kd_ctx *ctx, const struct kd_sink *sink, const char *what, const char *label,
	  char **argv, double timeout, struct kd_step *s, json_t *steps, struct kd_err *err)
{
	int rc;

	if (argv == NULL)
		return kd_err_sys(err, KD_EENV, NULL, ENOMEM, "cannot run %s", label);
	rc = step_pip(ctx, sink, what, label, (const char *const *)argv, timeout, s, steps, err);
	s->argv = NULL;
	argv_free(argv);
	return rc;
}

/* What every pip step of stages 3 and 4 is given. */
static void
pip_settings(struct kd_step *s, const char *what, const char *label, const char *const *argv,
	     double timeout)
{
	s->what = what;
	s->label = label;
	s->argv = argv;
	s->env_set = step_pip_env_set;
	s->env_unset = step_pip_env_unset;
	s->timeout_s = timeout;
}

int
step_pip(struct kd_ctx *ctx, const struct kd_sink *sink, const char *what, const char *label,
	 const char *const *argv, double timeout, struct kd_step *s, json_t *steps,
	 struct kd_err *err)
{
	int rc;

	pip_settings(s, what, label, argv, timeout);
	rc = step_run(ctx, sink, s, err);
	json_array_append_new(steps, step_record(ctx, s, rc, err));
	return rc;
}

/* Join t, which ends as soon as its step does; meanwhile, every 50 ms, the
 * sink's cancellation (or cancel_now) is passed on through *stop.  The
 * join itself wakes at once when the thread ends: no polling delay. */
static void
join_watching(pthread_t t, int *stop, const struct kd_sink *sink, int cancel_now)
{
	for (;;) {
		struct timespec until;

		if (cancel_now || kd_sink_cancelled(sink))
			__atomic_store_n(stop, 1, __ATOMIC_RELEASE);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 50 * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		if (pthread_timedjoin_np(t, NULL, &until) != ETIMEDOUT)
			return;
	}
}

/* The second step of a pair, run in its own thread. */
struct step_job {
	struct kd_ctx *ctx;
	struct kd_step *s;
	struct kd_err *err;
	int rc;
	int stop;   /* set by the calling thread: cancel */
	int done;
};

static int
job_stopped(void *u)
{
	struct step_job *j = u;

	return __atomic_load_n(&j->stop, __ATOMIC_ACQUIRE);
}

static void *
job_main(void *u)
{
	struct step_job *j = u;

	j->rc = step_run(j->ctx, NULL, j->s, j->err);
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

void
step_pip_pair(struct kd_ctx *ctx, const struct kd_sink *sink, json_t *steps,
	      const char *what_a, const char *label_a, const char *const *argv_a,
	      struct kd_step *a, int *rc_a, struct kd_err *err_a,
	      const char *what_b, const char *label_b, const char *const *argv_b,
	      struct kd_step *b, int *rc_b, struct kd_err *err_b, double timeout)
{
	struct step_job j = { ctx, b, err_b, KD_EENV, 0, 0 };
	pthread_t t;

	pip_settings(a, what_a, label_a, argv_a, timeout);
	pip_settings(b, what_b, NULL, argv_b, timeout);
	b->cancelled = job_stopped;
	b->u = &j;
	if (pthread_create(&t, NULL, job_main, &j) != 0) {
		/* one after the other */
		b->cancelled = NULL;
		b->label = label_b;
		*rc_a = step_run(ctx, sink, a, err_a);
		*rc_b = step_run(ctx, sink, b, err_b);
	} else {
		*rc_a = step_run(ctx, sink, a, err_a);
		if (!__atomic_load_n(&j.done, __ATOMIC_ACQUIRE))
			kd_sink_step(sink, label_b, -1);
		join_watching(t, &j.stop, sink, a->r.cancelled);
		*rc_b = j.rc;
		b->cancelled = NULL;
		b->u = NULL;
		b->label = label_b;
	}
	json_array_append_new(steps, step_record(ctx, a, *rc_a, err_a));
	json_array_append_new(steps, step_record(ctx, b, *rc_b, err_b));
}

int
step_save_from(const struct kd_ctx *ctx, const struct kd_step *s, char start,
	       const char *rel, struct kd_err *err)
{
	const char *from;
	char *path;
	int rc;

	if (!step_ok(s) || s->overflow || s->buf == NULL ||
	    (from = memchr(s->buf, start, s->len)) == NULL)
		return -1;
	if ((path = kd_ctx_path(ctx, rel)) == NULL)
		return kd_err_sys(err, KD_EENV, rel, ENOMEM, "cannot save"), -1;
	rc = fsutil_write_atomic(path, from, s->len - (size_t)(from - s->buf), 0, err);
	free(path);
	return rc == 0 ? 0 : -1;
}

/* ---- a step for a later stage ---- */

struct step_prefetch {
	struct step_job job;  /* its step and error are the two below */
	char *what;
	char **argv;          /* an argv.h vector, owned */
	struct kd_step s;
	struct kd_err err;
	pthread_t t;
};

static void
prefetch_free(struct step_prefetch *p)
{
	step_free(&p->s);
	argv_free(p->argv);
	free(p->what);
	free(p);
}

int
step_prefetch(struct kd_ctx *ctx, struct step_prefetch **slot, const char *what,
	      char **argv, double timeout)
{
	struct step_prefetch *p;

	step_prefetch_drop(slot);
	if (slot == NULL || argv == NULL)
		return -1;
	if ((p = calloc(1, sizeof *p)) == NULL || (p->what = strdup(what)) == NULL) {
		free(p);
		return -1;   /* argv is still the caller's */
	}
	p->argv = argv;
	p->job = (struct step_job){ ctx, &p->s, &p->err, KD_EENV, 0, 0 };
	/* no sink: the walkthrough's screen is drawn by its own thread only */
	pip_settings(&p->s, p->what, NULL, (const char *const *)argv, timeout);
	p->s.keep = 1;
	p->s.cancelled = job_stopped;
	p->s.u = &p->job;
	if (pthread_create(&p->t, NULL, job_main, &p->job) != 0) {
		p->argv = NULL;   /* the caller's again: it runs the step itself */
		prefetch_free(p);
		return -1;
	}
	*slot = p;
	return 0;
}

static int
same_argv(char *const *a, const char *const *b)
{
	size_t i;

	for (i = 0; a[i] != NULL && b[i] != NULL; i++)
		if (strcmp(a[i], b[i]) != 0)
			return 0;
	return a[i] == NULL && b[i] == NULL;
}

int
step_prefetch_take(struct kd_ctx *ctx, struct step_prefetch **slot,
		   const struct kd_sink *sink, const char *what, const char *label,
		   const char *const *argv, struct kd_step *s, json_t *steps, int *rc,
		   struct kd_err *err)
{
	struct step_prefetch *p = slot != NULL ? *slot : NULL;

	if (p == NULL || argv == NULL)
		return 0;
	if (strcmp(p->what, what) != 0 || !same_argv(p->argv, argv)) {
		step_prefetch_drop(slot);
		return 0;
	}
	*slot = NULL;
	kd_sink_step(sink, label, -1);
	join_watching(p->t, &p->job.stop, sink, 0);
	json_array_append_new(steps, step_record(ctx, &p->s, p->job.rc, &p->err));
	step_free(s);
	*s = p->s;
	s->what = what;
	s->label = label;
	s->argv = NULL;
	s->cancelled = NULL;
	s->u = NULL;
	memset(&p->s, 0, sizeof p->s);   /* its outputs are the caller's now */
	*rc = p->job.rc;
	if (err != NULL)
		*err = p->err;
	prefetch_free(p);
	return 1;
}

void
step_prefetch_drop(struct step_prefetch **slot)
{
	struct step_prefetch *p = slot != NULL ? *slot : NULL;

	if (p == NULL)
		return;
	*slot = NULL;
	__atomic_store_n(&p->job.stop, 1, __ATOMIC_RELEASE);
	pthread_join(p->t, NULL);
	prefetch_free(p);
}
