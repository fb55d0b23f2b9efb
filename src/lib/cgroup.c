/*
 * cgroup.c - a cgroup (v2) per run: see cgroup.h.
 *
 * What the guard calls (cgroup_end_owner, and kill_dir below it) uses only
 * async-signal-safe calls on fixed buffers: it runs in a process forked
 * from one that may have threads.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernodeck/cgroup.h"

#define CG_PREFIX "kernodeck-"
#define CG_TRIES 100   /* 10 ms apart: a second for a folder to empty */

static pthread_once_t base_once = PTHREAD_ONCE_INIT, mem_once = PTHREAD_ONCE_INIT;
static char base[CGROUP_PATH_CAP], mem_base[CGROUP_PATH_CAP];

/* dst = a + b (+ c), cut to the cap; async-signal-safe. */
static void
cat3(char *dst, const char *a, const char *b, const char *c)
{
	size_t n = 0;

	for (const char *p = a; p && *p && n + 1 < CGROUP_PATH_CAP; p++)
		dst[n++] = *p;
	for (const char *p = b; p && *p && n + 1 < CGROUP_PATH_CAP; p++)
		dst[n++] = *p;
	for (const char *p = c; p && *p && n + 1 < CGROUP_PATH_CAP; p++)
		dst[n++] = *p;
	dst[n] = '\0';
}

static void
nap_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* Each pid of DIR/cgroup.procs: signalled with sig (0: counted only),
 * noted in seen.  Returns how many.  Async-signal-safe. */
static int
procs_of(const char *dir, int sig, pid_t *seen, size_t cap, size_t *nseen)
{
	char path[CGROUP_PATH_CAP], buf[4096];
	long v = -1;
	int fd, n = 0;
	ssize_t got;

	cat3(path, dir, "/cgroup.procs", NULL);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while ((got = read(fd, buf, sizeof buf)) > 0) {
		for (ssize_t i = 0; i < got; i++) {
			if (buf[i] >= '0' && buf[i] <= '9') {
				v = (v < 0 ? 0 : v * 10) + (buf[i] - '0');
				continue;
			}
			if (v > 0) {
				n++;
				if (sig != 0)
					kill((pid_t)v, sig);
				if (seen != NULL && *nseen < cap)
					seen[(*nseen)++] = (pid_t)v;
			}
			v = -1;
		}
	}
	close(fd);
	return n;
}

/* End everything in DIR and remove it: cgroup.kill, else SIGKILL to each
 * pid; retried until the folder is gone or a second has passed.  Returns
 * how many processes were in it at first.  Async-signal-safe. */
static int
kill_dir(const char *dir, pid_t *seen, size_t cap, size_t *nseen)
{
	char path[CGROUP_PATH_CAP];
	int fd, first = procs_of(dir, 0, seen, cap, nseen);

	for (int i = 0; i < CG_TRIES; i++) {
		if (procs_of(dir, 0, NULL, 0, NULL) > 0) {
			cat3(path, dir, "/cgroup.kill", NULL);
			fd = open(path, O_WRONLY | O_CLOEXEC);
			if (fd < 0 || write(fd, "1", 1) != 1)
				procs_of(dir, SIGKILL, seen, cap, nseen);
			if (fd >= 0)
				close(fd);
		}
		for (size_t k = 0; seen != NULL && k < *nseen; k++)
			(void)waitpid(seen[k], NULL, WNOHANG);
		if (rmdir(dir) == 0 || errno == ENOENT)
			break;
		nap_ms(10);
	}
	return first;
}

/* "kernodeck-PID.N": PID, or 0 when the name is not a run folder. */
static pid_t
folder_owner(const char *name)
{
	long v = 0;
	const char *p;

	if (strncmp(name, CG_PREFIX, sizeof CG_PREFIX - 1) != 0)
		return 0;
	for (p = name + sizeof CG_PREFIX - 1; *p >= '0' && *p <= '9' && v < 100000000L; p++)
		v = v * 10 + (*p - '0');
	return *p == '.' ? (pid_t)v : 0;
}

