/*
 * dossier.c - the handoff dossier: gather every file in memory, scan it for
 * credentials, write it as an immutable snapshot (see dossier.h).
 *
 * The plan is built from the project's context: the kernodeck folder (state,
 * reference, observations, inventories, logs), the rebuild file and the
 * reference inventory of the project, and four generated files (README.md,
 * procedure.sh, dossier.yaml, data-references.yaml; dossier-text.c writes
 * the first two).  Nothing touches the disk until the scan is clean; then
 * the files go to a temporary folder beside the target, SHA256SUMS is
 * computed over exactly the bytes written, and the folder is swapped into
 * place with the older one (fsutil_swap_dir: at every moment the target is
 * the older dossier or the new one), which is then renamed aside and kept
 * as the one backup (see prune_backups).  Temporary folders of writers
 * that were killed are swept first.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/baseenv.h"
#include "kernodeck/caps.h"
#include "kernodeck/contain.h"
#include "kernodeck/ctx.h"
#include "kernodeck/dossier.h"
#include "kernodeck/dossier-creds.h"
#include "kernodeck/dossier-lock.h"
#include "kernodeck/dossier-text.h"
#include "kernodeck/fleet.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/hash.h"
#include "kernodeck/inventory.h"
#include "kernodeck/logkeep.h"
#include "kernodeck/redact.h"
#include "kernodeck/reference.h"
#include "kernodeck/runenv.h"
#include "kernodeck/termout.h"
#include "kernodeck/report.h"
#include "kernodeck/sha256sums.h"
#include "kernodeck/stage.h"
#include "kernodeck/yamlio.h"
#include "kernodeck/obs-rebuild.h"
#include "kernodeck/obs-sample.h"
#include "kernodeck/obs-system.h"

/* ---- the plan ------------------------------------------------------------ */

static int
plan_add(struct dossier_plan *p, const char *rel, const char *src, char *data, size_t len,
	 struct kd_err *err)
{
	struct dossier_file *f;

	size_t total = len;

	for (size_t i = 0; i < p->nfiles; i++)
		total += p->files[i].len;
	if (p->nfiles >= KD_CAP_DOSSIER_FILES || total > KD_CAP_DOSSIER_BYTES) {
		free(data);
		return kd_err_set(err, KD_EINPUT, src, 0,
				  "the dossier would hold more than %d files or %u bytes (at %s); "
				  "leave large files out", KD_CAP_DOSSIER_FILES, KD_CAP_DOSSIER_BYTES,
				  src ? src : rel);
	}
	if (p->nfiles == p->capfiles) {
		size_t n = p->capfiles ? p->capfiles * 2 : 32;
		struct dossier_file *nv = realloc(p->files, n * sizeof *nv);
		if (nv == NULL) {
			free(data);
			return kd_err_sys(err, KD_EENV, NULL, ENOMEM, "dossier");
		}
		p->files = nv;
		p->capfiles = n;
	}
	f = &p->files[p->nfiles++];
	memset(f, 0, sizeof *f);
	f->rel = strdup(rel);
	f->src = src ? strdup(src) : NULL;
	f->data = data;
	f->len = len;
	f->binary = memchr(data, '\0', len) != NULL;
	return 0;
}

/* Add a generated text (copied). */
static int
plan_add_text(struct dossier_plan *p, const char *rel, const char *text, struct kd_err *err)
{
	/* README.md is read with cat: cleaned as the terminal is (the
	 * dossier's files are written raw, so here) */
	char *d = termout_person_file(rel) ? termout_clean(text, strlen(text), TERMOUT_KEEP_NL, NULL)
		  : strdup(text);

	if (d == NULL)
		return kd_err_sys(err, KD_EENV, NULL, ENOMEM, "dossier");
	return plan_add(p, rel, NULL, d, strlen(d), err);
}

static int
plan_add_file(struct dossier_plan *p, const char *rel, const char *src, struct kd_err *err)
{
	char *data;
	size_t len;
	int rc;

	if ((rc = fsutil_read_file(src, KD_CAP_TEXT_FILE, &data, &len, err)) != 0)
		return rc;
	return plan_add(p, rel, src, data, len, err);
}

static int
excluded(const struct dossier_plan *p, const char *src)
{
	size_t i;
	json_t *v;

	json_array_foreach(p->excluded, i, v)
		if (json_is_string(v) && src != NULL && strcmp(json_string_value(v), src) == 0)
			return 1;
	return 0;
}

/* Files of the kernodeck folder: everything but the cache, the lock, the
 * dossiers, replays, temporary files, the logs (add_logs copies those the
 * verdicts name), the outputs of earlier runs and bisect's runs (its
 * report, bisect/bisect.yaml, alone is kept). */
