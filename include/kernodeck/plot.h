/*
 * plot.h - a small terminal plot of the resume check's two trajectories
 * (screens/plot.c, curses): one metric against the step, the uninterrupted
 * run as '*', the resumed run as 'o' ('+' where they share a cell), the
 * first diverging step marked by a column of '!' (a shorter legend where the
 * full one does not fit).  It draws only inside
 * the h x w box at (y, x).
 */
#ifndef KD_PLOT_H
#define KD_PLOT_H

#include <jansson.h>

/* plot is obs.resume.plot ({key, uninterrupted: [...], resumed: [...]},
 * value i being step i+1, null where absent); mark_step 0: no divergence. */
void kd_plot_draw(int y, int x, int h, int w, const json_t *plot, long long mark_step);

#endif
