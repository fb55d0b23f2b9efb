/*
 * stage-contract.c - stage 4: the dependency contract of the rebuilt venv
 * (DESIGN.md section 1, row 4).
 *
 * gather() runs `.venv-rebuild/bin/python -m pip check` (raw output saved
 * as kernodeck/pip-check.txt, parsed; its exit status decides) and `pip
 * inspect` (what the project interpreter sees, each package labelled
 * system when it lives outside the venv), reads the reference inventory
 * (python.inventory: pip freeze or pip inspect) and compares the two by
 * canonical name.
 *
 * check() turns that into rows: pip check (a problem of a system package is
 * shown apart and does not fail alone), one row per inventory difference
 * (pip, setuptools and wheel only inform unless the rebuild file pins
 * them; the packages of the machine's system site packages that the
 * reference does not list are named together in one informative row, as
 * the project did not install them), each marked by a person intentional
 * (the run becomes a variant of the reference) or to fix (state settings
 * contract.marks.NAME), and what a clean pip check does not prove.  The
 * marks are applied again by the actions without running pip.
 */
#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/argv.h"
#include "kernodeck/caps.h"
#include "kernodeck/baseenv.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/inventory.h"
#include "kernodeck/pep440.h"
#include "kernodeck/parse-pipcheck.h"
#include "kernodeck/parse-inspect.h"
#include "kernodeck/rebuild.h"
#include "kernodeck/parse-requirements.h"
#include "kernodeck/runner.h"
#include "kernodeck/stage.h"
#include "kernodeck/state.h"
#include "kernodeck/step.h"
#include "kernodeck/venv.h"
#include "kernodeck/yamlio.h"
#include "kernodeck/obs-contract.h"
#include "kernodeck/obs-rebuild.h"

#define CT_TIMEOUT 300.0
#define CT_DIFF_PREFIX "contract.diff."

/* ---- gather ---- */

/* Run pip check; fills obs.pip_check. */
static void
ct_pip_check(struct kd_ctx *ctx, const struct kd_sink *sink, const char *vpy, json_t *obs,
	     json_t *steps)
{
	struct kd_step rr = { .stream = 1, .keep = 1 };
	struct kd_err e = { 0 };
	json_t *pc = json_object(), *tree = NULL;
	char *path = kd_ctx_path(ctx, CONTRACT_PIP_CHECK);

	json_object_set_new(obs, "pip_check", pc);
	if (step_plan(ctx, sink, "pip-check", "pip check", venv_pip_argv(vpy, VENV_PIP_CHECK),
		      CT_TIMEOUT, &rr, steps, &e) != 0) {
		json_object_set_new(pc, "status", json_string("not started"));
		json_object_set_new(pc, "error", json_string(e.msg));
		goto out;
	}
	if (rr.r.cancelled || rr.r.timed_out || !rr.r.exited) {
		char how[256];
		json_object_set_new(pc, "status", json_string(rr.r.cancelled ? "cancelled" :
					rr.r.timed_out ? "timed out" : "killed"));
		json_object_set_new(pc, "error", json_string(run_describe(&rr.r, how, sizeof how)));
		goto out;
	}
	json_object_set_new(pc, "status", json_string("ran"));
	json_object_set_new(pc, "exit_code", json_integer(rr.r.exit_code));
	if (fsutil_write_atomic(path, rr.buf ? rr.buf : "", rr.len, 0, &e) == 0)
		json_object_set_new(pc, "file", json_string(CONTRACT_PIP_CHECK));
	if (pipcheck_parse(rr.buf ? rr.buf : "", rr.len, path, &tree, &e) == 0) {
		json_object_set(pc, "problems", json_object_get(tree, "problems"));
		json_object_set(pc, "warnings", json_object_get(tree, "warnings"));
		json_decref(tree);
	} else {
		json_object_set_new(pc, "parse_error", json_string(e.msg));
	}
out:
	step_free(&rr);
	free(path);
}

/* 1 when st was modified after t (nanoseconds count). */
static int
newer(const struct stat *st, const struct timespec *t)
{
	return st->st_mtim.tv_sec > t->tv_sec ||
	       (st->st_mtim.tv_sec == t->tv_sec && st->st_mtim.tv_nsec > t->tv_nsec);
}

/* Is the rebuild stage's pip inspect (REBUILD_INSPECT) still what the venv
 * holds?  Yes when it was written after the venv folder, its pyvenv.cfg
 * and each lib/PYTHON/site-packages folder last changed: installing,
 * removing or upgrading a package changes its site-packages folder. */
