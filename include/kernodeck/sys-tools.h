/*
 * sys-tools.h - compilers and build tools that compiled extensions need
 * (part of the system chain, see sysinfo.h): gcc, g++, nvcc (through
 * $CUDA_HOME too), hipcc, cmake, ninja.  Each is looked up, run once with a
 * short timeout for its version, and recorded with its path, or with the
 * reason it could not be (missing, failed, timed out).
 */
#ifndef KD_SYS_TOOLS_H
#define KD_SYS_TOOLS_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/sys-query.h"

/* Where stage 2 finds the program of query q (malloc'd, NULL when not
 * found): nvcc in $CUDA_HOME/bin, $CUDA_PATH/bin, on PATH, then
 * /usr/local/cuda/bin; hipcc in $ROCM_PATH/bin, $HIP_PATH/bin, on PATH,
 * then /opt/rocm/bin; every other query's program on PATH.  The replay's
 * plan shows the same path. */
char *systools_find(enum sysquery q);
/* {gcc: {...}, "g++": {...}, nvcc, hipcc, cmake, ninja}. */
json_t *systools_observe(void);
/* The version in a tool's output ("gcc", "nvcc", "hipcc", "cmake",
 * "ninja"): 0 and out filled when found.  nvcc also gives its release
 * ("12.4") in release when not NULL. */
int systools_parse_version(const char *tool, const char *text, char *out, size_t len,
			   char *release, size_t rlen);

#endif
