/*
 * parse-pipcheck.h - `pip check` output.
 *
 * The tree (what `kernodeck inspect pip-check FILE` prints):
 *
 *   problems: [{kind: missing | conflict | unsupported | unknown,
 *               package, version (as printed; null for unknown),
 *               canonical_package,
 *               requirement            missing: the name pip printed;
 *                                      conflict: the requirement, which may
 *                                      hold commas, extras and markers
 *               dependency, canonical_dependency, installed_version
 *                                      (conflict),
 *               line (the line as printed), line_number}]
 *   clean:     true when pip said "No broken requirements found."
 *   exit_code: the status when the paste shows it (`echo $?`), else null
 *   warnings:  pip's (or a surrounding tool's) WARNING/ERROR lines, as text
 *
 * A conflict line is split on its LAST ", but you have ".  "X V is not
 * supported on this platform" (pip 24.2 and later) has no final period.
 * When the text shows the command (a prompt or a `+ pip check` trace), only
 * the output of that command is read.
 */
#ifndef KD_PIPCHECK_H
#define KD_PIPCHECK_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"

int pipcheck_parse(const char *text, size_t len, const char *name, json_t **out,
		   struct kd_err *err);

#endif
