/*
 * metrics.h - reading a training run's metrics file (JSON Lines, one object
 * per step: {"step": N, "loss": x, ...}) for the resume check (resume.h).
 *
 * The reader is strict, because a trajectory that is silently shorter or
 * has a step twice compares wrong: steps are whole numbers that follow one
 * another by 1 (a gap, a repeat or a step going back is an error), every
 * compared key is there and is a finite number (NaN, Infinity and -Infinity,
 * which Python's json writes, are errors naming the key), a line that is
 * not a JSON object is an error; only the last line may be cut off (no
 * newline) and is then dropped with a note, as a killed run leaves it.
 * With restart_after R > 0 (the file of a resumed run), one restart is
 * allowed: a step R+1 after a later step starts the resumed part, and the
 * records it supersedes are dropped.  Every error names the file and the
 * line.  The file is capped at KD_CAP_METRICS_FILE, a line at
 * KD_CAP_METRICS_LINE, the keys at METRICS_MAX_KEYS.
 */
#ifndef KD_METRICS_H
#define KD_METRICS_H

#include <stddef.h>

#include "kernodeck/err.h"

#define METRICS_MAX_KEYS 32

struct kd_metrics {
	size_t n;              /* records kept, in step order */
	long long *step;       /* n step numbers */
	size_t nkeys;
	char *keys[METRICS_MAX_KEYS];
	double *v;             /* n * nkeys values, v[i * nkeys + k] */
	size_t *line;          /* n line numbers (1-based) of the records */
	int truncated_last;    /* the last line was cut off and dropped */
	int restarted;         /* restart_after: the resumed part was found */
	size_t dropped;        /* records superseded by the restart */
};

/* Read path; keys are the metric keys wanted (nkeys <= METRICS_MAX_KEYS).
 * Returns 0, or KD_EINPUT with err naming file and line, or KD_EENV when
 * the file cannot be read. */
int metrics_read(const char *path, const char *const *keys, size_t nkeys,
		 long long restart_after, struct kd_metrics *m, struct kd_err *err);
/* A printed-metrics line pattern (resume.metrics_pattern): literal text
 * with {step} (a whole number) and {KEY} (a number: 3.25, -1e-05, nan,
 * inf) for each compared key; a space in the pattern matches any run of
 * blanks, and the pattern may start anywhere in a line ("iter {step}: loss
 * {loss}" matches nanoGPT's "iter 10: loss 3.1234, time 12.34ms").  The
 * first match of a line counts; a line that does not match is not a
 * metric. */
#define METRICS_PATTERN_CAP 256   /* bytes of a pattern */
struct metrics_pattern {
	char text[METRICS_PATTERN_CAP];
	size_t nslots;
	int slot[METRICS_MAX_KEYS + 1];   /* in pattern order: -1 step, else a key's index */
	size_t lit_at[METRICS_MAX_KEYS + 2], lit_len[METRICS_MAX_KEYS + 2];  /* the literal before each slot, and the tail */
};
/* Parse pat for keys; 0, or -1 with why (an unknown {name}, a key missing
 * or twice, no {step}, two placeholders with nothing between them). */
int metrics_pattern_parse(const char *pat, const char *const *keys, size_t nkeys,
			  struct metrics_pattern *p, char *why, size_t len);
/* Match one line: 1 with *step and vals[nkeys] set, else 0. */
int metrics_pattern_match(const struct metrics_pattern *p, const char *line, size_t len,
			  long long *step, double *vals);

/* Index of step in m, or -1. */
long metrics_find(const struct kd_metrics *m, long long step);
void metrics_free(struct kd_metrics *m);

#endif
