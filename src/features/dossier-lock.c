/*
 * dossier-lock.c - the dossier's lock (dossier-lock.h): pylock.toml after
 * PEP 751 and requirements-lock.txt in pip's hash-checking form, both from
 * the origins stage 3 recorded.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/ctx.h"
#include "kernodeck/dossier-lock.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/obs-rebuild.h"
#include "kernodeck/obs-system.h"
#include "kernodeck/pep440.h"
#include "kernodeck/rebuild.h"
#include "kernodeck/stage.h"
#include "kernodeck/toml.h"
#include "kernodeck/variant.h"
#include "kernodeck/yamlio.h"

static int
is(const char *s, const char *t)
{
	return s != NULL && strcmp(s, t) == 0;
}

/* Did pip install it (it has no provider)? */
static int
installed_by_pip(const json_t *o)
{
	return json_object_get(o, "provider") == NULL;
}

int
dossier_lock_hashable(const json_t *o)
{
	return installed_by_pip(o) && yamlio_str(o, "sha256") != NULL &&
	       !is(yamlio_str(o, "origin"), "vcs") && !is(yamlio_str(o, "origin"), "directory");
}

/* Does a file name end with suffix? */
static int
ends(const char *s, const char *suffix)
{
	size_t n = s ? strlen(s) : 0, m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The folder of a file: URL (malloc'd), or NULL for another URL. */
static char *
url_folder(const char *url)
{
	const char *slash;

	if (url == NULL || strncmp(url, "file://", 7) != 0 ||
	    (slash = strrchr(url + 7, '/')) == NULL)
		return NULL;
	return strndup(url + 7, (size_t)(slash - url - 7));
}

/* folder relative to the project folder ("." for itself), or NULL when it
 * is outside it. */
static const char *
in_project(const char *project_dir, const char *folder)
{
	size_t n = project_dir ? strlen(project_dir) : 0;

	if (n == 0 || strncmp(folder, project_dir, n) != 0 ||
	    (folder[n] != '/' && folder[n] != '\0'))
		return NULL;
	return folder[n] == '\0' ? "." : folder + n + 1;
}

/* See dossier-lock.h. */
json_t *
dossier_lock_folders(const char *project_dir, const json_t *origins)
{
	json_t *out = json_array(), *names = json_object(), *f;
	const json_t *o;
	size_t i, k;

	json_array_foreach(origins, i, o) {
		char *dir = is(yamlio_str(o, "origin"), "find-links") && yamlio_str(o, "file") ?
			    url_folder(yamlio_str(o, "url")) : NULL;
		const char *rel;
		json_t *hit = NULL;
		if (dir == NULL)
			continue;
		json_array_foreach(out, k, f)
			if (is(yamlio_str(f, "folder"), dir))
				hit = f;
		if (hit == NULL) {
			const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
			char name[NAME_MAX + 16];
			int n = 1;
			snprintf(name, sizeof name, "%s", *base ? base : "root");
			while (json_object_get(names, name) != NULL)
				snprintf(name, sizeof name, "%s-%d", *base ? base : "root", ++n);
			json_object_set_new(names, name, json_true());
			hit = json_pack("{s:s, s:s, s:[]}", "folder", dir, "name", name, "files");
			if ((rel = in_project(project_dir, dir)) != NULL)
				json_object_set_new(hit, "path", json_string(rel));
			json_array_append_new(out, hit);
		}
		json_array_append(json_object_get(hit, "files"), json_object_get(o, "file"));
		free(dir);
	}
	json_decref(names);
	return out;
}

/* The path of a local artefact as the lock writes it: under the project,
 * relative to it; from a folder outside it, under find-links/NAME (the
 * folder to be provided), into buf.  NULL when the artefact is not a
 * local file of a find-links folder. */
static const char *
local_path(const json_t *folders, const json_t *o, char *buf, size_t len)
{
	char *dir = is(yamlio_str(o, "origin"), "find-links") ? url_folder(yamlio_str(o, "url")) : NULL;
	const json_t *f;
	size_t i;

	buf[0] = '\0';
	json_array_foreach(folders, i, f)
		if (dir != NULL && is(yamlio_str(f, "folder"), dir)) {
			if (yamlio_str(f, "path") != NULL && strcmp(yamlio_str(f, "path"), ".") != 0)
				snprintf(buf, len, "%s/%s", yamlio_str(f, "path"), yamlio_str(o, "file"));
			else if (yamlio_str(f, "path") != NULL)
				snprintf(buf, len, "%s", yamlio_str(o, "file"));
			else
				snprintf(buf, len, "find-links/%s/%s", yamlio_str(f, "name"),
					 yamlio_str(o, "file"));
		}
	free(dir);
	return buf[0] ? buf : NULL;
}

/* key = "value" on a line, when value is not NULL. */
static void
kv(FILE *f, const char *key, const char *value)
{
	if (value == NULL)
		return;
	fprintf(f, "%s = ", key);
	toml_put_string(f, value);
	fputc('\n', f);
}

/* An index URL as the lock writes it: one that PIP_INDEX_URL or
 * PIP_EXTRA_INDEX_URL gave the rebuild with a credential (redacted where
 * kernodeck recorded it: it holds "${") is that variable, which pip
 * expands in a requirements file and the dossier names as one to
 * provide; a URL of the rebuild file keeps its ${NAME} form as written. */
static const char *
lock_index_url(const struct kd_ctx *ctx, const char *url)
{
	const json_t *pe = obs_rebuild_pip_env(kd_ctx_obs(ctx, stage_pos(&kd_stage_rebuild)));

	if (url == NULL || strstr(url, "${") == NULL)
		return url;
	if (is(yamlio_str(pe, "PIP_INDEX_URL"), url))
		return "${PIP_INDEX_URL}";
	if (is(yamlio_str(pe, "PIP_EXTRA_INDEX_URL"), url))
		return "${PIP_EXTRA_INDEX_URL}";
	return url;
}

/* The path of a local file, repository or folder (a file: URL, or a path
 * for a folder) as the lock writes it, into buf: under the project,
 * relative to it, as the find-links paths are; outside it, absolute (the
 * building machine's, *outside set).  NULL for another URL, or a file:
 * URL with a host or an escape that is not a byte. */
static const char *
lock_local(const struct kd_ctx *ctx, const char *where, int *outside, char *buf, size_t len)
{
	int url = where != NULL && strncmp(where, "file://", 7) == 0;
	const char *p = url ? where + 7 : where, *rel;
	size_t n = 0;

	*outside = 0;
	if (p == NULL || p[0] != '/')
		return NULL;
	for (; *p && n + 1 < len; p++) {
		unsigned v = 0;
		/* pip's file: URLs escape what is not a URL character (%20) */
		if (url && *p == '%') {
			if (strspn(p + 1, "0123456789abcdefABCDEF") < 2 ||
			    sscanf(p + 1, "%2x", &v) != 1 || v == 0)
				return NULL;
			buf[n++] = (char)v;
			p += 2;
		} else {
			buf[n++] = *p;
		}
	}
	if (*p)
		return NULL;
	buf[n] = '\0';
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	if ((rel = in_project(ctx->project_dir, buf)) != NULL) {
		memmove(buf, rel, strlen(rel) + 1);
		return buf;
	}
	*outside = 1;
	return buf;
}

/* {name = ..., url or path = ..., hashes = {sha256 = ...}} of an
 * artefact: a local file of a find-links folder by its path (local_path),
 * another local file by its path (lock_local), never the building
 * machine's file: URL. */
static void
artefact(FILE *f, const struct kd_ctx *ctx, const json_t *o, int with_name,
	 const json_t *folders)
{
	char lp[PATH_MAX];
	int outside;
	const char *path = local_path(folders, o, lp, sizeof lp);

	if (path == NULL)
		path = lock_local(ctx, yamlio_str(o, "url"), &outside, lp, sizeof lp);

	fputc('{', f);
	if (with_name && yamlio_str(o, "file") != NULL) {
		fputs("name = ", f);
		toml_put_string(f, yamlio_str(o, "file"));
		fputs(", ", f);
	}
	fputs(path ? "path = " : "url = ", f);
	toml_put_string(f, path ? path : yamlio_str(o, "url") ? yamlio_str(o, "url") : "");
	fputs(", hashes = {sha256 = ", f);
	toml_put_string(f, yamlio_str(o, "sha256"));
	fputs("}}", f);
}

/* The path of a file: URL under the project folder, relative to it. */
static const char *
project_path(const struct kd_ctx *ctx, const char *url)
{
	size_t n = strlen(ctx->project_dir);

	if (url == NULL || strncmp(url, "file://", 7) != 0 ||
	    strncmp(url + 7, ctx->project_dir, n) != 0 || url[7 + n] != '/')
		return NULL;
	return url + 7 + n + 1;
}

/* One [[packages]] of a distribution pip installed. */
static void
pylock_package(FILE *f, const struct kd_ctx *ctx, const json_t *o, const json_t *folders)
{
	const char *origin = yamlio_str(o, "origin"), *file = yamlio_str(o, "file");
	char lp[PATH_MAX];
	int outside = 0;
	/* a local repository, folder or file (not of a find-links folder) */
	const char *local = lock_local(ctx, yamlio_str(o, is(origin, "directory") ? "source" : "url"),
				       &outside, lp, sizeof lp);

	if (!is(origin, "vcs") && !is(origin, "directory") && !is(origin, "url"))
		local = NULL, outside = 0;
	fputs("\n[[packages]]\n", f);
	kv(f, "name", yamlio_str(o, "canonical_name"));
	if (!is(origin, "directory"))
		kv(f, "version", yamlio_str(o, "version"));
	if (is(origin, "index"))
		kv(f, "index", lock_index_url(ctx, yamlio_str(o, "source")));
	if (is(origin, "vcs")) {
		fputs("vcs = {type = ", f);
		toml_put_string(f, yamlio_str(o, "vcs") ? yamlio_str(o, "vcs") : "git");
		fputs(local ? ", path = " : ", url = ", f);
		toml_put_string(f, local ? local : yamlio_str(o, "url") ? yamlio_str(o, "url") : "");
		if (yamlio_str(o, "subdirectory") != NULL) {
			fputs(", subdirectory = ", f);
			toml_put_string(f, yamlio_str(o, "subdirectory"));
		}
		if (yamlio_str(o, "requested_revision") != NULL) {
			fputs(", requested-revision = ", f);
			toml_put_string(f, yamlio_str(o, "requested_revision"));
		}
		fputs(", commit-id = ", f);
		toml_put_string(f, yamlio_str(o, "commit") ? yamlio_str(o, "commit") : "");
		fputs("}\n", f);
	} else if (is(origin, "directory")) {
		fputs("directory = {path = ", f);
		toml_put_string(f, local ? local : yamlio_str(o, "source") ? yamlio_str(o, "source") : "");
		fprintf(f, ", editable = %s}\n", json_is_true(json_object_get(o, "editable")) ?
			"true" : "false");
	} else if (yamlio_str(o, "sha256") == NULL) {
		fputs("# no digest was recorded for this artefact: it is not locked\n", f);
	} else if (is(origin, "url")) {
		fputs("archive = ", f);
		artefact(f, ctx, o, 0, folders);
		fputc('\n', f);
	} else if (ends(file, ".whl")) {
		fputs("wheels = [", f);
		artefact(f, ctx, o, 1, folders);
		fputs("]\n", f);
	} else {
		fputs("sdist = ", f);
		artefact(f, ctx, o, 1, folders);
		fputc('\n', f);
	}
	fputs("\n[packages.tool.kernodeck]\n", f);
	kv(f, "origin", origin);
	kv(f, "source", yamlio_str(o, "source"));
	fprintf(f, "requested = %s\n", json_is_true(json_object_get(o, "requested")) ?
		"true" : "false");
	kv(f, "project-path", project_path(ctx, yamlio_str(o, "url")));
	if (outside)
		kv(f, "local", is(origin, "vcs") ? "a repository of the building machine, outside "
		   "the project: to be provided at this path (" DOSSIER_REQ_DIRECT " installs "
		   "it from there at its commit)" : is(origin, "directory") ? "a folder of the "
		   "building machine, outside the project: to be provided at this path" :
		   "a file of the building machine, outside the project: to be provided at this "
		   "path (" DOSSIER_REQ_LOCK " installs it from there)");
}

/* [[tool.kernodeck.find-links]]: each local folder the artefacts came
 * from, and for one outside the project what must be provided. */
static void
pylock_folders(FILE *f, const json_t *folders)
{
	const json_t *d, *v;
	size_t i, k;

	json_array_foreach(folders, i, d) {
		fputs("\n[[tool.kernodeck.find-links]]\n", f);
		kv(f, "name", yamlio_str(d, "name"));
		kv(f, "path", yamlio_str(d, "path"));
		kv(f, "recorded", yamlio_str(d, "folder"));
		if (yamlio_str(d, "path") == NULL)
			kv(f, "provide", "the folder that holds these files, outside the project: "
			   "kernodeck replay --find-links DIR, FIND_LINKS=DIR for procedure.sh, "
			   "pip install --find-links DIR (paths find-links/NAME/FILE here)");
		fputs("files = [", f);
		json_array_foreach(json_object_get(d, "files"), k, v) {
			fputs(k ? ", " : "", f);
			toml_put_string(f, json_string_value(v));
		}
		fputs("]\n", f);
	}
}

/* [tool.kernodeck.accelerator]: the PyTorch build and what it needs. */
static void
pylock_accelerator(FILE *f, const struct kd_ctx *ctx, const json_t *origins)
{
	const json_t *sys = kd_ctx_obs(ctx, stage_pos(&kd_stage_system));
	const json_t *o;
	const char *torch = NULL, *cuda = obs_system_plan_cuda(sys);
	char local[KD_PEP440_MAX_LOCAL], build[KD_PEP440_MAX_LOCAL + 2];
	size_t i;

	json_array_foreach(origins, i, o)
		if (is(yamlio_str(o, "canonical_name"), "torch"))
			torch = yamlio_str(o, "version");
	fputs("\n[tool.kernodeck.accelerator]\n", f);
	kv(f, "kind", obs_system_plan_kind(sys));
	kv(f, "variant", obs_system_plan_tag(sys));
	kv(f, "torch", torch);
	if (torch != NULL && pep440_local_of(torch, local, sizeof local)[0]) {
		snprintf(build, sizeof build, "+%s", local);
		kv(f, "build", build);
	}
	kv(f, "cuda", cuda);
	kv(f, "rocm", obs_system_plan_rocm(sys));
	kv(f, "min-driver", cuda ? variant_cuda_min_driver(cuda) : NULL);
}

/* [[tool.kernodeck.provided]]: what the venv holds that pip did not
 * install, and who provides it. */
static void
pylock_provided(FILE *f, const json_t *origins)
{
	const json_t *o, *pv;
	size_t i;

	json_array_foreach(origins, i, o) {
		if (installed_by_pip(o))
			continue;
		pv = json_object_get(o, "provider");
		fputs("\n[[tool.kernodeck.provided]]\n", f);
		kv(f, "name", yamlio_str(o, "canonical_name"));
		kv(f, "version", yamlio_str(o, "version"));
		kv(f, "origin", yamlio_str(o, "origin"));
		kv(f, "provider", yamlio_str(pv, "kind"));
		kv(f, "package", yamlio_str(pv, "package"));
		kv(f, "package-version", yamlio_str(pv, "version"));
		kv(f, "channel", yamlio_str(pv, "channel"));
		kv(f, "path", yamlio_str(pv, "path"));
	}
}

/* The memory stream's text, or NULL. */
static char *
close_text(FILE *f, char **buf)
{
	if (fclose(f) != 0) {
		free(*buf);
		return NULL;
	}
	return *buf;
}

char *
dossier_pylock(const struct kd_ctx *ctx, const json_t *origins)
{
	const json_t *rb = kd_ctx_obs(ctx, stage_pos(&kd_stage_rebuild)), *o;
	const char *pyv = obs_rebuild_origins_python(rb) ? obs_rebuild_origins_python(rb) :
			  obs_system_python_chosen_version(kd_ctx_obs(ctx, stage_pos(&kd_stage_system)));
	char *buf = NULL, rp[32];
	size_t len = 0, i;
	json_t *folders;
	FILE *f;

	if (!json_is_array(origins) || (f = open_memstream(&buf, &len)) == NULL)
		return NULL;
	folders = dossier_lock_folders(ctx->project_dir, origins);
	fputs("# What kernodeck's rebuild installed, as a PEP 751 lock file (pylock.toml,\n"
	      "# https://packaging.python.org/specifications/pylock-toml/): each artefact\n"
	      "# with its digest.  " DOSSIER_REQ_LOCK " beside it is the same lock for pip:\n"
	      "#   python -m pip install --require-hashes --no-deps -r " DOSSIER_REQ_LOCK "\n"
	      "# A local artefact (of a find-links folder, a file, a git repository, a\n"
	      "# folder) is named by its path, never a file: URL: under the project,\n"
	      "# relative to the project's root (install from a copy of this file placed\n"
	      "# there); a find-links folder outside it is find-links/NAME, to be provided\n"
	      "# ([[tool.kernodeck.find-links]]); another artefact outside it keeps the\n"
	      "# building machine's absolute path, to be provided there (its\n"
	      "# [packages.tool.kernodeck] local); [tool.kernodeck] names what pip did not\n"
	      "# install.\n", f);
	kv(f, "lock-version", "1.0");
	if (pyv != NULL) {
		int maj = 0, min = 0;
		if (sscanf(pyv, "%d.%d", &maj, &min) == 2) {
			snprintf(rp, sizeof rp, "==%d.%d.*", maj, min);
			kv(f, "requires-python", rp);
		}
	}
	kv(f, "created-by", "kernodeck");
	json_array_foreach(origins, i, o)
		if (installed_by_pip(o))
			pylock_package(f, ctx, o, folders);
	fputs("\n[tool.kernodeck]\n", f);
	kv(f, "rebuild-file", REBUILD_REQUIREMENTS);
	kv(f, "pip-lock", DOSSIER_REQ_LOCK);
	pylock_accelerator(f, ctx, origins);
	pylock_folders(f, folders);
	pylock_provided(f, origins);
	json_decref(folders);
	return close_text(f, &buf);
}

/* A --find-links value as the lock keeps it (malloc'd): a URL as it is, a
 * folder of the project relative to it; NULL for a folder outside the
 * project (the lock names it to be provided, lock_outside). */
static char *
find_links_value(const char *project_dir, const char *value)
{
	const char *p = value, *rel;
	char real[PATH_MAX], *joined;
	int ok;

	if (strncmp(value, "file://", 7) == 0)
		p = value + 7;
	else if (strstr(value, "://") != NULL)
		return strdup(value);
	joined = p[0] == '/' ? strdup(p) : fsutil_join(project_dir, p);
	ok = joined != NULL && realpath(joined, real) != NULL;
	free(joined);
	if (!ok)
		return p[0] == '/' || strstr(p, "..") != NULL ? NULL : strdup(value);
	if ((rel = in_project(project_dir, real)) == NULL)
		return NULL;
	if (p == value && p[0] != '/')
		return strdup(value);
	joined = malloc(strlen(rel) + 3);
	if (joined != NULL)
		snprintf(joined, strlen(rel) + 3, "./%s", rel);
	return joined;
}

/* An option line per value of a list, once; a local folder outside the
 * project is left out (lock_outside names it). */
static void
option_lines(FILE *f, const char *opt, const json_t *values, json_t *seen,
	     const char *project_dir)
{
	const json_t *v;
	size_t i;

	json_array_foreach(values, i, v) {
		const char *s = json_string_value(v);
		char *w = s && project_dir ? find_links_value(project_dir, s) : s ? strdup(s) : NULL;
		if (w != NULL && json_object_get(seen, w) == NULL) {
			json_object_set_new(seen, w, json_true());
			fprintf(f, "%s %s\n", opt, w);
		}
		free(w);
	}
}

/* The comment that names each find-links folder outside the project the
 * lock's artefacts come from: to be provided where it is installed. */
static void
lock_outside(FILE *f, const json_t *folders)
{
	const json_t *d, *v;
	size_t i, k;

	json_array_foreach(folders, i, d) {
		int col = 80;
		if (yamlio_str(d, "path") != NULL)
			continue;
		fprintf(f, "# find-links %s: a folder outside the project, to be provided "
			"where this lock is\n# installed (kernodeck replay --find-links DIR, "
			"FIND_LINKS=DIR procedure.sh,\n# pip install --find-links DIR); it held:",
			yamlio_str(d, "folder"));
		json_array_foreach(json_object_get(d, "files"), k, v) {
			const char *s = json_string_value(v);
			if (col + strlen(s) > 76)
				col = fprintf(f, "\n#  ");
			col += fprintf(f, " %s", s);
		}
		fputc('\n', f);
	}
}

char *
dossier_requirements_lock(const struct kd_ctx *ctx, const json_t *origins)
{
	const json_t *obs = kd_ctx_obs(ctx, stage_pos(&kd_stage_rebuild));
	const json_t *lint = obs_rebuild_requirements_lint(obs), *o;
	const json_t *pe = obs_rebuild_pip_env(obs);
	json_t *seen = json_object(), *fl = json_array();
	json_t *folders = dossier_lock_folders(ctx->project_dir, origins);
	char *buf = NULL;
	size_t len = 0, i, provided = 0;
	FILE *f;

	if (!json_is_array(origins) || (f = open_memstream(&buf, &len)) == NULL) {
		json_decref(seen);
		json_decref(fl);
		json_decref(folders);
		return NULL;
	}
	fputs("# The lock of kernodeck's rebuild in pip's hash-checking form (" DOSSIER_PYLOCK
	      "\n# beside it is the same lock, PEP 751).  Exactly these artefacts, no\n"
	      "# resolution, from the project folder:\n"
	      "#   .venv-rebuild/bin/python -m pip install --require-hashes --no-deps -r "
	      DOSSIER_REQ_LOCK "\n", f);
	json_array_foreach(origins, i, o)
		provided += !installed_by_pip(o);
	if (provided > 0) {
		int col = 80;
		fputs("# Provided, not installed by pip (system site packages, a base "
		      "environment, the venv):", f);
		json_array_foreach(origins, i, o) {
			const char *v = yamlio_str(o, "version") ? yamlio_str(o, "version") : "?";
			if (installed_by_pip(o))
				continue;
			if (col + strlen(yamlio_str(o, "canonical_name")) + strlen(v) > 76)
				col = fprintf(f, "\n#  ");
			col += fprintf(f, " %s==%s", yamlio_str(o, "canonical_name"), v);
		}
		fputc('\n', f);
	}
	if (json_is_true(json_object_get(lint, "no_index")))
		fputs("--no-index\n", f);
	if (yamlio_str(lint, "index_url") != NULL)
		fprintf(f, "--index-url %s\n", yamlio_str(lint, "index_url"));
	else if (!json_is_true(json_object_get(lint, "no_index")) &&
		 yamlio_str(pe, "PIP_INDEX_URL") != NULL && strchr(yamlio_str(pe, "PIP_INDEX_URL"), ' ') == NULL)
		/* the shell's index, with its credential as the variable */
		fprintf(f, "--index-url %s\n", lock_index_url(ctx, yamlio_str(pe, "PIP_INDEX_URL")));
	if (!json_is_true(json_object_get(lint, "no_index")) &&
	    yamlio_str(pe, "PIP_EXTRA_INDEX_URL") != NULL &&
	    strchr(yamlio_str(pe, "PIP_EXTRA_INDEX_URL"), ' ') == NULL)
		fprintf(f, "--extra-index-url %s\n", lock_index_url(ctx,
			yamlio_str(pe, "PIP_EXTRA_INDEX_URL")));
	option_lines(f, "--extra-index-url", json_object_get(lint, "extra_index_urls"), seen, NULL);
	option_lines(f, "--find-links", json_object_get(lint, "find_links"), seen, ctx->project_dir);
	json_array_foreach(origins, i, o)
		if (is(yamlio_str(o, "origin"), "find-links") && yamlio_str(o, "source") != NULL)
			json_array_append(fl, json_object_get(o, "source"));
	option_lines(f, "--find-links", fl, seen, ctx->project_dir);
	lock_outside(f, folders);
	json_array_foreach(origins, i, o) {
		if (!installed_by_pip(o))
			continue;
		if (dossier_lock_hashable(o) && is(yamlio_str(o, "origin"), "url"))
			fprintf(f, "%s @ %s --hash=sha256:%s\n", yamlio_str(o, "canonical_name"),
				yamlio_str(o, "url"), yamlio_str(o, "sha256"));
		else if (dossier_lock_hashable(o))
			fprintf(f, "%s==%s --hash=sha256:%s\n", yamlio_str(o, "canonical_name"),
				yamlio_str(o, "version"), yamlio_str(o, "sha256"));
		else if (is(yamlio_str(o, "origin"), "vcs") || is(yamlio_str(o, "origin"), "directory"))
			fprintf(f, "# not hash-checkable by pip, installed after this lock by "
				DOSSIER_REQ_DIRECT ": %s==%s from %s\n", yamlio_str(o, "canonical_name"),
				yamlio_str(o, "version") ? yamlio_str(o, "version") : "?",
				yamlio_str(o, "source") ? yamlio_str(o, "source") : "?");
		else
			fprintf(f, "# not hash-checkable by pip (no digest): %s==%s from %s\n",
				yamlio_str(o, "canonical_name"),
				yamlio_str(o, "version") ? yamlio_str(o, "version") : "?",
				yamlio_str(o, "source") ? yamlio_str(o, "source") : "?");
	}
	json_decref(seen);
	json_decref(fl);
	json_decref(folders);
	return close_text(f, &buf);
}

/* See dossier-lock.h. */
char *
dossier_requirements_direct(const struct kd_ctx *ctx, const json_t *origins)
{
	const json_t *o;
	char *buf = NULL;
	size_t len = 0, i, n = 0;
	FILE *f;

	json_array_foreach(origins, i, o)
		n += installed_by_pip(o) && (is(yamlio_str(o, "origin"), "vcs") ||
					     is(yamlio_str(o, "origin"), "directory"));
	if (n == 0 || (f = open_memstream(&buf, &len)) == NULL)
		return NULL;
	fputs("# What pip's hash-checking mode refuses (VCS checkouts, folders), installed\n"
	      "# after " DOSSIER_REQ_LOCK " from the project folder, each at its recorded commit:\n"
	      "#   .venv-rebuild/bin/python -m pip install --no-deps -r " DOSSIER_REQ_DIRECT "\n"
	      "# then each VCS package's direct_url.json is checked against its commit.\n", f);
	json_array_foreach(origins, i, o) {
		const char *cn = yamlio_str(o, "canonical_name"), *src = yamlio_str(o, "source");
		const char *rel = src ? in_project(ctx->project_dir, src) : NULL;
		if (!installed_by_pip(o) || cn == NULL)
			continue;
		if (is(yamlio_str(o, "origin"), "vcs") && yamlio_str(o, "commit") != NULL &&
		    yamlio_str(o, "url") != NULL && strpbrk(yamlio_str(o, "url"), " \t\r\n") == NULL) {
			/* pip's URL line (a file: URL has no host, which a PEP 508
			 * "name @ url" refuses) */
			fprintf(f, "%s+%s@%s#egg=%s", yamlio_str(o, "vcs") ? yamlio_str(o, "vcs") : "git",
				yamlio_str(o, "url"), yamlio_str(o, "commit"), cn);
			if (yamlio_str(o, "subdirectory") != NULL)
				fprintf(f, "&subdirectory=%s", yamlio_str(o, "subdirectory"));
			fputc('\n', f);
		} else if (is(yamlio_str(o, "origin"), "directory") && rel != NULL &&
			   strpbrk(rel, " \t\r\n") == NULL) {
			fprintf(f, "%s./%s\n", json_is_true(json_object_get(o, "editable")) ? "-e " : "",
				rel);
		} else if (is(yamlio_str(o, "origin"), "vcs") || is(yamlio_str(o, "origin"), "directory")) {
			fprintf(f, "# %s: %s cannot be installed elsewhere (no commit, or a folder "
				"outside the project): provide it by hand\n", cn, src ? src : "?");
		}
	}
	return close_text(f, &buf);
}
