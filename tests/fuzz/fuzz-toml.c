/*
 * fuzz-toml.c - a TOML document (toml_parse), its tree printed as inspect
 * would; the same bytes as a PEP 751 pylock.toml and as a uv.lock
 * (pylock_parse, uvlock_parse: a reference's python.inventory).
 */
#include "config.h"

#include "fuzz.h"
#include "kernodeck/pylock.h"
#include "kernodeck/toml.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kd_err err;
	json_t *out = NULL;

	if (toml_parse((const char *)data, size, "fuzz.toml", &out, &err) == 0)
		fuzz_emit(out);
	json_decref(out);
	out = NULL;
	if (pylock_parse((const char *)data, size, "pylock.toml", &out, &err) == 0)
		fuzz_emit(out);
	json_decref(out);
	out = NULL;
	if (uvlock_parse((const char *)data, size, "uv.lock", &out, &err) == 0)
		fuzz_emit(out);
	json_decref(out);
	return 0;
}
