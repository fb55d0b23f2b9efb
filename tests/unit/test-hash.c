/*
 * test-hash.c - SHA-256 of files and folders: known digests, the worker
 * threads, progress, cancellation, the digest cache, files changing while
 * hashed, folder manifests.  Every file is made by the test in a private
 * temporary folder.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "kernodeck/cmd.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/hash.h"
#include "testutil.h"

#define SHA_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define SHA_ABC   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define MIB       (1024u * 1024u)
#define READ      (128u * 1024u)   /* hash.c's read size */

static char tmpdir[256];

static char *
tpath(const char *name)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
	return buf[k];
}

/* Write size bytes of a pattern seeded by seed into name; return its path. */
static char *
make_file(const char *name, size_t size, unsigned seed)
{
	char *p = tpath(name);
	unsigned char *data = malloc(size ? size : 1);
	size_t i;
	int fd;

	assert_non_null(data);
	for (i = 0; i < size; i++)
		data[i] = (unsigned char)((i * 131 + seed * 7 + (i >> 12)) & 0xff);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, size), (ssize_t)size);
	close(fd);
	free(data);
	return p;
}

/* The digest of a file, computed by reading it whole (the reference). */
static void
reference_digest(const char *path, char hex[65])
{
	char *buf;
	size_t len;

	assert_int_equal(fsutil_read_file(path, 512u * MIB, &buf, &len, NULL), 0);
	hash_buffer(buf, len, hex);
	free(buf);
}

static void
sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

static int
setup(void **state)
{
	const char *t = getenv("TMPDIR");

	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "%s/kd-hash.XXXXXX", t && *t ? t : "/tmp");
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	return fsutil_rmtree(tmpdir, NULL);
}

/* ------------------------------------------------------------ digests */

static void
test_known_digests(void **state)
{
	char hex[65];
	uint64_t size = 99;
	struct kd_err err;

	(void)state;
	hash_buffer("", 0, hex);
	assert_string_equal(hex, SHA_EMPTY);
	hash_buffer("abc", 3, hex);
	assert_string_equal(hex, SHA_ABC);

	fclose(fopen(tpath("empty"), "w"));
	assert_int_equal(hash_file(tpath("empty"), NULL, NULL, hex, &size, &err), 0);
	assert_string_equal(hex, SHA_EMPTY);
	assert_int_equal(size, 0);
	assert_int_equal(fsutil_write_atomic(tpath("abc"), "abc", 3, FSUTIL_RAW, NULL), 0);
	assert_int_equal(hash_file(tpath("abc"), NULL, NULL, hex, &size, &err), 0);
	assert_string_equal(hex, SHA_ABC);
	assert_int_equal(size, 3);
	assert_true(hash_is_hex(SHA_ABC));
	assert_false(hash_is_hex("abc"));
}

/* A file of many reads, not a multiple of the read size. */
static void
test_large_file_matches_reference(void **state)
{
	char hex[65], ref[65];
	uint64_t size;
	char *p = make_file("large", 5 * MIB + 12345, 3);

	(void)state;
	reference_digest(p, ref);
	assert_int_equal(hash_file(p, NULL, NULL, hex, &size, NULL), 0);
	assert_string_equal(hex, ref);
	assert_int_equal(size, 5 * MIB + 12345);
}

static void
test_refuses_missing_folder_fifo(void **state)
{
	char hex[65];
	struct kd_err err;

	(void)state;
	assert_int_equal(hash_file(tpath("nope"), NULL, NULL, hex, NULL, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "cannot read"));
	assert_non_null(strstr(err.msg, "No such file"));
	assert_string_equal(err.file, tpath("nope"));

	assert_int_equal(hash_file(tmpdir, NULL, NULL, hex, NULL, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "is a folder"));

	/* A FIFO without a writer must not block the hash. */
	assert_int_equal(mkfifo(tpath("fifo"), 0644), 0);
	assert_int_equal(hash_file(tpath("fifo"), NULL, NULL, hex, NULL, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "is a FIFO, not a regular file"));
	unlink(tpath("fifo"));
}

