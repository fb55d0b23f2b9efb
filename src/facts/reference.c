/*
 * reference.c - helpers over the reference tree.
 *
 * The reference is the json_t tree of kernodeck/reference.yaml
 * (doc/reference-format.md).  What "filled" and "not applicable" mean is
 * decided here once, for the checks of stage 1 and for any later stage that
 * reads the reference.  The capture of this machine into the reference is
 * src/features/capture.c.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/argv.h"
#include "kernodeck/caps.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/redact.h"
#include "kernodeck/reference.h"
#include "kernodeck/repo.h"
#include "kernodeck/venv.h"
#include "kernodeck/yamlio.h"

int
reference_filled(const json_t *v)
{
	const char *s;

	if (v == NULL || json_is_null(v))
		return 0;
	if (json_is_string(v)) {
		for (s = json_string_value(v); *s != '\0'; s++)
			if (!isspace((unsigned char)*s))
				return 1;
		return 0;
	}
	if (json_is_array(v))
		return json_array_size(v) > 0;
	if (json_is_object(v))
		return json_object_size(v) > 0;
	return 1;
}

/* Reasons implied by the recorded GPU vendor. */
static const char *
implied_na(const json_t *ref, const char *path)
{
	const char *vendor = yamlio_get_str(ref, "system.gpu_vendor");

	if (vendor == NULL || strncmp(path, "system.", 7) != 0)
		return NULL;
	path += 7;
	if (strcmp(vendor, "none") == 0 &&
	    (strcmp(path, "gpu_model") == 0 || strcmp(path, "driver") == 0 ||
	     strcmp(path, "cuda") == 0 || strcmp(path, "rocm") == 0))
		return "no GPU (system.gpu_vendor: none)";
	if (strcmp(vendor, "nvidia") == 0 && strcmp(path, "rocm") == 0)
		return "an NVIDIA GPU (system.gpu_vendor: nvidia)";
	if (strcmp(vendor, "amd") == 0 && strcmp(path, "cuda") == 0)
		return "an AMD GPU (system.gpu_vendor: amd)";
	if (strcmp(vendor, "intel") == 0 &&
	    (strcmp(path, "cuda") == 0 || strcmp(path, "rocm") == 0))
		return "an Intel GPU (system.gpu_vendor: intel)";
	return NULL;
}

/* See reference.h. */
const char *
reference_remote(const json_t *ref)
{
	const char *r = yamlio_get_str(ref, "code.remote");

	if (r == NULL || *r == '\0' || reference_na(ref, "code.remote") != NULL)
		return NULL;
	return r;
}

const char *
reference_na(const json_t *ref, const char *path)
{
	json_t *na = json_object_get(ref, "not_applicable");
	char buf[512];
	size_t n;

	if (json_is_object(na)) {
		snprintf(buf, sizeof buf, "%s", path);
		for (;;) {
			json_t *r = json_object_get(na, buf);

			if (reference_filled(r) && json_is_string(r))
				return json_string_value(r);
			/* climb to the parent: "a.b[2].c" -> "a.b[2]" -> "a.b" -> "a" */
			n = strlen(buf);
			while (n > 0 && buf[n - 1] != '.' && buf[n - 1] != '[')
				n--;
			if (n == 0)
				break;
			buf[n - 1] = '\0';
		}
	}
	return implied_na(ref, path);
}

static const char *const floating_names[] = {
	"latest", "main", "master", "current", "stable", "nightly", "dernier",
	"dernier-modele", "dernier-modèle", "head", "trunk", "develop", NULL,
};

int
reference_is_floating(const char *s)
{
	size_t n;

	if (s == NULL)
		return 0;
	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	for (int i = 0; floating_names[i] != NULL; i++)
		if (strlen(floating_names[i]) == n && strncasecmp(s, floating_names[i], n) == 0)
			return 1;
	return 0;
}

