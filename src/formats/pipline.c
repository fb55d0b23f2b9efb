/*
 * pipline.c - lines of pip's text formats and the noise around them.
 *
 * Outputs pasted into issues come with the prompt and the command that made
 * them, other commands' output, fences and traces.  The parsers skip a line
 * when pipline_command() recognises a prompt followed by a known command
 * word; a prompt alone is not enough (a marker such as "python_version >
 * '3'" has "> " in it), and a command word alone neither.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernodeck/caps.h"
#include "kernodeck/pipline.h"

void
pipline_init(struct pipline_iter *it, const char *text, size_t len)
{
	it->p = text;
	it->end = text + len;
	it->lineno = 0;
}

int
pipline_next(struct pipline_iter *it, const char **line, size_t *n)
{
	const char *nl;

	if (it->p >= it->end)
		return 0;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	*line = it->p;
	*n = (size_t)((nl ? nl : it->end) - it->p);
	it->p = nl ? nl + 1 : it->end;
	if (*n > 0 && (*line)[*n - 1] == '\r')
		(*n)--;
	it->lineno++;
	return 1;
}

/* Offset of the first byte that breaks UTF-8 (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or (size_t)-1. */
static size_t
utf8_invalid_at(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		unsigned char c = u[i];
		size_t k;
		unsigned min;
		unsigned long cp;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			k = 1; cp = c & 0x1f; min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			k = 2; cp = c & 0x0f; min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			k = 3; cp = c & 0x07; min = 0x10000;
		} else {
			return i;
		}
		for (size_t j = 1; j <= k; j++) {
			if (i + j >= n || (u[i + j] & 0xc0) != 0x80)
				return i;
			cp = (cp << 6) | (u[i + j] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return i;
		i += k + 1;
	}
	return (size_t)-1;
}

int
pipline_check_text(const char *text, size_t len, const char *name, struct kd_err *err)
{
	return pipline_check_text_ex(text, len, name, KD_CAP_INPUT_LINES, err);
}

int
pipline_check_text_ex(const char *text, size_t len, const char *name, unsigned max_lines,
		      struct kd_err *err)
{
	struct pipline_iter it;
	const char *l;
	size_t n;
	int named = name != NULL && *name != '\0';

	if (memchr(text, '\0', len) != NULL) {
		const char *z = memchr(text, '\0', len);
		int line = 1;
		for (const char *q = text; q < z; q++)
			line += *q == '\n';
		/* with a name, kd_err_format says "NAME:LINE: " in front */
		return kd_err_set(err, KD_EINPUT, name, line, named ?
				  "a NUL byte: this is not a text file" :
				  "a NUL byte on line %d: this is not a text file", line);
	}
	pipline_init(&it, text, len);
	while (pipline_next(&it, &l, &n)) {
		size_t bad;
		/* one tree node per line costs about a hundred times the line:
		 * refused before any is built, so memory stays the input's
		 * (inspect streams its trees and asks for no cap: 0) */
		if (max_lines != 0 && (unsigned)it.lineno > max_lines)
			return kd_err_set(err, KD_EINPUT, name, it.lineno,
					  "more than %u lines (KD_CAP_INPUT_LINES): not the "
					  "packages of one environment", max_lines);
		if (n > KD_CAP_LINE)
			return named ?
				kd_err_set(err, KD_EINPUT, name, it.lineno,
					   "the line is longer than %u bytes", KD_CAP_LINE) :
				kd_err_set(err, KD_EINPUT, name, it.lineno,
					   "line %d is longer than %u bytes", it.lineno, KD_CAP_LINE);
		if ((bad = utf8_invalid_at(l, n)) != (size_t)-1)
			return named ?
				kd_err_set(err, KD_EINPUT, name, it.lineno,
					   "not valid UTF-8 (byte 0x%02x at column %zu)",
					   (unsigned char)l[bad], bad + 1) :
				kd_err_set(err, KD_EINPUT, name, it.lineno,
					   "line %d is not valid UTF-8 (byte 0x%02x at column %zu)",
					   it.lineno, (unsigned char)l[bad], bad + 1);
	}
	return 0;
}

