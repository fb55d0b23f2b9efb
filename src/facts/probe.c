/*
 * probe.c - running the compute probe and judging its output (see
 * include/kernodeck/probe.h).
 *
 * The judgement reads only the observation tree, so that a live run, a
 * saved compute.yaml and a fixture recorded on a GPU machine give the same
 * rows.  The rows keep the probe's own order: python, import_torch,
 * precision (information), backend (expected against seen), then the
 * device chain for each device, then the extensions.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/argv.h"
#include "kernodeck/caps.h"
#include "kernodeck/obs-compute.h"
#include "kernodeck/probe.h"
#include "kernodeck/step.h"
#include "kernodeck/venv.h"
#include "kernodeck/yamlio.h"

void
probe_out_init(struct probe_out *p)
{
	memset(p, 0, sizeof *p);
	p->steps = json_array();
	p->text = json_array();
}

void
probe_out_free(struct probe_out *p)
{
	json_decref(p->steps);
	json_decref(p->end);
	json_decref(p->begun);
	json_decref(p->text);
	memset(p, 0, sizeof *p);
}

static void
keep_text(struct probe_out *p, const char *line, size_t len)
{
	if (json_array_size(p->text) >= PROBE_TEXT_LINES) {
		p->text_dropped++;
		return;
	}
	if (len > PROBE_TEXT_LINE_CAP)
		len = PROBE_TEXT_LINE_CAP;
	/* json_stringn refuses invalid UTF-8: keep such a line as "?" bytes */
	json_t *s = json_stringn(line, len);
	if (s == NULL) {
		char *c = strndup(line, len);
		for (char *q = c; q && *q; q++)
			if ((unsigned char)*q >= 0x80)
				*q = '?';
		s = json_string(c ? c : "");
		free(c);
	}
	json_array_append_new(p->text, s);
}

int
probe_feed(struct probe_out *p, const char *line, size_t len)
{
	json_error_t je;
	json_t *o, *b;
	size_t skip = 0;

	while (skip < len && (line[skip] == ' ' || line[skip] == '\t' || line[skip] == '\r'))
		skip++;
	if (len - skip == 0)
		return 0;
	if (line[skip] != '{' || len > KD_CAP_JSON_LINE) {
		keep_text(p, line, len);
		return 0;
	}
	o = json_loadb(line + skip, len - skip, JSON_REJECT_DUPLICATES, &je);
	if (!json_is_object(o)) {
		json_decref(o);
		keep_text(p, line, len);
		return 0;
	}
	b = json_object_get(o, "begin");
	if (json_is_string(b)) {
		json_decref(p->begun);
		p->begun = o;
		if (p->on_begin != NULL)
			p->on_begin(p->u, json_string_value(b),
				    json_string_value(json_object_get(o, "device")));
		return 1;
	}
	if (!json_is_string(json_object_get(o, "step"))) {
		json_decref(o);
		keep_text(p, line, len);
		return 0;
	}
	json_decref(p->begun);
	p->begun = NULL;
	if (strcmp(json_string_value(json_object_get(o, "step")), "end") == 0) {
		json_decref(p->end);
		p->end = o;
	} else {
		json_array_append_new(p->steps, o);
	}
	return 1;
}

void
probe_feed_text(struct probe_out *p, const char *buf, size_t len)
{
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		probe_feed(p, buf + pos, ll);
		pos += ll + (nl != NULL);
	}
}

/* The first failed step's error, with its step (and device). */
static json_t *
first_error(const json_t *steps)
{
	size_t i;
	json_t *s;

	json_array_foreach(steps, i, s) {
		json_t *e = json_object_get(s, "error");
		if (json_is_true(json_object_get(s, "ok")) || !json_is_object(e))
			continue;
		json_t *fe = json_deep_copy(e);
		json_object_set(fe, "step", json_object_get(s, "step"));
		if (json_object_get(s, "device"))
			json_object_set(fe, "device", json_object_get(s, "device"));
		return fe;
	}
	return NULL;
}

