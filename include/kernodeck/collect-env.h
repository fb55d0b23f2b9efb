/*
 * collect-env.h - the text printed by `python -m torch.utils.collect_env`
 * (and vLLM's copy of it), as a JSON tree.
 *
 * Old and new layouts (torch 1.3 onwards), Linux, Windows, macOS, ROCm and
 * CPU-only reports are read; pasted noise around the report (shell prompts,
 * the echoed command, warnings, markdown fences, a common indentation) is
 * skipped.  The tree has at least:
 *
 *   torch_version   string or null
 *   cuda_build      string, or null when the report says N/A, None or
 *   rocm_build        Could not collect (or has no such line)
 *   cuda_available  true, false or null
 *   gpus            model names, one per physical GPU (MIG lines are not
 *                   GPUs); gpu_count their number
 *   driver_version  string or null
 *   os              as printed ("Ubuntu 22.04.3 LTS (x86_64)") or null
 *   python_version  the version only ("3.12.4") or null
 *   cudnn_version   string, a list when several candidates, or null
 *   raw             {label as printed: value as printed}
 *
 * "Could not collect", "N/A", "None" and "No CUDA" stay distinct in raw.
 */
#ifndef KD_COLLECT_ENV_H
#define KD_COLLECT_ENV_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"

/* Parse a report held in memory; name is used in messages.  0 and a new
 * tree in *out, or KD_EINPUT with err naming the file (and line). */
int collect_env_parse(const char *text, size_t len, const char *name, json_t **out,
		      struct kd_err *err);
/* Is a value one of the words collect_env prints for "nothing"? */
int collect_env_is_null_word(const char *value);

#endif
