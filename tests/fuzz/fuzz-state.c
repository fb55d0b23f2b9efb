/*
 * fuzz-state.c - state.yaml as kernodeck loads it: yamlio_load_mem, then
 * state_from_json.  Properties checked beyond "no crash":
 *  - whatever YAML loads, yamlio_dump of its tree loads again to an equal
 *    tree (a saved value never changes type or content on the next load);
 *  - a state that loads saves (state_to_json) to a tree that loads again as
 *    a state (kernodeck never writes a state it would then refuse).
 */
#include "config.h"

#include "fuzz.h"
#include "kernodeck/state.h"

static void
roundtrip_yaml(const json_t *root)
{
	struct yamlio_doc doc2;
	struct kd_err err;
	size_t n;
	char *s = yamlio_dump(root, 0, &n);

	if (s == NULL)
		abort();
	if (yamlio_load_mem(s, n, "<dump>", &doc2, &err) != 0) {
		fprintf(stderr, "dump does not load again: %s (line %d)\n%s\n", err.msg,
			err.line, s);
		abort();
	}
	if (!json_equal(root, doc2.root)) {
		fprintf(stderr, "dump loads to a different tree:\n%s\n", s);
		abort();
	}
	yamlio_doc_free(&doc2);
	free(s);
}

static void
roundtrip_state(const struct kd_state *st)
{
	json_t *t = state_to_json(st);
	struct kd_state st2;
	struct kd_err err;
	size_t n;
	char *s = yamlio_dump(t, 0, &n);
	struct yamlio_doc doc2;

	if (yamlio_load_mem(s, n, "<saved>", &doc2, &err) != 0 ||
	    state_from_json(doc2.root, "<saved>", &doc2, &st2, &err) != 0) {
		fprintf(stderr, "a loaded state does not load once saved: %s\n%s\n",
			err.msg, s);
		abort();
	}
	state_free(&st2);
	yamlio_doc_free(&doc2);
	json_decref(t);
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct yamlio_doc doc;
	struct kd_state st;
	struct kd_err err;

	if (yamlio_load_mem((const char *)data, size, "state.yaml", &doc, &err) != 0)
		return 0;
	roundtrip_yaml(doc.root);
	if (state_from_json(doc.root, "state.yaml", &doc, &st, &err) == 0)
		roundtrip_state(&st);
	state_free(&st);
	yamlio_doc_free(&doc);
	return 0;
}