static int
add_state_tree(struct dossier_plan *p, const char *root, const char *rel, const char *out,
	       int depth, struct kd_err *err)
{
	char dir[PATH_MAX];
	DIR *d;
	struct dirent *de;
	int rc = 0;

	if (depth > 16)
		return 0;
	snprintf(dir, sizeof dir, "%s%s%s", root, *rel ? "/" : "", rel);
	if ((d = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : kd_err_sys(err, KD_EENV, dir, errno, "cannot read %s", dir);
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char sub[PATH_MAX / 2], full[PATH_MAX], drel[PATH_MAX];
		const char *n = de->d_name;
		struct stat st;

		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || strstr(n, ".tmp.") != NULL)
			continue;
		if (*rel == '\0' && (strcmp(n, "cache") == 0 || strcmp(n, "lock") == 0 ||
				     strncmp(n, "dossier", 7) == 0 || strncmp(n, "replay", 6) == 0 ||
				     strcmp(n, "logs") == 0 || strcmp(n, "old-outputs") == 0))
			continue;
		if (strcmp(rel, "bisect") == 0 && strcmp(n, "bisect.yaml") != 0)
			continue;
		if (snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", n) >= (int)sizeof sub ||
		    snprintf(full, sizeof full, "%s/%s", root, sub) >= (int)sizeof full)
			continue;
		if (out != NULL && strcmp(full, out) == 0)
			continue;
		if (lstat(full, &st) < 0 || S_ISLNK(st.st_mode))
			continue;
		if (S_ISDIR(st.st_mode)) {
			rc = add_state_tree(p, root, sub, out, depth + 1, err);
			continue;
		}
		if (!S_ISREG(st.st_mode) || excluded(p, full))
			continue;
		snprintf(drel, sizeof drel, "kernodeck/%s", sub);
		rc = plan_add_file(p, drel, full, err);
	}
	closedir(d);
	return rc;
}

/* The logs the state, the observations and the latest fleet run name
 * (logkeep_referenced): the evidence behind the verdicts, not the history. */
static int
add_logs(struct dossier_plan *p, const struct kd_ctx *ctx, struct kd_err *err)
{
	json_t *refs = logkeep_referenced(ctx, fleet_latest, NULL), *v;
	const char *name;
	int rc = 0;

	json_object_foreach(refs, name, v) {
		char rel[NAME_MAX + 8], drel[NAME_MAX + 24], *src;
		snprintf(rel, sizeof rel, "logs/%.*s", NAME_MAX, name);
		if ((src = kd_ctx_path(ctx, rel)) == NULL) {
			rc = kd_err_sys(err, KD_EENV, NULL, ENOMEM, "dossier");
			break;
		}
		snprintf(drel, sizeof drel, "kernodeck/%s", rel);
		if (!excluded(p, src))
			rc = plan_add_file(p, drel, src, err);
		free(src);
		if (rc != 0)
			break;
	}
	json_decref(refs);
	return rc;
}

/* A path of the reference, relative to the project, that may be copied
 * into project/: inside the project, no "..". */
static int
project_rel_ok(const char *rel)
{
	return rel != NULL && sha256sums_path_safe(rel);
}

/* One output file (rel inside the output folder) as outputs/REL, unless it
 * is over KD_CAP_DOSSIER_OUTPUT or not a regular file: then it is named
 * in left_out with the reason. */
static int
add_output(struct dossier_plan *p, const char *folder, const char *rel, json_t *copied,
	   json_t *left_out, struct kd_err *err)
{
	char *src, drel[PATH_MAX];
	struct stat st;
	int rc = 0;

	if (rel == NULL || !sha256sums_path_safe(rel) || json_object_get(copied, rel) != NULL)
		return 0;
	if ((src = fsutil_join(folder, rel)) == NULL)
		return kd_err_sys(err, KD_EENV, NULL, ENOMEM, "dossier");
	if (lstat(src, &st) < 0 || !S_ISREG(st.st_mode)) {
		json_array_append_new(left_out, json_pack("{s:s, s:s}", "file", rel, "why",
							  "not a regular file"));
	} else if ((unsigned long long)st.st_size > KD_CAP_DOSSIER_OUTPUT) {
		json_array_append_new(left_out, json_pack("{s:s, s:s}", "file", rel, "why",
							  "larger than the cap of one output"));
	} else if (!excluded(p, src)) {
		snprintf(drel, sizeof drel, "outputs/%s", rel);
		rc = plan_add_file(p, drel, src, err);
		json_object_set_new(copied, rel, json_true());
	}
	free(src);
	return rc;
}

/* The outputs the sample's verdict read (its observations name the folder
 * and the files) and the ids file when it is among them: outputs/, and
 * "outputs" in dossier.yaml says what was copied and what was left out. */
static int
add_outputs(struct dossier_plan *p, const struct kd_ctx *ctx, struct kd_err *err)
{
	const json_t *obs = kd_ctx_obs(ctx, stage_pos(&kd_stage_sample));
	const char *folder = obs_sample_outputs_folder(obs);
	const char *ids = yamlio_get_str(ctx->ref, "result.ids.file");
	const json_t *files = obs_sample_outputs_files(obs);
	json_t *f;
	json_t *copied = json_object(), *left_out = json_array(), *list, *v;
	const char *k;
	size_t i, fl;
	int rc = 0;

	if (folder == NULL || *folder != '/')
		goto out;
	json_array_foreach(files, i, f)
		if (rc == 0 && !json_is_true(json_object_get(f, "missing")))
			rc = add_output(p, folder, json_string_value(json_object_get(f, "file")),
					copied, left_out, err);
	if (rc == 0 && ids != NULL && project_rel_ok(ids)) {
		char *abs = fsutil_join(ctx->project_dir, ids);
		fl = strlen(folder);
		if (abs != NULL && strncmp(abs, folder, fl) == 0 && abs[fl] == '/')
			rc = add_output(p, folder, abs + fl + 1, copied, left_out, err);
		free(abs);
	}
	list = json_array();
	json_object_foreach(copied, k, v)
		json_array_append_new(list, json_string(k));
	json_object_set_new(p->tree, "outputs", json_pack("{s:s, s:o, s:O}", "folder", folder,
							  "files", list, "left_out", left_out));
out:
	json_decref(copied);
	json_decref(left_out);
	return rc;
}

