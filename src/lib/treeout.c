/*
 * treeout.c - a parser's tree written out as it is made (see treeout.h).
 *
 * JSON is written as json_dumps(tree, JSON_INDENT(2)) writes it: each part
 * is dumped by jansson alone and indented to its depth (jansson escapes
 * every newline inside a string, so each '\n' of a dump is a line break);
 * YAML goes through yamlio's streaming emitter, event for event what
 * yamlio_dump emits for the whole tree.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "kernodeck/treeout.h"
#include "kernodeck/yamlio.h"

struct treeout {
	FILE *fp;
	enum kd_format fmt;
	struct yamlio_stream *ys;
	int nkeys;           /* keys written in the top-level mapping */
	const char *key;     /* the array being streamed, its key not yet written */
	size_t nitems;       /* items written in it */
	int failed;
};

/* A JSON dump of v at depth (each line break followed by 2*depth spaces). */
static void
json_part(struct treeout *t, const json_t *v, int depth)
{
	char *s = json_dumps(v, JSON_INDENT(2) | JSON_ENCODE_ANY);

	if (s == NULL) {
		t->failed = 1;
		return;
	}
	for (const char *p = s; *p; ) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		fwrite(p, 1, n, t->fp);
		if (nl == NULL)
			break;
		fprintf(t->fp, "\n%*s", 2 * depth, "");
		p = nl + 1;
	}
	free(s);
}

/* The key of the next top-level value: "key": or key: */
static void
put_key(struct treeout *t, const char *key)
{
	if (t->fmt == KD_FMT_JSON) {
		json_t *k = json_string(key);
		fputs(t->nkeys ? ",\n  " : "\n  ", t->fp);
		json_part(t, k, 1);
		fputs(": ", t->fp);
		json_decref(k);
	} else if (yamlio_stream_key(t->ys, key) != 0) {
		t->failed = 1;
	}
	t->nkeys++;
}

static void
put_value(struct treeout *t, const char *key, const json_t *v)
{
	put_key(t, key);
	if (t->fmt == KD_FMT_JSON)
		json_part(t, v, 1);
	else if (yamlio_stream_node(t->ys, v) != 0)
		t->failed = 1;
}

static void
put_item(struct treeout *t, const json_t *item)
{
	if (t->nitems++ == 0) {
		put_key(t, t->key);
		if (t->fmt == KD_FMT_JSON)
			fputs("[\n    ", t->fp);
		else if (yamlio_stream_begin(t->ys, 1) != 0)
			t->failed = 1;
	} else if (t->fmt == KD_FMT_JSON) {
		fputs(",\n    ", t->fp);
	}
	if (t->fmt == KD_FMT_JSON)
		json_part(t, item, 2);
	else if (yamlio_stream_node(t->ys, item) != 0)
		t->failed = 1;
}

/* The end of a streamed array: "[]" when nothing came. */
static void
array_end(struct treeout *t)
{
	if (t->nitems == 0) {
		json_t *empty = json_array();
		put_value(t, t->key, empty);
		json_decref(empty);
	} else if (t->fmt == KD_FMT_JSON) {
		fputs("\n  ]", t->fp);
	} else if (yamlio_stream_end(t->ys, 1) != 0) {
		t->failed = 1;
	}
	t->key = NULL;
}

enum { K_NONE, K_THIS, K_DONE, K_OVER };   /* the state of an id's kept items */

/* About the bytes an item holds: its strings, and a word or so per node. */
static size_t
item_size(const json_t *v)
{
	const char *k;
	json_t *x;
	size_t i, n = 64;

	if (json_is_string(v))
		return n + json_string_length(v);
	if (json_is_array(v))
		json_array_foreach(v, i, x)
			n += item_size(x);
	else if (json_is_object(v))
		json_object_foreach((json_t *)v, k, x)
			n += 64 + strlen(k) + item_size(x);
	return n;
}

void
treeout_add(struct kd_pick *pick, json_t *arr, int id, json_t *item)
{
	if (item == NULL)
		return;
	if (pick == NULL) {
		json_array_append_new(arr, item);
		return;
	}
	if (id == pick->want && pick->out != NULL && pick->out->key != NULL) {
		put_item(pick->out, item);
	} else if (id >= 0 && id < TREEOUT_MAX_IDS && pick->state[id] == K_THIS) {
		size_t sz = item_size(item);
		if (json_array_size(pick->kept[id]) < TREEOUT_KEEP &&
		    pick->kept_bytes + sz <= TREEOUT_KEEP_BYTES) {
			json_array_append(pick->kept[id], item);
			pick->kept_bytes += sz;
		} else {
			json_decref(pick->kept[id]);
			pick->kept[id] = NULL;
			pick->state[id] = K_OVER;
		}
	}
	json_decref(item);
}

