/*
 * compare.h - the comparison rule of stages 1 and 6 (DESIGN.md section 1).
 *
 * An output and the reference output are held as struct cmp_data: rows x
 * cols elements (the first dimension is the row: one input item), each a
 * number, or a string for the non-numeric cells of a CSV or JSON Lines
 * output, with optional row identifiers.  The rule is one of:
 *
 *   exact       every element equal (strings equal; NaN equal to NaN only
 *               with nan_equal);
 *   tolerance   element-wise |out - ref| <= atol + rtol * |ref| (NumPy's
 *               isclose, ref the reference output); NaN never equal unless
 *               nan_equal, an infinity equal only to the same infinity;
 *               strings must be equal;
 *   metric      cosine-min: the smallest cosine similarity of a row pair is
 *               at least threshold;  exact-categories: the share of equal
 *               elements is at least threshold (1 when not given);
 *               argmax-categories: the share of rows whose largest element
 *               is at the same place is at least threshold (1 when not
 *               given).
 *
 * There is no default tolerance: a tolerance rule without atol and rtol, or
 * a cosine-min metric without a threshold, is refused.
 */
#ifndef KD_COMPARE_H
#define KD_COMPARE_H

#include <stddef.h>
#include <jansson.h>

enum cmp_kind { CMP_EXACT, CMP_TOLERANCE, CMP_METRIC };
enum cmp_metric { CMP_M_NONE, CMP_M_COSINE_MIN, CMP_M_EXACT_CATEGORIES, CMP_M_ARGMAX_CATEGORIES };

struct cmp_rule {
	enum cmp_kind kind;
	double atol, rtol;
	int nan_equal;
	enum cmp_metric metric;
	double threshold;
};

struct cmp_data {
	size_t rows, cols;
	double *v;        /* rows * cols values, row-major */
	char **s;         /* rows * cols strings (NULL entries: numeric), or NULL */
	char **ids;       /* rows identifiers, or NULL */
	char **colnames;  /* cols names, or NULL */
};

struct cmp_report {
	int pass;
	int error;             /* 1: could not compare (why in msg) */
	char msg[512];
	size_t compared;       /* elements */
	size_t mismatched;     /* elements out of tolerance / not equal */
	size_t nan_mismatch;   /* of which NaN where the other side is not */
	double max_abs, max_rel;
	int has_worst;
	size_t worst_row, worst_col;
	double worst_out, worst_ref;
	const char *worst_sout, *worst_sref;  /* borrowed strings, or NULL */
	double metric;         /* cosine-min or share of equal categories */
	size_t metric_row;     /* the row with the smallest cosine / first mismatch */
};

/* Parse a rule tree (result.rule); 0, or -1 with why filled. */
int cmp_rule_parse(const json_t *rule, struct cmp_rule *r, char *why, size_t len);
/* A one-line statement of the rule: "|out - ref| <= 1e-05 + 0.0001*|ref|". */
const char *cmp_rule_str(const struct cmp_rule *r, char *buf, size_t len);
/* Canonical JSON of a rule (keys sorted, compact; malloc'd) and its
 * SHA-256 in hex. */
char *cmp_rule_canonical(const json_t *rule);
void cmp_rule_digest(const json_t *rule, char out[65]);

/* Compare out with ref (same rows and cols required: else error). */
void cmp_run(const struct cmp_rule *r, const struct cmp_data *out,
	     const struct cmp_data *ref, struct cmp_report *rep);
/* The report as a tree; the worst element named by the reference row's id
 * (or its index) and column. */
json_t *cmp_report_json(const struct cmp_rule *r, const struct cmp_report *rep,
			const struct cmp_data *ref);
/* "s07[3]" or "row 6, column 3" for an element, into buf. */
const char *cmp_element_name(const struct cmp_data *d, size_t row, size_t col,
			     char *buf, size_t len);

/* Identifier correspondence. */
struct cmp_ids {
	int ok;
	size_t n_out, n_ref;
	size_t missing, extra, duplicates;
	const char *first_missing, *first_extra, *first_duplicate;  /* borrowed */
	int same_order;
	size_t first_misplaced;    /* ref index of the first id out of order */
	size_t *perm;              /* ref index -> out row (malloc'd) when every ref id is found once */
};
/* Check out_ids against ref_ids: order_set 0 wants the same order, 1 the
 * same set. */
void cmp_ids_check(char *const *out_ids, size_t n_out, char *const *ref_ids,
		   size_t n_ref, int order_set, struct cmp_ids *res);
void cmp_ids_free(struct cmp_ids *res);
/* A copy of d with its rows reordered: row i of the copy is row perm[i]
 * of d (n rows).  ids are taken from new_ids when given. */
int cmp_data_permute(const struct cmp_data *d, const size_t *perm, size_t n,
		     char *const *new_ids, struct cmp_data *outp);
void cmp_data_free(struct cmp_data *d);

struct tab;
/* A table read by tabular.h as comparison data: every column except id_col
 * (-1: none) becomes an element of the row; id_col's cells become the row
 * ids.  0, or -1 when out of memory. */
int cmp_from_tab(const struct tab *t, int id_col, struct cmp_data *d);

#endif
