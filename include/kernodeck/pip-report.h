/*
 * pip-report.h - pip's installation report (`pip install --report FILE`,
 * pip 22.2 and later; report version "0" or "1"): what pip installed, from
 * which URL, with which hash, and whether it was asked for.
 *
 * The tree (what `kernodeck inspect pip-report FILE` prints):
 *
 *   version, pip_version    as in the report
 *   environment             the report's marker environment (copied)
 *   packages: [{name, canonical_name, version,
 *               requested      true when the rebuild file named it, false
 *                              when it was pulled in as a dependency
 *               is_direct      a direct URL, VCS or path requirement
 *               kind           archive | vcs | directory (download_info)
 *               url            the artefact's URL (userinfo removed)
 *               file           its file name (the URL's last segment,
 *                              %-escapes decoded), for an archive
 *               sha256         hex, from archive_info (hashes or hash), or
 *                              absent when pip gave none
 *               vcs, commit, requested_revision   (vcs)
 *               editable                          (directory)
 *               subdirectory}]
 *
 * A report that is not JSON, not an object, has no install list, or names
 * a package without name and version is refused (KD_EINPUT, file named).
 */
#ifndef KD_PIP_REPORT_H
#define KD_PIP_REPORT_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"

int pipreport_parse(const char *text, size_t len, const char *name, json_t **out,
		    struct kd_err *err);
/* The same from a file. */
int pipreport_load(const char *path, json_t **out, struct kd_err *err);

#endif
