/*
 * baseenv.c - a base environment under the rebuilt venv (baseenv.h says
 * the mechanism): finding its interpreter, reading what that interpreter
 * reports, the .pth file that layers the venv on it, the inventory digest
 * and where each package of the rebuilt venv comes from.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/argv.h"
#include "kernodeck/baseenv.h"
#include "kernodeck/caps.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/hash.h"
#include "kernodeck/paths.h"
#include "kernodeck/pep440.h"
#include "kernodeck/venv.h"

const char baseenv_query_py[] =
	"import json, os, sys, sysconfig\n"
	"sys.path[:] = [p for p in sys.path if p]\n"
	"real = os.path.realpath\n"
	"paths = sysconfig.get_paths()\n"
	"std = set(real(paths[k]) for k in ('stdlib', 'platstdlib') if k in paths)\n"
	"dirs = []\n"
	"for p in sys.path:\n"
	"    r = real(p)\n"
	"    if (not os.path.isdir(r) or r in std or r in dirs or\n"
	"            os.path.basename(r) == 'lib-dynload'):\n"
	"        continue\n"
	"    dirs.append(r)\n"
	"pk = []\n"
	"try:\n"
	"    from importlib import metadata\n"
	"    for d in metadata.distributions():\n"
	"        n = d.metadata['Name']\n"
	"        if not n:\n"
	"            continue\n"
	"        try:\n"
	"            loc = real(str(d.locate_file('')))\n"
	"        except Exception:\n"
	"            loc = None\n"
	"        pk.append({'name': n, 'version': d.version, 'location': loc})\n"
	"except ImportError:\n"
	"    pass\n"
	"mode = sys.argv[1] if len(sys.argv) > 1 else 'json'\n"
	"if mode == 'dirs':\n"
	"    for d in dirs:\n"
	"        print(d)\n"
	"elif mode == 'freeze':\n"
	"    import re\n"
	"    for l in sorted(set('%s==%s' % (re.sub(r'[-_.]+', '-', p['name']).lower(),\n"
	"                                    p['version']) for p in pk)):\n"
	"        print(l)\n"
	"else:\n"
	"    print('" BASEENV_MARK "' + json.dumps({'executable': sys.executable,\n"
	"        'version': '%d.%d.%d' % sys.version_info[:3], 'prefix': sys.prefix,\n"
	"        'purelib': real(paths['purelib']), 'site_dirs': dirs, 'packages': pk}))\n";

/* The interpreter of a folder: bin/python3, else bin/python. */
static char *
folder_python(const char *dir)
{
	static const char *const names[] = { "bin/python3", "bin/python" };

	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char *p = fsutil_join(dir, names[i]);
		if (p != NULL && access(p, X_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

static const char *
folder_kind(const char *dir)
{
	char *cfg = fsutil_join(dir, "pyvenv.cfg"), *meta = fsutil_join(dir, "conda-meta");
	const char *kind = fsutil_exists(cfg) ? "venv" : fsutil_exists(meta) ? "conda" : "prefix";

	free(cfg);
	free(meta);
	return kind;
}

int
baseenv_locate(const char *project_dir, const char *given, struct baseenv *be,
	       struct kd_err *err)
{
	struct stat st;
	struct venv_info vi;

	memset(be, 0, sizeof *be);
	if (given == NULL || *given == '\0')
		return kd_err_set(err, KD_EINPUT, NULL, 0, "python.install.base is empty");
	be->given = strdup(given);
	be->path = given[0] == '/' ? strdup(given) : fsutil_join(project_dir, given);
	if (be->given == NULL || be->path == NULL)
		return kd_err_sys(err, KD_EENV, NULL, ENOMEM, "out of memory");
	if (stat(be->path, &st) != 0)
		return kd_err_sys(err, KD_EINPUT, be->path, errno,
				  "the base environment %s is missing", be->path);
	if (!S_ISDIR(st.st_mode)) {
		if (!S_ISREG(st.st_mode) || access(be->path, X_OK) != 0)
			return kd_err_set(err, KD_EINPUT, be->path, 0, "the base environment %s is "
					  "neither a folder nor an executable interpreter", be->path);
		be->python = strdup(be->path);
		be->kind = "interpreter";
		return 0;
	}
	be->kind = folder_kind(be->path);
	be->python = folder_python(be->path);
	if (be->python == NULL)
		return kd_err_set(err, KD_EINPUT, be->path, 0, "the base environment %s holds no "
				  "bin/python3 or bin/python that can be run", be->path);
	if (strcmp(be->kind, "venv") == 0 && venv_inspect(be->path, &vi, NULL) == 0) {
		if (vi.moved && vi.recorded_path != NULL)
			be->moved_from = strdup(vi.recorded_path);
		venv_info_free(&vi);
	}
	return 0;
}

void
baseenv_free(struct baseenv *be)
{
	free(be->given);
	free(be->path);
	free(be->python);
	free(be->moved_from);
	memset(be, 0, sizeof *be);
}

/* A folder as the query reports it: absolute, one line. */
static int
good_dir(const char *s)
{
	return s != NULL && s[0] == '/' && strchr(s, '\n') == NULL && strchr(s, '\r') == NULL;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "canonical==version" of one package (into buf), or NULL. */
static const char *
package_line(const json_t *p, char *buf, size_t len)
{
	const char *n = json_string_value(json_object_get(p, "name"));
	const char *v = json_string_value(json_object_get(p, "version"));
	char cn[256];

	if (n == NULL || v == NULL || pep503_canonical(n, cn, sizeof cn) == NULL)
		return NULL;
	snprintf(buf, len, "%s==%s", cn, v);
	return buf;
}

/* SHA-256 of the sorted "name==version location" lines. */
static void
inventory_digest(struct baseenv_query *q)
{
	size_t n = json_array_size(q->packages), len = 0, i;
	char **lines = calloc(n ? n : 1, sizeof *lines), *all = NULL;
	const json_t *p;

	q->digest[0] = '\0';
	if (lines == NULL)
		return;
	json_array_foreach(q->packages, i, p) {
		char nv[600];
		const char *loc = json_string_value(json_object_get(p, "location"));
		if (package_line(p, nv, sizeof nv) == NULL)
			nv[0] = '\0';
		size_t l = strlen(nv) + (loc ? strlen(loc) : 1) + 3;
		lines[i] = malloc(l);
		if (lines[i] != NULL)
			snprintf(lines[i], l, "%s %s\n", nv, loc ? loc : "-");
		len += l;
	}
	qsort(lines, n, sizeof *lines, cmp_str);
	all = malloc(len + 1);
	if (all != NULL) {
		size_t o = 0;
		for (i = 0; i < n; i++)
			if (lines[i] != NULL) {
				size_t l = strlen(lines[i]);
				memcpy(all + o, lines[i], l);
				o += l;
			}
		hash_buffer(all, o, q->digest);
	}
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	free(all);
}

int
baseenv_parse(const char *out, size_t len, struct baseenv_query *q, struct kd_err *err)
{
	const char *l = NULL, *end = out + len;
	const json_t *d, *p;
	json_error_t je;
	size_t i, ml = strlen(BASEENV_MARK);

	memset(q, 0, sizeof *q);
	for (const char *s = out; s != NULL && s < end; ) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		if ((size_t)(end - s) >= ml && strncmp(s, BASEENV_MARK, ml) == 0)
			l = s;
		s = nl ? nl + 1 : NULL;
	}
	if (l == NULL)
		return kd_err_set(err, KD_EINPUT, NULL, 0, "the interpreter printed no " BASEENV_MARK
				  "line (is it Python 3.8 or later?)");
	q->obj = json_loadb(l + ml, (size_t)(end - l - (ptrdiff_t)ml), JSON_DISABLE_EOF_CHECK, &je);
	if (!json_is_object(q->obj))
		return kd_err_set(err, KD_EINPUT, NULL, 0, "the interpreter's report is not JSON: %s",
				  je.text);
	q->site_dirs = json_object_get(q->obj, "site_dirs");
	q->packages = json_object_get(q->obj, "packages");
	q->purelib = json_string_value(json_object_get(q->obj, "purelib"));
	q->version = json_string_value(json_object_get(q->obj, "version"));
	if (!json_is_array(q->site_dirs) || !json_is_array(q->packages) || !good_dir(q->purelib))
		return kd_err_set(err, KD_EINPUT, NULL, 0, "the interpreter's report lacks "
				  "site_dirs, packages or purelib");
	json_array_foreach(q->site_dirs, i, d)
		if (!good_dir(json_string_value(d)))
			return kd_err_set(err, KD_EINPUT, NULL, 0, "the interpreter reported a "
					  "package folder that is not an absolute path on one line");
	json_array_foreach(q->packages, i, p)
		if (!json_is_object(p))
			return kd_err_set(err, KD_EINPUT, NULL, 0, "the interpreter's package %zu "
					  "is not an object", i + 1);
	q->npackages = json_array_size(q->packages);
	inventory_digest(q);
	return 0;
}

void
baseenv_query_free(struct baseenv_query *q)
{
	json_decref(q->obj);
	memset(q, 0, sizeof *q);
}

char *
baseenv_pth_text(const struct baseenv *be, const struct baseenv_query *q, size_t *len)
{
	size_t cap = 512 + strlen(be->path) + strlen(be->python), i, o;
	const json_t *d;
	char *s;

	json_array_foreach(q->site_dirs, i, d)
		cap += strlen(json_string_value(d)) + 1;
	s = malloc(cap);
	if (s == NULL)
		return NULL;
	o = (size_t)snprintf(s, cap, "# kernodeck: the package folders of the base environment %s\n"
			     "# (python.install.base), as its interpreter %s reports them.\n"
			     "# Python adds them after this venv's own site-packages: the rebuilt "
			     "packages win.\n", be->path, be->python);
	json_array_foreach(q->site_dirs, i, d)
		o += (size_t)snprintf(s + o, cap - o, "%s\n", json_string_value(d));
	*len = o;
	return s;
}

int
baseenv_write_pth(const char *purelib, const struct baseenv *be,
		  const struct baseenv_query *q, char **path, struct kd_err *err)
{
	size_t len = 0, olen = 0;
	char *text = baseenv_pth_text(be, q, &len), *old = NULL;
	int rc = 0;

	*path = fsutil_join(purelib, BASEENV_PTH);
	if (text == NULL || *path == NULL) {
		rc = kd_err_sys(err, KD_EENV, NULL, ENOMEM, "out of memory");
		goto out;
	}
	if (fsutil_read_file(*path, KD_CAP_LINE * 16, &old, &olen, NULL) == 0 && olen == len &&
	    memcmp(old, text, len) == 0)
		goto out;
	rc = fsutil_write_atomic(*path, text, len, 0, err);
out:
	free(old);
	free(text);
	return rc;
}

json_t *
baseenv_package_list(const struct baseenv_query *q)
{
	size_t n = json_array_size(q->packages), k = 0, i;
	char **v = calloc(n ? n : 1, sizeof *v);
	json_t *a = json_array();
	const json_t *p;

	if (v == NULL)
		return a;
	json_array_foreach(q->packages, i, p) {
		char nv[600];
		if (package_line(p, nv, sizeof nv) != NULL)
			v[k++] = strdup(nv);
	}
	qsort(v, k, sizeof *v, cmp_str);
	for (i = 0; i < k; i++) {
		if (v[i] != NULL && (i == 0 || v[i - 1] == NULL || strcmp(v[i], v[i - 1]) != 0))
			json_array_append_new(a, json_string(v[i]));
	}
	for (i = 0; i < k; i++)
		free(v[i]);
	free(v);
	return a;
}

char *
baseenv_freeze_text(const struct baseenv_query *q, size_t *len)
{
	json_t *a = baseenv_package_list(q);
	size_t cap = 1, o = 0, i;
	const json_t *s;
	char *t;

	json_array_foreach(a, i, s)
		cap += strlen(json_string_value(s)) + 1;
	t = malloc(cap);
	if (t != NULL) {
		json_array_foreach(a, i, s)
			o += (size_t)snprintf(t + o, cap - o, "%s\n", json_string_value(s));
		t[o] = '\0';
		*len = o;
	}
	json_decref(a);
	return t;
}

static int
in_list(const json_t *a, const char *s)
{
	const json_t *v;
	size_t i;

	json_array_foreach(a, i, v)
		if (json_string_value(v) && strcmp(json_string_value(v), s) == 0)
			return 1;
	return 0;
}

/* Is dir one of the base's folders? */
static int
in_dirs(const json_t *dirs, const char *dir)
{
	const json_t *d;
	size_t i;

	json_array_foreach(dirs, i, d)
		if (strcmp(json_string_value(d), dir) == 0)
			return 1;
	return 0;
}

json_t *
baseenv_origins(const struct baseenv_query *venv, const struct baseenv_query *base)
{
	json_t *o = json_pack("{s:[], s:[], s:[]}", "rebuilt", "base", "system");
	const json_t *p;
	size_t i;

	json_array_foreach(venv->packages, i, p) {
		const char *loc = json_string_value(json_object_get(p, "location"));
		const char *which = loc == NULL ? "system" :
			strcmp(loc, venv->purelib) == 0 ? "rebuilt" :
			base != NULL && in_dirs(base->site_dirs, loc) ? "base" : "system";
		char nv[600];
		/* a folder may hold a .dist-info and an .egg-info of one package */
		if (package_line(p, nv, sizeof nv) != NULL &&
		    !in_list(json_object_get(o, which), nv))
			json_array_append_new(json_object_get(o, which), json_string(nv));
	}
	return o;
}

json_t *
baseenv_diff(const json_t *was, const json_t *now)
{
	json_t *d = json_pack("{s:[], s:[]}", "added", "removed");
	const json_t *v;
	size_t i;

	json_array_foreach(now, i, v)
		if (json_string_value(v) && !in_list(was, json_string_value(v)))
			json_array_append_new(json_object_get(d, "added"), json_incref((json_t *)v));
	json_array_foreach(was, i, v)
		if (json_string_value(v) && !in_list(now, json_string_value(v)))
			json_array_append_new(json_object_get(d, "removed"),
					      json_incref((json_t *)v));
	return d;
}

size_t
baseenv_label(json_t *pkgs, const json_t *site_dirs)
{
	char real[PATH_MAX];
	json_t *p;
	size_t i, n = 0;

	json_array_foreach(pkgs, i, p) {
		const char *loc = json_string_value(json_object_get(p, "location"));
		int in = loc != NULL && realpath(loc, real) != NULL && in_dirs(site_dirs, real);
		if (in) {
			json_object_set_new(p, "base", json_true());
			n++;
		}
	}
	return n;
}

/* See baseenv.h. */
char **
baseenv_query_argv(const char *python)
{
	return argv_new(python, "-s", "-c", baseenv_query_py, "json", (const char *)NULL);
}
