/*
 * origin.c - where each distribution of the rebuilt venv came from
 * (origin.h): pip's installation report matched against the index and
 * find-links options pip was given, and for what pip did not install, its
 * provider (dpkg-query for the system's packages, conda-meta/ for a conda
 * base, the base's path).
 */
#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernodeck/baseenv.h"
#include "kernodeck/argv.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/hash.h"
#include "kernodeck/origin.h"
#include "kernodeck/pep440.h"
#include "kernodeck/pipline.h"
#include "kernodeck/redact.h"
#include "kernodeck/step.h"
#include "kernodeck/yamlio.h"

#define ORIGIN_TIMEOUT_DPKG 60.0

/* Does s start with prefix? */
static int
starts(const char *s, const char *prefix)
{
	return s != NULL && prefix != NULL && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The find-links places and the indexes pip looked at: the rebuild file's
 * options first, then the shell's PIP_FIND_LINKS, PIP_INDEX_URL and
 * PIP_EXTRA_INDEX_URL (space-separated lists, as pip reads them). */
static void
add_words(json_t *to, const char *s)
{
	while (s != NULL && *s) {
		size_t n;
		s += strspn(s, " \t");
		n = strcspn(s, " \t");
		if (n > 0)
			json_array_append_new(to, json_stringn(s, n));
		s += n;
	}
}

/* The file: URL prefix of a local find-links folder (malloc'd), or NULL. */
static char *
local_prefix(const char *fl, const char *base_dir)
{
	char real[PATH_MAX], *joined, *out;
	const char *p = fl;

	if (starts(fl, "file://"))
		p = fl + 7;
	else if (strstr(fl, "://") != NULL)
		return NULL;
	joined = p[0] == '/' || base_dir == NULL ? strdup(p) : fsutil_join(base_dir, p);
	if (joined == NULL || realpath(joined, real) == NULL) {
		free(joined);
		return NULL;
	}
	free(joined);
	out = malloc(strlen(real) + 9);
	if (out != NULL)
		snprintf(out, strlen(real) + 9, "file://%s/", real);
	return out;
}

/* "scheme://host" of a URL into buf ("" when none). */
static const char *
url_host(const char *url, char *buf, size_t len)
{
	const char *s = url ? strstr(url, "://") : NULL;
	size_t n;

	buf[0] = '\0';
	if (s == NULL)
		return buf;
	n = (size_t)(s + 3 - url) + strcspn(s + 3, "/?#");
	snprintf(buf, len, "%.*s", (int)n, url);
	return buf;
}

/* Where pip found a distribution that is not a direct reference. */
static void
classify_found(json_t *e, const char *url, const json_t *links, const json_t *indexes,
	       const char *base_dir)
{
	const json_t *v;
	size_t i;
	char h1[512], h2[512];

	json_array_foreach(links, i, v) {
		const char *fl = json_string_value(v);
		char *pre = local_prefix(fl, base_dir);
		int hit = pre != NULL && starts(url, pre);
		if (pre == NULL && strstr(fl, "://") != NULL) {
			/* a page of links: the files next to it or under it */
			const char *slash = strrchr(fl, '/');
			size_t n = slash ? (size_t)(slash - fl) + 1 : strlen(fl);
			hit = strncmp(url, fl, n) == 0;
		}
		free(pre);
		if (hit) {
			char *clean = redact_url(fl, NULL);
			json_object_set_new(e, "origin", json_string("find-links"));
			json_object_set_new(e, "source", json_string(clean ? clean : fl));
			free(clean);
			return;
		}
	}
	if (starts(url, "file:")) {
		/* a local file no option names (pip's configuration): its folder */
		const char *slash = strrchr(url, '/');
		json_object_set_new(e, "origin", json_string("find-links"));
		json_object_set_new(e, "source", json_stringn(url + 7, slash && slash > url + 7 ?
						(size_t)(slash - url - 7) : strlen(url + 7)));
		return;
	}
	/* an index: the one on the artefact's host, else the first */
	const char *pick = json_string_value(json_array_get(indexes, 0));
	json_array_foreach(indexes, i, v)
		if (strcmp(url_host(json_string_value(v), h1, sizeof h1),
			   url_host(url, h2, sizeof h2)) == 0) {
			pick = json_string_value(v);
			break;
		}
	{
		char *clean = pick ? redact_url(pick, NULL) : NULL;
		json_object_set_new(e, "origin", json_string("index"));
		json_object_set_new(e, "source", clean ? json_string(clean) : json_null());
		free(clean);
	}
}

/* The digest of a local artefact pip gave no hash for. */
static void
hash_local(json_t *e, const char *url)
{
	char hex[65];
	uint64_t size = 0;

	if (json_object_get(e, "sha256") != NULL || !starts(url, "file://"))
		return;
	if (hash_file(url + 7, NULL, NULL, hex, &size, NULL) == 0)
		json_object_set_new(e, "sha256", json_string(hex));
}

json_t *
origin_from_report(const json_t *report, const json_t *lint, const json_t *pip_env,
		   const char *base_dir)
{
	json_t *out = json_array(), *links = json_array(), *indexes = json_array();
	const json_t *p, *v;
	size_t i;
	const char *iu = yamlio_str(lint, "index_url");

	json_array_foreach(json_object_get(lint, "find_links"), i, v)
		json_array_append(links, (json_t *)v);
	add_words(links, yamlio_str(pip_env, "PIP_FIND_LINKS"));
	if (iu == NULL)
		iu = yamlio_str(pip_env, "PIP_INDEX_URL");
	json_array_append_new(indexes, json_string(iu ? iu : "https://pypi.org/simple"));
	json_array_foreach(json_object_get(lint, "extra_index_urls"), i, v)
		json_array_append(indexes, (json_t *)v);
	add_words(indexes, yamlio_str(pip_env, "PIP_EXTRA_INDEX_URL"));

	json_array_foreach(json_object_get(report, "packages"), i, p) {
		const char *kind = yamlio_str(p, "kind"), *url = yamlio_str(p, "url");
		static const char *const copy[] = { "name", "canonical_name", "version", "url",
			"file", "sha256", "requested", "vcs", "commit", "requested_revision",
			"editable", "subdirectory" };
		json_t *e = json_object();
		for (size_t k = 0; k < sizeof copy / sizeof *copy; k++)
			if (json_object_get(p, copy[k]) != NULL)
				json_object_set(e, copy[k], json_object_get(p, copy[k]));
		if (kind != NULL && strcmp(kind, "vcs") == 0) {
			json_object_set_new(e, "origin", json_string("vcs"));
			json_object_set_new(e, "source", json_string(url ? url : ""));
		} else if (kind != NULL && strcmp(kind, "directory") == 0) {
			json_object_set_new(e, "origin", json_string("directory"));
			json_object_set_new(e, "source", json_string(starts(url, "file://") ?
							url + 7 : url ? url : ""));
		} else if (json_is_true(json_object_get(p, "is_direct"))) {
			json_object_set_new(e, "origin", json_string("url"));
			json_object_set_new(e, "source", json_string(url ? url : ""));
		} else {
			classify_found(e, url ? url : "", links, indexes, base_dir);
		}
		if (kind == NULL || strcmp(kind, "archive") == 0)
			hash_local(e, url);
		json_array_append_new(out, e);
	}
	json_decref(links);
	json_decref(indexes);
	origin_sort(out);
	return out;
}

/* ---- what pip did not install ---- */

/* The package of a conda environment that holds rel (a path under it), from
 * the JSON files of conda-meta/: {package, version, channel}, or NULL. */
static json_t *
conda_owner(const char *base_path, const char *rel)
{
	char *meta = fsutil_join(base_path, "conda-meta");
	DIR *d = meta ? opendir(meta) : NULL;
	struct dirent *de;
	json_t *found = NULL;
	size_t rl = strlen(rel);

	while (d != NULL && found == NULL && (de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		char *f;
		json_t *j;
		const json_t *v;
		size_t i;
		if (n < 6 || strcmp(de->d_name + n - 5, ".json") != 0)
			continue;
		f = fsutil_join(meta, de->d_name);
		j = f ? json_load_file(f, 0, NULL) : NULL;
		free(f);
		json_array_foreach(json_object_get(j, "files"), i, v) {
			const char *s = json_string_value(v);
			if (s != NULL && strncmp(s, rel, rl) == 0 && (s[rl] == '/' || s[rl] == '\0')) {
				found = json_pack("{s:s?, s:s?, s:s?}", "package", yamlio_str(j, "name"),
						  "version", yamlio_str(j, "version"), "channel",
						  yamlio_str(j, "channel"));
				break;
			}
		}
		json_decref(j);
	}
	if (d != NULL)
		closedir(d);
	free(meta);
	return found;
}

/* The provider of a package found at loc (its metadata at meta). */
static json_t *
provider_of(const char *loc, const char *meta, const char *purelib, const char *base_path,
	    const char *base_kind, const json_t *base_dirs, const json_t *owners,
	    const char **origin)
{
	if (loc != NULL && purelib != NULL && strcmp(loc, purelib) == 0) {
		*origin = "venv";
		return json_pack("{s:s, s:s}", "kind", "venv", "path", loc);
	}
	if (base_path != NULL && baseenv_in_dirs(base_dirs, loc)) {
		json_t *pv = json_pack("{s:s, s:s}", "kind", "base", "path", base_path);
		size_t bl = strlen(base_path);
		*origin = "base";
		if (base_kind != NULL && strcmp(base_kind, "conda") == 0 && meta != NULL &&
		    strncmp(meta, base_path, bl) == 0 && meta[bl] == '/') {
			json_t *c = conda_owner(base_path, meta + bl + 1);
			if (c != NULL) {
				json_object_set_new(pv, "kind", json_string("conda"));
				json_object_update(pv, c);
				json_decref(c);
			}
		}
		return pv;
	}
	*origin = "system";
	{
		const json_t *o = meta ? json_object_get(owners, meta) : NULL;
		if (o != NULL)
			return json_pack("{s:s, s:O, s:O, s:s?}", "kind", "debian", "package",
					 json_object_get(o, "package"), "version",
					 json_object_get(o, "version") ? json_object_get(o, "version") :
					 json_null(), "path", loc);
		return json_pack("{s:s, s:s?}", "kind", "system", "path", loc);
	}
}

void
origin_add_provided(json_t *origins, const json_t *installed, const json_t *located,
		    const char *purelib, const char *base_path, const char *base_kind,
		    const json_t *base_dirs, const json_t *owners)
{
	const json_t *p, *l;
	size_t i, j;

	json_array_foreach(installed, i, p) {
		const char *cn = yamlio_str(p, "canonical_name"), *ver = yamlio_str(p, "version");
		const json_t *hit = NULL;
		const char *origin = "system";
		char c2[256];
		json_t *e;
		if (cn == NULL || origin_find(origins, cn) != NULL)
			continue;
		/* the copy Python imports: the first one on its path with that name */
		json_array_foreach(located, j, l)
			if (yamlio_str(l, "name") && strcmp(pep503_canonical(yamlio_str(l, "name"), c2,
							sizeof c2), cn) == 0 &&
			    (ver == NULL || yamlio_str(l, "version") == NULL ||
			     strcmp(yamlio_str(l, "version"), ver) == 0)) {
				hit = l;
				break;
			}
		e = json_pack("{s:O?, s:s, s:O?}", "name", json_object_get(p, "name"),
			      "canonical_name", cn, "version", json_object_get(p, "version"));
		json_object_set_new(e, "provider", provider_of(yamlio_str(hit, "location"),
			yamlio_str(hit, "meta"), purelib, base_path, base_kind, base_dirs, owners,
			&origin));
		json_object_set_new(e, "origin", json_string(origin));
		if (base_path != NULL && strcmp(origin, "base") == 0)
			json_object_set_new(e, "source", json_string(base_path));
		json_array_append_new(origins, e);
	}
	origin_sort(origins);
}

/* ---- dpkg-query ---- */

json_t *
origin_parse_dpkg_files(const char *out, size_t len, const json_t *paths)
{
	json_t *m = json_object(), *want = json_object();
	struct pipline_iter it;
	const char *l;
	size_t n, i;
	char *pkg = NULL, *ver = NULL;
	const json_t *v;

	json_array_foreach(paths, i, v)
		if (json_string_value(v) != NULL)
			json_object_set_new(want, json_string_value(v), json_true());
	pipline_init(&it, out, len);
	while (pipline_next(&it, &l, &n)) {
		/* "package<TAB>version", then its files, each after a space */
		if (n > 1 && l[0] == ' ' && pkg != NULL) {
			char *path = pipline_dup(l + 1, n - 1);
			if (path != NULL && json_object_get(want, path) != NULL &&
			    json_object_get(m, path) == NULL)
				json_object_set_new(m, path, json_pack("{s:s, s:s}", "package", pkg,
								      "version", ver ? ver : ""));
			free(path);
		} else if (n > 0 && l[0] != ' ') {
			const char *tab = memchr(l, '\t', n);
			free(pkg);
			free(ver);
			pkg = pipline_dup(l, tab ? (size_t)(tab - l) : n);
			ver = tab ? pipline_dup(tab + 1, n - (size_t)(tab + 1 - l)) : NULL;
			if (pkg != NULL && strchr(pkg, ':') != NULL)
				*strchr(pkg, ':') = '\0';   /* python3-torch:amd64 */
		}
	}
	free(pkg);
	free(ver);
	json_decref(want);
	return m;
}

char **
origin_dpkg_argv(void)
{
	return argv_new("/usr/bin/dpkg-query", "-W",
			"-f=${binary:Package}\\t${Version}\\n${db-fsys:Files}", "python3-*",
			(const char *)NULL);
}

json_t *
origin_dpkg_owners(struct kd_ctx *ctx, const struct kd_sink *sink, json_t *steps,
		   const json_t *paths)
{
	char **argv = origin_dpkg_argv();
	struct kd_step s = { .what = "dpkg-query", .keep = 1, .timeout_s = ORIGIN_TIMEOUT_DPKG,
			     .label = "dpkg-query: the Debian packages of the system's Python "
				      "packages" };
	struct kd_err e = { 0 };
	json_t *owners = NULL;
	int rc;

	if (argv == NULL || access(argv[0], X_OK) != 0) {
		argv_free(argv);
		return json_object();
	}
	s.argv = (const char *const *)argv;
	rc = step_run(ctx, sink, &s, &e);
	if (steps != NULL)
		json_array_append_new(steps, step_record(ctx, &s, rc, &e));
	if (step_ok(&s) && !s.overflow && s.buf != NULL)
		owners = origin_parse_dpkg_files(s.buf, s.len, paths);
	step_free(&s);
	argv_free(argv);
	return owners ? owners : json_object();
}

/* ---- lists ---- */

void
origin_merge(json_t *pkgs, const json_t *origins)
{
	static const char *const keys[] = { "sha256", "origin", "source" };
	json_t *p;
	size_t i;

	json_array_foreach(pkgs, i, p) {
		const json_t *o = origin_find(origins, yamlio_str(p, "canonical_name"));
		const char *v = yamlio_str(p, "version"), *ov = yamlio_str(o, "version");
		if (o == NULL || (v != NULL && ov != NULL && strcmp(v, ov) != 0))
			continue;
		for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
			if (json_object_get(o, keys[k]) != NULL)
				json_object_set(p, keys[k], json_object_get(o, keys[k]));
	}
}


static int
by_name(const void *a, const void *b)
{
	const char *x = yamlio_str(*(json_t *const *)a, "canonical_name");
	const char *y = yamlio_str(*(json_t *const *)b, "canonical_name");

	return strcmp(x ? x : "", y ? y : "");
}

void
origin_sort(json_t *origins)
{
	size_t n = json_array_size(origins), i;
	json_t **v;

	if (n < 2 || (v = malloc(n * sizeof *v)) == NULL)
		return;
	for (i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(origins, i));
	qsort(v, n, sizeof *v, by_name);
	json_array_clear(origins);
	for (i = 0; i < n; i++)
		json_array_append_new(origins, v[i]);
	free(v);
}

const json_t *
origin_find(const json_t *origins, const char *canonical_name)
{
	const json_t *e;
	size_t i;

	json_array_foreach(origins, i, e)
		if (canonical_name != NULL && yamlio_str(e, "canonical_name") != NULL &&
		    strcmp(yamlio_str(e, "canonical_name"), canonical_name) == 0)
			return e;
	return NULL;
}
