/*
 * inspect.h - `kernodeck inspect KIND FILE`: what kernodeck understood from
 * one file, as a JSON tree.  One parser per kind, each in its own module;
 * the table is in src/cmd-inspect.c.  Each returns 0 and a new tree in *out,
 * or KD_EINPUT with err naming the file and line.
 */
#ifndef KD_INSPECT_H
#define KD_INSPECT_H

#include <jansson.h>

#include "kernodeck/err.h"

int inspect_collect_env(const char *path, json_t **out, struct kd_err *err);  /* src/collect-env.c */
int inspect_requirements(const char *path, json_t **out, struct kd_err *err); /* src/parse-requirements.c */
int inspect_freeze(const char *path, json_t **out, struct kd_err *err);       /* src/parse-freeze.c */
int inspect_pip_check(const char *path, json_t **out, struct kd_err *err);    /* src/parse-pipcheck.c */
int inspect_pip_inspect(const char *path, json_t **out, struct kd_err *err);  /* src/parse-inspect.c */
int inspect_npy(const char *path, json_t **out, struct kd_err *err);          /* src/npy.c */
int inspect_safetensors(const char *path, json_t **out, struct kd_err *err);  /* src/safetensors.c */

#endif
