/*
 * ctx.c - a project opened: folders, lock, state, reference, observations;
 * and stage_run(), the one place where a stage is gathered, judged and
 * recorded, for the walkthrough and for `kernodeck check` alike.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The identity uses OpenSSL's SHA256_Init/Update/Final, deprecated in
 * OpenSSL 3 in favour of EVP: they call the same SHA-256 code without
 * starting OpenSSL's providers, which EVP does at its first digest, for
 * 2 MB of memory: more than the rest of a walkthrough start.  The identity
 * is a digest of a few KiB in memory; files are hashed with EVP (hash.c). */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>

#include "kernodeck/caps.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/lock.h"
#include "kernodeck/paths.h"
#include "kernodeck/secrets.h"
#include "kernodeck/stage.h"
#include "kernodeck/yamlpatch.h"

void
kd_ref_identity(const json_t *ref, char out[65])
{
	size_t len = 0;
	char *s = yamlio_dump(ref, YAMLIO_SORT_KEYS, &len);
	unsigned char md[SHA256_DIGEST_LENGTH];
	SHA256_CTX c;

	SHA256_Init(&c);
	SHA256_Update(&c, s ? s : "", s ? len : 0);
	SHA256_Final(md, &c);
	for (unsigned i = 0; i < SHA256_DIGEST_LENGTH; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	out[64] = '\0';
	free(s);
}

char *
kd_ctx_path(const struct kd_ctx *ctx, const char *rel)
{
	return fsutil_join(ctx->state_dir, rel);
}

const char *
kd_ctx_relpath(const struct kd_ctx *ctx, const char *f)
{
	size_t n = strlen(ctx->state_dir);

	if (strncmp(f, ctx->state_dir, n) == 0 && f[n] == '/')
		return f + n + 1;
	return f;
}

double
kd_env_seconds(const char *name, double dflt)
{
	const char *s = getenv(name);
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return dflt;
	v = strtod(s, &end);
	return (*end == '\0' && v > 0) ? v : dflt;
}

static pthread_mutex_t own_logs_lock = PTHREAD_MUTEX_INITIALIZER;

char *
kd_ctx_log_path(const struct kd_ctx *ctx, const char *what)
{
	char suffix[256];
	char *dir = kd_ctx_path(ctx, "logs"), *p;

	fsutil_mkdirs(dir, NULL);
	snprintf(suffix, sizeof suffix, "-%s.log", what);
	/* this run's: never pruned while it runs (logkeep.h).  Two steps
	 * may name their logs at once (step_pip_pair, step_prefetch), and
	 * one may be named while a stage prunes: the name is taken and
	 * recorded under the lock that kd_ctx_own_log takes. */
	pthread_mutex_lock(&own_logs_lock);
	p = fsutil_stamped_name(dir, "", suffix);
	if (p != NULL && ctx->own_logs != NULL)
		json_object_set_new(ctx->own_logs, strrchr(p, '/') + 1, json_true());
	pthread_mutex_unlock(&own_logs_lock);
	free(dir);
	return p;
}

int
kd_ctx_own_log(const struct kd_ctx *ctx, const char *name)
{
	int own;

	pthread_mutex_lock(&own_logs_lock);
	own = json_object_get(ctx->own_logs, name) != NULL;
	pthread_mutex_unlock(&own_logs_lock);
	return own;
}

/* The observations of the stages, each read from its obs_file when first
 * asked for (kd_ctx_obs), or set by kd_ctx_save_obs. */
struct kd_obs_cache {
	json_t *tree[KD_NSTAGES];
	unsigned char known[KD_NSTAGES];   /* tree is what there is: loaded or set */
};

json_t *
kd_ctx_obs(const struct kd_ctx *ctx, int i)
{
	struct kd_obs_cache *c = ctx->obs;
	const char *f;

	if (c == NULL || i < 0 || i >= KD_NSTAGES)
		return NULL;
	if (!c->known[i]) {
		c->known[i] = 1;
		f = stage_obs_file(i);
		if (f != NULL && ctx->state_dir != NULL) {
			struct yamlio_doc doc;
			char *p = kd_ctx_path(ctx, f);
			/* a missing or malformed file: no observations (the
			 * stage shows as not observed and runs again) */
			if (fsutil_exists(p) && yamlio_load_file(p, &doc, NULL) == 0) {
				/* cut short (no end mark): not observed either */
				if (yamlio_require_end(&doc, NULL) == 0)
					c->tree[i] = json_incref(doc.root);
				yamlio_doc_free(&doc);
			}
			free(p);
		}
	}
	return c->tree[i];
}

/* Stages checked against another reference identity are stale. */
static void
mark_stale_by_identity(struct kd_ctx *ctx)
{
	for (int i = 0; i < KD_NSTAGES; i++) {
		struct kd_stage_state *ss = &ctx->state.st[i];
		if ((ss->status == KD_ST_PASSED || ss->status == KD_ST_DEVIATION) &&
		    ss->checked_ref[0] != '\0' && strcmp(ss->checked_ref, ctx->ref_id) != 0)
			ss->status = KD_ST_STALE;
	}
}

/* The reference's schema: absent means 1; a newer one is refused (a newer
 * kernodeck wrote it), never rewritten. */
static int
ref_check_schema(const char *path, const struct yamlio_doc *doc, struct kd_err *err)
{
	json_t *x = json_object_get(doc->root, "schema");

	if (x == NULL)
		return 0;
	if (!json_is_integer(x))
		return kd_err_set(err, KD_EINPUT, path, yamlio_line_of(doc, x),
				  "%s: \"schema\" must be a whole number (1)", path);
	if (json_integer_value(x) != KD_REF_SCHEMA)
		return kd_err_set(err, KD_EINPUT, path, yamlio_line_of(doc, x),
				  "%s: schema %" JSON_INTEGER_FORMAT " is not supported (this kernodeck "
				  "reads reference schema %d%s)", path, json_integer_value(x),
				  KD_REF_SCHEMA, json_integer_value(x) > KD_REF_SCHEMA ?
				  "; a newer kernodeck wrote it" : "");
	return 0;
}

/* ---- the reference identity's cache ----
 *
 * The identity is a canonical dump (libyaml) and a SHA-256 of the
 * reference, a third of the instructions of a start.  A start whose
 * reference.yaml is unchanged reads it from
 * cache/reference-identity instead: one line keyed by the kernodeck version
 * and the file's (device, inode, size, mtime, ctime), like the digest cache
 * (src/lib/hash.c).  Any change to the file changes its ctime, so the identity
 * is computed again; an entry is only written for a file whose ctime is
 * REFID_RACY_NS older than now ("racily clean": a second write within the
 * same timestamp tick could go unnoticed), and a file that changed while it
 * was read is never cached. */
#define REFID_CACHE_FILE "cache/reference-identity"
#define REFID_CACHE_TAG  "kernodeck-reference-identity 1"
#define REFID_RACY_NS        50000000LL     /* as HASH_RACY_NS */
#define REFID_RACY_COARSE_NS 2000000000LL   /* file systems with 1-2 s stamps */

static int
same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
		a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
		a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* The cache line for a reference file with stat st (without the identity). */
static void
refid_key(const struct stat *st, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s %" PRIuMAX " %" PRIuMAX " %" PRIdMAX " %" PRIdMAX ".%09ld %"
		 PRIdMAX ".%09ld", REFID_CACHE_TAG, PACKAGE_VERSION, (uintmax_t)st->st_dev,
		 (uintmax_t)st->st_ino, (intmax_t)st->st_size, (intmax_t)st->st_mtim.tv_sec,
		 (long)st->st_mtim.tv_nsec, (intmax_t)st->st_ctim.tv_sec, (long)st->st_ctim.tv_nsec);
}

