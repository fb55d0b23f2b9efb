/*
 * secrets.c - the credentials this machine holds, registered with
 * redact_value_add() at start: the values of secret-named environment
 * variables, URL userinfo in the environment, and what the rules find in
 * pip's configuration, .netrc, .pypirc, the git configuration and
 * .git-credentials.  Also `kernodeck inspect secrets FILE`.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/redact.h"
#include "kernodeck/secrets.h"

#define SECRETS_FILE_CAP (1u << 20)      /* a configuration file read whole */
#define SECRETS_INSPECT_CAP (256u << 20) /* a file inspect secrets reads */

static int
ends_with(const char *s, size_t l, const char *suf)
{
	size_t sl = strlen(suf);

	return l >= sl && strncmp(s + l - sl, suf, sl) == 0;
}

int
secrets_env_name(const char *name)
{
	static const char *const suffix[] = {
		"_TOKEN", "_KEY", "_SECRET", "_PASSWORD", "_PASSWD", "_PASS", "_PWD",
		"_APIKEY", "_PASSPHRASE", "_CREDENTIALS", "_AUTH",
	};
	static const char *const exact[] = { "TOKEN", "SECRET", "PASSWORD", "APIKEY" };
	/* names that hold where a secret is, or its size, not the secret */
	static const char *const not[] = {
		"_FILE", "_PATH", "_DIR", "_NAME", "_TYPE", "_SIZE", "_LENGTH", "_ID",
		"_URL", "_HOST", "_USER", "_USERNAME", "_SOCK", "_MODE", "_ENABLED",
	};
	char up[128];
	size_t l = strlen(name);

	if (l == 0 || l >= sizeof up)
		return 0;
	for (size_t i = 0; i <= l; i++)
		up[i] = (char)toupper((unsigned char)name[i]);
	for (size_t i = 0; i < sizeof not / sizeof not[0]; i++)
		if (ends_with(up, l, not[i]))
			return 0;
	for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
		if (strcmp(up, exact[i]) == 0)
			return 1;
	for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++)
		if (ends_with(up, l, suffix[i]))
			return 1;
	return strstr(up, "PASSWORD") != NULL || strstr(up, "SECRET") != NULL;
}

/* A value that would hide ordinary text: a path, a number, one lower-case
 * word. */
static int
ordinary(const char *v)
{
	size_t n = strlen(v), lower = 0, digits = 0;

	if (v[0] == '/' || v[0] == '~' || strncmp(v, "./", 2) == 0 || strncmp(v, "../", 3) == 0)
		return 1;
	for (size_t i = 0; i < n; i++) {
		lower += islower((unsigned char)v[i]) || v[i] == '-';
		digits += isdigit((unsigned char)v[i]) != 0;
	}
	return digits == n || (lower == n && n < 16);
}

static size_t
add_value(const char *name, const char *v)
{
	if (ordinary(v))
		return 0;
	return redact_value_add(name, v) == 1;
}

/* %XX decoded into a malloc'd copy. */
static char *
pct_decode(const char *s, size_t n)
{
	char *o = malloc(n + 1), *q = o;

	if (o == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n + 0 && isxdigit((unsigned char)s[i + 1]) &&
		    isxdigit((unsigned char)s[i + 2])) {
			char hex[3] = { s[i + 1], s[i + 2], 0 };
			*q++ = (char)strtol(hex, NULL, 16);
			i += 2;
		} else {
			*q++ = s[i];
		}
	}
	*q = '\0';
	return o;
}

/* Base64 (standard or URL-safe, padding optional) decoded into a malloc'd
 * string; NULL when it is not base64 of printable text. */
