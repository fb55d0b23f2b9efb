/*
 * stage-rebuild.c - stage 3: a fresh virtual environment built from
 * requirements-rebuild.txt with an explicit interpreter, never by
 * activation (doc/design.md, "Seven stages, one rule", row 3).
 *
 * gather() lints the rebuild file (following -r and -c), looks at an
 * existing .venv-rebuild, then runs, each through run.h with its own log,
 * streamed to the sink and cancellable:
 *
 *   PY -m venv [--system-site-packages] [--without-pip] .venv-rebuild
 *   .venv-rebuild/bin/python -m pip --version
 *   .venv-rebuild/bin/python -m pip install --timeout 15 --retries 1 \
 *       --report kernodeck/pip-report.part.json -r requirements-rebuild.txt
 *   .venv-rebuild/bin/python -m pip freeze --all   -> kernodeck/installed-after.txt
 *   .venv-rebuild/bin/python -m pip inspect        -> kernodeck/pip-inspect.json
 *
 * pip's installation report is kept (redacted) as kernodeck/pip-report.json
 * and gives each installed distribution its origin and digest (origin.h);
 * what the venv holds that pip did not install gets its provider (the
 * venv asked for its packages' places, dpkg-query for the system's).
 *
 * With python.install.base (rebuild-base.h), the base's interpreter is
 * asked for its package folders first, is the PY above, and those folders
 * are written into the new venv's zz-kernodeck-base.pth before pip runs.
 *
 * An existing venv is never deleted.  One that kernodeck built here with
 * the same interpreter, options and rebuild file (state settings
 * rebuild.built) is reused; one kernodeck built that is out of date is
 * renamed aside; any other (made with another interpreter, moved, copied,
 * not made by kernodeck) waits for the person's choice, recorded in
 * settings rebuild.existing_venv: move it aside (m) or keep it (u).
 * check() judges the observations only, so it can be run again on them.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernodeck/argv.h"
#include "kernodeck/caps.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/hash.h"
#include "kernodeck/inventory.h"
#include "kernodeck/obs-rebuild.h"
#include "kernodeck/origin.h"
#include "kernodeck/baseenv.h"
#include "kernodeck/pep440.h"
#include "kernodeck/pip-report.h"
#include "kernodeck/pipline.h"
#include "kernodeck/rebuild.h"
#include "kernodeck/rebuild-base.h"
#include "kernodeck/repo.h"
#include "kernodeck/parse-requirements.h"
#include "kernodeck/run.h"
#include "kernodeck/runner.h"
#include "kernodeck/stage.h"
#include "kernodeck/state.h"
#include "kernodeck/step.h"
#include "kernodeck/sysinfo.h"
#include "kernodeck/venv.h"
#include "kernodeck/yamlio.h"

#define RB_TIMEOUT_VENV   600.0
#define RB_TIMEOUT_QUERY  300.0

/* ---- the first error of a failed install ---- */

/* The requirement an "ERROR:" line of pip names, or "" (into out). */
static void
error_requirement(const char *line, char *out, size_t len)
{
	static const struct { const char *after, *stop; } pats[] = {
		{ "satisfies the requirement ", " (" },
		{ "No matching distribution found for ", NULL },
		{ "Could not build wheels for ", "," },
		{ "Failed building wheel for ", NULL },
		{ "Cannot install ", " because" },
		{ "Invalid requirement: ", NULL },
		{ "Could not open requirements file: ", NULL },
		{ "Directory ", " is not installable" },
		{ "does not match the hashes", NULL },
	};
	out[0] = '\0';
	if (line == NULL)
		return;
	for (size_t i = 0; i < sizeof pats / sizeof *pats; i++) {
		const char *p = strstr(line, pats[i].after);
		if (p == NULL)
			continue;
		p += strlen(pats[i].after);
		size_t n = pats[i].stop && strstr(p, pats[i].stop) ? (size_t)(strstr(p,
			   pats[i].stop) - p) : strlen(p);
		while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '.'))
			n--;
		if (n >= 2 && (p[0] == '\'' || p[0] == '"') && p[n - 1] == p[0]) {
			p++;
			n -= 2;
		}
		snprintf(out, len, "%.*s", (int)n, p);
		return;
	}
}

/* pip's refusal of an artefact whose digest is not the locked one:
 *   ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. ...
 *       alpha==1.0 from file:///.../alpha-1.0-py3-none-any.whl:
 *           Expected sha256 258b...
 *                Got        9f3c...
 * The requirement into req, and in.first_error one line naming it with
 * both digests.  1 when the output holds such a refusal. */
static int
hash_mismatch(const char *out, size_t len, char *req, size_t rlen, json_t *in)
{
	struct pipline_iter it;
	const char *l;
	size_t n;
	int seen = 0;
	char want[80] = "", got[80] = "", pkg[512] = "";

	pipline_init(&it, out ? out : "", out ? len : 0);
	while (pipline_next(&it, &l, &n)) {
		const char *t = l;
		size_t tn = n;
		pipline_trim(&t, &tn);
		if (!seen) {
			seen = tn > 30 && memmem(t, tn, "DO NOT MATCH THE HASHES", 23) != NULL;
			continue;
		}
		if (pkg[0] == '\0' && memmem(t, tn, " from ", 6) != NULL && t[tn - 1] == ':')
			snprintf(pkg, sizeof pkg, "%.*s", (int)((const char *)memmem(t, tn, " from ",
				 6) - t), t);
		else if (pkg[0] && want[0] == '\0' && tn > 16 && strncmp(t, "Expected sha256 ", 16) == 0)
			snprintf(want, sizeof want, "%.*s", (int)(tn - 16), t + 16);
		else if (pkg[0] && want[0] && tn > 4 && strncmp(t, "Got ", 4) == 0) {
			const char *g = t + 4;
			size_t gn = tn - 4;
			pipline_trim(&g, &gn);
			snprintf(got, sizeof got, "%.*s", (int)gn, g);
			break;
		}
	}
	if (pkg[0] == '\0')
		return 0;
	snprintf(req, rlen, "%s", pkg);
	json_object_set_new(in, "first_error", json_pack("s++++", pkg, ": SHA-256 ",
		got[0] ? got : "(another)", ", the lock has ", want[0] ? want : "(another)"));
	return 1;
}

/* ---- choices ---- */

/* The interpreter for the rebuild and why (sysinfo_choose_python's order). */
static char *
rb_choose_python(struct kd_ctx *ctx, char **reason)
{
	char *path = NULL;
	struct kd_err e = { 0 };

	*reason = NULL;
	if (ctx->python_override != NULL &&
	    sysinfo_choose_python(ctx->ref, ctx->python_override, &path, reason, &e) == 0)
		return path;
	if (ctx->python != NULL) {
		const char *why = json_string_value(yamlio_get(ctx->state.settings,
								"system.python_reason"));
		*reason = strdup(why ? why : "chosen by the system stage");
		return strdup(ctx->python);
	}
	if (sysinfo_choose_python(ctx->ref, NULL, &path, reason, &e) == 0)
		return path;
	free(*reason);
	*reason = strdup("no interpreter chosen by the system stage nor in the reference: "
			 "/usr/bin/python3");
	return strdup("/usr/bin/python3");
}

static const char *
settings_str(const struct kd_ctx *ctx, const char *path)
{
	return json_string_value(yamlio_get(ctx->state.settings, path));
}

