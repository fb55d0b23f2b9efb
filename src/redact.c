/*
 * redact.c - one redaction for every file kernodeck writes.
 *
 * The text is read line by line and every detector below proposes spans
 * (a value to hide, its kind and the ${NAME} that replaces it):
 *
 *   url-userinfo         scheme://user:password@host (and a token as user)
 *   pip-conf-credential  the same inside an index-url/find-links line
 *   authorization-*      "Authorization: Bearer|Basic|token VALUE", and a
 *                        long "Bearer VALUE" anywhere
 *   private-key          the body of a -----BEGIN ... PRIVATE KEY----- block
 *   aws-access-key, github-token, gitlab-token, huggingface-token,
 *   slack-token, slack-webhook, pypi-token
 *                        tokens of known shapes
 *   secret-assignment    NAME=VALUE, NAME: VALUE, "NAME": "VALUE", --name=VALUE
 *                        where NAME ends in _TOKEN, _SECRET, _PASSWORD,
 *                        _PASSWD, _KEY (or is one of those words)
 *   netrc-password       "password VALUE" in .netrc syntax
 *
 * Overlapping spans are merged (the most specific kind wins, the name of an
 * assignment wins).  Values that are references (${NAME}, $NAME), masks,
 * placeholders (<token>, [PAD]), booleans and expressions are not secrets:
 * that is what keeps the redaction idempotent and the look-alikes quiet.
 * redact_scan and redact_text share all of it.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernodeck/redact.h"

/* Priorities: lower is more specific. */
enum { P_SHAPE = 0, P_KEY = 1, P_AUTH = 2, P_URL = 3, P_ASSIGN = 4 };

struct cand {
	size_t off, len;
	const char *kind;
	char name[64];
	int prio;
};

struct scan {
	const char *t;
	size_t len;
	struct cand *v;
	size_t n, cap;
	int oom;
	unsigned char shape_first[256];   /* 1 for the first byte of a shape's prefix */
};

static void
add(struct scan *s, size_t off, size_t len, const char *kind, const char *name, int prio)
{
	struct cand *c;

	if (len == 0)
		return;
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 16;
		struct cand *nv = realloc(s->v, ncap * sizeof *nv);
		if (nv == NULL) {
			s->oom = 1;
			return;
		}
		s->v = nv;
		s->cap = ncap;
	}
	c = &s->v[s->n++];
	c->off = off;
	c->len = len;
	c->kind = kind;
	c->prio = prio;
	snprintf(c->name, sizeof c->name, "%s", name);
}

static int
is_word(int c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Case-insensitive search of needle in [p, end).  The first byte is
 * compared first (as strncasecmp would: tolower), the rest only there. */
static const char *
find_ci(const char *p, const char *end, const char *needle)
{
	size_t n = strlen(needle);
	int c0;

	if (n == 0)
		return p <= end ? p : NULL;
	c0 = tolower((unsigned char)needle[0]);
	for (; p + n <= end; p++)
		if (tolower((unsigned char)*p) == c0 && strncasecmp(p, needle, n) == 0)
			return p;
	return NULL;
}

/* Case-sensitive search of needle in [p, end). */
static const char *
find_cs(const char *p, const char *end, const char *needle)
{
	return p <= end ? memmem(p, (size_t)(end - p), needle, strlen(needle)) : NULL;
}

static int
is_ident(const char *v, size_t n)
{
	if (n == 0 || !(isalpha((unsigned char)v[0]) || v[0] == '_'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!is_word(v[i]))
			return 0;
	return 1;
}

/* Values that stand for a secret without being one. */
static int
is_placeholder(const char *v, size_t n)
{
	static const char *const words[] = {
		"true", "false", "yes", "no", "on", "off", "none", "null", "nil", "~",
		"redacted", "hidden", "masked", "required", "optional", "secret",
		"password", "token", "undefined", "unset", "empty", "pass", "passwd",
		"pwd", "user", "username",
	};
	size_t i, mask = 0, digits = 0;

	if (n == 0)
		return 1;
	/* env:NAME, the reference's way to name a variable */
	if (n > 4 && memcmp(v, "env:", 4) == 0 && is_ident(v + 4, n - 4))
		return 1;
	if (v[0] == '$' || (n >= 2 && v[0] == '%' && v[1] == '(') ||
	    (n >= 2 && v[0] == '{' && v[1] == '{'))
		return 1;
	if (n >= 2 && ((v[0] == '<' && v[n - 1] == '>') || (v[0] == '[' && v[n - 1] == ']') ||
		       (v[0] == '{' && v[n - 1] == '}') || (v[0] == '(' && v[n - 1] == ')')))
		return 1;
	for (i = 0; i < n; i++) {
		if (strchr("*xX.-_#?:", v[i]))
			mask++;
		if (isdigit((unsigned char)v[i]))
			digits++;
	}
	if (mask == n)
		return 1;
	if (digits == n && n < 6)
		return 1;
	for (i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i]) == n && strncasecmp(words[i], v, n) == 0)
			return 1;
	return 0;
}