static int
inspect_fresh(const char *path, const char *venv)
{
	struct stat f, st;
	char p[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int fresh = 1;

	if (stat(path, &f) != 0 || stat(venv, &st) != 0 || newer(&st, &f.st_mtim))
		return 0;
	snprintf(p, sizeof p, "%s/pyvenv.cfg", venv);
	if (stat(p, &st) != 0 || newer(&st, &f.st_mtim))
		return 0;
	snprintf(p, sizeof p, "%s/lib", venv);
	if ((d = opendir(p)) == NULL)
		return 0;
	while (fresh && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "python", 6) != 0)
			continue;
		snprintf(p, sizeof p, "%s/lib/%s/site-packages", venv, de->d_name);
		if (stat(p, &st) != 0 || newer(&st, &f.st_mtim))
			fresh = 0;
	}
	closedir(d);
	return fresh;
}

/* The tree of pip inspect: the one the rebuild stage of this run started
 * (step_prefetch), saved here; else the rebuild stage's file, when the venv
 * has not changed since (inspect_fresh: one pip inspect per check, not
 * two); else a run of its own (a step).  0 and *tree, or -1. */
static int
ct_inspect(struct kd_ctx *ctx, const struct kd_sink *sink, const char *vpy, const char *venv,
	   json_t *steps, json_t **tree, int *cached)
{
	char *path = kd_ctx_path(ctx, REBUILD_INSPECT), *buf = NULL;
	char **argv = venv_pip_argv(vpy, VENV_PIP_INSPECT);
	struct kd_step rr = { .keep = 1 };
	struct kd_err e = { 0 };
	size_t len = 0;
	int rc = -1, taken, rc_run = -1;

	*cached = 0;
	taken = step_prefetch_take(ctx, runner_prefetch(ctx), sink, "pip-inspect", "pip inspect",
				   (const char *const *)argv, &rr, steps, &rc_run, &e);
	argv_free(argv);
	if (taken) {
		/* its file is only a cache for a later check of this stage alone */
		if (rc_run == 0 && step_ok(&rr) && !rr.overflow &&
		    pipinspect_parse(rr.buf ? rr.buf : "", rr.len, "pip inspect", tree, &e) == 0) {
			step_save_from(ctx, &rr, '{', REBUILD_INSPECT, NULL);
			rc = 0;
		}
	} else if (path != NULL && inspect_fresh(path, venv) &&
	    fsutil_read_file(path, KD_CAP_PIP_OUTPUT, &buf, &len, NULL) == 0 &&
	    pipinspect_parse(buf, len, path, tree, &e) == 0) {
		*cached = 1;
		rc = 0;
	} else if (step_plan(ctx, sink, "pip-inspect", "pip inspect",
			     venv_pip_argv(vpy, VENV_PIP_INSPECT), CT_TIMEOUT, &rr, steps, &e) == 0 &&
		   step_ok(&rr) && !rr.overflow &&
		   pipinspect_parse(rr.buf ? rr.buf : "", rr.len, "pip inspect", tree, &e) == 0) {
		rc = 0;
	}
	step_free(&rr);
	free(buf);
	free(path);
	return rc;
}

/* The log of the last pip inspect in a steps array, or NULL. */
static const char *
inspect_log(const json_t *steps)
{
	const char *log = NULL;
	size_t i;
	json_t *s;

	json_array_foreach(steps, i, s) {
		const char *name = obs_rebuild_step_step(s);
		if (name != NULL && strcmp(name, "pip-inspect") == 0)
			log = obs_rebuild_step_log(s);
	}
	return log;
}

/* The log of the pip inspect whose tree is used: this stage's run; for
 * the saved file, the run of the last rebuild when it wrote the file
 * itself (a check of that stage alone), else the log the previous contract
 * named (it wrote the file, or named who did), so that the evidence of the
 * file is kept with it (logkeep.h). */
static const char *
rebuilt_log(const struct kd_ctx *ctx, const json_t *steps, int cached)
{
	const char *log;

	if (!cached)
		return inspect_log(steps);
	log = inspect_log(obs_rebuild_steps(kd_ctx_obs(ctx, stage_pos(&kd_stage_rebuild))));
	if (log == NULL)
		log = obs_contract_rebuilt_log(kd_ctx_obs(ctx, stage_pos(&kd_stage_contract)));
	return log;
}

