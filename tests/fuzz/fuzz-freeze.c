/*
 * fuzz-freeze.c - `pip freeze` output as pasted by a person or saved by
 * kernodeck (freeze_parse), and its tree printed as inspect would.
 */
#include "config.h"

#include "fuzz.h"
#include "kernodeck/parse-freeze.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kd_err err;
	json_t *out = NULL;

	if (freeze_parse((const char *)data, size, "freeze.txt", &out, &err) == 0)
		fuzz_emit(out);
	json_decref(out);
	return 0;
}
