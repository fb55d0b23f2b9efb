/*
 * state.h - kernodeck/state.yaml: the walkthrough's memory.
 *
 * The state holds, per stage: its status, the rows of its last check, the
 * reference identity it was checked against and when, its deviations and
 * its notes; and a free-form `settings` tree for the choices stages record
 * (the interpreter chosen, what was done with an old venv, which inventory
 * differences are intentional, ...).  It carries a schema version:
 * KD_STATE_SCHEMA; a file with a newer one is refused, never overwritten.
 *
 * Saving is atomic (fsutil_write_atomic).  Loading refuses a malformed,
 * truncated (no end mark), binary, oversized or newer-schema file with an
 * error naming the file and the line, and leaves the file as it is.
 */
#ifndef KD_STATE_H
#define KD_STATE_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"
#include "kernodeck/stage.h"
#include "kernodeck/yamlio.h"

/* 2: written with the end mark "..." (yamlio YAMLIO_END_MARK), required on
 * load, so that a file cut where the rest still parses is refused; schema 1
 * (earlier kernodeck, no mark) is read and saved again as 2. */
#define KD_STATE_SCHEMA 2

struct kd_deviation {
	char *check;       /* row id */
	char *what;        /* what differs */
	char *why;         /* required, non-empty */
	int intentional;   /* 1: a variant of the reference; 0: to fix */
	char *author;
	char *time;        /* UTC, ISO 8601 */
};

struct kd_note {
	char *text;
	char *author;
	char *time;
};

struct kd_stage_state {
	enum kd_status status;
	struct kd_rows rows;
	char *checked_at;        /* UTC time of the last check, or NULL */
	char checked_ref[65];    /* reference identity it was checked against */
	struct kd_deviation *devs;
	size_t ndevs;
	struct kd_note *notes;
	size_t nnotes;
};

struct kd_state {
	int schema;
	int current;             /* index of the stage shown */
	struct kd_stage_state st[KD_NSTAGES];
	json_t *settings;        /* object, owned */
};

void state_init(struct kd_state *s);
void state_free(struct kd_state *s);
/* Load; a missing file gives a fresh state and returns 0. */
int state_load(const char *path, struct kd_state *s, struct kd_err *err);
/* The same, and *disk gets the tree of the file as read (a new reference;
 * NULL when there was no file or it did not load), for telling later
 * whether the state still says what the file says. */
int state_load_tree(const char *path, struct kd_state *s, json_t **disk,
		    struct kd_err *err);
int state_save(const char *path, const struct kd_state *s, struct kd_err *err);
/* The same; once it is written, *saved (when not NULL) is released and
 * replaced by the tree that was written. */
int state_save_tree(const char *path, const struct kd_state *s, json_t **saved,
		    struct kd_err *err);
/* 1 when s no longer says what disk (a tree from state_load_tree or
 * state_save_tree; NULL: no file) says, so that saving would change the
 * file; 0 when it is the same. */
int state_differs(const struct kd_state *s, const json_t *disk);
/* To and from a tree (used by save/load, the dossier and tests). */
json_t *state_to_json(const struct kd_state *s);
int state_from_json(const json_t *root, const char *path, const struct yamlio_doc *doc,
		    struct kd_state *s, struct kd_err *err);

/* --- the rules (src/stage.c) --- */

/* Store the rows of a run of stage i against reference identity ref_id and
 * compute its status from them and its deviations. */
void stage_apply_rows(struct kd_state *s, int i, const struct kd_rows *rows,
		      const char *ref_id);
/* Recompute stage i's status from its rows and deviations (keeps stale). */
void stage_recompute(struct kd_state *s, int i);
/* 1 when the walkthrough may go past stage i.  Otherwise 0 and why gets a
 * sentence naming the blocking checks and how to record a deviation. */
int stage_can_advance(const struct kd_state *s, int i, char *why, size_t len);
/* Record a deviation for check `check` of stage i.  Refuses an empty why,
 * an unknown check, and a check that is not failing (KD_EINPUT).  A second
 * deviation for the same check replaces the first. */
int stage_record_deviation(struct kd_state *s, int i, const char *check,
			   const char *what, const char *why, int intentional,
			   const char *author, struct kd_err *err);
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

#endif