/* What the project interpreter sees: pip inspect, labelled system/venv;
 * falls back to installed-after.txt.  Returns a new package array. */
static json_t *
ct_rebuilt(struct kd_ctx *ctx, const struct kd_sink *sink, const char *vpy, const char *venv,
	   json_t *inv, json_t *steps)
{
	struct kd_err e = { 0 };
	json_t *tree = NULL, *pkgs = NULL;
	char real[PATH_MAX];
	int cached;

	if (ct_inspect(ctx, sink, vpy, venv, steps, &tree, &cached) == 0) {
		pkgs = json_incref(json_object_get(tree, "packages"));
		json_decref(tree);
		size_t nsys = inventory_label_system(pkgs, realpath(venv, real) ? real : venv);
		/* a base environment's packages are outside the venv too: named apart */
		size_t nbase = baseenv_label(pkgs, obs_rebuild_base_site_dirs(kd_ctx_obs(ctx,
			stage_pos(&kd_stage_rebuild))));
		json_object_set_new(inv, "rebuilt", json_pack("{s:s, s:i, s:i, s:i}", "source",
			"pip inspect", "count", (json_int_t)json_array_size(pkgs), "system",
			(json_int_t)(nsys - nbase), "base", (json_int_t)nbase));
		const char *log = rebuilt_log(ctx, steps, cached);
		if (cached)
			json_object_set_new(json_object_get(inv, "rebuilt"), "from",
					    json_string(REBUILD_INSPECT));
		if (log != NULL)
			json_object_set_new(json_object_get(inv, "rebuilt"), "log",
					    json_string(log));
	} else {
		char *path = kd_ctx_path(ctx, REBUILD_INSTALLED);
		const char *fmt = NULL;
		if (inventory_load(path, &pkgs, &fmt, &e) == 0)
			json_object_set_new(inv, "rebuilt", json_pack("{s:s, s:i}", "source",
				REBUILD_INSTALLED, "count", (json_int_t)json_array_size(pkgs)));
		else
			json_object_set_new(inv, "rebuilt", json_pack("{s:s}", "error", e.msg));
		free(path);
	}
	return pkgs;
}

/* The reference inventory (python.inventory), or NULL with inv saying why. */
static json_t *
ct_reference(struct kd_ctx *ctx, json_t *inv)
{
	const char *f = yamlio_get_str(ctx->ref, "python.inventory");
	const json_t *na = json_object_get(json_object_get(ctx->ref, "not_applicable"),
					   "python.inventory");
	json_t *pkgs = NULL;
	struct kd_err e = { 0 };
	const char *fmt = NULL;
	char *path;

	if (f == NULL) {
		json_object_set_new(inv, "reference", json_string_value(na) ?
			json_pack("{s:s}", "not_applicable", json_string_value(na)) :
			json_pack("{s:b}", "missing", 1));
		return NULL;
	}
	path = f[0] == '/' ? strdup(f) : fsutil_join(ctx->project_dir, f);
	if (inventory_load(path, &pkgs, &fmt, &e) != 0) {
		char msg[1200];
		json_object_set_new(inv, "reference", json_pack("{s:s, s:s}", "file", f, "error",
			kd_err_format(&e, msg, sizeof msg)));
	} else {
		json_object_set_new(inv, "reference", json_pack("{s:s, s:s, s:i}", "file", f,
			"format", fmt, "count", (json_int_t)json_array_size(pkgs)));
	}
	free(path);
	return pkgs;
}

/* Canonical names of pip/setuptools/wheel pinned in the rebuild file. */
static json_t *
ct_pinned_tooling(struct kd_ctx *ctx)
{
	char *path = fsutil_join(ctx->project_dir, REBUILD_REQUIREMENTS);
	json_t *lint = NULL, *out = json_array(), *r;
	size_t i;

	if (requirements_load(path, 0, &lint, NULL) == 0) {
		json_array_foreach(json_object_get(lint, "requirements"), i, r) {
			const char *cn = json_string_value(json_object_get(r, "canonical_name"));
			if (inventory_is_tooling(cn) && json_is_true(json_object_get(r, "pinned")))
				json_array_append_new(out, json_string(cn));
		}
	}
	json_decref(lint);
	free(path);
	return out;
}

