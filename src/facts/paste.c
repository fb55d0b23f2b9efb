/*
 * paste.c - a paste and a machine in one vocabulary (paste.h).
 *
 * A value is compared only when both sides hold it: a paste of nvidia-smi
 * says nothing of PyTorch, a pip freeze nothing of the GPU, and a report
 * that printed "Could not collect" says nothing either.  What could not be
 * compared is said, per layer.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/caps.h"
#include "kernodeck/collect-env.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/nvidia-smi.h"
#include "kernodeck/obs-compute.h"
#include "kernodeck/obs-system.h"
#include "kernodeck/parse-freeze.h"
#include "kernodeck/paste.h"
#include "kernodeck/pep440.h"
#include "kernodeck/sysinfo.h"
#include "kernodeck/yamlio.h"

static const char *const layer_names[] = { "system", "backend", "python" };

static json_t *
str_or_null(const char *s)
{
	return s != NULL && *s != '\0' ? json_string(s) : json_null();
}

static json_t *
copy_or_null(const json_t *v)
{
	return v != NULL && !json_is_null(v) ? json_deep_copy(v) : json_null();
}

/* Add name==version to packages under its canonical name. */
static void
add_package(json_t *pk, const char *name, size_t nl, const char *version)
{
	char canon[256];

	if (name == NULL || nl == 0 || pep503_canonical_n(name, nl, canon, sizeof canon) == 0)
		return;
	json_object_set_new(pk, canon, str_or_null(version));
}

static json_t *
packages_of_list(const json_t *list)
{
	json_t *pk = json_object(), *p;
	size_t i;

	json_array_foreach(list, i, p) {
		const char *n = json_string_value(json_object_get(p, "canonical_name"));
		if (n == NULL)
			n = json_string_value(json_object_get(p, "name"));
		if (n != NULL)
			add_package(pk, n, strlen(n), json_string_value(json_object_get(p, "version")));
	}
	return pk;
}

static json_t *
new_facts(const char *kind, const char *file)
{
	return json_pack("{s:s s:s s:{}}", "kind", kind, "file", file ? file : "", "layers");
}

/* "Ubuntu 22.04.3 LTS (x86_64)" -> "Ubuntu 22.04.3 LTS" (the arch is its own fact). */
static json_t *
os_without_arch(const char *os)
{
	const char *open;
	size_t n;

	if (os == NULL || collect_env_is_null_word(os))
		return json_null();
	n = strlen(os);
	open = strrchr(os, '(');
	if (open != NULL && open > os && open[-1] == ' ' && os[n - 1] == ')')
		return json_stringn(os, (size_t)(open - 1 - os));
	return json_string(os);
}

static json_t *
from_collect_env(const json_t *ce, const char *file)
{
	json_t *f = new_facts("collect-env", file), *layers = json_object_get(f, "layers");
	json_t *pk = json_object(), *lib;
	size_t i;

	json_object_set_new(layers, "system", json_pack("{s:o s:O s:O s:O s:O s:n}",
		"os", os_without_arch(json_string_value(json_object_get(ce, "os"))),
		"arch", json_object_get(ce, "os_arch") ? json_object_get(ce, "os_arch") : json_null(),
		"gpu_count", json_object_get(ce, "gpu_count"), "gpus", json_object_get(ce, "gpus"),
		"driver", json_object_get(ce, "driver_version"), "cuda_driver"));
	json_object_set_new(layers, "backend", json_pack("{s:O s:O s:O s:O s:O}",
		"torch", json_object_get(ce, "torch_version"),
		"torch_cuda", json_object_get(ce, "cuda_build"),
		"torch_hip", json_object_get(ce, "rocm_build"),
		"cuda_available", json_object_get(ce, "cuda_available"),
		"cudnn", json_object_get(ce, "cudnn_version")));
	/* "[pip3] numpy==1.26.4": the Python packages the report lists */
	json_array_foreach(json_object_get(ce, "libraries"), i, lib) {
		const char *l = json_string_value(lib), *eq;
		if (l == NULL || (strncmp(l, "[pip3] ", 7) != 0 && strncmp(l, "[pip] ", 6) != 0))
			continue;
		l = strchr(l, ']') + 2;
		if ((eq = strstr(l, "==")) != NULL)
			add_package(pk, l, (size_t)(eq - l), eq + 2);
	}
	/* collect_env lists only the libraries it finds relevant */
	json_object_set_new(layers, "python", json_pack("{s:O s:o s:b}", "python_version",
			    json_object_get(ce, "python_version"), "packages", pk,
			    "packages_partial", 1));
	return f;
}

