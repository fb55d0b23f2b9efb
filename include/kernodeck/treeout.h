/*
 * treeout.h - a parser's tree written out as it is made, in a bounded
 * memory (issue 17, point 19).
 *
 * A text parser (freeze, pip check, requirements) builds one JSON object
 * per line; held for a whole input of short lines, they take about a
 * hundred times the input.  `kernodeck inspect` needs them only to print
 * them, so each top-level array the parser fills is tagged with an id, and
 * the parser appends through treeout_add() with a struct kd_pick: without a
 * pick (NULL) the item goes into the array as before; with one, it goes to
 * the pick's writer when its id is the one wanted, and is dropped otherwise.
 *
 * treeout_print() runs the parser once with nothing wanted (the skeleton:
 * every key in its order, the scalars whole, the arrays empty), then once
 * more for each long array, in the skeleton's order, streaming that array's
 * items (a short one, up to TREEOUT_KEEP items, is kept from a pass made
 * for another).  Parsing is deterministic, so the bytes are those treeout_print_tree
 * gives for the tree the parser builds without a pick; the memory is the
 * input and one line's objects, the time a few passes over the input.
 */
#ifndef KD_TREEOUT_H
#define KD_TREEOUT_H

#include <stdio.h>
#include <jansson.h>

#include "kernodeck/err.h"
#include "kernodeck/format.h"

struct treeout;

#define TREEOUT_MAX_IDS 16
#define TREEOUT_KEEP    512   /* items of one id kept from a pass for later */
#define TREEOUT_KEEP_BYTES (1024u * 1024)   /* and about the bytes of all kept */

struct kd_pick {
	int want;                  /* the id whose items are written; -1: none */
	struct treeout *out;       /* where they go */
	int pass;                  /* 0 for the skeleton, then 1, 2 ... */
	/* each id's items seen in a pass are kept, up to TREEOUT_KEEP, so that a
	 * short array needs no pass of its own */
	int state[TREEOUT_MAX_IDS];
	json_t *kept[TREEOUT_MAX_IDS];
	size_t kept_bytes;         /* of every id's kept items, about */
	void *carry;               /* the parser's own, from the skeleton pass on */
	void (*carry_free)(void *carry);
};

/* Append item (a new reference, NULL ignored) to arr, or hand it to the
 * pick: written when id is the one wanted, kept or dropped otherwise. */
void treeout_add(struct kd_pick *pick, json_t *arr, int id, json_t *item);

/* Items of id are whole only from the second pass on (they depend on what
 * the skeleton pass finds): the parser says so before it adds any. */
void treeout_later(struct kd_pick *pick, int id);

/* Print any tree to fp in fmt (KD_FMT_JSON, else YAML), whole: the
 * reporter's, inspect's, diff's and the fleet's trees. */
void treeout_print_tree(FILE *fp, const json_t *tree, enum kd_format fmt);

/* A parser run with a pick: 0 and the tree in *out, or an error. */
typedef int (*treeout_parse_fn)(void *arg, struct kd_pick *pick, json_t **out,
				struct kd_err *err);

/* Print what parse builds to fp in fmt (KD_FMT_JSON or KD_FMT_YAML), as
 * treeout_print_tree would, streaming the top-level arrays whose keys are
 * ids[0..nids) (ids may repeat a key: that key's items come from each of
 * its ids in turn).  Returns the parser's error, 3 when a write failed. */
int treeout_print(FILE *fp, enum kd_format fmt, treeout_parse_fn parse, void *arg,
		  const char *const *ids, int nids, struct kd_err *err);

#endif
