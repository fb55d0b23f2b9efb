/*
 * child-tool.c - a child with known misbehaviours, for the runner's tests
 * (tests/unit/test-run.c).  No shell is involved: each mode is one way a
 * program can behave.
 *
 *   exit N               exit with status N
 *   echo ARG...          print each ARG on its own line
 *   flood BYTES LINELEN  write BYTES bytes of 'x', a newline ending every
 *                        LINELEN bytes (0: no newline at all)
 *   sleep SECS           print "ready", then sleep
 *   ignore-term SECS     ignore SIGTERM, print "ready", then sleep
 *   kill-self SIG        die by signal SIG
 *   orphan HOW           fork a grandchild that prints "grandchild PID" and
 *                        sleeps 30 s, then exit 0 (HOW: hold = keeps the
 *                        output open, detach = output to /dev/null,
 *                        stubborn = holds it and ignores SIGTERM,
 *                        family = the leader sleeps 30 s too)
 *   daemon HOW [WAIT]    leave a daemon that prints "grandchild PID" and
 *                        sleeps 30 s, out of the runner's group: HOW
 *                        setsid = a child that calls setsid(), double = a
 *                        double fork (the middle one exits) with setsid,
 *                        stubborn = setsid and SIGTERM ignored, closed =
 *                        setsid and its output closed; the leader prints
 *                        "leader PID", then exits 0, or sleeps WAIT s
 *   env NAME...          print NAME=VALUE or NAME=(unset)
 *   pwd                  print the working folder
 *   stdin                read standard input to its end, print its size
 *   stderr               "to-out" on stdout, "to-err" on stderr
 *   fds                  list the open file descriptors
 *   sigpipe              say whether SIGPIPE is ignored or blocked
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
ready(void)
{
	puts("ready");
	fflush(stdout);
}

static int
flood(long long bytes, long linelen)
{
	static char buf[65536];
	long col = 0;

	while (bytes > 0) {
		size_t n = 0;
		while (n < sizeof buf && bytes > 0) {
			if (linelen > 0 && ++col == linelen) {
				buf[n++] = '\n';
				col = 0;
			} else {
				buf[n++] = 'x';
			}
			bytes--;
		}
		if (fwrite(buf, 1, n, stdout) != n)
			return 1;
	}
	return fflush(stdout) != 0;
}

static int
orphan(const char *how)
{
	int hs[2];
	char c;
	pid_t pid;

	if (pipe(hs) != 0)
		return 1;
	fflush(stdout);
	if ((pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		close(hs[0]);
		printf("grandchild %ld\n", (long)getpid());
		fflush(stdout);
		if (strcmp(how, "stubborn") == 0)
			signal(SIGTERM, SIG_IGN);
		if (strcmp(how, "detach") == 0) {
			int fd = open("/dev/null", O_WRONLY);
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		close(hs[1]);   /* tells the leader it is ready */
		sleep(30);
		_exit(0);
	}
	close(hs[1]);
	while (read(hs[0], &c, 1) > 0)
		;
	if (strcmp(how, "family") == 0)
		sleep(30);
	return 0;
}

/* The daemon: out of the group and the session, maybe deaf to SIGTERM
 * or with its output closed; ready is closed once it has said its pid. */
static void
daemon_body(const char *how, int ready_fd)
{
	setsid();
	printf("grandchild %ld\n", (long)getpid());
	fflush(stdout);
	if (strcmp(how, "stubborn") == 0)
		signal(SIGTERM, SIG_IGN);
	if (strcmp(how, "closed") == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
	close(ready_fd);
	sleep(30);
	_exit(0);
}

static int
daemonize(const char *how, int wait_s)
{
	int hs[2];
	char c;
	pid_t pid;

	printf("leader %ld\n", (long)getpid());
	if (pipe(hs) != 0)
		return 1;
	fflush(stdout);
	if ((pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		close(hs[0]);
		if (strcmp(how, "double") != 0)
			daemon_body(how, hs[1]);
		if (fork() == 0)
			daemon_body(how, hs[1]);
		_exit(0);   /* the middle one: the daemon is an orphan now */
	}
	close(hs[1]);
	while (read(hs[0], &c, 1) > 0)
		;
	if (wait_s > 0) {
		puts("ready");
		fflush(stdout);
		sleep((unsigned)wait_s);
	}
	return 0;
}

static int
list_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (d == NULL)
		return 1;
	printf("fds");
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' && atoi(de->d_name) != dirfd(d))
			printf(" %s", de->d_name);
	printf("\n");
	closedir(d);
	return 0;
}

static int
sigpipe_state(void)
{
	struct sigaction sa;
	sigset_t set;

	sigaction(SIGPIPE, NULL, &sa);
	sigprocmask(SIG_BLOCK, NULL, &set);
	printf("SIGPIPE %s %s\n", sa.sa_handler == SIG_IGN ? "ignored" : "default",
	       sigismember(&set, SIGPIPE) ? "blocked" : "unblocked");
	return 0;
}

int
main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	const char *a = argc > 2 ? argv[2] : "0";

	if (strcmp(m, "exit") == 0)
		return atoi(a);
	if (strcmp(m, "echo") == 0) {
		for (int i = 2; i < argc; i++)
			puts(argv[i]);
		return 0;
	}
	if (strcmp(m, "flood") == 0)
		return flood(atoll(a), argc > 3 ? atol(argv[3]) : 100);
	if (strcmp(m, "sleep") == 0 || strcmp(m, "ignore-term") == 0) {
		if (m[0] == 'i')
			signal(SIGTERM, SIG_IGN);
		ready();
		sleep((unsigned)atoi(a));
		return 0;
	}
	if (strcmp(m, "kill-self") == 0) {
		fflush(stdout);
		signal(atoi(a), SIG_DFL);
		raise(atoi(a));
		return 99;
	}
	if (strcmp(m, "orphan") == 0)
		return orphan(a);
	if (strcmp(m, "daemon") == 0)
		return daemonize(a, argc > 3 ? atoi(argv[3]) : 0);
	if (strcmp(m, "env") == 0) {
		for (int i = 2; i < argc; i++) {
			const char *v = getenv(argv[i]);
			printf("%s=%s\n", argv[i], v ? v : "(unset)");
		}
		return 0;
	}
	if (strcmp(m, "pwd") == 0) {
		char buf[4096];
		if (getcwd(buf, sizeof buf) == NULL)
			return 1;
		puts(buf);
		return 0;
	}
	if (strcmp(m, "stdin") == 0) {
		char buf[4096];
		long total = 0;
		ssize_t n;
		while ((n = read(0, buf, sizeof buf)) > 0)
			total += n;
		printf("stdin %ld bytes\n", total);
		return 0;
	}
	if (strcmp(m, "stderr") == 0) {
		puts("to-out");
		fflush(stdout);
		fputs("to-err\n", stderr);
		return 0;
	}
	if (strcmp(m, "fds") == 0)
		return list_fds();
	if (strcmp(m, "sigpipe") == 0)
		return sigpipe_state();
	fprintf(stderr, "child-tool: unknown mode '%s'\n", m);
	return 2;
}
