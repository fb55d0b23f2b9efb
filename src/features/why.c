/*
 * why.c - trajectories and tensors compared as such, and the ranking of
 * the causes of a different result (why.h).
 *
 * The comparison is bit for bit (and, for tensors, also under the
 * reference's declared rule): two runs of the same code on the same
 * machine give the same numbers, so the first step where a value moves in
 * its last bit is where the runs part.  Whether that is within a declared
 * rule is the sample stage's verdict on each side; diff says where and by
 * how much.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/caps.h"
#include "kernodeck/compare.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/npy.h"
#include "kernodeck/tensor.h"
#include "kernodeck/why.h"

#define KD_CAP_WHY_STEPS 1000000   /* steps of one trajectory kept */

/* One trajectory: its records by line, in file order. */
struct traj {
	json_t *recs;   /* [{step, ...}] */
};

static int
traj_read(const char *path, struct traj *t, struct kd_err *err)
{
	char *buf = NULL, *p, *nl;
	size_t len = 0;
	int rc, line = 0;

	t->recs = json_array();
	if ((rc = fsutil_read_file(path, KD_CAP_TEXT_FILE, &buf, &len, err)) != 0)
		return rc;
	for (p = buf; p != NULL && p < buf + len; p = nl ? nl + 1 : NULL) {
		json_t *o;
		json_error_t je;
		nl = memchr(p, '\n', (size_t)(buf + len - p));
		line++;
		if (nl == NULL && p == buf + len)
			break;
		o = json_loadb(p, (size_t)((nl ? nl : buf + len) - p), 0, &je);
		if (!json_is_object(o) || !json_is_integer(json_object_get(o, "step"))) {
			json_decref(o);
			if (nl == NULL)
				break;   /* a last line cut off, as a killed run leaves it */
			rc = kd_err_set(err, KD_EINPUT, path, line,
					"not a metrics line ({\"step\": N, ...})");
			break;
		}
		if (json_array_size(t->recs) >= KD_CAP_WHY_STEPS) {
			json_decref(o);
			rc = kd_err_set(err, KD_EINPUT, path, line, "more than %d steps",
					KD_CAP_WHY_STEPS);
			break;
		}
		json_array_append_new(t->recs, o);
	}
	free(buf);
	return rc;
}

json_t *
why_trajectory(const char *label, const char *path_a, const char *path_b, struct kd_err *err)
{
	struct traj a = { 0 }, b = { 0 };
	json_t *r = NULL, *first = NULL;
	double largest = 0;
	json_int_t largest_step = 0;
	const char *largest_key = NULL;
	size_t n, i;

	if (traj_read(path_a, &a, err) != 0 || traj_read(path_b, &b, err) != 0)
		goto out;
	n = json_array_size(a.recs) < json_array_size(b.recs) ? json_array_size(a.recs) :
	    json_array_size(b.recs);
	for (i = 0; i < n; i++) {
		json_t *ra = json_array_get(a.recs, i), *rb = json_array_get(b.recs, i), *va;
		const char *k;
		json_int_t sa = json_integer_value(json_object_get(ra, "step"));
		json_int_t sb = json_integer_value(json_object_get(rb, "step"));
		if (sa != sb) {
			if (first == NULL)
				first = json_pack("{s:I s:s s:I s:I}", "step", sa < sb ? sa : sb,
						  "key", "step", "a", sa, "b", sb);
			break;
		}
		json_object_foreach(ra, k, va) {
			json_t *vb = json_object_get(rb, k);
			if (strcmp(k, "step") == 0 || !json_is_number(va))
				continue;
			if (!json_is_number(vb)) {
				if (first == NULL)
					first = json_pack("{s:I s:s s:O s:n}", "step", sa, "key", k,
							  "a", va, "b");
				continue;
			}
			double x = json_number_value(va), y = json_number_value(vb);
			if (x == y || (isnan(x) && isnan(y)))
				continue;
			if (first == NULL)
				first = json_pack("{s:I s:s s:O s:O}", "step", sa, "key", k, "a", va,
						  "b", vb);
			if (fabs(x - y) > largest || isnan(x - y)) {
				largest = fabs(x - y);
				largest_step = sa;
				largest_key = k;
			}
		}
	}
	if (first == NULL && json_array_size(a.recs) != json_array_size(b.recs)) {
		/* one side goes on: they part at the first step the other lacks */
		const json_t *longer = json_array_size(a.recs) > n ? a.recs : b.recs;
		first = json_pack("{s:O s:s s:O s:O}", "step",
				  json_object_get(json_array_get(longer, n), "step"), "key", "step",
				  "a", json_array_size(a.recs) > n ? json_object_get(
				  json_array_get(a.recs, n), "step") : json_null(), "b",
				  json_array_size(b.recs) > n ? json_object_get(
				  json_array_get(b.recs, n), "step") : json_null());
	}
	if (first == NULL)
		goto out;
	r = json_pack("{s:s s:s s:I s:I s:O s:O s:O s:O}", "key", label, "change", "trajectory",
		      "steps_a", (json_int_t)json_array_size(a.recs), "steps_b",
		      (json_int_t)json_array_size(b.recs), "first_step",
		      json_object_get(first, "step"), "first_key", json_object_get(first, "key"),
		      "a", json_object_get(first, "a"), "b", json_object_get(first, "b"));
	if (largest_key != NULL) {
		json_object_set_new(r, "largest", json_real(largest));
		json_object_set_new(r, "largest_step", json_integer(largest_step));
		json_object_set_new(r, "largest_key", json_string(largest_key));
	}
	json_decref(first);
out:
	json_decref(a.recs);
	json_decref(b.recs);
	return r;
}

