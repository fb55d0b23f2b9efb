/*
 * sysinfo.c - the system chain of this machine: what it is (OS, kernel,
 * architecture, libc, CPU, container or host), which environment variables
 * change device visibility or package sources, and the reference's `system`
 * row made from an observation.  GPUs and drivers are read by sys-gpu.c,
 * compilers by sys-tools.c, interpreters by sys-python.c; this file joins
 * them into one tree (sysinfo_observe).
 *
 * Every file under /proc, /sys, /dev, /etc (and /opt/rocm) is read through
 * the root prefix $KD_SYSROOT, so tests point it at fixture trees.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/obs-system.h"
#include "kernodeck/redact.h"
#include "kernodeck/run.h"
#include "kernodeck/runenv.h"
#include "kernodeck/step.h"
#include "kernodeck/sys-gpu.h"
#include "kernodeck/sys-tools.h"
#include "kernodeck/sysinfo.h"
#include "kernodeck/sysinfo-util.h"

extern char **environ;

/* ------------------------------------------------------ OS, kernel, CPU */

/* One KEY=VALUE line of os-release, unquoted, into obj[key]. */
static void
os_release_line(json_t *os, char *line)
{
	static const struct { const char *key, *name; } keys[] = {
		{ "NAME", "name" }, { "ID", "id" }, { "VERSION_ID", "version_id" },
		{ "PRETTY_NAME", "pretty" }, { "VERSION_CODENAME", "codename" },
		{ "ID_LIKE", "id_like" },
	};
	char *eq = strchr(line, '='), *v;
	size_t n;

	if (eq == NULL)
		return;
	*eq = '\0';
	v = sysinfo_trim(eq + 1);
	n = strlen(v);
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v[n - 1] = '\0';
		v++;
	}
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strcmp(sysinfo_trim(line), keys[i].key) == 0 && *v != '\0')
			json_object_set_new(os, keys[i].name, json_string(v));
}

static json_t *
observe_os(void)
{
	json_t *os = json_object();
	char *buf = sysinfo_read("/etc/os-release", NULL), *save = NULL;

	if (buf == NULL)
		buf = sysinfo_read("/usr/lib/os-release", NULL);
	if (buf == NULL)
		return sysinfo_status(os, "unknown", "no /etc/os-release");
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		os_release_line(os, l);
	free(buf);
	if (json_object_get(os, "pretty") == NULL && json_object_get(os, "name") != NULL) {
		const char *nm = json_string_value(json_object_get(os, "name"));
		const char *ver = json_string_value(json_object_get(os, "version_id"));
		json_object_set_new(os, "pretty", ver ? json_sprintf("%s %s", nm, ver)
				    : json_string(nm));
	}
	return sysinfo_status(os, "ok", NULL);
}

static json_t *
observe_kernel(const struct utsname *u)
{
	json_t *k = json_object();
	char *rel = sysinfo_read_line("/proc/sys/kernel/osrelease");
	char *ver = sysinfo_read_line("/proc/version");

	json_object_set_new(k, "release", json_string(rel ? rel : u->release));
	if (ver != NULL)
		json_object_set_new(k, "version", json_string(ver));
	/* WSL kernels say so in their release string */
	if (rel != NULL && (strstr(rel, "microsoft") || strstr(rel, "Microsoft")))
		json_object_set_new(k, "wsl", json_true());
	free(rel);
	free(ver);
	return k;
}

static json_t *
observe_cpu(void)
{
	json_t *cpu = json_object();
	char *buf = sysinfo_read("/proc/cpuinfo", NULL), *save = NULL;
	long count = 0;
	const char *model = NULL;

	if (buf == NULL) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		if (n > 0)
			json_object_set_new(cpu, "count", json_integer(n));
		return sysinfo_status(cpu, "unknown", "no /proc/cpuinfo");
	}
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(l, ':');
		if (colon == NULL)
			continue;
		*colon = '\0';
		sysinfo_trim(l);
		char *v = sysinfo_trim(colon + 1);
		if (strcmp(l, "processor") == 0)
			count++;
		else if (model == NULL && (strcmp(l, "model name") == 0 ||
					   strcmp(l, "Hardware") == 0 ||
					   strcmp(l, "cpu model") == 0))
			model = v;
	}
	if (model != NULL)
		json_object_set_new(cpu, "model", json_string(model));
	if (count > 0)
		json_object_set_new(cpu, "count", json_integer(count));
	free(buf);
	return sysinfo_status(cpu, "ok", NULL);
}