/* Digest of the rebuild file and every file it includes. */
static void
requirements_digest(const json_t *lint, char hex[65])
{
	const json_t *f;
	size_t i, len = 0;
	char buf[8192];

	buf[0] = '\0';
	json_array_foreach(json_object_get(lint, "files"), i, f) {
		const char *h = json_string_value(json_object_get(f, "sha256"));
		int w = snprintf(buf + len, sizeof buf - len, "%s %s\n", h ? h : "-",
				 json_string_value(json_object_get(f, "kind")));
		if (w < 0 || (size_t)w >= sizeof buf - len)
			break;
		len += (size_t)w;
	}
	hash_buffer(buf, len, hex);
}

/* Is the venv the one kernodeck built here, up to date? */
static int
up_to_date(const struct kd_ctx *ctx, const struct venv_info *vi, const char *python_real,
	   const char *req_sha, int sys_site, const struct rebuild_base *base)
{
	const json_t *b = yamlio_get(ctx->state.settings, "rebuild.built");
	const char *s;

	if (!json_is_object(b) || !json_is_true(json_object_get(b, "ok")))
		return 0;
	return (s = json_string_value(json_object_get(b, "venv"))) && strcmp(s, vi->path) == 0 &&
	       !vi->moved &&
	       (s = json_string_value(json_object_get(b, "python_real"))) && python_real &&
	       strcmp(s, python_real) == 0 &&
	       vi->python_real && strcmp(vi->python_real, python_real) == 0 &&
	       (s = json_string_value(json_object_get(b, "requirements_sha256"))) &&
	       strcmp(s, req_sha) == 0 &&
	       (s = json_string_value(json_object_get(b, "pyvenv_sha256"))) &&
	       strcmp(s, vi->cfg_sha256) == 0 &&
	       json_is_true(json_object_get(b, "system_site_packages")) == sys_site &&
	       rebuild_base_matches(ctx, base);
}

/* Was this venv built by kernodeck at this place (so kernodeck may move it
 * aside on its own when it is out of date)? */
static int
built_here(const struct kd_ctx *ctx, const struct venv_info *vi)
{
	const json_t *b = yamlio_get(ctx->state.settings, "rebuild.built");
	const char *v = json_string_value(json_object_get(b, "venv"));
	const char *c = json_string_value(json_object_get(b, "pyvenv_sha256"));

	return v && c && strcmp(v, vi->path) == 0 && strcmp(c, vi->cfg_sha256) == 0 &&
	       !vi->moved;
}

/* A venv moved aside stays out of git's untracked files (the reference
 * stage wants a clean tree), through .git/info/exclude, never a tracked
 * file. */
static void
exclude_from_git(struct kd_ctx *ctx, const char *folder)
{
	const char *const pat[] = { folder };
	int added = 0;

	repo_ensure_excludes(ctx->project_dir, pat, 1, &added, NULL);
}

/* Did the person choose to keep exactly this venv? */
static int
kept(const struct kd_ctx *ctx, const struct venv_info *vi)
{
	const char *c = settings_str(ctx, "rebuild.existing_venv.choice");
	const char *f = settings_str(ctx, "rebuild.existing_venv.pyvenv_sha256");
	const char *p = settings_str(ctx, "rebuild.existing_venv.venv");

	return c && strcmp(c, "keep") == 0 && f && strcmp(f, vi->cfg_sha256) == 0 && p &&
	       strcmp(p, vi->path) == 0;
}

/* Why an existing venv cannot be used as it is (static text), or NULL. */
static const char *
why_not_ours(const struct venv_info *vi, const char *python)
{
	if (!vi->is_venv)
		return "it is not a virtual environment (no pyvenv.cfg)";
	if (vi->copied)
		return "it was copied from another folder (its scripts name that folder)";
	if (vi->moved)
		return "it was moved from another folder (its scripts name that folder)";
	if (vi->python_real == NULL)
		return "its bin/python points to an interpreter that is gone";
	if (!venv_uses_python(vi, python))
		return "it was made with another interpreter";
	return "kernodeck did not build it (or its state was lost)";
}

static void
record_built(struct kd_ctx *ctx, const char *venv, const char *python,
	     const char *python_real, const char *req_sha, int sys_site, int ok)
{
	struct venv_info vi;
	char now[32];

	fsutil_utc_now(now, sizeof now);
	if (venv_inspect(venv, &vi, NULL) != 0)
		return;
	yamlio_set(ctx->state.settings, "rebuild.built", json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:s}", "venv", vi.path, "python", python,
		"python_real", python_real ? python_real : "", "requirements_sha256", req_sha,
		"pyvenv_sha256", vi.cfg_sha256, "system_site_packages", sys_site, "ok", ok,
		"at", now));
	venv_info_free(&vi);
}

/* ---- gather ---- */

struct rb {
	struct kd_ctx *ctx;
	const struct kd_sink *sink;
	json_t *obs, *steps;
	char *venv, *vpy, *req, *python, *python_real;
	char req_sha[65];
	int sys_site, without_pip;
	struct rebuild_base base;    /* python.install.base, when the reference names one */
};

static void
rb_free(struct rb *b)
{
	free(b->venv);
	free(b->vpy);
	free(b->req);
	free(b->python);
	free(b->python_real);
	rebuild_base_free(&b->base);
}

/* With a base environment, its interpreter makes the venv. */
static void
rb_use_base_python(struct rb *b)
{
	char real[PATH_MAX];
	json_t *py = json_object_get(b->obs, "python");

	free(b->python);
	free(b->python_real);
	b->python = strdup(b->base.env.python);
	b->python_real = realpath(b->python, real) ? strdup(real) : NULL;
	json_object_set_new(py, "path", json_string(b->python));
	json_object_set_new(py, "reason", json_string("the base environment's interpreter "
						      "(python.install.base)"));
	json_object_set_new(py, "real", b->python_real ? json_string(b->python_real) : json_null());
}

/* Lint the rebuild file.  0 to go on, 1 to stop (obs says why). */
static int
rb_lint(struct rb *b)
{
	json_t *req = json_object(), *lint = NULL;
	struct kd_err e = { 0 };
	int flags = b->ctx->strict ? REQ_STRICT : 0;

	json_object_set_new(b->obs, "requirements", req);
	json_object_set_new(req, "file", json_string(REBUILD_REQUIREMENTS));
	json_object_set_new(req, "strict", json_boolean(b->ctx->strict));
	if (!fsutil_exists(b->req)) {
		json_object_set_new(req, "present", json_false());
		return 1;
	}
	json_object_set_new(req, "present", json_true());
	if (requirements_load(b->req, flags, &lint, &e) != 0) {
		char msg[1200];
		json_object_set_new(req, "error", json_string(kd_err_format(&e, msg, sizeof msg)));
		return 1;
	}
	requirements_digest(lint, b->req_sha);
	json_object_set_new(req, "sha256", json_string(b->req_sha));
	json_object_set_new(req, "lint", lint);
	/* a credential in the file: pip would carry it into its caches and logs */
	const json_t *f;
	size_t i;
	int idx = stage_pos(&kd_stage_rebuild);
	json_array_foreach(obs_rebuild_requirements_lint_findings(b->obs), i, f)
		if (strcmp(obs_rebuild_finding_code(f), "credential") == 0 &&
		    stage_find_deviation(&b->ctx->state, idx, "rebuild.lint.credential") == NULL) {
			json_object_set_new(b->obs, "blocked", json_string(
				"the rebuild file holds a credential: nothing was run"));
			return 1;
		}
	return 0;
}

