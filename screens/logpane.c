/*
 * logpane.c - the live log pane and the sink that feeds it.
 *
 * While a stage runs, stage_run() reports through a kd_sink: on_line adds a
 * line to a ring of the last KD_LOG_LINES lines, on_step sets the step and
 * its progress, and cancelled polls the keyboard without waiting, so that
 * Esc (or Ctrl-C) cancels and a resize redraws.  Redraws are throttled to
 * about twenty a second so that a flood of output costs little.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/screen.h"

void
kd_log_clear(struct kd_logpane *l)
{
	for (size_t i = 0; i < KD_LOG_LINES; i++) {
		free(l->lines[i]);
		l->lines[i] = NULL;
	}
	l->first = l->n = 0;
	l->step[0] = '\0';
	l->fraction = -1;
	l->t_start = l->t_end = 0;
	l->running = 0;
	l->scroll = 0;
	l->title[0] = '\0';
}

void
kd_log_free(struct kd_logpane *l)
{
	kd_log_clear(l);
}

void
kd_log_add(struct kd_logpane *l, const char *line, size_t len)
{
	size_t slot;
	char *copy;

	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	if (len > KD_LOG_LINE_MAX)
		len = KD_LOG_LINE_MAX;
	copy = malloc(len + 1);
	if (copy == NULL)
		return;
	memcpy(copy, line, len);
	copy[len] = '\0';
	/* a carriage return inside a line (progress bars): keep the last part */
	if (strrchr(copy, '\r') != NULL) {
		char *p = strrchr(copy, '\r') + 1;

		memmove(copy, p, strlen(p) + 1);
	}
	if (l->n < KD_LOG_LINES) {
		slot = (l->first + l->n) % KD_LOG_LINES;
		l->n++;
	} else {
		slot = l->first;
		free(l->lines[slot]);
		l->first = (l->first + 1) % KD_LOG_LINES;
	}
	l->lines[slot] = copy;
}

static const char *
log_line(const struct kd_logpane *l, size_t i)
{
	return l->lines[(l->first + i) % KD_LOG_LINES];
}

/* The header: title, step, elapsed time, progress bar. */
static void
log_header(struct kd_screen *scr, int y, int x, int w)
{
	const struct kd_logpane *l = &scr->log;
	char t[512], bar[24];
	double el = l->running ? kd_now() - l->t_start : l->t_end - l->t_start;
	int pos;

	kd_hline(y, x, w, kd_attr(KD_C_BORDER));
	if (l->t_start <= 0) {
		kd_put(y, x + 2, w - 4, " Log ", scr->focus == KD_FOCUS_LOG
		       ? kd_attr(KD_C_HEADER) : A_BOLD, 0);
		return;
	}
	if (!l->running) {
		snprintf(t, sizeof t, " Log: %s \u2502 done in %02d:%02d ", l->title,
			 (int)el / 60, (int)el % 60);
	} else {
		pos = snprintf(t, sizeof t, " Log: %s \u2502 %02d:%02d", l->title,
			       (int)el / 60, (int)el % 60);
		if (l->step[0] != '\0' && pos > 0 && (size_t)pos < sizeof t)
			pos += snprintf(t + pos, sizeof t - (size_t)pos, " \u2502 %s", l->step);
		if (l->fraction >= 0 && pos > 0 && (size_t)pos < sizeof t) {
			int k = (int)(l->fraction * 10 + 0.5);

			if (k > 10)
				k = 10;
			if (k < 0)
				k = 0;
			memset(bar, '#', (size_t)k);
			memset(bar + k, '.', (size_t)(10 - k));
			bar[10] = '\0';
			pos += snprintf(t + pos, sizeof t - (size_t)pos, " [%s] %d%%", bar,
					(int)(l->fraction * 100 + 0.5));
		}
		if (pos > 0 && (size_t)pos < sizeof t)
			snprintf(t + pos, sizeof t - (size_t)pos, " ");
	}
	kd_put(y, x + 2, w - 4, t, l->running || scr->focus == KD_FOCUS_LOG
	       ? kd_attr(KD_C_HEADER) : A_BOLD, 0);
}

void
kd_log_draw(struct kd_screen *scr, int y, int x, int h, int w)
{
	const struct kd_logpane *l = &scr->log;
	int rows = h - 1, i;
	size_t start;

	log_header(scr, y, x, w);
	if (rows <= 0)
		return;
	if (l->n == 0) {
		kd_put(y + 1, x + 2, w - 2, l->t_start > 0 ? "(no output)"
		       : "Output of the commands a stage runs appears here.",
		       kd_attr(KD_C_DIM), 0);
		return;
	}
	start = l->n > (size_t)rows + (size_t)l->scroll ? l->n - (size_t)rows - (size_t)l->scroll : 0;
	for (i = 0; i < rows && start + (size_t)i < l->n; i++)
		kd_put(y + 1 + i, x + 2, w - 3, log_line(l, start + (size_t)i), A_NORMAL, 1);
	if (l->scroll > 0)
		kd_put(y + rows, x + w - 1, 1, "\u2193", kd_attr(KD_C_DIM), 0);
}

/* --- the sink --- */

static double last_draw;

static void
sink_redraw(struct kd_screen *scr, int force)
{
	double now = kd_now();

	if (!force && now - last_draw < 0.05)
		return;
	last_draw = now;
	kd_frame_draw(scr);
	refresh();
}

static void
sink_step(void *u, const char *step, double fraction)
{
	struct kd_screen *scr = u;

	snprintf(scr->log.step, sizeof scr->log.step, "%s", step ? step : "");
	scr->log.fraction = fraction;
	sink_redraw(scr, 0);
}

static void
sink_line(void *u, const char *line, size_t len)
{
	struct kd_screen *scr = u;

	kd_log_add(&scr->log, line, len);
	scr->log.scroll = 0;
	sink_redraw(scr, 0);
}

/* Read pending keys without waiting: Esc cancels, a resize redraws. */
static int
sink_cancelled(void *u)
{
	struct kd_screen *scr = u;
	int key;

	while ((key = kd_tui_getkey(0)) >= 0) {
		if (key == KD_K_RESIZE) {
			kd_frame_layout(scr);
			sink_redraw(scr, 1);
		} else if (key == KD_K_ESC) {
			scr->cancel = 1;
			snprintf(scr->log.step, sizeof scr->log.step, "cancelling");
		}
	}
	if (kd_tui_signalled())
		scr->cancel = 1;
	sink_redraw(scr, 0);
	return scr->cancel;
}

void
kd_log_sink(struct kd_screen *scr, struct kd_sink *sink)
{
	sink->on_step = sink_step;
	sink->on_line = sink_line;
	sink->cancelled = sink_cancelled;
	sink->u = scr;
}
