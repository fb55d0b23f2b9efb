/*
 * net.c - provenance checks over HTTP(S) with libcurl.
 *
 * One easy handle per request.  TLS verification stays on (a test passes
 * its own CA file), redirects are followed up to a bound, and only http and
 * https are allowed, also after a redirect.  The header callback keeps the
 * headers of the FINAL response only: every status line starts a new
 * response and clears what the previous one said.  Hugging Face answers a
 * HEAD on a file stored with LFS by a redirect whose own headers carry
 * X-Linked-Etag (the file's SHA-256) and X-Linked-Size; those are kept from
 * whichever response of the chain said them.
 *
 * libcurl calls a 404 a success (CURLE_OK): the status code decides here.
 * Every failure becomes one sentence saying what happened ("HTTP 404 Not
 * Found", "too many redirects (10)", "timed out after 2 s", "TLS
 * certificate not trusted: ...").  A URL holding credentials is refused
 * before anything is sent.
 *
 * net_download writes to a temporary file beside the target and renames it
 * into place after fsync: fsutil_write_atomic cannot be used for a file that
 * may be larger than memory, so the same steps are done here, streaming.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The calls go through pointers filled by dlopen (below), which curl's
 * type-checking macros cannot wrap. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <dlfcn.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/net.h"
#include "kernodeck/redact.h"

#define NET_CONNECT_TIMEOUT_S  10.0
#define NET_TOTAL_TIMEOUT_S    30.0
#define NET_MAX_REDIRECTS      10
#define NET_PROGRESS_NS        100000000LL
#define NET_USER_AGENT         "kernodeck/" PACKAGE_VERSION

/* libcurl is opened when the first URL is looked at, not linked: with the
 * thirty-odd libraries it needs it made up half of every kernodeck start
 * (6 ms of 12 here, and its memory), for the few checks that use the
 * network.  NET_LIBCURL is the soname of libcurl 7.16 and later (Debian's
 * libcurl4, which libcurl4-openssl-dev installs); KD_LIBCURL names another
 * (libcurl-gnutls.so.4, a path). */
#define NET_LIBCURL "libcurl.so.4"

static struct {
	__typeof__(curl_global_init) *global_init;
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_perform) *easy_perform;
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_easy_strerror) *easy_strerror;
	__typeof__(curl_free) *free;
	__typeof__(curl_url) *url;
	__typeof__(curl_url_cleanup) *url_cleanup;
	__typeof__(curl_url_get) *url_get;
	__typeof__(curl_url_set) *url_set;
} cu;

/* curl.h wraps these two in macros that check the argument count */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_global_init   (*cu.global_init)
#define curl_easy_init     (*cu.easy_init)
#define curl_easy_setopt   (*cu.easy_setopt)
#define curl_easy_getinfo  (*cu.easy_getinfo)
#define curl_easy_perform  (*cu.easy_perform)
#define curl_easy_cleanup  (*cu.easy_cleanup)
#define curl_easy_strerror (*cu.easy_strerror)
#define curl_free          (*cu.free)
#define curl_url           (*cu.url)
#define curl_url_cleanup   (*cu.url_cleanup)
#define curl_url_get       (*cu.url_get)
#define curl_url_set       (*cu.url_set)

static pthread_once_t net_once = PTHREAD_ONCE_INIT;
static CURLcode net_init_rc = CURLE_FAILED_INIT;
static char net_load_error[400];

/* dlsym(h, name) into *slot (a function pointer's storage): 0, or -1 with
 * net_load_error filled. */
static int
net_sym(void *h, const char *name, void *slot)
{
	void *f = dlsym(h, name);

	if (f == NULL) {
		snprintf(net_load_error, sizeof net_load_error, "the libcurl opened has no %s", name);
		return -1;
	}
	memcpy(slot, &f, sizeof f);
	return 0;
}

