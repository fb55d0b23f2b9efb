/*
 * dossier-guard.h - the check at the top of procedure.sh
 * (src/features/dossier-guard.c).
 *
 * procedure.sh is the by-hand path for people without kernodeck, and its
 * environment block and path fields come from dossier.yaml and the
 * reference, which someone else may have edited (and re-signed).  Before
 * it sets or runs anything, the script checks them by the rules replay
 * applies: every variable's name on the allow-list of runenv.h and its
 * value free of control and hidden characters (termout.h's), every path
 * field inside the work folder as contain.h says (no absolute path but a
 * data item's, no "~", no ".." component, no control or hidden
 * character).  A refusal names the variable or field and exits 2 with
 * nothing set; otherwise the script prints every variable it sets, with
 * its value, and only then exports them.
 */
#ifndef KD_DOSSIER_GUARD_H
#define KD_DOSSIER_GUARD_H

#include <jansson.h>

/* The guard as bash text (malloc'd; NULL when out of memory): tree is
 * dossier.yaml's (its environment), ref the reference (its path fields). */
char *dossier_guard_procedure(const json_t *tree, const json_t *ref);

#endif
