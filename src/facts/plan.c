/*
 * plan.c - the argument vectors of stages 3 to 6: see plan.h.
 *
 * Each builder copies its arguments into a vector it owns, so that the
 * stage that runs it and the plan that shows it hold the same strings.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/baseenv.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/plan.h"
#include "kernodeck/rebuild.h"
#include "kernodeck/yamlio.h"

/* A vector of n copies of the NULL-ended list that follows; NULL when a
 * copy fails. */
static char **
vec(const char *first, ...)
{
	const char *items[32];
	size_t n = 0;
	char **v;
	va_list ap;

	va_start(ap, first);
	for (const char *s = first; s != NULL && n < 31; s = va_arg(ap, const char *))
		items[n++] = s;
	va_end(ap);
	if ((v = calloc(n + 1, sizeof *v)) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if ((v[i] = strdup(items[i])) == NULL) {
			plan_free(v);
			return NULL;
		}
	return v;
}

char **
plan_venv(const char *python, int sys_site, int without_pip)
{
	const char *a = sys_site ? "--system-site-packages" : REBUILD_VENV;
	const char *b = !sys_site ? NULL : without_pip ? "--without-pip" : REBUILD_VENV;
	const char *c = sys_site && without_pip ? REBUILD_VENV : NULL;

	return vec(python, "-m", "venv", a, b, c, (const char *)NULL);
}

char **
plan_pip(const char *vpy, enum plan_pip which)
{
	switch (which) {
	case PLAN_PIP_VERSION:
		return vec(vpy, "-I", "-m", "pip", "--version", (const char *)NULL);
	case PLAN_PIP_INSTALL:
		return vec(vpy, "-I", "-m", "pip", "install", "--timeout", "15", "--retries", "1",
			   "-r", REBUILD_REQUIREMENTS, (const char *)NULL);
	case PLAN_PIP_FREEZE:
		return vec(vpy, "-I", "-m", "pip", "freeze", "--all", (const char *)NULL);
	case PLAN_PIP_INSPECT:
		return vec(vpy, "-I", "-m", "pip", "inspect", (const char *)NULL);
	case PLAN_PIP_CHECK:
		return vec(vpy, "-I", "-m", "pip", "check", (const char *)NULL);
	}
	return NULL;
}

char **
plan_base_query(const char *python)
{
	return vec(python, "-s", "-c", baseenv_query_py, "json", (const char *)NULL);
}

char *
plan_venv_python(const char *project_dir)
{
	return fsutil_join(project_dir, REBUILD_VENV "/bin/python");
}

char **
plan_probe(const char *project_dir, const char *probe, const json_t *ref)
{
	const char *expect = yamlio_get_str(ref, "system.backend");
	const json_t *list = yamlio_get(ref, "compute.extensions"), *e;
	char **v = calloc(5 + 2 * PLAN_MAX_EXTS, sizeof *v);
	size_t i, n = 0, next = 0;
	int ok;

	if (v == NULL)
		return NULL;
	v[n++] = plan_venv_python(project_dir);
	v[n++] = strdup(probe ? probe : "probe.py");
	v[n++] = strdup("--expect");
	v[n++] = strdup(expect && *expect ? expect : "auto");
	json_array_foreach(list, i, e) {
		const char *mod = json_is_string(e) ? json_string_value(e)
				  : json_string_value(json_object_get(e, "module"));
		const char *call = json_string_value(json_object_get(e, "call"));
		size_t len;

		if (mod == NULL || *mod == '\0' || next >= PLAN_MAX_EXTS)
			continue;
		len = strlen(mod) + (call ? strlen(call) : 0) + 2;
		v[n++] = strdup("--ext");
		if ((v[n] = malloc(len)) != NULL)
			snprintf(v[n], len, "%s%s%s", mod, call && *call ? ":" : "",
				 call && *call ? call : "");
		n++;
		next++;
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

char **
plan_entry(const char *project_dir, const json_t *ep, int *uses_venv, const char **why)
{
	size_t i, n = 0;
	json_t *a;
	char **v;

	*uses_venv = 0;
	if (!json_is_array(ep) || json_array_size(ep) == 0) {
		*why = "code.entry_point is not declared as an argument vector ([python, main.py, ...])";
		return NULL;
	}
	if (json_array_size(ep) >= PLAN_MAX_ARGS) {
		*why = "code.entry_point has too many arguments";
		return NULL;
	}
	if ((v = calloc(json_array_size(ep) + 1, sizeof *v)) == NULL) {
		*why = "out of memory";
		return NULL;
	}
	json_array_foreach(ep, i, a) {
		const char *s = json_string_value(a);

		if (s == NULL) {
			*why = "every item of code.entry_point must be a string";
			plan_free(v);
			return NULL;
		}
		if (i == 0 && (strcmp(s, "python") == 0 || strcmp(s, "python3") == 0)) {
			v[n++] = plan_venv_python(project_dir);
			*uses_venv = 1;
		} else {
			v[n++] = strdup(s);
		}
		if (v[n - 1] == NULL) {
			*why = "out of memory";
			plan_free(v);
			return NULL;
		}
	}
	return v;
}

static const struct {
	const char *what;
	const char *argv[4];
} queries[PLAN_NQ] = {
	[PLAN_Q_SMI_CSV] = { "the NVIDIA GPUs", { "nvidia-smi", "--query-gpu=index,name,uuid,"
		"pci.bus_id,driver_version,compute_cap,memory.total",
		"--format=csv,noheader,nounits", NULL } },
	[PLAN_Q_SMI_CSV_OLD] = { "the NVIDIA GPUs, only when the driver knows no compute_cap",
		{ "nvidia-smi", "--query-gpu=index,name,uuid,pci.bus_id,driver_version,"
		  "memory.total", "--format=csv,noheader,nounits", NULL } },
	[PLAN_Q_SMI_TABLE] = { "the CUDA version of the driver", { "nvidia-smi", NULL } },
	[PLAN_Q_HIPCONFIG] = { "the HIP version, only when an AMD GPU is plausible",
		{ "hipconfig", "--version", NULL } },
	[PLAN_Q_AGENTS] = { "the AMD GPUs' gfx targets, only when an AMD GPU is plausible",
		{ "rocm_agent_enumerator", NULL } },
	[PLAN_Q_ROCMINFO] = { "the AMD GPUs' gfx targets, only when rocm_agent_enumerator fails",
		{ "rocminfo", NULL } },
	[PLAN_Q_AMDSMI] = { "the AMD driver, only when an AMD GPU is plausible",
		{ "amd-smi", "version", NULL } },
	[PLAN_Q_GCC] = { "a compiler", { "gcc", "-dumpfullversion", "-dumpversion", NULL } },
	[PLAN_Q_GXX] = { "a compiler", { "g++", "-dumpfullversion", "-dumpversion", NULL } },
	[PLAN_Q_NVCC] = { "a compiler", { "nvcc", "--version", NULL } },
	[PLAN_Q_HIPCC] = { "a compiler", { "hipcc", "--version", NULL } },
	[PLAN_Q_CMAKE] = { "a build tool", { "cmake", "--version", NULL } },
	[PLAN_Q_NINJA] = { "a build tool", { "ninja", "--version", NULL } },
};

static const char python_query[] =
	"import sys\n"
	"print('KD %s %d.%d.%d %s' % ((sys.implementation.name,) + "
	"tuple(sys.version_info[:3]) + (sys.executable,)))\n"
	"try:\n"
	"    import importlib.util as u\n"
	"    miss = [m for m in ('venv', 'ensurepip') if u.find_spec(m) is None]\n"
	"    print('KDVENV ' + ('ok' if not miss else 'no module ' + ' and '.join(miss)))\n"
	"except Exception as e:\n"
	"    print('KDVENV %s: %s' % (type(e).__name__, str(e).replace('\\n', ' ')))\n";

const char *const *
plan_query_argv(enum plan_query q)
{
	return queries[q].argv;
}

const char *
plan_query_what(enum plan_query q)
{
	return queries[q].what;
}

void
plan_python_query(const char *python, const char *argv[6])
{
	argv[0] = python;
	argv[1] = "-I";
	argv[2] = "-S";
	argv[3] = "-c";
	argv[4] = python_query;
	argv[5] = NULL;
}

size_t
plan_count(char *const *argv)
{
	size_t n = 0;

	while (argv != NULL && argv[n] != NULL)
		n++;
	return n;
}

void
plan_free(char **argv)
{
	for (size_t i = 0; argv != NULL && argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}