int
reference_url_floating(const char *url, char *seg, size_t len)
{
	const char *p = strstr(url, "://");

	if (p == NULL)
		return 0;
	p = strchr(p + 3, '/');          /* skip the host */
	while (p != NULL && *p == '/') {
		const char *s = p + 1, *e = s;
		char part[128];

		while (*e != '\0' && *e != '/' && *e != '?' && *e != '#')
			e++;
		if ((size_t)(e - s) < sizeof part) {
			memcpy(part, s, (size_t)(e - s));
			part[e - s] = '\0';
			if (reference_is_floating(part)) {
				snprintf(seg, len, "%s", part);
				return 1;
			}
		}
		p = *e == '/' ? e : NULL;
	}
	return 0;
}

void
reference_item_slug(const json_t *item, size_t i, char *buf, size_t len)
{
	const char *name = json_string_value(json_object_get(item, "name"));
	size_t o = 0;
	int dash = 0;

	if (name == NULL)
		name = json_string_value(json_object_get(item, "path"));
	for (const char *s = name; s != NULL && *s != '\0' && o + 2 < len && o < 48; s++) {
		if (isalnum((unsigned char)*s)) {
			if (dash && o > 0)
				buf[o++] = '-';
			buf[o++] = (char)tolower((unsigned char)*s);
			dash = 0;
		} else {
			dash = 1;
		}
	}
	if (o == 0)
		snprintf(buf, len, "item-%zu", i + 1);
	else
		buf[o] = '\0';
}

void
reference_data_slug(const json_t *data, size_t i, char *buf, size_t len)
{
	char other[64];
	size_t n;

	reference_item_slug(json_array_get(data, i), i, buf, len);
	for (size_t k = 0; k < i; k++) {
		reference_item_slug(json_array_get(data, k), k, other, sizeof other);
		if (strcmp(other, buf) == 0) {
			n = strlen(buf);
			if (n > 48)
				n = 48;
			snprintf(buf + n, len - n, "-%zu", i + 1);
			return;
		}
	}
}

char *
reference_abspath(const struct kd_ctx *ctx, const char *p)
{
	if (p == NULL)
		return NULL;
	if (p[0] == '/' || ctx == NULL)
		return strdup(p);
	return fsutil_join(ctx->project_dir, p);
}

char *
reference_relpath(const struct kd_ctx *ctx, const char *abs)
{
	size_t n = strlen(ctx->project_dir);

	if (strncmp(abs, ctx->project_dir, n) == 0 && abs[n] == '/' && abs[n + 1] != '\0')
		return strdup(abs + n + 1);
	return strdup(abs);
}

char *
reference_strip_url(const char *url, int *had)
{
	const char *s = strstr(url, "://"), *at, *end;
	size_t pre, rest;
	char *o;

	*had = 0;
	if (s == NULL)
		return strdup(url);
	s += 3;
	end = s + strcspn(s, "/?#");
	at = memchr(s, '@', (size_t)(end - s));
	if (at == NULL)
		return strdup(url);
	/* the last '@' before the host ends: a password may hold one */
	for (const char *q = at; q < end; q++)
		if (*q == '@')
			at = q;
	*had = 1;
	pre = (size_t)(s - url);
	rest = strlen(at + 1);
	o = malloc(pre + rest + 1);
	if (o == NULL)
		return NULL;
	memcpy(o, url, pre);
	memcpy(o + pre, at + 1, rest + 1);
	return o;
}

