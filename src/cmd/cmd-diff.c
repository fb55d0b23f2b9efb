/*
 * cmd-diff.c - `kernodeck diff A [B] [--format text|yaml|json] [--all]`: two dossiers, or
 * two `kernodeck check --format yaml|json` captures (a reference machine and
 * a new one), compared layer by layer, showing only what differs, in the
 * five layers a dossier's README names (and the deviations):
 *
 *   code        the commit, branch, remote and entry point; what stage 1
 *               observed (dirty files, submodules, remote)
 *   data        data and weights, sample and example: paths, SHA-256,
 *               sizes, versions, and the digests stage 1 observed
 *   python      the packages (pip freeze --all) compared by canonical name:
 *               missing, extra, version changed, local label changed, the
 *               same version from another artefact or origin (the
 *               dossiers' origins: where each came from, its SHA-256); the
 *               interpreter chosen and those found
 *   system      the system chain observed by stage 2 (the environment
 *               variables that change a run included) and what stage 5's
 *               probe reported, under "probe."
 *   result      stage 6's metrics (shapes, statistics, comparison)
 *   deviations  the deviations recorded, by stage and check
 *
 * Numbers that print the same (%.6g) are not differences; one that
 * differs carries its relative difference.
 * Values that differ between any two runs on one machine (durations, log
 * names, times, the project folder) are left out, so that what is listed is
 * a real difference; --all keeps them.  Exit 0: no difference; 1: differences; 2: an input
 * is missing or malformed.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "kernodeck/caps.h"
#include "kernodeck/cmd.h"
#include "kernodeck/dossier.h"
#include "kernodeck/fleet.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/inventory.h"
#include "kernodeck/obs-contract.h"
#include "kernodeck/obs-reference.h"
#include "kernodeck/origin.h"
#include "kernodeck/paste.h"
#include "kernodeck/report.h"
#include "kernodeck/stage.h"
#include "kernodeck/treeout.h"
#include "kernodeck/why.h"
#include "kernodeck/yamlio.h"

/* Keys whose values change from run to run on the same machine. */
static const char *const volatile_keys[] = {
	"ms", "seconds", "elapsed_s", "elapsed", "duration", "duration_s", "log", "logs",
	"time", "checked_at", "created", "started", "started_at", "ended_at", "initial_seed",
	"argv", "cwd", "probe", "rule_canonical", "shown", "pid", "evidence", "how",
	"observed_at", "captured_at", "local_path", "workdir", "exclude_added",
	/* where a digest came from, what was moved aside, seeds: no difference of
	 * the result's */
	"from_cache", "cached", "cache", "moved_aside", "old_outputs", "seed", "seeds",
	/* the points of the resume check's plot: the trajectories are compared
	 * as files, step by step */
	"plot",
};

/* Keys that name an element (the worst one, the first error): compared as
 * the element and its value together, never field by field. */
static const char *const element_keys[] = {
	"worst", "worst_row", "first", "first_error", "first_missing", "first_extra",
	"first_duplicate", "first_misplaced",
};

static int
is_element_key(const char *k)
{
	for (size_t i = 0; i < sizeof element_keys / sizeof element_keys[0]; i++)
		if (strcmp(k, element_keys[i]) == 0)
			return 1;
	return 0;
}

/* A counter or a step number: a difference of it has no relative size. */
static int
is_counter_key(const char *path)
{
	static const char *const ends[] = { "step", "steps", "count", "compared", "diverging",
					    "index", "line", "rows", "missing", "extra",
					    "duplicates", "exit_code", "interrupt_at", "from", "to" };
	const char *k = strrchr(path, '.');

	k = k ? k + 1 : path;
	for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
		size_t n = strlen(ends[i]), kl = strlen(k);
		if (kl >= n && strcmp(k + kl - n, ends[i]) == 0)
			return 1;
	}
	return 0;
}

/* --all: the volatile keys are compared too. */
static int diff_all;

static int
is_volatile(const char *k)
{
	if (diff_all)
		return 0;
	for (size_t i = 0; i < sizeof volatile_keys / sizeof volatile_keys[0]; i++)
		if (strcmp(k, volatile_keys[i]) == 0)
			return 1;
	return 0;
}

/* A label for an array element: its step, name, file, id or check. */
static const char *
elem_label(const json_t *v)
{
	static const char *const keys[] = { "step", "name", "file", "id", "check", "path", "pci" };

	if (!json_is_object(v))
		return NULL;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (json_is_string(json_object_get(v, keys[i])))
			return json_string_value(json_object_get(v, keys[i]));
	return NULL;
}

