/*
 * sample.c - the screen of stage "sample": the entry point on the small sample, and its outputs reread.
 * A thin view: the fields, checks and log are drawn by the frame's default
 * view from kd_stage_sample; when the resume check ran, the right half of
 * the log area shows its two trajectories (screens/plot.c) while no stage
 * runs, the log narrowed to the left half beside it.
 */
#include "config.h"

#include "kernodeck/obs-sample.h"
#include "kernodeck/plot.h"
#include "kernodeck/screen.h"

/* The log area split in two when there is a plot: the log on the left,
 * a rule, the plot on the right; neither draws into the other's columns. */
static void
sample_draw(struct kd_screen *scr)
{
	const json_t *obs = kd_ctx_obs(scr->ctx, scr->idx), *plot;
	const struct kd_geom *g = &scr->g;
	int w, lw;

	kd_screen_draw_default(scr);
	plot = obs_sample_resume_plot(obs);
	if (plot == NULL || scr->log.running || g->log_h < 6 || g->rw < 60)
		return;
	w = g->rw / 2;
	lw = g->rw - w - 1;
	for (int y = g->log_y - 1; y < g->log_y + g->log_h; y++)
		kd_fill(y, g->rx, g->rw, A_NORMAL);
	kd_log_draw(scr, g->log_y - 1, g->rx, g->log_h + 1, lw);
	for (int y = g->log_y - 1; y < g->log_y + g->log_h; y++)
		kd_put(y, g->rx + lw, 1, y == g->log_y - 1 ? "\u252c" : "\u2502", kd_attr(KD_C_BORDER), 0);
	kd_plot_draw(g->log_y, g->rx + lw + 1, g->log_h, w, plot,
		     (long long)obs_sample_resume_trajectory_first_step(obs));
}

const struct kd_screen_ops kd_screen_sample = {
	.stage = &kd_stage_sample,
	.empty_hint = "Not checked yet: press r to run the entry point on the sample and reread its outputs under the comparison rule of the reference (and the resume check, when resume: is declared).",
	.draw = sample_draw,
};
