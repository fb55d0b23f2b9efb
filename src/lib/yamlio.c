/*
 * yamlio.c - YAML files as jansson trees, with libyaml.
 *
 * The loader walks libyaml's events with an explicit stack (bounded by
 * KD_CAP_YAML_DEPTH), so a hostile file cannot exhaust the C stack; it
 * refuses binary content, repeated keys, aliases and several documents,
 * and remembers the line of every node for later messages.  The emitter
 * chooses quoting so that what it writes loads back as the same tree.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "kernodeck/caps.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/yamlio.h"

/* ---- scalar resolution (YAML 1.2 core schema, plain scalars only) ---- */

static int
is_int(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static int
is_float(const char *s)
{
	int digits = 0, dot = 0;

	if (*s == '-' || *s == '+')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits++;
	if (*s == '.') {
		dot = 1;
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits++;
	}
	if (digits == 0)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
		return *s == '\0';
	}
	return *s == '\0' && dot;
}

static int
is_null_word(const char *s)
{
	return *s == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
	       strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

static int
bool_word(const char *s)
{
	if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0 || strcmp(s, "TRUE") == 0)
		return 1;
	if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0 || strcmp(s, "FALSE") == 0)
		return 0;
	return -1;
}

static json_t *
resolve_plain(const char *s, size_t len)
{
	int b;

	if (is_null_word(s))
		return json_null();
	if ((b = bool_word(s)) >= 0)
		return json_boolean(b);
	if (is_int(s) && len < 19)
		return json_integer(strtoll(s, NULL, 10));
	if (is_float(s) && len < 64)
		return json_real(strtod(s, NULL));
	return json_stringn(s, len);
}

/* A string that would not load back as a string when written plain. */
static int
needs_quotes(const char *s)
{
	/* each of the words below starts with one of these bytes (most keys
	 * and values do not: one test instead of a dozen comparisons) */
	if (*s != '\0' && strchr("~nNtTfF0123456789-+.", *s) == NULL)
		return 0;
	return is_null_word(s) || bool_word(s) >= 0 || is_int(s) || is_float(s) ||
	       strcmp(s, ".inf") == 0 || strcmp(s, ".nan") == 0 ||
	       strcmp(s, "-.inf") == 0;
}

/* ---- line map ---- */

static void
note_line(struct yamlio_doc *doc, const json_t *node, int line)
{
	if (node == NULL || json_is_true(node) || json_is_false(node) || json_is_null(node))
		return;
	if (doc->nlines == doc->caplines) {
		size_t nc = doc->caplines ? doc->caplines * 2 : 64;
		void *nv = realloc(doc->lines, nc * sizeof *doc->lines);
		if (nv == NULL)
			return;
		doc->lines = nv;
		doc->caplines = nc;
	}
	doc->lines[doc->nlines].node = node;
	doc->lines[doc->nlines].line = line;
	doc->nlines++;
}

int
yamlio_line_of(const struct yamlio_doc *doc, const json_t *node)
{
	if (doc == NULL)
		return 0;
	for (size_t i = 0; i < doc->nlines; i++)
		if (doc->lines[i].node == node)
			return doc->lines[i].line;
	return 0;
}

/* ---- loader ---- */

struct frame {
	json_t *node;     /* object or array */
	char *key;        /* pending key in a mapping, or NULL */
	int key_line;
};

static int
attach(struct frame *top, json_t *val, const char *name, int line, struct kd_err *err)
{
	if (json_is_array(top->node))
		return json_array_append_new(top->node, val) == 0 ? 0 :
		       kd_err_set(err, KD_EENV, name, line, "out of memory");
	if (top->key == NULL) {
		json_decref(val);
		return kd_err_set(err, KD_EINPUT, name, line, "a mapping key must be a plain value");
	}
	if (json_object_get(top->node, top->key) != NULL) {
		kd_err_set(err, KD_EINPUT, name, top->key_line, "duplicate key \"%s\"", top->key);
		json_decref(val);
		return KD_EINPUT;
	}
	json_object_set_new(top->node, top->key, val);
	free(top->key);
	top->key = NULL;
	return 0;
}