/* A random-looking body: enough distinct characters. */
static int
looks_random(const char *v, size_t n)
{
	unsigned char seen[256] = {0};
	size_t distinct = 0;

	for (size_t i = 0; i < n; i++)
		if (!seen[(unsigned char)v[i]]++)
			distinct++;
	return distinct >= 6;
}

static int
has_alpha_and_digit(const char *v, size_t n)
{
	int a = 0, d = 0;

	for (size_t i = 0; i < n; i++) {
		if (isalpha((unsigned char)v[i]))
			a = 1;
		else if (isdigit((unsigned char)v[i]))
			d = 1;
	}
	return a && d;
}

/* --- URL userinfo ------------------------------------------------------- */

/* Is the line a pip configuration line holding URLs (index-url = ...)? */
static int
pip_conf_line(const char *p, const char *end)
{
	static const char *const keys[] = {
		"index-url", "extra-index-url", "find-links", "index_url", "extra_index_url",
		"find_links",
	};

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		size_t k = strlen(keys[i]);
		const char *q = p + k;
		if ((size_t)(end - p) <= k || strncasecmp(p, keys[i], k) != 0)
			continue;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q < end && *q == '=')
			return 1;
	}
	return 0;
}

/* Find URL userinfo in [ls+from, le); sets *off and *n to the userinfo without
 * the '@'.  A user alone (ssh://git@host) is not a credential unless it
 * looks like a token. */
static int
find_userinfo(const char *t, size_t ls, size_t le, size_t from, size_t *off, size_t *n)
{
	for (size_t i = from; i + 3 < le; i++) {
		if (t[i] != ':' || t[i + 1] != '/' || t[i + 2] != '/')
			continue;
		if (i == ls || !isalpha((unsigned char)t[i - 1]))
			continue;
		size_t s = i + 3, j = s;
		const char *colon = NULL;
		while (j < le && !isspace((unsigned char)t[j]) && t[j] != '/' &&
		       t[j] != '@' && t[j] != '"' && t[j] != '\'' && t[j] != '?' &&
		       t[j] != '#' && t[j] != '`' && t[j] != '<' && t[j] != '>') {
			if (t[j] == ':' && colon == NULL)
				colon = t + j;
			j++;
		}
		if (j >= le || t[j] != '@' || j == s)
			continue;
		if (colon != NULL) {
			const char *pw = colon + 1;
			size_t pwn = (size_t)(t + j - pw);
			if (pwn == 0 || pw[0] == '$' || t[s] == '[' || t[s] == '<' ||
			    is_placeholder(pw, pwn))
				continue;
		} else {
			size_t un = j - s;
			if (t[s] == '$' || un < 16 || !has_alpha_and_digit(t + s, un))
				continue;
		}
		*off = s;
		*n = j - s;
		return 1;
	}
	return 0;
}

static void
scan_urls(struct scan *s, size_t ls, size_t le)
{
	size_t pos = ls, off, n;
	int pip = pip_conf_line(s->t + ls, s->t + le);

	while (find_userinfo(s->t, ls, le, pos, &off, &n)) {
		add(s, off, n, pip ? "pip-conf-credential" : "url-userinfo", "CREDENTIALS",
		    pip ? P_AUTH : P_URL);
		pos = off + n;
	}
}

/* --- authorization headers ---------------------------------------------- */

