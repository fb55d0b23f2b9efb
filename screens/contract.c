/*
 * contract.c - the screen of stage "contract": pip check and the rebuilt inventory against the reference's.
 * A thin view: the fields, checks and log are drawn by the frame's default
 * view from kd_stage_contract; this file only says what to do first.
 */
#include "config.h"

#include "kernodeck/screen.h"

const struct kd_screen_ops kd_screen_contract = {
	.stage = &kd_stage_contract,
	.empty_hint = "Not checked yet: press r to run pip check in .venv-rebuild and compare its inventory with the reference, package by package.",
};
