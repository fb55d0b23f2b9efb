/*
 * stage-system.c - stage 2, the system chain of this machine.
 *
 * gather observes the machine (sysinfo.h) while the interpreter is chosen
 * and queried on another thread, reads the PyTorch variant the rebuild
 * plans and judges it (variant.h); the tree is saved as system.yaml and
 * the chosen interpreter is recorded in the state (settings system.python)
 * for every later stage.  check compares the chain with the reference's
 * `system` row, one row per item: a mismatch fails (until a deviation is
 * recorded), a driver newer than the reference's only warns, and an item
 * the reference lacks fails, naming what to fill in.  describe lists the
 * whole chain as information rows for the screen.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/ctx.h"
#include "kernodeck/obs-system.h"
#include "kernodeck/stage.h"
#include "kernodeck/sys-gpu.h"
#include "kernodeck/sys-python.h"
#include "kernodeck/sysinfo.h"
#include "kernodeck/variant.h"

#define OBS_FILE "system.yaml"

/* ---------------------------------------------------------------- gather */

struct pyjob {
	const json_t *ref;
	const char *override;
	json_t *py;
	char *chosen;
	int rc;
	struct kd_err err;
};

static void *
python_main(void *arg)
{
	struct pyjob *j = arg;

	kd_err_clear(&j->err);
	j->rc = syspython_observe(j->ref, j->override, &j->py, &j->chosen, &j->err);
	return NULL;
}

static int
system_gather(struct kd_ctx *ctx, struct kd_result *res, const struct kd_sink *sink,
	      struct kd_err *err)
{
	struct pyjob pj;
	struct sysinfo_thread th;
	json_t *obs = NULL, *plan;
	int rc;

	memset(&pj, 0, sizeof pj);
	pj.ref = ctx->ref;
	pj.override = ctx->python_override;
	/* stage 2's queries run with the environment of every other program */
	sysinfo_set_env(ctx->child_env);
	sysinfo_spawn(&th, python_main, &pj);
	rc = sysinfo_observe(&obs, sink, err);
	sysinfo_join(&th);
	sysinfo_set_env(NULL);
	if (rc != 0) {
		json_decref(pj.py);
		free(pj.chosen);
		return rc;
	}
	json_object_set_new(obs, "python", pj.py);
	if (pj.rc == KD_EINPUT) {          /* --python names no interpreter */
		json_decref(obs);
		if (err != NULL)
			*err = pj.err;
		return KD_EINPUT;
	}
	if (pj.chosen != NULL) {
		const char *old = json_string_value(yamlio_get(ctx->state.settings, "system.python"));
		if (old != NULL && strcmp(old, pj.chosen) != 0)
			stage_mark_changed(&ctx->state, stage_pos(&kd_stage_rebuild));
		yamlio_set(ctx->state.settings, "system.python", json_string(pj.chosen));
		yamlio_set(ctx->state.settings, "system.python_reason", json_deep_copy(
			json_object_get(json_object_get(pj.py, "chosen"), "reason")));
		free(ctx->python);
		ctx->python = pj.chosen;
	}
	kd_sink_step(sink, "PyTorch variant", 0.9);
	plan = variant_plan_read(ctx->project_dir, ctx->ref);
	json_object_set_new(obs, "plan", plan);
	json_object_set_new(obs, "variant", variant_judge(plan, obs,
		obs_system_python_chosen_version(obs)));
	res->obs = obs;
	return 0;
}

/* ----------------------------------------------------------------- check */

/* obj[a][b] as a string. */
static const char *
str2(const json_t *o, const char *a, const char *b)
{
	return json_string_value(json_object_get(json_object_get(o, a), b));
}

/* The expectation of one reference field ("system.driver"). */
struct want {
	int present;          /* the key is in the reference */
	const json_t *value;  /* may be JSON null: "none" */
	const char *na;       /* not applicable: the reason */
	char text[256];       /* for the expected column */
};

/* An item the reference leaves out that its other items settle: no GPU
 * model or driver without a GPU vendor, no CUDA on a cpu or rocm backend,
 * no ROCm on a cpu or cuda backend.  The reason, or NULL. */
static const char *
implied_none(const json_t *ref, const char *path)
{
	const json_t *sys = json_object_get(ref, "system");
	const char *vendor = json_string_value(json_object_get(sys, "gpu_vendor"));
	const char *backend = json_string_value(json_object_get(sys, "backend"));

	if (vendor != NULL && strcmp(vendor, "none") == 0 &&
	    (strcmp(path, "system.gpu_model") == 0 || strcmp(path, "system.driver") == 0))
		return "none, the reference has no GPU";
	if (backend != NULL && strcmp(path, "system.cuda") == 0 && strcmp(backend, "cuda") != 0)
		return backend[0] == 'c' ? "none, the reference computes on the CPU" :
		       "none, the reference computes with ROCm";
	if (backend != NULL && strcmp(path, "system.rocm") == 0 && strcmp(backend, "rocm") != 0)
		return backend[0] == 'c' && backend[1] == 'p' ? "none, the reference computes on the CPU" :
		       "none, the reference computes with CUDA";
	return NULL;
}

