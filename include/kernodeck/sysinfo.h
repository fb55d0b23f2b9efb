/*
 * sysinfo.h - the system chain of this machine, read by the C program
 * itself (sysfs, /proc, /dev, /etc, and a few programs), apart from Python
 * packages.  Everything read from /proc, /sys, /dev and /etc goes through
 * one root prefix ($KD_SYSROOT, default "/") so tests can use fixture trees.
 *
 * The observation tree (system.yaml) has these members, each present even
 * when nothing was found (then with a `status` and a `reason`):
 *
 *   os {name, id, version_id, pretty}   kernel {release}   arch
 *   libc {name, version}   cpu {model, count}   container {kind, evidence}
 *   gpus [ {vendor, vendor_id, device_id, pci, class, name, name_source,
 *           kernel_driver, ...nvidia-smi fields} ]   gpu_vendor  gpu_count
 *   nvidia {...}   amd {...}   driver {vendor, version, source}
 *   cuda {driver_max, toolkit}   rocm {version, source}   backend
 *   devices [ {path, kind, exists, access, group, in_group, hint} ]
 *   tools {gcc, g++, nvcc, hipcc, cmake, ninja: {path, version, status}}
 *   python {chosen {...}, available [...]}   env {NAME: redacted value}
 *   plan {...}   (the planned PyTorch variant, src/facts/variant.c)
 *
 * Read it back through obs-system.h's getters, never by key paths.
 *
 * Programs are looked up on PATH and run only when they are there, each with
 * a short timeout; a missing program or a timeout is recorded with its
 * reason, never fatal.
 */
#ifndef KD_SYSINFO_H
#define KD_SYSINFO_H

#include <pthread.h>
#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"
#include "kernodeck/stage.h"
#include "kernodeck/sysinfo-util.h"

/* Observe this machine: the tree saved as system.yaml. */
int sysinfo_observe(json_t **obs, const struct kd_sink *sink, struct kd_err *err);
/* The reference's `system` row (see doc/reference-format.md) from an
 * observation tree (sysinfo_observe) or from a parsed collect_env report. */
json_t *sysinfo_reference_row(const json_t *obs);
/* Choose the interpreter for the rebuild (DESIGN.md section 1): override
 * when given, else the reference's (same path, or first on PATH with the
 * same major.minor), else /usr/bin/python3, else python3 on PATH.
 * *path and *reason are malloc'd. */
int sysinfo_choose_python(const json_t *ref, const char *override, char **path,
			  char **reason, struct kd_err *err);

/* The allowed environment variables (device visibility, package sources),
 * their values redacted (redact.h); secret-named variables never. */
json_t *sysinfo_env(void);

#endif
