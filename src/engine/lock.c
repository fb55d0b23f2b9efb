/*
 * lock.c - one kernodeck writes a kernodeck folder at a time.
 *
 * STATE_DIR/lock is held with flock(2) while the process lives: the kernel
 * drops it when the holder dies, so a lock left behind by a dead process
 * is recognised as free.  The file's content says who holds it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "kernodeck/beneath.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/lock.h"

struct kd_lock {
	int fd;
	char *path;
};

/* One read of the holder's description; 1 when it is complete (ends with
 * its "since:" line and names a process). */
static int
read_holder_once(int fd, struct kd_lock_holder *h)
{
	char buf[1024];
	ssize_t n;
	int complete;

	memset(h, 0, sizeof *h);
	n = pread(fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	complete = buf[n - 1] == '\n';
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, "user: ", 6) == 0)
			snprintf(h->user, sizeof h->user, "%s", line + 6);
		else if (strncmp(line, "host: ", 6) == 0)
			snprintf(h->host, sizeof h->host, "%s", line + 6);
		else if (strncmp(line, "pid: ", 5) == 0)
			h->pid = strtol(line + 5, NULL, 10);
		else if (strncmp(line, "since: ", 7) == 0)
			snprintf(h->since, sizeof h->since, "%s", line + 7);
	}
	return complete && h->pid > 0 && h->since[0] != '\0';
}

/* Who holds the lock: the holder takes the lock before it writes who it
 * is, so a description read too early is empty or partial; read it again
 * for up to LOCK_HOLDER_WAIT_MS until it is complete (pid 0 means unknown). */
#define LOCK_HOLDER_WAIT_MS 500
static void
read_holder(int fd, struct kd_lock_holder *h)
{
	struct timespec ts = { 0, 10 * 1000000L };

	for (int i = 0; i < LOCK_HOLDER_WAIT_MS / 10; i++) {
		if (read_holder_once(fd, h))
			return;
		nanosleep(&ts, NULL);
	}
	if (!read_holder_once(fd, h))
		h->pid = 0;
}

/* "process 123", or "process unknown" when the holder has not said. */
static const char *
holder_pid(const struct kd_lock_holder *h, char *buf, size_t len)
{
	if (h->pid > 0)
		snprintf(buf, len, "process %ld", h->pid);
	else
		snprintf(buf, len, "process unknown");
	return buf;
}

int
lock_take(const char *state_dir, struct kd_lock **lockp, struct kd_lock_holder *holder,
	  struct kd_err *err)
{
	char *path = fsutil_join(state_dir, "lock");
	struct kd_lock_holder me;
	struct kd_err be;
	struct passwd *pw;
	char buf[1024];
	int fd, n;

	*lockp = NULL;
	fd = beneath_open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644, &be);
	if (fd < 0) {
		int code = be.code == KD_EINPUT ? KD_EINPUT : KD_EENV;
		if (code == KD_EINPUT)
			kd_err_set(err, code, path, 0, "%s", be.msg);
		else
			kd_err_sys(err, code, path, be.errnum, "cannot open the lock %s", path);
		free(path);
		return code;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		struct kd_lock_holder h;
		char pidbuf[48];
		read_holder(fd, &h);
		if (holder)
			*holder = h;
		kd_err_set(err, KD_EFAIL, path, 0,
			   "%s is in use by another kernodeck: user %s on %s, %s, since %s",
			   state_dir, h.user[0] ? h.user : "?", h.host[0] ? h.host : "?",
			   holder_pid(&h, pidbuf, sizeof pidbuf), h.since[0] ? h.since : "?");
		close(fd);
		free(path);
		return KD_EFAIL;
	}
	memset(&me, 0, sizeof me);
	pw = getpwuid(geteuid());
	snprintf(me.user, sizeof me.user, "%s", pw ? pw->pw_name : "?");
	gethostname(me.host, sizeof me.host - 1);
	me.pid = (long)getpid();
	fsutil_utc_now(me.since, sizeof me.since);
	n = snprintf(buf, sizeof buf, "user: %s\nhost: %s\npid: %ld\nsince: %s\n",
		     me.user, me.host, me.pid, me.since);
	/* written in place, then cut to its length: never empty in between */
	if (pwrite(fd, buf, (size_t)n, 0) != n || ftruncate(fd, n) < 0) {
		/* the lock is held even when its description cannot be written */
	}
	*lockp = calloc(1, sizeof **lockp);
	(*lockp)->fd = fd;
	(*lockp)->path = path;
	return 0;
}

void
lock_release(struct kd_lock *lock)
{
	if (lock == NULL)
		return;
	if (ftruncate(lock->fd, 0) < 0) {
		/* nothing to do: closing releases the lock */
	}
	close(lock->fd);
	free(lock->path);
	free(lock);
}

int
lock_holder(const char *state_dir, struct kd_lock_holder *holder)
{
	char *path = fsutil_join(state_dir, "lock");
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	int rc = KD_EFAIL;

	free(path);
	if (fd < 0)
		return KD_EFAIL;
	if (flock(fd, LOCK_SH | LOCK_NB) < 0) {
		read_holder(fd, holder);
		rc = 0;
	}
	close(fd);
	return rc;
}
