/*
 * tabular.c - CSV (RFC 4180) and JSON Lines outputs read into a table of
 * numbers and strings (see include/kernodeck/tabular.h).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kernodeck/caps.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/tabular.h"

/* A growing array of strings. */
struct strv {
	char **v;
	size_t n, cap;
};

static int
strv_push(struct strv *s, char *str)
{
	if (str == NULL)
		return -1;
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 16;
		char **nv = realloc(s->v, nc * sizeof *nv);
		if (nv == NULL) {
			free(str);
			return -1;
		}
		s->v = nv;
		s->cap = nc;
	}
	s->v[s->n++] = str;
	return 0;
}

static void
strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* A cell from text: a number when the whole text (spaces aside) parses. */
static int
cell_from_text(struct tab_cell *c, const char *s)
{
	const char *p = s;
	char *end;
	double v;

	c->raw = strdup(s);

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '\0') {
		v = strtod(p, &end);
		while (*end == ' ' || *end == '\t')
			end++;
		if (end != p && *end == '\0' && strncmp(p, "0x", 2) != 0) {
			c->v = v;
			c->s = NULL;
			return 0;
		}
	}
	c->v = NAN;
	c->s = strdup(s);
	return c->s == NULL ? -1 : 0;
}

static int
tab_grow(struct tab *t, size_t rows_cap)
{
	struct tab_cell *nc = realloc(t->cells, rows_cap * t->ncols * sizeof *nc);
	int *nl;

	if (nc == NULL)
		return -1;
	t->cells = nc;
	nl = realloc(t->lines, rows_cap * sizeof *nl);
	if (nl == NULL)
		return -1;
	t->lines = nl;
	return 0;
}

/* Split a CSV record starting at *pos into fields; *line advances over
 * the line breaks it holds.  Returns 1 with a record, 0 at the end, -1 on
 * a malformed record. */
static int
csv_record(const char *b, size_t len, size_t *pos, int *line, struct strv *f,
	   const char **why)
{
	size_t i = *pos;
	char *field = NULL;
	size_t fl = 0, fcap = 0;

	if (i >= len)
		return 0;
	for (;;) {
		int quoted = 0;
		fl = 0;
		if (i < len && b[i] == '"') {
			quoted = 1;
			i++;
		}
		for (;;) {
			char c;
			if (i >= len) {
				if (quoted) {
					*why = "unterminated quoted field";
					free(field);
					return -1;
				}
				break;
			}
			c = b[i];
			if (quoted) {
				if (c == '"') {
					if (i + 1 < len && b[i + 1] == '"') {
						i += 2;
						c = '"';
					} else {
						i++;
						quoted = 2;
						if (i < len && b[i] != ',' && b[i] != '\n' && b[i] != '\r') {
							*why = "text after a closing quote";
							free(field);
							return -1;
						}
						break;
					}
				} else {
					if (c == '\n')
						(*line)++;
					i++;
				}
			} else {
				if (c == ',' || c == '\n' || c == '\r')
					break;
				if (c == '"') {
					*why = "a quote inside an unquoted field";
					free(field);
					return -1;
				}
				i++;
			}
			if (fl + 2 > fcap) {
				size_t nc = fcap ? fcap * 2 : 64;
				char *nf = realloc(field, nc);
				if (nf == NULL) {
					free(field);
					*why = "out of memory";
					return -1;
				}
				field = nf;
				fcap = nc;
			}
			field[fl++] = c;
		}
		if (strv_push(f, strndup(field ? field : "", fl)) != 0) {
			free(field);
			*why = "out of memory";
			return -1;
		}
		if (i < len && b[i] == ',') {
			i++;
			continue;
		}
		if (i < len && b[i] == '\r')
			i++;
		if (i < len && b[i] == '\n')
			i++;
		break;
	}
	free(field);
	*pos = i;
	return 1;
}

int
tab_parse_csv(const char *buf, size_t len, const char *name, struct tab *t,
	      struct kd_err *err)
{
	struct strv f = { 0 };
	size_t pos = 0, cap = 0;
	int line = 1, rc;
	const char *why = NULL;

