/*
 * run.c - run a program from an argument vector, never through a shell.
 *
 * The parent does every allocation before fork(): it finds the program on
 * PATH and builds the child's environment, so that between fork and exec
 * the child calls only async-signal-safe functions (kernodeck may have
 * threads hashing).  An exec failure travels back through a close-on-exec
 * pipe: end of file on it means the exec succeeded.  One poll() loop reads
 * the output and watches the timeout, the cancellation and the child's
 * end.  Each line is redacted once, then goes to the log, the callback and
 * the tail ring.  When the leader exits, what is left of its process group
 * is ended as well (SIGTERM, SIGKILL after the grace).  kernodeck makes
 * itself a child subreaper, so the grandchildren it ends are its own to
 * reap: a run leaves neither an orphan nor a zombie, even under an init
 * that does not reap.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernodeck/beneath.h"
#include "kernodeck/caps.h"
#include "kernodeck/cgroup.h"
#include "kernodeck/fdio.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/procs.h"
#include "kernodeck/quote.h"
#include "kernodeck/redact.h"
#include "kernodeck/run.h"

#define RUN_READ_SIZE (64u * 1024)
#define RUN_LOG_BUF   (64u * 1024)
#define RUN_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

extern char **environ;

/* What the child reports when it cannot exec. */
struct child_fail {
	int step;     /* 0 chdir, 1 exec */
	int errnum;
};

struct capbuf {
	char *buf;
	size_t len, alloc, cap;
};

#define RUN_SEEN_CAP 256   /* descendants remembered, to be reaped */

struct runner {
	const char *mark;    /* KERNODECK_RUN=PID.N: every descendant carries it */
	pid_t seen[RUN_SEEN_CAP];
	size_t nseen;
	const struct run_opts *o;
	struct run_result *r;
	struct capbuf *cap;
	int logfd;
	char *line;          /* the line being assembled, KD_CAP_LINE bytes */
	size_t line_len;
	char *held;          /* the last line, held until the next one is seen */
	size_t held_len;
	int held_nl, has_held;
	char *logbuf;        /* redacted output not yet written to the log */
	size_t log_len;
	size_t log_head;     /* output bytes the log keeps from the start */
	size_t log_kept;     /* output bytes written to the log so far (<= log_head) */
	size_t log_cut;      /* output bytes past the head: the last ones go to ltail */
	char *ltail;         /* the log's tail: ltail_len bytes from ltail_head */
	size_t ltail_cap, ltail_head, ltail_len;
	char *ring;          /* the tail: ring_len bytes from ring_head */
	size_t ring_cap, ring_head, ring_len;
	struct redact_stream rs;   /* a private key block across lines */
	struct cgroup_run cg;      /* the run's cgroup, where one can be made */
	int cg_left;               /* processes cgroup_run_end still found */
	int alloc_failed;          /* a line named a failed allocation (RLIMIT_AS) */
};

/* What a program prints when an allocation failed (Python, NumPy, torch,
 * C++, glibc's strerror): under RLIMIT_AS the only sign of the limit. */
static const char *const alloc_failures[] = {
	"MemoryError", "Unable to allocate", "Cannot allocate memory", "can't allocate memory",
	"std::bad_alloc", "out of memory",
};

static void
note_alloc_failure(struct runner *rn, const char *s, size_t n)
{
	if (rn->cg.mem_how != CGROUP_MEM_RLIMIT || rn->alloc_failed)
		return;
	for (size_t i = 0; i < sizeof alloc_failures / sizeof alloc_failures[0]; i++)
		if (memmem(s, n, alloc_failures[i], strlen(alloc_failures[i])) != NULL)
			rn->alloc_failed = 1;
}

static double
mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}


/* An executable regular file? */
static int
is_exec(const char *path, int *exists)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return 0;
	*exists = 1;
	return S_ISREG(st.st_mode) && faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) == 0;
}

/* The path to try for name in dir (dl bytes, 0 for none); a relative
 * one is taken from the folder the child will run in (cwd, or ours). */
static char *
candidate(const char *cwd, const char *dir, size_t dl, const char *name)
{
	int rel = (dl ? dir[0] : name[0]) != '/' && cwd != NULL;
	size_t need = (rel ? strlen(cwd) : 0) + dl + strlen(name) + 3;
	char *p = malloc(need);

	if (p != NULL)
		snprintf(p, need, "%s%s%.*s%s%s", rel ? cwd : "", rel ? "/" : "",
			 (int)dl, dir, dl ? "/" : "", name);
	return p;
}

