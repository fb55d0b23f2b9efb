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
#include "kernodeck/rows.h"
#include "kernodeck/stages.h"
#include "kernodeck/yamlio.h"

/* 2: written with the end mark "..." (yamlio YAMLIO_END_MARK), required on
 * load, so that a file cut where the rest still parses is refused; schema 1
 * (earlier kernodeck, no mark) is read and saved again as 2. */
#define KD_STATE_SCHEMA 2

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

const char *kd_status_name(enum kd_status s);
char kd_status_mark(enum kd_status s);
int kd_status_parse(const char *name, enum kd_status *out);

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

/* Free the strings of one deviation. */
void state_deviation_free(struct kd_deviation *d);

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

#endif
