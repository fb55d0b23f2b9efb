/*
 * shellwords.c - split and quote shell-like lines, without a shell.
 *
 * A small state machine over the bytes: outside quotes blanks end a word and
 * a backslash takes the next byte literally; inside '...' everything is
 * literal; inside "..." a backslash escapes only " \ $ ` (as POSIX sh);
 * inside $'...' (bash's ANSI-C quoting, the form quote.h writes a word
 * holding a control character in) \n \t \r \\ \' \xHH and \uHHHH stand
 * for what they name.  An empty quoted string ('' or "") is a word of its
 * own.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/quote.h"
#include "kernodeck/shellwords.h"

struct words {
	char **v;
	size_t n, cap;
};

static int
words_push(struct words *w, const char *s, size_t len)
{
	char *copy;

	if (w->n + 2 > w->cap) {
		size_t ncap = w->cap ? w->cap * 2 : 8;
		char **nv;

		if (ncap > KD_CAP_SHELLWORDS + 2)
			ncap = KD_CAP_SHELLWORDS + 2;
		if (w->n + 2 > ncap)
			return -1;
		nv = realloc(w->v, ncap * sizeof *nv);
		if (nv == NULL)
			return -1;
		w->v = nv;
		w->cap = ncap;
	}
	copy = malloc(len + 1);
	if (copy == NULL)
		return -1;
	memcpy(copy, s, len);
	copy[len] = '\0';
	w->v[w->n++] = copy;
	w->v[w->n] = NULL;
	return 0;
}

static int
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The value of up to max hex digits at *p (advanced past them); -1 when
 * there is none. */
static long
hex_digits(const char **p, int max)
{
	long v = -1;

	for (int i = 0; i < max && isxdigit((unsigned char)**p); i++, (*p)++)
		v = (v < 0 ? 0 : v * 16) + (isdigit((unsigned char)**p) ? **p - '0' :
					    (tolower((unsigned char)**p) - 'a' + 10));
	return v;
}