static size_t
token_run(const char *t, size_t p, size_t le)
{
	size_t q = p;

	while (q < le && (isalnum((unsigned char)t[q]) || strchr("._~+/=:-", t[q])))
		q++;
	return q - p;
}

/* Match an authorization scheme word at t[p]; returns its index or -1. */
static int
auth_scheme(const char *t, size_t p, size_t le)
{
	static const char *const words[] = { "bearer", "basic", "token" };

	for (int k = 0; k < 3; k++) {
		size_t wl = strlen(words[k]);
		if (p + wl < le && strncasecmp(t + p, words[k], wl) == 0 &&
		    (t[p + wl] == ' ' || t[p + wl] == '\t'))
			return k;
	}
	return -1;
}

static void
scan_auth(struct scan *s, size_t ls, size_t le)
{
	static const struct { const char *kind, *name; } schemes[] = {
		{ "authorization-bearer", "AUTH_TOKEN" },
		{ "authorization-basic", "BASIC_AUTH" },
		{ "authorization-token", "AUTH_TOKEN" },
	};
	const char *t = s->t, *h = t + ls;
	size_t p, vn;
	int k;

	/* "Authorization: SCHEME VALUE", "authorization = SCHEME VALUE", and
	 * the same inside quotes (JSON, curl -H) */
	while ((h = find_ci(h, t + le, "authorization")) != NULL) {
		p = (size_t)(h - t) + 13;
		h++;
		while (p < le && strchr(" \t\"'", t[p]) && t[p] != '\0')
			p++;
		if (p >= le || (t[p] != ':' && t[p] != '='))
			continue;
		p++;
		while (p < le && strchr(" \t\"'", t[p]) && t[p] != '\0')
			p++;
		if ((k = auth_scheme(t, p, le)) < 0)
			continue;
		while (p < le && !isspace((unsigned char)t[p]))
			p++;
		while (p < le && (t[p] == ' ' || t[p] == '\t'))
			p++;
		vn = token_run(t, p, le);
		if (vn > 0 && !is_placeholder(t + p, vn))
			add(s, p, vn, schemes[k].kind, schemes[k].name, P_AUTH);
	}
	/* a long bearer token anywhere (logs of HTTP clients); only a b or B
	 * can start "bearer" (auth_scheme 0) */
	for (size_t i = ls; i < le; i++) {
		if ((t[i] | 0x20) != 'b' || (i > ls && is_word(t[i - 1])) ||
		    auth_scheme(t, i, le) != 0)
			continue;
		p = i + 6;
		while (p < le && (t[p] == ' ' || t[p] == '\t'))
			p++;
		vn = token_run(t, p, le);
		if (vn >= 20 && has_alpha_and_digit(t + p, vn) && !is_placeholder(t + p, vn) &&
		    !find_cs(t + p, t + p + vn, "://"))
			add(s, p, vn, schemes[0].kind, schemes[0].name, P_AUTH);
	}
}

/* --- tokens of known shapes --------------------------------------------- */

struct shape {
	const char *prefix;
	const char *chars;    /* allowed in the body besides alnum, or "" */
	size_t min, max;      /* body length */
	int upper_digits;     /* body is [A-Z0-9] only */
	int need_digit;       /* the body has letters and digits */
	const char *kind, *name;
	int keep_prefix;      /* redact only the body */
};

