/*
 * obs-files.c - the table of every observation file's declared keys (the
 * obs-*.h headers), for the test that proves each is where its stage
 * writes it (see include/kernodeck/obs-files.h).
 */
#include "config.h"

#include <string.h>

#include "kernodeck/obs.h"
#include "kernodeck/obs-files.h"
#include "kernodeck/obs-compute.h"
#include "kernodeck/obs-contract.h"
#include "kernodeck/obs-dossier.h"
#include "kernodeck/obs-rebuild.h"
#include "kernodeck/obs-reference.h"
#include "kernodeck/obs-sample.h"
#include "kernodeck/obs-system.h"
#include "kernodeck/stages.h"

#define KD_OBS_FILE_KEYS_(id, file, keys) \
	static const struct kd_obs_key id##_keys[] = { keys(KD_OBS_KEY) { NULL, NULL, 0 } };
#define KD_OBS_FILE_(id, file, keys) { file, id##_keys },
KD_STAGE_LIST(KD_OBS_FILE_KEYS_)
const struct kd_obs_file kd_obs_files[] = { KD_STAGE_LIST(KD_OBS_FILE_) { NULL, NULL } };

#define KD_OBS_KEYS(name, list) \
	static const struct kd_obs_key name[] = { list(KD_OBS_KEY) { NULL, NULL, 0 } }
KD_OBS_KEYS(reference_dirty_keys, KD_OBS_REFERENCE_DIRTY);
KD_OBS_KEYS(reference_submodule_keys, KD_OBS_REFERENCE_SUBMODULE);
KD_OBS_KEYS(reference_file_keys, KD_OBS_REFERENCE_FILE);
KD_OBS_KEYS(reference_url_keys, KD_OBS_REFERENCE_URL);
KD_OBS_KEYS(reference_warning_keys, KD_OBS_REFERENCE_WARNING);
KD_OBS_KEYS(system_gpu_keys, KD_OBS_SYSTEM_GPU);
KD_OBS_KEYS(system_device_keys, KD_OBS_SYSTEM_DEVICE);
KD_OBS_KEYS(system_tool_keys, KD_OBS_SYSTEM_TOOL);
KD_OBS_KEYS(system_python_keys, KD_OBS_SYSTEM_PYTHONS);
KD_OBS_KEYS(system_problem_keys, KD_OBS_SYSTEM_PROBLEM);
KD_OBS_KEYS(rebuild_step_keys, KD_OBS_REBUILD_STEP);
KD_OBS_KEYS(rebuild_finding_keys, KD_OBS_REBUILD_FINDING);
KD_OBS_KEYS(contract_problem_keys, KD_OBS_CONTRACT_PROBLEM);
KD_OBS_KEYS(contract_diff_keys, KD_OBS_CONTRACT_DIFF);
KD_OBS_KEYS(compute_step_keys, KD_OBS_COMPUTE_STEP);
KD_OBS_KEYS(sample_file_keys, KD_OBS_SAMPLE_FILE);
KD_OBS_KEYS(sample_resume_run_keys, KD_OBS_SAMPLE_RUN);
KD_OBS_KEYS(sample_kind_keys, KD_OBS_SAMPLE_KIND);
KD_OBS_KEYS(sample_metrics_keys, KD_OBS_SAMPLE_METRICS);
KD_OBS_KEYS(sample_tensor_keys, KD_OBS_SAMPLE_TENSOR);
KD_OBS_KEYS(dossier_finding_keys, KD_OBS_DOSSIER_FINDING);
KD_OBS_KEYS(dossier_home_keys, KD_OBS_DOSSIER_HOME);

const struct kd_obs_elems kd_obs_elems[] = {
	{ "reference-obs.yaml", "code.dirty", reference_dirty_keys },
	{ "reference-obs.yaml", "code.submodules", reference_submodule_keys },
	{ "reference-obs.yaml", "files", reference_file_keys },
	{ "reference-obs.yaml", "urls", reference_url_keys },
	{ "reference-obs.yaml", "warnings", reference_warning_keys },
	{ "system.yaml", "gpus", system_gpu_keys },
	{ "system.yaml", "devices", system_device_keys },
	{ "system.yaml", "tools", system_tool_keys },
	{ "system.yaml", "python.available", system_python_keys },
	{ "system.yaml", "variant.problems", system_problem_keys },
	{ "rebuild.yaml", "steps", rebuild_step_keys },
	{ "rebuild.yaml", "requirements.lint.findings", rebuild_finding_keys },
	{ "contract.yaml", "pip_check.problems", contract_problem_keys },
	{ "contract.yaml", "inventory.comparison.differences", contract_diff_keys },
	{ "compute.yaml", "steps", compute_step_keys },
	{ "sample.yaml", "outputs.files", sample_file_keys },
	{ "sample.yaml", "resume.runs", sample_resume_run_keys },
	{ "sample.yaml", "resume.inventory.kinds", sample_kind_keys },
	{ "sample.yaml", "resume.metrics", sample_metrics_keys },
	{ "sample.yaml", "resume.final.differing", sample_tensor_keys },
	{ "dossier-obs.yaml", "findings", dossier_finding_keys },
	{ "dossier-obs.yaml", "home_paths", dossier_home_keys },
	{ NULL, NULL, NULL },
};

const struct kd_obs_file *
obs_file_find(const char *file)
{
	for (const struct kd_obs_file *f = kd_obs_files; f->file != NULL; f++)
		if (strcmp(f->file, file) == 0)
			return f;
	return NULL;
}

int
obs_type_ok(const json_t *node, const char *type)
{
	if (node == NULL)
		return 0;
	if (strcmp(type, "str") == 0)
		return json_is_string(node);
	if (strcmp(type, "obj") == 0)
		return json_is_object(node);
	if (strcmp(type, "arr") == 0)
		return json_is_array(node);
	if (strcmp(type, "bool") == 0)
		return json_is_boolean(node);
	if (strcmp(type, "int") == 0)
		return json_is_integer(node);
	if (strcmp(type, "num") == 0)
		return json_is_number(node);
	return strcmp(type, "any") == 0;
}
