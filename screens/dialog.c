/*
 * dialog.c - modal dialogs drawn over the frame: a message, a yes/no
 * question, a choice among a few, the deviation dialog and the notes.
 *
 * Each dialog is a small loop that redraws the frame and then itself, so a
 * resize in the middle of a dialog lays everything out again; below the
 * minimum size the frame's notice shows and the dialog waits.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/screen.h"
#include "kernodeck/state.h"
#include "kernodeck/textw.h"

#define KD_DLG_LINES 64   /* wrapped lines a message box keeps */

/* A box of wrapped text with a footer; returns nothing, only draws. */
static void
draw_text_box(struct kd_screen *scr, const char *title, const char *text,
	      const char *footer, enum kd_color c)
{
	char *lines[KD_DLG_LINES];
	int n, y, x, h, w, iw;

	kd_frame_draw(scr);
	if (!scr->g.full)
		return;
	iw = COLS - 12 < 66 ? COLS - 12 : 66;
	n = kd_wrap(text, iw, lines, LINES - 8 < KD_DLG_LINES ? LINES - 8 : KD_DLG_LINES);
	kd_dialog_place(n + 2, iw, &y, &x, &h, &w);
	kd_box(y, x, h, w, title, kd_attr(c == KD_C_NORMAL ? KD_C_BORDER : c));
	for (int i = 0; i < n && i < h - 3; i++)
		kd_put(y + 2 + i, x + 2, iw, lines[i], A_NORMAL, 0);
	kd_put(y + h - 1, x + 2, w - 4, footer, kd_attr(KD_C_BORDER), 0);
	kd_wrap_free(lines, n);
}

void
kd_dialog_message(struct kd_screen *scr, const char *title, const char *text,
		  enum kd_color c)
{
	int key;

	do {
		draw_text_box(scr, title, text, " any key closes ", c);
		key = kd_tui_key(scr, 0);
	} while (key == KD_K_RESIZE || (!scr->g.full && key >= 0 &&
					kd_key_action(KD_KC_DIALOG, key) != KD_A_CLOSE));
}

void
kd_dialog_notice(struct kd_screen *scr, const char *title, const char *text,
		 enum kd_color c)
{
	int key;

	do {
		draw_text_box(scr, title, text, " Esc closes \u2502 any other key acts ", c);
		key = kd_tui_key(scr, 0);
	} while (key == KD_K_RESIZE);
	if (key > 0 && key != ' ' && key != '\n' && key != '\r' &&
	    kd_key_action(KD_KC_DIALOG, key) != KD_A_CLOSE)
		kd_tui_unget(key);
}

int
kd_dialog_confirm(struct kd_screen *scr, const char *title, const char *text)
{
	for (;;) {
		int key, a;

		draw_text_box(scr, title, text, " y yes \u2502 n no ", KD_C_NORMAL);
		key = kd_tui_key(scr, 0);
		if (key < 0)
			return 0;
		a = kd_key_action(KD_KC_DIALOG, key);
		if (a == KD_A_YES && scr->g.full)
			return 1;
		if (a == KD_A_NO || a == KD_A_CLOSE)
			return 0;
	}
}

