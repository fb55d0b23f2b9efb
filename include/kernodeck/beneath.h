/*
 * beneath.h - open, create and rename below a containment root without
 * following a symbolic link.
 *
 * A replay sets its work folder as the containment root once the clone
 * has been checked (beneath_set_root).  From then on every file and folder
 * kernodeck opens for writing, creates, renames or removes through
 * fsutil.c, the runner's logs and the lock is reached from the root one
 * component at a time: openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)
 * where the kernel has it, else each folder opened with
 * openat(O_NOFOLLOW | O_DIRECTORY) from the one before.  A symbolic link
 * on the way (made, for instance, by the project's code while a stage
 * ran), a ".." or a path outside the root is refused with KD_EINPUT
 * naming the path and the component, and nothing is written.
 *
 * Reads below the root go the same way (beneath_open_read: fsutil's
 * readers, so the outputs, the ids, the metrics and the observations a
 * stage rereads): a link the project's code planted there is refused, not
 * followed.
 *
 * Without a root (every command but replay) the functions behave as
 * open(2), mkdir -p and rename(2) do: the user's own links (outputs on a
 * scratch file system, a state folder elsewhere) are theirs to make.
 */
#ifndef KD_BENEATH_H
#define KD_BENEATH_H

#include <sys/types.h>

#include "kernodeck/err.h"

/* Set the containment root (NULL: none), a folder that exists; it is
 * opened once and held.  0, or KD_EENV when it cannot be opened. */
int beneath_set_root(const char *root, struct kd_err *err);
/* The root set, or NULL. */
const char *beneath_root(void);
/* open(path, flags, mode), below the root when one is set and without
 * following any link there (the last component included).  The
 * descriptor, or -1 with err set. */
int beneath_open(const char *path, int flags, mode_t mode, struct kd_err *err);
/* open(path, flags) for reading: below the root (when one is set and
 * path is below it) without following any link there, as beneath_open;
 * elsewhere as open(2) (a file outside the work folder is read where it
 * is).  The descriptor, or -1 with err set (KD_EINPUT naming the link). */
int beneath_open_read(const char *path, int flags, struct kd_err *err);
/* The folder that holds path, opened (O_DIRECTORY); *base points into
 * path at its last component.  -1 with err set. */
int beneath_open_parent(const char *path, const char **base, struct kd_err *err);
/* mkdir -p (mode 0755), each folder made below the one before it was
 * opened.  0, KD_EINPUT (a link, outside the root) or KD_EENV. */
int beneath_mkdirs(const char *path, struct kd_err *err);
/* rename(2) (flags 0) or renameat2(2) with flags (RENAME_EXCHANGE),
 * both folders reached as above: 0, KD_EINPUT, or KD_EENV with errno
 * kept (EXDEV, EINVAL among them). */
int beneath_rename(const char *src, const char *dst, unsigned flags, struct kd_err *err);
/* Test aid: KD_FAULT_NO_OPENAT2 set in the environment makes the
 * component walk do the work, as on a kernel without openat2. */

#endif
