/*
 * origin.h - where each distribution of the rebuilt venv came from, and its
 * fingerprint (doc/design.md, "Origin and lock"; src/facts/origin.c).
 *
 * Stage 3 runs pip install with --report (pip-report.h); the report says
 * which artefact pip installed and its hash, and the rebuild file (its
 * -i/--extra-index-url/-f options, and the PIP_* variables of the shell)
 * says which index or find-links it was found through.  The packages pip
 * did not install come from somewhere else: the system site packages (the
 * Debian package that owns their metadata, through dpkg-query), a base
 * environment (its path; the conda package of conda-meta/ in a conda
 * environment), or the venv itself (installed by an earlier run).
 *
 * One origin entry (rebuild.yaml's origins.packages, sorted by name):
 *
 *   name, canonical_name, version
 *   origin      index | find-links | url | vcs | directory   (pip installed it)
 *               system | base | venv                          (it was there)
 *   source      the index URL, the find-links folder or URL (as the rebuild
 *               file or PIP_FIND_LINKS writes it), the direct URL, the
 *               repository, the folder; the base's path
 *   url, file   the artefact's URL and file name (pip installed it)
 *   sha256      the artefact's digest (pip's hash, or kernodeck's of a
 *               local file when pip gave none)
 *   requested   true: named by the rebuild file; false: a dependency
 *   commit, requested_revision (vcs), editable (directory)
 *   provider    {kind: debian | conda | base | venv, package, version,
 *                path}   for what pip did not install
 *
 * All URLs are without their userinfo.
 */
#ifndef KD_ORIGIN_H
#define KD_ORIGIN_H

#include <jansson.h>

#include "kernodeck/err.h"

struct kd_ctx;
struct kd_sink;

/* The origins of what pip installed: report is pipreport_parse's tree,
 * lint the rebuild file's (parse-requirements.h), pip_env the PIP_*
 * variables of the shell ({NAME: value}), base_dir the folder relative
 * find-links are taken from.  A new array (never NULL). */
json_t *origin_from_report(const json_t *report, const json_t *lint, const json_t *pip_env,
			   const char *base_dir);

/* What the venv holds that pip did not install: for each package of
 * installed (freeze packages, canonical_name and version) that origins
 * lacks, an entry with its provider, from located (the venv's query,
 * baseenv.h: name, version, location, meta), purelib (the venv's
 * site-packages), the base (path, kind, site_dirs; NULLs without one) and
 * owners ({meta path: {package, version}}: origin_dpkg_owners). */
void origin_add_provided(json_t *origins, const json_t *installed, const json_t *located,
			 const char *purelib, const char *base_path, const char *base_kind,
			 const json_t *base_dirs, const json_t *owners);

/* The Debian packages that own these metadata paths (an array of
 * strings): one logged step, dpkg-query -W of the python3-* packages with
 * their files (origin_dpkg_argv: the same vector whatever is asked, so
 * that replay's plan shows it), appended to steps.  A new object {path:
 * {package, version}}; empty when dpkg-query is not there or owns none
 * of them.  It runs also when paths is empty. */
json_t *origin_dpkg_owners(struct kd_ctx *ctx, const struct kd_sink *sink, json_t *steps,
			   const json_t *paths);

/* /usr/bin/dpkg-query -W -f=... python3-*: Debian's Python packages, their
 * versions and files (an argv.h vector) */
char **origin_dpkg_argv(void);

/* Parse that output ("package<TAB>version" lines, each followed by its
 * files, one a line after a space) into {path: {package, version}} for
 * the paths asked (tests). */
json_t *origin_parse_dpkg_files(const char *out, size_t len, const json_t *paths);

/* Give each package of pkgs (an inventory's package objects) the sha256,
 * origin and source of its entry in origins (the same canonical name and
 * version), so that inventory_compare sees another artefact or origin. */
void origin_merge(json_t *pkgs, const json_t *origins);

/* Sort origins by canonical name. */
void origin_sort(json_t *origins);

/* Find an origin entry by canonical name (NULL when none). */
const json_t *origin_find(const json_t *origins, const char *canonical_name);

#endif
