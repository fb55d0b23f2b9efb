/*
 * test-net.c - provenance checks over HTTP(S) against a real server on
 * 127.0.0.1 (tests/helpers/httpd.py, run with /usr/bin/python3), started
 * and stopped by the test, with a self-signed certificate made here by
 * `openssl req`.  Without /usr/bin/python3 or openssl the tests skip.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/hash.h"
#include "kernodeck/net.h"
#include "testutil.h"

#define PYTHON  "/usr/bin/python3"
#define OPENSSL "/usr/bin/openssl"
#define LFS_BODY "weights of a model stored with git LFS\n"

static char tmpdir[256];
static struct tu_httpd srv = { .pid = -1, .stdin_fd = -1 };
static char cert[512];
static const char *no_server;   /* why the tests skip, or NULL */

static int
setup(void **state)
{
	char key[512];
	char *req[] = { OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes",
		"-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
		"-addext", "subjectAltName=IP:127.0.0.1", NULL };
	const char *t = getenv("TMPDIR");

	(void)state;
	/* The tests talk to 127.0.0.1 directly, never through a proxy. */
	unsetenv("http_proxy");
	unsetenv("https_proxy");
	unsetenv("HTTPS_PROXY");
	unsetenv("all_proxy");
	unsetenv("ALL_PROXY");
	signal(SIGPIPE, SIG_IGN);
	snprintf(tmpdir, sizeof tmpdir, "%s/kd-net.XXXXXX", t && *t ? t : "/tmp");
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	snprintf(key, sizeof key, "%s/key.pem", tmpdir);
	snprintf(cert, sizeof cert, "%s/cert.pem", tmpdir);
	if (access(PYTHON, X_OK) != 0)
		no_server = PYTHON " is missing";
	else if (access(OPENSSL, X_OK) != 0)
		no_server = OPENSSL " is missing";
	else if (tu_run_quiet(req) != 0)
		no_server = "openssl req could not make a certificate";
	else if (tu_httpd_start(&srv, cert, key) != 0)
		no_server = "the test server did not start";
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	tu_httpd_stop(&srv);
	return fsutil_rmtree(tmpdir, NULL);
}

#define NEED_SERVER() do { \
	if (no_server != NULL) { \
		fprintf(stderr, "skipped: %s\n", no_server); \
		skip(); \
	} \
} while (0)

static const char *
url(const char *scheme, const char *path)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s://127.0.0.1:%d%s", scheme,
		 strcmp(scheme, "https") == 0 ? srv.https_port : srv.http_port, path);
	return buf[k];
}

static int
ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* ---------------------------------------------------------------- HEAD */

static void
test_head_ok(void **state)
{
	struct net_head h;
	struct kd_err err;
	char hex[65];

	(void)state;
	NEED_SERVER();
	assert_int_equal(net_head(url("http", "/ok"), NULL, &h, &err), 0);
	assert_int_equal(h.status, 200);
	assert_int_equal(h.size, 11);
	assert_string_equal(h.etag, "v1-abc");
	assert_string_equal(h.last_modified, "Tue, 02 Jan 2024 03:04:05 GMT");
	assert_int_equal(h.redirects, 0);
	assert_true(ends_with(h.final_url, "/ok"));
	assert_int_equal(h.method_get, 0);
	assert_int_equal(net_etag_sha256(&h, hex), 0);
}

/* HEAD of an LFS file served at path: it answers, and its headers say the
 * SHA-256 of LFS_BODY (want). */
static void
head_lfs(const char *path, struct net_head *h, char want[65])
{
	struct kd_err err;
	char hex[65];

	hash_buffer(LFS_BODY, strlen(LFS_BODY), want);
	assert_int_equal(net_head(url("http", path), NULL, h, &err), 0);
	assert_int_equal(h->size, (int64_t)strlen(LFS_BODY));
	assert_int_equal(net_etag_sha256(h, hex), 1);
	assert_string_equal(hex, want);
}

