/*
 * beneath.c - open, create and rename below a containment root without
 * following a symbolic link: see beneath.h.
 *
 * A path is placed under the root lexically (made absolute against the
 * current folder, "." and doubled slashes dropped) and compared with the
 * root as given and as realpath(3) resolves it; the part below the root
 * is then opened from the held descriptor of the root, by openat2 with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or component by component.  A
 * refusal is diagnosed by the component walk, which names the component.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef HAVE_LINUX_OPENAT2_H
#include <linux/openat2.h>
#endif

#include "kernodeck/beneath.h"

static struct {
	int fd;                 /* the root, held open; -1: no root */
	char lex[PATH_MAX];     /* the root, absolute, as given */
	char real[PATH_MAX];    /* the root, resolved */
} root = { -1, "", "" };

/* Why a walk stopped. */
struct walk_fail {
	size_t upto;            /* the failing component ends at rel[upto] */
	int link;               /* that component is a symbolic link */
	int dotdot;             /* that component is ".." */
};

/* p made absolute against the current folder, "." and "//" dropped
 * (".." kept: it is refused below the root).  0, or -1. */
static int
lexical_abs(const char *p, char *out, size_t len)
{
	char cwd[PATH_MAX], buf[2 * PATH_MAX];
	size_t o = 0;

	if (p[0] == '/')
		snprintf(buf, sizeof buf, "%s", p);
	else if (getcwd(cwd, sizeof cwd) != NULL)
		snprintf(buf, sizeof buf, "%s/%s", cwd, p);
	else
		return -1;
	for (const char *c = buf; *c;) {
		size_t n;
		while (*c == '/')
			c++;
		n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.')) {
			c += n;
			continue;
		}
		if (o + n + 2 > len)
			return -1;
		out[o++] = '/';
		memcpy(out + o, c, n);
		o += n;
		c += n;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

/* The part of abs below r into rel: 1, or 0 when abs is not below r. */
static int
below(const char *abs, const char *r, char *rel, size_t len)
{
	size_t n = strcmp(r, "/") == 0 ? 0 : strlen(r);

	if (r[0] == '\0' || strncmp(abs, r, n) != 0 || (abs[n] != '/' && abs[n] != '\0'))
		return 0;
	snprintf(rel, len, "%s", abs[n] == '/' ? abs + n + 1 : abs + n);
	return 1;
}

/* -1: no root set; 0: path is not below the root; 1: it is, rel its part
 * below the root ("" for the root itself). */
static int
rel_of(const char *path, char *rel, size_t len)
{
	char abs[PATH_MAX];

	if (root.fd < 0)
		return -1;
	if (lexical_abs(path, abs, sizeof abs) != 0)
		return 0;
	return below(abs, root.lex, rel, len) || below(abs, root.real, rel, len);
}

int
beneath_set_root(const char *dir, struct kd_err *err)
{
	int fd;

	if (root.fd >= 0)
		close(root.fd);
	root.fd = -1;
	root.lex[0] = root.real[0] = '\0';
	if (dir == NULL)
		return 0;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || lexical_abs(dir, root.lex, sizeof root.lex) != 0 ||
	    realpath(dir, root.real) == NULL) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		root.lex[0] = root.real[0] = '\0';
		return kd_err_sys(err, KD_EENV, dir, e, "cannot open the work folder %s", dir);
	}
	root.fd = fd;
	return 0;
}

const char *
beneath_root(void)
{
	return root.fd >= 0 ? root.lex : NULL;
}

/* openat2 below the root, refusing every link: the descriptor, or -1
 * (errno ENOSYS where the kernel or the build lacks it). */
static int
open_how(const char *rel, int flags, mode_t mode)
{
#if defined(HAVE_LINUX_OPENAT2_H) && defined(SYS_openat2)
	struct open_how how;

	if (getenv("KD_FAULT_NO_OPENAT2") == NULL) {
		memset(&how, 0, sizeof how);
		how.flags = (uint64_t)(unsigned)(flags | O_CLOEXEC);
		how.mode = (flags & O_CREAT) ? (uint64_t)mode : 0;
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
		return (int)syscall(SYS_openat2, root.fd, *rel ? rel : ".", &how, sizeof how);
	}
#else
	(void)rel;
	(void)flags;
	(void)mode;
#endif
	errno = ENOSYS;
	return -1;
}

