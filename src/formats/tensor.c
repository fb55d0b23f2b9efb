/*
 * tensor.c - element types, decoding, statistics and loading of arrays
 * whose headers npy.c and safetensors.c have validated.
 *
 * The data is read with pread in chunks of TENSOR_CHUNK bytes, so the
 * statistics of a multi-gigabyte weights file need little memory.  A file
 * that turns out shorter than its header said (it shrank after the header
 * was checked) is an input error, never a crash.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/tensor.h"

#define TENSOR_CHUNK (1u << 20)

#define KD_DT_NAME(e, n, s, k) n,
#define KD_DT_SIZE(e, n, s, k) s,
static const char *const dt_names[] = { KD_DTYPE_INFO(KD_DT_NAME) };
static const unsigned char dt_sizes[] = { KD_DTYPE_INFO(KD_DT_SIZE) };

const char *
tensor_dtype_name(enum kd_dtype dt)
{
	return (unsigned)dt < KD_DT__COUNT ? dt_names[dt] : "?";
}

size_t
tensor_dtype_size(enum kd_dtype dt)
{
	return (unsigned)dt < KD_DT__COUNT ? dt_sizes[dt] : 0;
}

int
tensor_dtype_parse(const char *name, enum kd_dtype *out)
{
	static const struct { const char *s; enum kd_dtype dt; } alias[] = {
		{ "b1", KD_DT_BOOL }, { "?", KD_DT_BOOL },
		{ "i1", KD_DT_I8 }, { "i2", KD_DT_I16 }, { "i4", KD_DT_I32 }, { "i8", KD_DT_I64 },
		{ "u1", KD_DT_U8 }, { "u2", KD_DT_U16 }, { "u4", KD_DT_U32 }, { "u8", KD_DT_U64 },
		{ "f2", KD_DT_F16 }, { "f4", KD_DT_F32 }, { "f8", KD_DT_F64 },
		{ "half", KD_DT_F16 }, { "float", KD_DT_F32 }, { "double", KD_DT_F64 },
	};

	if (name == NULL)
		return -1;
	if (name[0] == '<' || name[0] == '>' || name[0] == '|' || name[0] == '=')
		name++;
	for (int i = 0; i < KD_DT__COUNT; i++)
		if (strcmp(name, dt_names[i]) == 0) {
			*out = (enum kd_dtype)i;
			return 0;
		}
	for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
		if (strcmp(name, alias[i].s) == 0) {
			*out = alias[i].dt;
			return 0;
		}
	return -1;
}

int
tensor_count(const uint64_t *shape, int ndim, size_t esize, uint64_t *count)
{
	uint64_t n = 1;

	for (int i = 0; i < ndim; i++) {
		if (shape[i] != 0 && n > UINT64_MAX / shape[i])
			return -1;
		n *= shape[i];
	}
	if (esize > 0 && n > UINT64_MAX / esize)
		return -1;
	*count = n;
	return 0;
}

static uint64_t
load_uint(const unsigned char *p, size_t n, int big)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
	return v;
}

/* IEEE-like minifloat with the given exponent and mantissa widths; fn:
 * the "finite" variant (no infinity; all-ones is NaN), as in e4m3fn. */
static double
decode_minifloat(uint64_t bits, int ebits, int mbits, int fn)
{
	int sign = (int)(bits >> (ebits + mbits)) & 1;
	int e = (int)(bits >> mbits) & ((1 << ebits) - 1);
	uint64_t m = bits & ((1u << mbits) - 1);
	int bias = (1 << (ebits - 1)) - 1;
	double v;

	if (fn) {
		if (e == (1 << ebits) - 1 && m == ((1u << mbits) - 1))
			return NAN;
	} else if (e == (1 << ebits) - 1) {
		if (m != 0)
			return NAN;
		return sign ? -INFINITY : INFINITY;
	}
	if (e == 0)
		v = ldexp((double)m, 1 - bias - mbits);
	else
		v = ldexp((double)(m | (1u << mbits)), e - bias - mbits);
	return sign ? -v : v;
}