static const struct shape shapes[] = {
	{ "AKIA", "", 16, 16, 1, 1, "aws-access-key", "AWS_ACCESS_KEY_ID", 0 },
	{ "ASIA", "", 16, 16, 1, 1, "aws-access-key", "AWS_ACCESS_KEY_ID", 0 },
	{ "ghp_", "", 30, 255, 0, 0, "github-token", "GITHUB_TOKEN", 0 },
	{ "gho_", "", 30, 255, 0, 0, "github-token", "GITHUB_TOKEN", 0 },
	{ "ghu_", "", 30, 255, 0, 0, "github-token", "GITHUB_TOKEN", 0 },
	{ "ghs_", "", 30, 255, 0, 0, "github-token", "GITHUB_TOKEN", 0 },
	{ "ghr_", "", 30, 255, 0, 0, "github-token", "GITHUB_TOKEN", 0 },
	{ "github_pat_", "_", 22, 255, 0, 0, "github-token", "GITHUB_TOKEN", 0 },
	{ "glpat-", "_-", 20, 255, 0, 0, "gitlab-token", "GITLAB_TOKEN", 0 },
	{ "gldt-", "_-", 20, 255, 0, 0, "gitlab-token", "GITLAB_TOKEN", 0 },
	{ "glrt-", "_-", 20, 255, 0, 0, "gitlab-token", "GITLAB_TOKEN", 0 },
	{ "glptt-", "_-", 20, 255, 0, 0, "gitlab-token", "GITLAB_TOKEN", 0 },
	{ "hf_", "", 30, 255, 0, 0, "huggingface-token", "HF_TOKEN", 0 },
	{ "xoxb-", "-", 10, 255, 0, 1, "slack-token", "SLACK_TOKEN", 0 },
	{ "xoxp-", "-", 10, 255, 0, 1, "slack-token", "SLACK_TOKEN", 0 },
	{ "xoxa-", "-", 10, 255, 0, 1, "slack-token", "SLACK_TOKEN", 0 },
	{ "xoxo-", "-", 10, 255, 0, 1, "slack-token", "SLACK_TOKEN", 0 },
	{ "xoxr-", "-", 10, 255, 0, 1, "slack-token", "SLACK_TOKEN", 0 },
	{ "xoxs-", "-", 10, 255, 0, 1, "slack-token", "SLACK_TOKEN", 0 },
	{ "hooks.slack.com/services/", "/_", 20, 255, 0, 0, "slack-webhook", "SLACK_WEBHOOK", 1 },
	{ "pypi-AgE", "_-", 40, 4096, 0, 0, "pypi-token", "PYPI_TOKEN", 0 },
};

static int
body_char(const struct shape *sh, int c)
{
	if (sh->upper_digits)
		return isupper((unsigned char)c) || isdigit((unsigned char)c);
	return isalnum((unsigned char)c) || (c != 0 && strchr(sh->chars, c) != NULL);
}

static void
scan_shapes(struct scan *s, size_t ls, size_t le)
{
	const char *t = s->t;

	for (size_t i = ls; i < le; i++) {
		/* most bytes start no prefix (shape_first, set by collect) */
		if (!s->shape_first[(unsigned char)t[i]] ||
		    (i > ls && isalnum((unsigned char)t[i - 1])))
			continue;
		for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
			const struct shape *sh = &shapes[k];
			size_t pl, b, e;
			if (t[i] != sh->prefix[0])
				continue;
			pl = strlen(sh->prefix);
			if (i + pl > le || memcmp(t + i, sh->prefix, pl) != 0)
				continue;
			b = e = i + pl;
			while (e < le && body_char(sh, t[e]))
				e++;
			/* a longer word is something else (AKIA... inside a word) */
			if (e < le && isalnum((unsigned char)t[e]))
				continue;
			if (e - b < sh->min || e - b > sh->max || !looks_random(t + b, e - b) ||
			    (sh->need_digit && !has_alpha_and_digit(t + b, e - b)))
				continue;
			if (e - b >= 7 && memcmp(t + e - 7, "EXAMPLE", 7) == 0)
				continue;   /* AWS's documented example keys */
			if (sh->keep_prefix)
				add(s, b, e - b, sh->kind, sh->name, P_SHAPE);
			else
				add(s, i, e - i, sh->kind, sh->name, P_SHAPE);
			break;
		}
	}
}

/* --- secret-named assignments -------------------------------------------- */

/* An expression rather than a literal: os.environ["X"], getenv("X"),
 * args.token. */
static int
is_expression(const char *v, size_t n)
{
	size_t i = 0;
	int dots = 0;

	if (n == 0 || !(isalpha((unsigned char)v[0]) || v[0] == '_'))
		return 0;
	while (i < n && (is_word(v[i]) || v[i] == '.')) {
		if (v[i] == '.')
			dots++;
		i++;
	}
	if (i < n && (v[i] == '(' || v[i] == '['))
		return 1;
	return i == n && dots > 0 && v[n - 1] != '.';
}

