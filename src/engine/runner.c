/*
 * runner.c - a stage run and the session of stage runs (see
 * include/kernodeck/runner.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "kernodeck/ctx.h"
#include "kernodeck/logkeep.h"
#include "kernodeck/runner.h"
#include "kernodeck/stage.h"
#include "kernodeck/state.h"
#include "kernodeck/step.h"
#include "kernodeck/yamlio.h"

/* See runner.h. */
void
runner_begin(struct kd_runner *run, struct kd_ctx *ctx, int later_stages,
	     logkeep_root_fn log_root)
{
	memset(run, 0, sizeof *run);
	run->ctx = ctx;
	run->later_stages = later_stages;
	run->log_root = log_root;
	ctx->runner = run;
}

/* See runner.h. */
void
runner_end(struct kd_runner *run)
{
	step_prefetch_drop(&run->prefetch);
	if (run->ctx != NULL && run->ctx->runner == run)
		run->ctx->runner = NULL;
	run->ctx = NULL;
}

/* See runner.h. */
struct step_prefetch **
runner_prefetch(struct kd_ctx *ctx)
{
	struct kd_runner *run = ctx->runner;

	return run != NULL && run->later_stages ? &run->prefetch : NULL;
}

static int
apply_record(struct kd_ctx *ctx, int i, const json_t *record, struct kd_err *err)
{
	const json_t *x;
	size_t k;
	int rc = 0;

	json_array_foreach(json_object_get(record, "settings"), k, x)
		yamlio_set(ctx->state.settings, json_string_value(json_object_get(x, "path")),
			   json_incref(json_object_get(x, "value")));
	json_array_foreach(json_object_get(record, "deviations"), k, x)
		if (rc == 0)
			rc = stage_record_deviation(&ctx->state, i,
				json_string_value(json_object_get(x, "check")),
				json_string_value(json_object_get(x, "what")),
				json_string_value(json_object_get(x, "why")), 0,
				json_string_value(json_object_get(x, "author")), err);
	return rc;
}

/* See runner.h. */
int
stage_settle(struct kd_ctx *ctx, int i, const struct kd_result *res, struct kd_err *err)
{
	stage_apply_rows(&ctx->state, i, &res->rows, ctx->ref_id);
	return apply_record(ctx, i, res->record, err);
}

/* See runner.h. */
int
stage_gate(struct kd_ctx *ctx, int i, char *why, size_t len)
{
	struct kd_state *s = &ctx->state;
	char moved[1024];

	for (int j = 0; j < i && j < KD_NSTAGES; j++) {
		enum kd_status st = s->st[j].status;
		if ((st == KD_ST_PASSED || st == KD_ST_DEVIATION) && kd_stages[j]->fresh != NULL &&
		    !kd_stages[j]->fresh(ctx, moved, sizeof moved)) {
			stage_mark_changed(s, j);
			snprintf(why, len, "stage %d (%s) is stale: %s.", j + 1, kd_stages[j]->id,
				 moved);
			return j;
		}
		if (st == KD_ST_PENDING || stage_can_advance(s, j, moved, sizeof moved))
			continue;
		snprintf(why, len, "stage %d (%s): %s", j + 1, kd_stages[j]->id, moved);
		return j;
	}
	if (len)
		why[0] = '\0';
	return -1;
}

/* See runner.h. */
int
stage_run(struct kd_ctx *ctx, int i, const struct kd_sink *sink,
	  struct kd_rows *info_rows, struct kd_err *err)
{
	const struct kd_stage_ops *ops = kd_stages[i];
	struct kd_result res;
	int rc = 0;

	kd_result_init(&res);
	if (ops->gather != NULL)
		rc = ops->gather(ctx, &res, sink, err);
	if (rc == 0 && res.obs != NULL)
		rc = kd_ctx_save_obs(ctx, i, res.obs, err);
	if (rc == 0 && ops->check != NULL)
		rc = ops->check(ctx, &res, err);
	if (rc == 0 && kd_sink_cancelled(sink))
		stage_rows_cancelled(&res.rows);
	if (rc != 0 && ctx->ref_id[0] != '\0') {
		/* keep the failure visible in the state: a row with the error */
		char msg[1400];
		struct kd_row *r;
		kd_err_format(err, msg, sizeof msg);
		if (kd_sink_cancelled(sink)) {
			stage_rows_cancelled(&res.rows);
		} else {
			r = kd_rows_add(&res.rows, "stage.error", KD_R_FAIL, "the stage could run",
					"error", "no error", NULL);
			kd_row_set_error(r, msg, rc == KD_EINPUT ?
					 "fix the input named above and check again" :
					 "fix the environment problem named above and check again");
		}
		stage_apply_rows(&ctx->state, i, &res.rows, ctx->ref_id);
		if (!ctx->readonly)
			kd_ctx_save_state(ctx, NULL);
	}
	if (rc == 0)
		rc = stage_settle(ctx, i, &res, err);
	if (rc == 0) {
		if (info_rows != NULL && ops->describe != NULL)
			ops->describe(&res, info_rows);
		if (!ctx->readonly)
			rc = kd_ctx_save_state(ctx, err);
	}
	/* the state is saved: logs it no longer names can go (logkeep.h) */
	if (rc == 0)
		logkeep_prune(ctx, ctx->runner != NULL ? ctx->runner->log_root : NULL);
	kd_result_free(&res);
	return rc;
}
