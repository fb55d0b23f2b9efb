/*
 * stage-reference.c - stage 1, the reference: what is being reproduced.
 *
 * gather reads what a machine can tell about the reference: the git
 * repository (after keeping kernodeck's own folders out of it through
 * .git/info/exclude), the SHA-256 of every parameter file, data or weights
 * item, input sample and example output (files on all cores, folders by
 * their manifest, all through the digest cache), and a HEAD request for
 * every URL item.  On the reference machine it also records what is still
 * empty and can be measured (the commit at HEAD, a digest, a size) into
 * reference.yaml, strips credentials from URLs, and says so in the
 * observations (reference-obs.yaml).  When a file's digest, the commit at
 * HEAD or the list of modified files changed since the previous check, the
 * later stages are marked stale.  check (src/stages/reference-check.c) judges the
 * reference and those observations.
 *
 * The screen's actions: capture this machine (`kernodeck capture`), record
 * HEAD as the reference commit, download a URL-only item to hash it.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/capture.h"
#include "kernodeck/ctx.h"
#include "kernodeck/obs-reference.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/hash.h"
#include "kernodeck/net.h"
#include "kernodeck/reference.h"
#include "kernodeck/repo.h"
#include "kernodeck/stage.h"
#include "kernodeck/yamlio.h"

/* ------------------------------------------------------------- fields */

static const struct kd_field param_fields[] = {
	{ .path = "path", .label = "path", .kind = KD_FIELD_TEXT,
	  .help = "a parameter or preprocessing file, relative to the project" },
	{ .path = "sha256", .label = "SHA-256", .kind = KD_FIELD_TEXT,
	  .help = "left empty, it is recorded by the next check" },
};

static const struct kd_field data_fields[] = {
	{ .path = "name", .label = "name", .kind = KD_FIELD_TEXT,
	  .help = "what the item is, e.g. encoder weights" },
	{ .path = "kind", .label = "kind", .kind = KD_FIELD_CHOICE, .choices = "data|weights",
	  .help = "data or weights" },
	{ .path = "path", .label = "path", .kind = KD_FIELD_TEXT,
	  .help = "local file or folder (a folder is hashed through its manifest)" },
	{ .path = "url", .label = "URL", .kind = KD_FIELD_TEXT,
	  .help = "where it is downloaded from; checked with HEAD; no credentials" },
	{ .path = "sha256", .label = "SHA-256", .kind = KD_FIELD_TEXT,
	  .help = "left empty, it is recorded by the next check (or by a download)" },
	{ .path = "size", .label = "size (bytes)", .kind = KD_FIELD_NUMBER,
	  .help = "left empty, it is recorded with the SHA-256" },
	{ .path = "version", .label = "version", .kind = KD_FIELD_TEXT,
	  .help = "a fixed version or name, never latest/main/nightly" },
	{ .path = "provenance", .label = "provenance", .kind = KD_FIELD_TEXT,
	  .help = "where it came from: a run, a release, a person" },
	{ .path = "access", .label = "access", .kind = KD_FIELD_TEXT,
	  .help = "how a person obtains access: a procedure, or env:NAME; never a secret" },
};

