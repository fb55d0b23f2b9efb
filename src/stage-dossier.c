/* stage-dossier.c - stage "dossier" (skeleton: filled by its stage issue). */
#include "config.h"

#include "kernodeck/ctx.h"
#include "kernodeck/stage.h"

static int
dossier_gather(struct kd_ctx *ctx, struct kd_result *res, const struct kd_sink *sink,
	  struct kd_err *err)
{
	(void)ctx; (void)res; (void)sink; (void)err;
	return 0;
}

static int
dossier_check(struct kd_ctx *ctx, struct kd_result *res, struct kd_err *err)
{
	(void)ctx; (void)err;
	kd_rows_add(&res->rows, "dossier.implemented", KD_R_FAIL, "stage implemented",
		    "not yet", "implemented", NULL);
	return 0;
}

const struct kd_stage_ops kd_stage_dossier = {
	.id = "dossier",
	.title = "Dossier",
	.summary = "",
	.gather = dossier_gather,
	.check = dossier_check,
};
