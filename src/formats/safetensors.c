/*
 * safetensors.c - the .safetensors reader (see include/kernodeck/
 * safetensors.h for the format and the validation) and `kernodeck inspect
 * safetensors`.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/caps.h"
#include "kernodeck/inspect.h"
#include "kernodeck/safetensors.h"

static const struct {
	const char *name;
	enum kd_dtype dt;
} st_dtypes[] = {
	{ "BOOL", KD_DT_BOOL }, { "U8", KD_DT_U8 }, { "I8", KD_DT_I8 },
	{ "I16", KD_DT_I16 }, { "U16", KD_DT_U16 }, { "F16", KD_DT_F16 },
	{ "BF16", KD_DT_BF16 }, { "I32", KD_DT_I32 }, { "U32", KD_DT_U32 },
	{ "F32", KD_DT_F32 }, { "F64", KD_DT_F64 }, { "I64", KD_DT_I64 },
	{ "U64", KD_DT_U64 }, { "F8_E4M3", KD_DT_F8E4M3 }, { "F8_E5M2", KD_DT_F8E5M2 },
};

static int
st_dtype(const char *s, enum kd_dtype *dt)
{
	for (size_t i = 0; i < sizeof st_dtypes / sizeof st_dtypes[0]; i++)
		if (strcmp(s, st_dtypes[i].name) == 0) {
			*dt = st_dtypes[i].dt;
			return 0;
		}
	return -1;
}

/* A non-negative integer that fits. */
static int
st_uint(const json_t *v, uint64_t *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -1;
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* One tensor entry of the header into t. */
static int
st_entry(const char *key, const json_t *v, uint64_t base, uint64_t buflen,
	 const char *name, struct kd_tensor *t, uint64_t *begin, struct kd_err *err)
{
	const json_t *dt = json_object_get(v, "dtype");
	const json_t *shape = json_object_get(v, "shape");
	const json_t *offs = json_object_get(v, "data_offsets");
	uint64_t b, e;
	size_t i;

	if (!json_is_object(v) || !json_is_string(dt) || !json_is_array(shape) ||
	    !json_is_array(offs) || json_array_size(offs) != 2)
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "%s: tensor \"%s\" needs dtype (string), shape (list) and data_offsets ([begin, end])",
				  name, key);
	if (json_object_size(v) != 3)
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "%s: tensor \"%s\" has keys other than dtype, shape and data_offsets",
				  name, key);
	if (st_dtype(json_string_value(dt), &t->dtype) != 0)
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "%s: tensor \"%s\" has an unknown dtype \"%s\"",
				  name, key, json_string_value(dt));
	if (json_array_size(shape) > KD_TENSOR_MAXDIM)
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "%s: tensor \"%s\" has more than %d dimensions",
				  name, key, KD_TENSOR_MAXDIM);
	t->ndim = (int)json_array_size(shape);
	for (i = 0; i < json_array_size(shape); i++)
		if (st_uint(json_array_get(shape, i), &t->shape[i]) != 0)
			return kd_err_set(err, KD_EINPUT, name, 0,
					  "%s: tensor \"%s\": shape must hold non-negative integers",
					  name, key);
	if (st_uint(json_array_get(offs, 0), &b) != 0 ||
	    st_uint(json_array_get(offs, 1), &e) != 0 || e < b)
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "%s: tensor \"%s\": data_offsets must be [begin, end] with 0 <= begin <= end",
				  name, key);
	if (tensor_count(t->shape, t->ndim, tensor_dtype_size(t->dtype), &t->count) != 0)
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "%s: tensor \"%s\": its shape times the size of %s overflows "
				  "64 bits: not a real tensor (a corrupt or hostile header)",
				  name, key, json_string_value(dt));
	if (t->count * tensor_dtype_size(t->dtype) != e - b)
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "%s: tensor \"%s\": %llu bytes between its offsets, but %s x shape needs %llu",
				  name, key, (unsigned long long)(e - b), json_string_value(dt),
				  (unsigned long long)(t->count * tensor_dtype_size(t->dtype)));
	if (e > buflen)
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "%s: tensor \"%s\" ends at byte %llu of the data, past its end (%llu bytes): truncated or inconsistent",
				  name, key, (unsigned long long)e, (unsigned long long)buflen);
	t->name = strdup(key);
	t->big_endian = 0;
	t->fortran = 0;
	t->offset = base + b;
	t->nbytes = e - b;
	*begin = b;
	return 0;
}