static char *
b64_text(const char *s, size_t n)
{
	static const char al[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *o = malloc(n + 1);
	size_t k = 0;
	unsigned acc = 0;
	int bits = 0;

	if (o == NULL)
		return NULL;
	for (size_t i = 0; i < n && s[i] != '='; i++) {
		char c = s[i] == '-' ? '+' : s[i] == '_' ? '/' : s[i];
		const char *p = c ? strchr(al, c) : NULL;
		if (p == NULL)
			goto bad;
		acc = (acc << 6) | (unsigned)(p - al);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			o[k] = (char)((acc >> bits) & 0xff);
			if (!isprint((unsigned char)o[k]))
				goto bad;
			k++;
		}
	}
	o[k] = '\0';
	return o;
bad:
	free(o);
	return NULL;
}

/* A Basic authorization (CI checkouts write one into .git/config as an
 * http.<url>.extraheader): base64 of user:password; both user:password
 * and the password alone become known values, since a project may print
 * the token inside it alone. */
static size_t
add_basic(const char *name, const char *v, size_t n)
{
	char *dec = b64_text(v, n), *c;
	size_t added = 0;

	if (dec == NULL)
		return 0;
	if ((c = strchr(dec, ':')) != NULL) {
		added += add_value(name, dec);
		added += add_value(name, c + 1);
	}
	free(dec);
	return added;
}

/* Register one finding's value: for URL userinfo the password (or the
 * token alone), as written and percent-decoded; for a Basic
 * authorization, also what it encodes. */
static size_t
add_span(const char *name, const char *kind, const char *v, size_t n)
{
	size_t added = 0;
	const char *c = memchr(v, ':', n);
	char *raw, *dec;

	if ((strcmp(kind, "url-userinfo") == 0 || strcmp(kind, "pip-conf-credential") == 0) &&
	    c != NULL) {
		n -= (size_t)(c + 1 - v);
		v = c + 1;
	}
	if (strcmp(kind, "authorization-basic") == 0)
		added += add_basic(name, v, n);
	if ((raw = strndup(v, n)) == NULL)
		return added;
	added += add_value(name, raw);
	if ((dec = pct_decode(v, n)) != NULL && strcmp(dec, raw) != 0)
		added += add_value(name, dec);
	free(dec);
	free(raw);
	return added;
}

/* Every finding of the rules in a text, registered. */
static size_t
collect_text(const char *text, size_t len)
{
	struct redact_finding *f;
	size_t n = redact_scan(text, len, NULL, 0), added = 0;

	if (n == 0 || (f = calloc(n, sizeof *f)) == NULL)
		return 0;
	n = redact_scan(text, len, f, n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].kind, "known-value") != 0)
			added += add_span(f[i].name, f[i].kind, text + f[i].off, f[i].len);
	free(f);
	return added;
}

size_t
secrets_collect_file(const char *path)
{
	struct kd_err err;
	char *buf = NULL;
	size_t len = 0, added;

	if (path == NULL || path[0] == '\0' ||
	    fsutil_read_file(path, SECRETS_FILE_CAP, &buf, &len, &err) != 0)
		return 0;
	added = collect_text(buf, len);
	free(buf);
	return added;
}

static const char *
env_get(char *const *envp, const char *name)
{
	size_t l = strlen(name);

	for (size_t i = 0; envp[i] != NULL; i++)
		if (strncmp(envp[i], name, l) == 0 && envp[i][l] == '=')
			return envp[i] + l + 1;
	return NULL;
}

/* One file under a folder named by a variable (or HOME/fallback). */
static size_t
collect_under(char *const *envp, const char *var, const char *fallback, const char *rel)
{
	const char *base = var ? env_get(envp, var) : NULL;
	const char *home = env_get(envp, "HOME");
	char path[4096];

	if (base != NULL && base[0] != '\0')
		snprintf(path, sizeof path, "%s/%s", base, rel);
	else if (fallback != NULL && home != NULL)
		snprintf(path, sizeof path, "%s/%s/%s", home, fallback, rel);
	else
		return 0;
	return secrets_collect_file(path);
}

static void
pip_push(json_t *a, const char *path)
{
	if (path != NULL && path[0] != '\0')
		json_array_append_new(a, json_string(path));
}