static int
check_bytes(const char *buf, size_t len, const char *name, struct kd_err *err)
{
	int line = 1;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c == '\n')
			line++;
		else if (c == 0)
			return kd_err_set(err, KD_EINPUT, name, line,
					  "binary content (a NUL byte): not a YAML file");
	}
	return 0;
}

int
yamlio_load_mem(const char *buf, size_t len, const char *name,
		struct yamlio_doc *doc, struct kd_err *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct frame stack[KD_CAP_YAML_DEPTH + 1];
	int depth = 0, rc = 0, done = 0, docs = 0;
	json_t *root = NULL;

	memset(doc, 0, sizeof *doc);
	doc->path = strdup(name ? name : "<string>");
	if (len > KD_CAP_YAML_FILE) {
		rc = kd_err_set(err, KD_EINPUT, name, 0,
				"%s is too large (%zu bytes; the limit is %u)", name, len,
				KD_CAP_YAML_FILE);
		goto fail;
	}
	if ((rc = check_bytes(buf, len, name, err)) != 0)
		goto fail;
	if (!yaml_parser_initialize(&parser)) {
		rc = kd_err_set(err, KD_EENV, name, 0, "cannot start the YAML parser");
		goto fail;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	while (!done && rc == 0) {
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = kd_err_set(err, KD_EINPUT, name, (int)parser.problem_mark.line + 1,
					"malformed YAML: %s%s%s",
					parser.problem ? parser.problem : "syntax error",
					parser.context ? " " : "",
					parser.context ? parser.context : "");
			break;
		}
		int line = (int)ev.start_mark.line + 1;
		json_t *val = NULL;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_END_EVENT:
			/* "..." and its end of line: the file's end was written */
			doc->ended = !ev.data.document_end.implicit && len > 0 &&
				     buf[len - 1] == '\n';
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1)
				rc = kd_err_set(err, KD_EINPUT, name, line,
						"several YAML documents in one file");
			break;
		case YAML_ALIAS_EVENT:
			rc = kd_err_set(err, KD_EINPUT, name, line,
					"YAML aliases are not accepted");
			break;
		case YAML_SCALAR_EVENT: {
			const char *s = (const char *)ev.data.scalar.value;
			size_t n = ev.data.scalar.length;
			if (strlen(s) != n) {
				rc = kd_err_set(err, KD_EINPUT, name, line, "a value holds a NUL character");
				break;
			}
			if (depth > 0 && json_is_object(stack[depth - 1].node) &&
			    stack[depth - 1].key == NULL) {
				stack[depth - 1].key = strdup(s);
				stack[depth - 1].key_line = line;
				break;
			}
			if (ev.data.scalar.plain_implicit &&
			    ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
				val = resolve_plain(s, n);
			else
				val = json_stringn(s, n);
			if (val == NULL) {
				rc = kd_err_set(err, KD_EINPUT, name, line, "a value is not valid UTF-8");
				break;
			}
			note_line(doc, val, line);
			if (depth == 0)
				root = val;
			else
				rc = attach(&stack[depth - 1], val, name, line, err);
			break;
		}
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (depth > 0 && json_is_object(stack[depth - 1].node) &&
			    stack[depth - 1].key == NULL) {
				rc = kd_err_set(err, KD_EINPUT, name, line,
						"a mapping key must be a plain value");
				break;
			}
			if (depth >= KD_CAP_YAML_DEPTH) {
				rc = kd_err_set(err, KD_EINPUT, name, line,
						"nested too deeply (the limit is %d levels)",
						KD_CAP_YAML_DEPTH);
				break;
			}
			val = ev.type == YAML_SEQUENCE_START_EVENT ? json_array() : json_object();
			note_line(doc, val, line);
			if (depth == 0)
				root = val;
			else if ((rc = attach(&stack[depth - 1], val, name, line, err)) != 0)
				break;
			stack[depth].node = val;
			stack[depth].key = NULL;
			depth++;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			free(stack[depth].key);
			stack[depth].key = NULL;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	while (depth > 0)
		free(stack[--depth].key);
	yaml_parser_delete(&parser);
	if (rc != 0) {
		/* root owns everything attached so far */
		json_decref(root);
		goto fail;
	}
	doc->root = root ? root : json_null();
	return 0;
fail:
	/* a failed load leaves nothing to free (callers do not free it) */
	yamlio_doc_free(doc);
	return rc;
}

int
yamlio_load_file(const char *path, struct yamlio_doc *doc, struct kd_err *err)
{
	char *buf;
	size_t len;
	int rc;

	memset(doc, 0, sizeof *doc);
	rc = fsutil_read_file(path, KD_CAP_YAML_FILE, &buf, &len, err);
	if (rc != 0)
		return rc;
	rc = yamlio_load_mem(buf, len, path, doc, err);
	free(buf);
	return rc;
}

int
yamlio_require_end(const struct yamlio_doc *doc, struct kd_err *err)
{
	if (doc->ended)
		return 0;
	return kd_err_set(err, KD_EINPUT, doc->path, 0,
			  "%s is cut short: the end mark \"...\" that kernodeck writes as its "
			  "last line is missing (a write that did not finish, or a file "
			  "truncated since); it is left as it is: restore it from a backup, "
			  "or remove it to start again", doc->path);
}

void
yamlio_doc_free(struct yamlio_doc *doc)
{
	json_decref(doc->root);
	free(doc->lines);
	free(doc->path);
	memset(doc, 0, sizeof *doc);
}

/* ---- emitter ---- */

struct obuf {
	char *p;
	size_t len, cap;
};

static int
obuf_write(void *data, unsigned char *buf, size_t size)
{
	struct obuf *o = data;

	if (o->len + size + 1 > o->cap) {
		size_t nc = o->cap ? o->cap : 4096;
		while (nc < o->len + size + 1)
			nc *= 2;
		char *np = realloc(o->p, nc);
		if (np == NULL)
			return 0;
		o->p = np;
		o->cap = nc;
	}
	memcpy(o->p + o->len, buf, size);
	o->len += size;
	o->p[o->len] = '\0';
	return 1;
}

static int
emit_scalar(yaml_emitter_t *em, const char *s, size_t n, yaml_scalar_style_t style)
{
	yaml_event_t ev;

	if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)n,
					  1, 1, style))
		return -1;
	return yaml_emitter_emit(em, &ev) ? 0 : -1;
}

