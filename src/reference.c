/*
 * reference.c - helpers over the reference tree, and the capture of this
 * machine into it.
 *
 * The reference is the json_t tree of kernodeck/reference.yaml
 * (doc/reference-format.md).  What "filled" and "not applicable" mean is
 * decided here once, for the checks of stage 1 and for any later stage that
 * reads the reference.
 *
 * reference_capture() runs the chosen interpreter three times through
 * run.h (a query for its version and PyTorch build, `pip freeze --all`,
 * `pip inspect`), each with its own log, saves the two inventories under
 * STATE_DIR/reference/ and records them, the interpreter and the system
 * row in the reference.  The system row comes from the system stage's
 * reader (sysinfo.h); when it fails, from what this module can read
 * (os-release, uname, the NVIDIA driver's /proc file).
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kernodeck/caps.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/paths.h"
#include "kernodeck/redact.h"
#include "kernodeck/reference.h"
#include "kernodeck/repo.h"
#include "kernodeck/run.h"
#include "kernodeck/sysinfo.h"
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

int
reference_exclude_own(const struct kd_ctx *ctx, int *added, struct kd_err *err)
{
	const char *rel = yamlio_get_str(ctx->ref, "code.repository");
	char *repo = reference_abspath(ctx, rel != NULL && *rel != '\0' ? rel : ".");
	char *venv = fsutil_join(ctx->project_dir, ".venv-rebuild");
	const char *folders[2] = { ctx->state_dir, venv };
	int rc;

	*added = 0;
	if (repo == NULL || venv == NULL) {
		free(repo);
		free(venv);
		return kd_err_sys(err, KD_EENV, NULL, ENOMEM, "exclude");
	}
	rc = repo_ensure_excludes(fsutil_exists(repo) ? repo : ctx->project_dir,
				  folders, 2, added, err);
	free(repo);
	free(venv);
	return rc;
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
	{ "system_site_packages", V_BOOL | V_NULL, NULL, 0, NULL }, VEND,
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
	{ "extensions", V_LIST | V_NULL, NULL, V_MAP, v_ext }, VEND,
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

/* ------------------------------------------------------------ capture */

struct collect {
	char *buf;
	size_t len, cap, limit;
	int over;
	const struct kd_sink *sink;
	int echo;
};

static void
collect_line(void *u, const char *line, size_t len)
{
	struct collect *c = u;

	if (c->echo && c->sink != NULL && c->sink->on_line != NULL)
		c->sink->on_line(c->sink->u, line, len);
	if (c->len + len + 2 > c->limit) {
		c->over = 1;
		return;
	}
	if (c->len + len + 2 > c->cap) {
		size_t nc = (c->len + len + 2) * 2;
		char *nb = realloc(c->buf, nc);

		if (nb == NULL) {
			c->over = 1;
			return;
		}
		c->buf = nb;
		c->cap = nc;
	}
	memcpy(c->buf + c->len, line, len);
	c->len += len;
	c->buf[c->len++] = '\n';
	c->buf[c->len] = '\0';
}

static int
collect_cancelled(void *u)
{
	const struct collect *c = u;

	return kd_sink_cancelled(c->sink);
}

/* Run the interpreter with args; its output (stdout and stderr, redacted)
 * lands in *out.  Logged as logs/...-capture-WHAT.log. */
