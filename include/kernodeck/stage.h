/*
 * stage.h - the stages' table and the rules that join them.
 *
 * Every stage is a const struct kd_stage_ops with the same small interface,
 * listed once, in order, in stages.h, which makes kd_stages[] (src/engine/stage.c).
 * The walkthrough and `kernodeck check` both call stage_run() (runner.h),
 * which calls:
 *
 *   gather(ctx, res, sink, err)  observe: fill res->obs (a JSON tree saved
 *                                to the stage's observation file,
 *                                stages.h) and report
 *                                progress and output lines through the sink;
 *   check(ctx, res, err)         judge: append one row per check to res->rows;
 *   describe(res, rows)          optional: informative rows (status INFO)
 *                                summarising the observations for a person.
 *
 * Status of a stage (KD_STATUS_INFO, state.h):
 *
 *   pending    never checked (or checked with an error before any row);
 *   passed     every row is pass, warn or info;
 *   failed     a row is fail and has no deviation;
 *   deviation  every failing row has a deviation recorded;
 *   stale      an input of this or an earlier stage changed after it passed
 *              or deviated: it must be checked again;
 *   cancelled  its last run was cancelled (Ctrl-C, Esc, a signal) before it
 *              finished: the row "stage.cancelled" says so, the rows it
 *              could not judge say "not judged"; it is checked again, never
 *              deviated.
 *
 * The advance rule: the walkthrough (and check) goes past stage i only when
 * stage i is passed or deviation.  Going back is always allowed.  Changing an
 * input of stage i (stage_mark_changed) turns stage i and every later stage
 * that was passed or deviation into stale.
 */
#ifndef KD_STAGE_H
#define KD_STAGE_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"
#include "kernodeck/rows.h"
#include "kernodeck/stages.h"
#include "kernodeck/state.h"


/* An editable field of a stage, addressed by a path in reference.yaml
 * ("code.entry_point") or, with the prefix "settings.", in the state. */
enum kd_field_kind {
	KD_FIELD_TEXT,     /* a string */
	KD_FIELD_CHOICE,   /* one of choices, "|"-separated */
	KD_FIELD_ARGV,     /* an argument vector, edited as a shell-like line */
	KD_FIELD_LIST,     /* a list of items, each with item_fields */
	KD_FIELD_BOOL,
	KD_FIELD_NUMBER,
};

struct kd_field {
	const char *path;
	const char *label;
	enum kd_field_kind kind;
	const char *help;
	const char *choices;                 /* KD_FIELD_CHOICE */
	const struct kd_field *item_fields;  /* KD_FIELD_LIST: relative paths */
	size_t nitem_fields;
};

struct kd_ctx;

/* A stage-specific action offered by its screen and by `kernodeck act`:
 * capture this machine, move an old venv aside, mark a difference
 * intentional, download an item to hash it, write the dossier...
 *
 * `key` is a lowercase letter not used by the frame's keys (see keys.h);
 * `name` is its stable command-line name ("intentional", "move-aside").
 * `arg` is the selected row's id, or NULL; the action says what it wants
 * there: `arg_name` names it for a person ("PACKAGE"; NULL: no argument),
 * `arg_prefix` is the row-id prefix the command puts before the word typed
 * ("contract.diff." + "numpy"), and `arg_required` whether it must be given.
 * `confirm`, when not NULL, is what the action does that a headless run asks
 * about first (it rewrites the project's files, runs programs from a file).
 * The caller saves the state after it, whatever it returned. */
struct kd_action {
	int key;
	const char *name;        /* "capture" */
	const char *label;       /* "capture this machine" */
	int (*run)(struct kd_ctx *ctx, const char *arg, const struct kd_sink *sink,
		   struct kd_err *err);
	const char *arg_name;    /* "PACKAGE", or NULL */
	const char *arg_prefix;  /* "contract.diff.", or NULL */
	int arg_required;
	const char *confirm;     /* "rewrites the files that hold credentials", or NULL */
};