static json_t *
from_nvidia_smi(const json_t *smi, const char *file)
{
	json_t *f = new_facts("nvidia-smi", file), *names = json_null(), *g;
	size_t i;

	/* the GPU names only when the paste says how many GPUs there are */
	if (!json_is_null(json_object_get(smi, "gpu_count"))) {
		names = json_array();
		json_array_foreach(json_object_get(smi, "gpus"), i, g)
			json_array_append(names, json_object_get(g, "name"));
	}
	json_object_set_new(json_object_get(f, "layers"), "system",
		json_pack("{s:n s:n s:O s:o s:O s:O}", "os", "arch", "gpu_count",
			  json_object_get(smi, "gpu_count"), "gpus", names,
			  "driver", json_object_get(smi, "driver_version"),
			  "cuda_driver", json_object_get(smi, "cuda_version")));
	return f;
}

static json_t *
from_freeze(const json_t *fr, const char *file)
{
	json_t *f = new_facts("freeze", file);

	json_object_set_new(json_object_get(f, "layers"), "python",
			    json_pack("{s:n s:o}", "python_version", "packages",
				      packages_of_list(json_object_get(fr, "packages"))));
	return f;
}

int
paste_load(const char *path, json_t **facts, struct kd_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	json_t *t = NULL;
	struct kd_err e2;
	int rc;

	*facts = NULL;
	if ((rc = fsutil_read_file(path, KD_CAP_TEXT_FILE, &buf, &len, err)) != 0)
		return rc;
	if (collect_env_parse(buf, len, path, &t, &e2) == 0) {
		*facts = from_collect_env(t, path);
	} else if (nvidia_smi_parse(buf, len, path, &t, &e2) == 0) {
		*facts = from_nvidia_smi(t, path);
	} else if (freeze_parse(buf, len, path, &t, &e2) == 0 &&
		   json_array_size(json_object_get(t, "packages")) > 0) {
		*facts = from_freeze(t, path);
	} else {
		rc = kd_err_set(err, KD_EINPUT, path, 0,
				"neither a dossier, a capture, a collect_env report, an nvidia-smi "
				"output nor a pip freeze");
	}
	json_decref(t);
	free(buf);
	return rc;
}

/* The version a probe step reported (python, import_torch). */
static const json_t *
probe_step(const json_t *compute, const char *name)
{
	const json_t *s;
	size_t i;

	json_array_foreach(obs_compute_steps(compute), i, s)
		if (obs_compute_step_step(s) != NULL && strcmp(obs_compute_step_step(s), name) == 0)
			return s;
	return NULL;
}

json_t *
paste_facts_of_obs(const char *kind, const char *file, const json_t *system,
		   const json_t *compute, const json_t *packages)
{
	json_t *f = new_facts(kind, file), *layers = json_object_get(f, "layers");
	const json_t *g, *py = probe_step(compute, "python"), *th = probe_step(compute, "import_torch");
	size_t i;

	if (json_is_object(system)) {
		json_t *names = json_array();
		json_array_foreach(obs_system_gpus(system), i, g)
			json_array_append_new(names, str_or_null(obs_system_gpus_name(g)));
		json_object_set_new(layers, "system", json_pack("{s:o s:o s:I s:o s:o s:o}",
			"os", str_or_null(obs_system_os_pretty(system)),
			"arch", str_or_null(obs_system_arch(system)),
			"gpu_count", (json_int_t)json_array_size(obs_system_gpus(system)),
			"gpus", names, "driver", str_or_null(obs_system_driver_version(system)),
			"cuda_driver", str_or_null(obs_system_cuda_driver_max(system))));
	}
	if (th != NULL)
		json_object_set_new(layers, "backend", json_pack("{s:o s:o s:o s:n s:o}",
			"torch", str_or_null(obs_compute_step_version(th)),
			"torch_cuda", str_or_null(obs_compute_step_cuda(th)),
			"torch_hip", str_or_null(obs_compute_step_hip(th)), "cuda_available",
			"cudnn", copy_or_null(obs_compute_step_cudnn(probe_step(compute, "backend")))));
	if (py != NULL || json_is_array(packages)) {
		json_t *pv = json_null();
		const char *v = py ? obs_compute_step_version(py) : NULL;
		if (v != NULL)
			pv = json_stringn(v, strcspn(v, " "));
		json_object_set_new(layers, "python", json_pack("{s:o s:o}", "python_version", pv,
				    "packages", json_is_array(packages) ?
				    packages_of_list(packages) : json_null()));
	}
	return f;
}