static json_t *
find_pkg(const json_t *pkgs, const char *cn)
{
	json_t *p;
	size_t i;

	json_array_foreach(pkgs, i, p) {
		const char *c = json_string_value(json_object_get(p, "canonical_name"));
		if (c != NULL && cn != NULL && strcmp(c, cn) == 0)
			return p;
	}
	return NULL;
}

static int
contract_gather(struct kd_ctx *ctx, struct kd_result *res, const struct kd_sink *sink,
		struct kd_err *err)
{
	char *venv = fsutil_join(ctx->project_dir, REBUILD_VENV);
	char *vpy = fsutil_join(venv, "bin/python");
	json_t *obs = json_object(), *steps = json_array(), *inv;
	json_t *rebuilt = NULL, *ref = NULL, *pinned, *p;
	size_t i;

	res->obs = obs;
	json_object_set_new(obs, "steps", steps);
	json_object_set_new(obs, "venv", json_string(REBUILD_VENV));
	if (access(vpy, X_OK) != 0) {
		json_object_set_new(obs, "venv_missing", json_true());
		goto out;
	}
	ct_pip_check(ctx, sink, vpy, obs, steps);
	if (kd_sink_cancelled(sink))
		goto out;
	inv = json_object();
	json_object_set_new(obs, "inventory", inv);
	rebuilt = ct_rebuilt(ctx, sink, vpy, venv, inv, steps);
	ref = ct_reference(ctx, inv);
	pinned = ct_pinned_tooling(ctx);
	json_object_set_new(inv, "pinned_tooling", pinned);
	/* problems of system packages are shown apart */
	json_array_foreach(json_object_get(json_object_get(obs, "pip_check"), "problems"), i, p) {
		json_t *q = find_pkg(rebuilt, json_string_value(json_object_get(p,
								"canonical_package")));
		json_object_set_new(p, "system", json_boolean(q != NULL &&
					json_is_true(json_object_get(q, "system"))));
		if (q != NULL && json_is_true(json_object_get(q, "base")))
			json_object_set_new(p, "base", json_true());
	}
	if (rebuilt != NULL && ref != NULL) {
		json_t *cmp = inventory_compare(ref, rebuilt, 0);
		json_array_foreach(json_object_get(cmp, "differences"), i, p) {
			const char *cn = json_string_value(json_object_get(p, "canonical_name"));
			json_t *q = find_pkg(rebuilt, cn);
			json_object_set_new(p, "system", json_boolean(q != NULL &&
						json_is_true(json_object_get(q, "system"))));
			if (q != NULL && json_is_true(json_object_get(q, "base")))
				json_object_set_new(p, "base", json_true());
			int pin = 0;
			json_t *t;
			size_t k;
			json_array_foreach(pinned, k, t)
				if (strcmp(json_string_value(t), cn) == 0)
					pin = 1;
			json_object_set_new(p, "pinned", json_boolean(pin));
		}
		json_object_set_new(inv, "comparison", cmp);
	}
	/* the rebuilt inventory, short: name, version, system */
	json_t *short_list = json_array();
	json_array_foreach(rebuilt, i, p)
		json_array_append_new(short_list, json_pack("{s:O, s:O, s:b}", "name",
			json_object_get(p, "name"), "version", json_object_get(p, "version"),
			"system", json_is_true(json_object_get(p, "system"))));
	json_object_set_new(inv, "packages", short_list);
out:
	json_decref(rebuilt);
	json_decref(ref);
	free(venv);
	free(vpy);
	kd_err_clear(err);
	return 0;
}

/* ---- check ---- */

