/*
 * frame.c - the walkthrough: one stage screen at a time inside a frame made
 * of the title bar, the stage column, the message line and the key bar
 * (drawn by draw.c).
 *
 * The loop is: draw everything from the model, read a key, give it to the
 * stage screen's key() and then to the frame's own table, and act on the
 * flags that come back (KD_RUN, KD_NEXT, KD_SAVE...).  Only the frame saves,
 * advances and runs stages.  Resizing is handled here only
 * (kd_frame_layout); below 80x24 the notice replaces the layout.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernodeck/cmd.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fleet.h"
#include "kernodeck/frame.h"
#include "kernodeck/lock.h"
#include "kernodeck/runner.h"
#include "kernodeck/screen.h"
#include "kernodeck/state.h"
#include "kernodeck/termcheck.h"
#include "kernodeck/textw.h"

#define KD_SCREEN_OPS_(id, file, keys) &kd_screen_##id,
const struct kd_screen_ops *const kd_screens[KD_NSTAGES] = { KD_STAGE_LIST(KD_SCREEN_OPS_) };

void
kd_frame_message(struct kd_screen *scr, enum kd_color c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(scr->msg, sizeof scr->msg, fmt, ap);
	va_end(ap);
	scr->msg_color = c;
}

int
kd_frame_save(struct kd_screen *scr)
{
	struct kd_err err;
	char buf[1400];

	if (scr->ctx->readonly)
		return 0;
	kd_err_clear(&err);
	if (kd_ctx_save_state(scr->ctx, &err) != 0) {
		kd_frame_message(scr, KD_C_ERROR, "Could not save the state: %s",
				 kd_err_format(&err, buf, sizeof buf));
		return err.code ? err.code : KD_EENV;
	}
	return 0;
}

void
kd_frame_error_box(struct kd_screen *scr, const char *title, const struct kd_err *err)
{
	char buf[1400];

	kd_dialog_message(scr, title, kd_err_format(err, buf, sizeof buf), KD_C_FAILED);
}

/* Geometry of every part, from the terminal size and the stage. */
void
kd_frame_layout(struct kd_screen *scr)
{
	struct kd_geom *g = &scr->g;
	int rem, fh = 0, nf = (int)scr->stage->nfields;

	memset(g, 0, sizeof *g);
	g->rows = LINES;
	g->cols = COLS;
	g->full = LINES >= KD_MIN_ROWS && COLS >= KD_MIN_COLS;
	if (!g->full)
		return;
	g->left_w = COLS >= 120 ? 24 : 20;
	g->rx = g->left_w + 1;
	g->rw = COLS - g->rx - 1;
	g->body_y = 1;
	g->body_h = LINES - 3;
	g->msg_y = LINES - 2;
	g->bar_y = LINES - 1;
	/* after the stage's own header line; a running stage's log, or the
	 * log pane in focus, takes half the room */
	rem = g->body_h - 1;
	g->log_h = scr->log.running || scr->focus == KD_FOCUS_LOG ? rem / 2 : rem / 5;
	if (g->log_h < 3)
		g->log_h = 3;
	rem -= g->log_h + 1;
	if (nf > 0) {
		fh = scr->log.running ? rem / 4 : rem * 2 / 5;
		if (fh > nf)
			fh = nf;
		if (fh < 1)
			fh = 1;
		g->fields_y = g->body_y + 2;
		g->fields_h = fh;
		rem -= fh + 1;
	}
	g->checks_y = g->body_y + 1 + (nf > 0 ? fh + 1 : 0) + 2;
	g->checks_h = rem - 2;
	g->log_y = g->checks_y + g->checks_h + 1;
}

size_t
kd_screen_nrows(const struct kd_screen *scr)
{
	return scr->ctx->state.st[scr->idx].rows.n + scr->info.n;
}

const struct kd_row *
kd_screen_row(const struct kd_screen *scr, size_t i, int *is_check)
{
	const struct kd_rows *rows = &scr->ctx->state.st[scr->idx].rows;

	if (i < rows->n) {
		if (is_check)
			*is_check = 1;
		return &rows->v[i];
	}
	i -= rows->n;
	if (is_check)
		*is_check = 0;
	return i < scr->info.n ? &scr->info.v[i] : NULL;
}

/* Describe rows from the saved observations of the stage, if any. */
static void
frame_describe(struct kd_screen *scr)
{
	struct kd_result res;
	json_t *obs;

	kd_rows_free(&scr->info);
	if (scr->stage->describe == NULL || (obs = kd_ctx_obs(scr->ctx, scr->idx)) == NULL)
		return;
	kd_result_init(&res);
	res.obs = json_incref(obs);
	scr->stage->describe(&res, &scr->info);
	kd_result_free(&res);
}