/* The project folder in values becomes <project>. */
static json_t *
normalise(const json_t *v, const char *project)
{
	const char *s = json_string_value(v);
	size_t pl = project ? strlen(project) : 0;

	if (s != NULL && pl > 1) {
		const char *at = strstr(s, project);
		if (at != NULL) {
			char buf[4096];
			snprintf(buf, sizeof buf, "%.*s<project>%s", (int)(at - s), s, at + pl);
			return json_string(buf);
		}
	}
	return json_deep_copy(v);
}

/* Flatten a tree into path -> leaf value, arrays of labelled objects by
 * label. */
static void
flatten(const json_t *t, const char *prefix, const char *project, json_t *out, int depth)
{
	char path[1024];
	const char *k;
	json_t *v;
	size_t i;

	if (depth > 24)
		return;
	if (json_is_object(t)) {
		json_object_foreach((json_t *)t, k, v) {
			if (is_volatile(k))
				continue;
			snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", k);
			if (is_element_key(k) && (json_is_object(v) || json_is_array(v)))
				json_object_set_new(out, path, json_deep_copy(v));
			else
				flatten(v, path, project, out, depth + 1);
		}
		if (json_object_size(t) == 0 && *prefix)
			json_object_set_new(out, prefix, json_object());
	} else if (json_is_array(t)) {
		json_array_foreach(t, i, v) {
			const char *l = elem_label(v);
			if (l != NULL)
				snprintf(path, sizeof path, "%s[%s]", prefix, l);
			else
				snprintf(path, sizeof path, "%s[%zu]", prefix, i);
			flatten(v, path, project, out, depth + 1);
		}
		if (json_array_size(t) == 0 && *prefix)
			json_object_set_new(out, prefix, json_array());
	} else if (*prefix) {
		json_object_set_new(out, prefix, normalise(t, project));
	}
}

static const json_t *
stage_of(const json_t *root, const char *id)
{
	const json_t *stages = json_object_get(root, "stages"), *s;
	size_t i;

	if (json_is_object(stages))
		return json_object_get(stages, id);
	json_array_foreach(stages, i, s)
		if (json_is_string(json_object_get(s, "id")) &&
		    strcmp(json_string_value(json_object_get(s, "id")), id) == 0)
			return s;
	return NULL;
}

static json_t *
flat_obs(const json_t *root, const char *stage, const char *project)
{
	json_t *o = json_object();

	flatten(json_object_get(stage_of(root, stage), "observations"), "", project, o, 0);
	return o;
}

/* Move the keys of flat object from that start with prefix ("python" takes
 * "python.x" and "python[..]") into to, as they are. */
static void
take_prefix(json_t *from, const char *prefix, json_t *to)
{
	size_t n = strlen(prefix);
	const char *k;
	json_t *v;
	void *tmp;

	json_object_foreach_safe(from, tmp, k, v) {
		if (strncmp(k, prefix, n) == 0 && (k[n] == '.' || k[n] == '[' || k[n] == '\0')) {
			json_object_set(to, k, v);
			json_object_del(from, k);
		}
	}
}

/* Flatten sub under prefix into out. */
static void
flat_into(const json_t *sub, const char *prefix, const char *project, json_t *out)
{
	if (sub != NULL)
		flatten(sub, prefix, project, out, 0);
}

/* The code layer: the dossier's code and what stage 1 observed of it. */
static json_t *
code_layer(const json_t *root, const char *project)
{
	json_t *o = json_object();
	const json_t *obs = json_object_get(stage_of(root, "reference"), "observations");

	flat_into(json_object_get(root, "code"), "", project, o);
	flat_into(obs_reference_code(obs), "observed", project, o);
	return o;
}

/* The data layer: data and weights, sample and example as declared, and
 * the digests and URLs stage 1 observed. */
static json_t *
data_layer(const json_t *root, const char *project)
{
	json_t *o = json_object();
	const json_t *obs = json_object_get(stage_of(root, "reference"), "observations");
	const json_t *d = json_object_get(root, "data");

	flat_into(json_object_get(d, "data"), "data", project, o);
	flat_into(json_object_get(d, "sample"), "sample", project, o);
	flat_into(json_object_get(d, "example"), "example", project, o);
	flat_into(obs_reference_files(obs), "observed.files", project, o);
	flat_into(obs_reference_urls(obs), "observed.urls", project, o);
	return o;
}

static json_t *
deviations_of(const json_t *root)
{
	json_t *o = json_object(), *d;
	size_t i;

	for (size_t k = 0; k < KD_NSTAGES; k++) {
		const char *id = kd_stages[k]->id;
		json_array_foreach(json_object_get(stage_of(root, id), "deviations"), i, d) {
			char key[512];
			json_t *e = json_object();
			snprintf(key, sizeof key, "%s/%s", id,
				 json_string_value(json_object_get(d, "check")));
			json_object_set(e, "why", json_object_get(d, "why"));
			json_object_set(e, "intentional", json_object_get(d, "intentional"));
			json_object_set_new(o, key, e);
		}
	}
	return o;
}

