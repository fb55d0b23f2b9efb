/*
 * contain.h - a replay stays inside its work folder and runs what its plan
 * showed.
 *
 * The dossier and the repository it names come from someone else.  Before
 * the plan is shown, every path field of the reference that the replay
 * writes or reads is refused when it is absolute or leaves the work folder
 * with ".." or holds a control or hidden character (data items may name an
 * absolute path: they are only read, and the plan says so), the resume
 * check's checkpoint, metrics and reference_metrics among them.  After the
 * clone, every path kernodeck writes in the
 * work folder (its folder, the venv, the outputs, the caches, the home and
 * temporary folders it sets) is refused when one of its components is a
 * symbolic link, or, for kernodeck's folder and the outputs, when anything
 * below it is one, as is a component of the resume check's
 * reference_metrics (only read, but a link would lead the read out); and
 * every file of the clone that a stage reads and the
 * dossier holds a copy of (the rebuild file and its -r/-c includes, the
 * inventory) must be the
 * same bytes as the copy, or the difference is shown and refused.
 */
#ifndef KD_CONTAIN_H
#define KD_CONTAIN_H

#include <jansson.h>

#include "kernodeck/err.h"

/* Called for each path field of the reference: its name
 * ("result.files[2]"), its value, and data (1 for a data item's path, which
 * may be absolute: it is only read).  Non-zero stops the walk. */
typedef int contain_field_fn(void *u, const char *field, const char *path, int data);
void contain_each_field(const json_t *ref, contain_field_fn *fn, void *u);
/* The reference's path fields (absolute, "~", "..", or a control or hidden
 * character are refused): 0, or KD_EINPUT naming the field (file is
 * the name the error gives the reference). */
int contain_check_fields(const json_t *ref, const char *file, struct kd_err *err);
/* The paths kernodeck writes under workdir (see above); deep: also look
 * below kernodeck's folder, the outputs and the caches for links.  0 or
 * KD_EINPUT. */
int contain_check_tree(const char *workdir, const json_t *ref, int deep, struct kd_err *err);
/* The same, deep, after stage ran (its programs may have made a link):
 * the refusal says the link was made while it ran. */
int contain_check_after(const char *workdir, const json_t *ref, const char *stage,
			struct kd_err *err);
/* The clone's copies of the files the dossier holds: 0, or KD_EINPUT with
 * the first differing lines passed to show (one line each). */
int contain_check_copies(const char *workdir, const char *dossier, const json_t *ref,
			 void (*show)(void *u, const char *line), void *u, struct kd_err *err);
/* The files the rebuild file rel under base names with -r and -c, and
 * the files they name, relative to the file that names each: *list gets
 * [{path (relative to base), kind ("-r" or "-c"), from}], rel itself not
 * listed, URLs left out.  0, or KD_EINPUT naming the file and the value
 * when one is absolute or leaves base. */
int contain_includes(const char *base, const char *rel, json_t **list, struct kd_err *err);
/* The lines of a not in b as "  - NAME: line", of b not in a as "  + ...",
 * at most 20, each passed to show. */
void contain_show_diff(const char *a, const char *b, const char *name,
		       void (*show)(void *u, const char *line), void *u);

#endif
