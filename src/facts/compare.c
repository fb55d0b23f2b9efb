/*
 * compare.c - the comparison rule (see include/kernodeck/compare.h): rule
 * parsing and digest, element-wise and metric comparisons, and the
 * correspondence of row identifiers.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "kernodeck/compare.h"
#include "kernodeck/tabular.h"

static int
num_or_null(const json_t *v, double *out, int *given)
{
	*given = 0;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_number(v))
		return -1;
	*out = json_number_value(v);
	*given = 1;
	return 0;
}

int
cmp_rule_parse(const json_t *rule, struct cmp_rule *r, char *why, size_t len)
{
	const char *kind, *metric;
	const json_t *ne;
	int ga, gr, gt;

	memset(r, 0, sizeof *r);
	if (!json_is_object(rule)) {
		snprintf(why, len, "no comparison rule is declared (result.rule)");
		return -1;
	}
	kind = json_string_value(json_object_get(rule, "kind"));
	ne = json_object_get(rule, "nan_equal");
	if (ne != NULL && !json_is_null(ne) && !json_is_boolean(ne)) {
		snprintf(why, len, "result.rule.nan_equal must be true or false");
		return -1;
	}
	r->nan_equal = json_is_true(ne);
	if (kind == NULL) {
		snprintf(why, len, "result.rule.kind is not declared (exact, tolerance or metric)");
		return -1;
	}
	if (num_or_null(json_object_get(rule, "atol"), &r->atol, &ga) != 0 ||
	    num_or_null(json_object_get(rule, "rtol"), &r->rtol, &gr) != 0 ||
	    num_or_null(json_object_get(rule, "threshold"), &r->threshold, &gt) != 0) {
		snprintf(why, len, "result.rule: atol, rtol and threshold must be numbers");
		return -1;
	}
	if (strcmp(kind, "exact") == 0) {
		r->kind = CMP_EXACT;
		return 0;
	}
	if (strcmp(kind, "tolerance") == 0) {
		r->kind = CMP_TOLERANCE;
		if (!ga && !gr) {
			snprintf(why, len, "a tolerance rule needs atol and/or rtol: there is no default");
			return -1;
		}
		if (r->atol < 0 || r->rtol < 0 || isnan(r->atol) || isnan(r->rtol)) {
			snprintf(why, len, "atol and rtol must be non-negative");
			return -1;
		}
		return 0;
	}
	if (strcmp(kind, "metric") != 0) {
		snprintf(why, len, "unknown rule kind \"%s\" (exact, tolerance or metric)", kind);
		return -1;
	}
	r->kind = CMP_METRIC;
	metric = json_string_value(json_object_get(rule, "metric"));
	if (metric == NULL) {
		snprintf(why, len, "a metric rule needs result.rule.metric (cosine-min, exact-categories, argmax-categories)");
		return -1;
	}
	if (strcmp(metric, "cosine-min") == 0) {
		r->metric = CMP_M_COSINE_MIN;
		if (!gt) {
			snprintf(why, len, "cosine-min needs a threshold: there is no default");
			return -1;
		}
	} else if (strcmp(metric, "exact-categories") == 0 ||
		   strcmp(metric, "argmax-categories") == 0) {
		r->metric = metric[0] == 'e' ? CMP_M_EXACT_CATEGORIES : CMP_M_ARGMAX_CATEGORIES;
		if (!gt)
			r->threshold = 1.0;
	} else {
		snprintf(why, len, "unknown metric \"%s\" (cosine-min, exact-categories, argmax-categories)",
			 metric);
		return -1;
	}
	return 0;
}

const char *
cmp_rule_str(const struct cmp_rule *r, char *buf, size_t len)
{
	const char *nan = r->nan_equal ? ", NaN equals NaN" : "";

	switch (r->kind) {
	case CMP_EXACT:
		snprintf(buf, len, "exact equality%s", nan);
		break;
	case CMP_TOLERANCE:
		snprintf(buf, len, "|out - ref| <= %g + %g*|ref|%s", r->atol, r->rtol, nan);
		break;
	case CMP_METRIC:
		if (r->metric == CMP_M_COSINE_MIN)
			snprintf(buf, len, "cosine similarity of every row >= %g", r->threshold);
		else if (r->metric == CMP_M_EXACT_CATEGORIES)
			snprintf(buf, len, "share of equal categories >= %g", r->threshold);
		else
			snprintf(buf, len, "share of rows with the same argmax >= %g", r->threshold);
		break;
	}
	return buf;
}

char *
cmp_rule_canonical(const json_t *rule)
{
	return json_dumps(rule ? rule : json_null(),
			  JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
}

void
cmp_rule_digest(const json_t *rule, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char *s = cmp_rule_canonical(rule);

	out[0] = '\0';
	if (s == NULL)
		return;
	if (EVP_Digest(s, strlen(s), md, &mdlen, EVP_sha256(), NULL) == 1)
		for (unsigned i = 0; i < mdlen && i < 32; i++)
			snprintf(out + 2 * i, 3, "%02x", md[i]);
	free(s);
}

const char *
cmp_element_name(const struct cmp_data *d, size_t row, size_t col, char *buf, size_t len)
{
	const char *id = d->ids ? d->ids[row] : NULL;

	if (d->colnames != NULL && id != NULL)
		snprintf(buf, len, "%s, %s", id, d->colnames[col]);
	else if (d->colnames != NULL)
		snprintf(buf, len, "row %zu, %s", row, d->colnames[col]);
	else if (id != NULL)
		snprintf(buf, len, "%s[%zu]", id, col);
	else
		snprintf(buf, len, "row %zu, element %zu", row, col);
	return buf;
}

static const char *
cell_str(const struct cmp_data *d, size_t k)
{
	return d->s != NULL ? d->s[k] : NULL;
}

/* Does one element pair agree under the rule?  *ratio gets how far it is
 * from the bound (> 1 out of tolerance) for ranking the worst element. */
