/*
 * parse-freeze.c - what `pip freeze` printed: one package a line, in one of
 * pip's shapes (name==V, name===V, name @ URL, -e URL, -e PATH), with the
 * "# Editable ..." comments pip writes above editables.  Pasted outputs
 * carry prompts and other commands' output: a prompt line whose command is
 * not a freeze (or `pip list`) turns reading off until the next prompt.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernodeck/caps.h"
#include "kernodeck/parse-freeze.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/inspect.h"
#include "kernodeck/pep440.h"
#include "kernodeck/pipline.h"
#include "kernodeck/redact.h"
#include "kernodeck/treeout.h"

/* The package kinds, each one string shared by every package of that kind
 * (strings are never changed in place: sharing them saves two allocations
 * per package and as many frees). */
enum fz_kind { FZ_PINNED, FZ_ARBITRARY, FZ_DIRECT_URL, FZ_VCS, FZ_EDITABLE_VCS,
	       FZ_EDITABLE_LOCAL, FZ_NKINDS };
static const char *const fz_kind_names[FZ_NKINDS] = {
	"pinned", "arbitrary", "direct_url", "vcs", "editable_vcs", "editable_local",
};

/* The arrays of the tree, as treeout ids (treeout.h). */
enum { FZ_PKGS, FZ_WARNINGS, FZ_UNREC };
static const char *const fz_ids[] = { "packages", "warnings", "unrecognised" };

struct fz {
	json_t *pkgs, *warnings, *unrec;
	struct kd_pick *pick;
	json_t *kinds[FZ_NKINDS];
	char *ed_name, *ed_version;   /* from the last "# Editable" comment */
	int ed_line;
};

static void
add_warning(struct fz *f, int line, const char *kind, const char *msg)
{
	/* as json_pack("{s:i, s:s, s:s}") without parsing its format each
	 * time: no warning when msg is not UTF-8 (a path cut by %.300s) */
	json_t *w = json_object(), *m = json_string(msg);

	if (m == NULL) {
		json_decref(w);
		return;
	}
	json_object_set_new_nocheck(w, "line", json_integer(line));
	json_object_set_new_nocheck(w, "kind", json_string(kind));
	json_object_set_new_nocheck(w, "message", m);
	treeout_add(f->pick, f->warnings, FZ_WARNINGS, w);
}

/* Warn about credentials and absolute local paths in a line. */
static void
scan_line(struct fz *f, int line, const char *s, size_t n, const char *local)
{
	char msg[512];

	if (pipline_url_credential(s, n, NULL, NULL)) {
		snprintf(msg, sizeof msg, "line %d: a URL holds a credential (user:password@); "
			 "it is left out here and must come from an environment variable "
			 "or a keyring", line);
		add_warning(f, line, "credential", msg);
	}
	if (local != NULL && pipline_is_local_abs(local, strlen(local))) {
		snprintf(msg, sizeof msg, "line %d: %.300s is a local path that will not exist "
			 "on another machine", line, local);
		add_warning(f, line, "local-path", msg);
	}
}

/* "# Editable install with no version control (ranger==0.1.dev0)" */
static void
editable_comment(struct fz *f, int line, const char *s, size_t n)
{
	char buf[512];
	const char *open, *close, *eq;

	if (n >= sizeof buf)
		return;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (strstr(buf, "Editable") == NULL)
		return;
	open = strrchr(buf, '(');
	close = open ? strchr(open, ')') : NULL;
	eq = open ? strstr(open, "==") : NULL;
	if (open == NULL || close == NULL || eq == NULL || eq > close)
		return;
	free(f->ed_name);
	free(f->ed_version);
	f->ed_name = pipline_dup(open + 1, (size_t)(eq - open - 1));
	f->ed_version = pipline_dup(eq + 2, (size_t)(close - eq - 2));
	f->ed_line = line;
}

/* A JSON string of [s, s+n): the text was checked as UTF-8 as a whole
 * (pipline_check_text) and the parsers cut it at ASCII bytes only, but a
 * string that is all ASCII skips jansson's second check outright. */
static json_t *
fz_string(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80 || s[i] == '\0')
			return json_stringn(s, n);
	return json_stringn_nocheck(s, n);
}