static void
want_of(const json_t *ref, const char *path, struct want *w)
{
	const char *dot = strchr(path, '.');
	char sec[64];

	memset(w, 0, sizeof *w);
	if (dot != NULL) {
		snprintf(sec, sizeof sec, "%.*s", (int)(dot - path), path);
		w->value = json_object_get(json_object_get(ref, sec), dot + 1);
	}
	w->present = w->value != NULL;
	w->na = json_string_value(json_object_get(json_object_get(ref, "not_applicable"), path));
	if (!w->present && w->na == NULL && implied_none(ref, path) != NULL) {
		w->value = json_null();     /* a singleton: no reference to drop */
		w->present = 1;
		snprintf(w->text, sizeof w->text, "%s", implied_none(ref, path));
		return;
	}
	if (w->na != NULL)
		snprintf(w->text, sizeof w->text, "not applicable: %s", w->na);
	else if (!w->present)
		snprintf(w->text, sizeof w->text, "(not in the reference)");
	else if (json_is_null(w->value))
		snprintf(w->text, sizeof w->text, "none");
	else if (json_is_string(w->value))
		snprintf(w->text, sizeof w->text, "%s", json_string_value(w->value));
	else if (json_is_integer(w->value))
		snprintf(w->text, sizeof w->text, "%lld", (long long)json_integer_value(w->value));
	else if (json_is_real(w->value))   /* cuda: 12.1 written without quotes */
		snprintf(w->text, sizeof w->text, "%.15g", json_real_value(w->value));
	else
		snprintf(w->text, sizeof w->text, "(not a scalar)");
}

/* Add a row for an item the reference does not say: it fails, and says
 * what to fill in.  Returns 1 when it handled the item. */
static int
row_unknown(struct kd_result *res, const char *id, const char *label, const char *observed,
	    const char *path, const struct want *w)
{
	struct kd_row *r;
	char hint[512];

	if (w->na != NULL) {
		kd_rows_add(&res->rows, id, KD_R_PASS, label, observed, w->text, OBS_FILE);
		return 1;
	}
	if (w->present)
		return 0;
	r = kd_rows_add(&res->rows, id, KD_R_FAIL, label, observed, w->text, OBS_FILE);
	snprintf(hint, sizeof hint, "fill %s in reference.yaml (kernodeck capture on the "
		 "reference machine records it), or mark it not applicable", path);
	kd_row_set_error(r, "the reference does not say what is expected", hint);
	return 1;
}

static void
row_mismatch(struct kd_row *r, const char *what)
{
	kd_row_set_error(r, what, "make this machine match, or record a deviation "
			 "(intentional when it is a chosen variant)");
}

static const char *
norm_arch(const char *a)
{
	if (a == NULL)
		return "";
	if (strcmp(a, "amd64") == 0 || strcmp(a, "AMD64") == 0 || strcmp(a, "x64") == 0)
		return "x86_64";
	if (strcmp(a, "arm64") == 0)
		return "aarch64";
	return a;
}

/* "Ubuntu 22.04.3 LTS" -> name "ubuntu", release "22.04" (major.minor). */
static void
os_parts(const char *os, char *name, size_t nlen, char *rel, size_t rlen)
{
	size_t o = 0;
	const char *p = os;

	name[0] = rel[0] = '\0';
	for (; *p && !isdigit((unsigned char)*p); p++)
		if (isalnum((unsigned char)*p) && o + 1 < nlen)
			name[o++] = (char)tolower((unsigned char)*p);
	name[o] = '\0';
	if (*p) {
		size_t n = strspn(p, "0123456789.");
		const char *d1 = memchr(p, '.', n);
		const char *d2 = d1 ? memchr(d1 + 1, '.', n - (size_t)(d1 + 1 - p)) : NULL;
		snprintf(rel, rlen, "%.*s", (int)(d2 ? (size_t)(d2 - p) : n), p);
	}
}