json_t *
probe_obs(const struct probe_out *p, const struct probe_end *e)
{
	json_t *o = json_object(), *fe;
	char how[256];

	json_object_set_new(o, "expected", e->expected ? json_string(e->expected) : json_null());
	json_object_set_new(o, "interpreter", e->interpreter ? json_string(e->interpreter) : json_null());
	json_object_set_new(o, "probe", e->probe_path ? json_string(e->probe_path) : json_null());
	if (e->log != NULL)
		json_object_set_new(o, "log", json_string(e->log));
	if (e->run != NULL) {
		const struct run_result *r = e->run;
		json_object_set_new(o, "ended", json_string(run_describe(r, how, sizeof how)));
		json_object_set_new(o, "exit_code", r->exited ? json_integer(r->exit_code) : json_null());
		json_object_set_new(o, "timed_out", json_boolean(r->timed_out));
		json_object_set_new(o, "cancelled", json_boolean(r->cancelled));
		json_object_set_new(o, "seconds", json_real(r->elapsed_s));
	}
	json_object_set_new(o, "completed", json_boolean(p->end != NULL));
	if (p->begun != NULL)
		json_object_set_new(o, "interrupted_in", json_deep_copy(p->begun));
	json_object_set_new(o, "steps", json_deep_copy(p->steps));
	fe = first_error(p->steps);
	if (fe == NULL && p->begun != NULL) {
		fe = json_object();
		json_object_set(fe, "step", json_object_get(p->begun, "begin"));
		if (json_object_get(p->begun, "device"))
			json_object_set(fe, "device", json_object_get(p->begun, "device"));
		json_object_set_new(fe, "type", json_string(e->run && e->run->timed_out ? "Timeout"
							    : "Crash"));
		json_object_set_new(fe, "message",
				    json_string(e->run ? run_describe(e->run, how, sizeof how)
						: "the probe stopped during this step"));
	}
	json_object_set_new(o, "first_error", fe ? fe : json_null());
	if (p->end != NULL)
		json_object_set_new(o, "end", json_deep_copy(p->end));
	json_object_set_new(o, "text", json_deep_copy(p->text));
	if (p->text_dropped)
		json_object_set_new(o, "text_dropped", json_integer((json_int_t)p->text_dropped));
	return o;
}

/* --- judging --- */

static const struct {
	const char *step, *id, *label;
} step_info[] = {
	{ "python", "python", "the project interpreter runs" },
	{ "import_torch", "import-torch", "import torch" },
	{ "precision", "precision", "precision and determinism settings" },
	{ "backend", "backend", "backend: expected against seen" },
	{ "device", "device", "device selected" },
	{ "alloc", "alloc", "allocation on the device" },
	{ "h2d", "h2d", "host-to-device transfer" },
	{ "compute", "compute", "matrix product on the device" },
	{ "sync", "sync", "synchronisation" },
	{ "d2h", "d2h", "device-to-host transfer" },
	{ "agree", "agreement", "product agrees with float64 on the CPU" },
	{ "perf", "perf", "throughput of a product and a copy" },
	{ "libs", "libraries", "libraries loaded" },
	{ "ext", "ext", "extension imports and runs" },
};

/* Row id and label of a step ("compute.agreement", "compute.ext.mypkg._C",
 * "compute.compute.cuda1" for a second device). */
static void
step_id(const json_t *s, const char *name, char *id, size_t idlen, const char **label)
{
	const char *dev = obs_compute_step_device(s);   /* a step, or the one begun */
	const char *mod = obs_compute_step_module(s);
	const char *rid = name;
	char dsuf[64] = "";

	*label = name;
	for (size_t i = 0; i < sizeof step_info / sizeof step_info[0]; i++)
		if (strcmp(step_info[i].step, name) == 0) {
			rid = step_info[i].id;
			*label = step_info[i].label;
		}
	if (dev != NULL && strcmp(dev, "cpu") != 0 && strcmp(dev, "mps") != 0) {
		const char *colon = strchr(dev, ':');
		if (colon != NULL && strcmp(colon, ":0") != 0) {
			size_t k = 0;
			dsuf[k++] = '.';
			for (const char *q = dev; *q && k + 1 < sizeof dsuf; q++)
				if (*q != ':')
					dsuf[k++] = *q;
			dsuf[k] = '\0';
		}
	}
	if (mod != NULL && strcmp(name, "ext") == 0)
		snprintf(id, idlen, "compute.ext.%s", mod);
	else
		snprintf(id, idlen, "compute.%s%s", rid, dsuf);
}