/* Show stage i. */
static void
frame_enter(struct kd_screen *scr, int i)
{
	if (scr->ops != NULL && scr->ops->leave != NULL)
		scr->ops->leave(scr);
	if (i < 0)
		i = 0;
	if (i >= KD_NSTAGES)
		i = KD_NSTAGES - 1;
	scr->idx = i;
	scr->ops = kd_screens[i];
	scr->stage = kd_stages[i];
	scr->sel_field = scr->top_field = 0;
	scr->sel_check = scr->top_check = 0;
	kd_log_clear(&scr->log);
	frame_describe(scr);
	scr->focus = scr->stage->nfields > 0 && scr->ctx->state.st[i].rows.n == 0
		? KD_FOCUS_FIELDS : KD_FOCUS_CHECKS;
	if (scr->ops->enter != NULL)
		scr->ops->enter(scr);
	kd_frame_layout(scr);
}

/* Move the selection of the focused pane. */
static unsigned
frame_move(struct kd_screen *scr, int action)
{
	int *sel, n, page;

	switch (scr->focus) {
	case KD_FOCUS_FIELDS:
		sel = &scr->sel_field;
		n = (int)scr->stage->nfields;
		page = scr->g.fields_h;
		break;
	case KD_FOCUS_CHECKS:
		sel = &scr->sel_check;
		n = (int)kd_screen_nrows(scr);
		page = scr->g.checks_h;
		break;
	default:
		n = (int)scr->log.n;
		page = scr->g.log_h;
		switch (action) {
		case KD_A_UP: scr->log.scroll++; break;
		case KD_A_DOWN: scr->log.scroll--; break;
		case KD_A_PGUP: scr->log.scroll += page; break;
		case KD_A_PGDN: scr->log.scroll -= page; break;
		case KD_A_HOME: scr->log.scroll = n; break;
		case KD_A_END: scr->log.scroll = 0; break;
		}
		if (scr->log.scroll > n - page)
			scr->log.scroll = n - page;
		if (scr->log.scroll < 0)
			scr->log.scroll = 0;
		return KD_HANDLED | KD_REDRAW;
	}
	switch (action) {
	case KD_A_UP: (*sel)--; break;
	case KD_A_DOWN: (*sel)++; break;
	case KD_A_PGUP: *sel -= page; break;
	case KD_A_PGDN: *sel += page; break;
	case KD_A_HOME: *sel = 0; break;
	case KD_A_END: *sel = n - 1; break;
	}
	if (*sel >= n)
		*sel = n - 1;
	if (*sel < 0)
		*sel = 0;
	return KD_HANDLED | KD_REDRAW;
}

static unsigned
frame_focus(struct kd_screen *scr, int dir)
{
	int f = (int)scr->focus;

	do
		f = (f + dir + KD_FOCUS__COUNT) % KD_FOCUS__COUNT;
	while (f == KD_FOCUS_FIELDS && scr->stage->nfields == 0);
	scr->focus = (enum kd_focus)f;
	return KD_HANDLED | KD_REDRAW;
}

/* The selected row of the checks table when it is a check (not info). */
static const struct kd_row *
selected_check(struct kd_screen *scr)
{
	int is_check = 0;
	const struct kd_row *r;

	if (kd_screen_nrows(scr) == 0)
		return NULL;
	r = kd_screen_row(scr, (size_t)scr->sel_check, &is_check);
	return is_check ? r : NULL;
}

static int
refuse_readonly(struct kd_screen *scr)
{
	if (!scr->ctx->readonly)
		return 0;
	kd_frame_message(scr, KD_C_WARN, "Read-only: %s",
			 scr->lock_note[0] ? scr->lock_note : "another kernodeck holds the lock");
	return 1;
}

static unsigned
frame_deviate(struct kd_screen *scr)
{
	const struct kd_row *r = selected_check(scr);

	if (refuse_readonly(scr))
		return KD_HANDLED;
	if (r == NULL) {
		kd_frame_message(scr, KD_C_WARN, "Select a failing check in the checks "
				 "table (Tab), then press d to record a deviation.");
		return KD_HANDLED;
	}
	return kd_dialog_deviation(scr, r);
}

static unsigned
frame_open(struct kd_screen *scr)
{
	if (scr->focus == KD_FOCUS_FIELDS && scr->stage->nfields > 0) {
		if (refuse_readonly(scr))
			return KD_HANDLED;
		return kd_form_edit(scr, scr->sel_field);
	}
	if (scr->focus == KD_FOCUS_CHECKS && kd_screen_nrows(scr) > 0)
		return kd_detail_run(scr, (size_t)scr->sel_check);
	return KD_HANDLED;
}

