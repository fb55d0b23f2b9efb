/*
 * tabular.h - CSV and JSON Lines outputs as tables.
 *
 * CSV follows RFC 4180: a header row naming the columns, fields separated
 * by commas, quoted with '"' when they hold a comma, a quote ("" inside)
 * or a line break, lines ending in LF or CRLF.  Every row must have as many
 * fields as the header.  JSON Lines: one JSON object per non-empty line;
 * the first object's keys are the columns and every line must have the
 * same keys; an array of numbers under a key spreads over columns
 * "key[0]", "key[1]"... and must keep its length.
 *
 * A cell is a number (parsed completely, "nan" and "inf" included; JSON
 * booleans are 0/1, null is NaN) or a string.  Files are read within
 * KD_CAP_TEXT_FILE, lines within KD_CAP_JSON_LINE; errors name the file
 * and the line.
 */
#ifndef KD_TABULAR_H
#define KD_TABULAR_H

#include <stddef.h>

#include "kernodeck/err.h"

struct tab_cell {
	double v;      /* NAN when s is set */
	char *s;       /* a non-numeric cell, or NULL */
	char *raw;     /* CSV: the text as written (identifiers keep "007"), or NULL */
};

struct tab {
	size_t nrows, ncols;
	char **cols;             /* ncols names */
	struct tab_cell *cells;  /* nrows * ncols, row-major */
	int *lines;              /* source line of each row */
};

int tab_load_csv(const char *path, struct tab *t, struct kd_err *err);
int tab_load_jsonl(const char *path, struct tab *t, struct kd_err *err);
/* Parse CSV held in memory; name is used in messages. */
int tab_parse_csv(const char *buf, size_t len, const char *name, struct tab *t,
		  struct kd_err *err);
/* Index of a column, or -1. */
int tab_column(const struct tab *t, const char *name);
void tab_free(struct tab *t);

#endif
