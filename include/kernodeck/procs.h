/*
 * procs.h - finding and ending every process a run started, wherever it went.
 *
 * Each run's child gets KERNODECK_RUN=KDPID.N in its environment, which its
 * descendants inherit also when they leave the process group or the
 * session (setsid, a double fork).  procs_signal finds them by that mark
 * in /proc/PID/environ.  The guard is a small process, started once, that
 * outlives kernodeck: when kernodeck dies (even by SIGKILL) it ends every
 * process marked with kernodeck's pid, then exits.  Only async-signal-safe
 * calls are made between fork and exit, and no memory is allocated, so
 * that it can be forked from a process with threads.
 */
#ifndef KD_PROCS_H
#define KD_PROCS_H

#include <stddef.h>
#include <sys/types.h>

#define PROCS_MARK_NAME "KERNODECK_RUN"
#define PROCS_MARK_CAP 64   /* "KERNODECK_RUN=PID.N" */

/* The mark for a new run of this process: "KERNODECK_RUN=PID.N". */
void procs_mark_new(char *buf, size_t len);
/* Send sig to every process other than us whose environment holds the
 * mark exactly (whole = 1) or an entry starting with it (whole = 0);
 * returns how many were found alive (zombies do not count).  sig 0 only
 * counts.  Each pid found is added to seen (cap entries, *nseen used; seen
 * may be NULL), for the caller to reap.  Async-signal-safe. */
int procs_signal(const char *mark, int whole, int sig, pid_t *seen, size_t cap, size_t *nseen);
/* Start the guard once (later calls do nothing).  0, or -1 when it cannot
 * be started (the runs still end their processes themselves). */
int procs_guard_start(void);

#endif