static void
test_head_sha256_etag(void **state)
{
	struct net_head h;
	char want[65];

	(void)state;
	NEED_SERVER();
	head_lfs("/lfs", &h, want);
	assert_string_equal(h.etag, want);
}

/* As huggingface.co answers for an LFS file: a redirect carrying
 * X-Linked-Etag and X-Linked-Size, then a CDN with an opaque ETag.  The
 * final response's headers are the ones kept (not the redirect's ETag). */
static void
test_head_hf_linked_etag(void **state)
{
	struct net_head h;
	char want[65];

	(void)state;
	NEED_SERVER();
	head_lfs("/hf/model.bin", &h, want);
	assert_int_equal(h.status, 200);
	assert_int_equal(h.redirects, 1);
	assert_true(ends_with(h.final_url, "/cdn/blob"));
	assert_string_equal(h.etag, "cdn-opaque");
	assert_string_equal(h.linked_etag, want);
	assert_int_equal(h.linked_size, (int64_t)strlen(LFS_BODY));
}

static void
test_head_404_is_a_failure(void **state)
{
	struct net_head h;
	struct kd_err err;

	(void)state;
	NEED_SERVER();
	assert_int_equal(net_head(url("http", "/missing"), NULL, &h, &err), KD_EFAIL);
	assert_string_equal(err.msg, "HTTP 404 Not Found");
	assert_int_equal(h.status, 404);
	assert_int_equal(net_head(url("http", "/unauth"), NULL, &h, &err), KD_EFAIL);
	assert_int_equal(strncmp(err.msg, "HTTP 401 Unauthorized", 21), 0);
}

static void
test_head_follows_redirects(void **state)
{
	struct net_head h;
	struct kd_err err;

	(void)state;
	NEED_SERVER();
	assert_int_equal(net_head(url("http", "/redirect/3"), NULL, &h, &err), 0);
	assert_int_equal(h.status, 200);
	assert_int_equal(h.redirects, 4);
	assert_int_equal(h.size, 11);
	assert_string_equal(h.etag, "v1-abc");
	assert_true(ends_with(h.final_url, "/ok"));
}

static void
test_head_redirect_loop(void **state)
{
	struct net_opts o = { .max_redirects = 3 };
	struct net_head h;
	struct kd_err err;

	(void)state;
	NEED_SERVER();
	assert_int_equal(net_head(url("http", "/loop"), NULL, &h, &err), KD_EFAIL);
	assert_string_equal(err.msg, "too many redirects (10)");
	assert_int_equal(net_head(url("http", "/loop"), &o, &h, &err), KD_EFAIL);
	assert_string_equal(err.msg, "too many redirects (3)");
	/* A finite chain longer than the bound is refused too. */
	assert_int_equal(net_head(url("http", "/redirect/5"), &o, &h, &err), KD_EFAIL);
	assert_string_equal(err.msg, "too many redirects (3)");
}

static void
test_head_timeout(void **state)
{
	struct net_opts o = { .total_timeout_s = 1 };
	struct net_head h;
	struct kd_err err;
	double t0;

	(void)state;
	NEED_SERVER();
	t0 = tu_now_s();
	assert_int_equal(net_head(url("http", "/slow"), &o, &h, &err), KD_EFAIL);
	assert_string_equal(err.msg, "timed out after 1 s");
	assert_true(tu_now_s() - t0 < 3.0);
}

static void
test_head_tls(void **state)
{
	struct net_opts trusted = { .ca_file = cert };
	struct net_opts missing_ca = { .ca_file = "/nonexistent/ca.pem" };
	struct net_head h;
	struct kd_err err;

	(void)state;
	NEED_SERVER();
	/* Self-signed, not among the system's CAs: refused. */
	assert_int_equal(net_head(url("https", "/ok"), NULL, &h, &err), KD_EFAIL);
	assert_int_equal(strncmp(err.msg, "TLS certificate not trusted: ", 29), 0);
	assert_non_null(strstr(err.msg, "self-signed"));
	/* With the certificate as CA: accepted, verification still on. */
	assert_int_equal(net_head(url("https", "/lfs"), &trusted, &h, &err), 0);
	assert_int_equal(h.status, 200);
	assert_int_equal(h.size, (int64_t)strlen(LFS_BODY));
	assert_int_equal(net_head(url("https", "/missing"), &trusted, &h, &err), KD_EFAIL);
	assert_string_equal(err.msg, "HTTP 404 Not Found");
	assert_int_equal(net_head(url("https", "/ok"), &missing_ca, &h, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "cannot use the CA file /nonexistent/ca.pem"));
}

