/*
 * cgroup.h - a cgroup (v2) per run, where kernodeck may make one.
 *
 * A process can leave its process group and session and clear its
 * environment (so that the KERNODECK_RUN mark of procs.h is lost), but it
 * cannot leave its cgroup.  Where the cgroup2 folder kernodeck runs in is
 * writable (the process's own folder in /proc/self/cgroup, below the
 * cgroup2 mount of /proc/self/mountinfo: a hybrid hierarchy's
 * /sys/fs/cgroup/unified, or a folder delegated to the user), each run gets
 * a folder of its own there, kernodeck-PID.N (N the run's mark), that its
 * child enters before it executes the program.  At the end, the timeout or
 * the cancel, everything left in it is ended (cgroup.kill, or SIGKILL to
 * every pid of cgroup.procs where the kernel lacks cgroup.kill) and the
 * folder removed; the guard of procs.h does the same for every folder of a
 * kernodeck killed by SIGKILL, and the first run sweeps the folders of
 * kernodeck processes that are gone.  Where no writable cgroup2 is found,
 * or KD_NO_CGROUP is set (a test aid), runs go on with the mark alone.
 */
#ifndef KD_CGROUP_H
#define KD_CGROUP_H

#include <stddef.h>
#include <sys/types.h>

#define CGROUP_PATH_CAP 512   /* a cgroup folder's path */
#define CGROUP_SEEN_CAP 256   /* pids of one run's cgroup noted for reaping */

struct cgroup_run {
	int on;                      /* the run has a folder, its child joins it */
	int procs_fd;                /* its cgroup.procs, open for the child's write */
	char dir[CGROUP_PATH_CAP];
	int used;                    /* a process was seen in it */
};

/* The folder below which runs get theirs, or NULL when there is none. */
const char *cgroup_base(void);
/* Make the run's folder (id: the "PID.N" of its mark).  0 with cg->on
 * set, or -1 (cg->on 0: the run goes on without). */
int cgroup_run_new(struct cgroup_run *cg, const char *id);
/* In the child, before it executes the program: enter the folder.
 * Async-signal-safe. */
void cgroup_run_join(const struct cgroup_run *cg);
/* How many processes are in the run's folder (0 when it has none). */
int cgroup_run_count(struct cgroup_run *cg);
/* Send sig to every process in the run's folder. */
void cgroup_run_signal(struct cgroup_run *cg, int sig);
/* End everything in the run's folder (cgroup.kill), wait for it (at most
 * a second, reaping what became our child), remove the folder.  Returns
 * how many processes were still in it. */
int cgroup_run_end(struct cgroup_run *cg);
/* For the guard, once kernodeck (owner) is gone: end and remove every
 * run folder of owner.  Async-signal-safe; base is cgroup_base()'s. */
void cgroup_end_owner(const char *base, pid_t owner);

#endif