static const struct kd_field reference_fields[] = {
	{ .path = "goal", .label = "goal", .kind = KD_FIELD_CHOICE,
	  .choices = "same-categories|close-values|training-trajectory",
	  .help = "what reproducing means for this project" },
	{ .path = "code.repository", .label = "code: repository", .kind = KD_FIELD_TEXT,
	  .help = "the git work tree (default: the project folder)" },
	{ .path = "code.commit", .label = "code: commit", .kind = KD_FIELD_TEXT,
	  .help = "full commit id; left empty, HEAD is recorded by the next check" },
	{ .path = "code.branch", .label = "code: branch", .kind = KD_FIELD_TEXT,
	  .help = "informational" },
	{ .path = "code.remote", .label = "code: remote", .kind = KD_FIELD_TEXT,
	  .help = "where the commit can be fetched; credentials are stripped" },
	{ .path = "code.entry_point", .label = "code: entry point", .kind = KD_FIELD_ARGV,
	  .help = "the command that runs it, as typed; python = the project interpreter" },
	{ .path = "code.params", .label = "code: parameter files", .kind = KD_FIELD_LIST,
	  .help = "parameter and preprocessing files, each hashed",
	  .item_fields = param_fields, .nitem_fields = sizeof param_fields / sizeof param_fields[0] },
	{ .path = "data", .label = "data and weights", .kind = KD_FIELD_LIST,
	  .help = "one item per file, folder or download",
	  .item_fields = data_fields, .nitem_fields = sizeof data_fields / sizeof data_fields[0] },
	{ .path = "python.version", .label = "python: version", .kind = KD_FIELD_TEXT,
	  .help = "e.g. 3.11.2 (captured with c)" },
	{ .path = "python.interpreter", .label = "python: interpreter", .kind = KD_FIELD_TEXT,
	  .help = "the reference's interpreter path (captured with c)" },
	{ .path = "python.inventory", .label = "python: inventory", .kind = KD_FIELD_TEXT,
	  .help = "pip freeze --all or pip inspect file of the reference environment" },
	{ .path = "python.install.procedure", .label = "python: install procedure",
	  .kind = KD_FIELD_TEXT, .help = "the commands that actually built the environment" },
	{ .path = "python.install.sources", .label = "python: package sources",
	  .kind = KD_FIELD_ARGV, .help = "index URLs, wheel folders, Debian packages" },
	{ .path = "python.install.system_site_packages", .label = "python: system site packages",
	  .kind = KD_FIELD_BOOL, .help = "the venv sees the system's packages" },
	{ .path = "python.install.base", .label = "python: base environment",
	  .kind = KD_FIELD_TEXT, .help = "optional: the venv, conda environment or interpreter "
	  "that provides PyTorch; the rebuild is layered on it" },
	{ .path = "system.os", .label = "system: OS", .kind = KD_FIELD_TEXT, .help = NULL },
	{ .path = "system.arch", .label = "system: architecture", .kind = KD_FIELD_TEXT,
	  .help = "x86_64, aarch64" },
	{ .path = "system.gpu_vendor", .label = "system: GPU vendor", .kind = KD_FIELD_CHOICE,
	  .choices = "none|nvidia|amd|intel", .help = "none: driver, CUDA and ROCm do not apply" },
	{ .path = "system.gpu_model", .label = "system: GPU model", .kind = KD_FIELD_TEXT,
	  .help = NULL },
	{ .path = "system.gpu_count", .label = "system: GPU count", .kind = KD_FIELD_NUMBER,
	  .help = NULL },
	{ .path = "system.driver", .label = "system: driver", .kind = KD_FIELD_TEXT,
	  .help = "the GPU driver version" },
	{ .path = "system.cuda", .label = "system: CUDA", .kind = KD_FIELD_TEXT, .help = NULL },
	{ .path = "system.rocm", .label = "system: ROCm", .kind = KD_FIELD_TEXT, .help = NULL },
	{ .path = "system.backend", .label = "system: backend", .kind = KD_FIELD_CHOICE,
	  .choices = "cpu|cuda|rocm|mps|xpu", .help = "the PyTorch backend the reference used" },
	{ .path = "result.format", .label = "result: format", .kind = KD_FIELD_CHOICE,
	  .choices = "npy|safetensors|csv|jsonl", .help = NULL },
	{ .path = "result.outputs", .label = "result: output folder", .kind = KD_FIELD_TEXT,
	  .help = "the folder the entry point writes" },
	{ .path = "result.files", .label = "result: output files", .kind = KD_FIELD_ARGV,
	  .help = "expected files, relative to the output folder" },
	{ .path = "result.count", .label = "result: count", .kind = KD_FIELD_NUMBER,
	  .help = "number of output files" },
	{ .path = "result.shape", .label = "result: shape", .kind = KD_FIELD_ARGV,
	  .help = "sizes, e.g. 12 16" },
	{ .path = "result.dtype", .label = "result: dtype", .kind = KD_FIELD_TEXT,
	  .help = "e.g. float32" },
	{ .path = "result.finite", .label = "result: finite", .kind = KD_FIELD_BOOL,
	  .help = "no NaN or infinity allowed" },
	{ .path = "result.ids.file", .label = "result: ids file", .kind = KD_FIELD_TEXT,
	  .help = "or a CSV column, or a JSON key" },
	{ .path = "result.ids.column", .label = "result: ids column", .kind = KD_FIELD_TEXT,
	  .help = NULL },
	{ .path = "result.ids.key", .label = "result: ids key", .kind = KD_FIELD_TEXT,
	  .help = NULL },
	{ .path = "result.ids.reference", .label = "result: input ids", .kind = KD_FIELD_TEXT,
	  .help = "the input identifiers" },
	{ .path = "result.ids.order", .label = "result: ids order", .kind = KD_FIELD_CHOICE,
	  .choices = "same|set", .help = NULL },
	{ .path = "result.criterion", .label = "result: business criterion", .kind = KD_FIELD_TEXT,
	  .help = "what must hold for the result to be useful" },
	{ .path = "result.rule.kind", .label = "rule: kind", .kind = KD_FIELD_CHOICE,
	  .choices = "exact|tolerance|metric", .help = "there is no default" },
	{ .path = "result.rule.atol", .label = "rule: atol", .kind = KD_FIELD_NUMBER,
	  .help = "|out - ref| <= atol + rtol * |ref|" },
	{ .path = "result.rule.rtol", .label = "rule: rtol", .kind = KD_FIELD_NUMBER, .help = NULL },
	{ .path = "result.rule.nan_equal", .label = "rule: NaN equals NaN", .kind = KD_FIELD_BOOL,
	  .help = NULL },
	{ .path = "result.rule.metric", .label = "rule: metric", .kind = KD_FIELD_TEXT,
	  .help = "e.g. cosine-min, exact-categories" },
	{ .path = "result.rule.threshold", .label = "rule: threshold", .kind = KD_FIELD_NUMBER,
	  .help = NULL },
	{ .path = "result.rule.justification", .label = "rule: justification",
	  .kind = KD_FIELD_TEXT, .help = "required for tolerances: why these values" },
	{ .path = "result.sample.path", .label = "sample: path", .kind = KD_FIELD_TEXT,
	  .help = "the small input sample (file or folder)" },
	{ .path = "result.sample.sha256", .label = "sample: SHA-256", .kind = KD_FIELD_TEXT,
	  .help = "left empty, it is recorded by the next check" },
	{ .path = "result.example.path", .label = "example output: path", .kind = KD_FIELD_TEXT,
	  .help = "one valid output of the reference" },
	{ .path = "result.example.sha256", .label = "example output: SHA-256",
	  .kind = KD_FIELD_TEXT, .help = "left empty, it is recorded by the next check" },
};