/* Container or host: marker files, then the cgroup of PID 1. */
static json_t *
observe_container(const json_t *kernel)
{
	static const struct { const char *path, *kind; } marks[] = {
		{ "/.dockerenv", "docker" },
		{ "/run/.containerenv", "podman" },
		{ "/run/systemd/container", "systemd-nspawn" },
	};
	static const struct { const char *word, *kind; } cg[] = {
		{ "kubepods", "kubernetes" }, { "docker", "docker" },
		{ "containerd", "containerd" }, { "libpod", "podman" },
		{ "lxc", "lxc" }, { "machine.slice", "systemd-nspawn" },
	};
	json_t *c = json_object();
	char *p, *buf;

	for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
		p = sysinfo_path(marks[i].path);
		int there = p != NULL && access(p, F_OK) == 0;
		free(p);
		if (there) {
			json_object_set_new(c, "kind", json_string(marks[i].kind));
			json_object_set_new(c, "evidence", json_string(marks[i].path));
			return c;
		}
	}
	buf = sysinfo_read("/proc/1/cgroup", NULL);
	for (size_t i = 0; buf != NULL && i < sizeof cg / sizeof cg[0]; i++) {
		if (strstr(buf, cg[i].word) != NULL) {
			json_object_set_new(c, "kind", json_string(cg[i].kind));
			json_object_set_new(c, "evidence",
					    json_sprintf("/proc/1/cgroup mentions %s", cg[i].word));
			free(buf);
			return c;
		}
	}
	free(buf);
	if (getenv("KUBERNETES_SERVICE_HOST") != NULL) {
		json_object_set_new(c, "kind", json_string("kubernetes"));
		json_object_set_new(c, "evidence", json_string("KUBERNETES_SERVICE_HOST is set"));
		return c;
	}
	if (json_is_true(json_object_get(kernel, "wsl"))) {
		json_object_set_new(c, "kind", json_string("wsl"));
		json_object_set_new(c, "evidence", json_string("the kernel release names Microsoft"));
		return c;
	}
	json_object_set_new(c, "kind", json_string("host"));
	json_object_set_new(c, "evidence", json_string("no container marker found"));
	return c;
}

/* ----------------------------------------------------------- environment */

/* Variables that change device visibility or package sources. */
static const char *const env_names[] = {
	"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
	"GPU_DEVICE_ORDINAL", "CUDA_DEVICE_ORDER", "HSA_OVERRIDE_GFX_VERSION",
	"NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "ZE_AFFINITY_MASK",
	"CUDA_HOME", "CUDA_PATH", "ROCM_PATH", "ROCM_HOME", "HIP_PATH",
	"LD_LIBRARY_PATH", "LD_PRELOAD", "PATH",
	"PYTHONPATH", "PYTHONHOME", "PYTHONNOUSERSITE", "PYTHONSAFEPATH",
	"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX",
	"PIP_CONSTRAINT", "PIP_REQUIRE_VIRTUALENV", "PIP_CONFIG_FILE",
	"UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_INDEX",
	"VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV",
	"TORCH_CUDA_ARCH_LIST", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF",
	"PYTORCH_ROCM_ARCH", "CUBLAS_WORKSPACE_CONFIG", "CUDA_LAUNCH_BLOCKING",
	"CUDA_MODULE_LOADING", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
	"LOADEDMODULES", "MODULEPATH", "ATEN_CPU_CAPABILITY", "PYTHONHASHSEED",
	"PYTHONWARNINGS", "PYTHONDONTWRITEBYTECODE",
};
/* the families that change a run: pip's options, CUDA and cuBLAS/cuDNN,
 * the thread pools (OpenMP, MKL, OpenBLAS), PyTorch's own */
static const char *const env_prefixes[] = { "NCCL_", "SLURM_", "TORCH_", "HSA_", "PIP_",
					    "CUDA_", "CUBLAS_", "CUDNN_", "MKL_", "OMP_", "KMP_",
					    "OPENBLAS_", "PYTORCH_", "UV_" };
/* Secret-shaped names are never copied, whatever their prefix. */
static const char *const env_secret_words[] = {
	"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH",
};
#define KD_CAP_SYS_ENV 128      /* variables kept */
#define KD_CAP_SYS_ENV_VALUE 4096

