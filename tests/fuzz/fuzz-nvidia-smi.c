/*
 * fuzz-nvidia-smi.c - a pasted nvidia-smi output (table, -L, -q, /proc/driver/nvidia/version,
 * failures) read by nvidia_smi_parse, and its tree printed as inspect would.
 */
#include "config.h"

#include "fuzz.h"
#include "kernodeck/nvidia-smi.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kd_err err;
	json_t *out = NULL;

	if (nvidia_smi_parse((const char *)data, size, "nvidia-smi.txt", &out, &err) == 0)
		fuzz_emit(out);
	json_decref(out);
	return 0;
}