/* ------------------------------------------------------------- gather */

struct gather {
	struct kd_ctx *ctx;
	json_t *ref;       /* a working copy of ctx->ref: kept only on success */
	const struct kd_sink *sink;
	json_t *obs, *files, *urls, *filled, *warnings;
	int can_write;     /* not read-only: empty fields may be recorded */
	int changed;       /* the reference was changed */
};

static void
note_filled(struct gather *g, const char *path)
{
	json_array_append_new(g->filled, json_string(path));
	g->changed = 1;
}

static void
warn(struct gather *g, const char *id, const char *label, const char *message)
{
	json_array_append_new(g->warnings, json_pack("{s:s, s:s, s:s}", "id", id,
						     "label", label, "message", message));
}

static const char *
problem_word(enum repo_problem p)
{
	switch (p) {
	case REPO_NOT_A_REPO: return "not-a-repo";
	case REPO_EMPTY: return "empty";
	case REPO_NOT_OWNED: return "not-owned";
	case REPO_BARE: return "bare";
	default: return "error";
	}
}

static char *
repo_dir(const struct kd_ctx *ctx)
{
	const char *rel = yamlio_get_str(ctx->ref, "code.repository");

	return reference_abspath(ctx, rel != NULL && *rel != '\0' ? rel : ".");
}

/* Record the repository's state at HEAD into code.* (commit, branch, tags,
 * remote); the caller saves. */
static void
set_code_from(json_t *ref, const struct repo_info *ri, int remote_too)
{
	json_t *tags = json_array();

	yamlio_set(ref, "code.commit", json_string(ri->commit));
	yamlio_set(ref, "code.branch", ri->branch ? json_string(ri->branch) : json_null());
	for (size_t i = 0; i < ri->ntags; i++)
		json_array_append_new(tags, json_string(ri->tags[i]));
	yamlio_set(ref, "code.tags", tags);
	if (remote_too && ri->remote_url != NULL)
		yamlio_set(ref, "code.remote", json_string(ri->remote_url));
}

/* Is the entry point's script in the recorded commit (commit, a full id)?
 * Into code.entry_script: a script missing there fails at stage 1, not at
 * stage 6 after the rebuild. */
static void
gather_entry_script(struct gather *g, const char *dir, const char *commit, json_t *code)
{
	const char *script = reference_entry_script(yamlio_get(g->ref, "code.entry_point"));
	int has;

	if (script == NULL || (has = repo_has_path(dir, commit, g->ctx->project_dir, script)) < 0)
		return;
	json_object_set_new(code, "entry_script", json_pack("{s:s, s:s, s:b}", "path", script,
							    "commit", commit, "at_commit", has));
}

static void
gather_code(struct gather *g)
{
	struct kd_ctx *ctx = g->ctx;
	struct repo_info ri;
	struct kd_err e;
	json_t *code, *rec;
	char *dir = repo_dir(ctx), full[41], msg[1200];
	const char *kind, *remote;
	int added = 0, had;

	kd_sink_step(g->sink, "reading the git repository", -1);
	if (g->can_write) {
		if (reference_exclude_own(ctx, &added, &e) == 0)
			json_object_set_new(g->obs, "exclude_added", json_integer(added));
		else
			json_object_set_new(g->obs, "exclude_error", json_string(e.msg));
	}
	if (repo_inspect(dir, &ri, &e) != 0) {
		code = json_pack("{s:s, s:s, s:s}", "error", e.msg, "problem",
				 problem_word(ri.problem), "dir", dir);
	} else {
		code = repo_info_to_json(&ri);
		if (!reference_filled(yamlio_get(g->ref, "code.commit")) &&
		    reference_na(g->ref, "code.commit") == NULL && g->can_write) {
			set_code_from(g->ref, &ri,
				      !reference_filled(yamlio_get(g->ref, "code.remote")));
			note_filled(g, "code.commit");
		} else if (ri.remote_url != NULL && g->can_write &&
			   !reference_filled(yamlio_get(g->ref, "code.remote")) &&
			   reference_na(g->ref, "code.remote") == NULL) {
			/* emptied by hand: filled again, as for a new reference */
			yamlio_set(g->ref, "code.remote", json_string(ri.remote_url));
			note_filled(g, "code.remote");
		}
	}
	rec = yamlio_get(g->ref, "code.commit");
	if (json_is_string(rec) && reference_filled(rec)) {
		kind = repo_classify_name(dir, json_string_value(rec), full);
		json_object_set_new(code, "recorded", json_pack("{s:O, s:s?, s:s?}", "name", rec,
								"kind", kind,
								"resolves_to", full[0] ? full : NULL));
		if (full[0] != '\0')
			gather_entry_script(g, dir, full, code);
	}
	remote = yamlio_get_str(g->ref, "code.remote");
	if (remote != NULL && g->can_write) {
		char *clean = reference_strip_url(remote, &had);

		if (had && clean != NULL) {
			yamlio_set(g->ref, "code.remote", json_string(clean));
			g->changed = 1;
			snprintf(msg, sizeof msg, "code.remote held credentials: they were removed "
				 "from the reference (now %s)", clean);
			warn(g, "code.remote.credentials", "no credentials in the remote URL", msg);
		}
		free(clean);
	}
	json_object_set_new(g->obs, "code", code);
	repo_info_free(&ri);
	free(dir);
}

