/*
 * yamlpatch.c - write a changed tree back into the YAML text it came from,
 * keeping the person's comments, blank lines, key order and quoting.
 *
 * libyaml reports where every scalar starts and ends.  The text is walked
 * event by event beside the new tree: a scalar whose value changed is
 * replaced where it stands (an empty "key:" gets its value after the
 * colon), and a key the new tree adds to a block mapping is written after
 * the mapping's last line, at the indentation of its keys.  Anything else
 * (a key removed, a list grown or shrunk, a scalar that became a list, a
 * flow collection that changed) gives up: the caller writes the file
 * anew.  The result is parsed again and must give exactly the new tree.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "kernodeck/caps.h"
#include "kernodeck/yamlio.h"
#include "kernodeck/yamlpatch.h"

/* One change to the text: [at, at + cut) becomes ins. */
struct edit {
	size_t at, cut;
	char *ins;
};

struct patch {
	const char *text;
	size_t len;
	size_t *byte_of;        /* character index -> byte offset, or NULL (ASCII) */
	struct edit *e;
	size_t n, cap;
	int failed;
};

/* One open collection of the text and its counterpart in the new tree. */
struct level {
	const json_t *node;     /* the new tree's object or array, or NULL */
	int is_map, flow;
	char *key;              /* mapping: the key waiting for its value */
	size_t key_end;         /* byte just after that key */
	size_t index;           /* sequence: the next item's place */
	size_t last_end;        /* byte after the last value seen in it */
	size_t key_col;         /* column of its keys (block mapping) */
	int have_col;
	json_t *seen;           /* mapping: the keys the text holds */
};

static size_t
byte_at(const struct patch *p, size_t ch)
{
	return p->byte_of ? p->byte_of[ch] : ch;
}

/* libyaml's marks count characters: a table to bytes when the text has
 * any byte over 0x7f (it is valid UTF-8: the loader checked). */
static int
build_byte_table(struct patch *p)
{
	size_t nch = 0, i;

	for (i = 0; i < p->len; i++)
		if ((unsigned char)p->text[i] >= 0x80)
			break;
	if (i == p->len)
		return 0;
	p->byte_of = malloc((p->len + 2) * sizeof *p->byte_of);
	if (p->byte_of == NULL)
		return -1;
	for (i = 0; i < p->len; i++)
		if (((unsigned char)p->text[i] & 0xc0) != 0x80)
			p->byte_of[nch++] = i;
	p->byte_of[nch] = p->len;
	p->byte_of[nch + 1] = p->len;
	return 0;
}

static void
add_edit(struct patch *p, size_t at, size_t cut, char *ins)
{
	if (ins == NULL) {
		p->failed = 1;
		return;
	}
	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 8;
		struct edit *ne = realloc(p->e, nc * sizeof *ne);
		if (ne == NULL) {
			free(ins);
			p->failed = 1;
			return;
		}
		p->e = ne;
		p->cap = nc;
	}
	p->e[p->n].at = at;
	p->e[p->n].cut = cut;
	p->e[p->n++].ins = ins;
}

/* "key: VALUE\n" as the emitter writes it, for {key: v}; NULL on error. */
static char *
dump_pair(const char *key, const json_t *v)
{
	json_t *o = json_object();
	char *s;

	json_object_set(o, key, (json_t *)v);
	s = yamlio_dump(o, 0, NULL);
	json_decref(o);
	return s;
}

/* The text of a scalar value on one line, or NULL (a block scalar). */
static char *
scalar_text(const json_t *v)
{
	char *s = dump_pair("k", v), *out;
	size_t n;

	if (s == NULL || strncmp(s, "k: ", 3) != 0) {
		free(s);
		return NULL;
	}
	n = strlen(s + 3);
	while (n > 0 && s[3 + n - 1] == '\n')
		n--;
	if (memchr(s + 3, '\n', n) != NULL || (n > 0 && s[3] == '|') || (n > 0 && s[3] == '>')) {
		free(s);
		return NULL;
	}
	out = strndup(s + 3, n);
	free(s);
	return out;
}

/* The value the loader would read from this scalar event. */
static json_t *
scalar_value(const yaml_event_t *ev)
{
	const char *s = (const char *)ev->data.scalar.value;
	size_t n = ev->data.scalar.length;
	struct yamlio_doc d;
	json_t *v = NULL;

	if (!(ev->data.scalar.plain_implicit && ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE))
		return json_stringn(s, n);
	/* a plain scalar: resolved exactly as yamlio_load_mem does */
	if (yamlio_load_mem(s, n, "<scalar>", &d, NULL) != 0)
		return NULL;
	v = json_incref(d.root);
	yamlio_doc_free(&d);
	return v;
}

