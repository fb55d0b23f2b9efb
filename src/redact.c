/*
 * redact.c - one redaction for every file kernodeck writes.
 *
 * The patterns: URL userinfo (scheme://user[:password]@host).  The dossier
 * issue widens this list (tokens of known shapes, secret-named variables);
 * redact_text and redact_scan always share it.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/redact.h"

/* Find URL userinfo starting the search at text[from]; returns 1 and the
 * span of the userinfo (without the '@') when found. */
static int
find_userinfo(const char *t, size_t len, size_t from, size_t *off, size_t *n)
{
	for (size_t i = from; i + 3 < len; i++) {
		if (t[i] != ':' || t[i + 1] != '/' || t[i + 2] != '/')
			continue;
		/* the scheme before "://" must be letters */
		if (i == 0 || !isalpha((unsigned char)t[i - 1]))
			continue;
		size_t s = i + 3, j = s;
		while (j < len && !isspace((unsigned char)t[j]) && t[j] != '/' &&
		       t[j] != '@' && t[j] != '"' && t[j] != '\'' && t[j] != '?' && t[j] != '#')
			j++;
		if (j < len && t[j] == '@' && j > s) {
			/* already redacted */
			if (j - s >= 2 && t[s] == '$' && t[s + 1] == '{' && t[j - 1] == '}')
				continue;
			*off = s;
			*n = j - s;
			return 1;
		}
	}
	return 0;
}

static int
line_of(const char *t, size_t off)
{
	int line = 1;

	for (size_t i = 0; i < off; i++)
		if (t[i] == '\n')
			line++;
	return line;
}

size_t
redact_scan(const char *text, size_t len, struct redact_finding *out, size_t max)
{
	size_t count = 0, pos = 0, off, n;

	while (find_userinfo(text, len, pos, &off, &n)) {
		if (count < max) {
			out[count].line = line_of(text, off);
			out[count].kind = "url-userinfo";
			out[count].off = off;
			out[count].len = n;
			memcpy(out[count].name, "CREDENTIALS", sizeof "CREDENTIALS");
		}
		count++;
		pos = off + n;
	}
	return count;
}

char *
redact_text(const char *text, size_t len, size_t *lenp)
{
	static const char repl[] = "${CREDENTIALS}";
	size_t pos = 0, off, n, cap = len + 1, olen = 0;
	char *o = malloc(cap);

	if (o == NULL)
		return NULL;
	while (find_userinfo(text, len, pos, &off, &n)) {
		size_t need = olen + (off - pos) + sizeof repl + (len - off) + 1;
		if (need > cap) {
			char *no = realloc(o, need);
			if (no == NULL) {
				free(o);
				return NULL;
			}
			o = no;
			cap = need;
		}
		memcpy(o + olen, text + pos, off - pos);
		olen += off - pos;
		memcpy(o + olen, repl, sizeof repl - 1);
		olen += sizeof repl - 1;
		pos = off + n;
	}
	if (olen + (len - pos) + 1 > cap) {
		char *no = realloc(o, olen + (len - pos) + 1);
		if (no == NULL) {
			free(o);
			return NULL;
		}
		o = no;
	}
	memcpy(o + olen, text + pos, len - pos);
	olen += len - pos;
	o[olen] = '\0';
	if (lenp)
		*lenp = olen;
	return o;
}

char *
redact_url(const char *url, int *had)
{
	size_t off, n, len = strlen(url);
	char *o;

	if (had)
		*had = 0;
	if (!find_userinfo(url, len, 0, &off, &n))
		return strdup(url);
	if (had)
		*had = 1;
	o = malloc(len + 1);
	if (o == NULL)
		return NULL;
	memcpy(o, url, off);
	memcpy(o + off, url + off + n + 1, len - off - n);  /* drop "userinfo@" */
	return o;
}
