/*
 * procedure-again.c - test aid: write a dossier's procedure.sh again from
 * its own dossier.yaml and kernodeck/reference.yaml, as replay makes it to
 * compare (dossier_procedure_of), the way anyone who edits a dossier can.
 *
 *   procedure-again DOSSIER
 *
 * Exit 0 when written, 2 when a file cannot be read.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/dossier-text.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/yamlio.h"

int
main(int argc, char **argv)
{
	struct yamlio_doc dy = { 0 }, ref = { 0 };
	struct kd_err err;
	char *a, *b, *p, *text = NULL;
	int rc = 2;

	if (argc != 2) {
		fprintf(stderr, "usage: procedure-again DOSSIER\n");
		return 2;
	}
	a = fsutil_join(argv[1], "dossier.yaml");
	b = fsutil_join(argv[1], "kernodeck/reference.yaml");
	p = fsutil_join(argv[1], "procedure.sh");
	if (yamlio_load_file(a, &dy, &err) == 0 && yamlio_load_file(b, &ref, &err) == 0 &&
	    (text = dossier_procedure_of(dy.root, ref.root)) != NULL &&
	    fsutil_write_atomic(p, text, strlen(text), 0, &err) == 0)
		rc = 0;
	else
		fprintf(stderr, "procedure-again: %s\n", err.msg);
	free(text);
	yamlio_doc_free(&dy);
	yamlio_doc_free(&ref);
	free(a);
	free(b);
	free(p);
	return rc;
}
