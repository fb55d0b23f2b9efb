/* testutil.c - helpers the unit tests share (see testutil.h). */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/tensor.h"
#include "testutil.h"

/* Run argv quietly in cwd (NULL: here); path: look argv[0] up in PATH. */
static int
run_in(const char *cwd, char *const argv[], int path)
{
	pid_t pid = fork();
	int st, fd;

	if (pid == 0) {
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (cwd != NULL && chdir(cwd) != 0)
			_exit(126);
		if (path)
			execvp(argv[0], argv);
		else
			execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int
tu_run_quiet(char *const argv[])
{
	return run_in(NULL, argv, 0);
}

int
tu_git(const char *cwd, ...)
{
	const char *argv[32];
	va_list ap;
	int n = 0;

	argv[n++] = "git";
	va_start(ap, cwd);
	while (n < 31 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	return run_in(cwd, (char *const *)argv, 1);
}

void
tu_git_env(const char *home)
{
	setenv("HOME", home, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "T", 1);
	setenv("GIT_AUTHOR_EMAIL", "t@example.org", 1);
	setenv("GIT_COMMITTER_NAME", "T", 1);
	setenv("GIT_COMMITTER_EMAIL", "t@example.org", 1);
}

void
tu_put(const char *dir, const char *rel, const char *text)
{
	char p[1024], *slash;
	FILE *f;

	assert_true((size_t)snprintf(p, sizeof p, "%s/%s", dir, rel) < sizeof p);
	slash = strrchr(p, '/');
	*slash = '\0';
	fsutil_mkdirs(p, NULL);
	*slash = '/';
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

double
tu_now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void
tu_expect_counting(const char *file, const struct kd_tensor *t)
{
	struct kd_err err = { 0 };
	double *v = NULL;

	if (tensor_load(file, t, &v, &err) != 0)
		fail_msg("%s: %s", file, err.msg);
	for (uint64_t i = 0; i < t->count; i++) {
		double want = t->dtype == KD_DT_BOOL ? (double)(i % 2) : (double)i;
		if (v[i] != want)
			fail_msg("%s %s: element %llu is %g, wanted %g", file,
				 t->name ? t->name : "", (unsigned long long)i, v[i], want);
	}
	free(v);
}

int
tu_httpd_start(struct tu_httpd *s, const char *cert, const char *key)
{
	char script[512], line[128];
	int in[2], out[2];
	size_t len = 0;

	s->pid = -1;
	s->stdin_fd = -1;
	s->http_port = s->https_port = -1;
	snprintf(script, sizeof script, "%s/tests/helpers/httpd.py", KD_SRCDIR);
	if (access("/usr/bin/python3", X_OK) != 0 || access(script, R_OK) != 0)
		return -1;
	if (pipe(in) < 0)
		return -1;
	if (pipe(out) < 0) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	s->pid = fork();
	if (s->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		if (cert != NULL && key != NULL)
			execl("/usr/bin/python3", "/usr/bin/python3", script, "--tls", cert, key, (char *)NULL);
		else
			execl("/usr/bin/python3", "/usr/bin/python3", script, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	s->stdin_fd = in[1];
	/* "http=P https=P", or EOF when the server failed to start */
	while (s->pid > 0 && len < sizeof line - 1 && read(out[0], line + len, 1) == 1 &&
	       line[len] != '\n')
		len++;
	line[len] = '\0';
	close(out[0]);
	if (sscanf(line, "http=%d https=%d", &s->http_port, &s->https_port) < 1 ||
	    (cert != NULL && s->https_port < 0))
		return -1;
	return 0;
}

void
tu_httpd_stop(struct tu_httpd *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
	}
	if (s->stdin_fd >= 0)
		close(s->stdin_fd);
	s->pid = -1;
	s->stdin_fd = -1;
}

void
tu_expect_str(const json_t *o, const char *key, const char *want, const char *file)
{
	const json_t *v = json_object_get(o, key);

	if (want == NULL) {
		if (!json_is_null(v))
			fail_msg("%s: %s should be null, is %s", file, key,
				 json_string_value(v) ? json_string_value(v) : "?");
		return;
	}
	if (!json_is_string(v) || strcmp(json_string_value(v), want) != 0)
		fail_msg("%s: %s should be \"%s\", is \"%s\"", file, key, want,
			 json_string_value(v) ? json_string_value(v) : "(not a string)");
}