/* Packages of a dossier (inventory.packages) or, for a capture, what the
 * contract stage observed. */
static json_t *
packages_of(const json_t *root)
{
	const json_t *p = json_object_get(json_object_get(root, "inventory"), "packages");
	const json_t *obs = json_object_get(stage_of(root, "contract"), "observations");

	if (json_is_array(p)) {
		/* with each package's origin and digest (rebuild.yaml's origins) */
		json_t *c = json_deep_copy(p);
		origin_merge(c, json_object_get(root, "origins"));
		return c;
	}
	p = obs_contract_packages(obs);
	if (json_is_array(p))
		return json_incref((json_t *)p);
	return NULL;
}

/* Open a dossier (its folder, its dossier.yaml, or a project holding one)
 * or a capture: 0, the document and the file it came from (malloc'd). */
static int
load_root(const char *path, struct yamlio_doc *doc, char **filep, struct kd_err *err)
{
	struct stat st;
	char *file = NULL;
	int rc;

	*filep = NULL;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		file = fsutil_join(path, "dossier.yaml");
		if (!fsutil_exists(file)) {
			free(file);
			file = fsutil_join(path, "kernodeck/dossier/dossier.yaml");
		}
	} else {
		file = strdup(path);
	}
	if (file == NULL || !fsutil_exists(file)) {
		rc = kd_err_set(err, KD_EINPUT, path, 0,
				"%s: no dossier.yaml there (give a dossier folder, its dossier.yaml, "
				"or a `kernodeck check --format yaml` capture)", path);
		free(file);
		return rc;
	}
	rc = yamlio_load_file(file, doc, err);
	if (rc != 0) {
		free(file);
		return rc;
	}
	if (!json_is_object(doc->root) || json_object_get(doc->root, "stages") == NULL) {
		rc = kd_err_set(err, KD_EINPUT, file, 1,
				"%s: neither a dossier nor a kernodeck check capture (no stages)", file);
		yamlio_doc_free(doc);
		free(file);
		return rc;
	}
	*filep = file;
	return 0;
}

int
dossier_load_layers(const char *path, json_t **layers, struct kd_err *err)
{
	struct yamlio_doc doc;
	char *file = NULL;
	const json_t *root;
	const char *project;
	json_t *l, *pk;
	int rc;

	*layers = NULL;
	if ((rc = load_root(path, &doc, &file, err)) != 0)
		return rc;
	root = doc.root;
	project = json_string_value(json_object_get(root, "project"));
	l = json_object();
	json_object_set_new(l, "file", json_string(file));
	json_object_set_new(l, "kind", json_string(json_is_string(json_object_get(root, "kind")) ?
						   "dossier" : "capture"));
	if (json_is_string(json_object_get(root, "kind"))) {
		/* a dossier's folder holds its outputs and runs, compared as files */
		char *slash = strrchr(file, '/');
		json_object_set_new(l, "folder", slash ? json_stringn(file, (size_t)(slash - file)) :
				    json_string("."));
	}
	json_t *sys = flat_obs(root, "system", project), *pyl = json_object();
	take_prefix(sys, "python", pyl);
	if (json_is_string(json_object_get(root, "interpreter")))
		json_object_set(pyl, "interpreter", json_object_get(root, "interpreter"));
	json_object_set_new(l, "code", code_layer(root, project));
	json_object_set_new(l, "data", data_layer(root, project));
	json_object_set_new(l, "python", pyl);
	json_object_set_new(l, "system", sys);
	pk = packages_of(root);
	if (pk != NULL) {
		json_object_set_new(l, "packages", pk);
	} else {
		/* a capture without packages: its differences from its reference */
		json_t *o = json_object();
		flatten(obs_contract_differences(json_object_get(stage_of(root, "contract"),
							 "observations")), "", project, o, 0);
		json_object_set_new(l, "inventory_flat", o);
	}
	json_object_set_new(l, "probe", flat_obs(root, "compute", project));
	json_object_set_new(l, "result", flat_obs(root, "sample", project));
	json_object_set_new(l, "deviations", deviations_of(root));
	/* the rule the tensors are also compared under: A's, the reference */
	if (yamlio_get(root, "reference.result.rule") != NULL)
		json_object_set(l, "rule", yamlio_get(root, "reference.result.rule"));
	yamlio_doc_free(&doc);
	free(file);
	*layers = l;
	return 0;
}

static int
empty_container(const json_t *v)
{
	return (json_is_array(v) && json_array_size(v) == 0) ||
	       (json_is_object(v) && json_object_size(v) == 0);
}

/* Does a flat object hold keys under key ("key[...]" or "key.")? */
static int
has_children(const json_t *flat, const char *key)
{
	size_t n = strlen(key);
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)flat, k, v)
		if (strncmp(k, key, n) == 0 && (k[n] == '[' || k[n] == '.'))
			return 1;
	return 0;
}

