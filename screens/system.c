/*
 * system.c - the screen of stage "system": the system chain of this machine, apart from Python packages.
 * A thin view: the fields, checks and log are drawn by the frame's default
 * view from kd_stage_system; this file only says what to do first.
 */
#include "config.h"

#include "kernodeck/screen.h"

const struct kd_screen_ops kd_screen_system = {
	.stage = &kd_stage_system,
	.enter = kd_fleet_enter,
	.key = kd_fleet_key,
	.empty_hint = "Not checked yet: press r to observe this machine (GPU, driver, device nodes, CUDA or ROCm, OS, compilers, interpreter) and compare it with the reference.",
};
