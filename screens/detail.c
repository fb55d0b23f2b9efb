/*
 * detail.c - the detail of one check: its values, first error, hint,
 * deviation, and an excerpt of its evidence file that opens at the first
 * error, can be searched (/ then n) and opened whole in $PAGER (o).
 *
 * The evidence file is untrusted and may be huge: at most KD_DETAIL_CAP
 * bytes and KD_DETAIL_LINES lines are read, and the view says so.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/screen.h"
#include "kernodeck/state.h"
#include "kernodeck/textw.h"

#define KD_DETAIL_CAP   (4u * 1024 * 1024)  /* bytes of evidence read */
#define KD_DETAIL_LINES 100000              /* lines of evidence kept */
#define KD_DETAIL_HEAD  48                  /* wrapped lines of the header block */

struct detail {
	const struct kd_row *row;
	int is_check;
	char *path;          /* evidence, absolute, or NULL */
	char *buf;           /* its text */
	char **lines;
	int nlines, truncated, top, match;
	char note[512];      /* why there is no excerpt */
	char search[256];
	char *head[KD_DETAIL_HEAD];
	int nhead;
};

/* Where a row's evidence is: an absolute path as it is; a relative one in
 * the state folder (logs/...) when it is there, else in the project (the
 * rebuild lint names requirements-rebuild.txt, a file of the project). */
static char *
evidence_path(const struct kd_screen *scr, const char *ev)
{
	char *p;

	if (ev[0] == '/')
		return strdup(ev);
	p = kd_ctx_path(scr->ctx, ev);
	if (p != NULL && access(p, F_OK) != 0) {
		char *q = fsutil_join(scr->ctx->project_dir, ev);
		if (q != NULL && access(q, F_OK) == 0) {
			free(p);
			return q;
		}
		free(q);
	}
	return p;
}