/* A new package.  local: its local label when the caller parsed the
 * version already, else NULL (worked out here). */
static json_t *
new_pkg(struct fz *f, const char *name, const char *version, enum fz_kind kind,
	const char *local, int line)
{
	char canon[256], lbuf[KD_PEP440_MAX_LOCAL];
	json_t *p = json_object(), *jn = NULL, *jc = NULL;

	if (name != NULL) {
		size_t nl = strlen(name);
		pep503_canonical_n(name, nl, canon, sizeof canon);
		jn = fz_string(name, nl);
		/* "torch" is its own canonical name: one string for both */
		jc = strcmp(canon, name) == 0 ? json_incref(jn) : fz_string(canon, strlen(canon));
	}
	json_object_set_new_nocheck(p, "name", jn ? jn : json_null());
	json_object_set_new_nocheck(p, "canonical_name", jc ? jc : json_null());
	json_object_set_new_nocheck(p, "version", version ?
				    fz_string(version, strlen(version)) : json_null());
	json_object_set_nocheck(p, "kind", f->kinds[kind]);
	if (version != NULL && local == NULL)
		local = pep440_local_of(version, lbuf, sizeof lbuf);
	if (version != NULL && local[0])
		json_object_set_new_nocheck(p, "local_label", json_string(local));
	json_object_set_new_nocheck(p, "line", json_integer(line));
	return p;
}

static void
set_url(json_t *p, const char *url)
{
	char *clean = redact_url(url, NULL);

	json_object_set_new(p, "url", json_string(clean ? clean : ""));
	free(clean);
}

static void
vcs_fields(json_t *p, const struct pipline_url_parts *u)
{
	if (u->rev)
		json_object_set_new(p, "commit", json_string(u->rev));
	if (u->subdirectory)
		json_object_set_new(p, "subdirectory", json_string(u->subdirectory));
}

/* "-e URL" or "-e PATH" (value already trimmed and NUL-terminated). */
static void
editable(struct fz *f, int line, char *val)
{
	const char *name = NULL, *ver = NULL;
	struct pipline_url_parts u;
	json_t *p;

	if (f->ed_name != NULL && f->ed_line == line - 1) {
		name = f->ed_name;
		ver = f->ed_version;
	}
	if (pipline_is_vcs(val)) {
		pipline_url_split(val, &u);
		p = new_pkg(f, name ? name : u.egg, ver, FZ_EDITABLE_VCS, NULL, line);
		set_url(p, val);
		vcs_fields(p, &u);
		pipline_url_parts_free(&u);
		scan_line(f, line, val, strlen(val), NULL);
	} else if (strncasecmp(val, "file:", 5) == 0 || strstr(val, "://") != NULL) {
		p = new_pkg(f, name, ver, FZ_EDITABLE_LOCAL, NULL, line);
		set_url(p, val);
		scan_line(f, line, val, strlen(val), val);
	} else {
		p = new_pkg(f, name, ver, FZ_EDITABLE_LOCAL, NULL, line);
		json_object_set_new(p, "path", json_string(val));
		scan_line(f, line, val, strlen(val), val);
	}
	treeout_add(f->pick, f->pkgs, FZ_PKGS, p);
}

/* Digits and single dots, a digit at both ends ("2.3.0"), at most 16
 * parts of at most 18 digits, under 256 bytes: a PEP 440 release with
 * nothing else, which pep440_parse accepts (anything else goes to it). */
static int
plain_release(const char *s)
{
	size_t digits = 0, parts = 1, len = 0;

	for (; *s; s++, len++) {
		if (*s >= '0' && *s <= '9') {
			if (++digits > 18)
				return 0;
		} else if (*s == '.' && digits > 0 && ++parts <= KD_PEP440_MAX_RELEASE) {
			digits = 0;
		} else {
			return 0;
		}
	}
	return digits > 0 && len < KD_PEP440_MAX_TEXT;
}

/* Does the version at s end at its first blank with nothing after it but
 * blanks, a marker (";") or a comment ("#")?  "1 .0" does not: pip
 * refuses it, so it must not be read as "1". */
static int
version_ends_clean(const char *s)
{
	s += strcspn(s, " \t;");
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == '\0' || *s == ';' || *s == '#';
}

