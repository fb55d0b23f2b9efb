/*
 * dossier.c - the screen of stage "dossier": the handoff dossier, written and scanned.
 * A thin view: the fields, checks and log are drawn by the frame's default
 * view from kd_stage_dossier; this file only says what to do first.
 */
#include "config.h"

#include "kernodeck/screen.h"

const struct kd_screen_ops kd_screen_dossier = {
	.stage = &kd_stage_dossier,
	.empty_hint = "Not checked yet: press r to write the dossier, scan it for credentials and check its SHA256SUMS.",
};
