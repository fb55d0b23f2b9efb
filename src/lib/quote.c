/*
 * quote.c - the one way to write a string as a shell word: see quote.h.
 *
 * The $'...' form escapes the four characters bash's ANSI-C quoting gives a
 * meaning to here (\ ' newline tab), then lets termout_clean() write every
 * other control, hidden code point and stray byte as \xHH or \uHHHH, the
 * escapes bash reads back.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/quote.h"
#include "kernodeck/termout.h"

/* A byte that stands as itself in a word that needs no quotes. */
static int
plain_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("-_./=:,+@%", c) != NULL);
}

/* s in single quotes, each ' as '\'' (malloc'd). */
static char *
single_quoted(const char *s, size_t n)
{
	char *out = n < (SIZE_MAX - 3) / 4 ? malloc(4 * n + 3) : NULL;
	size_t o = 0;

	if (out == NULL)
		return NULL;
	out[o++] = '\'';
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\'') {
			memcpy(out + o, "'\\''", 4);
			o += 4;
		} else {
			out[o++] = s[i];
		}
	}
	out[o++] = '\'';
	out[o] = '\0';
	return out;
}

/* s as a $'...' word (malloc'd). */
static char *
ansi_c(const char *s, size_t n)
{
	char *esc = n < (SIZE_MAX - 1) / 2 ? malloc(2 * n + 1) : NULL, *clean, *out;
	size_t e = 0, cn;

	if (esc == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *two = s[i] == '\\' ? "\\\\" : s[i] == '\'' ? "\\'" :
				  s[i] == '\n' ? "\\n" : s[i] == '\t' ? "\\t" : NULL;
		if (two != NULL) {
			memcpy(esc + e, two, 2);
			e += 2;
		} else {
			esc[e++] = s[i];
		}
	}
	clean = termout_clean(esc, e, 0, &cn);
	free(esc);
	if (clean == NULL || (out = malloc(cn + 4)) == NULL) {
		free(clean);
		return NULL;
	}
	memcpy(out, "$'", 2);
	memcpy(out + 2, clean, cn);
	memcpy(out + 2 + cn, "'", 2);
	free(clean);
	return out;
}

char *
quote_word(const char *s, int flags)
{
	size_t n = strlen(s);
	int plain = n > 0 && !((flags & QUOTE_FIRST) && strchr(s, '=') != NULL);

	for (size_t i = 0; i < n && plain; i++)
		plain = plain_byte((unsigned char)s[i]);
	if (plain)
		return strdup(s);
	if (termout_unsafe(s, n) > 0 || memchr(s, '\n', n) != NULL)
		return ansi_c(s, n);
	return single_quoted(s, n);
}

char *
quote_argv(const char *const *argv)
{
	char *out = strdup("");
	size_t o = 0;

	for (size_t i = 0; out != NULL && argv[i] != NULL; i++) {
		char *w = quote_word(argv[i], i == 0 ? QUOTE_FIRST : 0), *grown = NULL;
		size_t n = w ? strlen(w) : 0;

		if (w == NULL || (grown = realloc(out, o + n + 2)) == NULL) {
			free(w);
			free(out);
			return NULL;
		}
		out = grown;
		if (i > 0)
			out[o++] = ' ';
		memcpy(out + o, w, n + 1);
		o += n;
		free(w);
	}
	return out;
}