char *
reference_argv_line(const json_t *argv)
{
	size_t cap = 1, len = 0, i;
	json_t *a;
	char *o;

	json_array_foreach(argv, i, a)
		cap += 4 * strlen(json_is_string(a) ? json_string_value(a) : "?") + 3;
	o = malloc(cap);
	if (o == NULL)
		return NULL;
	json_array_foreach(argv, i, a) {
		const char *s = json_is_string(a) ? json_string_value(a) : "?";
		int plain = *s != '\0';

		for (const char *c = s; *c != '\0'; c++)
			if (!isalnum((unsigned char)*c) && strchr("-_./=:,+@%", *c) == NULL)
				plain = 0;
		if (i > 0)
			o[len++] = ' ';
		if (plain) {
			memcpy(o + len, s, strlen(s));
			len += strlen(s);
			continue;
		}
		o[len++] = '\'';
		for (const char *c = s; *c != '\0'; c++) {
			if (*c == '\'') {
				memcpy(o + len, "'\\''", 4);
				len += 4;
			} else {
				o[len++] = *c;
			}
		}
		o[len++] = '\'';
	}
	o[len] = '\0';
	return o;
}

const char *
reference_outputs_excluded(const json_t *ref)
{
	const char *outs = yamlio_get_str(ref, "result.outputs");

	/* a folder of its own, relative, inside the project: what the sample
	 * moves aside (never the project, kernodeck's folder, the venv or .git) */
	if (outs == NULL || *outs == '\0' || outs[0] == '/' || strstr(outs, "..") != NULL ||
	    strcmp(outs, ".") == 0 || strcmp(outs, "./") == 0 ||
	    strncmp(outs, ".git", 4) == 0 || strncmp(outs, ".venv-rebuild", 13) == 0 ||
	    strncmp(outs, "kernodeck", 9) == 0)
		return NULL;
	return outs;
}

int
reference_exclude_own(const struct kd_ctx *ctx, int *added, struct kd_err *err)
{
	const char *rel = yamlio_get_str(ctx->ref, "code.repository");
	const char *outs = reference_outputs_excluded(ctx->ref);
	char *repo = reference_abspath(ctx, rel != NULL && *rel != '\0' ? rel : ".");
	char *venv = fsutil_join(ctx->project_dir, ".venv-rebuild");
	char *out = outs != NULL ? fsutil_join(ctx->project_dir, outs) : NULL;
	const char *folders[3] = { ctx->state_dir, venv, out };
	int rc;

	*added = 0;
	if (repo == NULL || venv == NULL || (outs != NULL && out == NULL)) {
		free(repo);
		free(venv);
		free(out);
		return kd_err_sys(err, KD_EENV, NULL, ENOMEM, "exclude");
	}
	rc = repo_ensure_excludes(fsutil_exists(repo) ? repo : ctx->project_dir,
				  folders, out != NULL ? 3 : 2, added, err);
	free(repo);
	free(venv);
	free(out);
	return rc;
}

int
reference_init(struct kd_ctx *ctx, int *made_ref, int *excluded, struct kd_err *err)
{
	int rc;

	*made_ref = 0;
	*excluded = 0;
	if ((rc = reference_exclude_own(ctx, excluded, err)) != 0)
		return rc;
	if (!fsutil_exists(ctx->ref_path)) {
		/* a reference to fill: the schema, nothing claimed yet */
		json_object_set_new(ctx->ref, "schema", json_integer(1));
		if ((rc = kd_ctx_save_ref(ctx, err)) != 0)
			return rc;
		*made_ref = 1;
	}
	if (!fsutil_exists(ctx->state_path) && (rc = kd_ctx_save_state(ctx, err)) != 0)
		return rc;
	return 0;
}

/* ----------------------------------------------------------- validation */

/* The types a key may hold. */
enum {
	V_NULL = 1 << 0, V_STR = 1 << 1, V_INT = 1 << 2, V_REAL = 1 << 3, V_BOOL = 1 << 4,
	V_LIST = 1 << 5, V_MAP = 1 << 6,
	V_NUM = V_INT | V_REAL, V_TEXT = V_STR | V_NULL,
};

/* One key of a mapping: its types, the keys of a mapping value (sub), and
 * for a list the types of its items and their keys. */
struct vrule {
	const char *key;
	unsigned types;
	const struct vrule *sub;
	unsigned item_types;
	const struct vrule *items;
};