struct kv {
	const char *k;
	const json_t *v;
};

static int
cmp_keys(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->k, ((const struct kv *)b)->k);
}

static int
emit_node(yaml_emitter_t *em, const json_t *n, int flags, int depth)
{
	yaml_event_t ev;
	char num[64];

	if (depth > KD_CAP_YAML_DEPTH * 4)
		return -1;
	switch (json_typeof(n)) {
	case JSON_OBJECT: {
		size_t cnt = json_object_size(n), i = 0;
		struct kv *keys = malloc((cnt ? cnt : 1) * sizeof *keys);
		const char *k;
		json_t *v;
		int rc = 0;
		if (keys == NULL)
			return -1;
		/* each value with its key: no lookup by key afterwards */
		json_object_foreach((json_t *)n, k, v) {
			keys[i].k = k;
			keys[i++].v = v;
		}
		if (flags & YAMLIO_SORT_KEYS)
			qsort(keys, cnt, sizeof *keys, cmp_keys);
		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
						    cnt ? YAML_BLOCK_MAPPING_STYLE : YAML_FLOW_MAPPING_STYLE);
		if (!yaml_emitter_emit(em, &ev))
			rc = -1;
		for (i = 0; rc == 0 && i < cnt; i++) {
			rc = emit_scalar(em, keys[i].k, strlen(keys[i].k),
					 needs_quotes(keys[i].k) ? YAML_DOUBLE_QUOTED_SCALAR_STYLE :
					 YAML_ANY_SCALAR_STYLE);
			if (rc == 0)
				rc = emit_node(em, keys[i].v, flags, depth + 1);
		}
		free(keys);
		if (rc != 0)
			return -1;
		yaml_mapping_end_event_initialize(&ev);
		return yaml_emitter_emit(em, &ev) ? 0 : -1;
	}
	case JSON_ARRAY: {
		size_t i;
		json_t *v;
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
						     json_array_size(n) ? YAML_BLOCK_SEQUENCE_STYLE :
						     YAML_FLOW_SEQUENCE_STYLE);
		if (!yaml_emitter_emit(em, &ev))
			return -1;
		json_array_foreach(n, i, v)
			if (emit_node(em, v, flags, depth + 1) != 0)
				return -1;
		yaml_sequence_end_event_initialize(&ev);
		return yaml_emitter_emit(em, &ev) ? 0 : -1;
	}
	case JSON_STRING: {
		const char *s = json_string_value(n);
		size_t len = json_string_length(n);
		yaml_scalar_style_t st = YAML_ANY_SCALAR_STYLE;
		if (needs_quotes(s) || strlen(s) != len)
			st = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
		else if (memchr(s, '\n', len) != NULL)
			st = YAML_LITERAL_SCALAR_STYLE;
		return emit_scalar(em, s, len, st);
	}
	case JSON_INTEGER:
		snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(n));
		return emit_scalar(em, num, strlen(num), YAML_PLAIN_SCALAR_STYLE);
	case JSON_REAL:
		snprintf(num, sizeof num, "%.17g", json_real_value(n));
		if (strpbrk(num, ".eEn") == NULL)
			strncat(num, ".0", sizeof num - strlen(num) - 1);
		return emit_scalar(em, num, strlen(num), YAML_PLAIN_SCALAR_STYLE);
	case JSON_TRUE:
		return emit_scalar(em, "true", 4, YAML_PLAIN_SCALAR_STYLE);
	case JSON_FALSE:
		return emit_scalar(em, "false", 5, YAML_PLAIN_SCALAR_STYLE);
	case JSON_NULL:
	default:
		return emit_scalar(em, "null", 4, YAML_PLAIN_SCALAR_STYLE);
	}
}

