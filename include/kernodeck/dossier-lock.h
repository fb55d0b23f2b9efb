/*
 * dossier-lock.h - the lock a dossier carries (src/features/dossier-lock.c):
 * what the rebuild installed, each artefact with its digest, in two forms.
 *
 *   pylock.toml            PEP 751 (lock-version 1.0): one [[packages]] per
 *                          distribution pip installed, with its wheels /
 *                          sdist / archive / vcs / directory entry (url,
 *                          hashes); the index it came from.  [tool.kernodeck]
 *                          holds what the rebuild did not install (system,
 *                          base, venv: provided) and the accelerator build
 *                          (+cu121, +rocm6.1, +cpu; the CUDA or ROCm version
 *                          it needs, the minimum driver when known); a
 *                          package's tool.kernodeck its path under the
 *                          project for an artefact of a find-links folder;
 *                          a local artefact by its path, never the building
 *                          machine's file: URL (dossier_lock_folders).
 *   requirements-lock.txt  the same in pip's hash-checking form: the rebuild
 *                          file's index and find-links options, --no-deps in
 *                          the install line, name==version --hash=sha256:...
 *                          per distribution; what cannot be hashed (VCS,
 *                          directories) is named in a comment and goes to
 *   requirements-lock-direct.txt  (dossier_requirements_direct).  An index
 *                          URL keeps the ${NAME} form of the rebuild file;
 *                          one PIP_INDEX_URL or PIP_EXTRA_INDEX_URL gave
 *                          with a credential is that variable (pip expands
 *                          it; the dossier names it to be provided).
 *
 * Both come from rebuild.yaml's origins (origin.h).  replay and
 * procedure.sh install requirements-lock.txt by default.
 */
#ifndef KD_DOSSIER_LOCK_H
#define KD_DOSSIER_LOCK_H

#include <jansson.h>

struct kd_ctx;

#define DOSSIER_PYLOCK    "pylock.toml"
#define DOSSIER_REQ_LOCK  "requirements-lock.txt"
#define DOSSIER_REQ_DIRECT "requirements-lock-direct.txt"

/* pylock.toml (malloc'd), or NULL when the rebuild recorded no origins. */
char *dossier_pylock(const struct kd_ctx *ctx, const json_t *origins);
/* requirements-lock.txt (malloc'd), or NULL likewise. */
char *dossier_requirements_lock(const struct kd_ctx *ctx, const json_t *origins);
/* The local find-links folders the artefacts of origins come from: an
 * array of {folder (on the building machine), name (find-links/NAME
 * stands for it in pylock.toml), path (relative to project_dir, only for
 * a folder inside the project), files (the artefacts' file names)}.  A
 * folder outside the project is not named in requirements-lock.txt: it is
 * to be provided where the lock is installed (replay --find-links DIR, or
 * the recorded folder when it exists; FIND_LINKS=DIR for procedure.sh). */
json_t *dossier_lock_folders(const char *project_dir, const json_t *origins);
/* requirements-lock-direct.txt (malloc'd), or NULL when the rebuild
 * installed no VCS checkout nor folder: what pip's hash-checking mode
 * refuses, installed after the lock with --no-deps, one line each:
 * VCS+URL@COMMIT#egg=NAME[&subdirectory=S], or ./FOLDER (-e ./FOLDER) in the
 * project; one that cannot be (no commit, a folder outside the project)
 * named in a comment. */
char *dossier_requirements_direct(const struct kd_ctx *ctx, const json_t *origins);
/* Can pip check this origin entry's hash (an artefact with a SHA-256)? */
int dossier_lock_hashable(const json_t *origin);

#endif
