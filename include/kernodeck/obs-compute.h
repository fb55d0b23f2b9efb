/*
 * obs-compute.h - the tree of compute.yaml (the compute stage's observations):
 * each key its type, getter name and path.  Getters: obs_compute_NAME(obs).
 * Keep in step with what the stage writes; tests/helpers/obs-keys (run by
 * tests/integration/demo-headless.sh and demo-training.sh) proves every key
 * not marked KD_OBS_OPT is there after the demos' checks.
 *
 *   interpreter           .venv-rebuild/bin/python (absolute)
 *   expected              system.backend of the reference, or null
 *   interpreter_missing   true when there is no interpreter; unknown_backend
 *                         true when system.backend names no backend: in
 *                         those two runs nothing else is written, so the
 *                         keys without KD_OBS_OPT are those of a run of the
 *                         probe (probe.c's probe_obs):
 *   probe, log            the probe script and its log
 *   ended, exit_code, timed_out, cancelled, seconds   the run (run.c)
 *   completed             the probe printed its final line (then end: it)
 *   interrupted_in        the step begun and never ended (a crash or hang)
 *   steps[]               one object per step the probe ended, in its
 *                         order (KD_OBS_COMPUTE_STEP; the other keys are
 *                         each step's own, share/probe.py)
 *   first_error           the first failed step's error with its step and
 *                         device, or null
 *   text[], text_dropped  what the probe printed that was not a step line
 *   argv, cwd, timeout    how the probe was run
 *   steps[] perf          per device: the matrix product's GFLOP/s and the
 *                         copy's GB/s, medians over timed windows
 *   steps[] libs          the shared objects mapped (path, owner: wheel,
 *                         deb, conda or loose, package, version) and
 *                         lib_warnings (two copies; LD_LIBRARY_PATH shadowing)
 */
#ifndef KD_OBS_COMPUTE_H
#define KD_OBS_COMPUTE_H

#include "kernodeck/obs.h"

#define KD_OBS_COMPUTE(X) \
	X(str, interpreter, "interpreter", 0) \
	X(str, expected, "expected", KD_OBS_OPT) \
	X(bool, interpreter_missing, "interpreter_missing", KD_OBS_OPT) \
	X(bool, unknown_backend, "unknown_backend", KD_OBS_OPT) \
	X(str, probe, "probe", 0) \
	X(str, log, "log", 0) \
	X(str, ended, "ended", 0) \
	X(bool, timed_out, "timed_out", 0) \
	X(bool, completed, "completed", 0) \
	X(obj, interrupted_in, "interrupted_in", KD_OBS_OPT) \
	X(str, interrupted_in_begin, "interrupted_in.begin", 0) \
	X(arr, steps, "steps", 0) \
	X(obj, first_error, "first_error", KD_OBS_OPT) \
	X(str, first_error_step, "first_error.step", 0) \
	X(str, first_error_device, "first_error.device", KD_OBS_OPT) \
	X(str, first_error_type, "first_error.type", KD_OBS_OPT) \
	X(str, first_error_message, "first_error.message", KD_OBS_OPT) \
	X(arr, text, "text", 0) \
	/* end */

/* One element of steps: obs_compute_step_NAME(s).  Every step has step,
 * ok and ms; a failed one error (type, message, reason); the others are
 * the keys of particular steps that the rows read (share/probe.py). */