static const char *
or_str(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

/* A short "what was seen" for a passed step. */
static void
step_observed(const json_t *s, const char *name, char *buf, size_t len)
{
	double ms = obs_compute_step_ms(s);

	if (strcmp(name, "python") == 0)
		snprintf(buf, len, "Python %s at %s%s", or_str(obs_compute_step_version(s), "?"),
			 or_str(obs_compute_step_executable(s), "?"),
			 obs_compute_step_venv(s) ? " (a venv)" : "");
	else if (strcmp(name, "import_torch") == 0)
		snprintf(buf, len, "torch %s (cuda %s, hip %s) in %.0f ms",
			 or_str(obs_compute_step_version(s), "?"), or_str(obs_compute_step_cuda(s), "None"),
			 or_str(obs_compute_step_hip(s), "None"), ms);
	else if (strcmp(name, "agree") == 0)
		snprintf(buf, len, "max |error| %.3g <= bound %.3g (%s)",
			 obs_compute_step_max_abs_error(s), json_number_value(obs_compute_step_bound(s)),
			 or_str(obs_compute_step_formula(s), ""));
	else if (strcmp(name, "ext") == 0)
		snprintf(buf, len, "%s imported%s%s%s", or_str(obs_compute_step_module(s), "?"),
			 obs_compute_step_call(s) ? ", " : "", or_str(obs_compute_step_call(s), ""),
			 obs_compute_step_call(s) ? "() returned" : "");
	else if (obs_compute_step_device(s) != NULL)
		snprintf(buf, len, "passed on %s in %.1f ms", obs_compute_step_device(s), ms);
	else
		snprintf(buf, len, "passed in %.1f ms", ms);
}

/* "seen cpu (CPU-only build, torch 1.13.0, cuda None, hip None)" */
static void
backend_observed(const json_t *s, char *buf, size_t len)
{
	const json_t *devs = obs_compute_step_devices(s);
	const json_t *d0 = json_array_get(devs, 0);
	const char *build = or_str(obs_compute_step_build(s), "?");

	if (d0 != NULL)
		snprintf(buf, len, "%s build, %zu device(s): %s%s%s", build, json_array_size(devs),
			 or_str(obs_compute_device_name(d0), "?"), obs_compute_device_gcn_arch(d0) ? " " : "",
			 or_str(obs_compute_device_gcn_arch(d0), ""));
	else
		snprintf(buf, len, "seen %s (%s build, no GPU device)", or_str(obs_compute_step_seen(s), "?"),
			 build);
}

static const char *
reason_hint(const char *reason)
{
	static const struct { const char *r, *h; } hints[] = {
		{ "cpu-only-build", "install the PyTorch variant for the expected backend (a +cuXXX or rocmX.Y wheel from its index) in the rebuild file, then rebuild (stage 3)" },
		{ "wrong-build", "the installed PyTorch targets the other GPU vendor: change the variant in the rebuild file and rebuild (stage 3)" },
		{ "visibility-empty", "unset the variable or give it the device index (for example CUDA_VISIBLE_DEVICES=0)" },
		{ "visibility-none", "unset the variable or give it the device index" },
		{ "driver-too-old", "update the GPU driver, or install a PyTorch built for an older CUDA that this driver supports" },
		{ "no-device", "check the driver (nvidia-smi or rocm-smi), the device nodes (/dev/nvidia*, /dev/kfd) and, in a container, that GPUs are passed through" },
		{ "arch-not-in-list", "this PyTorch was not built for this GPU: install a build whose arch list includes it" },
		{ "disagree", "the device computes wrong results: check the driver, ECC errors and the precision flags" },
		{ "slow", "a throttled or shared machine: look at its load, power cap and clocks" },
	};

	for (size_t i = 0; reason != NULL && i < sizeof hints / sizeof hints[0]; i++)
		if (strcmp(hints[i].r, reason) == 0)
			return hints[i].h;
	return NULL;
}

static void
precision_observed(const json_t *s, char *buf, size_t len)
{
	char tf32[16], cudnn_tf32[16];

	snprintf(tf32, sizeof tf32, "%s", obs_compute_step_matmul_allow_tf32(s) ? "on" : "off");
	snprintf(cudnn_tf32, sizeof cudnn_tf32, "%s", obs_compute_step_cudnn_allow_tf32(s) ? "on" : "off");
	snprintf(buf, len,
		 "TF32 matmul %s, cuDNN TF32 %s, float32_matmul_precision %s, cudnn.benchmark %s, "
		 "cudnn.deterministic %s, deterministic algorithms %s, CUBLAS_WORKSPACE_CONFIG %s, "
		 "PYTHONHASHSEED %s, threads %lld/%lld",
		 tf32, cudnn_tf32, or_str(obs_compute_step_float32_matmul_precision(s), "?"),
		 obs_compute_step_cudnn_benchmark(s) ? "on" : "off",
		 obs_compute_step_cudnn_deterministic(s) ? "on" : "off",
		 obs_compute_step_deterministic_algorithms(s) ? "on" : "off",
		 or_str(obs_compute_step_env_cublas_workspace_config(s), "unset"),
		 or_str(obs_compute_step_env_pythonhashseed(s), "unset"),
		 (long long)obs_compute_step_num_threads(s),
		 (long long)obs_compute_step_num_interop_threads(s));
}

static int
rows_have_fail(const struct kd_rows *rows, size_t from)
{
	for (size_t i = from; i < rows->n; i++)
		if (rows->v[i].status == KD_R_FAIL)
			return 1;
	return 0;
}

/* The perf step's rows: compute.perf-matmul and compute.perf-copy (with the
 * device's suffix; .cpu for the host's CPU on a GPU machine), measurements whose numbers lead the observed text (the
 * fleet compares them against the fleet's median, fleet.c). */
static void
perf_rows(const json_t *s, const char *id, const char *expected, struct kd_rows *rows)
{
	const char *dsuf = id + strlen("compute.perf");
	int ok = obs_compute_step_ok(s);
	const char *dev = or_str(obs_compute_step_device(s), "?");
	char rid[300];
	struct kd_row *r;

	/* the host's CPU timed on a GPU machine: .cpu, apart from cuda:0's rows */
	if (strcmp(dev, "cpu") == 0 && expected != NULL && strcmp(expected, "cpu") != 0)
		dsuf = ".cpu";
	snprintf(rid, sizeof rid, "compute.perf-matmul%s", dsuf);
	r = kd_rows_addf(rows, rid, ok ? KD_R_INFO : KD_R_FAIL, "matrix product throughput",
			 obs_compute_step_min_gflops(s) ? "at least the reference's minimum" : NULL,
			 "%.6g GFLOP/s on %s, %s %lldx%lld (median of %lld windows of %g s)",
			 obs_compute_step_gflops(s), dev, or_str(obs_compute_step_dtype(s), "?"),
			 (long long)obs_compute_step_n(s), (long long)obs_compute_step_n(s),
			 (long long)obs_compute_step_windows(s), obs_compute_step_window_s(s));
	if (!ok)
		kd_row_set_error(r, obs_compute_step_error_message(s),
				 "a throttled or shared machine: look at its load, power cap and clocks");
	snprintf(rid, sizeof rid, "compute.perf-copy%s", dsuf);
	kd_rows_addf(rows, rid, KD_R_INFO, "memory copy bandwidth", NULL,
		     "%.6g GB/s on %s (median of %lld windows of %g s)", obs_compute_step_copy_gbps(s),
		     dev, (long long)obs_compute_step_windows(s), obs_compute_step_window_s(s));
}

/* Is base one of the libraries named in a row of its own? */
static int
lib_notable(const char *base)
{
	static const char *const notable[] = {
		"libcudart", "libcublas", "libcublasLt", "libcudnn", "libnccl", "libnvrtc",
		"libcufft", "libcusparse", "libcusolver", "libcurand", "libamdhip64", "librocblas",
		"libMIOpen", "librccl", "libhipblaslt", "libgomp", "libiomp5", "libomp",
		"libopenblas", "libblas", "liblapack", "libmkl_rt", "libmkl_core", "libtorch_cpu",
		"libtorch_cuda", "libc10",
	};

	for (size_t i = 0; base != NULL && i < sizeof notable / sizeof notable[0]; i++)
		if (strcmp(base, notable[i]) == 0)
			return 1;
	return 0;
}

/* The libs step's rows: compute.libraries (how many, by owner; a warning
 * when two copies of a library or an LD_LIBRARY_PATH shadow were seen), one
 * warning row per such case, and compute.lib.BASE for the runtimes and math
 * libraries (CUDA, ROCm, NCCL, OpenMP, BLAS, PyTorch's own). */
static void
libs_rows(const json_t *s, struct kd_rows *rows)
{
	const json_t *libs = obs_compute_step_libraries(s), *warns = obs_compute_step_lib_warnings(s);
	const json_t *l;
	size_t i, deb = 0, wheel = 0, conda = 0, loose = 0;
	char id[300];

	if (!obs_compute_step_ok(s) || !obs_compute_step_available(s)) {
		kd_rows_addf(rows, "compute.libraries", KD_R_INFO, "libraries loaded", NULL,
			     "not read: %s", or_str(obs_compute_step_reason(s),
						    or_str(obs_compute_step_error_message(s), "?")));
		return;
	}
	json_array_foreach(libs, i, l) {
		const char *o = or_str(obs_compute_lib_owner(l), "");
		deb += strcmp(o, "deb") == 0;
		wheel += strcmp(o, "wheel") == 0;
		conda += strcmp(o, "conda") == 0;
		loose += strcmp(o, "loose") == 0;
	}
	kd_rows_addf(rows, "compute.libraries", json_array_size(warns) ? KD_R_WARN : KD_R_INFO,
		     "libraries loaded", json_array_size(warns) ? "one copy of each, none shadowed" : NULL,
		     "%zu shared objects: %zu from wheels, %zu Debian, %zu conda, %zu loose%s",
		     json_array_size(libs), wheel, deb, conda, loose,
		     json_array_size(warns) ? "; see the warnings" : "");
	json_array_foreach(warns, i, l) {
		struct kd_row *r;
		snprintf(id, sizeof id, "compute.libraries.%s.%s", or_str(obs_compute_libwarn_kind(l), "?"),
			 or_str(obs_compute_libwarn_library(l), "?"));
		r = kd_rows_add(rows, id, KD_R_WARN, "one copy of each library",
				or_str(obs_compute_libwarn_message(l), "?"), "one copy", NULL);
		kd_row_set_error(r, obs_compute_libwarn_message(l),
				 "the loaded library is not the one the build was made with: remove the "
				 "folder from LD_LIBRARY_PATH, or the extra copy");
	}
	json_array_foreach(libs, i, l) {
		const char *pkg = obs_compute_lib_package(l), *ver = obs_compute_lib_version(l);
		if (!lib_notable(obs_compute_lib_base(l)))
			continue;
		snprintf(id, sizeof id, "compute.lib.%s", obs_compute_lib_base(l));
		if (kd_rows_find(rows, id) != NULL)
			continue;   /* a second copy: named by its warning */
		kd_rows_addf(rows, id, KD_R_INFO, obs_compute_lib_base(l), NULL, "%s (%s%s%s%s%s)",
			     obs_compute_lib_path(l), or_str(obs_compute_lib_owner(l), "?"),
			     pkg ? " " : "", or_str(pkg, ""), ver ? " " : "", or_str(ver, ""));
	}
}

/* One row for one step object. */
static void
step_row(const json_t *s, const char *expected, struct kd_rows *rows)
{
	const char *name = obs_compute_step_step(s) ? obs_compute_step_step(s) : "?", *label;
	const char *reason = obs_compute_step_error_reason(s);
	int ok = obs_compute_step_ok(s);
	char id[256], obs[1024];
	struct kd_row *row;

	step_id(s, name, id, sizeof id, &label);
	if (strcmp(name, "perf") == 0 && obs_compute_step_gflops(s) > 0) {
		perf_rows(s, id, expected, rows);
		return;
	}
	if (strcmp(name, "libs") == 0) {
		libs_rows(s, rows);
		return;
	}
	if (strcmp(name, "precision") == 0) {
		if (ok)
			precision_observed(s, obs, sizeof obs);
		else
			snprintf(obs, sizeof obs, "could not be read: %s",
				 or_str(obs_compute_step_error_message(s), "?"));
		kd_rows_add(rows, id, ok ? KD_R_INFO : KD_R_WARN, label, obs, NULL, NULL);
		return;
	}
	if (ok) {
		if (strcmp(name, "backend") == 0)
			backend_observed(s, obs, sizeof obs);
		else
			step_observed(s, name, obs, sizeof obs);
		kd_rows_add(rows, id, KD_R_PASS, label, obs,
			    strcmp(name, "backend") == 0 ? (expected ? expected : "not declared") : NULL,
			    NULL);
		return;
	}
	if (strcmp(name, "backend") == 0 && obs_compute_step_seen(s) != NULL)
		snprintf(obs, sizeof obs, "seen %s (%s build%s%s)", obs_compute_step_seen(s),
			 or_str(obs_compute_step_build(s), "?"), reason ? "; " : "", or_str(reason, ""));
	else if (strcmp(name, "agree") == 0 && obs_compute_step_bound(s) != NULL)
		snprintf(obs, sizeof obs, "max |error| %.3g > bound %.3g",
			 obs_compute_step_max_abs_error(s), json_number_value(obs_compute_step_bound(s)));
	else
		snprintf(obs, sizeof obs, "%s: %s", or_str(obs_compute_step_error_type(s), "Error"),
			 or_str(obs_compute_step_error_message(s), "failed"));
	row = kd_rows_add(rows, id, KD_R_FAIL, label, obs,
			  strcmp(name, "backend") == 0 ? (expected ? expected : "not declared") : "passes",
			  NULL);
	kd_row_set_error(row, obs_compute_step_error_message(s), reason_hint(reason));
}

void
probe_check_rows(const json_t *obs, struct kd_rows *rows)
{
	const json_t *steps = obs_compute_steps(obs);
	const json_t *begun = obs_compute_interrupted_in(obs);
	const json_t *fe = obs_compute_first_error(obs);
	const json_t *text = obs_compute_text(obs);
	const char *expected = obs_compute_expected(obs);
	const char *ended = obs_compute_ended(obs) ? obs_compute_ended(obs) : "ended";
	size_t start = rows->n, i;
	int agreed = 0;
	json_t *s;
	char buf[1024];

	if (expected == NULL) {
		struct kd_row *r = kd_rows_add(rows, "compute.expected", KD_R_FAIL,
					       "the reference declares its backend", "not declared",
					       "cpu, cuda, rocm, mps or xpu", NULL);
		kd_row_set_error(r, NULL, "set system.backend in the reference (stage 1)");
	}
	json_array_foreach(steps, i, s) {
		step_row(s, expected, rows);
		if (obs_compute_step_step(s) != NULL && strcmp(obs_compute_step_step(s), "agree") == 0 &&
		    obs_compute_step_ok(s))
			agreed = 1;
	}
	if (json_is_object(begun)) {
		const char *label;
		char id[256];
		const char *last = json_string_value(json_array_get(text, json_array_size(text) - 1));
		struct kd_row *r;

		step_id(begun, or_str(obs_compute_interrupted_in_begin(obs), "?"), id, sizeof id, &label);
		snprintf(buf, sizeof buf, "the probe stopped during this step: %s", ended);
		r = kd_rows_add(rows, id, KD_R_FAIL, label, buf, "passes", NULL);
		kd_row_set_error(r, last ? last : ended,
				 obs_compute_timed_out(obs)
				 ? "the step hung: look at the log; a GPU initialisation can hang on a busy or faulty device"
				 : "the probe crashed in this step: the log holds what it printed last");
	} else if (!obs_compute_completed(obs)) {
		struct kd_row *r;
		snprintf(buf, sizeof buf, "the probe ended without its final line: %s", ended);
		r = kd_rows_add(rows, "compute.probe", KD_R_FAIL, "the probe ran to its end", buf,
				"its final line", NULL);
		kd_row_set_error(r, json_string_value(json_array_get(text, 0)),
				 "run the interpreter by hand on the probe to see what it prints");
	}
	if (!rows_have_fail(rows, start) && !agreed) {
		struct kd_row *r = kd_rows_add(rows, "compute.agreement", KD_R_FAIL,
					       "product agrees with float64 on the CPU", "not run",
					       "passes", NULL);
		kd_row_set_error(r, NULL, "the probe reported no agreement step: look at its log");
	}
	if (fe != NULL) {
		const char *dev = obs_compute_first_error_device(obs);
		const char *st = obs_compute_first_error_step(obs);
		const char *type = obs_compute_first_error_type(obs);
		const char *msg = obs_compute_first_error_message(obs);
		snprintf(buf, sizeof buf, "in step %s%s%s: %s: %s", st ? st : "?",
			 dev ? " on " : "", dev ? dev : "", type ? type : "Error", msg ? msg : "");
		kd_rows_add(rows, "compute.first-error", KD_R_INFO, "first error", buf, NULL, NULL);
	}
}

void
probe_describe_rows(const json_t *obs, struct kd_rows *rows)
{
	const json_t *steps = obs_compute_steps(obs);
	size_t i;
	json_t *s;
	char buf[2048];

	json_array_foreach(steps, i, s) {
		const char *name = obs_compute_step_step(s) ? obs_compute_step_step(s) : "";
		if (strcmp(name, "import_torch") == 0) {
			kd_rows_addf(rows, "compute.info.torch", KD_R_INFO, "PyTorch", NULL,
				     "%s; torch.version.cuda %s; torch.version.hip %s; git %s; %s",
				     or_str(obs_compute_step_version(s), "?"),
				     or_str(obs_compute_step_cuda(s), "None"),
				     or_str(obs_compute_step_hip(s), "None"),
				     or_str(obs_compute_step_git_version(s), "?"),
				     or_str(obs_compute_step_file(s), "?"));
		} else if (strcmp(name, "backend") == 0) {
			const json_t *devs = obs_compute_step_devices(s), *d, *arch;
			size_t k, o = 0;
			buf[0] = '\0';
			json_array_foreach(devs, k, d)
				o += (size_t)snprintf(buf + o, o < sizeof buf ? sizeof buf - o : 0,
						      "%s%lld: %s, capability %s%s%s, %.1f GiB",
						      k ? "; " : "",
						      (long long)obs_compute_device_index(d),
						      or_str(obs_compute_device_name(d), "?"),
						      or_str(obs_compute_device_capability(d), "?"),
						      obs_compute_device_gcn_arch(d) ? ", " : "",
						      or_str(obs_compute_device_gcn_arch(d), ""),
						      (double)obs_compute_device_total_memory(d) /
						      (1024.0 * 1024 * 1024));
			kd_rows_add(rows, "compute.info.devices", KD_R_INFO, "devices seen",
				    buf[0] ? buf : "none", NULL, NULL);
			arch = obs_compute_step_arch_list(s);
			o = 0;
			buf[0] = '\0';
			json_array_foreach(arch, k, d)
				o += (size_t)snprintf(buf + o, o < sizeof buf ? sizeof buf - o : 0, "%s%s",
						      k ? " " : "", json_string_value(d) ? json_string_value(d) : "?");
			if (arch != NULL)
				kd_rows_add(rows, "compute.info.arch-list", KD_R_INFO,
					    "torch.cuda.get_arch_list()", buf[0] ? buf : "empty", NULL, NULL);
			if (obs_compute_step_cudnn_name(s) != NULL) {
				const json_t *cv = obs_compute_step_cudnn(s);
				const json_t *nv = obs_compute_step_nccl(s);
				char v1[64], v2[64];
				if (json_is_integer(cv))
					snprintf(v1, sizeof v1, "%lld", (long long)json_integer_value(cv));
				else
					snprintf(v1, sizeof v1, "%s", json_string_value(cv) ? json_string_value(cv) : "none");
				snprintf(v2, sizeof v2, "%s", json_string_value(nv) ? json_string_value(nv) : "none");
				kd_rows_addf(rows, "compute.info.libraries", KD_R_INFO, "GPU libraries", NULL,
					     "%s %s; %s %s", obs_compute_step_cudnn_name(s), v1,
					     or_str(obs_compute_step_nccl_name(s), "NCCL"), v2);
			}
		}
	}
}

/* Each line goes to the caller's callback, then into the parser. */
struct exec_ctx {
	const struct probe_opts *o;
	struct probe_out *p;
};

static void
exec_line(void *u, const char *line, size_t len)
{
	struct exec_ctx *x = u;

	if (x->o->on_line != NULL)
		x->o->on_line(x->o->u, line, len);
	probe_feed(x->p, line, len);
}

static int
exec_cancelled(void *u)
{
	struct exec_ctx *x = u;

	return x->o->cancelled != NULL && x->o->cancelled(x->o->u);
}

/* python PROBE --expect E [--ext X]... into argv (at most max - 1 items). */
static size_t
probe_argv(const struct probe_opts *o, const char **argv, size_t max)
{
	size_t n = 0;

	if (o->argv != NULL) {
		for (; o->argv[n] != NULL && n + 1 < max; n++)
			argv[n] = o->argv[n];
		argv[n] = NULL;
		return n;
	}
	argv[n++] = o->python;
	argv[n++] = o->probe_path;
	argv[n++] = "--expect";
	argv[n++] = o->expect && *o->expect ? o->expect : "auto";
	for (size_t i = 0; o->exts != NULL && o->exts[i] != NULL && n + 3 < max; i++) {
		argv[n++] = "--ext";
		argv[n++] = o->exts[i];
	}
	argv[n] = NULL;
	return n;
}

json_t *
probe_argv_json(const struct probe_opts *o)
{
	const char *argv[PROBE_MAX_ARGS];
	size_t n = probe_argv(o, argv, PROBE_MAX_ARGS);
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(argv[i] ? argv[i] : ""));
	return a;
}

