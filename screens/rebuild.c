/*
 * rebuild.c - the screen of stage "rebuild": a fresh virtual environment built with an explicit interpreter.
 * A thin view: the fields, checks and log are drawn by the frame's default
 * view from kd_stage_rebuild; this file only says what to do first.
 */
#include "config.h"

#include "kernodeck/screen.h"

const struct kd_screen_ops kd_screen_rebuild = {
	.stage = &kd_stage_rebuild,
	.empty_hint = "Not checked yet: press r to lint requirements-rebuild.txt, build .venv-rebuild with the chosen interpreter and install into it (the output streams below; Esc cancels).",
};