struct span {
	uint64_t b, e;
	size_t k;
};

static int
span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	if (x->e != y->e)
		return x->e < y->e ? -1 : 1;
	return 0;
}

/* Tensors must tile the buffer: sorted by offset, each starts where the
 * previous ended, and the last ends at the buffer's end. */
static int
st_tiling(struct st_file *f, uint64_t base, uint64_t buflen, const char *name,
	  struct kd_err *err)
{
	struct span *sp = calloc(f->n ? f->n : 1, sizeof *sp);
	uint64_t at = 0;
	int rc = 0;

	if (sp == NULL)
		return kd_err_set(err, KD_EENV, name, 0, "out of memory");
	for (size_t i = 0; i < f->n; i++) {
		sp[i].b = f->t[i].offset - base;
		sp[i].e = sp[i].b + f->t[i].nbytes;
		sp[i].k = i;
	}
	qsort(sp, f->n, sizeof *sp, span_cmp);
	for (size_t i = 0; i < f->n && rc == 0; i++) {
		if (sp[i].b < at)
			rc = kd_err_set(err, KD_EINPUT, name, 0,
					"%s: tensor \"%s\" overlaps the tensor before it (bytes %llu..%llu)",
					name, f->t[sp[i].k].name, (unsigned long long)sp[i].b,
					(unsigned long long)at);
		else if (sp[i].b > at)
			rc = kd_err_set(err, KD_EINPUT, name, 0,
					"%s: a hole of %llu bytes before tensor \"%s\" (the data must be covered exactly)",
					name, (unsigned long long)(sp[i].b - at), f->t[sp[i].k].name);
		at = sp[i].e;
	}
	if (rc == 0 && at != buflen)
		rc = kd_err_set(err, KD_EINPUT, name, 0,
				"%s: inconsistent: %llu bytes of data after the last tensor",
				name, (unsigned long long)(buflen - at));
	free(sp);
	return rc;
}

int
st_parse_header(const char *hdr, size_t len, uint64_t base, uint64_t buflen,
		const char *name, struct st_file *f, struct kd_err *err)
{
	json_error_t je;
	json_t *root;
	const char *key;
	json_t *v;
	uint64_t begin;
	int rc = 0;

	memset(f, 0, sizeof *f);
	f->header_len = len;
	if (len == 0 || hdr[0] != '{')
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "%s: the safetensors header must start with '{'", name);
	root = json_loadb(hdr, len, JSON_REJECT_DUPLICATES, &je);
	if (root == NULL)
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "%s: safetensors header is not valid JSON at byte %d: %s",
				  name, je.position, je.text);
	if (!json_is_object(root)) {
		json_decref(root);
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "%s: the safetensors header must be a JSON object", name);
	}
	f->t = calloc(json_object_size(root) + 1, sizeof *f->t);
	if (f->t == NULL) {
		json_decref(root);
		return kd_err_set(err, KD_EENV, name, 0, "out of memory");
	}
	json_object_foreach(root, key, v) {
		if (strcmp(key, "__metadata__") == 0) {
			const char *mk;
			json_t *mv;
			if (!json_is_object(v)) {
				rc = kd_err_set(err, KD_EINPUT, name, 0,
						"%s: __metadata__ must be an object of strings", name);
				break;
			}
			json_object_foreach(v, mk, mv)
				if (!json_is_string(mv))
					rc = kd_err_set(err, KD_EINPUT, name, 0,
							"%s: __metadata__ value \"%s\" is not a string",
							name, mk);
			if (rc != 0)
				break;
			f->metadata = json_incref(v);
			continue;
		}
		rc = st_entry(key, v, base, buflen, name, &f->t[f->n], &begin, err);
		if (rc != 0) {
			tensor_free(&f->t[f->n]);
			break;
		}
		f->n++;
	}
	json_decref(root);
	if (rc == 0)
		rc = st_tiling(f, base, buflen, name, err);
	if (rc != 0)
		st_free(f);
	return rc;
}

