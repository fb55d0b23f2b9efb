/*
 * compute.c - the screen of stage "compute": the probe: backend, devices, a computation checked against the CPU, the libraries loaded.
 * A thin view: the fields, checks and log are drawn by the frame's default
 * view from kd_stage_compute; this file only says what to do first.
 */
#include "config.h"

#include "kernodeck/screen.h"

const struct kd_screen_ops kd_screen_compute = {
	.stage = &kd_stage_compute,
	.enter = kd_fleet_enter,
	.key = kd_fleet_key,
	.empty_hint = "Not checked yet: press r to run the probe in .venv-rebuild: import, backend, devices, a small computation checked against the CPU, and the libraries its process loaded.",
};