/* Two numbers that print the same at the precision shown ("%.6g") are
 * one value: 4.1e-07 and 4.1000000000000003e-07 are not a difference. */
static int
same_printed(const json_t *a, const json_t *b)
{
	char x[64], y[64];

	if (!json_is_number(a) || !json_is_number(b))
		return 0;
	snprintf(x, sizeof x, "%.6g", json_number_value(a));
	snprintf(y, sizeof y, "%.6g", json_number_value(b));
	return strcmp(x, y) == 0;
}

static int
cmp_key(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Compare two flat objects; append {key, a, b} for each difference. */
static void
diff_flat(const json_t *a, const json_t *b, json_t *out)
{
	json_t *keys = json_object();
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)a, k, v)
		json_object_set_new(keys, k, json_true());
	json_object_foreach((json_t *)b, k, v)
		json_object_set_new(keys, k, json_true());
	/* jansson keeps insertion order; sort for a stable report */
	size_t n = json_object_size(keys), i = 0;
	const char **sorted = malloc((n ? n : 1) * sizeof *sorted);
	json_object_foreach(keys, k, v)
		sorted[i++] = k;
	qsort(sorted, n, sizeof *sorted, cmp_key);
	for (i = 0; i < n; i++) {
		const json_t *va = json_object_get(a, sorted[i]), *vb = json_object_get(b, sorted[i]);
		json_t *e;
		if (va != NULL && vb != NULL && json_equal((json_t *)va, (json_t *)vb))
			continue;
		if (same_printed(va, vb))
			continue;
		if (empty_container(va ? va : vb) && has_children(va ? b : a, sorted[i]))
			continue;   /* [] on one side, its items on the other: listed by item */
		e = json_object();
		json_object_set_new(e, "key", json_string(sorted[i]));
		json_object_set_new(e, "a", va ? json_deep_copy(va) : json_null());
		json_object_set_new(e, "b", vb ? json_deep_copy(vb) : json_null());
		if (va == NULL)
			json_object_set_new(e, "change", json_string("added"));
		else if (vb == NULL)
			json_object_set_new(e, "change", json_string("removed"));
		else
			json_object_set_new(e, "change", json_string("changed"));
		if (json_is_number(va) && json_is_number(vb) && json_number_value(va) != 0 &&
		    (json_is_real(va) || json_is_real(vb)) && !is_counter_key(sorted[i]))
			json_object_set_new(e, "relative", json_real(fabs(json_number_value(vb) -
				json_number_value(va)) / fabs(json_number_value(va))));
		json_array_append_new(out, e);
	}
	free(sorted);
	json_decref(keys);
}

/* "1.0 sha256:HEX" or "1.0 from ORIGIN" of one side (ref, new) of a
 * digest or origin difference (inventory.h). */
static json_t *
artefact_side(const json_t *d, const char *side, const char *what)
{
	char kv[32], kw[32], buf[1200];
	const char *v, *w;

	snprintf(kv, sizeof kv, "%s_version", side);
	snprintf(kw, sizeof kw, "%s_%s", side, what);
	v = json_string_value(json_object_get(d, kv));
	w = json_string_value(json_object_get(d, kw));
	snprintf(buf, sizeof buf, "%s %s%s", v ? v : "?", strcmp(what, "sha256") == 0 ?
		 "sha256:" : "from ", w ? w : "?");
	return json_string(buf);
}

static json_t *
diff_inventory(const json_t *a, const json_t *b)
{
	json_t *out = json_array(), *cmp, *d;
	const json_t *pa = json_object_get(a, "packages"), *pb = json_object_get(b, "packages");
	size_t i;

	if (pa == NULL || pb == NULL) {
		const json_t *fa = json_object_get(a, "inventory_flat"), *fb = json_object_get(b,
			"inventory_flat");
		json_t *ea = json_object(), *eb = json_object();
		if (pa == NULL && pb == NULL) {
			diff_flat(fa ? fa : ea, fb ? fb : eb, out);
		}
		json_decref(ea);
		json_decref(eb);
		return out;
	}
	cmp = inventory_compare(pa, pb, 0);
	json_array_foreach(json_object_get(cmp, "differences"), i, d) {
		json_t *e = json_object();
		const char *nm = json_string_value(json_object_get(d, "name"));
		json_object_set_new(e, "key", json_string(nm ? nm :
			json_string_value(json_object_get(d, "canonical_name"))));
		const char *kind = json_string_value(json_object_get(d, "kind"));
		const char *w = kind && strcmp(kind, "digest") == 0 ? "sha256" :
				kind && strcmp(kind, "origin") == 0 ? "origin" : NULL;
		if (w != NULL) {
			/* the same version: each side's artefact or origin */
			json_object_set_new(e, "a", artefact_side(d, "ref", w));
			json_object_set_new(e, "b", artefact_side(d, "new", w));
		} else {
			json_object_set(e, "a", json_object_get(d, "ref_version") ?
					json_object_get(d, "ref_version") : json_null());
			json_object_set(e, "b", json_object_get(d, "new_version") ?
					json_object_get(d, "new_version") : json_null());
		}
		json_object_set(e, "change", json_object_get(d, "kind"));
		json_array_append_new(out, e);
	}
	json_decref(cmp);
	return out;
}

