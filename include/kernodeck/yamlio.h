/*
 * yamlio.h - YAML documents as jansson trees (libyaml underneath).
 *
 * Every structured file kernodeck reads or writes (state, reference,
 * observations, dossier) is held in memory as a json_t tree: mappings are
 * objects (insertion order kept), sequences arrays, scalars strings, except
 * that plain (unquoted) scalars resolve to null (~, null, empty), booleans
 * (true/false), integers and reals as YAML 1.2's core schema says.
 *
 * Loading is defensive: the file is refused over KD_CAP_YAML_FILE, when it
 * holds a NUL byte or invalid UTF-8, when nesting exceeds KD_CAP_YAML_DEPTH,
 * when a mapping repeats a key, and on anchors/aliases or several
 * documents.  The error names the file and the line.  The line of every
 * node is remembered, so a later validation can point at it.
 *
 * Emitting is deterministic: the same tree gives the same bytes.  With
 * YAMLIO_SORT_KEYS the keys are sorted, which is the canonical form used for
 * identities.
 */
#ifndef KD_YAMLIO_H
#define KD_YAMLIO_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "kernodeck/err.h"

struct yamlio_doc {
	json_t *root;
	char *path;              /* the file it came from, or "<string>" */
	struct yamlio_line {
		const json_t *node;
		int line;
	} *lines;
	size_t nlines, caplines;
	int ended;               /* ended by the document end mark "...\n" */
};

enum {
	YAMLIO_SORT_KEYS = 1 << 0,
	/* end the document with "...": the proof that the file is whole */
	YAMLIO_END_MARK = 1 << 1,
};

/* Load a YAML file.  On error returns KD_EINPUT (or KD_EENV when the file
 * cannot be read for a reason other than its content) with err filled. */
int yamlio_load_file(const char *path, struct yamlio_doc *doc, struct kd_err *err);
/* Load YAML from memory; name is used in messages. */
int yamlio_load_mem(const char *buf, size_t len, const char *name,
		    struct yamlio_doc *doc, struct kd_err *err);
void yamlio_doc_free(struct yamlio_doc *doc);
/* Refuse (KD_EINPUT, the file named) a document that does not end with the
 * end mark that YAMLIO_END_MARK writes: a file cut short parses, often. */
int yamlio_require_end(const struct yamlio_doc *doc, struct kd_err *err);
/* The 1-based line where node started, or 0. */
int yamlio_line_of(const struct yamlio_doc *doc, const json_t *node);

/* Emit a tree as YAML into a malloc'd, NUL-terminated string. */
char *yamlio_dump(const json_t *root, int flags, size_t *lenp);
/* Emit a tree and write it atomically (fsutil_write_atomic). */
int yamlio_save_file(const char *path, const json_t *root, int flags, struct kd_err *err);

/* Emit YAML to fp as the parts come, without holding the whole tree: open,
 * then the events of one document (begin/end a mapping or a sequence in
 * block style, a key, a whole node), then close (which flushes and frees).
 * The same parts give the same bytes as yamlio_dump of the whole tree. */
struct yamlio_stream;
struct yamlio_stream *yamlio_stream_open(FILE *fp, int flags);
int yamlio_stream_begin(struct yamlio_stream *s, int seq);
int yamlio_stream_end(struct yamlio_stream *s, int seq);
int yamlio_stream_key(struct yamlio_stream *s, const char *key);
int yamlio_stream_node(struct yamlio_stream *s, const json_t *node);
int yamlio_stream_close(struct yamlio_stream *s);

/* Path helpers on trees: "a.b[2].c".  get returns a borrowed ref or NULL. */
json_t *yamlio_get(const json_t *root, const char *path);
const char *yamlio_get_str(const json_t *root, const char *path);
/* One key of an object (no path: a key may hold dots), its string or NULL. */
const char *yamlio_str(const json_t *o, const char *key);
/* Set key to the string v; nothing when v is NULL. */
void yamlio_set_str(json_t *o, const char *key, const char *v);
/* Set, creating intermediate objects (not arrays); steals value. */
int yamlio_set(json_t *root, const char *path, json_t *value);

#endif
