/*
 * parse-requirements.h - pip requirements files, read and linted.
 *
 * The tree (what `kernodeck inspect requirements FILE` prints):
 *
 *   index_url          the -i/--index-url value, or null (userinfo removed)
 *   extra_index_urls   [url]
 *   find_links         [url or path]
 *   no_index           true when --no-index is given
 *   constraints        [path as written]   (-c lines)
 *   includes           [path as written]   (-r lines)
 *   files              [{path, kind: requirements | include | constraints,
 *                        exists, sha256, from_file, from_line}] every file
 *                      read, the top one first (followed relative to the
 *                      file that names it)
 *   hash_mode          true when --require-hashes or any --hash is given
 *   requirements       [{name, canonical_name, specifier ("" when none),
 *                        marker (or null), extras, hashes ["sha256:HEX"],
 *                        url | path (where present), editable, pinned,
 *                        local_label (when pinned with one), file, line}]
 *                      -r and -c lines are not requirements; requirements of
 *                      included files are, with their own file and line
 *   torch_variant      {required, variant ("cu121", "rocm6.2", "cpu" or
 *                        null), source (how it was found, or null)}
 *   findings           [{severity: fail | warn | info, code, file, line,
 *                        message}]
 *
 * Finding codes: unpinned (warn; fail when strict), torch-source (warn;
 * fail when strict), hashes (fail: hash-checking mode with a requirement
 * that is not pinned with ==, or has no --hash), credential (fail: a URL
 * with a credential; it must come from ${PIP_TOKEN}-style variables or a
 * keyring), local-path (warn: an absolute path or file: URL), freeze (warn:
 * the file is really a raw `pip freeze`), include (fail: an -r/-c file that
 * is missing, unreadable, too deep or a cycle), syntax (fail: a line pip
 * would refuse), unknown-option (fail).
 *
 * Lines are joined on a final backslash and comments ("#" at the start or
 * after a space) removed first, as pip does.  Shell prompts, the echoed
 * command and markdown fences around a pasted file are skipped.
 */
#ifndef KD_REQUIREMENTS_H
#define KD_REQUIREMENTS_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"

#define KD_REQ_MAX_DEPTH 10   /* nesting of -r / -c */

enum {
	REQ_STRICT = 1 << 0,   /* unpinned and torch-source findings fail */
	REQ_FOLLOW = 1 << 1,   /* follow -r and -c relative to base_dir */
};

/* Parse text in memory; nothing on disk is read. */
int requirements_parse(const char *text, size_t len, const char *name, json_t **out,
		       struct kd_err *err);
/* Parse text; with REQ_FOLLOW, includes are read relative to base_dir. */
int requirements_parse_ex(const char *text, size_t len, const char *name,
			  const char *base_dir, int flags, json_t **out, struct kd_err *err);
/* Read a file and what it includes.  KD_EINPUT when the file itself is
 * missing, unreadable or not text. */
int requirements_load(const char *path, int flags, json_t **out, struct kd_err *err);
/* Number of findings of a severity ("fail", "warn") in a tree. */
size_t requirements_count(const json_t *tree, const char *severity);

#endif
