/*
 * rebuild.h - stages 3 and 4 (src/stage-rebuild.c, src/stage-contract.c):
 * the names of the files they read and write, and the choices they record
 * in the state's settings.
 *
 * Files (project folder):  requirements-rebuild.txt, .venv-rebuild/ (an
 * old one renamed .venv-rebuild.aside-YYYYmmddTHHMMSSZ, never deleted).
 * Files (kernodeck folder): installed-after.txt (pip freeze --all of the
 * venv), pip-inspect.json, pip-check.txt (raw), rebuild.yaml and
 * contract.yaml (observations), and a log per command under logs/.
 *
 * Settings:
 *   rebuild.built            {venv, python, python_real, requirements_sha256,
 *                             pyvenv_sha256, system_site_packages, ok, at}:
 *                             what kernodeck built; a venv that still matches
 *                             is reused by `kernodeck check`
 *   rebuild.existing_venv    {choice: moved-aside | keep, to | venv,
 *                             pyvenv_sha256, by, at}
 *   contract.marks.NAME      "intentional" | "to-fix", NAME canonical (PEP 503)
 *   variant                  true when an inventory difference is marked
 *                             intentional; variant_differences lists them
 *
 * Reference fields read: python.install.system_site_packages (venv with
 * --system-site-packages), python.install.without_pip (with system site
 * packages only: --without-pip, pip then comes from the system),
 * python.inventory (the reference inventory: pip freeze or pip inspect),
 * strict.
 */
#ifndef KD_REBUILD_H
#define KD_REBUILD_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/ctx.h"
#include "kernodeck/run.h"
#include "kernodeck/stage.h"

#define REBUILD_REQUIREMENTS "requirements-rebuild.txt"
#define REBUILD_VENV         ".venv-rebuild"
#define REBUILD_INSTALLED    "installed-after.txt"
#define REBUILD_INSPECT      "pip-inspect.json"
#define CONTRACT_PIP_CHECK   "pip-check.txt"

/* One command of stages 3 and 4: run with the project as working folder,
 * pip made non-interactive, no activation variables, a log of its own
 * (kd_ctx_log_path), lines streamed to the sink when stream is set, kept
 * in buf (up to KD_CAP_PIP_OUTPUT) when keep is set, cancellable through
 * the sink.  The first "ERROR:" (and "error:") line is remembered. */
struct rebuild_run {
	int stream, keep;                /* in */
	const struct kd_sink *sink;
	char *first_error, *first_lower; /* out */
	char *buf;                       /* out when keep */
	size_t len, cap;
	int overflow;                    /* the output passed the cap */
	struct run_result r;
};

/* Run argv as step `what` (the log name; label goes to the sink) and
 * append its record {step, argv, log, status, exit_code, how, elapsed_s}
 * to steps.  Returns run_program's code (0 when it ran). */
int rebuild_step(struct kd_ctx *ctx, const struct kd_sink *sink, const char *what,
		 const char *label, const char *const *argv, double timeout,
		 struct rebuild_run *rr, json_t *steps, struct kd_err *err);
/* Did it run and exit 0 (not cancelled, not timed out)? */
int rebuild_step_ok(const struct rebuild_run *rr);
void rebuild_run_free(struct rebuild_run *rr);

#endif