/* ------------------------------------------------------------ threads */

/* A cancelled() callback that holds each worker until two different
 * threads have called it: proof that two workers hash at the same time. */
struct meet {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t seen[2];
	int nseen;
};

static int
meet_two(void *u)
{
	struct meet *m = u;
	struct timespec deadline;
	pthread_t me = pthread_self();
	int i, known = 0;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 5;
	pthread_mutex_lock(&m->mu);
	for (i = 0; i < m->nseen; i++)
		known |= pthread_equal(m->seen[i], me);
	if (!known && m->nseen < 2) {
		m->seen[m->nseen++] = me;
		pthread_cond_broadcast(&m->cv);
	}
	while (m->nseen < 2)
		if (pthread_cond_timedwait(&m->cv, &m->mu, &deadline) != 0)
			break;
	pthread_mutex_unlock(&m->mu);
	return 0;
}

static void
test_files_on_all_cores(void **state)
{
	struct meet m = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, { 0 }, 0 };
	struct hash_progress p = { .cancelled = meet_two, .u = &m };
	struct hash_job jobs[8];
	char name[32], ref[65];
	int i, took[2] = { 0, 0 };

	(void)state;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		skip();
	memset(jobs, 0, sizeof jobs);
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof name, "many-%d", i);
		jobs[i].path = strdup(make_file(name, 2 * MIB + (size_t)i, (unsigned)i));
	}
	assert_int_equal(hash_files(jobs, 8, 0, NULL, &p), 0);
	assert_int_equal(m.nseen, 2);
	assert_false(pthread_equal(m.seen[0], m.seen[1]));
	for (i = 0; i < 8; i++) {
		assert_int_equal(jobs[i].rc, 0);
		reference_digest(jobs[i].path, ref);
		assert_string_equal(jobs[i].hex, ref);
		assert_int_equal(jobs[i].size, 2 * MIB + (size_t)i);
		assert_int_equal(jobs[i].from_cache, 0);
		assert_true(jobs[i].worker >= 0);
		if (jobs[i].worker < 2)
			took[jobs[i].worker]++;
		free((char *)jobs[i].path);
	}
	/* Both workers took files. */
	assert_true(took[0] > 0);
	assert_true(took[1] > 0);
}

static void
test_errors_stay_per_job(void **state)
{
	struct hash_job jobs[3];

	(void)state;
	memset(jobs, 0, sizeof jobs);
	jobs[0].path = make_file("per-job-a", 100, 1);
	jobs[1].path = tpath("per-job-missing");
	jobs[2].path = tpath("abc");
	assert_int_equal(fsutil_write_atomic(jobs[2].path, "abc", 3, FSUTIL_RAW, NULL), 0);
	assert_int_equal(hash_files(jobs, 3, 2, NULL, NULL), 0);
	assert_int_equal(jobs[0].rc, 0);
	assert_int_equal(jobs[1].rc, KD_EINPUT);
	assert_non_null(strstr(jobs[1].err.msg, "per-job-missing"));
	assert_int_equal(jobs[2].rc, 0);
	assert_string_equal(jobs[2].hex, SHA_ABC);
}

/* ----------------------------------------------------------- progress */

struct prog_log {
	int calls;
	uint64_t first_done, last_done, last_total, prev_done;
	double last_rate;
	int went_back;
};

static void
prog_record(void *u, uint64_t done, uint64_t total, double rate)
{
	struct prog_log *l = u;

	if (l->calls == 0)
		l->first_done = done;
	if (done < l->prev_done)
		l->went_back = 1;
	l->prev_done = done;
	l->calls++;
	l->last_done = done;
	l->last_total = total;
	l->last_rate = rate;
}

static int
slow_reads(void *u)
{
	(void)u;
	sleep_ms(25);
	return 0;
}