static unsigned
frame_edit(struct kd_screen *scr)
{
	if (scr->stage->nfields == 0) {
		kd_frame_message(scr, KD_C_WARN, "This stage has no fields to edit%s.",
				 scr->idx == 0 ? "" : " (E opens reference.yaml)");
		return KD_HANDLED;
	}
	if (refuse_readonly(scr))
		return KD_HANDLED;
	scr->focus = KD_FOCUS_FIELDS;
	return kd_form_edit(scr, scr->sel_field);
}

/* A stage action bound to key, run with the log pane as its sink. */
static unsigned
frame_action(struct kd_screen *scr, int key)
{
	const struct kd_action *a = NULL;
	const struct kd_row *r;
	struct kd_sink sink;
	struct kd_err err;
	char buf[1400];

	for (size_t i = 0; i < scr->stage->nactions; i++)
		if (scr->stage->actions[i].key == key && !kd_key_reserved(key))
			a = &scr->stage->actions[i];
	if (a == NULL || a->run == NULL)
		return 0;
	if (refuse_readonly(scr))
		return KD_HANDLED;
	r = kd_screen_nrows(scr) > 0 ? kd_screen_row(scr, (size_t)scr->sel_check, NULL) : NULL;
	kd_log_clear(&scr->log);
	snprintf(scr->log.title, sizeof scr->log.title, "%s", a->label);
	scr->log.running = 1;
	scr->log.t_start = kd_now();
	scr->cancel = 0;
	kd_log_sink(scr, &sink);
	kd_frame_layout(scr);
	kd_err_clear(&err);
	int rc = a->run(scr->ctx, r ? r->id : NULL, &sink, &err);
	scr->log.running = 0;
	scr->log.t_end = kd_now();
	if (rc != 0) {
		kd_err_format(&err, buf, sizeof buf);
		kd_log_add(&scr->log, buf, strlen(buf));
		kd_frame_message(scr, KD_C_ERROR, "%s: %s", a->label, buf);
	} else {
		kd_frame_message(scr, KD_C_OK, "%s: done.", a->label);
	}
	return KD_HANDLED | KD_SAVE | KD_DESCRIBE | KD_REDRAW;
}

/* The frame's own keys. */
static unsigned
frame_key(struct kd_screen *scr, int key, int action)
{
	switch (action) {
	case KD_A_UP: case KD_A_DOWN: case KD_A_PGUP: case KD_A_PGDN:
	case KD_A_HOME: case KD_A_END:
		return frame_move(scr, action);
	case KD_A_FOCUS: return frame_focus(scr, 1);
	case KD_A_FOCUS_BACK: return frame_focus(scr, -1);
	case KD_A_OPEN: return frame_open(scr);
	case KD_A_EDIT: return frame_edit(scr);
	case KD_A_NA:
		if (scr->focus != KD_FOCUS_FIELDS || scr->stage->nfields == 0 ||
		    refuse_readonly(scr))
			return KD_HANDLED;
		return kd_form_toggle_na(scr, scr->sel_field);
	case KD_A_RUN: return KD_HANDLED | KD_RUN;
	case KD_A_DEVIATE: return frame_deviate(scr);
	case KD_A_PREV: return KD_HANDLED | KD_PREV;
	case KD_A_NEXT: return KD_HANDLED | KD_NEXT;
	case KD_A_QUIT: return KD_HANDLED | KD_QUIT;
	case KD_A_NOTE: return kd_dialog_notes(scr);
	case KD_A_EDITREF:
		if (refuse_readonly(scr))
			return KD_HANDLED;
		return kd_edit_reference(scr);
	case KD_A_HELP: kd_help_run(scr); return KD_HANDLED | KD_REDRAW;
	case KD_A_REDRAW: clearok(curscr, TRUE); return KD_HANDLED | KD_REDRAW;
	case KD_A_CLOSE: scr->msg[0] = '\0'; return KD_HANDLED;
	default:
		return frame_action(scr, key);
	}
}

