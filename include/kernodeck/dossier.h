/*
 * dossier.h - stage 7: the handoff dossier, its secret scan, and the
 * helpers that replay, diff and the demo share.
 *
 * A dossier is a folder (default STATE_DIR/dossier, or --out) written as an
 * immutable snapshot: every file is first gathered in memory (a plan), the
 * plan is scanned for credentials, and only a clean plan is written, into a
 * temporary folder beside the target that is then renamed into place.  An
 * existing dossier is moved aside (dossier.YYYYmmddTHHMMSSZ), never
 * rewritten, and kept as the one backup (KD_DOSSIER_BACKUPS); older backups
 * are removed when kernodeck wrote them and they still verify against their
 * SHA256SUMS, left alone otherwise.  The folder holds:
 *
 *   README.md                  for a person: what was reproduced, the five
 *                              layers (what is kept, how it is checked after
 *                              a rebuild, this run's values), each stage's
 *                              verdict, every deviation, the identity
 *   procedure.sh               rebuild, diagnose, run the sample, reread the
 *                              output: bash, explicit interpreter paths, no
 *                              activation, credentials as required variables
 *   dossier.yaml               all of it, machine-readable (schema
 *                              KD_DOSSIER_SCHEMA)
 *   data-references.yaml       data, weights, parameters, sample, example
 *   project/                   the rebuild file and the reference inventory
 *   outputs/                   the outputs the sample's verdict read (and
 *                              the ids file among them); one over
 *                              KD_CAP_DOSSIER_OUTPUT is named in
 *                              dossier.yaml's outputs.left_out instead
 *   kernodeck/                 state.yaml, reference.yaml, the observations
 *                              of every stage, installed-after.txt,
 *                              pip-check.txt (everything of the kernodeck
 *                              folder but its cache, lock, older dossiers,
 *                              logs/ and old-outputs/), and in logs/ exactly
 *                              the logs the state and the observations name
 *                              (logkeep_referenced), not the history
 *   SHA256SUMS                 over every other file (sha256sum -c)
 *
 * The scan (redact_scan over every text file, and files whose name says
 * they hold credentials) blocks the write on any finding; a finding names
 * the dossier file, the source, the line and the kind, never the value.
 * The user redacts the source (dossier_redact_sources: values become
 * ${NAME}) or leaves the file out (settings dossier.exclude); no deviation
 * lets a secret through.
 */
#ifndef KD_DOSSIER_H
#define KD_DOSSIER_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"

#define KD_DOSSIER_SCHEMA 1
#define KD_CAP_DOSSIER_FILES 10000
#define KD_CAP_DOSSIER_BYTES (1024u * 1024 * 1024)  /* all files together */
#define KD_CAP_DOSSIER_OUTPUT (64u * 1024 * 1024)   /* one output copied into outputs/ */

struct kd_ctx;

struct dossier_file {
	char *rel;        /* path inside the dossier */
	char *src;        /* absolute source path, or NULL when generated */
	char *data;       /* content */
	size_t len;
	int binary;       /* holds a NUL byte: written as is, not scanned */
	int exec;         /* mode 0755 */
};

struct dossier_finding {
	char *rel;        /* dossier file */
	char *src;        /* its source (absolute), or NULL */
	int line;
	const char *kind;
	char name[64];    /* the ${NAME} a redaction would write */
};

struct dossier_plan {
	struct dossier_file *files;
	size_t nfiles, capfiles;
	struct dossier_finding *findings;
	size_t nfindings, capfindings;
	json_t *home_paths;   /* [{file, line, path}] absolute paths under $HOME */
	json_t *excluded;     /* [source] left out by the user */
	json_t *tree;         /* dossier.yaml */
};

/* Older dossiers kept beside a new one: the one it replaced. */
#define KD_DOSSIER_BACKUPS 1

/* Gather everything that would go in the dossier of ctx and scan it.
 * relative: replace the absolute project folder by "." in text files. */
int dossier_plan_build(struct kd_ctx *ctx, int relative, struct dossier_plan *plan,
		       struct kd_err *err);
void dossier_plan_free(struct dossier_plan *plan);
/* Write a clean plan to out (moved aside first when it exists).  Refuses
 * (KD_EFAIL) a plan with findings.  *moved_aside gets the folder an older
 * dossier went to (malloc'd) or NULL. */
int dossier_plan_write(const struct dossier_plan *plan, const char *out,
		       char **moved_aside, struct kd_err *err);
/* Build, scan and write in one call (kernodeck dossier, the stage); then
 * remove the backups beyond KD_DOSSIER_BACKUPS that are kernodeck's own,
 * unchanged dossiers (summary "removed_backups"). */
int dossier_write(struct kd_ctx *ctx, const char *out, int relative, json_t **summary,
		  struct kd_err *err);
/* Replace every finding in the sources of a plan by ${NAME}, in place
 * (atomic write).  *changed counts the files rewritten. */
int dossier_redact_sources(const struct dossier_plan *plan, int *changed,
			   struct kd_err *err);

/* Copy a folder tree (regular files and folders only; links refused) into
 * dst, which must not exist.  Files keep their execute bit. */
int dossier_copy_tree(const char *src, const char *dst, struct kd_err *err);

/* Load a dossier.yaml or a `kernodeck check --format yaml|json` capture, or
 * a dossier folder (its dossier.yaml), into a tree with the layers diff
 * compares: {kind, system, inventory, probe, sample, deviations, stages}. */
int dossier_load_layers(const char *path, json_t **layers, struct kd_err *err);

#endif