/* Decide what to do with an existing venv.  Returns the action: "create",
 * "reuse", "keep", or NULL to stop (obs says why). */
static const char *
rb_existing(struct rb *b)
{
	struct venv_info vi;
	json_t *v = json_object();
	const char *action = "create";
	char now[32];

	json_object_set_new(b->obs, "venv", v);
	json_object_set_new(v, "path", json_string(REBUILD_VENV));
	if (venv_inspect(b->venv, &vi, NULL) != 0 || !vi.exists) {
		json_object_set_new(v, "existed", json_false());
		json_object_set_new(v, "action", json_string("create"));
		venv_info_free(&vi);
		return action;
	}
	json_object_set_new(v, "existed", json_true());
	json_object_set_new(v, "before", venv_info_json(&vi));
	if (up_to_date(b->ctx, &vi, b->python_real, b->req_sha, b->sys_site, &b->base)) {
		action = "reuse";
	} else if (kept(b->ctx, &vi)) {
		action = "keep";
		if (!venv_uses_python(&vi, b->python))
			json_object_set_new(v, "other_interpreter", json_true());
	} else if (built_here(b->ctx, &vi)) {
		/* kernodeck's own, out of date: renamed aside, never deleted */
		char *to = NULL;
		struct kd_err e = { 0 };
		if (venv_move_aside(b->venv, &to, &e) != 0) {
			json_object_set_new(v, "error", json_string(e.msg));
			action = NULL;
		} else {
			const char *base = strrchr(to, '/') ? strrchr(to, '/') + 1 : to;
			exclude_from_git(b->ctx, to);
			fsutil_utc_now(now, sizeof now);
			json_object_set_new(v, "moved_to", json_string(base));
			json_object_set_new(v, "why", json_string(
				"out of date (the rebuild file, the interpreter or the options "
				"changed since kernodeck built it)"));
			yamlio_set(b->ctx->state.settings, "rebuild.existing_venv", json_pack(
				"{s:s, s:s, s:s, s:s}", "choice", "moved-aside", "to", base,
				"by", "kernodeck (out of date)", "at", now));
		}
		free(to);
	} else {
		json_object_set_new(v, "needs_choice", json_string(why_not_ours(&vi, b->python)));
		action = NULL;
	}
	json_object_set_new(v, "action", json_string(action ? action : "ask"));
	venv_info_free(&vi);
	return action;
}

/* Run pip freeze --all and pip inspect (side by side: both only read the
 * venv); save both files.  When the next stages run too, pip inspect is
 * the contract stage's to take (step_prefetch): it goes on beside pip
 * freeze and then pip check, and that stage saves its file. */
static void
rb_capture(struct rb *b)
{
	char **fz = venv_pip_argv(b->vpy, VENV_PIP_FREEZE), **in = venv_pip_argv(b->vpy, VENV_PIP_INSPECT);
	struct kd_step rr = { .keep = 1 }, ri = { .keep = 1 };
	json_t *inv = json_object();
	struct kd_err e = { 0 }, ei = { 0 };
	int rc_f, rc_i = -1;

	json_object_set_new(b->obs, "inventory", inv);
	if (fz == NULL || in == NULL) {
		json_object_set_new(inv, "error", json_string("out of memory"));
		goto out;
	}
	if (step_prefetch(b->ctx, runner_prefetch(b->ctx), "pip-inspect", in,
			  RB_TIMEOUT_QUERY) == 0) {
		in = NULL;   /* the prefetch's now */
		rc_f = step_pip(b->ctx, b->sink, "pip-freeze", "pip freeze --all",
				(const char *const *)fz, RB_TIMEOUT_QUERY, &rr, b->steps, &e);
		if (kd_sink_cancelled(b->sink))
			step_prefetch_drop(runner_prefetch(b->ctx));
	} else {
		step_pip_pair(b->ctx, b->sink, b->steps, "pip-freeze", "pip freeze --all",
			      (const char *const *)fz, &rr, &rc_f, &e, "pip-inspect", "pip inspect",
			      (const char *const *)in, &ri, &rc_i, &ei, RB_TIMEOUT_QUERY);
	}
	if (rc_f == 0 && step_ok(&rr) && !rr.overflow) {
		/* pip's own warnings are not part of the inventory */
		char *out = malloc(rr.len + 1), *path = kd_ctx_path(b->ctx, REBUILD_INSTALLED);
		size_t olen = 0, count = 0, n;
		struct pipline_iter it;
		const char *l;
		pipline_init(&it, rr.buf ? rr.buf : "", rr.len);
		while (out != NULL && pipline_next(&it, &l, &n)) {
			if ((n >= 8 && strncmp(l, "WARNING:", 8) == 0) ||
			    (n >= 12 && strncmp(l, "DEPRECATION:", 12) == 0) || n == 0)
				continue;
			memcpy(out + olen, l, n);
			olen += n;
			out[olen++] = '\n';
			count++;
		}
		if (out != NULL && fsutil_write_atomic(path, out, olen, 0, &e) == 0) {
			json_object_set_new(inv, "file", json_string(REBUILD_INSTALLED));
			json_object_set_new(inv, "count", json_integer((json_int_t)count));
		} else {
			json_object_set_new(inv, "error", json_string(e.msg));
		}
		free(out);
		free(path);
	} else {
		json_object_set_new(inv, "error", json_string(rr.overflow ?
			"pip freeze printed more than kernodeck keeps" : "pip freeze --all failed"));
	}
	if (rc_i == 0 && step_save_from(b->ctx, &ri, '{', REBUILD_INSPECT, &ei) == 0)
		json_object_set_new(inv, "inspect_file", json_string(REBUILD_INSPECT));
out:
	step_free(&rr);
	step_free(&ri);
	argv_free(fz);
	argv_free(in);
}

/* Does this pip version ("23.0.1") have install --report (22.2 and
 * later)?  An unknown version is taken to have it. */
static int
pip_has_report(const char *v)
{
	int major = 0, minor = 0;

	if (v == NULL || sscanf(v, "%d.%d", &major, &minor) < 1)
		return 1;
	return major > 22 || (major == 22 && minor >= 2);
}

/* Keep pip's installation report: read what pip wrote, refuse what is
 * not a report, save it redacted and atomically as REBUILD_REPORT.  With
 * part2 (the install after a lock: VCS, folders), its install list is
 * added to the first's. */
