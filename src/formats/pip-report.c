/*
 * pip-report.c - pip's installation report (pip-report.h): the JSON is read
 * by jansson; this module checks its shape and picks, per distribution,
 * where it came from (download_info, PEP 610's direct URL data) and its
 * digest.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/caps.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/pep440.h"
#include "kernodeck/pip-report.h"
#include "kernodeck/redact.h"
#include "kernodeck/yamlio.h"

/* Is s 64 hexadecimal digits? */
static int
is_sha256_hex(const char *s)
{
	size_t i;

	for (i = 0; s != NULL && i < 64; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return s != NULL && s[64] == '\0';
}

/* The last segment of a URL's path, %-escapes decoded (malloc'd). */
static char *
url_file(const char *url)
{
	const char *end = url + strcspn(url, "?#"), *s = end;
	char *out, *o;

	while (s > url && s[-1] != '/')
		s--;
	out = o = malloc((size_t)(end - s) + 1);
	if (out == NULL)
		return NULL;
	for (; s < end; s++) {
		char h[3] = { s[0] == '%' && s + 2 < end ? s[1] : '\0', s + 2 < end ? s[2] : '\0',
			      '\0' };
		long c = isxdigit((unsigned char)h[0]) && isxdigit((unsigned char)h[1]) ?
			 strtol(h, NULL, 16) : 0;
		if (c > 0) {
			*o++ = (char)c;
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return out;
}

/* The SHA-256 of an archive_info: its hashes table (pip 23.1 and later) or
 * its "sha256=HEX" hash. */
static const char *
archive_sha256(const json_t *ai)
{
	const char *h = yamlio_str(json_object_get(ai, "hashes"), "sha256");

	if (is_sha256_hex(h))
		return h;
	h = yamlio_str(ai, "hash");
	if (h != NULL && strncmp(h, "sha256=", 7) == 0 && is_sha256_hex(h + 7))
		return h + 7;
	return NULL;
}

static json_t *
one_install(const json_t *inst)
{
	const json_t *md = json_object_get(inst, "metadata");
	const json_t *di = json_object_get(inst, "download_info");
	const json_t *vcs = json_object_get(di, "vcs_info");
	const json_t *dir = json_object_get(di, "dir_info");
	const json_t *ai = json_object_get(di, "archive_info");
	const char *name = yamlio_str(md, "name"), *version = yamlio_str(md, "version");
	const char *url = yamlio_str(di, "url");
	char canon[256];
	json_t *p;

	if (name == NULL || version == NULL)
		return NULL;
	p = json_object();
	json_object_set_new(p, "name", json_string(name));
	json_object_set_new(p, "canonical_name",
			    json_string(pep503_canonical(name, canon, sizeof canon)));
	json_object_set_new(p, "version", json_string(version));
	json_object_set_new(p, "requested", json_boolean(json_is_true(json_object_get(inst,
						"requested"))));
	json_object_set_new(p, "is_direct", json_boolean(json_is_true(json_object_get(inst,
						"is_direct"))));
	json_object_set_new(p, "kind", json_string(vcs != NULL ? "vcs" : dir != NULL ?
						   "directory" : "archive"));
	if (url != NULL) {
		char *clean = redact_url(url, NULL);
		json_object_set_new(p, "url", json_string(clean ? clean : ""));
		free(clean);
		if (vcs == NULL && dir == NULL) {
			char *f = url_file(url);
			if (f != NULL && f[0] != '\0')
				json_object_set_new(p, "file", json_string(f));
			free(f);
		}
	}
	if (vcs != NULL) {
		yamlio_set_str(p, "vcs", yamlio_str(vcs, "vcs"));
		yamlio_set_str(p, "commit", yamlio_str(vcs, "commit_id"));
		yamlio_set_str(p, "requested_revision", yamlio_str(vcs, "requested_revision"));
	} else if (dir != NULL) {
		json_object_set_new(p, "editable", json_boolean(json_is_true(json_object_get(dir,
							"editable"))));
	} else if (archive_sha256(ai) != NULL) {
		char low[65];
		const char *h = archive_sha256(ai);
		for (size_t i = 0; i <= 64; i++)
			low[i] = (char)tolower((unsigned char)h[i]);
		json_object_set_new(p, "sha256", json_string(low));
	}
	yamlio_set_str(p, "subdirectory", yamlio_str(di, "subdirectory"));
	return p;
}

int
pipreport_parse(const char *text, size_t len, const char *name, json_t **out,
		struct kd_err *err)
{
	json_error_t jerr;
	json_t *root, *inst, *pkgs, *v;
	size_t i;

	*out = NULL;
	if (memchr(text, '\0', len) != NULL)
		return kd_err_set(err, KD_EINPUT, name, 0, "a NUL byte: not a pip installation "
				  "report");
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL)
		return kd_err_set(err, KD_EINPUT, name, jerr.line,
				  "not a pip installation report: %s", jerr.text);
	v = json_object_get(root, "version");
	if (!json_is_object(root) || !json_is_string(v) ||
	    (strcmp(json_string_value(v), "0") != 0 && strcmp(json_string_value(v), "1") != 0)) {
		json_decref(root);
		return kd_err_set(err, KD_EINPUT, name, 1, "not a pip installation report of "
				  "version \"0\" or \"1\" (pip install --report)");
	}
	inst = json_object_get(root, "install");
	if (!json_is_array(inst)) {
		json_decref(root);
		return kd_err_set(err, KD_EINPUT, name, 1, "no \"install\" list: not a pip "
				  "installation report");
	}
	pkgs = json_array();
	for (i = 0; i < json_array_size(inst); i++) {
		json_t *p = one_install(json_array_get(inst, i));
		if (p == NULL) {
			json_decref(pkgs);
			json_decref(root);
			return kd_err_set(err, KD_EINPUT, name, 1, "install item %zu has no "
					  "metadata name and version", i + 1);
		}
		json_array_append_new(pkgs, p);
	}
	*out = json_pack("{s:O, s:O?, s:O?, s:o}", "version", v, "pip_version",
			 json_object_get(root, "pip_version"), "environment",
			 json_object_get(root, "environment"), "packages", pkgs);
	json_decref(root);
	return 0;
}

int
pipreport_load(const char *path, json_t **out, struct kd_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	if ((rc = fsutil_read_file(path, KD_CAP_PIP_OUTPUT, &buf, &len, err)) != 0)
		return KD_EINPUT;
	rc = pipreport_parse(buf, len, path, out, err);
	free(buf);
	return rc;
}