static void
check_pip(const json_t *obs, struct kd_rows *rows)
{
	const json_t *probs = obs_contract_pip_check_problems(obs), *p, *first_venv = NULL;
	const char *st = obs_contract_pip_check_status(obs);
	const char *file = obs_contract_pip_check_file(obs);
	size_t i, nvenv = 0, nsys = 0;
	int code = (int)obs_contract_pip_check_exit_code(obs);
	char o[512], id[64], label[600];

	if (st == NULL || strcmp(st, "ran") != 0) {
		kd_rows_fail(rows, "contract.pip_check", "pip check is clean", st ? st : "not run",
			 "exit 0", obs_contract_pip_check_error(obs),
			 "check again; the log has the details");
		return;
	}
	json_array_foreach(probs, i, p) {
		int sys = obs_contract_problem_system(p);
		if (sys) {
			nsys++;
		} else {
			nvenv++;
			if (first_venv == NULL)
				first_venv = p;
		}
	}
	if (code == 0) {
		kd_rows_add(rows, "contract.pip_check", KD_R_PASS, "pip check is clean", "exit 0",
			    "exit 0", file);
	} else if (nvenv == 0 && nsys > 0) {
		snprintf(o, sizeof o, "exit %d: %zu problem%s, all of system packages outside the "
			 "venv", code, nsys, nsys == 1 ? "" : "s");
		struct kd_row *w = kd_rows_add(rows, "contract.pip_check", KD_R_WARN,
					       "pip check is clean", o, "exit 0", file);
		kd_row_set_error(w, "pip check finds problems only among this machine's system "
				 "packages, which the rebuild did not install",
				 "nothing of the project to fix; under check --strict, acknowledge it "
				 "as a deviation (d, or kernodeck deviate DIR --stage contract --check "
				 "contract.pip_check --why TEXT)");
	} else {
		snprintf(o, sizeof o, "exit %d: %zu problem%s in the venv%s", code, nvenv,
			 nvenv == 1 ? "" : "s", nsys ? ", more in system packages" : "");
		struct kd_row *r = kd_rows_fail(rows, "contract.pip_check", "pip check is clean", o,
			"exit 0", first_venv ? obs_contract_problem_line(first_venv) :
			"pip check failed without a line kernodeck recognises",
			"install the missing or conflicting requirement in " REBUILD_REQUIREMENTS
			" and rebuild (stage 3), or record a deviation");
		free(r->evidence);
		r->evidence = file ? strdup(file) : NULL;
	}
	/* one row per problem, venv first, system apart */
	for (int pass = 0; pass < 2; pass++) {
		json_array_foreach(probs, i, p) {
			int sys = obs_contract_problem_system(p);
			const char *kind = obs_contract_problem_kind(p);
			const char *pkg = obs_contract_problem_package(p);
			const char *ver = obs_contract_problem_version(p);
			if (sys != pass)
				continue;
			snprintf(id, sizeof id, "contract.problem.%zu", i + 1);
			snprintf(label, sizeof label, "%s%s %s %s", !sys ? "" :
				 obs_contract_problem_base(p) ?
				 "[base environment, outside the venv] " : "[system, outside the venv] ",
				 kind, pkg ? pkg : "", ver ? ver : "");
			kd_rows_add(rows, id, KD_R_INFO, label, obs_contract_problem_line(p),
				    strcmp(kind, "conflict") == 0 ? obs_contract_problem_requirement(p) :
				    NULL, file);
		}
	}
}

/* The mark of a difference: "intentional", "to-fix" or NULL. */
static const char *
mark_of(const struct kd_ctx *ctx, const char *cn)
{
	const json_t *m = json_object_get(yamlio_get(ctx->state.settings, "contract.marks"), cn);

	return json_string_value(m);
}

static void
diff_label(const json_t *d, char *buf, size_t len)
{
	const char *kind = obs_contract_diff_kind(d), *name = obs_contract_diff_name(d) ?
		obs_contract_diff_name(d) : obs_contract_diff_canonical_name(d);
	const char *rv = obs_contract_diff_ref_version(d), *nv = obs_contract_diff_new_version(d);
	const char *sys = !obs_contract_diff_system(d) ? "" :
		obs_contract_diff_base(d) ? " [base environment]" :
		" [system site packages]";

	if (strcmp(kind, "local-label") == 0)
		snprintf(buf, len, "LOCAL LABEL CHANGED: %s %s -> %s%s", name, rv, nv, sys);
	else if (strcmp(kind, "missing") == 0)
		snprintf(buf, len, "missing: %s %s", name, rv ? rv : "");
	else if (strcmp(kind, "extra") == 0)
		snprintf(buf, len, "extra: %s %s%s", name, nv ? nv : "", sys);
	else
		snprintf(buf, len, "version changed: %s %s -> %s%s", name, rv ? rv : "?",
			 nv ? nv : "?", sys);
}

