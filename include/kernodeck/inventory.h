/*
 * inventory.h - package inventories (pip freeze text or pip inspect JSON)
 * and their comparison by canonical name (PEP 503).
 *
 * inventory_compare() answers, for a reference and a new inventory:
 *
 *   missing:             [{canonical_name, name, ref_version}]
 *   extra:               [{canonical_name, name, new_version}]
 *   version_changed:     [{canonical_name, name, ref_version, new_version,
 *                          direction: up | down | unknown}]   public versions
 *                          differ (PEP 440 order; "unknown" when a version is
 *                          not PEP 440 or is a direct URL)
 *   local_label_changed: [{canonical_name, name, ref_version, new_version,
 *                          ref_local, new_local}]  same public version, other
 *                          local label: 2.3.0+cu121 against 2.3.0+cpu, which
 *                          pip's ==2.3.0 accepts both
 *   origin_changed:      [{canonical_name, name, ref_version, new_version,
 *                          ref_sha256, new_sha256 | ref_origin, new_origin}]
 *                          the same version from another artefact (both
 *                          sides name a sha256: pip's report, a lock file)
 *                          or another origin (both name one: origin.h)
 *   differences:         all of the above in one list sorted by name:
 *                        [{canonical_name, name, kind: missing | extra |
 *                          version | local-label | digest | origin,
 *                          ref_version, new_version,
 *                          tooling (pip, setuptools, wheel), detail; for
 *                          digest and origin, origin_changed's fields too}]
 *   same:                the number of packages equal in both
 *
 * A package object only needs canonical_name (or name) and version; the
 * extra fields of freeze and pip inspect trees (kind, url, commit, location)
 * are used when present: two direct URLs compare by commit or URL; sha256,
 * origin and source (a lock file, rebuild.yaml's origins) by value.
 */
#ifndef KD_INVENTORY_H
#define KD_INVENTORY_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"

/* Read an inventory from text: a lock file when name is one (pylock.toml,
 * pylock.NAME.toml, uv.lock: pylock.h), pip inspect JSON when it holds a
 * JSON object, else pip freeze.  *pkgs gets a new array of package
 * objects; *format (may be NULL) "pylock", "uv-lock", "pip-inspect" or
 * "freeze". */
int inventory_parse(const char *text, size_t len, const char *name, json_t **pkgs,
		    const char **format, struct kd_err *err);
/* The same from a file (KD_EINPUT when missing, unreadable, malformed). */
int inventory_load(const char *path, json_t **pkgs, const char **format, struct kd_err *err);
/* The package array of a tree: the tree itself when it is an array, else
 * its "packages" member (freeze, pip inspect, an observation), or NULL. */
const json_t *inventory_packages(const json_t *tree);
/* Is this canonical name packaging tooling (pip, setuptools, wheel)? */
int inventory_is_tooling(const char *canonical_name);
/* Label each package of a pip inspect package list with "system": true
 * when its location is outside prefix (the venv: what comes from system
 * site packages), false when inside; packages without a location are
 * left alone.  Returns how many are system packages. */
size_t inventory_label_system(json_t *pkgs, const char *prefix);
/* Compare (see above); never NULL.  Either side may be a tree accepted by
 * inventory_packages. */
json_t *inventory_compare(const json_t *ref, const json_t *new_inv, int flags);

#endif