/* The two tensors (same shape) under the declared rule, a the reference:
 * rows the first dimension, the rest flattened. */
static json_t *
under_rule(const json_t *rule, const struct kd_tensor *t, double *va, double *vb)
{
	struct cmp_rule r;
	struct cmp_data a, b;
	struct cmp_report cr;
	char why[512];
	size_t rows = t->ndim > 0 && t->shape[0] > 0 ? (size_t)t->shape[0] : 1;

	if (cmp_rule_parse(rule, &r, why, sizeof why) != 0)
		return json_pack("{s:s}", "error", why);
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	a.rows = b.rows = rows;
	a.cols = b.cols = (size_t)t->count / rows;
	a.v = va;
	b.v = vb;
	cmp_run(&r, &b, &a, &cr);
	if (cr.error)
		return json_pack("{s:s}", "error", cr.msg);
	return json_pack("{s:b s:I s:f}", "pass", cr.pass, "mismatched", (json_int_t)cr.mismatched,
			 "max_abs", cr.max_abs);
}

json_t *
why_tensor(const char *label, const char *path_a, const char *path_b, const json_t *rule,
	   struct kd_err *err)
{
	struct kd_tensor ta, tb;
	struct npy_info ia, ib;
	double *va = NULL, *vb = NULL, largest = 0;
	uint64_t differing = 0, at = 0;
	char sa[128], sb[128];
	json_t *r = NULL;

	memset(&ta, 0, sizeof ta);
	memset(&tb, 0, sizeof tb);
	if (npy_open(path_a, &ta, &ia, err) != 0 || npy_open(path_b, &tb, &ib, err) != 0)
		goto out;
	tensor_shape_str(&ta, sa, sizeof sa);
	tensor_shape_str(&tb, sb, sizeof sb);
	if (strcmp(sa, sb) != 0 || ta.dtype != tb.dtype) {
		r = json_pack("{s:s s:s s:s s:s s:s s:s}", "key", label, "change", "tensor",
			      "shape_a", sa, "shape_b", sb, "dtype_a", tensor_dtype_name(ta.dtype),
			      "dtype_b", tensor_dtype_name(tb.dtype));
		goto out;
	}
	if (tensor_load(path_a, &ta, &va, err) != 0 || tensor_load(path_b, &tb, &vb, err) != 0)
		goto out;
	for (uint64_t i = 0; i < ta.count; i++) {
		double x = va[i], y = vb[i];
		if (memcmp(&x, &y, sizeof x) == 0)
			continue;
		differing++;
		if (fabs(x - y) > largest || (isnan(x - y) && differing == 1)) {
			largest = fabs(x - y);
			at = i;
		}
	}
	if (differing > 0) {
		r = json_pack("{s:s s:s s:I s:I s:f s:I}", "key", label, "change", "tensor",
			      "elements", (json_int_t)ta.count, "differing", (json_int_t)differing,
			      "largest", isnan(largest) ? 0.0 : largest, "largest_at", (json_int_t)at);
		if (rule != NULL && ta.count > 0)
			json_object_set_new(r, "rule", under_rule(rule, &ta, va, vb));
	}
out:
	free(va);
	free(vb);
	tensor_free(&ta);
	tensor_free(&tb);
	return r;
}

/* What changes numbers, most likely first: a pattern of key (a prefix, or
 * the whole key when it ends with '$'), its layer, rank and why. */
struct cause {
	const char *layer, *pattern;
	int rank;
	const char *why;
};

