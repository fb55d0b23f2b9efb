/*
 * fuzz-toml.c - a TOML document (toml_parse: pylock.toml, uv.lock, a
 * reference's python.inventory), its tree printed as inspect would.
 */
#include "config.h"

#include "fuzz.h"
#include "kernodeck/toml.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kd_err err;
	json_t *out = NULL;

	if (toml_parse((const char *)data, size, "fuzz.toml", &out, &err) == 0)
		fuzz_emit(out);
	json_decref(out);
	return 0;
}