static int
element_ok(const struct cmp_rule *r, double o, double f, const char *so,
	   const char *sf, double *ratio, int *nanmis)
{
	double d, tol;

	*nanmis = 0;
	if (so != NULL || sf != NULL) {
		int eq = so != NULL && sf != NULL && strcmp(so, sf) == 0;
		*ratio = eq ? 0 : INFINITY;
		return eq;
	}
	if (isnan(o) || isnan(f)) {
		int eq = isnan(o) && isnan(f) && r->nan_equal;
		*nanmis = !(isnan(o) && isnan(f));
		*ratio = eq ? 0 : INFINITY;
		return eq;
	}
	if (isinf(o) || isinf(f)) {
		*ratio = o == f ? 0 : INFINITY;
		return o == f;
	}
	d = fabs(o - f);
	if (r->kind == CMP_EXACT || r->kind == CMP_METRIC) {
		*ratio = d == 0 ? 0 : INFINITY;
		return d == 0;
	}
	tol = r->atol + r->rtol * fabs(f);
	*ratio = tol > 0 ? d / tol : (d == 0 ? 0 : INFINITY);
	return d <= tol;
}

static void
compare_elements(const struct cmp_rule *r, const struct cmp_data *out,
		 const struct cmp_data *ref, struct cmp_report *rep)
{
	double worst = -1;
	size_t n = out->rows * out->cols;

	for (size_t k = 0; k < n; k++) {
		double o = out->v[k], f = ref->v[k], ratio;
		const char *so = cell_str(out, k), *sf = cell_str(ref, k);
		int nanmis;
		int ok = element_ok(r, o, f, so, sf, &ratio, &nanmis);

		rep->compared++;
		if (!ok)
			rep->mismatched++;
		rep->nan_mismatch += (size_t)nanmis;
		if (so == NULL && sf == NULL && isfinite(o) && isfinite(f)) {
			double d = fabs(o - f);
			double rel = f != 0 ? d / fabs(f) : (d == 0 ? 0 : INFINITY);
			if (d > rep->max_abs)
				rep->max_abs = d;
			if (rel > rep->max_rel)
				rep->max_rel = rel;
		}
		if (ratio > worst) {
			worst = ratio;
			rep->has_worst = 1;
			rep->worst_row = k / out->cols;
			rep->worst_col = k % out->cols;
			rep->worst_out = o;
			rep->worst_ref = f;
			rep->worst_sout = so;
			rep->worst_sref = sf;
		}
	}
}

/* Cosine similarity of every row pair; the smallest wins.  A row with a
 * NaN, or a string, has no similarity (counted as -infinity). */