static void
net_global_init(void)
{
	const char *name = getenv("KD_LIBCURL");
	void *h;
	const char *why;

	if (name == NULL || *name == '\0')
		name = NET_LIBCURL;
	h = dlopen(name, RTLD_NOW | RTLD_LOCAL);

	if (h == NULL) {
		why = dlerror();
		snprintf(net_load_error, sizeof net_load_error, "%s", why ? why : name);
		return;
	}
	/* never closed: libcurl stays until the process ends */
	if (net_sym(h, "curl_global_init", &cu.global_init) || net_sym(h, "curl_easy_init", &cu.easy_init) ||
	    net_sym(h, "curl_easy_setopt", &cu.easy_setopt) ||
	    net_sym(h, "curl_easy_getinfo", &cu.easy_getinfo) ||
	    net_sym(h, "curl_easy_perform", &cu.easy_perform) ||
	    net_sym(h, "curl_easy_cleanup", &cu.easy_cleanup) ||
	    net_sym(h, "curl_easy_strerror", &cu.easy_strerror) || net_sym(h, "curl_free", &cu.free) ||
	    net_sym(h, "curl_url", &cu.url) || net_sym(h, "curl_url_cleanup", &cu.url_cleanup) ||
	    net_sym(h, "curl_url_get", &cu.url_get) || net_sym(h, "curl_url_set", &cu.url_set))
		return;
	net_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
	if (net_init_rc != CURLE_OK)
		snprintf(net_load_error, sizeof net_load_error, "curl_global_init failed (%d)",
			 (int)net_init_rc);
}

/* libcurl opened and started: 0, or KD_EENV saying why not. */
static int
net_ready(struct kd_err *err)
{
	if (pthread_once(&net_once, net_global_init) == 0 && net_init_rc == CURLE_OK)
		return 0;
	return kd_err_set(err, KD_EENV, NULL, 0,
			  "libcurl cannot be loaded (%s): install Debian's libcurl4",
			  net_load_error[0] ? net_load_error : "pthread_once failed");
}

/* The options with their defaults filled in. */
struct net_conf {
	double connect_s, total_s;
	int max_redirects;
	const char *ca_file;
};

static void
net_conf_of(const struct net_opts *o, struct net_conf *c)
{
	c->connect_s = o && o->connect_timeout_s > 0 ? o->connect_timeout_s : NET_CONNECT_TIMEOUT_S;
	c->total_s = o && o->total_timeout_s > 0 ? o->total_timeout_s : NET_TOTAL_TIMEOUT_S;
	c->max_redirects = o && o->max_redirects > 0 ? o->max_redirects : NET_MAX_REDIRECTS;
	c->ca_file = o ? o->ca_file : NULL;
}

/* Refuse what must not be sent: a malformed URL, a scheme other than http
 * or https, credentials in the userinfo. */
int
net_check_url(const char *url, struct kd_err *err)
{
	CURLU *u;
	char *scheme = NULL, *user = NULL, *pass = NULL, *shown;
	int had = 0, rc = 0;

	if ((rc = net_ready(err)) != 0)
		return rc;
	u = curl_url();
	if (u == NULL)
		return kd_err_sys(err, KD_EENV, NULL, ENOMEM, "cannot parse a URL");
	shown = redact_url(url, &had);
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK) {
		rc = kd_err_set(err, KD_EINPUT, NULL, 0, "not a valid URL: %s",
				shown ? shown : "(unprintable)");
		goto out;
	}
	curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
	if (scheme == NULL || (strcasecmp(scheme, "http") != 0 && strcasecmp(scheme, "https") != 0)) {
		rc = kd_err_set(err, KD_EINPUT, NULL, 0,
				"only http and https URLs can be checked, not %s", shown ? shown : "this one");
		goto out;
	}
	curl_url_get(u, CURLUPART_USER, &user, 0);
	curl_url_get(u, CURLUPART_PASSWORD, &pass, 0);
	if (had || (user != NULL && *user != '\0') || (pass != NULL && *pass != '\0'))
		rc = kd_err_set(err, KD_EINPUT, NULL, 0,
				"the URL holds credentials (user:password@): kernodeck never stores "
				"or sends them; record the URL without them (%s) and say how access "
				"is obtained", shown ? shown : "stripped");