/* Code point cp as UTF-8 at buf + *pos. */
static void
put_utf8(char *buf, size_t *pos, unsigned long cp)
{
	if (cp < 0x80) {
		buf[(*pos)++] = (char)cp;
	} else if (cp < 0x800) {
		buf[(*pos)++] = (char)(0xc0 | (cp >> 6));
		buf[(*pos)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		buf[(*pos)++] = (char)(0xe0 | (cp >> 12));
		buf[(*pos)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		buf[(*pos)++] = (char)(0x80 | (cp & 0x3f));
	}
}

/* The inside of $'...' from p (after the opening quote) into buf: returns
 * the closing quote, or NULL when there is none.  An escape never writes
 * more bytes than it takes, so buf (the line's length) has room. */
static const char *
ansi_c(const char *p, char *buf, size_t *pos)
{
	for (; *p != '\0' && *p != '\''; p++) {
		const char *e = p + 2;
		long v;

		if (*p != '\\' || p[1] == '\0') {
			buf[(*pos)++] = *p;
			continue;
		}
		switch (p[1]) {
		case 'n': buf[(*pos)++] = '\n'; break;
		case 't': buf[(*pos)++] = '\t'; break;
		case 'r': buf[(*pos)++] = '\r'; break;
		case '\\': case '\'': case '"': buf[(*pos)++] = p[1]; break;
		case 'x': case 'u':
			if ((v = hex_digits(&e, p[1] == 'x' ? 2 : 4)) < 0)
				goto other;
			if (p[1] == 'x' && v > 0)
				buf[(*pos)++] = (char)v;
			else if (v > 0)
				put_utf8(buf, pos, (unsigned long)v);
			p = e - 2;
			break;
		default:
		other:
			buf[(*pos)++] = '\\';
			buf[(*pos)++] = p[1];
		}
		p++;
	}
	return *p == '\'' ? p : NULL;
}

/* Split line into w; 0 or 1 with error. */
static int
split(const char *line, struct words *w, char *error, size_t elen)
{
	size_t len = strlen(line), pos = 0;
	char *buf = malloc(len + 1);
	const char *p = line;
	int inword = 0;

	if (buf == NULL) {
		snprintf(error, elen, "out of memory");
		return 1;
	}
	while (*p != '\0') {
		char c = *p;

		if (is_blank(c)) {
			if (inword && words_push(w, buf, pos) != 0)
				goto toomany;
			inword = 0;
			pos = 0;
			p++;
			continue;
		}
		inword = 1;
		if (c == '\\') {
			if (p[1] == '\0') {
				snprintf(error, elen, "a backslash ends the line at column %zu",
					 (size_t)(p - line) + 1);
				goto fail;
			}
			buf[pos++] = p[1];
			p += 2;
		} else if (c == '$' && p[1] == '\'') {
			const char *q = ansi_c(p + 2, buf, &pos);

			if (q == NULL) {
				snprintf(error, elen, "unbalanced $' at column %zu",
					 (size_t)(p - line) + 1);
				goto fail;
			}
			p = q + 1;
		} else if (c == '\'') {
			const char *q = strchr(p + 1, '\'');

			if (q == NULL) {
				snprintf(error, elen, "unbalanced ' at column %zu",
					 (size_t)(p - line) + 1);
				goto fail;
			}
			memcpy(buf + pos, p + 1, (size_t)(q - p - 1));
			pos += (size_t)(q - p - 1);
			p = q + 1;
		} else if (c == '"') {
			const char *q = p + 1;

			while (*q != '\0' && *q != '"') {
				if (*q == '\\' && q[1] != '\0' && strchr("\"\\$`", q[1]) != NULL)
					q++;
				buf[pos++] = *q++;
			}
			if (*q != '"') {
				snprintf(error, elen, "unbalanced \" at column %zu",
					 (size_t)(p - line) + 1);
				goto fail;
			}
			p = q + 1;
		} else {
			buf[pos++] = c;
			p++;
		}
	}
	if (inword && words_push(w, buf, pos) != 0)
		goto toomany;
	free(buf);
	return 0;
toomany:
	snprintf(error, elen, "more than %d words", KD_CAP_SHELLWORDS);
fail:
	free(buf);
	return 1;
}

static void
words_free(struct words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	w->v = NULL;
	w->n = w->cap = 0;
}

int
shellwords_split(const char *line, json_t **out, char *error, size_t len)
{
	struct words w = { 0 };
	json_t *arr;

	*out = NULL;
	if (split(line ? line : "", &w, error, len) != 0) {
		words_free(&w);
		return 1;
	}
	arr = json_array();
	for (size_t i = 0; arr != NULL && i < w.n; i++)
		json_array_append_new(arr, json_string(w.v[i]));
	words_free(&w);
	if (arr == NULL) {
		snprintf(error, len, "out of memory");
		return 1;
	}
	*out = arr;
	return 0;
}

char **
shellwords_argv(const char *line, const char *extra, char *error, size_t len)
{
	struct words w = { 0 };

	if (split(line ? line : "", &w, error, len) != 0) {
		words_free(&w);
		return NULL;
	}
	if (w.n == 0) {
		snprintf(error, len, "no program named");
		words_free(&w);
		return NULL;
	}
	if (extra != NULL && words_push(&w, extra, strlen(extra)) != 0) {
		snprintf(error, len, "out of memory");
		words_free(&w);
		return NULL;
	}
	return w.v;
}

void
shellwords_free(char **argv)
{
	if (argv == NULL)
		return;
	for (char **p = argv; *p != NULL; p++)
		free(*p);
	free(argv);
}

char *
shellwords_join(const json_t *arr)
{
	size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
	char **words = calloc(n + 1, sizeof *words), *line = NULL;
	size_t i;
	json_t *v;

	if (words == NULL)
		return NULL;
	json_array_foreach(arr, i, v)
		words[i] = json_is_string(v) ? strdup(json_string_value(v)) :
			   json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	for (i = 0; i < n && words[i] != NULL; i++)
		;
	if (i == n)
		line = quote_argv((const char *const *)words);
	shellwords_free(words);
	return line;
}
