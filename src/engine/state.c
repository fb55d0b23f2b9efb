/*
 * state.c - state.yaml: load (defensively) and save (atomically).
 *
 * The file is a YAML mapping:
 *
 *   schema: 2            (1: before the end mark; read, saved as 2)
 *   current: system
 *   stages:
 *     reference: {status, checked_at, checked_ref, rows: [...], deviations: [...], notes: [...]}
 *     ...
 *   settings: {...}
 *
 * Loading validates every field's type and names the line of the first
 * that is wrong; a bad file is left as it is.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/state.h"
#include "kernodeck/yamlio.h"

#define KD_ST_NAME(e, n, m) n,
#define KD_ST_MARK(e, n, m) m,
static const char *const status_names[] = { KD_STATUS_INFO(KD_ST_NAME) };
static const char status_marks[] = { KD_STATUS_INFO(KD_ST_MARK) };

const char *
kd_status_name(enum kd_status s)
{
	return (unsigned)s < KD_ST__COUNT ? status_names[s] : "?";
}

char
kd_status_mark(enum kd_status s)
{
	return (unsigned)s < KD_ST__COUNT ? status_marks[s] : '?';
}

int
kd_status_parse(const char *name, enum kd_status *out)
{
	for (int i = 0; i < KD_ST__COUNT; i++)
		if (name != NULL && strcmp(name, status_names[i]) == 0) {
			*out = (enum kd_status)i;
			return 0;
		}
	return -1;
}

/* See state.h. */
void
state_deviation_free(struct kd_deviation *d)
{
	free(d->check);
	free(d->what);
	free(d->why);
	free(d->author);
	free(d->time);
}

void
state_init(struct kd_state *s)
{
	memset(s, 0, sizeof *s);
	s->schema = KD_STATE_SCHEMA;
	s->settings = json_object();
}

void
state_free(struct kd_state *s)
{
	for (int i = 0; i < KD_NSTAGES; i++) {
		struct kd_stage_state *ss = &s->st[i];
		kd_rows_free(&ss->rows);
		free(ss->checked_at);
		for (size_t k = 0; k < ss->ndevs; k++)
			state_deviation_free(&ss->devs[k]);
		free(ss->devs);
		for (size_t k = 0; k < ss->nnotes; k++) {
			free(ss->notes[k].text);
			free(ss->notes[k].author);
			free(ss->notes[k].time);
		}
		free(ss->notes);
	}
	json_decref(s->settings);
	memset(s, 0, sizeof *s);
}

/* ---- to a tree ---- */

static void
set_str(json_t *o, const char *k, const char *v)
{
	if (v != NULL)
		json_object_set_new(o, k, json_string(v));
}

static json_t *
row_to_json(const struct kd_row *r)
{
	json_t *o = json_object();

	set_str(o, "id", r->id);
	set_str(o, "status", kd_rstat_name(r->status));
	set_str(o, "label", r->label);
	set_str(o, "observed", r->observed);
	set_str(o, "expected", r->expected);
	set_str(o, "evidence", r->evidence);
	set_str(o, "first_error", r->first_error);
	set_str(o, "hint", r->hint);
	return o;
}

json_t *
state_to_json(const struct kd_state *s)
{
	json_t *root = json_object(), *stages = json_object();

	json_object_set_new(root, "schema", json_integer(KD_STATE_SCHEMA));
	json_object_set_new(root, "current", json_string(kd_stage_ids[s->current]));
	for (int i = 0; i < KD_NSTAGES; i++) {
		const struct kd_stage_state *ss = &s->st[i];
		json_t *o = json_object(), *rows = json_array(), *devs = json_array(),
		       *notes = json_array();
		set_str(o, "status", kd_status_name(ss->status));
		set_str(o, "checked_at", ss->checked_at);
		if (ss->checked_ref[0])
			set_str(o, "checked_ref", ss->checked_ref);
		for (size_t k = 0; k < ss->rows.n; k++)
			json_array_append_new(rows, row_to_json(&ss->rows.v[k]));
		for (size_t k = 0; k < ss->ndevs; k++) {
			const struct kd_deviation *d = &ss->devs[k];
			json_t *dj = json_object();
			set_str(dj, "check", d->check);
			set_str(dj, "what", d->what);
			set_str(dj, "why", d->why);
			json_object_set_new(dj, "intentional", json_boolean(d->intentional));
			set_str(dj, "author", d->author);
			set_str(dj, "time", d->time);
			json_array_append_new(devs, dj);
		}
		for (size_t k = 0; k < ss->nnotes; k++) {
			json_t *nj = json_object();
			set_str(nj, "text", ss->notes[k].text);
			set_str(nj, "author", ss->notes[k].author);
			set_str(nj, "time", ss->notes[k].time);
			json_array_append_new(notes, nj);
		}
		json_object_set_new(o, "rows", rows);
		json_object_set_new(o, "deviations", devs);
		json_object_set_new(o, "notes", notes);
		json_object_set_new(stages, kd_stage_ids[i], o);
	}
	json_object_set_new(root, "stages", stages);
	json_object_set(root, "settings", s->settings ? s->settings : json_object());
	return root;
}