/* Two GPU names agree when equal, or when one was cut by nvidia-smi
 * ("NVIDIA GeForce ...") and the other starts with what is left. */
static int
same_gpu_name(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (strcmp(a, b) == 0)
		return 1;
	if (la > 3 && strcmp(a + la - 3, "...") == 0)
		return strncmp(a, b, la - 3) == 0;
	if (lb > 3 && strcmp(b + lb - 3, "...") == 0)
		return strncmp(a, b, lb - 3) == 0;
	return 0;
}

static int
same_value(const char *key, const json_t *a, const json_t *b)
{
	if (strcmp(key, "gpus") == 0 && json_is_array(a) && json_is_array(b)) {
		if (json_array_size(a) != json_array_size(b))
			return 0;
		for (size_t i = 0; i < json_array_size(a); i++) {
			const char *x = json_string_value(json_array_get(a, i));
			const char *y = json_string_value(json_array_get(b, i));
			if (x != NULL && y != NULL && !same_gpu_name(x, y))
				return 0;
		}
		return 1;
	}
	return json_equal((json_t *)a, (json_t *)b);
}

/* Packages by name.  A partial list (collect_env's "relevant libraries")
 * says nothing of what it does not name: only its names are compared. */
static void
diff_packages(const json_t *a, const json_t *b, int a_partial, int b_partial, json_t *out)
{
	const char *k;
	json_t *v;
	char key[300];

	json_object_foreach((json_t *)a, k, v) {
		const json_t *w = json_object_get(b, k);
		if (w == NULL && b_partial)
			continue;
		if (w == NULL || !json_equal(v, (json_t *)w)) {
			snprintf(key, sizeof key, "packages.%s", k);
			json_array_append_new(out, json_pack("{s:s s:O s:O}", "key", key, "a", v,
					      "b", w ? w : json_null()));
		}
	}
	json_object_foreach((json_t *)b, k, v)
		if (json_object_get(a, k) == NULL && !a_partial) {
			snprintf(key, sizeof key, "packages.%s", k);
			json_array_append_new(out, json_pack("{s:s s:n s:O}", "key", key, "a", "b", v));
		}
}

json_t *
paste_compare(const json_t *a, const json_t *b)
{
	json_t *r = json_object(), *layers = json_object(), *not = json_array();
	size_t total = 0;

	json_object_set(r, "a", json_object_get(a, "file"));
	json_object_set(r, "b", json_object_get(b, "file"));
	json_object_set(r, "a_kind", json_object_get(a, "kind"));
	json_object_set(r, "b_kind", json_object_get(b, "kind"));
	for (size_t i = 0; i < sizeof layer_names / sizeof layer_names[0]; i++) {
		const char *n = layer_names[i], *k;
		const json_t *la = json_object_get(json_object_get(a, "layers"), n);
		const json_t *lb = json_object_get(json_object_get(b, "layers"), n);
		json_t *d, *v, *unknown;

		if (la == NULL || lb == NULL) {
			if (la != NULL || lb != NULL)
				json_array_append_new(not, json_sprintf("%s: only %s holds it", n,
						      la ? "a" : "b"));
			else
				json_array_append_new(not, json_sprintf("%s: neither holds it", n));
			continue;
		}
		d = json_array();
		unknown = json_array();
		json_object_foreach((json_t *)la, k, v) {
			const json_t *w = json_object_get(lb, k);
			if (strcmp(k, "packages_partial") == 0)
				continue;
			if (strcmp(k, "packages") == 0 && json_is_object(v) && json_is_object(w)) {
				diff_packages(v, w, json_is_true(json_object_get(la, "packages_partial")),
					      json_is_true(json_object_get(lb, "packages_partial")), d);
				continue;
			}
			if (json_is_null(v) || w == NULL || json_is_null(w)) {
				json_array_append_new(unknown, json_string(k));
				continue;
			}
			if (!same_value(k, v, w))
				json_array_append_new(d, json_pack("{s:s s:O s:O}", "key", k, "a", v,
						      "b", w));
		}
		if (json_array_size(unknown) > 0) {
			char *u = NULL;
			size_t ul = 0;
			FILE *m = open_memstream(&u, &ul);
			size_t j;
			json_t *x;
			if (m != NULL) {
				json_array_foreach(unknown, j, x)
					fprintf(m, "%s%s", j ? ", " : "", json_string_value(x));
				fclose(m);
				json_array_append_new(not, json_sprintf("%s: %s (not said by both)",
						      n, u ? u : ""));
			}
			free(u);
		}
		json_decref(unknown);
		total += json_array_size(d);
		json_object_set_new(layers, n, d);
	}
	json_object_set_new(r, "layers", layers);
	json_object_set_new(r, "not_compared", not);
	json_object_set_new(r, "differences", json_integer((json_int_t)total));
	return r;
}

