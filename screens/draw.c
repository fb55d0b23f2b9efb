/*
 * draw.c - the frame drawn from the model: the title bar, the stage column
 * with the status marks, the stage's header line, the default stage area
 * (fields, checks, log), the message line, and the notice that replaces
 * everything below the minimum size.  Nothing here changes the model.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "kernodeck/screen.h"
#include "kernodeck/state.h"
#include "kernodeck/textw.h"

/* The title bar: program, stage, reference identity, project, read-only. */
static void
draw_title(struct kd_screen *scr)
{
	char left[512], right[512];
	int rw;

	snprintf(left, sizeof left, " Kernodeck %s \u2502 %d/%d %s \u2502 ref %.12s",
		 PACKAGE_VERSION, scr->idx + 1, KD_NSTAGES, scr->stage->title,
		 scr->ctx->ref_id[0] ? scr->ctx->ref_id : "(none)");
	snprintf(right, sizeof right, "%s%s ", scr->ctx->readonly ? "[read-only] " : "",
		 scr->ctx->project_dir);
	kd_fill(0, 0, COLS, kd_attr(KD_C_TITLE));
	kd_put(0, 0, COLS, left, kd_attr(KD_C_TITLE), 0);
	rw = textw_width(right);
	if (rw > COLS - textw_width(left) - 2)
		rw = COLS - textw_width(left) - 2;
	if (rw > 8)
		kd_put(0, COLS - rw, rw, right, kd_attr(KD_C_TITLE), 0);
}

enum kd_color
kd_status_color(enum kd_status s)
{
	switch (s) {
	case KD_ST_PASSED: return KD_C_PASSED;
	case KD_ST_FAILED: return KD_C_FAILED;
	case KD_ST_DEVIATION: return KD_C_DEVIATION;
	case KD_ST_STALE: return KD_C_STALE;
	case KD_ST_CANCELLED: return KD_C_WARN;
	default: return KD_C_PENDING;
	}
}

/* Left column: the seven stages, the legend, the current stage's notes. */
static void
draw_stages(struct kd_screen *scr)
{
	const struct kd_state *st = &scr->ctx->state;
	const struct kd_stage_state *cur = &st->st[scr->idx];
	int w = scr->g.left_w - 1, y = 1, i;
	char buf[256];

	kd_put(y++, 1, w - 1, "Stages", kd_attr(KD_C_HEADER), 1);
	for (i = 0; i < KD_NSTAGES; i++, y++) {
		enum kd_status s = st->st[i].status;
		attr_t a = i == scr->idx ? kd_attr(KD_C_CURRENT) : A_NORMAL;

		snprintf(buf, sizeof buf, "%c", kd_status_mark(s));
		kd_fill(y, 0, w, a);
		if (i == scr->idx)
			kd_put(y, 0, 1, ">", a | A_BOLD, 0);
		kd_put(y, 1, 1, buf, i == scr->idx ? a : kd_attr(kd_status_color(s)), 0);
		snprintf(buf, sizeof buf, "%d %s", i + 1, kd_stages[i]->title);
		kd_put(y, 3, w - 3, buf, a, 0);
	}
	y++;
	kd_put(y++, 1, w - 1, "+ passed  ! failed", kd_attr(KD_C_DIM), 0);
	kd_put(y++, 1, w - 1, "~ deviation", kd_attr(KD_C_DIM), 0);
	kd_put(y++, 1, w - 1, "? stale", kd_attr(KD_C_DIM), 0);
	y++;
	snprintf(buf, sizeof buf, "Status: %s", kd_status_name(cur->status));
	kd_put(y++, 1, w - 1, buf, kd_attr(kd_status_color(cur->status)), 0);
	snprintf(buf, sizeof buf, "Deviations: %zu", cur->ndevs);
	kd_put(y++, 1, w - 1, buf, A_NORMAL, 0);
	snprintf(buf, sizeof buf, "Notes: %zu", cur->nnotes);
	kd_put(y++, 1, w - 1, buf, A_NORMAL, 0);
	if (cur->nnotes > 0 && y < scr->g.msg_y - 1) {
		const struct kd_note *n = &cur->notes[cur->nnotes - 1];
		char *lines[16];
		int k, nl = kd_wrap(n->text, w - 2, lines, scr->g.msg_y - y - 1 < 16
				    ? scr->g.msg_y - y - 1 : 16);

		kd_put(y++, 1, w - 1, n->author, kd_attr(KD_C_DIM), 0);
		for (k = 0; k < nl && y < scr->g.msg_y; k++)
			kd_put(y++, 2, w - 2, lines[k], A_NORMAL, 0);
		kd_wrap_free(lines, nl);
	}
	kd_vline(1, scr->g.left_w - 1, scr->g.body_h, kd_attr(KD_C_BORDER));
}

/* The line between the body and the key bar: a message, or the selected
 * field's help. */
