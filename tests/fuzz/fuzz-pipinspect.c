/*
 * fuzz-pipinspect.c - `pip inspect` JSON as pasted by a person or saved by
 * kernodeck (pipinspect_parse), and its tree printed as inspect would.
 */
#include "config.h"

#include "fuzz.h"
#include "kernodeck/parse-inspect.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kd_err err;
	json_t *out = NULL;

	if (pipinspect_parse((const char *)data, size, "inspect.json", &out, &err) == 0)
		fuzz_emit(out);
	json_decref(out);
	return 0;
}
