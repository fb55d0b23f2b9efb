/*
 * fsutil.c - atomic writes, capped reads and small path helpers.
 *
 * fsutil_write_atomic is the only way kernodeck writes a file: a
 * temporary file beside the target (same folder, so rename is atomic),
 * write, fsync, rename, fsync of the folder.  Text is redacted first, and
 * a Markdown or text file (termout_person_file) cleaned as termout cleans
 * what reaches a terminal.
 * Where a containment root is set (a replay: src/lib/beneath.c), every folder
 * written, made, renamed or removed in is reached below it without
 * following a link, and the temporary file and the rename are made from
 * the folder's descriptor.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kernodeck/beneath.h"
#include "kernodeck/fdio.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/redact.h"
#include "kernodeck/termout.h"

int
fsutil_fsync_parent(const char *path)
{
	const char *base;
	int fd, rc;

	fd = beneath_open_parent(path, &base, NULL);
	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

/* Remove PATH.tmp.PID files left by killed writers (their PID is gone);
 * dfd is the folder that holds path, base its last component. */
static void
sweep_stale_temps(const char *path, int dfd, const char *base)
{
	char dir[PATH_MAX], prefix[PATH_MAX];
	DIR *d;
	struct dirent *de;
	size_t plen;
	int fd;

	if (base == path)
		snprintf(dir, sizeof dir, ".");
	else if (base - path == 1)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(base - path - 1), path);
	plen = (size_t)snprintf(prefix, sizeof prefix, "%s.tmp.", base);
	if ((fd = dup(dfd)) < 0)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		char *end;
		long pid;
		if (strncmp(de->d_name, prefix, plen) != 0)
			continue;
		pid = strtol(de->d_name + plen, &end, 10);
		if (*end != '\0' || pid <= 0 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH &&
		    unlinkat(dirfd(d), de->d_name, 0) < 0 && (errno == EISDIR || errno == EPERM)) {
			char full[PATH_MAX];
			struct kd_err e;
			if (snprintf(full, sizeof full, "%s/%s", dir, de->d_name) < (int)sizeof full)
				fsutil_rmtree(full, &e);
		}
	}
	closedir(d);
}

void
fsutil_sweep_temps(const char *path)
{
	const char *base;
	int dfd = beneath_open_parent(path, &base, NULL);

	if (dfd >= 0) {
		sweep_stale_temps(path, dfd, base);
		close(dfd);
	}
}

/* Test aid: KD_FAULT_KILL=NAME ends kernodeck by SIGKILL at the point NAME. */
void
fsutil_fault_point(const char *name)
{
	const char *f = getenv("KD_FAULT_KILL");

	if (f != NULL && strcmp(f, name) == 0)
		raise(SIGKILL);
}

int
fsutil_swap_dir(const char *tmp, const char *out, const char *aside, struct kd_err *err)
{
	int exchanged = 0;

	if (!fsutil_exists(out)) {
		if (beneath_rename(tmp, out, 0, err) != 0)
			return err ? err->code : KD_EENV;
		fsutil_fsync_parent(out);
		return 0;
	}
#ifdef RENAME_EXCHANGE
	/* KD_FAULT_NO_EXCHANGE: a test aid, as if the file system lacked it */
	if (getenv("KD_FAULT_NO_EXCHANGE") == NULL) {
		if (beneath_rename(tmp, out, RENAME_EXCHANGE, err) == 0)
			exchanged = 1;
		else if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
			return err ? err->code : KD_EENV;
	}
#endif
	if (exchanged) {
		/* out is the new one; the older one is in tmp */
		fsutil_fsync_parent(out);
		fsutil_fault_point("dir-swap");
		if (aside == NULL) {
			struct kd_err e;
			fsutil_rmtree(tmp, &e);
		} else if (beneath_rename(tmp, aside, 0, err) != 0) {
			return err ? err->code : KD_EENV;
		}
		fsutil_fsync_parent(out);
		return 0;
	}
	/* no exchange on this file system: a short moment without out */
	if (aside != NULL ? beneath_rename(out, aside, 0, err) != 0 : fsutil_rmtree(out, err) != 0)
		return err ? err->code : KD_EENV;
	fsutil_fault_point("dir-swap");
	if (beneath_rename(tmp, out, 0, err) != 0) {
		if (aside != NULL)
			beneath_rename(aside, out, 0, NULL);   /* put the older one back */
		return err ? err->code : KD_EENV;
	}
	fsutil_fsync_parent(out);
	return 0;
}

/* Test aid: KD_FAULT_WRITE=substring makes writes to matching paths fail. */
static int
fault_injected(const char *path)
{
	const char *f = getenv("KD_FAULT_WRITE");

	return f != NULL && *f != '\0' && strstr(path, f) != NULL;
}