/* ---- from a tree, validating ---- */

struct vctx {
	const char *path;
	const struct yamlio_doc *doc;
	struct kd_err *err;
};

static int bad(struct vctx *v, const json_t *node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
bad(struct vctx *v, const json_t *node, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* kd_err_format puts "PATH:LINE: " in front */
	return kd_err_set(v->err, KD_EINPUT, v->path, yamlio_line_of(v->doc, node), "%s", msg);
}

/* Optional string member: NULL when absent or null. */
static int
opt_str(struct vctx *v, const json_t *o, const char *key, char **out)
{
	json_t *x = json_object_get(o, key);

	*out = NULL;
	if (x == NULL || json_is_null(x))
		return 0;
	if (json_is_string(x)) {
		*out = strdup(json_string_value(x));
		return 0;
	}
	if (json_is_number(x) || json_is_boolean(x)) {
		/* a plain scalar typed by hand: keep its text */
		char buf[64];
		if (json_is_integer(x))
			snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(x));
		else if (json_is_real(x))
			snprintf(buf, sizeof buf, "%g", json_real_value(x));
		else
			snprintf(buf, sizeof buf, "%s", json_is_true(x) ? "true" : "false");
		*out = strdup(buf);
		return 0;
	}
	return bad(v, x, "\"%s\" must be a text value", key);
}

