/*
 * parse-requirements.c - pip requirements files: what they ask for and
 * what is wrong with them, before anything runs.
 *
 * Reading follows pip (pip/_internal/req/req_file.py): physical lines are
 * joined on a final backslash, comments ("#" at the start or after a space)
 * removed, then a line is a requirement followed by its options (the
 * options start at the first word beginning with "-") or only options.
 * -r and -c are followed relative to the file that names them.  The lint
 * of the rebuild file (stage 3, rebuild) runs once everything is read, so
 * a pin in a constraints file counts wherever the -c line is.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>

#include "kernodeck/caps.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/inspect.h"
#include "kernodeck/pep440.h"
#include "kernodeck/pep508.h"
#include "kernodeck/pipline.h"
#include "kernodeck/redact.h"
#include "kernodeck/treeout.h"
#include "kernodeck/parse-requirements.h"

#define RQ_MAX_TOKENS 512

/* The arrays of the tree, as treeout ids (treeout.h): the findings of the
 * lint come after those of the reading, so they have an id of their own. */
enum { RA_EXTRA, RA_FIND_LINKS, RA_CONSTRAINTS, RA_INCLUDES, RA_FILES, RA_REQS, RA_FINDINGS,
       RA_LINT, RA_NIDS };
static const char *const ra_ids[RA_NIDS] = {
	"extra_index_urls", "find_links", "constraints", "includes", "files", "requirements",
	"findings", "findings",
};

/* What a streamed parse learns in its skeleton pass and the next passes
 * reuse: the lint's inputs as they stand at the end, and the files read. */
struct rq_carry {
	json_t *pins;
	int hash_mode;
	struct rq_file { char *path, *buf; size_t len; } *files;
	size_t nfiles;
};

struct rq {
	json_t *root, *extra, *find_links, *constraints, *includes, *files, *reqs, *findings;
	json_t *pins;          /* canonical name -> specifier, from constraints files */
	int flags;
	int freeze_flagged;
	char *seen[64];        /* real paths of files read, against cycles */
	size_t nseen;
	struct kd_pick *pick;  /* NULL: the whole tree is built */
	struct rq_carry *carry;
	size_t nread;          /* included files read so far */
	int in_lint;
	/* the torch lint, requirement by requirement */
	char *t_cn, *t_name, *t_file;
	int t_line;
	char t_variant[64], t_source[512], x_variant[64], *x_url;
};

enum rq_kind { RQ_TOP, RQ_INCLUDE, RQ_CONSTRAINTS };

static void finding(struct rq *q, const char *sev, const char *code, const char *file,
		    int line, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void
finding(struct rq *q, const char *sev, const char *code, const char *file, int line,
	const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	treeout_add(q->pick, q->findings, q->in_lint ? RA_LINT : RA_FINDINGS,
		    json_pack("{s:s, s:s, s:s, s:i, s:s}", "severity", sev, "code", code,
			      "file", file, "line", line, "message", msg));
}

static void
sha256_hex(const char *data, size_t len, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
	for (unsigned int i = 0; i < mdlen && i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	hex[64] = '\0';
}

/* A URL without its userinfo, as a new JSON string. */
static json_t *
clean_url(const char *url)
{
	char *c = redact_url(url, NULL);
	json_t *j = json_string(c ? c : "");

	free(c);
	return j;
}

static void
check_local(struct rq *q, const char *file, int line, const char *what, const char *v)
{
	if (pipline_is_local_abs(v, strlen(v)))
		finding(q, "warn", "local-path", file, line,
			"%s %.300s is an absolute local path: it will not exist on another "
			"machine (use a path relative to the project, or an index)", what, v);
}

/* ---- tokens ---- */

/* Split options into words, honouring quotes (pip uses shlex). */
static size_t
tokenize(char *s, char **tok, size_t max)
{
	size_t n = 0;
	char *w = s;

	while (*s && n < max) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		tok[n++] = w;
		char quote = 0;
		while (*s && (quote || !isspace((unsigned char)*s))) {
			if (!quote && (*s == '"' || *s == '\'')) {
				quote = *s++;
				continue;
			}
			if (quote && *s == quote) {
				quote = 0;
				s++;
				continue;
			}
			*w++ = *s++;
		}
		if (*s)
			s++;
		*w++ = '\0';
	}
	return n;
}

/* ---- requirements ---- */

static int
is_archive(const char *s, size_t n)
{
	static const char *const ext[] = { ".whl", ".tar.gz", ".zip", ".tar.bz2", ".tgz",
					   ".tar.xz", ".tar" };

	for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
		size_t e = strlen(ext[i]);
		if (n >= e && strncasecmp(s + n - e, ext[i], e) == 0)
			return 1;
	}
	return 0;
}

/* Project name from a URL or path: #egg=, else the file name of a wheel
 * ("name-1.0-py3-none-any.whl") or an sdist ("name-1.0.tar.gz"); a wheel's
 * version into wver ("" otherwise). */
static json_t *
name_from_url(const char *url, char *local, size_t llen, char *wver, size_t wlen)
{
	struct pipline_url_parts u;
	const char *base, *end;
	json_t *j = NULL;

	local[0] = '\0';
	wver[0] = '\0';
	pipline_url_split(url, &u);
	if (u.egg != NULL)
		j = json_string(u.egg);
	pipline_url_parts_free(&u);
	end = url + strcspn(url, "#?");
	base = end;
	while (base > url && base[-1] != '/' && base[-1] != '\\')
		base--;
	if (j == NULL && is_archive(base, (size_t)(end - base))) {
		size_t n = strcspn(base, "-");
		if (n > 0 && base + n < end) {
			char *nm = pipline_dup(base, n);
			j = json_string(nm ? nm : "");
			free(nm);
			/* version part: up to the next '-' (wheel) or the extension */
			const char *v = base + n + 1;
			size_t vn = strcspn(v, "-");
			if (v + vn > end)
				vn = (size_t)(end - v);
			char *ver = pipline_dup(v, vn);
			if (ver != NULL) {
				char *dot = strstr(ver, ".tar");
				if (dot)
					*dot = '\0';
				if ((dot = strstr(ver, ".zip")) != NULL)
					*dot = '\0';
				pep440_local_of(ver, local, llen);
				if (vn > 4 && (size_t)(end - base) > 4 &&
				    strncasecmp(end - 4, ".whl", 4) == 0)
					snprintf(wver, wlen, "%s", ver);
			}
			free(ver);
		}
	}
	return j ? j : json_null();
}

