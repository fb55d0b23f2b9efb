/*
 * sha256sums.c - SHA256SUMS manifests: parse (untrusted), format, verify.
 *
 * The format is GNU coreutils' (see include/kernodeck/sha256sums.h).  A
 * dossier is verified entry by entry: every path must stay inside the
 * dossier folder, name a regular file (no symbolic link anywhere on the
 * way) and hash to its digest.  Files nobody listed are reported too, so
 * that a dossier cannot carry something its manifest does not vouch for.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernodeck/caps.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/hash.h"
#include "kernodeck/sha256sums.h"

int
sha256sums_path_safe(const char *path)
{
	const char *p = path;

	if (path == NULL || *path == '\0' || *path == '/')
		return 0;
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		if (e == NULL)
			break;
		p = e + 1;
		if (*p == '\0')
			return 0;   /* trailing slash: a folder, not a file */
	}
	return 1;
}

static int
is_hex64(const char *h)
{
	for (int i = 0; i < 64; i++)
		if (!((h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f') ||
		      (h[i] >= 'A' && h[i] <= 'F')))
			return 0;
	return 1;
}

static int
push(struct sha256sums *s, const char *hex, char *path, int binary, int line)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 32;
		struct sha256sums_entry *nv = realloc(s->v, ncap * sizeof *nv);
		if (nv == NULL)
			return -1;
		s->v = nv;
		s->cap = ncap;
	}
	for (int i = 0; i < 64; i++) {
		char c = hex[i];
		s->v[s->n].hex[i] = (c >= 'A' && c <= 'F') ? (char)(c - 'A' + 'a') : c;
	}
	s->v[s->n].hex[64] = '\0';
	s->v[s->n].path = path;
	s->v[s->n].binary = binary;
	s->v[s->n].line = line;
	s->n++;
	return 0;
}

/* Unescape a name written after a leading backslash: \\ and \n. */
static char *
unescape(const char *p, size_t n, int escaped)
{
	char *o = malloc(n + 1);
	size_t j = 0;

	if (o == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (escaped && p[i] == '\\') {
			if (i + 1 >= n || (p[i + 1] != '\\' && p[i + 1] != 'n')) {
				free(o);
				return NULL;
			}
			o[j++] = p[i + 1] == 'n' ? '\n' : '\\';
			i++;
			continue;
		}
		o[j++] = p[i];
	}
	o[j] = '\0';
	return o;
}

static int
seen_path(const struct sha256sums *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].path, path) == 0)
			return 1;
	return 0;
}

int
sha256sums_parse(const char *buf, size_t len, const char *name,
		 struct sha256sums *out, struct kd_err *err)
{
	size_t ls = 0;
	int line = 0;

	memset(out, 0, sizeof *out);
	if (memchr(buf, '\0', len) != NULL)
		return kd_err_set(err, KD_EINPUT, name, 0, "holds a NUL byte");
	while (ls < len) {
		const char *l = buf + ls, *nl = memchr(l, '\n', len - ls);
		size_t n = nl ? (size_t)(nl - l) : len - ls;
		int escaped = 0, binary;
		char *path;

		line++;
		ls += n + 1;
		if (n == 0)
			continue;
		if (n > KD_CAP_LINE)
			goto bad_long;
		if (l[0] == '\\') {
			escaped = 1;
			l++;
			n--;
		}
		if (n < 67 || !is_hex64(l) || l[64] != ' ' || (l[65] != ' ' && l[65] != '*'))
			goto bad;
		binary = l[65] == '*';
		path = unescape(l + 66, n - 66, escaped);
		if (path == NULL)
			goto bad;
		if (strchr(path, '\r') != NULL || !sha256sums_path_safe(path)) {
			kd_err_set(err, KD_EINPUT, name, line,
				   "the path points outside the dossier or is malformed");
			free(path);
			goto fail;
		}
		if (seen_path(out, path)) {
			kd_err_set(err, KD_EINPUT, name, line, "%s is listed twice", path);
			free(path);
			goto fail;
		}
		if (out->n >= KD_CAP_SUMS_ENTRIES) {
			kd_err_set(err, KD_EINPUT, name, line, "more than %d entries",
				   KD_CAP_SUMS_ENTRIES);
			free(path);
			goto fail;
		}
		if (push(out, l, path, binary, line) < 0) {
			free(path);
			kd_err_sys(err, KD_EENV, name, ENOMEM, "%s", name);
			goto fail;
		}
	}
	return 0;
bad_long:
	kd_err_set(err, KD_EINPUT, name, line, "line longer than %u bytes",
		   KD_CAP_LINE);
	goto fail;
bad:
	kd_err_set(err, KD_EINPUT, name, line,
		   "not a SHA256SUMS line (64 hex digits, two spaces or \" *\", a path)");
fail:
	sha256sums_free(out);
	return err ? err->code : KD_EINPUT;
}

int
sha256sums_load(const char *path, struct sha256sums *out, struct kd_err *err)
{
	char *buf;
	size_t len;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = fsutil_read_file(path, KD_CAP_SUMS_FILE, &buf, &len, err)) != 0)
		return rc;
	rc = sha256sums_parse(buf, len, path, out, err);
	free(buf);
	return rc;
}

void
sha256sums_free(struct sha256sums *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].path);
	free(s->v);
	memset(s, 0, sizeof *s);
}

int
sha256sums_add(struct sha256sums *s, const char *hex, const char *path,
	       struct kd_err *err)
{
	char *p;

	if (strlen(hex) != 64 || !is_hex64(hex))
		return kd_err_set(err, KD_EINPUT, path, 0, "%s: not a SHA-256 digest", path);
	if (!sha256sums_path_safe(path))
		return kd_err_set(err, KD_EINPUT, path, 0, "%s: not a safe relative path", path);
	p = strdup(path);
	if (p == NULL || push(s, hex, p, 0, 0) < 0) {
		free(p);
		return kd_err_sys(err, KD_EENV, path, ENOMEM, "%s", path);
	}
	return 0;
}