/* result.shape typed as words ("12 16") becomes a list of numbers. */
static void
normalise_shape(struct gather *g)
{
	json_t *shape = yamlio_get(g->ref, "result.shape"), *d, *nv;
	size_t i;
	char *end;

	if (!json_is_array(shape) || !g->can_write)
		return;
	json_array_foreach(shape, i, d) {
		const char *s = json_string_value(d);
		long long v;

		if (s == NULL)
			continue;
		errno = 0;
		v = strtoll(s, &end, 10);
		if (*s == '\0' || *end != '\0' || errno != 0 || v < 0) {
			if (strcmp(s, "null") != 0 && strcmp(s, "~") != 0)
				continue;
			nv = json_null();
		} else {
			nv = json_integer(v);
		}
		json_array_set_new(shape, i, nv);
		g->changed = 1;
	}
}

/* ------------------------------------------------------------- hashing */

struct target {
	char key[48];           /* the reference path of the item: data[2] */
	json_t *item;           /* the item (borrowed from the reference) */
	char *abs;
	int is_dir;
	int want_size;          /* record size too (data items) */
};

static void
on_hash_progress(void *u, uint64_t done, uint64_t total, double rate)
{
	const struct gather *g = u;
	char step[160];
	double left = rate > 0 && total > done ? (double)(total - done) / rate : 0;

	if (total < (1u << 20))   /* small inputs: no "0 / 0 MiB, 0 MiB/s" */
		snprintf(step, sizeof step, "hashing: %" PRIu64 " / %" PRIu64 " KiB",
			 (done + 1023) >> 10, (total + 1023) >> 10);
	else
		snprintf(step, sizeof step, "hashing: %" PRIu64 " / %" PRIu64 " MiB, %.0f MiB/s, "
			 "%.0f s left", done >> 20, total >> 20, rate / 1048576.0, left);
	kd_sink_step(g->sink, step, total > 0 ? (double)done / (double)total : -1);
}

static int
on_hash_cancelled(void *u)
{
	const struct gather *g = u;

	return kd_sink_cancelled(g->sink);
}

static const char *
error_kind(const struct kd_err *e)
{
	if (e->errnum == ENOENT)
		return "missing";
	if (e->errnum == EACCES || e->errnum == EPERM)
		return "unreadable";
	if (strstr(e->msg, "changed while") != NULL)
		return "changed";
	if (e->code == KD_EFAIL)
		return "cancelled";
	return "error";
}

static void
file_error(struct gather *g, const struct target *t, const struct kd_err *e)
{
	json_object_set_new(g->files, t->key, json_pack(
		"{s:s?, s:s, s:s, s:s}", "path", json_string_value(json_object_get(t->item, "path")),
		"kind", t->is_dir ? "folder" : "file", "error", e->msg,
		"error_kind", error_kind(e)));
}

/* Record what hashing gave for target t, and fill its empty sha256 (and
 * size) in the reference. */
static void
file_done(struct gather *g, const struct target *t, const char *hex, uint64_t size,
	  int from_cache, const char *manifest)
{
	json_t *o = json_pack("{s:s?, s:s, s:s, s:I, s:b}",
			      "path", json_string_value(json_object_get(t->item, "path")),
			      "kind", t->is_dir ? "folder" : "file", "sha256", hex,
			      "size", (json_int_t)size, "from_cache", from_cache);
	char path[64];

	if (manifest != NULL)
		json_object_set_new(o, "manifest", json_string(manifest));
	json_object_set_new(g->files, t->key, o);
	if (!g->can_write)
		return;
	if (!reference_filled(json_object_get(t->item, "sha256"))) {
		json_object_set_new(t->item, "sha256", json_string(hex));
		snprintf(path, sizeof path, "%s.sha256", t->key);
		note_filled(g, path);
	}
	if (t->want_size && !reference_filled(json_object_get(t->item, "size"))) {
		json_object_set_new(t->item, "size", json_integer((json_int_t)size));
		snprintf(path, sizeof path, "%s.size", t->key);
		note_filled(g, path);
	}
}

/* Collect one item with a local path into t (or record why it cannot be
 * hashed); 1 when it is to be hashed. */
