/*
 * sys-query.c - stage 2's queries of this machine's tools, one table: see
 * sys-query.h.
 */
#include "config.h"

#include <stddef.h>

#include "kernodeck/sys-query.h"

static const struct {
	const char *what;
	const char *argv[4];
} queries[SYSQ_N] = {
	[SYSQ_SMI_CSV] = { "the NVIDIA GPUs", { "nvidia-smi", "--query-gpu=index,name,uuid,"
		"pci.bus_id,driver_version,compute_cap,memory.total",
		"--format=csv,noheader,nounits", NULL } },
	[SYSQ_SMI_CSV_OLD] = { "the NVIDIA GPUs, only when the driver knows no compute_cap",
		{ "nvidia-smi", "--query-gpu=index,name,uuid,pci.bus_id,driver_version,"
		  "memory.total", "--format=csv,noheader,nounits", NULL } },
	[SYSQ_SMI_TABLE] = { "the CUDA version of the driver", { "nvidia-smi", NULL } },
	[SYSQ_HIPCONFIG] = { "the HIP version, only when an AMD GPU is plausible",
		{ "hipconfig", "--version", NULL } },
	[SYSQ_AGENTS] = { "the AMD GPUs' gfx targets, only when an AMD GPU is plausible",
		{ "rocm_agent_enumerator", NULL } },
	[SYSQ_ROCMINFO] = { "the AMD GPUs' gfx targets, only when rocm_agent_enumerator fails",
		{ "rocminfo", NULL } },
	[SYSQ_AMDSMI] = { "the AMD driver, only when an AMD GPU is plausible",
		{ "amd-smi", "version", NULL } },
	[SYSQ_GCC] = { "a compiler", { "gcc", "-dumpfullversion", "-dumpversion", NULL } },
	[SYSQ_GXX] = { "a compiler", { "g++", "-dumpfullversion", "-dumpversion", NULL } },
	[SYSQ_NVCC] = { "a compiler", { "nvcc", "--version", NULL } },
	[SYSQ_HIPCC] = { "a compiler", { "hipcc", "--version", NULL } },
	[SYSQ_CMAKE] = { "a build tool", { "cmake", "--version", NULL } },
	[SYSQ_NINJA] = { "a build tool", { "ninja", "--version", NULL } },
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
sysquery_argv(enum sysquery q)
{
	return queries[q].argv;
}

const char *
sysquery_what(enum sysquery q)
{
	return queries[q].what;
}

void
sysquery_python(const char *python, const char *argv[6])
{
	argv[0] = python;
	argv[1] = "-I";
	argv[2] = "-S";
	argv[3] = "-c";
	argv[4] = python_query;
	argv[5] = NULL;
}