void
pipline_trim(const char **s, size_t *n)
{
	while (*n > 0 && isspace((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n > 0 && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

int
pipline_is_fence(const char *s, size_t n)
{
	pipline_trim(&s, &n);
	return n >= 3 && (strncmp(s, "```", 3) == 0 || strncmp(s, "~~~", 3) == 0);
}

void
pipline_unpaste(const char **s, size_t *n)
{
	pipline_trim(s, n);
	while (*n > 0 && **s == '>') {
		(*s)++;
		(*n)--;
		pipline_trim(s, n);
	}
	if (pipline_is_fence(*s, *n))
		return;
	/* "...which is not installed.```": the fence is not part of the line */
	size_t k = *n;
	while (k > 0 && ((*s)[k - 1] == '`' || (*s)[k - 1] == '~'))
		k--;
	if (*n - k >= 3) {
		*n = k;
		pipline_trim(s, n);
	}
}

/* The first word of *s (n bytes, up to a space); for a path, its last part
 * (".venv/bin/python", "C:\x\python.exe"): *s moves there.  Returns the
 * word's length. */
static size_t
command_name(const char **s, size_t n)
{
	size_t w = 0;

	while (w < n && !isspace((unsigned char)(*s)[w]))
		w++;
	for (size_t i = w; i > 0; i--)
		if ((*s)[i - 1] == '/' || (*s)[i - 1] == '\\') {
			*s += i;
			return w - i;
		}
	return w;
}

/* Is the word at s (up to a space) a command someone types around pip? */
/* pip, pip3, python, python3.11, a path to one of them. */
static int
is_pip_or_python(const char *s, size_t n)
{
	size_t w = command_name(&s, n);

	return (w >= 6 && strncmp(s, "python", 6) == 0) ||
	       (w >= 3 && strncmp(s, "pip", 3) == 0 && (w == 3 || s[3] == '3'));
}

static int
is_command_word(const char *s, size_t n)
{
	static const char *const words[] = {
		"pip", "pip3", "python", "python3", "py", "uv", "conda", "mamba", "micromamba",
		"echo", "cat", "type", "more", "less", "head", "tail", "sudo", "env", "export",
		"cd", "ls", "source", "docker", "poetry", "pipenv", "pdm", "time", "git",
		"grep", "sort", "tee", "pip-compile", "pipdeptree",
	};
	size_t w = command_name(&s, n);

	if (w >= 4 && strncasecmp(s + w - 4, ".exe", 4) == 0)
		w -= 4;
	if (w >= 6 && strncmp(s, "python", 6) == 0)
		return 1;   /* python3.11 */
	if (w >= 3 && strncmp(s, "pip", 3) == 0 && (w == 3 || s[3] == '3'))
		return 1;
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (strlen(words[i]) == w && strncmp(s, words[i], w) == 0)
			return 1;
	return 0;
}

/* Does the text before a prompt terminator look like a prompt: short,
 * at most four words, no '=' or quotes (a requirement's marker has them). */
static int
prompt_like(const char *s, size_t n)
{
	int words = 0, in = 0;

	if (n > 160)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '=' || s[i] == '\'' || s[i] == '"' || s[i] == ';' || s[i] == ',')
			return 0;
		if (isspace((unsigned char)s[i])) {
			in = 0;
		} else if (!in) {
			in = 1;
			words++;
		}
	}
	return words <= 4;
}

/* Bytes that may start a prompt mark: $ > % # and the first bytes of the
 * multibyte marks (all >= 0x80). */
static const unsigned char prompt_start[256] = {
	['$'] = 1, ['>'] = 1, ['%'] = 1, ['#'] = 1,
	[0x80] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

long
pipline_command(const char *s, size_t n, int hash_prompt)
{
	static const char *const marks[] = { "\xe2\x9d\xaf", "\xe2\x9e\x9c", "\xce\xbb" };
	size_t lead = 0;

	while (lead < n && isspace((unsigned char)s[lead]))
		lead++;
	/* set -x traces: "+ cmd", "++ cmd" */
	if (lead < n && s[lead] == '+') {
		size_t i = lead;
		while (i < n && s[i] == '+')
			i++;
		if (i < n && s[i] == ' ') {
			while (i < n && s[i] == ' ')
				i++;
			if (i < n && is_command_word(s + i, n - i))
				return (long)i;
		}
		return -1;
	}
	for (size_t i = lead; i < n; i++) {
		size_t mlen = 0;
		/* most bytes are none of the marks: skip them with one test */
		if (!prompt_start[(unsigned char)s[i]])
			continue;
		if (s[i] == '$' || s[i] == '>' || s[i] == '%' || (hash_prompt && s[i] == '#')) {
			mlen = 1;
		} else if ((unsigned char)s[i] >= 0x80) {
			/* the multibyte marks all start with a byte >= 0x80 */
			for (size_t k = 0; k < sizeof marks / sizeof *marks; k++) {
				size_t ml = strlen(marks[k]);
				if (n - i >= ml && memcmp(s + i, marks[k], ml) == 0)
					mlen = ml;
			}
		}
		if (mlen == 0)
			continue;
		if (i + mlen >= n || s[i + mlen] != ' ')
			continue;
		if (!prompt_like(s + lead, i - lead))
			return -1;
		size_t c = i + mlen;
		while (c < n && s[c] == ' ')
			c++;
		/* "# word" at the start of a line is a comment unless the word
		 * is pip or python ("root@host:/# pip freeze" has its prompt) */
		if (s[i] == '#' && i == lead && !(c < n && is_pip_or_python(s + c, n - c)))
			return -1;
		if (c < n && is_command_word(s + c, n - c))
			return (long)c;
		return -1;
	}
	return -1;
}

int
pipline_command_has(const char *cmd, size_t n, const char *word)
{
	size_t w = strlen(word);

	for (size_t i = 0; i + w <= n; i++) {
		if (memcmp(cmd + i, word, w) != 0)
			continue;
		int before = i == 0 || isspace((unsigned char)cmd[i - 1]);
		int after = i + w == n || isspace((unsigned char)cmd[i + w]);
		if (before && after)
			return 1;
	}
	return 0;
}

/* Is [s, s+n) only ${NAME} references and, before a ':', a plain user? */
static int
only_env_refs(const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);
	const char *p = colon ? colon + 1 : s;
	const char *e = s + n;

	if (p == e)
		return 0;   /* "user:@" or empty: treat as a credential-shaped thing */
	while (p < e) {
		if (e - p < 4 || p[0] != '$' || p[1] != '{')
			return 0;
		const char *close = memchr(p, '}', (size_t)(e - p));
		if (close == NULL || close == p + 2)
			return 0;
		p = close + 1;
	}
	return 1;
}

int
pipline_url_credential(const char *s, size_t n, size_t *off, size_t *len)
{
	for (size_t i = 1; i + 3 <= n; i++) {
		if (s[i] != ':' || s[i + 1] != '/' || s[i + 2] != '/' ||
		    !isalpha((unsigned char)s[i - 1]))
			continue;
		size_t a = i + 3, j = a;
		while (j < n && !isspace((unsigned char)s[j]) && s[j] != '/' && s[j] != '@' &&
		       s[j] != '?' && s[j] != '#')
			j++;
		if (j < n && s[j] == '@' && j > a && !only_env_refs(s + a, j - a)) {
			if (off)
				*off = a;
			if (len)
				*len = j - a;
			return 1;
		}
	}
	return 0;
}

int
pipline_is_local_abs(const char *s, size_t n)
{
	if (n >= 5 && strncasecmp(s, "file:", 5) == 0)
		return 1;
	if (n >= 1 && s[0] == '/')
		return 1;
	if (n >= 2 && s[0] == '~' && (s[1] == '/' || n == 1))
		return 1;
	if (n >= 2 && s[0] == '\\' && s[1] == '\\')
		return 1;
	if (n >= 3 && isalpha((unsigned char)s[0]) && s[1] == ':' && (s[2] == '\\' || s[2] == '/'))
		return 1;
	return 0;
}

char *
pipline_dup(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d != NULL) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

int
pipline_is_vcs(const char *url)
{
	static const char *const schemes[] = { "git+", "hg+", "svn+", "bzr+" };

	for (size_t i = 0; i < sizeof schemes / sizeof *schemes; i++)
		if (strncasecmp(url, schemes[i], strlen(schemes[i])) == 0)
			return 1;
	return 0;
}

/* The value of key= among the '&'-separated fragment parameters. */
static char *
fragment_param(const char *frag, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = frag; p && *p; ) {
		size_t n = strcspn(p, "&");
		if (n > k && strncmp(p, key, k) == 0 && p[k] == '=')
			return pipline_dup(p + k + 1, n - k - 1);
		p += n;
		if (*p == '&')
			p++;
	}
	return NULL;
}

void
pipline_url_split(const char *url, struct pipline_url_parts *p)
{
	const char *hash = strchr(url, '#');
	size_t base = hash ? (size_t)(hash - url) : strlen(url);
	const char *sep = strstr(url, "://");
	const char *path;

	memset(p, 0, sizeof *p);
	if (hash != NULL) {
		p->egg = fragment_param(hash + 1, "egg");
		p->subdirectory = fragment_param(hash + 1, "subdirectory");
	}
	if (!pipline_is_vcs(url))
		return;
	if (sep != NULL && (size_t)(sep - url) + 3 > base)
		sep = NULL;  /* a "://" in the fragment is not the scheme's */
	path = sep ? memchr(sep + 3, '/', base - (size_t)(sep + 3 - url)) : NULL;
	if (path == NULL)
		return;
	for (const char *q = url + base; q > path; q--)
		if (q[-1] == '@') {
			p->rev = pipline_dup(q, (size_t)(url + base - q));
			break;
		}
}

void
pipline_url_parts_free(struct pipline_url_parts *p)
{
	free(p->rev);
	free(p->egg);
	free(p->subdirectory);
	memset(p, 0, sizeof *p);
}

int
pipline_is_commit_id(const char *s)
{
	size_t n = 0;

	if (s == NULL)
		return 0;
	while (isxdigit((unsigned char)s[n]))
		n++;
	return s[n] == '\0' && (n == 40 || n == 64);
}
