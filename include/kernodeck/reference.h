/*
 * reference.h - helpers over the reference tree (doc/reference-format.md)
 * shared by stage 1 (src/stages/stage-reference.c), `kernodeck capture` and the
 * later stages: what "filled" and "not applicable" mean, floating names,
 * stable ids for list items, paths relative to the project, and the
 * capture of this machine into the reference.
 */
#ifndef KD_REFERENCE_H
#define KD_REFERENCE_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"
#include "kernodeck/stage.h"

#include "kernodeck/yamlio.h"

struct kd_ctx;

#define KD_REFERENCE_SCHEMA 1    /* doc/reference-format.md */

#define KD_CAP_CAPTURE_JSON  (4u * 1024 * 1024)  /* the interpreter query's output */

/* Check the types of the keys doc/reference-format.md defines (a mapping
 * where a mapping is expected, a list of mappings for data, text, numbers,
 * booleans) and the schema version.  KD_EINPUT names file and, when doc
 * holds ref, the line: "reference.yaml:3: data must be a list, not a whole
 * number".  Unknown keys are allowed. */
int reference_validate(const json_t *ref, const struct yamlio_doc *doc, const char *file,
		       struct kd_err *err);

/* 1 when a value counts as filled: not null, not a blank string, not an
 * empty list or mapping.  Numbers and booleans are filled. */
int reference_filled(const json_t *v);

/* The reason why the field at path ("system.driver", "data[1].url") does
 * not apply: an entry of not_applicable for the path or one of its parents
 * ("system" covers "system.driver"), or one implied by the recorded GPU
 * vendor (no GPU: no driver, CUDA, ROCm).  NULL when it applies.  The
 * string is borrowed from ref or static. */
const char *reference_na(const json_t *ref, const char *path);

/* 1 when s, as a whole (case-insensitive, surrounding blanks ignored), is
 * a floating name: latest, main, master, current, stable, nightly, dernier,
 * dernier-modele (with or without the accent), head, trunk, develop. */
int reference_is_floating(const char *s);
/* The first path segment of url that is a floating name (the "main" of
 * .../resolve/main/model.bin), copied into seg; 0 when none. */
int reference_url_floating(const char *url, char *seg, size_t len);

/* A stable id for item i of a list ("encoder-weights" from its name, or
 * "item-3"), used in check ids: data.<slug>.sha256. */
void reference_item_slug(const json_t *item, size_t i, char *buf, size_t len);

/* The id of item i of the data list: its slug, made unique against the
 * items before it ("weights", "weights-3"). */
void reference_data_slug(const json_t *data, size_t i, char *buf, size_t len);

/* Absolute path of a path recorded in the reference (relative to the
 * project folder unless absolute; as given when ctx is NULL); malloc'd. */
char *reference_abspath(const struct kd_ctx *ctx, const char *p);
/* The form to record for an absolute path: relative to the project folder
 * when inside it, else absolute; malloc'd. */
char *reference_relpath(const struct kd_ctx *ctx, const char *abs);

/* Drop any userinfo (user:password@, or a redacted ${NAME}@) from a URL.
 * malloc'd; *had set to 1 when there was some. */
char *reference_strip_url(const char *url, int *had);

/* An argument vector as a person would type it in a POSIX shell
 * (arguments with blanks or quotes single-quoted); malloc'd. */
char *reference_argv_line(const json_t *argv);

/* The checks of stage 1 (src/stages/reference-check.c): one row per check,
 * judged from the reference and the observations of gather (obs.code,
 * obs.files, obs.urls, obs.warnings); reads the inventory file only. */
int reference_check_rows(const struct kd_ctx *ctx, const json_t *ref, const json_t *obs,
			 struct kd_rows *rows);

/* Make sure kernodeck's own folders (the state folder and .venv-rebuild)
 * are listed in the private .git/info/exclude of the project's repository.
 * Returns 0 (also when there is no repository); *added counts lines. */
int reference_exclude_own(const struct kd_ctx *ctx, int *added, struct kd_err *err);
/* Make the opened folder a project, as check --init does before its stages
 * (kernodeck init): kernodeck's folders in .git/info/exclude when in a git
 * repository, a reference.yaml to fill ("schema: 1") when there is none, and
 * state.yaml; what is there already is kept.  *made_ref: the reference was
 * written; *excluded: the exclude lines added. */
int reference_init(struct kd_ctx *ctx, int *made_ref, int *excluded, struct kd_err *err);

#define REFERENCE_MAX_ARGS 256    /* the entry point's argument vector */
/* code.entry_point as an argv.h vector, "python"/"python3" first standing
 * for the project's interpreter (*uses_venv set).  NULL with *why set when
 * the entry point is not an argument vector of strings. */
char **reference_entry_argv(const char *project_dir, const json_t *ep, int *uses_venv,
			    const char **why);
/* The script a Python entry point runs: its first path-like argument (a
 * name ending in .py or holding a '/') after the interpreter and its
 * options, when ep[0] is an interpreter (python, python3, python3.11, a
 * path ending so); NULL otherwise, and for -m and -c.  Borrowed from ep. */
const char *reference_entry_script(const json_t *ep);

#endif
