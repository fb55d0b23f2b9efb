/*
 * outputs.c - reading one output of the sample, whatever its format, into
 * comparison data with a description (see include/kernodeck/outputs.h).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/caps.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/npy.h"
#include "kernodeck/outputs.h"
#include "kernodeck/safetensors.h"
#include "kernodeck/tabular.h"

static int
ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

const char *
output_format_of(const char *path)
{
	if (ends_with(path, ".npy"))
		return "npy";
	if (ends_with(path, ".safetensors"))
		return "safetensors";
	if (ends_with(path, ".csv"))
		return "csv";
	if (ends_with(path, ".jsonl") || ends_with(path, ".ndjson"))
		return "jsonl";
	return NULL;
}

/* Statistics of the numeric values (strings are not counted). */
static void
describe_values(json_t *desc, const struct cmp_data *d)
{
	size_t n = d->rows * d->cols, count = 0, nan = 0, pinf = 0, ninf = 0, fin = 0;
	double mn = 0, mx = 0, sum = 0;

	for (size_t k = 0; k < n; k++) {
		double v = d->v[k];
		if (d->s != NULL && d->s[k] != NULL)
			continue;
		count++;
		if (isnan(v)) {
			nan++;
		} else if (isinf(v)) {
			if (v > 0)
				pinf++;
			else
				ninf++;
		} else {
			if (fin == 0 || v < mn)
				mn = v;
			if (fin == 0 || v > mx)
				mx = v;
			sum += v;
			fin++;
		}
	}
	json_object_set_new(desc, "count", json_integer((json_int_t)n));
	json_object_set_new(desc, "numeric", json_integer((json_int_t)count));
	json_object_set_new(desc, "nan", json_integer((json_int_t)nan));
	json_object_set_new(desc, "posinf", json_integer((json_int_t)pinf));
	json_object_set_new(desc, "neginf", json_integer((json_int_t)ninf));
	json_object_set_new(desc, "min", fin ? json_real(mn) : json_null());
	json_object_set_new(desc, "max", fin ? json_real(mx) : json_null());
	json_object_set_new(desc, "mean", fin ? json_real(sum / (double)fin) : json_null());
}

/* A tensor's values as rows x cols. */
static int
load_tensor(const char *path, const struct kd_tensor *t, struct kd_output *o,
	    struct kd_err *err)
{
	json_t *shape = json_array();
	int rc;

	for (int i = 0; i < t->ndim; i++)
		json_array_append_new(shape, json_integer((json_int_t)t->shape[i]));
	json_object_set_new(o->desc, "dtype", json_string(tensor_dtype_name(t->dtype)));
	json_object_set_new(o->desc, "shape", shape);
	if (t->name != NULL)
		json_object_set_new(o->desc, "tensor", json_string(t->name));
	if ((rc = tensor_load(path, t, &o->data.v, err)) != 0)
		return rc;
	if (t->ndim == 0) {
		o->data.rows = 1;
		o->data.cols = 1;
	} else {
		uint64_t rest = 1;
		for (int i = 1; i < t->ndim; i++)
			rest *= t->shape[i];
		o->data.rows = (size_t)t->shape[0];
		o->data.cols = (size_t)rest;
	}
	if (o->data.v == NULL)
		o->data.v = calloc(1, sizeof(double));
	return 0;
}

static int
load_npy(const char *path, struct kd_output *o, struct kd_err *err)
{
	struct kd_tensor t;
	struct npy_info info;
	int rc = npy_open(path, &t, &info, err);

	if (rc != 0)
		return rc;
	json_object_set_new(o->desc, "byte_order", json_string(t.big_endian ? "big" : "little"));
	json_object_set_new(o->desc, "fortran_order", json_boolean(t.fortran));
	return load_tensor(path, &t, o, err);
}

static int
load_safetensors(const char *path, const char *tensor, struct kd_output *o,
		 struct kd_err *err)
{
	struct st_file f;
	const struct kd_tensor *t = NULL;
	json_t *names = json_array();
	int rc = st_open(path, &f, err);

	if (rc != 0) {
		json_decref(names);
		return rc;
	}
	for (size_t i = 0; i < f.n; i++) {
		json_array_append_new(names, json_string(f.t[i].name));
		if (tensor == NULL && (t == NULL || f.t[i].offset < t->offset))
			t = &f.t[i];
	}
	json_object_set_new(o->desc, "tensors", names);
	if (tensor != NULL)
		t = st_find(&f, tensor);
	if (t == NULL)
		rc = kd_err_set(err, KD_EINPUT, path, 0, "%s: %s", path,
				tensor ? "no tensor by the name given in result.tensor"
				: "no tensor in the file");
	else
		rc = load_tensor(path, t, o, err);
	st_free(&f);
	return rc;
}

