/*
 * pep440.c - version identifiers (PEP 440), specifiers and canonical
 * project names (PEP 503).
 *
 * The parser is a hand-written scanner over the lower-cased text that
 * follows the specification's grammar, including its permitted spellings
 * (separators "-", "_", "." around pre/post/dev markers, "alpha/beta/c/pre/
 * preview", "rev/r", the implicit post release "1.0-1", a leading "v").
 * Ordering is packaging's key: epoch, release without trailing zeros,
 * pre-release (a dev release of a final sorts before its pre-releases),
 * post, dev, local.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernodeck/pep440.h"

static int
is_sep(char c)
{
	return c == '-' || c == '_' || c == '.';
}

/* Read decimal digits at *pp.  Returns the number of digits (0: none),
 * -1 on overflow. */
static int
read_num(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	uint64_t n = 0;
	int nd = 0;

	while (isdigit((unsigned char)*p)) {
		uint64_t d = (uint64_t)(*p - '0');
		if (n > (UINT64_MAX - d) / 10)
			return -1;
		n = n * 10 + d;
		p++;
		nd++;
	}
	if (nd > 0) {
		*out = n;
		*pp = p;
	}
	return nd;
}

/* Match one of the words at p; returns its length and sets *which. */
static size_t
match_word(const char *p, const char *const *words, size_t nwords, size_t *which)
{
	for (size_t i = 0; i < nwords; i++) {
		size_t n = strlen(words[i]);
		if (strncmp(p, words[i], n) == 0) {
			*which = i;
			return n;
		}
	}
	return 0;
}

/* An optional [sep] WORD [sep] [N] part.  Returns 1 when present (p
 * advanced), 0 when absent (p unchanged), -1 on a bad number. */
static int
read_marked(const char **pp, const char *const *words, size_t nwords, size_t *which,
	    uint64_t *num)
{
	const char *p = *pp;
	size_t w;

	if (is_sep(*p))
		p++;
	w = match_word(p, words, nwords, which);
	if (w == 0)
		return 0;
	p += w;
	*num = 0;
	if (is_sep(*p))
		p++;
	if (read_num(&p, num) < 0)
		return -1;
	*pp = p;
	return 1;
}

/* Numeric parts of a local label lose their leading zeros ("+001" is
 * "+1", as packaging prints it). */
static void
strip_local_zeros(char *local)
{
	char *r = local, *w = local;

	while (*r) {
		size_t n = strcspn(r, ".");
		int digits = 1;
		for (size_t i = 0; i < n; i++)
			if (!isdigit((unsigned char)r[i]))
				digits = 0;
		if (digits)
			while (n > 1 && *r == '0') {
				r++;
				n--;
			}
		memmove(w, r, n);
		w += n;
		r += n;
		if (*r == '.')
			*w++ = *r++;
	}
	*w = '\0';
}

static int
read_local(const char *p, struct pep440_version *v)
{
	size_t n = 0;

	if (!isalnum((unsigned char)*p))
		return -1;
	while (*p) {
		if (isalnum((unsigned char)*p)) {
			v->local[n++] = *p;
		} else if (is_sep(*p) && isalnum((unsigned char)p[1]) && n > 0) {
			v->local[n++] = '.';
		} else {
			return -1;
		}
		if (n + 1 >= sizeof v->local)
			return -1;
		p++;
	}
	v->local[n] = '\0';
	strip_local_zeros(v->local);
	return 0;
}

