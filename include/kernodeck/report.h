/*
 * report.h - the headless reporter: the same rows the walkthrough shows,
 * printed as text, YAML or JSON, and as JUnit XML for CI.
 */
#ifndef KD_REPORT_H
#define KD_REPORT_H

#include <stdio.h>
#include <jansson.h>

#include "kernodeck/ctx.h"
#include "kernodeck/format.h"

int report_parse_format(const char *s, enum kd_format *out);
/* The report of stages [0, upto] (or only `only` when >= 0) as a tree. */
json_t *report_tree(const struct kd_ctx *ctx, int only, int upto);
void report_print(FILE *fp, const struct kd_ctx *ctx, int only, int upto, enum kd_format fmt);
int report_junit(const char *path, const struct kd_ctx *ctx, int only, int upto, struct kd_err *err);

#endif