	memset(t, 0, sizeof *t);
	if (memchr(buf, '\0', len) != NULL)
		return kd_err_set(err, KD_EINPUT, name, 0, "%s: a NUL byte: not a CSV file", name);
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		pos = 3;
	rc = csv_record(buf, len, &pos, &line, &f, &why);
	if (rc <= 0) {
		strv_free(&f);
		return kd_err_set(err, KD_EINPUT, name, 1, "%s",
				  rc == 0 ? "empty CSV file: no header row" : why);
	}
	t->ncols = f.n;
	t->cols = f.v;
	memset(&f, 0, sizeof f);
	line++;
	for (;;) {
		int start = line;
		rc = csv_record(buf, len, &pos, &line, &f, &why);
		if (rc == 0)
			break;
		if (rc < 0) {
			strv_free(&f);
			tab_free(t);
			return kd_err_set(err, KD_EINPUT, name, start, "%s", why);
		}
		line++;
		if (f.n == 1 && f.v[0][0] == '\0' && t->ncols != 1) {
			strv_free(&f);   /* a blank line */
			continue;
		}
		if (f.n != t->ncols) {
			kd_err_set(err, KD_EINPUT, name, start,
				   "%zu fields where the header has %zu", f.n, t->ncols);
			strv_free(&f);
			tab_free(t);
			return KD_EINPUT;
		}
		if (t->nrows == cap) {
			cap = cap ? cap * 2 : 64;
			if (tab_grow(t, cap) != 0) {
				strv_free(&f);
				tab_free(t);
				return kd_err_set(err, KD_EENV, name, 0, "out of memory");
			}
		}
		for (size_t j = 0; j < f.n; j++)
			cell_from_text(&t->cells[t->nrows * t->ncols + j], f.v[j]);
		t->lines[t->nrows++] = start;
		strv_free(&f);
	}
	return 0;
}

int
tab_load_csv(const char *path, struct tab *t, struct kd_err *err)
{
	char *buf;
	size_t len;
	int rc;

	memset(t, 0, sizeof *t);
	if ((rc = fsutil_read_file(path, KD_CAP_TEXT_FILE, &buf, &len, err)) != 0)
		return rc;
	rc = tab_parse_csv(buf, len, path, t, err);
	free(buf);
	return rc;
}

/* The columns of a JSON Lines table from its first object. */
static int
jsonl_columns(const json_t *o, struct strv *cols, struct strv *keys, size_t **widths)
{
	const char *k;
	json_t *v;
	size_t n = 0;

	*widths = calloc(json_object_size(o) + 1, sizeof **widths);
	if (*widths == NULL)
		return -1;
	json_object_foreach((json_t *)o, k, v) {
		if (strv_push(keys, strdup(k)) != 0)
			return -1;
		if (json_is_array(v)) {
			(*widths)[n] = json_array_size(v);
			for (size_t i = 0; i < json_array_size(v); i++) {
				char name[512];
				snprintf(name, sizeof name, "%s[%zu]", k, i);
				if (strv_push(cols, strdup(name)) != 0)
					return -1;
			}
		} else {
			(*widths)[n] = 0;
			if (strv_push(cols, strdup(k)) != 0)
				return -1;
		}
		n++;
	}
	return 0;
}

static int
jsonl_cell(struct tab_cell *c, const json_t *v)
{
	char buf[64];

	c->raw = NULL;
	if (json_is_number(v)) {
		c->v = json_number_value(v);
		c->s = NULL;
	} else if (json_is_boolean(v)) {
		c->v = json_is_true(v);
		c->s = NULL;
	} else if (json_is_null(v)) {
		c->v = NAN;
		c->s = NULL;
	} else if (json_is_string(v)) {
		/* "NaN", "Infinity": how some writers spell non-finite numbers */
		const char *s = json_string_value(v);
		if (strcmp(s, "NaN") == 0 || strcmp(s, "nan") == 0)
			c->v = NAN, c->s = NULL;
		else if (strcmp(s, "Infinity") == 0 || strcmp(s, "inf") == 0)
			c->v = INFINITY, c->s = NULL;
		else if (strcmp(s, "-Infinity") == 0 || strcmp(s, "-inf") == 0)
			c->v = -INFINITY, c->s = NULL;
		else
			c->v = NAN, c->s = strdup(s);
	} else {
		snprintf(buf, sizeof buf, "<%s>", json_is_object(v) ? "object" : "array");
		c->v = NAN;
		c->s = strdup(buf);
	}
	return 0;
}