int
probe_exec(const struct probe_opts *o, struct probe_out *p, struct run_result *r,
	   struct kd_err *err)
{
	const char *argv[PROBE_MAX_ARGS];
	static const char *const env[] = { "PYTHONUNBUFFERED=1", "PYTHONDONTWRITEBYTECODE=1", NULL };
	struct exec_ctx x = { .o = o, .p = p };
	struct kd_step s = {
		.argv = argv, .cwd = o->cwd, .env_base = o->env_base, .env_set = env,
		.timeout_s = o->timeout_s, .grace_s = o->grace_s, .log_path = o->log_path,
		.on_line = exec_line,
		.cancelled = exec_cancelled, .u = &x,
	};
	int rc;

	probe_argv(o, argv, PROBE_MAX_ARGS);
	rc = step_run(NULL, NULL, &s, err);
	*r = s.r;
	memset(&s.r, 0, sizeof s.r);
	step_free(&s);
	return rc;
}

/* See probe.h. */
char **
probe_run_argv(const char *project_dir, const char *probe, const json_t *ref)
{
	const char *expect = yamlio_get_str(ref, "system.backend");
	const json_t *list = yamlio_get(ref, "compute.extensions"), *e;
	const char *dtype = yamlio_get_str(ref, "compute.dtype");
	const json_t *minj = yamlio_get(ref, "compute.min_gflops");
	char **v = calloc(10 + 2 * PROBE_MAX_EXTS, sizeof *v);
	size_t i, n = 0, next = 0;
	int ok;

	if (v == NULL)
		return NULL;
	v[n++] = venv_python(project_dir);
	v[n++] = strdup(probe ? probe : "probe.py");
	v[n++] = strdup("--expect");
	v[n++] = strdup(expect && *expect ? expect : "auto");
	json_array_foreach(list, i, e) {
		const char *mod = json_is_string(e) ? json_string_value(e)
				  : json_string_value(json_object_get(e, "module"));
		const char *call = json_string_value(json_object_get(e, "call"));
		size_t len;

		if (mod == NULL || *mod == '\0' || next >= PROBE_MAX_EXTS)
			continue;
		len = strlen(mod) + (call ? strlen(call) : 0) + 2;
		v[n++] = strdup("--ext");
		if ((v[n] = malloc(len)) != NULL)
			snprintf(v[n], len, "%s%s%s", mod, call && *call ? ":" : "",
				 call && *call ? call : "");
		n++;
		next++;
	}
	/* the timed product's dtype: compute.dtype, else the result's when it
	 * is a floating type (float32 by default) */
	if (dtype == NULL || *dtype == '\0')
		dtype = yamlio_get_str(ref, "result.dtype");
	if (dtype != NULL && (strncmp(dtype, "float", 5) == 0 || strncmp(dtype, "bfloat", 6) == 0) &&
	    strcmp(dtype, "float32") != 0) {
		v[n++] = strdup("--dtype");
		v[n++] = strdup(dtype);
	}
	/* the fleet's node tasks time every node (fleet-run.c sets it) */
	if (getenv("KD_PROBE_PERF") != NULL && strcmp(getenv("KD_PROBE_PERF"), "1") == 0)
		v[n++] = strdup("--perf");
	if (json_is_number(minj)) {
		char num[64];
		snprintf(num, sizeof num, "%g", json_number_value(minj));
		v[n++] = strdup("--min-gflops");
		v[n++] = strdup(num);
	}
	ok = 1;
	for (size_t k = 0; k < n; k++)
		ok = ok && v[k] != NULL;
	if (!ok) {
		for (size_t k = 0; k < n; k++)
			free(v[k]);
		free(v);
		return NULL;
	}
	return v;
}
