/*
 * tensor.h - the array model shared by the NPY and safetensors readers.
 *
 * A reader (npy.c, safetensors.c) validates a file's header and fills one
 * struct kd_tensor per array: its element type, byte order, layout, shape
 * and where its bytes lie in the file.  The functions here then read those
 * bytes: summary statistics streamed in chunks (so `inspect` on a large
 * weights file never holds it in memory), or the values as doubles in C
 * order (for the comparison of stage 6, capped at KD_CAP_TENSOR_ELEMS).
 *
 * Every element type is decoded to a double.  64-bit integers beyond 2^53
 * lose their low bits in that conversion; the comparison says so.
 */
#ifndef KD_TENSOR_H
#define KD_TENSOR_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "kernodeck/err.h"

#define KD_TENSOR_MAXDIM     32                     /* NumPy's own limit is 32 (64 in 2.x) */
#define KD_CAP_TENSOR_ELEMS  (64u * 1024 * 1024)    /* elements loaded in memory at once */

/* X(enum, name, size, kind) -- kind: 'b' bool, 'i' signed, 'u' unsigned, 'f' float. */
#define KD_DTYPE_INFO(X) \
	X(KD_DT_BOOL,    "bool",     1, 'b') \
	X(KD_DT_I8,      "int8",     1, 'i') \
	X(KD_DT_I16,     "int16",    2, 'i') \
	X(KD_DT_I32,     "int32",    4, 'i') \
	X(KD_DT_I64,     "int64",    8, 'i') \
	X(KD_DT_U8,      "uint8",    1, 'u') \
	X(KD_DT_U16,     "uint16",   2, 'u') \
	X(KD_DT_U32,     "uint32",   4, 'u') \
	X(KD_DT_U64,     "uint64",   8, 'u') \
	X(KD_DT_F16,     "float16",  2, 'f') \
	X(KD_DT_BF16,    "bfloat16", 2, 'f') \
	X(KD_DT_F32,     "float32",  4, 'f') \
	X(KD_DT_F64,     "float64",  8, 'f') \
	X(KD_DT_F8E4M3,  "float8_e4m3fn", 1, 'f') \
	X(KD_DT_F8E5M2,  "float8_e5m2",   1, 'f')

#define KD_DT_ENUM(e, n, s, k) e,
enum kd_dtype { KD_DTYPE_INFO(KD_DT_ENUM) KD_DT__COUNT };
#undef KD_DT_ENUM

const char *tensor_dtype_name(enum kd_dtype dt);
size_t tensor_dtype_size(enum kd_dtype dt);
/* By name ("float32"); also accepts NumPy short names ("f4", "<f4", "i8"). */
int tensor_dtype_parse(const char *name, enum kd_dtype *out);

struct kd_tensor {
	char *name;           /* safetensors: the tensor's key; NPY: NULL */
	enum kd_dtype dtype;
	int big_endian;       /* bytes stored most significant first */
	int fortran;          /* column-major layout (NPY fortran_order) */
	int ndim;
	uint64_t shape[KD_TENSOR_MAXDIM];
	uint64_t count;       /* product of shape (1 for a 0-d array) */
	uint64_t offset;      /* first data byte in the file */
	uint64_t nbytes;      /* count * element size */
};

struct kd_stats {
	uint64_t count, nan, posinf, neginf, finite;
	double min, max, sum;  /* over finite values; min > max when none */
};

/* Product of shape into *count; -1 on overflow (or over UINT64_MAX bytes
 * for elements of size esize). */
int tensor_count(const uint64_t *shape, int ndim, size_t esize, uint64_t *count);
/* Decode one element at p. */
double tensor_decode(const unsigned char *p, enum kd_dtype dt, int big_endian);
/* Stream the tensor's bytes from path and compute statistics. */
int tensor_stats(const char *path, const struct kd_tensor *t, struct kd_stats *st,
		 struct kd_err *err);
/* Read the tensor's values as doubles in C (row-major) order into a
 * malloc'd array of t->count elements (a 0-element tensor gives NULL and
 * returns 0).  Refuses tensors over KD_CAP_TENSOR_ELEMS. */
int tensor_load(const char *path, const struct kd_tensor *t, double **vals,
		struct kd_err *err);
/* {dtype, byte_order, fortran_order, shape, count, offset, nbytes} */
/* "[12, 16]" into buf. */
const char *tensor_shape_str(const struct kd_tensor *t, char *buf, size_t len);
json_t *tensor_header_json(const struct kd_tensor *t);
/* {count, nan, posinf, neginf, min, max, mean} (min/max/mean null when no
 * finite value). */
json_t *tensor_stats_json(const struct kd_stats *st);
void tensor_free(struct kd_tensor *t);

#endif