static void
compare_cosine(const struct cmp_rule *r, const struct cmp_data *out,
	       const struct cmp_data *ref, struct cmp_report *rep)
{
	rep->metric = INFINITY;
	for (size_t i = 0; i < out->rows; i++) {
		double dot = 0, na = 0, nb = 0, c;
		for (size_t j = 0; j < out->cols; j++) {
			size_t k = i * out->cols + j;
			double a = out->v[k], b = ref->v[k];
			if (cell_str(out, k) || cell_str(ref, k))
				a = b = NAN;
			dot += a * b;
			na += a * a;
			nb += b * b;
		}
		if (isnan(dot) || isnan(na) || isnan(nb) || isinf(na) || isinf(nb))
			c = -INFINITY;
		else if (na > 0 && nb > 0)
			c = dot / (sqrt(na) * sqrt(nb));
		else
			c = (na == 0 && nb == 0) ? 1.0 : 0.0;
		rep->compared += out->cols;
		if (!(c >= r->threshold))
			rep->mismatched++;
		if (c < rep->metric) {
			rep->metric = c;
			rep->metric_row = i;
		}
	}
	if (out->rows == 0)
		rep->metric = 1.0;
	rep->pass = rep->mismatched == 0;
}

/* Share of rows whose largest element sits at the same column. */
static size_t
row_argmax(const struct cmp_data *d, size_t i)
{
	size_t best = 0;

	for (size_t j = 1; j < d->cols; j++) {
		double v = d->v[i * d->cols + j], b = d->v[i * d->cols + best];
		if (v > b || (isnan(b) && !isnan(v)))
			best = j;
	}
	return best;
}

static void
compare_categories(const struct cmp_rule *r, const struct cmp_data *out,
		   const struct cmp_data *ref, struct cmp_report *rep)
{
	size_t total, equal = 0;
	int first = 1;

	if (r->metric == CMP_M_ARGMAX_CATEGORIES) {
		total = out->rows;
		for (size_t i = 0; i < out->rows; i++) {
			size_t a = row_argmax(out, i), b = row_argmax(ref, i);
			rep->compared += out->cols;
			if (a == b) {
				equal++;
				continue;
			}
			rep->mismatched++;
			if (first) {
				first = 0;
				rep->metric_row = i;
				rep->has_worst = 1;
				rep->worst_row = i;
				rep->worst_col = a;
				rep->worst_out = (double)a;
				rep->worst_ref = (double)b;
			}
		}
	} else {
		struct cmp_rule exact = *r;
		exact.kind = CMP_EXACT;
		compare_elements(&exact, out, ref, rep);
		total = rep->compared;
		equal = rep->compared - rep->mismatched;
		rep->metric_row = rep->worst_row;
	}
	rep->metric = total ? (double)equal / (double)total : 1.0;
	rep->pass = rep->metric >= r->threshold;
}

void
cmp_run(const struct cmp_rule *r, const struct cmp_data *out,
	const struct cmp_data *ref, struct cmp_report *rep)
{
	memset(rep, 0, sizeof *rep);
	if (out->rows != ref->rows || out->cols != ref->cols) {
		rep->error = 1;
		snprintf(rep->msg, sizeof rep->msg,
			 "cannot compare: the output has %zu rows of %zu elements, the reference %zu rows of %zu",
			 out->rows, out->cols, ref->rows, ref->cols);
		return;
	}
	if (r->kind == CMP_METRIC && r->metric == CMP_M_COSINE_MIN) {
		compare_cosine(r, out, ref, rep);
		return;
	}
	if (r->kind == CMP_METRIC) {
		compare_categories(r, out, ref, rep);
		return;
	}
	compare_elements(r, out, ref, rep);
	rep->pass = rep->mismatched == 0;
}

static json_t *
num_json(double v)
{
	if (isnan(v))
		return json_string("nan");
	if (isinf(v))
		return json_string(v > 0 ? "inf" : "-inf");
	return json_real(v);
}