static void
check_differences(struct kd_ctx *ctx, const json_t *obs, struct kd_result *res)
{
	struct kd_rows *rows = &res->rows;
	const json_t *d;
	json_t *intentional = json_array(), *sys_extras = json_array();
	size_t i;
	char id[300], label[700];

	json_array_foreach(obs_contract_differences(obs), i, d) {
		const char *cn = obs_contract_diff_canonical_name(d);
		const char *mark = mark_of(ctx, cn);
		const char *rv = obs_contract_diff_ref_version(d), *nv = obs_contract_diff_new_version(d);
		const char *kind = obs_contract_diff_kind(d), *detail = obs_contract_diff_detail(d);
		struct kd_row *r;
		snprintf(id, sizeof id, CT_DIFF_PREFIX "%s", cn);
		diff_label(d, label, sizeof label);
		if (obs_contract_diff_tooling(d) && !obs_contract_diff_pinned(d) && mark == NULL) {
			char l2[800];
			snprintf(l2, sizeof l2, "%s (packaging tool, not pinned: informative)", label);
			kd_rows_add(rows, id, KD_R_INFO, l2, nv ? nv : "(absent)", rv ? rv : "(absent)",
				    NULL);
			continue;
		}
		if (strcmp(kind, "extra") == 0 && mark == NULL && obs_contract_diff_system(d)) {
			/* the machine's own packages seen through system site
			 * packages: not installed by the project, so not part of its
			 * contract; listed together, not failed */
			char item[300];
			snprintf(item, sizeof item, "%s%s %s", json_array_size(sys_extras) ? ", " : "",
				 obs_contract_diff_name(d) ? obs_contract_diff_name(d) : cn,
				 nv ? nv : "");
			json_array_append_new(sys_extras, json_string(item));
			continue;
		}
		if (mark != NULL && strcmp(mark, "intentional") == 0) {
			char o[400];
			snprintf(o, sizeof o, "%s (intentional: a variant)", nv ? nv : "(absent)");
			kd_rows_add(rows, id, KD_R_PASS, label, o, rv ? rv : "(absent)", NULL);
			json_array_append_new(intentional, json_string(cn));
			continue;
		}
		r = kd_rows_add(rows, id, KD_R_FAIL, label, nv ? nv : "(absent)",
				rv ? rv : "(absent)", NULL);
		if (mark != NULL && strcmp(mark, "to-fix") == 0)
			kd_row_set_error(r, detail, "marked to fix: change "
					 REBUILD_REQUIREMENTS " and rebuild");
		else if (obs_contract_diff_system(d))
			kd_row_set_error(r, detail,
					 "it comes from the system site packages (outside the venv): "
					 "mark it intentional (i), every such one at once (a), or to "
					 "fix (t)");
		else
			kd_row_set_error(r, detail,
					 strcmp(kind, "local-label") == 0 ?
					 "the same version with another build (CUDA/ROCm/CPU); pin "
					 "the local label, or mark it intentional (i) or to fix (t)" :
					 "mark it intentional (i: the run becomes a variant) or to "
					 "fix (t)");
	}
	if (json_array_size(sys_extras) > 0) {
		size_t cap = 64, n = 0;
		char *o;
		const json_t *x;
		json_array_foreach(sys_extras, i, x)
			cap += strlen(json_string_value(x));
		o = malloc(cap);
		if (o != NULL) {
			o[0] = '\0';
			json_array_foreach(sys_extras, i, x)
				n += (size_t)snprintf(o + n, cap - n, "%s", json_string_value(x));
			kd_rows_add(rows, "contract.system-extras", KD_R_INFO,
				    "extra packages of this machine seen through system site packages "
				    "(not installed by the project, not in the reference)", o,
				    "(not part of the contract)", NULL);
			free(o);
		}
	}
	json_decref(sys_extras);
	/* the variant, named in the state */
	kd_result_set(res, "variant", json_boolean(json_array_size(intentional) > 0));
	kd_result_set(res, "variant_differences", json_incref(intentional));
	if (json_array_size(intentional) > 0) {
		char o[600];
		size_t n = 0;
		const json_t *x;
		o[0] = '\0';
		json_array_foreach(intentional, i, x)
			n += (size_t)snprintf(o + (n < sizeof o ? n : sizeof o - 1),
					      n < sizeof o ? sizeof o - n : 1, "%s%s",
					      i ? ", " : "", json_string_value(x));
		kd_rows_add(rows, "contract.variant", KD_R_INFO,
			    "this run is a variant of the reference", o, NULL, NULL);
	}
	json_decref(intentional);
}

