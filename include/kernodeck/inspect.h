/*
 * inspect.h - `kernodeck inspect KIND FILE`: what kernodeck understood from
 * one file, as a JSON tree.  One parser per kind, each in its own module;
 * the table is in src/cmd/cmd-inspect.c.  Each returns 0 and a new tree in *out,
 * or KD_EINPUT with err naming the file and line.
 */
#ifndef KD_INSPECT_H
#define KD_INSPECT_H

#include <stdio.h>
#include <jansson.h>

#include "kernodeck/err.h"
#include "kernodeck/format.h"

int inspect_collect_env(const char *path, json_t **out, struct kd_err *err);  /* src/formats/collect-env.c */
int inspect_requirements(const char *path, json_t **out, struct kd_err *err); /* src/formats/parse-requirements.c */
int inspect_freeze(const char *path, json_t **out, struct kd_err *err);       /* src/formats/parse-freeze.c */
int inspect_pip_check(const char *path, json_t **out, struct kd_err *err);    /* src/formats/parse-pipcheck.c */
int inspect_pip_inspect(const char *path, json_t **out, struct kd_err *err);  /* src/formats/parse-inspect.c */
int inspect_npy(const char *path, json_t **out, struct kd_err *err);          /* src/formats/npy.c */
int inspect_safetensors(const char *path, json_t **out, struct kd_err *err);  /* src/formats/safetensors.c */
int inspect_nvidia_smi(const char *path, json_t **out, struct kd_err *err);   /* src/formats/nvidia-smi.c */

/* The text formats, whose trees hold an object per line, print as they
 * parse (treeout.h): the same bytes as treeout_print_tree of the tree, in
 * memory the input and one line's objects; no KD_CAP_INPUT_LINES.  0, or
 * the parser's error (nothing printed), or 3 when the output failed. */
int inspect_print_requirements(FILE *fp, enum kd_format fmt, const char *path,
			       struct kd_err *err);                          /* src/formats/parse-requirements.c */
int inspect_print_freeze(FILE *fp, enum kd_format fmt, const char *path,
			 struct kd_err *err);                                /* src/formats/parse-freeze.c */
int inspect_print_pip_check(FILE *fp, enum kd_format fmt, const char *path,
			    struct kd_err *err);                             /* src/formats/parse-pipcheck.c */

#endif