double
tensor_decode(const unsigned char *p, enum kd_dtype dt, int big)
{
	uint64_t u = load_uint(p, tensor_dtype_size(dt), big);
	union { uint32_t u; float f; } f32;
	union { uint64_t u; double d; } f64;

	switch (dt) {
	case KD_DT_BOOL: return u != 0;
	case KD_DT_I8: return (double)(int8_t)u;
	case KD_DT_I16: return (double)(int16_t)u;
	case KD_DT_I32: return (double)(int32_t)u;
	case KD_DT_I64: return (double)(int64_t)u;
	case KD_DT_U8: case KD_DT_U16: case KD_DT_U32: case KD_DT_U64:
		return (double)u;
	case KD_DT_F16: return decode_minifloat(u, 5, 10, 0);
	case KD_DT_BF16:
		f32.u = (uint32_t)u << 16;
		return f32.f;
	case KD_DT_F32:
		f32.u = (uint32_t)u;
		return f32.f;
	case KD_DT_F64:
		f64.u = u;
		return f64.d;
	case KD_DT_F8E4M3: return decode_minifloat(u, 4, 3, 1);
	case KD_DT_F8E5M2: return decode_minifloat(u, 5, 2, 0);
	default: return NAN;
	}
}

/* Read len bytes at off, all of them, or fail naming the file. */
static int
read_at(int fd, const char *path, unsigned char *buf, size_t len, uint64_t off,
	struct kd_err *err)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, (off_t)(off + got));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return kd_err_sys(err, KD_EENV, path, errno, "%s: cannot read", path);
		}
		if (n == 0)
			return kd_err_set(err, KD_EINPUT, path, 0,
					  "%s: truncated: the data ends at byte %llu, before the %llu bytes its header announces",
					  path, (unsigned long long)(off + got),
					  (unsigned long long)(off + len));
		got += (size_t)n;
	}
	return 0;
}

/* Call fn on each element, in storage order, chunk by chunk. */
static int
tensor_walk(const char *path, const struct kd_tensor *t,
	    void (*fn)(void *u, double v), void *u, struct kd_err *err)
{
	size_t es = tensor_dtype_size(t->dtype);
	size_t chunk = TENSOR_CHUNK - TENSOR_CHUNK % es;
	unsigned char *buf;
	uint64_t done = 0;
	int fd, rc = 0;

	if (t->nbytes == 0)
		return 0;
	if ((fd = fsutil_open_regular(path, NULL, err)) < 0)
		return KD_EINPUT;
	buf = malloc(chunk);
	if (buf == NULL) {
		close(fd);
		return kd_err_set(err, KD_EENV, path, 0, "out of memory");
	}
	while (done < t->nbytes) {
		size_t n = t->nbytes - done < chunk ? (size_t)(t->nbytes - done) : chunk;
		if ((rc = read_at(fd, path, buf, n, t->offset + done, err)) != 0)
			break;
		for (size_t i = 0; i < n; i += es)
			fn(u, tensor_decode(buf + i, t->dtype, t->big_endian));
		done += n;
	}
	free(buf);
	close(fd);
	return rc;
}

static void
stats_add(void *u, double v)
{
	struct kd_stats *st = u;

	st->count++;
	if (isnan(v)) {
		st->nan++;
	} else if (isinf(v)) {
		if (v > 0)
			st->posinf++;
		else
			st->neginf++;
	} else {
		if (st->finite == 0 || v < st->min)
			st->min = v;
		if (st->finite == 0 || v > st->max)
			st->max = v;
		st->sum += v;
		st->finite++;
	}
}

int
tensor_stats(const char *path, const struct kd_tensor *t, struct kd_stats *st,
	     struct kd_err *err)
{
	memset(st, 0, sizeof *st);
	st->min = 1;
	st->max = 0;
	return tensor_walk(path, t, stats_add, st, err);
}

/* Loading: a Fortran-ordered tensor is stored first index fastest; each
 * element goes to its C-order place, found by carrying a multi-index. */
struct loader {
	const struct kd_tensor *t;
	double *out;
	uint64_t k;                      /* storage index (C order) */
	uint64_t idx[KD_TENSOR_MAXDIM];  /* Fortran: current multi-index */
	uint64_t cstride[KD_TENSOR_MAXDIM];
	uint64_t coff;                   /* Fortran: C offset of idx */
};

