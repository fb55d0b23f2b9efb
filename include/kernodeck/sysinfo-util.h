/*
 * sysinfo-util.h - helpers shared by the readers of the system chain
 * (sysinfo.c, sys-gpu.c, sys-tools.c, sys-python.c): every file under
 * /proc, /sys, /dev, /etc (and /opt/rocm) is read through the root prefix
 * $KD_SYSROOT, so tests point it at fixture trees; short queries run with
 * a timeout, several at once.
 */
#ifndef KD_SYSINFO_UTIL_H
#define KD_SYSINFO_UTIL_H

#include <pthread.h>
#include <stddef.h>
#include <jansson.h>

/* Timeout of one short query (gcc --version, nvidia-smi ...), seconds;
 * $KD_SYS_TIMEOUT (seconds, > 0) overrides it: sysinfo_timeout().  While
 * a deadline is set (sysinfo_set_deadline: a CLOCK_MONOTONIC time, 0 for
 * none), each query also gets at most four fifths of the time left before
 * it and its grace (SIGTERM -> SIGKILL) the rest: a query, or one after
 * another (nvidia-smi asked again, rocminfo after rocm_agent_enumerator),
 * ends by the deadline (`kernodeck health`'s budget). */
#define KD_SYS_QUERY_TIMEOUT 5.0
double sysinfo_timeout(void);
void sysinfo_set_deadline(double mono_s);
/* Output kept from one query. */
#define KD_CAP_SYS_QUERY (256u * 1024)
/* A small file read from /proc, /sys or /etc. */
#define KD_CAP_SYS_FILE (1024u * 1024)

/* The root prefix: $KD_SYSROOT or "/". */
const char *sysinfo_root(void);
/* malloc'd path of an absolute system path under the root prefix. */
char *sysinfo_path(const char *abs);
/* Read a small file (absolute system path, under the root prefix) into a
 * malloc'd NUL-terminated buffer; NULL when it is missing or unreadable. */
char *sysinfo_read(const char *abs, size_t *lenp);
/* The first line of a small file, trimmed (malloc'd), or NULL. */
char *sysinfo_read_line(const char *abs);
/* printf into a malloc'd string. */
char *sysinfo_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Trim leading and trailing blanks in place; returns s. */
char *sysinfo_trim(char *s);
/* The environment every query of sysinfo_run runs with: "NAME=VALUE"
 * added to kernodeck's own (a replay's contained environment, ctx's
 * child_env, which its plan shows), or NULL for kernodeck's own as it is.
 * Stage 2 sets it before it observes; env must outlive the queries. */
void sysinfo_set_env(const char *const *env);
/* A program's record {path, status, version?, reason?}: runs argv[0]
 * found on PATH (or at prog when not NULL) with a timeout and keeps its
 * output in *out (malloc'd, may be NULL).  status is "ok", "missing",
 * "failed" (non-zero exit, reason holds the first line), or "timeout". */
json_t *sysinfo_run(const char *prog, const char *const *argv, double timeout_s,
		    char **out, int *exit_code);
/* Several queries at once (one thread each, at most KD_SYS_JOBS): the
 * machine is observed in the time of its slowest program, not their sum. */
#define KD_SYS_JOBS 16
struct sysinfo_job {
	const char *prog;            /* in: a path, or NULL to look up argv[0] */
	const char *argv[8];         /* in: NULL-terminated */
	double timeout_s;            /* in */
	json_t *rec;                 /* out: as sysinfo_run returns */
	char *out;                   /* out: malloc'd output, or NULL */
	int code;                    /* out: exit code, -1 when it did not exit */
};
void sysinfo_run_jobs(struct sysinfo_job *jobs, size_t n);
/* Run fn(arg) on another thread; sysinfo_join waits for it (when the
 * thread could not be made, fn ran at once and the join does nothing). */
struct sysinfo_thread {
	pthread_t tid;
	int started;
};
void sysinfo_spawn(struct sysinfo_thread *t, void *(*fn)(void *), void *arg);
void sysinfo_join(struct sysinfo_thread *t);
/* Add {"status": status, "reason": reason} to obj; returns obj. */
json_t *sysinfo_status(json_t *obj, const char *status, const char *reason);

#endif
