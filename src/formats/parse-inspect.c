/*
 * parse-inspect.c - `pip inspect` reports: the installed distributions
 * with where their metadata lives and how they were installed
 * (direct_url.json, PEP 610), reduced to the package list kernodeck
 * compares.  The JSON itself is read by jansson; this module only finds it
 * in the surrounding text and picks the fields.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/caps.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/inspect.h"
#include "kernodeck/pep440.h"
#include "kernodeck/parse-inspect.h"
#include "kernodeck/pipline.h"
#include "kernodeck/redact.h"
#include "kernodeck/yamlio.h"

/* kind, url and commit from a direct_url.json object. */
static void
direct_url(json_t *pkg, const json_t *du)
{
	const json_t *vcs = json_object_get(du, "vcs_info");
	const json_t *dir = json_object_get(du, "dir_info");
	int editable = json_is_true(json_object_get(dir, "editable"));
	const char *url = yamlio_str(du, "url");
	const char *kind;

	if (!json_is_object(du)) {
		json_object_set_new(pkg, "kind", json_string("pinned"));
		return;
	}
	if (vcs != NULL)
		kind = editable ? "editable_vcs" : "vcs";
	else if (editable)
		kind = "editable_local";
	else
		kind = "direct_url";
	json_object_set_new(pkg, "kind", json_string(kind));
	if (url != NULL) {
		char *clean = redact_url(url, NULL);
		json_object_set_new(pkg, "url", json_string(clean ? clean : ""));
		free(clean);
	}
	if (yamlio_str(vcs, "commit_id") != NULL)
		json_object_set_new(pkg, "commit", json_string(yamlio_str(vcs, "commit_id")));
}

static json_t *
one_package(const json_t *inst)
{
	const json_t *md = json_object_get(inst, "metadata");
	const char *name = yamlio_str(md, "name"), *version = yamlio_str(md, "version");
	const char *mloc = yamlio_str(inst, "metadata_location");
	char canon[256], local[KD_PEP440_MAX_LOCAL];
	json_t *p;

	if (name == NULL)
		return NULL;
	p = json_object();
	json_object_set_new(p, "name", json_string(name));
	json_object_set_new(p, "canonical_name",
			    json_string(pep503_canonical(name, canon, sizeof canon)));
	json_object_set_new(p, "version", version ? json_string(version) : json_null());
	direct_url(p, json_object_get(inst, "direct_url"));
	if (mloc != NULL) {
		const char *slash = strrchr(mloc, '/');
		char *dir = slash ? pipline_dup(mloc, (size_t)(slash - mloc)) : strdup(mloc);
		json_object_set_new(p, "location", json_string(dir ? dir : ""));
		free(dir);
	} else {
		json_object_set_new(p, "location", json_null());
	}
	json_object_set_new(p, "installer", yamlio_str(inst, "installer") ?
			    json_string(yamlio_str(inst, "installer")) : json_null());
	json_object_set_new(p, "requested", json_boolean(json_is_true(json_object_get(inst,
							"requested"))));
	if (version && pep440_local_of(version, local, sizeof local)[0])
		json_object_set_new(p, "local_label", json_string(local));
	json_t *rd = json_object_get(md, "requires_dist");
	json_object_set_new(p, "requires_dist", json_is_array(rd) ? json_deep_copy(rd) :
			    json_array());
	return p;
}

int
pipinspect_parse(const char *text, size_t len, const char *name, json_t **out,
		 struct kd_err *err)
{
	struct pipline_iter it;
	const char *s, *start = NULL;
	size_t n;
	int skipped = 0;
	json_error_t jerr;
	json_t *root, *inst, *pkgs;
	size_t i;

	*out = NULL;
	if (memchr(text, '\0', len) != NULL)
		return kd_err_set(err, KD_EINPUT, name, 0, "%s: a NUL byte: not a pip inspect "
				  "report", name);
	pipline_init(&it, text, len);
	while (pipline_next(&it, &s, &n)) {
		const char *t = s;
		size_t tn = n;
		pipline_trim(&t, &tn);
		if (tn > 0 && t[0] == '{') {
			start = t;
			break;
		}
		skipped++;
	}
	if (start == NULL)
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "%s: no JSON object: not a pip inspect report", name);
	root = json_loadb(start, len - (size_t)(start - text),
			  JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL)
		return kd_err_set(err, KD_EINPUT, name, jerr.line + skipped,
				  "not a complete pip inspect report: %s", jerr.text);
	/* pip writes "version": "1"; a later layout may mean other things */
	{
		json_t *v = json_is_object(root) ? json_object_get(root, "version") : NULL;
		if (v != NULL && !(json_is_string(v) && strcmp(json_string_value(v), "1") == 0)) {
			char vb[64];
			if (json_is_string(v))
				snprintf(vb, sizeof vb, "\"%.40s\"", json_string_value(v));
			else
				snprintf(vb, sizeof vb, "of another type");
			json_decref(root);
			return kd_err_set(err, KD_EINPUT, name, skipped + 1,
					  "pip inspect report version %s is not supported "
					  "(this kernodeck reads version \"1\")", vb);
		}
	}
	inst = json_object_get(root, "installed");
	if (!json_is_object(root) || !json_is_array(inst)) {
		json_decref(root);
		return kd_err_set(err, KD_EINPUT, name, skipped + 1,
				  "no \"installed\" list: not a pip inspect report");
	}
	pkgs = json_array();
	for (i = 0; i < json_array_size(inst); i++) {
		json_t *p = one_package(json_array_get(inst, i));
		if (p != NULL)
			json_array_append_new(pkgs, p);
	}
	*out = json_pack("{s:o, s:o, s:o, s:o}",
			 "version", json_object_get(root, "version") ?
				json_deep_copy(json_object_get(root, "version")) : json_null(),
			 "pip_version", json_object_get(root, "pip_version") ?
				json_deep_copy(json_object_get(root, "pip_version")) : json_null(),
			 "environment", json_object_get(root, "environment") ?
				json_deep_copy(json_object_get(root, "environment")) : json_object(),
			 "packages", pkgs);
	json_decref(root);
	return 0;
}

int
inspect_pip_inspect(const char *path, json_t **out, struct kd_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	if ((rc = fsutil_read_file(path, KD_CAP_PIP_OUTPUT, &buf, &len, err)) != 0)
		return rc == KD_EENV ? KD_EINPUT : rc;
	rc = pipinspect_parse(buf, len, path, out, err);
	free(buf);
	return rc;
}