static json_t *
new_req(json_t *name, const char *file, int line)
{
	json_t *r = json_object();
	char canon[256];

	json_object_set_new(r, "name", name);
	if (json_is_string(name))
		json_object_set_new(r, "canonical_name", json_string(pep503_canonical(
			json_string_value(name), canon, sizeof canon)));
	else
		json_object_set_new(r, "canonical_name", json_null());
	json_object_set_new(r, "specifier", json_string(""));
	json_object_set_new(r, "marker", json_null());
	json_object_set_new(r, "extras", json_array());
	json_object_set_new(r, "hashes", json_array());
	json_object_set_new(r, "editable", json_false());
	json_object_set_new(r, "pinned", json_false());
	json_object_set_new(r, "file", json_string(file));
	json_object_set_new(r, "line", json_integer(line));
	return r;
}

/* A marker that pip refuses (PEP 508's grammar): a syntax finding. */
static void
check_marker(struct rq *q, const char *file, int line, const json_t *r, const char *marker)
{
	char why[200];
	const char *name = json_string_value(json_object_get(r, "name"));

	if (pep508_marker_check(marker, why, sizeof why) != 0)
		finding(q, "fail", "syntax", file, line, "line %d: the marker of %s: %s: pip will "
			"refuse it", line, name ? name : "the requirement", why);
}

/* A URL pip cannot fetch (pip reads http, https and file, and VCS URLs). */
static void
check_scheme(struct rq *q, const char *file, int line, const char *url)
{
	static const char *const ok[] = { "http://", "https://", "file:" };
	size_t n = strcspn(url, ":");

	if (pipline_is_vcs(url))
		return;
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
		if (strncasecmp(url, ok[i], strlen(ok[i])) == 0)
			return;
	finding(q, "fail", "syntax", file, line, "line %d: pip cannot fetch a %.*s: URL (it "
		"reads http, https, file and VCS URLs): %.80s", line, (int)(n < 20 ? n : 20), url,
		url);
}

/* "#egg=name[extra,...]": the name without its extras, the extras apart. */
static void
split_egg_extras(json_t *r)
{
	const char *name = json_string_value(json_object_get(r, "name"));
	const char *open = name ? strchr(name, '[') : NULL, *close;
	char canon[256], *nm;
	json_t *extras = json_object_get(r, "extras");

	if (open == NULL || (close = strchr(open, ']')) == NULL)
		return;
	for (const char *e = open + 1; e < close;) {
		size_t k = strcspn(e, ",]");
		const char *t = e;
		size_t tn = k;
		pipline_trim(&t, &tn);
		if (tn > 0)
			json_array_append_new(extras, json_stringn(t, tn));
		e += k + (e[k] == ',');
	}
	nm = pipline_dup(name, (size_t)(open - name));
	if (nm == NULL)
		return;
	json_object_set_new(r, "canonical_name", json_string(pep503_canonical(nm, canon,
										    sizeof canon)));
	json_object_set_new(r, "name", json_string(nm));
	free(nm);
}

/* "url ; marker" (pip wants a space before the ';' of a URL). */
static char *
split_url_marker(char *s)
{
	for (char *p = s; *p; p++)
		if (*p == ';' && (p == s || isspace((unsigned char)p[-1]) ||
				  isspace((unsigned char)p[1]))) {
			char *e = p;
			while (e > s && isspace((unsigned char)e[-1]))
				e--;
			*e = '\0';
			p++;
			while (isspace((unsigned char)*p))
				p++;
			return p;
		}
	return NULL;
}

/* A URL or path requirement (also every -e). */
static json_t *
url_requirement(struct rq *q, const char *file, int line, char *s, int editable)
{
	char local[KD_PEP440_MAX_LOCAL], wver[128];
	char *marker = split_url_marker(s);
	json_t *r = new_req(name_from_url(s, local, sizeof local, wver, sizeof wver), file, line);
	int is_url = strstr(s, "://") != NULL || pipline_is_vcs(s) ||
		     strncasecmp(s, "file:", 5) == 0;

	split_egg_extras(r);
	if (marker != NULL && *marker) {
		json_object_set_new(r, "marker", json_string(marker));
		check_marker(q, file, line, r, marker);
	}
	if (wver[0]) {
		/* a wheel's file name carries its version: a pin */
		char spec[140];
		snprintf(spec, sizeof spec, "==%s", wver);
		json_object_set_new(r, "version", json_string(wver));
		json_object_set_new(r, "specifier", json_string(spec));
	}
	if (is_url)
		check_scheme(q, file, line, s);
	if (is_url) {
		json_object_set_new(r, "url", clean_url(s));
		json_object_set_new(r, "kind", json_string(pipline_is_vcs(s) ? "vcs" : "url"));
	} else {
		json_object_set_new(r, "path", json_string(s));
		json_object_set_new(r, "kind", json_string("path"));
	}
	if (editable)
		json_object_set_new(r, "editable", json_true());
	if (pipline_is_vcs(s)) {
		struct pipline_url_parts u;
		pipline_url_split(s, &u);
		if (pipline_is_commit_id(u.rev))
			json_object_set_new(r, "pinned", json_true());
		pipline_url_parts_free(&u);
	} else if (!editable && is_archive(s, strcspn(s, "#?"))) {
		json_object_set_new(r, "pinned", json_true());
	}
	if (local[0])
		json_object_set_new(r, "local_label", json_string(local));
	check_local(q, file, line, editable ? "-e" : "requirement", s);
	if (editable && !q->freeze_flagged && pipline_is_local_abs(s, strlen(s))) {
		q->freeze_flagged = 1;
		finding(q, "warn", "freeze", file, line,
			"line %d: an editable install from an absolute local path is how pip "
			"freeze writes a package being developed on that machine: this file "
			"looks like a raw pip freeze, and an inventory is not a lock file", line);
	}
	return r;
}