/* A package line; returns 0 when it was one, -2 when its version is not
 * one token (refused), -1 when it is not a package line. */
static int
package(struct fz *f, int line, const char *s, size_t n)
{
	char buf[KD_CAP_LINE + 1];
	char *at, *eq, *name, *rest;
	size_t nl;
	json_t *p;

	memcpy(buf, s, n);
	buf[n] = '\0';
	if ((at = strstr(buf, " @ ")) != NULL) {
		*at = '\0';
		name = buf;
		rest = at + 3;
		while (*rest == ' ')
			rest++;
		rest[strcspn(rest, " \t;")] = '\0';
		nl = strlen(name);
		while (nl > 0 && name[nl - 1] == ' ')
			name[--nl] = '\0';
		if (!pep503_valid_name(name, nl) || *rest == '\0')
			return -1;
		if (pipline_is_vcs(rest)) {
			struct pipline_url_parts u;
			pipline_url_split(rest, &u);
			p = new_pkg(f, name, NULL, FZ_VCS, NULL, line);
			set_url(p, rest);
			vcs_fields(p, &u);
			pipline_url_parts_free(&u);
			scan_line(f, line, rest, strlen(rest), NULL);
		} else {
			p = new_pkg(f, name, NULL, FZ_DIRECT_URL, NULL, line);
			set_url(p, rest);
			if (strncasecmp(rest, "file:", 5) == 0) {
				const char *path = rest + 5;
				if (strncmp(path, "//", 2) == 0)
					path += 2;
				json_object_set_new(p, "path", json_string(path));
			}
			scan_line(f, line, rest, strlen(rest), rest);
		}
		treeout_add(f->pick, f->pkgs, FZ_PKGS, p);
		return 0;
	}
	if ((eq = strstr(buf, "==")) == NULL)
		return -1;
	int arbitrary = eq[2] == '=';
	name = buf;
	nl = (size_t)(eq - buf);
	while (nl > 0 && buf[nl - 1] == ' ')
		nl--;
	buf[nl] = '\0';
	rest = eq + (arbitrary ? 3 : 2);
	while (*rest == ' ')
		rest++;
	if (!version_ends_clean(rest))
		return -2;
	rest[strcspn(rest, " \t;")] = '\0';
	if (!pep503_valid_name(name, nl) || *rest == '\0')
		return -1;
	const char *local = NULL;
	struct pep440_version v;
	if (!arbitrary && plain_release(rest)) {
		local = "";   /* "1.26.4": PEP 440, no local label */
	} else if (!arbitrary) {
		if (pep440_parse(rest, &v) != 0)
			return -1;
		local = v.local;
	}
	p = new_pkg(f, name, rest, arbitrary ? FZ_ARBITRARY : FZ_PINNED, local, line);
	treeout_add(f->pick, f->pkgs, FZ_PKGS, p);
	return 0;
}

static int
starts(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);

	return n >= w && strncmp(s, word, w) == 0;
}

static void
one_line(struct fz *f, int line, const char *s, size_t n)
{
	if (s[0] == '#') {
		editable_comment(f, line, s, n);
		return;
	}
	if (starts(s, n, "WARNING:") || starts(s, n, "DEPRECATION:") || starts(s, n, "ERROR:") ||
	    starts(s, n, "Note:") || starts(s, n, "[notice]"))
		return;
	if (starts(s, n, "-e ") || starts(s, n, "--editable ") || starts(s, n, "--editable=")) {
		size_t k = s[1] == 'e' ? 3 : 11;
		const char *v = s + k;
		size_t vn = n - k;
		pipline_trim(&v, &vn);
		char *val = pipline_dup(v, vn);
		if (val != NULL && vn > 0)
			editable(f, line, val);
		free(val);
		return;
	}
	if (s[0] == '-') {
		/* options of `pip freeze -r`: -i, -f, -r ...; scanned, not packages */
		scan_line(f, line, s, n, NULL);
		return;
	}
	int prc = package(f, line, s, n);
	if (prc == -2) {
		char msg[160];
		snprintf(msg, sizeof msg, "line %d: the version is not one PEP 440 version "
			 "(a space inside it): pip refuses this line, so it is not read",
			 line);
		add_warning(f, line, "version", msg);
	}
	if (prc != 0) {
		char *t = pipline_dup(s, n);
		size_t clean_len;
		char *clean = redact_text(t, n, &clean_len);
		treeout_add(f->pick, f->unrec, FZ_UNREC, json_pack("{s:i, s:s}", "line", line,
									 "text", clean ? clean : ""));
		scan_line(f, line, s, n, NULL);
		free(clean);
		free(t);
	}
}