int
fsutil_write_atomic(const char *path, const void *data, size_t len, int flags,
		    struct kd_err *err)
{
	char tmp[PATH_MAX];
	char *red = NULL;
	const char *p = data, *base;
	int fd = -1, dfd, rc = KD_EENV, e;
	struct kd_err mine;

	if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
		return kd_err_set(err, KD_EENV, path, 0, "%s: path too long", path);
	/* the folder, reached without a link where a containment root is set */
	if ((dfd = beneath_open_parent(path, &base, &mine)) < 0) {
		if (mine.code == KD_EINPUT)
			return kd_err_set(err, KD_EINPUT, path, 0, "%s", mine.msg);
		return kd_err_sys(err, KD_EENV, path, mine.errnum, "cannot write %s", path);
	}
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", base, (long)getpid());
	if (!(flags & FSUTIL_RAW)) {
		red = redact_text(data, len, &len);
		if (red == NULL)
			return kd_err_sys(err, KD_EENV, path, ENOMEM, "%s: cannot redact", path);
		p = red;
	}
	/* a Markdown or text file is read by a person (cat, a pager): every
	 * control and hidden character shown as termout shows it */
	if (!(flags & FSUTIL_RAW) && termout_person_file(path)) {
		char *clean = termout_clean(p, len, TERMOUT_KEEP_NL, &len);
		free(red);
		if ((red = clean) == NULL)
			return kd_err_sys(err, KD_EENV, path, ENOMEM, "%s: cannot clean", path);
		p = red;
	}
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		kd_err_sys(err, KD_EENV, path, errno, "cannot write %s", path);
		goto out;
	}
	if (fault_injected(path)) {
		errno = ENOSPC;
		goto fail;
	}
	if (fdio_write_all(fd, p, len) < 0 || fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (renameat(dfd, tmp, dfd, base) < 0)
		goto fail;
	(void)fsync(dfd);
	sweep_stale_temps(path, dfd, base);
	rc = 0;
	goto out;
fail:
	e = errno;
	kd_err_sys(err, KD_EENV, path, e, "cannot write %s (the previous version is kept)", path);
	unlinkat(dfd, tmp, 0);
out:
	if (fd >= 0)
		close(fd);
	close(dfd);
	free(red);
	return rc;
}

/* Copy one regular file (mode kept) or link; folders by copy_tree. */
static int copy_tree(const char *src, const char *dst, int depth);

static int
copy_file(const char *src, const char *dst, mode_t mode)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), out, rc = 0;
	ssize_t n;

	if (in < 0)
		return -1;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode & 07777);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n) {
			rc = -1;
			break;
		}
	if (n < 0 || fsync(out) != 0)
		rc = -1;
	close(in);
	if (close(out) != 0)
		rc = -1;
	return rc;
}

static int
copy_tree(const char *src, const char *dst, int depth)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (depth > 64 || lstat(src, &st) != 0)
		return -1;
	if (S_ISLNK(st.st_mode)) {
		char t[PATH_MAX];
		ssize_t n = readlink(src, t, sizeof t - 1);
		if (n < 0)
			return -1;
		t[n] = '\0';
		return symlink(t, dst);
	}
	if (S_ISREG(st.st_mode))
		return copy_file(src, dst, st.st_mode);
	if (!S_ISDIR(st.st_mode) || mkdir(dst, st.st_mode & 07777) != 0 || (d = opendir(src)) == NULL)
		return -1;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char *s, *t;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		s = fsutil_join(src, de->d_name);
		t = fsutil_join(dst, de->d_name);
		rc = s && t ? copy_tree(s, t, depth + 1) : -1;
		free(s);
		free(t);
	}
	closedir(d);
	return rc;
}

int
fsutil_move_tree(const char *src, const char *dst, struct kd_err *err)
{
	struct kd_err mine;

	if (beneath_rename(src, dst, 0, &mine) == 0)
		return 0;
	if (errno != EXDEV || beneath_root() != NULL) {
		/* contained: no copy, which would read and write path by path */
		if (err != NULL)
			*err = mine;
		return mine.code;
	}
	/* another file system: copy, then remove the original only when the
	 * whole copy is there */
	if (copy_tree(src, dst, 0) != 0) {
		int e = errno;
		fsutil_rmtree(dst, NULL);
		return kd_err_sys(err, KD_EENV, dst, e, "cannot copy %s to %s", src, dst);
	}
	return fsutil_rmtree(src, err);
}

/* open for reading: below a containment root through beneath_open_read
 * (a link there is refused, named), else open(2); -1 with err set
 * ("PATH: cannot open" when opening, else "cannot read PATH"). */