int
paste_facts_of_project(const char *state_dir, json_t **facts, struct kd_err *err)
{
	struct yamlio_doc sys = { 0 }, comp = { 0 };
	json_t *now = NULL, *fr = NULL;
	char *f_sys = fsutil_join(state_dir, "system.yaml");
	char *f_comp = fsutil_join(state_dir, "compute.yaml");
	char *f_inv = fsutil_join(state_dir, "installed-after.txt");
	char *buf = NULL, name[512];
	size_t len = 0;
	int rc = 0, have_sys, have_comp;

	*facts = NULL;
	if (f_sys == NULL || f_comp == NULL || f_inv == NULL) {
		rc = kd_err_set(err, KD_EENV, state_dir, 0, "out of memory");
		goto out;
	}
	have_sys = fsutil_exists(f_sys) && yamlio_load_file(f_sys, &sys, err) == 0;
	have_comp = fsutil_exists(f_comp) && yamlio_load_file(f_comp, &comp, err) == 0;
	if (fsutil_exists(f_inv) &&
	    fsutil_read_file(f_inv, KD_CAP_TEXT_FILE, &buf, &len, err) == 0) {
		if (freeze_parse(buf, len, f_inv, &fr, err) != 0)
			fr = NULL;
		free(buf);
	}
	if (!have_sys && (rc = sysinfo_observe(&now, NULL, err)) != 0)
		goto out_docs;
	snprintf(name, sizeof name, have_sys ? "this machine (%s)" : "this machine (observed now)",
		 f_sys);
	*facts = paste_facts_of_obs("machine", name, have_sys ? sys.root : now,
				    have_comp ? comp.root : NULL,
				    fr ? json_object_get(fr, "packages") : NULL);
out_docs:
	if (have_sys)
		yamlio_doc_free(&sys);
	if (have_comp)
		yamlio_doc_free(&comp);
	json_decref(now);
	json_decref(fr);
out:
	free(f_sys);
	free(f_comp);
	free(f_inv);
	return rc;
}

void
paste_print_value(FILE *fp, const json_t *v)
{
	char *s;

	if (v == NULL || json_is_null(v)) {
		fputs("(none)", fp);
		return;
	}
	if (json_is_string(v)) {
		fputs(json_string_value(v), fp);
		return;
	}
	if (json_is_real(v)) {
		fprintf(fp, "%.6g", json_real_value(v));
		return;
	}
	s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	fputs(s ? s : "?", fp);
	free(s);
}

void
paste_print_text(FILE *fp, const json_t *r)
{
	const json_t *layers = json_object_get(r, "layers"), *e;
	size_t i;

	for (int s = 0; s < 2; s++) {
		const char *f = json_string_value(json_object_get(r, s ? "b" : "a"));
		const char *k = json_string_value(json_object_get(r, s ? "b_kind" : "a_kind"));
		/* "this machine (...)" says what it is already */
		if (k != NULL && strcmp(k, "machine") == 0)
			fprintf(fp, "%s: %s\n", s ? "b" : "a", f);
		else
			fprintf(fp, "%s: %s (%s)\n", s ? "b" : "a", f, k);
	}
	for (size_t k = 0; k < sizeof layer_names / sizeof layer_names[0]; k++) {
		const json_t *d = json_object_get(layers, layer_names[k]);
		if (d == NULL)
			continue;
		if (json_array_size(d) == 0) {
			fprintf(fp, "\n%s: no difference\n", layer_names[k]);
			continue;
		}
		fprintf(fp, "\n%s: %zu difference%s\n", layer_names[k], json_array_size(d),
			json_array_size(d) == 1 ? "" : "s");
		json_array_foreach(d, i, e) {
			fprintf(fp, "  %s: ", json_string_value(json_object_get(e, "key")));
			paste_print_value(fp, json_object_get(e, "a"));
			fputs(" -> ", fp);
			paste_print_value(fp, json_object_get(e, "b"));
			fputc('\n', fp);
		}
	}
	if (json_array_size(json_object_get(r, "not_compared")) > 0) {
		fputs("\nnot compared:\n", fp);
		json_array_foreach(json_object_get(r, "not_compared"), i, e)
			fprintf(fp, "  %s\n", json_string_value(e));
	}
	fprintf(fp, "\n%lld difference(s)\n", (long long)json_integer_value(json_object_get(r,
		"differences")));
}