/* The files the rebuild file includes (-r, -c, followed from each file
 * that names them): copied into project/, so that the replay compares the
 * clone's with them; one that leaves the project is refused (the clone
 * would not hold it). */
static int
add_includes(struct dossier_plan *p, struct kd_ctx *ctx, struct kd_err *err)
{
	json_t *list = NULL, *v;
	size_t i;
	int rc = contain_includes(ctx->project_dir, "requirements-rebuild.txt", &list, err);

	json_array_foreach(list, i, v) {
		const char *rel = json_string_value(json_object_get(v, "path"));
		char *src, drel[PATH_MAX];
		if (rc != 0 || !project_rel_ok(rel))
			continue;
		src = fsutil_join(ctx->project_dir, rel);
		if (src != NULL && fsutil_exists(src) && !excluded(p, src)) {
			snprintf(drel, sizeof drel, "project/%s", rel);
			rc = plan_add_file(p, drel, src, err);
		}
		free(src);
	}
	json_decref(list);
	return rc;
}

static int
add_project_files(struct dossier_plan *p, struct kd_ctx *ctx, struct kd_err *err)
{
	const char *inv = yamlio_get_str(ctx->ref, "python.inventory");
	const char *insp = yamlio_get_str(ctx->ref, "python.inspect");
	/* what the replay reads from the project: the inventory and pip
	 * inspect may be in kernodeck/reference/ (capture), which git ignores
	 * and the clone does not have */
	const char *rels[] = { "requirements-rebuild.txt", inv, insp };
	int rc = 0;

	for (size_t i = 0; i < sizeof rels / sizeof rels[0] && rc == 0; i++) {
		char *src, drel[PATH_MAX];
		if (!project_rel_ok(rels[i]))
			continue;
		src = fsutil_join(ctx->project_dir, rels[i]);
		if (src != NULL && fsutil_exists(src) && !excluded(p, src)) {
			snprintf(drel, sizeof drel, "project/%s", rels[i]);
			rc = plan_add_file(p, drel, src, err);
		}
		free(src);
	}
	if (rc == 0)
		rc = add_includes(p, ctx, err);
	return rc;
}

/* ---- scanning -------------------------------------------------------------- */

static void
add_finding(struct dossier_plan *p, const struct dossier_file *f, int line,
	    const char *kind, const char *name)
{
	struct dossier_finding *d;

	if (p->nfindings == p->capfindings) {
		size_t n = p->capfindings ? p->capfindings * 2 : 16;
		struct dossier_finding *nv = realloc(p->findings, n * sizeof *nv);
		if (nv == NULL)
			return;
		p->findings = nv;
		p->capfindings = n;
	}
	d = &p->findings[p->nfindings++];
	d->rel = strdup(f->rel);
	d->src = f->src ? strdup(f->src) : NULL;
	d->line = line;
	d->kind = kind;
	snprintf(d->name, sizeof d->name, "%s", name);
}

/* Does a replay read f's paths?  Under kernodeck/, only the reference and
 * the folders' manifests: the rest (state, observations, logs) is the
 * evidence of what the reference machine did, and a replay observes its
 * own machine. */
static int
home_matters(const struct dossier_file *f)
{
	return strncmp(f->rel, "kernodeck/", 10) != 0 || strcmp(f->rel, "kernodeck/reference.yaml") == 0 ||
		strncmp(f->rel, "kernodeck/manifests/", 20) == 0;
}

/* Does the line that starts at data[from] of f open a top-level block
 * that only describes the reference machine: dossier.yaml's stages (the
 * observations and rows of each stage)?  -1: the line opens no block. */
static int
home_block_skipped(const struct dossier_file *f, size_t from)
{
	const char *l = f->data + from;
	size_t left = f->len - from;

	if (left == 0 || l[0] == ' ' || l[0] == '\t' || l[0] == '-' || l[0] == '#' || l[0] == '\n')
		return -1;
	return strcmp(f->rel, "dossier.yaml") == 0 && left > 7 && memcmp(l, "stages:", 7) == 0;
}

/* Is the line that starts at data[from] of f one whose paths a replay does
 * not need: the PATH variable ("PATH: ...", "PATH=..."), where the
 * reference machine looked for programs; a row of the README's results
 * ("| warn | ..."), what a check observed there. */
static int
home_line_skipped(const struct dossier_file *f, size_t from)
{
	static const char *const rows[] = { "| pass |", "| fail |", "| warn |", "| info |",
					    "| deviation |" };
	const char *d = f->data;
	size_t len = f->len;

	if (strcmp(f->rel, "README.md") == 0)
		for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
			if (len - from > strlen(rows[k]) && memcmp(d + from, rows[k], strlen(rows[k])) == 0)
				return 1;
	while (from < len && (d[from] == ' ' || d[from] == '\t'))
		from++;
	if (len - from > 7 && memcmp(d + from, "export ", 7) == 0)
		from += 7;
	return len - from > 5 && memcmp(d + from, "PATH", 4) == 0 &&
		(d[from + 4] == ':' || d[from + 4] == '=');
}

/* Absolute paths under $HOME that a replay would need: shown, so that they
 * can be made relative. */
