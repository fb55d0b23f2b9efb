/*
 * toml.c - a TOML 1.0 reader (toml.h), written against the specification
 * (https://toml.io/en/v1.0.0) for the lock files kernodeck reads.
 *
 * One pass over the text: a recursive descent for values, and for the
 * table structure a side table that remembers how each object of the tree
 * came to be (a [header], [[array]] element, dotted key, parent of a
 * header, inline table) and which arrays are static (written as values):
 * the specification's rules on defining a table once are checked
 * against it.
 */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/caps.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/toml.h"

/* How an object or array of the tree was made. */
enum {
	TF_HEADER = 0x01,   /* [a.b]: defined by its header */
	TF_IMPLICIT = 0x02, /* a parent of a header: may get its own header once */
	TF_DOTTED = 0x04,   /* made by a dotted key: no header for it later */
	TF_INLINE = 0x08,   /* an inline table: closed */
	TF_AOT = 0x10,      /* an array of tables ([[a]]) */
	TF_STATIC = 0x20,   /* an array written as a value: closed */
};

struct tmark {
	const void *node;
	unsigned flags;
};

struct tp {
	const char *p, *end, *name;
	int line;
	struct kd_err *err;
	int depth;
	struct tmark *marks;   /* open addressing, by pointer */
	size_t nmarks, capmarks;
	int failed;
};

/* ---- the side table ---- */

static size_t
mark_slot(const struct tp *t, const void *node)
{
	uintptr_t h = (uintptr_t)node;

	h ^= h >> 17;
	h *= 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 7) & (t->capmarks - 1);
}

static int
mark_set(struct tp *t, const void *node, unsigned flags)
{
	size_t i;

	if ((t->nmarks + 1) * 2 > t->capmarks) {
		size_t cap = t->capmarks ? t->capmarks * 2 : 64, n = t->capmarks;
		struct tmark *old = t->marks;
		t->marks = calloc(cap, sizeof *t->marks);
		if (t->marks == NULL) {
			t->marks = old;
			return -1;
		}
		t->capmarks = cap;
		for (i = 0; i < n; i++)
			if (old[i].node != NULL) {
				size_t s = mark_slot(t, old[i].node);
				while (t->marks[s].node != NULL)
					s = (s + 1) & (cap - 1);
				t->marks[s] = old[i];
			}
		free(old);
	}
	i = mark_slot(t, node);
	while (t->marks[i].node != NULL && t->marks[i].node != node)
		i = (i + 1) & (t->capmarks - 1);
	if (t->marks[i].node == NULL)
		t->nmarks++;
	t->marks[i].node = node;
	t->marks[i].flags = flags;
	return 0;
}

static unsigned
mark_get(const struct tp *t, const void *node)
{
	size_t i;

	if (t->capmarks == 0)
		return 0;
	i = mark_slot(t, node);
	while (t->marks[i].node != NULL) {
		if (t->marks[i].node == node)
			return t->marks[i].flags;
		i = (i + 1) & (t->capmarks - 1);
	}
	return 0;
}

/* ---- errors and characters ---- */