/* Parse the value after a separator at t[p]; sets *vo and *vn. */
static void
assign_value(const char *t, size_t p, size_t le, int json, size_t *vo, size_t *vn)
{
	while (p < le && (t[p] == ' ' || t[p] == '\t'))
		p++;
	*vo = p;
	*vn = 0;
	if (p >= le)
		return;
	if (t[p] == '"' || t[p] == '\'') {
		char q = t[p];
		size_t e = p + 1;
		while (e < le && t[e] != q) {
			if (q == '"' && t[e] == '\\' && e + 1 < le)
				e++;
			e++;
		}
		if (e >= le)
			return;   /* unterminated: not a simple value */
		*vo = p + 1;
		*vn = e - p - 1;
		return;
	}
	size_t e = p;
	while (e < le && !isspace((unsigned char)t[e]) && t[e] != '"' && t[e] != '\'' &&
	       t[e] != ';' && t[e] != '&' && t[e] != '`' &&
	       !(json && (t[e] == ',' || t[e] == '}' || t[e] == ']')))
		e++;
	*vn = e - p;
}

/* Does an upper-cased, '_'-normalised name name a secret?  Returns 1 for
 * *_TOKEN/_SECRET/_PASSWORD/_PASSWD, 2 for *_KEY (stricter on values). */
static int
secret_name(const char *n)
{
	static const char *const exact[] = {
		"TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY", "PASSPHRASE",
	};
	static const char *const suffix[] = {
		"_TOKEN", "_SECRET", "_PASSWORD", "_PASSWD", "_APIKEY", "_PASSPHRASE",
	};
	size_t l = strlen(n);

	for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
		if (strcmp(n, exact[i]) == 0)
			return 1;
	for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
		size_t sl = strlen(suffix[i]);
		if (l > sl && strcmp(n + l - sl, suffix[i]) == 0)
			return 1;
	}
	if (l > 4 && strcmp(n + l - 4, "_KEY") == 0)
		return 2;
	return 0;
}

/* Is the value after a separator a literal secret rather than code, a
 * type, a reference or a placeholder?  Source lines (tracebacks in logs
 * quote them) assign names, not secrets: an unquoted identifier without a
 * digit is taken for a name, except in NAME=value with an upper-case NAME
 * (the environment's convention). */
static int
literal_value(const char *t, size_t sep, size_t vo, size_t vn, int quoted,
	      const char *name)
{
	static const char *const types[] = {
		"str", "bytes", "int", "bool", "float", "Any", "SecretStr", "object",
	};
	int upper = 1, spaced, unquoted = vo == 0 || (t[vo - 1] != '"' && t[vo - 1] != '\'');
	size_t n = vn;

	(void)quoted;
	for (n = 0; n < vn && !isalnum((unsigned char)t[vo + n]); n++)
		;
	if (n == vn)
		return 0;   /* no letter or digit at all */
	n = vn;
	if (vn == 0 || is_placeholder(t + vo, vn) || is_expression(t + vo, vn))
		return 0;
	if (vn < 64 && is_ident(t + vo, vn)) {
		/* the name of a variable that holds it: 'GITHUB_TOKEN' */
		char up[64];
		for (size_t i = 0; i < vn; i++)
			up[i] = (char)toupper((unsigned char)t[vo + i]);
		up[vn] = '\0';
		if (strchr(up, '_') != NULL && secret_name(up) != 0)
			return 0;
	}
	if (!unquoted)
		return 1;
	if (t[vo] == '(' || t[vo] == '[' || t[vo] == '{' || t[vo] == '#' || t[vo] == '%')
		return 0;   /* code, a comment, a format */
	if (t[sep] == ':' && (t[vo] == '|' || t[vo] == '>') && vn == 1)
		return 0;   /* a YAML block scalar: not a one-line value */
	while (n > 0 && strchr(",)=:", t[vo + n - 1]))
		n--;
	if (n == 0 || is_placeholder(t + vo, n) || is_expression(t + vo, n))
		return 0;
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strlen(types[i]) == n && memcmp(types[i], t + vo, n) == 0)
			return 0;
	for (const char *c = name; *c; c++)
		if (islower((unsigned char)*c))
			upper = 0;
	spaced = sep > 0 && (t[sep - 1] == ' ' || t[sep - 1] == '\t');
	if ((t[sep] == '=' || n < vn) && is_ident(t + vo, n)) {
		int digit = 0;
		for (size_t i = 0; i < n; i++)
			if (isdigit((unsigned char)t[vo + i]))
				digit = 1;
		if (!digit && (spaced || !upper || n < vn))
			return 0;
	}
	return 1;
}

