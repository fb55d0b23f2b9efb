/*
 * obs-system.h - the tree of system.yaml (the system stage's observations,
 * src/stages/stage-system.c, gathered by sysinfo.c and the sys-*.c readers, the
 * plan by variant.c): each key its type, getter name and path.  Getters:
 * obs_system_NAME(obs).  Keep in step with what the stage writes;
 * tests/helpers/obs-keys (run by demo-headless and demo-training)
 * proves every key not marked KD_OBS_OPT is there
 * after the demo's check.
 *
 *   observed_at           UTC time of the observation (fsutil_utc_now)
 *   os.pretty             "Debian GNU/Linux 12 (bookworm)" (os-release), or absent
 *   kernel.release        uname release
 *   arch                  "x86_64"
 *   libc.version          glibc's version
 *   cpu.model, cpu.count  the CPU's model name and the online CPU count
 *   container.kind        "docker", "podman", "none" ...; .evidence: why
 *   gpus                  [GPU] on the PCI bus, display class (KD_OBS_SYSTEM_GPU)
 *   gpus_reason           why the list is empty when it cannot be read
 *   gpu_vendor            the main vendor: "nvidia", "amd", "intel" or "none"
 *   gpu_count             GPUs of the main vendor
 *   driver.vendor, .version, .flavor   the loaded GPU kernel driver (version
 *                         null when none; flavor: "open" or "proprietary")
 *   nvidia.smi            what nvidia-smi said: .status, .explanation, .reason
 *   cuda.driver_max       the newest CUDA the driver runs (null when none)
 *   rocm.version          the installed ROCm (null when none)
 *   backend               "cuda", "rocm" or "cpu": what this machine can compute on
 *   backend_reason        why no GPU backend although there is a GPU
 *   devices               [device node] /dev/nvidia*, /dev/kfd, /dev/dri/...
 *                         (KD_OBS_SYSTEM_DEVICE)
 *   tools                 {gcc, g++, nvcc, hipcc, cmake, ninja: tool} (KD_OBS_SYSTEM_TOOL)
 *   python.chosen         the interpreter for the rebuild: .path, .version,
 *                         .status ("ok" when it runs), .venv (can create
 *                         venvs), .venv_error, .reason (why it was chosen,
 *                         or why it does not run)
 *   python.available      [{path, version}] interpreters found on PATH
 *                         (KD_OBS_SYSTEM_PYTHONS)
 *   plan                  the planned PyTorch variant (variant.c): .kind
 *                         ("cuda", "rocm", "cpu", "system", "none"), .tag
 *                         ("cu121"), .cuda, .rocm, .source (where the plan
 *                         comes from), .torch {version, local, ...}
 *   variant               the plan judged against this machine: .status
 *                         (pass, warn, fail), .problems [{status, check,
 *                         message, fits}], .note
 *   env                   {NAME: value} the allowed environment variables, redacted
 *
 * Every record of a program stage 2 ran (nvidia.smi, each tool,
 * python.chosen, ...) holds .path and .run: the vector run, as one line of
 * shell words (quote_argv), from sys-query.h's table: what replay's plan
 * shows and its tests compare.
 */
#ifndef KD_OBS_SYSTEM_H
#define KD_OBS_SYSTEM_H

#include "kernodeck/obs.h"