static int
load_rows(struct vctx *v, const json_t *arr, struct kd_rows *rows)
{
	size_t i;
	json_t *r;

	if (arr == NULL || json_is_null(arr))
		return 0;
	if (!json_is_array(arr))
		return bad(v, arr, "%s must be a list", "rows");
	json_array_foreach(arr, i, r) {
		char *f[8] = { 0 };
		enum kd_rstat st;
		int rc = 0;
		if (!json_is_object(r))
			return bad(v, r, "%s must be a mapping", "a row");
		const char *keys[] = { "id", "status", "label", "observed", "expected",
				       "evidence", "first_error", "hint" };
		for (int k = 0; k < 8 && rc == 0; k++)
			rc = opt_str(v, r, keys[k], &f[k]);
		if (rc == 0 && f[0] == NULL)
			rc = bad(v, r, "a row has no \"%s\"", "id");
		if (rc == 0 && kd_rstat_parse(f[1], &st) != 0)
			rc = bad(v, json_object_get(r, "status") ? json_object_get(r, "status") : r,
				 "a row's status must be pass, fail, warn or info%s", "");
		if (rc == 0) {
			struct kd_row *row = kd_rows_add(rows, f[0], st, f[2], f[3], f[4], f[5]);
			kd_row_set_error(row, f[6], f[7]);
		}
		for (int k = 0; k < 8; k++)
			free(f[k]);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int
load_stage(struct vctx *v, const json_t *o, struct kd_stage_state *ss)
{
	json_t *x;
	char *tmp = NULL;
	size_t i;
	int rc;

	if (!json_is_object(o))
		return bad(v, o, "%s must be a mapping", "each stage");
	if ((rc = opt_str(v, o, "status", &tmp)) != 0)
		return rc;
	if (tmp == NULL || kd_status_parse(tmp, &ss->status) != 0) {
		free(tmp);
		x = json_object_get(o, "status");
		return bad(v, x ? x : o,
			   "a stage status must be pending, passed, failed, deviation, stale or cancelled%s", "");
	}
	free(tmp);
	if ((rc = opt_str(v, o, "checked_at", &ss->checked_at)) != 0)
		return rc;
	if ((rc = opt_str(v, o, "checked_ref", &tmp)) != 0)
		return rc;
	if (tmp != NULL)
		snprintf(ss->checked_ref, sizeof ss->checked_ref, "%s", tmp);
	free(tmp);
	if ((rc = load_rows(v, json_object_get(o, "rows"), &ss->rows)) != 0)
		return rc;
	x = json_object_get(o, "deviations");
	if (x != NULL && !json_is_null(x)) {
		json_t *d;
		if (!json_is_array(x))
			return bad(v, x, "%s must be a list", "deviations");
		ss->devs = calloc(json_array_size(x) + 1, sizeof *ss->devs);
		json_array_foreach(x, i, d) {
			struct kd_deviation *dv = &ss->devs[ss->ndevs];
			json_t *in;
			if (!json_is_object(d))
				return bad(v, d, "%s must be a mapping", "a deviation");
			ss->ndevs++;
			if ((rc = opt_str(v, d, "check", &dv->check)) || (rc = opt_str(v, d, "what", &dv->what)) ||
			    (rc = opt_str(v, d, "why", &dv->why)) || (rc = opt_str(v, d, "author", &dv->author)) ||
			    (rc = opt_str(v, d, "time", &dv->time)))
				return rc;
			if (dv->check == NULL || dv->why == NULL || dv->why[0] == '\0')
				return bad(v, d, "a deviation needs a check and a non-empty why%s", "");
			in = json_object_get(d, "intentional");
			if (in != NULL && !json_is_boolean(in))
				return bad(v, in, "\"%s\" must be true or false", "intentional");
			dv->intentional = json_is_true(in);
		}
	}
	x = json_object_get(o, "notes");
	if (x != NULL && !json_is_null(x)) {
		json_t *n;
		if (!json_is_array(x))
			return bad(v, x, "%s must be a list", "notes");
		ss->notes = calloc(json_array_size(x) + 1, sizeof *ss->notes);
		json_array_foreach(x, i, n) {
			struct kd_note *nt = &ss->notes[ss->nnotes];
			if (!json_is_object(n))
				return bad(v, n, "%s must be a mapping", "a note");
			ss->nnotes++;
			if ((rc = opt_str(v, n, "text", &nt->text)) || (rc = opt_str(v, n, "author", &nt->author)) ||
			    (rc = opt_str(v, n, "time", &nt->time)))
				return rc;
			if (nt->text == NULL)
				return bad(v, n, "a note needs a \"%s\"", "text");
		}
	}
	return 0;
}

int
state_from_json(const json_t *root, const char *path, const struct yamlio_doc *doc,
		struct kd_state *s, struct kd_err *err)
{
	struct vctx v = { path, doc, err };
	json_t *x, *stages;
	int rc;

	state_init(s);
	if (!json_is_object(root)) {
		rc = bad(&v, root, "not a kernodeck state (expected a mapping)");
		goto fail;
	}
	x = json_object_get(root, "schema");
	if (!json_is_integer(x)) {
		rc = bad(&v, x ? x : root, "no schema version (schema: 1)");
		goto fail;
	}
	if (json_integer_value(x) > KD_STATE_SCHEMA || json_integer_value(x) < 1) {
		char msg[128];
		snprintf(msg, sizeof msg, "schema %" JSON_INTEGER_FORMAT " is not supported "
			 "(this kernodeck reads schema %d; a newer kernodeck wrote it)",
			 json_integer_value(x), KD_STATE_SCHEMA);
		rc = bad(&v, x, "%s", msg);
		goto fail;
	}
	x = json_object_get(root, "current");
	if (x != NULL) {
		if (!json_is_string(x) || stage_index(json_string_value(x)) < 0) {
			rc = bad(&v, x, "\"current\" must name a stage%s", "");
			goto fail;
		}
		s->current = stage_index(json_string_value(x));
	}
	stages = json_object_get(root, "stages");
	if (stages != NULL && !json_is_object(stages)) {
		rc = bad(&v, stages, "\"%s\" must be a mapping", "stages");
		goto fail;
	}
	if (stages != NULL) {
		const char *k;
		json_t *o;
		json_object_foreach(stages, k, o) {
			int i = stage_index(k);
			if (i < 0) {
				rc = bad(&v, o, "unknown stage \"%s\"", k);
				goto fail;
			}
			if ((rc = load_stage(&v, o, &s->st[i])) != 0)
				goto fail;
		}
	}
	x = json_object_get(root, "settings");
	if (x != NULL && !json_is_null(x)) {
		if (!json_is_object(x)) {
			rc = bad(&v, x, "\"%s\" must be a mapping", "settings");
			goto fail;
		}
		json_decref(s->settings);
		s->settings = json_deep_copy(x);
	}
	return 0;
fail:
	state_free(s);
	state_init(s);
	return rc;
}

int
state_load_tree(const char *path, struct kd_state *s, json_t **disk, struct kd_err *err)
{
	struct yamlio_doc doc;
	int rc;

	if (disk != NULL)
		*disk = NULL;
	if (!fsutil_exists(path)) {
		state_init(s);
		return 0;
	}
	rc = yamlio_load_file(path, &doc, err);
	if (rc != 0) {
		state_init(s);
		return rc;
	}
	rc = state_from_json(doc.root, path, &doc, s, err);
	/* whole: schema 2 files end with "..."; the checks above came first,
	 * so that a file cut inside its syntax names the line */
	if (rc == 0 && json_integer_value(json_object_get(doc.root, "schema")) >= 2 &&
	    (rc = yamlio_require_end(&doc, err)) != 0) {
		state_free(s);
		state_init(s);
	}
	if (rc == 0 && disk != NULL)
		*disk = json_incref(doc.root);
	yamlio_doc_free(&doc);
	return rc;
}

int
state_load(const char *path, struct kd_state *s, struct kd_err *err)
{
	return state_load_tree(path, s, NULL, err);
}

int
state_save_tree(const char *path, const struct kd_state *s, json_t **saved,
		struct kd_err *err)
{
	json_t *root = state_to_json(s);
	int rc = yamlio_save_file(path, root, YAMLIO_END_MARK, err);

	if (rc == 0 && saved != NULL) {
		json_decref(*saved);
		*saved = root;
	} else {
		json_decref(root);
	}
	return rc;
}

int
state_save(const char *path, const struct kd_state *s, struct kd_err *err)
{
	return state_save_tree(path, s, NULL, err);
}

int
state_differs(const struct kd_state *s, const json_t *disk)
{
	json_t *now;
	int same;

	if (disk == NULL)
		return 1;
	now = state_to_json(s);
	same = json_equal(now, (json_t *)disk);
	json_decref(now);
	return !same;
}