static void
test_progress_reported(void **state)
{
	struct prog_log l;
	struct hash_progress p = { .on_progress = prog_record, .cancelled = slow_reads, .u = &l };
	char hex[65];
	uint64_t size;
	char *path = make_file("progress", 12 * READ, 9);

	(void)state;
	memset(&l, 0, sizeof l);
	/* 12 reads of 25 ms: about 300 ms, so a few throttled reports. */
	assert_int_equal(hash_file(path, NULL, &p, hex, &size, NULL), 0);
	assert_true(l.calls >= 2);
	assert_true(l.calls <= 13);             /* throttled: not one per read */
	assert_true(l.first_done < 12 * READ);  /* an intermediate report */
	assert_true(l.first_done > 0);
	assert_int_equal(l.last_done, 12 * READ); /* and a final one */
	assert_int_equal(l.last_total, 12 * READ);
	assert_true(l.last_rate > 0);
	assert_false(l.went_back);
}

/* ------------------------------------------------------- cancellation */

struct canceller {
	pthread_mutex_t mu;
	int calls;
	int calls_after;        /* calls once it said yes */
	double when;            /* when it first said yes */
};

static int
cancel_after_4(void *u)
{
	struct canceller *c = u;
	int yes;

	pthread_mutex_lock(&c->mu);
	c->calls++;
	yes = c->calls > 4;
	if (yes && c->when == 0)
		c->when = tu_now_s();
	else if (yes)
		c->calls_after++;
	pthread_mutex_unlock(&c->mu);
	return yes;
}

static void
test_cancel_stops_within_a_read(void **state)
{
	struct canceller c = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0 };
	struct hash_progress p = { .cancelled = cancel_after_4, .u = &c };
	struct hash_job jobs[4];
	char name[32];
	double end;
	int i, cancelled = 0;

	(void)state;
	memset(jobs, 0, sizeof jobs);
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "cancel-%d", i);
		jobs[i].path = strdup(make_file(name, 8 * MIB, (unsigned)i));
	}
	assert_int_equal(hash_files(jobs, 4, 2, NULL, &p), KD_EFAIL);
	end = tu_now_s();
	/* Each read is preceded by one poll: 4 reads (512 KiB of 32 MiB)
	 * before the cancel, then at most one more poll by the other worker,
	 * and no read. */
	assert_true(c.calls_after <= 1);
	assert_true(c.calls <= 6);
	assert_true(end - c.when < 0.5);
	for (i = 0; i < 4; i++) {
		if (jobs[i].rc == KD_EFAIL) {
			cancelled++;
			assert_non_null(strstr(jobs[i].err.msg, "was cancelled"));
		}
		free((char *)jobs[i].path);
	}
	assert_int_equal(cancelled, 4);
}

/* ------------------------------------------------------------- cache */

