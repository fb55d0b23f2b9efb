/*
 * place.c - a verified file or folder put where a program reads it: a
 * hard link, else a reflink, else a copy (see place.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/beneath.h"
#include "kernodeck/fdio.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/place.h"

/* The bytes of in into out, to the end. */
static int
copy_bytes(int in, int out)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(in, buf, sizeof buf)) > 0)
		if (fdio_write_all(out, buf, (size_t)n) != 0)
			return -1;
	return n < 0 ? -1 : 0;
}

/* One regular file: a hard link from its folder (reached below the root),
 * else a new file cloned or copied from it. */
static int
place_file(const char *src, const char *dst, mode_t mode, int flags, enum place_how *how,
	   struct kd_err *err)
{
	const char *base;
	int dfd, in = -1, out = -1, rc = 0, e;

	if ((dfd = beneath_open_parent(dst, &base, err)) < 0)
		return err != NULL ? err->code : KD_EINPUT;
	if (!(flags & PLACE_NO_HARDLINK) && linkat(AT_FDCWD, src, dfd, base, 0) == 0) {
		*how = PLACE_HARDLINK;
		goto out;
	}
	if (!(flags & PLACE_NO_HARDLINK) && errno == EEXIST) {
		rc = kd_err_set(err, KD_EINPUT, dst, 0, "%s exists already: nothing is replaced", dst);
		goto out;
	}
	in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	out = in < 0 ? -1 : openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
				   mode & 0777);
	if (in < 0 || out < 0) {
		rc = kd_err_sys(err, errno == EEXIST ? KD_EINPUT : KD_EENV, in < 0 ? src : dst,
				errno, "cannot place %s at %s", src, dst);
		goto out;
	}
	if (ioctl(out, FICLONE, in) == 0) {
		*how = PLACE_REFLINK;
	} else if (copy_bytes(in, out) == 0) {
		*how = PLACE_COPY;
	} else {
		e = errno;
		unlinkat(dfd, base, 0);
		rc = kd_err_sys(err, KD_EENV, dst, e, "cannot copy %s to %s", src, dst);
	}
out:
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) != 0 && rc == 0)
		rc = kd_err_sys(err, KD_EENV, dst, errno, "cannot copy %s to %s", src, dst);
	close(dfd);
	return rc;
}

static int
place_at(const char *src, const char *dst, int depth, int flags, enum place_how *how,
	 struct kd_err *err)
{
	struct stat st;
	struct dirent *de;
	enum place_how one = PLACE_COPY;
	DIR *d;
	int rc = 0;

	if (lstat(src, &st) != 0)
		return kd_err_sys(err, KD_EINPUT, src, errno, "cannot read %s", src);
	if (S_ISREG(st.st_mode)) {
		if ((rc = place_file(src, dst, st.st_mode, flags, &one, err)) == 0 && one > *how)
			*how = one;
		return rc;
	}
	if (!S_ISDIR(st.st_mode))
		return depth == 0 ? kd_err_set(err, KD_EINPUT, src, 0, "%s is neither a file nor a "
					       "folder: not placed", src) : 0;
	if (depth > KD_PLACE_DEPTH)
		return kd_err_set(err, KD_EINPUT, src, 0, "%s: folders nested deeper than %d",
				  src, KD_PLACE_DEPTH);
	if (depth == 0 && fsutil_exists(dst))
		return kd_err_set(err, KD_EINPUT, dst, 0, "%s exists already: nothing is replaced",
				  dst);
	if ((rc = beneath_mkdirs(dst, err)) != 0)
		return rc;
	if ((d = opendir(src)) == NULL)
		return kd_err_sys(err, KD_EINPUT, src, errno, "cannot read the folder %s", src);
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char *s, *t;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		s = fsutil_join(src, de->d_name);
		t = fsutil_join(dst, de->d_name);
		rc = s != NULL && t != NULL ? place_at(s, t, depth + 1, flags, how, err)
					    : kd_err_sys(err, KD_EENV, dst, ENOMEM, "place");
		free(s);
		free(t);
	}
	closedir(d);
	return rc;
}

/* See place.h. */
int
place_tree(const char *src, const char *dst, enum place_how *how, struct kd_err *err)
{
	return place_tree_flags(src, dst, 0, how, err);
}

/* See place.h. */
int
place_tree_flags(const char *src, const char *dst, int flags, enum place_how *how,
		 struct kd_err *err)
{
	char *parent = strdup(dst), *slash;
	int rc = 0;

	*how = flags & PLACE_NO_HARDLINK ? PLACE_REFLINK : PLACE_HARDLINK;
	if (parent == NULL)
		return kd_err_sys(err, KD_EENV, dst, ENOMEM, "place");
	if ((slash = strrchr(parent, '/')) != NULL && slash != parent) {
		*slash = '\0';
		rc = beneath_mkdirs(parent, err);
	}
	free(parent);
	return rc != 0 ? rc : place_at(src, dst, 0, flags, how, err);
}

/* See place.h. */
const char *
place_how_name(enum place_how how)
{
	return how == PLACE_HARDLINK ? "hard-linked" : how == PLACE_REFLINK ? "reflinked" : "copied";
}
