/*
 * table.c - one generic drawer for rows of cells (tig's draw.c idea): the
 * caller gives columns with a minimum, a maximum, a weight and whether they
 * may be left out, and a function giving each cell; the table measures,
 * shares the width by weight, keeps the selected row in
 * view and marks it.  The checks table of every stage is drawn with it.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "kernodeck/screen.h"
#include "kernodeck/state.h"
#include "kernodeck/textw.h"

#define KD_TABLE_MAXCOLS 12

/* Natural width of column c: its widest cell or title, within max. */
static int
col_natural(const struct kd_table *t, int c)
{
	int nat = textw_width(t->cols[c].title);

	for (int r = 0; r < t->nrows; r++) {
		int cw = textw_width(t->cell(t->u, r, c));

		if (cw > nat)
			nat = cw;
	}
	return nat > t->cols[c].max ? t->cols[c].max : nat;
}

/* Give the avail columns left, one at a time, to the shown column with a
 * weight of at least tier that has the least width for its weight and
 * still wants more; returns what is left. */
static int
grow_columns(const struct kd_table *t, const int *nat, const int *shown, int *width,
	     int avail, int tier)
{
	while (avail > 0) {
		int best = -1;

		for (int c = 0; c < t->ncols; c++) {
			int wt = t->cols[c].grow > 0 ? t->cols[c].grow : 1;

			if (!shown[c] || width[c] >= nat[c] || t->cols[c].grow < tier)
				continue;
			if (best < 0 || width[c] * (t->cols[best].grow > 0 ? t->cols[best].grow : 1) <
			    width[best] * wt)
				best = c;
		}
		if (best < 0)
			break;
		width[best]++;
		avail--;
	}
	return avail;
}

/* Column widths that fit in w (2 columns for the selection mark, 1 between
 * cells), by water-filling: every column first gets its minimum (or less
 * when its content is narrower), then the space left goes, one column at
 * a time, to the column with the least width for its weight that still
 * wants more, the heaviest columns (weight 3 or more) first.  When the
 * minimums and the heaviest columns' natural widths do not fit, optional
 * columns are left out (width 0), the last first. */
static void
table_widths(const struct kd_table *t, int w, int *width)
{
	int nat[KD_TABLE_MAXCOLS], shown[KD_TABLE_MAXCOLS], c, avail, nshown;

	for (c = 0; c < t->ncols; c++) {
		nat[c] = col_natural(t, c);
		shown[c] = 1;
	}
	for (;;) {
		int need = 0, drop = -1;

		nshown = 0;
		for (c = 0; c < t->ncols; c++) {
			width[c] = 0;
			if (!shown[c])
				continue;
			nshown++;
			width[c] = t->cols[c].min < nat[c] ? t->cols[c].min : nat[c];
			/* an optional column only when the columns that weigh
			 * most can have their whole natural width beside it */
			need += t->cols[c].grow >= 3 ? nat[c] : width[c];
			if (t->cols[c].optional)
				drop = c;
		}
		avail = w - 2 - (nshown > 0 ? nshown - 1 : 0);
		if (need <= avail || drop < 0)
			break;
		shown[drop] = 0;
	}
	for (c = 0; c < t->ncols; c++)
		avail -= width[c];
	/* the columns that weigh most (grow >= 3: the check's name, what was
	 * observed) reach their natural width first; then every column */
	avail = grow_columns(t, nat, shown, width, avail, 3);
	grow_columns(t, nat, shown, width, avail, 0);
}

void
kd_table_draw(const struct kd_table *t, int y, int x, int h, int w)
{
	int width[KD_TABLE_MAXCOLS], c, r, cx, rows = h - 1;
	int top = t->top ? *t->top : 0;

	if (t->ncols > KD_TABLE_MAXCOLS || h < 1 || w < 4)
		return;
	table_widths(t, w - 1, width);   /* the last column holds the scroll marks */
	/* header */
	cx = x + 2;
	for (c = 0; c < t->ncols; c++) {
		if (width[c] <= 0)
			continue;
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
			if (width[c] <= 0)
				continue;
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

/* The label and what was observed weigh most; on a narrow terminal the
 * evidence column is left out (the message line and the detail show the
 * selected row's evidence). */
static const struct kd_col check_cols[] = {
	{ "Status", 6, 6, 0, 0 },
	{ "Check", 18, 44, 3, 0 },
	{ "Observed", 10, 48, 3, 0 },
	{ "Expected", 10, 40, 2, 0 },
	{ "Evidence", 14, 48, 2, 1 },
};

/* A stale stage's rows are results of before an earlier change: none of
 * them is shown as a current failure (or pass). */
static int
stage_stale(const struct kd_screen *scr)
{
	return scr->ctx->state.st[scr->idx].status == KD_ST_STALE;
}

static const char *
check_status_text(const struct kd_screen *scr, const struct kd_row *row, int is_check)
{
	if (!is_check)
		return "info";
	if (stage_stale(scr))
		return "stale";
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
		if (stage_stale(scr))
			return kd_status_color(KD_ST_STALE);
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