void
cgroup_end_owner(const char *root, pid_t owner)
{
	char buf[4096] __attribute__((aligned(8))), dir[CGROUP_PATH_CAP];
	int dfd;
	ssize_t n;

	if (root == NULL || root[0] == '\0' ||
	    (dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	while ((n = getdents64(dfd, buf, sizeof buf)) > 0) {
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(void *)(buf + off);

			off += de->d_reclen;
			if (folder_owner(de->d_name) != owner)
				continue;
			cat3(dir, root, "/", de->d_name);
			kill_dir(dir, NULL, 0, NULL);
		}
	}
	close(dfd);
}

/* The folders of kernodeck processes that are gone, below root: ended and
 * removed. */
static void
sweep_stale(const char *root)
{
	DIR *d = opendir(root);
	struct dirent *de;
	char dir[CGROUP_PATH_CAP];

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		pid_t owner = folder_owner(de->d_name);

		if (owner <= 0 || owner == getpid() || kill(owner, 0) == 0 || errno != ESRCH)
			continue;
		cat3(dir, root, "/", de->d_name);
		kill_dir(dir, NULL, 0, NULL);
	}
	closedir(d);
}

/* Does the comma-separated list have item? (It is cut in place.) */
static int
list_has(char *list, const char *item)
{
	char *save = NULL;

	for (char *o = strtok_r(list, ",", &save); o != NULL; o = strtok_r(NULL, ",", &save))
		if (strcmp(o, item) == 0)
			return 1;
	return 0;
}

/* The mount point of a cgroup hierarchy and the root of it that the mount
 * shows (/proc/self/mountinfo), into mnt and root: the first cgroup2 mount
 * (controller NULL), or the v1 mount whose super options name controller. */
