/*
 * stage.h - the seven stages, their results and the rules that join them.
 *
 * Every stage is a const struct kd_stage_ops with the same small interface,
 * registered once, in order, in kd_stages[] (src/engine/stage.c).  The walkthrough
 * and `kernodeck check` both call stage_run(), which calls:
 *
 *   gather(ctx, res, sink, err)  observe: fill res->obs (a JSON tree saved
 *                                to the stage's observation file) and report
 *                                progress and output lines through the sink;
 *   check(ctx, res, err)         judge: append one row per check to res->rows;
 *   describe(res, rows)          optional: informative rows (status INFO)
 *                                summarising the observations for a person.
 *
 * Status of a stage (KD_STATUS_INFO):
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

#define KD_NSTAGES 7

/* X(enum, name, mark) -- the status list, its names and its one-char mark. */
#define KD_STATUS_INFO(X) \
	X(KD_ST_PENDING,   "pending",   ' ') \
	X(KD_ST_PASSED,    "passed",    '+') \
	X(KD_ST_FAILED,    "failed",    '!') \
	X(KD_ST_DEVIATION, "deviation", '~') \
	X(KD_ST_STALE,     "stale",     '?') \
	X(KD_ST_CANCELLED, "cancelled", 'x')

#define KD_ST_ENUM(e, n, m) e,
enum kd_status { KD_STATUS_INFO(KD_ST_ENUM) KD_ST__COUNT };
#undef KD_ST_ENUM

/* X(enum, name) -- the status of one check row. */
#define KD_RSTAT_INFO(X) \
	X(KD_R_PASS, "pass") \
	X(KD_R_FAIL, "fail") \
	X(KD_R_WARN, "warn") \
	X(KD_R_INFO, "info")

#define KD_R_ENUM(e, n) e,
enum kd_rstat { KD_RSTAT_INFO(KD_R_ENUM) KD_R__COUNT };
#undef KD_R_ENUM

const char *kd_status_name(enum kd_status s);
char kd_status_mark(enum kd_status s);
int kd_status_parse(const char *name, enum kd_status *out);
const char *kd_rstat_name(enum kd_rstat s);
int kd_rstat_parse(const char *name, enum kd_rstat *out);

/* The row of a stage whose run was cancelled (stage_rows_cancelled). */
#define KD_ROW_CANCELLED "stage.cancelled"

/* One check: a row of the checks table. */
struct kd_row {
	char *id;           /* stable id, used by deviations: "code.clean" */
	enum kd_rstat status;
	char *label;        /* what is checked, for a person: "tree is clean" */
	char *observed;
	char *expected;
	char *evidence;     /* a file under the kernodeck folder, relative, or NULL */
	char *first_error;  /* for a failure: the first error line */
	char *hint;         /* for a failure: what to do */
};

struct kd_rows {
	struct kd_row *v;
	size_t n, cap;
};

/* Append a row; strings are copied (NULL allowed).  Returns the row so
 * that first_error and hint can be set with kd_row_set_error. */
struct kd_row *kd_rows_add(struct kd_rows *rows, const char *id, enum kd_rstat st,
			   const char *label, const char *observed,
			   const char *expected, const char *evidence);
