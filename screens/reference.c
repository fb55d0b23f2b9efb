/*
 * reference.c - the screen of stage "reference": what is being reproduced.
 * Most of this stage is its form: every row is filled, or marked not
 * applicable with a reason (-); reference.yaml can also be edited whole (E).
 * It opens on the fields until the reference has been checked once.
 */
#include "config.h"

#include "kernodeck/screen.h"

static void
reference_enter(struct kd_screen *scr)
{
	if (scr->stage->nfields > 0 && scr->ctx->state.st[scr->idx].rows.n == 0)
		scr->focus = KD_FOCUS_FIELDS;
}

const struct kd_screen_ops kd_screen_reference = {
	.stage = &kd_stage_reference,
	.empty_hint = "Not checked yet: fill in the fields (e or Enter edits the selected one, "
		"- marks it not applicable) or edit the whole file, reference.yaml, with E "
		"(\"E file\" below), then press r to check the reference.",
	.bar_editref = 1,
	.enter = reference_enter,
};
