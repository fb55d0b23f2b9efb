/*
 * termout.c - the one way out to the terminal: see termout.h.
 *
 * One decoder (seq_len) checks UTF-8 strictly (no overlong form, no
 * surrogate, nothing past U+10FFFF); clean_into() turns bytes into their
 * visible form with it.  The stdio filter keeps the last bytes of a write
 * that may begin a character finished by the next write.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernodeck/fdio.h"
#include "kernodeck/redact.h"
#include "kernodeck/termout.h"

#define TERMOUT_WORST 6   /* bytes out per byte in, at most: \u009b */

/* The length of the valid UTF-8 sequence at s (n bytes left) and its code
 * point; 0 when s[0] does not start one, -1 when the n bytes are a valid
 * start that needs more. */
static int
seq_len(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned c = s[0];
	int len;
	uint32_t v, min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, v = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, v = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (int i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return -1;
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
		/* refuse early what can only end overlong, a surrogate or too high */
		if (i == 1 && ((len == 3 && c == 0xe0 && s[1] < 0xa0) ||
			       (len == 3 && c == 0xed && s[1] >= 0xa0) ||
			       (len == 4 && c == 0xf0 && s[1] < 0x90) ||
			       (len == 4 && c == 0xf4 && s[1] >= 0x90)))
			return 0;
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

/* The code points shown as \uHHHH rather than as themselves: the C1
 * controls, the bidirectional marks, embeddings, overrides and isolates,
 * the zero-width and other invisible format characters (Unicode's Cf and
 * the fillers that draw nothing), the line and paragraph separators, the
 * tags.  Each range is [first, last]. */
static const uint32_t hidden[][2] = {
	{ 0x80, 0x9f }, { 0xad, 0xad }, { 0x34f, 0x34f }, { 0x61c, 0x61c },
	{ 0x115f, 0x1160 }, { 0x17b4, 0x17b5 }, { 0x180b, 0x180f }, { 0x200b, 0x200f },
	{ 0x2028, 0x202e }, { 0x2060, 0x206f }, { 0x3164, 0x3164 }, { 0xfeff, 0xfeff },
	{ 0xffa0, 0xffa0 }, { 0xfff9, 0xfffb }, { 0x1bca0, 0x1bca3 }, { 0x1d173, 0x1d17a },
	{ 0xe0000, 0xe007f },
};

const uint32_t (*termout_hidden_ranges(size_t *n))[2]
{
	*n = sizeof hidden / sizeof hidden[0];
	return hidden;
}

static int
hidden_cp(uint32_t cp)
{
	for (size_t i = 0; i < sizeof hidden / sizeof hidden[0] && cp >= hidden[i][0]; i++)
		if (cp <= hidden[i][1])
			return 1;
	return 0;
}

/* "\\uHHHH" (kind u, 4 digits) or "\\xHH" (kind x, 2) of v at out[o];
 * returns the new length. */
static size_t
put_escape(char *out, size_t o, char kind, uint32_t v, int digits)
{
	static const char hex[] = "0123456789abcdef";

	out[o++] = '\\';
	out[o++] = kind;
	for (int k = (digits - 1) * 4; k >= 0; k -= 4)
		out[o++] = hex[(v >> k) & 0xf];
	return o;
}

/* What is not plain ASCII: a printable character of several bytes as it
 * is, a hidden code point as \uHHHH, a control or a byte that is not UTF-8
 * as \xHH (then *len is 1).  Returns the new length of out. */
static size_t
put_other(char *out, size_t o, const unsigned char *s, int *len, uint32_t cp)
{
	if (*len > 1 && !hidden_cp(cp)) {
		memcpy(out + o, s, (size_t)*len);
		return o + (size_t)*len;
	}
	if (*len > 1)
		return cp > 0xffff ? put_escape(out, o, 'U', cp, 8) : put_escape(out, o, 'u', cp, 4);
	*len = 1;
	return put_escape(out, o, 'x', s[0], 2);
}

/* Clean s[0..n) into out (room for TERMOUT_WORST * n bytes); *olen grows.
 * Returns the bytes used: all of them when final, otherwise an unfinished
 * character at the end is left for the next call. */
static size_t
clean_into(const unsigned char *s, size_t n, int flags, int final, char *out, size_t *olen)
{
	size_t i = 0, o = *olen;

	while (i < n) {
		uint32_t cp = 0;
		int len = seq_len(s + i, n - i, &cp);

		if (len < 0 && !final)
			break;
		if (len == 1 && (cp >= 0x20 || cp == '\t' || (cp == '\n' && (flags & TERMOUT_KEEP_NL))) &&
		    cp != 0x7f) {
			out[o++] = (char)cp;
		} else {
			o = put_other(out, o, s + i, &len, cp);
		}
		i += (size_t)len;
	}
	*olen = o;
	return i;
}

int
termout_secret(const char *s, size_t n)
{
	return redact_scan(s, n, NULL, 0) > 0;
}

char *
termout_clean(const char *s, size_t n, int flags, size_t *outlen)
{
	char *out, *red;
	size_t o = 0;

	/* what is shown passes the redaction files pass */
	if ((red = redact_text(s, n, &n)) == NULL)
		return NULL;
	if (n > (SIZE_MAX - 1) / TERMOUT_WORST || (out = malloc(n * TERMOUT_WORST + 1)) == NULL) {
		free(red);
		return NULL;
	}
	clean_into((const unsigned char *)red, n, flags, 1, out, &o);
	free(red);
	out[o] = '\0';
	if (outlen != NULL)
		*outlen = o;
	return out;
}

int
termout_person_file(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	return (n >= 3 && strcmp(name + n - 3, ".md") == 0) ||
	       (n >= 4 && strcmp(name + n - 4, ".txt") == 0);
}

const char *
termout_str(const char *s, int flags, char *buf, size_t len)
{
	size_t n = s ? strlen(s) : 0, i = 0, o = 0;
	char one[TERMOUT_WORST + 4], *red;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (s == NULL || (red = redact_text(s, n, &n)) == NULL)
		return buf;
	s = red;
	/* one character at a time, so that an escape is never cut */
	while (i < n) {
		uint32_t cp;
		int l = seq_len((const unsigned char *)s + i, n - i, &cp);
		size_t ol = 0;

		l = l > 0 ? l : 1;
		clean_into((const unsigned char *)s + i, (size_t)l, flags, 1, one, &ol);
		if (o + ol + 1 > len)
			break;
		memcpy(buf + o, one, ol);
		o += ol;
		i += (size_t)l;
	}
	buf[o] = '\0';
	free(red);
	return buf;
}

size_t
termout_unsafe(const char *s, size_t n)
{
	size_t bad = 0;

	for (size_t i = 0; i < n;) {
		uint32_t cp = 0;
		int len = seq_len((const unsigned char *)s + i, n - i, &cp);

		if (len <= 0 || (len == 1 && ((cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0x7f)) ||
		    (len > 1 && hidden_cp(cp))) {
			bad += len > 0 ? (size_t)len : 1;
			i += len > 0 ? (size_t)len : 1;
		} else {
			i += (size_t)len;
		}
	}
	return bad;
}

/* ---- the stdio filter ---------------------------------------------------- */

struct tcookie {
	int fd;
	unsigned char pend[4];   /* the start of a character the next write ends */
	size_t npend;
};


#define TERMOUT_CHUNK (64u * 1024)   /* bytes cleaned at a time: a big write costs no more */

/* Clean and write one piece of a write (at most TERMOUT_CHUNK bytes). */
static int
cookie_piece(struct tcookie *c, const char *buf, size_t size)
{
	unsigned char in[TERMOUT_CHUNK + 4];
	size_t total = c->npend + size, o = 0, used;
	char *out = malloc(total * TERMOUT_WORST + 1);
	int rc;

	if (out == NULL) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(in, c->pend, c->npend);
	memcpy(in + c->npend, buf, size);
	used = clean_into(in, total, TERMOUT_KEEP_NL, 0, out, &o);
	c->npend = total - used;   /* at most 3: an unfinished character */
	memcpy(c->pend, in + used, c->npend);
	rc = fdio_write_all(c->fd, out, o);
	free(out);
	return rc;
}

static ssize_t
cookie_write(void *cookie, const char *buf, size_t size)
{
	struct tcookie *c = cookie;
	size_t rn;
	/* a write (a line: stdout is line-buffered) is redacted whole */
	char *red = redact_text(buf, size, &rn);

	if (red == NULL) {
		errno = ENOMEM;
		return -1;
	}
	for (size_t off = 0; off < rn; ) {
		size_t n = rn - off < TERMOUT_CHUNK ? rn - off : TERMOUT_CHUNK;
		if (cookie_piece(c, red + off, n) != 0) {
			free(red);
			return -1;
		}
		off += n;
	}
	free(red);
	return (ssize_t)size;
}

static int
cookie_close(void *cookie)
{
	struct tcookie *c = cookie;
	char out[4 * TERMOUT_WORST + 1];
	size_t o = 0;

	clean_into(c->pend, c->npend, TERMOUT_KEEP_NL, 1, out, &o);
	if (o > 0)
		(void)fdio_write_all(c->fd, out, o);
	free(c);
	return 0;
}

/* The cookies of the streams installed, held here too: the stream keeps
 * its cookie where a leak checker does not look. */
static struct tcookie *installed[2];

static FILE *
filtered(int fd, int mode)
{
	static const cookie_io_functions_t io = { .write = cookie_write, .close = cookie_close };
	struct tcookie *c = calloc(1, sizeof *c);
	FILE *f;

	if (c == NULL)
		return NULL;
	installed[fd == STDERR_FILENO] = c;
	c->fd = fd;
	if ((f = fopencookie(c, "w", io)) == NULL) {
		free(c);
		return NULL;
	}
	setvbuf(f, NULL, mode, mode == _IONBF ? 0 : BUFSIZ);
	return f;
}

int
termout_install(int which)
{
	FILE *o = NULL, *e = NULL;

	if ((which & 1) && (o = filtered(STDOUT_FILENO, _IOLBF)) == NULL)
		return -1;
	if ((which & 2) && (e = filtered(STDERR_FILENO, _IONBF)) == NULL) {
		if (o != NULL)
			fclose(o);
		return -1;
	}
	if (o != NULL) {
		fflush(stdout);
		stdout = o;
	}
	if (e != NULL) {
		fflush(stderr);
		stderr = e;
	}
	return 0;
}

void
termout_write_trusted(FILE *f, const char *s)
{
	int fd = f == stderr ? STDERR_FILENO : STDOUT_FILENO;

	fflush(f);
	(void)fdio_write_all(fd, s, strlen(s));
}