static int
add_target(struct gather *g, struct target *t, const char *key, json_t *item, int want_size)
{
	const char *p = json_string_value(json_object_get(item, "path"));
	struct kd_err e;
	struct stat st;

	if (!json_is_object(item) || p == NULL || *p == '\0')
		return 0;
	memset(t, 0, sizeof *t);
	snprintf(t->key, sizeof t->key, "%s", key);
	t->item = item;
	t->want_size = want_size;
	t->abs = reference_abspath(g->ctx, p);
	if (stat(t->abs, &st) != 0) {
		int en = errno;

		kd_err_set(&e, KD_EINPUT, t->abs, 0, "%s: %s", t->abs,
			   en == ENOENT ? "no such file or folder" : strerror(en));
		e.errnum = en;
		file_error(g, t, &e);
		free(t->abs);
		return 0;
	}
	t->is_dir = S_ISDIR(st.st_mode);
	return 1;
}

static void
manifest_name(const char *key, char *buf, size_t len)
{
	size_t o = 0;

	o = (size_t)snprintf(buf, len, "manifests/");
	for (const char *s = key; *s != '\0' && o + 5 < len; s++)
		if (*s != ']')
			buf[o++] = (*s == '[' || *s == '.') ? '-' : *s;
	snprintf(buf + o, len - o, ".txt");
}

static void
hash_folder_target(struct gather *g, struct hash_cache *cache, const struct hash_progress *prog,
		   const struct target *t)
{
	char hex[65], rel[128];
	uint64_t total = 0;
	char *manifest = NULL, *mpath;
	struct kd_err e;

	if (hash_folder(t->abs, cache, prog, hex, &total, &manifest, &e) != 0) {
		file_error(g, t, &e);
		return;
	}
	manifest_name(t->key, rel, sizeof rel);
	mpath = kd_ctx_path(g->ctx, rel);
	if (g->can_write && mpath != NULL) {
		char *mdir = kd_ctx_path(g->ctx, "manifests");

		if (fsutil_mkdirs(mdir, &e) != 0 ||
		    fsutil_write_atomic(mpath, manifest, strlen(manifest), 0, &e) != 0)
			warn(g, "reference.manifest", "folder manifest saved", e.msg);
		free(mdir);
	}
	file_done(g, t, hex, total, 0, g->can_write ? rel : NULL);
	free(mpath);
	free(manifest);
}

/* Hash every item with a local path: the files together on all cores, then
 * each folder.  KD_EFAIL when cancelled. */
static int
gather_files(struct gather *g, struct kd_err *err)
{
	json_t *ref = g->ref, *params = yamlio_get(ref, "code.params");
	json_t *data = json_object_get(ref, "data"), *it;
	struct hash_progress prog = { on_hash_progress, on_hash_cancelled, g };
	struct hash_cache *cache = NULL;
	struct target *t;
	struct hash_job *jobs;
	size_t n = 0, nj = 0, i, cap = json_array_size(params) + json_array_size(data) + 2;
	char key[48], *cdir;
	int rc = 0;

	t = calloc(cap, sizeof *t);
	jobs = calloc(cap, sizeof *jobs);
	if (t == NULL || jobs == NULL) {
		free(t);
		free(jobs);
		return kd_err_sys(err, KD_EENV, NULL, ENOMEM, "hashing");
	}
	json_array_foreach(params, i, it) {
		snprintf(key, sizeof key, "code.params[%zu]", i);
		n += (size_t)add_target(g, &t[n], key, it, 0);
	}
	json_array_foreach(data, i, it) {
		snprintf(key, sizeof key, "data[%zu]", i);
		n += (size_t)add_target(g, &t[n], key, it, 1);
	}
	n += (size_t)add_target(g, &t[n], "result.sample", yamlio_get(ref, "result.sample"), 0);
	n += (size_t)add_target(g, &t[n], "result.example", yamlio_get(ref, "result.example"), 0);
	if (g->can_write && (cdir = kd_ctx_path(g->ctx, "cache")) != NULL) {
		cache = hash_cache_open(cdir, NULL);
		free(cdir);
	}
	for (i = 0; i < n; i++)
		if (!t[i].is_dir)
			jobs[nj++].path = t[i].abs;
	if (nj > 0) {
		kd_sink_step(g->sink, "hashing files", 0);
		rc = hash_files(jobs, nj, 0, cache, &prog);
	}
	for (i = 0, nj = 0; i < n; i++) {
		struct hash_job *j;

		if (t[i].is_dir)
			continue;
		j = &jobs[nj++];
		if (j->rc != 0)
			file_error(g, &t[i], &j->err);
		else
			file_done(g, &t[i], j->hex, j->size, j->from_cache, NULL);
	}
	for (i = 0; i < n && rc == 0; i++) {
		if (!t[i].is_dir)
			continue;
		if (kd_sink_cancelled(g->sink)) {
			rc = KD_EFAIL;
			break;
		}
		kd_sink_step(g->sink, "hashing a folder", 0);
		hash_folder_target(g, cache, &prog, &t[i]);
	}
	if (rc != 0)
		rc = kd_err_set(err, KD_EFAIL, NULL, 0, "hashing was cancelled");
	hash_cache_close(cache);
	for (i = 0; i < n; i++)
		free(t[i].abs);
	free(t);
	free(jobs);
	return rc;
}

/* ---------------------------------------------------------------- URLs */

/* Network options: KD_NET_TIMEOUT (seconds, both timeouts) and KD_CA_FILE
 * (an extra CA bundle, for tests and private mirrors) from the environment. */
