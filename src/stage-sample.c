/* stage-sample.c - stage "sample" (skeleton: filled by its stage issue). */
#include "config.h"

#include "kernodeck/ctx.h"
#include "kernodeck/stage.h"

static int
sample_gather(struct kd_ctx *ctx, struct kd_result *res, const struct kd_sink *sink,
	  struct kd_err *err)
{
	(void)ctx; (void)res; (void)sink; (void)err;
	return 0;
}

static int
sample_check(struct kd_ctx *ctx, struct kd_result *res, struct kd_err *err)
{
	(void)ctx; (void)err;
	kd_rows_add(&res->rows, "sample.implemented", KD_R_FAIL, "stage implemented",
		    "not yet", "implemented", NULL);
	return 0;
}

const struct kd_stage_ops kd_stage_sample = {
	.id = "sample",
	.title = "Sample",
	.summary = "",
	.gather = sample_gather,
	.check = sample_check,
};
