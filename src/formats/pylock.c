/*
 * pylock.c - PEP 751 pylock.toml and uv.lock as inventories (pylock.h):
 * the TOML is read by toml.c; this module checks the lock's own rules and
 * reduces each package to what an inventory comparison needs.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/inspect.h"
#include "kernodeck/pep440.h"
#include "kernodeck/pylock.h"
#include "kernodeck/redact.h"
#include "kernodeck/toml.h"
#include "kernodeck/yamlio.h"

/* A URL without its userinfo. */
static void
set_url(json_t *o, const char *key, const char *url)
{
	char *clean;

	if (url == NULL)
		return;
	clean = redact_url(url, NULL);
	json_object_set_new(o, key, json_string(clean ? clean : url));
	free(clean);
}

/* A new package object: name, canonical_name, version. */
static json_t *
new_package(const char *name, const char *version)
{
	char canon[256];
	json_t *p = json_object();

	json_object_set_new(p, "name", json_string(name));
	json_object_set_new(p, "canonical_name",
			    json_string(pep503_canonical(name, canon, sizeof canon)));
	json_object_set_new(p, "version", version ? json_string(version) : json_null());
	return p;
}

/* ---- pylock.toml ---- */

/* Check one artefact table (a wheel, the sdist, the archive): hashes, and
 * a url or a path.  NULL, or why not. */
static const char *
artefact_problem(const json_t *a)
{
	const json_t *h = json_object_get(a, "hashes");

	if (!json_is_object(a))
		return "an artefact that is not a table";
	if (!json_is_object(h) || json_object_size(h) == 0)
		return "an artefact without hashes";
	if (yamlio_str(a, "url") == NULL && yamlio_str(a, "path") == NULL)
		return "an artefact without url or path";
	return NULL;
}

/* The package object of one [[packages]] entry, or NULL with *why. */
static json_t *
pylock_package(const json_t *e, const char **why)
{
	const char *name = yamlio_str(e, "name");
	const json_t *vcs = json_object_get(e, "vcs"), *dir = json_object_get(e, "directory");
	const json_t *arc = json_object_get(e, "archive"), *sd = json_object_get(e, "sdist");
	const json_t *wh = json_object_get(e, "wheels"), *tk, *a, *one = NULL;
	size_t nkinds = (vcs != NULL) + (dir != NULL) + (arc != NULL), nfiles = 0, i;
	json_t *p;

	if (name == NULL)
		return *why = "a package without a name", NULL;
	if (nkinds > 1 || (nkinds == 1 && (sd != NULL || wh != NULL)))
		return *why = "a package with more than one of vcs, directory, archive, "
			      "sdist/wheels", NULL;
	if (wh != NULL && !json_is_array(wh))
		return *why = "wheels that are not an array of tables", NULL;
	json_array_foreach(wh, i, a) {
		if ((*why = artefact_problem(a)) != NULL)
			return NULL;
		one = a;
		nfiles++;
	}
	if (sd != NULL) {
		if ((*why = artefact_problem(sd)) != NULL)
			return NULL;
		one = sd;
		nfiles++;
	}
	if (arc != NULL) {
		if ((*why = artefact_problem(arc)) != NULL)
			return NULL;
		one = arc;
		nfiles++;
	}
	if (vcs != NULL && (yamlio_str(vcs, "type") == NULL || yamlio_str(vcs, "commit-id") == NULL))
		return *why = "a vcs table without type or commit-id", NULL;
	if (dir != NULL && yamlio_str(dir, "path") == NULL)
		return *why = "a directory table without path", NULL;
	p = new_package(name, yamlio_str(e, "version"));
	json_object_set_new(p, "kind", json_string(vcs ? "vcs" : dir ? (json_is_true(
		json_object_get(dir, "editable")) ? "editable_local" : "direct_url") : arc ?
		"direct_url" : "pinned"));
	json_object_set_new(p, "origin", json_string(vcs ? "vcs" : dir ? "directory" : arc ?
						     "url" : yamlio_str(e, "index") ? "index" : "url"));
	if (vcs != NULL) {
		set_url(p, "source", yamlio_str(vcs, "url") ? yamlio_str(vcs, "url") : yamlio_str(vcs, "path"));
		yamlio_set_str(p, "commit", yamlio_str(vcs, "commit-id"));
	} else if (dir != NULL) {
		yamlio_set_str(p, "source", yamlio_str(dir, "path"));
	} else if (yamlio_str(e, "index") != NULL) {
		set_url(p, "source", yamlio_str(e, "index"));
	}
	if (nfiles == 1) {
		set_url(p, "url", yamlio_str(one, "url"));
		yamlio_set_str(p, "sha256", yamlio_str(json_object_get(one, "hashes"), "sha256"));
		if (arc != NULL && yamlio_str(p, "source") == NULL)
			set_url(p, "source", yamlio_str(one, "url") ? yamlio_str(one, "url") :
				yamlio_str(one, "path"));
	}
	json_object_set_new(p, "files", json_integer((json_int_t)nfiles));
	yamlio_set_str(p, "marker", yamlio_str(e, "marker"));
	/* kernodeck's own lock says where pip found it */
	tk = json_object_get(json_object_get(e, "tool"), "kernodeck");
	if (yamlio_str(tk, "origin") != NULL) {
		yamlio_set_str(p, "origin", yamlio_str(tk, "origin"));
		yamlio_set_str(p, "source", yamlio_str(tk, "source"));
	}
	return p;
}