static void
test_cache_rereads_changed_ctime_only(void **state)
{
	struct hash_cache *c;
	struct hash_job jobs[2];
	struct kd_err err;
	char hexa[65], cachedir[512], *buf = NULL;
	uint64_t hits, misses;

	(void)state;
	snprintf(cachedir, sizeof cachedir, "%s", tpath("cache"));
	memset(jobs, 0, sizeof jobs);
	jobs[0].path = strdup(make_file("cached-a", 3 * MIB, 1));
	jobs[1].path = strdup(make_file("cached-b", 3 * MIB, 2));
	sleep_ms(80);   /* older than the racy window: these digests are kept */

	c = hash_cache_open(cachedir, &err);
	assert_non_null(c);
	assert_int_equal(hash_files(jobs, 2, 0, c, NULL), 0);
	assert_int_equal(jobs[0].from_cache, 0);
	assert_int_equal(jobs[1].from_cache, 0);
	memcpy(hexa, jobs[0].hex, 65);
	hash_cache_close(c);
	/* The cache was written to disk, with both files. */
	assert_int_equal(fsutil_read_file(tpath("cache/digests.tsv"), MIB, &buf, NULL, &err), 0);
	assert_non_null(strstr(buf, jobs[0].hex));
	assert_non_null(strstr(buf, jobs[1].hex));
	free(buf);

	/* chmod changes only the ctime: a is read again, b is not. */
	assert_int_equal(chmod(jobs[0].path, 0600), 0);
	c = hash_cache_open(cachedir, &err);
	assert_non_null(c);
	assert_int_equal(hash_files(jobs, 2, 0, c, NULL), 0);
	assert_int_equal(jobs[0].from_cache, 0);
	assert_int_equal(jobs[1].from_cache, 1);
	assert_string_equal(jobs[0].hex, hexa);
	assert_int_equal(jobs[1].worker, -1);   /* no worker read it */
	hash_cache_stats(c, &hits, &misses, NULL);
	assert_int_equal(hits, 1);
	assert_int_equal(misses, 1);

	/* Once a is old enough again, it is answered from the cache. */
	sleep_ms(80);
	assert_int_equal(hash_files(jobs, 1, 0, c, NULL), 0);
	assert_int_equal(hash_files(jobs, 1, 0, c, NULL), 0);
	assert_int_equal(jobs[0].from_cache, 1);
	assert_string_equal(jobs[0].hex, hexa);
	hash_cache_close(c);
	free((char *)jobs[0].path);
	free((char *)jobs[1].path);
}

/* A file changed a moment ago is "racily clean": its digest is not cached
 * (a second write in the same timestamp tick would go unseen), so it is
 * read again; once it is older than the window, it is cached. */
static void
test_cache_racy_file_read_again(void **state)
{
	struct hash_cache *c;
	struct hash_job job;
	double t0;

	(void)state;
	c = hash_cache_open(tpath("cache-racy"), NULL);
	assert_non_null(c);
	memset(&job, 0, sizeof job);
	t0 = tu_now_s();
	job.path = make_file("racy", 1000, 8);
	assert_int_equal(hash_files(&job, 1, 0, c, NULL), 0);
	assert_int_equal(hash_files(&job, 1, 0, c, NULL), 0);
	if (tu_now_s() - t0 < 0.04)        /* the machine was not stalled meanwhile */
		assert_int_equal(job.from_cache, 0);
	sleep_ms(80);
	assert_int_equal(hash_files(&job, 1, 0, c, NULL), 0);
	assert_int_equal(hash_files(&job, 1, 0, c, NULL), 0);
	assert_int_equal(job.from_cache, 1);
	hash_cache_close(c);
}

/* New content with the old size and the old mtime put back: only the ctime
 * tells, and it is enough. */
static void
test_cache_sees_mtime_put_back(void **state)
{
	struct hash_cache *c;
	struct stat st;
	struct timespec times[2];
	char hex1[65], hex2[65], ref[65];
	int fd;
	char *p = make_file("putback", MIB, 4);

	(void)state;
	sleep_ms(80);
	c = hash_cache_open(tpath("cache2"), NULL);
	assert_non_null(c);
	assert_int_equal(hash_file(p, c, NULL, hex1, NULL, NULL), 0);
	assert_int_equal(stat(p, &st), 0);
	fd = open(p, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "CHANGED", 7, 1000), 7);
	close(fd);
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, p, times, 0), 0);
	assert_int_equal(hash_file(p, c, NULL, hex2, NULL, NULL), 0);
	reference_digest(p, ref);
	assert_string_equal(hex2, ref);
	assert_string_not_equal(hex1, hex2);
	hash_cache_close(c);
}

