/*
 * procs.c - the mark every run's processes carry, and the guard that ends
 * them when kernodeck dies: see procs.h.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernodeck/cgroup.h"
#include "kernodeck/procs.h"

#define PROCS_GUARD_TRIES 100   /* scans 10 ms apart: at most a second */

static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static int guard_fd = -1;

void
procs_mark_new(char *buf, size_t len)
{
	static unsigned seq;

	snprintf(buf, len, "%s=%ld.%u", PROCS_MARK_NAME, (long)getpid(),
		 __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
}

/* A /proc entry's name as a pid, or 0 when it is not one. */
static pid_t
name_pid(const char *s)
{
	long v = 0;

	if (*s == '\0')
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 100000000L)
			return 0;
		v = v * 10 + (*s - '0');
	}
	return (pid_t)v;
}

/* Does /proc/NAME/environ hold the mark (the whole entry, or its start)?
 * An entry is matched byte by byte as it is read, so that no memory is
 * needed beyond one read's buffer. */
static int
environ_has(int procfd, const char *name, const char *mark, int whole)
{
	char path[64], buf[4096];
	size_t plen = strlen(mark), m = 0, nl = strlen(name);
	int fd, in = 1, found = 0;
	ssize_t n;

	if (nl + sizeof "/environ" > sizeof path)
		return 0;
	memcpy(path, name, nl);
	memcpy(path + nl, "/environ", sizeof "/environ");
	if ((fd = openat(procfd, path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while (!found && (n = read(fd, buf, sizeof buf)) > 0) {
		for (ssize_t i = 0; i < n && !found; i++) {
			char c = buf[i];
			if (c == '\0') {
				found = in && m == plen;
				in = 1;
				m = 0;
			} else if (!in) {
				continue;
			} else if (m == plen) {
				in = 0;   /* longer than the mark: another run's */
			} else if (c == mark[m]) {
				if (++m == plen && !whole)
					found = 1;
			} else {
				in = 0;
			}
		}
	}
	if (!found && in && m == plen)
		found = 1;   /* the last entry, without its NUL */
	close(fd);
	return found;
}

/* Note pid in seen (once), while there is room. */
static void
seen_add(pid_t pid, pid_t *seen, size_t cap, size_t *nseen)
{
	if (seen == NULL || *nseen >= cap)
		return;
	for (size_t i = 0; i < *nseen; i++)
		if (seen[i] == pid)
			return;
	seen[(*nseen)++] = pid;
}

int
procs_signal(const char *mark, int whole, int sig, pid_t *seen, size_t cap, size_t *nseen)
{
	char buf[8192] __attribute__((aligned(8)));
	pid_t me = getpid();
	int dfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC), alive = 0;
	ssize_t n;

	if (dfd < 0)
		return 0;
	while ((n = getdents64(dfd, buf, sizeof buf)) > 0) {
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(void *)(buf + off);
			pid_t pid = name_pid(de->d_name);

			off += de->d_reclen;
			if (pid <= 0 || pid == me || !environ_has(dfd, de->d_name, mark, whole))
				continue;
			alive++;
			seen_add(pid, seen, cap, nseen);
			if (sig != 0)
				kill(pid, sig);
		}
	}
	close(dfd);
	return alive;
}

/* The guard: wait for kernodeck's end (end of file on the pipe), then
 * end every process marked with its pid, and exit. */
static void
guard_main(int rfd, const char *prefix, const char *cgbase, const char *membase, pid_t owner)
{
	static const int ignore[] = { SIGINT, SIGQUIT, SIGHUP, SIGTERM, SIGTSTP,
				      SIGTTIN, SIGTTOU, SIGPIPE };
	struct timespec ts = { 0, 10 * 1000000L };
	struct sigaction sa;
	char c;
	ssize_t n;

	setsid();
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_IGN;
	for (size_t i = 0; i < sizeof ignore / sizeof ignore[0]; i++)
		sigaction(ignore[i], &sa, NULL);
	/* hold nothing of kernodeck's: its terminal, pipes, lock */
	if (rfd > 0)
		close_range(0, (unsigned)rfd - 1, 0);
	close_range((unsigned)rfd + 1, ~0U, 0);
	while ((n = read(rfd, &c, 1)) != 0)
		if (n < 0 && errno != EINTR)
			break;
	/* the runs' cgroups first: what cleared its mark is there too */
	cgroup_end_owner(cgbase, owner);
	cgroup_end_owner(membase, owner);
	for (int i = 0; i < PROCS_GUARD_TRIES; i++) {
		if (procs_signal(prefix, 0, SIGKILL, NULL, 0, NULL) == 0)
			break;
		nanosleep(&ts, NULL);
	}
	_exit(0);
}

/* Fork the guard through a middle process, so that it is not our child
 * (nothing for our waitpid to meet); our subreaper mark is off meanwhile,
 * so that the guard goes to init rather than to us. */
static void
guard_init(void)
{
	char prefix[PROCS_MARK_CAP];
	const char *cgbase = cgroup_base();   /* found before the fork */
	const char *membase = cgroup_mem_base();
	int p[2], was = 0;
	pid_t mid, owner = getpid();

	snprintf(prefix, sizeof prefix, "%s=%ld.", PROCS_MARK_NAME, (long)getpid());
	if (pipe2(p, O_CLOEXEC) != 0)
		return;
	if (prctl(PR_GET_CHILD_SUBREAPER, &was) == 0 && was)
		prctl(PR_SET_CHILD_SUBREAPER, 0);
	mid = fork();
	if (mid == 0) {
		if (fork() == 0)
			guard_main(p[0], prefix, cgbase, membase, owner);
		_exit(0);
	}
	if (mid > 0)
		while (waitpid(mid, NULL, 0) < 0 && errno == EINTR)
			;
	if (was)
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	close(p[0]);
	if (mid > 0)
		guard_fd = p[1];
	else
		close(p[1]);
}

int
procs_guard_start(void)
{
	pthread_once(&guard_once, guard_init);
	return guard_fd >= 0 ? 0 : -1;
}