/* Close fd keeping errno; -1. */
static int
fail_close(int fd)
{
	int e = errno;

	if (fd >= 0)
		close(fd);
	errno = e;
	return -1;
}

/* One component of rel opened from fd: a folder (not last), or the last
 * with flags; with make, a missing folder is made first. */
static int
walk_step(int fd, const char *comp, int last, int flags, mode_t mode, int make,
	  struct walk_fail *wf)
{
	int of = last ? (flags | O_NOFOLLOW | O_CLOEXEC)
		      : (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int nfd = openat(fd, comp, of, mode);
	struct stat st;
	int e;

	if (nfd < 0 && errno == ENOENT && make && (!last || (flags & O_DIRECTORY))) {
		if (mkdirat(fd, comp, 0755) < 0 && errno != EEXIST)
			return -1;
		nfd = openat(fd, comp, of, mode);
	}
	if (nfd < 0) {
		e = errno;
		if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			wf->link = 1;
		errno = e;
	}
	return nfd;
}

/* rel opened from the root one component at a time, no link followed;
 * the descriptor, or -1 with errno and wf saying where. */
static int
walk(const char *rel, int flags, mode_t mode, int make, struct walk_fail *wf)
{
	int fd = openat(root.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	const char *c = rel;
	char comp[NAME_MAX + 1];

	memset(wf, 0, sizeof *wf);
	while (fd >= 0) {
		const char *next;
		size_t n;
		int nfd;

		while (*c == '/')
			c++;
		if (*c == '\0') {
			if (flags & O_DIRECTORY)
				return fd;
			errno = EISDIR;
			return fail_close(fd);
		}
		n = strcspn(c, "/");
		for (next = c + n; *next == '/'; next++)
			;
		wf->upto = (size_t)(c + n - rel);
		if (n > NAME_MAX) {
			errno = ENAMETOOLONG;
			return fail_close(fd);
		}
		memcpy(comp, c, n);
		comp[n] = '\0';
		c = next;
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			wf->dotdot = 1;
			errno = EXDEV;
			return fail_close(fd);
		}
		nfd = walk_step(fd, comp, *next == '\0', flags, mode, make, wf);
		if (nfd < 0)
			return fail_close(fd);
		close(fd);
		if (*next == '\0')
			return nfd;   /* the last component, opened with flags */
		fd = nfd;
	}
	return -1;
}

/* The error of a walk that stopped: a link or a ".." is KD_EINPUT with
 * the component named, anything else KD_EENV with errno. */
static int
walk_error(const char *path, const char *rel, const struct walk_fail *wf, int e,
	   struct kd_err *err)
{
	char comp[PATH_MAX], target[PATH_MAX];
	ssize_t n;

	snprintf(comp, sizeof comp, "%.*s", (int)wf->upto, rel);
	if (wf->link) {
		n = readlinkat(root.fd, comp, target, sizeof target - 1);
		target[n > 0 ? n : 0] = '\0';
		return kd_err_set(err, KD_EINPUT, path, 0,
				  "%s in the work folder %s is a symbolic link (to %s): kernodeck "
				  "follows no link below its work folder (refusing to reach %s "
				  "through it)",
				  comp, root.lex, n > 0 ? target : "?", path);
	}
	if (wf->dotdot)
		return kd_err_set(err, KD_EINPUT, path, 0,
				  "%s: a \"..\" below the work folder %s (refusing to write it)",
				  path, root.lex);
	return kd_err_sys(err, KD_EENV, path, e, "cannot open %s", path);
}

/* rel below the root: openat2, else (or to name what it refused) the walk. */
static int
open_rel(const char *path, const char *rel, int flags, mode_t mode, int make,
	 struct kd_err *err)
{
	struct walk_fail wf;
	int fd = make ? -1 : open_how(rel, flags, mode), e;