static int
fail(struct tp *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
fail(struct tp *t, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (t->failed)
		return -1;
	t->failed = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	kd_err_set(t->err, KD_EINPUT, t->name, t->line, "%s", msg);
	return -1;
}

static int
at_end(const struct tp *t)
{
	return t->p >= t->end;
}

static int
peek(const struct tp *t)
{
	return t->p < t->end ? (unsigned char)*t->p : -1;
}

static int
peek_at(const struct tp *t, size_t k)
{
	return t->p + k < t->end ? (unsigned char)t->p[k] : -1;
}

static int
is_bare(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Is c a digit of base (16, 10, 8 or 2)? */
static int
is_base_digit(int c, int base)
{
	if (base == 16)
		return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
	return is_digit(c) && c - '0' < base;
}

/* Spaces and tabs. */
static void
skip_ws(struct tp *t)
{
	while (!at_end(t) && (*t->p == ' ' || *t->p == '\t'))
		t->p++;
}

/* The length of the UTF-8 sequence at s (up to end), or 0 when it is not
 * valid UTF-8 (overlong, surrogate, over U+10FFFF, cut short). */
static size_t
utf8_len(const unsigned char *s, const unsigned char *end, uint32_t *cp)
{
	size_t n, i;
	uint32_t c = s[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
		c &= 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		c &= 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		c &= 0x07;
	} else {
		return 0;
	}
	if ((size_t)(end - s) < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	if ((n == 3 && (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF))) ||
	    (n == 4 && (c < 0x10000 || c > 0x10FFFF)))
		return 0;
	*cp = c;
	return n;
}

/* Step over one character of a comment or a string body, refusing control
 * characters (tab allowed) and invalid UTF-8.  what names the place. */
static int
take_char(struct tp *t, const char *what)
{
	uint32_t cp;
	size_t n = utf8_len((const unsigned char *)t->p, (const unsigned char *)t->end, &cp);

	if (n == 0)
		return fail(t, "invalid UTF-8 in %s", what);
	if ((cp < 0x20 && cp != '\t') || cp == 0x7F)
		return fail(t, "control character U+%04X in %s", (unsigned)cp, what);
	t->p += n;
	return 0;
}

/* A newline (LF or CRLF) at the cursor: step over it and count it. */
static int
take_newline(struct tp *t)
{
	if (peek(t) == '\n') {
		t->p++;
		t->line++;
		return 1;
	}
	if (peek(t) == '\r' && peek_at(t, 1) == '\n') {
		t->p += 2;
		t->line++;
		return 1;
	}
	return 0;
}

static int
skip_comment(struct tp *t)
{
	if (peek(t) != '#')
		return 0;
	t->p++;
	while (!at_end(t) && *t->p != '\n' && !(*t->p == '\r' && peek_at(t, 1) == '\n'))
		if (take_char(t, "a comment") != 0)
			return -1;
	return 0;
}

/* After a key/value pair or a header: spaces, a comment, then a newline or
 * the end. */
static int
end_of_line(struct tp *t)
{
	skip_ws(t);
	if (skip_comment(t) != 0)
		return -1;
	if (at_end(t) || take_newline(t))
		return 0;
	if (peek(t) == '\r')
		return fail(t, "a carriage return not followed by a newline");
	return fail(t, "expected the end of the line, found '%c'", peek(t) >= 0x20 &&
		    peek(t) < 0x7F ? peek(t) : '?');
}

/* Spaces, comments and newlines (inside an array). */
static int
skip_ws_nl(struct tp *t)
{
	for (;;) {
		skip_ws(t);
		if (skip_comment(t) != 0)
			return -1;
		if (!take_newline(t))
			break;
	}
	if (peek(t) == '\r')
		return fail(t, "a carriage return not followed by a newline");
	return 0;
}

/* ---- strings ---- */

struct sbuf {
	char *s;
	size_t n, cap;
};

static int
sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *ns;
		while (cap < b->n + n + 1)
			cap *= 2;
		ns = realloc(b->s, cap);
		if (ns == NULL)
			return -1;
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
	return 0;
}

static int
sb_cp(struct sbuf *b, uint32_t c)
{
	char u[4];
	size_t n;

	if (c < 0x80) {
		u[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xC0 | (c >> 6));
		u[1] = (char)(0x80 | (c & 0x3F));
		n = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xE0 | (c >> 12));
		u[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		u[2] = (char)(0x80 | (c & 0x3F));
		n = 3;
	} else {
		u[0] = (char)(0xF0 | (c >> 18));
		u[1] = (char)(0x80 | ((c >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((c >> 6) & 0x3F));
		u[3] = (char)(0x80 | (c & 0x3F));
		n = 4;
	}
	return sb_add(b, u, n);
}

/* An escape after the backslash of a basic string. */
static int
escape(struct tp *t, struct sbuf *b)
{
	int c = peek(t), k, digits;
	uint32_t cp = 0;

	t->p++;
	switch (c) {
	case 'b': return sb_add(b, "\b", 1);
	case 't': return sb_add(b, "\t", 1);
	case 'n': return sb_add(b, "\n", 1);
	case 'f': return sb_add(b, "\f", 1);
	case 'r': return sb_add(b, "\r", 1);
	case '"': return sb_add(b, "\"", 1);
	case '\\': return sb_add(b, "\\", 1);
	case 'u':
	case 'U':
		digits = c == 'u' ? 4 : 8;
		for (k = 0; k < digits; k++) {
			int h = peek(t);
			if (is_digit(h))
				cp = cp * 16 + (uint32_t)(h - '0');
			else if (h >= 'a' && h <= 'f')
				cp = cp * 16 + (uint32_t)(h - 'a' + 10);
			else if (h >= 'A' && h <= 'F')
				cp = cp * 16 + (uint32_t)(h - 'A' + 10);
			else
				return fail(t, "\\%c needs %d hexadecimal digits", c, digits);
			t->p++;
		}
		if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return fail(t, "\\%c%0*X is not a Unicode scalar value", c, digits,
				    (unsigned)cp);
		return sb_cp(b, cp);
	default:
		t->p--;
		return fail(t, "invalid escape \\%c in a string", c >= 0x20 && c < 0x7F ? c : '?');
	}
}

/* A string of any of the four kinds, the cursor on its first quote. */
static int
parse_string(struct tp *t, struct sbuf *b, int allow_multi)
{
	char q = *t->p;
	int multi = allow_multi && peek_at(t, 1) == q && peek_at(t, 2) == q;
	int start = t->line;

	t->p += multi ? 3 : 1;
	if (multi)
		take_newline(t);   /* a newline right after the opening is trimmed */
	if (sb_add(b, "", 0) != 0)
		return fail(t, "out of memory");
	for (;;) {
		if (at_end(t)) {
			t->line = start;
			return fail(t, "string not closed");
		}
		int c = peek(t);
		if (c == q) {
			if (!multi) {
				t->p++;
				return 0;
			}
			if (peek_at(t, 1) == q && peek_at(t, 2) == q) {
				/* up to two more quotes belong to the body */
				size_t extra = 0;
				while (extra < 2 && peek_at(t, 3 + extra) == q)
					extra++;
				if (peek_at(t, 3 + extra) == q)
					return fail(t, "three quotes inside a multi-line string");
				if (sb_add(b, t->p, extra) != 0)
					return fail(t, "out of memory");
				t->p += 3 + extra;
				return 0;
			}
			if (sb_add(b, t->p, 1) != 0)
				return fail(t, "out of memory");
			t->p++;
			continue;
		}
		if (c == '\n' || c == '\r') {
			if (!multi)
				return fail(t, "newline in a single-line string");
			if (!take_newline(t))
				return fail(t, "a carriage return not followed by a newline");
			if (sb_add(b, "\n", 1) != 0)
				return fail(t, "out of memory");
			continue;
		}
		if (c == '\\' && q == '"') {
			if (multi) {
				/* a line-ending backslash: trim the whitespace and newlines after it */
				const char *s = t->p + 1;
				while (s < t->end && (*s == ' ' || *s == '\t'))
					s++;
				if (s < t->end && (*s == '\n' || (*s == '\r' && s + 1 < t->end &&
								   s[1] == '\n'))) {
					t->p = s;
					while (take_newline(t) || peek(t) == ' ' || peek(t) == '\t')
						if (peek(t) == ' ' || peek(t) == '\t')
							t->p++;
					continue;
				}
			}
			t->p++;
			if (at_end(t))
				return fail(t, "string not closed");
			if (escape(t, b) != 0)
				return -1;
			continue;
		}
		{
			const char *s = t->p;
			if (take_char(t, "a string") != 0)
				return -1;
			if (sb_add(b, s, (size_t)(t->p - s)) != 0)
				return fail(t, "out of memory");
		}
	}
}

/* ---- keys ---- */

#define KEY_MAX 64    /* parts of one dotted key */

struct key {
	char *part[KEY_MAX];
	size_t n;
};

static void
key_free(struct key *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->part[i]);
	k->n = 0;
}

static int
parse_key(struct tp *t, struct key *k)
{
	k->n = 0;
	for (;;) {
		struct sbuf b = { 0 };
		skip_ws(t);
		if (k->n == KEY_MAX) {
			key_free(k);
			return fail(t, "a key of more than %d parts", KEY_MAX);
		}
		if (peek(t) == '"' || peek(t) == '\'') {
			if (parse_string(t, &b, 0) != 0) {
				free(b.s);
				key_free(k);
				return -1;
			}
		} else if (is_bare(peek(t))) {
			const char *s = t->p;
			while (is_bare(peek(t)))
				t->p++;
			if (sb_add(&b, s, (size_t)(t->p - s)) != 0) {
				key_free(k);
				return fail(t, "out of memory");
			}
		} else {
			key_free(k);
			return fail(t, "expected a key");
		}
		if (strlen(b.s) != b.n) {
			free(b.s);
			key_free(k);
			return fail(t, "a key holding a NUL character (\\u0000)");
		}
		k->part[k->n++] = b.s;
		skip_ws(t);
		if (peek(t) != '.')
			return 0;
		t->p++;
	}
}

/* ---- scalars ---- */

/* Digits with single underscores between them, of the base (10, 16, 8,
 * 2), into buf without the underscores.  0, or -1. */
static int
take_digits(struct tp *t, int base, char *buf, size_t cap, size_t *n)
{
	int prev_digit = 0;

	for (;;) {
		int c = peek(t);
		if (c == '_') {
			t->p++;
			if (!prev_digit || !is_base_digit(peek(t), base))
				return fail(t, "an underscore must stand between two digits");
			prev_digit = 0;
			continue;
		}
		if (!is_base_digit(c, base))
			break;
		if (*n + 2 >= cap)
			return fail(t, "a number of more than %zu digits", cap - 2);
		buf[(*n)++] = (char)c;
		t->p++;
		prev_digit = 1;
	}
	buf[*n] = '\0';
	return 0;
}

/* Is the text at the cursor a date or a time (dddd- or dd:)? */
static int
looks_like_datetime(const struct tp *t)
{
	return (is_digit(peek_at(t, 0)) && is_digit(peek_at(t, 1)) && is_digit(peek_at(t, 2)) &&
		is_digit(peek_at(t, 3)) && peek_at(t, 4) == '-') ||
	       (is_digit(peek_at(t, 0)) && is_digit(peek_at(t, 1)) && peek_at(t, 2) == ':');
}

static int
take_fixed(struct tp *t, int digits, int *v)
{
	*v = 0;
	for (int i = 0; i < digits; i++) {
		if (!is_digit(peek(t)))
			return -1;
		*v = *v * 10 + (peek(t) - '0');
		t->p++;
	}
	return 0;
}

/* HH:MM:SS[.frac] */
static int
take_time(struct tp *t)
{
	int h, m, s;

	if (take_fixed(t, 2, &h) || peek(t) != ':' || (t->p++, take_fixed(t, 2, &m)) ||
	    peek(t) != ':' || (t->p++, take_fixed(t, 2, &s)))
		return fail(t, "a time must be HH:MM:SS");
	if (h > 23 || m > 59 || s > 60)
		return fail(t, "time %02d:%02d:%02d does not exist", h, m, s);
	if (peek(t) == '.') {
		t->p++;
		if (!is_digit(peek(t)))
			return fail(t, "a fraction of a second needs digits");
		while (is_digit(peek(t)))
			t->p++;
	}
	return 0;
}

/* A date-time, local date or local time, as a string. */
static json_t *
parse_datetime(struct tp *t)
{
	const char *start = t->p;
	int y, mo, d;
	char *s;
	json_t *j;

	if (peek_at(t, 2) == ':') {
		if (take_time(t) != 0)
			return NULL;
	} else {
		static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
		if (take_fixed(t, 4, &y) || peek(t) != '-' || (t->p++, take_fixed(t, 2, &mo)) ||
		    peek(t) != '-' || (t->p++, take_fixed(t, 2, &d))) {
			fail(t, "a date must be YYYY-MM-DD");
			return NULL;
		}
		if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
		    (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))) {
			fail(t, "date %04d-%02d-%02d does not exist", y, mo, d);
			return NULL;
		}
		if (peek(t) == 'T' || peek(t) == 't' ||
		    (peek(t) == ' ' && is_digit(peek_at(t, 1)))) {
			t->p++;
			if (take_time(t) != 0)
				return NULL;
			if (peek(t) == 'Z' || peek(t) == 'z') {
				t->p++;
			} else if (peek(t) == '+' || peek(t) == '-') {
				int oh, om;
				t->p++;
				if (take_fixed(t, 2, &oh) || peek(t) != ':' ||
				    (t->p++, take_fixed(t, 2, &om)) || oh > 23 || om > 59) {
					fail(t, "a time offset must be +HH:MM or -HH:MM");
					return NULL;
				}
			}
		}
	}
	if (is_bare(peek(t)) || peek(t) == '.' || peek(t) == ':') {
		fail(t, "unexpected '%c' after a date or time", peek(t));
		return NULL;
	}
	s = strndup(start, (size_t)(t->p - start));
	if (s == NULL)
		return NULL;
	for (char *c = s; *c; c++)
		if (*c == 't' || *c == 'z' || (*c == ' ' && c > s))
			*c = *c == 'z' ? 'Z' : 'T';
	j = json_string(s);
	free(s);
	return j;
}

