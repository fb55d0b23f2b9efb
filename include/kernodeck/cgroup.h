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
 *
 * A memory limit (cgroup_run_memory): memory.max in the run's cgroup2
 * folder where the memory controller is enabled there; else, where the
 * cgroup v1 memory hierarchy of this process is writable (hybrid machines
 * with only v1 controllers), a folder kernodeck-PID.N of its own there with
 * memory.limit_in_bytes (and memory.memsw.limit_in_bytes, so that swap
 * does not lift it); else RLIMIT_AS on the child (its address space, which
 * counts reservations too).  cgroup_run_end reads the OOM kills and the
 * peak of the run's memory folder before removing it.
 */
#ifndef KD_CGROUP_H
#define KD_CGROUP_H

#include <stddef.h>
#include <sys/types.h>

#define CGROUP_PATH_CAP 512   /* a cgroup folder's path */
#define CGROUP_SEEN_CAP 256   /* pids of one run's cgroup noted for reaping */

enum cgroup_mem {
	CGROUP_MEM_NONE,             /* no limit asked */
	CGROUP_MEM_V2,               /* memory.max of the run's cgroup2 folder */
	CGROUP_MEM_V1,               /* memory.limit_in_bytes of a v1 memory folder */
	CGROUP_MEM_RLIMIT,           /* RLIMIT_AS on the child */
};

struct cgroup_run {
	int on;                      /* the run has a folder, its child joins it */
	int procs_fd;                /* its cgroup.procs, open for the child's write */
	char dir[CGROUP_PATH_CAP];
	int used;                    /* a process was seen in it */
	/* the memory limit (cgroup_run_memory) */
	unsigned long long mem_limit;/* bytes; 0: none */
	enum cgroup_mem mem_how;
	int mem_procs_fd;            /* v1: the memory folder's cgroup.procs, or -1 */
	char mem_dir[CGROUP_PATH_CAP];/* v1: the memory folder, or "" */
	int mem_oom;                 /* after cgroup_run_end: OOM kills in the run's folder */
	long long mem_peak;          /* after cgroup_run_end: the folder's peak bytes, or -1 */
};

/* The folder below which runs get theirs, or NULL when there is none. */
const char *cgroup_base(void);
/* Make the run's folder (id: the "PID.N" of its mark).  0 with cg->on
 * set, or -1 (cg->on 0: the run goes on without). */
int cgroup_run_new(struct cgroup_run *cg, const char *id);
/* Give the run a memory limit of bytes (0: none), by the first means that
 * works here (see above; cgroup_only: never RLIMIT_AS); sets cg->mem_how.  After cgroup_run_new, before
 * the fork; id as there. */
void cgroup_run_memory(struct cgroup_run *cg, const char *id, unsigned long long bytes,
		       int cgroup_only);
/* The means' name, for a log or a row: "cgroup v2 memory.max", ... */
const char *cgroup_mem_name(enum cgroup_mem how);
/* The v1 memory folder below which runs get theirs, or NULL. */
const char *cgroup_mem_base(void);
/* In the child, before it executes the program: enter the folder (and
 * the memory folder), set RLIMIT_AS when that is the means.
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
