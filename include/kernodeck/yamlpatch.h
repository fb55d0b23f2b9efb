/*
 * yamlpatch.h - a changed tree written back into the YAML text it came
 * from, keeping comments, blank lines, key order and quoting.
 */
#ifndef KD_YAMLPATCH_H
#define KD_YAMLPATCH_H

#include <stddef.h>
#include <jansson.h>

/* The text [text, text+len) changed in place so that it loads as root: the
 * scalars that changed are replaced where they stand, the keys root adds
 * to a block mapping are written after its last line.  NULL when that is
 * not enough (a key removed, a list resized, a scalar become a list...) or
 * when the result would not load as root: then write the file anew. */
char *yamlpatch_apply(const char *text, size_t len, const json_t *root, size_t *outlen);

#endif
