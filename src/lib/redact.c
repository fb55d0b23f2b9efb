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
enum { P_SHAPE = 0, P_KEY = 1, P_AUTH = 2, P_URL = 3, P_ASSIGN = 4, P_VALUE = 5 };

#define REDACT_PASSES 4   /* passes of the rules over their own output */

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
	unsigned char shape_first[256];   /* 1 + the first shape whose prefix starts so */
	unsigned char shape_next[128];    /* 1 + the next shape with the same first byte */
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

/* A user name alone is an account, not a secret (git@, alice@, oauth2@),
 * unless it is long or mixes cases and digits the way tokens do. */
static int
token_user(const char *u, size_t n)
{
	int up = 0, lo = 0, dg = 0;

	if (n == 0 || u[0] == '$' || u[0] == '%' || u[0] == '<' || u[0] == '[' ||
	    is_placeholder(u, n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		up |= isupper((unsigned char)u[i]) != 0;
		lo |= islower((unsigned char)u[i]) != 0;
		dg |= isdigit((unsigned char)u[i]) != 0;
	}
	if (n >= 16)
		return has_alpha_and_digit(u, n) || (up && lo) || (n >= 24 && looks_random(u, n));
	return n >= 8 && up && lo && dg;
}

/* Find URL userinfo in [ls+from, le); sets *off and *n to the userinfo without
 * the '@'.  The authority ends at '/', '?', '#', a blank or a quote; the
 * userinfo ends at its last '@' (a raw '@' in a password).  A user alone
 * (ssh://git@host) is not a credential unless it looks like a token
 * (https://TOKEN@host). */
static int
find_userinfo(const char *t, size_t ls, size_t le, size_t from, size_t *off, size_t *n)
{
	for (size_t i = from; i + 3 < le; i++) {
		if (t[i] != ':' || t[i + 1] != '/' || t[i + 2] != '/')
			continue;
		if (i == ls || !isalpha((unsigned char)t[i - 1]))
			continue;
		size_t s = i + 3, j = s, at = 0;
		while (j < le && !isspace((unsigned char)t[j]) && t[j] != '/' &&
		       t[j] != '"' && t[j] != '\'' && t[j] != '?' && t[j] != '#' &&
		       t[j] != '`' && t[j] != '<' && t[j] != '>' && t[j] != ',' && t[j] != ';') {
			if (t[j] == '@')
				at = j;
			j++;
		}
		if (at == 0 || at == s)
			continue;
		const char *colon = memchr(t + s, ':', at - s);
		if (colon != NULL) {
			const char *pw = colon + 1;
			size_t pwn = (size_t)(t + at - pw);
			if (pwn == 0 || pw[0] == '$' || t[s] == '[' || t[s] == '<' ||
			    is_placeholder(pw, pwn))
				continue;
		} else if (!token_user(t + s, at - s)) {
			continue;
		}
		*off = s;
		*n = at - s;
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

/* An Authorization value without a known scheme: a raw token, or another
 * scheme (Digest, AWS4-HMAC-SHA256, Negotiate) whose parameters run to the
 * end of the value. */
static void
other_auth(struct scan *s, size_t p, size_t le)
{
	const char *t = s->t;
	size_t w = p, e;

	while (w < le && (isalnum((unsigned char)t[w]) || t[w] == '-'))
		w++;
	if (w > p && w < le && t[w] == ' ' && isupper((unsigned char)t[p])) {
		/* SCHEME params: the rest of the value */
		e = w + 1;
		while (e < le && t[e] != '"' && t[e] != '\'' && t[e] != '\r')
			e++;
		while (e > w && t[e - 1] == ' ')
			e--;
		if (e - w - 1 >= 8 && has_alpha_and_digit(t + w + 1, e - w - 1))
			add(s, w + 1, e - w - 1, "authorization-other", "AUTHORIZATION", P_AUTH);
		return;
	}
	e = token_run(t, p, le);
	if (e >= 12 && has_alpha_and_digit(t + p, e) && !is_placeholder(t + p, e) &&
	    looks_random(t + p, e))
		add(s, p, e, "authorization-token", "AUTH_TOKEN", P_AUTH);
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
		if ((k = auth_scheme(t, p, le)) < 0) {
			other_auth(s, p, le);
			continue;
		}
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
	int (*check)(const char *b, size_t n);   /* more of the shape, or NULL */
};

/* A JWT's payload and signature after "eyJ": two dots, three base64url
 * parts of some length (the header is JSON, so it starts eyJ). */
static int
jwt_check(const char *b, size_t n)
{
	size_t dots[3], nd = 0;

	for (size_t i = 0; i < n; i++)
		if (b[i] == '.') {
			if (nd == 3)
				return 0;
			dots[nd++] = i;
		}
	if (nd != 2)
		return 0;
	return dots[0] >= 7 && dots[1] - dots[0] > 10 && n - dots[1] > 10;
}

/* SendGrid: SG.<22>.<43>. */
static int
sendgrid_check(const char *b, size_t n)
{
	const char *d = memchr(b, '.', n);

	return d != NULL && d - b >= 16 && n - (size_t)(d - b) > 30 &&
	       memchr(d + 1, '.', n - (size_t)(d - b) - 1) == NULL;
}

/* A Discord webhook: a numeric id, then a token. */
static int
discord_check(const char *b, size_t n)
{
	size_t i = 0;

	while (i < n && isdigit((unsigned char)b[i]))
		i++;
	return i >= 15 && i < n && b[i] == '/' && n - i > 40;
}

#define AWS(p) { p, "", 16, 16, 1, 1, "aws-access-key", "AWS_ACCESS_KEY_ID", 0, NULL }
#define GH(p) { p, "", 30, 255, 0, 0, "github-token", "GITHUB_TOKEN", 0, NULL }
#define GL(p) { p, "_-", 20, 255, 0, 0, "gitlab-token", "GITLAB_TOKEN", 0, NULL }
#define SLACK(p) { p, "-", 10, 255, 0, 1, "slack-token", "SLACK_TOKEN", 0, NULL }
#define STRIPE(p) { p, "", 20, 255, 0, 1, "stripe-key", "STRIPE_API_KEY", 0, NULL }

/* In order: a longer prefix before a shorter one that it extends. */
static const struct shape shapes[] = {
	AWS("AKIA"), AWS("ASIA"), AWS("ABIA"), AWS("ACCA"), AWS("AGPA"), AWS("AIDA"),
	AWS("AIPA"), AWS("ANPA"), AWS("ANVA"), AWS("APKA"), AWS("AROA"), AWS("ASCA"),
	GH("ghp_"), GH("gho_"), GH("ghu_"), GH("ghs_"), GH("ghr_"),
	{ "github_pat_", "_", 22, 255, 0, 0, "github-token", "GITHUB_TOKEN", 0, NULL },
	GL("glpat-"), GL("gldt-"), GL("glrt-"), GL("glptt-"), GL("gloas-"), GL("glcbt-"),
	{ "hf_", "", 30, 255, 0, 0, "huggingface-token", "HF_TOKEN", 0, NULL },
	{ "api_org_", "", 30, 255, 0, 0, "huggingface-token", "HF_TOKEN", 0, NULL },
	{ "sk-ant-", "_-", 32, 255, 0, 1, "anthropic-key", "ANTHROPIC_API_KEY", 0, NULL },
	{ "sk-proj-", "_-", 20, 255, 0, 1, "openai-key", "OPENAI_API_KEY", 0, NULL },
	{ "sk-svcacct-", "_-", 20, 255, 0, 1, "openai-key", "OPENAI_API_KEY", 0, NULL },
	{ "sk-admin-", "_-", 20, 255, 0, 1, "openai-key", "OPENAI_API_KEY", 0, NULL },
	{ "sk-", "", 20, 255, 0, 1, "openai-key", "OPENAI_API_KEY", 0, NULL },
	STRIPE("sk_live_"), STRIPE("sk_test_"), STRIPE("rk_live_"), STRIPE("rk_test_"),
	STRIPE("whsec_"),
	{ "AIza", "_-", 35, 35, 0, 0, "google-api-key", "GOOGLE_API_KEY", 0, NULL },
	{ "GOCSPX-", "_-", 24, 64, 0, 0, "google-oauth-secret", "GOOGLE_CLIENT_SECRET", 0, NULL },
	{ "ya29.", "_-.", 30, 2048, 0, 0, "google-oauth-token", "GOOGLE_OAUTH_TOKEN", 0, NULL },
	SLACK("xoxb-"), SLACK("xoxp-"), SLACK("xoxa-"), SLACK("xoxo-"), SLACK("xoxr-"),
	SLACK("xoxs-"), SLACK("xoxe-"), SLACK("xoxe.xoxp-"), SLACK("xapp-"),
	{ "hooks.slack.com/services/", "/_", 20, 255, 0, 0, "slack-webhook", "SLACK_WEBHOOK", 1, NULL },
	{ "hooks.slack.com/workflows/", "/_", 20, 255, 0, 0, "slack-webhook", "SLACK_WEBHOOK", 1, NULL },
	{ "hooks.slack.com/triggers/", "/_", 20, 255, 0, 0, "slack-webhook", "SLACK_WEBHOOK", 1, NULL },
	{ "discord.com/api/webhooks/", "/_-", 50, 255, 0, 0, "discord-webhook", "DISCORD_WEBHOOK", 1,
	  discord_check },
	{ "discordapp.com/api/webhooks/", "/_-", 50, 255, 0, 0, "discord-webhook", "DISCORD_WEBHOOK",
	  1, discord_check },
	{ "npm_", "", 36, 36, 0, 1, "npm-token", "NPM_TOKEN", 0, NULL },
	{ "pypi-AgE", "_-", 40, 4096, 0, 0, "pypi-token", "PYPI_TOKEN", 0, NULL },
	{ "SG.", "_-.", 60, 80, 0, 0, "sendgrid-key", "SENDGRID_API_KEY", 0, sendgrid_check },
	{ "eyJ", "_-.", 30, 8192, 0, 0, "jwt", "JWT", 0, jwt_check },
	{ "dop_v1_", "", 64, 64, 0, 1, "digitalocean-token", "DIGITALOCEAN_TOKEN", 0, NULL },
	{ "shpat_", "", 32, 32, 0, 1, "shopify-token", "SHOPIFY_TOKEN", 0, NULL },
	{ "r8_", "", 37, 40, 0, 1, "replicate-token", "REPLICATE_API_TOKEN", 0, NULL },
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
		for (size_t k = s->shape_first[(unsigned char)t[i]]; k != 0; k = s->shape_next[k - 1]) {
			const struct shape *sh = &shapes[k - 1];
			size_t pl, b, e;
			pl = strlen(sh->prefix);
			if (i + pl > le || memcmp(t + i, sh->prefix, pl) != 0)
				continue;
			b = e = i + pl;
			while (e < le && body_char(sh, t[e]))
				e++;
			/* a longer word is something else (AKIA... inside a word) */
			if (e < le && isalnum((unsigned char)t[e]))
				continue;
			/* a trailing '.' or '-' ends a sentence, not the token */
			while (e > b && t[e - 1] == '.')
				e--;
			if (e - b < sh->min || e - b > sh->max || !looks_random(t + b, e - b) ||
			    (sh->need_digit && !has_alpha_and_digit(t + b, e - b)) ||
			    (sh->check != NULL && !sh->check(t + b, e - b)))
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
		"_PASS", "_PWD",
	};
	size_t l = strlen(n);

	if (strcmp(n, "SIG") == 0 || strcmp(n, "SIGNATURE") == 0 ||
	    (l > 10 && strcmp(n + l - 10, "_SIGNATURE") == 0))
		return 2;

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

/* A YAML value that is prose or a tag, not one word: "files systemd",
 * "<your password>", "!vault |". */
static int
yaml_prose(const char *t, size_t p, size_t le)
{
	while (p < le && (t[p] == ' ' || t[p] == '\t'))
		p++;
	if (p < le && (t[p] == '!' || t[p] == '&' || t[p] == '*'))
		return 1;
	if (p < le && (t[p] == '"' || t[p] == '\''))
		return 0;
	while (p < le && !isspace((unsigned char)t[p]))
		p++;
	while (p < le && (t[p] == ' ' || t[p] == '\t'))
		p++;
	return p < le && t[p] != '#' && t[p] != '\r';
}

/* A name upper-cased with '_' for '-', '.' and a camelCase hump:
 * apiKey, api-key and API_KEY are all API_KEY. */
static void
name_of(const char *v, size_t n, char *out, size_t cap)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k + 2 < cap; i++) {
		char c = v[i];
		if (i > 0 && isupper((unsigned char)c) && islower((unsigned char)v[i - 1]))
			out[k++] = '_';
		out[k++] = (c == '-' || c == '.') ? '_' : (char)toupper((unsigned char)c);
	}
	out[k] = '\0';
}

static int
ends_with(const char *s, const char *suf)
{
	size_t l = strlen(s), sl = strlen(suf);

	return l >= sl && strcmp(s + l - sl, suf) == 0;
}

/* The kind of a secret-named value, by its name. */
static const char *
assign_kind(const char *n)
{
	if (ends_with(n, "SECRET_ACCESS_KEY"))
		return "aws-secret-key";
	if (ends_with(n, "SESSION_TOKEN") || ends_with(n, "SECURITY_TOKEN"))
		return "aws-session-token";
	if (ends_with(n, "ACCOUNT_KEY") || ends_with(n, "SHARED_ACCESS_KEY"))
		return "azure-key";
	if (ends_with(n, "SHARED_ACCESS_SIGNATURE"))
		return "azure-sas";
	if (strcmp(n, "SIG") == 0 || ends_with(n, "SIGNATURE"))
		return "url-signature";
	return "secret-assignment";
}

/* "--password VALUE", "--api-key VALUE" (the value as the next word), and
 * "-u user:password" / "--user user:password". */
static void
scan_options(struct scan *s, size_t ls, size_t le)
{
	const char *t = s->t;
	const char *p = t + ls;
	char name[64];

	while ((p = find_cs(p, t + le, "-")) != NULL) {
		size_t o = (size_t)(p - t), nb, ne, vo, vn;
		int user;
		p++;
		if (o > ls && !isspace((unsigned char)t[o - 1]) && t[o - 1] != '"' &&
		    t[o - 1] != '\'' && t[o - 1] != '-')
			continue;
		nb = o;
		while (nb < le && t[nb] == '-')
			nb++;
		if (nb - o > 2 || nb >= le || !isalpha((unsigned char)t[nb]))
			continue;
		ne = nb;
		while (ne < le && (is_word(t[ne]) || t[ne] == '-'))
			ne++;
		p = t + ne;
		if (ne >= le || (t[ne] != ' ' && t[ne] != '\t') || ne - nb >= sizeof name)
			continue;
		name_of(t + nb, ne - nb, name, sizeof name);
		user = strcmp(name, "USER") == 0 || (nb - o == 1 && strcmp(name, "U") == 0);
		if (!user && (nb - o != 2 || secret_name(name) == 0))
			continue;
		assign_value(t, ne, le, 0, &vo, &vn);
		if (vn == 0 || t[vo] == '-' || !literal_value(t, ne, vo, vn, 0, name))
			continue;
		if (user) {
			const char *c = memchr(t + vo, ':', vn);
			if (c == NULL || c + 1 == t + vo + vn ||
			    is_placeholder(c + 1, (size_t)(t + vo + vn - c - 1)))
				continue;
			vn = (size_t)(t + vo + vn - c - 1);
			vo = (size_t)(c + 1 - t);
			snprintf(name, sizeof name, "PASSWORD");
		} else if (secret_name(name) == 2 && (vn < 16 || !has_alpha_and_digit(t + vo, vn))) {
			continue;
		}
		add(s, vo, vn, "secret-option", name, P_ASSIGN);
	}
}

/* A Telegram bot token around the ':' at t[c]: 8 to 10 digits (after
 * "bot" in an API URL, or alone), then 35 characters of base64url. */
static void
scan_telegram(struct scan *s, size_t ls, size_t le, size_t c)
{
	const char *t = s->t;
	size_t b = c, e = c + 1;
	int up = 0, lo = 0;

	while (b > ls && isdigit((unsigned char)t[b - 1]))
		b--;
	if (c - b < 8 || c - b > 10)
		return;
	if (b > ls && isalnum((unsigned char)t[b - 1]) &&
	    !(b >= ls + 3 && memcmp(t + b - 3, "bot", 3) == 0))
		return;
	while (e < le && (isalnum((unsigned char)t[e]) || t[e] == '_' || t[e] == '-')) {
		up |= isupper((unsigned char)t[e]) != 0;
		lo |= islower((unsigned char)t[e]) != 0;
		e++;
	}
	if (e - c - 1 != 35 || !up || !lo)
		return;
	add(s, b, e - b, "telegram-token", "TELEGRAM_BOT_TOKEN", P_SHAPE);
}

static void
scan_assign_at(struct scan *s, size_t ls, size_t le, size_t sep)
{
	const char *t = s->t;
	char name[64];
	size_t j = sep, ne, nb, vo, vn;
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
	if (!quoted && j > ls && (t[j - 1] == '$' || (t[j - 1] == '{' && j >= ls + 2 &&
						       t[j - 2] == '$')))
		return;
	if (t[sep] == ':') {
		/* YAML key at the start of a line (after "- "), or a quoted JSON key */
		size_t h = ls;
		while (h < j && (t[h] == ' ' || t[h] == '\t' || t[h] == '-'))
			h++;
		/* or a header in a quoted string: -H 'Private-Token: VALUE' */
		int header = h != j && (t[j - 1] == '"' || t[j - 1] == '\'');
		if (!quoted && h != j && !header)
			return;
		if (!quoted && !header && yaml_prose(t, sep + 1, le))
			return;
	} else if (j > ls && (t[j - 1] == '(' || t[j - 1] == ',')) {
		/* a keyword argument: f(token=name) passes a variable */
		assign_value(t, sep + 1, le, 0, &vo, &vn);
		while (vn > 0 && (t[vo + vn - 1] == ')' || t[vo + vn - 1] == ','))
			vn--;
		if (is_ident(t + vo, vn))
			return;
	}
	name_of(t + nb, ne - nb, name, sizeof name);
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
	add(s, vo, vn, assign_kind(name), name[0] == '_' ? name + 1 : name, P_ASSIGN);
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
			if (isdigit((unsigned char)t[i - 1]) && i + 1 < le &&
			    isalnum((unsigned char)t[i + 1]))
				scan_telegram(s, ls, le, i);
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

/* A key body that is already redacted: only ${NAME} references and
 * blanks. */
static int
only_refs(const char *t, size_t n)
{
	size_t i = 0;

	while (i < n) {
		if (isspace((unsigned char)t[i])) {
			i++;
			continue;
		}
		if (i + 2 >= n || t[i] != '$' || t[i + 1] != '{')
			return 0;
		i += 2;
		while (i < n && is_word(t[i]))
			i++;
		if (i >= n || t[i] != '}')
			return 0;
		i++;
	}
	return 1;
}

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
		if (!only_refs(t + body, end - body))
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
		if (ve > vb && !only_refs(vb, (size_t)(ve - vb)))
			add(s, (size_t)(vb - t), (size_t)(ve - vb), "private-key", "PRIVATE_KEY", P_KEY);
		return;
	}
	*inkey = (le < s->len ? le + 1 : le) + 1;
}

/* --- driver ------------------------------------------------------------------ */

/* The shapes by the first byte of their prefix, in the table's order. */
static void
shape_index(struct scan *s)
{
	size_t ns = sizeof shapes / sizeof shapes[0];
	unsigned char last[256] = { 0 };

	_Static_assert(sizeof shapes / sizeof shapes[0] < 128, "shape_next holds the shapes");
	for (size_t k = 0; k < ns; k++) {
		unsigned char c = (unsigned char)shapes[k].prefix[0];
		if (last[c] == 0)
			s->shape_first[c] = (unsigned char)(k + 1);
		else
			s->shape_next[last[c] - 1] = (unsigned char)(k + 1);
		last[c] = (unsigned char)(k + 1);
	}
}

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

/* --- values known to be secret ------------------------------------------------ */

struct known {
	char *value;
	size_t len;
	char name[64];
};

static struct known *known;
static size_t nknown, known_cap;

int
redact_value_add(const char *name, const char *value)
{
	size_t n = value ? strlen(value) : 0;

	if (n < REDACT_VALUE_MIN || n > REDACT_VALUE_MAX || is_placeholder(value, n))
		return 0;
	for (size_t i = 0; i < nknown; i++)
		if (known[i].len == n && memcmp(known[i].value, value, n) == 0)
			return 0;
	if (nknown == known_cap) {
		size_t nc = known_cap ? known_cap * 2 : 16;
		struct known *nv = realloc(known, nc * sizeof *nv);
		if (nv == NULL)
			return -1;
		known = nv;
		known_cap = nc;
	}
	if ((known[nknown].value = strdup(value)) == NULL)
		return -1;
	known[nknown].len = n;
	snprintf(known[nknown].name, sizeof known[nknown].name, "%s",
		 name && is_ident(name, strlen(name)) ? name : "SECRET");
	nknown++;
	return 1;
}

void
redact_value_clear(void)
{
	for (size_t i = 0; i < nknown; i++)
		free(known[i].value);
	free(known);
	known = NULL;
	nknown = known_cap = 0;
}

/* Every place of every known value in the whole text. */
static void
scan_known(struct scan *s)
{
	for (size_t k = 0; k < nknown; k++) {
		const char *p = s->t, *end = s->t + s->len, *h;
		while ((h = memmem(p, (size_t)(end - p), known[k].value, known[k].len)) != NULL) {
			add(s, (size_t)(h - s->t), known[k].len, "known-value", known[k].name,
			    P_VALUE);
			p = h + known[k].len;
		}
	}
}

/* Run every detector, then sort and merge overlapping spans.  st (or
 * NULL) carries a private key block and a .netrc entry across calls. */
static int
collect(const char *text, size_t len, struct scan *s, struct redact_stream *st)
{
	size_t ls = 0, inkey = 0, n = 0;
	int netrc = 0;

	memset(s, 0, sizeof *s);
	s->t = text;
	s->len = len;
	shape_index(s);
	if (st != NULL) {
		inkey = st->in_key ? 1 : 0;
		netrc = st->netrc;
	}
	while (ls < len) {
		const char *nl = memchr(text + ls, '\n', len - ls);
		size_t le = nl ? (size_t)(nl - text) : len;
		scan_keys(s, ls, le, &inkey);
		scan_urls(s, ls, le);
		scan_auth(s, ls, le);
		scan_shapes(s, ls, le);
		scan_assign(s, ls, le);
		scan_options(s, ls, le);
		netrc = scan_netrc(s, ls, le, netrc);
		ls = le + 1;
	}
	if (inkey && inkey - 1 < len) {
		/* a block cut before its END line (or continued on the next
		 * line of a stream): hide the rest */
		size_t body = inkey - 1;
		if (!only_refs(text + body, len - body))
			add(s, body, len - body, "private-key", "PRIVATE_KEY", P_KEY);
	}
	if (st != NULL) {
		st->in_key = inkey != 0;
		st->netrc = netrc;
	}
	scan_known(s);
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
				/* the name of an assignment of that very value */
				if (c->prio == P_ASSIGN && k->prio != P_ASSIGN && c->off == k->off)
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

	if (collect(text, len, &s, NULL) < 0) {
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

/* One pass of the rules over a text: its findings replaced. */
static char *
redact_once(const char *text, size_t len, size_t *lenp, struct redact_stream *st,
	    size_t *nfound)
{
	struct scan s;
	struct redact_finding *f;
	char *o;

	if (collect(text, len, &s, st) < 0) {
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
	*nfound = s.n;
	free(f);
	free(s.v);
	return o;
}

/* The rules, again on their own output while it changes (at most
 * REDACT_PASSES passes): a replacement can join what was apart (a key
 * block's END line swallowed by a value around it), and the result must
 * hold nothing the scan would find. */
static char *
redact_st(const char *text, size_t len, size_t *lenp, struct redact_stream *st)
{
	struct redact_stream s0 = { 0 }, sp;
	size_t n = 0, olen = 0;
	char *o;

	if (st != NULL)
		s0 = *st;
	o = redact_once(text, len, &olen, st, &n);
	if (st != NULL && o != NULL)
		st->redacted += n;
	/* each pass starts from the state before the line; the last one's
	 * state is the one carried on */
	for (int pass = 1; o != NULL && n > 0 && pass < REDACT_PASSES; pass++) {
		size_t nlen = 0;
		char *again;
		sp = s0;
		again = redact_once(o, olen, &nlen, st != NULL ? &sp : NULL, &n);
		free(o);
		o = again;
		olen = nlen;
		if (st != NULL) {
			st->in_key = sp.in_key;
			st->netrc = sp.netrc;
		}
	}
	if (lenp != NULL)
		*lenp = olen;
	return o;
}

char *
redact_text(const char *text, size_t len, size_t *lenp)
{
	return redact_st(text, len, lenp, NULL);
}

char *
redact_stream_line(struct redact_stream *st, const char *line, size_t len, size_t *lenp)
{
	return redact_st(line, len, lenp, st);
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