static void
scan_assign_at(struct scan *s, size_t ls, size_t le, size_t sep)
{
	const char *t = s->t;
	char name[64];
	size_t j = sep, ne, nb, vo, vn, k;
	int quoted = 0, kind;

	/* the name, read backwards */
	while (j > ls && (t[j - 1] == ' ' || t[j - 1] == '\t'))
		j--;
	if (j > ls && (t[j - 1] == '"' || t[j - 1] == '\'')) {
		quoted = 1;
		j--;
	}
	ne = j;
	while (j > ls && (is_word(t[j - 1]) || t[j - 1] == '-' || t[j - 1] == '.'))
		j--;
	nb = j;
	while (nb < ne && t[nb] == '-')
		nb++;
	if (nb >= ne || !(isalpha((unsigned char)t[nb]) || t[nb] == '_') || ne - nb >= sizeof name)
		return;
	if (quoted && (j == ls || (t[j - 1] != '"' && t[j - 1] != '\'')))
		return;
	if (quoted)
		j--;
	if (j > ls && (t[j - 1] == '$' || t[j - 1] == '{'))
		return;
	if (t[sep] == ':') {
		/* YAML key at the start of a line (after "- "), or a quoted JSON key */
		size_t h = ls;
		while (h < j && (t[h] == ' ' || t[h] == '\t' || t[h] == '-'))
			h++;
		if (!quoted && h != j)
			return;
	} else if (j > ls && (t[j - 1] == '(' || t[j - 1] == ',')) {
		/* a keyword argument: f(token=name) passes a variable */
		assign_value(t, sep + 1, le, 0, &vo, &vn);
		while (vn > 0 && (t[vo + vn - 1] == ')' || t[vo + vn - 1] == ','))
			vn--;
		if (is_ident(t + vo, vn))
			return;
	}
	for (k = 0; nb + k < ne; k++) {
		char c = t[nb + k];
		name[k] = (c == '-' || c == '.') ? '_' : (char)toupper((unsigned char)c);
	}
	name[k] = '\0';
	kind = secret_name(name);
	if (kind == 0)
		return;
	assign_value(t, sep + 1, le, quoted, &vo, &vn);
	if (!literal_value(t, sep, vo, vn, quoted, name))
		return;
	if (kind == 2) {
		/* *_KEY: only a long, random value that is not a path */
		if (t[vo] == '/' || t[vo] == '~' || t[vo] == '.' || vn < 16 ||
		    !has_alpha_and_digit(t + vo, vn) || !looks_random(t + vo, vn))
			return;
	}
	/* a name ending in the suffix but with a leading '_' keeps it out */
	add(s, vo, vn, "secret-assignment", name[0] == '_' ? name + 1 : name, P_ASSIGN);
}

static void
scan_assign(struct scan *s, size_t ls, size_t le)
{
	const char *t = s->t;

	for (size_t i = ls + 1; i < le; i++) {
		if (t[i] == '=') {
			if (t[i - 1] == '=' || (i + 1 < le && t[i + 1] == '=') ||
			    strchr("!<>~", t[i - 1]))
				continue;
			scan_assign_at(s, ls, le, i);
		} else if (t[i] == ':') {
			if (i + 1 < le && t[i + 1] != ' ' && t[i + 1] != '\t' &&
			    t[i + 1] != '"' && t[i + 1] != '\'')
				continue;
			scan_assign_at(s, ls, le, i);
		}
	}
}

/* --- .netrc -------------------------------------------------------------- */

static int
word_is(const char *w, size_t n, const char *s)
{
	return strlen(s) == n && memcmp(w, s, n) == 0;
}

/* Words of a netrc line; returns 1 when the line is in netrc syntax so
 * that the next line continues it (a machine's login and password often
 * stand on lines of their own). */
