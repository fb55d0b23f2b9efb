/*
 * net.h - provenance checks over HTTP(S) with libcurl.
 *
 * HEAD with redirects followed (bounded), TLS verification on, connect and
 * total timeouts, no credentials stored (a URL with userinfo is refused:
 * the caller strips it and warns).  libcurl returns success on HTTP 404:
 * the status code is checked here.
 */
#ifndef KD_NET_H
#define KD_NET_H

#include <stdint.h>

#include "kernodeck/err.h"

struct net_head {
	long status;             /* final HTTP status */
	char final_url[2048];
	int64_t size;            /* Content-Length, or -1 */
	char etag[256];          /* without quotes and W/ prefix */
	char last_modified[128];
	int redirects;
	char linked_etag[256];   /* X-Linked-Etag of any response (Hugging Face LFS), or "" */
	int64_t linked_size;     /* X-Linked-Size, or -1 */
	int method_get;          /* 1 when HEAD was refused (403/405/501) and a GET answered */
};

struct net_opts {
	double connect_timeout_s;  /* 0: 10 s */
	double total_timeout_s;    /* 0: 30 s; for net_download, a stall timeout:
				    * less than 1 byte/s for that long stops it */
	int max_redirects;         /* 0: 10 */
	const char *ca_file;       /* NULL: system CAs (tests pass their own) */
};

/* HEAD url.  0 when a final 2xx answered; KD_EFAIL with err for 4xx/5xx,
 * too many redirects, timeouts, TLS errors (the message says which). */
int net_head(const char *url, const struct net_opts *o, struct net_head *h,
	     struct kd_err *err);
/* The SHA-256 the server gives for the file, from X-Linked-Etag or ETag
 * when one of them is 64 hex digits: 1 and hex (lowercase), else 0. */
int net_etag_sha256(const struct net_head *h, char hex[65]);
/* 0 for an http(s) URL without credentials; KD_EINPUT saying why not. */
int net_check_url(const char *url, struct kd_err *err);
/* GET url into path (atomically, raw), with progress and cancellation. */
int net_download(const char *url, const char *path, const struct net_opts *o,
		 void (*on_progress)(void *u, uint64_t done, uint64_t total),
		 int (*cancelled)(void *u), void *u, struct kd_err *err);

#endif