void
treeout_later(struct kd_pick *pick, int id)
{
	if (pick != NULL && pick->pass == 0 && id >= 0 && id < TREEOUT_MAX_IDS &&
	    pick->state[id] == K_THIS) {
		json_decref(pick->kept[id]);
		pick->kept[id] = NULL;
		pick->state[id] = K_NONE;
	}
}

/* One run of the parser: every id not yet kept is kept from this one. */
static int
run_pass(struct kd_pick *pick, treeout_parse_fn parse, void *arg, json_t **tree,
	 struct kd_err *err)
{
	int rc;

	for (int id = 0; id < TREEOUT_MAX_IDS; id++)
		if (pick->state[id] == K_NONE && id != pick->want) {
			pick->state[id] = K_THIS;
			pick->kept[id] = json_array();
		}
	rc = parse(arg, pick, tree, err);
	for (int id = 0; id < TREEOUT_MAX_IDS; id++)
		if (pick->state[id] == K_THIS)
			pick->state[id] = K_DONE;
	pick->pass++;
	return rc;
}

/* Stream the array of key: each of its ids from what a pass kept, or from
 * a pass of its own. */
static int
stream_key(struct treeout *t, struct kd_pick *pick, treeout_parse_fn parse, void *arg,
	   const char *key, const char *const *ids, int nids, struct kd_err *err)
{
	t->key = key;
	t->nitems = 0;
	for (int id = 0; id < nids; id++) {
		json_t *tree = NULL, *v;
		size_t i;
		int rc;
		if (strcmp(ids[id], key) != 0)
			continue;
		if (pick->state[id] == K_DONE) {
			json_array_foreach(pick->kept[id], i, v)
				put_item(t, v);
			continue;
		}
		pick->want = id;
		rc = run_pass(pick, parse, arg, &tree, err);
		pick->want = -1;
		json_decref(tree);
		if (rc != 0)
			return rc;
	}
	array_end(t);
	return 0;
}

static int
is_streamed(const char *key, const char *const *ids, int nids)
{
	for (int i = 0; i < nids; i++)
		if (strcmp(ids[i], key) == 0)
			return 1;
	return 0;
}

/* See treeout.h. */
void
treeout_print_tree(FILE *fp, const json_t *tree, enum kd_format fmt)
{
	char *s = NULL;

	if (fmt == KD_FMT_JSON)
		s = json_dumps(tree, JSON_INDENT(2));
	else
		s = yamlio_dump(tree, 0, NULL);
	if (s != NULL) {
		fputs(s, fp);
		if (fmt == KD_FMT_JSON)
			fputc('\n', fp);
	}
	free(s);
}

int
treeout_print(FILE *fp, enum kd_format fmt, treeout_parse_fn parse, void *arg,
	      const char *const *ids, int nids, struct kd_err *err)
{
	struct treeout t = { .fp = fp, .fmt = fmt == KD_FMT_JSON ? KD_FMT_JSON : KD_FMT_YAML };
	struct kd_pick pick = { .want = -1, .out = &t };
	json_t *skel = NULL, *v;
	const char *key;
	int rc;

	if (nids > TREEOUT_MAX_IDS)
		return kd_err_set(err, KD_EENV, NULL, 0, "treeout: more than %d arrays",
				  TREEOUT_MAX_IDS);
	if ((rc = run_pass(&pick, parse, arg, &skel, err)) != 0)
		goto out;
	if (!json_is_object(skel) || json_object_size(skel) == 0) {
		treeout_print_tree(fp, skel, fmt);   /* nothing to stream */
		goto out;
	}
	if (t.fmt == KD_FMT_JSON)
		fputc('{', fp);
	else if ((t.ys = yamlio_stream_open(fp, 0)) == NULL || yamlio_stream_begin(t.ys, 0) != 0)
		t.failed = 1;
	json_object_foreach(skel, key, v) {
		if (t.failed)
			break;
		if (!is_streamed(key, ids, nids))
			put_value(&t, key, v);
		else if ((rc = stream_key(&t, &pick, parse, arg, key, ids, nids, err)) != 0)
			goto out;
	}
	if (t.fmt == KD_FMT_JSON) {
		fputs("\n}\n", fp);
	} else if (t.ys != NULL) {
		if (yamlio_stream_end(t.ys, 0) != 0)
			t.failed = 1;
		if (yamlio_stream_close(t.ys) != 0)
			t.failed = 1;
		t.ys = NULL;
	}
	if (t.failed || fflush(fp) != 0 || ferror(fp))
		rc = kd_err_set(err, KD_EENV, NULL, 0, "cannot write the output");
out:
	if (t.ys != NULL)
		(void)yamlio_stream_close(t.ys);
	for (int id = 0; id < TREEOUT_MAX_IDS; id++)
		json_decref(pick.kept[id]);
	if (pick.carry != NULL && pick.carry_free != NULL)
		pick.carry_free(pick.carry);
	json_decref(skel);
	return rc;
}
