/*
 * ctx.h - one project opened: its folders, state, reference and chosen
 * interpreter.  Both the walkthrough and the headless commands hold one.
 *
 * The kernodeck folder (default PROJECT/kernodeck, or --state-dir) holds
 * state.yaml, reference.yaml, logs/, cache/ and the observation files.
 * The reference's identity is the SHA-256 of its canonical form (keys
 * sorted, no comments, UTF-8): kd_ref_identity(); kd_ctx_open() reads it
 * from cache/reference-identity while reference.yaml's (device, inode,
 * size, mtime, ctime) are those it was computed for.
 */
#ifndef KD_CTX_H
#define KD_CTX_H

#include <jansson.h>

#include "kernodeck/err.h"
#include "kernodeck/state.h"
#include "kernodeck/yamlio.h"

struct kd_lock;
struct kd_obs_cache;
struct kd_runner;

/* The reference format's schema version (doc/reference-format.md). */
#define KD_REF_SCHEMA 1

struct kd_ctx {
	char *project_dir;       /* absolute */
	char *state_dir;         /* absolute: PROJECT/kernodeck by default */
	char *state_path;        /* STATE_DIR/state.yaml */
	char *ref_path;          /* STATE_DIR/reference.yaml */
	struct kd_state state;
	json_t *state_disk;      /* what state.yaml says: as read at open or last
				  * saved (NULL: no file yet) */
	json_t *ref;             /* the reference (object; {} when absent) */
	struct yamlio_doc refdoc;/* lines of the loaded reference */
	char ref_id[65];         /* hex SHA-256 of the canonical reference */
	char ref_stamp[256];     /* reference.yaml's (device, inode, size, mtime,
				  * ctime) when last read or written here */
	struct kd_obs_cache *obs;/* observations, loaded when first asked for:
				  * read them with kd_ctx_obs() */
	char *python;            /* interpreter chosen for the rebuild, or NULL */
	const char *python_override; /* --python */
	const char *const *child_env;/* "NAME=VALUE" for every program the stages
				  * run (a replay's work folder), or NULL */
	int strict;              /* --strict, or strict: true in the reference */
	int strict_verdict;      /* check --strict: a warning without a deviation,
				  * or a deviation kernodeck recorded itself, to
				  * fix, fails too (stage_strict_ok) */
	int readonly;            /* another kernodeck holds the lock */
	struct kd_lock *lock;
	double timeout_install;  /* seconds */
	double timeout_probe;
	double timeout_sample;
	json_t *own_logs;        /* names of the logs kd_ctx_log_path gave out
				  * since kd_ctx_open: never pruned (logkeep.h) */
	struct kd_runner *runner;/* the session of stage runs under way
				  * (runner.h: check, the walkthrough,
				  * replay), or NULL */
	const char *install_lock;/* a replay: the hash-checking lock the rebuild
				  * installs instead of resolving the rebuild
				  * file (venv_pip_install_argv), relative to
				  * the project folder; NULL: the rebuild file */
	const char *const *install_find_links; /* a replay: folders given to that
				  * install as --find-links (NULL-ended), the
				  * lock's artefacts from outside the project;
				  * or NULL */
	const char *install_direct; /* a replay: what the lock cannot hash (VCS,
				  * folders), installed after it with --no-deps
				  * (venv_pip_direct_argv), relative to the
				  * project folder; or NULL */
};

/* Open a project: create the kernodeck folder when missing (unless it
 * cannot be written, then readonly), take the lock (or open read-only when
 * lock_mode is KD_LOCK_READONLY_OK; fail with KD_EENV, exit 3, when KD_LOCK_REQUIRED
 * and someone holds it), load state and reference.  The observations are
 * read later, each when first asked for (kd_ctx_obs). */
enum { KD_LOCK_REQUIRED = 0, KD_LOCK_READONLY_OK = 1, KD_LOCK_NONE = 2 };
int kd_ctx_open(struct kd_ctx *ctx, const char *project_dir, const char *state_dir,
		int lock_mode, struct kd_err *err);
/* Close it (a session of stage runs on it is ended first: runner_end,
 * so that nothing of the run outlives the lock). */
void kd_ctx_close(struct kd_ctx *ctx);
/* A path under the kernodeck folder (malloc'd). */
char *kd_ctx_path(const struct kd_ctx *ctx, const char *rel);
/* f relative to the kernodeck folder when it is inside it, else f. */
const char *kd_ctx_relpath(const struct kd_ctx *ctx, const char *f);
/* Seconds from environment variable name when it is a positive number,
 * else dflt (KD_TIMEOUT_PROBE, KD_TIMEOUT_SAMPLE). */
double kd_env_seconds(const char *name, double dflt);
/* A fresh log path logs/YYYYmmddTHHMMSSZ-what.log (malloc'd), folder made. */
char *kd_ctx_log_path(const struct kd_ctx *ctx, const char *what);
/* 1 when name (a file of logs/) is one kd_ctx_log_path gave out in this
 * run: never pruned while it runs.  Safe beside a step naming its log. */
int kd_ctx_own_log(const struct kd_ctx *ctx, const char *name);
/* Save the state (refused when readonly). */
int kd_ctx_save_state(struct kd_ctx *ctx, struct kd_err *err);
/* 1 when the state differs from what state.yaml says (or there is no
 * state.yaml yet), so that kd_ctx_save_state would change something. */
int kd_ctx_state_changed(const struct kd_ctx *ctx);
/* Save the reference after a change: writes reference.yaml, recomputes its
 * identity and, when it changed, marks stage 1 and later stale. */
int kd_ctx_save_ref(struct kd_ctx *ctx, struct kd_err *err);
/* Reload reference.yaml from disk (after $EDITOR); on a malformed file the
 * in-memory reference is kept and err names file and line. */
int kd_ctx_reload_ref(struct kd_ctx *ctx, struct kd_err *err);
/* 1 when reference.yaml on disk is not the file last read or written
 * through ctx (another editor changed, replaced or removed it): the
 * walkthrough reads it again (kd_ctx_reload_ref). */
int kd_ctx_ref_moved(const struct kd_ctx *ctx);
/* Identity of a reference tree: hex SHA-256 of the canonical YAML. */
void kd_ref_identity(const json_t *ref, char out[65]);
/* Save observations of stage i to its obs_file and keep them in ctx. */
int kd_ctx_save_obs(struct kd_ctx *ctx, int i, json_t *obs, struct kd_err *err);
/* The last observations of stage i (borrowed; NULL when it has none, or its
 * file does not load).  The stage's obs_file is read the first time they
 * are asked for, not at kd_ctx_open(): a start reads only what it shows. */
json_t *kd_ctx_obs(const struct kd_ctx *ctx, int i);

#endif
