/*
 * shellwords.c - split and quote shell-like lines, without a shell.
 *
 * A small state machine over the bytes: outside quotes blanks end a word and
 * a backslash takes the next byte literally; inside '...' everything is
 * literal; inside "..." a backslash escapes only " \ $ ` (as POSIX sh).
 * An empty quoted string ('' or "") is a word of its own.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
shellwords_quote(const char *word)
{
	size_t n = 0, len;
	const char *p;
	char *out, *o;
	int plain = *word != '\0';

	for (p = word; *p != '\0'; p++)
		if (strchr(" \t\n\r'\"\\$`*?[]{}()<>|&;#~!=", *p) != NULL)
			plain = 0;
	len = strlen(word);
	if (plain)
		return strdup(word);
	/* '...' with each ' written as '\'' */
	for (p = word; *p != '\0'; p++)
		n += *p == '\'' ? 4 : 1;
	out = malloc(n + 3);
	if (out == NULL)
		return NULL;
	o = out;
	*o++ = '\'';
	for (p = word; p < word + len; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return out;
}

char *
shellwords_join(const json_t *arr)
{
	size_t i, len = 0, cap = 64;
	char *out = malloc(cap);
	json_t *v;

	if (out == NULL)
		return NULL;
	out[0] = '\0';
	if (!json_is_array(arr))
		return out;
	json_array_foreach(arr, i, v) {
		char *q, *js = NULL;
		size_t ql;

		if (json_is_string(v)) {
			q = shellwords_quote(json_string_value(v));
		} else {
			js = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
			q = shellwords_quote(js ? js : "?");
			free(js);
		}
		if (q == NULL)
			continue;
		ql = strlen(q);
		if (len + ql + 2 > cap) {
			char *n;

			while (len + ql + 2 > cap)
				cap *= 2;
			n = realloc(out, cap);
			if (n == NULL) {
				free(q);
				break;
			}
			out = n;
		}
		if (len > 0)
			out[len++] = ' ';
		memcpy(out + len, q, ql + 1);
		len += ql;
		free(q);
	}
	return out;
}