static void
rb_keep_report(struct rb *b, const char *part, const char *part2)
{
	char *buf = NULL, *path = kd_ctx_path(b->ctx, REBUILD_REPORT);
	size_t len = 0;
	json_t *tree = NULL;
	struct kd_err e = { 0 };

	if (path != NULL)
		unlink(path);   /* never an older install's report for this one */
	if (part == NULL || path == NULL ||
	    fsutil_read_file(part, KD_CAP_PIP_OUTPUT, &buf, &len, &e) != 0 ||
	    pipreport_parse(buf, len, REBUILD_REPORT_PART, &tree, &e) != 0)
		goto fail;
	if (part2 != NULL) {
		char *b2 = NULL, *merged;
		size_t l2 = 0;
		json_t *t1 = json_loadb(buf, len, 0, NULL), *t2 = NULL, *t2p = NULL;
		int ok = t1 != NULL &&
			 fsutil_read_file(part2, KD_CAP_PIP_OUTPUT, &b2, &l2, &e) == 0 &&
			 pipreport_parse(b2, l2, REBUILD_REPORT_DIRECT, &t2p, &e) == 0 &&
			 (t2 = json_loadb(b2, l2, 0, NULL)) != NULL &&
			 json_array_extend(json_object_get(t1, "install"),
					   json_object_get(t2, "install")) == 0;
		merged = ok ? json_dumps(t1, JSON_INDENT(2)) : NULL;
		json_decref(t1);
		json_decref(t2);
		json_decref(t2p);
		free(b2);
		if (merged == NULL)
			goto fail;
		free(buf);
		buf = merged;
		len = strlen(merged);
	}
	if (fsutil_write_atomic(path, buf, len, 0, &e) == 0)
		goto out;
fail:
	{
		char msg[1200];
		json_object_set_new(b->obs, "origins", json_pack("{s:s}", "error",
				    kd_err_format(&e, msg, sizeof msg)));
	}
out:
	json_decref(tree);
	free(buf);
	free(path);
}

/* After the install of ctx->install_direct: each VCS line's package
 * (VCS+URL@COMMIT#egg=NAME) must be installed at that commit, as its
 * direct_url.json says.  0, or 1 with in's first_error naming it. */
static int
rb_check_direct(struct rb *b, json_t *in)
{
	char *path = fsutil_join(b->ctx->project_dir, b->ctx->install_direct), *text = NULL;
	size_t len = 0, checked = 0;
	int bad = 0;

	if (path == NULL || fsutil_read_file(path, KD_CAP_TEXT_FILE, &text, &len, NULL) != 0) {
		free(path);
		return 0;
	}
	for (char *l = text, *nl; l != NULL && *l && !bad; l = nl ? nl + 1 : NULL) {
		char name[256], want[64], got[64], cn[256];
		const char *at, *sp;
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		/* VCS+URL@COMMIT#egg=NAME[&subdirectory=S] */
		if (*l == '#' || (sp = strstr(l, "#egg=")) == NULL)
			continue;
		*(char *)sp = '\0';
		at = strrchr(l, '@');
		snprintf(name, sizeof name, "%.*s", (int)strcspn(sp + 5, "&"), sp + 5);
		if (at == NULL || name[0] == '\0')
			continue;
		snprintf(want, sizeof want, "%s", at + 1);
		pep503_canonical(name, cn, sizeof cn);
		venv_direct_commit(b->venv, cn, got, sizeof got);
		checked++;
		if (strcmp(got, want) != 0) {
			bad = 1;
			json_object_set_new(in, "status", json_string("failed"));
			json_object_set_new(in, "requirement", json_string(name));
			json_object_set_new(in, "first_error", json_pack("s+++++", name, ": installed at "
				"commit ", got[0] ? got : "(no direct_url.json)", ", the lock has ", want,
				" (its direct_url.json)"));
		}
	}
	json_object_set_new(in, "direct", json_pack("{s:s, s:I}", "file", b->ctx->install_direct,
			    "commits_checked", (json_int_t)checked));
	free(text);
	free(path);
	return bad;
}

/* The install after a lock of what it cannot hash (ctx->install_direct:
 * VCS checkouts at their commit, folders), its report into part2 when
 * report; then the commits checked.  0, or 1 with in saying why. */
static int
rb_install_direct(struct rb *b, json_t *in, int has_report, char **part2)
{
	struct kd_step rr = { .stream = 1 };
	struct kd_err e = { 0 };
	char *report = has_report ? venv_report_path(b->ctx->project_dir, b->ctx->state_dir,
						     REBUILD_REPORT_DIRECT) : NULL;
	int rc = 0;

	*part2 = has_report ? kd_ctx_path(b->ctx, REBUILD_REPORT_DIRECT) : NULL;
	if (*part2 != NULL)
		unlink(*part2);
	if (step_plan(b->ctx, b->sink, "pip-install-direct", "pip install --no-deps -r (the "
		      "lock's VCS checkouts and folders)", venv_pip_direct_argv(b->vpy, report,
		      b->ctx->install_direct), b->ctx->timeout_install > 0 ?
		      b->ctx->timeout_install : 3600, &rr, b->steps, &e) != 0 || !step_ok(&rr)) {
		const char *fe = rr.first_error ? rr.first_error : rr.first_lower;
		char req[512] = "";
		json_object_set_new(in, "status", json_string("failed"));
		json_object_set_new(in, "first_error", json_string(fe ? fe : e.msg[0] ? e.msg :
				    "pip install of the lock's VCS checkouts and folders failed"));
		error_requirement(fe, req, sizeof req);
		if (req[0])
			json_object_set_new(in, "requirement", json_string(req));
		rc = 1;
	} else {
		rc = rb_check_direct(b, in);
	}
	free(report);
	step_free(&rr);
	return rc;
}

/* The pip install step; fills obs.install. */
static void
rb_install(struct rb *b)
{
	struct kd_step rr = { .stream = 1 };
	struct run_result *r = &rr.r;
	struct kd_err e = { 0 };
	json_t *in = json_object();
	char req[512];
	/* pip's --report came with pip 22.2: an older pip installs without it */
	int has_report = pip_has_report(obs_rebuild_pip_version(b->obs));
	char *report = has_report ? venv_report_path(b->ctx->project_dir, b->ctx->state_dir,
						     REBUILD_REPORT_PART) : NULL;
	char *part = kd_ctx_path(b->ctx, REBUILD_REPORT_PART), *part2 = NULL;

	json_object_set_new(b->obs, "install", in);
	if (part != NULL)
		unlink(part);   /* a report left by a run that was killed */
	if (b->ctx->install_lock != NULL)
		json_object_set_new(in, "lock", json_string(b->ctx->install_lock));
	if (step_plan(b->ctx, b->sink, "pip-install", b->ctx->install_lock ?
		      "pip install --require-hashes --no-deps -r (the dossier's lock)" :
		      "pip install -r " REBUILD_REQUIREMENTS,
		      venv_pip_install_argv(b->vpy, report, b->ctx->install_lock,
					    b->ctx->install_find_links),
		      b->ctx->timeout_install > 0 ? b->ctx->timeout_install : 3600, &rr,
			 b->steps, &e) != 0) {
		json_object_set_new(in, "status", json_string("not started"));
		json_object_set_new(in, "first_error", json_string(e.msg));
		goto out;
	}
	json_object_set_new(in, "status", json_string(r->cancelled ? "cancelled" :
				r->timed_out ? "timed out" : step_ok(&rr) ? "ok" : "failed"));
	json_object_set_new(in, "exit_code", r->exited ? json_integer(r->exit_code) : json_null());
	json_object_set_new(in, "elapsed_s", json_real(r->elapsed_s));
	json_object_set_new(in, "log", json_incref(json_object_get(json_array_get(b->steps,
					json_array_size(b->steps) - 1), "log")));
	if (!step_ok(&rr)) {
		const char *fe = rr.first_error ? rr.first_error : rr.first_lower;
		char how[256];
		if (r->cancelled || r->timed_out) {
			char d[128];
			json_object_set_new(in, "first_error", json_string(run_describe(r, d,
										sizeof d)));
		} else if (fe == NULL && r->tail != NULL && r->tail_len > 0) {
			/* no error line: the last line of output */
			const char *end = r->tail + r->tail_len, *s;
			while (end > r->tail && (end[-1] == '\n' || end[-1] == '\r'))
				end--;
			s = end;
			while (s > r->tail && s[-1] != '\n')
				s--;
			json_object_set_new(in, "first_error", json_stringn(s, (size_t)(end - s)));
		} else if (fe != NULL) {
			json_object_set_new(in, "first_error", json_string(fe));
		}
		error_requirement(fe, req, sizeof req);
		/* a locked artefact that changed: first_error names it and both digests */
		hash_mismatch(r->tail, r->tail_len, req, sizeof req, in);
		if (req[0])
			json_object_set_new(in, "requirement", json_string(req));
		json_object_set_new(in, "how", json_string(run_describe(r, how, sizeof how)));
	} else if (b->ctx->install_direct != NULL &&
		   rb_install_direct(b, in, has_report, &part2) != 0) {
		/* in says which package */
	} else if (has_report) {
		rb_keep_report(b, part, part2);
	} else {
		json_object_set_new(b->obs, "origins", json_pack("{s:s}", "error", "this pip has "
			"no installation report (pip install --report: pip 22.2 or later)"));
	}
out:
	if (part != NULL)
		unlink(part);
	if (part2 != NULL)
		unlink(part2);
	free(part);
	free(part2);
	free(report);
	step_free(&rr);
}

