/*
 * runenv.c - the environment variables that may cross a dossier: see
 * runenv.h.
 *
 * The list holds exact names only, no prefix: a family such as OMP_ or
 * NCCL_ also holds names that load a library (OMP_TOOL_LIBRARIES,
 * NCCL_NET_PLUGIN) or name a file to read or write.  Nothing here is a
 * path, a program or a library.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "kernodeck/runenv.h"
#include "kernodeck/termout.h"

static const char *const names[] = {
	/* device visibility and order */
	"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "HIP_VISIBLE_DEVICES",
	"ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "HSA_OVERRIDE_GFX_VERSION",
	"ZE_AFFINITY_MASK",
	/* thread pools: OpenMP, MKL, OpenBLAS, numexpr */
	"OMP_NUM_THREADS", "OMP_DYNAMIC", "OMP_PROC_BIND", "OMP_SCHEDULE", "OMP_WAIT_POLICY",
	"MKL_NUM_THREADS", "MKL_DYNAMIC", "MKL_CBWR", "MKL_ENABLE_INSTRUCTIONS",
	"MKL_THREADING_LAYER", "KMP_AFFINITY", "KMP_BLOCKTIME", "KMP_DETERMINISTIC_REDUCTION",
	"OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE", "NUMEXPR_NUM_THREADS",
	/* PyTorch */
	"TORCH_CUDA_ARCH_LIST", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF",
	"PYTORCH_ROCM_ARCH", "PYTORCH_NO_CUDA_MEMORY_CACHING", "PYTORCH_NVML_BASED_CUDA_CHECK",
	"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "TORCH_BLAS_PREFER_CUBLASLT",
	"TORCH_BLAS_PREFER_HIPBLASLT", "TORCH_CUDNN_V8_API_DISABLED", "TORCH_USE_CUDA_DSA",
	"ATEN_CPU_CAPABILITY",
	/* the CUDA and ROCm math libraries */
	"CUBLAS_WORKSPACE_CONFIG", "CUDA_LAUNCH_BLOCKING", "CUDA_MODULE_LOADING",
	"NVIDIA_TF32_OVERRIDE", "CUDNN_CONV_WSCAP_DBG", "HIP_LAUNCH_BLOCKING",
	"AMD_SERIALIZE_KERNEL", "HSA_ENABLE_SDMA", "MIOPEN_FIND_MODE", "MIOPEN_FIND_ENFORCE",
	"ROCBLAS_DEFAULT_ATOMICS_MODE", "HIPBLASLT_ALLOW_TF32",
	/* collectives (no plugin, no file) */
	"NCCL_ALGO", "NCCL_PROTO", "NCCL_P2P_DISABLE", "NCCL_IB_DISABLE", "NCCL_SHM_DISABLE",
	"NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS",
	/* hash seeds */
	"PYTHONHASHSEED",
};

int
runenv_allowed(const char *name)
{
	for (size_t i = 0; name != NULL && i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0)
			return 1;
	return 0;
}

const char *const *
runenv_names(size_t *n)
{
	*n = sizeof names / sizeof names[0];
	return names;
}

const char *
runenv_bad_value(const char *value)
{
	size_t n = strlen(value);

	if (n > RUNENV_MAX_VALUE)
		return "a value longer than 256 bytes";
	if (termout_unsafe(value, n) > 0 || strpbrk(value, "\n\t") != NULL)
		return "a value with a control or hidden character";
	return NULL;
}

/* The family of a name that changes how a program is found or started, or
 * NULL. */
static const char *
starter_family(const char *name)
{
	static const struct { const char *prefix, *family; } fam[] = {
		{ "LD_", "the dynamic loader's" }, { "GIT_", "git's" },
		{ "PYTHON", "Python's start-up and path" }, { "BASH", "the shell's" },
		{ "GCONV_", "the C library's" }, { "MALLOC_", "the C library's" },
		{ "PERL", "Perl's" }, { "RUBY", "Ruby's" }, { "NODE_", "Node's" },
		{ "PIP_", "pip's (where packages come from)" }, { "UV_", "uv's" },
		{ "SSH_", "ssh's" },
	};
	static const char *const shell[] = { "ENV", "PS4", "PS1", "IFS", "CDPATH", "SHELLOPTS",
					     "PROMPT_COMMAND", "PATH", "HOME", "SHELL", "EDITOR",
					     "PAGER", "LESSOPEN", "TMPDIR", "HOSTALIASES" };

	for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++)
		if (strncmp(name, fam[i].prefix, strlen(fam[i].prefix)) == 0)
			return fam[i].family;
	for (size_t i = 0; i < sizeof shell / sizeof shell[0]; i++)
		if (strcmp(name, shell[i]) == 0)
			return "the shell's";
	return NULL;
}

json_t *
runenv_filter(const json_t *env)
{
	json_t *out = json_object(), *v;
	const char *k;

	json_object_foreach((json_t *)env, k, v) {
		const char *s = json_string_value(v);
		if (s != NULL && runenv_allowed(k) && runenv_bad_value(s) == NULL &&
		    json_object_size(out) < RUNENV_MAX_VARS)
			json_object_set(out, k, v);
	}
	return out;
}

/* Append ", NAME" (or "NAME" first) to buf of len, marking a cut with
 * "...". */
static void
add_name(char *buf, size_t len, const char *name)
{
	size_t o = strlen(buf);
	char shown[96];

	termout_str(name, 0, shown, sizeof shown);
	if (o + strlen(shown) + 8 >= len) {
		if (o + 5 < len && strcmp(buf + o - 3, "...") != 0)
			snprintf(buf + o, len - o, ", ...");
		return;
	}
	snprintf(buf + o, len - o, "%s%s", o ? ", " : "", shown);
}

int
runenv_check(const json_t *env, const char *file, struct kd_err *err)
{
	char starters[400] = "", other[400] = "", values[300] = "", fams[200] = "";
	const char *k;
	json_t *v;

	if (env == NULL || json_is_null(env))
		return 0;
	if (!json_is_object(env))
		return kd_err_set(err, KD_EINPUT, file, 0, "environment is not a mapping of "
				  "names to values: refusing the dossier");
	if (json_object_size(env) > RUNENV_MAX_VARS)
		return kd_err_set(err, KD_EINPUT, file, 0, "environment names %zu variables "
				  "(at most %d): refusing the dossier", json_object_size(env),
				  RUNENV_MAX_VARS);
	json_object_foreach((json_t *)env, k, v) {
		const char *s = json_string_value(v), *f;
		if (!runenv_allowed(k) && (f = starter_family(k)) != NULL) {
			add_name(starters, sizeof starters, k);
			if (strstr(fams, f) == NULL)
				add_name(fams, sizeof fams, f);
		} else if (!runenv_allowed(k)) {
			add_name(other, sizeof other, k);
		} else if (s == NULL || runenv_bad_value(s) != NULL) {
			add_name(values, sizeof values, k);
		}
	}
	if (*starters || *other || *values)
		return kd_err_set(err, KD_EINPUT, file, 0,
				  "environment refused: %s%s%s%s%s%s%s%s%s%s; only the variables that "
				  "change a run cross a dossier (doc/hardening.md lists them): "
				  "refusing the dossier",
				  starters, *starters ? " (change how a program is found or started: "
				  : "", fams, *starters ? " variables)" : "",
				  *starters && *other ? "; " : "", other,
				  *other ? " (not variables that change a run)" : "",
				  (*starters || *other) && *values ? "; the value of " :
				  *values ? "the value of " : "", values,
				  *values ? " (a control or hidden character, or too long)" : "");
	return 0;
}
