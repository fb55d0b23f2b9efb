/*
 * fuzz-requirements.c - a requirements file (requirements_parse: memory
 * only, nothing on disk is read), linted both the default way and strict,
 * with its findings counted and its tree printed as inspect would.
 */
#include "config.h"

#include "fuzz.h"
#include "kernodeck/parse-requirements.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kd_err err;
	json_t *out = NULL;

	if (requirements_parse((const char *)data, size, "requirements.txt", &out, &err) == 0) {
		(void)requirements_count(out, "fail");
		(void)requirements_count(out, "warn");
		fuzz_emit(out);
	}
	json_decref(out);
	out = NULL;
	if (requirements_parse_ex((const char *)data, size, "requirements.txt", NULL,
				  REQ_STRICT, &out, &err) == 0)
		(void)requirements_count(out, "fail");
	json_decref(out);
	return 0;
}