static void
scan_home(struct dossier_plan *p, const struct dossier_file *f)
{
	const char *home = getenv("HOME");
	size_t hl, shown = 0, bol = 0;
	int line = 1, skip = 0, b;

	if (home == NULL || strlen(home) < 2 || strcmp(home, "/") == 0 || !home_matters(f))
		return;
	hl = strlen(home);
	for (size_t i = 0; i + hl < f->len && shown < 5; i++) {
		if (i == 0 || f->data[i - 1] == '\n') {
			line += i > 0;
			bol = i;
			if ((b = home_block_skipped(f, bol)) >= 0)
				skip = b;
		}
		if (skip || memcmp(f->data + i, home, hl) != 0 || f->data[i + hl] != '/' ||
		    home_line_skipped(f, bol) ||
		    (i > 0 && f->data[i - 1] != ' ' && f->data[i - 1] != '"' && f->data[i - 1] != '\'' &&
		     f->data[i - 1] != '=' && f->data[i - 1] != '\n' && f->data[i - 1] != ':' &&
		     f->data[i - 1] != '\t' && f->data[i - 1] != '('))
			continue;
		size_t e = i;
		while (e < f->len && !strchr(" \n\"'\t:,;", f->data[e]) && e - i < 512)
			e++;
		json_t *o = json_object();
		json_object_set_new(o, "file", json_string(f->rel));
		json_object_set_new(o, "line", json_integer(line));
		json_object_set_new(o, "path", json_stringn(f->data + i, e - i));
		json_array_append_new(p->home_paths, o);
		shown++;
		i = e - 1;
	}
}

static void
scan_plan(struct dossier_plan *p)
{
	for (size_t i = 0; i < p->nfiles; i++) {
		const struct dossier_file *f = &p->files[i];
		const char *ck = redact_credential_file(f->rel);
		struct redact_finding rf[64];
		size_t n;

		if (ck != NULL && f->len > 0)
			add_finding(p, f, 1, ck, "CREDENTIALS_FILE");
		if (f->binary)
			continue;
		n = redact_scan(f->data, f->len, rf, 64);
		for (size_t k = 0; k < n && k < 64; k++)
			add_finding(p, f, rf[k].line, rf[k].kind, rf[k].name);
		if (n > 64) {
			/* more than can be listed: one more entry says so */
			add_finding(p, f, rf[63].line, "more-findings", "CREDENTIALS");
		}
		scan_home(p, f);
	}
}

/* Replace the project folder by "." in every text file. */
static void
make_relative(struct dossier_plan *p, const char *project)
{
	size_t pl = strlen(project);

	if (pl < 2)
		return;
	for (size_t i = 0; i < p->nfiles; i++) {
		struct dossier_file *f = &p->files[i];
		char *o;
		size_t ol = 0;
		if (f->binary || f->len < pl || strcmp(f->rel, "procedure.sh") == 0)
			continue;   /* procedure.sh names the project from its own place */
		o = malloc(f->len + 1);
		if (o == NULL)
			continue;
		for (size_t k = 0; k < f->len;) {
			/* the folder itself, not /tmp/demo2 for /tmp/demo */
			if (k + pl <= f->len && memcmp(f->data + k, project, pl) == 0 &&
			    (k + pl == f->len || !(isalnum((unsigned char)f->data[k + pl]) ||
						   strchr("._-", f->data[k + pl])))) {
				o[ol++] = '.';
				k += pl;
				continue;
			}
			o[ol++] = f->data[k++];
		}
		o[ol] = '\0';
		free(f->data);
		f->data = o;
		f->len = ol;
	}
}

/* ---- the machine-readable dossier ----------------------------------------- */

static json_t *
data_references(const struct kd_ctx *ctx)
{
	json_t *o = json_object(), *v;
	static const char *const keys[][2] = {
		{ "code", "code" }, { "data", "data" }, { "sample", "result.sample" },
		{ "example", "result.example" }, { "inventory", "python.inventory" },
	};

	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if ((v = yamlio_get(ctx->ref, keys[i][1])) != NULL)
			json_object_set_new(o, keys[i][0], json_deep_copy(v));
	return o;
}

/* Every deviation of every stage, with its stage. */
json_t *
dossier_deviations(const struct kd_ctx *ctx)
{
	json_t *a = json_array();

	for (int i = 0; i < KD_NSTAGES; i++) {
		const struct kd_stage_state *ss = &ctx->state.st[i];
		for (size_t k = 0; k < ss->ndevs; k++) {
			const struct kd_deviation *d = &ss->devs[k];
			json_t *o = json_object();
			json_object_set_new(o, "stage", json_string(kd_stages[i]->id));
			json_object_set_new(o, "check", json_string(d->check));
			json_object_set_new(o, "what", d->what ? json_string(d->what) : json_null());
			json_object_set_new(o, "why", json_string(d->why ? d->why : ""));
			json_object_set_new(o, "intentional", json_boolean(d->intentional));
			/* recorded on a check that passes now: not a current deviation */
			json_object_set_new(o, "needed",
					    json_boolean(stage_deviation_needed(&ctx->state, i, d->check)));
			json_object_set_new(o, "author", d->author ? json_string(d->author) : json_null());
			json_object_set_new(o, "time", d->time ? json_string(d->time) : json_null());
			json_array_append_new(a, o);
		}
	}
	return a;
}

/* The observed inventory, parsed from installed-after.txt. */
static json_t *
observed_inventory(const struct kd_ctx *ctx)
{
	char *p = kd_ctx_path(ctx, "installed-after.txt");
	json_t *pkgs = NULL, *o = json_object();
	const char *fmt = NULL;
	struct kd_err err;

	json_object_set_new(o, "source", json_string("kernodeck/installed-after.txt"));
	if (p != NULL && fsutil_exists(p) && inventory_load(p, &pkgs, &fmt, &err) == 0)
		json_object_set_new(o, "packages", pkgs);
	else
		json_object_set_new(o, "packages", json_null());
	free(p);
	return o;
}