/* The metadata paths of the packages outside the venv and the base: what
 * dpkg-query is asked about. */
static json_t *
system_metas(const struct baseenv_query *vq, const struct rebuild_base *base)
{
	json_t *paths = json_array();
	const json_t *p;
	size_t i;

	json_array_foreach(vq->packages, i, p) {
		const char *loc = json_string_value(json_object_get(p, "location"));
		const char *meta = json_string_value(json_object_get(p, "meta"));
		if (meta == NULL || loc == NULL || strcmp(loc, vq->purelib) == 0 ||
		    (base->on && baseenv_in_dirs(base->base.site_dirs, loc)))
			continue;
		json_array_append_new(paths, json_string(meta));
	}
	return paths;
}

/* Each distribution's origin and digest (origin.h) into obs.origins: what
 * pip installed from its report, what was there from its provider. */
static void
rb_origins(struct rb *b)
{
	json_t *o = json_object_get(b->obs, "origins"), *report = NULL, *pkgs, *installed = NULL;
	char *rpath = kd_ctx_path(b->ctx, REBUILD_REPORT), *ipath = kd_ctx_path(b->ctx,
		REBUILD_INSTALLED), msg[1200];
	struct kd_err e = { 0 };

	if (o == NULL) {
		o = json_object();
		json_object_set_new(b->obs, "origins", o);
	}
	if (rpath != NULL && pipreport_load(rpath, &report, &e) == 0) {
		const json_t *env = json_object_get(report, "environment");
		json_object_set_new(o, "report", json_string(REBUILD_REPORT));
		if (json_string_value(json_object_get(env, "python_full_version")) != NULL)
			json_object_set(o, "python", json_object_get(env, "python_full_version"));
	}
	else if (json_object_get(o, "error") == NULL)
		json_object_set_new(o, "error", json_string(fsutil_exists(rpath) ?
			kd_err_format(&e, msg, sizeof msg) : "no installation report (the venv "
			"was installed before kernodeck kept one): move it aside to rebuild"));
	pkgs = origin_from_report(report, obs_rebuild_requirements_lint(b->obs),
				  obs_rebuild_pip_env(b->obs), b->ctx->project_dir);
	json_object_set_new(o, "packages", pkgs);
	if (ipath == NULL || inventory_load(ipath, &installed, NULL, &e) != 0)
		goto out;
	/* asked every time (replay's plan shows these two runs): the venv for
	 * where its packages are, dpkg-query when the system's may be seen */
	if (!kd_sink_cancelled(b->sink)) {
		struct baseenv_query vq = { 0 };
		if (rebuild_base_ask(b->ctx, b->sink, b->steps, "venv-packages",
				     "the venv: where the packages pip did not install are",
				     b->vpy, &vq, msg, sizeof msg) == 0) {
			json_t *metas = system_metas(&vq, &b->base);
			json_t *owners = b->sys_site || b->base.on ?
				origin_dpkg_owners(b->ctx, b->sink, b->steps, metas) : json_object();
			origin_add_provided(pkgs, installed, vq.packages, vq.purelib,
					    b->base.on ? b->base.env.path : NULL,
					    b->base.on ? b->base.env.kind : NULL,
					    b->base.on ? b->base.base.site_dirs : NULL, owners);
			json_decref(metas);
			json_decref(owners);
			baseenv_query_free(&vq);
		} else {
			json_object_set_new(o, "provided_error", json_string(msg));
			origin_add_provided(pkgs, installed, NULL, NULL, NULL, NULL, NULL, NULL);
		}
	}
out:
	json_decref(report);
	json_decref(installed);
	free(rpath);
	free(ipath);
}

static int
rebuild_gather(struct kd_ctx *ctx, struct kd_result *res, const struct kd_sink *sink,
	       struct kd_err *err)
{
	struct rb b = { .ctx = ctx, .sink = sink };
	struct kd_step rr = { .stream = 1 };
	const char *action;
	char *reason = NULL, real[PATH_MAX];
	int created = 0;

	b.obs = res->obs = json_object();
	{
		/* the PIP_* of the shell (values redacted), those kernodeck sets
		 * itself aside: pip applies them to the install */
		json_t *env = sysinfo_env(), *pe = json_object();
		const char *k;
		json_t *v;
		json_object_foreach(env, k, v)
			if (strncmp(k, "PIP_", 4) == 0 && strcmp(k, "PIP_NO_INPUT") != 0 &&
			    strcmp(k, "PIP_DISABLE_PIP_VERSION_CHECK") != 0)
				json_object_set(pe, k, v);
		json_decref(env);
		json_object_set_new(b.obs, "pip_env", pe);
	}
	b.steps = json_array();
	json_object_set_new(b.obs, "steps", b.steps);
	b.venv = fsutil_join(ctx->project_dir, REBUILD_VENV);
	b.vpy = fsutil_join(b.venv, "bin/python");
	b.req = fsutil_join(ctx->project_dir, REBUILD_REQUIREMENTS);
	b.python = rb_choose_python(ctx, &reason);
	b.python_real = realpath(b.python, real) ? strdup(real) : NULL;
	b.sys_site = json_is_true(yamlio_get(ctx->ref, "python.install.system_site_packages"));
	b.without_pip = b.sys_site &&
			json_is_true(yamlio_get(ctx->ref, "python.install.without_pip"));
	json_object_set_new(b.obs, "python", json_pack("{s:s, s:s, s:o}", "path", b.python,
		"reason", reason ? reason : "", "real", b.python_real ?
		json_string(b.python_real) : json_null()));
	json_object_set_new(b.obs, "system_site_packages", json_boolean(b.sys_site));
	json_object_set_new(b.obs, "without_pip", json_boolean(b.without_pip));
	free(reason);

