/*
 * logkeep.h - which logs of kernodeck/logs/ are evidence, and the bounded
 * history of the rest.
 *
 * A log is referenced when a current source names it (a string holding
 * "logs/NAME", NAME a regular file of STATE_DIR/logs): the rows and
 * settings of the state (as held in memory and as state.yaml says), the
 * observation file of every stage, and the YAML files of a folder the
 * caller names (the node files of the latest fleet run: the caller passes
 * fleet_latest, which logkeep knows nothing of).  The dossier copies
 * exactly the referenced logs.
 *
 * The rule for kernodeck/logs/ (README, FILES of the man page): a log that
 * kernodeck named (STAMP-STEP.log, STAMP YYYYmmddTHHMMSSZ[.N]) is removed
 * once it is neither referenced nor among the KD_LOG_HISTORY newest of its
 * STEP, nor written by the kernodeck that runs now (kd_ctx_log_path notes
 * each in ctx->own_logs: a later stage may name it); any other file is
 * left alone.  The environment variable
 * KD_LOG_HISTORY (a count, 0 or more) overrides the cap.  Pruning runs
 * after each stage run that holds the project's lock, once the state is
 * saved, and removes one unreferenced file at a time, so that a kill at
 * any moment loses no referenced log; when a source exists but cannot be
 * read, nothing is removed.
 */
#ifndef KD_LOGKEEP_H
#define KD_LOGKEEP_H

#include <jansson.h>

struct kd_ctx;

/* A folder whose NAME.yaml files name logs too, found anew at each use
 * from the kernodeck folder (malloc'd), or NULL: none.  fleet_latest is
 * one. */
typedef char *(*logkeep_root_fn)(const char *state_dir);

/* The logs the current sources name: an object NAME -> true (a new
 * reference), NAME relative to STATE_DIR/logs; root (or NULL) gives one
 * more source.  *complete (when not NULL) is 0 when a source exists but
 * could not be read. */
json_t *logkeep_referenced(const struct kd_ctx *ctx, logkeep_root_fn root, int *complete);
/* The newest logs kept per step beyond the referenced ones: KD_LOG_HISTORY
 * from the environment when it is a count, else KD_CAP_LOG_HISTORY. */
int logkeep_history(void);
/* Apply the rule to STATE_DIR/logs (nothing without the lock, or when
 * logkeep_referenced is incomplete); returns the number of logs removed. */
int logkeep_prune(struct kd_ctx *ctx, logkeep_root_fn root);

#endif