static void
draw_message(struct kd_screen *scr)
{
	int y = scr->g.msg_y;

	if (scr->msg[0] != '\0') {
		kd_fill(y, 0, COLS, A_NORMAL);
		kd_put(y, 1, COLS - 2, scr->msg, kd_attr(scr->msg_color), 0);
		return;
	}
	kd_fill(y, 0, COLS, A_NORMAL);
	if (scr->focus == KD_FOCUS_FIELDS && scr->sel_field < (int)scr->stage->nfields) {
		const struct kd_field *f = &scr->stage->fields[scr->sel_field];

		kd_put(y, 1, COLS - 2, f->help ? f->help : f->path, kd_attr(KD_C_DIM), 0);
	} else if (scr->focus == KD_FOCUS_CHECKS && kd_screen_nrows(scr) > 0) {
		int is_check;
		const struct kd_row *r = kd_screen_row(scr, (size_t)scr->sel_check, &is_check);
		char line[1400];

		if (r != NULL) {
			snprintf(line, sizeof line, "%s%s%s%s%s", r->id,
				 r->evidence ? " \u2502 evidence: " : "", r->evidence ? r->evidence : "",
				 r->first_error ? " \u2502 " : "", r->first_error ? r->first_error : "");
			kd_put(y, 1, COLS - 2, line, kd_attr(KD_C_DIM), 0);
		}
	} else if (scr->ctx->readonly && scr->lock_note[0] != '\0') {
		kd_put(y, 1, COLS - 2, scr->lock_note, kd_attr(KD_C_WARN), 0);
	}
}

/* The notice shown below the minimum size (down to 1x1). */
static void
draw_too_small(void)
{
	char text[512], *lines[12];
	int n, i, y;

	snprintf(text, sizeof text,
		 "Kernodeck needs a terminal of at least %dx%d; this one is %dx%d. "
		 "Enlarge it to continue (q quits, nothing is lost).",
		 KD_MIN_COLS, KD_MIN_ROWS, COLS, LINES);
	n = kd_wrap(text, COLS > 2 ? COLS - 2 : COLS, lines, LINES < 12 ? LINES : 12);
	y = (LINES - n) / 2;
	for (i = 0; i < n; i++) {
		int w = textw_width(lines[i]);

		kd_put(y + i, (COLS - w) / 2 > 0 ? (COLS - w) / 2 : 0, COLS, lines[i],
		       i == 0 ? kd_attr(KD_C_WARN) : A_NORMAL, 0);
	}
	kd_wrap_free(lines, n);
}

void
kd_frame_draw(struct kd_screen *scr)
{
	if (scr->g.rows != LINES || scr->g.cols != COLS)
		kd_frame_layout(scr);
	erase();
	if (!scr->g.full) {
		draw_too_small();
		return;
	}
	draw_title(scr);
	draw_stages(scr);
	if (scr->ops->draw != NULL)
		scr->ops->draw(scr);
	else
		kd_screen_draw_default(scr);
	draw_message(scr);
	kd_keybar_draw(scr, scr->g.bar_y, scr->log.running ? -1 : KD_KC_MAIN);
}

/* The stage's header line: title, summary, when it was checked. */
static void
draw_stage_header(struct kd_screen *scr)
{
	const struct kd_stage_state *ss = &scr->ctx->state.st[scr->idx];
	char right[160], title[64];
	int x = scr->g.rx, w = scr->g.rw, tw, rwid;

	if (ss->status == KD_ST_STALE)
		snprintf(right, sizeof right, "stale: run again (r)");
	else if (ss->checked_at != NULL)
		snprintf(right, sizeof right, "%s, checked %.10s %.5sZ",
			 kd_status_name(ss->status), ss->checked_at,
			 strlen(ss->checked_at) > 11 ? ss->checked_at + 11 : "");
	else
		snprintf(right, sizeof right, "not checked yet");
	snprintf(title, sizeof title, "%s", scr->stage->title);
	tw = kd_put(scr->g.body_y, x, w, title, A_BOLD, 0);
	rwid = textw_width(right);
	if (rwid > w - tw - 2)
		rwid = w - tw - 2 > 0 ? w - tw - 2 : 0;
	if (scr->stage->summary && *scr->stage->summary)
		kd_put(scr->g.body_y, x + tw + 2, w - tw - 3 - rwid, scr->stage->summary,
		       kd_attr(KD_C_DIM), 0);
	kd_put(scr->g.body_y, x + w - rwid, rwid, right, kd_attr(kd_status_color(ss->status)), 0);
}

/* A section rule: "── Title ───". */
static void
draw_rule(int y, int x, int w, const char *title, int focused)
{
	char t[256];

	kd_hline(y, x, w, kd_attr(KD_C_BORDER));
	snprintf(t, sizeof t, " %s ", title);
	kd_put(y, x + 2, w - 4, t, focused ? kd_attr(KD_C_HEADER) : A_BOLD, 0);
}

void
kd_screen_draw_default(struct kd_screen *scr)
{
	const struct kd_geom *g = &scr->g;
	char t[128];

	draw_stage_header(scr);
	if (scr->stage->nfields > 0) {
		snprintf(t, sizeof t, "Fields (%zu)", scr->stage->nfields);
		draw_rule(g->fields_y - 1, g->rx, g->rw, t, scr->focus == KD_FOCUS_FIELDS);
		kd_form_draw(scr, g->fields_y, g->rx, g->fields_h, g->rw);
	}
	/* the rows shown: the checks and the stage's information rows */
	if (scr->ctx->state.st[scr->idx].status == KD_ST_STALE)
		snprintf(t, sizeof t, "Checks (%zu) \u2502 stale: results of before the change, r checks again",
			 kd_screen_nrows(scr));
	else
		snprintf(t, sizeof t, "Checks (%zu)", kd_screen_nrows(scr));
	draw_rule(g->checks_y - 2, g->rx, g->rw, t, scr->focus == KD_FOCUS_CHECKS);
	kd_checks_draw(scr, g->checks_y - 1, g->rx, g->checks_h + 1, g->rw);
	kd_log_draw(scr, g->log_y - 1, g->rx, g->log_h + 1, g->rw);
}