json_t *
secrets_pip_files(char *const *envp)
{
	const char *home = env_get(envp, "HOME"), *xdg = env_get(envp, "XDG_CONFIG_DIRS");
	const char *venv = env_get(envp, "VIRTUAL_ENV"), *xch = env_get(envp, "XDG_CONFIG_HOME");
	char path[4096];
	json_t *a = json_array();

	if (a == NULL)
		return NULL;
	pip_push(a, env_get(envp, "PIP_CONFIG_FILE"));
	pip_push(a, "/etc/pip.conf");
	if (xdg != NULL && xdg[0] != '\0') {
		char *dirs = strdup(xdg), *save = NULL;
		for (char *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d;
		     d = strtok_r(NULL, ":", &save)) {
			snprintf(path, sizeof path, "%s/pip/pip.conf", d);
			pip_push(a, path);
		}
		free(dirs);
	} else {
		pip_push(a, "/etc/xdg/pip/pip.conf");
	}
	if (xch != NULL && xch[0] != '\0')
		snprintf(path, sizeof path, "%s/pip/pip.conf", xch);
	else if (home != NULL)
		snprintf(path, sizeof path, "%s/.config/pip/pip.conf", home);
	if ((xch != NULL && xch[0] != '\0') || home != NULL)
		pip_push(a, path);
	if (home != NULL) {
		snprintf(path, sizeof path, "%s/.pip/pip.conf", home);
		pip_push(a, path);
	}
	if (venv != NULL) {
		snprintf(path, sizeof path, "%s/pip.conf", venv);
		pip_push(a, path);
	}
	return a;
}

/* pip's configuration files (site, user, global, PIP_CONFIG_FILE). */
static size_t
collect_pip(char *const *envp)
{
	json_t *files = secrets_pip_files(envp), *f;
	size_t i, added = 0;

	json_array_foreach(files, i, f)
		added += secrets_collect_file(json_string_value(f));
	json_decref(files);
	return added;
}

size_t
secrets_collect(char *const *envp)
{
	const char *home = env_get(envp, "HOME"), *netrc = env_get(envp, "NETRC");
	char path[4096];
	size_t added = 0;

	for (size_t i = 0; envp[i] != NULL; i++) {
		const char *eq = strchr(envp[i], '=');
		char name[128];
		if (eq == NULL || (size_t)(eq - envp[i]) >= sizeof name)
			continue;
		snprintf(name, sizeof name, "%.*s", (int)(eq - envp[i]), envp[i]);
		if (secrets_env_name(name))
			added += add_value(name, eq + 1);
		/* URL userinfo and tokens of known shapes in any variable */
		added += collect_text(envp[i], strlen(envp[i]));
	}
	added += collect_pip(envp);
	if (netrc != NULL)
		added += secrets_collect_file(netrc);
	if (home != NULL) {
		static const char *const rel[] = { ".netrc", ".pypirc", ".gitconfig",
						   ".git-credentials" };
		for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
			snprintf(path, sizeof path, "%s/%s", home, rel[i]);
			added += secrets_collect_file(path);
		}
	}
	added += collect_under(envp, "XDG_CONFIG_HOME", ".config", "git/config");
	added += collect_under(envp, "XDG_CONFIG_HOME", ".config", "git/credentials");
	added += secrets_collect_file(env_get(envp, "GIT_CONFIG_GLOBAL"));
	added += secrets_collect_file("/etc/gitconfig");
	return added;
}

char *
secrets_argv_line(const json_t *argv, size_t *lenp)
{
	size_t i, len = 0;
	json_t *a;
	char *line, *p;

	json_array_foreach(argv, i, a)
		len += json_is_string(a) ? json_string_length(a) + 1 : 0;
	if ((line = p = malloc(len + 1)) == NULL)
		return NULL;
	json_array_foreach(argv, i, a) {
		if (!json_is_string(a))
			continue;
		memcpy(p, json_string_value(a), json_string_length(a));
		p += json_string_length(a);
		*p++ = ' ';
	}
	*p = '\0';
	*lenp = (size_t)(p - line);
	return line;
}