static void
check_reference(const json_t *obs, struct kd_rows *rows)
{
	const char *rb_error = obs_contract_rebuilt_error(obs);
	const char *na = obs_contract_reference_not_applicable(obs);
	const char *error = obs_contract_reference_error(obs);

	if (rb_error != NULL)
		kd_rows_fail(rows, "contract.inventory", "the rebuilt inventory is known", "unknown",
			 "pip inspect or installed-after.txt", rb_error,
			 "run stage 3 (rebuild) again");
	if (na != NULL) {
		kd_rows_add(rows, "contract.reference_inventory", KD_R_INFO,
			    "the reference inventory is known", "not applicable", na, NULL);
	} else if (obs_contract_reference_missing(obs)) {
		kd_rows_fail(rows, "contract.reference_inventory", "the reference inventory is known",
			 "python.inventory is not set", "a pip freeze or pip inspect file",
			 "the reference names no inventory to compare with",
			 "on the reference machine run `kernodeck capture`, or set python.inventory "
			 "in the reference (or mark it not applicable)");
	} else if (error != NULL) {
		kd_rows_fail(rows, "contract.reference_inventory", "the reference inventory is known",
			 "unreadable", obs_contract_reference_file(obs), error, "fix the file named");
	} else {
		kd_rows_addf(rows, "contract.reference_inventory", KD_R_PASS,
			     "the reference inventory is known", "readable", "%lld packages (%s)",
			     (long long)obs_contract_reference_count(obs),
			     obs_contract_reference_format(obs));
	}
}

static int
contract_check(struct kd_ctx *ctx, struct kd_result *res, struct kd_err *err)
{
	const json_t *obs = res->obs;

	(void)err;
	if (obs_contract_venv_missing(obs)) {
		kd_rows_fail(&res->rows, "contract.venv", "the rebuilt venv exists", "missing",
			 REBUILD_VENV "/bin/python", "there is no " REBUILD_VENV "/bin/python",
			 "pass stage 3 (rebuild) first");
		return 0;
	}
	check_pip(obs, &res->rows);
	if (obs_contract_inventory(obs) != NULL) {
		check_reference(obs, &res->rows);
		if (obs_contract_comparison(obs) != NULL)
			check_differences(ctx, obs, res);
	}
	kd_rows_add(&res->rows, "contract.proof", KD_R_INFO, "what a clean pip check proves",
		    "that the installed packages' metadata agree with each other",
		    "not that the GPU driver, the CUDA/ROCm runtime or native extensions load "
		    "and work: stage 5 runs them", NULL);
	return 0;
}

static void
contract_describe(const struct kd_result *res, struct kd_rows *rows)
{
	const json_t *obs = res->obs;

	if (obs_contract_comparison(obs) == NULL)
		return;
	kd_rows_addf(rows, "info.inventory", KD_R_INFO, "inventory", NULL,
		     "%lld the same, %zu missing, %zu extra, %zu version changed, %zu local label "
		     "changed", (long long)obs_contract_comparison_same(obs),
		     json_array_size(obs_contract_comparison_missing(obs)),
		     json_array_size(obs_contract_comparison_extra(obs)),
		     json_array_size(obs_contract_comparison_version_changed(obs)),
		     json_array_size(obs_contract_comparison_local_label_changed(obs)));
	kd_rows_addf(rows, "info.system_site", KD_R_INFO, "from system site packages", NULL,
		     "%lld of %lld packages", (long long)obs_contract_rebuilt_system(obs),
		     (long long)obs_contract_rebuilt_count(obs));
	if (obs_contract_rebuilt_base(obs) > 0)
		kd_rows_addf(rows, "info.base", KD_R_INFO, "from the base environment", NULL,
			     "%lld of %lld packages", (long long)obs_contract_rebuilt_base(obs),
			     (long long)obs_contract_rebuilt_count(obs));
}

/* ---- actions: marks ---- */

static int
ct_mark(struct kd_ctx *ctx, const char *arg, const char *value, const struct kd_sink *sink,
	struct kd_err *err)
{
	int idx = stage_pos(&kd_stage_contract);
	const json_t *obs = kd_ctx_obs(ctx, idx), *d;
	const char *cn;
	char path[300], line[400];
	int found = 0;
	size_t i;

