/*
 * sample.c - the screen of stage "sample": the entry point on the small sample, and its outputs reread.
 * A thin view: the fields, checks and log are drawn by the frame's default
 * view from kd_stage_sample; when the resume check ran, the right half of
 * the log area shows its two trajectories (screens/plot.c) while no stage
 * runs, the log narrowed to the left half beside it.  B asks for a dossier
 * (the one the project was replayed from, when it was) and runs the same
 * bisect as `kernodeck bisect DOSSIER`, then shows its table.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/bisect.h"
#include "kernodeck/fsutil.h"
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

static int
validate_dossier(void *u, const char *text, char *error, size_t len)
{
	char *y;
	int ok;

	(void)u;
	if (text == NULL || *text == '\0') {
		snprintf(error, len, "Give the dossier's folder.");
		return 1;
	}
	y = fsutil_join(text, "dossier.yaml");
	ok = y != NULL && fsutil_exists(y);
	free(y);
	if (!ok) {
		snprintf(error, len, "No dossier.yaml in that folder.");
		return 1;
	}
	return 0;
}

static unsigned
bisect_key(struct kd_screen *scr)
{
	struct kd_lineedit le;
	struct bisect_opts o = { .layers = BISECT_ALL };
	struct kd_err err;
	struct kd_sink sink;
	json_t *report = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	int rc;

	if (kd_ctx_obs(scr->ctx, scr->idx) == NULL) {
		kd_frame_message(scr, KD_C_WARN, "No sample result yet: press r first.");
		return KD_HANDLED | KD_REDRAW;
	}
	memset(&le, 0, sizeof le);
	le.title = "Why the sample differs: bisect";
	le.label = "The dossier whose result this sample should give";
	le.help = "The entry point runs again with one layer at a time (env, settings, packages) set "
		  "as in the dossier; this takes a run each.";
	le.text = bisect_last_dossier(scr->ctx);
	le.validate = validate_dossier;
	if (!kd_lineedit_run(scr, &le))
		return KD_HANDLED | KD_REDRAW;
	kd_log_clear(&scr->log);
	snprintf(scr->log.title, sizeof scr->log.title, "bisect against %s", le.text);
	scr->log.running = 1;
	scr->log.t_start = kd_now();
	scr->cancel = 0;
	kd_log_sink(scr, &sink);
	kd_frame_message(scr, KD_C_INFO, "bisect: the entry point runs once per layer (Esc cancels)");
	kd_frame_layout(scr);
	kd_frame_draw(scr);
	refresh();
	kd_err_clear(&err);
	o.dossier = le.text;
	o.sink = &sink;
	rc = bisect_run(scr->ctx, &o, &report, &err);
	scr->log.running = 0;
	scr->log.t_end = kd_now();
	kd_frame_layout(scr);
	if (report == NULL) {
		kd_frame_error_box(scr, "bisect did not run", &err);
		free(le.text);
		return KD_HANDLED | KD_REDRAW;
	}
	if ((m = open_memstream(&text, &len)) != NULL) {
		bisect_print(m, report);
		fclose(m);
	}
	kd_dialog_message(scr, "bisect", text ? text : "(out of memory)",
			  rc == 0 ? KD_C_OK : KD_C_WARN);
	kd_frame_message(scr, rc == 0 ? KD_C_OK : KD_C_WARN, "bisect: %s (kernodeck/bisect/bisect.yaml).",
			 rc == 0 ? "explained" : "no layer explains it");
	free(text);
	json_decref(report);
	free(le.text);
	return KD_HANDLED | KD_REDRAW;
}

static unsigned
sample_key(struct kd_screen *scr, int key, int action)
{
	(void)key;
	if (action == KD_A_BISECT)
		return bisect_key(scr);
	return 0;
}

const struct kd_screen_ops kd_screen_sample = {
	.stage = &kd_stage_sample,
	.empty_hint = "Not checked yet: press r to run the entry point on the sample and reread its outputs under the comparison rule of the reference (and the resume check, when resume: is declared).",
	.draw = sample_draw,
	.key = sample_key,
};