/* Run the current stage's checks with the log pane as the sink. */
static void
frame_run(struct kd_screen *scr)
{
	struct kd_rows info = { 0 };
	struct kd_sink sink;
	struct kd_err err;
	char buf[1400];
	int rc;

	if (refuse_readonly(scr))
		return;
	if (scr->ref_broken) {
		kd_frame_message(scr, KD_C_ERROR, "Fix reference.yaml with E before running "
				 "checks: it does not load (%s)", scr->ref_error);
		return;
	}
	kd_log_clear(&scr->log);
	snprintf(scr->log.title, sizeof scr->log.title, "%s checks", scr->stage->title);
	scr->log.running = 1;
	scr->log.t_start = kd_now();
	scr->cancel = 0;
	kd_log_sink(scr, &sink);
	kd_frame_layout(scr);
	kd_frame_draw(scr);
	refresh();
	kd_err_clear(&err);
	rc = stage_run(scr->ctx, scr->idx, &sink, &info, &err);
	scr->log.running = 0;
	scr->log.t_end = kd_now();
	scr->focus = KD_FOCUS_CHECKS;
	kd_frame_layout(scr);
	kd_rows_free(&scr->info);
	scr->info = info;
	if (scr->sel_check >= (int)kd_screen_nrows(scr))
		scr->sel_check = 0;
	if (rc != 0) {
		kd_err_format(&err, buf, sizeof buf);
		kd_log_add(&scr->log, buf, strlen(buf));
		kd_frame_message(scr, KD_C_ERROR, "%s", buf);
	} else if (scr->cancel) {
		kd_frame_message(scr, KD_C_WARN, "Cancelled.");
	} else {
		enum kd_status s = scr->ctx->state.st[scr->idx].status;

		kd_frame_message(scr, kd_status_color(s) == KD_C_PENDING ? KD_C_NORMAL
				 : kd_status_color(s), "%s: %s.", scr->stage->title,
				 kd_status_name(s));
	}
}

/* Go to the next stage when the advance rule allows it. */
static void
frame_next(struct kd_screen *scr)
{
	char why[1024];

	if (scr->idx >= KD_NSTAGES - 1) {
		kd_frame_message(scr, KD_C_NORMAL, "This is the last stage.");
		return;
	}
	if (!stage_can_advance(&scr->ctx->state, scr->idx, why, sizeof why)) {
		kd_dialog_notice(scr, "Cannot go to the next stage yet", why, KD_C_FAILED);
		return;
	}
	frame_enter(scr, scr->idx + 1);
	scr->ctx->state.current = scr->idx;
	kd_frame_save(scr);
}

static void
frame_prev(struct kd_screen *scr)
{
	if (scr->idx == 0) {
		kd_frame_message(scr, KD_C_NORMAL, "This is the first stage.");
		return;
	}
	frame_enter(scr, scr->idx - 1);
	scr->ctx->state.current = scr->idx;
	kd_frame_save(scr);
}

static void
frame_apply(struct kd_screen *scr, unsigned flags)
{
	if (flags & KD_SAVE)
		kd_frame_save(scr);
	if (flags & KD_DESCRIBE)
		frame_describe(scr);
	if (flags & KD_RUN)
		frame_run(scr);
	if (flags & KD_PREV)
		frame_prev(scr);
	if (flags & KD_NEXT)
		frame_next(scr);
	if (flags & KD_QUIT)
		scr->quit = 1;
	kd_frame_layout(scr);
}

/* One key on the stage screen. */
static void
frame_dispatch(struct kd_screen *scr, int key)
{
	int action;
	unsigned flags = 0;

	if (key == KD_K_RESIZE) {
		kd_frame_layout(scr);
		return;
	}
	scr->msg[0] = '\0';
	action = kd_key_action(KD_KC_MAIN, key);
	if (!scr->g.full) {
		if (action == KD_A_QUIT)
			scr->quit = 1;
		return;
	}
	if (scr->ops->key != NULL)
		flags = scr->ops->key(scr, key, action);
	if (!(flags & KD_HANDLED))
		flags |= frame_key(scr, key, action);
	if (!(flags & KD_HANDLED) && key > 0)
		kd_frame_message(scr, KD_C_DIM, "That key does nothing here: ? lists the keys.");
	frame_apply(scr, flags);
}

/* One key, keeping the message already on the line (the reference read
 * again) when the key says nothing itself. */
static void
frame_dispatch_keep(struct kd_screen *scr, int key)
{
	char keep[sizeof scr->msg];
	enum kd_color color = scr->msg_color;

	memcpy(keep, scr->msg, sizeof keep);
	frame_dispatch(scr, key);
	if (scr->msg[0] == '\0') {
		memcpy(scr->msg, keep, sizeof keep);
		scr->msg_color = color;
	}
}