	kd_sink_step(sink, "lint " REBUILD_REQUIREMENTS, -1);
	if (rb_lint(&b) != 0)
		goto out;
	if (rebuild_base_prepare(ctx, sink, b.obs, b.steps, b.venv, &b.base) != 0)
		goto out;
	if (b.base.on)
		rb_use_base_python(&b);
	if ((action = rb_existing(&b)) == NULL)
		goto out;
	if (b.python_real == NULL || access(b.python, X_OK) != 0) {
		json_object_set_new(b.obs, "blocked", json_string("the interpreter cannot be run"));
		goto out;
	}
	if (strcmp(action, "create") == 0) {
		if (step_plan(ctx, sink, "venv", "create " REBUILD_VENV,
			      venv_create_argv(b.python, b.sys_site, b.without_pip), RB_TIMEOUT_VENV,
				 &rr, b.steps, err) != 0 || !step_ok(&rr))
			goto out;
		created = 1;
	}
	if (kd_sink_cancelled(sink) ||
	    rebuild_base_layer(ctx, sink, b.obs, b.steps, b.vpy, &b.base) != 0)
		goto out;
	{
		if (step_plan(ctx, sink, "pip-version", "pip --version",
			      venv_pip_argv(b.vpy, VENV_PIP_VERSION), RB_TIMEOUT_QUERY,
				 &rr, b.steps, err) != 0 || !step_ok(&rr))
			goto out;
		if (rr.r.tail != NULL) {
			char ver[64] = "";
			if (sscanf(rr.r.tail, "pip %63s", ver) == 1)
				json_object_set_new(b.obs, "pip_version", json_string(ver));
		}
	}
	if (kd_sink_cancelled(sink))
		goto out;
	if (strcmp(action, "reuse") == 0) {
		json_object_set_new(b.obs, "install", json_pack("{s:s}", "status", "reused"));
	} else {
		rb_install(&b);
		const char *st = obs_rebuild_install_status(b.obs);
		int ok = st && strcmp(st, "ok") == 0;
		if (created || strcmp(action, "keep") == 0) {
			record_built(ctx, b.venv, b.python, b.python_real, b.req_sha, b.sys_site, ok);
			rebuild_base_record(ctx, &b.base);
		}
		if (!ok)
			goto out;
	}
	rb_capture(&b);
	rebuild_base_capture(ctx, sink, b.obs, b.steps, b.vpy, &b.base);
	rb_origins(&b);
out:
	{
		struct venv_info vi;
		if (venv_inspect(b.venv, &vi, NULL) == 0 && vi.exists) {
			json_t *v = json_object_get(b.obs, "venv");
			if (v != NULL) {
				json_object_set_new(v, "after", venv_info_json(&vi));
				json_object_set_new(v, "uses_chosen_python",
						    json_boolean(venv_uses_python(&vi, b.python)));
			}
		}
		venv_info_free(&vi);
	}
	step_free(&rr);
	rb_free(&b);
	kd_err_clear(err);
	return 0;
}

/* ---- check ---- */

static const struct {
	const char *code, *label, *hint;
} lint_rows[] = {
	{ "credential", "no credential in the rebuild file",
	  "write ${PIP_TOKEN} in the URL (pip reads it from the environment) or use a keyring; "
	  "never keep the value in the file" },
	{ "hashes", "hash-checking mode is complete",
	  "give every requirement ==VERSION and --hash=sha256:..., or no hashes at all" },
	{ "unpinned", "every requirement is pinned",
	  "pin with ==VERSION (or in a -c constraints file)" },
	{ "torch-source", "the PyTorch variant source is named",
	  "add --index-url https://download.pytorch.org/whl/VARIANT or pin torch==V+VARIANT" },
	{ "local-path", "no absolute local path",
	  "use a path relative to the project, or an index; an absolute path will not exist "
	  "on another machine" },
	{ "freeze", "the rebuild file is not a raw pip freeze",
	  "keep the requirements you mean, pinned, with their index; a pip freeze is an "
	  "inventory, not a lock file" },
	{ "include", "every -r and -c file can be read", "fix or remove the -r/-c line" },
	{ "syntax", "pip can read every line", "fix the line named" },
};

static enum kd_rstat
sev_status(const char *sev)
{
	if (sev == NULL)
		return KD_R_PASS;
	if (strcmp(sev, "fail") == 0)
		return KD_R_FAIL;
	if (strcmp(sev, "warn") == 0)
		return KD_R_WARN;
	return KD_R_INFO;
}

static void
check_lint(const json_t *obs, struct kd_rows *rows)
{
	for (size_t k = 0; k < sizeof lint_rows / sizeof *lint_rows; k++) {
		const json_t *f, *first = NULL;
		enum kd_rstat worst = KD_R_PASS;
		size_t i, n = 0;
		char id[64];
		json_array_foreach(obs_rebuild_requirements_lint_findings(obs), i, f) {
			const char *code = obs_rebuild_finding_code(f);
			if (strcmp(code, lint_rows[k].code) != 0 &&
			    !(strcmp(lint_rows[k].code, "syntax") == 0 &&
			      strcmp(code, "unknown-option") == 0))
				continue;
			enum kd_rstat st = sev_status(obs_rebuild_finding_severity(f));
			if (first == NULL || st == KD_R_FAIL)
				first = first && worst == KD_R_FAIL ? first : f;
			if (st == KD_R_FAIL || (st == KD_R_WARN && worst != KD_R_FAIL) ||
			    (st == KD_R_INFO && worst == KD_R_PASS))
				worst = st;
			n++;
		}
		snprintf(id, sizeof id, "rebuild.lint.%s", lint_rows[k].code);
		if (n == 0) {
			kd_rows_add(rows, id, KD_R_PASS, lint_rows[k].label, "none", "none",
				    REBUILD_REQUIREMENTS);
			continue;
		}
		struct kd_row *r = kd_rows_addf(rows, id, worst, lint_rows[k].label, "none",
			"%zu finding%s", n, n == 1 ? "" : "s");
		free(r->evidence);
		r->evidence = strdup(REBUILD_REQUIREMENTS);
		if (worst != KD_R_PASS)
			kd_row_set_error(r, obs_rebuild_finding_message(first), lint_rows[k].hint);
	}
}

/* The row of one step, by its name in obs.steps (NULL when it did not run). */
static const json_t *
find_step(const json_t *obs, const char *name)
{
	const json_t *s, *found = NULL;
	size_t i;

	json_array_foreach(obs_rebuild_steps(obs), i, s)
		if (strcmp(obs_rebuild_step_step(s), name) == 0)
			found = s;
	return found;
}

