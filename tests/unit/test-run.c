/*
 * test-run.c - the process runner: exit codes, start failures, timeout,
 * cancellation, a 100 MB flood in bounded memory, signals, SIGTERM ignored,
 * grandchildren that outlive their parent, the log and its redaction, the
 * environment, and no zombie after any of them.
 *
 * The misbehaving children are modes of tests/helpers/child-tool.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kernodeck/caps.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/run.h"

#ifndef KD_CHILD_TOOL
#error KD_CHILD_TOOL (the path of tests/helpers/child-tool) must be defined
#endif
#ifndef KD_RUN_CLI
#error KD_RUN_CLI (the path of tests/helpers/run-cli) must be defined
#endif

static char tmpdir[256];

#if defined(__SANITIZE_ADDRESS__)
/* AddressSanitizer keeps freed memory in quarantine (256 MB by default),
 * which the flood's RSS bound would measure instead of the runner. */
const char *__asan_default_options(void);
const char *
__asan_default_options(void)
{
	return "quarantine_size_mb=8";
}
#endif

/* Lines seen by on_line, and whether to cancel. */
struct seen {
	size_t lines, max_len;
	int saw_ready, cancel_on_ready, saw_secret;
	char last[256];
};

static void
on_line(void *u, const char *line, size_t len)
{
	struct seen *s = u;

	s->lines++;
	if (len > s->max_len)
		s->max_len = len;
	if (len == 5 && memcmp(line, "ready", 5) == 0)
		s->saw_ready = 1;
	if (memmem(line, len, "hunter2xyz", 10) != NULL)
		s->saw_secret = 1;
	snprintf(s->last, sizeof s->last, "%.*s", (int)(len < 200 ? len : 200), line);
	assert_int_equal(line[len], '\0');
}

static int
cancelled(void *u)
{
	struct seen *s = u;

	return s->cancel_on_ready && s->saw_ready;
}

/* No child of ours is left, zombie or not. */
static int
no_children(void)
{
	return waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD;
}

/* A process is gone: not even a zombie is left (the runner, a subreaper,
 * reaps the grandchildren it ends). */
static int
proc_gone(long pid)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/%ld", pid);
	return access(path, F_OK) != 0 && errno == ENOENT;
}

static long
grandchild_pid(const struct run_result *r)
{
	const char *p = strstr(r->tail, "grandchild ");

	return p ? atol(p + 11) : -1;
}

/* 1 when a file (up to 64 MiB) holds needle, 0 when not, -1 unreadable. */
static int
file_has_big(const char *path, const char *needle)
{
	char *buf;
	size_t len;
	int has;

	if (fsutil_read_file(path, 64u << 20, &buf, &len, NULL) != 0)
		return -1;
	has = memmem(buf, len, needle, strlen(needle)) != NULL;
	free(buf);
	return has;
}

