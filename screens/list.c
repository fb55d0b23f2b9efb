/*
 * list.c - the editor of a LIST field (data items, parameter files...):
 * a dialog listing the items, where a adds one, Enter edits the selected
 * item in a small form of its item fields, x removes it.  Each change of a
 * stage field is committed at once (kd_form_commit), so nothing waits for
 * the dialog to close.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/screen.h"
#include "kernodeck/textw.h"

/* One line summing up an item: the values of its first fields. */
static void
item_summary(struct kd_screen *scr, const struct kd_field *f, json_t *item,
	     char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = '\0';
	if (f->nitem_fields == 0 || !json_is_object(item)) {
		char *s = json_is_string(item) ? strdup(json_string_value(item))
			: json_dumps(item, JSON_COMPACT | JSON_ENCODE_ANY);

		snprintf(buf, len, "%s", s ? s : "");
		free(s);
		return;
	}
	for (size_t i = 0; i < f->nitem_fields && i < 3 && pos < len; i++) {
		char val[512];
		int dim;

		kd_form_value(scr, &f->item_fields[i], item, f->item_fields[i].path,
			      val, sizeof val, &dim);
		pos += (size_t)snprintf(buf + pos, len - pos, "%s%s", i ? " \u2502 " : "", val);
	}
}

/* Move sel by a navigation action within n rows of a page. */
static void
list_move(int action, int *sel, int n, int page)
{
	switch (action) {
	case KD_A_UP: case KD_A_DLG_PREV: (*sel)--; break;
	case KD_A_DOWN: case KD_A_DLG_NEXT: (*sel)++; break;
	case KD_A_PGUP: *sel -= page; break;
	case KD_A_PGDN: *sel += page; break;
	case KD_A_HOME: *sel = 0; break;
	case KD_A_END: *sel = n - 1; break;
	}
	if (*sel >= n)
		*sel = n - 1;
	if (*sel < 0)
		*sel = 0;
}

/* The form of one object item; 1 when something changed. */
static int
item_form(struct kd_screen *scr, const struct kd_field *f, json_t *item, int index)
{
	int sel = 0, top = 0, changed = 0;
	char title[256];

	snprintf(title, sizeof title, "%s: item %d", f->label, index + 1);
	for (;;) {
		int y, x, h, w, key, a, n = (int)f->nitem_fields;

		kd_frame_draw(scr);
		if (scr->g.full) {
			kd_dialog_place(n + 2, COLS - 12 < 70 ? COLS - 12 : 70, &y, &x, &h, &w);
			kd_box(y, x, h, w, title, kd_attr(KD_C_BORDER));
			kd_form_draw_fields(scr, f->item_fields, f->nitem_fields, item, sel, &top,
					    1, y + 2, x + 2, h - 3, w - 4);
			kd_put(y + h - 1, x + 2, w - 4, " Enter edit \u2502 Esc back ",
			       kd_attr(KD_C_BORDER), 0);
			if (f->item_fields[sel].help)
				kd_put(scr->g.msg_y, 1, COLS - 2, f->item_fields[sel].help,
				       kd_attr(KD_C_DIM), 1);
		}
		key = kd_tui_key(scr, 0);
		if (key < 0)
			break;
		if (key == KD_K_RESIZE || !scr->g.full)
			continue;
		a = kd_key_action(KD_KC_LIST, key);
		if (a == KD_A_CLOSE)
			break;
		if (a == KD_A_ITEM_EDIT) {
			if (kd_form_edit_value(scr, &f->item_fields[sel], item,
					       f->item_fields[sel].path))
				changed = 1;
			continue;
		}
		list_move(a, &sel, n, h - 3);
	}
	return changed;
}

/* Edit item i: a form for objects, one line for scalars. */
static int
list_edit_item(struct kd_screen *scr, const struct kd_field *f, json_t *arr, int i)
{
	json_t *item = json_array_get(arr, (size_t)i);
	struct kd_lineedit le;
	char cur[4096];

	if (item == NULL)
		return 0;
	if (f->nitem_fields > 0 && json_is_object(item))
		return item_form(scr, f, item, i);
	memset(&le, 0, sizeof le);
	le.title = f->label;
	le.label = "Item";
	le.help = f->help;
	snprintf(cur, sizeof cur, "%s", json_is_string(item) ? json_string_value(item) : "");
	le.text = cur;
	if (!kd_lineedit_run(scr, &le))
		return 0;
	json_array_set_new(arr, (size_t)i, json_string(le.text));
	free(le.text);
	return 1;
}

