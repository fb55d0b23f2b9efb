/*
 * obs-keys.c - `obs-keys FOLDER`: for each observation file in the
 * kernodeck folder FOLDER, every key its obs-*.h header declares (src/obs.c)
 * is there with its type, unless it is marked KD_OBS_OPT and absent or null.  One
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
#include "kernodeck/yamlio.h"

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
			if ((n == NULL || json_is_null(n)) && (k->flags & KD_OBS_OPT))
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
	return bad;
}