#define VEND { NULL, 0, NULL, 0, NULL }

static const struct vrule v_param[] = {
	{ "path", V_TEXT, NULL, 0, NULL }, { "sha256", V_TEXT, NULL, 0, NULL }, VEND,
};
static const struct vrule v_code[] = {
	{ "repository", V_TEXT, NULL, 0, NULL }, { "commit", V_TEXT, NULL, 0, NULL },
	{ "branch", V_TEXT, NULL, 0, NULL }, { "remote", V_TEXT, NULL, 0, NULL },
	{ "tags", V_LIST | V_NULL, NULL, V_STR, NULL },
	{ "entry_point", V_LIST | V_NULL, NULL, V_STR | V_NUM, NULL },
	{ "params", V_LIST | V_NULL, NULL, V_MAP, v_param }, VEND,
};
static const struct vrule v_item[] = {
	{ "name", V_TEXT, NULL, 0, NULL }, { "kind", V_TEXT, NULL, 0, NULL },
	{ "path", V_TEXT, NULL, 0, NULL }, { "url", V_TEXT, NULL, 0, NULL },
	{ "sha256", V_TEXT, NULL, 0, NULL }, { "size", V_INT | V_NULL, NULL, 0, NULL },
	{ "version", V_TEXT | V_NUM, NULL, 0, NULL }, { "provenance", V_TEXT, NULL, 0, NULL },
	{ "access", V_TEXT, NULL, 0, NULL }, VEND,
};
static const struct vrule v_install[] = {
	{ "procedure", V_TEXT, NULL, 0, NULL },
	{ "sources", V_LIST | V_TEXT, NULL, V_STR, NULL },
	{ "system_site_packages", V_BOOL | V_NULL, NULL, 0, NULL },
	{ "base", V_TEXT, NULL, 0, NULL }, VEND,
};
static const struct vrule v_python[] = {
	{ "version", V_TEXT | V_NUM, NULL, 0, NULL }, { "interpreter", V_TEXT, NULL, 0, NULL },
	{ "inventory", V_TEXT, NULL, 0, NULL }, { "inspect", V_TEXT, NULL, 0, NULL },
	{ "install", V_MAP | V_NULL, v_install, 0, NULL }, VEND,
};
static const struct vrule v_system[] = {
	{ "os", V_TEXT, NULL, 0, NULL }, { "arch", V_TEXT, NULL, 0, NULL },
	{ "gpu_vendor", V_TEXT, NULL, 0, NULL }, { "gpu_model", V_TEXT, NULL, 0, NULL },
	{ "gpu_count", V_INT | V_NULL, NULL, 0, NULL },
	{ "driver", V_TEXT | V_NUM, NULL, 0, NULL }, { "cuda", V_TEXT | V_NUM, NULL, 0, NULL },
	{ "rocm", V_TEXT | V_NUM, NULL, 0, NULL }, { "backend", V_TEXT, NULL, 0, NULL }, VEND,
};
static const struct vrule v_ext[] = {
	{ "module", V_TEXT, NULL, 0, NULL }, { "call", V_TEXT, NULL, 0, NULL }, VEND,
};
static const struct vrule v_compute[] = {
	{ "extensions", V_LIST | V_NULL, NULL, V_MAP, v_ext },
	{ "dtype", V_TEXT, NULL, 0, NULL }, { "min_gflops", V_NUM | V_NULL, NULL, 0, NULL }, VEND,
};
static const struct vrule v_ids[] = {
	{ "file", V_TEXT, NULL, 0, NULL }, { "column", V_TEXT, NULL, 0, NULL },
	{ "key", V_TEXT, NULL, 0, NULL }, { "reference", V_TEXT, NULL, 0, NULL },
	{ "order", V_TEXT, NULL, 0, NULL }, VEND,
};
static const struct vrule v_rule[] = {
	{ "kind", V_TEXT, NULL, 0, NULL }, { "atol", V_NUM | V_NULL, NULL, 0, NULL },
	{ "rtol", V_NUM | V_NULL, NULL, 0, NULL }, { "nan_equal", V_BOOL | V_NULL, NULL, 0, NULL },
	{ "metric", V_TEXT, NULL, 0, NULL }, { "threshold", V_NUM | V_NULL, NULL, 0, NULL },
	{ "justification", V_TEXT, NULL, 0, NULL }, VEND,
};
static const struct vrule v_result[] = {
	{ "format", V_TEXT, NULL, 0, NULL }, { "outputs", V_TEXT, NULL, 0, NULL },
	{ "files", V_LIST | V_NULL, NULL, V_STR, NULL }, { "count", V_INT | V_NULL, NULL, 0, NULL },
	{ "shape", V_LIST | V_NULL, NULL, V_INT | V_STR | V_NULL, NULL },
	{ "dtype", V_TEXT, NULL, 0, NULL }, { "finite", V_BOOL | V_NULL, NULL, 0, NULL },
	{ "ids", V_MAP | V_NULL, v_ids, 0, NULL }, { "criterion", V_TEXT, NULL, 0, NULL },
	{ "rule", V_MAP | V_NULL, v_rule, 0, NULL },
	{ "sample", V_MAP | V_NULL, v_param, 0, NULL },
	{ "example", V_MAP | V_NULL, v_param, 0, NULL }, VEND,
};
static const struct vrule v_resume[] = {
	{ "run", V_LIST | V_NULL, NULL, V_STR | V_NUM, NULL },
	{ "resume", V_LIST | V_NULL, NULL, V_STR | V_NUM, NULL },
	{ "steps", V_INT | V_NULL, NULL, 0, NULL }, { "interrupt_at", V_INT | V_NULL, NULL, 0, NULL },
	{ "interrupt", V_TEXT, NULL, 0, NULL }, { "checkpoint", V_TEXT, NULL, 0, NULL },
	{ "metrics", V_TEXT, NULL, 0, NULL }, { "compare", V_LIST | V_NULL, NULL, V_STR, NULL },
	{ "rule", V_MAP | V_NULL, v_rule, 0, NULL },
	{ "reference_metrics", V_TEXT, NULL, 0, NULL },
	{ "reference_rule", V_MAP | V_NULL, v_rule, 0, NULL }, VEND,
};
static const struct vrule v_top[] = {
	{ "schema", V_INT | V_NULL, NULL, 0, NULL }, { "goal", V_TEXT, NULL, 0, NULL },
	{ "strict", V_BOOL | V_NULL, NULL, 0, NULL }, { "code", V_MAP | V_NULL, v_code, 0, NULL },
	{ "data", V_LIST | V_NULL, NULL, V_MAP, v_item },
	{ "python", V_MAP | V_NULL, v_python, 0, NULL },
	{ "system", V_MAP | V_NULL, v_system, 0, NULL },
	{ "compute", V_MAP | V_NULL, v_compute, 0, NULL },
	{ "result", V_MAP | V_NULL, v_result, 0, NULL },
	{ "resume", V_MAP | V_NULL, v_resume, 0, NULL },
	{ "not_applicable", V_MAP | V_NULL, NULL, 0, NULL }, VEND,
};

