/*
 * variant.h - the PyTorch variant the rebuild plans (cpu, cuXXX, rocmX.Y,
 * or torch from the system) and whether it fits this machine.
 *
 * The rules, with their sources in src/facts/variant.c:
 *   - a CUDA build needs an NVIDIA driver at least as new as the minimum of
 *     that CUDA version, or, through CUDA minor-version compatibility, the
 *     minimum of its major family (12.x: 525.60.13, 11.x: 450.80.02);
 *   - a ROCm build needs an AMD GPU that ROCm can reach (/dev/kfd);
 *   - a CPU build on a machine with a usable GPU is flagged;
 *   - the interpreter's Python must be one the torch release ships wheels
 *     for (PyTorch's release compatibility matrix).  A torch provided by
 *     the system (system site packages, no torch line) is reported as such.
 */
#ifndef KD_VARIANT_H
#define KD_VARIANT_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"

/* Compare dotted versions numerically ("470.129" < "525.60.13"). */
int variant_vercmp(const char *a, const char *b);
/* "12.1" from "cu121", "9.2" from "cu92"; 0 when tag is a CUDA tag. */
int variant_cuda_of_tag(const char *tag, char *out, size_t len);
/* Minimum Linux driver for a CUDA version ("12.1", "12.1.105"), natively;
 * NULL when the version is not in the table. */
const char *variant_cuda_min_driver(const char *cuda);
/* Minimum driver for the CUDA major family through minor-version
 * compatibility ("12.4" -> "525.60.13"), or NULL when there is none. */
const char *variant_cuda_compat_min(const char *cuda);
/* Does driver run cuda?  1 natively, 2 through minor-version
 * compatibility, 0 no, -1 unknown (a version outside the table). */
int variant_driver_runs(const char *driver, const char *cuda);
/* What a driver runs, for a person: "CUDA 11.x (11.4 natively, later 11.x
 * through minor-version compatibility)". */
void variant_driver_span(const char *driver, char *out, size_t len);
/* The highest CUDA version a driver runs natively ("11.4"), or "". */
void variant_driver_native_max(const char *driver, char *out, size_t len);

/* Python support of a torch release ("2.3.1", "2.3"): 1 supported, 0 not,
 * -1 release unknown; range gets "3.8-3.12". */
int variant_python_ok(const char *torch, const char *python, char *range, size_t len);
/* The CUDA of the Linux x86_64 wheels on PyPI for a torch release, or
 * NULL. */
const char *variant_pypi_cuda(const char *torch);
/* The cuXXX tags a torch release has wheels for ("cu118 cu121"), or NULL. */
const char *variant_cuda_tags(const char *torch);
const char *variant_rocm_tags(const char *torch);

/* Read the plan from requirements text (name for messages, base_dir to
 * follow -r includes one level, may be NULL).  The tree: {file, torch
 * {line, file, line_no, spec, version, local}, index_urls, find_links,
 * kind (cuda|rocm|cpu|system|none|unknown), tag, cuda, rocm, source}. */
json_t *variant_plan_parse(const char *text, size_t len, const char *name,
			   const char *base_dir);
/* The plan of a project: PROJECT/requirements-rebuild.txt, and the
 * reference's install procedure (system site packages). */
json_t *variant_plan_read(const char *project_dir, const json_t *ref);
/* Judge a plan against an observation tree (sysinfo.h) and the chosen
 * interpreter's version: {status: pass|warn|fail|info, summary, problems
 * [{rule, message, fits}]}. */
json_t *variant_judge(const json_t *plan, const json_t *obs, const char *python);

#endif
