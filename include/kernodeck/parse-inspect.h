/*
 * parse-inspect.h - `pip inspect` JSON (pip 22.2 and later).
 *
 * The tree (what `kernodeck inspect pip-inspect FILE` prints):
 *
 *   version, pip_version      as in the report
 *   environment               the report's marker environment (copied)
 *   packages: [{name, canonical_name, version,
 *               kind: pinned | direct_url | vcs | editable_vcs | editable_local
 *                     (the same words as a freeze; from direct_url.json),
 *               url, commit (where present; userinfo removed),
 *               location            the folder holding its metadata
 *                                   (site-packages), from metadata_location,
 *               installer, requested, local_label (when the version has one),
 *               requires_dist}]
 *
 * Text before the JSON object (pip's "WARNING: pip inspect is currently an
 * experimental command" on stderr, a prompt) is skipped.
 */
#ifndef KD_PIPINSPECT_H
#define KD_PIPINSPECT_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"

int pipinspect_parse(const char *text, size_t len, const char *name, json_t **out,
		     struct kd_err *err);

#endif
