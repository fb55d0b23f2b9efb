/* testutil.c - helpers the unit tests share (see testutil.h). */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernodeck/fsutil.h"
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