/* The base environment the rebuild was layered on (rebuild-base.h), with
 * where each package came from; null without one. */
static json_t *
dossier_base(const struct kd_ctx *ctx)
{
	const json_t *obs = kd_ctx_obs(ctx, stage_pos(&kd_stage_rebuild));
	const json_t *b = obs_rebuild_base(obs);
	json_t *o;

	if (b == NULL)
		return json_null();
	o = json_deep_copy(b);
	json_object_set_new(o, "mechanism", json_string(
		"the base's interpreter makes the venv; the base's package folders are named in "
		"the venv's site-packages/" BASEENV_PTH ", after the venv's own"));
	json_object_set_new(o, "origin", json_deep_copy(obs_rebuild_inventory_origin(obs)));
	return o;
}

static json_t *
build_tree(struct kd_ctx *ctx, const char *created)
{
	json_t *t = json_object(), *rep = report_tree(ctx, -1, KD_NSTAGES - 1);
	json_t *code = json_object();

	json_object_set_new(t, "schema", json_integer(KD_DOSSIER_SCHEMA));
	json_object_set_new(t, "kind", json_string("kernodeck-dossier"));
	json_object_set_new(t, "created", json_string(created));
	json_object_set_new(t, "kernodeck", json_string(PACKAGE_VERSION));
	json_object_set_new(t, "project", json_string(ctx->project_dir));
	json_object_set_new(t, "reference_identity", json_string(ctx->ref_id));
	json_object_set_new(t, "variant", dossier_variant(ctx));
	json_object_set_new(t, "goal", json_deep_copy(yamlio_get(ctx->ref, "goal")));
	json_object_set_new(code, "commit", json_deep_copy(yamlio_get(ctx->ref, "code.commit")));
	json_object_set_new(code, "branch", json_deep_copy(yamlio_get(ctx->ref, "code.branch")));
	json_object_set_new(code, "remote", reference_remote(ctx->ref) != NULL ?
			    json_string(reference_remote(ctx->ref)) : json_null());
	{
		/* stage 1 said a clone of the remote will not have the commit */
		const struct kd_stage_state *rs = &ctx->state.st[stage_pos(&kd_stage_reference)];
		const struct kd_row *r = kd_rows_find(&rs->rows, "code.pushed");
		if (r == NULL || r->status != KD_R_WARN)
			r = kd_rows_find(&rs->rows, "code.remote");
		if (r != NULL && r->status == KD_R_WARN && r->observed != NULL)
			json_object_set_new(code, "unfetchable", json_string(r->observed));
	}
	json_object_set_new(code, "local_path", json_string(ctx->project_dir));
	json_object_set_new(code, "entry_point",
			    json_deep_copy(yamlio_get(ctx->ref, "code.entry_point")));
	json_object_set_new(t, "code", code);
	json_object_set_new(t, "interpreter", ctx->python ? json_string(ctx->python) : json_null());
	{
		/* the variables that change the run, as stage 2 recorded them
		 * (redacted there), those of runenv.h's list only: replay and
		 * procedure.sh set them */
		const json_t *env = obs_system_env(kd_ctx_obs(ctx, stage_pos(&kd_stage_system)));
		json_object_set_new(t, "environment", runenv_filter(env));
	}
	json_object_set_new(t, "credentials", dossier_credentials(ctx));
	json_object_set_new(t, "data", data_references(ctx));
	json_object_set_new(t, "inventory", observed_inventory(ctx));
	{
		/* where each distribution came from and its digest (origin.h) */
		const json_t *og = obs_rebuild_origins_packages(kd_ctx_obs(ctx,
			stage_pos(&kd_stage_rebuild)));
		json_object_set_new(t, "origins", og ? json_deep_copy(og) : json_null());
	}
	json_object_set_new(t, "base", dossier_base(ctx));
	json_object_set_new(t, "deviations", dossier_deviations(ctx));
	json_object_set(t, "stages", json_object_get(rep, "stages"));
	json_object_set_new(t, "reference", json_deep_copy(ctx->ref));
	json_decref(rep);
	return t;
}

int
dossier_plan_build(struct kd_ctx *ctx, int relative, struct dossier_plan *p,
		   struct kd_err *err)
{
	char created[32];
	char *text, *out = kd_ctx_path(ctx, "dossier");
	json_t *ex = yamlio_get(ctx->state.settings, "dossier.exclude");
	int rc;

