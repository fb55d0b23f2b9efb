/*
 * capture.c - the capture of this machine into the reference (`kernodeck
 * capture`, and stage 1's capture action).
 *
 * The chosen interpreter runs three times as steps (step.h: a query for
 * its version and PyTorch build, `pip freeze --all`, `pip inspect`), each
 * with its own log; the two inventories are saved under
 * STATE_DIR/reference/ and recorded in the reference with the interpreter
 * and the system row.  The system row comes from the system stage's
 * readers (sysinfo.h, under $KD_SYSROOT), never from a second reader.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernodeck/capture.h"
#include "kernodeck/caps.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/paths.h"
#include "kernodeck/reference.h"
#include "kernodeck/run.h"
#include "kernodeck/stage.h"
#include "kernodeck/step.h"
#include "kernodeck/sysinfo.h"
#include "kernodeck/yamlio.h"

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
	struct kd_step s = { .keep = 1, .env_set = env_set, .timeout_s = timeout_s };
	char name[64], desc[128];
	int n = 0, rc;

	argv[n++] = python;
	for (; *args != NULL && n < 15; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	snprintf(name, sizeof name, "capture-%s", what);
	s.what = name;
	s.argv = argv;
	rc = step_run(ctx, sink, &s, err);
	if (rc != 0)
		goto out;
	if (!s.r.exited || s.r.exit_code != 0) {
		const char *tail = s.r.tail != NULL ? s.r.tail : "";

		/* the end of the output says why */
		if (strlen(tail) > 300)
			tail += strlen(tail) - 300;
		rc = kd_err_set(err, KD_EENV, s.log, 0, "%s %s failed (%s): %s", python, what,
				run_describe(&s.r, desc, sizeof desc), tail);
		goto out;
	}
	if (s.overflow) {
		rc = kd_err_set(err, KD_EENV, s.log, 0,
				"%s %s wrote more than %u bytes (KD_CAP_PIP_OUTPUT)", python, what,
				(unsigned)KD_CAP_PIP_OUTPUT);
		goto out;
	}
	*out = s.buf != NULL ? s.buf : strdup("");
	s.buf = NULL;
out:
	step_free(&s);
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
	/* a system interpreter's PyTorch from its site packages: the rebuilt
	 * venv sees it only when made with --system-site-packages */
	"    if not d['venv']:\n"
	"        import site\n"
	"        top = os.path.dirname(os.path.dirname(os.path.realpath(torch.__file__)))\n"
	"        if top in [os.path.realpath(p) for p in site.getsitepackages()]:\n"
	"            d['system_site_packages'] = True\n"
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

static const char *const freeze_args[] = { "-I", "-m", "pip", "freeze", "--all", NULL };
static const char *const inspect_args[] = { "-I", "-m", "pip", "inspect", NULL };

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
	if ((rc = sysinfo_observe(&c->sysobs, sink, err)) != 0)
		return rc;
	c->row = sysinfo_reference_row(c->sysobs);
	if (c->row == NULL)
		c->row = json_object();
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
	rc = yamlio_save_file(c->p_capture, cap, YAMLIO_END_MARK, err);
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

/* See capture.h. */
int
capture_reference(struct kd_ctx *ctx, const char *python, const struct kd_sink *sink,
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
