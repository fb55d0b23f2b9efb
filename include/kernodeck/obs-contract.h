/*
 * obs-contract.h - the tree of contract.yaml (the contract stage's observations):
 * each key its type, getter name and path.  Getters: obs_contract_NAME(obs).
 * Keep in step with what the stage writes; tests/helpers/obs-keys (run by
 * tests/integration/demo-headless.sh and demo-training.sh) proves every key
 * not marked KD_OBS_OPT is there after the demos' checks.
 *
 *   steps[]                 the pip runs, as step.c records them
 *   venv                    ".venv-rebuild"
 *   venv_missing            true when there is no .venv-rebuild/bin/python
 *                           (then nothing below is written)
 *   pip_check               status ("ran", "not started", "cancelled",
 *                           "timed out", "killed"), error (when not ran),
 *                           exit_code, file (pip-check.txt), problems[]
 *                           (parse-pipcheck.c's, each with system and base
 *                           added: KD_OBS_CONTRACT_PROBLEM), warnings[],
 *                           parse_error
 *   inventory.rebuilt       source, count, system, base, from, log (that of
 *                           the pip inspect run that made the tree, this
 *                           check's or, with from, the one that wrote the
 *                           file); or error
 *   inventory.reference     file, format, count; or file, error; or
 *                           missing: true; or not_applicable: why
 *   inventory.pinned_tooling[]   canonical names pinned in the rebuild file
 *   inventory.comparison    inventory_compare()'s: same, missing[], extra[],
 *                           version_changed[], local_label_changed[],
 *                           differences[] (KD_OBS_CONTRACT_DIFF), written
 *                           when both inventories are known
 *   inventory.packages[]    the rebuilt inventory short: name, version, system
 *
 * A key below a KD_OBS_OPT key is required only where that key is there.
 */
#ifndef KD_OBS_CONTRACT_H
#define KD_OBS_CONTRACT_H

#include "kernodeck/obs.h"

#define KD_OBS_CONTRACT(X) \
	X(bool, venv_missing, "venv_missing", KD_OBS_OPT) \
	X(obj, pip_check, "pip_check", KD_OBS_OPT) \
	X(str, pip_check_status, "pip_check.status", 0) \
	X(str, pip_check_error, "pip_check.error", KD_OBS_OPT) \
	X(int, pip_check_exit_code, "pip_check.exit_code", KD_OBS_OPT) \
	X(str, pip_check_file, "pip_check.file", KD_OBS_OPT) \
	X(arr, pip_check_problems, "pip_check.problems", KD_OBS_OPT) \
	X(obj, inventory, "inventory", KD_OBS_OPT) \
	X(arr, packages, "inventory.packages", KD_OBS_OPT) \
	X(obj, rebuilt, "inventory.rebuilt", 0) \
	X(str, rebuilt_error, "inventory.rebuilt.error", KD_OBS_OPT) \
	X(int, rebuilt_count, "inventory.rebuilt.count", KD_OBS_OPT) \
	X(int, rebuilt_system, "inventory.rebuilt.system", KD_OBS_OPT) \
	X(int, rebuilt_base, "inventory.rebuilt.base", KD_OBS_OPT) \
	X(str, rebuilt_log, "inventory.rebuilt.log", KD_OBS_OPT) \
	X(obj, reference, "inventory.reference", 0) \
	X(str, reference_file, "inventory.reference.file", KD_OBS_OPT) \
	X(str, reference_format, "inventory.reference.format", KD_OBS_OPT) \
	X(int, reference_count, "inventory.reference.count", KD_OBS_OPT) \
	X(str, reference_error, "inventory.reference.error", KD_OBS_OPT) \
	X(bool, reference_missing, "inventory.reference.missing", KD_OBS_OPT) \
	X(str, reference_not_applicable, "inventory.reference.not_applicable", KD_OBS_OPT) \
	X(obj, comparison, "inventory.comparison", KD_OBS_OPT) \
	X(int, comparison_same, "inventory.comparison.same", 0) \
	X(arr, comparison_missing, "inventory.comparison.missing", 0) \
	X(arr, comparison_extra, "inventory.comparison.extra", 0) \
	X(arr, comparison_version_changed, "inventory.comparison.version_changed", 0) \
	X(arr, comparison_local_label_changed, "inventory.comparison.local_label_changed", 0) \
	X(arr, differences, "inventory.comparison.differences", 0) \
	/* end */

/* One element of pip_check.problems: obs_contract_problem_NAME(p). */
#define KD_OBS_CONTRACT_PROBLEM(X) \
	X(str, kind, "kind", 0) \
	X(str, package, "package", KD_OBS_OPT) \
	X(str, version, "version", KD_OBS_OPT) \
	X(str, requirement, "requirement", KD_OBS_OPT) \
	X(str, line, "line", 0) \
	X(bool, system, "system", 0) \
	X(bool, base, "base", KD_OBS_OPT) \
	/* end */

/* One element of inventory.comparison.differences: obs_contract_diff_NAME(d). */
#define KD_OBS_CONTRACT_DIFF(X) \
	X(str, canonical_name, "canonical_name", 0) \
	X(str, name, "name", 0) \
	X(str, kind, "kind", 0) \
	X(str, ref_version, "ref_version", KD_OBS_OPT) \
	X(str, new_version, "new_version", KD_OBS_OPT) \
	X(bool, tooling, "tooling", 0) \
	X(str, detail, "detail", 0) \
	X(bool, system, "system", 0) \
	X(bool, base, "base", KD_OBS_OPT) \
	X(bool, pinned, "pinned", 0) \
	/* end */

#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(contract, type, name, path, flags)
KD_OBS_CONTRACT(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(contract_problem, type, name, path, flags)
KD_OBS_CONTRACT_PROBLEM(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(contract_diff, type, name, path, flags)
KD_OBS_CONTRACT_DIFF(KD_OBS_G)
#undef KD_OBS_G

#endif