	memset(p, 0, sizeof *p);
	p->home_paths = json_array();
	p->excluded = json_is_array(ex) ? json_deep_copy(ex) : json_array();
	fsutil_utc_now(created, sizeof created);
	p->tree = build_tree(ctx, created);
	/* relative paths in procedure.sh only where the dossier sits in the
	 * project (PROJECT/kernodeck/dossier): the project is then "../.." */
	{
		char *dflt = fsutil_join(ctx->project_dir, "kernodeck");
		json_object_set_new(p->tree, "relative", json_boolean(relative && dflt &&
				    strcmp(dflt, ctx->state_dir) == 0));
		free(dflt);
	}
	if ((rc = add_state_tree(p, ctx->state_dir, "", out, 0, err)) != 0 ||
	    (rc = add_logs(p, ctx, err)) != 0 ||
	    (rc = add_outputs(p, ctx, err)) != 0 ||
	    (rc = add_project_files(p, ctx, err)) != 0)
		goto out;
	text = yamlio_dump(json_object_get(p->tree, "data"), 0, NULL);
	rc = plan_add_text(p, "data-references.yaml", text ? text : "", err);
	free(text);
	if (rc != 0)
		goto out;
	{
		/* the lock, in PEP 751's form and pip's (dossier-lock.h) */
		const json_t *og = json_object_get(p->tree, "origins");
		char *pl = dossier_pylock(ctx, og), *rl = dossier_requirements_lock(ctx, og);
		char *rd = dossier_requirements_direct(ctx, og);
		rc = pl != NULL ? plan_add_text(p, DOSSIER_PYLOCK, pl, err) : 0;
		if (rc == 0 && rl != NULL)
			rc = plan_add_text(p, DOSSIER_REQ_LOCK, rl, err);
		if (rc == 0 && rd != NULL)
			rc = plan_add_text(p, DOSSIER_REQ_DIRECT, rd, err);
		free(pl);
		free(rl);
		free(rd);
		if (rc != 0)
			goto out;
	}
	text = dossier_readme(ctx, p->tree);
	rc = plan_add_text(p, "README.md", text ? text : "", err);
	free(text);
	if (rc != 0)
		goto out;
	text = dossier_procedure(ctx, p->tree);
	rc = plan_add_text(p, "procedure.sh", text ? text : "", err);
	free(text);
	if (rc != 0)
		goto out;
	p->files[p->nfiles - 1].exec = 1;
	/* the file list goes into dossier.yaml, which is itself listed */
	{
		json_t *files = json_array();
		for (size_t i = 0; i < p->nfiles; i++) {
			json_t *o = json_object();
			json_object_set_new(o, "path", json_string(p->files[i].rel));
			json_object_set_new(o, "size", json_integer((json_int_t)p->files[i].len));
			if (p->files[i].src)
				json_object_set_new(o, "source", json_string(p->files[i].src));
			json_array_append_new(files, o);
		}
		json_object_set_new(p->tree, "files", files);
		json_object_set(p->tree, "excluded", p->excluded);
	}
	text = yamlio_dump(p->tree, 0, NULL);
	rc = plan_add_text(p, "dossier.yaml", text ? text : "", err);
	free(text);
	if (rc != 0)
		goto out;
	if (relative)
		make_relative(p, ctx->project_dir);
	scan_plan(p);
out:
	free(out);
	if (rc != 0)
		dossier_plan_free(p);   /* the callers free only a plan that was built */
	return rc;
}

void
dossier_plan_free(struct dossier_plan *p)
{
	for (size_t i = 0; i < p->nfiles; i++) {
		free(p->files[i].rel);
		free(p->files[i].src);
		free(p->files[i].data);
	}
	for (size_t i = 0; i < p->nfindings; i++) {
		free(p->findings[i].rel);
		free(p->findings[i].src);
	}
	free(p->files);
	free(p->findings);
	json_decref(p->home_paths);
	json_decref(p->excluded);
	json_decref(p->tree);
	memset(p, 0, sizeof *p);
}

/* ---- writing ----------------------------------------------------------------- */

static int
write_one(const char *root, const struct dossier_file *f, struct sha256sums *sums,
	  struct kd_err *err)
{
	char *path = fsutil_join(root, f->rel), *slash, hex[65];
	int rc;

	if (path == NULL)
		return kd_err_sys(err, KD_EENV, root, ENOMEM, "dossier");
	slash = strrchr(path, '/');
	*slash = '\0';
	rc = fsutil_mkdirs(path, err);
	*slash = '/';
	/* the scan was clean, so the bytes are written as they are and the
	 * manifest describes exactly them */
	if (rc == 0)
		rc = fsutil_write_atomic(path, f->data, f->len, FSUTIL_RAW, err);
	if (rc == 0 && f->exec && chmod(path, 0755) < 0)
		rc = kd_err_sys(err, KD_EENV, path, errno, "cannot make %s executable", path);
	if (rc == 0) {
		hash_buffer(f->data, f->len, hex);
		rc = sha256sums_add(sums, hex, f->rel, err);
	}
	free(path);
	return rc;
}

/* dossier.YYYYmmddTHHMMSSZ[.N] beside out, not yet taken. */
static char *
aside_name(const char *out)
{
	char prefix[PATH_MAX];

	snprintf(prefix, sizeof prefix, "%s.", out);
	return fsutil_stamped_name(NULL, prefix, "");
}

int
dossier_plan_write(const struct dossier_plan *p, const char *out, char **moved_aside,
		   struct kd_err *err)
{
	char tmp[PATH_MAX];
	struct sha256sums sums = {0};
	char *text = NULL, *aside = NULL;
	size_t len;
	int rc = 0;

	if (moved_aside)
		*moved_aside = NULL;
	if (p->nfindings > 0)
		return kd_err_set(err, KD_EFAIL, p->findings[0].rel, p->findings[0].line,
				  "%zu credential(s) found: the dossier is not written "
				  "(redact them or leave their files out)", p->nfindings);
	if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid()) >= (int)sizeof tmp)
		return kd_err_set(err, KD_EENV, out, 0, "%s: path too long", out);
	fsutil_sweep_temps(out);   /* OUT.tmp.PID of writers killed before */
	if (fsutil_exists(tmp) && (rc = fsutil_rmtree(tmp, err)) != 0)
		return rc;
	if ((rc = fsutil_mkdirs(tmp, err)) != 0)
		return rc;
	for (size_t i = 0; i < p->nfiles && rc == 0; i++)
		rc = write_one(tmp, &p->files[i], &sums, err);
	if (rc == 0) {
		char *sp = fsutil_join(tmp, "SHA256SUMS");
		text = sha256sums_format(&sums, &len);
		rc = text == NULL ? kd_err_sys(err, KD_EENV, out, ENOMEM, "dossier") :
			fsutil_write_atomic(sp, text, len, FSUTIL_RAW, err);
		free(sp);
	}
	if (rc == 0 && fsutil_exists(out) && (aside = aside_name(out)) == NULL)
		rc = kd_err_sys(err, KD_EENV, out, errno,
				"cannot move the older dossier %s aside", out);
	if (rc == 0)
		rc = fsutil_swap_dir(tmp, out, aside, err);
	if (rc != 0) {
		struct kd_err e2;
		if (fsutil_exists(out))   /* never remove the one in place */
			fsutil_rmtree(tmp, &e2);
		free(aside);
		aside = NULL;
	}
	if (moved_aside)
		*moved_aside = aside;
	else
		free(aside);
	free(text);
	sha256sums_free(&sums);
	return rc;
}

