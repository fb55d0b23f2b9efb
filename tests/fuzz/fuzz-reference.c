/*
 * fuzz-reference.c - reference.yaml as stage 1 reads it: yamlio_load_mem,
 * its identity (canonical dump, SHA-256), and stage 1's checks on the tree
 * (reference_check_rows), once with no observations and once with the tree
 * itself standing for the observations, so that the check code meets
 * hostile shapes on both sides.  The project folder does not exist, so the
 * only file the checks may read (the inventory) is never found.
 *
 * Property: the identity is stable across a save and a load (the canonical
 * dump loads back to a tree with the same identity).
 */
#include "config.h"

#include "fuzz.h"
#include "kernodeck/ctx.h"
#include "kernodeck/reference.h"

static void
check_identity(const json_t *root)
{
	char id1[65], id2[65];
	struct yamlio_doc doc2;
	struct kd_err err;
	size_t n;
	char *s = yamlio_dump(root, YAMLIO_SORT_KEYS, &n);

	kd_ref_identity(root, id1);
	if (yamlio_load_mem(s, n, "<canonical>", &doc2, &err) != 0) {
		fprintf(stderr, "canonical form does not load: %s\n%s\n", err.msg, s);
		abort();
	}
	kd_ref_identity(doc2.root, id2);
	if (strcmp(id1, id2) != 0) {
		fprintf(stderr, "identity changes across a save:\n%s\n", s);
		abort();
	}
	yamlio_doc_free(&doc2);
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char project[] = "/nonexistent/kernodeck-fuzz/project";
	static char state_dir[] = "/nonexistent/kernodeck-fuzz/project/kernodeck";
	struct kd_ctx ctx;
	struct yamlio_doc doc;
	struct kd_rows rows;
	struct kd_err err;
	json_t *obs;
	char seg[64];
	const char *paths[] = { "system.driver", "system.cuda", "data[0].url",
				"python.inventory", "result", "code.commit" };
	size_t i;

	if (yamlio_load_mem((const char *)data, size, "reference.yaml", &doc, &err) != 0)
		return 0;
	check_identity(doc.root);

	memset(&ctx, 0, sizeof ctx);
	ctx.project_dir = project;
	ctx.state_dir = state_dir;
	ctx.ref = doc.root;
	for (i = 0; i < sizeof paths / sizeof paths[0]; i++)
		(void)reference_na(doc.root, paths[i]);
	if (json_is_object(doc.root)) {
		const char *k;
		json_t *v;
		json_object_foreach(doc.root, k, v) {
			if (json_is_string(v)) {
				(void)reference_is_floating(json_string_value(v));
				(void)reference_url_floating(json_string_value(v), seg, sizeof seg);
			}
		}
	}

	memset(&rows, 0, sizeof rows);
	obs = json_object();
	(void)reference_check_rows(&ctx, doc.root, obs, &rows);
	kd_rows_free(&rows);
	json_decref(obs);

	memset(&rows, 0, sizeof rows);
	(void)reference_check_rows(&ctx, doc.root, doc.root, &rows);
	kd_rows_free(&rows);

	yamlio_doc_free(&doc);
	return 0;
}