static int
run_python(struct kd_ctx *ctx, const char *python, const char *const *args, const char *what,
	   const struct kd_sink *sink, double timeout_s, char **out, struct kd_err *err)
{
	static const char *const env_set[] = {
		"PIP_DISABLE_PIP_VERSION_CHECK=1", "PIP_NO_INPUT=1", "PIP_NO_COLOR=1",
		"PYTHONIOENCODING=utf-8", NULL,
	};
	const char *argv[16];
	struct run_opts o;
	struct run_result r;
	struct collect c = { .limit = KD_CAP_PIP_OUTPUT, .sink = sink };
	char name[64], desc[128];
	char *log;
	int n = 0, rc;

	argv[n++] = python;
	for (; *args != NULL && n < 15; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	snprintf(name, sizeof name, "capture-%s", what);
	log = kd_ctx_log_path(ctx, name);
	memset(&o, 0, sizeof o);
	memset(&r, 0, sizeof r);
	o.argv = argv;
	o.cwd = ctx->project_dir;
	o.env_set = env_set;
	o.timeout_s = timeout_s;
	o.log_path = log;
	o.on_line = collect_line;
	o.cancelled = collect_cancelled;
	o.u = &c;
	rc = run_program(&o, &r, err);
	if (rc != 0)
		goto out;
	if (!r.exited || r.exit_code != 0) {
		const char *tail = r.tail != NULL ? r.tail : "";

		/* the end of the output says why */
		if (strlen(tail) > 300)
			tail += strlen(tail) - 300;
		rc = kd_err_set(err, KD_EENV, log, 0, "%s %s failed (%s): %s", python, what,
				run_describe(&r, desc, sizeof desc), tail);
		goto out;
	}
	if (c.over) {
		rc = kd_err_set(err, KD_EENV, log, 0,
				"%s %s wrote more than %u bytes (KD_CAP_PIP_OUTPUT)", python, what,
				(unsigned)KD_CAP_PIP_OUTPUT);
		goto out;
	}
	*out = c.buf != NULL ? c.buf : strdup("");
	c.buf = NULL;
out:
	run_result_free(&r);
	free(c.buf);
	free(log);
	return rc;
}

static const char query_py[] =
	"import json, os, platform, sys\n"
	"d = {'executable': sys.executable, 'version': platform.python_version(),\n"
	"     'implementation': platform.python_implementation(),\n"
	"     'prefix': sys.prefix, 'base_prefix': getattr(sys, 'base_prefix', sys.prefix),\n"
	"     'machine': platform.machine(), 'platform': platform.platform()}\n"
	"d['venv'] = d['prefix'] != d['base_prefix']\n"
	"d['system_site_packages'] = None\n"
	"cfg = os.path.join(sys.prefix, 'pyvenv.cfg')\n"
	"if d['venv'] and os.path.exists(cfg):\n"
	"    for line in open(cfg):\n"
	"        k, _, v = line.partition('=')\n"
	"        if k.strip() == 'include-system-site-packages':\n"
	"            d['system_site_packages'] = v.strip().lower() == 'true'\n"
	"try:\n"
	"    import importlib.metadata as m\n"
	"    d['pip'] = m.version('pip')\n"
	"except Exception:\n"
	"    d['pip'] = None\n"
	"try:\n"
	"    import torch\n"
	"    d['torch'] = {'version': torch.__version__, 'cuda': torch.version.cuda,\n"
	"                  'hip': getattr(torch.version, 'hip', None)}\n"
	"except Exception as e:\n"
	"    d['torch'] = None\n"
	"    d['torch_error'] = (type(e).__name__ + ': ' + str(e))[:200]\n"
	"print('KDJSON ' + json.dumps(d))\n";

/* The tree printed by query_py, found on its KDJSON line. */
static json_t *
parse_query(const char *out)
{
	const char *p = out;

	while ((p = strstr(p, "KDJSON ")) != NULL) {
		if (p == out || p[-1] == '\n') {
			const char *e = strchr(p, '\n');
			size_t n = e != NULL ? (size_t)(e - p - 7) : strlen(p + 7);

			return json_loadb(p + 7, n, 0, NULL);
		}
		p += 7;
	}
	return NULL;
}

/* pip's own chatter, merged into the output, is not part of a freeze. */
static int
pip_noise(const char *l, size_t n)
{
	static const char *const pre[] = {
		"WARNING:", "DEPRECATION:", "ERROR:", "[notice]", "Looking in", NULL,
	};

	if (n == 0)
		return 1;
	for (int i = 0; pre[i] != NULL; i++)
		if (n >= strlen(pre[i]) && strncmp(l, pre[i], strlen(pre[i])) == 0)
			return 1;
	return 0;
}

/* The freeze lines of out (noise removed), and how many there are. */
static char *
freeze_text(const char *out, size_t *count)
{
	size_t len = strlen(out), o = 0;
	char *t = malloc(len + 1);
	const char *p = out;

	*count = 0;
	if (t == NULL)
		return NULL;
	while (*p != '\0') {
		const char *e = strchr(p, '\n');
		size_t n = e != NULL ? (size_t)(e - p) : strlen(p);

		if (!pip_noise(p, n)) {
			memcpy(t + o, p, n);
			o += n;
			t[o++] = '\n';
			if (p[0] != '#' && p[0] != '-')
				(*count)++;
		}
		p += n + (e != NULL);
	}
	t[o] = '\0';
	return t;
}

/* The JSON object of pip inspect's output (after any warning lines). */
static json_t *
inspect_json(const char *out)
{
	const char *p = out;
	json_error_t je;

	while (*p != '\0' && *p != '{') {
		const char *e = strchr(p, '\n');

		if (e == NULL)
			return NULL;
		p = e + 1;
	}
	return *p == '{' ? json_loads(p, JSON_DISABLE_EOF_CHECK, &je) : NULL;
}

/* os-release's PRETTY_NAME, or NULL. */
static char *
os_pretty_name(void)
{
	char *buf = NULL, *p, *e, *o = NULL;
	size_t len;

	if (fsutil_read_file("/etc/os-release", 65536, &buf, &len, NULL) != 0 &&
	    fsutil_read_file("/usr/lib/os-release", 65536, &buf, &len, NULL) != 0)
		return NULL;
	for (p = buf; p != NULL && *p != '\0'; p = e != NULL ? e + 1 : NULL) {
		e = strchr(p, '\n');
		if (e != NULL)
			*e = '\0';
		if (strncmp(p, "PRETTY_NAME=", 12) == 0) {
			p += 12;
			if (*p == '"' || *p == '\'') {
				size_t n = strlen(p);

				if (n >= 2 && p[n - 1] == p[0])
					p[n - 1] = '\0';
				p++;
			}
			o = strdup(p);
			break;
		}
	}
	free(buf);
	return o;
}

/* The NVIDIA kernel driver's version from /proc, or NULL. */
static char *
nvidia_driver(int *count)
{
	char *buf = NULL, *p, *o = NULL;
	size_t len;
	DIR *d;
	struct dirent *de;

	*count = 0;
	if (fsutil_read_file("/proc/driver/nvidia/version", 65536, &buf, &len, NULL) != 0)
		return NULL;
	p = strstr(buf, "Kernel Module");
	if (p != NULL) {
		p += 13;
		while (*p == ' ' || *p == '\t')
			p++;
		o = strndup(p, strcspn(p, " \t\n"));
	}
	free(buf);
	if ((d = opendir("/proc/driver/nvidia/gpus")) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (de->d_name[0] != '.')
				(*count)++;
		closedir(d);
	}
	return o;
}

/* The system row this module can read by itself. */
static json_t *
system_row_fallback(const json_t *query)
{
	json_t *row = json_object(), *torch = json_object_get(query, "torch");
	struct utsname u;
	char *os = os_pretty_name(), *drv;
	int count = 0;
	const char *cuda = json_string_value(json_object_get(torch, "cuda"));
	const char *hip = json_string_value(json_object_get(torch, "hip"));

	if (os != NULL)
		json_object_set_new(row, "os", json_string(os));
	free(os);
	if (uname(&u) == 0)
		json_object_set_new(row, "arch", json_string(u.machine));
	if ((drv = nvidia_driver(&count)) != NULL) {
		json_object_set_new(row, "gpu_vendor", json_string("nvidia"));
		json_object_set_new(row, "driver", json_string(drv));
		json_object_set_new(row, "gpu_count", json_integer(count));
		free(drv);
	} else if (access("/dev/kfd", F_OK) == 0) {
		json_object_set_new(row, "gpu_vendor", json_string("amd"));
	} else {
		json_object_set_new(row, "gpu_vendor", json_string("none"));
		json_object_set_new(row, "gpu_count", json_integer(0));
	}
	if (cuda != NULL)
		json_object_set_new(row, "cuda", json_string(cuda));
	if (hip != NULL)
		json_object_set_new(row, "rocm", json_string(hip));
	return row;
}

/* The CUDA and ROCm the reference really used are those its PyTorch was
 * built with (torch.version.cuda, torch.version.hip), not the highest the
 * driver runs: when the interpreter has torch, they replace what the system
 * reader found.  A CPU build gives null, which merge_system does not record:
 * the field stays as it was, for a person to fill or mark not applicable. */
static void
torch_toolkits(json_t *row, const json_t *query)
{
	const json_t *torch = json_object_get(query, "torch");
	const char *cuda, *hip;

	if (row == NULL || !json_is_object(torch))
		return;
	cuda = json_string_value(json_object_get(torch, "cuda"));
	hip = json_string_value(json_object_get(torch, "hip"));
	json_object_set_new(row, "cuda", cuda != NULL ? json_string(cuda) : json_null());
	json_object_set_new(row, "rocm", hip != NULL ? json_string(hip) : json_null());
}

/* The expected backend from the interpreter's PyTorch build. */
static const char *
torch_backend(const json_t *query, const json_t *row)
{
	json_t *torch = json_object_get(query, "torch");
	const char *vendor = json_string_value(json_object_get(row, "gpu_vendor"));

	if (json_is_object(torch)) {
		if (json_is_string(json_object_get(torch, "hip")))
			return "rocm";
		if (json_is_string(json_object_get(torch, "cuda")))
			return "cuda";
		return "cpu";
	}
	if (vendor != NULL && strcmp(vendor, "none") == 0)
		return "cpu";
	return NULL;
}

/* The interpreter to capture: the one given, else the one the reference
 * records when it still runs, else /usr/bin/python3, else python3 on PATH. */
static char *
capture_python(const struct kd_ctx *ctx, const char *python, struct kd_err *err)
{
	const char *rec = yamlio_get_str(ctx->ref, "python.interpreter");
	char *p;

	if (python != NULL) {
		p = kd_abspath(python);
		if (p != NULL && strchr(python, '/') == NULL && access(p, X_OK) != 0) {
			free(p);
			p = run_which(python);
		}
		if (p == NULL || access(p, X_OK) != 0) {
			kd_err_set(err, KD_EINPUT, python, 0,
				   "--python %s: no such executable interpreter", python);
			free(p);
			return NULL;
		}
		return p;
	}
	if (rec != NULL && rec[0] == '/' && access(rec, X_OK) == 0)
		return strdup(rec);
	if (access("/usr/bin/python3", X_OK) == 0)
		return strdup("/usr/bin/python3");
	if ((p = run_which("python3")) != NULL)
		return p;
	kd_err_set(err, KD_EENV, NULL, 0,
		   "no Python interpreter found: give one with --python PATH");
	return NULL;
}

static int
save_text(const char *path, const char *text, struct kd_err *err)
{
	return fsutil_write_atomic(path, text, strlen(text), 0, err);
}

/* Put the system row read on this machine into ref.system, key by key. */
static void
merge_system(json_t *ref, const json_t *row, const char *backend)
{
	json_t *sys = json_object_get(ref, "system"), *v;
	const char *k;

	if (!json_is_object(sys)) {
		sys = json_object();
		json_object_set_new(ref, "system", sys);
	}
	json_object_foreach((json_t *)row, k, v)
		if (!json_is_null(v))
			json_object_set(sys, k, v);
	if (backend != NULL)
		json_object_set_new(sys, "backend", json_string(backend));
}

static const char *const freeze_args[] = { "-m", "pip", "freeze", "--all", NULL };
static const char *const inspect_args[] = { "-m", "pip", "inspect", NULL };

/* What a capture read, wrote and records; released by capture_free. */
struct capture {
	char *py;                 /* the interpreter, as given */
	json_t *query;            /* its answer to query_py */
	char *freeze;             /* pip freeze --all, noise removed */
	size_t npkg;
	json_t *inspect;          /* pip inspect, or NULL */
	json_t *sysobs, *row;     /* the system reading and its reference row */
	char *dir, *p_freeze, *p_inspect, *p_capture;
};

static void
capture_free(struct capture *c)
{
	json_decref(c->row);
	json_decref(c->sysobs);
	json_decref(c->inspect);
	json_decref(c->query);
	free(c->freeze);
	free(c->p_capture);
	free(c->p_inspect);
	free(c->p_freeze);
	free(c->dir);
	free(c->py);
}

/* Ask the interpreter, run pip freeze and pip inspect, read the system. */
static int
capture_read(struct kd_ctx *ctx, struct capture *c, const struct kd_sink *sink,
	     struct kd_err *err)
{
	const char *qargs[] = { "-c", query_py, NULL };
	char *out = NULL;
	int rc;

	kd_sink_step(sink, "asking the interpreter its version", -1);
	if ((rc = run_python(ctx, c->py, qargs, "python", sink, 300, &out, err)) != 0)
		return rc;
	c->query = parse_query(out);
	if (c->query == NULL)
		rc = kd_err_set(err, KD_EENV, c->py, 0,
				"%s did not answer the version query: %.200s", c->py, out);
	free(out);
	out = NULL;
	if (rc != 0)
		return rc;
	kd_sink_step(sink, "pip freeze --all", -1);
	if ((rc = run_python(ctx, c->py, freeze_args, "freeze", sink, 300, &out, err)) != 0)
		return rc;
	c->freeze = freeze_text(out, &c->npkg);
	free(out);
	out = NULL;
	if (c->freeze == NULL)
		return kd_err_sys(err, KD_EENV, NULL, ENOMEM, "pip freeze");
	kd_sink_step(sink, "pip inspect", -1);
	if (run_python(ctx, c->py, inspect_args, "inspect", sink, 300, &out, NULL) == 0)
		c->inspect = inspect_json(out);
	free(out);
	if (c->inspect == NULL)
		kd_sink_line(sink, "pip inspect gave no inventory (pip older than 22.2?): "
			     "only the freeze is recorded");
	kd_sink_step(sink, "reading the system", -1);
	if (sysinfo_observe(&c->sysobs, sink, NULL) == 0)
		c->row = sysinfo_reference_row(c->sysobs);
	if (c->row == NULL)
		c->row = system_row_fallback(c->query);
	torch_toolkits(c->row, c->query);
	return 0;
}

/* Save the inventories and what was read under STATE_DIR/reference/. */
static int
capture_write(struct kd_ctx *ctx, struct capture *c, struct kd_err *err)
{
	char when[32], *js;
	json_t *cap;
	int rc;

	c->dir = kd_ctx_path(ctx, "reference");
	c->p_freeze = fsutil_join(c->dir, "pip-freeze.txt");
	c->p_inspect = fsutil_join(c->dir, "pip-inspect.json");
	c->p_capture = fsutil_join(c->dir, "capture.yaml");
	if (c->p_freeze == NULL || c->p_inspect == NULL || c->p_capture == NULL)
		return kd_err_sys(err, KD_EENV, NULL, ENOMEM, "capture");
	if ((rc = fsutil_mkdirs(c->dir, err)) != 0 ||
	    (rc = save_text(c->p_freeze, c->freeze, err)) != 0)
		return rc;
	if (c->inspect != NULL) {
		js = json_dumps(c->inspect, JSON_INDENT(1) | JSON_SORT_KEYS);
		rc = js != NULL ? save_text(c->p_inspect, js, err) :
			kd_err_sys(err, KD_EENV, c->p_inspect, ENOMEM, "pip inspect");
		free(js);
		if (rc != 0)
			return rc;
	}
	fsutil_utc_now(when, sizeof when);
	cap = json_pack("{s:s, s:s, s:O, s:O, s:I}", "captured_at", when, "interpreter", c->py,
			"query", c->query, "system", c->row, "packages", (json_int_t)c->npkg);
	if (c->sysobs != NULL)
		json_object_set(cap, "system_observed", c->sysobs);
	rc = yamlio_save_file(c->p_capture, cap, 0, err);
	json_decref(cap);
	return rc;
}

/* Record the interpreter, the inventories and the system row in ctx->ref. */
static void
capture_record(struct kd_ctx *ctx, const struct capture *c)
{
	json_t *pyref = json_object_get(ctx->ref, "python");
	json_t *ssp = json_object_get(c->query, "system_site_packages");
	char *rel;

	if (!json_is_object(pyref)) {
		pyref = json_object();
		json_object_set_new(ctx->ref, "python", pyref);
	}
	json_object_set(pyref, "version", json_object_get(c->query, "version"));
	json_object_set_new(pyref, "interpreter", json_string(c->py));
	rel = reference_relpath(ctx, c->p_freeze);
	json_object_set_new(pyref, "inventory", json_string(rel));
	free(rel);
	if (c->inspect != NULL) {
		rel = reference_relpath(ctx, c->p_inspect);
		json_object_set_new(pyref, "inspect", json_string(rel));
		free(rel);
	}
	if (json_is_boolean(ssp))
		yamlio_set(ctx->ref, "python.install.system_site_packages", json_incref(ssp));
	merge_system(ctx->ref, c->row, torch_backend(c->query, c->row));
	if (json_object_get(ctx->ref, "schema") == NULL)
		json_object_set_new(ctx->ref, "schema", json_integer(1));
}

int
reference_capture(struct kd_ctx *ctx, const char *python, const struct kd_sink *sink,
		  json_t **summary, struct kd_err *err)
{
	struct capture c;
	int rc, added = 0;

	memset(&c, 0, sizeof c);
	if (summary != NULL)
		*summary = NULL;
	if (ctx->readonly)
		return kd_err_set(err, KD_EENV, ctx->ref_path, 0,
				  "read-only: another kernodeck holds %s", ctx->state_dir);
	if ((c.py = capture_python(ctx, python, err)) == NULL)
		return err != NULL ? err->code : KD_EINPUT;
	if ((rc = capture_read(ctx, &c, sink, err)) != 0 ||
	    (rc = capture_write(ctx, &c, err)) != 0)
		goto out;
	capture_record(ctx, &c);
	if ((rc = kd_ctx_save_ref(ctx, err)) != 0)
		goto out;
	if (reference_exclude_own(ctx, &added, NULL) != 0)
		kd_sink_line(sink, "could not add kernodeck's folders to .git/info/exclude");
	if (summary != NULL)
		*summary = json_pack("{s:s, s:O, s:I, s:s, s:s?, s:O}", "interpreter", c.py,
				     "version", json_object_get(c.query, "version"),
				     "packages", (json_int_t)c.npkg, "freeze", c.p_freeze,
				     "inspect", c.inspect != NULL ? c.p_inspect : NULL,
				     "system", json_object_get(ctx->ref, "system"));
out:
	capture_free(&c);
	return rc;
}