static size_t
name_span(const char *s)
{
	size_t i = 0;

	while (isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '_' || s[i] == '.')
		i++;
	return i;
}

static int
looks_like_path(const char *s)
{
	size_t n = strlen(s), nm = name_span(s);
	const char *after = s + nm;

	/* "name @ url" and "name[extra]" are named requirements */
	while (isspace((unsigned char)*after))
		after++;
	if (nm > 0 && s[0] != '.' && (*after == '@' || *after == '['))
		return 0;
	if (strstr(s, "://") != NULL || pipline_is_vcs(s) || strncasecmp(s, "file:", 5) == 0)
		return 1;
	if (s[0] == '.' || s[0] == '/' || s[0] == '~' || s[0] == '\\' ||
	    pipline_is_local_abs(s, n))
		return 1;
	/* "dir/x" or "x.whl" is a path */
	return (strchr(s, '/') != NULL && strpbrk(s, "=<>!~") == NULL) ||
	       is_archive(s, strcspn(s, " ;"));
}

/* "name[extras] (spec) ; marker" or "name[extras] @ url ; marker".  Returns
 * the new requirement, or NULL (with a finding) when it cannot be read. */
static json_t *
named_requirement(struct rq *q, const char *file, int line, char *s)
{
	size_t nm = name_span(s);
	char *p, *marker = NULL, *semi;
	json_t *r, *extras;
	char name[256];

	if (nm == 0 || nm >= sizeof name || !pep503_valid_name(s, nm)) {
		finding(q, "fail", "syntax", file, line,
			"line %d: cannot read \"%.80s\" as a requirement: pip will refuse it",
			line, s);
		return NULL;
	}
	memcpy(name, s, nm);
	name[nm] = '\0';
	r = new_req(json_string(name), file, line);
	json_object_set_new(r, "kind", json_string("named"));
	extras = json_object_get(r, "extras");
	p = s + nm;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '[') {
		char *close = strchr(p, ']');
		if (close == NULL)
			goto bad;
		*close = '\0';
		char *e = p + 1;
		while (*e) {
			size_t k = strcspn(e, ",");
			const char *t = e;
			size_t tn = k;
			pipline_trim(&t, &tn);
			if (tn > 0) {
				char *x = pipline_dup(t, tn);
				json_array_append_new(extras, json_string(x ? x : ""));
				free(x);
			}
			e += k;
			if (*e == ',')
				e++;
		}
		p = close + 1;
		while (isspace((unsigned char)*p))
			p++;
	}
	if (*p == '@') {
		p++;
		while (isspace((unsigned char)*p))
			p++;
		marker = split_url_marker(p);
		if (*p == '\0')
			goto bad;
		json_object_set_new(r, "url", clean_url(p));
		json_object_set_new(r, "kind", json_string(pipline_is_vcs(p) ? "vcs" : "url"));
		check_scheme(q, file, line, p);
		if (pipline_is_vcs(p)) {
			struct pipline_url_parts u;
			pipline_url_split(p, &u);
			json_object_set_new(r, "pinned", json_boolean(pipline_is_commit_id(u.rev)));
			pipline_url_parts_free(&u);
		} else {
			json_object_set_new(r, "pinned", json_boolean(is_archive(p,
						strcspn(p, "#?"))));
		}
		if (strncasecmp(p, "file:", 5) == 0 && !q->freeze_flagged) {
			q->freeze_flagged = 1;
			finding(q, "warn", "freeze", file, line,
				"line %d: \"%s @ file:...\" is how pip freeze writes a package "
				"built in a local folder: this file looks like a raw pip freeze, and "
				"an inventory is not a lock file (those folders exist only on the "
				"machine that made it)", line, name);
		}
		check_local(q, file, line, "requirement", p);
	} else {
		semi = strchr(p, ';');
		if (semi != NULL) {
			*semi = '\0';
			marker = semi + 1;
		}
		size_t sn = strlen(p);
		while (sn > 0 && isspace((unsigned char)p[sn - 1]))
			p[--sn] = '\0';
		if (sn >= 2 && p[0] == '(' && p[sn - 1] == ')') {
			p[sn - 1] = '\0';
			p++;
		}
		const char *spec = p;
		size_t spn = strlen(p);
		pipline_trim(&spec, &spn);
		char *sp = pipline_dup(spec, spn);
		if (sp == NULL)
			goto bad;
		if (spn > 0 && pep440_spec_contains(sp, "0") < 0 && strstr(sp, "===") == NULL) {
			free(sp);
			goto bad;
		}
		json_object_set_new(r, "specifier", json_string(sp));
		if (pep440_spec_is_pin(sp)) {
			char local[KD_PEP440_MAX_LOCAL];
			json_object_set_new(r, "pinned", json_true());
			const char *v = sp + strspn(sp, " =");
			if (pep440_local_of(v, local, sizeof local)[0])
				json_object_set_new(r, "local_label", json_string(local));
		}
		free(sp);
	}
	if (marker != NULL) {
		const char *m = marker;
		size_t mn = strlen(m);
		pipline_trim(&m, &mn);
		if (mn > 0) {
			char *md = pipline_dup(m, mn);
			json_object_set_new(r, "marker", json_string(md ? md : ""));
			if (md != NULL)
				check_marker(q, file, line, r, md);
			free(md);
		} else {
			finding(q, "fail", "syntax", file, line, "line %d: an empty marker after "
				"';' for %s: pip will refuse it", line, name);
		}
	}
	return r;