/* ---- older dossiers: one backup kept ------------------------------------- */

/* The stamp of a backup name BASE.YYYYmmddTHHMMSSZ[.N] (as aside_name makes
 * it), or NULL when name is not one. */
static const char *
backup_stamp(const char *name, const char *base)
{
	size_t bl = strlen(base);
	const char *t;

	if (strncmp(name, base, bl) != 0 || name[bl] != '.')
		return NULL;
	t = name + bl + 1;
	for (int i = 0; i < 16; i++) {
		int want = i == 8 ? 'T' : i == 15 ? 'Z' : 0;
		if (want ? t[i] != want : !isdigit((unsigned char)t[i]))
			return NULL;
	}
	if (t[16] == '\0')
		return t;
	if (t[16] != '.' || t[17] == '\0' || strlen(t + 17) > 3 ||
	    strspn(t + 17, "0123456789") != strlen(t + 17))
		return NULL;
	return t;
}

/* Newest first: by stamp, then by the counter aside_name adds. */
static int
backup_cmp(const void *a, const void *b)
{
	const char *x = strrchr(*(char *const *)a, 'Z'), *y = strrchr(*(char *const *)b, 'Z');
	int c = strncmp(y - 15, x - 15, 16);

	if (c != 0)
		return c;
	return (y[1] ? atoi(y + 2) : 0) - (x[1] ? atoi(x + 2) : 0);
}

/* A folder kernodeck wrote as a dossier and nobody changed since: a real
 * folder (not a link) whose dossier.yaml says kind: kernodeck-dossier and
 * whose files are exactly those of its SHA256SUMS, with their digests. */
static int
own_dossier(const char *dir)
{
	struct stat st;
	struct sha256sums sums;
	struct sha256sums_report rep = { 0 };
	struct kd_err e;
	char *yp = fsutil_join(dir, "dossier.yaml"), *sp = fsutil_join(dir, "SHA256SUMS");
	char *buf = NULL;
	size_t len;
	int own = 0;

	if (yp == NULL || sp == NULL || lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    lstat(yp, &st) < 0 || !S_ISREG(st.st_mode) ||
	    fsutil_read_file(yp, KD_CAP_YAML_FILE, &buf, &len, &e) != 0)
		goto out;
	if (len < 32 || memchr(buf, '\0', len) != NULL || strncmp(buf, "schema: ", 8) != 0 ||
	    strstr(buf, "\nkind: kernodeck-dossier\n") == NULL)
		goto out;
	if (sha256sums_load(sp, &sums, &e) != 0)
		goto out;
	own = sums.n > 0 && sha256sums_verify(dir, &sums, "SHA256SUMS", &rep, &e) == 0;
	sha256sums_report_free(&rep);
	sha256sums_free(&sums);
out:
	free(buf);
	free(yp);
	free(sp);
	return own;
}

/* Keep KD_DOSSIER_BACKUPS older dossiers beside out (kept, the one just
 * moved aside, first, then the newest); remove the other backups that are
 * kernodeck's own and unchanged (own_dossier).  Anything else with a backup
 * name (a folder a person changed or made, a link, a file) is left.  The
 * folders removed go to summary "removed_backups", a failure to
 * "backup_error": neither fails the write, which is done. */
static void
prune_backups(const char *out, const char *kept, json_t *summary)
{
	char *dir = strdup(out), *slash = dir ? strrchr(dir, '/') : NULL, **v = NULL;
	const char *parent, *base, *keep = NULL;
	size_t n = 0, cap = 0, nkept = 0;
	json_t *removed = json_array();
	struct dirent *de;
	DIR *d;

	if (dir == NULL)
		goto out;
	base = slash ? slash + 1 : dir;
	parent = slash == NULL ? "." : slash == dir ? "/" : dir;
	if (slash != NULL && slash != dir)
		*slash = '\0';
	if (kept != NULL) {
		keep = strrchr(kept, '/') ? strrchr(kept, '/') + 1 : kept;
		nkept = 1;
	}
	if (*base == '\0' || (d = opendir(parent)) == NULL)
		goto out;
	while ((de = readdir(d)) != NULL) {
		if (backup_stamp(de->d_name, base) == NULL || (keep && strcmp(de->d_name, keep) == 0))
			continue;
		if (n == cap) {
			char **nv = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof *v);
			if (nv == NULL)
				break;
			v = nv;
		}
		if ((v[n] = strdup(de->d_name)) != NULL)
			n++;
	}
	closedir(d);
	if (n > 1)
		qsort(v, n, sizeof *v, backup_cmp);
	for (size_t i = 0; i < n; i++) {
		char *full = fsutil_join(parent, v[i]);
		struct kd_err e;
		char msg[1200];

		if (full != NULL && own_dossier(full)) {
			if (nkept < KD_DOSSIER_BACKUPS)
				nkept++;
			else if (fsutil_rmtree(full, &e) == 0)
				json_array_append_new(removed, json_string(full));
			else
				json_object_set_new(summary, "backup_error",
						    json_string(kd_err_format(&e, msg, sizeof msg)));
		}
		free(full);
	}
