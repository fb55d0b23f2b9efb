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
};

struct net_opts {
	double connect_timeout_s;  /* 0: 10 s */
	double total_timeout_s;    /* 0: 30 s */
	int max_redirects;         /* 0: 10 */
	const char *ca_file;       /* NULL: system CAs (tests pass their own) */
};

/* HEAD url.  0 when a final 2xx answered; KD_EFAIL with err for 4xx/5xx,
 * too many redirects, timeouts, TLS errors (the message says which). */
int net_head(const char *url, const struct net_opts *o, struct net_head *h,
	     struct kd_err *err);
/* GET url into path (atomically, raw), with progress and cancellation. */
int net_download(const char *url, const char *path, const struct net_opts *o,
		 void (*on_progress)(void *u, uint64_t done, uint64_t total),
		 int (*cancelled)(void *u), void *u, struct kd_err *err);

#endif
