/*
 * outputs.h - one output file of the sample (stage 6), whatever its format
 * (npy, safetensors, csv, jsonl), read into comparison data and described:
 * format, dtype, shape, element count, NaN and infinite values, min, max,
 * mean.
 *
 * Rows are the first dimension (one input item each); the remaining
 * dimensions are flattened into the row.  A CSV or JSON Lines output has
 * one row per record; its identifier column (or key) becomes the row ids
 * and is not part of the values; its shape is [records, value columns]
 * and its dtype "number" when every value cell is numeric, else "mixed".
 */
#ifndef KD_OUTPUTS_H
#define KD_OUTPUTS_H

#include <jansson.h>

#include "kernodeck/compare.h"
#include "kernodeck/err.h"

struct kd_output {
	json_t *desc;           /* {file, format, dtype, shape, count, nan, posinf, neginf, min, max, mean} */
	struct cmp_data data;
};

/* The format of a file from its name (".npy" ...), or NULL. */
const char *output_format_of(const char *path);
/* Read path as format (NULL: from its name).  tensor: the safetensors
 * tensor to read (NULL: the only one, else the first by offset).  id_col:
 * the CSV column or JSON Lines key holding identifiers, or NULL. */
int output_load(const char *path, const char *format, const char *tensor,
		const char *id_col, struct kd_output *o, struct kd_err *err);
void output_free(struct kd_output *o);
/* Read an identifiers file: one per line (trailing CR and a final empty
 * line ignored).  Returns the count, ids in a malloc'd array of strings. */
int output_read_ids(const char *path, char ***ids, size_t *n, struct kd_err *err);
void output_free_ids(char **ids, size_t n);

#endif
