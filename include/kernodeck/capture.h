/*
 * capture.h - the capture of this machine into the reference
 * (src/features/capture.c), for `kernodeck capture` and stage 1.
 */
#ifndef KD_CAPTURE_H
#define KD_CAPTURE_H

#include <jansson.h>

#include "kernodeck/err.h"

struct kd_ctx;
struct kd_sink;

/* Capture this machine into the reference (on the reference machine):
 * the interpreter (python, or the recorded one, or /usr/bin/python3), its
 * version, `pip freeze --all` and `pip inspect` saved under
 * STATE_DIR/reference/ and named in python.inventory and python.inspect,
 * and the system row (the system stage's readers, under $KD_SYSROOT).
 * Saves reference.yaml.  *summary (optional) gets a tree of what was
 * recorded. */
int capture_reference(struct kd_ctx *ctx, const char *python, const struct kd_sink *sink,
		      json_t **summary, struct kd_err *err);

#endif
