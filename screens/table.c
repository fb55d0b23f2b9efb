/*
 * table.c - one generic drawer for rows of cells (tig's draw.c idea): the
 * caller gives columns with a minimum, a maximum, a share of the space
 * left and a level at which they give up room, and a function giving each
 * cell; the table measures, shrinks the columns of the highest level first
 * when space is short, keeps the selected row in
 * view and marks it.  The checks table of every stage is drawn with it.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "kernodeck/screen.h"
#include "kernodeck/state.h"
#include "kernodeck/textw.h"

#define KD_TABLE_MAXCOLS 12

/* Column widths that fit in w (1 column gap between cells, 2 for the
 * selection mark in front).  Each column starts at its natural width
 * (content, within max); when short, the columns of the highest shrink
 * level give up room first, evenly, down to their minimum, then the next
 * level; room left over is shared by the growing columns. */
static void
table_widths(const struct kd_table *t, int w, int *width)
{
	int c, r, sum = 0, deficit, floor_[KD_TABLE_MAXCOLS], level;

	for (c = 0; c < t->ncols; c++) {
		int nat = textw_width(t->cols[c].title);

		for (r = 0; r < t->nrows; r++) {
			int cw = textw_width(t->cell(t->u, r, c));

			if (cw > nat)
				nat = cw;
		}
		if (nat > t->cols[c].max)
			nat = t->cols[c].max;
		width[c] = nat;
		floor_[c] = t->cols[c].min < nat ? t->cols[c].min : nat;
		sum += nat + 1;
	}
	sum += 1;
	deficit = sum - w;
	for (level = 9; level > 0 && deficit > 0; level--) {
		int shrunk = 1;

		while (deficit > 0 && shrunk) {
			int best = -1;

			shrunk = 0;
			for (c = 0; c < t->ncols; c++)
				if (t->cols[c].shrink == level && width[c] > floor_[c] &&
				    (best < 0 || width[c] - floor_[c] >= width[best] - floor_[best]))
					best = c;
			if (best >= 0) {
				width[best]--;
				deficit--;
				shrunk = 1;
			}
		}
	}
	while (deficit < 0) {
		int given = 0;

		for (c = 0; c < t->ncols && deficit < 0; c++) {
			if (t->cols[c].grow > 0 && width[c] < t->cols[c].max) {
				width[c]++;
				deficit++;
				given = 1;
			}
		}
		if (!given)
			break;
	}
}

void
kd_table_draw(const struct kd_table *t, int y, int x, int h, int w)
{
	int width[KD_TABLE_MAXCOLS], c, r, cx, rows = h - 1;
	int top = t->top ? *t->top : 0;

	if (t->ncols > KD_TABLE_MAXCOLS || h < 1 || w < 4)
		return;
	table_widths(t, w, width);
	/* header */
	cx = x + 2;
	for (c = 0; c < t->ncols; c++) {
		kd_put(y, cx, width[c], t->cols[c].title, A_BOLD | A_UNDERLINE, 1);
		cx += width[c] + 1;
	}
	if (rows <= 0)
		return;
	/* keep the selection in view */
	if (t->sel >= 0) {
		if (t->sel < top)
			top = t->sel;
		if (t->sel >= top + rows)
			top = t->sel - rows + 1;
	}
	if (top > t->nrows - rows)
		top = t->nrows - rows;
	if (top < 0)
		top = 0;
	if (t->top)
		*t->top = top;
	for (r = top; r < t->nrows && r < top + rows; r++) {
		int yy = y + 1 + (r - top), sel = r == t->sel && t->focused;
		attr_t base = sel ? kd_attr(KD_C_SELECTED) : A_NORMAL;

		kd_fill(yy, x, w, base);
		if (r == t->sel)
			kd_put(yy, x, 1, t->focused ? ">" : "\u00b7", base | A_BOLD, 0);
		cx = x + 2;
		for (c = 0; c < t->ncols && cx < x + w; c++) {
			attr_t a = sel ? base : kd_attr(t->color ? t->color(t->u, r, c) : KD_C_NORMAL);
			int cw = width[c] < x + w - cx ? width[c] : x + w - cx;

			kd_put(yy, cx, cw, t->cell(t->u, r, c), a, 0);
			cx += width[c] + 1;
		}
	}
	/* scroll marks */
	if (top > 0)
		kd_put(y + 1, x + w - 1, 1, "\u2191", kd_attr(KD_C_DIM), 0);
	if (top + rows < t->nrows)
		kd_put(y + rows, x + w - 1, 1, "\u2193", kd_attr(KD_C_DIM), 0);
}