/* One JSON Lines object into row r; why gets the reason on mismatch. */
static int
jsonl_row(struct tab *t, size_t r, const json_t *o, const struct strv *keys,
	  const size_t *widths, char *why, size_t wlen)
{
	size_t c = 0;

	if (json_object_size(o) != keys->n) {
		snprintf(why, wlen, "%zu keys where the first line has %zu",
			 json_object_size(o), keys->n);
		return -1;
	}
	for (size_t k = 0; k < keys->n; k++) {
		const json_t *v = json_object_get(o, keys->v[k]);
		if (v == NULL) {
			snprintf(why, wlen, "key \"%s\" is missing", keys->v[k]);
			return -1;
		}
		if (widths[k] > 0 || json_is_array(v)) {
			if (!json_is_array(v) || json_array_size(v) != widths[k]) {
				snprintf(why, wlen, "\"%s\" must be an array of %zu values like the first line's",
					 keys->v[k], widths[k]);
				return -1;
			}
			for (size_t i = 0; i < widths[k]; i++)
				jsonl_cell(&t->cells[r * t->ncols + c++], json_array_get(v, i));
		} else {
			jsonl_cell(&t->cells[r * t->ncols + c++], v);
		}
	}
	return 0;
}

int
tab_load_jsonl(const char *path, struct tab *t, struct kd_err *err)
{
	struct strv cols = { 0 }, keys = { 0 };
	size_t *widths = NULL, len, pos = 0, cap = 0;
	char *buf, why[256];
	int rc = 0, line = 0;

	memset(t, 0, sizeof *t);
	if ((rc = fsutil_read_file(path, KD_CAP_TEXT_FILE, &buf, &len, err)) != 0)
		return rc;
	while (pos < len && rc == 0) {
		char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		const char *l = buf + pos;
		json_error_t je;
		json_t *o;

		line++;
		pos += ll + (nl != NULL);
		if (ll > 0 && l[ll - 1] == '\r')
			ll--;
		if (ll == 0 || strspn(l, " \t") >= ll)
			continue;
		if (ll > KD_CAP_JSON_LINE) {
			rc = kd_err_set(err, KD_EINPUT, path, line,
					"line over %u bytes (KD_CAP_JSON_LINE)", KD_CAP_JSON_LINE);
			break;
		}
		o = json_loadb(l, ll, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
		if (!json_is_object(o)) {
			rc = kd_err_set(err, KD_EINPUT, path, line, "%s",
					o ? "not a JSON object" : je.text);
			json_decref(o);
			break;
		}
		if (t->cols == NULL) {
			if (jsonl_columns(o, &cols, &keys, &widths) != 0) {
				rc = kd_err_set(err, KD_EENV, path, 0, "out of memory");
				json_decref(o);
				break;
			}
			t->cols = cols.v;
			t->ncols = cols.n;
			if (t->ncols == 0) {
				rc = kd_err_set(err, KD_EINPUT, path, line, "an empty object");
				json_decref(o);
				break;
			}
		}
		if (t->nrows == cap) {
			cap = cap ? cap * 2 : 64;
			if (tab_grow(t, cap) != 0) {
				rc = kd_err_set(err, KD_EENV, path, 0, "out of memory");
				json_decref(o);
				break;
			}
		}
		memset(&t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof *t->cells);
		if (jsonl_row(t, t->nrows, o, &keys, widths, why, sizeof why) != 0) {
			t->nrows++;   /* so that tab_free releases the partial row */
			rc = kd_err_set(err, KD_EINPUT, path, line, "%s", why);
		} else {
			t->lines[t->nrows++] = line;
		}
		json_decref(o);
	}
	if (rc == 0 && t->cols == NULL)
		rc = kd_err_set(err, KD_EINPUT, path, 0, "%s: no JSON object in the file", path);
	strv_free(&keys);
	free(widths);
	free(buf);
	if (rc != 0)
		tab_free(t);
	return rc;
}

int
tab_column(const struct tab *t, const char *name)
{
	for (size_t j = 0; name != NULL && j < t->ncols; j++)
		if (strcmp(t->cols[j], name) == 0)
			return (int)j;
	return -1;
}

void
tab_free(struct tab *t)
{
	if (t->cells != NULL)
		for (size_t k = 0; k < t->nrows * t->ncols; k++) {
			free(t->cells[k].s);
			free(t->cells[k].raw);
		}
	for (size_t j = 0; t->cols != NULL && j < t->ncols; j++)
		free(t->cols[j]);
	free(t->cols);
	free(t->cells);
	free(t->lines);
	memset(t, 0, sizeof *t);
}