static int
load_table(const char *path, const char *format, const char *id_col,
	   struct kd_output *o, struct kd_err *err)
{
	struct tab t;
	int rc = strcmp(format, "csv") == 0 ? tab_load_csv(path, &t, err)
		 : tab_load_jsonl(path, &t, err);
	int idc = -1, mixed = 0;

	if (rc != 0)
		return rc;
	if (id_col != NULL) {
		idc = tab_column(&t, id_col);
		if (idc < 0) {
			tab_free(&t);
			return kd_err_set(err, KD_EINPUT, path, 1, "%s: no %s \"%s\" for the identifiers",
					  path, strcmp(format, "csv") == 0 ? "column" : "key", id_col);
		}
	}
	if (cmp_from_tab(&t, idc, &o->data) != 0) {
		tab_free(&t);
		return kd_err_set(err, KD_EENV, path, 0, "out of memory");
	}
	for (size_t k = 0; k < o->data.rows * o->data.cols; k++)
		if (o->data.s[k] != NULL)
			mixed = 1;
	json_object_set_new(o->desc, "dtype", json_string(mixed ? "mixed" : "number"));
	json_object_set_new(o->desc, "shape", json_pack("[I, I]", (json_int_t)o->data.rows,
							 (json_int_t)o->data.cols));
	json_object_set_new(o->desc, "columns", json_integer((json_int_t)t.ncols));
	tab_free(&t);
	return 0;
}

int
output_load(const char *path, const char *format, const char *tensor,
	    const char *id_col, struct kd_output *o, struct kd_err *err)
{
	int rc;

	memset(o, 0, sizeof *o);
	if (format == NULL)
		format = output_format_of(path);
	if (format == NULL)
		return kd_err_set(err, KD_EINPUT, path, 0,
				  "%s: unknown output format (npy, safetensors, csv or jsonl)", path);
	o->desc = json_pack("{s:s, s:s}", "file", path, "format", format);
	if (strcmp(format, "npy") == 0)
		rc = load_npy(path, o, err);
	else if (strcmp(format, "safetensors") == 0)
		rc = load_safetensors(path, tensor, o, err);
	else if (strcmp(format, "csv") == 0 || strcmp(format, "jsonl") == 0)
		rc = load_table(path, format, id_col, o, err);
	else
		rc = kd_err_set(err, KD_EINPUT, path, 0,
				"unknown output format \"%s\" (npy, safetensors, csv or jsonl)", format);
	if (rc != 0) {
		output_free(o);
		return rc;
	}
	describe_values(o->desc, &o->data);
	return 0;
}

void
output_free(struct kd_output *o)
{
	json_decref(o->desc);
	cmp_data_free(&o->data);
	memset(o, 0, sizeof *o);
}

int
output_read_ids(const char *path, char ***idsp, size_t *np, struct kd_err *err)
{
	char *buf, **ids = NULL;
	size_t len, n = 0, cap = 0, pos = 0;
	int rc;

	*idsp = NULL;
	*np = 0;
	if ((rc = fsutil_read_file(path, KD_CAP_TEXT_FILE, &buf, &len, err)) != 0)
		return rc;
	if (memchr(buf, '\0', len) != NULL) {
		free(buf);
		return kd_err_set(err, KD_EINPUT, path, 0, "%s: a NUL byte: not an identifiers file", path);
	}
	while (pos < len) {
		char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		size_t keep = ll;
		if (keep > 0 && buf[pos + keep - 1] == '\r')
			keep--;
		if (n == cap) {
			char **nv;
			cap = cap ? cap * 2 : 64;
			nv = realloc(ids, cap * sizeof *nv);
			if (nv == NULL) {
				output_free_ids(ids, n);
				free(buf);
				return kd_err_set(err, KD_EENV, path, 0, "out of memory");
			}
			ids = nv;
		}
		ids[n++] = strndup(buf + pos, keep);
		pos += ll + (nl != NULL);
	}
	free(buf);
	*idsp = ids;
	*np = n;
	return 0;
}

void
output_free_ids(char **ids, size_t n)
{
	for (size_t i = 0; ids != NULL && i < n; i++)
		free(ids[i]);
	free(ids);
}
