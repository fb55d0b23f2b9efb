/*
 * rebuild-base.c - stage 3 layered on a base environment (rebuild-base.h):
 * ask the base, refuse one that is missing, moved or changed, write the
 * .pth into the fresh venv, and tell the base's packages from the rebuilt
 * ones afterwards.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/baseenv.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/obs-rebuild.h"
#include "kernodeck/rebuild-base.h"
#include "kernodeck/rebuild.h"
#include "kernodeck/stage.h"
#include "kernodeck/step.h"
#include "kernodeck/yamlio.h"

#define RBB_TIMEOUT_QUERY 300.0

static int
stop(json_t *obs, json_t *base, const char *problem, const char *msg)
{
	char why[1400];

	json_object_set_new(base, "problem", json_string(problem));
	json_object_set_new(base, "error", json_string(msg));
	snprintf(why, sizeof why, "the base environment cannot be used: %s", msg);
	json_object_set_new(obs, "blocked", json_string(why));
	return 1;
}

/* Run python's query as step `what`; parse it into q.  0 or -1 (msg set). */
static int
ask(struct kd_ctx *ctx, const struct kd_sink *sink, json_t *steps, const char *what,
    const char *label, const char *python, struct baseenv_query *q, char *msg, size_t len)
{
	struct kd_step st = { .keep = 1 };
	struct kd_err e = { 0 };
	int rc = -1;

	if (step_plan(ctx, sink, what, label, baseenv_query_argv(python), RBB_TIMEOUT_QUERY, &st,
		      steps, &e) != 0) {
		snprintf(msg, len, "%s", e.msg);
	} else if (!step_ok(&st)) {
		char how[128];
		snprintf(msg, len, "%s %s: %s", python, run_describe(&st.r, how, sizeof how),
			 st.first_lower ? st.first_lower : "see its log");
	} else if (st.overflow || baseenv_parse(st.buf ? st.buf : "", st.len, q, &e) != 0) {
		snprintf(msg, len, "%s: %s", python, st.overflow ?
			 "its report is larger than kernodeck keeps" : e.msg);
		baseenv_query_free(q);
	} else {
		rc = 0;
	}
	step_free(&st);
	return rc;
}

static const json_t *
built_base(const struct kd_ctx *ctx)
{
	return yamlio_get(ctx->state.settings, "rebuild.built.base");
}

int
rebuild_base_prepare(struct kd_ctx *ctx, const struct kd_sink *sink, json_t *obs,
		     json_t *steps, const char *venv_dir, struct rebuild_base *rb)
{
	const char *given = yamlio_get_str(ctx->ref, "python.install.base");
	const json_t *bb;
	struct kd_err e = { 0 };
	char msg[1400];
	json_t *b;

	memset(rb, 0, sizeof *rb);
	if (given == NULL || *given == '\0')
		return 0;
	rb->on = 1;
	rb->obs = b = json_pack("{s:s}", "given", given);
	json_object_set_new(obs, "base", b);
	if (baseenv_locate(ctx->project_dir, given, &rb->env, &e) != 0) {
		json_object_set_new(b, "path", json_string(rb->env.path ? rb->env.path : given));
		return stop(obs, b, rb->env.path && !fsutil_exists(rb->env.path) ? "missing" :
			    "unusable", e.msg);
	}
	json_object_set_new(b, "path", json_string(rb->env.path));
	json_object_set_new(b, "kind", json_string(rb->env.kind));
	json_object_set_new(b, "python", json_string(rb->env.python));
	if (rb->env.moved_from != NULL) {
		json_object_set_new(b, "moved_from", json_string(rb->env.moved_from));
		snprintf(msg, sizeof msg, "%s was made in %s and moved: a venv does not work once "
			 "moved", rb->env.path, rb->env.moved_from);
		return stop(obs, b, "moved", msg);
	}
	kd_sink_step(sink, "ask the base environment for its packages", -1);
	if (ask(ctx, sink, steps, "base-query", "base environment: its packages",
		rb->env.python, &rb->base, msg, sizeof msg) != 0)
		return stop(obs, b, "query", msg);
	json_object_set_new(b, "version", json_string(rb->base.version ? rb->base.version : ""));
	json_object_set_new(b, "site_dirs", json_deep_copy(rb->base.site_dirs));
	json_object_set_new(b, "packages", json_integer((json_int_t)rb->base.npackages));
	json_object_set_new(b, "digest", json_string(rb->base.digest));
	/* a venv built on the base (and installed: a failed one is rebuilt anyway) */
	bb = built_base(ctx);
	if (fsutil_exists(venv_dir) &&
	    json_is_true(yamlio_get(ctx->state.settings, "rebuild.built.ok")) &&
	    json_string_value(json_object_get(bb, "path")) != NULL &&
	    strcmp(json_string_value(json_object_get(bb, "path")), rb->env.path) == 0 &&
	    json_string_value(json_object_get(bb, "digest")) != NULL &&
	    strcmp(json_string_value(json_object_get(bb, "digest")), rb->base.digest) != 0) {
		json_t *now = baseenv_package_list(&rb->base);
		json_t *d = baseenv_diff(json_object_get(bb, "packages"), now);
		json_object_set_new(d, "was_digest", json_incref(json_object_get(bb, "digest")));
		json_object_set_new(b, "changed", d);
		snprintf(msg, sizeof msg, "%s changed since " REBUILD_VENV " was built on it "
			 "(its inventory digest is %.12s, was %.12s: %zu added, %zu removed)",
			 rb->env.path, rb->base.digest,
			 json_string_value(json_object_get(bb, "digest")),
			 json_array_size(json_object_get(d, "added")),
			 json_array_size(json_object_get(d, "removed")));
		json_decref(now);
		return stop(obs, b, "changed", msg);
	}
	return 0;
}