/* Remember reference.yaml as it is on disk now (stat st, or none when st is
 * NULL): kd_ctx_ref_moved compares with it. */
static void
ref_stamp(struct kd_ctx *ctx, const struct stat *st)
{
	if (st == NULL)
		snprintf(ctx->ref_stamp, sizeof ctx->ref_stamp, "absent");
	else
		refid_key(st, ctx->ref_stamp, sizeof ctx->ref_stamp);
}

/* ref_stamp from a fresh stat of reference.yaml. */
static void
ref_stamp_now(struct kd_ctx *ctx)
{
	struct stat st;

	ref_stamp(ctx, stat(ctx->ref_path, &st) == 0 ? &st : NULL);
}

int
kd_ctx_ref_moved(const struct kd_ctx *ctx)
{
	struct stat st;
	char now[sizeof ctx->ref_stamp];

	if (ctx->ref_path == NULL)
		return 0;
	if (stat(ctx->ref_path, &st) == 0)
		refid_key(&st, now, sizeof now);
	else
		snprintf(now, sizeof now, "absent");
	return strcmp(now, ctx->ref_stamp) != 0;
}

/* 0 and out filled when the cache holds the identity of the file with stat
 * st; -1 otherwise (no cache, another key, anything malformed). */
static int
refid_cached(const struct kd_ctx *ctx, const struct stat *st, char out[65])
{
	char key[256], *p = kd_ctx_path(ctx, REFID_CACHE_FILE), *buf = NULL, *id;
	size_t len = 0, klen;
	int rc = -1;

	refid_key(st, key, sizeof key);
	klen = strlen(key);
	if (p == NULL || fsutil_read_file(p, 1024, &buf, &len, NULL) != 0)
		goto out;
	/* KEY ' ' 64 lowercase hex digits '\n', nothing else */
	if (len != klen + 1 + 64 + 1 || memcmp(buf, key, klen) != 0 || buf[klen] != ' ' ||
	    buf[len - 1] != '\n')
		goto out;
	id = buf + klen + 1;
	for (int i = 0; i < 64; i++)
		if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
			goto out;
	memcpy(out, id, 64);
	out[64] = '\0';
	rc = 0;
out:
	free(buf);
	free(p);
	return rc;
}

