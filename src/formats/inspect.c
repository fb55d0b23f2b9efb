/*
 * inspect.c - the kinds of `kernodeck inspect KIND FILE`, one table: see
 * inspect.h.
 */
#include "config.h"

#include <string.h>

#include "kernodeck/hash.h"
#include "kernodeck/inspect.h"
#include "kernodeck/secrets.h"

const struct kd_inspect_kind kd_inspect_kinds[] = {
	{ "collect-env", inspect_collect_env, NULL },
	{ "nvidia-smi", inspect_nvidia_smi, NULL },
	{ "requirements", inspect_requirements, inspect_print_requirements },
	{ "freeze", inspect_freeze, inspect_print_freeze },
	{ "pip-check", inspect_pip_check, inspect_print_pip_check },
	{ "pip-inspect", inspect_pip_inspect, NULL },
	{ "pylock", inspect_pylock, NULL },
	{ "uv-lock", inspect_uv_lock, NULL },
	{ "npy", inspect_npy, NULL },
	{ "safetensors", inspect_safetensors, NULL },
	{ "sha256", inspect_sha256, NULL },
	{ "secrets", inspect_secrets, NULL },
	{ NULL, NULL, NULL },
};

const struct kd_inspect_kind *
inspect_kind(const char *name)
{
	for (const struct kd_inspect_kind *k = kd_inspect_kinds; k->name != NULL; k++)
		if (strcmp(k->name, name) == 0)
			return k;
	return NULL;
}