static void
check_venv(const json_t *obs, struct kd_rows *rows)
{
	const char *action = obs_rebuild_venv_action(obs);
	const char *need = obs_rebuild_venv_needs_choice(obs);
	const json_t *step = find_step(obs, "venv");

	if (action == NULL)
		return;
	if (strcmp(action, "ask") == 0) {
		char obsd[512];
		snprintf(obsd, sizeof obsd, "%s exists: %s", REBUILD_VENV,
			 need ? need : obs_rebuild_venv_error(obs));
		kd_rows_fail(rows, "rebuild.venv", "the rebuild venv is fresh or chosen", obsd,
			 "no venv, or kernodeck's own", obsd,
			 need ? "in the walkthrough, move it aside (m: renamed with a timestamp, "
				"nothing deleted) or keep it (u); headless, rename the folder "
				"yourself" : "free the folder and check again");
		return;
	}
	if (strcmp(action, "reuse") == 0) {
		kd_rows_add(rows, "rebuild.venv", KD_R_PASS, "the rebuild venv is fresh or chosen",
			    "reused: built by kernodeck from the same file and interpreter",
			    "fresh", NULL);
	} else if (strcmp(action, "keep") == 0) {
		kd_rows_add(rows, "rebuild.venv", KD_R_WARN, "the rebuild venv is fresh or chosen",
				"kept an existing venv (your choice): not a fresh rebuild",
				"fresh", NULL);
	} else if (step != NULL) {
		const char *st = obs_rebuild_step_status(step);
		const char *mt = obs_rebuild_venv_moved_to(obs);
		char o[512];
		snprintf(o, sizeof o, "created%s%s%s", mt ? "; the old one was moved aside to " : "",
			 mt ? mt : "", "");
		if (st && strcmp(st, "ok") == 0)
			kd_rows_add(rows, "rebuild.venv", KD_R_PASS,
				    "the rebuild venv is fresh or chosen", o, "fresh",
				    obs_rebuild_step_log(step));
		else
			kd_rows_fail(rows, "rebuild.venv", "the rebuild venv is fresh or chosen",
				 st ? st : "failed", "created",
				 obs_rebuild_step_error(step) ? obs_rebuild_step_error(step) :
				 obs_rebuild_step_how(step),
				 "read the log; is the venv module installed (python3-venv)?");
	}
	if (obs_rebuild_venv_uses_chosen_python(obs))
		kd_rows_add(rows, "rebuild.venv.interpreter", KD_R_PASS,
			    "the venv runs the chosen interpreter", obs_rebuild_venv_after_python_real(obs),
			    obs_rebuild_python_real(obs), NULL);
	else if (obs_rebuild_venv_after(obs) != NULL)
		kd_rows_fail(rows, "rebuild.venv.interpreter", "the venv runs the chosen interpreter",
			 obs_rebuild_venv_after_python_real(obs) ?
			 obs_rebuild_venv_after_python_real(obs) : "(none)",
			 obs_rebuild_python_path(obs),
			 "the venv was made with another interpreter",
			 "move it aside (m) and check again");
}

static void
check_install(const json_t *obs, struct kd_rows *rows)
{
	const char *st = obs_rebuild_install_status(obs);
	const char *fe = obs_rebuild_install_first_error(obs);
	const char *req = obs_rebuild_install_requirement(obs);
	const char *log = obs_rebuild_install_log(obs);
	const json_t *pv = find_step(obs, "pip-version");
	char o[512];
	struct kd_row *r;

	if (pv != NULL) {
		const char *s = obs_rebuild_step_status(pv);
		if (s && strcmp(s, "ok") == 0)
			kd_rows_add(rows, "rebuild.pip", KD_R_PASS, "pip runs in the venv",
				    obs_rebuild_pip_version(obs), "runs", obs_rebuild_step_log(pv));
		else
			kd_rows_fail(rows, "rebuild.pip", "pip runs in the venv", s ? s : "failed",
				 "runs", obs_rebuild_step_how(pv),
				 "the venv has no pip: create it without --without-pip, or with "
				 "system site packages that hold pip");
	}
	if (st == NULL) {
		const char *why = obs_rebuild_blocked(obs);
		kd_rows_fail(rows, "rebuild.install", "pip install -r " REBUILD_REQUIREMENTS " exited 0",
			 "not run", "exit 0", why ? why : "an earlier step did not pass",
			 "fix the first failing row above and check again");
		return;
	}
	if (strcmp(st, "ok") == 0 || strcmp(st, "reused") == 0) {
		kd_rows_add(rows, "rebuild.install", KD_R_PASS,
			    "pip install -r " REBUILD_REQUIREMENTS " exited 0",
			    strcmp(st, "ok") == 0 ? "exit 0" : "up to date (not run again)",
			    "exit 0", log);
		return;
	}
	if (req != NULL)
		snprintf(o, sizeof o, "%s, on %s", st, req);
	else
		snprintf(o, sizeof o, "%s", obs_rebuild_install_how(obs) ? obs_rebuild_install_how(obs) : st);
	r = kd_rows_fail(rows, "rebuild.install", "pip install -r " REBUILD_REQUIREMENTS " exited 0", o,
		     "exit 0", fe ? fe : st,
		     strcmp(st, "cancelled") == 0 ? "cancelled: check again to run it" :
		     strcmp(st, "timed out") == 0 ? "the install ran past its time limit: check "
		     "the index is reachable, or raise the timeout" :
		     "the first ERROR line is shown; the log has the rest");
	free(r->evidence);
	r->evidence = log ? strdup(log) : NULL;
}

static void
check_inventory(const json_t *obs, struct kd_rows *rows)
{
	const char *f = obs_rebuild_inventory_file(obs);
	const char *st = obs_rebuild_install_status(obs);

	if (st == NULL || (strcmp(st, "ok") != 0 && strcmp(st, "reused") != 0))
		return;
	if (f != NULL)
		kd_rows_addf(rows, "rebuild.inventory", KD_R_PASS, "the inventory was captured",
			     "pip freeze --all saved", "%lld packages in %s",
			     (long long)obs_rebuild_inventory_count(obs), f)->evidence
			= strdup(f);
	else
		kd_rows_fail(rows, "rebuild.inventory", "the inventory was captured", "not captured",
			 "pip freeze --all saved", obs_rebuild_inventory_error(obs),
			 "read the pip-freeze log");
}

/* Every distribution has its origin, and each artefact pip installed its
 * digest (what the dossier's lock pins). */
static void
check_origins(const json_t *obs, struct kd_rows *rows)
{
	const char *st = obs_rebuild_install_status(obs), *err = obs_rebuild_origins_error(obs);
	const char *first = NULL;
	const json_t *e;
	size_t i, pip = 0, provided = 0, nodigest = 0;
	struct kd_row *r;

	if (st == NULL || (strcmp(st, "ok") != 0 && strcmp(st, "reused") != 0))
		return;
	json_array_foreach(obs_rebuild_origins_packages(obs), i, e) {
		const char *o = obs_rebuild_origin_origin(e);
		if (obs_rebuild_origin_provider(e) != NULL) {
			provided++;
		} else {
			pip++;
			if (obs_rebuild_origin_sha256(e) == NULL && strcmp(o, "vcs") != 0 &&
			    strcmp(o, "directory") != 0 && nodigest++ == 0)
				first = obs_rebuild_origin_name(e);
		}
	}
	if (err == NULL && nodigest == 0) {
		kd_rows_addf(rows, "rebuild.origins", KD_R_PASS,
			     "every distribution has its origin and digest", "origin and digest",
			     "%zu installed by pip, each with its digest; %zu provided", pip,
			     provided)->evidence = strdup(REBUILD_REPORT);
		return;
	}
	if (err != NULL)
		r = kd_rows_add(rows, "rebuild.origins", KD_R_WARN,
				"every distribution has its origin and digest", "not recorded",
				"origin and digest", NULL);
	else
		r = kd_rows_addf(rows, "rebuild.origins", KD_R_WARN,
				 "every distribution has its origin and digest",
				 "origin and digest", "%zu without a digest, first %s", nodigest,
				 first);
	kd_row_set_error(r, err ? err : "pip's report gave no hash for these artefacts",
			 "move the venv aside (m) and check again: the install then records "
			 "where each package came from");
}

/* pip reads PIP_* from the environment: a PIP_FIND_LINKS or PIP_INDEX_URL
 * of the shell changes where this rebuild's packages come from. */