static void
check_os(struct kd_result *res, const json_t *obs, const json_t *ref)
{
	const char *os = obs_system_os_pretty(obs);
	struct want w;
	char n1[128], r1[32], n2[128], r2[32];
	struct kd_row *r;

	want_of(ref, "system.os", &w);
	if (os == NULL)
		os = "unknown (no /etc/os-release)";
	if (row_unknown(res, "system.os", "operating system", os, "system.os", &w))
		return;
	if (strcasecmp(os, w.text) == 0) {
		kd_rows_add(&res->rows, "system.os", KD_R_PASS, "operating system", os, w.text, OBS_FILE);
		return;
	}
	os_parts(os, n1, sizeof n1, r1, sizeof r1);
	os_parts(w.text, n2, sizeof n2, r2, sizeof r2);
	if (n1[0] && strcmp(n1, n2) == 0 && r1[0] && strcmp(r1, r2) == 0) {
		r = kd_rows_add(&res->rows, "system.os", KD_R_WARN, "operating system", os, w.text,
				OBS_FILE);
		kd_row_set_error(r, "same release, another point release", NULL);
		return;
	}
	r = kd_rows_add(&res->rows, "system.os", KD_R_FAIL, "operating system", os, w.text, OBS_FILE);
	row_mismatch(r, "another operating system than the reference's");
}

static void
check_arch(struct kd_result *res, const json_t *obs, const json_t *ref)
{
	const char *arch = obs_system_arch(obs);
	struct want w;
	struct kd_row *r;

	want_of(ref, "system.arch", &w);
	if (row_unknown(res, "system.arch", "architecture", arch, "system.arch", &w))
		return;
	int same = strcmp(norm_arch(arch), norm_arch(w.text)) == 0;
	r = kd_rows_add(&res->rows, "system.arch", same ? KD_R_PASS : KD_R_FAIL, "architecture",
			arch, w.text, OBS_FILE);
	if (!same)
		row_mismatch(r, "another CPU architecture than the reference's");
}

static void
check_vendor(struct kd_result *res, const json_t *obs, const json_t *ref)
{
	const char *v = obs_system_gpu_vendor(obs);
	struct want w;
	struct kd_row *r;

	want_of(ref, "system.gpu_vendor", &w);
	if (row_unknown(res, "system.gpu_vendor", "GPU vendor", v, "system.gpu_vendor", &w))
		return;
	const char *exp = json_is_null(w.value) ? "none" : w.text;
	int same = strcasecmp(v ? v : "none", exp) == 0;
	r = kd_rows_add(&res->rows, "system.gpu_vendor", same ? KD_R_PASS : KD_R_FAIL,
			"GPU vendor", v, exp, OBS_FILE);
	if (!same)
		row_mismatch(r, "another GPU vendor than the reference's");
}

/* Does a reference model that is a PCI id ("Device 66a1", "10de:2330",
 * "0x2330") name this GPU? */
static int
model_is_pci_id(const char *model, const json_t *gpu)
{
	const char *did = obs_system_gpus_device_id(gpu);
	const char *vid = obs_system_gpus_vendor_id(gpu);
	char buf[64];
	const char *p = model;

	if (did == NULL)
		return 0;
	if (strncasecmp(p, "Device ", 7) == 0)
		p += 7;
	snprintf(buf, sizeof buf, "%s", p);
	sysinfo_trim(buf);
	char *colon = strchr(buf, ':');
	if (colon != NULL) {
		*colon = '\0';
		const char *v = strncasecmp(buf, "0x", 2) == 0 ? buf + 2 : buf;
		if (vid == NULL || strcasecmp(v, vid) != 0)
			return 0;
		p = colon + 1;
	} else {
		p = buf;
	}
	if (strncasecmp(p, "0x", 2) == 0)
		p += 2;
	return strlen(p) == 4 && strcasecmp(p, did) == 0;
}

