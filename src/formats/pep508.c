/*
 * pep508.c - environment markers checked by the PEP 508 grammar
 * (pep508.h): a small recursive descent over the text, no evaluation.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernodeck/pep508.h"

#define PEP508_MAX_DEPTH 32   /* parentheses inside one another */

struct mk {
	const char *p;
	char *why;
	size_t len;
	int depth;
};

static const char *const variables[] = {
	"python_version", "python_full_version", "os_name", "sys_platform",
	"platform_release", "platform_system", "platform_version", "platform_machine",
	"platform_python_implementation", "implementation_name", "implementation_version",
	"extra",
};

static int refuse(struct mk *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
refuse(struct mk *m, const char *fmt, ...)
{
	va_list ap;

	if (m->why[0] == '\0') {
		va_start(ap, fmt);
		vsnprintf(m->why, m->len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static void
skip_ws(struct mk *m)
{
	while (*m->p == ' ' || *m->p == '\t')
		m->p++;
}

/* Is the word w (n bytes) at the cursor, followed by no name character? */
static int
at_word(const struct mk *m, const char *w)
{
	size_t n = strlen(w);

	return strncmp(m->p, w, n) == 0 && !isalnum((unsigned char)m->p[n]) &&
	       m->p[n] != '_' && m->p[n] != '.';
}

enum { V_NONE, V_VAR, V_STR };

/* A variable or a quoted string; its kind, or V_NONE with why. */
static int
value(struct mk *m)
{
	char word[64];
	size_t n = 0;

	skip_ws(m);
	if (*m->p == '"' || *m->p == '\'') {
		const char *end = strchr(m->p + 1, *m->p);
		if (end == NULL)
			return refuse(m, "a string not closed in the marker: %s", m->p), V_NONE;
		m->p = end + 1;
		return V_STR;
	}
	while (isalnum((unsigned char)m->p[n]) || m->p[n] == '_' || m->p[n] == '.')
		n++;
	if (n == 0) {
		refuse(m, *m->p ? "expected a variable or a quoted string at \"%.40s\"" :
		       "the marker ends where a variable or a quoted string is expected%.0s", m->p);
		return V_NONE;
	}
	snprintf(word, sizeof word, "%.*s", (int)(n < 63 ? n : 63), m->p);
	for (size_t i = 0; i < sizeof variables / sizeof *variables; i++)
		if (strcmp(word, variables[i]) == 0) {
			m->p += n;
			return V_VAR;
		}
	if (isdigit((unsigned char)word[0]))
		refuse(m, "the version %s is not quoted (write it in quotes: \"3.8\")", word);
	else
		refuse(m, "%s is not a marker variable", word);
	return V_NONE;
}

/* A comparison operator; 0 or -1. */
static int
op(struct mk *m)
{
	static const char *const ops[] = { "===", "<=", ">=", "!=", "==", "~=", "<", ">" };

	skip_ws(m);
	for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
		if (strncmp(m->p, ops[i], strlen(ops[i])) == 0) {
			m->p += strlen(ops[i]);
			return 0;
		}
	if (at_word(m, "in")) {
		m->p += 2;
		return 0;
	}
	if (at_word(m, "not")) {
		m->p += 3;
		skip_ws(m);
		if (at_word(m, "in")) {
			m->p += 2;
			return 0;
		}
		return refuse(m, "\"not\" must be followed by \"in\"");
	}
	return refuse(m, *m->p ? "expected a comparison (==, <, in, ...) at \"%.40s\"" :
		      "the marker ends where a comparison is expected%.0s", m->p);
}

static int marker_or(struct mk *m);

static int
expr(struct mk *m)
{
	int a, b;

	skip_ws(m);
	if (*m->p == '(') {
		if (++m->depth > PEP508_MAX_DEPTH)
			return refuse(m, "parentheses nested too deep");
		m->p++;
		if (marker_or(m) != 0)
			return -1;
		skip_ws(m);
		if (*m->p != ')')
			return refuse(m, "a parenthesis is not closed");
		m->p++;
		m->depth--;
		return 0;
	}
	if ((a = value(m)) == V_NONE || op(m) != 0 || (b = value(m)) == V_NONE)
		return -1;
	if (a == b)
		return refuse(m, "a comparison needs a variable on one side and a quoted string "
			      "on the other");
	return 0;
}

static int
marker_and(struct mk *m)
{
	if (expr(m) != 0)
		return -1;
	for (;;) {
		skip_ws(m);
		if (!at_word(m, "and"))
			return 0;
		m->p += 3;
		if (expr(m) != 0)
			return -1;
	}
}

static int
marker_or(struct mk *m)
{
	if (marker_and(m) != 0)
		return -1;
	for (;;) {
		skip_ws(m);
		if (!at_word(m, "or"))
			return 0;
		m->p += 2;
		if (marker_and(m) != 0)
			return -1;
	}
}

int
pep508_marker_check(const char *s, char *why, size_t len)
{
	struct mk m = { .p = s, .why = why, .len = len };

	why[0] = '\0';
	if (marker_or(&m) != 0)
		return -1;
	skip_ws(&m);
	if (*m.p == ';')
		return refuse(&m, "a second ';' (a requirement has one marker)");
	if (*m.p == ')')
		return refuse(&m, "a ')' without its '('");
	if (*m.p != '\0')
		return refuse(&m, "unexpected \"%.40s\" after the marker", m.p);
	return 0;
}