int
pep440_parse(const char *s, struct pep440_version *v)
{
	static const char *const pre_words[] = { "alpha", "beta", "preview", "pre", "rc",
						 "a", "b", "c" };
	static const char pre_map[] = { 'a', 'b', 'r', 'r', 'r', 'a', 'b', 'r' };
	static const char *const post_words[] = { "post", "rev", "r" };
	static const char *const dev_words[] = { "dev" };
	char buf[KD_PEP440_MAX_TEXT];
	size_t n = 0, which;
	const char *p;
	int r;

	memset(v, 0, sizeof *v);
	if (s == NULL)
		return -1;
	while (isspace((unsigned char)*s))
		s++;
	while (*s && !isspace((unsigned char)*s)) {
		if (n + 1 >= sizeof buf)
			return -1;
		buf[n++] = (char)tolower((unsigned char)*s++);
	}
	while (isspace((unsigned char)*s))
		s++;
	if (*s != '\0' || n == 0)
		return -1;
	buf[n] = '\0';
	p = buf;
	if (*p == 'v')
		p++;
	/* epoch and release */
	uint64_t num;
	if (read_num(&p, &num) <= 0)
		return -1;
	if (*p == '!') {
		v->epoch = num;
		p++;
		if (read_num(&p, &num) <= 0)
			return -1;
	}
	v->release[v->nrelease++] = num;
	while (*p == '.' && isdigit((unsigned char)p[1])) {
		p++;
		if (v->nrelease >= KD_PEP440_MAX_RELEASE || read_num(&p, &num) <= 0)
			return -1;
		v->release[v->nrelease++] = num;
	}
	/* pre-release */
	r = read_marked(&p, pre_words, sizeof pre_words / sizeof *pre_words, &which, &v->pre_n);
	if (r < 0)
		return -1;
	if (r > 0)
		v->pre_l = pre_map[which];
	/* post-release: "-N" or [sep](post|rev|r)[sep][N] */
	if (*p == '-' && isdigit((unsigned char)p[1])) {
		p++;
		if (read_num(&p, &v->post_n) <= 0)
			return -1;
		v->has_post = 1;
	} else {
		r = read_marked(&p, post_words, 3, &which, &v->post_n);
		if (r < 0)
			return -1;
		v->has_post = r;
	}
	/* development release */
	r = read_marked(&p, dev_words, 1, &which, &v->dev_n);
	if (r < 0)
		return -1;
	v->has_dev = r;
	if (*p == '+') {
		if (read_local(p + 1, v) < 0)
			return -1;
		return 0;
	}
	return *p == '\0' ? 0 : -1;
}

/* Append a prefix, then a number (when num_too) to buf at *at. */
static void
append(char *buf, size_t len, size_t *at, const char *prefix, int num_too, uint64_t n)
{
	int w;

	if (*at >= len)
		return;
	if (num_too)
		w = snprintf(buf + *at, len - *at, "%s%llu", prefix, (unsigned long long)n);
	else
		w = snprintf(buf + *at, len - *at, "%s", prefix);
	if (w > 0)
		*at += (size_t)w;
}

static const char *
format_v(const struct pep440_version *v, char *buf, size_t len, int with_local)
{
	size_t at = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (v->epoch) {
		append(buf, len, &at, "", 1, v->epoch);
		append(buf, len, &at, "!", 0, 0);
	}
	for (size_t i = 0; i < v->nrelease; i++)
		append(buf, len, &at, i ? "." : "", 1, v->release[i]);
	if (v->pre_l)
		append(buf, len, &at, v->pre_l == 'a' ? "a" : v->pre_l == 'b' ? "b" : "rc", 1,
		       v->pre_n);
	if (v->has_post)
		append(buf, len, &at, ".post", 1, v->post_n);
	if (v->has_dev)
		append(buf, len, &at, ".dev", 1, v->dev_n);
	if (with_local && v->local[0]) {
		append(buf, len, &at, "+", 0, 0);
		append(buf, len, &at, v->local, 0, 0);
	}
	return buf;
}

const char *
pep440_format(const struct pep440_version *v, char *buf, size_t len)
{
	return format_v(v, buf, len, 1);
}

const char *
pep440_format_public(const struct pep440_version *v, char *buf, size_t len)
{
	return format_v(v, buf, len, 0);
}

static int
cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Rank of the pre-release part: 0 "dev of a final" (before everything),
 * 1 a, 2 b, 3 rc, 4 none (a final). */
static int
pre_rank(const struct pep440_version *v)
{
	if (!v->pre_l && !v->has_post && v->has_dev)
		return 0;
	switch (v->pre_l) {
	case 'a': return 1;
	case 'b': return 2;
	case 'r': return 3;
	default: return 4;
	}
}