static int
scan_netrc(struct scan *s, size_t ls, size_t le, int prev)
{
	const char *t = s->t;
	size_t p = ls, w[64][2], nw = 0;
	int netrc;

	while (p < le && nw < 64) {
		while (p < le && isspace((unsigned char)t[p]))
			p++;
		if (p >= le)
			break;
		w[nw][0] = p;
		while (p < le && !isspace((unsigned char)t[p]))
			p++;
		w[nw][1] = p - w[nw][0];
		nw++;
	}
	if (nw == 0)
		return prev;
#define W(i, s) word_is(t + w[i][0], w[i][1], s)
	netrc = (W(0, "machine") && (nw == 2 || (nw >= 3 && (W(2, "login") ||
			W(2, "password") || W(2, "account"))))) ||
		(W(0, "default") && (nw == 1 || W(1, "login") || W(1, "password"))) ||
		(prev && (W(0, "login") || W(0, "password") || W(0, "account") ||
			  W(0, "macdef")));
	if (!netrc)
		return 0;
	for (size_t i = 0; i + 1 < nw; i++)
		if (W(i, "password") && !is_placeholder(t + w[i + 1][0], w[i + 1][1]))
			add(s, w[i + 1][0], w[i + 1][1], "netrc-password", "NETRC_PASSWORD",
			    P_AUTH);
#undef W
	return 1;
}

/* --- private keys ----------------------------------------------------------- */

/* Called on each line; *inkey holds the offset where an open block's body
 * starts (+1), or 0. */
static void
scan_keys(struct scan *s, size_t ls, size_t le, size_t *inkey)
{
	const char *t = s->t, *b, *e;

	if (*inkey) {
		e = find_cs(t + ls, t + le, "-----END ");
		if (e == NULL)
			return;
		size_t body = *inkey - 1, end = ls;
		while (end > body && (t[end - 1] == '\n' || t[end - 1] == '\r'))
			end--;
		/* the body is already a reference */
		if (!(end - body >= 3 && t[body] == '$' && t[body + 1] == '{'))
			add(s, body, end - body, "private-key", "PRIVATE_KEY", P_KEY);
		*inkey = 0;
		return;
	}
	b = find_cs(t + ls, t + le, "-----BEGIN ");
	if (b == NULL)
		return;
	const char *m = find_cs(b, t + le, "PRIVATE KEY");
	if (m == NULL)
		return;
	const char *close = find_cs(m, t + le, "-----");
	if (close == NULL)
		return;
	close += 5;
	e = find_cs(close, t + le, "-----END ");
	if (e != NULL) {
		/* one line: a JSON string with \n escapes */
		const char *vb = close, *ve = e;
		while (ve - vb >= 2 && vb[0] == '\\' && vb[1] == 'n')
			vb += 2;
		while (ve - 2 >= vb && ve[-2] == '\\' && ve[-1] == 'n')
			ve -= 2;
		if (ve > vb && !(ve - vb >= 3 && vb[0] == '$' && vb[1] == '{'))
			add(s, (size_t)(vb - t), (size_t)(ve - vb), "private-key", "PRIVATE_KEY", P_KEY);
		return;
	}
	*inkey = (le < s->len ? le + 1 : le) + 1;
}

/* --- driver ------------------------------------------------------------------ */

static int
cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio - y->prio;
	return x->len > y->len ? -1 : x->len < y->len;
}

