/*
 * hash.h - SHA-256 of files and folders (OpenSSL EVP), on all cores, cached.
 *
 * Files are streamed in large reads.  hash_files() spreads several files
 * over worker threads (one per core).  Digests are cached under
 * STATE_DIR/cache/ keyed by (device, inode, size, mtime, ctime): a file
 * whose identity did not change is not read again.  Progress (bytes done,
 * total, rate) goes to a callback; cancellation is polled between reads.
 * A file that changes while it is hashed is reported (KD_EINPUT).
 *
 * Threads: on_progress is called from one thread at a time (under a mutex),
 * at most ten times a second and once at the end; cancelled() is polled
 * before every read (128 KiB) by every worker, possibly at the same time, so
 * it must be thread-safe (reading a flag is enough).  A digest is cached only when the file's ctime
 * is at least 50 ms older than the end of its read (a "racily clean" file
 * is read again next time), so a file changed twice in one timestamp tick
 * is never answered from the cache.
 */
#ifndef KD_HASH_H
#define KD_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "kernodeck/err.h"

struct hash_cache;   /* opaque; NULL means no cache */

#define KD_CAP_DIGEST_CACHE  (64u * 1024 * 1024)  /* cache/digests.tsv */
#define KD_CAP_DIGEST_ENTRIES 250000u             /* lines written back to it */
#define KD_CAP_FOLDER_FILES  1000000u             /* files in one folder item */
#define KD_CAP_FOLDER_DEPTH  256                  /* nesting of a folder item */

struct hash_progress {
	void (*on_progress)(void *u, uint64_t done, uint64_t total, double rate_bps);
	int (*cancelled)(void *u);
	void *u;
};

struct hash_job {
	const char *path;        /* in */
	char hex[65];            /* out: lowercase hex digest */
	uint64_t size;           /* out */
	int from_cache;          /* out: 1 when the cache answered */
	int rc;                  /* out: 0 or KD_E* */
	struct kd_err err;       /* out when rc != 0 */
	int worker;              /* out: the worker (0..threads-1) that took it, or -1 */
};

/* Open (creating) the digest cache in dir (STATE_DIR/cache). */
struct hash_cache *hash_cache_open(const char *dir, struct kd_err *err);
/* Write the cache back (atomically) and free it. */
void hash_cache_close(struct hash_cache *c);
/* Write the cache back now when it changed (close does it too, silently). */
int hash_cache_flush(struct hash_cache *c, struct kd_err *err);
/* Lookups answered and not answered since open, and entries held. */
void hash_cache_stats(struct hash_cache *c, uint64_t *hits, uint64_t *misses,
		      size_t *entries);

/* One file. */
int hash_file(const char *path, struct hash_cache *c, const struct hash_progress *p,
	      char hex[65], uint64_t *size, struct kd_err *err);
/* Several files on `threads` workers (0: one per online core).  Returns 0
 * when every job ran (check each job's rc), KD_EFAIL when cancelled. */
int hash_files(struct hash_job *jobs, size_t n, int threads, struct hash_cache *c,
	       const struct hash_progress *p);
/* A folder: digest over its sorted manifest of lines "SHA256  SIZE  RELPATH\n"
 * (regular files, recursively; symlinks are refused).  *manifest gets the
 * manifest text (malloc'd) when not NULL. */
int hash_folder(const char *dir, struct hash_cache *c, const struct hash_progress *p,
		char hex[65], uint64_t *total_size, char **manifest, struct kd_err *err);
/* Digest of a memory buffer. */
void hash_buffer(const void *data, size_t len, char hex[65]);
/* Is s exactly 64 hex digits (either case)? */
int hash_is_hex(const char *s);

/* `kernodeck inspect sha256 PATH`: {path, kind: file|folder, size, sha256,
 * and for a folder manifest: [{path, size, sha256}]} (no cache). */
struct json_t;
int inspect_sha256(const char *path, struct json_t **out, struct kd_err *err);

#endif