/* The package objects of doc's array key, each made by fn; NULL with err
 * naming the entry that fn refused. */
static json_t *
packages_of(const json_t *doc, const char *key, const char *name,
	    json_t *(*fn)(const json_t *, const char **), struct kd_err *err)
{
	json_t *pkgs = json_array();
	const json_t *e;
	const char *why = NULL;
	size_t i;

	json_array_foreach(json_object_get(doc, key), i, e) {
		json_t *p = fn(e, &why);
		if (p == NULL) {
			kd_err_set(err, KD_EINPUT, name, 0, "[[%s]] %zu (%s): %s", key, i + 1,
				   yamlio_str(e, "name") ? yamlio_str(e, "name") : "no name", why);
			json_decref(pkgs);
			return NULL;
		}
		json_array_append_new(pkgs, p);
	}
	return pkgs;
}

/* A pylock.toml's tree (toml.h) as pylock.h's. */
static int
pylock_of(const json_t *doc, const char *name, json_t **out, struct kd_err *err)
{
	const char *lv = yamlio_str(doc, "lock-version");
	json_t *pkgs;

	if (lv == NULL || strncmp(lv, "1.", 2) != 0 || yamlio_str(doc, "created-by") == NULL ||
	    !json_is_array(json_object_get(doc, "packages")))
		return kd_err_set(err, KD_EINPUT, name, 0, "not a PEP 751 lock file: it needs "
				  "lock-version = \"1.x\", created-by and [[packages]]");
	if ((pkgs = packages_of(doc, "packages", name, pylock_package, err)) == NULL)
		return KD_EINPUT;
	*out = json_pack("{s:s, s:s, s:s, s:O?, s:o}", "format", "pylock", "lock_version", lv,
			 "created_by", yamlio_str(doc, "created-by"), "requires_python",
			 json_object_get(doc, "requires-python"), "packages", pkgs);
	return 0;
}

/* ---- uv.lock ---- */

/* "sha256:HEX" of uv's hash key, the HEX part, or NULL. */
static const char *
uv_sha256(const json_t *a)
{
	const char *h = yamlio_str(a, "hash");

	return h != NULL && strncmp(h, "sha256:", 7) == 0 ? h + 7 : NULL;
}