	if (arg == NULL && value == NULL)
		goto judge;   /* the marks changed elsewhere: judge again */
	if (arg == NULL || strncmp(arg, CT_DIFF_PREFIX, strlen(CT_DIFF_PREFIX)) != 0)
		return kd_err_set(err, KD_EINPUT, NULL, 0,
				  "select an inventory difference (a contract.diff.* row) to mark");
	cn = arg + strlen(CT_DIFF_PREFIX);
	json_array_foreach(obs_contract_differences(obs), i, d)
		if (strcmp(obs_contract_diff_canonical_name(d), cn) == 0)
			found = 1;
	if (!found || strlen(cn) > 200 || strpbrk(cn, ".[]") != NULL)
		return kd_err_set(err, KD_EINPUT, NULL, 0, "%s is not an inventory difference of "
				  "the last check", cn);
	snprintf(path, sizeof path, "contract.marks.%s", cn);
	if (value != NULL) {
		yamlio_set(ctx->state.settings, path, json_string(value));
	} else {
		json_t *marks = yamlio_get(ctx->state.settings, "contract.marks");
		if (json_is_object(marks))
			json_object_del(marks, cn);
	}
	snprintf(line, sizeof line, "%s: %s", cn, value ? value : "mark cleared");
	kd_sink_line(sink, line);
judge:
	/* judge again on the same observations: no need to run pip */
	if (obs != NULL) {
		struct kd_result res;
		kd_result_init(&res);
		res.obs = (json_t *)obs;
		contract_check(ctx, &res, err);
		stage_settle(ctx, idx, &res, err);
		res.obs = NULL;   /* borrowed */
		kd_result_free(&res);
	}
	return 0;
}

static int
act_intentional(struct kd_ctx *ctx, const char *arg, const struct kd_sink *sink,
		struct kd_err *err)
{
	return ct_mark(ctx, arg, "intentional", sink, err);
}

static int
act_to_fix(struct kd_ctx *ctx, const char *arg, const struct kd_sink *sink, struct kd_err *err)
{
	return ct_mark(ctx, arg, "to-fix", sink, err);
}

static int
act_clear(struct kd_ctx *ctx, const char *arg, const struct kd_sink *sink, struct kd_err *err)
{
	return ct_mark(ctx, arg, NULL, sink, err);
}

/* Mark every unmarked difference of a system site package intentional. */
static int
act_system_intentional(struct kd_ctx *ctx, const char *arg, const struct kd_sink *sink,
		       struct kd_err *err)
{
	int idx = stage_pos(&kd_stage_contract), n = 0;
	const json_t *d;
	size_t i;
	char msg[128];

	(void)arg;
	json_array_foreach(obs_contract_differences(kd_ctx_obs(ctx, idx)), i, d) {
		const char *cn = obs_contract_diff_canonical_name(d);
		char path[300];
		if (!obs_contract_diff_system(d) || mark_of(ctx, cn) != NULL ||
		    strlen(cn) > 200 || strpbrk(cn, ".[]") != NULL)
			continue;
		snprintf(path, sizeof path, "contract.marks.%s", cn);
		yamlio_set(ctx->state.settings, path, json_string("intentional"));
		n++;
	}
	if (n == 0)
		return kd_err_set(err, KD_EINPUT, NULL, 0,
				  "no unmarked difference comes from the system site packages");
	snprintf(msg, sizeof msg, "%d system site package difference%s marked intentional", n,
		 n == 1 ? "" : "s");
	kd_sink_line(sink, msg);
	return ct_mark(ctx, NULL, NULL, sink, err);
}

static const struct kd_action contract_actions[] = {
	{ .key = 'i', .name = "intentional", .run = act_intentional,
	  .label = "mark the difference intentional (a variant)",
	  .arg_name = "PACKAGE", .arg_prefix = CT_DIFF_PREFIX, .arg_required = 1 },
	{ .key = 'a', .name = "system-intentional", .run = act_system_intentional,
	  .label = "mark every system site package difference intentional" },
	{ .key = 't', .name = "to-fix", .run = act_to_fix,
	  .label = "mark the difference to be fixed",
	  .arg_name = "PACKAGE", .arg_prefix = CT_DIFF_PREFIX, .arg_required = 1 },
	{ .key = 'x', .name = "clear", .run = act_clear,
	  .label = "clear the difference's mark",
	  .arg_name = "PACKAGE", .arg_prefix = CT_DIFF_PREFIX, .arg_required = 1 },
};

const struct kd_stage_ops kd_stage_contract = {
	.id = "contract",
	.title = "Contract",
	.summary = "pip check and the rebuilt inventory against the reference's",
	.replay = 1,
	.gather = contract_gather,
	.check = contract_check,
	.describe = contract_describe,
	.actions = contract_actions,
	.nactions = sizeof contract_actions / sizeof *contract_actions,
};