static unsigned
vtype(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return V_MAP;
	case JSON_ARRAY: return V_LIST;
	case JSON_STRING: return V_STR;
	case JSON_INTEGER: return V_INT;
	case JSON_REAL: return V_REAL;
	case JSON_TRUE: case JSON_FALSE: return V_BOOL;
	default: return V_NULL;
	}
}

static const char *
vname(unsigned t)
{
	if (t & V_MAP) return "a mapping";
	if (t & V_LIST) return "a list";
	if (t & V_STR) return "text";
	if (t & V_NUM) return (t & V_REAL) ? "a number" : "a whole number";
	if (t & V_BOOL) return "true or false";
	return "empty";
}

struct vctx {
	const struct yamlio_doc *doc;
	const char *file;
	struct kd_err *err;
};

static int
vfail(const struct vctx *vc, const json_t *node, const char *path, unsigned want,
      unsigned got, const char *extra)
{
	return kd_err_set(vc->err, KD_EINPUT, vc->file, vc->doc ? yamlio_line_of(vc->doc, node) : 0,
			  "%s must be %s%s, not %s%s", path, vname(want),
			  (want & V_NULL) && !(want & V_MAP) ? " (or empty)" : "", vname(got),
			  extra ? extra : "");
}

static int validate_map(const struct vctx *vc, const json_t *obj, const char *base,
			const struct vrule *rules);

