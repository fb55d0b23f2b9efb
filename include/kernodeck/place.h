/*
 * place.h - put a verified file or folder where a program will read it,
 * without copying what a link can share.
 *
 * A replay (and procedure.sh, which does the same with ln and cp) places
 * the data and weights items it verified inside the clone, where the
 * reference says the project reads them.  Each file is a hard link to the
 * verified one when the file system allows it, else a reflink (FICLONE:
 * the blocks shared until one side writes), else a copy.  Nothing that is
 * there already is replaced: the destination must not exist.  Where a
 * containment root is set (beneath.h), every folder made and every file
 * created is reached below it without following a link.
 */
#ifndef KD_PLACE_H
#define KD_PLACE_H

#include "kernodeck/err.h"

/* How a file was placed, weakest last: a folder reports the weakest way
 * any of its files took. */
enum place_how {
	PLACE_HARDLINK,
	PLACE_REFLINK,
	PLACE_COPY,
};

#define KD_PLACE_DEPTH 32   /* folders below a placed folder, at most */

/* Place src (a regular file, or a folder of them: links and other kinds
 * inside it are left out) at dst, which must not exist; the folders above
 * dst are made.  0 with *how set; KD_EINPUT (dst exists, a link on the
 * way, src not a file or folder) or KD_EENV, with err naming the path. */
int place_tree(const char *src, const char *dst, enum place_how *how, struct kd_err *err);
/* place_tree's flags: never a hard link (a reflink or a copy), for a
 * copy a program may write in place without touching the original. */
#define PLACE_NO_HARDLINK 1
int place_tree_flags(const char *src, const char *dst, int flags, enum place_how *how,
		     struct kd_err *err);
/* "hard-linked", "reflinked", "copied". */
const char *place_how_name(enum place_how how);

#endif