static void
test_head_refused_falls_back_to_get(void **state)
{
	struct net_head h;
	struct kd_err err;

	(void)state;
	NEED_SERVER();
	assert_int_equal(net_head(url("http", "/nohead"), NULL, &h, &err), 0);
	assert_int_equal(h.status, 200);
	assert_int_equal(h.method_get, 1);
	assert_int_equal(h.size, 11);
	assert_string_equal(h.etag, "nohead-1");
}

static void
test_refuses_credentials_and_schemes(void **state)
{
	struct net_head h;
	struct kd_err err;

	(void)state;
	assert_int_equal(net_head("https://alice:s3cret@example.org/w.bin", NULL, &h, &err),
			 KD_EINPUT);
	assert_non_null(strstr(err.msg, "holds credentials"));
	assert_null(strstr(err.msg, "s3cret"));
	assert_null(strstr(err.msg, "alice"));
	assert_int_equal(net_check_url("https://token@example.org/w.bin", &err), KD_EINPUT);
	assert_int_equal(net_check_url("file:///etc/passwd", &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "only http and https"));
	assert_int_equal(net_check_url("ftp://example.org/x", &err), KD_EINPUT);
	assert_int_equal(net_check_url("not a url", &err), KD_EINPUT);
	assert_int_equal(net_check_url("https://example.org/w.bin?rev=1", &err), 0);
	assert_int_equal(net_download("https://u:p@example.org/x", "/nonexistent/x", NULL,
				      NULL, NULL, NULL, &err), KD_EINPUT);
}

static void
test_connection_refused(void **state)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof a;
	struct net_head h;
	struct kd_err err;
	char u[128];
	int s;

	(void)state;
	/* A port that was free a moment ago and has no listener. */
	s = socket(AF_INET, SOCK_STREAM, 0);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)&a, &alen), 0);
	close(s);
	snprintf(u, sizeof u, "http://127.0.0.1:%d/ok", ntohs(a.sin_port));
	assert_int_equal(net_head(u, NULL, &h, &err), KD_EFAIL);
	assert_int_equal(strncmp(err.msg, "cannot connect: ", 16), 0);
}

/* ------------------------------------------------------------ download */

struct dl_log {
	int calls;
	uint64_t last_done, last_total;
	double cancel_at;
};

static void
dl_progress(void *u, uint64_t done, uint64_t total)
{
	struct dl_log *l = u;

	l->calls++;
	l->last_done = done;
	l->last_total = total;
}

static int
dl_cancel_later(void *u)
{
	struct dl_log *l = u;

	return l->cancel_at > 0 && tu_now_s() >= l->cancel_at;
}

/* No leftover "*.part.*" file in tmpdir. */
static int
no_partial_files(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	int clean = 1;

	while (d != NULL && (de = readdir(d)) != NULL)
		if (strstr(de->d_name, ".part.") != NULL)
			clean = 0;
	if (d != NULL)
		closedir(d);
	return clean;
}