bad:
	finding(q, "fail", "syntax", file, line,
		"line %d: cannot read the requirement for %s: pip will refuse it", line, name);
	json_decref(r);
	return NULL;
}

/* ---- files ---- */

static void lint_one(struct rq *q, json_t *r);
static void lint_extra(struct rq *q, const json_t *url);

static int parse_text(struct rq *q, const char *text, size_t len, const char *file,
		      const char *base_dir, enum rq_kind kind, int depth);

/* An included file's text: read, or the copy a streamed parse made of it
 * in its skeleton pass (so that every pass reads the same bytes).  *own is
 * what the caller frees. */
static int
read_include(struct rq *q, const char *path, const char **text, size_t *len, char **own,
	     struct kd_err *err)
{
	struct rq_carry *c = q->carry;
	size_t k = q->nread;

	*own = NULL;
	if (c != NULL && q->pick->pass > 0 && k < c->nfiles && strcmp(c->files[k].path, path) == 0) {
		q->nread++;
		*text = c->files[k].buf;
		*len = c->files[k].len;
		return 0;
	}
	if (fsutil_read_file(path, KD_CAP_TEXT_FILE, own, len, err) != 0)
		return -1;
	*text = *own;
	q->nread++;
	if (c != NULL && q->pick->pass == 0 && k == c->nfiles) {
		struct rq_file *nf = realloc(c->files, (c->nfiles + 1) * sizeof *nf);
		char *p = strdup(path);
		if (nf == NULL || p == NULL) {
			free(p);
			if (nf != NULL)
				c->files = nf;
			return 0;
		}
		c->files = nf;
		nf[c->nfiles].path = p;
		nf[c->nfiles].buf = *own;   /* the carry keeps it */
		nf[c->nfiles++].len = *len;
		*own = NULL;
	}
	return 0;
}

/* Follow an -r or -c value. */
static void
follow(struct rq *q, const char *file, int line, const char *val, const char *base_dir,
       enum rq_kind kind, int depth)
{
	const char *opt = kind == RQ_CONSTRAINTS ? "-c" : "-r";
	json_t *entry;
	char *path, *buf = NULL, real[PATH_MAX];
	const char *text = NULL;
	size_t len = 0;
	struct kd_err e = { 0 };

	treeout_add(q->pick, kind == RQ_CONSTRAINTS ? q->constraints : q->includes,
		    kind == RQ_CONSTRAINTS ? RA_CONSTRAINTS : RA_INCLUDES, clean_url(val));
	check_local(q, file, line, opt, val);
	if (strstr(val, "://") != NULL) {
		finding(q, "info", "include", file, line,
			"line %d: %s %.300s is a URL: kernodeck does not download it, so it "
			"is not checked", line, opt, val);
		return;
	}
	if (!(q->flags & REQ_FOLLOW) || base_dir == NULL)
		return;
	path = val[0] == '/' ? strdup(val) : fsutil_join(base_dir, val);
	if (path == NULL)
		return;
	entry = json_pack("{s:s, s:s, s:b, s:n, s:s, s:i}", "path", path, "kind",
			  kind == RQ_CONSTRAINTS ? "constraints" : "include", "exists",
			  fsutil_exists(path), "sha256", "from_file", file, "from_line", line);
	/* entry goes into files whole (a pick writes it at once), and before
	 * the files it includes */
	if (!fsutil_exists(path)) {
		finding(q, "fail", "include", file, line,
			"line %d: %s %s: no such file (looked for %s)", line, opt, val, path);
		goto out;
	}
	if (depth + 1 > KD_REQ_MAX_DEPTH) {
		finding(q, "fail", "include", file, line,
			"line %d: %s %s: more than %d nested files", line, opt, val,
			KD_REQ_MAX_DEPTH);
		goto out;
	}
	if (realpath(path, real) != NULL) {
		for (size_t i = 0; i < q->nseen; i++)
			if (strcmp(q->seen[i], real) == 0) {
				finding(q, "fail", "include", file, line,
					"line %d: %s %s: a cycle (the file is already being read)",
					line, opt, val);
				goto out;
			}
	}
	if (read_include(q, path, &text, &len, &buf, &e) != 0) {
		finding(q, "fail", "include", file, line, "line %d: %s %s: %s", line, opt, val,
			e.msg);
		goto out;
	}
	char hex[65];
	sha256_hex(text, len, hex);
	json_object_set_new(entry, "sha256", json_string(hex));
	treeout_add(q->pick, q->files, RA_FILES, entry);
	entry = NULL;
	char *dir = strdup(path);
	char *slash = dir ? strrchr(dir, '/') : NULL;
	if (slash != NULL)
		*slash = '\0';
	if (q->nseen < sizeof q->seen / sizeof *q->seen)
		q->seen[q->nseen++] = strdup(real);
	parse_text(q, text, len, path, slash ? dir : ".", kind, depth + 1);
	if (q->nseen > 0) {
		free(q->seen[q->nseen - 1]);
		q->nseen--;
	}
	free(dir);
out:
	treeout_add(q->pick, q->files, RA_FILES, entry);
	free(buf);
	free(path);
}

/* Options that take a value, with their long names. */
static const struct {
	char short_name;
	const char *long_name;
	int takes_value;
} known_opts[] = {
	{ 'i', "index-url", 1 }, { 0, "extra-index-url", 1 }, { 0, "no-index", 0 },
	{ 'c', "constraint", 1 }, { 'r', "requirement", 1 }, { 'e', "editable", 1 },
	{ 'f', "find-links", 1 }, { 0, "no-binary", 1 }, { 0, "only-binary", 1 },
	{ 0, "prefer-binary", 0 }, { 0, "require-hashes", 0 }, { 0, "pre", 0 },
	{ 0, "trusted-host", 1 }, { 0, "use-feature", 1 }, { 0, "hash", 1 },
	{ 0, "global-option", 1 }, { 0, "install-option", 1 }, { 0, "config-settings", 1 },
};