/* --- the checks table --- */

/* The check's label matters most, the evidence least (the detail shows
 * it whole): evidence gives up its room first, then what was expected,
 * then what was observed, the label last. */
static const struct kd_col check_cols[] = {
	{ "Status", 6, 6, 0, 0 },
	{ "Check", 16, 40, 3, 1 },
	{ "Observed", 10, 48, 4, 2 },
	{ "Expected", 10, 36, 3, 3 },
	{ "Evidence", 8, 40, 1, 4 },
};

static const char *
check_status_text(const struct kd_screen *scr, const struct kd_row *row, int is_check)
{
	if (!is_check)
		return "info";
	switch (row->status) {
	case KD_R_PASS: return "pass";
	case KD_R_FAIL:
		return stage_find_deviation(&scr->ctx->state, scr->idx, row->id) ? "dev" : "FAIL";
	case KD_R_WARN: return "warn";
	default: return "info";
	}
}

static const char *
check_cell(void *u, int r, int c)
{
	const struct kd_screen *scr = u;
	int is_check;
	const struct kd_row *row = kd_screen_row(scr, (size_t)r, &is_check);

	if (row == NULL)
		return "";
	switch (c) {
	case 0: return check_status_text(scr, row, is_check);
	case 1: return row->label ? row->label : row->id;
	case 2: return row->observed ? row->observed : "";
	case 3: return row->expected ? row->expected : "";
	default: return row->evidence ? row->evidence : "";
	}
}

static enum kd_color
check_color(void *u, int r, int c)
{
	const struct kd_screen *scr = u;
	int is_check;
	const struct kd_row *row = kd_screen_row(scr, (size_t)r, &is_check);

	if (row == NULL)
		return KD_C_NORMAL;
	if (c == 0) {
		if (!is_check)
			return KD_C_INFO;
		switch (row->status) {
		case KD_R_PASS: return KD_C_PASSED;
		case KD_R_FAIL:
			return stage_find_deviation(&scr->ctx->state, scr->idx, row->id)
				? KD_C_DEVIATION : KD_C_FAILED;
		case KD_R_WARN: return KD_C_WARN;
		default: return KD_C_INFO;
		}
	}
	if (c == 4)
		return KD_C_DIM;
	return is_check ? KD_C_NORMAL : KD_C_DIM;
}

void
kd_checks_draw(struct kd_screen *scr, int y, int x, int h, int w)
{
	struct kd_table t = {
		.cols = check_cols,
		.ncols = (int)(sizeof check_cols / sizeof check_cols[0]),
		.nrows = (int)kd_screen_nrows(scr),
		.cell = check_cell,
		.color = check_color,
		.u = scr,
		.sel = scr->sel_check,
		.top = &scr->top_check,
		.focused = scr->focus == KD_FOCUS_CHECKS,
	};

	if (t.nrows == 0) {
		const char *hint = scr->ops->empty_hint ? scr->ops->empty_hint
			: "Not checked yet: press r to run this stage's checks.";
		char *lines[6];
		int n = kd_wrap(hint, w - 4, lines, h < 6 ? h : 6);

		for (int i = 0; i < n; i++)
			kd_put(y + 1 + i, x + 2, w - 2, lines[i], kd_attr(KD_C_DIM), 0);
		kd_wrap_free(lines, n);
		return;
	}
	kd_table_draw(&t, y, x, h, w);
}
