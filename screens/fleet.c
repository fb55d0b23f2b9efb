/*
 * fleet.c - the fleet matrix in the walkthrough (stages 2 and 5).
 *
 * When `kernodeck fleet` wrote a fleet folder, entering the system or the
 * compute screen adds one info row, "fleet: 8 nodes, 1 differs", and F opens
 * the matrix of the latest folder: a row per check, a column per node (the
 * cell's status; outliers highlighted), scrolled with the arrows; Enter
 * shows that node's evidence for the check.  The matrix itself is
 * src/features/fleet.c's; this file only draws it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/fleet.h"
#include "kernodeck/screen.h"

#define FLEET_CHECK_W 28
#define FLEET_CELL_W 8

struct fleet_view {
	struct fleet_matrix m;
	int row, col;         /* selected check and node */
	int top, left;        /* first check and node shown */
	char sum[256];
};

static const char *
cell_field(const json_t *row, const char *k)
{
	const char *s = json_string_value(json_object_get(row, k));

	return s ? s : "";
}

static int
is_outlier(const struct fleet_check *c, size_t j)
{
	for (size_t k = 0; k < c->noutliers; k++)
		if (c->outliers[k] == j)
			return 1;
	return 0;
}

static enum kd_color
cell_color(const struct fleet_view *v, const struct fleet_check *c, size_t j)
{
	const char *st = c->cell[j] ? cell_field(c->cell[j], "status") : "";

	if (v->m.nodes[j].status == FLEET_UNREACHABLE || strcmp(st, "fail") == 0)
		return KD_C_FAILED;
	if (is_outlier(c, j))
		return KD_C_MATCH;
	return strcmp(st, "warn") == 0 ? KD_C_WARN : KD_C_PASSED;
}

/* The line under the matrix: how the selected row folds or differs. */
static void
row_summary(const struct fleet_view *v, char *buf, size_t len)
{
	const struct fleet_check *c = &v->m.checks[v->row];
	const json_t *maj = c->majority >= 0 ? c->cell[c->majority] : NULL;

	if (c->noutliers == 0) {
		snprintf(buf, len, "%s: all %zu nodes: %s", c->id, c->agree, cell_field(maj, "observed"));
		return;
	}
	snprintf(buf, len, "%s: %zu outlier%s where %zu nodes have %s", c->id, c->noutliers,
		 c->noutliers == 1 ? "" : "s", c->agree, cell_field(maj, "observed"));
}

static void
view_draw(struct kd_screen *scr, struct fleet_view *v)
{
	int h = LINES - 4, w = COLS - 2, ncols = (w - FLEET_CHECK_W - 1) / FLEET_CELL_W;
	char line[1024];

	if (ncols < 1)
		ncols = 1;
	if (v->row < v->top)
		v->top = v->row;
	if (v->row >= v->top + h - 1)
		v->top = v->row - h + 2;
	if (v->col < v->left)
		v->left = v->col;
	if (v->col >= v->left + ncols)
		v->left = v->col - ncols + 1;
	erase();
	kd_box(0, 0, LINES - 1, COLS, v->sum, kd_attr(KD_C_BORDER));
	kd_put(1, 1, FLEET_CHECK_W, "check", kd_attr(KD_C_HEADER), 1);
	for (int k = 0; k < ncols && v->left + k < (int)v->m.nnodes; k++)
		kd_put(1, 1 + FLEET_CHECK_W + k * FLEET_CELL_W, FLEET_CELL_W - 1,
		       v->m.nodes[v->left + k].name, kd_attr(KD_C_HEADER), 1);
	for (int r = 0; r < h - 1 && v->top + r < (int)v->m.nchecks; r++) {
		const struct fleet_check *c = &v->m.checks[v->top + r];
		kd_put(2 + r, 1, FLEET_CHECK_W - 1, c->id,
		       kd_attr(c->noutliers ? KD_C_WARN : KD_C_NORMAL), 1);
		for (int k = 0; k < ncols && v->left + k < (int)v->m.nnodes; k++) {
			size_t j = (size_t)(v->left + k);
			const char *st = v->m.nodes[j].status == FLEET_UNREACHABLE ? "down" :
				c->cell[j] ? cell_field(c->cell[j], "status") : "-";
			int sel = v->top + r == v->row && (int)j == v->col;
			kd_put(2 + r, 1 + FLEET_CHECK_W + k * FLEET_CELL_W, FLEET_CELL_W - 1, st,
			       kd_attr(sel ? KD_C_SELECTED : cell_color(v, c, j)), 1);
		}
	}
	if (v->m.nchecks > 0) {
		row_summary(v, line, sizeof line);
		kd_put(LINES - 3, 1, w, line, kd_attr(KD_C_INFO), 1);
	}
	kd_put(LINES - 1, 0, COLS, " arrows move   Enter evidence   Esc back", kd_attr(KD_C_KEY), 1);
}

