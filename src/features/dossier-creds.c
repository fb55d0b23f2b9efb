/*
 * dossier-creds.c - the credentials a rebuild from a dossier needs (see
 * include/kernodeck/dossier-creds.h): gathered from the reference, the
 * rebuild file and its includes, the netrc's host names and the reference
 * stage's record of the git remote; written into dossier.yaml, README.md
 * and procedure.sh by name, never by value.
 */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/ctx.h"
#include "kernodeck/dossier-creds.h"
#include "kernodeck/dossier-text.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/quote.h"
#include "kernodeck/redact.h"
#include "kernodeck/secrets.h"
#include "kernodeck/sha256sums.h"
#include "kernodeck/stage.h"
#include "kernodeck/yamlio.h"
#include "kernodeck/obs-reference.h"

#define CREDS_FILE_CAP (4u << 20)   /* a rebuild file or a netrc read whole */
#define CREDS_INCLUDES 16           /* rebuild files followed (-r, -c) */
#define CREDS_NAME_CAP 128
#define CREDS_WHERE_CAP 8           /* places listed per credential */

/* The entry for provide ("env:NAME", "netrc:HOST"), added when new; a
 * place is appended to its where list (at most CREDS_WHERE_CAP, no
 * repeat). */
static void
cred_add(json_t *a, const char *kind, const char *name, const char *purpose,
	 const char *where)
{
	char provide[CREDS_NAME_CAP + 8], how[CREDS_NAME_CAP * 2 + 96];
	json_t *v = NULL, *w, *x;
	size_t i;

	snprintf(provide, sizeof provide, "%s:%s", kind, name);
	json_array_foreach(a, i, x)
		if (strcmp(json_string_value(json_object_get(x, "provide")), provide) == 0)
			v = x;
	if (v == NULL) {
		if (strcmp(kind, "env") == 0)
			snprintf(how, sizeof how, "set %s in the environment", name);
		else if (strcmp(kind, "pip") == 0)
			snprintf(how, sizeof how, "set %s in the environment, or the same setting "
				 "with its credential in pip's configuration (pip config set)", name);
		else
			snprintf(how, sizeof how, "a netrc entry (machine %s, in $NETRC or ~/.netrc)%s",
				 name, strstr(purpose, "git") ? " or a git credential helper" : "");
		v = json_object();
		json_object_set_new(v, "name", json_string(name));
		json_object_set_new(v, "provide", json_string(provide));
		json_object_set_new(v, "how", json_string(how));
		json_object_set_new(v, "for", json_string(purpose));
		json_object_set_new(v, "where", json_array());
		json_array_append_new(a, v);
	}
	w = json_object_get(v, "where");
	json_array_foreach(w, i, x)
		if (strcmp(json_string_value(x), where) == 0)
			return;
	if (json_array_size(w) < CREDS_WHERE_CAP)
		json_array_append_new(w, json_string(where));
}

/* The field of a rebuild-file line a ${NAME} is in. */
static const char *
line_field(const char *s, size_t n)
{
	char l[512];

	snprintf(l, sizeof l, "%.*s", (int)(n < sizeof l - 1 ? n : sizeof l - 1), s);
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '#')
		return "a comment";
	if (strstr(l, "--extra-index-url"))
		return "an extra index URL";
	if (strstr(l, "--index-url") || strncmp(s, "-i ", 3) == 0)
		return "the index URL";
	if (strstr(l, "--find-links") || strncmp(s, "-f ", 3) == 0)
		return "a find-links URL";
	if (strstr(l, "--trusted-host"))
		return "a trusted host";
	if (strstr(l, "git+") || strstr(l, "hg+") || strstr(l, "svn+"))
		return "a VCS requirement's URL";
	if (strstr(l, "://"))
		return "a requirement's URL";
	return "a requirement";
}

/* The host of the first http(s) URL of a line without userinfo. */
static int
line_host(const char *s, size_t n, char *host, size_t cap)
{
	const char *u = NULL, *e = s + n, *h;
	size_t hl = 0;

	for (const char *p = s; p + 8 <= e && u == NULL; p++)
		if (strncmp(p, "https://", 8) == 0 || strncmp(p, "http://", 7) == 0)
			u = strstr(p, "://") + 3;
	if (u == NULL)
		return 0;
	for (h = u; h + hl < e && !strchr("/:?# \t\r\n@", h[hl]); hl++)
		;
	if (h + hl < e && h[hl] == '@')
		return 0;   /* userinfo: named by ${NAME}, or a finding */
	if (hl == 0 || hl >= cap)
		return 0;
	snprintf(host, cap, "%.*s", (int)hl, h);
	return 1;
}