int
rebuild_base_matches(const struct kd_ctx *ctx, const struct rebuild_base *rb)
{
	const json_t *bb = built_base(ctx);
	const char *p = json_string_value(json_object_get(bb, "path"));
	const char *d = json_string_value(json_object_get(bb, "digest"));

	if (!rb->on)
		return p == NULL;
	return p != NULL && d != NULL && strcmp(p, rb->env.path) == 0 &&
	       strcmp(d, rb->base.digest) == 0;
}

int
rebuild_base_layer(struct kd_ctx *ctx, const struct kd_sink *sink, json_t *obs,
		   json_t *steps, const char *venv_python, struct rebuild_base *rb)
{
	struct baseenv_query vq;
	struct kd_err e = { 0 };
	char msg[1400], *pth = NULL;
	size_t n;
	int rc = 0;

	if (!rb->on)
		return 0;
	kd_sink_step(sink, "layer " REBUILD_VENV " on the base environment", -1);
	if (ask(ctx, sink, steps, "venv-query", "the venv: its site-packages", venv_python, &vq,
		msg, sizeof msg) != 0)
		return stop(obs, rb->obs, "layer", msg);
	if (baseenv_write_pth(vq.purelib, &rb->env, &rb->base, &pth, &e) != 0) {
		rc = stop(obs, rb->obs, "layer", e.msg);
	} else {
		n = strlen(ctx->project_dir);
		json_object_set_new(rb->obs, "pth", json_string(
			strncmp(pth, ctx->project_dir, n) == 0 && pth[n] == '/' ? pth + n + 1 : pth));
		kd_sink_line(sink, "wrote the base environment's package folders into " BASEENV_PTH);
	}
	free(pth);
	baseenv_query_free(&vq);
	return rc;
}

void
rebuild_base_record(struct kd_ctx *ctx, const struct rebuild_base *rb)
{
	if (!rb->on || yamlio_get(ctx->state.settings, "rebuild.built") == NULL)
		return;
	yamlio_set(ctx->state.settings, "rebuild.built.base", json_pack("{s:s, s:s, s:o}",
		   "path", rb->env.path, "digest", rb->base.digest,
		   "packages", baseenv_package_list(&rb->base)));
}