static void
net_options(struct net_opts *o)
{
	const char *t = getenv("KD_NET_TIMEOUT"), *ca = getenv("KD_CA_FILE");

	memset(o, 0, sizeof *o);
	if (t != NULL && atof(t) > 0)
		o->connect_timeout_s = o->total_timeout_s = atof(t);
	if (ca != NULL && *ca != '\0')
		o->ca_file = ca;
}

static void
gather_urls(struct gather *g)
{
	json_t *data = json_object_get(g->ref, "data"), *it;
	struct net_opts opts;
	struct net_head h;
	struct kd_err e;
	char key[48], step[128], hex[65];
	size_t i, n = json_array_size(data);

	net_options(&opts);
	json_array_foreach(data, i, it) {
		const char *url = json_string_value(json_object_get(it, "url"));
		char *clean, *final;
		json_t *o;
		int had = 0, fhad = 0;

		if (url == NULL || !reference_filled(json_object_get(it, "url")))
			continue;
		if (kd_sink_cancelled(g->sink))
			break;
		snprintf(key, sizeof key, "data[%zu]", i);
		snprintf(step, sizeof step, "checking URL %zu of %zu", i + 1, n);
		kd_sink_step(g->sink, step, -1);
		clean = reference_strip_url(url, &had);
		if (clean == NULL)
			continue;
		if (had && g->can_write) {
			json_object_set_new(it, "url", json_string(clean));
			g->changed = 1;
		}
		if (net_head(clean, &opts, &h, &e) != 0) {
			o = json_pack("{s:s, s:s, s:b}", "url", clean, "error", e.msg,
				      "had_credentials", had);
			if (h.status > 0)
				json_object_set_new(o, "status", json_integer(h.status));
		} else {
			final = reference_strip_url(h.final_url, &fhad);
			o = json_pack("{s:s, s:I, s:s?, s:I, s:s, s:s, s:i, s:b, s:b}", "url", clean,
				      "status", (json_int_t)h.status, "final_url", final,
				      "size", (json_int_t)(h.linked_size >= 0 ? h.linked_size : h.size),
				      "etag", h.etag, "last_modified", h.last_modified,
				      "redirects", h.redirects, "had_credentials", had,
				      "method_get", h.method_get);
			if (net_etag_sha256(&h, hex))
				json_object_set_new(o, "etag_sha256", json_string(hex));
			free(final);
		}
		json_object_set_new(g->urls, key, o);
		free(clean);
	}
}

/* What changed since the previous observation (prev): a file's digest,
 * the commit at HEAD, the list of modified files.  Appended to list. */
static void
inputs_changed(const json_t *prev, const json_t *now, json_t *list)
{
	const json_t *pf = obs_reference_files(prev), *f;
	const char *k, *a, *b;

	if (!json_is_object(prev))
		return;
	json_object_foreach((json_t *)obs_reference_files(now), k, f) {
		a = obs_reference_file_sha256(json_object_get(pf, k));
		b = obs_reference_file_sha256(f);
		if (a != NULL && b != NULL && strcmp(a, b) != 0)
			json_array_append_new(list, json_string(k));
	}
	a = obs_reference_code_commit(prev);
	b = obs_reference_code_commit(now);
	if (a != NULL && b != NULL && strcmp(a, b) != 0)
		json_array_append_new(list, json_string("code.commit"));
	if (obs_reference_code_dirty(prev) != NULL && obs_reference_code_dirty(now) != NULL &&
	    !json_equal(obs_reference_code_dirty(prev), obs_reference_code_dirty(now)))
		json_array_append_new(list, json_string("code.files"));
}

static int
reference_gather(struct kd_ctx *ctx, struct kd_result *res, const struct kd_sink *sink,
		 struct kd_err *err)
{
	json_t *changed;
	struct gather g = { .ctx = ctx, .sink = sink, .can_write = !ctx->readonly };
	char when[32];
	int rc;

	rc = reference_validate(ctx->ref, &ctx->refdoc, ctx->ref_path, err);
	if (rc != 0)
		return rc;
	g.ref = json_deep_copy(ctx->ref);
	g.obs = json_object();
	g.files = json_object();
	g.urls = json_object();
	g.filled = json_array();
	g.warnings = json_array();
	fsutil_utc_now(when, sizeof when);
	json_object_set_new(g.obs, "checked_at", json_string(when));
	gather_code(&g);
	normalise_shape(&g);
	rc = gather_files(&g, err);
	if (rc == 0)
		gather_urls(&g);
	json_object_set_new(g.obs, "files", g.files);
	json_object_set_new(g.obs, "urls", g.urls);
	json_object_set_new(g.obs, "filled", g.filled);
	json_object_set_new(g.obs, "warnings", g.warnings);
	/* an input changed since the last check: what later stages saw is gone */
	changed = json_array();
	inputs_changed(kd_ctx_obs(ctx, stage_pos(&kd_stage_reference)), g.obs, changed);
	if (rc == 0 && json_array_size(changed) > 0)
		stage_mark_changed(&ctx->state, stage_pos(&kd_stage_system));
	json_object_set_new(g.obs, "changed", changed);
	if (rc == 0 && g.changed && g.can_write) {
		json_decref(ctx->ref);
		ctx->ref = g.ref;
		g.ref = NULL;
		rc = kd_ctx_save_ref(ctx, err);
	}
	json_decref(g.ref);
	if (rc != 0) {
		json_decref(g.obs);
		return rc;
	}
	res->obs = g.obs;
	return 0;
}