/* An integer or a float (the cursor on a sign, a digit, inf or nan). */
static json_t *
parse_number(struct tp *t)
{
	char buf[512];
	size_t n = 0;
	int sign = 0;

	if (peek(t) == '+' || peek(t) == '-') {
		sign = peek(t);
		buf[n++] = (char)sign;
		t->p++;
	}
	if ((peek(t) == 'i' && peek_at(t, 1) == 'n' && peek_at(t, 2) == 'f') ||
	    (peek(t) == 'n' && peek_at(t, 1) == 'a' && peek_at(t, 2) == 'n')) {
		int inf = peek(t) == 'i';
		t->p += 3;
		if (is_bare(peek(t))) {
			fail(t, "not a value");
			return NULL;
		}
		return json_string(inf ? (sign == '-' ? "-inf" : "inf") : "nan");
	}
	if (peek(t) == '0' && (peek_at(t, 1) == 'x' || peek_at(t, 1) == 'o' ||
			       peek_at(t, 1) == 'b')) {
		int base = peek_at(t, 1) == 'x' ? 16 : peek_at(t, 1) == 'o' ? 8 : 2;
		size_t m = 0;
		unsigned long long v;
		if (sign) {
			fail(t, "a hexadecimal, octal or binary integer takes no sign");
			return NULL;
		}
		t->p += 2;
		if (peek(t) == '_') {
			fail(t, "an underscore must stand between two digits");
			return NULL;
		}
		if (take_digits(t, base, buf, sizeof buf, &m) != 0)
			return NULL;
		if (m == 0) {
			fail(t, "an integer prefix without digits");
			return NULL;
		}
		errno = 0;
		v = strtoull(buf, NULL, base);
		if (errno != 0 || v > INT64_MAX) {
			fail(t, "integer out of the 64-bit range");
			return NULL;
		}
		if (is_bare(peek(t)) || peek(t) == '.') {
			fail(t, "unexpected '%c' in a number", peek(t));
			return NULL;
		}
		return json_integer((json_int_t)v);
	}
	{
		size_t int_start = n;
		int is_float = 0;
		if (!is_digit(peek(t))) {
			fail(t, "not a value");
			return NULL;
		}
		if (take_digits(t, 10, buf, sizeof buf, &n) != 0)
			return NULL;
		if (n - int_start > 1 && buf[int_start] == '0') {
			fail(t, "a number with a leading zero");
			return NULL;
		}
		if (peek(t) == '.') {
			is_float = 1;
			buf[n++] = '.';
			t->p++;
			if (!is_digit(peek(t))) {
				fail(t, "a decimal point needs digits on both sides");
				return NULL;
			}
			if (take_digits(t, 10, buf, sizeof buf, &n) != 0)
				return NULL;
		}
		if (peek(t) == 'e' || peek(t) == 'E') {
			is_float = 1;
			buf[n++] = 'e';
			t->p++;
			if (peek(t) == '+' || peek(t) == '-') {
				buf[n++] = (char)peek(t);
				t->p++;
			}
			if (!is_digit(peek(t))) {
				fail(t, "an exponent needs digits");
				return NULL;
			}
			if (take_digits(t, 10, buf, sizeof buf, &n) != 0)
				return NULL;
		}
		if (is_bare(peek(t)) || peek(t) == '.') {
			fail(t, "unexpected '%c' in a number", peek(t));
			return NULL;
		}
		errno = 0;
		if (is_float) {
			/* the walkthrough sets the user's locale: read with the C one */
			locale_t c_loc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
			double v = c_loc ? strtod_l(buf, NULL, c_loc) : strtod(buf, NULL);
			if (c_loc)
				freelocale(c_loc);
			if (errno == ERANGE && (v > 1 || v < -1)) {
				fail(t, "float out of range");
				return NULL;
			}
			return json_real(v);
		} else {
			long long v = strtoll(buf, NULL, 10);
			if (errno == ERANGE) {
				fail(t, "integer out of the 64-bit range");
				return NULL;
			}
			return json_integer((json_int_t)v);
		}
	}
}