static void
test_download_ok(void **state)
{
	struct dl_log l = { 0 };
	struct kd_err err;
	char path[512], got[65], want[65];
	unsigned char *pattern;
	size_t i, n = 3000000;

	(void)state;
	NEED_SERVER();
	pattern = malloc(n);
	assert_non_null(pattern);
	for (i = 0; i < n; i++)
		pattern[i] = (unsigned char)(i % 256);
	hash_buffer(pattern, n, want);
	free(pattern);
	snprintf(path, sizeof path, "%s/big.bin", tmpdir);
	assert_int_equal(net_download(url("http", "/big/3000000"), path, NULL, dl_progress, NULL,
				      &l, &err), 0);
	assert_int_equal(hash_file(path, NULL, NULL, got, NULL, &err), 0);
	assert_string_equal(got, want);
	assert_true(l.calls >= 1);
	assert_int_equal(l.last_done, n);
	assert_int_equal(l.last_total, n);
	assert_true(no_partial_files());

	/* Over TLS with the test's CA, through a redirect. */
	{
		struct net_opts o = { .ca_file = cert };

		snprintf(path, sizeof path, "%s/lfs.bin", tmpdir);
		assert_int_equal(net_download(url("https", "/hf/model.bin"), path, &o, NULL,
					      NULL, NULL, &err), 0);
		hash_buffer(LFS_BODY, strlen(LFS_BODY), want);
		assert_int_equal(hash_file(path, NULL, NULL, got, NULL, &err), 0);
		assert_string_equal(got, want);
	}
}

static void
test_download_404_leaves_nothing(void **state)
{
	struct kd_err err;
	char path[512];

	(void)state;
	NEED_SERVER();
	snprintf(path, sizeof path, "%s/missing.bin", tmpdir);
	assert_int_equal(net_download(url("http", "/missing"), path, NULL, NULL, NULL, NULL,
				      &err), KD_EFAIL);
	assert_string_equal(err.msg, "HTTP 404 Not Found");
	assert_false(fsutil_exists(path));
	assert_true(no_partial_files());
	/* An existing file is kept when a download fails. */
	assert_int_equal(fsutil_write_atomic(path, "old", 3, FSUTIL_RAW, NULL), 0);
	assert_int_equal(net_download(url("http", "/missing"), path, NULL, NULL, NULL, NULL,
				      &err), KD_EFAIL);
	assert_true(fsutil_exists(path));
}

static void
test_download_cancel(void **state)
{
	struct dl_log l = { 0 };
	struct kd_err err;
	char path[512];
	double t0 = tu_now_s();

	(void)state;
	NEED_SERVER();
	l.cancel_at = t0 + 0.3;
	snprintf(path, sizeof path, "%s/drip.bin", tmpdir);
	assert_int_equal(net_download(url("http", "/drip"), path, NULL, dl_progress,
				      dl_cancel_later, &l, &err), KD_EFAIL);
	assert_string_equal(err.msg, "the download was cancelled");
	assert_true(tu_now_s() - t0 < 2.0);
	assert_true(l.calls >= 1);                /* progress came meanwhile */
	assert_int_equal(l.last_total, 1000000);
	assert_false(fsutil_exists(path));
	assert_true(no_partial_files());
}

static void
test_download_stall(void **state)
{
	struct net_opts o = { .total_timeout_s = 1 };
	struct kd_err err;
	char path[512];
	double t0 = tu_now_s();

	(void)state;
	NEED_SERVER();
	snprintf(path, sizeof path, "%s/slow.bin", tmpdir);
	assert_int_equal(net_download(url("http", "/slow"), path, &o, NULL, NULL, NULL, &err),
			 KD_EFAIL);
	assert_string_equal(err.msg, "timed out: nothing received for 1 s");
	assert_true(tu_now_s() - t0 < 4.0);
	assert_false(fsutil_exists(path));
	assert_true(no_partial_files());
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_head_ok),
		cmocka_unit_test(test_head_sha256_etag),
		cmocka_unit_test(test_head_hf_linked_etag),
		cmocka_unit_test(test_head_404_is_a_failure),
		cmocka_unit_test(test_head_follows_redirects),
		cmocka_unit_test(test_head_redirect_loop),
		cmocka_unit_test(test_head_timeout),
		cmocka_unit_test(test_head_tls),
		cmocka_unit_test(test_head_refused_falls_back_to_get),
		cmocka_unit_test(test_refuses_credentials_and_schemes),
		cmocka_unit_test(test_connection_refused),
		cmocka_unit_test(test_download_ok),
		cmocka_unit_test(test_download_404_leaves_nothing),
		cmocka_unit_test(test_download_cancel),
		cmocka_unit_test(test_download_stall),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