#define KD_CAP_DIFF_FILES 2000   /* result files of one dossier looked at */

/* The metrics (.jsonl) and tensors (.npy) of a dossier's outputs/ and
 * kernodeck/resume/ folders, by path below the dossier: into set. */
static void
result_files(const char *top, const char *rel, int depth, json_t *set)
{
	char *dir = rel[0] ? fsutil_join(top, rel) : strdup(top);
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;

	while (d != NULL && (de = readdir(d)) != NULL && json_object_size(set) < KD_CAP_DIFF_FILES) {
		char sub[2048];
		size_t n = strlen(de->d_name);
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
		if (de->d_type == DT_DIR && depth < 4)
			result_files(top, sub, depth + 1, set);
		else if (de->d_type == DT_REG && ((n > 6 && strcmp(de->d_name + n - 6, ".jsonl") == 0) ||
						  (n > 4 && strcmp(de->d_name + n - 4, ".npy") == 0)))
			json_object_set_new(set, sub, json_true());
	}
	if (d != NULL)
		closedir(d);
	free(dir);
}

/* Two dossiers' result files compared as what they are: trajectories
 * step by step, tensors element by element, bit for bit; into out. */
static void
diff_result_files(const json_t *a, const json_t *b, json_t *out, json_t *notes)
{
	const char *fa = json_string_value(json_object_get(a, "folder"));
	const char *fb = json_string_value(json_object_get(b, "folder"));
	static const char *const roots[] = { "outputs", "kernodeck/resume" };
	json_t *sa = json_object(), *sb = json_object(), *v;
	const char *k;

	if (fa == NULL || fb == NULL) {
		json_decref(sa);
		json_decref(sb);
		return;
	}
	for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
		result_files(fa, roots[i], 1, sa);
		result_files(fb, roots[i], 1, sb);
	}
	json_object_foreach(sa, k, v) {
		char *pa = fsutil_join(fa, k), *pb = fsutil_join(fb, k);
		struct kd_err err;
		json_t *e = NULL;
		size_t n = strlen(k);
		kd_err_clear(&err);
		if (!json_object_get(sb, k))
			e = json_pack("{s:s s:s s:s s:n}", "key", k, "change", "removed", "a", "present",
				      "b");
		else if (n > 6 && strcmp(k + n - 6, ".jsonl") == 0)
			e = why_trajectory(k, pa, pb, &err);
		else
			e = why_tensor(k, pa, pb, json_object_get(a, "rule"), &err);
		if (e != NULL)
			json_array_append_new(out, e);
		else if (err.msg[0] != '\0')
			json_array_append_new(notes, json_sprintf("result: %s not compared: %s", k,
					      err.msg));
		free(pa);
		free(pb);
	}
	json_object_foreach(sb, k, v)
		if (!json_object_get(sa, k))
			json_array_append_new(out, json_pack("{s:s s:s s:n s:s}", "key", k, "change",
					      "added", "a", "b", "present"));
	json_decref(sa);
	json_decref(sb);
}

static const char *const layer_names[] = { "code", "data", "python", "system", "result",
					    "deviations" };

