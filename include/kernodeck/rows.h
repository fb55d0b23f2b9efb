/*
 * rows.h - what a stage run yields and how it reports while it runs: the
 * check rows (status, check, observed, expected, evidence), the result of
 * one run (observations, rows, what the runner records for it), and the
 * sink its progress and output go to (the walkthrough's log pane, or
 * stderr for the headless commands).  No stage, state or project here:
 * every floor above reads and writes rows the same way.
 */
#ifndef KD_ROWS_H
#define KD_ROWS_H

#include <stddef.h>
#include <jansson.h>

/* X(enum, name) -- the status of one check row. */
#define KD_RSTAT_INFO(X) \
	X(KD_R_PASS, "pass") \
	X(KD_R_FAIL, "fail") \
	X(KD_R_WARN, "warn") \
	X(KD_R_INFO, "info")

#define KD_R_ENUM(e, n) e,
enum kd_rstat { KD_RSTAT_INFO(KD_R_ENUM) KD_R__COUNT };
#undef KD_R_ENUM

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
			       * stored the rows (stage_run, runner.h): settings and automatic
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

#endif