/* Record id as the identity of the file with stat st, when it is not racy;
 * a failure only costs a digest at the next start. */
static void
refid_store(const struct kd_ctx *ctx, const struct stat *st, const char *id)
{
	struct timespec now;
	long long margin = REFID_RACY_NS, ctime_ns, now_ns;
	char line[400], *dir, *p;

	if (ctx->readonly || clock_gettime(CLOCK_REALTIME, &now) != 0)
		return;
	if (st->st_mtim.tv_nsec == 0 && st->st_ctim.tv_nsec == 0)
		margin = REFID_RACY_COARSE_NS;
	ctime_ns = (long long)st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec;
	now_ns = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
	if (ctime_ns + margin > now_ns)
		return;
	refid_key(st, line, sizeof line - 66);
	snprintf(line + strlen(line), 67, " %s\n", id);
	dir = kd_ctx_path(ctx, "cache");
	p = kd_ctx_path(ctx, REFID_CACHE_FILE);
	/* digits and hex only: nothing for redaction to find */
	if (dir != NULL && p != NULL && fsutil_mkdirs(dir, NULL) == 0)
		fsutil_write_atomic(p, line, strlen(line), FSUTIL_RAW, NULL);
	free(dir);
	free(p);
}

static int
load_ref(struct kd_ctx *ctx, struct kd_err *err)
{
	struct stat before, after;
	json_t *strict;
	int rc, known;

	if (!fsutil_exists(ctx->ref_path)) {
		ctx->ref = json_object();
		kd_ref_identity(ctx->ref, ctx->ref_id);
		ref_stamp(ctx, NULL);
		return 0;
	}
	known = stat(ctx->ref_path, &before) == 0;
	ref_stamp(ctx, known ? &before : NULL);
	rc = yamlio_load_file(ctx->ref_path, &ctx->refdoc, err);
	if (rc != 0)
		return rc;
	/* the identity's cache key: the file as it was while it was read */
	known = known && stat(ctx->ref_path, &after) == 0 && same_stat(&before, &after);
	if (!json_is_object(ctx->refdoc.root))
		return kd_err_set(err, KD_EINPUT, ctx->ref_path,
				  yamlio_line_of(&ctx->refdoc, ctx->refdoc.root),
				  "%s: the reference must be a mapping", ctx->ref_path);
	if ((rc = ref_check_schema(ctx->ref_path, &ctx->refdoc, err)) != 0)
		return rc;
	ctx->ref = json_incref(ctx->refdoc.root);
	if (!known || refid_cached(ctx, &after, ctx->ref_id) != 0) {
		kd_ref_identity(ctx->ref, ctx->ref_id);
		if (known)
			refid_store(ctx, &after, ctx->ref_id);
	}
	strict = json_object_get(ctx->ref, "strict");
	if (json_is_true(strict))
		ctx->strict = 1;
	return 0;
}

