/*
 * obs-keys.c - `obs-keys FOLDER`: for each observation file in the
 * kernodeck folder FOLDER, every key its obs-*.h header declares (src/engine/obs.c)
 * is there with its type, unless it is marked KD_OBS_OPT and absent or null,
 * or lies below such a key that is absent or null (an optional subtree:
 * "pip_check" KD_OBS_OPT makes "pip_check.status" required only where
 * pip_check is there).  One
 * TAP-like line per problem on stdout; exit 0 when none, 1 otherwise, 2
 * when a file cannot be read.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/err.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/obs.h"
#include "kernodeck/obs-files.h"
#include "kernodeck/yamlio.h"

/* Whether n is absent or null. */
static int
absent(const json_t *n)
{
	return n == NULL || json_is_null(n);
}

/* Whether key k of f lies below a KD_OBS_OPT key of f that is absent from root. */
static int
under_absent_opt(const json_t *root, const struct kd_obs_file *f, const struct kd_obs_key *k)
{
	for (const struct kd_obs_key *o = f->keys; o->path != NULL; o++) {
		size_t n = strlen(o->path);
		if (o != k && (o->flags & KD_OBS_OPT) && strncmp(k->path, o->path, n) == 0 &&
		    (k->path[n] == '.' || k->path[n] == '[') && absent(yamlio_get(root, o->path)))
			return 1;
	}
	return 0;
}

/* The element lists (kd_obs_elems): each element of the array, or each
 * value of the mapping, at the entry's path has every key of the list not
 * marked KD_OBS_OPT, with its type.  1 on a problem, 2 when a file cannot
 * be read; *nkeys counts the keys declared. */
static int
check_elems(const char *folder, int *nkeys)
{
	int bad = 0;

	for (const struct kd_obs_elems *e = kd_obs_elems; e->file != NULL; e++) {
		char *path = fsutil_join(folder, e->file), buf[2200];
		struct yamlio_doc doc = { 0 };
		struct kd_err err = { 0 };
		const json_t *c, *el;
		void *it;

		if (path == NULL || yamlio_load_file(path, &doc, &err) != 0) {
			fprintf(stderr, "obs-keys: %s\n", kd_err_format(&err, buf, sizeof buf));
			free(path);
			return 2;
		}
		c = yamlio_get(doc.root, e->path);
		it = json_is_object(c) ? json_object_iter((json_t *)c) : NULL;
		for (size_t i = 0;; i++) {
			if (json_is_array(c))
				el = json_array_get(c, i);
			else
				el = it ? json_object_iter_value(it) : NULL;
			if (el == NULL)
				break;
			for (const struct kd_obs_key *k = e->keys; k->path != NULL; k++) {
				const json_t *n = yamlio_get(el, k->path);
				if (i == 0)
					(*nkeys)++;
				if ((n == NULL || json_is_null(n)) && (k->flags & KD_OBS_OPT))
					continue;
				if (!obs_type_ok(n, k->type)) {
					printf("%s: %s, element %zu: %s: %s\n", e->file, e->path, i,
					       k->path, n == NULL ? "missing" : "not of type");
					bad = 1;
				}
			}
			if (it != NULL)
				it = json_object_iter_next((json_t *)c, it);
		}
		yamlio_doc_free(&doc);
		free(path);
	}
	return bad;
}

int
main(int argc, char **argv)
{
	int bad = 0, nkeys = 0;

	if (argc != 2) {
		fputs("usage: obs-keys KERNODECK_FOLDER\n", stderr);
		return 2;
	}
	for (const struct kd_obs_file *f = kd_obs_files; f->file != NULL; f++) {
		char *path = fsutil_join(argv[1], f->file), buf[2200];
		struct yamlio_doc doc = { 0 };
		struct kd_err err = { 0 };

		if (path == NULL || yamlio_load_file(path, &doc, &err) != 0) {
			fprintf(stderr, "obs-keys: %s\n", kd_err_format(&err, buf, sizeof buf));
			free(path);
			return 2;
		}
		for (const struct kd_obs_key *k = f->keys; k->path != NULL; k++) {
			const json_t *n = yamlio_get(doc.root, k->path);
			nkeys++;
			if (absent(n) && ((k->flags & KD_OBS_OPT) || under_absent_opt(doc.root, f, k)))
				continue;
			if (!obs_type_ok(n, k->type)) {
				printf("%s: %s: %s\n", f->file, k->path,
				       n == NULL ? "missing" : "not of type");
				bad = 1;
			}
		}
		yamlio_doc_free(&doc);
		free(path);
	}
	printf("%d keys declared\n", nkeys);
	nkeys = 0;
	switch (check_elems(argv[1], &nkeys)) {
	case 2:
		return 2;
	case 1:
		bad = 1;
		break;
	}
	printf("%d element keys checked (of the lists with elements)\n", nkeys);
	return bad;
}
