/*
 * dossier-text.h - the parts of a dossier written for people and shells:
 * README.md and procedure.sh, and the small summaries both use (is this
 * run a variant, every deviation); the credentials to provide are
 * dossier-creds.h's.
 */
#ifndef KD_DOSSIER_TEXT_H
#define KD_DOSSIER_TEXT_H

#include <jansson.h>

struct kd_ctx;

/* README.md for a person (malloc'd). */
char *dossier_readme(const struct kd_ctx *ctx, const json_t *tree);
/* procedure.sh: rebuild, diagnose, run the sample, reread the output
 * (malloc'd). */
char *dossier_procedure(const struct kd_ctx *ctx, const json_t *tree);
/* procedure.sh as a dossier's own files make it: dy is dossier.yaml's
 * tree, ref the dossier's reference (what replay compares the dossier's
 * procedure.sh with; malloc'd). */
char *dossier_procedure_of(const json_t *dy, const json_t *ref);
/* {variant: bool, reasons: [text]}: a run is a variant of the reference
 * when a deviation is intentional. */
json_t *dossier_variant(const struct kd_ctx *ctx);
/* [{stage, check, what, why, intentional, author, time}] */
json_t *dossier_deviations(const struct kd_ctx *ctx);

#endif