static int
is_freeze_command(const char *c, size_t n)
{
	return pipline_command_has(c, n, "freeze") || pipline_command_has(c, n, "list");
}

/* freeze_parse, with a pick (treeout.h) or without (NULL). */
static int
parse_pick(const char *text, size_t len, const char *name, struct kd_pick *pick,
	   json_t **out, struct kd_err *err)
{
	struct fz f = { .pick = pick };
	struct pipline_iter it;
	const char *s;
	size_t n;
	int on = 1, rc, first_cmd = 0, last_cmd = -1;

	*out = NULL;
	if ((rc = pipline_check_text_ex(text, len, name, pick ? 0 : KD_CAP_INPUT_LINES, err)) != 0)
		return rc;
	/* when the command is shown, only its output counts */
	pipline_init(&it, text, len);
	while (pipline_next(&it, &s, &n)) {
		pipline_unpaste(&s, &n);
		long cmd = pipline_command(s, n, 1);
		if (cmd >= 0) {
			if (last_cmd < 0)
				first_cmd = it.lineno;
			last_cmd = it.lineno;
		}
		if (cmd >= 0 && is_freeze_command(s + cmd, n - (size_t)cmd))
			on = 0;
	}
	for (int k = 0; k < FZ_NKINDS; k++)
		f.kinds[k] = json_string_nocheck(fz_kind_names[k]);
	f.pkgs = json_array();
	f.warnings = json_array();
	f.unrec = json_array();
	pipline_init(&it, text, len);
	while (pipline_next(&it, &s, &n)) {
		pipline_unpaste(&s, &n);
		if (n == 0 || pipline_is_fence(s, n) || strncmp(s, "...", n < 3 ? n : 3) == 0 ||
		    (n == 3 && memcmp(s, "\xe2\x80\xa6", 3) == 0))
			continue;
		/* the same line as in the first pass: a command only where one was */
		long cmd = it.lineno >= first_cmd && it.lineno <= last_cmd ?
			   pipline_command(s, n, 1) : -1;
		if (cmd >= 0) {
			on = is_freeze_command(s + cmd, n - (size_t)cmd);
			continue;
		}
		if (on)
			one_line(&f, it.lineno, s, n);
	}
	free(f.ed_name);
	free(f.ed_version);
	for (int k = 0; k < FZ_NKINDS; k++)
		json_decref(f.kinds[k]);
	*out = json_pack("{s:o, s:o, s:o}", "packages", f.pkgs, "warnings", f.warnings,
			 "unrecognised", f.unrec);
	return 0;
}

int
freeze_parse(const char *text, size_t len, const char *name, json_t **out,
	     struct kd_err *err)
{
	return parse_pick(text, len, name, NULL, out, err);
}

struct fz_input {
	const char *text, *name;
	size_t len;
};

static int
parse_input(void *arg, struct kd_pick *pick, json_t **out, struct kd_err *err)
{
	const struct fz_input *in = arg;

	return parse_pick(in->text, in->len, in->name, pick, out, err);
}

int
inspect_print_freeze(FILE *fp, enum kd_format fmt, const char *path, struct kd_err *err)
{
	struct fz_input in = { .name = path };
	char *buf = NULL;
	int rc;

	if ((rc = fsutil_read_file(path, KD_CAP_TEXT_FILE, &buf, &in.len, err)) != 0)
		return rc == KD_EENV ? KD_EINPUT : rc;
	in.text = buf;
	rc = treeout_print(fp, fmt, parse_input, &in, fz_ids, 3, err);
	free(buf);
	return rc;
}

int
inspect_freeze(const char *path, json_t **out, struct kd_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	if ((rc = fsutil_read_file(path, KD_CAP_TEXT_FILE, &buf, &len, err)) != 0)
		return rc == KD_EENV ? KD_EINPUT : rc;
	rc = freeze_parse(buf, len, path, out, err);
	free(buf);
	return rc;
}