/* Enter: the selected node's row of the selected check, and its file. */
static void
view_evidence(struct kd_screen *scr, const struct fleet_view *v)
{
	const struct fleet_check *c = &v->m.checks[v->row];
	const struct fleet_node *nd = &v->m.nodes[v->col];
	const json_t *r = c->cell[v->col];
	char text[4096], title[256];

	snprintf(title, sizeof title, "%s on %s", c->id, nd->name);
	if (r == NULL)
		snprintf(text, sizeof text, "No row: %s.\n\nNode file: %s/%s.yaml",
			 nd->reason ? nd->reason : "this node did not run this check",
			 v->m.folder, nd->name);
	else
		snprintf(text, sizeof text, "status: %s%s\nobserved: %s\nexpected: %s\n%s%s\n"
			 "Node file: %s/%s.yaml", cell_field(r, "status"),
			 is_outlier(c, (size_t)v->col) ? " (differs from the other nodes)" : "",
			 cell_field(r, "observed"), cell_field(r, "expected"),
			 *cell_field(r, "first_error") ? "first error: " : "",
			 cell_field(r, "first_error"), v->m.folder, nd->name);
	kd_dialog_message(scr, title, text, KD_C_DIALOG);
}

/* The matrix of the latest fleet folder until Esc. */
static unsigned
fleet_view_run(struct kd_screen *scr)
{
	struct fleet_view v;
	char *folder = fleet_latest(scr->ctx->state_dir);
	const char *job;

	memset(&v, 0, sizeof v);
	if (folder == NULL) {
		kd_frame_message(scr, KD_C_DIM, "No fleet result here: run kernodeck fleet first.");
		return KD_HANDLED | KD_REDRAW;
	}
	job = strrchr(folder, '/') + 1;
	if (fleet_gather(&v.m, folder, job, NULL, NULL, 0, NULL, NULL) != 0 || v.m.nnodes == 0) {
		kd_frame_message(scr, KD_C_FAILED, "The fleet folder %s cannot be read.", folder);
		fleet_matrix_free(&v.m);
		free(folder);
		return KD_HANDLED | KD_REDRAW;
	}
	snprintf(v.sum, sizeof v.sum, "job %s: ", job);
	fleet_summary(&v.m, v.sum + strlen(v.sum), sizeof v.sum - strlen(v.sum));
	for (;;) {
		int key, a;
		view_draw(scr, &v);
		key = kd_tui_key(scr, 0);
		if (key < 0)
			break;
		a = kd_key_action(KD_KC_ANY, key);
		if (a == KD_A_CLOSE || kd_key_action(KD_KC_MAIN, key) == KD_A_QUIT)
			break;
		if (a == KD_A_UP && v.row > 0)
			v.row--;
		else if (a == KD_A_DOWN && v.row + 1 < (int)v.m.nchecks)
			v.row++;
		else if ((key == KD_K_LEFT || key == 'h') && v.col > 0)
			v.col--;
		else if ((key == KD_K_RIGHT || key == 'l') && v.col + 1 < (int)v.m.nnodes)
			v.col++;
		else if (kd_key_action(KD_KC_MAIN, key) == KD_A_OPEN && v.m.nchecks > 0)
			view_evidence(scr, &v);
	}
	fleet_matrix_free(&v.m);
	free(folder);
	return KD_HANDLED | KD_REDRAW;
}

void
kd_fleet_enter(struct kd_screen *scr)
{
	char *folder = fleet_latest(scr->ctx->state_dir), sum[256], obs[4200];
	struct fleet_matrix m;

	if (folder == NULL)
		return;
	if (fleet_gather(&m, folder, strrchr(folder, '/') + 1, NULL, NULL, 0, NULL, NULL) == 0 &&
	    m.nnodes > 0) {
		fleet_summary(&m, sum, sizeof sum);
		snprintf(obs, sizeof obs, "F opens the matrix of fleet/%s", strrchr(folder, '/') + 1);
		struct kd_rows rows = { 0 };
		/* first among the info rows, where it is seen without scrolling */
		kd_rows_add(&rows, "fleet", KD_R_INFO, sum, obs, NULL, NULL);
		for (size_t k = 0; k < scr->info.n; k++) {
			const struct kd_row *r = &scr->info.v[k];
			struct kd_row *c = kd_rows_add(&rows, r->id, r->status, r->label, r->observed,
						       r->expected, r->evidence);
			if (c != NULL && (r->first_error != NULL || r->hint != NULL))
				kd_row_set_error(c, r->first_error, r->hint);
		}
		kd_rows_free(&scr->info);
		scr->info = rows;
	}
	fleet_matrix_free(&m);
	free(folder);
}

unsigned
kd_fleet_key(struct kd_screen *scr, int key, int action)
{
	(void)key;
	return action == KD_A_FLEET ? fleet_view_run(scr) : 0;
}