struct kd_stage_ops {
	const char *id;        /* "reference", "system", ... */
	const char *title;     /* "Reference" */
	const char *summary;   /* one line: what the stage gathers or checks */
	int replay;            /* 1: a replay runs it again (src/features/replay.c) */
	const struct kd_field *fields;
	size_t nfields;
	int (*gather)(struct kd_ctx *ctx, struct kd_result *res,
		      const struct kd_sink *sink, struct kd_err *err);
	int (*check)(struct kd_ctx *ctx, struct kd_result *res, struct kd_err *err);
	void (*describe)(const struct kd_result *res, struct kd_rows *rows);
	const struct kd_action *actions;
	size_t nactions;
	/* optional: 1 when what the stage saw at its last check still holds,
	 * as far as a cheap look tells (the commit at HEAD); 0 with why
	 * naming what moved and the check it concerns.  Asked by stage_gate
	 * (runner.h) of a passed or deviated stage only. */
	int (*fresh)(struct kd_ctx *ctx, char *why, size_t len);
};

/* Each stage's ops (src/stages/stage-ID.c), and the ordered table of them,
 * both from the list of stages.h. */
#define KD_STAGE_EXTERN_(id, file, keys) extern const struct kd_stage_ops kd_stage_##id;
KD_STAGE_LIST(KD_STAGE_EXTERN_)
#undef KD_STAGE_EXTERN_
extern const struct kd_stage_ops *const kd_stages[KD_NSTAGES];
/* Index of a stage in the table (its ops, so that a misspelt stage is a
 * compile error, not a -1). */
int stage_pos(const struct kd_stage_ops *ops);

/* --- the rules (src/engine/stage.c) --- */

/* The rows of a run cancelled before it finished: the row
 * "stage.cancelled" added, and each failing row marked not judged (its
 * failure is the cancel's, not the project's). */
void stage_rows_cancelled(struct kd_rows *rows);
/* Store the rows of a run of stage i against reference identity ref_id and
 * compute its status from them and its deviations. */
void stage_apply_rows(struct kd_state *s, int i, const struct kd_rows *rows,
		      const char *ref_id);
/* Recompute stage i's status from its rows and deviations (keeps stale). */
void stage_recompute(struct kd_state *s, int i);
/* 1 when the walkthrough may go past stage i.  Otherwise 0 and why gets a
 * sentence naming the blocking checks and how to record a deviation. */
int stage_can_advance(const struct kd_state *s, int i, char *why, size_t len);
/* The author of the deviations kernodeck records itself ("to fix" until a
 * person records their own for the check). */
#define KD_AUTHOR_AUTOMATIC "kernodeck (automatic)"
/* Does row r of stage i fail the strict rule (check --strict): a warning
 * without a deviation acknowledging it, or a failing or warning check
 * whose deviation kernodeck recorded itself, to fix? */
int stage_row_strict_fails(const struct kd_state *s, int i, const struct kd_row *r);
/* 1 when no row of stage i fails the strict rule; otherwise 0 and why
 * names them and how to acknowledge one. */
int stage_strict_ok(const struct kd_state *s, int i, char *why, size_t len);
/* Record a deviation for check `check` of stage i.  Refuses an empty why,
 * an unknown check, and a check that is not failing (KD_EINPUT).  A second
 * deviation for the same check replaces the first. */
int stage_record_deviation(struct kd_state *s, int i, const char *check,
			   const char *what, const char *why, int intentional,
			   const char *author, struct kd_err *err);
/* A check no deviation may ever cover (a credential in the dossier). */
int stage_never_deviable(const char *check);
/* 0, or KD_EINPUT with err saying why check can never be deviated and what
 * to do instead (the words of deviate and of the walkthrough's d). */
int stage_deviable(const char *check, struct kd_err *err);
/* Take back the deviation of stage i for check (KD_EINPUT when there is
 * none); the stage's status is recomputed. */
int stage_withdraw_deviation(struct kd_state *s, int i, const char *check, struct kd_err *err);
/* Is the deviation for check still needed: its row fails or warns (or the
 * stage is stale, or the row is gone)?  0: its check passes now. */
int stage_deviation_needed(const struct kd_state *s, int i, const char *check);
/* An input of stage i changed: i and every later passed/deviation stage
 * become stale. */
void stage_mark_changed(struct kd_state *s, int i);
/* Add a note to stage i. */
int stage_add_note(struct kd_state *s, int i, const char *text, const char *author,
		   struct kd_err *err);
/* Find the deviation of stage i for check, or NULL. */
const struct kd_deviation *stage_find_deviation(const struct kd_state *s, int i,
						const char *check);
/* The author for deviations and notes: git's user.name, else $USER, else
 * "unknown".  Static buffer. */
const char *kd_author(void);

#endif
