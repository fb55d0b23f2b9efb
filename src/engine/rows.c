/*
 * rows.c - check rows, a stage run's result and the progress sink (see
 * include/kernodeck/rows.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/rows.h"

#define KD_R_NAME(e, n) n,
static const char *const rstat_names[] = { KD_RSTAT_INFO(KD_R_NAME) };

const char *
kd_rstat_name(enum kd_rstat s)
{
	return (unsigned)s < KD_R__COUNT ? rstat_names[s] : "?";
}

int
kd_rstat_parse(const char *name, enum kd_rstat *out)
{
	for (int i = 0; i < KD_R__COUNT; i++)
		if (name != NULL && strcmp(name, rstat_names[i]) == 0) {
			*out = (enum kd_rstat)i;
			return 0;
		}
	return -1;
}


static char *
dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

struct kd_row *
kd_rows_add(struct kd_rows *rows, const char *id, enum kd_rstat st,
	    const char *label, const char *observed, const char *expected,
	    const char *evidence)
{
	struct kd_row *r;

	if (rows->n == rows->cap) {
		size_t nc = rows->cap ? rows->cap * 2 : 8;
		struct kd_row *nv = realloc(rows->v, nc * sizeof *nv);
		if (nv == NULL)
			abort();
		rows->v = nv;
		rows->cap = nc;
	}
	r = &rows->v[rows->n++];
	memset(r, 0, sizeof *r);
	r->id = strdup(id ? id : "");
	r->status = st;
	r->label = dup_or_null(label ? label : id);
	r->observed = dup_or_null(observed);
	r->expected = dup_or_null(expected);
	r->evidence = dup_or_null(evidence);
	return r;
}

struct kd_row *
kd_rows_addf(struct kd_rows *rows, const char *id, enum kd_rstat st,
	     const char *label, const char *expected, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return kd_rows_add(rows, id, st, label, buf, expected, NULL);
}

void
kd_row_set_error(struct kd_row *row, const char *first_error, const char *hint)
{
	if (first_error != NULL) {
		free(row->first_error);
		row->first_error = strdup(first_error);
	}
	if (hint != NULL) {
		free(row->hint);
		row->hint = strdup(hint);
	}
}

struct kd_row *
kd_rows_fail(struct kd_rows *rows, const char *id, const char *label, const char *observed,
	     const char *expected, const char *first_error, const char *hint)
{
	struct kd_row *r = kd_rows_add(rows, id, KD_R_FAIL, label, observed, expected, NULL);

	kd_row_set_error(r, first_error, hint);
	return r;
}

const struct kd_row *
kd_rows_find(const struct kd_rows *rows, const char *id)
{
	for (size_t i = 0; i < rows->n; i++)
		if (strcmp(rows->v[i].id, id) == 0)
			return &rows->v[i];
	return NULL;
}

static void
row_free(struct kd_row *r)
{
	free(r->id);
	free(r->label);
	free(r->observed);
	free(r->expected);
	free(r->evidence);
	free(r->first_error);
	free(r->hint);
}

void
kd_rows_free(struct kd_rows *rows)
{
	for (size_t i = 0; i < rows->n; i++)
		row_free(&rows->v[i]);
	free(rows->v);
	memset(rows, 0, sizeof *rows);
}

void
kd_rows_copy(struct kd_rows *dst, const struct kd_rows *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct kd_row *s = &src->v[i];
		struct kd_row *d = kd_rows_add(dst, s->id, s->status, s->label, s->observed,
					       s->expected, s->evidence);
		kd_row_set_error(d, s->first_error, s->hint);
	}
}

void
kd_result_init(struct kd_result *res)
{
	memset(res, 0, sizeof *res);
}

void
kd_result_free(struct kd_result *res)
{
	json_decref(res->obs);
	json_decref(res->record);
	kd_rows_free(&res->rows);
	memset(res, 0, sizeof *res);
}

/* The list name of res->record, made when missing. */
static json_t *
record_list(struct kd_result *res, const char *name)
{
	json_t *l;

	if (res->record == NULL)
		res->record = json_object();
	if ((l = json_object_get(res->record, name)) == NULL) {
		l = json_array();
		json_object_set_new(res->record, name, l);
	}
	return l;
}

void
kd_result_set(struct kd_result *res, const char *path, json_t *value)
{
	json_array_append_new(record_list(res, "settings"),
			      json_pack("{s:s, s:o}", "path", path, "value", value));
}

void
kd_result_deviate(struct kd_result *res, const char *check, const char *what,
		  const char *why, const char *author)
{
	json_array_append_new(record_list(res, "deviations"),
			      json_pack("{s:s, s:s?, s:s, s:s}", "check", check, "what", what,
					"why", why, "author", author));
}



void
kd_sink_step(const struct kd_sink *s, const char *step, double fraction)
{
	if (s != NULL && s->on_step != NULL)
		s->on_step(s->u, step, fraction);
}

void
kd_sink_line(const struct kd_sink *s, const char *line)
{
	if (s != NULL && s->on_line != NULL)
		s->on_line(s->u, line, strlen(line));
}

void
kd_sink_print_step(void *u, const char *step, double fraction)
{
	(void)u;
	if (fraction >= 0)
		fprintf(stderr, "  - %s (%.0f%%)\n", step, fraction * 100);
	else
		fprintf(stderr, "  - %s\n", step);
}

int
kd_sink_cancelled(const struct kd_sink *s)
{
	return s != NULL && s->cancelled != NULL && s->cancelled(s->u);
}

