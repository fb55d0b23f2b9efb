/*
 * textw.c - untrusted text made printable and measured in columns.
 *
 * Every text first goes through termout_clean (the one function that makes
 * control characters visible for stdout, stderr and the screen alike): an
 * ESC is drawn as \x1b, a BEL as \x07, a byte that is not UTF-8 as \xHH.
 * Then one decoder (next_char) walks the bytes with mbrtowc and yields a
 * printable wide character and its width for every position (what the
 * locale cannot show becomes '?'); the other functions are built on it.  No curses here: the unit tests link it
 * without a terminal.
 */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>
#include <wctype.h>

#include "kernodeck/termout.h"
#include "kernodeck/textw.h"

/* Decode one character of s (not at NUL): the printable wide character,
 * its width, and how many bytes it took. */
static size_t
next_char(const char *s, wchar_t *wc, int *width)
{
	mbstate_t st;
	size_t n;
	int cw;

	memset(&st, 0, sizeof st);
	n = mbrtowc(wc, s, MB_LEN_MAX, &st);
	if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
		*wc = L'?';
		*width = 1;
		return 1;
	}
	if (*wc == L'\t') {
		*wc = L' ';
		*width = 1;
		return n;
	}
	if (iswcntrl((wint_t)*wc)) {
		*wc = L'?';
		*width = 1;
		return n;
	}
	cw = wcwidth(*wc);
	if (cw < 0) {
		*wc = L'?';
		cw = 1;
	}
	*width = cw;
	return n;
}

/* s with its control characters made visible (termout_clean): s itself
 * when it has none, else a copy that *tofree holds (s again when out of
 * memory: next_char still shows each control as '?'). */
static const char *
visible(const char *s, int flags, char **tofree)
{
	size_t n = strlen(s);

	*tofree = NULL;
	if (termout_unsafe(s, n) == 0 && ((flags & TERMOUT_KEEP_NL) || memchr(s, '\n', n) == NULL) &&
	    !termout_secret(s, n))
		return s;
	if ((*tofree = termout_clean(s, n, flags, NULL)) == NULL)
		return s;
	return *tofree;
}

/* The ellipsis of the locale and its width. */
static const char *
ellipsis(int *w)
{
	static char buf[MB_LEN_MAX + 1];
	mbstate_t st;
	size_t n;

	memset(&st, 0, sizeof st);
	if (MB_CUR_MAX > 1 && (n = wcrtomb(buf, L'\u2026', &st)) != (size_t)-1 &&
	    wcwidth(L'\u2026') == 1) {
		buf[n] = '\0';
		*w = 1;
		return buf;
	}
	*w = 1;
	return "~";
}

int
textw_width(const char *s)
{
	wchar_t wc;
	int w = 0, cw;

	char *tofree;

	if (s == NULL)
		return 0;
	for (s = visible(s, 0, &tofree); *s != '\0';) {
		s += next_char(s, &wc, &cw);
		if (w > INT_MAX - cw)
			break;
		w += cw;
	}
	free(tofree);
	return w;
}

/* Append the encoding of wc to out; 0 when it does not fit. */
static int
put_wc(char *out, size_t outlen, size_t *pos, wchar_t wc)
{
	char buf[MB_LEN_MAX];
	mbstate_t st;
	size_t n;

	memset(&st, 0, sizeof st);
	n = wcrtomb(buf, wc, &st);
	if (n == (size_t)-1) {
		buf[0] = '?';
		n = 1;
	}
	if (*pos + n + 1 > outlen)
		return 0;
	memcpy(out + *pos, buf, n);
	*pos += n;
	out[*pos] = '\0';
	return 1;
}

/* textw_fit on a text already made visible. */
static int
fit_visible(const char *s, int w, char *out, size_t outlen)
{
	const char *ell;
	int ew, used = 0, cw;
	size_t pos = 0;
	wchar_t wc;

	if (outlen == 0)
		return 0;
	out[0] = '\0';
	if (s == NULL || w <= 0)
		return 0;
	if (textw_width(s) <= w) {
		while (*s != '\0') {
			s += next_char(s, &wc, &cw);
			if (!put_wc(out, outlen, &pos, wc))
				break;
			used += cw;
		}
		return used;
	}
	ell = ellipsis(&ew);
	while (*s != '\0') {
		size_t n = next_char(s, &wc, &cw);

		if (used + cw > w - ew)
			break;
		if (!put_wc(out, outlen, &pos, wc))
			break;
		used += cw;
		s += n;
	}
	if (pos + strlen(ell) + 1 <= outlen && used + ew <= w) {
		memcpy(out + pos, ell, strlen(ell) + 1);
		used += ew;
	}
	return used;
}

int
textw_fit(const char *s, int w, char *out, size_t outlen)
{
	char *tofree;
	int used;

	if (outlen == 0)
		return 0;
	out[0] = '\0';
	if (s == NULL || w <= 0)
		return 0;
	used = fit_visible(visible(s, 0, &tofree), w, out, outlen);
	free(tofree);
	return used;
}

/* Copy bytes [a, b) of a string sanitised into a malloc'd string. */
static char *
span_dup(const char *a, const char *b)
{
	size_t cap = (size_t)(b - a) * MB_LEN_MAX + 1, pos = 0;
	char *out = malloc(cap);
	wchar_t wc;
	int cw;

	if (out == NULL)
		return NULL;
	out[0] = '\0';
	while (a < b && *a != '\0') {
		a += next_char(a, &wc, &cw);
		if (!put_wc(out, cap, &pos, wc))
			break;
	}
	return out;
}

int
textw_wrap(const char *text, int w, char **lines, int maxlines)
{
	const char *s;
	char *tofree;
	int n = 0;

	if (text == NULL || w <= 0 || maxlines <= 0)
		return 0;
	s = visible(text, TERMOUT_KEEP_NL, &tofree);
	while (*s != '\0' && n < maxlines) {
		const char *p = s, *brk = NULL, *end;
		int used = 0, cw;
		wchar_t wc;

		/* find how far this line goes */
		while (*p != '\0' && *p != '\n') {
			size_t k = next_char(p, &wc, &cw);

			if (used + cw > w)
				break;
			if (wc == L' ')
				brk = p;
			used += cw;
			p += k;
		}
		if (*p == '\0' || *p == '\n' || brk == NULL || brk == s)
			end = p;
		else
			end = brk;
		if (end == s && *p != '\n' && *p != '\0') {
			/* one character wider than w: take it anyway */
			end = s + next_char(s, &wc, &cw);
		}
		lines[n] = span_dup(s, end);
		if (lines[n] == NULL)
			break;
		n++;
		s = end;
		if (*s == '\n')
			s++;
		else
			while (*s == ' ')
				s++;
	}
	free(tofree);
	return n;
}

const char *
textw_search(const char *hay, const char *needle)
{
	size_t n;

	if (hay == NULL || needle == NULL || *needle == '\0')
		return NULL;
	n = strlen(needle);
	for (; *hay != '\0'; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return hay;
	return NULL;
}
