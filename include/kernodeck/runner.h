/*
 * runner.h - running a stage: gather, save the observations, check,
 * describe, store the rows and the status in the state, save it, prune
 * the logs (stage_run); and the session a caller holds while it runs the
 * stages one after the other (check, the walkthrough, replay).
 *
 * The session is what lives from one stage run to the next: whether the
 * caller goes on to the later stages, the step a stage started for a later
 * one to take (step_prefetch: the rebuild stage starts pip inspect, the
 * contract stage takes it), and where more logs are named for pruning
 * (logkeep.h).  runner_begin hangs it on the context (ctx->runner) for the
 * stages to find; runner_end ends the step no stage took and takes it off.
 * A stage run without a session (a single stage, a fleet node) prefetches
 * nothing and prunes by the project's own sources only.
 */
#ifndef KD_RUNNER_H
#define KD_RUNNER_H

#include "kernodeck/ctx.h"
#include "kernodeck/err.h"
#include "kernodeck/logkeep.h"
#include "kernodeck/rows.h"

struct step_prefetch;

struct kd_runner {
	struct kd_ctx *ctx;
	int later_stages;                /* the caller goes on to the stages after
					  * the one it runs: a stage may start a
					  * step that a later one takes */
	struct step_prefetch *prefetch;  /* that step, or NULL (step.h) */
	logkeep_root_fn log_root;        /* more logs named there (the fleet's
					  * latest run), or NULL (logkeep.h) */
};

/* Begin a session on ctx (ctx->runner is run until runner_end). */
void runner_begin(struct kd_runner *run, struct kd_ctx *ctx, int later_stages,
		  logkeep_root_fn log_root);
/* End it: the started step that no stage took is cancelled and released. */
void runner_end(struct kd_runner *run);
/* The slot of the session's started step, for a stage running under ctx:
 * NULL when no session runs or it goes no further (nothing to start or
 * take). */
struct step_prefetch **runner_prefetch(struct kd_ctx *ctx);

/* Store the rows of check's result res as stage i's, then record in the
 * state what check asked for (res->record: settings, automatic
 * deviations); what stage_run does after check, for an action that judges
 * saved observations again. */
int stage_settle(struct kd_ctx *ctx, int i, const struct kd_result *res,
		 struct kd_err *err);
/* Run stage i: gather, save observations, check, describe; store rows and
 * status in the state and save it.  When gather or check fail, a failing
 * row "stage.error" carries the message into the state; a run the sink
 * cancelled is saved as cancelled (stage_rows_cancelled).  (To describe
 * saved observations later, call ops->describe on a kd_result whose obs is
 * kd_ctx_obs(ctx, i).)  Returns 0 when the stage ran (whatever
 * its verdict), else the error code (input 2, environment 3). */
int stage_run(struct kd_ctx *ctx, int i, const struct kd_sink *sink,
	      struct kd_rows *info_rows, struct kd_err *err);
/* Headless, before stage i runs alone (check --stage): the first earlier
 * stage that failed, is stale or was cancelled, or -1.  A passed or
 * deviated stage whose fresh() says its input moved is marked stale
 * (with every later one) first.  A pending stage does not block: it was
 * never judged.  why names the blocking stage and its checks. */
int stage_gate(struct kd_ctx *ctx, int i, char *why, size_t len);

#endif