/* Does the netrc ($NETRC or ~/.netrc) have "machine HOST"?  Only the host
 * names are read; nothing else of the file is kept. */
static int
netrc_has(const char *host)
{
	const char *path = getenv("NETRC"), *home = getenv("HOME");
	char *alloc = NULL, *buf = NULL, *save = NULL;
	size_t len = 0;
	int found = 0, next = 0;

	if ((path == NULL || *path == '\0') && home != NULL)
		path = alloc = fsutil_join(home, ".netrc");
	if (path == NULL || fsutil_read_file(path, CREDS_FILE_CAP, &buf, &len, NULL) != 0) {
		free(alloc);
		return 0;
	}
	for (char *t = strtok_r(buf, " \t\r\n", &save); t && !found; t = strtok_r(NULL, " \t\r\n", &save)) {
		found = next && strcmp(t, host) == 0;
		next = strcmp(t, "machine") == 0;
	}
	memset(buf, 0, len);
	free(buf);
	free(alloc);
	return found;
}

/* The file a line includes (-r FILE, -rFILE, --requirement[=| ]FILE, the
 * same for -c and --constraint), into out. */
static int
include_of(const char *s, size_t n, char *out, size_t cap)
{
	static const char *const opt[] = { "--requirement", "--constraint", "-r", "-c" };
	const char *e = s + n, *v = NULL;
	size_t l = 0;

	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	for (size_t i = 0; i < sizeof opt / sizeof opt[0] && v == NULL; i++) {
		size_t ol = strlen(opt[i]);
		if ((size_t)(e - s) > ol && strncmp(s, opt[i], ol) == 0 &&
		    (opt[i][1] != '-' || s[ol] == ' ' || s[ol] == '=' || s[ol] == '\t'))
			v = s + ol;
	}
	if (v == NULL)
		return 0;
	while (v < e && (*v == ' ' || *v == '\t' || *v == '='))
		v++;
	while (v + l < e && !strchr(" \t\r#", v[l]))
		l++;
	if (l == 0 || l >= cap)
		return 0;
	snprintf(out, cap, "%.*s", (int)l, v);
	return 1;
}

/* One rebuild file (rel, inside the project): its ${NAME}s, its index
 * hosts with a netrc entry, and the files it includes (queued). */
static void
scan_rebuild(const struct kd_ctx *ctx, const char *rel, json_t *a, json_t *queue)
{
	char *path = fsutil_join(ctx->project_dir, rel), *text = NULL;
	size_t len = 0;
	int line = 0;

	if (path == NULL || fsutil_read_file(path, CREDS_FILE_CAP, &text, &len, NULL) != 0) {
		free(path);
		return;
	}
	for (char *s = text, *nl; s < text + len; s = nl + 1) {
		char where[PATH_MAX + 96], host[256], inc[PATH_MAX];
		size_t n;
		const char *f;
		nl = memchr(s, '\n', (size_t)(text + len - s));
		if (nl == NULL)
			nl = text + len;
		n = (size_t)(nl - s);
		line++;
		f = line_field(s, n);
		snprintf(where, sizeof where, "%s line %d (%s)", rel, line, f);
		for (char *p = s; p + 2 < nl && (p = memchr(p, '$', (size_t)(nl - p))) != NULL; p++) {
			size_t k = 0;
			char nm[CREDS_NAME_CAP];
			if (p[1] != '{')
				continue;
			while (p + 2 + k < nl && (isalnum((unsigned char)p[2 + k]) || p[2 + k] == '_'))
				k++;
			if (k == 0 || k >= sizeof nm || p + 2 + k >= nl || p[2 + k] != '}')
				continue;
			snprintf(nm, sizeof nm, "%.*s", (int)k, p + 2);
			cred_add(a, "env", nm, "an account named in the rebuild file (pip reads "
				 "${NAME} from the environment)", where);
		}
		if ((strcmp(f, "the index URL") == 0 || strcmp(f, "an extra index URL") == 0 ||
		     strcmp(f, "a find-links URL") == 0) && line_host(s, n, host, sizeof host) &&
		    netrc_has(host))
			cred_add(a, "netrc", host, "the package index's account (pip reads the netrc)",
				 where);
		/* -r FILE, -c FILE: followed, relative to this file */
		if (include_of(s, n, inc, sizeof inc)) {
			char *dir = strdup(rel), *slash = dir ? strrchr(dir, '/') : NULL, *j;
			if (slash)
				*slash = '\0';
			j = slash ? fsutil_join(dir, inc) : strdup(inc);
			if (j && sha256sums_path_safe(j) && json_array_size(queue) < CREDS_INCLUDES)
				json_array_append_new(queue, json_string(j));
			free(j);
			free(dir);
		}
	}
	free(text);
	free(path);
}