static int
validate_value(const struct vctx *vc, const json_t *v, const char *path, unsigned types,
	       const struct vrule *sub, unsigned item_types, const struct vrule *items)
{
	char ipath[340];
	const json_t *it;
	size_t i;
	unsigned t = vtype(v);

	if (!(t & types))
		return vfail(vc, v, path, types, t, (types & V_STR) && (t & V_NUM) ?
			     ": quote it so YAML keeps it as written" : NULL);
	if (t == V_MAP && sub != NULL)
		return validate_map(vc, v, path, sub);
	if (t != V_LIST || item_types == 0)
		return 0;
	json_array_foreach(v, i, it) {
		snprintf(ipath, sizeof ipath, "%.300s[%zu]", path, i);
		if (!(vtype(it) & item_types))
			return vfail(vc, it, ipath, item_types, vtype(it), NULL);
		if (vtype(it) == V_MAP && items != NULL && validate_map(vc, it, ipath, items) != 0)
			return KD_EINPUT;
	}
	return 0;
}

static int
validate_map(const struct vctx *vc, const json_t *obj, const char *base,
	     const struct vrule *rules)
{
	char path[300];

	for (const struct vrule *r = rules; r->key != NULL; r++) {
		const json_t *v = json_object_get(obj, r->key);

		if (v == NULL)
			continue;
		snprintf(path, sizeof path, "%.200s%s%.60s", base, *base ? "." : "", r->key);
		if (validate_value(vc, v, path, r->types, r->sub, r->item_types, r->items) != 0)
			return KD_EINPUT;
	}
	return 0;
}

int
reference_validate(const json_t *ref, const struct yamlio_doc *doc, const char *file,
		   struct kd_err *err)
{
	struct vctx vc = { doc != NULL && doc->root == ref ? doc : NULL, file, err };
	const json_t *schema = json_object_get(ref, "schema"), *v;
	const char *k;

	if (!json_is_object(ref))
		return kd_err_set(err, KD_EINPUT, file, 1, "the reference must be a mapping");
	if (validate_map(&vc, ref, "", v_top) != 0)
		return KD_EINPUT;
	if (json_is_integer(schema) && json_integer_value(schema) > KD_REFERENCE_SCHEMA)
		return kd_err_set(err, KD_EINPUT, file, vc.doc ? yamlio_line_of(vc.doc, schema) : 0,
				  "the reference has schema %lld, newer than this kernodeck "
				  "reads (schema %d): use a newer kernodeck",
				  (long long)json_integer_value(schema), KD_REFERENCE_SCHEMA);
	json_object_foreach((json_t *)json_object_get(ref, "not_applicable"), k, v)
		if (!json_is_string(v) && !json_is_null(v)) {
			char path[300];

			snprintf(path, sizeof path, "not_applicable.%.200s", k);
			return vfail(&vc, v, path, V_TEXT, vtype(v), ": write the reason");
		}
	return 0;
}

/* An argument with ${NAME} (what `dossier --redact` writes in place of a
 * credential on the command line) gets the variable's value when it is
 * set, and the value is hidden wherever it would be shown or written
 * (redact_value_add); malloc'd.  An unset variable stays as written. */