/* Read the evidence file (capped) and split it into lines. */
static void
detail_load(struct detail *d, const struct kd_screen *scr)
{
	const char *ev = d->row->evidence;
	struct stat sb;
	ssize_t n;
	size_t len = 0;
	int fd, cap = 1024;

	if (ev == NULL || *ev == '\0') {
		snprintf(d->note, sizeof d->note, "This check names no evidence file.");
		return;
	}
	d->path = evidence_path(scr, ev);
	if (d->path == NULL)
		return;
	fd = open(d->path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		snprintf(d->note, sizeof d->note, "%s: %s", d->path,
			 fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return;
	}
	d->buf = malloc(KD_DETAIL_CAP + 1);
	while (d->buf != NULL && len < KD_DETAIL_CAP &&
	       (n = read(fd, d->buf + len, KD_DETAIL_CAP - len)) > 0)
		len += (size_t)n;
	d->truncated = (off_t)len < sb.st_size;
	close(fd);
	if (d->buf == NULL)
		return;
	d->buf[len] = '\0';
	d->lines = malloc((size_t)cap * sizeof *d->lines);
	for (char *p = d->buf; d->lines != NULL && p < d->buf + len && d->nlines < KD_DETAIL_LINES;) {
		char *nl = memchr(p, '\n', (size_t)(d->buf + len - p));

		if (d->nlines == cap) {
			char **nv = realloc(d->lines, (size_t)cap * 2 * sizeof *nv);

			if (nv == NULL)
				break;
			d->lines = nv;
			cap *= 2;
		}
		d->lines[d->nlines++] = p;
		if (nl == NULL)
			break;
		*nl = '\0';
		p = nl + 1;
	}
}

/* Where the excerpt opens: a little above the first error, else the end. */
static void
detail_start(struct detail *d, int rows)
{
	const char *fe = d->row->first_error;

	d->match = -1;
	d->top = d->nlines - rows;
	if (fe != NULL && *fe != '\0') {
		char key[128];

		/* the first error as written may be trimmed: look for its start */
		snprintf(key, sizeof key, "%s", fe);
		for (int i = 0; i < d->nlines; i++) {
			if (strstr(d->lines[i], key) != NULL) {
				d->match = i;
				d->top = i - 3;
				break;
			}
		}
	}
	if (d->top < 0)
		d->top = 0;
}

static void
head_add(struct detail *d, int w, const char *label, const char *value)
{
	char *wrapped[KD_DETAIL_HEAD], line[4096];
	int n;

	if (value == NULL || *value == '\0' || w <= 14)
		return;
	n = kd_wrap(value, w - 12, wrapped, KD_DETAIL_HEAD - d->nhead);
	for (int i = 0; i < n; i++) {
		snprintf(line, sizeof line, "%-12s%s", i == 0 ? label : "", wrapped[i]);
		d->head[d->nhead++] = kd_xstrdup(line);
	}
	kd_wrap_free(wrapped, n);
}

/* The header block: the row's values, wrapped to w. */
static void
detail_head(struct detail *d, const struct kd_screen *scr, int w)
{
	const struct kd_row *r = d->row;
	const struct kd_deviation *dev = d->is_check
		? stage_find_deviation(&scr->ctx->state, scr->idx, r->id) : NULL;
	char buf[2048];

	kd_wrap_free(d->head, d->nhead);
	d->nhead = 0;
	head_add(d, w, "Check", r->id);
	head_add(d, w, "What", r->label);
	const int stale = scr->ctx->state.st[scr->idx].status == KD_ST_STALE;
	head_add(d, w, "Status", !d->is_check ? "info" : stale
		 ? "stale: a result of before an earlier change; r checks again"
		 : kd_rstat_name(r->status));
	head_add(d, w, "Observed", r->observed);
	head_add(d, w, "Expected", r->expected);
	head_add(d, w, "Evidence", d->path ? d->path : r->evidence);
	/* a check that passed has no error: its message is a note */
	head_add(d, w, d->is_check && (r->status == KD_R_FAIL || r->status == KD_R_WARN) && !stale
		 ? "First error" : "Note", r->first_error);
	head_add(d, w, "Hint", r->hint);
	if (dev != NULL) {
		snprintf(buf, sizeof buf, "%s: %s (why: %s; %s, %s)",
			 dev->intentional ? "intentional" : "to fix", dev->what ? dev->what : "",
			 dev->why ? dev->why : "", dev->author ? dev->author : "?",
			 dev->time ? dev->time : "?");
		head_add(d, w, "Deviation", buf);
	} else if (d->is_check && r->status == KD_R_FAIL && !stale) {
		head_add(d, w, "Deviation", "none: press d to record one");
	}
}

static void
detail_draw(struct kd_screen *scr, struct detail *d)
{
	int y = 1, x = 0, h = LINES - 2, w = COLS, iw = w - 4, row, rows, i;
	char t[640];

	kd_frame_draw(scr);
	if (!scr->g.full)
		return;
	detail_head(d, scr, iw);
	kd_box(y, x, h, w, "Check detail", kd_attr(KD_C_BORDER));
	row = y + 1;
	/* the values first, wrapped whole; the excerpt keeps 4 lines */
	for (i = 0; i < d->nhead && row < y + h - 1 - 5; i++) {
		int isfail = strncmp(d->head[i], "First error", 11) == 0;

		kd_put(row++, x + 2, iw, d->head[i], isfail ? kd_attr(KD_C_FAILED) : A_NORMAL, 0);
	}
	if (d->lines == NULL || d->nlines == 0)
		snprintf(t, sizeof t, " Log excerpt: %s ", d->note[0] ? d->note : "(empty)");
	else
		snprintf(t, sizeof t, " Log excerpt: lines %d-%d of %d%s ", d->top + 1,
			 d->top + (y + h - 1 - row - 1 < d->nlines - d->top
				   ? y + h - 1 - row - 1 : d->nlines - d->top),
			 d->nlines, d->truncated ? " (file cut at 4 MiB)" : "");
	kd_hline(row, x + 1, w - 2, kd_attr(KD_C_BORDER));
	kd_put(row++, x + 2, iw, t, A_BOLD, 0);
	rows = y + h - 1 - row;
	for (i = 0; i < rows && d->lines != NULL && d->top + i < d->nlines; i++) {
		int ln = d->top + i;
		const char *s = d->lines[ln];
		attr_t a = ln == d->match ? kd_attr(KD_C_MATCH) : A_NORMAL;

		kd_put(row + i, x + 2, iw, s, a, 1);
	}
	kd_keybar_draw(scr, LINES - 1, KD_KC_DETAIL);
}

/* The rows of the excerpt area for the current size. */
static int
detail_rows(const struct detail *d)
{
	int head = d->nhead < LINES - 9 ? d->nhead : LINES - 9;   /* as detail_draw */

	return LINES - 2 - 2 - head - 1;
}

/* Next line matching the search, from line `from`, wrapping around. */
static void
detail_find(struct kd_screen *scr, struct detail *d, int from)
{
	for (int k = 0; k < d->nlines; k++) {
		int i = (from + k) % d->nlines;

		if (textw_search(d->lines[i], d->search) != NULL) {
			d->match = i;
			d->top = i - 3 < 0 ? 0 : i - 3;
			return;
		}
	}
	kd_frame_message(scr, KD_C_WARN, "\"%s\" is not in the excerpt.", d->search);
}

static void
detail_search(struct kd_screen *scr, struct detail *d)
{
	struct kd_lineedit le;

	if (d->nlines == 0)
		return;
	memset(&le, 0, sizeof le);
	le.title = "Search the log excerpt";
	le.label = "Text to find (case does not matter)";
	le.text = d->search;
	if (!kd_lineedit_run(scr, &le))
		return;
	snprintf(d->search, sizeof d->search, "%s", le.text);
	free(le.text);
	if (d->search[0] != '\0')
		detail_find(scr, d, d->match >= 0 ? d->match + 1 : d->top);
}

static void
detail_scroll(struct detail *d, int action, int rows)
{
	switch (action) {
	case KD_A_UP: d->top--; break;
	case KD_A_DOWN: d->top++; break;
	case KD_A_PGUP: d->top -= rows; break;
	case KD_A_PGDN: d->top += rows; break;
	case KD_A_HOME: d->top = 0; break;
	case KD_A_END: d->top = d->nlines - rows; break;
	}
	if (d->top > d->nlines - rows)
		d->top = d->nlines - rows;
	if (d->top < 0)
		d->top = 0;
}

unsigned
kd_detail_run(struct kd_screen *scr, size_t index)
{
	struct detail d;
	unsigned flags = KD_HANDLED | KD_REDRAW;

	memset(&d, 0, sizeof d);
	d.row = kd_screen_row(scr, index, &d.is_check);
	if (d.row == NULL)
		return flags;
	detail_load(&d, scr);
	detail_head(&d, scr, COLS - 4);
	detail_start(&d, detail_rows(&d));
	for (;;) {
		int key, a;

		scr->msg[0] = '\0';
		detail_draw(scr, &d);
		key = kd_tui_key(scr, 1);
		if (key < 0)
			break;
		if (key == 0 || key == KD_K_RESIZE)
			continue;
		a = kd_key_action(KD_KC_DETAIL, key);
		if (a == KD_A_CLOSE || kd_key_action(KD_KC_MAIN, key) == KD_A_QUIT)
			break;
		if (!scr->g.full)
			continue;
		if (a == KD_A_HELP)
			kd_help_run(scr);
		else if (a == KD_A_PAGER && d.path != NULL)
			kd_open_pager(scr, d.path);
		else if (a == KD_A_SEARCH)
			detail_search(scr, &d);
		else if (a == KD_A_SEARCH_NEXT && d.search[0] != '\0')
			detail_find(scr, &d, d.match + 1);
		else if (a == KD_A_DETAIL_DEV && d.is_check && !scr->ctx->readonly) {
			flags |= kd_dialog_deviation(scr, d.row);
			if (flags & KD_SAVE)
				kd_frame_save(scr);
		} else
			detail_scroll(&d, a, detail_rows(&d));
	}
	kd_wrap_free(d.head, d.nhead);
	free(d.lines);
	free(d.buf);
	free(d.path);
	return flags & ~KD_SAVE;
}
