/*
 * fuzz-npy.c - NumPy .npy files.  The input is parsed twice: as a header
 * dict alone (npy_parse_header), and as a whole file through a memory file
 * (inspect_npy: preamble, header, size checks, statistics over the data;
 * then npy_open and tensor_load, as stage 6 reads an output).
 */
#include "config.h"

#include "fuzz.h"
#include "kernodeck/inspect.h"
#include "kernodeck/npy.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kd_tensor t;
	struct npy_info info;
	struct kd_err err;
	char descr[32];
	json_t *out = NULL;
	double *vals = NULL;
	const char *path;

	memset(&t, 0, sizeof t);
	(void)npy_parse_header((const char *)data, size, "header", &t, descr, sizeof descr,
			       &err);
	tensor_free(&t);

	path = fuzz_memfile(data, size);
	if (inspect_npy(path, &out, &err) == 0)
		fuzz_emit(out);
	json_decref(out);

	memset(&t, 0, sizeof t);
	if (npy_open(path, &t, &info, &err) == 0 && t.count <= 4096) {
		(void)tensor_load(path, &t, &vals, &err);
		free(vals);
	}
	tensor_free(&t);
	return 0;
}