/* ---- tables ---- */

static json_t *parse_value(struct tp *t);

/* Set key's last part to value in table, walking (and making) the dotted
 * parts.  value is stolen. */
static int
set_dotted(struct tp *t, json_t *table, const struct key *k, json_t *value)
{
	json_t *cur = table;

	for (size_t i = 0; i + 1 < k->n; i++) {
		json_t *next = json_object_get(cur, k->part[i]);
		if (next == NULL) {
			next = json_object();
			if (next == NULL || json_object_set_new(cur, k->part[i], next) != 0 ||
			    mark_set(t, next, TF_DOTTED) != 0) {
				json_decref(value);
				return fail(t, "out of memory");
			}
		} else {
			unsigned f = mark_get(t, next);
			if (!json_is_object(next) || (f & (TF_INLINE | TF_HEADER | TF_IMPLICIT)) ||
			    !(f & TF_DOTTED)) {
				json_decref(value);
				return fail(t, "key '%s' is already defined", k->part[i]);
			}
		}
		cur = next;
	}
	if (json_object_get(cur, k->part[k->n - 1]) != NULL) {
		json_decref(value);
		return fail(t, "key '%s' is defined twice", k->part[k->n - 1]);
	}
	if (json_object_set_new(cur, k->part[k->n - 1], value) != 0)
		return fail(t, "out of memory");
	return 0;
}

