/*
 * resume.h - the resume check of stage 6 (doc/reference-format.md, the
 * `resume:` section): does a training run interrupted and resumed from its
 * checkpoint follow the uninterrupted run, step by step?
 *
 * gather runs the exercise: the uninterrupted run (resume.run with
 * {steps} = steps) into a fresh folder, the interrupted run into another
 * (stop: {steps} = interrupt_at; kill: {steps} = steps and SIGKILL once the
 * checkpoint of step interrupt_at is complete), the checkpoint inventory of
 * that checkpoint (share/ckpt-inventory.py, by the project interpreter),
 * then resume.resume in the second folder; it rereads both metrics files
 * (metrics.h), compares steps interrupt_at+1 .. steps key by key under
 * resume.rule, compares the final checkpoints tensor by tensor, and the
 * uninterrupted trajectory with resume.reference_metrics under
 * resume.reference_rule.  Everything lands in obs.resume (sample.yaml);
 * the rows only judge it.
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
	const char *checkpoint, *metrics;  /* path templates with {out} and {step} */
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

/* The programs of the resume check, in the order they run (the last two
 * only when the checkpoints they read exist). */
enum resume_vec {
	RESUME_V_UNINTERRUPTED,   /* resume.run, {steps} = steps, {out} its own folder */
	RESUME_V_INTERRUPTED,     /* resume.run, stopped or killed at interrupt_at */
	RESUME_V_INVENTORY,       /* the checkpoint reader on that checkpoint */
	RESUME_V_RESUMED,         /* resume.resume, from it */
	RESUME_V_FINAL,           /* the checkpoint reader comparing the final ones */
	RESUME_NV
};
/* What each is, as the plan says it. */
extern const char *const resume_vec_what[RESUME_NV];
/* The argument vector of one program of the resume check, with every
 * placeholder substituted, exactly as resume_gather runs it: project_dir
 * the project (its interpreter, .venv-rebuild/bin/python), kdir the
 * kernodeck folder (the runs' folders are KDIR/resume/uninterrupted and
 * KDIR/resume/interrupted), script the checkpoint reader's path
 * (share/ckpt-inventory.py; NULL for the runs).  NULL-terminated, free
 * with argv_free; NULL when out of memory. */
char **resume_vector(const struct resume_spec *s, enum resume_vec which, const char *project_dir,
		     const char *kdir, const char *script);

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