out:
	curl_free(scheme);
	curl_free(user);
	curl_free(pass);
	free(shown);
	curl_url_cleanup(u);
	return rc;
}

/* ------------------------------------------------------------- headers */

struct hdr_state {
	struct net_head *h;
	char reason[128];        /* of the last status line */
	long code;               /* of the last status line */
};

/* Copy a header value, without surrounding blanks, into dst. */
static void
hdr_value(char *dst, size_t cap, const char *v, size_t len)
{
	while (len > 0 && (*v == ' ' || *v == '\t')) {
		v++;
		len--;
	}
	while (len > 0 && (v[len - 1] == '\r' || v[len - 1] == '\n' || v[len - 1] == ' ' ||
			   v[len - 1] == '\t'))
		len--;
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, v, len);
	dst[len] = '\0';
}

/* An ETag without its W/ prefix and quotes. */
static void
etag_clean(char *e)
{
	size_t len;

	if (strncmp(e, "W/", 2) == 0)
		memmove(e, e + 2, strlen(e + 2) + 1);
	len = strlen(e);
	if (len >= 2 && e[0] == '"' && e[len - 1] == '"') {
		memmove(e, e + 1, len - 2);
		e[len - 2] = '\0';
	}
}

/* Copy src into dst, cut to fit. */
static void
copy_cut(char *dst, size_t cap, const char *src)
{
	size_t len = strlen(src);

	if (len >= cap)
		len = cap - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static int64_t
parse_size(const char *v)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno != 0 || end == v || *end != '\0' || n < 0)
		return -1;
	return (int64_t)n;
}

/* Each header line of each response; a status line starts over. */
static size_t
hdr_cb(char *buf, size_t size, size_t nitems, void *arg)
{
	struct hdr_state *s = arg;
	struct net_head *h = s->h;
	size_t len = size * nitems;
	const char *colon;
	char v[512];
	size_t nlen;

	if (len >= 5 && strncmp(buf, "HTTP/", 5) == 0) {
		const char *sp = memchr(buf, ' ', len);

		h->size = -1;
		h->etag[0] = h->last_modified[0] = '\0';
		s->code = 0;
		s->reason[0] = '\0';
		if (sp != NULL) {
			hdr_value(v, sizeof v, sp, len - (size_t)(sp - buf));
			s->code = strtol(v, NULL, 10);
			if (strlen(v) > 4)
				copy_cut(s->reason, sizeof s->reason, v + 4);
		}
		return len;
	}
	colon = memchr(buf, ':', len);
	if (colon == NULL)
		return len;
	nlen = (size_t)(colon - buf);
	hdr_value(v, sizeof v, colon + 1, len - nlen - 1);
#define HDR_IS(name) (nlen == sizeof(name) - 1 && strncasecmp(buf, name, nlen) == 0)
	if (HDR_IS("content-length")) {
		h->size = parse_size(v);
	} else if (HDR_IS("etag")) {
		copy_cut(h->etag, sizeof h->etag, v);
		etag_clean(h->etag);
	} else if (HDR_IS("last-modified")) {
		copy_cut(h->last_modified, sizeof h->last_modified, v);
	} else if (HDR_IS("x-linked-etag")) {
		copy_cut(h->linked_etag, sizeof h->linked_etag, v);
		etag_clean(h->linked_etag);
	} else if (HDR_IS("x-linked-size")) {
		h->linked_size = parse_size(v);
	}
#undef HDR_IS
	return len;
}

/* ------------------------------------------------------------- errors */

static const char *
status_reason(long code)
{
	switch (code) {
	case 300: return "Multiple Choices";
	case 301: return "Moved Permanently";
	case 302: return "Found";
	case 303: return "See Other";
	case 304: return "Not Modified";
	case 307: return "Temporary Redirect";
	case 308: return "Permanent Redirect";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 410: return "Gone";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	default: return "";
	}
}