static const struct cause causes[] = {
	{ "system", "env.ATEN_CPU_CAPABILITY$", 1,
	  "selects PyTorch's CPU kernels (vector width): sums are grouped differently, the last bits move" },
	{ "system", "env.OMP_NUM_THREADS$", 1,
	  "the number of threads splits reductions differently: the last bits move" },
	{ "system", "env.MKL_", 1, "MKL's choice of kernels, threads or reproducibility mode" },
	{ "system", "env.OPENBLAS_", 1, "OpenBLAS's kernels or threads" },
	{ "system", "env.KMP_", 1, "the OpenMP runtime's threads and reductions" },
	{ "system", "env.CUBLAS_WORKSPACE_CONFIG$", 1,
	  "cuBLAS's workspace, and whether its results are deterministic" },
	{ "system", "env.NVIDIA_TF32_OVERRIDE$", 1, "TF32 on or off for every CUDA matmul" },
	{ "system", "env.TORCH_", 1, "a PyTorch setting (precision, algorithms, threads)" },
	{ "system", "env.PYTORCH_", 1, "a PyTorch setting (precision, algorithms, memory)" },
	{ "system", "env.CUDA_VISIBLE_DEVICES$", 1, "which device the run uses" },
	{ "system", "env.HIP_VISIBLE_DEVICES$", 1, "which device the run uses" },
	{ "system", "env.PYTHONHASHSEED$", 1, "the order of sets and dicts, so of data" },
	{ "system", "probe.steps[precision]", 1,
	  "precision and determinism settings (TF32, matmul precision, deterministic algorithms, threads)" },
	{ "system", "env.", 2, "an environment variable of the run" },
	{ "python", "torch$", 2, "PyTorch's own kernels" },
	{ "python", "numpy$", 2, "NumPy's kernels (data preparation, metrics)" },
	{ "python", "scipy$", 2, "SciPy's kernels" },
	{ "python", "mkl", 2, "the BLAS library the kernels call" },
	{ "python", "intel-openmp$", 2, "the OpenMP runtime" },
	{ "python", "nvidia-", 2, "a CUDA library PyTorch loads (cuBLAS, cuDNN, NCCL)" },
	{ "python", "triton$", 2, "the compiler of PyTorch's generated kernels" },
	{ "python", "python.", 3, "the interpreter" },
	{ "system", "gpu", 3, "another device runs other kernels" },
	{ "system", "driver", 3, "another driver can select other kernels" },
	{ "system", "cuda", 3, "another CUDA" },
	{ "system", "rocm", 3, "another ROCm" },
	{ "system", "cpu", 3, "another CPU: other vector units, other kernels" },
	{ "system", "probe.", 3, "what the probe saw of the backend" },
	{ "data", "", 4, "other inputs give other outputs" },
	{ "code", "", 5, "other code" },
	{ "python", "", 6, "another package the run may import" },
	{ "system", "", 7, "the system" },
	{ "deviations", "", 8, "a recorded deviation" },
};

static const struct cause *
cause_of(const char *layer, const char *key)
{
	for (size_t i = 0; i < sizeof causes / sizeof causes[0]; i++) {
		const struct cause *c = &causes[i];
		size_t n = strlen(c->pattern);
		if (strcmp(c->layer, layer) != 0)
			continue;
		if (n > 0 && c->pattern[n - 1] == '$') {
			if (strlen(key) == n - 1 && strncmp(key, c->pattern, n - 1) == 0)
				return c;
		} else if (strncmp(key, c->pattern, n) == 0) {
			return c;
		}
	}
	return NULL;
}

json_t *
why_rank(const json_t *layers)
{
	json_t *out = json_array(), *d, *e;
	const char *layer;
	size_t i, n;

	json_object_foreach((json_t *)layers, layer, d) {
		if (strcmp(layer, "result") == 0)
			continue;
		json_array_foreach(d, i, e) {
			const char *key = json_string_value(json_object_get(e, "key"));
			const struct cause *c = key ? cause_of(layer, key) : NULL;
			if (c == NULL)
				continue;
			json_array_append_new(out, json_pack("{s:i s:s s:s s:O s:O s:s}", "rank",
					      c->rank, "layer", layer, "key", key, "a",
					      json_object_get(e, "a") ? json_object_get(e, "a") :
					      json_null(), "b", json_object_get(e, "b") ?
					      json_object_get(e, "b") : json_null(), "why", c->why));
		}
	}
	/* one candidate per layer and change: the commit and what stage 1
	 * observed of it are one change */
	for (size_t x = 0; x < json_array_size(out); x++)
		for (size_t y = x + 1; y < json_array_size(out);) {
			json_t *p = json_array_get(out, x), *q = json_array_get(out, y);
			if (json_equal(json_object_get(p, "layer"), json_object_get(q, "layer")) &&
			    json_equal(json_object_get(p, "a"), json_object_get(q, "a")) &&
			    json_equal(json_object_get(p, "b"), json_object_get(q, "b")))
				json_array_remove(out, y);
			else
				y++;
		}
	/* stable by rank (insertion sort: the lists are short) */
	n = json_array_size(out);
	for (size_t x = 1; x < n; x++)
		for (size_t y = x; y > 0; y--) {
			json_t *p = json_array_get(out, y - 1), *q = json_array_get(out, y);
			if (json_integer_value(json_object_get(p, "rank")) <=
			    json_integer_value(json_object_get(q, "rank")))
				break;
			json_incref(p);
			json_array_set(out, y - 1, q);
			json_array_set_new(out, y, p);
		}
	return out;
}