/* printf-style variant for observed. */
struct kd_row *kd_rows_addf(struct kd_rows *rows, const char *id, enum kd_rstat st,
			    const char *label, const char *expected,
			    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void kd_row_set_error(struct kd_row *row, const char *first_error, const char *hint);
/* A failing row with its first error and hint (either may be NULL). */
struct kd_row *kd_rows_fail(struct kd_rows *rows, const char *id, const char *label,
			    const char *observed, const char *expected,
			    const char *first_error, const char *hint);
const struct kd_row *kd_rows_find(const struct kd_rows *rows, const char *id);
void kd_rows_free(struct kd_rows *rows);
void kd_rows_copy(struct kd_rows *dst, const struct kd_rows *src);

/* What a stage produced in one run. */
struct kd_result {
	json_t *obs;          /* observations (owned); saved to ops->obs_file */
	struct kd_rows rows;  /* the checks */
	json_t *record;       /* what the frame records in the state once it has
			       * stored the rows (stage_run): settings and automatic
			       * deviations, asked for by check (kd_result_set,
			       * kd_result_deviate), which changes nothing itself */
};
void kd_result_init(struct kd_result *res);
void kd_result_free(struct kd_result *res);
/* check asks the frame to set the state's setting path to value (stolen). */
void kd_result_set(struct kd_result *res, const char *path, json_t *value);
/* check asks the frame to record a deviation of the stage's failing row check. */
void kd_result_deviate(struct kd_result *res, const char *check, const char *what,
		       const char *why, const char *author);

/* Progress and output, backed by the log pane (walkthrough) or stderr
 * (check).  Any member may be NULL. */
struct kd_sink {
	void (*on_step)(void *u, const char *step, double fraction); /* fraction < 0: unknown */
	void (*on_line)(void *u, const char *line, size_t len);
	int (*cancelled)(void *u);
	void *u;
};
void kd_sink_step(const struct kd_sink *s, const char *step, double fraction);
void kd_sink_line(const struct kd_sink *s, const char *line);
int kd_sink_cancelled(const struct kd_sink *s);
/* An on_step for the headless commands: "  - STEP (N%)" on stderr. */
void kd_sink_print_step(void *u, const char *step, double fraction);

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
	const char *obs_file;  /* observation file under the kernodeck folder, or NULL */
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
	 * of a passed or deviated stage only. */
	int (*fresh)(struct kd_ctx *ctx, char *why, size_t len);
};

extern const struct kd_stage_ops kd_stage_reference, kd_stage_system,
	kd_stage_rebuild, kd_stage_contract, kd_stage_compute, kd_stage_sample,
	kd_stage_dossier;

/* The ordered table. */
extern const struct kd_stage_ops *const kd_stages[KD_NSTAGES];
/* Index of a stage id, or -1. */
int stage_index(const char *id);
/* Index of a stage in the table (its ops, so that a misspelt stage is a
 * compile error, not a -1). */
int stage_pos(const struct kd_stage_ops *ops);
/* The stage ids in table order, joined by sep ("reference, system, ...")
 * into buf; returns buf. */
const char *stage_id_list(char *buf, size_t len, const char *sep);

/* --- the rules (src/engine/stage.c) --- */

struct kd_state;
struct kd_deviation;

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
/* Headless, before stage i runs alone (check --stage): the first earlier
 * stage that failed, is stale or was cancelled, or -1.  A passed or
 * deviated stage whose fresh() says its input moved is marked stale
 * (with every later one) first.  A pending stage does not block: it was
 * never judged.  why names the blocking stage and its checks. */
int stage_gate(struct kd_ctx *ctx, int i, char *why, size_t len);
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
/* Free the strings of one deviation. */
void state_deviation_free(struct kd_deviation *d);
/* Find the deviation of stage i for check, or NULL. */
const struct kd_deviation *stage_find_deviation(const struct kd_state *s, int i,
						const char *check);
/* The author for deviations and notes: git's user.name, else $USER, else
 * "unknown".  Static buffer. */
const char *kd_author(void);

/* Store the rows of check's result res as stage i's, then record in the
 * state what check asked for (res->record: settings, automatic
 * deviations); what stage_run does after check, for an action that judges
 * saved observations again. */
int stage_settle(struct kd_ctx *ctx, int i, const struct kd_result *res,
		 struct kd_err *err);
/* Run stage i: gather, save observations, check, describe; store rows and
 * status in the state and save it.  When gather or check fail, a failing
 * row "stage.error" carries the message into the state.  (To describe
 * saved observations later, call ops->describe on a kd_result whose obs is
 * kd_ctx_obs(ctx, i).)  Returns 0 when the stage ran (whatever
 * its verdict), else the error code (input 2, environment 3). */
int stage_run(struct kd_ctx *ctx, int i, const struct kd_sink *sink,
	      struct kd_rows *info_rows, struct kd_err *err);

#endif
