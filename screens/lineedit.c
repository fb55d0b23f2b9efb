/*
 * lineedit.c - a one-line text editor in a dialog box.
 *
 * The text is held as wide characters so that the cursor moves by
 * characters and the view by display columns; it scrolls sideways when the
 * text is wider than the box.  Enter validates through the caller's
 * function and keeps the dialog open with the error when it refuses.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "kernodeck/screen.h"
#include "kernodeck/textw.h"

#define KD_LE_MAX 4096   /* characters of one edited line */

struct le_state {
	wchar_t buf[KD_LE_MAX + 1];
	int len, cur, off;
};

static void
le_load(struct le_state *s, const char *text)
{
	mbstate_t st;
	const char *p = text ? text : "";

	memset(s, 0, sizeof *s);
	memset(&st, 0, sizeof st);
	while (*p != '\0' && s->len < KD_LE_MAX) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, p, strlen(p), &st);

		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			wc = L'?';
			n = 1;
			memset(&st, 0, sizeof st);
		}
		if (iswcntrl((wint_t)wc))
			wc = L' ';
		s->buf[s->len++] = wc;
		p += n;
	}
	s->buf[s->len] = L'\0';
	s->cur = s->len;
}

static char *
le_text(const struct le_state *s)
{
	size_t cap = (size_t)s->len * MB_CUR_MAX + 1, n;
	char *out = malloc(cap);

	if (out == NULL)
		return NULL;
	n = wcstombs(out, s->buf, cap);
	if (n == (size_t)-1) {
		/* a character the locale cannot write: keep ASCII only */
		size_t k = 0;

		for (int i = 0; i < s->len; i++)
			out[k++] = s->buf[i] < 128 ? (char)s->buf[i] : '?';
		out[k] = '\0';
	}
	return out;
}

/* Columns taken by characters [a, b). */
static int
le_cols(const struct le_state *s, int a, int b)
{
	int w = 0;

	for (int i = a; i < b; i++) {
		int cw = wcwidth(s->buf[i]);

		w += cw < 0 ? 1 : cw;
	}
	return w;
}

/* Draw the input at (y, x) over w columns; leaves the cursor there. */
static void
le_draw_input(struct le_state *s, int y, int x, int w)
{
	char *text;
	int cx;

	if (s->cur < s->off)
		s->off = s->cur;
	while (s->off < s->cur && le_cols(s, s->off, s->cur) > w - 1)
		s->off++;
	{
		struct le_state view = *s;

		memmove(view.buf, view.buf + s->off, (size_t)(s->len - s->off + 1) * sizeof(wchar_t));
		view.len = s->len - s->off;
		text = le_text(&view);
	}
	kd_put(y, x, w, text ? text : "", kd_attr(KD_C_INPUT), 1);
	free(text);
	cx = x + le_cols(s, s->off, s->cur);
	if (cx >= x + w)
		cx = x + w - 1;
	move(y, cx);
}

static void
le_insert(struct le_state *s, wchar_t wc)
{
	if (s->len >= KD_LE_MAX)
		return;
	wmemmove(s->buf + s->cur + 1, s->buf + s->cur, (size_t)(s->len - s->cur + 1));
	s->buf[s->cur++] = wc;
	s->len++;
}

static void
le_delete(struct le_state *s, int a, int b)
{
	if (a < 0)
		a = 0;
	if (b > s->len)
		b = s->len;
	if (a >= b)
		return;
	wmemmove(s->buf + a, s->buf + b, (size_t)(s->len - b + 1));
	s->len -= b - a;
	if (s->cur > b)
		s->cur -= b - a;
	else if (s->cur > a)
		s->cur = a;
}

/* Apply one editing action; 1 when it was one. */
static int
le_edit(struct le_state *s, int action)
{
	switch (action) {
	case KD_A_LEFT: if (s->cur > 0) s->cur--; return 1;
	case KD_A_RIGHT: if (s->cur < s->len) s->cur++; return 1;
	case KD_A_BOL: s->cur = 0; return 1;
	case KD_A_EOL: s->cur = s->len; return 1;
	case KD_A_BKSP: le_delete(s, s->cur - 1, s->cur); return 1;
	case KD_A_DELCH: le_delete(s, s->cur, s->cur + 1); return 1;
	case KD_A_KILL_BOL: le_delete(s, 0, s->cur); return 1;
	case KD_A_KILL_EOL: le_delete(s, s->cur, s->len); return 1;
	default: return 0;
	}
}

/* The dialog: label, input, help, error, keys. */
static void
le_draw(struct kd_screen *scr, struct kd_lineedit *le, struct le_state *s)
{
	char *label[4], *help[4], *error[3];
	int nl, nh, ne, y, x, h, w, iw, row;

	kd_frame_draw(scr);
	if (!scr->g.full)
		return;
	iw = COLS - 12 < 72 ? COLS - 12 : 72;
	nl = kd_wrap(le->label ? le->label : "", iw, label, 4);
	nh = kd_wrap(le->help ? le->help : "", iw, help, 4);
	ne = kd_wrap(le->error, iw, error, 3);
	kd_dialog_place(nl + nh + ne + 3, iw, &y, &x, &h, &w);
	kd_box(y, x, h, w, le->title, kd_attr(KD_C_BORDER));
	row = y + 1;
	for (int i = 0; i < nl; i++)
		kd_put(row++, x + 2, iw, label[i], A_BOLD, 0);
	row++;
	int input_y = row++;
	for (int i = 0; i < nh; i++)
		kd_put(row++, x + 2, iw, help[i], kd_attr(KD_C_DIM), 0);
	for (int i = 0; i < ne; i++)
		kd_put(row++, x + 2, iw, error[i], kd_attr(KD_C_FAILED), 0);
	kd_put(y + h - 1, x + 2, w - 4, " Enter accept \u2502 Esc cancel ", kd_attr(KD_C_BORDER), 0);
	kd_wrap_free(label, nl);
	kd_wrap_free(help, nh);
	kd_wrap_free(error, ne);
	le_draw_input(s, input_y, x + 2, iw);
}

int
kd_lineedit_run(struct kd_screen *scr, struct kd_lineedit *le)
{
	static struct le_state s;
	int accepted = -1;

	le_load(&s, le->text);
	le->text = NULL;
	while (accepted < 0 && !kd_tui_signalled()) {
		int key, action;

		le_draw(scr, le, &s);
		curs_set(scr->g.full ? 1 : 0);
		refresh();
		key = kd_tui_getkey(1000);
		if (key < 0)
			continue;
		if (key == KD_K_RESIZE) {
			kd_frame_layout(scr);
			continue;
		}
		action = kd_key_action(KD_KC_EDIT, key);
		if (action == KD_A_CANCEL) {
			accepted = 0;
		} else if (!scr->g.full) {
			continue;
		} else if (action == KD_A_ACCEPT) {
			char *text = le_text(&s);

			le->error[0] = '\0';
			if (text != NULL && le->validate != NULL &&
			    le->validate(le->u, text, le->error, sizeof le->error) != 0) {
				free(text);
				continue;
			}
			le->text = text;
			accepted = text != NULL;
		} else if (le_edit(&s, action)) {
			le->error[0] = '\0';
		} else if (!(key & KD_KFUNC) && key >= 32 && key != KD_K_DEL &&
			   iswprint((wint_t)key)) {
			le_insert(&s, (wchar_t)key);
			le->error[0] = '\0';
		}
	}
	curs_set(0);
	return accepted > 0;
}
