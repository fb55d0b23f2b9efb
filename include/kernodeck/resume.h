/*
 * resume.h - the resume check of stage 6 (doc/reference-format.md, the
 * `resume:` section): does a training run interrupted and resumed from its
 * checkpoint follow the uninterrupted run, step by step?
 *
 * gather runs the exercise: the uninterrupted run (resume.run with
 * {steps} = steps) into a fresh folder, the interrupted run into another
 * (stop: {steps} = interrupt_at; kill: {steps} = steps and SIGKILL once a
 * complete checkpoint records a step >= interrupt_at, read by the
 * checkpoint reader each time the file changes), the checkpoint inventory
 * of that checkpoint (share/ckpt-inventory.py, by the project
 * interpreter, under a memory limit of its own), then resume.resume in the
 * second folder.  Each run needs the one before: without an interruption
 * that happened and left its checkpoint, obs.resume.not_run says why and
 * nothing after it runs (its rows are "not run", failed, never a pass).  A
 * checkpoint without {step} is the one file the trainer overwrites: the
 * resumed run starts after the step it records (resumed_from).  It rereads
 * both trajectories (metrics.h: a JSON Lines file, or the lines the runs
 * printed, resume.metrics_pattern), compares the steps after resumed_from
 * key by key under resume.rule, compares the final checkpoints tensor by
 * tensor (model first, RNG states as states), and the uninterrupted
 * trajectory with resume.reference_metrics under resume.reference_rule.
 * Everything lands in obs.resume (sample.yaml); the rows only judge it,
 * and a divergence's possible causes are ranked by evidence (what the
 * checkpoint holds, what the script visibly uses, what the trajectory
 * rules out).
 */
#ifndef KD_RESUME_H
#define KD_RESUME_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"
#include "kernodeck/metrics.h"
#include "kernodeck/stage.h"

struct kd_ctx;

#define RESUME_MAX_ARGS    256
#define RESUME_PLOT_POINTS 4096   /* steps of a trajectory kept for the plot */

/* A comparison rule of the resume check: exact, or |a - b| <= atol +
 * rtol * |b| with b the uninterrupted (or the reference) value. */
struct resume_rule {
	int tolerance;
	double atol, rtol;
};

struct resume_spec {
	const json_t *run, *resume;        /* the argument vector templates */
	long long steps, interrupt_at;
	int kill;                          /* interrupt: kill */
	const char *checkpoint, *metrics;  /* path templates with {out} and {step}; metrics
					    * NULL when metrics_pattern is declared */
	const char *metrics_pattern;       /* the printed loss lines, or NULL */
	struct metrics_pattern pattern;
	const char *keys[METRICS_MAX_KEYS];
	size_t nkeys;
	const json_t *rule_tree, *reference_rule_tree;
	struct resume_rule rule, reference_rule;
	const char *reference_metrics;     /* NULL when not declared */
};

/* Read and check ref's resume section; 0, or -1 with why ("resume.run[3]:
 * unknown placeholder {seed}: ...").  1 when there is no resume section. */
int resume_spec_parse(const json_t *ref, struct resume_spec *s, char *why, size_t len);
/* Parse one rule tree ({kind: exact} or tolerance with atol, rtol and a
 * justification); 0, or -1 with why filled. */
int resume_rule_parse(const json_t *t, struct resume_rule *r, char *why, size_t len);
/* Does b (the value compared against) accept a under r? */
int resume_rule_accepts(const struct resume_rule *r, double a, double b);
/* A template with {steps}, {out}, {checkpoint}, {step} replaced (NULL
 * values leave the placeholder); malloc'd. */
char *resume_expand(const char *tpl, const char *steps, const char *out,
		    const char *checkpoint, const char *step);

/* The programs of the resume check, in the order they run: the three runs
 * of the exercise and the checkpoint reader (share/ckpt-inventory.py, run
 * by the project's interpreter) on the checkpoints they leave. */
enum resume_which {
	RESUME_UNINTERRUPTED,   /* resume.run, {steps} = steps, {out} = out_a */
	RESUME_INTERRUPTED,     /* resume.run, {steps} = interrupt_at (stop) or steps (kill), {out} = out_b */
	RESUME_PEEK,            /* kill mode: the reader's step counter of that checkpoint, each time it changes */
	RESUME_INVENTORY,       /* the reader's inventory of that checkpoint (--script: resume.run's .py) */
	RESUME_RESUMED,         /* resume.resume, {steps} = steps, {out} = out_b */
	RESUME_FINAL,           /* the reader comparing the final checkpoints under resume.rule */
	RESUME_NWHICH
};
/* What each is, as replay's plan says it. */
extern const char *const resume_what[RESUME_NWHICH];
/* The argument vector of one program, exactly as the exercise runs it (the
 * conventions of argv.h: NULL-terminated, malloc'd, argv_free; "python" or
 * "python3" first is the project's interpreter); {checkpoint} is the
 * checkpoint of step interrupt_at in out_b, {step} interrupt_at.  reader
 * is the checkpoint reader's path (the last three; NULL gives NULL for
 * them).  NULL when out of memory.  resume_gather runs these vectors and
 * replay's plan shows them. */
char **resume_argv(const char *project_dir, const struct resume_spec *s, enum resume_which which,
		   const char *out_a, const char *out_b, const char *reader);

/* Stage 1's row "resume": the section is well formed, and declared when
 * the goal is training-trajectory. */
void resume_reference_rows(const json_t *ref, struct kd_rows *rows);

/* Stage 6: run the exercise when resume: is declared (or record that it
 * is required and missing) into obs.resume. */
void resume_gather(struct kd_ctx *ctx, const struct kd_sink *sink, json_t *obs);
/* Stage 6: the resume rows from obs.resume; a rule changed after a
 * comparison was seen records a deviation (sample.resume.rule-changed). */
int resume_check_rows(struct kd_ctx *ctx, struct kd_result *res, struct kd_err *err);
/* Stage 6: one informative row per kind of state in the checkpoint
 * (sample.resume.kind.KIND); resume_check_rows adds them, so that every
 * headless format has them. */
void resume_describe_rows(const json_t *obs, struct kd_rows *rows);

/* The phrase for a kind of state a checkpoint lacks ("no torch RNG state:
 * dropout and shuffling restart from the seed"), or NULL. */
const char *resume_missing_phrase(const char *kind, int buffers_only);

#endif