char *
yamlio_dump(const json_t *root, int flags, size_t *lenp)
{
	yaml_emitter_t em;
	yaml_event_t ev;
	struct obuf o = { 0 };
	int ok = 0;

	if (!yaml_emitter_initialize(&em))
		return NULL;
	yaml_emitter_set_output(&em, obuf_write, &o);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, -1);
	yaml_emitter_set_indent(&em, 2);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	if (!yaml_emitter_emit(&em, &ev))
		goto out;
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	if (!yaml_emitter_emit(&em, &ev))
		goto out;
	if (emit_node(&em, root ? root : json_null(), flags, 0) != 0)
		goto out;
	yaml_document_end_event_initialize(&ev, !(flags & YAMLIO_END_MARK));
	if (!yaml_emitter_emit(&em, &ev))
		goto out;
	yaml_stream_end_event_initialize(&ev);
	if (!yaml_emitter_emit(&em, &ev))
		goto out;
	ok = yaml_emitter_flush(&em);
out:
	yaml_emitter_delete(&em);
	if (!ok) {
		free(o.p);
		return NULL;
	}
	if (o.p == NULL)
		o.p = strdup("");
	if (lenp)
		*lenp = o.len;
	return o.p;
}

/* ---- an emitter that writes as it goes ---- */

struct yamlio_stream {
	yaml_emitter_t em;
	FILE *fp;
	int flags;
};

static int
file_write(void *data, unsigned char *buf, size_t size)
{
	return fwrite(buf, 1, size, data) == size;
}

struct yamlio_stream *
yamlio_stream_open(FILE *fp, int flags)
{
	struct yamlio_stream *s = calloc(1, sizeof *s);
	yaml_event_t ev;

	if (s == NULL)
		return NULL;
	if (!yaml_emitter_initialize(&s->em)) {
		free(s);
		return NULL;
	}
	s->fp = fp;
	s->flags = flags;
	yaml_emitter_set_output(&s->em, file_write, fp);
	yaml_emitter_set_unicode(&s->em, 1);
	yaml_emitter_set_width(&s->em, -1);
	yaml_emitter_set_indent(&s->em, 2);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	if (yaml_emitter_emit(&s->em, &ev)) {
		yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
		if (yaml_emitter_emit(&s->em, &ev))
			return s;
	}
	yaml_emitter_delete(&s->em);
	free(s);
	return NULL;
}

int
yamlio_stream_begin(struct yamlio_stream *s, int seq)
{
	yaml_event_t ev;

	if (seq)
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
	else
		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
	return yaml_emitter_emit(&s->em, &ev) ? 0 : -1;
}