static char *
expand_refs(const char *s)
{
	size_t cap = strlen(s) + 1, o = 0;
	char *out;

	if (strstr(s, "${") == NULL)
		return strdup(s);
	if ((out = malloc(cap)) == NULL)
		return NULL;
	while (*s) {
		const char *e = s[0] == '$' && s[1] == '{' ? strchr(s + 2, '}') : NULL;
		const char *v = NULL;
		char name[128];
		size_t n = e ? (size_t)(e - s - 2) : 0, vl;
		if (e != NULL && n > 0 && n < sizeof name && strspn(s + 2, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789_") == n) {
			memcpy(name, s + 2, n);
			name[n] = '\0';
			if ((v = getenv(name)) != NULL)
				redact_value_add(name, v);
		}
		vl = v ? strlen(v) : 1;
		if (o + vl + 1 > cap) {
			char *nb = realloc(out, cap = (o + vl + 1) * 2);
			if (nb == NULL) {
				free(out);
				return NULL;
			}
			out = nb;
		}
		if (v != NULL) {
			memcpy(out + o, v, vl);
			o += vl;
			s = e + 1;
		} else {
			out[o++] = *s++;
		}
	}
	out[o] = '\0';
	return out;
}

/* See reference.h. */
/* Is s an interpreter's name: python, python3, python3.11, or a path whose
 * last part is one? */
static int
is_python(const char *s)
{
	const char *b = strrchr(s, '/');

	b = b != NULL ? b + 1 : s;
	if (strncmp(b, "python", 6) != 0)
		return 0;
	for (b += 6; *b != '\0'; b++)
		if (!(*b >= '0' && *b <= '9') && *b != '.')
			return 0;
	return 1;
}

const char *
reference_entry_script(const json_t *ep)
{
	size_t i, n = json_array_size(ep);
	const char *s;

	if (n == 0 || (s = json_string_value(json_array_get(ep, 0))) == NULL || !is_python(s))
		return NULL;
	for (i = 1; i < n; i++) {
		if ((s = json_string_value(json_array_get(ep, i))) == NULL)
			return NULL;
		if (strcmp(s, "-m") == 0 || strcmp(s, "-c") == 0 || strcmp(s, "-") == 0)
			return NULL;
		if (strcmp(s, "-W") == 0 || strcmp(s, "-X") == 0) {
			i++;   /* the option's value */
			continue;
		}
		if (s[0] == '-')
			continue;
		n = strlen(s);
		return strchr(s, '/') != NULL || (n > 3 && strcmp(s + n - 3, ".py") == 0) ? s : NULL;
	}
	return NULL;
}

char **
reference_entry_argv(const char *project_dir, const json_t *ep, int *uses_venv, const char **why)
{
	size_t i, n = 0;
	json_t *a;
	char **v;

	*uses_venv = 0;
	if (!json_is_array(ep) || json_array_size(ep) == 0) {
		*why = "code.entry_point is not declared as an argument vector ([python, main.py, ...])";
		return NULL;
	}
	if (json_array_size(ep) >= REFERENCE_MAX_ARGS) {
		*why = "code.entry_point has too many arguments";
		return NULL;
	}
	if ((v = calloc(json_array_size(ep) + 1, sizeof *v)) == NULL) {
		*why = "out of memory";
		return NULL;
	}
	json_array_foreach(ep, i, a) {
		const char *s = json_string_value(a);

		if (s == NULL) {
			*why = "every item of code.entry_point must be a string";
			argv_free(v);
			return NULL;
		}
		if (i == 0 && (strcmp(s, "python") == 0 || strcmp(s, "python3") == 0)) {
			v[n++] = venv_python(project_dir);
			*uses_venv = 1;
		} else {
			v[n++] = expand_refs(s);
		}
		if (v[n - 1] == NULL) {
			*why = "out of memory";
			argv_free(v);
			return NULL;
		}
	}
	return v;
}