/* Compare two digit strings numerically without converting them. */
static int
cmp_digits(const char *a, size_t na, const char *b, size_t nb)
{
	while (na > 1 && *a == '0') {
		a++;
		na--;
	}
	while (nb > 1 && *b == '0') {
		b++;
		nb--;
	}
	if (na != nb)
		return na < nb ? -1 : 1;
	int c = memcmp(a, b, na);
	return c < 0 ? -1 : c > 0;
}

static int
all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return n > 0;
}

/* Local labels: "" first; then part by part, a number after a word,
 * numbers numerically, words as text; a prefix first. */
static int
cmp_local(const char *a, const char *b)
{
	if (!*a || !*b)
		return (*a != 0) - (*b != 0);
	for (;;) {
		size_t na = strcspn(a, "."), nb = strcspn(b, ".");
		int da = all_digits(a, na), db = all_digits(b, nb), c;
		if (da != db)
			return da ? 1 : -1;
		if (da) {
			c = cmp_digits(a, na, b, nb);
		} else {
			c = strncmp(a, b, na < nb ? na : nb);
			if (c == 0)
				c = na < nb ? -1 : na > nb;
		}
		if (c)
			return c < 0 ? -1 : 1;
		a += na;
		b += nb;
		if (!*a || !*b)
			return (*a != 0) - (*b != 0);
		a++;
		b++;
	}
}

int
pep440_cmp_public(const struct pep440_version *a, const struct pep440_version *b)
{
	int c = cmp_u64(a->epoch, b->epoch);
	size_t n = a->nrelease > b->nrelease ? a->nrelease : b->nrelease;

	if (c)
		return c;
	for (size_t i = 0; i < n; i++) {
		uint64_t x = i < a->nrelease ? a->release[i] : 0;
		uint64_t y = i < b->nrelease ? b->release[i] : 0;
		if ((c = cmp_u64(x, y)) != 0)
			return c;
	}
	int ra = pre_rank(a), rb = pre_rank(b);
	if (ra != rb)
		return ra < rb ? -1 : 1;
	if (ra >= 1 && ra <= 3 && (c = cmp_u64(a->pre_n, b->pre_n)) != 0)
		return c;
	if (a->has_post != b->has_post)
		return a->has_post ? 1 : -1;
	if (a->has_post && (c = cmp_u64(a->post_n, b->post_n)) != 0)
		return c;
	if (a->has_dev != b->has_dev)
		return a->has_dev ? -1 : 1;
	if (a->has_dev && (c = cmp_u64(a->dev_n, b->dev_n)) != 0)
		return c;
	return 0;
}

int
pep440_cmp(const struct pep440_version *a, const struct pep440_version *b)
{
	int c = pep440_cmp_public(a, b);

	return c ? c : cmp_local(a->local, b->local);
}

int
pep440_is_prerelease(const struct pep440_version *v)
{
	return v->pre_l != 0 || v->has_dev;
}

int
pep440_compare_str(const char *a, const char *b, int *valid)
{
	struct pep440_version va, vb;

	if (pep440_parse(a, &va) == 0 && pep440_parse(b, &vb) == 0) {
		if (valid)
			*valid = 1;
		return pep440_cmp(&va, &vb);
	}
	if (valid)
		*valid = 0;
	int c = strcasecmp(a ? a : "", b ? b : "");
	return c < 0 ? -1 : c > 0;
}

const char *
pep440_local_of(const char *s, char *buf, size_t len)
{
	struct pep440_version v;
	const char *plus;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (s == NULL)
		return buf;
	if (pep440_parse(s, &v) == 0) {
		snprintf(buf, len, "%s", v.local);
		return buf;
	}
	plus = strchr(s, '+');
	if (plus != NULL) {
		size_t i;
		for (i = 0; plus[1 + i] && i + 1 < len; i++)
			buf[i] = (char)tolower((unsigned char)plus[1 + i]);
		buf[i] = '\0';
	}
	return buf;
}

