/*
 * rebuild.h - stages 3 and 4 (src/stages/stage-rebuild.c, src/stages/stage-contract.c):
 * the names of the files they read and write, and the choices they record
 * in the state's settings.
 *
 * Files (project folder):  requirements-rebuild.txt, .venv-rebuild/ (an
 * old one renamed .venv-rebuild.aside-YYYYmmddTHHMMSSZ, never deleted).
 * Files (kernodeck folder): installed-after.txt (pip freeze --all of the
 * venv), pip-inspect.json, pip-report.json (pip install's --report: what
 * it installed, from where, with which hash; origin.h), pip-check.txt (raw), base-inventory.txt (with
 * a base environment: rebuild-base.h), rebuild.yaml and
 * contract.yaml (observations), and a log per command under logs/.
 *
 * Settings:
 *   rebuild.built            {venv, python, python_real, requirements_sha256,
 *                             pyvenv_sha256, system_site_packages, ok, at,
 *                             base {path, digest, packages}}:
 *                             what kernodeck built; a venv that still matches
 *                             (the base too) is reused by `kernodeck check`
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
 * python.install.base (the base environment the venv is layered on:
 * rebuild-base.h), strict.
 */
#ifndef KD_REBUILD_H
#define KD_REBUILD_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/ctx.h"
#include "kernodeck/stage.h"

#define REBUILD_REQUIREMENTS "requirements-rebuild.txt"
#define REBUILD_VENV         ".venv-rebuild"
#define REBUILD_INSTALLED    "installed-after.txt"
#define REBUILD_INSPECT      "pip-inspect.json"
#define REBUILD_REPORT       "pip-report.json"       /* pip install --report, redacted */
#define REBUILD_REPORT_PART  "pip-report.part.json"  /* what pip writes, before it is kept */
#define REBUILD_REPORT_DIRECT "pip-report-direct.part.json" /* the same of the install after
							 * a lock (VCS, folders) */
#define CONTRACT_PIP_CHECK   "pip-check.txt"

#endif