	if (fd >= 0)
		return fd;
	if (!make && errno != ENOSYS && errno != EPERM && errno != EINVAL && errno != E2BIG &&
	    errno != ELOOP && errno != EXDEV) {
		e = errno;
		kd_err_sys(err, KD_EENV, path, e, "cannot open %s", path);
		errno = e;
		return -1;
	}
	fd = walk(rel, flags, mode, make, &wf);
	if (fd < 0) {
		e = errno;
		walk_error(path, rel, &wf, e, err);
		errno = e;
	}
	return fd;
}

static int
outside(const char *path, struct kd_err *err)
{
	kd_err_set(err, KD_EINPUT, path, 0,
		   "%s is outside the work folder %s: the replay writes only inside it "
		   "(refusing to write it)", path, root.lex);
	errno = EXDEV;
	return -1;
}

int
beneath_open_read(const char *path, int flags, struct kd_err *err)
{
	char rel[PATH_MAX];
	int fd, e;

	if (rel_of(path, rel, sizeof rel) == 1)
		return open_rel(path, rel, flags, 0, 0, err);
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		kd_err_sys(err, KD_EINPUT, path, e, "cannot open %s", path);
		errno = e;
	}
	return fd;
}

int
beneath_open(const char *path, int flags, mode_t mode, struct kd_err *err)
{
	char rel[PATH_MAX];
	int r = rel_of(path, rel, sizeof rel), fd, e;

	if (r == 0)
		return outside(path, err);
	if (r == 1)
		return open_rel(path, rel, flags, mode, 0, err);
	fd = open(path, flags | O_CLOEXEC, mode);
	if (fd < 0) {
		e = errno;
		kd_err_sys(err, KD_EENV, path, e, "cannot open %s", path);
		errno = e;
	}
	return fd;
}

int
beneath_open_parent(const char *path, const char **base, struct kd_err *err)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	if (slash == NULL) {
		*base = path;
		snprintf(dir, sizeof dir, ".");
	} else {
		*base = slash + 1;
		if (snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path),
			     path) >= (int)sizeof dir) {
			errno = ENAMETOOLONG;
			return kd_err_set(err, KD_EENV, path, 0, "%s: path too long", path), -1;
		}
	}
	return beneath_open(dir, O_RDONLY | O_DIRECTORY, 0, err);
}

/* mkdir -p without a root: each prefix made in turn. */
static int
mkdirs_plain(const char *path, struct kd_err *err)
{
	char tmp[PATH_MAX];
	size_t n;

	if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
		return kd_err_set(err, KD_EENV, path, 0, "%s: path too long", path);
	n = strlen(tmp);
	while (n > 1 && tmp[n - 1] == '/')
		tmp[--n] = '\0';
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return kd_err_sys(err, KD_EENV, tmp, errno, "cannot create folder %s", tmp);
		*p = '/';
	}
	if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
		return kd_err_sys(err, KD_EENV, tmp, errno, "cannot create folder %s", tmp);
	return 0;
}

int
beneath_mkdirs(const char *path, struct kd_err *err)
{
	struct kd_err mine;
	char rel[PATH_MAX];
	int r = rel_of(path, rel, sizeof rel), fd;

	if (err == NULL)
		err = &mine;
	if (r < 0)
		return mkdirs_plain(path, err);
	if (r == 0)
		return outside(path, err), KD_EINPUT;
	fd = open_rel(path, rel, O_RDONLY | O_DIRECTORY, 0, 1, err);
	if (fd < 0)
		return err->code;
	close(fd);
	return 0;
}

int
beneath_rename(const char *src, const char *dst, unsigned flags, struct kd_err *err)
{
	struct kd_err mine;
	const char *sb, *db;
	int sfd, dfd = -1, rc = 0, e;

	if (err == NULL)
		err = &mine;
	if (root.fd < 0) {
		rc = flags ? renameat2(AT_FDCWD, src, AT_FDCWD, dst, flags) : rename(src, dst);
		if (rc != 0) {
			e = errno;
			kd_err_sys(err, KD_EENV, src, e, "cannot move %s to %s", src, dst);
			errno = e;
			return KD_EENV;
		}
		return 0;
	}
	if ((sfd = beneath_open_parent(src, &sb, err)) < 0 ||
	    (dfd = beneath_open_parent(dst, &db, err)) < 0) {
		rc = err->code;
		goto out;
	}
	if ((flags ? renameat2(sfd, sb, dfd, db, flags) : renameat(sfd, sb, dfd, db)) != 0) {
		e = errno;
		rc = kd_err_sys(err, KD_EENV, src, e, "cannot move %s to %s", src, dst);
		errno = e;
	}
out:
	e = errno;
	if (sfd >= 0)
		close(sfd);
	if (dfd >= 0)
		close(dfd);
	errno = e;
	return rc;
}