/* key = value (the cursor on the key), into table. */
static int
parse_keyval(struct tp *t, json_t *table)
{
	struct key k;
	json_t *v;
	int rc;

	if (parse_key(t, &k) != 0)
		return -1;
	skip_ws(t);
	if (peek(t) != '=') {
		key_free(&k);
		return fail(t, "expected '=' after a key");
	}
	t->p++;
	skip_ws(t);
	v = parse_value(t);
	if (v == NULL) {
		key_free(&k);
		return fail(t, "expected a value");
	}
	rc = set_dotted(t, table, &k, v);
	key_free(&k);
	return rc;
}

static json_t *
parse_inline_table(struct tp *t)
{
	json_t *tab = json_object();

	t->p++;   /* { */
	if (tab == NULL || mark_set(t, tab, TF_INLINE) != 0)
		goto oom;
	skip_ws(t);
	if (peek(t) == '}') {
		t->p++;
		return tab;
	}
	for (;;) {
		skip_ws(t);
		if (parse_keyval(t, tab) != 0)
			goto bad;
		skip_ws(t);
		if (peek(t) == ',') {
			t->p++;
			skip_ws(t);
			if (peek(t) == '}') {
				fail(t, "a trailing comma in an inline table");
				goto bad;
			}
			continue;
		}
		if (peek(t) == '}') {
			t->p++;
			break;
		}
		fail(t, "expected ',' or '}' in an inline table");
		goto bad;
	}
	/* the tables its dotted keys made are closed as well */
	{
		json_t *stack[KEY_MAX + 1];
		size_t sp = 0;
		stack[sp++] = tab;
		while (sp > 0) {
			json_t *o = stack[--sp], *v;
			const char *key;
			json_object_foreach(o, key, v)
				if (json_is_object(v) && (mark_get(t, v) & TF_DOTTED)) {
					mark_set(t, v, TF_INLINE);
					if (sp < KEY_MAX + 1)
						stack[sp++] = v;
				}
		}
	}
	return tab;
oom:
	fail(t, "out of memory");
bad:
	json_decref(tab);
	return NULL;
}