/* A data item of the reference with access env:NAME. */
static void
data_creds(const struct kd_ctx *ctx, json_t *a)
{
	json_t *items = yamlio_get(ctx->ref, "data"), *it;
	size_t i;

	json_array_foreach(items, i, it) {
		const char *acc = json_string_value(json_object_get(it, "access"));
		const char *nm = json_string_value(json_object_get(it, "name"));
		const char *url = json_string_value(json_object_get(it, "url"));
		const char *prov = json_string_value(json_object_get(it, "provenance"));
		char purpose[1024], where[300];
		if (acc == NULL || strncmp(acc, "env:", 4) != 0 || acc[4] == '\0' ||
		    strlen(acc + 4) >= CREDS_NAME_CAP)
			continue;
		snprintf(purpose, sizeof purpose, "access to %s%s%s%s%s", nm ? nm : "a data item",
			 url ? " at " : "", url ? url : "", prov ? "; " : "", prov ? prov : "");
		snprintf(where, sizeof where, "reference.yaml data item %s (access)",
			 nm ? nm : "without a name");
		cred_add(a, "env", acc + 4, purpose, where);
	}
}

/* The entry point's command line: each ${NAME} in an argument (what
 * `dossier --redact` writes in place of a value; kernodeck puts the
 * variable's value there when it runs it) and each credential the rules
 * find in it still (--password VALUE, sshpass -p VALUE), by the name of
 * the variable that should provide it. */
static void
entry_creds(const struct kd_ctx *ctx, json_t *a)
{
	static const char purpose[] = "a credential on the entry point's command line "
		"(kernodeck puts the variable's value in place of ${NAME} when it runs it)";
	json_t *ep = yamlio_get(ctx->ref, "code.entry_point"), *x;
	size_t i, len = 0;
	char *line, where[128];

	json_array_foreach(ep, i, x) {
		const char *s = json_string_value(x), *r;
		char nm[CREDS_NAME_CAP];
		for (r = s ? strstr(s, "${") : NULL; r != NULL; r = strstr(r + 2, "${")) {
			size_t n = strspn(r + 2, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					  "0123456789_");
			if (n == 0 || n >= sizeof nm || r[2 + n] != '}')
				continue;
			snprintf(nm, sizeof nm, "%.*s", (int)n, r + 2);
			snprintf(where, sizeof where, "reference.yaml code.entry_point (argument %zu)",
				 i + 1);
			cred_add(a, "env", nm, purpose, where);
		}
	}
	if ((line = secrets_argv_line(ep, &len)) == NULL)
		return;
	struct redact_finding f[8];
	size_t n = redact_scan(line, len, f, 8);
	for (size_t k = 0; k < n && k < 8; k++)
		cred_add(a, "env", f[k].name, purpose, "reference.yaml code.entry_point");
	free(line);
}

