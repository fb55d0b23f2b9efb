/*
 * form.c - a stage's fields: shown as "label: value" rows, edited one at a
 * time with the editor their kind calls for.
 *
 * A field's path addresses reference.yaml ("code.entry_point") or, with the
 * prefix "settings.", the state's settings.  TEXT and NUMBER are edited as
 * one line, ARGV as a shell-like line stored as an array, CHOICE with a
 * picker, BOOL toggles, LIST opens the list editor (list.c).  Every change
 * is saved at once: the reference through kd_ctx_save_ref (which marks later
 * stages stale), settings with the state.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/screen.h"
#include "kernodeck/shellwords.h"
#include "kernodeck/state.h"
#include "kernodeck/textw.h"

#define SETTINGS_PREFIX "settings."

/* The tree a field lives in, and its path inside it. */
json_t *
kd_form_root(struct kd_screen *scr, const struct kd_field *f, const char **path)
{
	size_t n = strlen(SETTINGS_PREFIX);

	if (strncmp(f->path, SETTINGS_PREFIX, n) == 0) {
		if (!json_is_object(scr->ctx->state.settings)) {
			json_decref(scr->ctx->state.settings);
			scr->ctx->state.settings = json_object();
		}
		*path = f->path + n;
		return scr->ctx->state.settings;
	}
	if (!json_is_object(scr->ctx->ref)) {
		json_decref(scr->ctx->ref);
		scr->ctx->ref = json_object();
	}
	*path = f->path;
	return scr->ctx->ref;
}

/* The "not applicable" reason of a reference path, or NULL. */
static const char *
na_reason(const struct kd_screen *scr, const char *path)
{
	json_t *na = json_object_get(scr->ctx->ref, "not_applicable");
	json_t *r = json_is_object(na) ? json_object_get(na, path) : NULL;

	if (r == NULL)
		return NULL;
	return json_is_string(r) ? json_string_value(r) : "";
}

/* Scalars and arrays of scalars as text. */
static void
format_value(const json_t *v, enum kd_field_kind kind, char *buf, size_t len)
{
	char *s;

	buf[0] = '\0';
	if (json_is_string(v)) {
		snprintf(buf, len, "%s", json_string_value(v));
	} else if (json_is_boolean(v)) {
		snprintf(buf, len, "%s", json_is_true(v) ? "yes" : "no");
	} else if (json_is_integer(v)) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	} else if (json_is_real(v)) {
		snprintf(buf, len, "%g", json_real_value(v));
	} else if (json_is_array(v) && kind == KD_FIELD_LIST) {
		snprintf(buf, len, "%zu item%s", json_array_size(v),
			 json_array_size(v) == 1 ? "" : "s");
	} else if (json_is_array(v)) {
		s = shellwords_join(v);
		snprintf(buf, len, "%s", s ? s : "");
		free(s);
	} else if (v != NULL && !json_is_null(v)) {
		s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		snprintf(buf, len, "%s", s ? s : "");
		free(s);
	}
}

const char *
kd_form_value(const struct kd_screen *scr, const struct kd_field *f,
	      const json_t *root, const char *path, char *buf, size_t len, int *dim)
{
	const json_t *v = yamlio_get(root, path);
	const char *na = root == scr->ctx->ref ? na_reason(scr, path) : NULL;

	*dim = 0;
	if (na != NULL && (v == NULL || json_is_null(v))) {
		snprintf(buf, len, "n/a: %s", na);
		*dim = 1;
		return buf;
	}
	format_value(v, f->kind, buf, len);
	if (buf[0] == '\0' && (v == NULL || json_is_null(v))) {
		snprintf(buf, len, "(not set)");
		*dim = 1;
	}
	return buf;
}

/* Draw fields[0..n) over root as "label  value" rows; sel is marked. */
void
kd_form_draw_fields(struct kd_screen *scr, const struct kd_field *fields, size_t n,
		    json_t *root_item, int sel, int *top, int focused,
		    int y, int x, int h, int w)
{
	int lw = 0, i;

	for (size_t k = 0; k < n; k++) {
		int lwk = textw_width(fields[k].label);

		if (lwk > lw)
			lw = lwk;
	}
	if (lw > w / 3)
		lw = w / 3;
	if (sel < *top)
		*top = sel;
	if (sel >= *top + h)
		*top = sel - h + 1;
	if (*top < 0)
		*top = 0;
	for (i = 0; i < h && *top + i < (int)n; i++) {
		const struct kd_field *f = &fields[*top + i];
		int on = *top + i == sel, dim;
		attr_t a = on && focused ? kd_attr(KD_C_SELECTED) : A_NORMAL;
		const char *path = f->path;
		json_t *root = root_item ? root_item : kd_form_root(scr, f, &path);
		char val[2048];

		kd_fill(y + i, x, w, a);
		if (on)
			kd_put(y + i, x, 1, focused ? ">" : "\u00b7", a | A_BOLD, 0);
		kd_put(y + i, x + 2, lw, f->label, a | (on && focused ? 0 : A_BOLD), 0);
		kd_form_value(scr, f, root, path, val, sizeof val, &dim);
		kd_put(y + i, x + 2 + lw + 2, w - lw - 4, val,
		       dim && !(on && focused) ? kd_attr(KD_C_DIM) : a, 0);
	}
	if (*top > 0)
		kd_put(y, x + w - 1, 1, "\u2191", kd_attr(KD_C_DIM), 0);
	if (*top + h < (int)n)
		kd_put(y + h - 1, x + w - 1, 1, "\u2193", kd_attr(KD_C_DIM), 0);
}

