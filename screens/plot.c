/*
 * plot.c - the trajectories of the resume check drawn in the terminal (see
 * include/kernodeck/plot.h).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernodeck/plot.h"
#include "kernodeck/screen.h"

#define PLOT_AXIS_W 9   /* "%8.3g" and a bar */

/* Smallest and largest finite values of both series; 0 when none. */
static int
plot_range(const json_t *a, const json_t *b, double *lo, double *hi)
{
	const json_t *s[2] = { a, b }, *v;
	size_t i;
	int any = 0;

	for (int k = 0; k < 2; k++)
		json_array_foreach(s[k], i, v) {
			double d = json_number_value(v);
			if (!json_is_number(v) || !isfinite(d))
				continue;
			if (!any || d < *lo)
				*lo = d;
			if (!any || d > *hi)
				*hi = d;
			any = 1;
		}
	if (any && *hi == *lo) {
		*lo -= 0.5;
		*hi += 0.5;
	}
	return any;
}

static void
plot_point(int top, int left, int ph, int pw, size_t i, size_t n, double v, double lo,
	   double hi, int ch, attr_t attr)
{
	int cx = n > 1 ? (int)((double)i * (pw - 1) / (double)(n - 1) + 0.5) : 0;
	int cy = (int)((hi - v) / (hi - lo) * (ph - 1) + 0.5);
	chtype old;

	if (cx < 0 || cx >= pw || cy < 0 || cy >= ph)
		return;
	old = mvinch(top + cy, left + cx) & A_CHARTEXT;
	if ((old == '*' && ch == 'o') || (old == 'o' && ch == '*') || old == '+')
		ch = '+';
	mvaddch(top + cy, left + cx, (chtype)ch | attr);
}

void
kd_plot_draw(int y, int x, int h, int w, const json_t *plot, long long mark_step)
{
	const json_t *a = json_object_get(plot, "uninterrupted"), *b = json_object_get(plot, "resumed");
	const char *key = json_string_value(json_object_get(plot, "key"));
	size_t n = json_array_size(a), i;
	int ph = h - 2, pw = w - PLOT_AXIS_W, left = x + PLOT_AXIS_W, top = y + 1;
	double lo = 0, hi = 0;
	char t[256];

	if (h < 5 || w < PLOT_AXIS_W + 12 || n == 0)
		return;
	for (int r = 0; r < h; r++)
		kd_fill(y + r, x, w, A_NORMAL);
	if (mark_step > 0)
		snprintf(t, sizeof t, "%s by step: * uninterrupted  o resumed  ! step %lld diverges",
			 key ? key : "?", mark_step);
	else
		snprintf(t, sizeof t, "%s by step: * uninterrupted  o resumed  + both", key ? key : "?");
	if ((int)strlen(t) > w)   /* the short legend, beside the log at 120 columns */
		snprintf(t, sizeof t, mark_step > 0 ? "%s: * uninterrupted  o resumed  ! step %lld"
			 : "%s: * uninterrupted  o resumed  + both", key ? key : "?", mark_step);
	kd_put(y, x, w, t, A_BOLD, 1);
	if (!plot_range(a, b, &lo, &hi))
		return;
	snprintf(t, sizeof t, "%8.3g", hi);
	kd_put(top, x, PLOT_AXIS_W - 1, t, kd_attr(KD_C_DIM), 0);
	snprintf(t, sizeof t, "%8.3g", lo);
	kd_put(top + ph - 1, x, PLOT_AXIS_W - 1, t, kd_attr(KD_C_DIM), 0);
	kd_vline(top, left - 1, ph, kd_attr(KD_C_BORDER));
	if (mark_step > 0 && (size_t)mark_step <= n) {
		int cx = n > 1 ? (int)((double)(mark_step - 1) * (pw - 1) / (double)(n - 1) + 0.5) : 0;
		for (int r = 0; r < ph; r++)
			mvaddch(top + r, left + cx, '!' | kd_attr(KD_C_FAILED));
	}
	for (i = 0; i < n; i++) {
		const json_t *va = json_array_get(a, i), *vb = json_array_get(b, i);
		int bad = mark_step > 0 && (long long)i + 1 >= mark_step;

		if (json_is_number(va))
			plot_point(top, left, ph, pw, i, n, json_number_value(va), lo, hi, '*',
				   kd_attr(KD_C_PASSED));
		if (json_is_number(vb))
			plot_point(top, left, ph, pw, i, n, json_number_value(vb), lo, hi, 'o',
				   kd_attr(bad ? KD_C_FAILED : KD_C_INFO));
	}
	snprintf(t, sizeof t, "step 1");
	kd_put(y + h - 1, left, pw, t, kd_attr(KD_C_DIM), 0);
	snprintf(t, sizeof t, "step %zu", n);
	kd_put(y + h - 1, left + pw - (int)strlen(t), (int)strlen(t), t, kd_attr(KD_C_DIM), 0);
}