#define KD_OBS_COMPUTE_STEP(X) \
	X(str, step, "step", 0) \
	X(bool, ok, "ok", 0) \
	X(num, ms, "ms", 0) \
	X(str, device, "device", KD_OBS_OPT) \
	X(obj, error, "error", KD_OBS_OPT) \
	X(str, error_type, "error.type", KD_OBS_OPT) \
	X(str, error_message, "error.message", KD_OBS_OPT) \
	X(str, error_reason, "error.reason", KD_OBS_OPT) \
	X(str, version, "version", KD_OBS_OPT)             /* python, import_torch */ \
	X(str, executable, "executable", KD_OBS_OPT)       /* python */ \
	X(bool, venv, "venv", KD_OBS_OPT) \
	X(str, cuda, "cuda", KD_OBS_OPT)                   /* import_torch */ \
	X(str, hip, "hip", KD_OBS_OPT) \
	X(str, git_version, "git_version", KD_OBS_OPT) \
	X(str, file, "file", KD_OBS_OPT) \
	X(bool, matmul_allow_tf32, "matmul_allow_tf32", KD_OBS_OPT)   /* precision */ \
	X(bool, cudnn_allow_tf32, "cudnn_allow_tf32", KD_OBS_OPT) \
	X(str, float32_matmul_precision, "float32_matmul_precision", KD_OBS_OPT) \
	X(bool, cudnn_benchmark, "cudnn_benchmark", KD_OBS_OPT) \
	X(bool, cudnn_deterministic, "cudnn_deterministic", KD_OBS_OPT) \
	X(bool, deterministic_algorithms, "deterministic_algorithms", KD_OBS_OPT) \
	X(int, num_threads, "num_threads", KD_OBS_OPT) \
	X(int, num_interop_threads, "num_interop_threads", KD_OBS_OPT) \
	X(str, env_cublas_workspace_config, "env.CUBLAS_WORKSPACE_CONFIG", KD_OBS_OPT) \
	X(str, env_pythonhashseed, "env.PYTHONHASHSEED", KD_OBS_OPT) \
	X(str, build, "build", KD_OBS_OPT)                 /* backend */ \
	X(str, seen, "seen", KD_OBS_OPT) \
	X(arr, devices, "devices", KD_OBS_OPT) \
	X(arr, arch_list, "arch_list", KD_OBS_OPT) \
	X(str, cudnn_name, "cudnn_name", KD_OBS_OPT) \
	X(any, cudnn, "cudnn", KD_OBS_OPT) \
	X(str, nccl_name, "nccl_name", KD_OBS_OPT) \
	X(any, nccl, "nccl", KD_OBS_OPT) \
	X(num, max_abs_error, "max_abs_error", KD_OBS_OPT) /* agree */ \
	X(any, bound, "bound", KD_OBS_OPT) \
	X(str, formula, "formula", KD_OBS_OPT) \
	X(str, module, "module", KD_OBS_OPT)               /* ext */ \
	X(str, call, "call", KD_OBS_OPT) \
	X(num, gflops, "gflops", KD_OBS_OPT)               /* perf */ \
	X(num, copy_gbps, "copy_gbps", KD_OBS_OPT) \
	X(str, dtype, "dtype", KD_OBS_OPT) \
	X(int, n, "n", KD_OBS_OPT) \
	X(int, windows, "windows", KD_OBS_OPT) \
	X(num, window_s, "window_s", KD_OBS_OPT) \
	X(any, min_gflops, "min_gflops", KD_OBS_OPT) \
	X(bool, available, "available", KD_OBS_OPT)        /* libs */ \
	X(str, reason, "reason", KD_OBS_OPT) \
	X(int, count, "count", KD_OBS_OPT) \
	X(arr, libraries, "libraries", KD_OBS_OPT) \
	X(arr, lib_warnings, "lib_warnings", KD_OBS_OPT) \
	/* end */

/* One element of a libs step's libraries: obs_compute_lib_NAME(l), and of
 * its lib_warnings: obs_compute_libwarn_NAME(w). */
#define KD_OBS_COMPUTE_LIB(X) \
	X(str, path, "path", 0) \
	X(str, base, "base", 0) \
	X(str, owner, "owner", 0) \
	X(str, package, "package", KD_OBS_OPT) \
	X(str, version, "version", KD_OBS_OPT) \
	X(str, file_version, "file_version", KD_OBS_OPT) \
	/* end */
#define KD_OBS_COMPUTE_LIBWARN(X) \
	X(str, kind, "kind", 0) \
	X(str, library, "library", 0) \
	X(str, message, "message", 0) \
	/* end */

/* One element of a backend step's devices: obs_compute_device_NAME(d). */
#define KD_OBS_COMPUTE_DEVICE(X) \
	X(int, index, "index", 0) \
	X(str, name, "name", 0) \
	X(str, capability, "capability", KD_OBS_OPT) \
	X(str, gcn_arch, "gcn_arch", KD_OBS_OPT) \
	X(int, total_memory, "total_memory", KD_OBS_OPT) \
	/* end */

#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(compute, type, name, path, flags)
KD_OBS_COMPUTE(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(compute_step, type, name, path, flags)
KD_OBS_COMPUTE_STEP(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(compute_device, type, name, path, flags)
KD_OBS_COMPUTE_DEVICE(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(compute_lib, type, name, path, flags)
KD_OBS_COMPUTE_LIB(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(compute_libwarn, type, name, path, flags)
KD_OBS_COMPUTE_LIBWARN(KD_OBS_G)
#undef KD_OBS_G

#endif
