/*
 * parse-freeze.h - `pip freeze` / `pip list --format=freeze` output.
 *
 * The tree (what `kernodeck inspect freeze FILE` prints):
 *
 *   packages:   [{name (as printed), canonical_name, version (or null),
 *                 kind: pinned | arbitrary | direct_url | vcs | editable_vcs |
 *                       editable_local,
 *                 url | path (where present), commit, subdirectory (VCS),
 *                 local_label (when the version has one), line}]
 *   warnings:   [{line, kind: credential | local-path, message}] -- the
 *                 credential itself is never repeated (URLs are printed
 *                 without their userinfo)
 *   unrecognised: [{line, text}]   lines that are none of the above
 *
 * An editable's name and version come from pip's "# Editable ... (name==V)"
 * comment when there is one, else from the URL's #egg= fragment.
 * Prompts, the echoed command, other commands' output, fences, "..." and
 * pip's WARNING lines are skipped.
 */
#ifndef KD_FREEZE_H
#define KD_FREEZE_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"

/* Parse text (name is used in messages).  0 and a new tree in *out, or
 * KD_EINPUT for what is not text. */
int freeze_parse(const char *text, size_t len, const char *name, json_t **out,
		 struct kd_err *err);

#endif
