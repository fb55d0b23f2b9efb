/*
 * pylock.h - lock files read as inventories (src/formats/pylock.c): PEP 751
 * pylock.toml (lock-version 1.x) and uv.lock (version 1), both TOML
 * (toml.h).  A reference's python.inventory may name either; they are
 * compared like a freeze or a pip inspect, and a package's sha256 and
 * origin take part (inventory.h: origin_changed).
 *
 * The tree (what `kernodeck inspect pylock FILE` / `inspect uv-lock FILE`
 * print):
 *
 *   format           "pylock" or "uv-lock"
 *   lock_version     pylock's lock-version, uv.lock's version (a string)
 *   created_by       pylock's created-by
 *   requires_python  as written, or null
 *   packages: [{name, canonical_name, version (or null),
 *               kind     pinned | direct_url | vcs | editable_local (the
 *                        words of a freeze)
 *               origin   index | url | vcs | directory (and what
 *                        kernodeck's own lock records in tool.kernodeck)
 *               source   the index URL, the URL, the repository, the folder
 *               url      the artefact's URL (a single artefact), commit
 *               sha256   when the package has exactly one artefact (a wheel,
 *                        an sdist or an archive) with a SHA-256
 *               files    how many artefacts it lists
 *               marker}]
 *
 * Refused (KD_EINPUT naming the file): TOML errors with their line; a
 * pylock without lock-version 1.x or created-by, a package without name,
 * with two of vcs/directory/archive or one of them with sdist/wheels, an
 * artefact without hashes or without url and path; a uv.lock whose version
 * is not 1, a package without name or source.
 */
#ifndef KD_PYLOCK_H
#define KD_PYLOCK_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"

int pylock_parse(const char *text, size_t len, const char *name, json_t **out,
		 struct kd_err *err);
int uvlock_parse(const char *text, size_t len, const char *name, json_t **out,
		 struct kd_err *err);
/* Is this file name a lock: "pylock" (pylock.toml, pylock.NAME.toml) or
 * "uv-lock" (uv.lock); NULL otherwise. */
const char *pylock_kind_of(const char *path);

#endif