static json_t *
parse_array(struct tp *t)
{
	json_t *arr = json_array();

	t->p++;   /* [ */
	if (arr == NULL || mark_set(t, arr, TF_STATIC) != 0) {
		fail(t, "out of memory");
		json_decref(arr);
		return NULL;
	}
	for (;;) {
		json_t *v;
		if (skip_ws_nl(t) != 0)
			goto bad;
		if (peek(t) == ']') {
			t->p++;
			return arr;
		}
		v = parse_value(t);
		if (v == NULL) {
			fail(t, "expected a value or ']' in an array");
			goto bad;
		}
		json_array_append_new(arr, v);
		if (skip_ws_nl(t) != 0)
			goto bad;
		if (peek(t) == ',') {
			t->p++;
			continue;
		}
		if (peek(t) == ']') {
			t->p++;
			return arr;
		}
		fail(t, "expected ',' or ']' in an array");
		goto bad;
	}
bad:
	json_decref(arr);
	return NULL;
}

/* A value at the cursor; NULL with the error set (or left for the caller
 * to set). */
static json_t *
parse_value(struct tp *t)
{
	int c = peek(t);
	json_t *v = NULL;

	if (++t->depth > KD_CAP_TOML_DEPTH) {
		fail(t, "arrays and inline tables nested more than %d deep", KD_CAP_TOML_DEPTH);
		t->depth--;
		return NULL;
	}
	if (c == '"' || c == '\'') {
		struct sbuf b = { 0 };
		if (parse_string(t, &b, 1) == 0) {
			v = json_stringn(b.s, b.n);
			if (v == NULL)
				fail(t, "out of memory");
		}
		free(b.s);
	} else if (c == '[') {
		v = parse_array(t);
	} else if (c == '{') {
		v = parse_inline_table(t);
	} else if (c == 't' && t->end - t->p >= 4 && memcmp(t->p, "true", 4) == 0 &&
		   !is_bare(peek_at(t, 4))) {
		t->p += 4;
		v = json_true();
	} else if (c == 'f' && t->end - t->p >= 5 && memcmp(t->p, "false", 5) == 0 &&
		   !is_bare(peek_at(t, 5))) {
		t->p += 5;
		v = json_false();
	} else if (looks_like_datetime(t)) {
		v = parse_datetime(t);
	} else if (c == '+' || c == '-' || is_digit(c) || c == 'i' || c == 'n') {
		v = parse_number(t);
	}
	t->depth--;
	return v;
}