static void
check_pip_env(const json_t *obs, struct kd_rows *rows)
{
	const json_t *env = obs_rebuild_pip_env(obs);
	char list[1024];
	size_t n = 0;
	const char *k;
	json_t *v;
	struct kd_row *r;

	if (json_object_size(env) == 0) {
		kd_rows_add(rows, "rebuild.env", KD_R_PASS, "no pip setting from the shell",
			    "none", "none", NULL);
		return;
	}
	list[0] = '\0';
	json_object_foreach((json_t *)env, k, v)
		if (n < sizeof list)
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s=%s", n ? ", " : "", k,
					      json_string_value(v) ? json_string_value(v) : "");
	r = kd_rows_add(rows, "rebuild.env", KD_R_WARN, "no pip setting from the shell", list,
			"none", NULL);
	kd_row_set_error(r, "pip applies these variables of the shell to this rebuild; "
			 "another machine will not have them",
			 "write what the rebuild needs into requirements-rebuild.txt (--find-links, "
			 "--index-url) and unset the variables, or record a deviation");
}

static int
rebuild_check(struct kd_ctx *ctx, struct kd_result *res, struct kd_err *err)
{
	const json_t *obs = res->obs;
	struct kd_rows *rows = &res->rows;

	(void)ctx;
	(void)err;
	if (!obs_rebuild_requirements_present(obs)) {
		kd_rows_fail(rows, "rebuild.requirements", REBUILD_REQUIREMENTS " is present", "missing",
			 "present", "no " REBUILD_REQUIREMENTS " in the project folder",
			 "write the requirements of the rebuild (pinned, with the PyTorch index) "
			 "into " REBUILD_REQUIREMENTS);
		return 0;
	}
	if (obs_rebuild_requirements_error(obs) != NULL) {
		kd_rows_fail(rows, "rebuild.requirements", REBUILD_REQUIREMENTS " is present",
			 "unreadable", "a text file", obs_rebuild_requirements_error(obs),
			 "fix the file named");
		return 0;
	}
	kd_rows_addf(rows, "rebuild.requirements", KD_R_PASS, REBUILD_REQUIREMENTS " is present",
		     "present", "%zu requirements",
		     json_array_size(obs_rebuild_requirements_lint_requirements(obs)))->evidence =
		strdup(REBUILD_REQUIREMENTS);
	check_lint(obs, rows);
	rebuild_base_check(obs, rows);
	check_pip_env(obs, rows);
	check_venv(obs, rows);
	check_install(obs, rows);
	check_inventory(obs, rows);
	check_origins(obs, rows);
	return 0;
}

static void
rebuild_describe(const struct kd_result *res, struct kd_rows *rows)
{
	const json_t *obs = res->obs;
	const json_t *s;
	size_t i;

	kd_rows_addf(rows, "info.python", KD_R_INFO, "interpreter", NULL, "%s (%s)",
		     obs_rebuild_python_path(obs), obs_rebuild_python_reason(obs));
	kd_rows_add(rows, "info.system_site", KD_R_INFO, "system site packages",
		    obs_rebuild_system_site_packages(obs) ?
		    "yes (the reference's install says so)" : "no", NULL, NULL);
	if (obs_rebuild_pip_version(obs))
		kd_rows_add(rows, "info.pip", KD_R_INFO, "pip", obs_rebuild_pip_version(obs), NULL, NULL);
	if (obs_rebuild_requirements_lint_torch_variant_required(obs))
		kd_rows_add(rows, "info.torch_variant", KD_R_INFO, "planned PyTorch variant",
			    obs_rebuild_requirements_lint_torch_variant_variant(obs) ?
			    obs_rebuild_requirements_lint_torch_variant_variant(obs) : "not named", NULL,
			    obs_rebuild_requirements_lint_torch_variant_source(obs));
	json_array_foreach(obs_rebuild_steps(obs), i, s) {
		char id[64];
		snprintf(id, sizeof id, "info.step.%zu", i + 1);
		kd_rows_addf(rows, id, KD_R_INFO, obs_rebuild_step_step(s), NULL, "%s",
			     obs_rebuild_step_how(s) ? obs_rebuild_step_how(s) :
			     obs_rebuild_step_status(s))->evidence =
			obs_rebuild_step_log(s) ? strdup(obs_rebuild_step_log(s)) : NULL;
	}
}

/* ---- actions ---- */

static int
act_move_aside(struct kd_ctx *ctx, const char *arg, const struct kd_sink *sink,
	       struct kd_err *err)
{
	char *venv = fsutil_join(ctx->project_dir, REBUILD_VENV), *to = NULL, now[32];
	const char *base;
	int rc;

	(void)arg;
	if (!fsutil_exists(venv)) {
		free(venv);
		return kd_err_set(err, KD_EINPUT, NULL, 0, "there is no %s to move aside",
				  REBUILD_VENV);
	}
	rc = venv_move_aside(venv, &to, err);
	if (rc == 0) {
		base = strrchr(to, '/') ? strrchr(to, '/') + 1 : to;
		exclude_from_git(ctx, to);
		fsutil_utc_now(now, sizeof now);
		yamlio_set(ctx->state.settings, "rebuild.existing_venv", json_pack(
			"{s:s, s:s, s:s, s:s}", "choice", "moved-aside", "to", base, "by",
			kd_author(), "at", now));
		kd_sink_line(sink, "moved .venv-rebuild aside (nothing was deleted)");
		stage_mark_changed(&ctx->state, stage_pos(&kd_stage_rebuild));
	}
	free(venv);
	free(to);
	return rc;
}

static int
act_keep(struct kd_ctx *ctx, const char *arg, const struct kd_sink *sink, struct kd_err *err)
{
	char *venv = fsutil_join(ctx->project_dir, REBUILD_VENV), now[32];
	struct venv_info vi;
	int rc = 0;

	(void)arg;
	if (venv_inspect(venv, &vi, err) != 0 || !vi.exists || !vi.is_venv) {
		rc = kd_err_set(err, KD_EINPUT, NULL, 0, "there is no virtual environment in %s to keep",
				REBUILD_VENV);
	} else {
		fsutil_utc_now(now, sizeof now);
		yamlio_set(ctx->state.settings, "rebuild.existing_venv", json_pack(
			"{s:s, s:s, s:s, s:s, s:s}", "choice", "keep", "venv", vi.path,
			"pyvenv_sha256", vi.cfg_sha256, "by", kd_author(), "at", now));
		kd_sink_line(sink, "keeping the existing .venv-rebuild: it will be installed into");
		stage_mark_changed(&ctx->state, stage_pos(&kd_stage_rebuild));
	}
	venv_info_free(&vi);
	free(venv);
	return rc;
}

static const struct kd_action rebuild_actions[] = {
	{ .key = 'm', .name = "move-aside", .run = act_move_aside,
	  .label = "move the existing .venv-rebuild aside" },
	{ .key = 'u', .name = "keep", .run = act_keep,
	  .label = "use (keep) the existing .venv-rebuild" },
};

const struct kd_stage_ops kd_stage_rebuild = {
	.id = "rebuild",
	.title = "Rebuild",
	.summary = "a fresh venv from requirements-rebuild.txt, with the chosen interpreter",
	.replay = 1,
	.gather = rebuild_gather,
	.check = rebuild_check,
	.describe = rebuild_describe,
	.actions = rebuild_actions,
	.nactions = sizeof rebuild_actions / sizeof *rebuild_actions,
};
