/*
 * run.h - running programs: fork/exec of an argument vector, never a shell.
 *
 * Each child gets its own process group, standard input from /dev/null,
 * standard output and error merged into one pipe read line by line.  Every
 * line goes, redacted, to the log file (when given), to the on_line
 * callback (the live log pane, or stderr headless) and to a bounded tail in
 * memory (KD_CAP_RUN_TAIL; the oldest bytes are dropped first).  A timeout
 * or a cancellation sends SIGTERM to the whole group, then SIGKILL after a
 * grace period.  The child is always reaped: no zombie is left.  When the
 * child ends, what is left of its group ends too (SIGTERM, then SIGKILL);
 * the first run makes kernodeck a child subreaper (Linux) so that it reaps
 * those grandchildren itself rather than leave them to init.
 */
#ifndef KD_RUN_H
#define KD_RUN_H

#include <stddef.h>
#include <sys/types.h>

#include "kernodeck/err.h"

struct run_opts {
	const char *const *argv;     /* argv[0] is looked up on PATH when it has no '/' */
	const char *cwd;             /* NULL: inherit; a relative argv[0] is taken from here */
	const char *const *env_base; /* "NAME=VALUE" to add or replace, NULL-terminated, or NULL:
				      * the caller's context (a replay's work folder) */
	const char *const *env_set;  /* the same, for this program; wins over env_base */
	const char *const *env_unset;/* names to remove, or NULL */
	double timeout_s;            /* <= 0: none */
	double grace_s;              /* SIGTERM -> SIGKILL delay; 0 means 2 s */
	const char *log_path;        /* NULL: no log file */
	size_t tail_cap;             /* 0 means KD_CAP_RUN_TAIL */
	void (*on_line)(void *u, const char *line, size_t len);
	int (*cancelled)(void *u);   /* polled about 10 times a second */
	void *u;
	int keep_stderr_apart;       /* 1: stderr is not captured (inherited) */
	int (*kill_now)(void *u);    /* polled with cancelled: nonzero sends SIGKILL to the group at once */
	unsigned long long mem_limit;/* bytes, 0: none; by a cgroup where one is writable, else
				      * RLIMIT_AS (cgroup.h) */
	int mem_cgroup_only;         /* 1: by a cgroup only, never RLIMIT_AS (a default limit:
				      * the address space counts reservations, such as CUDA's) */
};

struct run_result {
	int started;       /* 0 when exec failed (see err) */
	int exited;        /* 1: exit_code valid */
	int exit_code;
	int signaled;      /* 1: term_signal valid */
	int term_signal;
	int timed_out;
	int cancelled;
	int killed_on_request;  /* kill_now answered: the group got SIGKILL */
	double elapsed_s;
	char *tail;        /* last bytes of output, NUL-terminated (malloc'd) */
	size_t tail_len;
	size_t total_bytes;/* all bytes the child wrote */
	size_t lines;
	double timeout_s;  /* the timeout it ran under (for run_describe) */
	int log_errnum;    /* errno of the first failed write to the log, or 0 */
	int left_behind;   /* processes still alive when a leader that was not
			    * stopped ended (daemons, setsid): ended, and said */
	size_t redacted;   /* credentials redacted from the output (redact.h) */
	unsigned long long mem_limit;  /* the memory limit it ran under, 0: none */
	const char *mem_how;           /* its means (cgroup_mem_name), static */
	int mem_hit;       /* the limit was reached: an OOM kill in its cgroup, or, under
			    * RLIMIT_AS, a failed run whose output names a failed allocation */
	long long mem_peak;/* its cgroup's peak bytes, or -1 */
};

/* Run to completion.  Returns 0 when the program ran (whatever its exit
 * code), KD_EENV when it could not be started (err says why: not found,
 * not executable, fork failed, the log file cannot be opened).  The log
 * (appended to, its folder created) opens with a "# kernodeck: run ..."
 * line and ends with a "# kernodeck: ..." line saying how the run ended.
 * The log keeps at most KD_CAP_LOG bytes of one run's output (KD_LOG_CAP,
 * a test aid, sets a smaller cap): the first half and the last half, with
 * a "# kernodeck: N bytes of output cut here" line between them.
 * Lines longer than KD_CAP_LINE reach on_line in pieces.  When the
 * program ends, any process still left in its group is ended too. */
int run_program(const struct run_opts *o, struct run_result *r, struct kd_err *err);
void run_result_free(struct run_result *r);
/* One line describing how it ended: "exit 0", "killed by SIGKILL",
 * "timed out after 30 s", "cancelled", with "; left 2 processes behind,
 * ended" after it when the program left daemons, and "; the memory limit
 * (2 GiB, cgroup v1 memory.limit_in_bytes) was reached" when it was. */
const char *run_describe(const struct run_result *r, char *buf, size_t len);
/* The memory limit of the programs kernodeck runs as steps: KD_MEMORY_LIMIT
 * (bytes, or with a K, M, G or T suffix; "none" lifts it), else three
 * quarters of the machine's memory.  A value that does not read gives the
 * default.  The default is set through a cgroup only (mem_cgroup_only):
 * RLIMIT_AS counts reserved address space, which CUDA reserves by the
 * terabyte. */
unsigned long long run_memory_limit(void);
/* The hint of a row whose program reached it. */
#define KD_HINT_MEMORY_LIMIT "the program reached kernodeck's memory limit: KD_MEMORY_LIMIT sets it (bytes, or with K, M, G; none lifts it)"
/* "512M", "2G", "300000" into bytes; 0, or -1 when it does not read. */
int run_parse_size(const char *s, unsigned long long *out);
/* "1.5 GiB", "200 MiB" */
const char *run_size_str(unsigned long long bytes, char *buf, size_t len);
/* Find a program on PATH; returns malloc'd path or NULL. */
char *run_which(const char *name);
/* Convenience: run argv with a timeout and return its whole output (capped
 * at cap: the first cap bytes are kept; 0 means KD_CAP_PIP_OUTPUT), redacted
 * and NUL-terminated, in *out; for short queries like `gcc --version`.
 * Returns 0 with *exit_code set when the program exited, KD_EENV (and
 * *out NULL) when it could not start, timed out or was killed. */
int run_capture(const char *const *argv, double timeout_s, size_t cap,
		char **out, int *exit_code, struct kd_err *err);

#endif
