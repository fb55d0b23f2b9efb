/*
 * bisect.h - `kernodeck bisect` (src/features/bisect.c): why this
 * machine's sample result differs from a dossier's, one layer at a time.
 *
 * In the project, the entry point of stage 6 runs again on the sample,
 * first as this machine has it ("here"), then once per layer with that
 * layer alone set as in the dossier:
 *
 *   env       the run-changing environment variables (runenv.h's list):
 *             the dossier's values set, those it does not record unset
 *   settings  the precision and determinism settings the dossier records
 *   packages  a side venv built from the dossier's lock
 *   data      the dossier's data, checked by digest under --data DIR
 *
 * Each run works in a folder of its own, STATE/bisect/NN-LABEL/work (a
 * copy of the project's files by reflink or copy, never a hard link,
 * without .git, the venv, kernodeck's folder and the outputs), through the step runner
 * (a timeout, a log, nothing left running).  Its outputs are compared
 * with the dossier's bit for bit (tensors element by element, the
 * trajectory step by step, why.h) and under the declared rule: the
 * difference vanishes, shrinks or stays.  Inside a layer whose difference
 * vanishes, halving names the smallest set of variables that makes it
 * vanish; when no layer alone does, the smallest set of the layers that
 * ran that does together (all of them tried first).  The report goes to STATE/bisect/bisect.yaml (atomic), which
 * the dossier includes.
 */
#ifndef KD_BISECT_H
#define KD_BISECT_H

#include <stdio.h>

#include <jansson.h>

#include "kernodeck/err.h"

struct kd_ctx;
struct kd_sink;

enum {
	BISECT_ENV = 1 << 0,
	BISECT_SETTINGS = 1 << 1,
	BISECT_PACKAGES = 1 << 2,
	BISECT_DATA = 1 << 3,
	BISECT_ALL = 0xf,
};

struct bisect_opts {
	const char *dossier;   /* the dossier folder (or its dossier.yaml) */
	const char *data;      /* --data: where the dossier's data is, or NULL */
	unsigned layers;       /* BISECT_* */
	FILE *plan;            /* where the plan and progress go (stderr), or NULL */
	const struct kd_sink *sink;  /* the runs' lines and cancellation, or NULL */
};

/* "env,settings" into BISECT_* bits: 0, or -1 with *bad the first name
 * that is no layer. */
int bisect_parse_layers(const char *list, unsigned *layers, const char **bad, size_t *badlen);

/* Bisect the project of ctx against o->dossier.  0 an explanation found
 * (a layer, or a set of them, makes the difference vanish); KD_EFAIL
 * none does (or there is no difference here: *report says which);
 * KD_EINPUT a dossier, reference or data item that cannot be used, no
 * sample result; KD_EENV a run that could not start, a write that
 * failed.  *report: {dossier, differs, runs: [...], layers: [...],
 * explained_by, ...} whenever the runs were made. */
int bisect_run(struct kd_ctx *ctx, const struct bisect_opts *o, json_t **report,
	       struct kd_err *err);

/* The dossier the project's folder was replayed from (the replay's mark),
 * malloc'd, or NULL. */
char *bisect_last_dossier(const struct kd_ctx *ctx);

/* The report as a table, for a person. */
void bisect_print(FILE *fp, const json_t *report);

#endif
