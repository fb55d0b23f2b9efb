/*
 * junit.h - the one JUnit XML writer (`check --junit`, `fleet --junit`).
 *
 * A report is built in memory and written atomically at the end:
 *
 *   junit_begin    <?xml ...?> and <testsuites name tests failures errors [skipped]>
 *   junit_suite    <testsuite name tests failures errors skipped>
 *   junit_case     <testcase classname name> with a <failure>, a <skipped/>
 *                  or a <system-out>, or nothing when it passed
 *   junit_suite_end, junit_end
 *
 * Every text is escaped the same way: & < > " ' as entities, a control
 * character but newline and tab as '?', which XML 1.0 cannot hold.  Names
 * given in two parts (a prefix and a name) are written one after the
 * other.
 */
#ifndef KD_JUNIT_H
#define KD_JUNIT_H

#include <stdio.h>
#include <stddef.h>

#include "kernodeck/err.h"

struct kd_junit {
	FILE *fp;      /* the report so far, in memory */
	char *buf;
	size_t len;
};

struct kd_junit_case {
	const char *class_prefix, *class_name;  /* classname="PREFIXNAME" */
	const char *name;
	const char *failure;   /* the failure's message, or NULL: not failed */
	const char *detail;    /* the failure's text; NULL: the message again */
	const char *skipped;   /* why it was skipped, or NULL */
	const char *out;       /* its <system-out> text, or NULL */
};

/* Start a report for path (named in an error): 0, or KD_EENV.  skipped < 0
 * leaves the attribute out of <testsuites>. */
int junit_begin(struct kd_junit *j, const char *path, const char *name, size_t tests,
		size_t failures, long skipped, struct kd_err *err);
/* <testsuite name="PREFIXNAME" ...>, errors always 0. */
void junit_suite(struct kd_junit *j, const char *prefix, const char *name, size_t tests,
		 size_t failures, size_t skipped);
void junit_case(struct kd_junit *j, const struct kd_junit_case *c);
void junit_suite_end(struct kd_junit *j);
/* Close the report and write it to path atomically (fsutil): 0, or the
 * error of the write.  The memory is released either way. */
int junit_end(struct kd_junit *j, const char *path, struct kd_err *err);

#endif