int
yamlio_stream_end(struct yamlio_stream *s, int seq)
{
	yaml_event_t ev;

	if (seq)
		yaml_sequence_end_event_initialize(&ev);
	else
		yaml_mapping_end_event_initialize(&ev);
	return yaml_emitter_emit(&s->em, &ev) ? 0 : -1;
}

int
yamlio_stream_key(struct yamlio_stream *s, const char *key)
{
	return emit_scalar(&s->em, key, strlen(key), needs_quotes(key) ?
			   YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
}

int
yamlio_stream_node(struct yamlio_stream *s, const json_t *node)
{
	return emit_node(&s->em, node ? node : json_null(), s->flags, 1);
}

int
yamlio_stream_close(struct yamlio_stream *s)
{
	yaml_event_t ev;
	int ok = 0;

	if (s == NULL)
		return -1;
	yaml_document_end_event_initialize(&ev, !(s->flags & YAMLIO_END_MARK));
	if (yaml_emitter_emit(&s->em, &ev)) {
		yaml_stream_end_event_initialize(&ev);
		ok = yaml_emitter_emit(&s->em, &ev) && yaml_emitter_flush(&s->em);
	}
	yaml_emitter_delete(&s->em);
	free(s);
	return ok ? 0 : -1;
}

int
yamlio_save_file(const char *path, const json_t *root, int flags, struct kd_err *err)
{
	size_t len;
	char *s = yamlio_dump(root, flags, &len);
	int rc;

	if (s == NULL)
		return kd_err_set(err, KD_EENV, path, 0, "cannot format %s as YAML", path);
	rc = fsutil_write_atomic(path, s, len, 0, err);
	free(s);
	return rc;
}

/* ---- paths: "a.b[2].c" ---- */

static const char *
next_part(const char *p, char *key, size_t keylen, long *index)
{
	size_t n = 0;

	*index = -1;
	if (*p == '[') {
		char *end;
		*index = strtol(p + 1, &end, 10);
		if (*end != ']')
			return NULL;
		p = end + 1;
	} else {
		while (*p && *p != '.' && *p != '[') {
			if (n + 1 < keylen)
				key[n++] = *p;
			p++;
		}
	}
	key[n] = '\0';
	if (*p == '.')
		p++;
	return p;
}

json_t *
yamlio_get(const json_t *root, const char *path)
{
	char key[256];
	long idx;
	const json_t *cur = root;
	const char *p = path;

	while (cur != NULL && p != NULL && *p != '\0') {
		p = next_part(p, key, sizeof key, &idx);
		if (p == NULL)
			return NULL;
		if (idx >= 0)
			cur = json_is_array(cur) ? json_array_get(cur, (size_t)idx) : NULL;
		else
			cur = json_is_object(cur) ? json_object_get(cur, key) : NULL;
	}
	return (json_t *)cur;
}

const char *
yamlio_get_str(const json_t *root, const char *path)
{
	return json_string_value(yamlio_get(root, path));
}

int
yamlio_set(json_t *root, const char *path, json_t *value)
{
	char key[256];
	long idx;
	json_t *cur = root;
	const char *p = path;

	if (value == NULL)
		return -1;
	for (;;) {
		p = next_part(p, key, sizeof key, &idx);
		if (p == NULL)
			break;
		int last = *p == '\0';
		if (idx >= 0) {
			if (!json_is_array(cur) || (size_t)idx > json_array_size(cur))
				break;
			if (last) {
				if ((size_t)idx == json_array_size(cur))
					return json_array_append_new(cur, value);
				return json_array_set_new(cur, (size_t)idx, value);
			}
			cur = json_array_get(cur, (size_t)idx);
		} else {
			if (!json_is_object(cur))
				break;
			if (last)
				return json_object_set_new(cur, key, value);
			json_t *nx = json_object_get(cur, key);
			if (nx == NULL || json_is_null(nx)) {
				nx = (*p == '[') ? json_array() : json_object();
				json_object_set_new(cur, key, nx);
			}
			cur = nx;
		}
	}
	json_decref(value);
	return -1;
}

/* See yamlio.h. */
const char *
yamlio_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* See yamlio.h. */
void
yamlio_set_str(json_t *o, const char *key, const char *v)
{
	if (v != NULL)
		json_object_set_new(o, key, json_string(v));
}