/* The whole comparison: {a, b, layers: {name: [differences]}, differences}. */
static json_t *
diff_layers(const json_t *a, const json_t *b)
{
	json_t *r = json_object(), *layers = json_object();
	size_t total = 0;

	json_object_set(r, "a", json_object_get(a, "file"));
	json_object_set(r, "b", json_object_get(b, "file"));
	if ((json_object_get(a, "packages") == NULL) != (json_object_get(b, "packages") == NULL))
		json_object_set_new(r, "notes", json_pack("[s]", "python: packages not compared: only one "
			"side records its package list (a dossier does; a check capture does not)"));
	for (size_t i = 0; i < sizeof layer_names / sizeof layer_names[0]; i++) {
		const char *n = layer_names[i];
		json_t *d;
		if (strcmp(n, "python") == 0) {
			d = diff_inventory(a, b);
			diff_flat(json_object_get(a, n), json_object_get(b, n), d);
		} else if (strcmp(n, "system") == 0) {
			json_t *pa = json_object(), *pb = json_object();
			d = json_array();
			diff_flat(json_object_get(a, n), json_object_get(b, n), d);
			flat_into(json_object_get(a, "probe"), "probe", NULL, pa);
			flat_into(json_object_get(b, "probe"), "probe", NULL, pb);
			diff_flat(pa, pb, d);
			json_decref(pa);
			json_decref(pb);
		} else {
			d = json_array();
			diff_flat(json_object_get(a, n), json_object_get(b, n), d);
		}
		if (strcmp(n, "result") == 0) {
			json_t *notes = json_array();
			diff_result_files(a, b, d, notes);
			if (json_array_size(notes) > 0) {
				if (json_object_get(r, "notes") == NULL)
					json_object_set_new(r, "notes", json_array());
				json_array_extend(json_object_get(r, "notes"), notes);
			}
			json_decref(notes);
		}
		total += json_array_size(d);
		json_object_set_new(layers, n, d);
	}
	json_object_set_new(r, "layers", layers);
	/* the result differs: the other layers' differences, ranked */
	if (json_array_size(json_object_get(layers, "result")) > 0)
		json_object_set_new(r, "explanation", json_pack("{s:s s:o}", "note",
			"possibilities, most likely first, from what differs in the other layers; "
			"only rerunning with one layer changed at a time can tell which",
			"candidates", why_rank(layers)));
	json_object_set_new(r, "differences", json_integer((json_int_t)total));
	return r;
}

/* "  trajectory K: parts at step N (key: a -> b); largest difference D at
 * step M (key)" */
static void
print_trajectory(FILE *fp, const json_t *e)
{
	const json_t *a = json_object_get(e, "a"), *b = json_object_get(e, "b");

	fprintf(fp, "  trajectory %s: parts at step %lld (%s: ",
		json_string_value(json_object_get(e, "key")),
		(long long)json_integer_value(json_object_get(e, "first_step")),
		json_string_value(json_object_get(e, "first_key")));
	if (json_is_real(a) && json_is_real(b)) {
		/* as many digits as it takes to see them differ */
		char x[40], y[40];
		for (int prec = 6; prec <= 17; prec++) {
			snprintf(x, sizeof x, "%.*g", prec, json_real_value(a));
			snprintf(y, sizeof y, "%.*g", prec, json_real_value(b));
			if (strcmp(x, y) != 0)
				break;
		}
		fprintf(fp, "%s -> %s", x, y);
	} else {
		paste_print_value(fp, a);
		fputs(" -> ", fp);
		paste_print_value(fp, b);
	}
	fputc(')', fp);
	if (json_is_number(json_object_get(e, "largest")))
		fprintf(fp, "; largest difference %.3g at step %lld (%s)",
			json_number_value(json_object_get(e, "largest")),
			(long long)json_integer_value(json_object_get(e, "largest_step")),
			json_string_value(json_object_get(e, "largest_key")));
	if (json_integer_value(json_object_get(e, "steps_a")) !=
	    json_integer_value(json_object_get(e, "steps_b")))
		fprintf(fp, "; %lld steps -> %lld", (long long)json_integer_value(json_object_get(e,
			"steps_a")), (long long)json_integer_value(json_object_get(e, "steps_b")));
	fputc('\n', fp);
}

static void
print_tensor(FILE *fp, const json_t *e)
{
	const char *k = json_string_value(json_object_get(e, "key"));

	if (json_object_get(e, "shape_a") != NULL)
		fprintf(fp, "  tensor    %s: shape %s %s -> %s %s\n", k,
			json_string_value(json_object_get(e, "shape_a")),
			json_string_value(json_object_get(e, "dtype_a")),
			json_string_value(json_object_get(e, "shape_b")),
			json_string_value(json_object_get(e, "dtype_b")));
	else {
		const json_t *r = json_object_get(e, "rule");
		fprintf(fp, "  tensor    %s: %lld of %lld elements differ bit for bit; largest "
			"difference %.3g at element %lld", k,
			(long long)json_integer_value(json_object_get(e, "differing")),
			(long long)json_integer_value(json_object_get(e, "elements")),
			json_number_value(json_object_get(e, "largest")),
			(long long)json_integer_value(json_object_get(e, "largest_at")));
		if (json_is_boolean(json_object_get(r, "pass")))
			fprintf(fp, "; under the declared rule: %lld outside it (%s)",
				(long long)json_integer_value(json_object_get(r, "mismatched")),
				json_is_true(json_object_get(r, "pass")) ? "passes" : "fails");
		fputc('\n', fp);
	}
}