static int
reference_check(struct kd_ctx *ctx, struct kd_result *res, struct kd_err *err)
{
	(void)err;
	return reference_check_rows(ctx, ctx->ref, res->obs != NULL ? res->obs :
				    kd_ctx_obs(ctx, stage_pos(&kd_stage_reference)), &res->rows);
}

/* Informative rows: what gather saw and recorded. */
static void
reference_describe(const struct kd_result *res, struct kd_rows *rows)
{
	const json_t *obs = res->obs, *f, *tags;
	const json_t *filled = obs_reference_filled(obs);
	const char *k;
	char buf[1024];
	size_t hashed = 0, cached = 0, i, o = 0;

	if (obs_reference_code_commit(obs) != NULL) {
		tags = obs_reference_code_tags(obs);
		snprintf(buf, sizeof buf, "HEAD %.12s %s%s%s%s", obs_reference_code_commit(obs),
			 obs_reference_code_branch(obs) ? "on " : "(detached)",
			 obs_reference_code_branch(obs) ? obs_reference_code_branch(obs) : "",
			 json_is_string(json_array_get(tags, 0)) ? ", tag " : "",
			 json_is_string(json_array_get(tags, 0)) ?
			 json_string_value(json_array_get(tags, 0)) : "");
		kd_rows_add(rows, "info.code", KD_R_INFO, "git repository", buf, NULL, NULL);
	}
	json_object_foreach((json_t *)obs_reference_files(obs), k, f) {
		if (obs_reference_file_sha256(f) == NULL)
			continue;
		hashed++;
		cached += obs_reference_file_from_cache(f);
	}
	if (hashed > 0)
		kd_rows_addf(rows, "info.hashed", KD_R_INFO, "files hashed", NULL,
			     "%zu hashed, %zu answered by the digest cache", hashed, cached);
	if (json_array_size(filled) > 0) {
		buf[0] = '\0';
		json_array_foreach(filled, i, f)
			if (o < sizeof buf)
				o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", i ? ", " : "",
						      json_is_string(f) ? json_string_value(f) : "?");
		kd_rows_add(rows, "info.recorded", KD_R_INFO, "recorded from this machine", buf,
			    NULL, NULL);
	}
	if (json_array_size(obs_reference_changed(obs)) > 0) {
		buf[0] = '\0';
		o = 0;
		json_array_foreach(obs_reference_changed(obs), i, f)
			if (o < sizeof buf)
				o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", i ? ", " : "",
						      json_is_string(f) ? json_string_value(f) : "?");
		kd_rows_add(rows, "info.changed", KD_R_INFO, "changed since the last check", buf,
			    "later stages must be checked again", NULL);
	}
	if (obs_reference_exclude_added(obs) > 0)
		kd_rows_add(rows, "info.exclude", KD_R_INFO, "kept out of git status",
			    "kernodeck's folders were added to .git/info/exclude", NULL, NULL);
}

/* ------------------------------------------------------------- actions */

static int
action_capture(struct kd_ctx *ctx, const char *arg, const struct kd_sink *sink,
	       struct kd_err *err)
{
	(void)arg;
	return capture_reference(ctx, ctx->python_override, sink, NULL, err);
}

static int
action_record_head(struct kd_ctx *ctx, const char *arg, const struct kd_sink *sink,
		   struct kd_err *err)
{
	struct repo_info ri;
	char *dir = repo_dir(ctx), line[200];
	int rc;

	(void)arg;
	rc = repo_inspect(dir, &ri, err);
	free(dir);
	if (rc != 0) {
		repo_info_free(&ri);
		return rc;
	}
	set_code_from(ctx->ref, &ri, 1);
	snprintf(line, sizeof line, "recorded commit %s%s%s as the reference's", ri.commit,
		 ri.branch ? " on " : "", ri.branch ? ri.branch : "");
	kd_sink_line(sink, line);
	repo_info_free(&ri);
	return kd_ctx_save_ref(ctx, err);
}

struct dl {
	const struct kd_sink *sink;
};

static void
on_dl_progress(void *u, uint64_t done, uint64_t total)
{
	const struct dl *d = u;
	char step[128];

	snprintf(step, sizeof step, "downloading: %" PRIu64 " / %" PRIu64 " MiB", done >> 20,
		 total >> 20);
	kd_sink_step(d->sink, step, total > 0 ? (double)done / (double)total : -1);
}

static int
on_dl_cancelled(void *u)
{
	const struct dl *d = u;

	return kd_sink_cancelled(d->sink);
}

/* The data item an action is about: the one whose id is in arg
 * ("data.<slug>.…"), else the first URL item without a digest.  *unknown
 * is set when arg names an item ("data.<slug>") the reference lacks. */