const char *
pep440_public_of(const char *s, char *buf, size_t len)
{
	struct pep440_version v;

	if (len == 0)
		return buf;
	if (s != NULL && pep440_parse(s, &v) == 0)
		return pep440_format_public(&v, buf, len);
	snprintf(buf, len, "%.*s", s ? (int)strcspn(s, "+") : 0, s ? s : "");
	return buf;
}

/* ---- specifiers ---- */

enum spec_op { OP_NONE, OP_ARB, OP_COMPAT, OP_EQ, OP_NE, OP_LE, OP_GE, OP_LT, OP_GT };

/* Split "OP VERSION" (spaces allowed) into op and a trimmed version. */
static enum spec_op
split_clause(const char *clause, char *ver, size_t len, int *wild)
{
	static const struct { const char *s; enum spec_op op; } ops[] = {
		{ "===", OP_ARB }, { "~=", OP_COMPAT }, { "==", OP_EQ }, { "!=", OP_NE },
		{ "<=", OP_LE }, { ">=", OP_GE }, { "<", OP_LT }, { ">", OP_GT },
	};
	enum spec_op op = OP_NONE;
	size_t n;

	while (isspace((unsigned char)*clause))
		clause++;
	for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
		n = strlen(ops[i].s);
		if (strncmp(clause, ops[i].s, n) == 0) {
			op = ops[i].op;
			clause += n;
			break;
		}
	}
	while (isspace((unsigned char)*clause))
		clause++;
	n = strlen(clause);
	while (n > 0 && isspace((unsigned char)clause[n - 1]))
		n--;
	if (op == OP_NONE || n == 0 || n >= len)
		return OP_NONE;
	memcpy(ver, clause, n);
	ver[n] = '\0';
	*wild = 0;
	if (n >= 2 && strcmp(ver + n - 2, ".*") == 0) {
		if (op != OP_EQ && op != OP_NE)
			return OP_NONE;
		ver[n - 2] = '\0';
		*wild = 1;
	}
	return op;
}

/* Prefix match of "==V.*": same epoch, the release of V a prefix of the
 * candidate's (zero padded), and V's pre/post/dev parts equal when given. */
static int
prefix_match(const struct pep440_version *c, const struct pep440_version *v, size_t nrel)
{
	if (c->epoch != v->epoch)
		return 0;
	for (size_t i = 0; i < nrel; i++) {
		uint64_t x = i < c->nrelease ? c->release[i] : 0;
		if (x != v->release[i])
			return 0;
	}
	if (v->pre_l && (c->pre_l != v->pre_l || c->pre_n != v->pre_n))
		return 0;
	if (v->has_post && (!c->has_post || c->post_n != v->post_n))
		return 0;
	if (v->has_dev && (!c->has_dev || c->dev_n != v->dev_n))
		return 0;
	return 1;
}

static int
same_base(const struct pep440_version *a, const struct pep440_version *b)
{
	struct pep440_version x = *a, y = *b;

	x.pre_l = y.pre_l = 0;
	x.has_post = y.has_post = 0;
	x.has_dev = y.has_dev = 0;
	return pep440_cmp_public(&x, &y) == 0;
}

/* "~=V" also needs the release of V without its last part as a prefix. */
static int
compat_prefix(const struct pep440_version *c, const struct pep440_version *v)
{
	if (c->epoch != v->epoch)
		return 0;
	for (size_t i = 0; i + 1 < v->nrelease; i++)
		if ((i < c->nrelease ? c->release[i] : 0) != v->release[i])
			return 0;
	return 1;
}

