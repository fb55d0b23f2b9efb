/*
 * replay.h - the replay engine (src/features/replay.c): rebuild and re-check a
 * project from a dossier in a clean folder.  `kernodeck replay`
 * (src/cmd/cmd-replay.c) and the dossier stage's replay action call it.
 *
 * A dossier from someone else is untrusted: its SHA256SUMS is verified
 * first, every command the replay will run is shown and confirmed once,
 * and nothing is written outside the work folder (the children's caches,
 * temporary files and home folder are kept in it, through the runner's
 * per-run environment: kernodeck's own environment is never changed).
 */
#ifndef KD_REPLAY_H
#define KD_REPLAY_H

#include <jansson.h>

#include "kernodeck/err.h"

struct kd_sink;

/* The mark a replay leaves in its work folder: "dossier: PATH" among its
 * lines (the walkthrough's bisect key takes the dossier from it). */
#define REPLAY_MARK ".git/kernodeck-replay"

struct replay_opts {
	const char *dossier;    /* the dossier folder */
	const char *workdir;    /* a folder that does not exist yet, or is empty */
	const char *data;       /* where data and weights moved, or NULL */
	const char *python;     /* --python, or NULL */
	const char *repo;       /* --repo: the repository to clone instead, or NULL */
	const char *const *find_links; /* --find-links DIR...: where the lock's
				 * artefacts from a folder outside the recorded
				 * project are (NULL-ended), or NULL */
	int yes;
	int unlocked;           /* --unlocked: resolve the rebuild file again
				 * instead of installing the dossier's lock */
	const struct kd_sink *sink;
};

/* Replay a dossier: verify SHA256SUMS, clone the code at the recorded
 * commit into workdir, check the data digests, rebuild and run stages 2
 * to 6 headless.  Every command is shown on stderr (or through the sink)
 * and confirmed once unless yes; without yes and without a terminal it
 * declines (KD_EFAIL).  Returns 0 when every stage passed or shows exactly
 * the deviations the dossier records; KD_EFAIL on new differences (listed
 * in *verdict) or a declined confirmation; KD_EINPUT for a dossier that
 * does not verify; KD_EENV when the machine failed. */
int replay_run(const struct replay_opts *o, json_t **verdict, struct kd_err *err);

#endif
