/*
 * sysinfo.h - the system chain of this machine, read by the C program
 * itself (sysfs, /proc, /dev, /etc, and a few programs), apart from Python
 * packages.  Everything read from /proc, /sys, /dev and /etc goes through
 * one root prefix ($KD_SYSROOT, default "/") so tests can use fixture trees.
 *
 * The observation tree (system.yaml) has these members, each present even
 * when nothing was found (then with a `status` and a `reason`):
 *
 *   os {name, id, version_id, pretty}   kernel {release}   arch
 *   libc {name, version}   cpu {model, count}   container {kind, evidence}
 *   gpus [ {vendor, vendor_id, device_id, pci, class, name, name_source,
 *           kernel_driver, ...nvidia-smi fields} ]   gpu_vendor  gpu_count
 *   nvidia {...}   amd {...}   driver {vendor, version, source}
 *   cuda {driver_max, toolkit}   rocm {version, source}   backend
 *   devices [ {path, kind, exists, access, group, in_group, hint} ]
 *   tools {gcc, g++, nvcc, hipcc, cmake, ninja: {path, version, status}}
 *   python {chosen {...}, available [...]}   env {NAME: redacted value}
 *   plan {...}   (the planned PyTorch variant, src/facts/variant.c)
 *
 * Read it back through obs-system.h's getters, never by key paths.
 *
 * Programs are looked up on PATH and run only when they are there, each with
 * a short timeout; a missing program or a timeout is recorded with its
 * reason, never fatal.
 */
#ifndef KD_SYSINFO_H
#define KD_SYSINFO_H

#include <pthread.h>
#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"
#include "kernodeck/stage.h"

/* Timeout of one short query (gcc --version, nvidia-smi ...), seconds;
 * $KD_SYS_TIMEOUT (seconds, > 0) overrides it: sysinfo_timeout(). */
#define KD_SYS_QUERY_TIMEOUT 5.0
double sysinfo_timeout(void);
/* Output kept from one query. */
#define KD_CAP_SYS_QUERY (256u * 1024)
/* A small file read from /proc, /sys or /etc. */
#define KD_CAP_SYS_FILE (1024u * 1024)

/* Observe this machine: the tree saved as system.yaml. */
int sysinfo_observe(json_t **obs, const struct kd_sink *sink, struct kd_err *err);
/* The reference's `system` row (see doc/reference-format.md) from an
 * observation tree (sysinfo_observe) or from a parsed collect_env report. */
json_t *sysinfo_reference_row(const json_t *obs);
/* Choose the interpreter for the rebuild (sys-python.h): override
 * when given, else the reference's (same path, or first on PATH with the
 * same major.minor), else /usr/bin/python3, else python3 on PATH.
 * *path and *reason are malloc'd. */
int sysinfo_choose_python(const json_t *ref, const char *override, char **path,
			  char **reason, struct kd_err *err);

/* The allowed environment variables (device visibility, package sources),
 * their values redacted (redact.h); secret-named variables never. */
json_t *sysinfo_env(void);

/* --- helpers shared by the sys-*.c modules --- */

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