static int
env_allowed(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof env_secret_words / sizeof env_secret_words[0]; i++) {
		size_t w = strlen(env_secret_words[i]);
		for (size_t j = 0; j + w <= n; j++)
			if (strncmp(name + j, env_secret_words[i], w) == 0)
				return 0;
	}
	for (size_t i = 0; i < sizeof env_names / sizeof env_names[0]; i++)
		if (strlen(env_names[i]) == n && strncmp(name, env_names[i], n) == 0)
			return 1;
	for (size_t i = 0; i < sizeof env_prefixes / sizeof env_prefixes[0]; i++) {
		size_t w = strlen(env_prefixes[i]);
		if (n > w && strncmp(name, env_prefixes[i], w) == 0)
			return 1;
	}
	/* every variable that changes a run (runenv.h: also ROCm's, NumExpr's) */
	char nm[128];
	if (n >= sizeof nm)
		return 0;
	memcpy(nm, name, n);
	nm[n] = '\0';
	return runenv_allowed(nm);
}

/* The allowed variables of the environment, values redacted, sorted. */
json_t *
sysinfo_env(void)
{
	json_t *env = json_object();
	size_t kept = 0;

	for (char **e = environ; e != NULL && *e != NULL; e++) {
		const char *eq = strchr(*e, '=');
		if (eq == NULL || !env_allowed(*e, (size_t)(eq - *e)))
			continue;
		if (kept++ >= KD_CAP_SYS_ENV)
			break;
		char name[256];
		size_t n = (size_t)(eq - *e), vl = strlen(eq + 1), rl = 0;
		if (n >= sizeof name)
			continue;
		memcpy(name, *e, n);
		name[n] = '\0';
		if (vl > KD_CAP_SYS_ENV_VALUE)
			vl = KD_CAP_SYS_ENV_VALUE;
		char *red = redact_text(eq + 1, vl, &rl);
		json_object_set_new(env, name, red ? json_stringn(red, rl) : json_string(""));
		free(red);
	}
	return env;
}

/* --------------------------------------------------------------- observe */

static const char *
norm_arch(const char *m)
{
	if (strcmp(m, "amd64") == 0 || strcmp(m, "x64") == 0)
		return "x86_64";
	if (strcmp(m, "arm64") == 0)
		return "aarch64";
	return m;
}

static void *
gpu_main(void *arg)
{
	sysgpu_observe(arg);
	return NULL;
}

int
sysinfo_observe(json_t **obs, const struct kd_sink *sink, struct kd_err *err)
{
	struct utsname u;
	json_t *o = json_object(), *kernel;
	char now[32];

	(void)err;
	if (uname(&u) != 0)
		memset(&u, 0, sizeof u);
	fsutil_utc_now(now, sizeof now);
	json_object_set_new(o, "schema", json_integer(1));
	json_object_set_new(o, "observed_at", json_string(now));
	if (strcmp(sysinfo_root(), "/") != 0)
		json_object_set_new(o, "sysroot", json_string(sysinfo_root()));
	kd_sink_step(sink, "operating system", 0.05);
	json_object_set_new(o, "os", observe_os());
	kernel = observe_kernel(&u);
	json_object_set_new(o, "kernel", kernel);
	json_object_set_new(o, "arch", json_string(norm_arch(u.machine)));
	json_object_set_new(o, "libc", json_pack("{s:s, s:s}", "name", "glibc",
						 "version", gnu_get_libc_version()));
	json_object_set_new(o, "cpu", observe_cpu());
	json_object_set_new(o, "container", observe_container(kernel));
	/* GPUs (nvidia-smi can be slow) and compilers at the same time */
	kd_sink_step(sink, "GPUs, drivers, compilers", 0.2);
	struct sysinfo_thread th;
	json_t *gpu = json_object();
	sysinfo_spawn(&th, gpu_main, gpu);
	json_t *tools = systools_observe();
	sysinfo_join(&th);
	json_object_update(o, gpu);
	json_decref(gpu);
	json_object_set_new(o, "tools", tools);
	json_object_set_new(o, "env", sysinfo_env());
	/* 0.8: the system stage goes on with the PyTorch variant (0.9) */
	kd_sink_step(sink, "system observed", 0.8);
	*obs = o;
	return 0;
}

/* ---------------------------------------------------------- reference row */