static int
status_fail(long code, const char *reason, struct kd_err *err)
{
	const char *r = reason != NULL && *reason != '\0' ? reason : status_reason(code);
	const char *hint = "";

	if (code == 401 || code == 403)
		hint = " (access must be granted: see the item's access procedure)";
	return kd_err_set(err, KD_EFAIL, NULL, 0, "HTTP %ld%s%s%s", code, *r ? " " : "", r, hint);
}

/* Turn a curl failure into one sentence. */
static int
curl_fail(CURLcode cc, const char *errbuf, const struct net_conf *c, CURL *e,
	  int download, struct kd_err *err)
{
	curl_off_t connect_us = 0;
	const char *detail = errbuf != NULL && *errbuf != '\0' ? errbuf : curl_easy_strerror(cc);

	switch (cc) {
	case CURLE_TOO_MANY_REDIRECTS:
		return kd_err_set(err, KD_EFAIL, NULL, 0, "too many redirects (%d)", c->max_redirects);
	case CURLE_OPERATION_TIMEDOUT:
		curl_easy_getinfo(e, CURLINFO_CONNECT_TIME_T, &connect_us);
		if (connect_us == 0)
			return kd_err_set(err, KD_EFAIL, NULL, 0, "no connection within %g s",
					  c->connect_s);
		if (download)
			return kd_err_set(err, KD_EFAIL, NULL, 0,
					  "timed out: nothing received for %g s", c->total_s);
		return kd_err_set(err, KD_EFAIL, NULL, 0, "timed out after %g s", c->total_s);
	case CURLE_PEER_FAILED_VERIFICATION:
		return kd_err_set(err, KD_EFAIL, NULL, 0, "TLS certificate not trusted: %s", detail);
	case CURLE_SSL_CACERT_BADFILE:
		return kd_err_set(err, KD_EINPUT, c->ca_file, 0, "cannot use the CA file %s: %s",
				  c->ca_file ? c->ca_file : "(system)", detail);
	case CURLE_SSL_CONNECT_ERROR:
		return kd_err_set(err, KD_EFAIL, NULL, 0, "TLS handshake failed: %s", detail);
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return kd_err_set(err, KD_EFAIL, NULL, 0, "cannot resolve the host name: %s", detail);
	case CURLE_COULDNT_CONNECT:
		return kd_err_set(err, KD_EFAIL, NULL, 0, "cannot connect: %s", detail);
	case CURLE_UNSUPPORTED_PROTOCOL:
		return kd_err_set(err, KD_EFAIL, NULL, 0,
				  "redirected to a URL that is not http or https: %s", detail);
	case CURLE_ABORTED_BY_CALLBACK:
		return kd_err_set(err, KD_EFAIL, NULL, 0, "the download was cancelled");
	case CURLE_PARTIAL_FILE:
		return kd_err_set(err, KD_EFAIL, NULL, 0,
				  "the connection closed before the whole file came: %s", detail);
	default:
		return kd_err_set(err, KD_EFAIL, NULL, 0, "%s", detail);
	}
}

/* --------------------------------------------------------------- HEAD */

static CURL *
easy_new(const char *url, const struct net_conf *c, char *errbuf)
{
	CURL *e;

	e = curl_easy_init();
	if (e == NULL)
		return NULL;
	errbuf[0] = '\0';
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_USERAGENT, NET_USER_AGENT);
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(e, CURLOPT_MAXREDIRS, (long)c->max_redirects);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)ceil(c->connect_s * 1000));
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(e, CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
	if (c->ca_file != NULL)
		curl_easy_setopt(e, CURLOPT_CAINFO, c->ca_file);
	return e;
}

/* A GET whose body is refused at its first byte: for servers that do not
 * answer HEAD (405, 501) or sign the method into the URL (S3, 403). */