/* Run child-tool with the given arguments (NULL-terminated). */
static int
tool(struct run_opts *o, struct run_result *r, struct kd_err *err, ...)
{
	const char *argv[16] = { KD_CHILD_TOOL };
	size_t n = 1;
	va_list ap;

	va_start(ap, err);
	while (n < 15 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	o->argv = argv;
	return run_program(o, r, err);
}

static void
test_exit_code(void **state)
{
	struct run_opts o = { 0 };
	struct run_result r;
	struct kd_err err;
	char buf[64];

	assert_int_equal(tool(&o, &r, &err, "exit", "7", NULL), KD_OK);
	assert_true(r.started);
	assert_true(r.exited);
	assert_int_equal(r.exit_code, 7);
	assert_false(r.signaled);
	assert_string_equal(run_describe(&r, buf, sizeof buf), "exit 7");
	run_result_free(&r);
	assert_int_equal(tool(&o, &r, &err, "exit", "0", NULL), KD_OK);
	assert_int_equal(r.exit_code, 0);
	run_result_free(&r);
	assert_true(no_children());
}

static void
test_not_found(void **state)
{
	const char *argv[] = { "kd-no-such-program-xyz", NULL };
	const char *argv2[] = { "/nonexistent/kd-prog", NULL };
	struct run_opts o = { .argv = argv };
	struct run_result r;
	struct kd_err err;

	assert_int_equal(run_program(&o, &r, &err), KD_EENV);
	assert_false(r.started);
	assert_non_null(strstr(err.msg, "kd-no-such-program-xyz"));
	assert_non_null(strstr(err.msg, "not found"));
	run_result_free(&r);
	o.argv = argv2;
	assert_int_equal(run_program(&o, &r, &err), KD_EENV);
	assert_non_null(strstr(err.msg, "not found"));
	run_result_free(&r);
	assert_true(no_children());
}

static void
write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

/* Files that exist but cannot be run, found before fork. */
static void
test_not_executable(void **state)
{
	char plain[512];
	const char *argv[2] = { NULL, NULL };
	struct run_opts o = { .argv = argv };
	struct run_result r;
	struct kd_err err;

	snprintf(plain, sizeof plain, "%s/plain", tmpdir);
	write_file(plain, "#!/bin/sh\necho hi\n", 0644);

	argv[0] = plain;
	assert_int_equal(run_program(&o, &r, &err), KD_EENV);
	assert_non_null(strstr(err.msg, "not executable"));
	run_result_free(&r);
	argv[0] = tmpdir;   /* a folder */
	assert_int_equal(run_program(&o, &r, &err), KD_EENV);
	assert_non_null(strstr(err.msg, "not executable"));
	run_result_free(&r);
	assert_true(no_children());
}

/* Valgrind cannot survive a failed execve in a child it runs in. */
static int
under_valgrind(void)
{
	const char *p = getenv("LD_PRELOAD");

	return p != NULL && strstr(p, "vgpreload") != NULL;
}

/* Files that pass the checks before fork but fail in execve: reported
 * through the error pipe. */
static void
test_exec_fails_in_child(void **state)
{
	char script[512], junk[512];
	const char *argv[2] = { NULL, NULL };
	struct run_opts o = { .argv = argv };
	struct run_result r;
	struct kd_err err;

	if (under_valgrind())
		skip();
	snprintf(script, sizeof script, "%s/script", tmpdir);
	snprintf(junk, sizeof junk, "%s/junk", tmpdir);
	write_file(script, "#!/nonexistent/interpreter\n", 0755);
	write_file(junk, "\x01\x02\x03 not a program\n", 0755);
	argv[0] = script;
	assert_int_equal(run_program(&o, &r, &err), KD_EENV);
	assert_false(r.started);
	assert_non_null(strstr(err.msg, "interpreter is missing"));
	run_result_free(&r);
	argv[0] = junk;   /* execvp would hand it to /bin/sh: never */
	assert_int_equal(run_program(&o, &r, &err), KD_EENV);
	assert_non_null(strstr(err.msg, "not a program"));
	run_result_free(&r);
	assert_true(no_children());
}

static void
test_timeout(void **state)
{
	const char *argv[] = { "sleep", "30", NULL };
	struct run_opts o = { .argv = argv, .timeout_s = 0.5 };
	struct run_result r;
	struct kd_err err;
	char buf[64];

	assert_int_equal(run_program(&o, &r, &err), KD_OK);
	assert_true(r.timed_out);
	assert_true(r.signaled);
	assert_int_equal(r.term_signal, SIGTERM);
	assert_true(r.elapsed_s >= 0.45 && r.elapsed_s < 3.0);
	assert_string_equal(run_describe(&r, buf, sizeof buf), "timed out after 0.5 s");
	run_result_free(&r);
	assert_true(no_children());
}

static void
test_cancel(void **state)
{
	struct seen s = { .cancel_on_ready = 1 };
	struct run_opts o = { .on_line = on_line, .cancelled = cancelled, .u = &s };
	struct run_result r;
	struct kd_err err;
	char buf[64];

	assert_int_equal(tool(&o, &r, &err, "sleep", "30", NULL), KD_OK);
	assert_true(s.saw_ready);
	assert_true(r.cancelled);
	assert_false(r.timed_out);
	assert_true(r.signaled);
	assert_true(r.elapsed_s < 3.0);
	assert_string_equal(run_describe(&r, buf, sizeof buf), "cancelled");
	run_result_free(&r);
	assert_true(no_children());
}

static long
max_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* 100 MB of output: all counted, all logged, the tail and the memory
 * bounded. */
static void
test_flood(void **state)
{
	char log[512];
	struct seen s = { 0 };
	struct run_opts o = { .log_path = log, .tail_cap = 65536, .on_line = on_line, .u = &s };
	struct run_result r;
	struct kd_err err;
	struct stat st;
	char want[256];
	long before = max_rss_kb();

	snprintf(log, sizeof log, "%s/logs/flood.log", tmpdir);
	assert_int_equal(tool(&o, &r, &err, "flood", "100000000", "1000", NULL), KD_OK);
	assert_true(r.exited);
	assert_int_equal(r.exit_code, 0);
	assert_int_equal(r.total_bytes, 100000000);
	assert_int_equal(r.lines, 100000);
	assert_int_equal(s.lines, 100000);
	assert_true(r.tail_len <= 65536);
	assert_int_equal(r.tail_len, 65536);
	assert_int_equal(strlen(r.tail), r.tail_len);
	assert_int_equal(r.tail[r.tail_len - 1], '\n');
	assert_int_equal(r.tail[r.tail_len - 2], 'x');
	/* the log is capped: its first and last KD_CAP_LOG / 2 bytes kept */
	assert_int_equal(stat(log, &st), 0);
	assert_true(st.st_size > KD_CAP_LOG && st.st_size < KD_CAP_LOG + 4096);
	snprintf(want, sizeof want, "# kernodeck: %u bytes of output cut here (the log keeps "
		 "the first %u and the last %u bytes)", 100000000u - KD_CAP_LOG,
		 KD_CAP_LOG / 2, KD_CAP_LOG / 2);
	assert_int_equal(file_has_big(log, want), 1);
	assert_int_equal(r.log_errnum, 0);
	assert_true(max_rss_kb() - before < 64 * 1024);
	unlink(log);
	run_result_free(&r);
	assert_true(no_children());
}

/* A smaller cap (KD_LOG_CAP): the log holds exactly the first and the last
 * half of the output, and the marker between says how much was cut. */
static void
test_log_cap(void **state)
{
	char log[512], *buf;
	struct run_opts o = { .log_path = log };
	struct run_result r;
	struct kd_err err;
	size_t len;
	const char *want = "# kernodeck: run " KD_CHILD_TOOL " echo 0123456789 abcdefghij "
		"ABCDEFGHIJ KLMNOPQRST\n0123456789"
		"\n# kernodeck: 24 bytes of output cut here (the log keeps the first 10 "
		"and the last 10 bytes)\nLMNOPQRST\n# kernodeck: exit 0 (";

	(void)state;
	snprintf(log, sizeof log, "%s/logs/cap.log", tmpdir);
	unlink(log);
	setenv("KD_LOG_CAP", "20", 1);
	assert_int_equal(tool(&o, &r, &err, "echo", "0123456789", "abcdefghij", "ABCDEFGHIJ",
			      "KLMNOPQRST", NULL), KD_OK);
	unsetenv("KD_LOG_CAP");
	assert_int_equal(r.total_bytes, 44);
	assert_int_equal(fsutil_read_file(log, 1 << 20, &buf, &len, NULL), 0);
	assert_true(len > strlen(want));
	assert_memory_equal(buf, want, strlen(want));
	free(buf);
	run_result_free(&r);
	unlink(log);
}

/* Lines longer than KD_CAP_LINE arrive in pieces; one of exactly the cap
 * stays whole. */
static void
test_long_lines(void **state)
{
	struct seen s = { 0 };
	struct run_opts o = { .on_line = on_line, .u = &s };
	struct run_result r;
	struct kd_err err;
	char n[32];

	assert_int_equal(tool(&o, &r, &err, "flood", "200000", "0", NULL), KD_OK);
	assert_int_equal(r.total_bytes, 200000);
	assert_int_equal(r.lines, (200000 + KD_CAP_LINE - 1) / KD_CAP_LINE);
	assert_int_equal(s.max_len, KD_CAP_LINE);
	run_result_free(&r);
	memset(&s, 0, sizeof s);
	snprintf(n, sizeof n, "%u", KD_CAP_LINE + 1);
	assert_int_equal(tool(&o, &r, &err, "flood", n, n, NULL), KD_OK);
	assert_int_equal(r.lines, 1);
	assert_int_equal(s.max_len, KD_CAP_LINE);
	run_result_free(&r);
	assert_true(no_children());
}

static void
test_tail_ring(void **state)
{
	struct run_opts o = { .tail_cap = 10 };
	struct run_result r;
	struct kd_err err;

	assert_int_equal(tool(&o, &r, &err, "echo", "abcdefghij", "klmnop", NULL), KD_OK);
	assert_int_equal(r.total_bytes, 18);
	assert_int_equal(r.lines, 2);
	assert_int_equal(r.tail_len, 10);
	assert_string_equal(r.tail, "ij\nklmnop\n");
	run_result_free(&r);
}

static void
test_signaled(void **state)
{
	struct run_opts o = { 0 };
	struct run_result r;
	struct kd_err err;
	char buf[64];

	assert_int_equal(tool(&o, &r, &err, "kill-self", "9", NULL), KD_OK);
	assert_true(r.signaled);
	assert_false(r.exited);
	assert_int_equal(r.term_signal, SIGKILL);
	assert_string_equal(run_describe(&r, buf, sizeof buf), "killed by SIGKILL");
	run_result_free(&r);
	assert_int_equal(tool(&o, &r, &err, "kill-self", "11", NULL), KD_OK);
	assert_int_equal(r.term_signal, SIGSEGV);
	run_result_free(&r);
	assert_true(no_children());
}

static void
test_ignores_sigterm(void **state)
{
	struct seen s = { 0 };
	struct run_opts o = { .timeout_s = 0.3, .grace_s = 0.3, .on_line = on_line, .u = &s };
	struct run_result r;
	struct kd_err err;

	assert_int_equal(tool(&o, &r, &err, "ignore-term", "30", NULL), KD_OK);
	assert_true(s.saw_ready);
	assert_true(r.timed_out);
	assert_true(r.signaled);
	assert_int_equal(r.term_signal, SIGKILL);
	assert_true(r.elapsed_s >= 0.55 && r.elapsed_s < 3.0);
	run_result_free(&r);
	assert_true(no_children());
}

/* A grandchild that outlives the leader ends with the leader's group,
 * however it holds on: at once by SIGTERM, or by SIGKILL after the 1 s
 * grace when it ignores SIGTERM. */
static void
orphan_case(const char *how, double timeout, int want_timeout)
{
	struct run_opts o = { .grace_s = 1.0, .timeout_s = timeout };
	int stubborn = strcmp(how, "stubborn") == 0;
	struct run_result r;
	struct kd_err err;
	long gpid;

	assert_int_equal(tool(&o, &r, &err, "orphan", how, NULL), KD_OK);
	gpid = grandchild_pid(&r);
	assert_true(gpid > 1);
	if (stubborn)
		assert_true(r.elapsed_s >= 1.0 && r.elapsed_s < 1.9);
	else
		assert_true(r.elapsed_s < timeout + 0.7);
	assert_int_equal(r.timed_out, want_timeout);
	if (!want_timeout) {
		assert_true(r.exited);
		assert_int_equal(r.exit_code, 0);
	} else {
		assert_true(r.signaled);
		assert_int_equal(r.term_signal, SIGTERM);
	}
	assert_true(proc_gone(gpid));
	run_result_free(&r);
	assert_true(no_children());
}

static void
test_orphan_holding_output(void **state)
{
	orphan_case("hold", 0, 0);
}

static void
test_orphan_detached(void **state)
{
	orphan_case("detach", 0, 0);
}

static void
test_orphan_ignoring_sigterm(void **state)
{
	orphan_case("stubborn", 0, 0);
}

static void
test_family_timeout(void **state)
{
	orphan_case("family", 0.5, 1);
}

/* A process is alive: there, and not a zombie. */
static int
proc_alive(long pid)
{
	char path[64], buf[512], *rp;
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	return rp != NULL && rp[1] == ' ' && rp[2] != 'Z';
}

static long
leader_pid(const char *text)
{
	const char *p = strstr(text, "leader ");

	return p ? atol(p + 7) : -1;
}

/* A daemon that left the runner's group (setsid, a double fork, SIGTERM
 * ignored, its output closed) is ended with the run, at a normal end, at
 * the timeout and at a cancel; a normal end says it left one behind. */
static void
daemon_case(const char *how, const char *wait, double timeout, int cancel)
{
	struct seen s = { .cancel_on_ready = cancel };
	struct run_opts o = { .grace_s = 0.3, .timeout_s = timeout, .on_line = on_line,
			      .cancelled = cancelled, .u = &s };
	struct run_result r;
	struct kd_err err;
	char buf[128];
	long gpid;

	assert_int_equal(tool(&o, &r, &err, "daemon", how, wait, NULL), KD_OK);
	gpid = grandchild_pid(&r);
	assert_true(gpid > 1);
	assert_false(proc_alive(gpid));
	assert_true(proc_gone(gpid));
	if (timeout > 0)
		assert_true(r.timed_out);
	else if (cancel)
		assert_true(r.cancelled);
	else {
		assert_true(r.exited);
		assert_int_equal(r.left_behind, 1);
		assert_non_null(strstr(run_describe(&r, buf, sizeof buf),
				       "exit 0; left 1 process behind, ended"));
	}
	assert_true(r.elapsed_s < 3.0);
	run_result_free(&r);
	assert_true(no_children());
}

static void
test_daemon_setsid(void **state)
{
	daemon_case("setsid", "0", 0, 0);
}

static void
test_daemon_double_fork(void **state)
{
	daemon_case("double", "0", 0, 0);
}

static void
test_daemon_stubborn(void **state)
{
	daemon_case("stubborn", "0", 0, 0);
}

static void
test_daemon_output_closed(void **state)
{
	daemon_case("closed", "0", 0, 0);
}

static void
test_daemon_timeout(void **state)
{
	daemon_case("double", "30", 0.5, 0);
	daemon_case("stubborn", "30", 0.5, 0);
}

static void
test_daemon_cancel(void **state)
{
	daemon_case("setsid", "30", 0, 1);
	daemon_case("closed", "30", 0, 1);
}

/* The process holding the runner is killed by SIGKILL while its program
 * runs: the program (PR_SET_PDEATHSIG) and its daemons (the guard, by
 * their mark) are gone within a second.  The runner is tests/helpers/
 * run-cli, a process of its own, so that the guard sees its end. */
static void
killed_runner_case(const char *how)
{
	char text[4096] = "";
	size_t len = 0;
	int p[2], status;
	long lpid = -1, gpid = -1;
	pid_t cli;

	assert_int_equal(pipe(p), 0);
	cli = fork();
	assert_true(cli >= 0);
	if (cli == 0) {
		dup2(p[1], 1);
		close(p[0]);
		execl(KD_RUN_CLI, KD_RUN_CLI, "60", KD_CHILD_TOOL, "daemon", how, "30",
		      (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (len < sizeof text - 1 && strstr(text, "ready") == NULL) {
		ssize_t n = read(p[0], text + len, sizeof text - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		text[len] = '\0';
	}
	close(p[0]);
	lpid = leader_pid(text);
	gpid = strstr(text, "grandchild ") ? atol(strstr(text, "grandchild ") + 11) : -1;
	assert_true(lpid > 1 && gpid > 1);
	assert_true(proc_alive(lpid) && proc_alive(gpid));
	kill(cli, SIGKILL);
	waitpid(cli, &status, 0);
	for (int i = 0; i < 100 && (proc_alive(lpid) || proc_alive(gpid)); i++)
		usleep(10000);
	assert_false(proc_alive(lpid));
	assert_false(proc_alive(gpid));
	/* we are a subreaper too: what came to us (the daemon, run-cli's
	 * guard once done) is reaped; the guard exits within the second */
	for (int i = 0; i < 100 && !no_children(); i++)
		usleep(10000);
	assert_true(no_children());
}

static void
test_killed_runner(void **state)
{
	killed_runner_case("setsid");
	killed_runner_case("double");
	killed_runner_case("stubborn");
	killed_runner_case("closed");
}

static int
file_has(const char *path, const char *needle)
{
	char *buf;
	size_t len;
	int has;

	if (fsutil_read_file(path, 1 << 20, &buf, &len, NULL) != 0)
		return -1;
	has = memmem(buf, len, needle, strlen(needle)) != NULL;
	free(buf);
	return has;
}

/* The log gets the output, redacted, appended run after run; the tail
 * and the callback see the redacted line too. */
static void
test_log_redacted(void **state)
{
	char log[512];
	struct seen s = { 0 };
	struct run_opts o = { .log_path = log, .on_line = on_line, .u = &s };
	struct run_result r;
	struct kd_err err;

	snprintf(log, sizeof log, "%s/logs/sub/clone.log", tmpdir);
	assert_int_equal(tool(&o, &r, &err, "echo", "first run",
			      "clone https://alice:hunter2xyz@example.org/r.git", NULL), KD_OK);
	assert_null(strstr(r.tail, "hunter2xyz"));
	assert_non_null(strstr(r.tail, "example.org/r.git"));
	assert_false(s.saw_secret);
	run_result_free(&r);
	assert_int_equal(tool(&o, &r, &err, "echo", "second run", NULL), KD_OK);
	run_result_free(&r);
	assert_int_equal(file_has(log, "hunter2xyz"), 0);
	assert_int_equal(file_has(log, "${CREDENTIALS}"), 1);
	assert_int_equal(file_has(log, "example.org/r.git"), 1);
	assert_int_equal(file_has(log, "first run\n"), 1);
	assert_int_equal(file_has(log, "second run\n"), 1);
	assert_int_equal(file_has(log, "# kernodeck: exit 0"), 1);
}

/* A log that cannot be a log: refused before anything runs, and a FIFO
 * (or a symlink) planted in its place neither hangs nor is followed. */
static void
test_log_unopenable(void **state)
{
	char fifo[512], link[512];
	struct run_opts o = { .log_path = "/dev/null/kd/run.log" };
	struct run_result r;
	struct kd_err err;

	assert_int_equal(tool(&o, &r, &err, "exit", "0", NULL), KD_EENV);
	assert_false(r.started);
	run_result_free(&r);
	snprintf(fifo, sizeof fifo, "%s/fifo.log", tmpdir);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	o.log_path = fifo;
	assert_int_equal(tool(&o, &r, &err, "exit", "0", NULL), KD_EENV);
	assert_non_null(strstr(err.msg, "cannot open the log"));
	run_result_free(&r);
	unlink(fifo);
	snprintf(link, sizeof link, "%s/link.log", tmpdir);
	assert_int_equal(symlink("/etc/passwd", link), 0);
	o.log_path = link;
	assert_int_equal(tool(&o, &r, &err, "exit", "0", NULL), KD_EENV);
	run_result_free(&r);
	unlink(link);
	assert_true(no_children());
}

static void
test_env(void **state)
{
	const char *set[] = { "KD_T_SET=hello", "KD_T_REPLACED=new", NULL };
	const char *unset[] = { "KD_T_UNSET", NULL };
	struct run_opts o = { .env_set = set, .env_unset = unset };
	struct run_result r;
	struct kd_err err;

	setenv("KD_T_UNSET", "present", 1);
	setenv("KD_T_REPLACED", "old", 1);
	assert_int_equal(tool(&o, &r, &err, "env", "KD_T_SET", "KD_T_UNSET",
			      "KD_T_REPLACED", "HOME", NULL), KD_OK);
	assert_non_null(strstr(r.tail, "KD_T_SET=hello\n"));
	assert_non_null(strstr(r.tail, "KD_T_UNSET=(unset)\n"));
	assert_non_null(strstr(r.tail, "KD_T_REPLACED=new\n"));
	assert_null(strstr(r.tail, "HOME=(unset)"));
	run_result_free(&r);
	/* only the child's environment changed */
	assert_string_equal(getenv("KD_T_UNSET"), "present");
	assert_string_equal(getenv("KD_T_REPLACED"), "old");
	assert_null(getenv("KD_T_SET"));
	unsetenv("KD_T_UNSET");
	unsetenv("KD_T_REPLACED");
}

/* The program is looked up on the PATH the child will have. */
static void
test_env_path(void **state)
{
	const char *argv[] = { "sleep", "0", NULL };
	const char *set[] = { "PATH=/nonexistent", NULL };
	struct run_opts o = { .argv = argv, .env_set = set };
	struct run_result r;
	struct kd_err err;

	assert_int_equal(run_program(&o, &r, &err), KD_EENV);
	assert_non_null(strstr(err.msg, "not found"));
	run_result_free(&r);
}

static void
test_cwd(void **state)
{
	const char *argv[] = { "./tool", "echo", "relative", NULL };
	struct run_opts o = { .cwd = tmpdir };
	struct run_result r;
	struct kd_err err;
	char want[1024], link[512];

	assert_non_null(realpath(tmpdir, want));
	strncat(want, "\n", sizeof want - strlen(want) - 1);
	assert_int_equal(tool(&o, &r, &err, "pwd", NULL), KD_OK);
	assert_string_equal(r.tail, want);
	run_result_free(&r);
	/* a relative program path is taken from the child's folder */
	snprintf(link, sizeof link, "%s/tool", tmpdir);
	assert_int_equal(symlink(KD_CHILD_TOOL, link), 0);
	o.argv = argv;
	assert_int_equal(run_program(&o, &r, &err), KD_OK);
	assert_string_equal(r.tail, "relative\n");
	run_result_free(&r);
	unlink(link);
	o.cwd = "/nonexistent/kd-folder";
	assert_int_equal(tool(&o, &r, &err, "pwd", NULL), KD_EENV);
	assert_false(r.started);
	assert_non_null(strstr(err.msg, "folder"));
	run_result_free(&r);
	assert_true(no_children());
}

/* Standard input is /dev/null: a program reading it does not hang. */
static void
test_stdin_null(void **state)
{
	struct run_opts o = { .timeout_s = 5 };
	struct run_result r;
	struct kd_err err;

	assert_int_equal(tool(&o, &r, &err, "stdin", NULL), KD_OK);
	assert_false(r.timed_out);
	assert_string_equal(r.tail, "stdin 0 bytes\n");
	run_result_free(&r);
}

static void
test_stderr(void **state)
{
	struct run_opts o = { 0 };
	struct run_result r;
	struct kd_err err;
	int saved = dup(2), null = open("/dev/null", O_WRONLY);

	assert_int_equal(tool(&o, &r, &err, "stderr", NULL), KD_OK);
	assert_string_equal(r.tail, "to-out\nto-err\n");
	run_result_free(&r);
	o.keep_stderr_apart = 1;
	dup2(null, 2);
	assert_int_equal(tool(&o, &r, &err, "stderr", NULL), KD_OK);
	dup2(saved, 2);
	close(saved);
	close(null);
	assert_string_equal(r.tail, "to-out\n");
	run_result_free(&r);
}

/* The child gets 0, 1 and 2 only, whatever the parent holds open, and a
 * default SIGPIPE even when the parent ignores it. */
static void
test_child_setup(void **state)
{
	struct run_opts o = { 0 };
	struct run_result r;
	struct kd_err err;
	int leak = open("/dev/null", O_RDONLY);   /* no O_CLOEXEC on purpose */
	sigset_t set, old;

	assert_true(leak > 2);
	assert_int_equal(tool(&o, &r, &err, "fds", NULL), KD_OK);
	assert_string_equal(r.tail, "fds 0 1 2\n");
	run_result_free(&r);
	close(leak);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &set, &old);
	assert_int_equal(tool(&o, &r, &err, "sigpipe", NULL), KD_OK);
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGPIPE, SIG_DFL);
	assert_string_equal(r.tail, "SIGPIPE default unblocked\n");
	run_result_free(&r);
}

static void
test_capture(void **state)
{
	const char *echo[] = { KD_CHILD_TOOL, "echo", "a", "b", NULL };
	const char *ex[] = { KD_CHILD_TOOL, "exit", "3", NULL };
	const char *fl[] = { KD_CHILD_TOOL, "flood", "10000", "100", NULL };
	const char *sl[] = { KD_CHILD_TOOL, "sleep", "30", NULL };
	const char *nf[] = { "kd-no-such-program-xyz", NULL };
	struct kd_err err;
	char *out;
	int code;

	assert_int_equal(run_capture(echo, 5, 0, &out, &code, &err), KD_OK);
	assert_int_equal(code, 0);
	assert_string_equal(out, "a\nb\n");
	free(out);
	assert_int_equal(run_capture(ex, 5, 0, &out, &code, &err), KD_OK);
	assert_int_equal(code, 3);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(run_capture(fl, 5, 1000, &out, &code, &err), KD_OK);
	assert_int_equal(strlen(out), 1000);
	free(out);
	assert_int_equal(run_capture(sl, 0.3, 0, &out, &code, &err), KD_EENV);
	assert_null(out);
	assert_non_null(strstr(err.msg, "timed out"));
	assert_int_equal(run_capture(nf, 5, 0, &out, &code, &err), KD_EENV);
	assert_null(out);
	assert_true(no_children());
}

static void
test_which(void **state)
{
	char *p = run_which("sh");

	assert_non_null(p);
	assert_int_equal(p[0], '/');
	assert_int_equal(access(p, X_OK), 0);
	free(p);
	assert_null(run_which("kd-no-such-program-xyz"));
	assert_null(run_which("/etc/passwd"));
	assert_null(run_which(""));
	p = run_which("/bin/sh");
	assert_non_null(p);
	assert_string_equal(p, "/bin/sh");
	free(p);
}

static void
test_describe_not_started(void **state)
{
	struct run_result r = { 0 };
	char buf[64];

	assert_string_equal(run_describe(&r, buf, sizeof buf), "not started");
}

static int
setup(void **state)
{
	snprintf(tmpdir, sizeof tmpdir, "%s/kd-test-run.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(tmpdir) == NULL;
}

static int
teardown(void **state)
{
	return fsutil_rmtree(tmpdir, NULL);
}

/* KD_MEMORY_LIMIT's sizes: suffixes, none, and what does not read. */
static void
test_memory_limit(void **state)
{
	unsigned long long v = 0;
	char buf[32];

	(void)state;
	assert_int_equal(run_parse_size("300M", &v), 0);
	assert_true(v == 300ULL << 20);
	assert_int_equal(run_parse_size("2GiB", &v), 0);
	assert_true(v == 2ULL << 30);
	assert_int_equal(run_parse_size("4096", &v), 0);
	assert_true(v == 4096);
	assert_int_equal(run_parse_size("-1G", &v), -1);
	assert_int_equal(run_parse_size("12Q", &v), -1);
	assert_int_equal(run_parse_size("99999999999999999999T", &v), -1);
	setenv("KD_MEMORY_LIMIT", "none", 1);
	assert_true(run_memory_limit() == 0);
	setenv("KD_MEMORY_LIMIT", "1G", 1);
	assert_true(run_memory_limit() == 1ULL << 30);
	setenv("KD_MEMORY_LIMIT", "lots", 1);   /* the default, three quarters of the machine */
	assert_true(run_memory_limit() > 0 && run_memory_limit() != 1ULL << 30);
	unsetenv("KD_MEMORY_LIMIT");
	assert_string_equal(run_size_str(300ULL << 20, buf, sizeof buf), "300 MiB");
	assert_string_equal(run_size_str(3ULL << 29, buf, sizeof buf), "1.5 GiB");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_code),
		cmocka_unit_test(test_log_cap),
		cmocka_unit_test(test_daemon_setsid),
		cmocka_unit_test(test_daemon_double_fork),
		cmocka_unit_test(test_daemon_stubborn),
		cmocka_unit_test(test_daemon_output_closed),
		cmocka_unit_test(test_daemon_timeout),
		cmocka_unit_test(test_daemon_cancel),
		cmocka_unit_test(test_killed_runner),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_not_executable),
		cmocka_unit_test(test_exec_fails_in_child),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_flood),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_tail_ring),
		cmocka_unit_test(test_signaled),
		cmocka_unit_test(test_ignores_sigterm),
		cmocka_unit_test(test_orphan_holding_output),
		cmocka_unit_test(test_orphan_detached),
		cmocka_unit_test(test_orphan_ignoring_sigterm),
		cmocka_unit_test(test_family_timeout),
		cmocka_unit_test(test_log_redacted),
		cmocka_unit_test(test_log_unopenable),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_env_path),
		cmocka_unit_test(test_cwd),
		cmocka_unit_test(test_stdin_null),
		cmocka_unit_test(test_stderr),
		cmocka_unit_test(test_child_setup),
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_which),
		cmocka_unit_test(test_describe_not_started),
		cmocka_unit_test(test_memory_limit),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
