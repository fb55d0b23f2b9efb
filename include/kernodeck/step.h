/*
 * step.h - one program run as a logged, cancellable step (src/engine/step.c):
 * what every stage, the reference capture and the system readers share on
 * top of the runner (run.h).
 *
 * A step runs argv in the project folder (or cwd) with the context's
 * environment (ctx.child_env) under its own, a log of its own
 * (logs/STAMP-WHAT.log, kd_ctx_log_path) when it has a name, the label
 * announced to the sink, and the sink's cancellation (or its own).  Each
 * line goes to the sink's on_line when stream is set, to on_line when
 * given, and into buf (up to keep_cap) when keep is set; the first
 * "ERROR:" and "error:" lines are remembered.
 */
#ifndef KD_STEP_H
#define KD_STEP_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"
#include "kernodeck/run.h"

struct step_prefetch;

struct kd_ctx;
struct kd_sink;

struct kd_step {
	/* in */
	const char *what;                /* the log's name; NULL: no log */
	const char *log_path;            /* without ctx: the log, or NULL */
	const char *const *env_base;     /* without ctx: run_opts.env_base */
	const char *label;               /* announced to the sink, or NULL */
	const char *const *argv;
	const char *cwd;                 /* NULL: the project folder (or inherit, no ctx) */
	const char *const *env_set;      /* run_opts.env_set */
	const char *const *env_unset;
	double timeout_s, grace_s;
	size_t tail_cap;                 /* run_opts.tail_cap */
	int stream;                      /* lines to the sink's on_line */
	int keep;                        /* lines kept in buf */
	size_t keep_cap;                 /* 0: KD_CAP_PIP_OUTPUT */
	void (*on_line)(void *u, const char *line, size_t len);  /* or NULL */
	int (*cancelled)(void *u);       /* NULL: the sink's */
	int (*kill_now)(void *u);        /* or NULL: run_opts.kill_now (SIGKILL at once) */
	void *u;
	/* out */
	const struct kd_sink *sink;
	char *log;                       /* the log's path, or NULL */
	char *first_error, *first_lower;
	char *buf;                       /* when keep; NUL-terminated */
	size_t len, cap;
	int overflow;                    /* the output passed keep_cap */
	struct run_result r;
};

/* Run the step (ctx may be NULL: no log, no context environment).  Returns
 * run_program's code: 0 when the program ran, whatever its exit. */
int step_run(struct kd_ctx *ctx, const struct kd_sink *sink, struct kd_step *s,
	     struct kd_err *err);
/* Did it run and exit 0 (not cancelled, not timed out)? */
int step_ok(const struct kd_step *s);
/* Release the outputs; the inputs are kept, so that a step can run again. */
void step_free(struct kd_step *s);
/* The record {step, argv, log, status, exit_code, how, elapsed_s} of a step
 * that step_run returned rc for (err: why it did not start). */
json_t *step_record(const struct kd_ctx *ctx, const struct kd_step *s, int rc,
		    const struct kd_err *err);

/* The environment of pip's steps (stages 3 and 4): non-interactive, no
 * version check, no activation variables. */
extern const char *const step_pip_env_set[];
extern const char *const step_pip_env_unset[];
/* A pip step of stages 3 and 4: argv in the project folder with pip's
 * environment, run as step what (label to the sink), its record appended
 * to steps.  Returns step_run's code. */
int step_pip(struct kd_ctx *ctx, const struct kd_sink *sink, const char *what,
	     const char *label, const char *const *argv, double timeout, struct kd_step *s,
	     json_t *steps, struct kd_err *err);
/* step_pip on an argv.h vector (argv: what the plan shows), released
 * after the run (s->argv is NULL after it); argv NULL is out of memory. */
int step_plan(struct kd_ctx *ctx, const struct kd_sink *sink, const char *what, const char *label,
	      char **argv, double timeout, struct kd_step *s, json_t *steps, struct kd_err *err);

/* Two pip steps that only read (pip freeze and pip inspect) run side by
 * side: b in a thread of its own, a here, each with the settings step_pip
 * gives; both records appended to steps, a's first.  The sink's
 * cancellation (polled here only: the walkthrough's keyboard is read by
 * one thread) stops both.  Where no thread can start they run one after
 * the other.  *rc_a and *rc_b get step_run's codes. */
void step_pip_pair(struct kd_ctx *ctx, const struct kd_sink *sink, json_t *steps,
		   const char *what_a, const char *label_a, const char *const *argv_a,
		   struct kd_step *a, int *rc_a, struct kd_err *err_a,
		   const char *what_b, const char *label_b, const char *const *argv_b,
		   struct kd_step *b, int *rc_b, struct kd_err *err_b, double timeout);

/* Save the output a step kept (keep), from its first byte start on (pip
 * inspect's JSON, after any warning pip printed before it), as rel under
 * the kernodeck folder, atomically.  0, or -1 and err (no such byte, or
 * the step did not succeed: err->code 0). */
int step_save_from(const struct kd_ctx *ctx, const struct kd_step *s, char start,
		   const char *rel, struct kd_err *err);

/* A pip step that only reads, started now in a thread of its own for a
 * later stage of the same run to take (the rebuild stage starts pip
 * inspect as soon as the venv holds its packages; the contract stage takes
 * it after pip check, so that it costs no wait).  The step is held in
 * *slot, the session's (runner_prefetch, runner.h): one at a time, a new
 * one ends the one before.  argv is an argv.h vector; what names its log.
 * 0 started (argv is the step's now); -1 not (slot NULL, argv NULL, no
 * memory, no thread; argv is still the caller's): the caller runs the step
 * itself. */
int step_prefetch(struct kd_ctx *ctx, struct step_prefetch **slot, const char *what,
		  char **argv, double timeout);
/* Take the step step_prefetch started in *slot under what with this very
 * argv: wait for its end (label announced to the sink while it runs; the
 * sink's cancellation stops it), append its record to steps and give its
 * outputs in *s (s->argv is NULL after it), *rc step_run's code.  1 taken;
 * 0 there is none such (slot NULL; a stale one is ended): the caller runs
 * its own. */
int step_prefetch_take(struct kd_ctx *ctx, struct step_prefetch **slot,
		       const struct kd_sink *sink, const char *what, const char *label,
		       const char *const *argv, struct kd_step *s, json_t *steps, int *rc,
		       struct kd_err *err);
/* End the started step in *slot that no stage took (slot may be NULL):
 * cancelled (the runner's SIGTERM, then SIGKILL), its thread joined,
 * released (runner_end). */
void step_prefetch_drop(struct step_prefetch **slot);

#endif