/* "Ubuntu 22.04.3 LTS (x86_64)" -> os "Ubuntu 22.04.3 LTS", arch "x86_64". */
static void
split_os_arch(const char *s, char *os, size_t oslen, char *arch, size_t archlen)
{
	size_t n = strlen(s);

	snprintf(os, oslen, "%s", s);
	arch[0] = '\0';
	if (n > 3 && s[n - 1] == ')') {
		const char *open = strrchr(s, '(');
		if (open != NULL && open > s && open[-1] == ' ' &&
		    (size_t)(s + n - 1 - open - 1) < archlen) {
			size_t an = (size_t)(s + n - 1 - open - 1);
			memcpy(arch, open + 1, an);
			arch[an] = '\0';
			/* "(bookworm)" is a codename, not an architecture */
			if (strcmp(arch, "x86_64") && strcmp(arch, "aarch64") &&
			    strcmp(arch, "arm64") && strcmp(arch, "ppc64le") &&
			    strcmp(arch, "s390x") && strcmp(arch, "AMD64") &&
			    strcmp(arch, "x86")) {
				arch[0] = '\0';
				return;
			}
			snprintf(os, oslen, "%.*s", (int)(open - 1 - s), s);
		}
	}
}

static json_t *
str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* The row from a parsed collect_env report (src/formats/collect-env.c). */
static json_t *
row_from_collect_env(const json_t *ce)
{
	json_t *row = json_object();
	const char *os = json_string_value(json_object_get(ce, "os"));
	const char *cuda = json_string_value(json_object_get(ce, "cuda_build"));
	const char *rocm = json_string_value(json_object_get(ce, "rocm_build"));
	const char *drv = json_string_value(json_object_get(ce, "driver_version"));
	const json_t *gpus = json_object_get(ce, "gpus");
	const char *model = json_string_value(json_array_get(gpus, 0));
	char osb[256], arch[64];
	const char *vendor = "none";

	if (os != NULL) {
		split_os_arch(os, osb, sizeof osb, arch, sizeof arch);
		json_object_set_new(row, "os", json_string(osb));
		json_object_set_new(row, "arch", arch[0] ?
				    json_string(norm_arch(arch)) : json_null());
	} else {
		json_object_set_new(row, "os", json_null());
		json_object_set_new(row, "arch", json_null());
	}
	if (json_array_size(gpus) > 0)
		vendor = rocm ? "amd" : sysgpu_vendor_of_name(model);
	json_object_set_new(row, "gpu_vendor", json_string(vendor));
	json_object_set_new(row, "gpu_model", str_or_null(model));
	json_object_set_new(row, "gpu_count", json_integer((json_int_t)json_array_size(gpus)));
	json_object_set_new(row, "driver", str_or_null(drv));
	json_object_set_new(row, "cuda", str_or_null(cuda));
	json_object_set_new(row, "rocm", str_or_null(rocm));
	json_object_set_new(row, "backend", json_string(rocm ? "rocm" : cuda ? "cuda" : "cpu"));
	return row;
}

json_t *
sysinfo_reference_row(const json_t *obs)
{
	json_t *row;
	const json_t *g0;

	if (!json_is_object(obs))
		return NULL;
	if (json_object_get(obs, "raw") != NULL || json_object_get(obs, "torch_version") != NULL)
		return row_from_collect_env(obs);
	row = json_object();
	g0 = json_array_get(obs_system_gpus(obs), 0);
	json_object_set_new(row, "os", str_or_null(obs_system_os_pretty(obs)));
	json_object_set_new(row, "arch", str_or_null(obs_system_arch(obs)));
	json_object_set_new(row, "gpu_vendor", json_string(
		obs_system_gpu_vendor(obs) ? obs_system_gpu_vendor(obs) : "none"));
	json_object_set_new(row, "gpu_model", str_or_null(obs_system_gpus_name(g0)));
	json_object_set_new(row, "gpu_count",
			    json_integer((json_int_t)json_array_size(obs_system_gpus(obs))));
	json_object_set_new(row, "driver", str_or_null(obs_system_driver_version(obs)));
	/* the CUDA the rebuild plans when known, else what the driver runs */
	const char *cuda = obs_system_plan_cuda(obs);
	if (cuda == NULL)
		cuda = obs_system_cuda_driver_max(obs);
	json_object_set_new(row, "cuda", str_or_null(cuda));
	const char *rocm = obs_system_plan_rocm(obs);
	if (rocm == NULL)
		rocm = obs_system_rocm_version(obs);
	json_object_set_new(row, "rocm", str_or_null(rocm));
	json_object_set_new(row, "backend", json_string(
		obs_system_backend(obs) ? obs_system_backend(obs) : "cpu"));
	return row;
}
