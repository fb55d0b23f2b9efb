/*
 * safetensors.h - .safetensors files, read against the format's
 * specification (huggingface/safetensors): an 8-byte little-endian header
 * length N, N bytes of a JSON object (UTF-8, possibly padded with spaces)
 * mapping each tensor name to {"dtype", "shape", "data_offsets": [begin,
 * end]} plus an optional "__metadata__" of strings, then the byte buffer.
 *
 * Validation, as the reference implementation does it: the header within
 * KD_CAP_SAFETENSORS_HEADER and the file, valid JSON without repeated keys,
 * known dtypes (F64 F32 F16 BF16 I64 I32 I16 I8 U64 U32 U16 U8 BOOL
 * F8_E4M3 F8_E5M2), each tensor's byte size equal to dtype size x shape,
 * offsets inside the buffer, and tensors that cover the buffer exactly:
 * no overlap, no hole, nothing after the last one.
 */
#ifndef KD_SAFETENSORS_H
#define KD_SAFETENSORS_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"
#include "kernodeck/tensor.h"

struct st_file {
	struct kd_tensor *t;   /* in the header's order */
	size_t n;
	json_t *metadata;      /* "__metadata__" object, or NULL */
	uint64_t header_len;
};

int st_open(const char *path, struct st_file *f, struct kd_err *err);
/* Validate a header held in memory against a buffer of buflen bytes that
 * starts at file offset base.  Exposed for tests and the fuzz target. */
int st_parse_header(const char *hdr, size_t len, uint64_t base, uint64_t buflen,
		    const char *name, struct st_file *f, struct kd_err *err);
/* The tensor called name, or NULL. */
const struct kd_tensor *st_find(const struct st_file *f, const char *name);
void st_free(struct st_file *f);

#endif