void
rebuild_base_capture(struct kd_ctx *ctx, const struct kd_sink *sink, json_t *obs,
		     json_t *steps, const char *venv_python, struct rebuild_base *rb)
{
	json_t *inv = json_object_get(obs, "inventory");
	struct baseenv_query vq;
	struct kd_err e = { 0 };
	char msg[1400], *text, *path;
	size_t len = 0;

	if (!rb->on || inv == NULL)
		return;
	text = baseenv_freeze_text(&rb->base, &len);
	path = kd_ctx_path(ctx, BASEENV_INVENTORY);
	if (text != NULL && path != NULL && fsutil_write_atomic(path, text, len, 0, &e) == 0)
		json_object_set_new(rb->obs, "inventory_file", json_string(BASEENV_INVENTORY));
	free(text);
	free(path);
	if (ask(ctx, sink, steps, "venv-origin", "the venv: where each package comes from",
		venv_python, &vq, msg, sizeof msg) != 0) {
		json_object_set_new(inv, "origin_error", json_string(msg));
		return;
	}
	json_object_set_new(inv, "origin", baseenv_origins(&vq, &rb->base));
	baseenv_query_free(&vq);
}

void
rebuild_base_free(struct rebuild_base *rb)
{
	baseenv_free(&rb->env);
	baseenv_query_free(&rb->base);
	memset(rb, 0, sizeof *rb);
}

static const char *
hint_for(const char *problem)
{
	static const struct { const char *problem, *hint; } h[] = {
		{ "missing", "give python.install.base the folder of the environment as it is "
		  "on this machine (or its interpreter)" },
		{ "unusable", "give the folder of a venv or conda environment (with bin/python3), "
		  "or an interpreter" },
		{ "moved", "recreate the venv where it is now, or give its old place back" },
		{ "query", "run the interpreter by hand: does it start?  The log has its output" },
		{ "changed", "restore the base as it was, or move " REBUILD_VENV " aside (m) and "
		  "check again to rebuild on the base as it is now" },
		{ "layer", "the venv's interpreter must run and its site-packages be writable" },
	};
	for (size_t i = 0; problem != NULL && i < sizeof h / sizeof *h; i++)
		if (strcmp(h[i].problem, problem) == 0)
			return h[i].hint;
	return NULL;
}

void
rebuild_base_check(const json_t *obs, struct kd_rows *rows)
{
	const json_t *b = obs_rebuild_base(obs);
	const json_t *o = obs_rebuild_inventory_origin(obs);
	const char *problem = obs_rebuild_base_problem(obs);
	const char *path = obs_rebuild_base_path(obs);
	const char *label = "the base environment is there, unchanged";

	if (b == NULL)
		return;
	if (problem != NULL && strcmp(problem, "layer") != 0) {
		kd_rows_fail(rows, "rebuild.base", label, strcmp(problem, "changed") == 0 ?
			     "changed since the rebuild" : problem, path,
			     obs_rebuild_base_error(obs), hint_for(problem));
		return;
	}
	kd_rows_addf(rows, "rebuild.base", KD_R_PASS, label, "there, unchanged since the rebuild",
		     "%s (%s, Python %s, %lld packages)", path,
		     obs_rebuild_base_kind(obs), obs_rebuild_base_version(obs),
		     (long long)obs_rebuild_base_packages(obs))->evidence =
		obs_rebuild_base_inventory_file(obs) ? strdup(obs_rebuild_base_inventory_file(obs)) : NULL;
	if (problem != NULL)
		kd_rows_fail(rows, "rebuild.base.layer", "the venv is layered on the base",
			     "not layered", BASEENV_PTH " in its site-packages",
			     obs_rebuild_base_error(obs), hint_for(problem));
	else if (obs_rebuild_base_pth(obs) != NULL)
		kd_rows_add(rows, "rebuild.base.layer", KD_R_PASS, "the venv is layered on the base",
			    "the base's package folders, after the venv's own",
			    BASEENV_PTH " in its site-packages",
			    obs_rebuild_base_pth(obs));
	if (o != NULL)
		kd_rows_addf(rows, "rebuild.inventory.origin", KD_R_INFO,
			     "where the packages come from", NULL,
			     "%zu rebuilt, %zu from the base, %zu from the system",
			     json_array_size(obs_rebuild_inventory_origin_rebuilt(obs)),
			     json_array_size(obs_rebuild_inventory_origin_base(obs)),
			     json_array_size(obs_rebuild_inventory_origin_system(obs)));
}