static int
cgroup_mount(const char *controller, char *mnt, char *root, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int found = 0;

	if (f == NULL)
		return -1;
	while (!found && fgets(line, sizeof line, f) != NULL) {
		char r[1024], m[1024], opts[1024];
		const char *dash = strstr(line, " - ");

		if (dash == NULL || (controller == NULL ? strncmp(dash + 3, "cgroup2 ", 8) != 0
				     : strncmp(dash + 3, "cgroup ", 7) != 0 ||
				       sscanf(dash + 3, "%*s %*s %1023s", opts) != 1 || !list_has(opts, controller)))
			continue;
		if (sscanf(line, "%*s %*s %*s %1023s %1023s", r, m) == 2 &&
		    strlen(m) < len && strlen(r) < len) {
			snprintf(mnt, len, "%s", m);
			snprintf(root, len, "%s", r);
			found = 1;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

/* This process's path in a hierarchy (/proc/self/cgroup): the cgroup2 one
 * ("0::PATH", controller NULL), or the v1 one that names controller. */
static int
own_path(const char *controller, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096];
	int found = 0;

	if (f == NULL)
		return -1;
	while (!found && fgets(line, sizeof line, f) != NULL) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (c2 == NULL)
			continue;
		*c2 = '\0';
		if (controller == NULL ? c1 != line + 1 || line[0] != '0' || c2 != c1 + 1
				       : !list_has(c1 + 1, controller))
			continue;
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		found = strlen(c2 + 1) < len;
		if (found)
			memcpy(path, c2 + 1, strlen(c2 + 1) + 1);
	}
	fclose(f);
	return found ? 0 : -1;
}

/* dst = the folder of this process in a hierarchy (as cgroup_mount), when
 * it and its cgroup.procs are writable (else ""); stale run folders there
 * are swept. */
static void
find_base(char *dst, const char *controller)
{
	char mnt[CGROUP_PATH_CAP], root[CGROUP_PATH_CAP], own[CGROUP_PATH_CAP], procs[CGROUP_PATH_CAP];
	const char *rel;
	size_t rl;

	dst[0] = '\0';
	if (getenv("KD_NO_CGROUP") != NULL || cgroup_mount(controller, mnt, root, sizeof mnt) != 0 ||
	    own_path(controller, own, sizeof own) != 0)
		return;
	/* the mount shows the hierarchy from root: the own path below it */
	rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
	rel = rl > 0 && strncmp(own, root, rl) == 0 ? own + rl : rl > 0 ? "" : own;
	if (strcmp(rel, "/") == 0)
		rel = "";
	cat3(dst, mnt, rel, NULL);
	cat3(procs, dst, "/cgroup.procs", NULL);
	if (access(dst, W_OK) != 0 || access(procs, W_OK) != 0) {
		dst[0] = '\0';
		return;
	}
	sweep_stale(dst);
}

static void
base_init(void)
{
	find_base(base, NULL);
}

const char *
cgroup_base(void)
{
	pthread_once(&base_once, base_init);
	return base[0] != '\0' ? base : NULL;
}

static void
mem_base_init(void)
{
	find_base(mem_base, "memory");
}

const char *
cgroup_mem_base(void)
{
	pthread_once(&mem_once, mem_base_init);
	return mem_base[0] != '\0' ? mem_base : NULL;
}

const char *
cgroup_mem_name(enum cgroup_mem how)
{
	switch (how) {
	case CGROUP_MEM_V2: return "cgroup v2 memory.max";
	case CGROUP_MEM_V1: return "cgroup v1 memory.limit_in_bytes";
	case CGROUP_MEM_RLIMIT: return "RLIMIT_AS";
	default: return "none";
	}
}

/* Write text to path (a control file); 0 or -1. */
static int
put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

void
cgroup_run_memory(struct cgroup_run *cg, const char *id, unsigned long long bytes, int cgroup_only)
{
	char path[CGROUP_PATH_CAP], num[32];
	const char *b1;

	cg->mem_limit = bytes;
	cg->mem_how = CGROUP_MEM_NONE;
	cg->mem_procs_fd = -1;
	cg->mem_dir[0] = '\0';
	cg->mem_oom = 0;
	cg->mem_peak = -1;
	if (bytes == 0)
		return;
	snprintf(num, sizeof num, "%llu", bytes);
	cat3(path, cg->dir, "/memory.max", NULL);
	if (cg->on && put_file(path, num) == 0) {
		cat3(path, cg->dir, "/memory.swap.max", NULL);
		(void)put_file(path, "0");   /* where swap is accounted: not a way around */
		cg->mem_how = CGROUP_MEM_V2;
		return;
	}
	if ((b1 = cgroup_mem_base()) != NULL) {
		cat3(cg->mem_dir, b1, "/" CG_PREFIX, id);
		if (mkdir(cg->mem_dir, 0755) == 0) {
			int ok;

			cat3(path, cg->mem_dir, "/memory.limit_in_bytes", NULL);
			ok = put_file(path, num) == 0;
			cat3(path, cg->mem_dir, "/memory.memsw.limit_in_bytes", NULL);
			(void)put_file(path, num);
			cat3(path, cg->mem_dir, "/cgroup.procs", NULL);
			if (ok && (cg->mem_procs_fd = open(path, O_WRONLY | O_CLOEXEC)) >= 0) {
				cg->mem_how = CGROUP_MEM_V1;
				return;
			}
			rmdir(cg->mem_dir);
		}
		cg->mem_dir[0] = '\0';
	}
	cg->mem_how = cgroup_only ? CGROUP_MEM_NONE : CGROUP_MEM_RLIMIT;
}

/* The number after "KEY " at a line's start in dir/file, or -1. */
static long long
read_key(const char *dir, const char *file, const char *key)
{
	char path[CGROUP_PATH_CAP], buf[2048];
	size_t kl = strlen(key);
	ssize_t n;
	int fd;

	cat3(path, dir, "/", file);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (char *l = buf; l != NULL && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (kl == 0 || (strncmp(l, key, kl) == 0 && l[kl] == ' '))
			return strtoll(l + (kl ? kl + 1 : 0), NULL, 10);
	return -1;
}

/* Before the run's folders go: its OOM kills and its peak. */
static void
mem_read(struct cgroup_run *cg)
{
	const char *dir = cg->mem_how == CGROUP_MEM_V2 ? cg->dir : cg->mem_dir;
	long long oom;

	if ((cg->mem_how != CGROUP_MEM_V2 || !cg->on) && (cg->mem_how != CGROUP_MEM_V1 || !cg->mem_dir[0]))
		return;
	oom = read_key(dir, cg->mem_how == CGROUP_MEM_V2 ? "memory.events" : "memory.oom_control", "oom_kill");
	cg->mem_oom = oom > 0 ? (int)oom : 0;
	cg->mem_peak = read_key(dir, cg->mem_how == CGROUP_MEM_V2 ? "memory.peak" : "memory.max_usage_in_bytes", "");
}

int
cgroup_run_new(struct cgroup_run *cg, const char *id)
{
	char procs[CGROUP_PATH_CAP];
	const char *b = cgroup_base();

	memset(cg, 0, sizeof *cg);
	cg->procs_fd = -1;
	if (b == NULL)
		return -1;
	cat3(cg->dir, b, "/" CG_PREFIX, id);
	if (mkdir(cg->dir, 0755) != 0) {
		cg->dir[0] = '\0';
		return -1;
	}
	cat3(procs, cg->dir, "/cgroup.procs", NULL);
	if ((cg->procs_fd = open(procs, O_WRONLY | O_CLOEXEC)) < 0) {
		rmdir(cg->dir);
		cg->dir[0] = '\0';
		return -1;
	}
	cg->on = 1;
	return 0;
}

void
cgroup_run_join(const struct cgroup_run *cg)
{
	if (cg == NULL)
		return;
	if (cg->on && cg->procs_fd >= 0)
		(void)!write(cg->procs_fd, "0", 1);
	if (cg->mem_how == CGROUP_MEM_V1 && cg->mem_procs_fd >= 0)
		(void)!write(cg->mem_procs_fd, "0", 1);
	if (cg->mem_how == CGROUP_MEM_RLIMIT) {
		struct rlimit rl = { (rlim_t)cg->mem_limit, (rlim_t)cg->mem_limit };
		(void)setrlimit(RLIMIT_AS, &rl);
	}
}

int
cgroup_run_count(struct cgroup_run *cg)
{
	int n;

	if (cg == NULL || !cg->on)
		return 0;
	n = procs_of(cg->dir, 0, NULL, 0, NULL);
	if (n > 0)
		cg->used = 1;
	return n;
}

void
cgroup_run_signal(struct cgroup_run *cg, int sig)
{
	if (cg != NULL && cg->on)
		procs_of(cg->dir, sig, NULL, 0, NULL);
}

int
cgroup_run_end(struct cgroup_run *cg)
{
	pid_t seen[CGROUP_SEEN_CAP];
	size_t nseen = 0;
	int n = 0;

	if (cg == NULL)
		return 0;
	mem_read(cg);
	if (cg->on) {
		if (cg->procs_fd >= 0)
			close(cg->procs_fd);
		cg->procs_fd = -1;
		n = kill_dir(cg->dir, seen, CGROUP_SEEN_CAP, &nseen);
		cg->on = 0;
	}
	if (cg->mem_dir[0] != '\0') {
		if (cg->mem_procs_fd >= 0)
			close(cg->mem_procs_fd);
		cg->mem_procs_fd = -1;
		n += kill_dir(cg->mem_dir, seen, CGROUP_SEEN_CAP, &nseen);
		cg->mem_dir[0] = '\0';
	}
	return n;
}