void
kd_form_draw(struct kd_screen *scr, int y, int x, int h, int w)
{
	kd_form_draw_fields(scr, scr->stage->fields, scr->stage->nfields, NULL,
			    scr->sel_field, &scr->top_field, scr->focus == KD_FOCUS_FIELDS,
			    y, x, h, w);
}

/* --- validation of typed values --- */

static int
validate_number(void *u, const char *text, char *error, size_t len)
{
	char *end;

	(void)u;
	if (*text == '\0')
		return 0;
	errno = 0;
	(void)strtod(text, &end);
	if (errno != 0 || end == text || *end != '\0') {
		snprintf(error, len, "\"%s\" is not a number.", text);
		return 1;
	}
	return 0;
}

static int
validate_argv(void *u, const char *text, char *error, size_t len)
{
	json_t *arr = NULL;
	int rc;

	(void)u;
	rc = shellwords_split(text, &arr, error, len);
	json_decref(arr);
	return rc;
}

/* The new value of a number field ("" clears it). */
static json_t *
number_value(const char *text)
{
	char *end;
	long long ll;

	if (*text == '\0')
		return json_null();
	errno = 0;
	ll = strtoll(text, &end, 10);
	if (errno == 0 && *end == '\0')
		return json_integer(ll);
	return json_real(strtod(text, NULL));
}

/* Index of the current value among "|"-separated choices, or 0. */
static int
choice_index(const char *choices, const char *cur)
{
	const char *p = choices;
	int i = 0;
	size_t n = cur ? strlen(cur) : 0;

	if (cur == NULL || choices == NULL)
		return 0;
	while (*p != '\0') {
		const char *bar = strchr(p, '|');
		size_t k = bar ? (size_t)(bar - p) : strlen(p);

		if (k == n && strncmp(p, cur, n) == 0)
			return i;
		i++;
		if (bar == NULL)
			break;
		p = bar + 1;
	}
	return 0;
}

/* Choice number i of "|"-separated choices (malloc'd). */
static char *
choice_at(const char *choices, int i)
{
	const char *p = choices;

	while (i-- > 0 && p != NULL) {
		p = strchr(p, '|');
		if (p != NULL)
			p++;
	}
	if (p == NULL)
		return NULL;
	return strndup(p, strcspn(p, "|"));
}

/* The new value of a TEXT, NUMBER or ARGV field typed on one line (NULL
 * when the edit was cancelled). */
static json_t *
form_edit_line(struct kd_screen *scr, const struct kd_field *f, const json_t *v)
{
	struct kd_lineedit le;
	char cur[4096], error[256];
	json_t *nv = NULL;

	format_value(v, f->kind, cur, sizeof cur);
	memset(&le, 0, sizeof le);
	le.title = f->label;
	le.label = f->path;
	le.help = f->kind == KD_FIELD_ARGV
		? "Type it as at a shell prompt: quotes group words; nothing is expanded."
		: f->help;
	le.text = cur;
	le.validate = f->kind == KD_FIELD_NUMBER ? validate_number
		: f->kind == KD_FIELD_ARGV ? validate_argv : NULL;
	if (!kd_lineedit_run(scr, &le))
		return NULL;
	if (f->kind == KD_FIELD_NUMBER)
		nv = number_value(le.text);
	else if (f->kind == KD_FIELD_ARGV)
		(void)shellwords_split(le.text, &nv, error, sizeof error);  /* validated */
	else
		nv = le.text[0] != '\0' ? json_string(le.text) : json_null();
	free(le.text);
	return nv;
}