/* Does a line of text hold a (and b, when not NULL), in any case? */
static int
has_line_ci(const char *text, const char *a, const char *b)
{
	const char *p = text;

	while (p != NULL && *p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char l[1024];
		snprintf(l, sizeof l, "%.*s", (int)(n < sizeof l ? n : sizeof l - 1), p);
		for (char *c = l; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		if (strstr(l, a) != NULL && (b == NULL || strstr(l, b) != NULL))
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

/* A file read whole (NULL when missing); the caller frees it. */
static char *
read_text(const char *dir, const char *rel)
{
	char *p = dir ? fsutil_join(dir, rel) : NULL, *buf = NULL;
	size_t len = 0;

	if (p == NULL || fsutil_read_file(p, CREDS_FILE_CAP, &buf, &len, NULL) != 0)
		buf = NULL;
	free(p);
	return buf;
}

/* The git remote's account, by its real source: the remote URL's
 * userinfo (stripped by repo.c), an http.extraheader with an
 * Authorization in the project's .git/config (what CI checkouts write),
 * git's credential store (~/.git-credentials), a credential helper or the
 * netrc. */
static void
remote_creds(const struct kd_ctx *ctx, json_t *a)
{
	const json_t *obs = kd_ctx_obs(ctx, stage_pos(&kd_stage_reference));
	const char *url = obs_reference_code_remote(obs), *home = getenv("HOME");
	int had = obs_reference_code_remote_had_credentials(obs);
	char *cfg = read_text(ctx->project_dir, ".git/config");
	char *store = read_text(home, ".git-credentials"), *user = read_text(home, ".gitconfig");
	int header = cfg != NULL && has_line_ci(cfg, "extraheader", "authorization");
	char host[256], at[300], src[700];

	if (had || header) {
		if (url == NULL || !line_host(url, strlen(url), host, sizeof host))
			snprintf(host, sizeof host, "the remote's host");
		snprintf(at, sizeof at, "@%s", host);
		snprintf(src, sizeof src, "the git remote's account (its credential came from %s%s%s%s%s; "
			 "the dossier leaves it out)",
			 had ? "the remote URL's userinfo" : "",
			 had && header ? " and " : "",
			 header ? "an http.extraheader Authorization in the project's .git/config, "
				  "as a CI checkout writes it" : "",
			 store != NULL && strstr(store, at) != NULL ?
				 "; git's credential store (~/.git-credentials) holds one too" : "",
			 (cfg != NULL && has_line_ci(cfg, "helper", NULL)) ||
			 (user != NULL && has_line_ci(user, "helper", NULL)) ?
				 "; a git credential helper is configured" :
			 netrc_has(host) ? "; the netrc has an entry" : "");
		cred_add(a, "netrc", host, src, "the git remote (code.remote; procedure.sh's REPO)");
	}
	free(cfg);
	free(store);
	free(user);
}

/* What pip's configuration and the PIP_* variables supplied to the
 * rebuild: an index, extra index or find-links URL with an account (or
 * another credential), named by the variable pip reads the same setting
 * from (index-url: PIP_INDEX_URL). */
static void
pip_creds(json_t *a)
{
	extern char **environ;
	json_t *files = secrets_pip_files(environ), *f;
	char name[CREDS_NAME_CAP], where[CREDS_NAME_CAP + 64], purpose[4200];
	size_t i;

	for (char **e = environ; *e != NULL; e++) {
		const char *eq = strchr(*e, '=');
		if (strncmp(*e, "PIP_", 4) != 0 || eq == NULL || (size_t)(eq - *e) >= sizeof name)
			continue;
		snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
		if (!secrets_env_name(name) && redact_scan(eq + 1, strlen(eq + 1), NULL, 0) == 0)
			continue;
		snprintf(where, sizeof where, "the environment (%s, which pip read for the rebuild)",
			 name);
		cred_add(a, "env", name, "the package index's account (pip's setting, with its "
			 "credential)", where);
	}
	json_array_foreach(files, i, f) {
		const char *path = json_string_value(f);
		char *buf = NULL;
		size_t len = 0, ln = 0;
		if (fsutil_read_file(path, CREDS_FILE_CAP, &buf, &len, NULL) != 0)
			continue;
		for (char *l = buf; l != NULL && *l; ) {
			char *nl = strchr(l, '\n');
			size_t n = nl ? (size_t)(nl - l) : strlen(l), k = 0;
			const char *eq = memchr(l, '=', n);
			ln++;
			if (eq != NULL && redact_scan(l, n, NULL, 0) > 0) {
				const char *b = l;
				while (b < eq && (*b == ' ' || *b == '\t'))
					b++;
				k = (size_t)snprintf(name, sizeof name, "PIP_");
				for (; b < eq && k + 1 < sizeof name && *b != ' ' && *b != '\t'; b++)
					name[k++] = *b == '-' ? '_' : (char)toupper((unsigned char)*b);
				name[k] = '\0';
				if (k > 4) {
					snprintf(where, sizeof where, "pip's configuration line %zu", ln);
					snprintf(purpose, sizeof purpose, "the package index's account, which "
						 "pip's configuration %s gave the rebuild", path);
					cred_add(a, "pip", name, purpose, where);
				}
			}
			l = nl ? nl + 1 : NULL;
		}
		memset(buf, 0, len);
		free(buf);
	}
	json_decref(files);
}

json_t *
dossier_credentials(const struct kd_ctx *ctx)
{
	json_t *a = json_array(), *queue = json_array(), *v;
	size_t i;

	data_creds(ctx, a);
	json_array_append_new(queue, json_string("requirements-rebuild.txt"));
	for (i = 0; i < json_array_size(queue); i++) {
		const char *rel = json_string_value(json_array_get(queue, i));
		size_t k, seen = 0;
		json_array_foreach(queue, k, v)
			if (k < i && strcmp(json_string_value(v), rel) == 0)
				seen = 1;
		if (!seen)
			scan_rebuild(ctx, rel, a, queue);
	}
	entry_creds(ctx, a);
	pip_creds(a);
	remote_creds(ctx, a);
	json_decref(queue);
	return a;
}

/* Text for Markdown: no line break, no backtick, no bare '|'. */
static void
md(FILE *f, const char *s)
{
	for (; s && *s; s++)
		if (*s == '|' || *s == '`')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			fputc(' ', f);
		else
			fputc(*s, f);
}

char *
dossier_creds_readme(const json_t *creds)
{
	char *out = NULL;
	size_t len = 0, i, k;
	FILE *f = open_memstream(&out, &len);
	const json_t *v, *w;

	if (f == NULL)
		return NULL;
	fputs("\n## Credentials to provide\n\n", f);
	if (json_array_size(creds) == 0)
		fputs("None needed.\n", f);
	else
		fputs("The dossier holds no credential's value; a rebuild needs these "
		      "(`procedure.sh` stops first when a variable is not set):\n\n", f);
	json_array_foreach(creds, i, v) {
		fputs("- `", f);
		md(f, json_string_value(json_object_get(v, "provide")));
		fputs("`: ", f);
		md(f, json_string_value(json_object_get(v, "how")));
		fputs(", for ", f);
		md(f, json_string_value(json_object_get(v, "for")));
		fputs(".  Needed in: ", f);
		json_array_foreach(json_object_get(v, "where"), k, w) {
			fputs(k ? "; " : "", f);
			md(f, json_string_value(w));
		}
		fputs(".\n", f);
	}
	fclose(f);
	return out;
}

char *
dossier_creds_procedure(const json_t *creds)
{
	char *out = NULL, *q, msg[1024];
	size_t len = 0, i;
	FILE *f = open_memstream(&out, &len);
	const json_t *v;

	if (f == NULL)
		return NULL;
	fputs("# Credentials: only from the environment or the netrc, never in this file.\n", f);
	if (json_array_size(creds) == 0)
		fputs("# (none needed)\n", f);
	json_array_foreach(creds, i, v) {
		const char *n = json_string_value(json_object_get(v, "name"));
		const char *p = json_string_value(json_object_get(v, "provide"));
		const char *w = json_string_value(json_array_get(json_object_get(v, "where"), 0));
		int env = strncmp(p, "env:", 4) == 0 || strncmp(p, "pip:", 4) == 0;
		/* a name that is not a shell variable's is never put in code */
		for (const char *c = n; env && *c; c++)
			if (!(isalnum((unsigned char)*c) || *c == '_') || isdigit((unsigned char)n[0]))
				env = -1;
		if (env < 0)
			continue;
		snprintf(msg, sizeof msg, "procedure.sh: %s %s (%s): %s is needed by %s",
			 env ? "set" : "no netrc entry for", n,
			 json_string_value(json_object_get(v, "for")), p, w ? w : "the rebuild");
		q = quote_word(msg, 0);
		if (env && strncmp(p, "pip:", 4) == 0) {
			/* pip's configuration may hold it: only noted */
			fprintf(f, "if [ -z \"${%s:-}\" ]; then echo %s' (unless pip'\\''s configuration "
				"holds it)' >&2; fi\n", n, q);
		} else if (env) {
			fprintf(f, "if [ -z \"${%s:-}\" ]; then echo %s >&2; exit 3; fi\n", n, q);
		} else {
			char *qh = quote_word(n, 0);
			fprintf(f, "grep -qsw -- %s \"${NETRC:-$HOME/.netrc}\" || "
				"echo %s' (a credential helper may hold it instead)' >&2\n", qh, q);
			free(qh);
		}
		free(q);
	}
	fclose(f);
	return out;
}