static int
find_opt(const char *tok, const char **value, size_t *which)
{
	if (tok[1] == '\0')
		return -1;   /* "-" alone */
	if (tok[1] != '-') {
		for (size_t i = 0; i < sizeof known_opts / sizeof *known_opts; i++)
			if (known_opts[i].short_name != 0 && known_opts[i].short_name == tok[1]) {
				*which = i;
				*value = tok[2] ? tok + 2 : NULL;
				return 0;
			}
		return -1;
	}
	size_t n = strcspn(tok + 2, "=");
	for (size_t i = 0; i < sizeof known_opts / sizeof *known_opts; i++)
		if (strlen(known_opts[i].long_name) == n &&
		    strncmp(known_opts[i].long_name, tok + 2, n) == 0) {
			*which = i;
			*value = tok[2 + n] == '=' ? tok + 3 + n : NULL;
			return 0;
		}
	return -1;
}

static void
add_hash(struct rq *q, json_t *hashes, const char *file, int line, const char *v)
{
	char buf[256];
	size_t i;
	const char *colon = strchr(v, ':');

	/* pip's --hash takes its strong algorithms only, each with its length */
	static const struct { const char *algo; size_t hex; } algos[] = {
		{ "sha256", 64 }, { "sha384", 96 }, { "sha512", 128 },
	};
	size_t k, an = colon ? (size_t)(colon - v) : 0;

	if (colon == NULL || strspn(colon + 1, "0123456789abcdefABCDEF") != strlen(colon + 1)) {
		finding(q, "fail", "hashes", file, line,
			"line %d: --hash=%.80s is not ALGORITHM:HEX", line, v);
		return;
	}
	for (k = 0; k < sizeof algos / sizeof *algos; k++)
		if (an == strlen(algos[k].algo) && strncasecmp(v, algos[k].algo, an) == 0)
			break;
	if (k == sizeof algos / sizeof *algos) {
		finding(q, "fail", "hashes", file, line, "line %d: --hash=%.80s: pip allows "
			"sha256, sha384 and sha512 only", line, v);
		return;
	}
	if (strlen(colon + 1) != algos[k].hex) {
		finding(q, "fail", "hashes", file, line, "line %d: --hash=%.80s: a %s digest is %zu "
			"hexadecimal digits", line, v, algos[k].algo, algos[k].hex);
		return;
	}
	for (i = 0; v[i] && i + 1 < sizeof buf; i++)
		buf[i] = (char)tolower((unsigned char)v[i]);
	buf[i] = '\0';
	json_array_append_new(hashes, json_string(buf));
}

/* One logical line (comments removed, trimmed, not empty). */
static void
logical_line(struct rq *q, char *s, const char *file, int line, const char *base_dir,
	     enum rq_kind kind, int depth)
{
	char *tok[RQ_MAX_TOKENS];
	char *opts = NULL, *req;
	size_t ntok = 0;
	json_t *hashes = json_array(), *r = NULL;
	int editable = 0;
	char *edval = NULL;

	/* options start at the first word beginning with '-' */
	for (char *p = s; *p; ) {
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '-') {
			opts = p;
			break;
		}
		p += strcspn(p, " \t");
	}
	if (opts != NULL) {
		if (opts > s)
			opts[-1] = '\0';
		ntok = tokenize(opts, tok, RQ_MAX_TOKENS);
	}
	req = opts == s ? NULL : s;
	for (size_t i = 0; i < ntok; i++) {
		const char *val = NULL;
		size_t w;
		if (tok[i][0] != '-' || find_opt(tok[i], &val, &w) != 0) {
			finding(q, "fail", "unknown-option", file, line,
				"line %d: %.80s is not an option pip reads in a requirements file",
				line, tok[i]);
			continue;
		}
		if (known_opts[w].takes_value && val == NULL) {
			if (i + 1 >= ntok) {
				finding(q, "fail", "syntax", file, line,
					"line %d: --%s needs a value", line, known_opts[w].long_name);
				continue;
			}
			val = tok[++i];
		}
		const char *ln = known_opts[w].long_name;
		if (strcmp(ln, "index-url") == 0) {
			json_object_set_new(q->root, "index_url", clean_url(val));
			check_local(q, file, line, "--index-url", val);
		} else if (strcmp(ln, "extra-index-url") == 0) {
			json_t *u = clean_url(val);
			lint_extra(q, u);
			treeout_add(q->pick, q->extra, RA_EXTRA, u);
			check_local(q, file, line, "--extra-index-url", val);
		} else if (strcmp(ln, "find-links") == 0) {
			treeout_add(q->pick, q->find_links, RA_FIND_LINKS, clean_url(val));
			check_local(q, file, line, "--find-links", val);
		} else if (strcmp(ln, "no-index") == 0) {
			json_object_set_new(q->root, "no_index", json_true());
		} else if (strcmp(ln, "require-hashes") == 0) {
			json_object_set_new(q->root, "hash_mode", json_true());
		} else if (strcmp(ln, "hash") == 0) {
			json_object_set_new(q->root, "hash_mode", json_true());
			add_hash(q, hashes, file, line, val);
		} else if (strcmp(ln, "requirement") == 0) {
			follow(q, file, line, val, base_dir,
			       kind == RQ_CONSTRAINTS ? RQ_CONSTRAINTS : RQ_INCLUDE, depth);
		} else if (strcmp(ln, "constraint") == 0) {
			follow(q, file, line, val, base_dir, RQ_CONSTRAINTS, depth);
		} else if (strcmp(ln, "editable") == 0) {
			editable = 1;
			free(edval);
			edval = strdup(val);
		}
	}
	if (req != NULL) {
		size_t n = strlen(req);
		while (n > 0 && isspace((unsigned char)req[n - 1]))
			req[--n] = '\0';
	}
	if (editable && edval != NULL)
		r = url_requirement(q, file, line, edval, 1);
	else if (req != NULL && *req)
		r = looks_like_path(req) ? url_requirement(q, file, line, req, 0) :
		    named_requirement(q, file, line, req);
	else if (json_array_size(hashes) > 0)
		finding(q, "fail", "syntax", file, line,
			"line %d: --hash without a requirement", line);
	if (r != NULL) {
		json_object_set(r, "hashes", hashes);
		if (kind == RQ_CONSTRAINTS) {
			const char *cn = json_string_value(json_object_get(r, "canonical_name"));
			if (cn != NULL && json_is_true(json_object_get(r, "pinned")))
				json_object_set(q->pins, cn, json_object_get(r, "specifier"));
			json_decref(r);
		} else {
			if (q->pick != NULL)
				lint_one(q, r);   /* whole before it is written */
			treeout_add(q->pick, q->reqs, RA_REQS, r);
		}
	}
	free(edval);
	json_decref(hashes);
}