static void
print_explanation(FILE *fp, const json_t *x)
{
	const json_t *c;
	size_t i;

	if (x == NULL)
		return;
	fprintf(fp, "\nwhy the result may differ (%s):\n", json_string_value(json_object_get(x,
		"note")));
	if (json_array_size(json_object_get(x, "candidates")) == 0)
		fputs("  nothing else differs: the same inputs on the same layers gave other numbers "
		      "(a nondeterministic run?)\n", fp);
	json_array_foreach(json_object_get(x, "candidates"), i, c) {
		fprintf(fp, "  %zu. %s %s: ", i + 1, json_string_value(json_object_get(c, "layer")),
			json_string_value(json_object_get(c, "key")));
		paste_print_value(fp, json_object_get(c, "a"));
		fputs(" -> ", fp);
		paste_print_value(fp, json_object_get(c, "b"));
		fprintf(fp, "\n     %s\n", json_string_value(json_object_get(c, "why")));
	}
}

static void
print_text(FILE *fp, const json_t *r)
{
	const json_t *layers = json_object_get(r, "layers"), *e;
	size_t i;

	printf("a: %s\nb: %s\n", json_string_value(json_object_get(r, "a")),
	       json_string_value(json_object_get(r, "b")));
	for (size_t k = 0; k < sizeof layer_names / sizeof layer_names[0]; k++) {
		const json_t *d = json_object_get(layers, layer_names[k]);
		if (json_array_size(d) == 0) {
			fprintf(fp, "\n%s: no difference\n", layer_names[k]);
			continue;
		}
		fprintf(fp, "\n%s: %zu difference%s\n", layer_names[k], json_array_size(d),
			json_array_size(d) == 1 ? "" : "s");
		json_array_foreach(d, i, e) {
			const char *ch = json_string_value(json_object_get(e, "change"));
			if (ch != NULL && strcmp(ch, "trajectory") == 0) {
				print_trajectory(fp, e);
				continue;
			}
			if (ch != NULL && strcmp(ch, "tensor") == 0) {
				print_tensor(fp, e);
				continue;
			}
			fprintf(fp, "  %-9s %s: ", json_string_value(json_object_get(e, "change")),
				json_string_value(json_object_get(e, "key")));
			paste_print_value(fp, json_object_get(e, "a"));
			fputs(" -> ", fp);
			paste_print_value(fp, json_object_get(e, "b"));
			if (json_is_real(json_object_get(e, "relative")))
				fprintf(fp, " (relative difference %.3g)",
					json_real_value(json_object_get(e, "relative")));
			fputc('\n', fp);
		}
	}
	json_array_foreach(json_object_get(r, "notes"), i, e)
		fprintf(fp, "\nnote: %s\n", json_string_value(e));
	print_explanation(fp, json_object_get(r, "explanation"));
	fprintf(fp, "\n%lld difference(s)\n", (long long)json_integer_value(json_object_get(r,
		"differences")));
}

/* The facts (paste.h) of a dossier or a capture. */
static int
dossier_facts(const char *path, json_t **facts, struct kd_err *err)
{
	struct yamlio_doc doc;
	char *file = NULL;
	json_t *pk;
	int rc;

	if ((rc = load_root(path, &doc, &file, err)) != 0)
		return rc;
	pk = packages_of(doc.root);
	*facts = paste_facts_of_obs(json_is_string(json_object_get(doc.root, "kind")) ?
				    "dossier" : "capture", file,
				    json_object_get(stage_of(doc.root, "system"), "observations"),
				    json_object_get(stage_of(doc.root, "compute"), "observations"), pk);
	json_decref(pk);
	yamlio_doc_free(&doc);
	free(file);
	return 0;
}