/* Who holds the lock, for the read-only notice. */
static void
frame_lock_note(struct kd_screen *scr)
{
	struct kd_lock_holder h;

	if (!scr->ctx->readonly)
		return;
	if (lock_holder(scr->ctx->state_dir, &h) == 0)
		snprintf(scr->lock_note, sizeof scr->lock_note,
			 "read-only: %s@%s (pid %ld) holds the lock since %s",
			 h.user, h.host, h.pid, h.since);
	else
		snprintf(scr->lock_note, sizeof scr->lock_note,
			 "read-only: the kernodeck folder cannot be written");
}

static int
check_terminal(void)
{
	if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
		return 0;
	fprintf(stderr, "kernodeck: the walkthrough needs a terminal, and standard %s "
		"is not one.\n"
		"For a run without a terminal (CI, scripts, cluster jobs), use:\n"
		"  kernodeck check [DIR]\n", isatty(STDIN_FILENO) ? "output" : "input");
	return KD_EINPUT;
}

int
tui_main(const char *project_dir, const char *state_dir, const char *python)
{
	static struct kd_screen scr;
	struct kd_ctx ctx;
	struct kd_runner run;
	struct kd_err err;
	char buf[1400];
	int rc;

	if ((rc = check_terminal()) != 0)
		return rc;
	memset(&ctx, 0, sizeof ctx);
	kd_err_clear(&err);
	if (kd_tui_check_term(&err) != 0) {
		fprintf(stderr, "kernodeck: %s\n", kd_err_format(&err, buf, sizeof buf));
		return err.code;
	}
	if (kd_ctx_open(&ctx, project_dir ? project_dir : ".", state_dir,
			KD_LOCK_READONLY_OK, &err) != 0) {
		fprintf(stderr, "kernodeck: %s\n", kd_err_format(&err, buf, sizeof buf));
		if (err.code == KD_EINPUT && err.file[0] != '\0')
			fprintf(stderr, "kernodeck: nothing was changed: fix %s and start again\n",
				err.file);
		kd_ctx_close(&ctx);
		return err.code ? err.code : KD_EINPUT;
	}
	ctx.python_override = python;
	if (kd_tui_init(&err) != 0) {
		fprintf(stderr, "kernodeck: %s\n", kd_err_format(&err, buf, sizeof buf));
		kd_ctx_close(&ctx);
		return err.code;
	}
	runner_begin(&run, &ctx, 1, fleet_latest);   /* the walkthrough goes on through the stages */
	memset(&scr, 0, sizeof scr);
	scr.ctx = &ctx;
	frame_lock_note(&scr);
	frame_enter(&scr, ctx.state.current);
	if (ctx.readonly)
		kd_frame_message(&scr, KD_C_WARN, "%s", scr.lock_note);
	while (!scr.quit && !kd_tui_signalled()) {
		int key;

		kd_frame_draw(&scr);
		refresh();
		key = kd_tui_getkey(1000);
		/* reference.yaml changed by another editor: read before any key
		 * acts on it (r runs against the new one, as after E) */
		if (kd_ctx_ref_moved(&ctx)) {
			frame_apply(&scr, kd_reference_reread(&scr, " outside the walkthrough"));
			if (key >= 0)
				frame_dispatch_keep(&scr, key);
		} else if (key >= 0) {
			frame_dispatch(&scr, key);
		}
	}
	/* what is not saved yet (stale marks found at open, anything a key
	 * changed without saving) is saved here; a state that says what
	 * state.yaml says is not written again */
	if (kd_ctx_state_changed(&ctx))
		kd_frame_save(&scr);
	kd_tui_end();
	if (scr.ops && scr.ops->leave)
		scr.ops->leave(&scr);
	kd_rows_free(&scr.info);
	kd_log_free(&scr.log);
	runner_end(&run);
	kd_ctx_close(&ctx);
	return KD_EXIT_OK;
}

int
cmd_walkthrough(int argc, char **argv)
{
	const struct kd_cmd_entry *e = &kd_cmd_walkthrough;
	const char *dir = NULL, *state_dir = NULL, *python = NULL;
	int c;

	cmd_getopt_reset();
	while ((c = cmd_getopt(e, argc, argv)) != -1) {
		switch (c) {
		case 's': state_dir = optarg; break;
		case 'p': python = optarg; break;
		case KD_CMD_HELP: return cmd_help(e);
		default: return cmd_usage_error(e, NULL);
		}
	}
	if (argc - optind > 1)
		return cmd_usage_error(e, "one project folder at most (got \"%s\" and \"%s\")",
				       argv[optind], argv[optind + 1]);
	if (optind < argc)
		dir = argv[optind];
	return tui_main(dir ? dir : ".", state_dir, python);
}