static size_t
body_refuse(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)size;
	(void)n;
	*(int *)arg = 1;
	return 0;
}

static int
head_once(const char *url, const struct net_conf *c, int as_get, struct net_head *h,
	  struct hdr_state *s, struct kd_err *err)
{
	char errbuf[CURL_ERROR_SIZE];
	CURL *e;
	CURLcode cc;
	char *eff = NULL;
	long redirects = 0;
	int refused = 0, rc = 0;

	if ((rc = net_ready(err)) != 0)
		return rc;
	e = easy_new(url, c, errbuf);
	if (e == NULL)
		return kd_err_set(err, KD_EENV, NULL, 0, "libcurl cannot start");
	memset(h, 0, sizeof *h);
	h->size = h->linked_size = -1;
	memset(s, 0, sizeof *s);
	s->h = h;
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)ceil(c->total_s * 1000));
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, hdr_cb);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, s);
	if (as_get) {
		curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, body_refuse);
		curl_easy_setopt(e, CURLOPT_WRITEDATA, &refused);
	} else {
		curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
	}
	cc = curl_easy_perform(e);
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &h->status);
	curl_easy_getinfo(e, CURLINFO_REDIRECT_COUNT, &redirects);
	h->redirects = (int)redirects;
	if (curl_easy_getinfo(e, CURLINFO_EFFECTIVE_URL, &eff) == CURLE_OK && eff != NULL)
		copy_cut(h->final_url, sizeof h->final_url, eff);
	if (cc == CURLE_WRITE_ERROR && refused)
		cc = CURLE_OK;
	if (cc != CURLE_OK)
		rc = curl_fail(cc, errbuf, c, e, 0, err);
	else if (h->status < 200 || h->status > 299)
		rc = status_fail(h->status, s->reason, err);
	curl_easy_cleanup(e);
	return rc;
}

int
net_head(const char *url, const struct net_opts *o, struct net_head *h,
	 struct kd_err *err)
{
	struct net_conf c;
	struct hdr_state s;
	int rc;

	memset(h, 0, sizeof *h);
	h->size = h->linked_size = -1;
	rc = net_check_url(url, err);
	if (rc != 0)
		return rc;
	net_conf_of(o, &c);
	rc = head_once(url, &c, 0, h, &s, err);
	if (rc == KD_EFAIL && (h->status == 403 || h->status == 405 || h->status == 501)) {
		rc = head_once(url, &c, 1, h, &s, err);
		h->method_get = 1;
	}
	return rc;
}

int
net_etag_sha256(const struct net_head *h, char hex[65])
{
	const char *cands[2];
	size_t i, k;

	cands[0] = h->linked_etag;
	cands[1] = h->etag;
	for (i = 0; i < 2; i++) {
		if (strlen(cands[i]) != 64)
			continue;
		for (k = 0; k < 64; k++) {
			char ch = cands[i][k];

			if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') ||
			      (ch >= 'A' && ch <= 'F')))
				break;
			hex[k] = (char)(ch >= 'A' && ch <= 'F' ? ch - 'A' + 'a' : ch);
		}
		if (k == 64) {
			hex[64] = '\0';
			return 1;
		}
	}
	hex[0] = '\0';
	return 0;
}

/* ----------------------------------------------------------- download */

struct dl_state {
	int fd;
	int werr;                         /* errno of a failed write */
	void (*on_progress)(void *u, uint64_t done, uint64_t total);
	int (*cancelled)(void *u);
	void *u;
	int64_t last_ns;
	uint64_t done, total;
};

static int64_t
mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static size_t
dl_write(char *p, size_t size, size_t n, void *arg)
{
	struct dl_state *d = arg;
	size_t len = size * n, left = len;
	ssize_t w;

	while (left > 0) {
		w = write(d->fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			d->werr = errno;
			return 0;
		}
		p += w;
		left -= (size_t)w;
	}
	d->done += len;
	return len;
}