/* Remove a comment: '#' at the start or after white space. */
static void
strip_comment(char *s)
{
	for (char *p = s; *p; p++)
		if (*p == '#' && (p == s || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			return;
		}
}

/* Per physical line: credentials (comments included: the file travels),
 * and pip freeze's editable comments. */
static void
scan_physical(struct rq *q, const char *s, size_t n, const char *file, int line)
{
	struct redact_finding rf[4];

	if (pipline_url_credential(s, n, NULL, NULL))
		finding(q, "fail", "credential", file, line,
			"line %d: a URL holds a credential (user:password@host): write it as "
			"${PIP_TOKEN} (pip reads environment variables) or use a keyring, and "
			"never keep the value in the file", line);
	size_t nf = redact_scan(s, n, rf, 4);
	for (size_t i = 0; i < nf && i < 4; i++)
		if (strcmp(rf[i].kind, "url-userinfo") != 0)
			finding(q, "fail", "credential", file, line,
				"line %d: a credential (%s): take it from an environment "
				"variable such as ${%s}", line, rf[i].kind, rf[i].name);
	if (!q->freeze_flagged && n > 10 && s[0] == '#' && memmem(s, n, "Editable", 8) != NULL) {
		q->freeze_flagged = 1;
		finding(q, "warn", "freeze", file, line,
			"line %d: \"# Editable ...\" is a comment pip freeze writes: this file "
			"looks like a raw pip freeze, and an inventory is not a lock file", line);
	}
}

static int
parse_text(struct rq *q, const char *text, size_t len, const char *file,
	   const char *base_dir, enum rq_kind kind, int depth)
{
	struct pipline_iter it;
	const char *s;
	size_t n, cap = 0, blen = 0;
	char *buf = NULL;
	int start = 0;

	pipline_init(&it, text, len);
	while (pipline_next(&it, &s, &n)) {
		const char *t = s;
		size_t tn = n;
		pipline_trim(&t, &tn);
		scan_physical(q, t, tn, file, it.lineno);
		if (blen == 0) {
			if (tn == 0 || pipline_is_fence(t, tn) || pipline_command(t, tn, 0) >= 0)
				continue;
			start = it.lineno;
		}
		int cont = n > 0 && s[n - 1] == '\\' && !(tn > 0 && t[0] == '#');
		size_t add = cont ? n - 1 : n;
		if (blen + add + 2 > cap) {
			size_t ncap = (blen + add + 2) * 2;
			char *nb = realloc(buf, ncap);
			if (nb == NULL)
				break;
			buf = nb;
			cap = ncap;
		}
		memcpy(buf + blen, s, add);
		blen += add;
		buf[blen] = '\0';
		if (cont && blen < KD_CAP_LINE)
			continue;
		strip_comment(buf);
		const char *l = buf;
		size_t ln = strlen(buf);
		pipline_trim(&l, &ln);
		if (ln > 0) {
			char *line = pipline_dup(l, ln);
			if (line != NULL)
				logical_line(q, line, file, start, base_dir, kind, depth);
			free(line);
		}
		blen = 0;
	}
	if (blen > 0) {
		/* a final backslash on the last line */
		strip_comment(buf);
		const char *l = buf;
		size_t ln = strlen(buf);
		pipline_trim(&l, &ln);
		char *line = ln ? pipline_dup(l, ln) : NULL;
		if (line != NULL)
			logical_line(q, line, file, start, base_dir, kind, depth);
		free(line);
	}
	free(buf);
	return 0;
}

/* ---- the lint over everything read ---- */

/* The variant named by a PyTorch index URL: ".../whl/cu121", ".../whl/
 * nightly/rocm6.2", ".../whl/cpu". */
static int
variant_from_url(const char *url, char *out, size_t len)
{
	const char *w = strstr(url, "/whl/");

	if (w == NULL)
		return 0;
	w += 5;
	if (strncmp(w, "nightly/", 8) == 0)
		w += 8;
	else if (strncmp(w, "test/", 5) == 0)
		w += 5;
	size_t n = strcspn(w, "/?#");
	if (n == 0 || n >= len)
		return 0;
	if (!((strncmp(w, "cu", 2) == 0 && n > 2 && isdigit((unsigned char)w[2])) ||
	      strncmp(w, "rocm", 4) == 0 || (n == 3 && strncmp(w, "cpu", 3) == 0) ||
	      (n == 3 && strncmp(w, "xpu", 3) == 0)))
		return 0;
	memcpy(out, w, n);
	out[n] = '\0';
	return 1;
}

static int
is_torch_family(const char *canon)
{
	return canon != NULL && (strcmp(canon, "torch") == 0 || strcmp(canon, "torchvision") == 0 ||
				 strcmp(canon, "torchaudio") == 0);
}

static void
set_dup(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? strdup(s) : NULL;
}

/* The torch lint sees each requirement in turn: the one its finding points
 * at (torch itself when it is listed, else the first of the family) and the
 * first local label of the family. */
static void
lint_torch_seen(struct rq *q, const json_t *r)
{
	const char *cn = json_string_value(json_object_get(r, "canonical_name"));
	const char *ll = json_string_value(json_object_get(r, "local_label"));

	if (!is_torch_family(cn))
		return;
	if (q->t_cn == NULL || (strcmp(cn, "torch") == 0 && strcmp(q->t_cn, "torch") != 0)) {
		set_dup(&q->t_cn, cn);
		set_dup(&q->t_name, json_string_value(json_object_get(r, "name")));
		set_dup(&q->t_file, json_string_value(json_object_get(r, "file")));
		q->t_line = (int)json_integer_value(json_object_get(r, "line"));
	}
	if (ll != NULL && !q->t_variant[0]) {
		snprintf(q->t_variant, sizeof q->t_variant, "%s", ll);
		snprintf(q->t_source, sizeof q->t_source, "local label of %s%s", cn,
			 json_string_value(json_object_get(r, "specifier")) ?
			 json_string_value(json_object_get(r, "specifier")) : "");
	}
}

/* The first --extra-index-url that names a PyTorch variant. */
static void
lint_extra(struct rq *q, const json_t *url)
{
	const char *u = json_string_value(url);

	if (u != NULL && q->x_url == NULL && variant_from_url(u, q->x_variant, sizeof q->x_variant))
		q->x_url = strdup(u);
}

static void
lint_torch_end(struct rq *q)
{
	char variant[64] = "", source[512] = "";

	if (q->t_variant[0]) {
		snprintf(variant, sizeof variant, "%s", q->t_variant);
		snprintf(source, sizeof source, "%s", q->t_source);
	} else {
		const char *iu = json_string_value(json_object_get(q->root, "index_url"));
		if (iu && variant_from_url(iu, variant, sizeof variant))
			snprintf(source, sizeof source, "--index-url %s", iu);
		else if (q->x_url != NULL) {
			snprintf(variant, sizeof variant, "%s", q->x_variant);
			snprintf(source, sizeof source, "--extra-index-url %s", q->x_url);
		}
	}
	json_object_set_new(q->root, "torch_variant", json_pack("{s:b, s:o, s:o}",
		"required", q->t_cn != NULL,
		"variant", variant[0] ? json_string(variant) : json_null(),
		"source", source[0] ? json_string(source) : json_null()));
	q->in_lint = 1;
	if (q->t_cn != NULL && !variant[0])
		finding(q, (q->flags & REQ_STRICT) ? "fail" : "warn", "torch-source",
			q->t_file, q->t_line,
			"line %d: %s is required but nothing names its variant (CUDA, ROCm or "
			"CPU): add the PyTorch index (--index-url https://download.pytorch.org/"
			"whl/cu121) or pin a local label (torch==2.3.0+cu121)",
			q->t_line, q->t_name);
	q->in_lint = 0;
}

/* The lint of one requirement, against the pins and the hash mode as they
 * stand once everything is read (a streamed parse has them from its
 * skeleton pass).  It may add pinned_by_constraint to r. */
static void
lint_one(struct rq *q, json_t *r)
{
	int later = q->pick != NULL && q->pick->pass > 0 && q->carry != NULL;
	const json_t *pins = later ? q->carry->pins : q->pins;
	int hash_mode = later ? q->carry->hash_mode :
			json_is_true(json_object_get(q->root, "hash_mode"));
	const char *file = json_string_value(json_object_get(r, "file"));
	int line = (int)json_integer_value(json_object_get(r, "line"));
	const char *name = json_string_value(json_object_get(r, "name"));
	const char *cn = json_string_value(json_object_get(r, "canonical_name"));
	const char *spec = json_string_value(json_object_get(r, "specifier"));
	int pinned = json_is_true(json_object_get(r, "pinned"));
	int is_path = json_object_get(r, "path") != NULL;
	int editable = json_is_true(json_object_get(r, "editable"));

	q->in_lint = 1;
	if (!name)
		name = "(unnamed)";
	if (!pinned && cn && json_object_get(pins, cn) != NULL) {
		json_object_set_new(r, "pinned_by_constraint", json_copy(
			json_object_get(pins, cn)));
	} else if (!pinned && !is_path && !editable) {
		finding(q, (q->flags & REQ_STRICT) ? "fail" : "warn", "unpinned", file, line,
			"line %d: %s%s is not pinned: it may resolve to another version "
			"tomorrow (pin it with ==)", line, name, spec ? spec : "");
	}
	if (hash_mode) {
		int has = json_array_size(json_object_get(r, "hashes")) > 0;
		int exact = pep440_spec_is_pin(spec) || json_object_get(r, "url") != NULL;
		if (!has)
			finding(q, "fail", "hashes", file, line,
				"line %d: %s has no --hash but hash-checking mode is on (some "
				"requirement has --hash, or --require-hashes): pip will refuse "
				"to install", line, name);
		else if (!exact)
			finding(q, "fail", "hashes", file, line,
				"line %d: %s has --hash but is not pinned with ==: pip refuses "
				"hashes on a range", line, name);
	}
	q->in_lint = 0;
	lint_torch_seen(q, r);
}

/* The lint over everything read; a streamed parse linted each requirement
 * as it came. */
static void
lint(struct rq *q)
{
	json_t *r;
	size_t i;

	if (q->pick == NULL)
		json_array_foreach(q->reqs, i, r)
			lint_one(q, r);
	lint_torch_end(q);
}

static void
carry_free(void *p)
{
	struct rq_carry *c = p;

	json_decref(c->pins);
	for (size_t i = 0; i < c->nfiles; i++) {
		free(c->files[i].path);
		free(c->files[i].buf);
	}
	free(c->files);
	free(c);
}

/* requirements_parse_ex, with a pick (treeout.h) or without (NULL). */
static int
parse_pick(const char *text, size_t len, const char *name, const char *base_dir, int flags,
	   struct kd_pick *pick, json_t **out, struct kd_err *err)
{
	struct rq q;
	char hex[65] = "";
	int rc;

	*out = NULL;
	if ((rc = pipline_check_text_ex(text, len, name, pick ? 0 : KD_CAP_INPUT_LINES, err)) != 0)
		return rc;
	memset(&q, 0, sizeof q);
	q.flags = flags;
	q.pick = pick;
	if (pick != NULL && pick->pass == 0 && pick->carry == NULL) {
		if ((pick->carry = calloc(1, sizeof(struct rq_carry))) == NULL)
			return kd_err_sys(err, KD_EENV, name, ENOMEM, "out of memory");
		pick->carry_free = carry_free;
	}
	q.carry = pick ? pick->carry : NULL;
	/* the lint needs the pins of the whole input (and adds
	 * pinned_by_constraint to requirements) */
	treeout_later(pick, RA_REQS);
	treeout_later(pick, RA_LINT);
	q.root = json_object();
	q.extra = json_array();
	q.find_links = json_array();
	q.constraints = json_array();
	q.includes = json_array();
	q.files = json_array();
	q.reqs = json_array();
	q.findings = json_array();
	q.pins = json_object();
	json_object_set_new(q.root, "index_url", json_null());
	json_object_set(q.root, "extra_index_urls", q.extra);
	json_object_set(q.root, "find_links", q.find_links);
	json_object_set_new(q.root, "no_index", json_false());
	json_object_set(q.root, "constraints", q.constraints);
	json_object_set(q.root, "includes", q.includes);
	json_object_set(q.root, "files", q.files);
	json_object_set_new(q.root, "hash_mode", json_false());
	json_object_set(q.root, "requirements", q.reqs);
	json_object_set_new(q.root, "torch_variant", json_null());
	json_object_set(q.root, "findings", q.findings);
	if (pick == NULL || pick->pass == 0 || pick->want == RA_FILES)   /* the passes that keep it */
		sha256_hex(text, len, hex);
	treeout_add(pick, q.files, RA_FILES, json_pack("{s:s, s:s, s:b, s:s, s:n, s:n}", "path", name,
		"kind", "requirements", "exists", 1, "sha256", hex, "from_file", "from_line"));
	if (base_dir != NULL) {
		char real[PATH_MAX];
		if (realpath(name, real) != NULL)
			q.seen[q.nseen++] = strdup(real);
	}
	parse_text(&q, text, len, name, base_dir, RQ_TOP, 0);
	lint(&q);
	if (pick != NULL && pick->pass == 0) {
		/* what the lint of the next passes needs, as it stands at the end */
		q.carry->pins = json_incref(q.pins);
		q.carry->hash_mode = json_is_true(json_object_get(q.root, "hash_mode"));
	}
	for (size_t i = 0; i < q.nseen; i++)
		free(q.seen[i]);
	free(q.t_cn);
	free(q.t_name);
	free(q.t_file);
	free(q.x_url);
	json_decref(q.extra);
	json_decref(q.find_links);
	json_decref(q.constraints);
	json_decref(q.includes);
	json_decref(q.files);
	json_decref(q.reqs);
	json_decref(q.findings);
	json_decref(q.pins);
	*out = q.root;
	return 0;
}

int
requirements_parse_ex(const char *text, size_t len, const char *name,
		      const char *base_dir, int flags, json_t **out, struct kd_err *err)
{
	return parse_pick(text, len, name, base_dir, flags, NULL, out, err);
}

int
requirements_parse(const char *text, size_t len, const char *name, json_t **out,
		   struct kd_err *err)
{
	return requirements_parse_ex(text, len, name, NULL, 0, out, err);
}

/* A requirements file's text and the folder its -r and -c are relative to
 * (both to free). */
static int
read_with_dir(const char *path, char **buf, size_t *len, char **dir, struct kd_err *err)
{
	char *slash;
	int rc;

	*dir = NULL;
	if ((rc = fsutil_read_file(path, KD_CAP_TEXT_FILE, buf, len, err)) != 0)
		return rc == KD_EENV ? KD_EINPUT : rc;
	slash = strrchr(path, '/');
	if (slash == NULL)
		*dir = strdup(".");
	else if (slash == path)
		*dir = strdup("/");     /* "/x.txt": the folder is "/" */
	else
		*dir = pipline_dup(path, (size_t)(slash - path));
	if (*dir == NULL) {
		free(*buf);
		*buf = NULL;
		return kd_err_sys(err, KD_EENV, path, ENOMEM, "out of memory");
	}
	return 0;
}

int
requirements_load(const char *path, int flags, json_t **out, struct kd_err *err)
{
	char *buf = NULL, *dir = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	if ((rc = read_with_dir(path, &buf, &len, &dir, err)) != 0)
		return rc;
	rc = requirements_parse_ex(buf, len, path, dir, flags | REQ_FOLLOW, out, err);
	free(dir);
	free(buf);
	return rc;
}

int
inspect_requirements(const char *path, json_t **out, struct kd_err *err)
{
	return requirements_load(path, 0, out, err);
}

struct rq_input {
	const char *text, *path, *dir;
	size_t len;
};

static int
parse_input(void *arg, struct kd_pick *pick, json_t **out, struct kd_err *err)
{
	const struct rq_input *in = arg;

	return parse_pick(in->text, in->len, in->path, in->dir, REQ_FOLLOW, pick, out, err);
}

int
inspect_print_requirements(FILE *fp, enum kd_format fmt, const char *path, struct kd_err *err)
{
	struct rq_input in = { .path = path };
	char *buf = NULL, *dir = NULL;
	int rc;

	if ((rc = read_with_dir(path, &buf, &in.len, &dir, err)) != 0)
		return rc;
	in.text = buf;
	in.dir = dir;
	rc = treeout_print(fp, fmt, parse_input, &in, ra_ids, RA_NIDS, err);
	free(dir);
	free(buf);
	return rc;
}

size_t
requirements_count(const json_t *tree, const char *severity)
{
	const json_t *f;
	size_t i, n = 0;

	json_array_foreach(json_object_get(tree, "findings"), i, f) {
		const char *sev = json_string_value(json_object_get(f, "severity"));
		if (sev != NULL && strcmp(sev, severity) == 0)
			n++;
	}
	return n;
}