json_t *
cmp_report_json(const struct cmp_rule *r, const struct cmp_report *rep,
		const struct cmp_data *ref)
{
	json_t *o = json_object();
	char buf[512];

	json_object_set_new(o, "rule", json_string(cmp_rule_str(r, buf, sizeof buf)));
	json_object_set_new(o, "pass", json_boolean(rep->pass && !rep->error));
	if (rep->error) {
		json_object_set_new(o, "error", json_string(rep->msg));
		return o;
	}
	json_object_set_new(o, "compared", json_integer((json_int_t)rep->compared));
	json_object_set_new(o, "out_of_tolerance", json_integer((json_int_t)rep->mismatched));
	json_object_set_new(o, "nan_mismatch", json_integer((json_int_t)rep->nan_mismatch));
	json_object_set_new(o, "max_abs_error", num_json(rep->max_abs));
	json_object_set_new(o, "max_rel_error", num_json(rep->max_rel));
	if (r->kind == CMP_METRIC) {
		json_object_set_new(o, "metric", num_json(rep->metric));
		json_object_set_new(o, "threshold", json_real(r->threshold));
		if (ref->ids != NULL && rep->metric_row < ref->rows)
			json_object_set_new(o, "worst_row", json_string(ref->ids[rep->metric_row]));
		else
			json_object_set_new(o, "worst_row", json_integer((json_int_t)rep->metric_row));
	}
	if (rep->has_worst && !(r->kind == CMP_METRIC && r->metric == CMP_M_COSINE_MIN)) {
		json_t *w = json_object();
		json_object_set_new(w, "element",
				    json_string(cmp_element_name(ref, rep->worst_row, rep->worst_col,
								 buf, sizeof buf)));
		json_object_set_new(w, "row", json_integer((json_int_t)rep->worst_row));
		json_object_set_new(w, "column", json_integer((json_int_t)rep->worst_col));
		if (ref->ids != NULL)
			json_object_set_new(w, "id", json_string(ref->ids[rep->worst_row]));
		json_object_set_new(w, "out", rep->worst_sout ? json_string(rep->worst_sout)
				    : num_json(rep->worst_out));
		json_object_set_new(w, "ref", rep->worst_sref ? json_string(rep->worst_sref)
				    : num_json(rep->worst_ref));
		json_object_set_new(o, "worst", w);
	}
	return o;
}

/* --- identifiers --- */

struct idref {
	const char *s;
	size_t i;
};

static int
idref_cmp(const void *a, const void *b)
{
	const struct idref *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	if (c != 0)
		return c;
	return x->i < y->i ? -1 : x->i > y->i;
}

static struct idref *
sorted_ids(char *const *ids, size_t n)
{
	struct idref *v = calloc(n ? n : 1, sizeof *v);

	if (v == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		v[i].s = ids[i] ? ids[i] : "";
		v[i].i = i;
	}
	qsort(v, n, sizeof *v, idref_cmp);
	return v;
}

/* Index of s in a sorted idref array, first occurrence, or -1. */
static long
find_id(const struct idref *v, size_t n, const char *s)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(v[mid].s, s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && strcmp(v[lo].s, s) == 0 ? (long)lo : -1;
}

void
cmp_ids_check(char *const *out_ids, size_t n_out, char *const *ref_ids,
	      size_t n_ref, int order_set, struct cmp_ids *res)
{
	struct idref *so = sorted_ids(out_ids, n_out), *sr = sorted_ids(ref_ids, n_ref);
	size_t *perm = calloc(n_ref ? n_ref : 1, sizeof *perm);

	memset(res, 0, sizeof *res);
	res->n_out = n_out;
	res->n_ref = n_ref;
	res->same_order = 1;
	if (so == NULL || sr == NULL || perm == NULL) {
		free(so);
		free(sr);
		free(perm);
		return;
	}
	for (size_t i = 1; i < n_out; i++)
		if (strcmp(so[i].s, so[i - 1].s) == 0 && res->duplicates++ == 0)
			res->first_duplicate = so[i].s;
	for (size_t i = 0; i < n_ref; i++) {
		long k = find_id(so, n_out, ref_ids[i] ? ref_ids[i] : "");
		if (k < 0) {
			if (res->missing++ == 0)
				res->first_missing = ref_ids[i];
			res->same_order = 0;
			continue;
		}
		perm[i] = so[k].i;
		if (perm[i] != i && res->same_order) {
			res->same_order = 0;
			res->first_misplaced = i;
		}
	}
	for (size_t i = 0; i < n_out; i++)
		if (find_id(sr, n_ref, out_ids[i] ? out_ids[i] : "") < 0 && res->extra++ == 0)
			res->first_extra = out_ids[i];
	if (n_out != n_ref)
		res->same_order = 0;
	res->ok = res->missing == 0 && res->extra == 0 && res->duplicates == 0 &&
		  n_out == n_ref && (order_set || res->same_order);
	if (res->missing == 0 && res->duplicates == 0)
		res->perm = perm;
	else
		free(perm);
	free(so);
	free(sr);
}