static json_t *
pick_url_item(const json_t *data, const char *arg, char slug[64], int *unknown)
{
	json_t *it;
	size_t i, n;

	*unknown = 0;
	if (arg != NULL && strncmp(arg, "data.", 5) == 0) {
		json_array_foreach(data, i, it) {
			reference_data_slug(data, i, slug, 64);
			n = strlen(slug);
			if (strncmp(arg + 5, slug, n) == 0 && (arg[5 + n] == '.' || arg[5 + n] == '\0'))
				return it;
		}
		/* "data.items" is the list's own row: any item will do */
		if (strcmp(arg, "data.items") != 0) {
			*unknown = 1;
			return NULL;
		}
	}
	json_array_foreach(data, i, it) {
		const char *sha = json_string_value(json_object_get(it, "sha256"));

		if (reference_filled(json_object_get(it, "url")) && (sha == NULL || strlen(sha) != 64)) {
			reference_data_slug(data, i, slug, 64);
			return it;
		}
	}
	return NULL;
}

static int
action_download(struct kd_ctx *ctx, const char *arg, const struct kd_sink *sink,
		struct kd_err *err)
{
	json_t *item;
	const char *url, *rec;
	struct net_opts opts;
	struct dl d = { sink };
	char slug[64], name[96], hex[65], line[1200];
	char *dir = NULL, *path = NULL, *clean = NULL;
	uint64_t size = 0;
	int rc, had, unknown;

	item = pick_url_item(json_object_get(ctx->ref, "data"), arg, slug, &unknown);
	if (unknown)
		return kd_err_set(err, KD_EINPUT, NULL, 0, "%s is not a data item of the reference",
				  arg + 5);
	url = json_string_value(json_object_get(item, "url"));
	rec = json_string_value(json_object_get(item, "sha256"));
	if (item == NULL || url == NULL)
		return kd_err_set(err, KD_EINPUT, NULL, 0,
				  "no data item with a URL to download: select one");
	clean = reference_strip_url(url, &had);
	dir = kd_ctx_path(ctx, "downloads");
	snprintf(name, sizeof name, "%s.download", slug);
	path = fsutil_join(dir, name);
	if ((rc = fsutil_mkdirs(dir, err)) != 0)
		goto out;
	net_options(&opts);
	opts.total_timeout_s = 0;
	rc = net_download(clean, path, &opts, on_dl_progress, on_dl_cancelled, &d, err);
	if (rc != 0)
		goto out;
	kd_sink_step(sink, "hashing the download", -1);
	rc = hash_file(path, NULL, NULL, hex, &size, err);
	unlink(path);
	if (rc != 0)
		goto out;
	if (rec != NULL && strlen(rec) == 64 && strcasecmp(rec, hex) != 0) {
		rc = kd_err_set(err, KD_EFAIL, NULL, 0, "the file at %s has SHA-256 %s, but the "
				"reference records %s: nothing was changed", clean, hex, rec);
		goto out;
	}
	json_object_set_new(item, "sha256", json_string(hex));
	if (!reference_filled(json_object_get(item, "size")))
		json_object_set_new(item, "size", json_integer((json_int_t)size));
	if (had)
		json_object_set_new(item, "url", json_string(clean));
	snprintf(line, sizeof line, "recorded SHA-256 %s of %s (%" PRIu64 " bytes); the "
		 "download was removed", hex, clean, size);
	kd_sink_line(sink, line);
	rc = kd_ctx_save_ref(ctx, err);
out:
	free(clean);
	free(path);
	free(dir);
	return rc;
}

/* The commit at HEAD is still the one the last check saw (stage_gate):
 * a repository whose code moved since makes the stage stale. */
static int
reference_fresh(struct kd_ctx *ctx, char *why, size_t len)
{
	const char *seen = obs_reference_code_commit(kd_ctx_obs(ctx, stage_pos(&kd_stage_reference)));
	char *dir, now[41];

	if (seen == NULL || (dir = repo_dir(ctx)) == NULL)
		return 1;
	repo_classify_name(dir, "HEAD", now);
	free(dir);
	if (now[0] == '\0' || strcmp(now, seen) == 0)
		return 1;
	snprintf(why, len, "the commit at HEAD moved to %.12s since it was checked at %.12s "
		 "(code.head)", now, seen);
	return 0;
}

static const struct kd_action reference_actions[] = {
	{ .key = 'c', .name = "capture", .run = action_capture,
	  .label = "capture this machine (interpreter, packages, system)" },
	{ .key = 'u', .name = "record-head", .run = action_record_head,
	  .label = "record HEAD as the reference commit" },
	{ .key = 'w', .name = "download", .run = action_download,
	  .label = "download the selected URL item to hash it",
	  .arg_name = "ITEM", .arg_prefix = "data." },
};

const struct kd_stage_ops kd_stage_reference = {
	.id = "reference",
	.title = "Reference",
	.summary = "what is reproduced: goal, code, data, packages, system, result contract",
	.fields = reference_fields,
	.nfields = sizeof reference_fields / sizeof reference_fields[0],
	.gather = reference_gather,
	.check = reference_check,
	.describe = reference_describe,
	.actions = reference_actions,
	.nactions = sizeof reference_actions / sizeof reference_actions[0],
	.fresh = reference_fresh,
};
