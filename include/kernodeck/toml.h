/*
 * toml.h - a TOML 1.0 reader (https://toml.io/en/v1.0.0): one document
 * into a jansson tree, for the lock files kernodeck reads (PEP 751
 * pylock.toml, uv.lock).  No TOML library is packaged for C in Debian 12.
 *
 * The tree: a table is an object (keys in the order written), an array an
 * array, a string a string, an integer an integer (64-bit signed, as the
 * specification requires), a boolean a boolean, a float a real; the floats
 * JSON cannot hold are the strings "inf", "-inf" and "nan".  An offset or
 * local date-time, a local date and a local time are strings, as written
 * (the 'T' and 'Z' upper-cased).
 *
 * Everything the specification calls invalid is refused with the line: a
 * key defined twice, a table defined twice or through dotted keys and a
 * header both, an inline table or a static array extended afterwards,
 * bad escapes, control characters, invalid UTF-8, integers out of range,
 * leading zeros, underscores not between digits, dates that do not exist.
 * Input is capped at KD_CAP_TEXT_FILE and nesting at KD_CAP_TOML_DEPTH.
 */
#ifndef KD_TOML_H
#define KD_TOML_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "kernodeck/err.h"

#define KD_CAP_TOML_DEPTH 64    /* arrays and inline tables inside one another */

/* Parse text (len bytes; name is used in messages).  0 and a new tree in
 * *out, or KD_EINPUT with the line in err. */
int toml_parse(const char *text, size_t len, const char *name, json_t **out,
	       struct kd_err *err);
/* The same from a file (KD_EINPUT when missing, unreadable, too big). */
int toml_load(const char *path, json_t **out, struct kd_err *err);

/* Write s as a TOML basic string ("...", with \\, \" and control
 * characters escaped) to f. */
void toml_put_string(FILE *f, const char *s);

#endif