void
cmp_ids_free(struct cmp_ids *res)
{
	free(res->perm);
	res->perm = NULL;
}

static char **
strv_dup(char *const *v, size_t n)
{
	char **c = calloc(n ? n : 1, sizeof *c);

	if (c == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		c[i] = v[i] ? strdup(v[i]) : NULL;
	return c;
}

int
cmp_data_permute(const struct cmp_data *d, const size_t *perm, size_t n,
		 char *const *new_ids, struct cmp_data *o)
{
	size_t total = n * d->cols;

	memset(o, 0, sizeof *o);
	o->rows = n;
	o->cols = d->cols;
	o->v = calloc(total > 0 ? total : 1, sizeof *o->v);
	if (o->v == NULL)
		return -1;
	if (d->s != NULL && (o->s = calloc(total > 0 ? total : 1, sizeof *o->s)) == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		size_t src = perm ? perm[i] : i;
		if (src >= d->rows)
			return -1;
		memcpy(o->v + i * d->cols, d->v + src * d->cols, d->cols * sizeof *o->v);
		for (size_t j = 0; d->s != NULL && j < d->cols; j++) {
			const char *s = d->s[src * d->cols + j];
			o->s[i * d->cols + j] = s ? strdup(s) : NULL;
		}
	}
	if (new_ids != NULL)
		o->ids = strv_dup(new_ids, n);
	else if (d->ids != NULL) {
		o->ids = calloc(n ? n : 1, sizeof *o->ids);
		for (size_t i = 0; o->ids != NULL && i < n; i++)
			o->ids[i] = strdup(d->ids[perm ? perm[i] : i]);
	}
	if (d->colnames != NULL)
		o->colnames = strv_dup(d->colnames, d->cols);
	return 0;
}

void
cmp_data_free(struct cmp_data *d)
{
	if (d->s != NULL)
		for (size_t k = 0; k < d->rows * d->cols; k++)
			free(d->s[k]);
	if (d->ids != NULL)
		for (size_t i = 0; i < d->rows; i++)
			free(d->ids[i]);
	if (d->colnames != NULL)
		for (size_t j = 0; j < d->cols; j++)
			free(d->colnames[j]);
	free(d->v);
	free(d->s);
	free(d->ids);
	free(d->colnames);
	memset(d, 0, sizeof *d);
}

/* See compare.h. */
int
cmp_from_tab(const struct tab *t, int id_col, struct cmp_data *d)
{
	size_t cols = t->ncols - (id_col >= 0 ? 1 : 0), n = t->nrows * cols;

	memset(d, 0, sizeof *d);
	d->rows = t->nrows;
	d->cols = cols;
	d->v = calloc(n ? n : 1, sizeof *d->v);
	d->s = calloc(n ? n : 1, sizeof *d->s);
	d->colnames = calloc(cols ? cols : 1, sizeof *d->colnames);
	if (id_col >= 0)
		d->ids = calloc(t->nrows ? t->nrows : 1, sizeof *d->ids);
	if (d->v == NULL || d->s == NULL || d->colnames == NULL || (id_col >= 0 && d->ids == NULL)) {
		cmp_data_free(d);
		return -1;
	}
	for (size_t j = 0, c = 0; j < t->ncols; j++)
		if ((int)j != id_col)
			d->colnames[c++] = strdup(t->cols[j]);
	for (size_t i = 0; i < t->nrows; i++) {
		size_t c = 0;
		for (size_t j = 0; j < t->ncols; j++) {
			const struct tab_cell *cell = &t->cells[i * t->ncols + j];
			if ((int)j == id_col) {
				char num[64];
				if (cell->s == NULL)
					snprintf(num, sizeof num, "%.17g", cell->v);
				d->ids[i] = strdup(cell->raw ? cell->raw : cell->s ? cell->s : num);
				continue;
			}
			d->v[i * cols + c] = cell->v;
			d->s[i * cols + c] = cell->s ? strdup(cell->s) : NULL;
			c++;
		}
	}
	return 0;
}