static int
dl_xfer(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	struct dl_state *d = arg;
	int64_t t;

	(void)ultotal;
	(void)ulnow;
	if (d->cancelled != NULL && d->cancelled(d->u))
		return 1;
	if (dltotal > 0)
		d->total = (uint64_t)dltotal;
	t = mono_ns();
	if (d->on_progress != NULL && t - d->last_ns >= NET_PROGRESS_NS) {
		d->last_ns = t;
		d->on_progress(d->u, (uint64_t)dlnow, d->total);
	}
	return 0;
}

/* Run the GET into d->fd; 0 or KD_E* with err. */
static int
download_into(const char *url, const struct net_conf *c, struct dl_state *d,
	      struct kd_err *err)
{
	char errbuf[CURL_ERROR_SIZE];
	struct net_head h;
	struct hdr_state s;
	CURL *e;
	CURLcode cc;
	long status = 0;
	int rc = 0;

	if ((rc = net_ready(err)) != 0)
		return rc;
	e = easy_new(url, c, errbuf);
	if (e == NULL)
		return kd_err_set(err, KD_EENV, NULL, 0, "libcurl cannot start");
	memset(&h, 0, sizeof h);
	memset(&s, 0, sizeof s);
	s.h = &h;
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, hdr_cb);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, &s);
	curl_easy_setopt(e, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, dl_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, d);
	curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, dl_xfer);
	curl_easy_setopt(e, CURLOPT_XFERINFODATA, d);
	/* A large file may take hours: the total timeout is a stall timeout. */
	curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, (long)ceil(c->total_s));
	cc = curl_easy_perform(e);
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
	if (cc == CURLE_WRITE_ERROR && d->werr != 0)
		rc = kd_err_sys(err, KD_EENV, NULL, d->werr, "cannot write the download");
	else if (cc == CURLE_HTTP_RETURNED_ERROR || (cc == CURLE_OK && (status < 200 || status > 299)))
		rc = status_fail(status, s.reason, err);
	else if (cc != CURLE_OK)
		rc = curl_fail(cc, errbuf, c, e, 1, err);
	if (rc == 0 && d->on_progress != NULL)
		d->on_progress(d->u, d->done, d->total ? d->total : d->done);
	curl_easy_cleanup(e);
	return rc;
}

int
net_download(const char *url, const char *path, const struct net_opts *o,
	     void (*on_progress)(void *u, uint64_t done, uint64_t total),
	     int (*cancelled)(void *u), void *u, struct kd_err *err)
{
	struct net_conf c;
	struct dl_state d;
	char tmp[PATH_MAX];
	int rc;

	rc = net_check_url(url, err);
	if (rc != 0)
		return rc;
	net_conf_of(o, &c);
	if (snprintf(tmp, sizeof tmp, "%s.part.XXXXXX", path) >= (int)sizeof tmp)
		return kd_err_set(err, KD_EINPUT, path, 0, "%s: path too long", path);
	memset(&d, 0, sizeof d);
	d.on_progress = on_progress;
	d.cancelled = cancelled;
	d.u = u;
	d.last_ns = mono_ns();
	d.fd = mkostemp(tmp, O_CLOEXEC);
	if (d.fd < 0)
		return kd_err_sys(err, KD_EENV, path, errno, "cannot write %s", path);
	fchmod(d.fd, 0644);
	rc = download_into(url, &c, &d, err);
	if (rc == 0 && fsync(d.fd) < 0)
		rc = kd_err_sys(err, KD_EENV, path, errno, "cannot write %s", path);
	if (close(d.fd) < 0 && rc == 0)
		rc = kd_err_sys(err, KD_EENV, path, errno, "cannot write %s", path);
	if (rc == 0 && rename(tmp, path) < 0)
		rc = kd_err_sys(err, KD_EENV, path, errno, "cannot write %s", path);
	if (rc != 0) {
		unlink(tmp);
		return rc;
	}
	fsutil_fsync_parent(path);
	return 0;
}
