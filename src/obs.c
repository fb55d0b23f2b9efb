/*
 * obs.c - the table of every observation file's declared keys (the
 * obs-*.h headers), for the test that proves each is where its stage
 * writes it (tests/helpers/obs-keys.c).
 */
#include "config.h"

#include <string.h>

#include "kernodeck/obs.h"
#include "kernodeck/obs-compute.h"
#include "kernodeck/obs-contract.h"
#include "kernodeck/obs-dossier.h"
#include "kernodeck/obs-rebuild.h"
#include "kernodeck/obs-reference.h"
#include "kernodeck/obs-sample.h"
#include "kernodeck/obs-system.h"

static const struct kd_obs_key reference_keys[] = { KD_OBS_REFERENCE(KD_OBS_KEY) { NULL, NULL, 0 } };
static const struct kd_obs_key system_keys[] = { KD_OBS_SYSTEM(KD_OBS_KEY) { NULL, NULL, 0 } };
static const struct kd_obs_key rebuild_keys[] = { KD_OBS_REBUILD(KD_OBS_KEY) { NULL, NULL, 0 } };
static const struct kd_obs_key contract_keys[] = { KD_OBS_CONTRACT(KD_OBS_KEY) { NULL, NULL, 0 } };
static const struct kd_obs_key compute_keys[] = { KD_OBS_COMPUTE(KD_OBS_KEY) { NULL, NULL, 0 } };
static const struct kd_obs_key sample_keys[] = { KD_OBS_SAMPLE(KD_OBS_KEY) { NULL, NULL, 0 } };
static const struct kd_obs_key dossier_keys[] = { KD_OBS_DOSSIER(KD_OBS_KEY) { NULL, NULL, 0 } };

const struct kd_obs_file kd_obs_files[] = {
	{ "reference-obs.yaml", reference_keys },
	{ "system.yaml", system_keys },
	{ "rebuild.yaml", rebuild_keys },
	{ "contract.yaml", contract_keys },
	{ "compute.yaml", compute_keys },
	{ "sample.yaml", sample_keys },
	{ "dossier-obs.yaml", dossier_keys },
	{ NULL, NULL },
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
