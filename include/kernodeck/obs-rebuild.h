/*
 * obs-rebuild.h - the tree of rebuild.yaml (the rebuild stage's
 * observations, src/stages/stage-rebuild.c; its base environment part
 * src/facts/rebuild-base.c): each key its type, getter name and path.  Getters:
 * obs_rebuild_NAME(obs).  Keep in step with what the stage writes;
 * tests/helpers/obs-keys (run by demo-headless and demo-training)
 * proves every key not marked KD_OBS_OPT is there
 * after the demo's check.
 *
 *   steps                 [step] each program run, in order (KD_OBS_REBUILD_STEP)
 *   python                the interpreter that makes the venv: .path, .reason
 *                         (why it was chosen), .real (its resolved path)
 *   system_site_packages  the venv sees the system's packages (the reference's
 *                         python.install.system_site_packages)
 *   without_pip           the venv is made without pip
 *   pip_env               {PIP_*: value} pip settings of the shell (redacted)
 *   pip_version           what pip --version said in the venv
 *   blocked               why the rebuild stopped before pip install
 *   requirements          the rebuild file: .present, .error (unreadable),
 *                         .lint (requirements.h: .requirements [...],
 *                         .findings [finding] (KD_OBS_REBUILD_FINDING),
 *                         .torch_variant {required, variant, source})
 *   venv                  the venv folder: .path, .action (create, reuse,
 *                         keep, ask), .needs_choice (why it asks), .error,
 *                         .moved_to (where an old one went), .after (venv.h's
 *                         view once built: .python_real ...), .uses_chosen_python
 *   install               pip install: .status (ok, reused, failed, cancelled,
 *                         timed out), .how, .first_error, .requirement (the
 *                         one it failed on), .log
 *   inventory             pip freeze --all: .file, .count, or .error;
 *                         .origin {rebuilt[], base[], system[]} with a base
 *   origins               where each distribution came from (origin.h):
 *                         .report (pip-report.json), .python (the
 *                         version pip installed for), .error (no usable
 *                         report), .provided_error, .packages [origin]
 *                         (KD_OBS_REBUILD_ORIGIN)
 *   base                  the base environment (rebuild-base.h): .path, .kind,
 *                         .version, .packages (a count), .site_dirs [...],
 *                         .inventory_file, .pth, .problem (missing, unusable,
 *                         moved, query, changed, layer), .error
 */
#ifndef KD_OBS_REBUILD_H
#define KD_OBS_REBUILD_H

#include "kernodeck/obs.h"

#define KD_OBS_REBUILD(X) \
	X(arr, steps, "steps", 0) \
	X(str, python_path, "python.path", 0) \
	X(str, python_reason, "python.reason", 0) \
	X(str, python_real, "python.real", KD_OBS_OPT) \
	X(bool, system_site_packages, "system_site_packages", 0) \
	X(obj, pip_env, "pip_env", 0) \
	X(str, pip_version, "pip_version", KD_OBS_OPT) \
	X(str, blocked, "blocked", KD_OBS_OPT) \
	X(bool, requirements_present, "requirements.present", 0) \
	X(str, requirements_error, "requirements.error", KD_OBS_OPT) \
	X(obj, requirements_lint, "requirements.lint", KD_OBS_OPT) \
	X(arr, requirements_lint_requirements, "requirements.lint.requirements", KD_OBS_OPT) \
	X(arr, requirements_lint_findings, "requirements.lint.findings", KD_OBS_OPT) \
	X(bool, requirements_lint_torch_variant_required, "requirements.lint.torch_variant.required", \
	  KD_OBS_OPT) \
	X(str, requirements_lint_torch_variant_variant, "requirements.lint.torch_variant.variant", \
	  KD_OBS_OPT) \
	X(str, requirements_lint_torch_variant_source, "requirements.lint.torch_variant.source", \
	  KD_OBS_OPT) \
	X(str, venv_action, "venv.action", KD_OBS_OPT) \
	X(str, venv_needs_choice, "venv.needs_choice", KD_OBS_OPT) \
	X(str, venv_error, "venv.error", KD_OBS_OPT) \
	X(str, venv_moved_to, "venv.moved_to", KD_OBS_OPT) \
	X(obj, venv_after, "venv.after", KD_OBS_OPT) \
	X(str, venv_after_python_real, "venv.after.python_real", KD_OBS_OPT) \
	X(bool, venv_uses_chosen_python, "venv.uses_chosen_python", KD_OBS_OPT) \
	X(str, install_status, "install.status", KD_OBS_OPT) \
	X(str, install_how, "install.how", KD_OBS_OPT) \
	X(str, install_first_error, "install.first_error", KD_OBS_OPT) \
	X(str, install_requirement, "install.requirement", KD_OBS_OPT) \
	X(str, install_log, "install.log", KD_OBS_OPT) \
	X(obj, install_direct, "install.direct", KD_OBS_OPT) \
	X(str, inventory_file, "inventory.file", KD_OBS_OPT) \
	X(int, inventory_count, "inventory.count", KD_OBS_OPT) \
	X(str, inventory_error, "inventory.error", KD_OBS_OPT) \
	X(obj, inventory_origin, "inventory.origin", KD_OBS_OPT) \
	X(arr, inventory_origin_rebuilt, "inventory.origin.rebuilt", KD_OBS_OPT) \
	X(arr, inventory_origin_base, "inventory.origin.base", KD_OBS_OPT) \
	X(arr, inventory_origin_system, "inventory.origin.system", KD_OBS_OPT) \
	X(obj, origins, "origins", KD_OBS_OPT) \
	X(str, origins_report, "origins.report", KD_OBS_OPT) \
	X(str, origins_python, "origins.python", KD_OBS_OPT) \
	X(str, origins_error, "origins.error", KD_OBS_OPT) \
	X(str, origins_provided_error, "origins.provided_error", KD_OBS_OPT) \
	X(arr, origins_packages, "origins.packages", KD_OBS_OPT) \
	X(obj, base, "base", KD_OBS_OPT) \
	X(str, base_path, "base.path", KD_OBS_OPT) \
	X(str, base_kind, "base.kind", KD_OBS_OPT) \
	X(str, base_version, "base.version", KD_OBS_OPT) \
	X(int, base_packages, "base.packages", KD_OBS_OPT) \
	X(arr, base_site_dirs, "base.site_dirs", KD_OBS_OPT) \
	X(str, base_inventory_file, "base.inventory_file", KD_OBS_OPT) \
	X(str, base_pth, "base.pth", KD_OBS_OPT) \
	X(str, base_problem, "base.problem", KD_OBS_OPT) \
	X(str, base_error, "base.error", KD_OBS_OPT) \
	/* end */

