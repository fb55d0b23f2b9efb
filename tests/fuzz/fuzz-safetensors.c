/*
 * fuzz-safetensors.c - .safetensors files.  The input is parsed twice: as a
 * JSON header alone against a buffer whose size the first byte chooses
 * (st_parse_header), and as a whole file through a memory file
 * (inspect_safetensors: length prefix, header, coverage of the buffer,
 * statistics of every tensor; then st_open and tensor_load of each tensor).
 */
#include "config.h"

#include "fuzz.h"
#include "kernodeck/inspect.h"
#include "kernodeck/safetensors.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct st_file f;
	struct kd_err err;
	json_t *out = NULL;
	const char *path;
	size_t i;

	if (size > 1) {
		memset(&f, 0, sizeof f);
		(void)st_parse_header((const char *)data + 1, size - 1, 8 + size - 1,
				      (uint64_t)data[0] * 4, "header", &f, &err);
		st_free(&f);
	}

	path = fuzz_memfile(data, size);
	if (inspect_safetensors(path, &out, &err) == 0)
		fuzz_emit(out);
	json_decref(out);

	memset(&f, 0, sizeof f);
	if (st_open(path, &f, &err) == 0) {
		for (i = 0; i < f.n; i++) {
			double *vals = NULL;
			if (f.t[i].count > 4096)
				continue;
			(void)tensor_load(path, &f.t[i], &vals, &err);
			free(vals);
		}
	}
	st_free(&f);
	return 0;
}