#define KD_OBS_SYSTEM(X) \
	X(str, observed_at, "observed_at", KD_OBS_OPT) \
	X(str, os_pretty, "os.pretty", KD_OBS_OPT) \
	X(str, kernel_release, "kernel.release", KD_OBS_OPT) \
	X(str, arch, "arch", 0) \
	X(str, libc_version, "libc.version", KD_OBS_OPT) \
	X(str, cpu_model, "cpu.model", KD_OBS_OPT) \
	X(int, cpu_count, "cpu.count", KD_OBS_OPT) \
	X(str, container_kind, "container.kind", 0) \
	X(str, container_evidence, "container.evidence", KD_OBS_OPT) \
	X(arr, gpus, "gpus", 0) \
	X(str, gpus_reason, "gpus_reason", KD_OBS_OPT) \
	X(str, gpu_vendor, "gpu_vendor", 0) \
	X(int, gpu_count, "gpu_count", 0) \
	X(obj, driver, "driver", 0) \
	X(str, driver_vendor, "driver.vendor", KD_OBS_OPT) \
	X(str, driver_version, "driver.version", KD_OBS_OPT) \
	X(str, driver_flavor, "driver.flavor", KD_OBS_OPT) \
	X(obj, nvidia_smi, "nvidia.smi", KD_OBS_OPT) \
	X(str, nvidia_smi_status, "nvidia.smi.status", KD_OBS_OPT) \
	X(str, nvidia_smi_explanation, "nvidia.smi.explanation", KD_OBS_OPT) \
	X(str, nvidia_smi_reason, "nvidia.smi.reason", KD_OBS_OPT) \
	X(str, cuda_driver_max, "cuda.driver_max", KD_OBS_OPT) \
	X(str, rocm_version, "rocm.version", KD_OBS_OPT) \
	X(str, backend, "backend", 0) \
	X(str, backend_reason, "backend_reason", KD_OBS_OPT) \
	X(arr, devices, "devices", 0) \
	X(obj, tools, "tools", 0) \
	X(obj, python_chosen, "python.chosen", 0) \
	X(str, python_chosen_path, "python.chosen.path", KD_OBS_OPT) \
	X(str, python_chosen_version, "python.chosen.version", KD_OBS_OPT) \
	X(str, python_chosen_status, "python.chosen.status", KD_OBS_OPT) \
	X(bool, python_chosen_venv, "python.chosen.venv", KD_OBS_OPT) \
	X(str, python_chosen_venv_error, "python.chosen.venv_error", KD_OBS_OPT) \
	X(str, python_chosen_reason, "python.chosen.reason", KD_OBS_OPT) \
	X(arr, python_available, "python.available", 0) \
	X(obj, plan, "plan", 0) \
	X(str, plan_kind, "plan.kind", KD_OBS_OPT) \
	X(str, plan_tag, "plan.tag", KD_OBS_OPT) \
	X(str, plan_cuda, "plan.cuda", KD_OBS_OPT) \
	X(str, plan_rocm, "plan.rocm", KD_OBS_OPT) \
	X(str, plan_source, "plan.source", KD_OBS_OPT) \
	X(obj, variant, "variant", 0) \
	X(str, variant_status, "variant.status", 0) \
	X(arr, variant_problems, "variant.problems", 0) \
	X(str, variant_note, "variant.note", KD_OBS_OPT) \
	X(obj, env, "env", 0) \
	/* end */

/* One element of gpus: obs_system_gpus_NAME(gpu). */
#define KD_OBS_SYSTEM_GPU(X) \
	X(str, vendor, "vendor", 0) \
	X(str, vendor_id, "vendor_id", 0) \
	X(str, device_id, "device_id", 0) \
	X(str, pci, "pci", 0) \
	X(str, name, "name", KD_OBS_OPT) \
	X(str, pci_name, "pci_name", KD_OBS_OPT) \
	X(int, memory_mib, "memory_mib", KD_OBS_OPT) \
	X(str, compute_cap, "compute_cap", KD_OBS_OPT) \
	/* end */

/* One element of devices: obs_system_devices_NAME(dev). */
#define KD_OBS_SYSTEM_DEVICE(X) \
	X(str, path, "path", 0) \
	X(bool, exists, "exists", 0) \
	X(str, access, "access", KD_OBS_OPT) \
	X(str, group, "group", KD_OBS_OPT) \
	X(str, hint, "hint", KD_OBS_OPT) \
	/* end */

/* One value of tools: obs_system_tools_NAME(tool). */
#define KD_OBS_SYSTEM_TOOL(X) \
	X(str, status, "status", 0) \
	X(str, version, "version", KD_OBS_OPT) \
	X(str, path, "path", KD_OBS_OPT) \
	X(str, reason, "reason", KD_OBS_OPT) \
	/* end */

/* One element of python.available: obs_system_pythons_NAME(py). */
#define KD_OBS_SYSTEM_PYTHONS(X) \
	X(str, path, "path", 0) \
	X(str, version, "version", KD_OBS_OPT) \
	/* end */

/* One element of variant.problems: obs_system_problems_NAME(p). */
#define KD_OBS_SYSTEM_PROBLEM(X) \
	X(str, status, "status", 0) \
	X(str, message, "message", 0) \
	X(str, fits, "fits", KD_OBS_OPT) \
	/* end */

#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(system, type, name, path, flags)
KD_OBS_SYSTEM(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(system_gpus, type, name, path, flags)
KD_OBS_SYSTEM_GPU(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(system_devices, type, name, path, flags)
KD_OBS_SYSTEM_DEVICE(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(system_tools, type, name, path, flags)
KD_OBS_SYSTEM_TOOL(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(system_pythons, type, name, path, flags)
KD_OBS_SYSTEM_PYTHONS(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(system_problems, type, name, path, flags)
KD_OBS_SYSTEM_PROBLEM(KD_OBS_G)
#undef KD_OBS_G

#endif
