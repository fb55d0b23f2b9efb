/*
 * fuzz-pipcheck.c - `pip check` output as pasted by a person or saved by
 * kernodeck (pipcheck_parse), and its tree printed as inspect would.
 */
#include "config.h"

#include "fuzz.h"
#include "kernodeck/parse-pipcheck.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kd_err err;
	json_t *out = NULL;

	if (pipcheck_parse((const char *)data, size, "pip-check.txt", &out, &err) == 0)
		fuzz_emit(out);
	json_decref(out);
	return 0;
}