static int
entry_cmp(const void *a, const void *b)
{
	const struct sha256sums_entry *const *x = a, *const *y = b;

	return strcmp((*x)->path, (*y)->path);
}

char *
sha256sums_format(const struct sha256sums *s, size_t *lenp)
{
	const struct sha256sums_entry **order = malloc((s->n ? s->n : 1) * sizeof *order);
	size_t cap = 1, len = 0;
	char *o;

	if (order == NULL)
		return NULL;
	for (size_t i = 0; i < s->n; i++) {
		order[i] = &s->v[i];
		cap += 70 + 2 * strlen(s->v[i].path);
	}
	qsort(order, s->n, sizeof *order, entry_cmp);
	o = malloc(cap);
	if (o == NULL) {
		free(order);
		return NULL;
	}
	for (size_t i = 0; i < s->n; i++) {
		const char *p = order[i]->path;
		int esc = strchr(p, '\\') != NULL || strchr(p, '\n') != NULL;
		if (esc)
			o[len++] = '\\';
		memcpy(o + len, order[i]->hex, 64);
		len += 64;
		o[len++] = ' ';
		o[len++] = order[i]->binary ? '*' : ' ';
		for (; *p; p++) {
			if (esc && (*p == '\\' || *p == '\n')) {
				o[len++] = '\\';
				o[len++] = *p == '\n' ? 'n' : '\\';
			} else {
				o[len++] = *p;
			}
		}
		o[len++] = '\n';
	}
	o[len] = '\0';
	free(order);
	if (lenp)
		*lenp = len;
	return o;
}

static void
problem(struct sha256sums_report *rep, const char *path, const char *what)
{
	if (rep->n == rep->cap) {
		size_t ncap = rep->cap ? rep->cap * 2 : 8;
		struct sha256sums_problem *nv = realloc(rep->v, ncap * sizeof *nv);
		if (nv == NULL)
			return;
		rep->v = nv;
		rep->cap = ncap;
	}
	rep->v[rep->n].path = strdup(path);
	rep->v[rep->n].what = what;
	rep->n++;
}

/* No symbolic link on the way from dir to dir/rel, and a regular file at
 * the end.  Returns NULL when fine, else what is wrong. */
static const char *
walk_check(const char *dir, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;
	size_t dl = strlen(dir);
	const char *p = rel;

	if (dl + 1 + strlen(rel) >= sizeof path)
		return "unreadable";
	memcpy(path, dir, dl);
	path[dl] = '\0';
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p), pl = strlen(path);
		path[pl] = '/';
		memcpy(path + pl + 1, p, n);
		path[pl + 1 + n] = '\0';
		if (lstat(path, &st) < 0)
			return errno == ENOENT ? "missing" : "unreadable";
		if (S_ISLNK(st.st_mode))
			return "escapes";
		if (e == NULL)
			return S_ISREG(st.st_mode) ? NULL : "not a regular file";
		if (!S_ISDIR(st.st_mode))
			return "missing";
		p = e + 1;
	}
	return "missing";
}

/* Report every file under dir/rel that the manifest does not list. */
static int
unlisted(const char *dir, const char *rel, const struct sha256sums *s, const char *self,
	 struct sha256sums_report *rep, int depth)
{
	char path[PATH_MAX], sub[PATH_MAX / 2];
	DIR *d;
	struct dirent *de;

	if (depth > 32)
		return 0;
	snprintf(path, sizeof path, "%s%s%s", dir, *rel ? "/" : "", rel);
	d = opendir(path);
	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		char full[PATH_MAX];
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name) >=
		    (int)sizeof sub ||
		    snprintf(full, sizeof full, "%s/%s", dir, sub) >= (int)sizeof full)
			continue;
		if (lstat(full, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			unlisted(dir, sub, s, self, rep, depth + 1);
			continue;
		}
		if (self != NULL && strcmp(sub, self) == 0)
			continue;
		if (!seen_path(s, sub))
			problem(rep, sub, S_ISREG(st.st_mode) ? "not listed" : "not a regular file");
	}
	closedir(d);
	return 0;
}

int
sha256sums_verify(const char *dir, const struct sha256sums *s, const char *self,
		  struct sha256sums_report *rep, struct kd_err *err)
{
	memset(rep, 0, sizeof *rep);
	for (size_t i = 0; i < s->n; i++) {
		const struct sha256sums_entry *e = &s->v[i];
		const char *what;
		char *full, hex[65];
		uint64_t size;
		struct kd_err herr;

		if (!sha256sums_path_safe(e->path)) {
			problem(rep, e->path, "escapes");
			continue;
		}
		if ((what = walk_check(dir, e->path)) != NULL) {
			problem(rep, e->path, what);
			continue;
		}
		full = fsutil_join(dir, e->path);
		if (full == NULL || hash_file(full, NULL, NULL, hex, &size, &herr) != 0)
			problem(rep, e->path, "unreadable");
		else if (strcmp(hex, e->hex) != 0)
			problem(rep, e->path, "changed");
		else
			rep->checked++;
		free(full);
	}
	if (unlisted(dir, "", s, self, rep, 0) < 0)
		return kd_err_sys(err, KD_EENV, dir, errno, "cannot read the folder %s", dir);
	return rep->n == 0 ? 0 : KD_EFAIL;
}

void
sha256sums_report_free(struct sha256sums_report *rep)
{
	for (size_t i = 0; i < rep->n; i++)
		free(rep->v[i].path);
	free(rep->v);
	memset(rep, 0, sizeof *rep);
}