/* The new tree's node for the value that comes next in lv (NULL: none). */
static const json_t *
counterpart(struct level *lv)
{
	if (lv == NULL)
		return NULL;
	if (lv->node == NULL)
		return NULL;
	if (lv->is_map)
		return lv->key ? json_object_get(lv->node, lv->key) : NULL;
	return json_array_get(lv->node, lv->index);
}

static void
value_done(struct level *lv, size_t end)
{
	if (lv == NULL)
		return;
	lv->last_end = end;
	if (lv->is_map) {
		free(lv->key);
		lv->key = NULL;
	} else {
		lv->index++;
	}
}

/* A scalar value: replace it when the new tree says something else. */
static void
on_value_scalar(struct patch *p, struct level *lv, const yaml_event_t *ev, const json_t *want)
{
	size_t a = byte_at(p, ev->start_mark.index), b = byte_at(p, ev->end_mark.index);
	json_t *old;
	char *t;

	if (want == NULL) {
		p->failed = 1;   /* removed in the new tree */
		return;
	}
	old = scalar_value(ev);
	if (old != NULL && json_equal(old, (json_t *)want)) {
		json_decref(old);
		return;
	}
	json_decref(old);
	if (json_is_object(want) || json_is_array(want) || (t = scalar_text(want)) == NULL) {
		p->failed = 1;
		return;
	}
	if (ev->data.scalar.length == 0 && a == b && lv != NULL && lv->is_map) {
		/* "key:" with nothing: the value goes after the colon */
		const char *c = memchr(p->text + lv->key_end, ':', p->len - lv->key_end);
		char *ins;
		if (c == NULL || (ins = malloc(strlen(t) + 2)) == NULL) {
			free(t);
			p->failed = 1;
			return;
		}
		ins[0] = ' ';
		memcpy(ins + 1, t, strlen(t) + 1);
		free(t);
		add_edit(p, (size_t)(c - p->text) + 1, 0, ins);
		return;
	}
	add_edit(p, a, b - a, t);
}

/* The keys the new tree adds to a block mapping, after its last line. */
static void
add_missing_keys(struct patch *p, struct level *lv)
{
	const char *k;
	json_t *v;
	size_t at;

	if (lv->node == NULL || !json_is_object(lv->node))
		return;
	json_object_foreach((json_t *)lv->node, k, v) {
		if (json_object_get(lv->seen, k) != NULL)
			continue;
		if (lv->flow || !lv->have_col) {
			p->failed = 1;
			return;
		}
		char *s = dump_pair(k, v), *ins, *o;
		size_t lines = 1, n;
		if (s == NULL) {
			p->failed = 1;
			return;
		}
		for (const char *q = s; *q; q++)
			lines += *q == '\n';
		n = strlen(s);
		ins = malloc(n + lines * (lv->key_col + 1) + 2);
		if (ins == NULL) {
			free(s);
			p->failed = 1;
			return;
		}
		o = ins;
		for (const char *q = s; *q;) {
			const char *nl = strchr(q, '\n');
			size_t ln = nl ? (size_t)(nl - q) + 1 : strlen(q);
			memset(o, ' ', lv->key_col);
			o += lv->key_col;
			memcpy(o, q, ln);
			o += ln;
			q += ln;
		}
		*o = '\0';
		free(s);
		/* after the end of the line that holds the mapping's last value */
		at = lv->last_end;
		while (at < p->len && p->text[at] != '\n')
			at++;
		if (at < p->len) {
			at++;
		} else {
			/* no newline at the end of the file: put one first */
			char *t = malloc(strlen(ins) + 2);
			if (t == NULL) {
				free(ins);
				p->failed = 1;
				return;
			}
			t[0] = '\n';
			memcpy(t + 1, ins, strlen(ins) + 1);
			free(ins);
			ins = t;
		}
		add_edit(p, at, 0, ins);
	}
}

static int
cmp_edit(const void *x, const void *y)
{
	const struct edit *a = x, *b = y;

	return a->at < b->at ? -1 : a->at > b->at;
}