size_t
secrets_collect_argv(const json_t *argv)
{
	size_t len = 0, added;
	char *line = secrets_argv_line(argv, &len);

	if (line == NULL)
		return 0;
	added = collect_text(line, len);
	free(line);
	return added;
}

/* The git folder of a project: PROJECT/.git, or the folder a ".git" file
 * names ("gitdir: PATH", a worktree or a submodule); malloc'd or NULL. */
static char *
git_dir_of(const char *project)
{
	char *dot = fsutil_join(project, ".git"), *buf = NULL, *dir = NULL;
	size_t len = 0;
	struct kd_err err;
	struct stat st;

	if (dot == NULL || (stat(dot, &st) == 0 && S_ISDIR(st.st_mode)))
		return dot;
	if (fsutil_read_file(dot, 4096, &buf, &len, &err) == 0 &&
	    strncmp(buf, "gitdir: ", 8) == 0) {
		buf[strcspn(buf, "\r\n")] = '\0';
		dir = buf[8] == '/' ? strdup(buf + 8) : fsutil_join(project, buf + 8);
	}
	free(buf);
	free(dot);
	return dir;
}

size_t
secrets_collect_project(const char *project)
{
	char *gd = git_dir_of(project), *p, *common = NULL, *buf = NULL;
	size_t added = 0, len = 0;
	struct kd_err err;

	if (gd == NULL)
		return 0;
	if ((p = fsutil_join(gd, "config")) != NULL)
		added += secrets_collect_file(p);
	free(p);
	/* a worktree's own folder names the repository's in "commondir" */
	if ((p = fsutil_join(gd, "commondir")) != NULL &&
	    fsutil_read_file(p, 4096, &buf, &len, &err) == 0) {
		buf[strcspn(buf, "\r\n")] = '\0';
		common = buf[0] == '/' ? strdup(buf) : fsutil_join(gd, buf);
	}
	free(p);
	free(buf);
	if (common != NULL && (p = fsutil_join(common, "config")) != NULL) {
		added += secrets_collect_file(p);
		free(p);
	}
	free(common);
	free(gd);
	return added;
}

int
inspect_secrets(const char *path, json_t **out, struct kd_err *err)
{
	struct redact_finding *f = NULL;
	char *buf = NULL;
	size_t len = 0, n;
	json_t *arr;
	int rc;

	*out = NULL;
	if ((rc = fsutil_read_file(path, SECRETS_INSPECT_CAP, &buf, &len, err)) != 0)
		return rc;
	n = redact_scan(buf, len, NULL, 0);
	if (n > 0 && (f = calloc(n, sizeof *f)) == NULL) {
		free(buf);
		return kd_err_sys(err, KD_EENV, path, ENOMEM, "cannot scan %s", path);
	}
	n = redact_scan(buf, len, f, n);
	arr = json_array();
	for (size_t i = 0; arr != NULL && i < n; i++) {
		size_t col = 1;
		char provide[80];
		for (size_t k = f[i].off; k > 0 && buf[k - 1] != '\n'; k--)
			col++;
		snprintf(provide, sizeof provide, "env:%s", f[i].name);
		json_array_append_new(arr, json_pack("{s:i,s:I,s:s,s:s,s:I}", "line", f[i].line,
						     "column", (json_int_t)col, "kind", f[i].kind,
						     "provide", provide, "length",
						     (json_int_t)f[i].len));
	}
	if (arr != NULL)
		*out = json_pack("{s:s,s:I,s:o}", "path", path, "count", (json_int_t)n,
				 "findings", arr);
	free(f);
	free(buf);
	if (*out == NULL)
		return kd_err_sys(err, KD_EENV, path, ENOMEM, "cannot describe %s", path);
	return 0;
}