static void
test_cache_survives_damage(void **state)
{
	static const char junk[] =
		"# kernodeck digest cache 1\n"
		"not\ta\tline\n"
		"1\t2\t3\t4\t5\tshort\n"
		"1\t2\t3\t4\t5\tzz7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n"
		"\x01\x02\xff binary\n";
	struct hash_cache *c;
	size_t n = 99;
	char hex[65];

	(void)state;
	assert_int_equal(fsutil_mkdirs(tpath("cache3"), NULL), 0);
	assert_int_equal(fsutil_write_atomic(tpath("cache3/digests.tsv"), junk, sizeof junk - 1,
					     FSUTIL_RAW, NULL), 0);
	c = hash_cache_open(tpath("cache3"), NULL);
	assert_non_null(c);
	hash_cache_stats(c, NULL, NULL, &n);
	assert_int_equal(n, 0);
	assert_int_equal(hash_file(tpath("abc"), c, NULL, hex, NULL, NULL), 0);
	assert_string_equal(hex, SHA_ABC);
	hash_cache_close(c);
}

/* ------------------------------------------------- changing while hashed */

struct grower {
	const char *path;
	int calls;
};

/* On the second poll (after the first read), append to the file. */
static int
append_midway(void *u)
{
	struct grower *g = u;
	int fd;

	if (++g->calls == 2) {
		fd = open(g->path, O_WRONLY | O_APPEND);
		if (fd >= 0) {
			if (write(fd, "more", 4) != 4)
				g->calls = -100;
			close(fd);
		}
	}
	return 0;
}

static void
test_file_changing_while_hashed(void **state)
{
	struct grower g = { .path = NULL };
	struct hash_progress p = { .cancelled = append_midway, .u = &g };
	struct hash_cache *c;
	struct kd_err err;
	char hex[65];
	size_t n = 99;

	(void)state;
	g.path = strdup(make_file("growing", 4 * MIB, 5));
	c = hash_cache_open(tpath("cache4"), NULL);
	assert_non_null(c);
	assert_int_equal(hash_file(g.path, c, &p, hex, NULL, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "changed while it was hashed"));
	assert_string_equal(err.file, g.path);
	hash_cache_stats(c, NULL, NULL, &n);
	assert_int_equal(n, 0);              /* nothing cached for it */
	hash_cache_close(c);
	free((char *)g.path);
}

/* ------------------------------------------------------------ folders */

static void
make_tree(void)
{
	assert_int_equal(fsutil_mkdirs(tpath("tree/sub/deeper"), NULL), 0);
	assert_int_equal(fsutil_mkdirs(tpath("tree/empty"), NULL), 0);
	assert_int_equal(fsutil_write_atomic(tpath("tree/b.txt"), "abc", 3, FSUTIL_RAW, NULL), 0);
	assert_int_equal(fsutil_write_atomic(tpath("tree/a.bin"), "", 0, FSUTIL_RAW, NULL), 0);
	assert_int_equal(fsutil_write_atomic(tpath("tree/sub/deeper/w"), "hello\n", 6,
					     FSUTIL_RAW, NULL), 0);
	assert_int_equal(fsutil_write_atomic(tpath("tree/sub-z"), "z", 1, FSUTIL_RAW, NULL), 0);
}