/* Find name the way execvp would (a name with '/' is taken as it is,
 * otherwise each PATH entry in turn, an empty one meaning the current
 * folder); *why says why not on failure. */
static char *
find_program(const char *name, const char *pathvar, const char *cwd, const char **why)
{
	int exists = 0;
	char *full;

	*why = "not found";
	if (name == NULL || *name == '\0')
		return NULL;
	if (strchr(name, '/') != NULL) {
		if ((full = candidate(cwd, "", 0, name)) == NULL || is_exec(full, &exists))
			return full;
		free(full);
		if (exists)
			*why = "not executable (not a regular file with execute permission)";
		return NULL;
	}
	if (pathvar == NULL)
		pathvar = RUN_DEFAULT_PATH;
	for (const char *p = pathvar;; p++) {
		const char *e = strchr(p, ':');
		size_t dl = e ? (size_t)(e - p) : strlen(p);

		if ((full = candidate(cwd, p, dl, name)) == NULL || is_exec(full, &exists))
			return full;
		free(full);
		if (exists)
			*why = "found on PATH but not executable";
		if (e == NULL)
			break;
		p = e;
	}
	return NULL;
}

char *
run_which(const char *name)
{
	const char *why;

	return find_program(name, getenv("PATH"), NULL, &why);
}

