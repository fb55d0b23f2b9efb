/*
 * junit.c - the one JUnit XML writer: see junit.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/junit.h"

/* XML text with the five special characters escaped. */
static void
xml_put(FILE *fp, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&apos;", fp); break;
		default:
			fputc((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t' ? '?' : *s, fp);
		}
	}
}

int
junit_begin(struct kd_junit *j, const char *path, const char *name, size_t tests,
	    size_t failures, long skipped, struct kd_err *err)
{
	j->buf = NULL;
	j->len = 0;
	if ((j->fp = open_memstream(&j->buf, &j->len)) == NULL)
		return kd_err_sys(err, KD_EENV, path, errno, "cannot build %s", path);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"", j->fp);
	xml_put(j->fp, name);
	fprintf(j->fp, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\"", tests, failures);
	if (skipped >= 0)
		fprintf(j->fp, " skipped=\"%ld\"", skipped);
	fputs(">\n", j->fp);
	return 0;
}

void
junit_suite(struct kd_junit *j, const char *prefix, const char *name, size_t tests,
	    size_t failures, size_t skipped)
{
	fputs("  <testsuite name=\"", j->fp);
	xml_put(j->fp, prefix);
	xml_put(j->fp, name);
	fprintf(j->fp, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n", tests,
		failures, skipped);
}

void
junit_case(struct kd_junit *j, const struct kd_junit_case *c)
{
	fputs("    <testcase classname=\"", j->fp);
	xml_put(j->fp, c->class_prefix);
	xml_put(j->fp, c->class_name);
	fputs("\" name=\"", j->fp);
	xml_put(j->fp, c->name);
	fputs("\">", j->fp);
	if (c->failure != NULL) {
		fputs("<failure message=\"", j->fp);
		xml_put(j->fp, c->failure);
		fputs("\">", j->fp);
		xml_put(j->fp, c->detail ? c->detail : c->failure);
		fputs("</failure>", j->fp);
	} else if (c->skipped != NULL) {
		fputs("<skipped message=\"", j->fp);
		xml_put(j->fp, c->skipped);
		fputs("\"/>", j->fp);
	} else if (c->out != NULL) {
		fputs("<system-out>", j->fp);
		xml_put(j->fp, c->out);
		fputs("</system-out>", j->fp);
	}
	fputs("</testcase>\n", j->fp);
}

void
junit_suite_end(struct kd_junit *j)
{
	fputs("  </testsuite>\n", j->fp);
}

int
junit_end(struct kd_junit *j, const char *path, struct kd_err *err)
{
	int rc;

	fputs("</testsuites>\n", j->fp);
	fclose(j->fp);
	j->fp = NULL;
	rc = fsutil_write_atomic(path, j->buf, j->len, 0, err);
	free(j->buf);
	j->buf = NULL;
	return rc;
}