static void
test_folder_manifest_and_digest(void **state)
{
	char hex[65], again[65], mhex[65], hello[65], z[65], expect[1024];
	char *manifest = NULL;
	uint64_t total = 0;
	struct kd_err err;

	(void)state;
	make_tree();
	hash_buffer("hello\n", 6, hello);
	hash_buffer("z", 1, z);
	/* Sorted by relative path, byte order: "sub/..." before "sub-z"?  No:
	 * '-' (0x2d) sorts before '/' (0x2f). */
	snprintf(expect, sizeof expect,
		 SHA_EMPTY "  0  a.bin\n"
		 SHA_ABC "  3  b.txt\n"
		 "%s  1  sub-z\n"
		 "%s  6  sub/deeper/w\n", z, hello);
	assert_int_equal(hash_folder(tpath("tree"), NULL, NULL, hex, &total, &manifest, &err), 0);
	assert_string_equal(manifest, expect);
	assert_int_equal(total, 10);
	hash_buffer(manifest, strlen(manifest), mhex);
	assert_string_equal(hex, mhex);
	free(manifest);

	/* Stable, with and without the cache. */
	assert_int_equal(hash_folder(tpath("tree"), NULL, NULL, again, NULL, NULL, &err), 0);
	assert_string_equal(hex, again);

	/* One changed byte changes the folder digest. */
	assert_int_equal(fsutil_write_atomic(tpath("tree/sub/deeper/w"), "hellO\n", 6,
					     FSUTIL_RAW, NULL), 0);
	assert_int_equal(hash_folder(tpath("tree"), NULL, NULL, again, NULL, NULL, &err), 0);
	assert_string_not_equal(hex, again);
	/* So does a renamed file with the same content. */
	assert_int_equal(fsutil_write_atomic(tpath("tree/sub/deeper/w"), "hello\n", 6,
					     FSUTIL_RAW, NULL), 0);
	assert_int_equal(hash_folder(tpath("tree"), NULL, NULL, again, NULL, NULL, &err), 0);
	assert_string_equal(hex, again);
	assert_int_equal(rename(tpath("tree/b.txt"), tpath("tree/c.txt")), 0);
	assert_int_equal(hash_folder(tpath("tree"), NULL, NULL, again, NULL, NULL, &err), 0);
	assert_string_not_equal(hex, again);
	assert_int_equal(fsutil_rmtree(tpath("tree"), NULL), 0);
}

static void
test_folder_refuses_links_and_specials(void **state)
{
	char hex[65];
	struct kd_err err;

	(void)state;
	make_tree();
	assert_int_equal(symlink("b.txt", tpath("tree/sub/link")), 0);
	assert_int_equal(hash_folder(tpath("tree"), NULL, NULL, hex, NULL, NULL, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "sub/link is a symbolic link"));
	unlink(tpath("tree/sub/link"));

	assert_int_equal(mkfifo(tpath("tree/pipe"), 0644), 0);
	assert_int_equal(hash_folder(tpath("tree"), NULL, NULL, hex, NULL, NULL, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "pipe is a FIFO"));
	unlink(tpath("tree/pipe"));

	assert_int_equal(hash_folder(tpath("tree"), NULL, NULL, hex, NULL, NULL, &err), 0);
	assert_int_equal(hash_folder(tpath("tree/b.txt"), NULL, NULL, hex, NULL, NULL, &err),
			 KD_EINPUT);
	assert_non_null(strstr(err.msg, "is a file, not a folder"));
	assert_int_equal(hash_folder(tpath("no-tree"), NULL, NULL, hex, NULL, NULL, &err),
			 KD_EINPUT);
	assert_non_null(strstr(err.msg, "cannot read the folder"));
	assert_int_equal(fsutil_rmtree(tpath("tree"), NULL), 0);
}

static void
test_folder_empty(void **state)
{
	char hex[65], *m = NULL;
	uint64_t total = 7;

	(void)state;
	assert_int_equal(fsutil_mkdirs(tpath("void"), NULL), 0);
	assert_int_equal(hash_folder(tpath("void"), NULL, NULL, hex, &total, &m, NULL), 0);
	assert_string_equal(hex, SHA_EMPTY);
	assert_string_equal(m, "");
	assert_int_equal(total, 0);
	free(m);
}

/* The folder's files come from the cache the second time. */
static void
test_folder_uses_cache(void **state)
{
	struct hash_cache *c;
	char hex[65], again[65];
	uint64_t hits = 0, misses = 0;

	(void)state;
	make_tree();
	sleep_ms(80);
	c = hash_cache_open(tpath("cache5"), NULL);
	assert_non_null(c);
	assert_int_equal(hash_folder(tpath("tree"), c, NULL, hex, NULL, NULL, NULL), 0);
	assert_int_equal(hash_folder(tpath("tree"), c, NULL, again, NULL, NULL, NULL), 0);
	assert_string_equal(hex, again);
	hash_cache_stats(c, &hits, &misses, NULL);
	assert_int_equal(misses, 4);
	assert_int_equal(hits, 4);
	hash_cache_close(c);
	assert_int_equal(fsutil_rmtree(tpath("tree"), NULL), 0);
}