static int
env_named(const char *entry, const char *name)
{
	size_t n = strlen(name);
	const char *eq = strchr(name, '=');

	if (eq != NULL)
		n = (size_t)(eq - name);
	return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

static int
env_listed(const char *entry, const char *const *list)
{
	for (size_t i = 0; list != NULL && list[i] != NULL; i++)
		if (env_named(entry, list[i]))
			return 1;
	return 0;
}

/* The child's environment: ours, less env_unset and what env_base and
 * env_set replace, plus env_base (less what env_set replaces), plus
 * env_set.  The strings are shared, only the array is allocated. */
static char **
build_env(const struct run_opts *o, const char *mark, const char **pathvar)
{
	const char *const marks[] = { mark, NULL };
	size_t n = 0, k = 0, s = 0, b = 0;
	char **env;

	while (environ != NULL && environ[n] != NULL)
		n++;
	while (o->env_base != NULL && o->env_base[b] != NULL)
		b++;
	while (o->env_set != NULL && o->env_set[s] != NULL)
		s++;
	env = calloc(n + b + s + 2, sizeof *env);
	if (env == NULL)
		return NULL;
	*pathvar = NULL;
	for (size_t i = 0; i < n; i++)
		if (!env_listed(environ[i], o->env_unset) && !env_listed(environ[i], o->env_base) &&
		    !env_listed(environ[i], o->env_set) && !env_listed(environ[i], marks))
			env[k++] = environ[i];
	for (size_t i = 0; i < b; i++)
		if (strchr(o->env_base[i], '=') != NULL && !env_listed(o->env_base[i], o->env_set) &&
		    !env_listed(o->env_base[i], marks))
			env[k++] = (char *)o->env_base[i];
	env[k++] = (char *)mark;
	for (size_t i = 0; i < s; i++)
		if (strchr(o->env_set[i], '=') != NULL)
			env[k++] = (char *)o->env_set[i];
	for (size_t i = 0; i < k; i++)
		if (strncmp(env[i], "PATH=", 5) == 0)
			*pathvar = env[i] + 5;
	return env;
}

/* Move an fd above 2 so that the child's dup2 onto 0..2 never clashes. */
static int
fd_high(int fd)
{
	int nfd;

	if (fd < 0 || fd > 2)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return nfd;
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void
child_exec(const char *path, char *const argv[], char *const envp[],
	   const struct run_opts *o, int nullfd, int outfd, int errfd, int maxfd,
	   pid_t parent, const struct cgroup_run *cg)
{
	static const int reset[] = { SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGCHLD,
				     SIGTTIN, SIGTTOU, SIGTSTP };
	struct sigaction sa;
	struct child_fail f = { 1, 0 };
	sigset_t none;

	/* a kernodeck killed by SIGKILL takes its child along; one that died
	 * before the prctl is seen by getppid() afterwards */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(127);
	cgroup_run_join(cg);   /* before exec: nothing it starts is outside */
	setpgid(0, 0);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++)
		sigaction(reset[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	dup2(nullfd, 0);
	dup2(outfd, 1);
	if (!o->keep_stderr_apart)
		dup2(outfd, 2);
#ifdef CLOSE_RANGE_CLOEXEC
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
#endif
		for (int fd = 3; fd < maxfd; fd++)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (o->cwd != NULL && chdir(o->cwd) != 0) {
		f.step = 0;
	} else {
		execve(path, argv, envp);
	}
	f.errnum = errno;
	(void)!write(errfd, &f, sizeof f);
	_exit(127);
}

static void
log_flush(struct runner *rn)
{
	if (rn->logfd >= 0 && rn->log_len > 0 &&
	    fdio_write_all(rn->logfd, rn->logbuf, rn->log_len) != 0 && rn->r->log_errnum == 0)
		rn->r->log_errnum = errno;
	rn->log_len = 0;
}

static void
log_put(struct runner *rn, const char *p, size_t n)
{
	if (rn->logfd < 0)
		return;
	if (rn->log_len + n > RUN_LOG_BUF)
		log_flush(rn);
	if (n >= RUN_LOG_BUF) {
		if (fdio_write_all(rn->logfd, p, n) != 0 && rn->r->log_errnum == 0)
			rn->r->log_errnum = errno;
		return;
	}
	memcpy(rn->logbuf + rn->log_len, p, n);
	rn->log_len += n;
}

/* Append to a ring of cap bytes, dropping the oldest bytes. */
static void
ring_add(char *ring, size_t cap, size_t *head, size_t *len, const char *p, size_t n)
{
	size_t w, first;

	if (n >= cap) {
		memcpy(ring, p + n - cap, cap);
		*head = 0;
		*len = cap;
		return;
	}
	w = (*head + *len) % cap;
	first = n < cap - w ? n : cap - w;
	memcpy(ring + w, p, first);
	memcpy(ring, p + first, n - first);
	*len += n;
	if (*len > cap) {
		*head = (*head + *len - cap) % cap;
		*len = cap;
	}
}

static void
ring_put(struct runner *rn, const char *p, size_t n)
{
	ring_add(rn->ring, rn->ring_cap, &rn->ring_head, &rn->ring_len, p, n);
}

/* The cap of one run's output in its log: KD_LOG_CAP (a test aid) or
 * KD_CAP_LOG. */
static size_t
log_cap(void)
{
	const char *e = getenv("KD_LOG_CAP");
	char *end;
	unsigned long long v;

	if (e != NULL && *e != '\0') {
		v = strtoull(e, &end, 10);
		if (*end == '\0' && v >= 2 && v <= KD_CAP_LOG)
			return (size_t)v;
	}
	return KD_CAP_LOG;
}

/* Output into the log: the first log_head bytes as they come, then only
 * the last ones are kept (in ltail), written at the end after a marker. */
static void
log_out(struct runner *rn, const char *p, size_t n)
{
	if (rn->logfd < 0)
		return;
	if (rn->log_kept < rn->log_head) {
		size_t take = n < rn->log_head - rn->log_kept ? n : rn->log_head - rn->log_kept;
		log_put(rn, p, take);
		rn->log_kept += take;
		p += take;
		n -= take;
	}
	if (n == 0)
		return;
	if (rn->ltail == NULL && (rn->ltail = malloc(rn->ltail_cap)) == NULL)
		rn->ltail_cap = 0;
	rn->log_cut += n;
	if (rn->ltail_cap > 0)
		ring_add(rn->ltail, rn->ltail_cap, &rn->ltail_head, &rn->ltail_len, p, n);
}

/* At the end: the marker saying how much was cut, then the tail. */
static void
log_out_end(struct runner *rn)
{
	char mark[256];
	size_t cut = rn->log_cut - rn->ltail_len;

	if (rn->logfd < 0 || rn->log_cut == 0)
		return;
	if (cut > 0) {
		snprintf(mark, sizeof mark, "\n# kernodeck: %zu bytes of output cut here "
			 "(the log keeps the first %zu and the last %zu bytes)\n",
			 cut, rn->log_kept, rn->ltail_len);
		log_put(rn, mark, strlen(mark));
	}
	for (size_t done = 0; done < rn->ltail_len;) {
		size_t at = (rn->ltail_head + done) % rn->ltail_cap;
		size_t n = rn->ltail_len - done < rn->ltail_cap - at ?
			rn->ltail_len - done : rn->ltail_cap - at;
		log_put(rn, rn->ltail + at, n);
		done += n;
	}
}

static void
cap_put(struct capbuf *c, const char *p, size_t n)
{
	if (c == NULL || c->len >= c->cap)
		return;
	if (n > c->cap - c->len)
		n = c->cap - c->len;
	if (c->len + n + 1 > c->alloc) {
		size_t na = c->alloc ? c->alloc : 4096;
		char *nb;
		while (na < c->len + n + 1)
			na *= 2;
		if (na > c->cap + 1)
			na = c->cap + 1;
		if ((nb = realloc(c->buf, na)) == NULL)
			return;
		c->buf = nb;
		c->alloc = na;
	}
	memcpy(c->buf + c->len, p, n);
	c->len += n;
	c->buf[c->len] = '\0';
}

static void
out_put(struct runner *rn, const char *p, size_t n)
{
	log_out(rn, p, n);
	ring_put(rn, p, n);
	cap_put(rn->cap, p, n);
}

/* The line held, redacted before anyone sees it, knowing the line that
 * follows (NULL: none came within a poll): a known value the output's
 * wrapping split is hidden on both.  Without memory to redact, the line is
 * dropped, never kept raw. */
static void
emit_held(struct runner *rn, const char *next, size_t nextlen)
{
	size_t rlen;
	char *red;

	if (!rn->has_held)
		return;
	rn->has_held = 0;
	red = redact_stream_next(&rn->rs, rn->held, rn->held_len, next, nextlen, &rlen);
	if (red == NULL)
		return;
	rn->r->lines++;
	note_alloc_failure(rn, red, rlen);
	if (rn->o->on_line != NULL)
		rn->o->on_line(rn->o->u, red, rlen);
	out_put(rn, red, rlen);
	if (rn->held_nl)
		out_put(rn, "\n", 1);
	free(red);
}

/* One line of output (without its newline): the line before it goes out,
 * this one is held. */
static void
emit_line(struct runner *rn, const char *s, size_t n, int newline)
{
	emit_held(rn, s, n);
	memcpy(rn->held, s, n);
	rn->held_len = n;
	rn->held_nl = newline;
	rn->has_held = 1;
}

/* Cut raw output into lines; a line longer than KD_CAP_LINE is split. */
static void
feed(struct runner *rn, const char *p, size_t n)
{
	rn->r->total_bytes += n;
	while (n > 0) {
		const char *nl = memchr(p, '\n', n);
		size_t take = nl ? (size_t)(nl - p) : n;

		if (rn->line_len + take > KD_CAP_LINE) {
			size_t room = KD_CAP_LINE - rn->line_len;
			memcpy(rn->line + rn->line_len, p, room);
			emit_line(rn, rn->line, KD_CAP_LINE, 0);
			rn->line_len = 0;
			p += room;
			n -= room;
			continue;
		}
		memcpy(rn->line + rn->line_len, p, take);
		rn->line_len += take;
		p += take;
		n -= take;
		if (nl != NULL) {
			emit_line(rn, rn->line, rn->line_len, 1);
			rn->line_len = 0;
			p++;
			n--;
		}
	}
}

/* Is any process left in the group?  Those of its members that have
 * become our children (we are a subreaper) are reaped first. */
static int
group_alive(pid_t pgid)
{
	while (waitpid(-pgid, NULL, WNOHANG) > 0)
		;
	return kill(-pgid, 0) == 0;
}

/* Signal (sig 0: count) every process that carries the run's mark. */
static int
marked(struct runner *rn, int sig)
{
	return procs_signal(rn->mark, 1, sig, rn->seen, RUN_SEEN_CAP, &rn->nseen);
}

/* Reap those of the marked processes that became our children (we are a
 * subreaper); one still exiting is waited for a moment. */
static void
reap_seen(struct runner *rn, int patient)
{
	for (size_t i = 0; i < rn->nseen; i++) {
		for (int k = 0; k < (patient ? 200 : 1); k++) {
			pid_t w = waitpid(rn->seen[i], NULL, WNOHANG);
			if (w != 0 || kill(rn->seen[i], 0) != 0)
				break;
			sleep_ms(1);
		}
	}
}

/* How many processes of the run are left: in its group, carrying its
 * mark, in its cgroup; those that became our children are reaped. */
static int
left_alive(struct runner *rn, pid_t pgid)
{
	int n = group_alive(pgid) + marked(rn, 0) + cgroup_run_count(&rn->cg);

	reap_seen(rn, 0);
	return n;
}

/* End every process the run left, wherever it went (its group, another
 * group or session, a double fork: the mark; one that cleared its
 * environment too: the cgroup): SIGTERM, SIGKILL after the grace; then
 * the cgroup is emptied (cgroup.kill) and removed. */
static void
end_all(struct runner *rn, pid_t pgid, double grace)
{
	double t0 = mono_now();

	if (left_alive(rn, pgid) > 0) {
		kill(-pgid, SIGTERM);
		marked(rn, SIGTERM);
		cgroup_run_signal(&rn->cg, SIGTERM);
		while (left_alive(rn, pgid) > 0 && mono_now() - t0 < grace)
			sleep_ms(10);
		if (left_alive(rn, pgid) > 0) {
			kill(-pgid, SIGKILL);
			marked(rn, SIGKILL);
			cgroup_run_signal(&rn->cg, SIGKILL);
			while (left_alive(rn, pgid) > 0 && mono_now() - t0 < grace + 1.0)
				sleep_ms(10);
		}
	}
	reap_seen(rn, 1);
	rn->cg_left = cgroup_run_end(&rn->cg);
}

/* The loop: read output, watch the clock and the cancellation, reap.  A
 * leader gone while a process of its group still holds the pipe means the
 * group lives on: it gets SIGTERM, then SIGKILL after the grace.  A pipe
 * still open a second after that (held by a process that left the group)
 * is abandoned. */
static void
supervise(struct runner *rn, pid_t pid, int fd, char *buf)
{
	const struct run_opts *o = rn->o;
	double grace = o->grace_s > 0 ? o->grace_s : 2.0;
	double t0 = mono_now(), term_at = -1, reaped_at = 0, last_cancel = -1, t;
	int status = 0, reaped = 0, killed = 0, leftover = 0;

	for (;;) {
		t = mono_now() - t0;
		if (!reaped && term_at < 0) {
			if (o->timeout_s > 0 && t >= o->timeout_s)
				rn->r->timed_out = 1;
			else if (o->cancelled != NULL && t - last_cancel >= 0.1) {
				last_cancel = t;
				rn->r->cancelled = o->cancelled(o->u) != 0;
			}
			if (o->kill_now != NULL && !rn->r->killed_on_request && o->kill_now(o->u)) {
				kill(-pid, SIGKILL);   /* a kill on purpose: no SIGTERM first */
				cgroup_run_signal(&rn->cg, SIGKILL);
				rn->r->killed_on_request = 1;
			}
		}
		if (!reaped && waitpid(pid, &status, WNOHANG) == pid) {
			int grp = group_alive(pid), daemons = marked(rn, 0);
			int held = cgroup_run_count(&rn->cg);

			if (held > daemons)
				daemons = held;
			reaped = 1;
			reaped_at = t;
			/* what outlived a leader that ended by itself: said in its row */
			if (term_at < 0)
				rn->r->left_behind = daemons > 0 ? daemons : grp;
			leftover = fd >= 0 && (grp || daemons > 0);
		}
		if (term_at < 0 && (rn->r->timed_out || rn->r->cancelled || leftover)) {
			kill(-pid, SIGTERM);
			marked(rn, SIGTERM);
			cgroup_run_signal(&rn->cg, SIGTERM);
			term_at = t;
		}
		if (term_at >= 0 && !killed && t - term_at >= grace) {
			kill(-pid, SIGKILL);
			marked(rn, SIGKILL);
			cgroup_run_signal(&rn->cg, SIGKILL);
			killed = 1;
		}
		if (reaped && fd >= 0 && t - reaped_at >= grace + 1.0) {
			close(fd);
			fd = -1;
		}
		if (reaped && fd < 0)
			break;
		if (fd < 0) {
			sleep_ms(5);   /* output ended, the leader has not yet */
			continue;
		}
		struct pollfd pfd = { fd, POLLIN, 0 };
		if (poll(&pfd, 1, 100) > 0) {
			ssize_t n = read(fd, buf, RUN_READ_SIZE);
			if (n > 0) {
				feed(rn, buf, (size_t)n);
				log_flush(rn);
			} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
				close(fd);
				fd = -1;
			}
		} else if (rn->has_held) {
			emit_held(rn, NULL, 0);   /* no more output for now */
			log_flush(rn);
		}
	}
	if (rn->line_len > 0)
		emit_line(rn, rn->line, rn->line_len, 0);
	emit_held(rn, NULL, 0);
	rn->line_len = 0;
	end_all(rn, pid, grace);
	rn->r->elapsed_s = mono_now() - t0;
	if (WIFEXITED(status)) {
		rn->r->exited = 1;
		rn->r->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		rn->r->signaled = 1;
		rn->r->term_signal = WTERMSIG(status);
	}
}

static int
open_log(const char *path, struct kd_err *err)
{
	char *dir = strdup(path), *slash;
	struct kd_err e;
	struct stat st;
	int fd;

	if (dir == NULL) {
		kd_err_sys(err, KD_EENV, path, ENOMEM, "cannot open the log");
		return -1;
	}
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (fsutil_mkdirs(dir, err) != 0) {
			free(dir);
			return -1;
		}
	}
	free(dir);
	/* O_NONBLOCK: a FIFO planted there must not hang the open */
	/* below the work folder without a link, where a replay set it */
	fd = beneath_open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
			  0644, &e);
	if (fd < 0) {
		if (e.code == KD_EINPUT)
			kd_err_set(err, KD_EINPUT, path, 0, "cannot open the log: %s", e.msg);
		else
			kd_err_sys(err, KD_EENV, path, e.errnum, "cannot open the log");
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, O_WRONLY | O_APPEND) != 0) {
		kd_err_set(err, KD_EENV, path, 0, "cannot open the log: not a regular file");
		close(fd);
		return -1;
	}
	return fd;
}

