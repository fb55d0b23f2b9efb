/*
 * fuzz-collect-env.c - `python -m torch.utils.collect_env` output as pasted
 * into an issue (collect_env_parse), and its tree printed as inspect would.
 */
#include "config.h"

#include "fuzz.h"
#include "kernodeck/collect-env.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kd_err err;
	json_t *out = NULL;

	if (collect_env_parse((const char *)data, size, "collect_env.txt", &out, &err) == 0)
		fuzz_emit(out);
	json_decref(out);
	return 0;
}