/* One element of steps: obs_rebuild_step_NAME(step).  step (its name:
 * venv, pip-version, pip-install, pip-freeze, pip-inspect, base-query ...),
 * argv, log (under the kernodeck folder), status (ok, failed, timed out,
 * cancelled ...), exit_code, how ("exit 0"), error, elapsed_s. */
#define KD_OBS_REBUILD_STEP(X) \
	X(str, step, "step", 0) \
	X(str, status, "status", 0) \
	X(str, how, "how", KD_OBS_OPT) \
	X(str, log, "log", KD_OBS_OPT) \
	X(str, error, "error", KD_OBS_OPT) \
	/* end */

/* One element of requirements.lint.findings: obs_rebuild_finding_NAME(f).
 * code (credential, hashes, unpinned, ...), severity (fail, warn, info),
 * message. */
#define KD_OBS_REBUILD_FINDING(X) \
	X(str, code, "code", 0) \
	X(str, severity, "severity", KD_OBS_OPT) \
	X(str, message, "message", 0) \
	/* end */

/* One element of origins.packages: obs_rebuild_origin_NAME(o) (origin.h). */
#define KD_OBS_REBUILD_ORIGIN(X) \
	X(str, name, "name", 0) \
	X(str, canonical_name, "canonical_name", 0) \
	X(str, version, "version", KD_OBS_OPT) \
	X(str, origin, "origin", 0) \
	X(str, source, "source", KD_OBS_OPT) \
	X(str, url, "url", KD_OBS_OPT) \
	X(str, file, "file", KD_OBS_OPT) \
	X(str, sha256, "sha256", KD_OBS_OPT) \
	X(bool, requested, "requested", KD_OBS_OPT) \
	X(str, commit, "commit", KD_OBS_OPT) \
	X(obj, provider, "provider", KD_OBS_OPT) \
	X(str, provider_kind, "provider.kind", KD_OBS_OPT) \
	X(str, provider_package, "provider.package", KD_OBS_OPT) \
	X(str, provider_version, "provider.version", KD_OBS_OPT) \
	X(str, provider_path, "provider.path", KD_OBS_OPT) \
	/* end */

#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(rebuild, type, name, path, flags)
KD_OBS_REBUILD(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(rebuild_step, type, name, path, flags)
KD_OBS_REBUILD_STEP(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(rebuild_finding, type, name, path, flags)
KD_OBS_REBUILD_FINDING(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(rebuild_origin, type, name, path, flags)
KD_OBS_REBUILD_ORIGIN(KD_OBS_G)
#undef KD_OBS_G

#endif