/* Edit the value of field f at path in root.  1 when it changed. */
int
kd_form_edit_value(struct kd_screen *scr, const struct kd_field *f, json_t *root,
		   const char *path)
{
	json_t *v = yamlio_get(root, path), *nv = NULL;

	switch (f->kind) {
	case KD_FIELD_BOOL:
		nv = json_boolean(!json_is_true(v));
		break;
	case KD_FIELD_CHOICE: {
		int i = kd_dialog_choose(scr, f->label, f->choices,
					 choice_index(f->choices, json_string_value(v)));
		char *c = i >= 0 ? choice_at(f->choices, i) : NULL;

		if (c == NULL)
			return 0;
		nv = json_string(c);
		free(c);
		break;
	}
	case KD_FIELD_LIST:
		return (kd_dialog_list(scr, f, root, path) & KD_SAVE) != 0;
	default:
		nv = form_edit_line(scr, f, v);
		break;
	}
	if (nv == NULL)
		return 0;
	if (v != NULL && json_equal(v, nv)) {
		json_decref(nv);
		return 0;
	}
	if (yamlio_set(root, path, nv) != 0) {
		kd_frame_message(scr, KD_C_ERROR, "Cannot set %s: a part of the path is not "
				 "a mapping.", path);
		return 0;
	}
	return 1;
}

/* Save after a change of field f: the reference or the settings. */
unsigned
kd_form_commit(struct kd_screen *scr, const struct kd_field *f)
{
	struct kd_err err;
	char buf[1400];

	if (strncmp(f->path, SETTINGS_PREFIX, strlen(SETTINGS_PREFIX)) == 0) {
		stage_mark_changed(&scr->ctx->state, scr->idx);
		kd_frame_message(scr, KD_C_OK, "%s saved.", f->label);
		return KD_HANDLED | KD_SAVE | KD_REDRAW;
	}
	kd_err_clear(&err);
	if (kd_ctx_save_ref(scr->ctx, &err) != 0) {
		kd_frame_message(scr, KD_C_ERROR, "reference.yaml was not saved: %s",
				 kd_err_format(&err, buf, sizeof buf));
		return KD_HANDLED | KD_REDRAW;
	}
	kd_frame_message(scr, KD_C_OK, "%s saved in reference.yaml.", f->label);
	return KD_HANDLED | KD_SAVE | KD_REDRAW;
}

/* Refuse reference edits while reference.yaml on disk does not load: the
 * person's own edits there would be overwritten. */
static int
refuse_broken(struct kd_screen *scr, const struct kd_field *f)
{
	if (!scr->ref_broken || strncmp(f->path, SETTINGS_PREFIX, strlen(SETTINGS_PREFIX)) == 0)
		return 0;
	kd_frame_message(scr, KD_C_ERROR, "Fix reference.yaml with E first (your edits there "
			 "would be overwritten): %s", scr->ref_error);
	return 1;
}

unsigned
kd_form_edit(struct kd_screen *scr, int i)
{
	const struct kd_field *f;
	const char *path;
	json_t *root;

	if (i < 0 || (size_t)i >= scr->stage->nfields)
		return KD_HANDLED;
	f = &scr->stage->fields[i];
	if (refuse_broken(scr, f))
		return KD_HANDLED;
	root = kd_form_root(scr, f, &path);
	if (!kd_form_edit_value(scr, f, root, path))
		return KD_HANDLED | KD_REDRAW;
	return kd_form_commit(scr, f);
}

unsigned
kd_form_toggle_na(struct kd_screen *scr, int i)
{
	const struct kd_field *f;
	struct kd_lineedit le;
	json_t *na;

	if (i < 0 || (size_t)i >= scr->stage->nfields)
		return KD_HANDLED;
	f = &scr->stage->fields[i];
	if (strncmp(f->path, SETTINGS_PREFIX, strlen(SETTINGS_PREFIX)) == 0) {
		kd_frame_message(scr, KD_C_WARN, "Only reference fields can be marked not applicable.");
		return KD_HANDLED;
	}
	if (refuse_broken(scr, f))
		return KD_HANDLED;
	na = json_object_get(scr->ctx->ref, "not_applicable");
	if (json_is_object(na) && json_object_get(na, f->path) != NULL) {
		json_object_del(na, f->path);
		if (json_object_size(na) == 0)
			json_object_del(scr->ctx->ref, "not_applicable");
		return kd_form_commit(scr, f);
	}
	memset(&le, 0, sizeof le);
	le.title = f->label;
	le.label = "Why does this not apply to the project?";
	le.help = "Example: CPU-only project (for a GPU driver).";
	if (!kd_lineedit_run(scr, &le))
		return KD_HANDLED | KD_REDRAW;
	if (le.text[0] == '\0') {
		free(le.text);
		kd_frame_message(scr, KD_C_WARN, "Not marked: a reason is needed.");
		return KD_HANDLED | KD_REDRAW;
	}
	if (!json_is_object(na)) {
		na = json_object();
		json_object_set_new(scr->ctx->ref, "not_applicable", na);
	}
	json_object_set_new(na, f->path, json_string(le.text));
	free(le.text);
	return kd_form_commit(scr, f);
}