int
kd_dialog_choose(struct kd_screen *scr, const char *title, const char *choices, int cur)
{
	char *items[32], *copy = strdup(choices ? choices : ""), *save = NULL, *tok;
	int n = 0, result = -2;

	if (copy == NULL)
		return -1;
	for (tok = strtok_r(copy, "|", &save); tok != NULL && n < 32;
	     tok = strtok_r(NULL, "|", &save))
		items[n++] = tok;
	if (cur < 0 || cur >= n)
		cur = 0;
	while (result == -2 && n > 0) {
		int y, x, h, w, iw = 40, key, a;

		kd_frame_draw(scr);
		if (scr->g.full) {
			kd_dialog_place(n + 2, iw, &y, &x, &h, &w);
			kd_box(y, x, h, w, title, kd_attr(KD_C_BORDER));
			for (int i = 0; i < n && i < h - 3; i++) {
				attr_t at = i == cur ? kd_attr(KD_C_SELECTED) : A_NORMAL;

				kd_fill(y + 2 + i, x + 2, w - 4, at);
				kd_put(y + 2 + i, x + 2, 2, i == cur ? ">" : "", at, 0);
				kd_put(y + 2 + i, x + 4, w - 6, items[i], at, 0);
			}
			kd_put(y + h - 1, x + 2, w - 4, " Enter choose \u2502 Esc cancel ",
			       kd_attr(KD_C_BORDER), 0);
		}
		key = kd_tui_key(scr, 0);
		if (key < 0)
			break;
		if (key == KD_K_RESIZE || !scr->g.full)
			continue;
		a = kd_key_action(KD_KC_DIALOG, key);
		if (a == KD_A_DLG_NEXT || a == KD_A_DOWN)
			cur = (cur + 1) % n;
		else if (a == KD_A_DLG_PREV || a == KD_A_UP)
			cur = (cur + n - 1) % n;
		else if (kd_key_action(KD_KC_EDIT, key) == KD_A_ACCEPT)
			result = cur;
		else if (a == KD_A_CLOSE)
			result = -1;
	}
	free(copy);
	return result < 0 ? -1 : result;
}

/* --- the deviation dialog: what differs, why, intentional --- */

/* Refuse a blank text; u is the message. */
static int
validate_nonblank(void *u, const char *text, char *error, size_t len)
{
	for (const char *p = text; *p != '\0'; p++)
		if (*p != ' ')
			return 0;
	snprintf(error, len, "%s", (const char *)u);
	return 1;
}

unsigned
kd_dialog_deviation(struct kd_screen *scr, const struct kd_row *row)
{
	const struct kd_deviation *old = stage_find_deviation(&scr->ctx->state, scr->idx, row->id);
	char title[256], what0[1024], label[512], *what = NULL, *why = NULL;
	struct kd_lineedit le;
	struct kd_err err;
	unsigned flags = KD_HANDLED | KD_REDRAW;
	int intentional;

	if (row->status != KD_R_FAIL && row->status != KD_R_WARN) {
		kd_frame_message(scr, KD_C_WARN, "\"%s\" is not failing: only a failing check "
				 "(or a warning) takes a deviation.", row->label ? row->label : row->id);
		return flags;
	}
	kd_err_clear(&err);
	if (stage_deviable(row->id, &err) != 0) {
		/* refused before anything is asked: no reason typed for nothing */
		kd_frame_error_box(scr, "This check cannot take a deviation", &err);
		return flags;
	}
	snprintf(title, sizeof title, "Deviation for %s", row->id);
	if (old != NULL)
		snprintf(what0, sizeof what0, "%s", old->what ? old->what : "");
	else
		snprintf(what0, sizeof what0, "observed %s; expected %s",
			 row->observed && *row->observed ? row->observed : "(nothing)",
			 row->expected && *row->expected ? row->expected : "(nothing)");
	memset(&le, 0, sizeof le);
	le.title = title;
	snprintf(label, sizeof label, "1/3 What differs? (%s)", row->label ? row->label : row->id);
	le.label = label;
	le.help = "Prefilled from the check: edit it to say what differs in your words.";
	le.text = what0;
	if (!kd_lineedit_run(scr, &le))
		goto cancelled;
	what = le.text;
	memset(&le, 0, sizeof le);
	le.title = title;
	le.label = "2/3 Why is it acceptable, or how will it be fixed? (required)";
	le.help = "Recorded with your name and the time, and copied into the dossier.";
	le.text = old && old->why ? old->why : NULL;
	le.validate = validate_nonblank;
	le.u = "A deviation needs a reason: say why this difference is acceptable, "
		"or what will fix it.";
	if (!kd_lineedit_run(scr, &le))
		goto cancelled;
	why = le.text;
	intentional = kd_dialog_confirm(scr, title, "3/3 Is this difference intentional "
					"(the run becomes a variant of the reference)?\n\n"
					"y: intentional, a variant\nn: to be fixed");
	kd_err_clear(&err);
	if (stage_record_deviation(&scr->ctx->state, scr->idx, row->id, what, why,
				   intentional, kd_author(), &err) != 0) {
		kd_frame_error_box(scr, "The deviation was not recorded", &err);
	} else {
		stage_recompute(&scr->ctx->state, scr->idx);
		kd_frame_message(scr, KD_C_DEVIATION, "Deviation recorded for %s (%s).",
				 row->id, intentional ? "intentional" : "to fix");
		flags |= KD_SAVE;
	}
	free(what);
	free(why);
	return flags;
cancelled:
	free(what);
	kd_frame_message(scr, KD_C_NORMAL, "No deviation recorded.");
	return flags;
}