/* The table a [header] or [[header]] names, made or checked (see the
 * specification's "Table" and "Array of Tables"). */
static json_t *
open_header(struct tp *t, json_t *root, const struct key *k, int aot)
{
	json_t *cur = root;

	for (size_t i = 0; i < k->n; i++) {
		json_t *next = json_object_get(cur, k->part[i]);
		int last = i + 1 == k->n;
		unsigned f;
		if (next == NULL) {
			if (last && aot) {
				json_t *arr = json_array(), *tab = json_object();
				if (arr == NULL || tab == NULL || json_array_append_new(arr, tab) != 0 ||
				    json_object_set_new(cur, k->part[i], arr) != 0 ||
				    mark_set(t, arr, TF_AOT) != 0 || mark_set(t, tab, TF_HEADER) != 0) {
					fail(t, "out of memory");
					return NULL;
				}
				return tab;
			}
			next = json_object();
			if (next == NULL || json_object_set_new(cur, k->part[i], next) != 0 ||
			    mark_set(t, next, last ? TF_HEADER : TF_IMPLICIT) != 0) {
				fail(t, "out of memory");
				return NULL;
			}
			cur = next;
			continue;
		}
		f = mark_get(t, next);
		if (json_is_array(next)) {
			if (!(f & TF_AOT)) {
				fail(t, "'%s' is an array written as a value: no table can be added "
				     "to it", k->part[i]);
				return NULL;
			}
			if (last && aot) {
				json_t *tab = json_object();
				if (tab == NULL || json_array_append_new(next, tab) != 0 ||
				    mark_set(t, tab, TF_HEADER) != 0) {
					fail(t, "out of memory");
					return NULL;
				}
				return tab;
			}
			if (last) {
				fail(t, "'%s' is an array of tables: [%s] cannot define it", k->part[i],
				     k->part[i]);
				return NULL;
			}
			cur = json_array_get(next, json_array_size(next) - 1);
			continue;
		}
		if (!json_is_object(next) || (f & TF_INLINE)) {
			fail(t, "key '%s' is already defined as a value", k->part[i]);
			return NULL;
		}
		if (last) {
			if (aot) {
				fail(t, "'%s' is a table: [[%s]] cannot append to it", k->part[i],
				     k->part[i]);
				return NULL;
			}
			if (f & (TF_HEADER | TF_DOTTED)) {
				fail(t, "table '%s' is defined twice", k->part[i]);
				return NULL;
			}
			mark_set(t, next, (f & ~TF_IMPLICIT) | TF_HEADER);
		}
		cur = next;
	}
	return cur;
}

