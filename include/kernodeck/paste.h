/*
 * paste.h - what a colleague pastes (a `collect_env` report, an
 * `nvidia-smi` output, a `pip freeze`) and what a machine, a dossier or a
 * capture holds, brought to one vocabulary so that `kernodeck diff` can
 * compare them.
 *
 * Facts: {kind, file, layers: {LAYER: {KEY: value}}} where a layer is there
 * only when its source holds it, and a key is null when the source holds
 * the layer but not that value ("never guessed"):
 *
 *   system   os, arch, gpu_count, gpus (names as printed), driver,
 *            cuda_driver (the CUDA version the driver supports)
 *   backend  torch, torch_cuda, torch_hip, cuda_available, cudnn
 *   python   python_version, packages ({canonical name: version})
 */
#ifndef KD_PASTE_H
#define KD_PASTE_H

#include <stdio.h>
#include <jansson.h>

#include "kernodeck/err.h"

/* Read FILE as a paste: a collect_env report, else an nvidia-smi output,
 * else a pip freeze.  0 and new facts, or KD_EINPUT naming the file when
 * it is none of them. */
int paste_load(const char *path, json_t **facts, struct kd_err *err);
/* The facts of stage 2's observations, stage 5's (the probe) and a
 * package list ([{name or canonical_name, version}]), any of them NULL. */
json_t *paste_facts_of_obs(const char *kind, const char *file, const json_t *system,
			   const json_t *compute, const json_t *packages);
/* This machine as a project's stages last saw it (STATE_DIR/system.yaml,
 * compute.yaml, installed-after.txt), else stage 2's observation made now
 * (sysinfo_observe). */
int paste_facts_of_project(const char *state_dir, json_t **facts, struct kd_err *err);
/* Compare two facts: {a, b, a_kind, b_kind, layers: {LAYER: [{key, a, b}]},
 * not_compared: ["LAYER: only A holds it" ...], differences: N}. */
json_t *paste_compare(const json_t *a, const json_t *b);
/* The comparison as `kernodeck diff` prints it: the two sides, each layer's
 * differences ("  KEY: A -> B"), what was not compared, the count. */
void paste_print_text(FILE *fp, const json_t *r);
/* A value as diff prints it: strings bare, numbers with six significant
 * digits, "(none)" for null, other JSON compact. */
void paste_print_value(FILE *fp, const json_t *v);

#endif