int
st_open(const char *path, struct st_file *f, struct kd_err *err)
{
	unsigned char pre[8];
	struct stat st;
	uint64_t n = 0;
	char *hdr = NULL;
	ssize_t got;
	int fd, rc = KD_EINPUT;

	memset(f, 0, sizeof *f);
	if ((fd = fsutil_open_regular(path, &st, err)) < 0)
		return KD_EINPUT;
	if (st.st_size < 8 || pread(fd, pre, 8, 0) != 8) {
		kd_err_set(err, KD_EINPUT, path, 0,
			   "%s: too short to be a safetensors file (%lld bytes)",
			   path, (long long)st.st_size);
		goto out;
	}
	for (int i = 7; i >= 0; i--)
		n = n << 8 | pre[i];
	if (n > KD_CAP_SAFETENSORS_HEADER) {
		kd_err_set(err, KD_EINPUT, path, 0,
			   "%s: safetensors header of %llu bytes is over the cap of %u bytes (KD_CAP_SAFETENSORS_HEADER)",
			   path, (unsigned long long)n, KD_CAP_SAFETENSORS_HEADER);
		goto out;
	}
	if (n > (uint64_t)st.st_size - 8) {
		kd_err_set(err, KD_EINPUT, path, 0,
			   "%s: truncated: the header announces %llu bytes but the file holds %lld after the length",
			   path, (unsigned long long)n, (long long)st.st_size - 8);
		goto out;
	}
	hdr = malloc(n + 1);
	if (hdr == NULL) {
		rc = kd_err_set(err, KD_EENV, path, 0, "out of memory");
		goto out;
	}
	got = pread(fd, hdr, n, 8);
	if (got < 0 || (uint64_t)got != n) {
		rc = kd_err_sys(err, KD_EENV, path, errno, "%s: cannot read the header", path);
		goto out;
	}
	rc = st_parse_header(hdr, n, 8 + n, (uint64_t)st.st_size - 8 - n, path, f, err);
out:
	free(hdr);
	close(fd);
	return rc;
}

const struct kd_tensor *
st_find(const struct st_file *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->t[i].name, name) == 0)
			return &f->t[i];
	return NULL;
}

void
st_free(struct st_file *f)
{
	for (size_t i = 0; i < f->n; i++)
		tensor_free(&f->t[i]);
	free(f->t);
	json_decref(f->metadata);
	memset(f, 0, sizeof *f);
}

/* `kernodeck inspect safetensors FILE`: each tensor's header and summary
 * statistics, and the metadata. */
int
inspect_safetensors(const char *path, json_t **out, struct kd_err *err)
{
	struct st_file f;
	struct kd_stats st;
	json_t *o, *arr;
	int rc;

	*out = NULL;
	if ((rc = st_open(path, &f, err)) != 0)
		return rc;
	o = json_object();
	arr = json_array();
	json_object_set_new(o, "file", json_string(path));
	json_object_set_new(o, "format", json_string("safetensors"));
	json_object_set_new(o, "header_len", json_integer((json_int_t)f.header_len));
	json_object_set_new(o, "metadata", f.metadata ? json_deep_copy(f.metadata) : json_null());
	for (size_t i = 0; i < f.n; i++) {
		json_t *e = tensor_header_json(&f.t[i]);
		if ((rc = tensor_stats(path, &f.t[i], &st, err)) != 0)
			break;
		json_object_set_new(e, "stats", tensor_stats_json(&st));
		json_array_append_new(arr, e);
	}
	json_object_set_new(o, "tensors", arr);
	st_free(&f);
	if (rc != 0) {
		json_decref(o);
		return rc;
	}
	*out = o;
	return 0;
}