/* ------------------------------------------------------ command line */

static void
test_hash_cmd(void **state)
{
	char *argv_ok[] = { "hash", "--threads", "2", NULL, NULL };
	char *argv_bad[] = { "hash", NULL, NULL };
	char *argv_usage[] = { "hash", "--bogus", NULL };
	char *out = NULL, expect[256];
	int saved, fd;

	(void)state;
	argv_ok[3] = tpath("abc");
	argv_bad[1] = tpath("nothing-here");
	fflush(stdout);
	saved = dup(1);
	fd = open(tpath("cmd.out"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 1);
	close(fd);
	assert_int_equal(kd_cmd_hash.exec(4, argv_ok), 0);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	assert_int_equal(fsutil_read_file(tpath("cmd.out"), 4096, &out, NULL, NULL), 0);
	snprintf(expect, sizeof expect, "%s  %s\n", SHA_ABC, tpath("abc"));
	assert_string_equal(out, expect);
	free(out);
	assert_int_equal(kd_cmd_hash.exec(2, argv_bad), KD_EINPUT);
	assert_int_equal(kd_cmd_hash.exec(2, argv_usage), KD_EINPUT);
}

static void
test_inspect_sha256(void **state)
{
	json_t *j = NULL, *m;
	struct kd_err err;

	(void)state;
	assert_int_equal(inspect_sha256(tpath("abc"), &j, &err), 0);
	assert_string_equal(json_string_value(json_object_get(j, "sha256")), SHA_ABC);
	assert_string_equal(json_string_value(json_object_get(j, "kind")), "file");
	assert_int_equal(json_integer_value(json_object_get(j, "size")), 3);
	json_decref(j);

	make_tree();
	assert_int_equal(inspect_sha256(tpath("tree"), &j, &err), 0);
	assert_string_equal(json_string_value(json_object_get(j, "kind")), "folder");
	assert_int_equal(json_integer_value(json_object_get(j, "size")), 10);
	m = json_object_get(j, "manifest");
	assert_int_equal(json_array_size(m), 4);
	assert_string_equal(json_string_value(json_object_get(json_array_get(m, 3), "path")),
			    "sub/deeper/w");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(m, 1), "size")), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(m, 1), "sha256")),
			    SHA_ABC);
	json_decref(j);
	assert_int_equal(inspect_sha256(tpath("absent"), &j, &err), KD_EINPUT);
	assert_null(j);
	assert_int_equal(fsutil_rmtree(tpath("tree"), NULL), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_digests),
		cmocka_unit_test(test_large_file_matches_reference),
		cmocka_unit_test(test_refuses_missing_folder_fifo),
		cmocka_unit_test(test_files_on_all_cores),
		cmocka_unit_test(test_errors_stay_per_job),
		cmocka_unit_test(test_progress_reported),
		cmocka_unit_test(test_cancel_stops_within_a_read),
		cmocka_unit_test(test_cache_rereads_changed_ctime_only),
		cmocka_unit_test(test_cache_racy_file_read_again),
		cmocka_unit_test(test_cache_sees_mtime_put_back),
		cmocka_unit_test(test_cache_survives_damage),
		cmocka_unit_test(test_file_changing_while_hashed),
		cmocka_unit_test(test_folder_manifest_and_digest),
		cmocka_unit_test(test_folder_refuses_links_and_specials),
		cmocka_unit_test(test_folder_empty),
		cmocka_unit_test(test_folder_uses_cache),
		cmocka_unit_test(test_hash_cmd),
		cmocka_unit_test(test_inspect_sha256),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