out:
	if (json_array_size(removed) > 0)
		json_object_set(summary, "removed_backups", removed);
	json_decref(removed);
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	free(dir);
}

static json_t *
findings_json(const struct dossier_plan *p)
{
	json_t *a = json_array();

	for (size_t i = 0; i < p->nfindings; i++) {
		const struct dossier_finding *f = &p->findings[i];
		json_t *o = json_object();
		json_object_set_new(o, "file", json_string(f->rel));
		json_object_set_new(o, "source", f->src ? json_string(f->src) : json_null());
		json_object_set_new(o, "line", json_integer(f->line));
		json_object_set_new(o, "kind", json_string(f->kind));
		json_object_set_new(o, "name", json_string(f->name));
		json_array_append_new(a, o);
	}
	return a;
}

int
dossier_write(struct kd_ctx *ctx, const char *out, int relative, json_t **summary,
	      struct kd_err *err)
{
	struct dossier_plan p;
	char *aside = NULL, *dflt = NULL;
	json_t *s = json_object();
	int rc;

	if (out == NULL)
		out = dflt = kd_ctx_path(ctx, "dossier");
	rc = dossier_plan_build(ctx, relative, &p, err);
	json_object_set_new(s, "out", json_string(out));
	if (rc == 0) {
		json_object_set_new(s, "files", json_integer((json_int_t)p.nfiles));
		json_object_set_new(s, "findings", findings_json(&p));
		json_object_set(s, "home_paths", p.home_paths);
		json_object_set(s, "excluded", p.excluded);
		json_object_set_new(s, "relative", json_boolean(relative));
		if (p.nfindings == 0)
			rc = dossier_plan_write(&p, out, &aside, err);
		json_object_set_new(s, "written", json_boolean(rc == 0 && p.nfindings == 0));
		if (aside != NULL)
			json_object_set_new(s, "moved_aside", json_string(aside));
		if (rc == 0 && p.nfindings == 0)
			prune_backups(out, aside, s);
		json_object_set(s, "created", json_object_get(p.tree, "created"));
		dossier_plan_free(&p);
	}
	free(aside);
	free(dflt);
	if (summary)
		*summary = s;
	else
		json_decref(s);
	return rc;
}

int
dossier_redact_sources(const struct dossier_plan *p, int *changed, struct kd_err *err)
{
	int rc = 0;

	*changed = 0;
	for (size_t i = 0; i < p->nfindings && rc == 0; i++) {
		const char *src = p->findings[i].src;
		char *data, *red;
		size_t len, rlen;
		int seen = 0;

		if (src == NULL)
			continue;
		for (size_t k = 0; k < i; k++)
			if (p->findings[k].src && strcmp(p->findings[k].src, src) == 0)
				seen = 1;
		if (seen)
			continue;
		if ((rc = fsutil_read_file(src, KD_CAP_TEXT_FILE, &data, &len, err)) != 0)
			break;
		red = redact_text(data, len, &rlen);
		if (red == NULL) {
			free(data);
			return kd_err_sys(err, KD_EENV, src, ENOMEM, "cannot redact %s", src);
		}
		if (rlen != len || memcmp(red, data, len) != 0) {
			rc = fsutil_write_atomic(src, red, rlen, FSUTIL_RAW, err);
			if (rc == 0)
				(*changed)++;
		}
		free(red);
		free(data);
	}
	return rc;
}

/* ---- copying a tree ------------------------------------------------------- */

int
dossier_copy_tree(const char *src, const char *dst, struct kd_err *err)
{
	DIR *d;
	struct dirent *de;
	int rc;

	if (fsutil_exists(dst))
		return kd_err_set(err, KD_EINPUT, dst, 0, "%s exists already", dst);
	if ((rc = fsutil_mkdirs(dst, err)) != 0)
		return rc;
	if ((d = opendir(src)) == NULL)
		return kd_err_sys(err, KD_EENV, src, errno, "cannot read %s", src);
	while (rc == 0 && (de = readdir(d)) != NULL) {
		struct stat st;
		char *s, *t;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		s = fsutil_join(src, de->d_name);
		t = fsutil_join(dst, de->d_name);
		if (s == NULL || t == NULL) {
			rc = kd_err_sys(err, KD_EENV, src, ENOMEM, "copy");
		} else if (lstat(s, &st) < 0) {
			rc = kd_err_sys(err, KD_EENV, s, errno, "cannot read %s", s);
		} else if (S_ISDIR(st.st_mode)) {
			rc = dossier_copy_tree(s, t, err);
		} else if (S_ISREG(st.st_mode)) {
			char *data;
			size_t len;
			if ((rc = fsutil_read_file(s, KD_CAP_TEXT_FILE, &data, &len, err)) == 0) {
				rc = fsutil_write_atomic(t, data, len, FSUTIL_RAW, err);
				free(data);
				if (rc == 0 && (st.st_mode & 0111) && chmod(t, 0755) < 0)
					rc = kd_err_sys(err, KD_EENV, t, errno, "cannot chmod %s", t);
			}
		} else {
			rc = kd_err_set(err, KD_EINPUT, s, 0,
					"%s is not a regular file or folder (a link?)", s);
		}
		free(s);
		free(t);
	}
	closedir(d);
	return rc;
}