int
kd_ctx_open(struct kd_ctx *ctx, const char *project_dir, const char *state_dir,
	    int lock_mode, struct kd_err *err)
{
	struct stat st;
	const char *py;
	int rc;

	memset(ctx, 0, sizeof *ctx);	/* state_load initialises the state */
	ctx->timeout_install = 3600;
	ctx->timeout_probe = 300;
	ctx->timeout_sample = 1800;
	ctx->own_logs = json_object();
	ctx->project_dir = kd_abspath(project_dir ? project_dir : ".");
	if (stat(ctx->project_dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return kd_err_set(err, KD_EINPUT, ctx->project_dir, 0,
				  "%s is not a folder", ctx->project_dir);
	/* the project's own git configuration, hidden by value like main's */
	secrets_collect_project(ctx->project_dir);
	if (state_dir != NULL) {
		char *a = kd_abspath(state_dir);
		ctx->state_dir = a;
	} else {
		ctx->state_dir = fsutil_join(ctx->project_dir, "kernodeck");
	}
	ctx->state_path = fsutil_join(ctx->state_dir, "state.yaml");
	ctx->ref_path = fsutil_join(ctx->state_dir, "reference.yaml");
	if (lock_mode != KD_LOCK_NONE) {
		if (fsutil_mkdirs(ctx->state_dir, err) != 0) {
			if (lock_mode != KD_LOCK_READONLY_OK || !fsutil_exists(ctx->state_dir))
				return KD_EENV;
			ctx->readonly = 1;
		} else {
			struct kd_lock_holder h;
			rc = lock_take(ctx->state_dir, &ctx->lock, &h, err);
			if (rc == KD_EFAIL && lock_mode == KD_LOCK_READONLY_OK)
				ctx->readonly = 1;
			else if (rc == KD_EENV && lock_mode == KD_LOCK_READONLY_OK)
				ctx->readonly = 1;
			else if (rc == KD_EFAIL)   /* held by another: exit 3 */
				return err->code = KD_EENV;
			else if (rc != 0)
				return rc;
		}
	} else {
		ctx->readonly = 1;
	}
	if ((rc = state_load_tree(ctx->state_path, &ctx->state, &ctx->state_disk, err)) != 0)
		return rc;
	if ((rc = load_ref(ctx, err)) != 0)
		return rc;
	mark_stale_by_identity(ctx);
	/* the observations are read when asked for: kd_ctx_obs() */
	ctx->obs = calloc(1, sizeof *ctx->obs);
	if (ctx->obs == NULL)
		return kd_err_set(err, KD_EENV, NULL, 0, "out of memory");
	py = json_string_value(yamlio_get(ctx->state.settings, "system.python"));
	if (py != NULL)
		ctx->python = strdup(py);
	return 0;
}

void
kd_ctx_close(struct kd_ctx *ctx)
{
	lock_release(ctx->lock);
	state_free(&ctx->state);
	json_decref(ctx->state_disk);
	json_decref(ctx->own_logs);
	json_decref(ctx->ref);
	yamlio_doc_free(&ctx->refdoc);
	for (int i = 0; ctx->obs != NULL && i < KD_NSTAGES; i++)
		json_decref(ctx->obs->tree[i]);
	free(ctx->obs);
	free(ctx->project_dir);
	free(ctx->state_dir);
	free(ctx->state_path);
	free(ctx->ref_path);
	free(ctx->python);
	memset(ctx, 0, sizeof *ctx);
}

int
kd_ctx_save_state(struct kd_ctx *ctx, struct kd_err *err)
{
	if (ctx->readonly)
		return kd_err_set(err, KD_EENV, ctx->state_path, 0,
				  "read-only: another kernodeck holds %s", ctx->state_dir);
	if (fsutil_mkdirs(ctx->state_dir, err) != 0)
		return KD_EENV;
	return state_save_tree(ctx->state_path, &ctx->state, &ctx->state_disk, err);
}

int
kd_ctx_state_changed(const struct kd_ctx *ctx)
{
	return state_differs(&ctx->state, ctx->state_disk);
}

/* reference.yaml is a file people edit: when the file on disk can take the
 * new tree in place (yamlpatch), its comments and key order stay; else it
 * is written anew. */
static int
save_ref_text(struct kd_ctx *ctx, struct kd_err *err)
{
	char *old = NULL, *text;
	size_t len = 0, n = 0;
	int rc;

	if (fsutil_read_file(ctx->ref_path, KD_CAP_YAML_FILE, &old, &len, NULL) == 0 &&
	    (text = yamlpatch_apply(old, len, ctx->ref, &n)) != NULL) {
		free(old);
		rc = fsutil_write_atomic(ctx->ref_path, text, n, 0, err);
		free(text);
		return rc;
	}
	free(old);
	return yamlio_save_file(ctx->ref_path, ctx->ref, 0, err);
}

int
kd_ctx_save_ref(struct kd_ctx *ctx, struct kd_err *err)
{
	char id[65];
	int rc;

	if (ctx->readonly)
		return kd_err_set(err, KD_EENV, ctx->ref_path, 0,
				  "read-only: another kernodeck holds %s", ctx->state_dir);
	if (fsutil_mkdirs(ctx->state_dir, err) != 0)
		return KD_EENV;
	rc = save_ref_text(ctx, err);
	if (rc != 0)
		return rc;
	ref_stamp_now(ctx);   /* this write is not another editor's */
	kd_ref_identity(ctx->ref, id);
	if (strcmp(id, ctx->ref_id) != 0) {
		memcpy(ctx->ref_id, id, sizeof id);
		stage_mark_changed(&ctx->state, stage_pos(&kd_stage_reference));
		ctx->strict = json_is_true(json_object_get(ctx->ref, "strict"));
		return kd_ctx_save_state(ctx, err);
	}
	return 0;
}

int
kd_ctx_reload_ref(struct kd_ctx *ctx, struct kd_err *err)
{
	struct yamlio_doc doc;
	char id[65];
	int rc;

	ref_stamp_now(ctx);   /* before reading: a later write is seen as a change */
	if ((rc = yamlio_load_file(ctx->ref_path, &doc, err)) != 0)
		return rc;
	if (!json_is_object(doc.root)) {
		rc = kd_err_set(err, KD_EINPUT, ctx->ref_path, 1,
				"%s: the reference must be a mapping", ctx->ref_path);
		yamlio_doc_free(&doc);
		return rc;
	}
	if ((rc = ref_check_schema(ctx->ref_path, &doc, err)) != 0) {
		yamlio_doc_free(&doc);
		return rc;
	}
	json_decref(ctx->ref);
	yamlio_doc_free(&ctx->refdoc);
	ctx->refdoc = doc;
	ctx->ref = json_incref(doc.root);
	kd_ref_identity(ctx->ref, id);
	if (strcmp(id, ctx->ref_id) != 0) {
		memcpy(ctx->ref_id, id, sizeof id);
		stage_mark_changed(&ctx->state, stage_pos(&kd_stage_reference));
		ctx->strict = json_is_true(json_object_get(ctx->ref, "strict"));
		if (!ctx->readonly)
			return kd_ctx_save_state(ctx, err);
	}
	return 0;
}

int
kd_ctx_save_obs(struct kd_ctx *ctx, int i, json_t *obs, struct kd_err *err)
{
	const char *f = stage_obs_file(i);
	char *p;
	int rc = 0;

	if (obs == NULL)
		return 0;
	if (ctx->obs == NULL && (ctx->obs = calloc(1, sizeof *ctx->obs)) == NULL)
		return kd_err_set(err, KD_EENV, NULL, 0, "out of memory");
	json_decref(ctx->obs->tree[i]);
	ctx->obs->tree[i] = json_incref(obs);
	ctx->obs->known[i] = 1;
	if (f == NULL || ctx->readonly)
		return 0;
	p = kd_ctx_path(ctx, f);
	rc = yamlio_save_file(p, obs, YAMLIO_END_MARK, err);
	free(p);
	return rc;
}