/* Commit after a change when f is a field of the stage itself. */
static void
list_commit(struct kd_screen *scr, const struct kd_field *f, unsigned *flags)
{
	const struct kd_field *fs = scr->stage->fields;

	*flags |= KD_SAVE;
	if (fs != NULL && f >= fs && f < fs + scr->stage->nfields)
		*flags |= kd_form_commit(scr, f);
}

static void
list_draw(struct kd_screen *scr, const struct kd_field *f, json_t *arr, int sel, int *top)
{
	int n = (int)json_array_size(arr), y, x, h, w, rows;

	kd_frame_draw(scr);
	if (!scr->g.full)
		return;
	kd_dialog_place(n + 2 > 4 ? n + 2 : 4, COLS - 12 < 70 ? COLS - 12 : 70,
			&y, &x, &h, &w);
	kd_box(y, x, h, w, f->label, kd_attr(KD_C_BORDER));
	rows = h - 3;
	if (sel < *top)
		*top = sel;
	if (sel >= *top + rows)
		*top = sel - rows + 1;
	if (n == 0)
		kd_put(y + 2, x + 2, w - 4, "No items: press a to add one.", kd_attr(KD_C_DIM), 0);
	for (int i = 0; i < rows && *top + i < n; i++) {
		char buf[2048], num[16];
		int on = *top + i == sel;
		attr_t a = on ? kd_attr(KD_C_SELECTED) : A_NORMAL;

		item_summary(scr, f, json_array_get(arr, (size_t)(*top + i)), buf, sizeof buf);
		snprintf(num, sizeof num, "%s%d", on ? ">" : " ", *top + i + 1);
		kd_fill(y + 2 + i, x + 1, w - 2, a);
		kd_put(y + 2 + i, x + 1, 4, num, a, 0);
		kd_put(y + 2 + i, x + 6, w - 8, buf, a, 0);
	}
	kd_put(y + h - 1, x + 2, w - 4, " a add \u2502 Enter edit \u2502 x remove \u2502 Esc close ",
	       kd_attr(KD_C_BORDER), 0);
}

unsigned
kd_dialog_list(struct kd_screen *scr, const struct kd_field *f, json_t *root, const char *path)
{
	unsigned flags = KD_HANDLED | KD_REDRAW;
	json_t *arr = yamlio_get(root, path);
	int sel = 0, top = 0;

	if (!json_is_array(arr)) {
		arr = json_array();
		if (yamlio_set(root, path, arr) != 0) {
			kd_frame_message(scr, KD_C_ERROR, "Cannot make a list at %s.", path);
			return flags;
		}
	}
	for (;;) {
		int key, a, n = (int)json_array_size(arr);

		list_draw(scr, f, arr, sel, &top);
		key = kd_tui_key(scr, 0);
		if (key < 0)
			break;
		if (key == KD_K_RESIZE || !scr->g.full)
			continue;
		a = kd_key_action(KD_KC_LIST, key);
		if (a == KD_A_CLOSE)
			break;
		if (a == KD_A_ADD) {
			json_array_append_new(arr, f->nitem_fields > 0 ? json_object() : json_string(""));
			sel = n;
			list_edit_item(scr, f, arr, sel);
			list_commit(scr, f, &flags);
		} else if (a == KD_A_ITEM_EDIT && n > 0) {
			if (list_edit_item(scr, f, arr, sel))
				list_commit(scr, f, &flags);
		} else if (a == KD_A_REMOVE && n > 0) {
			char q[2300], s[2048];

			item_summary(scr, f, json_array_get(arr, (size_t)sel), s, sizeof s);
			snprintf(q, sizeof q, "Remove item %d (%s)?", sel + 1, s);
			if (kd_dialog_confirm(scr, f->label, q)) {
				json_array_remove(arr, (size_t)sel);
				if (sel >= n - 1 && sel > 0)
					sel--;
				list_commit(scr, f, &flags);
			}
		} else {
			list_move(a, &sel, n, 8);
		}
	}
	return flags;
}
