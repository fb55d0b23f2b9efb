/*
 * sysinfo-util.c - what the readers of the system chain share (see
 * include/kernodeck/sysinfo-util.h): files read under the root prefix,
 * short queries run with a timeout, several at once.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/run.h"
#include "kernodeck/step.h"
#include "kernodeck/sysinfo-util.h"
#include "kernodeck/quote.h"

const char *
sysinfo_root(void)
{
	const char *r = getenv("KD_SYSROOT");

	return (r != NULL && *r != '\0') ? r : "/";
}

/* See sysinfo_set_deadline: set before the queries start, read after. */
static double deadline_s;

static double
mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void
sysinfo_set_deadline(double mono)
{
	deadline_s = mono;
}

double
sysinfo_timeout(void)
{
	const char *e = getenv("KD_SYS_TIMEOUT");
	double t = e ? strtod(e, NULL) : 0, left;

	if (!(t > 0 && t <= 600))
		t = KD_SYS_QUERY_TIMEOUT;
	if (deadline_s > 0) {
		left = (deadline_s - mono_s()) * 0.8;
		if (t > left)
			t = left > 0.05 ? left : 0.05;
	}
	return t;
}

char *
sysinfo_path(const char *abs)
{
	const char *root = sysinfo_root();

	if (strcmp(root, "/") == 0)
		return strdup(abs);
	while (*abs == '/')
		abs++;
	return fsutil_join(root, abs);
}

char *
sysinfo_read(const char *abs, size_t *lenp)
{
	char *p = sysinfo_path(abs), *buf = NULL;
	FILE *fp;
	size_t len = 0, cap = 0;

	if (p == NULL)
		return NULL;
	/* /proc and /sys files report size 0: read them as streams, capped */
	fp = fopen(p, "re");
	free(p);
	if (fp == NULL)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			if (cap >= KD_CAP_SYS_FILE)
				break;
			cap = cap ? cap * 2 : 8192;
			char *nb = realloc(buf, cap + 1);
			if (nb == NULL)
				break;
			buf = nb;
		}
		size_t n = fread(buf + len, 1, cap - len, fp);
		len += n;
		if (n == 0)
			break;
	}
	int bad = ferror(fp);
	fclose(fp);
	if (buf == NULL || bad) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	if (lenp != NULL)
		*lenp = len;
	return buf;
}

char *
sysinfo_trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		memmove(s, s + 1, strlen(s));
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

char *
sysinfo_read_line(const char *abs)
{
	char *buf = sysinfo_read(abs, NULL), *nl;

	if (buf == NULL)
		return NULL;
	nl = strchr(buf, '\n');
	if (nl != NULL)
		*nl = '\0';
	sysinfo_trim(buf);
	if (*buf == '\0') {
		free(buf);
		return NULL;
	}
	return buf;
}

char *
sysinfo_fmt(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *s;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	s = malloc((size_t)n + 1);
	if (s == NULL)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

json_t *
sysinfo_status(json_t *obj, const char *status, const char *reason)
{
	json_object_set_new(obj, "status", json_string(status));
	if (reason != NULL)
		json_object_set_new(obj, "reason", json_string(reason));
	return obj;
}

/* The first non-blank line of a text, trimmed, as a new JSON string. */
static json_t *
first_line_json(const char *text)
{
	char buf[512];
	const char *p = text;

	while (p != NULL && *p != '\0') {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n >= sizeof buf)
			n = sizeof buf - 1;
		memcpy(buf, p, n);
		buf[n] = '\0';
		sysinfo_trim(buf);
		if (*buf != '\0')
			return json_string(buf);
		p = e ? e + 1 : NULL;
	}
	return json_string("(no output)");
}

static const char *const *query_env;

void
sysinfo_set_env(const char *const *env)
{
	query_env = env;
}

json_t *
sysinfo_run(const char *prog, const char *const *argv, double timeout_s,
	    char **out, int *exit_code)
{
	json_t *rec = json_object();
	char *path = prog ? strdup(prog) : run_which(argv[0]);
	const char *av[16];
	/* a grace of a quarter of a short timeout: within a deadline
	 * (sysinfo_timeout), the timeout and the grace fit the time left */
	struct kd_step s = { .argv = av, .timeout_s = timeout_s,
			     .grace_s = timeout_s < 2.0 ? timeout_s / 4 : 0.5,
			     .tail_cap = KD_CAP_SYS_QUERY, .env_base = query_env };
	const struct run_result *r = &s.r;
	struct kd_err err;
	size_t i;

	if (out != NULL)
		*out = NULL;
	if (exit_code != NULL)
		*exit_code = -1;
	if (path == NULL || access(path, X_OK) != 0) {
		free(path);
		return sysinfo_status(rec, "missing",
				      prog ? "not executable" : "not found on PATH");
	}
	json_object_set_new(rec, "path", json_string(path));
	for (i = 0; argv[i] != NULL && i + 1 < sizeof av / sizeof av[0]; i++)
		av[i] = argv[i];
	av[i] = NULL;
	av[0] = path;
	{
		/* the vector run, as replay's plan shows it (sys-query.h) */
		char *line = quote_argv(av);
		json_object_set_new(rec, "run", line ? json_string(line) : json_null());
		free(line);
	}
	kd_err_clear(&err);
	if (step_run(NULL, NULL, &s, &err) != 0) {
		sysinfo_status(rec, "failed", err.msg);
		goto out;
	}
	if (r->timed_out) {
		/* whole seconds, or tenths for a timeout a deadline cut short */
		char *why = sysinfo_fmt("timed out after %.*f s", timeout_s == (double)(long)timeout_s ?
					0 : 1, timeout_s);
		sysinfo_status(rec, "timeout", why);
		free(why);
		goto out;
	}
	if (exit_code != NULL)
		*exit_code = r->exited ? r->exit_code : -1;
	if (out != NULL && r->tail != NULL)
		*out = strdup(r->tail);
	if (r->exited && r->exit_code == 0) {
		sysinfo_status(rec, "ok", NULL);
	} else {
		json_object_set_new(rec, "status", json_string("failed"));
		json_object_set_new(rec, "reason", r->tail && *r->tail ?
				    first_line_json(r->tail) : json_string("no output"));
		if (r->exited)
			json_object_set_new(rec, "exit_code", json_integer(r->exit_code));
	}
out:
	step_free(&s);
	free(path);
	return rec;
}

static void *
job_main(void *arg)
{
	struct sysinfo_job *j = arg;

	j->rec = sysinfo_run(j->prog, j->argv, j->timeout_s, &j->out, &j->code);
	return NULL;
}

void
sysinfo_spawn(struct sysinfo_thread *t, void *(*fn)(void *), void *arg)
{
	t->started = pthread_create(&t->tid, NULL, fn, arg) == 0;
	if (!t->started)
		fn(arg);
}

void
sysinfo_join(struct sysinfo_thread *t)
{
	if (t->started)
		pthread_join(t->tid, NULL);
	t->started = 0;
}

void
sysinfo_run_jobs(struct sysinfo_job *jobs, size_t n)
{
	struct sysinfo_thread th[KD_SYS_JOBS];

	if (n > KD_SYS_JOBS)
		n = KD_SYS_JOBS;
	for (size_t i = 0; i < n; i++)
		sysinfo_spawn(&th[i], job_main, &jobs[i]);
	for (size_t i = 0; i < n; i++)
		sysinfo_join(&th[i]);
}