/* "# kernodeck: run ARGV" into the log, each argument a shell word
 * (quote_argv: the same line replay's plan shows), redacted like the
 * rest. */
static void
log_header(struct runner *rn)
{
	char *line = quote_argv(rn->o->argv), *red;
	size_t rl;

	/* one line, so that "--password VALUE" is seen as one */
	if (line == NULL)
		return;
	red = redact_text(line, strlen(line), &rl);
	log_put(rn, "# kernodeck: run ", 17);
	if (red != NULL)
		log_put(rn, red, rl);
	log_put(rn, "\n", 1);
	free(red);
	free(line);
}

static int
run_exec(const struct run_opts *o, struct run_result *r, struct capbuf *cap,
	 struct kd_err *err)
{
	static struct runner zero;
	struct runner rn = zero;
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, nullfd = -1, rc = KD_EENV;
	const char *pathvar, *why;
	char **envp = NULL, *path = NULL, *buf = NULL, line[160], how[96];
	char mark[PROCS_MARK_CAP];
	struct child_fail f;
	ssize_t n;
	long maxfd = sysconf(_SC_OPEN_MAX);
	pid_t pid, parent = getpid();

	rn.o = o;
	rn.r = r;
	rn.cap = cap;
	rn.logfd = -1;
	memset(r, 0, sizeof *r);
	procs_mark_new(mark, sizeof mark);
	rn.mark = mark;
	/* the guard ends this run's processes if kernodeck is killed */
	procs_guard_start();
	/* a cgroup of its own, where one can be made: what leaves the group,
	 * the session and the mark still cannot leave it */
	cgroup_run_new(&rn.cg, mark + sizeof PROCS_MARK_NAME);
	cgroup_run_memory(&rn.cg, mark + sizeof PROCS_MARK_NAME, o->mem_limit, o->mem_cgroup_only);
	/* orphaned grandchildren come to us, to be ended and reaped */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	r->timeout_s = o->timeout_s;
	rn.ring_cap = o->tail_cap ? o->tail_cap : KD_CAP_RUN_TAIL;
	rn.ltail_cap = log_cap() / 2;
	rn.log_head = log_cap() - rn.ltail_cap;
	if (o->argv == NULL || o->argv[0] == NULL) {
		rc = kd_err_set(err, KD_EINPUT, NULL, 0, "no program to run");
		goto out;
	}
	rn.ring = malloc(rn.ring_cap);
	rn.line = malloc(KD_CAP_LINE);
	rn.held = malloc(KD_CAP_LINE);
	rn.logbuf = malloc(RUN_LOG_BUF);
	buf = malloc(RUN_READ_SIZE);
	if (!rn.ring || !rn.line || !rn.held || !rn.logbuf || !buf || !(envp = build_env(o, mark, &pathvar))) {
		kd_err_sys(err, KD_EENV, NULL, ENOMEM, "cannot run %s", o->argv[0]);
		goto out;
	}
	if ((path = find_program(o->argv[0], pathvar, o->cwd, &why)) == NULL) {
		kd_err_set(err, KD_EENV, NULL, 0, "cannot run %s: %s", o->argv[0], why);
		goto out;
	}
	if (o->log_path != NULL && (rn.logfd = open_log(o->log_path, err)) < 0)
		goto out;
	if (pipe2(outp, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0 ||
	    (nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		kd_err_sys(err, KD_EENV, NULL, errno, "cannot run %s", o->argv[0]);
		goto out;
	}
	outp[0] = fd_high(outp[0]);
	outp[1] = fd_high(outp[1]);
	errp[1] = fd_high(errp[1]);
	nullfd = fd_high(nullfd);
	if (outp[0] < 0 || outp[1] < 0 || errp[1] < 0 || nullfd < 0) {
		kd_err_sys(err, KD_EENV, NULL, errno, "cannot run %s", o->argv[0]);
		goto out;
	}
	if (rn.logfd >= 0)
		log_header(&rn);
	log_flush(&rn);
	if ((pid = fork()) < 0) {
		kd_err_sys(err, KD_EENV, NULL, errno, "cannot run %s: fork", o->argv[0]);
		goto out;
	}
	if (pid == 0)
		child_exec(path, (char *const *)o->argv, envp, o, nullfd, outp[1],
			   errp[1], maxfd > 0 && maxfd < 65536 ? (int)maxfd : 65536, parent,
			   &rn.cg);
	setpgid(pid, pid);   /* both sides, whoever runs first */
	close(outp[1]);
	close(errp[1]);
	outp[1] = errp[1] = -1;
	while ((n = read(errp[0], &f, sizeof f)) < 0 && errno == EINTR)
		;
	if (n == (ssize_t)sizeof f) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		if (f.step == 0)
			kd_err_sys(err, KD_EENV, o->cwd, f.errnum,
				   "cannot run %s: cannot enter its folder", o->argv[0]);
		else
			kd_err_sys(err, KD_EENV, NULL, f.errnum, "cannot run %s (%s)",
				   o->argv[0], f.errnum == ENOEXEC ? "not a program this system runs" :
				   f.errnum == ENOENT ? "its interpreter is missing" : path);
		goto out;
	}
	r->started = 1;
	supervise(&rn, pid, outp[0], buf);
	outp[0] = -1;   /* closed by supervise */
	log_out_end(&rn);
	r->redacted = rn.rs.redacted;
	r->mem_limit = o->mem_limit;
	r->mem_how = cgroup_mem_name(rn.cg.mem_how);
	r->mem_peak = rn.cg.mem_peak;
	r->mem_hit = rn.cg.mem_oom > 0 ||
		     (rn.alloc_failed && !(r->exited && r->exit_code == 0) && !r->cancelled && !r->timed_out);
	if (rn.logfd >= 0) {
		snprintf(line, sizeof line, "# kernodeck: %s (%.2f s)\n",
			 run_describe(r, how, sizeof how), r->elapsed_s);
		log_put(&rn, line, strlen(line));
		if (rn.cg.dir[0] != '\0') {
			/* cgroup_run_end leaves the path: said, with what it found */
			log_put(&rn, "# kernodeck: its processes ran in the cgroup ", 45);
			log_put(&rn, rn.cg.dir, strlen(rn.cg.dir));
			snprintf(line, sizeof line, ", ended and removed (%d left in it at the end)\n",
				 rn.cg_left);
			log_put(&rn, line, strlen(line));
		}
		if (o->mem_limit > 0 && rn.cg.mem_how == CGROUP_MEM_NONE) {
			static const char none[] = "# kernodeck: no memory limit: no cgroup is writable here "
				"(KD_MEMORY_LIMIT sets one as RLIMIT_AS)\n";
			log_put(&rn, none, sizeof none - 1);
		} else if (o->mem_limit > 0) {
			char sz[32], pk[32];
			snprintf(line, sizeof line, "# kernodeck: its memory limit: %s (%s)%s%s\n",
				 run_size_str(o->mem_limit, sz, sizeof sz), r->mem_how,
				 r->mem_peak >= 0 ? ", peak " : "",
				 r->mem_peak >= 0 ? run_size_str((unsigned long long)r->mem_peak, pk, sizeof pk) : "");
			log_put(&rn, line, strlen(line));
		}
	}
	rc = KD_OK;
out:
	if (rn.cg.on || rn.cg.mem_dir[0] != '\0')
		cgroup_run_end(&rn.cg);   /* a run that did not start */
	log_flush(&rn);
	if (rn.logfd >= 0)
		close(rn.logfd);
	for (int i = 0; i < 2; i++) {
		if (outp[i] >= 0)
			close(outp[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	if (nullfd >= 0)
		close(nullfd);
	r->tail = malloc(rn.ring_len + 1);
	if (r->tail != NULL) {
		for (size_t i = 0; i < rn.ring_len; i++)
			r->tail[i] = rn.ring[(rn.ring_head + i) % rn.ring_cap];
		r->tail[rn.ring_len] = '\0';
		r->tail_len = rn.ring_len;
	}
	free(buf);
	free(rn.ring);
	free(rn.line);
	free(rn.held);
	free(rn.logbuf);
	free(rn.ltail);
	free(envp);
	free(path);
	return rc;
}

int
run_program(const struct run_opts *o, struct run_result *r, struct kd_err *err)
{
	return run_exec(o, r, NULL, err);
}

void
run_result_free(struct run_result *r)
{
	if (r == NULL)
		return;
	free(r->tail);
	r->tail = NULL;
	r->tail_len = 0;
}

static const char *
signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev != NULL)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}

int
run_parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v, mul = 1;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	switch (*end) {
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	case 't': case 'T': mul = 1ULL << 40; end++; break;
	default: break;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end != '\0' || (v != 0 && v > ~0ULL / mul))
		return -1;
	*out = v * mul;
	return 0;
}

unsigned long long
run_memory_limit(void)
{
	const char *e = getenv("KD_MEMORY_LIMIT");
	unsigned long long v;
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

	if (e != NULL && (strcmp(e, "none") == 0 || strcmp(e, "off") == 0))
		return 0;
	if (e != NULL && run_parse_size(e, &v) == 0)
		return v;
	/* three quarters of the machine's memory: a runaway program is ended
	 * in its own cgroup before the kernel picks a victim for it */
	return pages > 0 && psize > 0 ? (unsigned long long)pages * (unsigned long long)psize / 4 * 3 : 0;
}

const char *
run_size_str(unsigned long long bytes, char *buf, size_t len)
{
	if (bytes >= (1ULL << 30))
		snprintf(buf, len, "%.3g GiB", (double)bytes / (double)(1ULL << 30));
	else
		snprintf(buf, len, "%.3g MiB", (double)bytes / (double)(1ULL << 20));
	return buf;
}

const char *
run_describe(const struct run_result *r, char *buf, size_t len)
{
	char sig[32];

	if (!r->started)
		snprintf(buf, len, "not started");
	else if (r->timed_out)
		snprintf(buf, len, "timed out after %g s", r->timeout_s);
	else if (r->cancelled)
		snprintf(buf, len, "cancelled");
	else if (r->signaled)
		snprintf(buf, len, "killed by %s", signal_name(r->term_signal, sig, sizeof sig));
	else
		snprintf(buf, len, "exit %d", r->exit_code);
	if (r->left_behind > 0) {
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "; left %d process%s behind, ended", r->left_behind,
			 r->left_behind == 1 ? "" : "es");
	}
	if (r->started && r->mem_hit) {
		size_t l = strlen(buf);
		char sz[32];
		snprintf(buf + l, len - l, "; the memory limit (%s, %s) was reached",
			 run_size_str(r->mem_limit, sz, sizeof sz), r->mem_how ? r->mem_how : "?");
	}
	if (r->started && r->redacted > 0) {
		size_t l = strlen(buf);
		snprintf(buf + l, len - l, ", %zu credential%s redacted from its output",
			 r->redacted, r->redacted == 1 ? "" : "s");
	}
	return buf;
}

int
run_capture(const char *const *argv, double timeout_s, size_t cap,
	    char **out, int *exit_code, struct kd_err *err)
{
	struct run_opts o = { .argv = argv, .timeout_s = timeout_s, .tail_cap = 1 };
	struct capbuf cb = { .cap = cap ? cap : KD_CAP_PIP_OUTPUT };
	struct run_result r;
	char how[64];
	int rc;

	*out = NULL;
	*exit_code = -1;
	rc = run_exec(&o, &r, &cb, err);
	if (rc == KD_OK && !r.exited)
		rc = kd_err_set(err, KD_EENV, NULL, 0, "%s: %s", argv[0],
				run_describe(&r, how, sizeof how));
	run_result_free(&r);
	if (rc != KD_OK) {
		free(cb.buf);
		return rc;
	}
	*exit_code = r.exit_code;
	*out = cb.buf != NULL ? cb.buf : strdup("");
	if (*out == NULL)
		return kd_err_sys(err, KD_EENV, NULL, ENOMEM, "%s", argv[0]);
	return KD_OK;
}