int
pep440_clause_contains(const char *clause, const char *version)
{
	char vs[KD_PEP440_MAX_TEXT];
	struct pep440_version sv, cv;
	int wild = 0, eq;
	enum spec_op op = split_clause(clause, vs, sizeof vs, &wild);

	if (op == OP_NONE || version == NULL)
		return -1;
	if (op == OP_ARB) {
		char cand[KD_PEP440_MAX_TEXT];
		snprintf(cand, sizeof cand, "%s", version);
		size_t n = strlen(cand);
		while (n > 0 && isspace((unsigned char)cand[n - 1]))
			cand[--n] = '\0';
		const char *cp = cand;
		while (isspace((unsigned char)*cp))
			cp++;
		return strcasecmp(cp, vs) == 0;
	}
	if (pep440_parse(vs, &sv) < 0 || pep440_parse(version, &cv) < 0)
		return -1;
	if (sv.local[0] && op != OP_EQ && op != OP_NE)
		return -1;  /* PEP 440: local labels only with == and != */
	switch (op) {
	case OP_EQ:
	case OP_NE:
		if (wild)
			eq = prefix_match(&cv, &sv, sv.nrelease);
		else if (sv.local[0])
			eq = pep440_cmp(&cv, &sv) == 0;
		else
			eq = pep440_cmp_public(&cv, &sv) == 0;
		return op == OP_EQ ? eq : !eq;
	case OP_COMPAT:
		if (sv.nrelease < 2)
			return -1;
		return pep440_cmp_public(&cv, &sv) >= 0 && compat_prefix(&cv, &sv);
	case OP_LE:
		return pep440_cmp_public(&cv, &sv) <= 0;
	case OP_GE:
		return pep440_cmp_public(&cv, &sv) >= 0;
	case OP_LT:
		if (pep440_cmp_public(&cv, &sv) >= 0)
			return 0;
		if (!pep440_is_prerelease(&sv) && pep440_is_prerelease(&cv) && same_base(&cv, &sv))
			return 0;
		return 1;
	case OP_GT:
		if (pep440_cmp_public(&cv, &sv) <= 0)
			return 0;
		if (!sv.has_post && cv.has_post && same_base(&cv, &sv))
			return 0;
		if (cv.local[0] && same_base(&cv, &sv))
			return 0;
		return 1;
	default:
		return -1;
	}
}

int
pep440_spec_contains(const char *spec, const char *version)
{
	char clause[KD_PEP440_MAX_TEXT];
	const char *p = spec;
	int all = 1;

	if (spec == NULL)
		return 1;
	while (*p) {
		size_t n = strcspn(p, ",");
		size_t k = n;
		const char *q = p;
		while (k > 0 && isspace((unsigned char)*q)) {
			q++;
			k--;
		}
		if (k > 0) {
			if (k >= sizeof clause)
				return -1;
			memcpy(clause, q, k);
			clause[k] = '\0';
			int r = pep440_clause_contains(clause, version);
			if (r < 0)
				return -1;
			all = all && r;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return all;
}

int
pep440_spec_is_pin(const char *spec)
{
	char vs[KD_PEP440_MAX_TEXT];
	int wild = 0;
	enum spec_op op;

	if (spec == NULL || strchr(spec, ',') != NULL)
		return 0;
	op = split_clause(spec, vs, sizeof vs, &wild);
	return (op == OP_EQ && !wild) || op == OP_ARB;
}

/* ---- names ---- */

size_t
pep503_canonical_n(const char *name, size_t nl, char *buf, size_t len)
{
	size_t n = 0;
	int in_sep = 0;

	if (len == 0)
		return 0;
	for (size_t i = 0; i < nl && name[i] != '\0' && n + 1 < len; i++) {
		unsigned char c = (unsigned char)name[i];
		if (is_sep((char)c)) {
			in_sep = 1;
			continue;
		}
		if (in_sep && n > 0 && n + 1 < len)
			buf[n++] = '-';
		in_sep = 0;
		/* no call a byte for ASCII: inventories hold thousands of names */
		if (n + 1 < len)
			buf[n++] = (char)(c >= 0x80 ? tolower(c) : c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	buf[n] = '\0';
	return n;
}

const char *
pep503_canonical(const char *name, char *buf, size_t len)
{
	pep503_canonical_n(name ? name : "", SIZE_MAX, buf, len);
	return buf;
}

int
pep503_valid_name(const char *name, size_t len)
{
	if (len == 0 || !isalnum((unsigned char)name[0]) ||
	    !isalnum((unsigned char)name[len - 1]))
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)name[i]) && !is_sep(name[i]))
			return 0;
	return 1;
}