/* A side of diff: a dossier or capture (*layers), else a paste (*facts). */
static int
load_side(const char *path, json_t **layers, json_t **facts, struct kd_err *err)
{
	struct kd_err e2;
	struct stat st;
	size_t n = strlen(path);
	int rc;

	*layers = *facts = NULL;
	rc = dossier_load_layers(path, layers, err);
	if (rc != KD_EINPUT || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return rc;
	/* a YAML or JSON file is meant as a dossier or a capture: its own error */
	if ((n > 5 && strcmp(path + n - 5, ".yaml") == 0) ||
	    (n > 4 && strcmp(path + n - 4, ".yml") == 0) ||
	    (n > 5 && strcmp(path + n - 5, ".json") == 0))
		return rc;
	if (paste_load(path, facts, &e2) == 0)
		return 0;
	*err = e2;
	return KD_EINPUT;
}

/* Compare facts and print them: exit 0 when nothing differs, else 1. */
static int
diff_facts(json_t *fa, json_t *fb, enum kd_format fmt)
{
	json_t *r = paste_compare(fa, fb);
	int rc;

	if (fmt == KD_FMT_TEXT)
		paste_print_text(stdout, r);
	else
		treeout_print_tree(stdout, r, fmt);
	rc = json_integer_value(json_object_get(r, "differences")) > 0 ? KD_EXIT_FAILED : KD_EXIT_OK;
	json_decref(r);
	return rc;
}

/* diff A B where one side (at least) is a paste (paths[1] NULL: diff
 * PASTE, the paste against this machine).  Takes the four trees. */
static int
diff_with_paste(const char *paths[2], json_t *la, json_t *lb, json_t *fa, json_t *fb,
		enum kd_format fmt)
{
	struct kd_err err;
	char buf[2048];
	int rc = 0;

	kd_err_clear(&err);
	json_decref(la);
	json_decref(lb);
	if (paths[1] == NULL)
		rc = paste_load(paths[0], &fa, &err);
	if (rc == 0 && fa == NULL)
		rc = dossier_facts(paths[0], &fa, &err);
	if (rc == 0 && fb == NULL)
		rc = paths[1] == NULL ? paste_facts_of_project("kernodeck", &fb, &err) :
		     dossier_facts(paths[1], &fb, &err);
	if (rc != 0)
		fprintf(stderr, "kernodeck diff: %s\n", kd_err_format(&err, buf, sizeof buf));
	else
		rc = diff_facts(fa, fb, fmt);
	json_decref(fa);
	json_decref(fb);
	return rc;
}

static int
cmd_diff(int argc, char **argv)
{
	const struct kd_cmd_entry *e = &kd_cmd_diff;
	const char *paths[2] = { NULL, NULL };
	enum kd_format fmt = KD_FMT_TEXT;
	json_t *la = NULL, *lb = NULL, *fa = NULL, *fb = NULL, *r;
	struct stat st;
	struct kd_err err;
	char buf[2048];
	int c, rc;

	cmd_getopt_reset();
	while ((c = cmd_getopt(e, argc, argv)) != -1) {
		switch (c) {
		case 'a': diff_all = 1; break;
		case 'f':
			if (report_parse_format(optarg, &fmt) != 0) {
				fprintf(stderr, "kernodeck diff: unknown format %s\n", optarg);
				return KD_EXIT_USAGE;
			}
			break;
		case KD_CMD_HELP: return cmd_help(e);
		default: return cmd_usage_error(e, NULL);
		}
	}
	if (argc - optind == 1) {
		/* a fleet folder: the matrix of its nodes; a paste: this machine */
		if (stat(argv[optind], &st) == 0 && S_ISDIR(st.st_mode))
			return fleet_diff(argv[optind], fmt);
		paths[0] = argv[optind];
		return diff_with_paste(paths, NULL, NULL, NULL, NULL, fmt);
	}
	if (argc - optind != 2)
		return cmd_usage_error(e, NULL);
	paths[0] = argv[optind];
	paths[1] = argv[optind + 1];
	kd_err_clear(&err);
	if ((rc = load_side(paths[0], &la, &fa, &err)) != 0 ||
	    (rc = load_side(paths[1], &lb, &fb, &err)) != 0) {
		fprintf(stderr, "kernodeck diff: %s\n", kd_err_format(&err, buf, sizeof buf));
		json_decref(la);
		json_decref(fa);
		return rc;
	}
	if (fa != NULL || fb != NULL)
		return diff_with_paste(paths, la, lb, fa, fb, fmt);
	r = diff_layers(la, lb);
	if (fmt == KD_FMT_TEXT)
		print_text(stdout, r);
	else
		treeout_print_tree(stdout, r, fmt);
	rc = json_integer_value(json_object_get(r, "differences")) > 0 ? KD_EXIT_FAILED : KD_EXIT_OK;
	json_decref(r);
	json_decref(la);
	json_decref(lb);
	return rc;
}

static const struct kd_opt diff_opts[] = {
	{ "format", 'f', "text|yaml|json", 0 },
	{ "all", 'a', NULL, 0 },
	{ NULL, 0, NULL, 0 },
};

const struct kd_cmd_entry kd_cmd_diff = {
	.name = "diff",
	.args = "A [B]",
	.opts = diff_opts,
	.help = "Compare two dossiers (or `kernodeck check --format yaml|json` captures) layer\n"
		"by layer: code, data and weights, Python and packages, system and backend,\n"
		"result, deviations; only what differs.  Numbers that print the same are\n"
		"not differences; times, durations, log names, cache use, outputs moved aside\n"
		"and seeds are left out unless --all.  Trajectories and .npy outputs are\n"
		"compared step by step and element by element; a different result ends with\n"
		"the other layers' differences ranked by how likely they change numbers.\n"
		"With A alone, a fleet folder (kernodeck/fleet/JOB, or a project's kernodeck\n"
		"folder for its latest): the matrix of its nodes, as `kernodeck fleet` prints it.\n"
		"Either side may be a paste (a collect_env report, an nvidia-smi output, a pip\n"
		"freeze): the layers it holds are compared, and what could not be is listed;\n"
		"a paste alone is compared with this machine.\n"
		"Exit 0: no difference; 1: differences; 2: an input is missing or malformed.",
	.exec = cmd_diff,
};