/* How well the observed GPU matches a reference model: 2, 1 or 0. */
static int
gpu_matches(const json_t *gpu, const char *model)
{
	int best = 0;
	char alt[512], *save = NULL;

	if (model_is_pci_id(model, gpu))
		return 2;
	const char *names[] = { obs_system_gpus_name(gpu),
				obs_system_gpus_pci_name(gpu) };
	for (size_t i = 0; i < 2; i++) {
		if (names[i] == NULL)
			continue;
		int m = sysgpu_name_match(names[i], model);
		if (m > best)
			best = m;
		/* pci.ids: "Vega 20 [Radeon Pro VII/Radeon Instinct MI50 32GB]" */
		sysgpu_marketing_name(names[i], alt, sizeof alt);
		for (char *t = strtok_r(alt, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
			m = sysgpu_name_match(t, model);
			if (m > best)
				best = m;
		}
	}
	return best;
}

/* The first GPU of the main vendor. */
static const json_t *
main_gpu(const json_t *obs)
{
	const char *v = obs_system_gpu_vendor(obs);
	size_t i;
	json_t *g;

	json_array_foreach(obs_system_gpus(obs), i, g)
		if (v && strcmp(obs_system_gpus_vendor(g), v) == 0)
			return g;
	return NULL;
}

static void
check_model(struct kd_result *res, const json_t *obs, const json_t *ref)
{
	const json_t *g = main_gpu(obs);
	const char *name = g ? obs_system_gpus_name(g) : NULL;
	const char *refpci = str2(ref, "system", "gpu_pci_id");
	char observed[512];
	struct want w;
	struct kd_row *r;

	if (g != NULL)
		snprintf(observed, sizeof observed, "%s (%s:%s)", name ? name : "?",
			 obs_system_gpus_vendor_id(g),
			 obs_system_gpus_device_id(g));
	else
		snprintf(observed, sizeof observed, "none");
	want_of(ref, "system.gpu_model", &w);
	if (row_unknown(res, "system.gpu_model", "GPU model", observed, "system.gpu_model", &w))
		return;
	if (json_is_null(w.value) || g == NULL) {
		int same = json_is_null(w.value) && g == NULL;
		r = kd_rows_add(&res->rows, "system.gpu_model", same ? KD_R_PASS : KD_R_FAIL,
				"GPU model", observed, w.text, OBS_FILE);
		if (!same)
			row_mismatch(r, g ? "a GPU where the reference has none" :
				     "no GPU where the reference has one");
		return;
	}
	int m = refpci != NULL ? (model_is_pci_id(refpci, g) ? 2 : 0) : gpu_matches(g, w.text);
	r = kd_rows_add(&res->rows, "system.gpu_model", m == 2 ? KD_R_PASS : m == 1 ? KD_R_WARN :
			KD_R_FAIL, "GPU model", observed, w.text, OBS_FILE);
	if (m == 1)
		kd_row_set_error(r, "the names agree only in part (one is more precise)", NULL);
	else if (m == 0)
		row_mismatch(r, "another GPU model than the reference's");
}

static void
check_count(struct kd_result *res, const json_t *obs, const json_t *ref)
{
	json_int_t n = obs_system_gpu_count(obs);
	struct want w;
	char o[32];
	struct kd_row *r;

	snprintf(o, sizeof o, "%lld", (long long)n);
	want_of(ref, "system.gpu_count", &w);
	if (row_unknown(res, "system.gpu_count", "GPU count", o, "system.gpu_count", &w))
		return;
	json_int_t e = json_is_integer(w.value) ? json_integer_value(w.value) :
		       json_is_null(w.value) ? 0 : strtoll(w.text, NULL, 10);
	enum kd_rstat st = n == e ? KD_R_PASS : n > e ? KD_R_WARN : KD_R_FAIL;
	r = kd_rows_add(&res->rows, "system.gpu_count", st, "GPU count", o, w.text, OBS_FILE);
	if (st == KD_R_WARN)
		kd_row_set_error(r, "more GPUs than the reference had", NULL);
	else if (st == KD_R_FAIL)
		row_mismatch(r, "fewer GPUs than the reference had");
}

static void
check_driver(struct kd_result *res, const json_t *obs, const json_t *ref)
{
	const char *d = obs_system_driver_version(obs);
	struct want w;
	struct kd_row *r;

	want_of(ref, "system.driver", &w);
	if (row_unknown(res, "system.driver", "GPU driver", d ? d : "none", "system.driver", &w))
		return;
	if (json_is_null(w.value)) {
		kd_rows_add(&res->rows, "system.driver", KD_R_PASS, "GPU driver", d ? d : "none",
			    "none", OBS_FILE);
		return;
	}
	if (d == NULL) {
		r = kd_rows_add(&res->rows, "system.driver", KD_R_FAIL, "GPU driver", "none",
				w.text, OBS_FILE);
		row_mismatch(r, obs_system_backend_reason(obs) ?
			     obs_system_backend_reason(obs) :
			     "no GPU driver is loaded");
		return;
	}
	int c = variant_vercmp(d, w.text);
	r = kd_rows_add(&res->rows, "system.driver", c == 0 ? KD_R_PASS : c > 0 ? KD_R_WARN :
			KD_R_FAIL, "GPU driver", d, w.text, OBS_FILE);
	if (c > 0)
		kd_row_set_error(r, "newer than the reference's driver (drivers run older CUDA "
				 "versions; the variant check says whether the plan fits)", NULL);
	else if (c < 0)
		row_mismatch(r, "older than the reference's driver");
}

/* "12.1" from "12.1.105" or "6.0.32830-d62f": 0 when both agree on it. */
static int
same_major_minor(const char *a, const char *b)
{
	char x[32], y[32];

	return syspython_major_minor(a, x, sizeof x) == 0 &&
	       syspython_major_minor(b, y, sizeof y) == 0 && strcmp(x, y) == 0;
}

/* CUDA or ROCm (key "cuda" or "rocm"): what the rebuild plans against the
 * reference's. */
static void
check_toolkit(struct kd_result *res, const json_t *obs, const json_t *ref, const char *key)
{
	int cuda = strcmp(key, "cuda") == 0;
	const char *id = cuda ? "system.cuda" : "system.rocm";
	const char *label = cuda ? "CUDA" : "ROCm";
	const char *planned = cuda ? obs_system_plan_cuda(obs) : obs_system_plan_rocm(obs);
	const char *kind = obs_system_plan_kind(obs);
	const char *platform = cuda ? obs_system_cuda_driver_max(obs) : obs_system_rocm_version(obs);
	const char *drv = obs_system_driver_version(obs);
	char observed[256];
	struct want w;
	struct kd_row *r;

	if (planned != NULL)
		snprintf(observed, sizeof observed, "%s (planned: %s)", planned,
			 obs_system_plan_tag(obs) ? obs_system_plan_tag(obs) : "PyPI wheel");
	else if (platform != NULL)
		snprintf(observed, sizeof observed, "none planned; %s %s on this machine",
			 cuda ? "the driver runs up to" : "ROCm", platform);
	else
		snprintf(observed, sizeof observed, "none");
	want_of(ref, id, &w);
	if (row_unknown(res, id, label, observed, id, &w))
		return;
	if (json_is_null(w.value)) {
		int ok = planned == NULL;
		r = kd_rows_add(&res->rows, id, ok ? KD_R_PASS : KD_R_FAIL, label, observed, "none",
				OBS_FILE);
		if (!ok)
			row_mismatch(r, cuda ? "the rebuild plans a CUDA build; the reference used none" :
				     "the rebuild plans a ROCm build; the reference used none");
		return;
	}
	if (planned != NULL) {
		int ok = same_major_minor(planned, w.text);
		r = kd_rows_add(&res->rows, id, ok ? KD_R_PASS : KD_R_FAIL, label, observed, w.text,
				OBS_FILE);
		if (!ok)
			row_mismatch(r, cuda ? "the rebuild plans another CUDA version than the "
				     "reference used" : "the rebuild plans another ROCm version "
				     "than the reference used");
		return;
	}
	/* nothing planned (torch from the system, or no plan yet): can this
	 * machine run what the reference used? */
	int ok = 0;
	if (cuda && drv != NULL && strcmp(obs_system_driver_vendor(obs) ? obs_system_driver_vendor(obs) : "", "nvidia") == 0)
		ok = variant_driver_runs(drv, w.text) > 0;
	else if (!cuda && platform != NULL)
		ok = same_major_minor(platform, w.text);
	r = kd_rows_add(&res->rows, id, ok ? KD_R_PASS : KD_R_FAIL, label, observed, w.text, OBS_FILE);
	if (!ok)
		row_mismatch(r, kind && strcmp(kind, "system") == 0 ?
			     "torch comes from the system; this machine cannot run the reference's version" :
			     cuda ? "this machine's driver does not run the reference's CUDA" :
			     "this machine's ROCm is not the reference's");
}

/* The backend the rebuild will have: from the plan, else the platform. */
static const char *
planned_backend(const json_t *obs)
{
	const char *kind = obs_system_plan_kind(obs);

	if (kind != NULL && (strcmp(kind, "cuda") == 0 || strcmp(kind, "rocm") == 0 ||
			     strcmp(kind, "cpu") == 0))
		return kind;
	return obs_system_backend(obs);
}

static void
check_backend(struct kd_result *res, const json_t *obs, const json_t *ref)
{
	const char *b = planned_backend(obs);
	const char *plat = obs_system_backend(obs);
	char observed[256];
	struct want w;
	struct kd_row *r;

	snprintf(observed, sizeof observed, "%s (this machine: %s)", b ? b : "cpu",
		 plat ? plat : "cpu");
	want_of(ref, "system.backend", &w);
	if (row_unknown(res, "system.backend", "compute backend", observed, "system.backend", &w))
		return;
	const char *exp = json_is_null(w.value) ? "cpu" : w.text;
	int ok = b != NULL && strcasecmp(b, exp) == 0;
	r = kd_rows_add(&res->rows, "system.backend", ok ? KD_R_PASS : KD_R_FAIL, "compute backend",
			observed, exp, OBS_FILE);
	if (!ok)
		row_mismatch(r, "the rebuild would compute on another backend than the reference");
}

static void
check_python(struct kd_result *res, const json_t *obs, const json_t *ref)
{
	const char *v = obs_system_python_chosen_version(obs);
	const char *path = obs_system_python_chosen_path(obs);
	char observed[512], mm[32] = "", emm[32] = "";
	struct want w;
	struct kd_row *r;

	if (v != NULL)
		syspython_major_minor(v, mm, sizeof mm);
	snprintf(observed, sizeof observed, "%s (%s)", mm[0] ? mm : "unknown",
		 path ? path : "no interpreter");
	want_of(ref, "python.version", &w);
	if (row_unknown(res, "system.python", "Python major.minor", observed, "python.version", &w))
		return;
	syspython_major_minor(w.text, emm, sizeof emm);
	int ok = mm[0] && strcmp(mm, emm) == 0;
	r = kd_rows_add(&res->rows, "system.python", ok ? KD_R_PASS : KD_R_FAIL, "Python major.minor",
			observed, emm[0] ? emm : w.text, OBS_FILE);
	if (!ok)
		kd_row_set_error(r, obs_system_python_chosen_reason(obs) ?
				 obs_system_python_chosen_reason(obs) :
				 "another Python than the reference's",
				 "install that Python (e.g. apt-get install python3.X) or give "
				 "--python PATH, or record a deviation");
}

static void
check_interpreter(struct kd_result *res, const json_t *obs)
{
	const char *path = obs_system_python_chosen_path(obs);
	const char *st = obs_system_python_chosen_status(obs);
	char observed[512];
	struct kd_row *r;

	if (st != NULL && strcmp(st, "ok") == 0 && obs_system_python_chosen_venv(obs)) {
		snprintf(observed, sizeof observed, "%s %s (%s)", path,
			 obs_system_python_chosen_version(obs), obs_system_python_chosen_reason(obs));
		kd_rows_add(&res->rows, "system.interpreter", KD_R_PASS, "interpreter for the rebuild",
			    observed, "runs and can create virtual environments", OBS_FILE);
		return;
	}
	snprintf(observed, sizeof observed, "%s: %s", path ? path : "none",
		 st && strcmp(st, "ok") == 0 ? "cannot create virtual environments" :
		 obs_system_python_chosen_reason(obs) ? obs_system_python_chosen_reason(obs) : "does not run");
	r = kd_rows_add(&res->rows, "system.interpreter", KD_R_FAIL, "interpreter for the rebuild",
			observed, "runs and can create virtual environments", OBS_FILE);
	kd_row_set_error(r, obs_system_python_chosen_venv_error(obs) ?
			 obs_system_python_chosen_venv_error(obs) : observed,
			 "install the venv module for this Python, or give --python PATH");
}

static void
check_variant(struct kd_result *res, const json_t *obs)
{
	const char *st = obs_system_variant_status(obs);
	const char *kind = obs_system_plan_kind(obs);
	const char *tag = obs_system_plan_tag(obs);
	char observed[1024];
	const json_t *first = NULL, *p;
	size_t i;
	struct kd_row *r;

	snprintf(observed, sizeof observed, "%s (%s)", tag ? tag : kind ? kind : "unknown",
		 obs_system_plan_source(obs) ? obs_system_plan_source(obs) : "");
	json_array_foreach(obs_system_variant_problems(obs), i, p) {
		if (first == NULL || (strcmp(obs_system_problems_status(p), "fail") == 0 &&
				      strcmp(obs_system_problems_status(first), "fail")))
			first = p;
	}
	enum kd_rstat rs = st && strcmp(st, "fail") == 0 ? KD_R_FAIL :
			   st && strcmp(st, "warn") == 0 ? KD_R_WARN : KD_R_PASS;
	r = kd_rows_add(&res->rows, "system.variant", rs, "PyTorch variant fits this machine",
			observed, "driver, GPU and Python fit the planned build", OBS_FILE);
	if (first != NULL) {
		const char *fits = obs_system_problems_fits(first);
		char hint[256];
		snprintf(hint, sizeof hint, "use %s in requirements-rebuild.txt", fits ? fits : "");
		kd_row_set_error(r, obs_system_problems_message(first),
				 fits ? hint : NULL);
	} else if (obs_system_variant_note(obs) != NULL) {
		kd_row_set_error(r, obs_system_variant_note(obs), NULL);
	}
}

static void
check_devices(struct kd_result *res, const json_t *obs)
{
	const json_t *devs = obs_system_devices(obs), *d;
	const char *b = planned_backend(obs);
	size_t i, n = 0, denied = 0;
	const json_t *bad = NULL;
	char observed[512];
	struct kd_row *r;

	json_array_foreach(devs, i, d) {
		if (!obs_system_devices_exists(d))
			continue;
		n++;
		if (strcmp(obs_system_devices_access(d), "rw") != 0) {
			denied++;
			if (bad == NULL)
				bad = d;
		}
	}
	int needed = b != NULL && (strcmp(b, "cuda") == 0 || strcmp(b, "rocm") == 0);
	if (n == 0)
		snprintf(observed, sizeof observed, "no GPU device nodes");
	else
		snprintf(observed, sizeof observed, "%zu node%s, %zu denied", n, n == 1 ? "" : "s",
			 denied);
	if (denied == 0 && (n > 0 || !needed)) {
		kd_rows_add(&res->rows, "system.devices", KD_R_PASS, "GPU device nodes usable",
			    observed, needed ? "readable and writable" : "none needed", OBS_FILE);
		return;
	}
	r = kd_rows_add(&res->rows, "system.devices", needed ? KD_R_FAIL : KD_R_WARN,
			"GPU device nodes usable", observed, "readable and writable", OBS_FILE);
	if (bad != NULL)
		kd_row_set_error(r, obs_system_devices_path(bad),
				 obs_system_devices_hint(bad));
	else
		kd_row_set_error(r, obs_system_backend_reason(obs) ?
				 obs_system_backend_reason(obs) :
				 "no /dev/nvidia* or /dev/kfd", "start the container with GPU "
				 "access (docker run --gpus all, or --device /dev/kfd --device /dev/dri)");
}

static int
system_check(struct kd_ctx *ctx, struct kd_result *res, struct kd_err *err)
{
	const json_t *obs = res->obs ? res->obs : kd_ctx_obs(ctx, stage_pos(&kd_stage_system));
	const json_t *ref = ctx->ref;

	(void)err;
	if (obs == NULL) {
		kd_rows_add(&res->rows, "system.observed", KD_R_FAIL, "system observed",
			    "no observation", "system.yaml", NULL);
		return 0;
	}
	check_os(res, obs, ref);
	check_arch(res, obs, ref);
	check_vendor(res, obs, ref);
	check_model(res, obs, ref);
	check_count(res, obs, ref);
	check_driver(res, obs, ref);
	check_toolkit(res, obs, ref, "cuda");
	check_toolkit(res, obs, ref, "rocm");
	check_backend(res, obs, ref);
	check_python(res, obs, ref);
	check_interpreter(res, obs);
	check_variant(res, obs);
	check_devices(res, obs);
	return 0;
}

/* -------------------------------------------------------------- describe */

static void
info(struct kd_rows *rows, const char *id, const char *label, const char *value)
{
	kd_rows_add(rows, id, KD_R_INFO, label, value ? value : "unknown", NULL, OBS_FILE);
}

static void
describe_gpus(const json_t *obs, struct kd_rows *rows)
{
	size_t i;
	json_t *g;
	char id[64], v[512], label[64];

	json_array_foreach(obs_system_gpus(obs), i, g) {
		json_int_t mem = obs_system_gpus_memory_mib(g);
		snprintf(id, sizeof id, "info.gpu%zu", i);
		snprintf(label, sizeof label, "GPU %zu", i);
		snprintf(v, sizeof v, "%s %s (%s:%s) at %s", obs_system_gpus_vendor(g), obs_system_gpus_name(g),
			 obs_system_gpus_vendor_id(g),
			 obs_system_gpus_device_id(g),
			 obs_system_gpus_pci(g));
		if (mem > 0) {
			size_t n = strlen(v);
			snprintf(v + n, sizeof v - n, ", %lld MiB", (long long)mem);
		}
		const char *cc = obs_system_gpus_compute_cap(g);
		if (cc != NULL) {
			size_t n = strlen(v);
			snprintf(v + n, sizeof v - n, ", compute capability %s", cc);
		}
		info(rows, id, label, v);
	}
	if (json_array_size(obs_system_gpus(obs)) == 0)
		info(rows, "info.gpu", "GPUs", obs_system_gpus_reason(obs) ?
		     obs_system_gpus_reason(obs) :
		     "none on the PCI bus (CPU only)");
}

static void
describe_tools(const json_t *obs, struct kd_rows *rows)
{
	const char *key;
	json_t *t;
	char id[64], v[512];

	/* (jansson iterates a non-const object; nothing is changed) */
	json_object_foreach((json_t *)obs_system_tools(obs), key, t) {
		const char *st = obs_system_tools_status(t);
		snprintf(id, sizeof id, "info.tool.%s", key);
		if (st && strcmp(st, "ok") == 0)
			snprintf(v, sizeof v, "%s (%s)", obs_system_tools_version(t),
				 obs_system_tools_path(t));
		else
			snprintf(v, sizeof v, "%s: %s", st ? st : "?",
				 obs_system_tools_reason(t) ?
				 obs_system_tools_reason(t) : "");
		info(rows, id, key, v);
	}
}

static void
system_describe(const struct kd_result *res, struct kd_rows *rows)
{
	const json_t *obs = res->obs;
	const json_t *d;
	const char *key;
	json_t *val;
	size_t i;
	char v[1024], id[128];

	if (obs == NULL)
		return;
	info(rows, "info.os", "OS", obs_system_os_pretty(obs));
	snprintf(v, sizeof v, "%s, %s, glibc %s", obs_system_kernel_release(obs),
		 obs_system_arch(obs), obs_system_libc_version(obs));
	info(rows, "info.kernel", "kernel, arch, libc", v);
	snprintf(v, sizeof v, "%s (%lld)", obs_system_cpu_model(obs) ? obs_system_cpu_model(obs) :
		 "unknown", (long long)obs_system_cpu_count(obs));
	info(rows, "info.cpu", "CPU", v);
	snprintf(v, sizeof v, "%s (%s)", obs_system_container_kind(obs), obs_system_container_evidence(obs));
	info(rows, "info.container", "container or host", v);
	describe_gpus(obs, rows);
	snprintf(v, sizeof v, "%s%s%s%s%s", obs_system_driver_version(obs) ? obs_system_driver_vendor(obs) : "none", obs_system_driver_version(obs) ? " " : "",
		 obs_system_driver_version(obs) ? obs_system_driver_version(obs) : "",
		 obs_system_driver_flavor(obs) ? ", kernel module: " : "",
		 obs_system_driver_flavor(obs) ? obs_system_driver_flavor(obs) : "");
	info(rows, "info.driver", "driver", v);
	if (obs_system_nvidia_smi(obs) != NULL) {
		const char *st = obs_system_nvidia_smi_status(obs);
		const char *why = obs_system_nvidia_smi_explanation(obs) ?
				  obs_system_nvidia_smi_explanation(obs) : obs_system_nvidia_smi_reason(obs);
		snprintf(v, sizeof v, "%s%s%s", st, why ? ": " : "", why ? why : "");
		info(rows, "info.nvidia-smi", "nvidia-smi", v);
	}
	if (obs_system_cuda_driver_max(obs) != NULL)
		info(rows, "info.cuda", "CUDA the driver runs", obs_system_cuda_driver_max(obs));
	if (obs_system_rocm_version(obs) != NULL)
		info(rows, "info.rocm", "ROCm", obs_system_rocm_version(obs));
	if (obs_system_backend_reason(obs) != NULL)
		info(rows, "info.backend", "why no GPU backend",
		     obs_system_backend_reason(obs));
	json_array_foreach(obs_system_devices(obs), i, d) {
		if (!obs_system_devices_exists(d))
			continue;
		snprintf(id, sizeof id, "info.dev.%s", obs_system_devices_path(d));
		snprintf(v, sizeof v, "%s, group %s%s%s", obs_system_devices_access(d),
			 obs_system_devices_group(d),
			 obs_system_devices_hint(d) ? ": " : "",
			 obs_system_devices_hint(d) ? obs_system_devices_hint(d) : "");
		info(rows, id, obs_system_devices_path(d), v);
	}
	describe_tools(obs, rows);
	snprintf(v, sizeof v, "%s %s, %s; %s", obs_system_python_chosen_path(obs),
		 obs_system_python_chosen_version(obs) ? obs_system_python_chosen_version(obs) : "?",
		 obs_system_python_chosen_venv(obs) ? "can create venvs" : "cannot create venvs",
		 obs_system_python_chosen_reason(obs));
	info(rows, "info.python", "interpreter", v);
	v[0] = '\0';
	json_array_foreach(obs_system_python_available(obs), i, val) {
		size_t n = strlen(v);
		snprintf(v + n, sizeof v - n, "%s%s", n ? " " : "",
			 obs_system_pythons_path(val));
	}
	info(rows, "info.pythons", "interpreters found", v[0] ? v : "none");
	snprintf(v, sizeof v, "%s: %s", obs_system_plan_kind(obs), obs_system_plan_source(obs));
	info(rows, "info.plan", "planned PyTorch", v);
	json_object_foreach((json_t *)obs_system_env(obs), key, val) {
		snprintf(id, sizeof id, "info.env.%s", key);
		info(rows, id, key, json_string_value(val));
	}
}

const struct kd_stage_ops kd_stage_system = {
	.id = "system",
	.title = "System",
	.summary = "GPU, driver, device nodes, OS, compilers, interpreter and the PyTorch "
		   "variant of this machine, against the reference's system row",
	.replay = 1,
	.gather = system_gather,
	.check = system_check,
	.describe = system_describe,
};
