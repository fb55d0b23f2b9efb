/*
 * sha256sums.h - the SHA256SUMS manifest of a dossier, in the format that
 * `sha256sum -c` accepts.
 *
 * A line is "HEX  PATH" (text mode) or "HEX *PATH" (binary mode); a line
 * that starts with a backslash has its PATH escaped (\\ for a backslash, \n
 * for a newline), as GNU coreutils writes names holding those characters.
 * The parser is for untrusted input: it refuses a digest that is not 64
 * hex digits, a missing or malformed path, a path that is absolute or
 * climbs out of the folder (".." component), a NUL byte, a line over
 * KD_CAP_LINE, a repeated path, and more than KD_CAP_SUMS_ENTRIES entries;
 * each error names the file and line.  Blank lines are skipped.
 *
 * sha256sums_verify() checks every entry of a folder: the path stays inside
 * the folder once symbolic links are resolved (a link is refused), the file
 * exists and is regular, and its digest matches.  It also reports files of
 * the folder that the manifest does not list.
 */
#ifndef KD_SHA256SUMS_H
#define KD_SHA256SUMS_H

#include <stddef.h>

#include "kernodeck/err.h"

#define KD_CAP_SUMS_FILE    (8u * 1024 * 1024)
#define KD_CAP_SUMS_ENTRIES 100000

struct sha256sums_entry {
	char hex[65];     /* lowercase */
	char *path;       /* relative, unescaped */
	int binary;       /* '*' mode */
	int line;         /* 1-based line in the manifest */
};

struct sha256sums {
	struct sha256sums_entry *v;
	size_t n, cap;
};

/* Parse a manifest held in memory; name is used in messages. */
int sha256sums_parse(const char *buf, size_t len, const char *name,
		     struct sha256sums *out, struct kd_err *err);
/* Read and parse a manifest file (capped at KD_CAP_SUMS_FILE). */
int sha256sums_load(const char *path, struct sha256sums *out, struct kd_err *err);
void sha256sums_free(struct sha256sums *s);
/* Append an entry (path copied).  Returns 0, or KD_EINPUT for an unsafe
 * path or a bad digest. */
int sha256sums_add(struct sha256sums *s, const char *hex, const char *path,
		   struct kd_err *err);
/* The manifest text, entries sorted by path (malloc'd, NUL-terminated). */
char *sha256sums_format(const struct sha256sums *s, size_t *lenp);
/* 1 when a relative path stays inside its folder: not empty, not absolute,
 * no "." or ".." component, no empty component, no NUL. */
int sha256sums_path_safe(const char *path);

/* One problem found by verify. */
struct sha256sums_problem {
	char *path;
	const char *what;   /* "changed", "missing", "escapes", "not a regular file",
			     * "not listed", "unreadable" */
};

struct sha256sums_report {
	struct sha256sums_problem *v;
	size_t n, cap;
	size_t checked;      /* entries whose digest matched */
};

/* Verify a folder against a manifest.  `self` names the manifest file
 * (relative to dir) so that it is not reported as unlisted.  Returns 0 when
 * every entry matched and no file is unlisted; KD_EFAIL otherwise (the
 * report lists each problem); KD_EENV when the folder cannot be read. */
int sha256sums_verify(const char *dir, const struct sha256sums *s, const char *self,
		      struct sha256sums_report *rep, struct kd_err *err);
void sha256sums_report_free(struct sha256sums_report *rep);

#endif