static int
parse_header(struct tp *t, json_t *root, json_t **cur)
{
	int aot = peek_at(t, 1) == '[';
	struct key k;

	t->p += aot ? 2 : 1;
	if (parse_key(t, &k) != 0)
		return -1;
	skip_ws(t);
	if (peek(t) != ']' || (aot && peek_at(t, 1) != ']')) {
		key_free(&k);
		return fail(t, "expected '%s' to close a table header", aot ? "]]" : "]");
	}
	t->p += aot ? 2 : 1;
	*cur = open_header(t, root, &k, aot);
	key_free(&k);
	if (*cur == NULL)
		return -1;
	return end_of_line(t);
}

int
toml_parse(const char *text, size_t len, const char *name, json_t **out, struct kd_err *err)
{
	struct tp t = { .p = text, .end = text + len, .name = name ? name : "", .line = 1,
			.err = err };
	json_t *root = json_object(), *cur;

	*out = NULL;
	if (len > KD_CAP_TEXT_FILE) {
		json_decref(root);
		return kd_err_set(err, KD_EINPUT, t.name, 0, "bigger than %u bytes",
				  KD_CAP_TEXT_FILE);
	}
	if (root == NULL || mark_set(&t, root, TF_HEADER) != 0) {
		fail(&t, "out of memory");
		goto bad;
	}
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		t.p += 3;   /* a byte order mark */
	cur = root;
	while (!at_end(&t)) {
		skip_ws(&t);
		if (at_end(&t))
			break;
		if (peek(&t) == '#' || peek(&t) == '\n' || peek(&t) == '\r') {
			if (end_of_line(&t) != 0)
				goto bad;
			continue;
		}
		if (peek(&t) == '[') {
			if (parse_header(&t, root, &cur) != 0)
				goto bad;
			continue;
		}
		if (parse_keyval(&t, cur) != 0 || end_of_line(&t) != 0)
			goto bad;
	}
	free(t.marks);
	*out = root;
	return 0;
bad:
	if (!t.failed)
		fail(&t, "malformed");
	free(t.marks);
	json_decref(root);
	return KD_EINPUT;
}

int
toml_load(const char *path, json_t **out, struct kd_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	if (fsutil_read_file(path, KD_CAP_TEXT_FILE, &buf, &len, err) != 0)
		return KD_EINPUT;
	rc = toml_parse(buf, len, path, out, err);
	free(buf);
	return rc;
}

void
toml_put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s != NULL && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7F)
			fprintf(f, "\\u%04X", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