static void
load_add(void *u, double v)
{
	struct loader *l = u;
	const struct kd_tensor *t = l->t;

	if (!t->fortran || t->ndim < 2) {
		l->out[l->k++] = v;
		return;
	}
	l->out[l->coff] = v;
	for (int d = 0; d < t->ndim; d++) {
		l->idx[d]++;
		l->coff += l->cstride[d];
		if (l->idx[d] < t->shape[d])
			break;
		l->coff -= l->idx[d] * l->cstride[d];
		l->idx[d] = 0;
	}
}

int
tensor_load(const char *path, const struct kd_tensor *t, double **vals,
	    struct kd_err *err)
{
	struct loader l;
	int rc;

	*vals = NULL;
	if (t->count == 0)
		return 0;
	if (t->count > KD_CAP_TENSOR_ELEMS)
		return kd_err_set(err, KD_EINPUT, path, 0,
				  "%s: %llu elements is over the %u kept in memory for a comparison (KD_CAP_TENSOR_ELEMS)",
				  path, (unsigned long long)t->count, KD_CAP_TENSOR_ELEMS);
	memset(&l, 0, sizeof l);
	l.t = t;
	l.out = malloc((size_t)t->count * sizeof(double));
	if (l.out == NULL)
		return kd_err_set(err, KD_EENV, path, 0, "out of memory");
	if (t->ndim > 0) {
		l.cstride[t->ndim - 1] = 1;
		for (int d = t->ndim - 2; d >= 0; d--)
			l.cstride[d] = l.cstride[d + 1] * t->shape[d + 1];
	}
	rc = tensor_walk(path, t, load_add, &l, err);
	if (rc != 0) {
		free(l.out);
		return rc;
	}
	*vals = l.out;
	return 0;
}

const char *
tensor_shape_str(const struct kd_tensor *t, char *buf, size_t len)
{
	size_t o = 0;

	o += (size_t)snprintf(buf, len, "[");
	for (int i = 0; i < t->ndim && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%llu", i ? ", " : "",
				      (unsigned long long)t->shape[i]);
	if (o < len)
		snprintf(buf + o, len - o, "]");
	return buf;
}

json_t *
tensor_header_json(const struct kd_tensor *t)
{
	json_t *o = json_object(), *shape = json_array();

	for (int i = 0; i < t->ndim; i++)
		json_array_append_new(shape, json_integer((json_int_t)t->shape[i]));
	if (t->name != NULL)
		json_object_set_new(o, "name", json_string(t->name));
	json_object_set_new(o, "dtype", json_string(tensor_dtype_name(t->dtype)));
	json_object_set_new(o, "byte_order",
			    json_string(tensor_dtype_size(t->dtype) == 1 ? "not applicable"
					: t->big_endian ? "big" : "little"));
	json_object_set_new(o, "fortran_order", json_boolean(t->fortran));
	json_object_set_new(o, "shape", shape);
	json_object_set_new(o, "count", json_integer((json_int_t)t->count));
	json_object_set_new(o, "offset", json_integer((json_int_t)t->offset));
	json_object_set_new(o, "nbytes", json_integer((json_int_t)t->nbytes));
	return o;
}

json_t *
tensor_stats_json(const struct kd_stats *st)
{
	json_t *o = json_object();

	json_object_set_new(o, "count", json_integer((json_int_t)st->count));
	json_object_set_new(o, "nan", json_integer((json_int_t)st->nan));
	json_object_set_new(o, "posinf", json_integer((json_int_t)st->posinf));
	json_object_set_new(o, "neginf", json_integer((json_int_t)st->neginf));
	if (st->finite > 0) {
		json_object_set_new(o, "min", json_real(st->min));
		json_object_set_new(o, "max", json_real(st->max));
		json_object_set_new(o, "mean", json_real(st->sum / (double)st->finite));
	} else {
		json_object_set_new(o, "min", json_null());
		json_object_set_new(o, "max", json_null());
		json_object_set_new(o, "mean", json_null());
	}
	return o;
}

void
tensor_free(struct kd_tensor *t)
{
	free(t->name);
	t->name = NULL;
}