/* The text with the edits made (sorted; none overlap), or NULL. */
static char *
apply_edits(struct patch *p, size_t *outlen)
{
	size_t total = p->len, o = 0, from = 0;
	char *out;

	if (p->n > 0)   /* qsort of a NULL array is undefined, even of none */
		qsort(p->e, p->n, sizeof *p->e, cmp_edit);
	for (size_t i = 0; i < p->n; i++) {
		if (i > 0 && p->e[i].at < p->e[i - 1].at + p->e[i - 1].cut)
			return NULL;
		total += strlen(p->e[i].ins);
	}
	if ((out = malloc(total + 1)) == NULL)
		return NULL;
	for (size_t i = 0; i < p->n; i++) {
		memcpy(out + o, p->text + from, p->e[i].at - from);
		o += p->e[i].at - from;
		memcpy(out + o, p->e[i].ins, strlen(p->e[i].ins));
		o += strlen(p->e[i].ins);
		from = p->e[i].at + p->e[i].cut;
	}
	memcpy(out + o, p->text + from, p->len - from);
	o += p->len - from;
	out[o] = '\0';
	*outlen = o;
	return out;
}

/* Walk the text's events beside the new tree, collecting the edits. */
static void
walk(struct patch *p, const json_t *root)
{
	struct level st[KD_CAP_YAML_DEPTH + 1];
	yaml_parser_t parser;
	yaml_event_t ev;
	int depth = 0, done = 0;

	memset(st, 0, sizeof st);
	if (!yaml_parser_initialize(&parser)) {
		p->failed = 1;
		return;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)p->text, p->len);
	while (!done && !p->failed) {
		if (!yaml_parser_parse(&parser, &ev)) {
			p->failed = 1;
			break;
		}
		struct level *top = depth > 0 ? &st[depth - 1] : NULL;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_ALIAS_EVENT:
			p->failed = 1;
			break;
		case YAML_SCALAR_EVENT:
			if (top != NULL && top->is_map && top->key == NULL) {
				top->key = strndup((const char *)ev.data.scalar.value,
						   ev.data.scalar.length);
				top->key_end = byte_at(p, ev.end_mark.index);
				json_object_set_new(top->seen, top->key, json_true());
				if (!top->have_col) {
					top->key_col = ev.start_mark.column;
					top->have_col = 1;
				}
				break;
			}
			on_value_scalar(p, top, &ev, top ? counterpart(top) : root);
			value_done(top, byte_at(p, ev.end_mark.index));
			break;
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT: {
			const json_t *want = top ? counterpart(top) : root;
			int is_map = ev.type == YAML_MAPPING_START_EVENT;
			if (depth >= KD_CAP_YAML_DEPTH || want == NULL ||
			    (is_map ? !json_is_object(want) : !json_is_array(want))) {
				p->failed = 1;
				break;
			}
			memset(&st[depth], 0, sizeof st[depth]);
			st[depth].node = want;
			st[depth].is_map = is_map;
			st[depth].flow = is_map ? ev.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
				       : ev.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
			st[depth].seen = json_object();
			st[depth].last_end = byte_at(p, ev.end_mark.index);
			depth++;
			break;
		}
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT: {
			struct level *lv = &st[depth - 1];
			size_t end = lv->last_end;
			if (lv->is_map)
				add_missing_keys(p, lv);
			else if (json_array_size(lv->node) != lv->index)
				p->failed = 1;   /* a list grown or shrunk */
			if (lv->flow)
				end = byte_at(p, ev.end_mark.index);
			free(lv->key);
			json_decref(lv->seen);
			depth--;
			value_done(depth > 0 ? &st[depth - 1] : NULL, end);
			break;
		}
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	while (depth > 0) {
		depth--;
		free(st[depth].key);
		json_decref(st[depth].seen);
	}
	yaml_parser_delete(&parser);
}

char *
yamlpatch_apply(const char *text, size_t len, const json_t *root, size_t *outlen)
{
	struct patch p = { .text = text, .len = len };
	char *out = NULL;
	struct yamlio_doc back;

	if (!json_is_object(root) || build_byte_table(&p) != 0)
		return NULL;
	walk(&p, root);
	if (!p.failed)
		out = apply_edits(&p, outlen);
	/* proven: the patched text loads as the new tree, or nothing */
	if (out != NULL) {
		if (yamlio_load_mem(out, *outlen, "<patched>", &back, NULL) != 0) {
			free(out);
			out = NULL;
		} else {
			if (!json_equal(back.root, (json_t *)root)) {
				free(out);
				out = NULL;
			}
			yamlio_doc_free(&back);
		}
	}
	for (size_t i = 0; i < p.n; i++)
		free(p.e[i].ins);
	free(p.e);
	free(p.byte_of);
	return out;
}