static int
open_read(const char *path, int flags, int opening, struct kd_err *err)
{
	struct kd_err e;
	int fd;

	if (beneath_root() != NULL) {
		fd = beneath_open_read(path, flags, &e);
		if (fd < 0 && e.code == KD_EINPUT && e.errnum == 0)
			kd_err_set(err, KD_EINPUT, path, 0, "%s", e.msg);
		else if (fd < 0)
			kd_err_sys(err, KD_EINPUT, path, e.errnum, opening ? "%s: cannot open" :
				   "cannot read %s", path);
		return fd;
	}
	if ((fd = open(path, flags)) < 0)
		kd_err_sys(err, KD_EINPUT, path, errno, opening ? "%s: cannot open" : "cannot read %s",
			   path);
	return fd;
}

int
fsutil_open_regular(const char *path, struct stat *st, struct kd_err *err)
{
	struct stat tmp;
	int fd, fl;

	if (st == NULL)
		st = &tmp;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; below a
	 * containment root no link is followed */
	fd = open_read(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 1, err);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return kd_err_set(err, KD_EINPUT, path, 0,
				  "%s: not a regular file (a FIFO, a device or a folder is not read)",
				  path), -1;
	}
	if ((fl = fcntl(fd, F_GETFL)) >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

int
fsutil_read_file(const char *path, size_t cap, char **bufp, size_t *lenp,
		 struct kd_err *err)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0, size;
	int fd;

	*bufp = NULL;
	if (lenp)
		*lenp = 0;
	fd = open_read(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0, err);
	if (fd < 0)
		return KD_EINPUT;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return kd_err_set(err, KD_EINPUT, path, 0, "%s is not a regular file", path);
	}
	if ((unsigned long long)st.st_size > cap) {
		close(fd);
		return kd_err_set(err, KD_EINPUT, path, 0,
				  "%s is too large (%lld bytes; the limit is %zu)",
				  path, (long long)st.st_size, cap);
	}
	size = (size_t)st.st_size + 1;
	buf = malloc(size + 1);
	if (buf == NULL) {
		close(fd);
		return kd_err_sys(err, KD_EENV, path, ENOMEM, "cannot read %s", path);
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, size - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			close(fd);
			return kd_err_sys(err, KD_EINPUT, path, e, "cannot read %s", path);
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == size) {
			/* grew while reading */
			if (len > cap) {
				free(buf);
				close(fd);
				return kd_err_set(err, KD_EINPUT, path, 0,
						  "%s is too large (the limit is %zu)", path, cap);
			}
			size *= 2;
			char *nb = realloc(buf, size + 1);
			if (nb == NULL) {
				free(buf);
				close(fd);
				return kd_err_sys(err, KD_EENV, path, ENOMEM, "cannot read %s", path);
			}
			buf = nb;
		}
	}
	close(fd);
	buf[len] = '\0';
	*bufp = buf;
	if (lenp)
		*lenp = len;
	return 0;
}

int
fsutil_mkdirs(const char *path, struct kd_err *err)
{
	return beneath_mkdirs(path, err);
}

char *
fsutil_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s;

	if (lb > 0 && b[0] == '/')
		return strdup(b);
	s = malloc(la + lb + 2);
	if (s == NULL)
		return NULL;
	memcpy(s, a, la);
	if (la > 0 && a[la - 1] != '/')
		s[la++] = '/';
	memcpy(s + la, b, lb + 1);
	return s;
}

int
fsutil_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

int
fsutil_rmtree(const char *path, struct kd_err *err)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int rc = 0;

	if (beneath_root() != NULL) {
		/* contained: the folder that holds path is reached without a link */
		const char *base;
		int dfd = beneath_open_parent(path, &base, err);
		if (dfd < 0)
			return errno == ENOENT ? 0 : err ? err->code : KD_EINPUT;
		close(dfd);
	}
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : kd_err_sys(err, KD_EENV, path, errno, "cannot remove %s", path);
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path) < 0)
			return kd_err_sys(err, KD_EENV, path, errno, "cannot remove %s", path);
		return 0;
	}
	d = opendir(path);
	if (d == NULL)
		return kd_err_sys(err, KD_EENV, path, errno, "cannot remove %s", path);
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char *sub;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		sub = fsutil_join(path, de->d_name);
		rc = sub ? fsutil_rmtree(sub, err) : KD_EENV;
		free(sub);
	}
	closedir(d);
	if (rc == 0 && rmdir(path) < 0)
		rc = kd_err_sys(err, KD_EENV, path, errno, "cannot remove %s", path);
	return rc;
}

void
fsutil_utc_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

char *
fsutil_stamped_name(const char *dir, const char *prefix, const char *suffix)
{
	char stamp[32], name[PATH_MAX];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	for (int n = 0; n < 1000; n++) {
		char *p;

		if (n == 0)
			snprintf(name, sizeof name, "%s%s%s", prefix, stamp, suffix);
		else
			snprintf(name, sizeof name, "%s%s.%d%s", prefix, stamp, n, suffix);
		p = dir != NULL ? fsutil_join(dir, name) : strdup(name);
		if (p == NULL || !fsutil_exists(p))
			return p;
		free(p);
	}
	return NULL;
}