/* Run every detector, then sort and merge overlapping spans. */
static int
collect(const char *text, size_t len, struct scan *s)
{
	size_t ls = 0, inkey = 0, n = 0;
	int netrc = 0;

	memset(s, 0, sizeof *s);
	s->t = text;
	s->len = len;
	for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
		s->shape_first[(unsigned char)shapes[k].prefix[0]] = 1;
	while (ls < len) {
		const char *nl = memchr(text + ls, '\n', len - ls);
		size_t le = nl ? (size_t)(nl - text) : len;
		scan_keys(s, ls, le, &inkey);
		scan_urls(s, ls, le);
		scan_auth(s, ls, le);
		scan_shapes(s, ls, le);
		scan_assign(s, ls, le);
		netrc = scan_netrc(s, ls, le, netrc);
		ls = le + 1;
	}
	if (inkey && inkey - 1 < len) {
		/* a block cut before its END line: hide the rest */
		size_t body = inkey - 1;
		add(s, body, len - body, "private-key", "PRIVATE_KEY", P_KEY);
	}
	if (s->oom)
		return -1;
	if (s->n > 1)  /* qsort's base may not be NULL, even for 0 elements */
		qsort(s->v, s->n, sizeof *s->v, cand_cmp);
	for (size_t i = 0; i < s->n; i++) {
		struct cand *c = &s->v[i];
		if (n > 0) {
			struct cand *k = &s->v[n - 1];
			size_t kend = k->off + k->len;
			if (c->off < kend) {
				/* the most specific kind, an assignment's name */
				if (c->prio < k->prio) {
					k->kind = c->kind;
					k->prio = c->prio;
				}
				if (c->prio == P_ASSIGN && k->prio != P_ASSIGN)
					memcpy(k->name, c->name, sizeof k->name);
				if (c->off + c->len > kend)
					k->len = c->off + c->len - k->off;
				continue;
			}
		}
		s->v[n++] = *c;
	}
	s->n = n;
	return 0;
}

size_t
redact_scan(const char *text, size_t len, struct redact_finding *out, size_t max)
{
	struct scan s;
	size_t pos = 0;
	int line = 1;

	if (collect(text, len, &s) < 0) {
		free(s.v);
		return 0;
	}
	for (size_t i = 0; i < s.n && i < max; i++) {
		for (; pos < s.v[i].off; pos++)
			if (text[pos] == '\n')
				line++;
		out[i].line = line;
		out[i].kind = s.v[i].kind;
		out[i].off = s.v[i].off;
		out[i].len = s.v[i].len;
		snprintf(out[i].name, sizeof out[i].name, "%s", s.v[i].name);
	}
	free(s.v);
	return s.n;
}

char *
redact_apply(const char *text, size_t len, const struct redact_finding *f, size_t n,
	     size_t *lenp)
{
	size_t cap = len + 1, olen = 0, pos = 0;
	char *o;

	for (size_t i = 0; i < n; i++)
		cap += strlen(f[i].name) + 3;
	o = malloc(cap);
	if (o == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (f[i].off < pos || f[i].off + f[i].len > len)
			continue;   /* out of order or out of range: skip */
		memcpy(o + olen, text + pos, f[i].off - pos);
		olen += f[i].off - pos;
		olen += (size_t)snprintf(o + olen, cap - olen, "${%s}", f[i].name);
		pos = f[i].off + f[i].len;
	}
	memcpy(o + olen, text + pos, len - pos);
	olen += len - pos;
	o[olen] = '\0';
	if (lenp)
		*lenp = olen;
	return o;
}

char *
redact_text(const char *text, size_t len, size_t *lenp)
{
	struct scan s;
	struct redact_finding *f;
	char *o;

	if (collect(text, len, &s) < 0) {
		free(s.v);
		return NULL;
	}
	f = calloc(s.n ? s.n : 1, sizeof *f);
	if (f == NULL) {
		free(s.v);
		return NULL;
	}
	for (size_t i = 0; i < s.n; i++) {
		f[i].off = s.v[i].off;
		f[i].len = s.v[i].len;
		f[i].kind = s.v[i].kind;
		snprintf(f[i].name, sizeof f[i].name, "%s", s.v[i].name);
	}
	o = redact_apply(text, len, f, s.n, lenp);
	free(f);
	free(s.v);
	return o;
}

char *
redact_url(const char *url, int *had)
{
	size_t off, n, len = strlen(url);
	char *o;

	if (had)
		*had = 0;
	if (!find_userinfo(url, 0, len, 0, &off, &n))
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

const char *
redact_credential_file(const char *path)
{
	static const struct { const char *name, *kind; } files[] = {
		{ ".netrc", "netrc-file" }, { "_netrc", "netrc-file" },
		{ ".git-credentials", "credentials-file" }, { ".pypirc", "credentials-file" },
		{ "credentials", "credentials-file" },
	};
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
		if (strcmp(base, files[i].name) == 0)
			return files[i].kind;
	return NULL;
}