static json_t *
uv_package(const json_t *e, const char **why)
{
	const char *name = yamlio_str(e, "name");
	const json_t *src = json_object_get(e, "source"), *wh = json_object_get(e, "wheels");
	const json_t *sd = json_object_get(e, "sdist"), *one = NULL, *a;
	size_t nfiles = 0, i;
	json_t *p;

	if (name == NULL)
		return *why = "a package without a name", NULL;
	if (!json_is_object(src))
		return *why = "a package without its source table", NULL;
	p = new_package(name, yamlio_str(e, "version"));
	if (yamlio_str(src, "registry") != NULL) {
		json_object_set_new(p, "kind", json_string("pinned"));
		json_object_set_new(p, "origin", json_string("index"));
		set_url(p, "source", yamlio_str(src, "registry"));
	} else if (yamlio_str(src, "git") != NULL) {
		/* git = "URL?rev=...#COMMIT" */
		const char *g = yamlio_str(src, "git"), *hash = strrchr(g, '#');
		json_object_set_new(p, "kind", json_string("vcs"));
		json_object_set_new(p, "origin", json_string("vcs"));
		yamlio_set_str(p, "commit", hash ? hash + 1 : NULL);
		{
			char *u = strndup(g, strcspn(g, "?#"));
			set_url(p, "source", u);
			free(u);
		}
	} else if (yamlio_str(src, "url") != NULL) {
		json_object_set_new(p, "kind", json_string("direct_url"));
		json_object_set_new(p, "origin", json_string("url"));
		set_url(p, "source", yamlio_str(src, "url"));
	} else {
		/* path, directory, editable, virtual: a folder of this machine */
		const char *f = yamlio_str(src, "editable") ? yamlio_str(src, "editable") :
				yamlio_str(src, "directory") ? yamlio_str(src, "directory") :
				yamlio_str(src, "path") ? yamlio_str(src, "path") : yamlio_str(src, "virtual");
		json_object_set_new(p, "kind", json_string(yamlio_str(src, "editable") ?
							   "editable_local" : "direct_url"));
		json_object_set_new(p, "origin", json_string("directory"));
		yamlio_set_str(p, "source", f);
	}
	json_array_foreach(json_is_array(wh) ? wh : NULL, i, a) {
		one = a;
		nfiles++;
	}
	if (json_is_object(sd)) {
		one = sd;
		nfiles++;
	}
	if (nfiles == 1) {
		set_url(p, "url", yamlio_str(one, "url"));
		yamlio_set_str(p, "sha256", uv_sha256(one));
	}
	json_object_set_new(p, "files", json_integer((json_int_t)nfiles));
	return p;
}

/* A uv.lock's tree (toml.h) as pylock.h's. */
static int
uvlock_of(const json_t *doc, const char *name, json_t **out, struct kd_err *err)
{
	const json_t *v = json_object_get(doc, "version");
	char vbuf[32];
	json_t *pkgs;

	if (!json_is_integer(v) || json_integer_value(v) != 1 ||
	    !json_is_array(json_object_get(doc, "package")))
		return kd_err_set(err, KD_EINPUT, name, 0, "not a uv.lock of version 1 with "
				  "[[package]] tables");
	if ((pkgs = packages_of(doc, "package", name, uv_package, err)) == NULL)
		return KD_EINPUT;
	snprintf(vbuf, sizeof vbuf, "%lld", (long long)json_integer_value(v));
	*out = json_pack("{s:s, s:s, s:n, s:O?, s:o}", "format", "uv-lock", "lock_version", vbuf,
			 "created_by", "requires_python", json_object_get(doc, "requires-python"),
			 "packages", pkgs);
	return 0;
}

/* Parse text as TOML, then as a lock by of. */
static int
lock_parse(const char *text, size_t len, const char *name, json_t **out, struct kd_err *err,
	   int (*of)(const json_t *, const char *, json_t **, struct kd_err *))
{
	json_t *doc = NULL;
	int rc;

	*out = NULL;
	if ((rc = toml_parse(text, len, name, &doc, err)) == 0)
		rc = of(doc, name, out, err);
	json_decref(doc);
	return rc;
}

int
pylock_parse(const char *text, size_t len, const char *name, json_t **out,
	     struct kd_err *err)
{
	return lock_parse(text, len, name, out, err, pylock_of);
}

int
uvlock_parse(const char *text, size_t len, const char *name, json_t **out,
	     struct kd_err *err)
{
	return lock_parse(text, len, name, out, err, uvlock_of);
}

const char *
pylock_kind_of(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;
	size_t n;

	b = b ? b + 1 : path;
	if (b == NULL)
		return NULL;
	n = strlen(b);
	if (strcmp(b, "uv.lock") == 0)
		return "uv-lock";
	if (strncmp(b, "pylock.", 7) == 0 && n >= 11 && strcmp(b + n - 5, ".toml") == 0)
		return "pylock";
	return NULL;
}

/* inspect pylock / inspect uv-lock: the file read by toml_load */
static int
inspect_lock(const char *path, json_t **out, struct kd_err *err,
	     int (*of)(const json_t *, const char *, json_t **, struct kd_err *))
{
	json_t *doc = NULL;
	int rc;

	*out = NULL;
	if ((rc = toml_load(path, &doc, err)) == 0)
		rc = of(doc, path, out, err);
	json_decref(doc);
	return rc;
}

int
inspect_pylock(const char *path, json_t **out, struct kd_err *err)
{
	return inspect_lock(path, out, err, pylock_of);
}

int
inspect_uv_lock(const char *path, json_t **out, struct kd_err *err)
{
	return inspect_lock(path, out, err, uvlock_of);
}
