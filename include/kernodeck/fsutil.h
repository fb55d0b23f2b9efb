/*
 * fsutil.h - files: atomic writes, capped reads, paths.
 *
 * Every write of state goes through fsutil_write_atomic: a temporary file in
 * the same folder, write, fsync, rename over the target, fsync of the
 * folder.  A crash at any moment leaves the previous or the new content.
 * Every file kernodeck writes passes through redaction first (the caller
 * passes KD_WRITE_REDACT, the default for text).
 */
#ifndef KD_FSUTIL_H
#define KD_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

#include "kernodeck/err.h"

enum {
	FSUTIL_RAW = 1 << 0,     /* do not redact (binary content) */
};

/* Test aid: when KD_FAULT_WRITE is set in the environment to a substring
 * of the target path, writes to that path fail with ENOSPC. */
int fsutil_write_atomic(const char *path, const void *data, size_t len,
			int flags, struct kd_err *err);
/* Read a whole regular file, refusing one over cap, a directory, a FIFO.
 * The buffer is NUL-terminated (not counted in *lenp). */
int fsutil_read_file(const char *path, size_t cap, char **bufp, size_t *lenp,
		     struct kd_err *err);
/* Open a file for reading only when it is a regular file (a FIFO is never
 * waited on, a device or a folder never read); fills *st when st is not
 * NULL.  Returns the descriptor, or -1 with err set (KD_EINPUT). */
struct stat;
int fsutil_open_regular(const char *path, struct stat *st, struct kd_err *err);
/* Move a file or folder: rename, or across file systems a copy (links
 * kept as links) and then the removal of the original. */
int fsutil_move_tree(const char *src, const char *dst, struct kd_err *err);
/* mkdir -p with mode 0755. */
int fsutil_mkdirs(const char *path, struct kd_err *err);
/* Join two path parts into a malloc'd string. */
char *fsutil_join(const char *a, const char *b);
/* Does a path exist (lstat)? */
int fsutil_exists(const char *path);
/* Remove a directory tree (no following of symlinks). */
int fsutil_rmtree(const char *path, struct kd_err *err);
/* Current UTC time as "YYYY-MM-DDTHH:MM:SSZ". */
void fsutil_utc_now(char *buf, size_t len);
/* fsync the folder that holds path, so that a rename or a new name in it
 * lasts; 0 or -1 (errno). */
int fsutil_fsync_parent(const char *path);
/* DIR/PREFIX+STAMP+SUFFIX (DIR NULL: PREFIX+STAMP+SUFFIX), STAMP the UTC
 * time YYYYmmddTHHMMSSZ, or STAMP.N when that is taken: the first name not
 * yet taken (malloc'd), NULL when 1000 are. */
char *fsutil_stamped_name(const char *dir, const char *prefix, const char *suffix);
/* Remove PATH.tmp.PID files and folders whose process PID is gone. */
void fsutil_sweep_temps(const char *path);
/* Put the folder tmp in the place of out, so that out is at every moment
 * the older folder or the new one: renameat2(RENAME_EXCHANGE), then the
 * older one is renamed to aside (removed when aside is NULL).  Where the
 * file system cannot exchange, out is renamed aside first, then tmp into
 * place (and the older one put back if that fails).  0 or KD_EENV. */
int fsutil_swap_dir(const char *tmp, const char *out, const char *aside, struct kd_err *err);
/* Test aid: KD_FAULT_KILL=NAME raises SIGKILL at the fault point NAME
 * ("dir-swap": between the two renames of fsutil_swap_dir). */
void fsutil_fault_point(const char *name);


#endif
