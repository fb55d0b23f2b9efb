/*
 * runenv.h - the one allow-list of environment variables that may cross a
 * dossier (src/facts/runenv.c).
 *
 * A dossier records the variables that change a run (dossier.yaml's
 * environment: device visibility, thread pools, PyTorch's and the
 * CUDA/ROCm math libraries' settings, the hash seed) so that a replay and
 * procedure.sh set them again.  The dossier comes from someone else: a
 * variable that changes how a program is found or started (the dynamic
 * loader's LD_*, git's GIT_*, the shell's BASH_ENV, ENV, PS4, IFS, ...,
 * Python's PYTHONSTARTUP, PYTHONPATH, ..., PATH, library or plugin paths)
 * would run code of its choosing.  Only the names listed here cross: the
 * writer (dossier.c) keeps only them, the loader (replay) refuses a
 * dossier naming any other, replay sets them, and procedure.sh checks its
 * own block against the same list before it sets anything.  A value must
 * be short and hold no control, hidden or line-break character.
 */
#ifndef KD_RUNENV_H
#define KD_RUNENV_H

#include <stddef.h>

#include <jansson.h>

#include "kernodeck/err.h"

#define RUNENV_MAX_VALUE 256   /* bytes of a value, at most */
#define RUNENV_MAX_VARS 64     /* variables in a dossier, at most */

/* Is name on the allow-list? */
int runenv_allowed(const char *name);
/* Why a value cannot cross (a control or hidden character, too long), or
 * NULL when it can. */
const char *runenv_bad_value(const char *value);
/* The list itself: *n names, in order. */
const char *const *runenv_names(size_t *n);
/* The variables of env ({NAME: value}) that may cross, as a new object
 * (the writer's filter); values that cannot cross are left out. */
json_t *runenv_filter(const json_t *env);
/* A dossier's environment block (file names it in the message): 0, or
 * KD_EINPUT listing every name that is refused (and why: a name that
 * changes how a program is found or started, or one not on the list) and
 * every value that cannot cross.  A block that is not a mapping of
 * strings is refused too. */
int runenv_check(const json_t *env, const char *file, struct kd_err *err);

#endif