/* --- notes --- */

/* The notes of the stage as one text, oldest first. */
static char *
notes_text(const struct kd_stage_state *ss)
{
	size_t cap = 64, len = 0;
	char *out = malloc(cap);

	if (out == NULL)
		return NULL;
	out[0] = '\0';
	for (size_t i = 0; i < ss->nnotes; i++) {
		const struct kd_note *n = &ss->notes[i];
		size_t need = strlen(n->text ? n->text : "") + strlen(n->author ? n->author : "") +
			strlen(n->time ? n->time : "") + 16;
		char *nb;

		if (len + need >= cap) {
			while (len + need >= cap)
				cap *= 2;
			nb = realloc(out, cap);
			if (nb == NULL)
				break;
			out = nb;
		}
		len += (size_t)snprintf(out + len, cap - len, "%s%s, %s:\n%s\n",
					i ? "\n" : "", n->author ? n->author : "?",
					n->time ? n->time : "?", n->text ? n->text : "");
	}
	if (ss->nnotes == 0)
		snprintf(out, cap, "No notes yet.");
	return out;
}

unsigned
kd_dialog_notes(struct kd_screen *scr)
{
	unsigned flags = KD_HANDLED | KD_REDRAW;
	char title[128];

	snprintf(title, sizeof title, "Notes: %s", scr->stage->title);
	for (;;) {
		const struct kd_stage_state *ss = &scr->ctx->state.st[scr->idx];
		char *text = notes_text(ss);
		int key, a;

		draw_text_box(scr, title, text ? text : "", scr->ctx->readonly
			      ? " Esc close " : " a add a note \u2502 Esc close ", KD_C_NORMAL);
		free(text);
		key = kd_tui_key(scr, 0);
		if (key < 0)
			break;
		if (key == KD_K_RESIZE || !scr->g.full)
			continue;
		a = kd_key_action(KD_KC_LIST, key);
		if (a == KD_A_CLOSE || kd_key_action(KD_KC_MAIN, key) == KD_A_QUIT)
			break;
		if ((a == KD_A_ADD || a == KD_A_ITEM_EDIT) && !scr->ctx->readonly) {
			struct kd_lineedit le;
			struct kd_err err;

			memset(&le, 0, sizeof le);
			le.title = title;
			le.label = "New note";
			le.help = "Saved with your name and the time.";
			le.validate = validate_nonblank;
			le.u = "A note needs some text.";
			if (!kd_lineedit_run(scr, &le))
				continue;
			kd_err_clear(&err);
			if (stage_add_note(&scr->ctx->state, scr->idx, le.text, kd_author(), &err) != 0)
				kd_frame_error_box(scr, "The note was not added", &err);
			else if (kd_frame_save(scr) == 0)
				kd_frame_message(scr, KD_C_OK, "Note added.");
			free(le.text);
		}
	}
	return flags;
}
