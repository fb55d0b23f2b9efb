/*
 * sample.c - the screen of stage "sample": the entry point on the small sample, and its outputs reread.
 * A thin view: the fields, checks and log are drawn by the frame's default
 * view from kd_stage_sample; this file only says what to do first.
 */
#include "config.h"

#include "kernodeck/screen.h"

const struct kd_screen_ops kd_screen_sample = {
	.stage = &kd_stage_sample,
	.empty_hint = "Not checked yet: press r to run the entry point on the sample and reread its outputs under the comparison rule of the reference.",
};
