/*
 * stage-sample.c - stage 6, "sample": run the user's entry point on the
 * small sample, reread what it wrote, and compare it with the reference
 * output under the declared rule.
 *
 * gather moves the previous output folder aside (under the kernodeck
 * folder's old-outputs/, or beside it when that is another file system),
 * runs code.entry_point ("python" standing for the project interpreter,
 * .venv-rebuild/bin/python) in the project folder with a timeout, streamed
 * and logged, and follows its output: "KD_STEP: NAME" lines tell the step
 * reached, and the first Python traceback gives the first error line and
 * its innermost frame.  Then it rereads the outputs from disk (count,
 * dtype, shape, NaN and infinite values), checks the identifiers against
 * the input's, and compares with result.example under result.rule.
 * Everything lands in sample.yaml; check only judges it.
 *
 * The rule's digest (SHA-256 of its canonical JSON) is recorded with every
 * comparison.  The first digest seen is kept in the state
 * (settings.sample.rule_baseline); when a later comparison is made under
 * another rule, the check sample.rule-changed fails and a deviation with
 * the rule before and after is recorded automatically.
 */
#include "config.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/argv.h"
#include "kernodeck/beneath.h"
#include "kernodeck/compare.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/logkeep.h"
#include "kernodeck/obs-sample.h"
#include "kernodeck/outputs.h"
#include "kernodeck/pytrace.h"
#include "kernodeck/reference.h"
#include "kernodeck/resume.h"
#include "kernodeck/run.h"
#include "kernodeck/stage.h"
#include "kernodeck/state.h"
#include "kernodeck/step.h"

#define SAMPLE_MAX_FILES  256
#define SAMPLE_MAX_OLD    4096   /* old-outputs/ entries looked at when pruning */

/* --- following the entry point's output --- */

struct follow {
	const struct kd_sink *sink;
	struct pytrace tr;
	char first_err[512];    /* the first line that says error, fatal... */
	char last[512];         /* the last line that was not blank */
};

/* Does a line of output say something failed ("error:", "Fatal", ...)? */
static int
says_error(const char *line, size_t len)
{
	static const char *const words[] = { "error", "fatal", "exception", "no such file",
					     "not found", "cannot", "failed" };
	char low[512];
	size_t n = len < sizeof low - 1 ? len : sizeof low - 1;

	for (size_t i = 0; i < n; i++)
		low[i] = (char)(line[i] >= 'A' && line[i] <= 'Z' ? line[i] + 32 : line[i]);
	low[n] = '\0';
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strstr(low, words[i]) != NULL)
			return 1;
	return 0;
}

/* The sink has the line already (the step streams it): the traceback
 * follower reads it too, and a step it announces goes to the sink. */
static void
follow_line(void *u, const char *line, size_t len)
{
	struct follow *f = u;
	size_t n = len < sizeof f->last - 1 ? len : sizeof f->last - 1;

	if (pytrace_feed(&f->tr, line, len))
		kd_sink_step(f->sink, f->tr.step, -1);
	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\r'))
		n--;
	if (n == 0)
		return;
	memcpy(f->last, line, n);
	f->last[n] = '\0';
	if (f->first_err[0] == '\0' && says_error(line, n))
		memcpy(f->first_err, f->last, n + 1);
}

/* --- moving the previous outputs aside --- */

/* Refuse output folders that would move the project itself, kernodeck's
 * folder or the venv aside. */
static int
outputs_path_ok(const struct kd_ctx *ctx, const char *rel, const char *abs)
{
	size_t n = strlen(abs);

	if (rel[0] == '\0' || strstr(rel, "..") != NULL)
		return 0;
	if (strncmp(ctx->project_dir, abs, n) == 0 &&
	    (ctx->project_dir[n] == '\0' || ctx->project_dir[n] == '/'))
		return 0;
	if (strncmp(ctx->state_dir, abs, n) == 0 &&
	    (ctx->state_dir[n] == '\0' || ctx->state_dir[n] == '/'))
		return 0;
	if (strncmp(abs, ctx->state_dir, strlen(ctx->state_dir)) == 0)
		return 0;
	if (strcmp(rel, ".venv-rebuild") == 0 || strncmp(rel, ".venv-rebuild/", 14) == 0 ||
	    strcmp(rel, ".git") == 0 || strncmp(rel, ".git/", 5) == 0)
		return 0;
	return 1;
}

static int
strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* old-outputs/ keeps the newest logkeep_history() folders (the logs' rule:
 * KD_CAP_LOG_HISTORY, KD_LOG_HISTORY), keep being the one just moved there;
 * the names begin with their time stamp, so the newest sort last. */
static void
prune_old_outputs(const char *dir, const char *keep)
{
	char *names[SAMPLE_MAX_OLD];
	size_t n = 0, limit = (size_t)logkeep_history();
	struct dirent *de;
	DIR *d = opendir(dir);

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL && n < SAMPLE_MAX_OLD)
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9' &&
		    (names[n] = strdup(de->d_name)) != NULL)
			n++;
	closedir(d);
	qsort(names, n, sizeof names[0], strp_cmp);
	for (size_t i = 0; i < n; i++) {
		char *p = fsutil_join(dir, names[i]);
		if (p != NULL && i + limit < n && (keep == NULL || strcmp(p, keep) != 0))
			fsutil_rmtree(p, NULL);
		free(p);
		free(names[i]);
	}
}

static int
move_aside(const struct kd_ctx *ctx, const char *abs, json_t *obs, struct kd_err *err)
{
	char suffix[512], prefix[PATH_MAX];
	const char *base = strrchr(abs, '/') ? strrchr(abs, '/') + 1 : abs;
	char *dir = kd_ctx_path(ctx, "old-outputs"), *dest;
	int rc = 0;

	snprintf(suffix, sizeof suffix, "-%s", base);
	dest = fsutil_stamped_name(dir, "", suffix);
	/* into the state folder, on whatever file system it is (a copy there
	 * when rename cannot): beside the project, it made code.clean fail */
	if (dest == NULL || fsutil_mkdirs(dir, NULL) != 0 || fsutil_move_tree(abs, dest, NULL) != 0) {
		free(dest);
		snprintf(prefix, sizeof prefix, "%s.old-", abs);
		dest = fsutil_stamped_name(NULL, prefix, "");
		if (dest == NULL || beneath_rename(abs, dest, 0, NULL) != 0)
			rc = kd_err_sys(err, KD_EENV, abs, errno,
					"cannot move the previous outputs %s aside", abs);
	}
	if (rc == 0) {
		json_object_set_new(obs, "moved_aside", json_pack("{s:s, s:s}", "from", abs, "to", dest));
		prune_old_outputs(dir, dest);
	}
	free(dest);
	free(dir);
	return rc;
}

/* Where a containment root is set (a replay), the outputs folder the
 * entry point left is still reached without a link: one it made while it
 * ran would have kernodeck read (and a later run move) what is outside
 * the work folder.  0 (also when there is no folder), or KD_EINPUT. */
static int
outputs_contained(const char *abs, struct kd_err *err)
{
	struct kd_err e;
	int fd;

	if (beneath_root() == NULL)
		return 0;
	fd = beneath_open(abs, O_RDONLY | O_DIRECTORY, 0, &e);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (e.code != KD_EINPUT)
		return 0;   /* not there, or not a folder: the rows say so */
	return kd_err_set(err, KD_EINPUT, abs, 0, "after the entry point ran: %s", e.msg);
}

/* --- rereading the outputs --- */

/* Expected output files: result.files, else every file of the format in
 * the folder (sorted). */
static json_t *
output_files(const json_t *ref, const char *folder, const char *format)
{
	const json_t *files = yamlio_get(ref, "result.files");
	json_t *list = json_array();
	char *names[SAMPLE_MAX_FILES];
	size_t n = 0, i;
	struct dirent *de;
	DIR *d;

	if (json_is_array(files)) {
		json_t *f;
		json_array_foreach(files, i, f)
			if (json_is_string(f))
				json_array_append(list, f);
		return list;
	}
	if ((d = opendir(folder)) == NULL)
		return list;
	while ((de = readdir(d)) != NULL && n < SAMPLE_MAX_FILES) {
		const char *fmt = output_format_of(de->d_name);
		if (de->d_name[0] == '.' || fmt == NULL || (format && strcmp(fmt, format) != 0))
			continue;
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, strp_cmp);
	for (i = 0; i < n; i++) {
		json_array_append_new(list, json_string(names[i]));
		free(names[i]);
	}
	return list;
}

/* A path from the reference, relative to the project unless absolute. */
static char *
project_path(const struct kd_ctx *ctx, const char *p)
{
	return p[0] == '/' ? strdup(p) : fsutil_join(ctx->project_dir, p);
}

struct reread {
	struct kd_output main;   /* the first output file, loaded */
	int have_main;
	char **ref_ids;
	size_t n_ref_ids;
};

/* Identifiers: the output's (ids.file, or the column/key) against the
 * input's (ids.reference); the correspondence goes into obs.ids and the
 * output rows are put in the input's order when they can be. */
static void
check_ids(const struct kd_ctx *ctx, struct reread *rr, json_t *obs)
{
	const json_t *ids = yamlio_get(ctx->ref, "result.ids");
	const char *file = json_string_value(json_object_get(ids, "file"));
	const char *refp = json_string_value(json_object_get(ids, "reference"));
	const char *order = json_string_value(json_object_get(ids, "order"));
	int order_set = order != NULL && strcmp(order, "set") == 0;
	json_t *o = json_object();
	char **out_ids = NULL;
	size_t n_out = 0;
	struct kd_err err = { 0 };
	struct cmp_ids res;
	char ebuf[1200];

	json_object_set_new(obs, "ids", o);
	if (!json_is_object(ids)) {
		json_object_set_new(o, "declared", json_false());
		return;
	}
	json_object_set_new(o, "declared", json_true());
	json_object_set_new(o, "order", json_string(order_set ? "set" : "same"));
	if (refp == NULL) {
		json_object_set_new(o, "error", json_string("result.ids.reference (the input identifiers) is not declared"));
		return;
	}
	char *rp = project_path(ctx, refp);
	int rc = output_read_ids(rp, &rr->ref_ids, &rr->n_ref_ids, &err);
	free(rp);
	if (rc != 0) {
		json_object_set_new(o, "error", json_string(kd_err_format(&err, ebuf, sizeof ebuf)));
		return;
	}
	if (rr->n_ref_ids > 0 && rr->ref_ids[rr->n_ref_ids - 1][0] == '\0')
		free(rr->ref_ids[--rr->n_ref_ids]);
	if (!rr->have_main) {
		json_object_set_new(o, "error", json_string("no output to match"));
		return;
	}
	if (file != NULL) {
		char *fp = project_path(ctx, file);
		rc = output_read_ids(fp, &out_ids, &n_out, &err);
		free(fp);
		if (rc != 0) {
			json_object_set_new(o, "error", json_string(kd_err_format(&err, ebuf, sizeof ebuf)));
			return;
		}
		if (n_out > 0 && out_ids[n_out - 1][0] == '\0')
			free(out_ids[--n_out]);
	} else if (rr->main.data.ids != NULL) {
		out_ids = rr->main.data.ids;
		n_out = rr->main.data.rows;
	} else {
		json_object_set_new(o, "error", json_string("result.ids declares no file, column or key for the output's identifiers"));
		return;
	}
	cmp_ids_check(out_ids, n_out, rr->ref_ids, rr->n_ref_ids, order_set, &res);
	json_object_set_new(o, "output", json_integer((json_int_t)n_out));
	json_object_set_new(o, "input", json_integer((json_int_t)rr->n_ref_ids));
	json_object_set_new(o, "rows", json_integer((json_int_t)rr->main.data.rows));
	json_object_set_new(o, "missing", json_integer((json_int_t)res.missing));
	json_object_set_new(o, "extra", json_integer((json_int_t)res.extra));
	json_object_set_new(o, "duplicates", json_integer((json_int_t)res.duplicates));
	json_object_set_new(o, "same_order", json_boolean(res.same_order));
	if (res.first_missing)
		json_object_set_new(o, "first_missing", json_string(res.first_missing));
	if (res.first_extra)
		json_object_set_new(o, "first_extra", json_string(res.first_extra));
	if (res.first_duplicate)
		json_object_set_new(o, "first_duplicate", json_string(res.first_duplicate));
	if (!res.same_order && res.missing == 0 && n_out == rr->n_ref_ids)
		json_object_set_new(o, "first_misplaced", json_string(rr->ref_ids[res.first_misplaced]));
	json_object_set_new(o, "ok", json_boolean(res.ok && n_out == rr->main.data.rows));
	/* rows in the input's order, named by the input's ids */
	if (res.perm != NULL && n_out == rr->main.data.rows) {
		struct cmp_data p;
		if (cmp_data_permute(&rr->main.data, res.perm, rr->n_ref_ids, rr->ref_ids, &p) == 0) {
			if (out_ids == rr->main.data.ids)
				out_ids = NULL;
			cmp_data_free(&rr->main.data);
			rr->main.data = p;
		} else {
			cmp_data_free(&p);
		}
	}
	cmp_ids_free(&res);
	if (out_ids != rr->main.data.ids)
		output_free_ids(out_ids, n_out);
}

/* The comparison with result.example under result.rule. */
static void
compare_example(const struct kd_ctx *ctx, struct reread *rr, json_t *obs)
{
	const json_t *rule = yamlio_get(ctx->ref, "result.rule");
	const char *ex = yamlio_get_str(ctx->ref, "result.example.path");
	const char *tensor = yamlio_get_str(ctx->ref, "result.tensor");
	const char *idcol = yamlio_get_str(ctx->ref, "result.ids.column");
	const char *idkey = yamlio_get_str(ctx->ref, "result.ids.key");
	json_t *o = json_object(), *rep;
	struct cmp_rule r;
	struct kd_output exo;
	struct kd_err err = { 0 };
	struct cmp_report cr;
	struct cmp_data aligned;
	const struct cmp_data *refd;
	char why[512], digest[65], ebuf[1200], *canon, *exp;

	json_object_set_new(obs, "comparison", o);
	if (cmp_rule_parse(rule, &r, why, sizeof why) != 0) {
		json_object_set_new(o, "error", json_string(why));
		json_object_set_new(o, "rule_declared", json_false());
		return;
	}
	if (ex == NULL) {
		json_object_set_new(o, "error", json_string("result.example.path (the reference output) is not declared"));
		return;
	}
	if (!rr->have_main) {
		json_object_set_new(o, "error", json_string("no output was read"));
		return;
	}
	exp = project_path(ctx, ex);
	json_object_set_new(o, "example", json_string(ex));
	if (output_load(exp, NULL, tensor, idcol ? idcol : idkey, &exo, &err) != 0) {
		free(exp);
		json_object_set_new(o, "error", json_string(kd_err_format(&err, ebuf, sizeof ebuf)));
		return;
	}
	free(exp);
	refd = &exo.data;
	memset(&aligned, 0, sizeof aligned);
	if (exo.data.ids != NULL && rr->ref_ids != NULL) {
		/* a table example carries its own ids: put it in the input's order */
		struct cmp_ids res;
		cmp_ids_check(exo.data.ids, exo.data.rows, rr->ref_ids, rr->n_ref_ids, 1, &res);
		if (res.perm != NULL &&
		    cmp_data_permute(&exo.data, res.perm, rr->n_ref_ids, rr->ref_ids, &aligned) == 0)
			refd = &aligned;
		cmp_ids_free(&res);
	} else if (exo.data.ids == NULL && rr->ref_ids != NULL && exo.data.rows == rr->n_ref_ids) {
		/* an array example is in the input's order: name its rows */
		if (cmp_data_permute(&exo.data, NULL, exo.data.rows, rr->ref_ids, &aligned) == 0)
			refd = &aligned;
	}
	cmp_run(&r, &rr->main.data, refd, &cr);
	rep = cmp_report_json(&r, &cr, refd);
	json_object_update(o, rep);
	json_decref(rep);
	cmp_rule_digest(rule, digest);
	canon = cmp_rule_canonical(rule);
	json_object_set_new(o, "rule_digest", json_string(digest));
	json_object_set_new(o, "rule_canonical", json_string(canon ? canon : ""));
	free(canon);
	json_object_set_new(o, "shown", json_true());
	cmp_data_free(&aligned);
	output_free(&exo);
}

static void
reread_outputs(const struct kd_ctx *ctx, const char *folder, json_t *obs)
{
	const char *format = yamlio_get_str(ctx->ref, "result.format");
	const char *tensor = yamlio_get_str(ctx->ref, "result.tensor");
	const char *idcol = yamlio_get_str(ctx->ref, "result.ids.column");
	const char *idkey = yamlio_get_str(ctx->ref, "result.ids.key");
	json_t *files = output_files(ctx->ref, folder, format), *f, *list = json_array();
	struct reread rr;
	size_t i;

	memset(&rr, 0, sizeof rr);
	json_object_set_new(obs, "outputs", json_pack("{s:s, s:o, s:o}", "folder", folder,
						       "expected", json_deep_copy(files), "files", list));
	json_array_foreach(files, i, f) {
		char *p = fsutil_join(folder, json_string_value(f));
		struct kd_output out;
		struct kd_err err = { 0 };
		char ebuf[1200];

		if (!fsutil_exists(p)) {
			json_t *m = json_pack("{s:s, s:b}", "file", json_string_value(f), "missing", 1);
			json_t *here = output_files(NULL, folder, NULL);
			json_object_set_new(m, "folder_holds", here);
			json_array_append_new(list, m);
		} else if (output_load(p, format, tensor, idcol ? idcol : idkey, &out, &err) != 0) {
			json_array_append_new(list, json_pack("{s:s, s:s}", "file", json_string_value(f),
							      "error", kd_err_format(&err, ebuf, sizeof ebuf)));
		} else {
			json_object_set_new(out.desc, "file", json_string(json_string_value(f)));
			json_array_append(list, out.desc);
			if (!rr.have_main) {
				rr.main = out;
				rr.have_main = 1;
			} else {
				output_free(&out);
			}
		}
		free(p);
	}
	json_decref(files);
	check_ids(ctx, &rr, obs);
	compare_example(ctx, &rr, obs);
	if (rr.have_main)
		output_free(&rr.main);
	output_free_ids(rr.ref_ids, rr.n_ref_ids);
}

/* --- gather --- */

/* Run the entry point, following its output; the run goes into obs. */
static void
run_entry(struct kd_ctx *ctx, char **argv, const struct kd_sink *sink, json_t *obs)
{
	static const char *const env[] = { "PYTHONUNBUFFERED=1", NULL };
	struct follow f = { .sink = sink };
	struct kd_step s = {
		.what = "sample", .label = "running the entry point",
		.argv = (const char *const *)argv, .env_set = env, .stream = 1,
		.timeout_s = kd_env_seconds("KD_TIMEOUT_SAMPLE", ctx->timeout_sample),
		.on_line = follow_line, .u = &f,
	};
	struct run_result *r = &s.r;
	struct kd_err err = { 0 };
	char how[256], buf[256], ebuf[1200];
	const char *step;
	json_t *fail;
	int rc;

	pytrace_init(&f.tr);
	rc = step_run(ctx, sink, &s, &err);
	if (s.log != NULL)
		json_object_set_new(obs, "log", json_string(kd_ctx_relpath(ctx, s.log)));
	if (rc != 0) {
		json_object_set_new(obs, "run", json_pack("{s:b, s:s}", "started", 0, "error",
							  kd_err_format(&err, ebuf, sizeof ebuf)));
		goto out;
	}
	json_object_set_new(obs, "run", json_pack("{s:b, s:s, s:o, s:b, s:b, s:f}",
						  "started", 1, "ended", run_describe(r, how, sizeof how),
						  "exit_code", r->exited ? json_integer(r->exit_code) : json_null(),
						  "timed_out", r->timed_out, "cancelled", r->cancelled,
						  "seconds", r->elapsed_s));
	if (f.tr.step != NULL)
		json_object_set_new(obs, "step_reached", json_string(f.tr.step));
	if (r->exited && r->exit_code == 0)
		goto out;
	fail = json_object();
	step = pytrace_failed_step(&f.tr, buf, sizeof buf);
	if (step == NULL)
		step = f.tr.step;   /* no traceback (a signal, an exit code): the last step announced */
	json_object_set_new(fail, "step", step ? json_string(step) : json_null());
	/* no traceback (argparse, a C program, a shell script): the first line
	 * that says error, else the last line it printed */
	json_object_set_new(fail, "error", f.tr.error ? json_string(f.tr.error)
			    : f.first_err[0] ? json_string(f.first_err)
			    : f.last[0] ? json_string(f.last) : json_null());
	if (pytrace_frame(&f.tr) != NULL)
		json_object_set_new(fail, "frame", json_string(pytrace_frame(&f.tr)));
	if (pytrace_code(&f.tr) != NULL)
		json_object_set_new(fail, "code", json_string(pytrace_code(&f.tr)));
	json_object_set_new(obs, "failure", fail);
out:
	pytrace_free(&f.tr);
	step_free(&s);
}

static int
sample_gather(struct kd_ctx *ctx, struct kd_result *res, const struct kd_sink *sink,
	      struct kd_err *err)
{
	const json_t *ep = yamlio_get(ctx->ref, "code.entry_point");
	const char *outs = yamlio_get_str(ctx->ref, "result.outputs");
	char **argv, *abs = NULL;
	const char *why = NULL;
	int uses_venv, rc = 0;
	size_t n;
	json_t *obs = json_object();

	res->obs = obs;
	argv = reference_entry_argv(ctx->project_dir, ep, &uses_venv, &why);
	n = argv_count(argv);
	if (argv == NULL) {
		json_object_set_new(obs, "entry_point_error", json_string(why));
		resume_gather(ctx, sink, obs);
		return 0;
	}
	json_object_set_new(obs, "entry_point", json_deep_copy(ep));
	json_object_set_new(obs, "argv", json_array());
	for (size_t i = 0; i < n; i++)
		json_array_append_new(json_object_get(obs, "argv"), json_string(argv[i]));
	json_object_set_new(obs, "cwd", json_string(ctx->project_dir));
	if (uses_venv && access(argv[0], X_OK) != 0) {
		json_object_set_new(obs, "interpreter_missing", json_string(argv[0]));
		goto out;
	}
	if (outs == NULL) {
		json_object_set_new(obs, "outputs_error",
				    json_string("result.outputs (the folder the entry point writes) is not declared"));
		goto out;
	}
	abs = project_path(ctx, outs);
	if (!outputs_path_ok(ctx, outs, abs)) {
		json_object_set_new(obs, "outputs_error",
				    json_string("result.outputs must be a folder of its own inside the project, not the project, kernodeck's folder, the venv or .git"));
		goto out;
	}
	if (fsutil_exists(abs) && (rc = move_aside(ctx, abs, obs, err)) != 0)
		goto out;
	run_entry(ctx, argv, sink, obs);
	if ((rc = outputs_contained(abs, err)) != 0)
		goto out;
	kd_sink_step(sink, "rereading the outputs", -1);
	reread_outputs(ctx, abs, obs);
out:
	if (rc == 0)
		resume_gather(ctx, sink, obs);   /* whatever the entry point did */
	argv_free(argv);
	free(abs);
	return rc;
}

/* --- check --- */

static const char *
or_str(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

static void
shape_str(const json_t *shape, char *buf, size_t len)
{
	size_t i, o = 0;
	json_t *d;

	o += (size_t)snprintf(buf, len, "[");
	json_array_foreach(shape, i, d) {
		if (o >= len)
			break;
		if (json_is_integer(d))
			o += (size_t)snprintf(buf + o, len - o, "%s%lld", i ? ", " : "",
					      (long long)json_integer_value(d));
		else
			o += (size_t)snprintf(buf + o, len - o, "%s*", i ? ", " : "");
	}
	if (o < len)
		snprintf(buf + o, len - o, "]");
}

/* Does an observed shape fit the declared one (null or -1: any size)? */
static int
shape_fits(const json_t *seen, const json_t *want)
{
	size_t i;
	json_t *w;

	if (json_array_size(seen) != json_array_size(want))
		return 0;
	json_array_foreach(want, i, w) {
		if (json_is_null(w) || (json_is_integer(w) && json_integer_value(w) < 0))
			continue;
		if (!json_is_integer(w) ||
		    json_integer_value(w) != json_integer_value(json_array_get(seen, i)))
			return 0;
	}
	return 1;
}

static int
dtype_fits(const char *seen, const char *want)
{
	if (strcmp(seen, want) == 0)
		return 1;
	if (strcmp(seen, "number") == 0)
		return strncmp(want, "float", 5) == 0 || strncmp(want, "int", 3) == 0 ||
		       strncmp(want, "uint", 4) == 0 || strcmp(want, "number") == 0;
	return 0;
}

static void
row_entry_point(const json_t *obs, struct kd_rows *rows)
{
	const json_t *run = obs_sample_run(obs), *fail = obs_sample_failure(obs);
	const char *log = obs_sample_log(obs), *ended = obs_sample_run_ended(obs);
	const char *fstep = obs_sample_failure_step(fail), *ferr = obs_sample_failure_error(fail);
	const char *frame = obs_sample_failure_frame(fail), *code = obs_sample_failure_code(fail);
	struct kd_row *r;
	char buf[2048], fe[2048];

	if (obs_sample_entry_point_error(obs) != NULL) {
		r = kd_rows_add(rows, "sample.entry-point", KD_R_FAIL, "the entry point runs on the sample",
				"not declared", "exit 0", NULL);
		kd_row_set_error(r, obs_sample_entry_point_error(obs), "declare code.entry_point in the reference (stage 1)");
		return;
	}
	if (obs_sample_interpreter_missing(obs) != NULL) {
		r = kd_rows_addf(rows, "sample.entry-point", KD_R_FAIL, "the entry point runs on the sample",
				 "exit 0", "%s does not exist", obs_sample_interpreter_missing(obs));
		kd_row_set_error(r, "the project interpreter is missing", "run stage 3 (rebuild) first");
		return;
	}
	if (run == NULL)
		return;
	if (!obs_sample_run_started(obs)) {
		r = kd_rows_add(rows, "sample.entry-point", KD_R_FAIL, "the entry point runs on the sample",
				"could not start", "exit 0", log);
		kd_row_set_error(r, obs_sample_run_error(obs), "check code.entry_point: its program must exist and be executable");
		return;
	}
	if (fail == NULL) {
		kd_rows_addf(rows, "sample.entry-point", KD_R_PASS, "the entry point runs on the sample",
			     "exit 0", "%s in %.1f s", ended ? ended : "?",
			     obs_sample_run_seconds(obs))->evidence =
			log ? strdup(log) : NULL;
		return;
	}
	snprintf(buf, sizeof buf, "%s%s%s", ended ? ended : "failed", fstep ? " in step " : "",
		 fstep ? fstep : "");
	r = kd_rows_add(rows, "sample.entry-point", KD_R_FAIL, "the entry point runs on the sample",
			buf, "exit 0", log);
	if (frame != NULL)
		snprintf(fe, sizeof fe, "%s (innermost frame: %s%s%s)", ferr ? ferr : "?", frame,
			 code ? ": " : "", code ? code : "");
	else
		snprintf(fe, sizeof fe, "%s", ferr ? ferr : ended ? ended : "failed");
	kd_row_set_error(r, fe, obs_sample_run_timed_out(obs)
			 ? "the entry point did not finish in time: KD_TIMEOUT_SAMPLE sets the limit in seconds"
			 : "the log holds the whole output; fix the first error and check again");
}

/* "loss.csv is missing; out holds losses.csv" (the outputs it could read). */
static const char *
missing_text(const char *file, const json_t *holds, const char *folder)
{
	static char buf[1024];
	size_t n, i;
	const json_t *h;

	n = (size_t)snprintf(buf, sizeof buf, "%s is missing; %s holds ", file, folder);
	if (json_array_size(holds) == 0 && n < sizeof buf)
		snprintf(buf + n, sizeof buf - n, "no output file");
	json_array_foreach(holds, i, h)
		if (n < sizeof buf)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? ", " : "",
					      json_string_value(h));
	return buf;
}

static void
row_outputs(const struct kd_ctx *ctx, const json_t *obs, struct kd_rows *rows)
{
	const json_t *outs = obs_sample_outputs(obs);
	const json_t *files = obs_sample_outputs_files(obs), *f;
	const char *folder = obs_sample_outputs_folder(obs) ? obs_sample_outputs_folder(obs) : "?";
	const json_t *want = yamlio_get(ctx->ref, "result.count");
	size_t i, good = 0, missing = 0, bad = 0;
	const char *first_bad = NULL, *first_missing = NULL;
	const json_t *holds = NULL;
	long long expected;
	struct kd_row *r;
	char exp[64];

	if (obs_sample_outputs_error(obs) != NULL) {
		r = kd_rows_add(rows, "sample.outputs", KD_R_FAIL, "outputs written and readable",
				"cannot be read", "the declared outputs", NULL);
		kd_row_set_error(r, obs_sample_outputs_error(obs), "fix result.outputs in the reference (stage 1)");
		return;
	}
	if (outs == NULL)
		return;
	json_array_foreach(files, i, f) {
		if (obs_sample_file_missing(f)) {
			missing++;
			if (!first_missing) {
				first_missing = or_str(obs_sample_file_file(f), "?");
				holds = obs_sample_file_folder_holds(f);
			}
		} else if (obs_sample_file_error(f) != NULL) {
			bad++;
			if (!first_bad)
				first_bad = obs_sample_file_error(f);
		} else {
			good++;
		}
	}
	expected = json_is_integer(want) ? (long long)json_integer_value(want)
		   : (long long)json_array_size(obs_sample_outputs_expected(obs));
	snprintf(exp, sizeof exp, "%lld readable file(s)", expected);
	if (good > 0 && missing == 0 && bad == 0 && (long long)good == expected) {
		kd_rows_addf(rows, "sample.outputs", KD_R_PASS, "outputs written and readable", exp,
			     "%zu file(s) in %s", good, folder);
		return;
	}
	r = kd_rows_addf(rows, "sample.outputs", KD_R_FAIL, "outputs written and readable", exp,
			 "%zu readable, %zu missing, %zu unreadable", good, missing, bad);
	if (first_bad)
		kd_row_set_error(r, first_bad, "the file does not follow its format: see the error");
	else if (first_missing)
		kd_row_set_error(r, missing_text(first_missing, holds,
						 yamlio_get_str(ctx->ref, "result.outputs") ?
						 yamlio_get_str(ctx->ref, "result.outputs") : folder),
				 "the entry point did not write this file: compare result.files with "
				 "what it wrote");
	else
		kd_row_set_error(r, good == 0 ? "no output file found" : "a different number of outputs",
			 "compare result.files / result.count with what the entry point writes");
}

/* The first readable output, or NULL. */
static const json_t *
main_output(const json_t *obs)
{
	const json_t *files = obs_sample_outputs_files(obs), *f;
	size_t i;

	json_array_foreach(files, i, f)
		if (obs_sample_file_dtype(f) != NULL)
			return f;
	return NULL;
}

static void
row_structure(const struct kd_ctx *ctx, const json_t *obs, struct kd_rows *rows)
{
	const json_t *m = main_output(obs), *files, *f;
	const json_t *wshape = yamlio_get(ctx->ref, "result.shape");
	const char *wdtype = yamlio_get_str(ctx->ref, "result.dtype");
	const json_t *finite = yamlio_get(ctx->ref, "result.finite");
	char a[256], b[256];
	long long nan = 0, inf = 0;
	size_t i;
	struct kd_row *r;

	if (m == NULL)
		return;
	shape_str(obs_sample_file_shape(m), a, sizeof a);
	if (!json_is_array(wshape)) {
		kd_rows_add(rows, "sample.shape", KD_R_WARN, "shape of the output", a,
			    "not declared (result.shape)", NULL);
	} else {
		shape_str(wshape, b, sizeof b);
		r = kd_rows_add(rows, "sample.shape", shape_fits(obs_sample_file_shape(m), wshape)
				? KD_R_PASS : KD_R_FAIL, "shape of the output", a, b, NULL);
		if (r->status == KD_R_FAIL)
			kd_row_set_error(r, obs_sample_file_file(m), "the output's dimensions differ from the result contract");
	}
	if (wdtype == NULL) {
		kd_rows_add(rows, "sample.dtype", KD_R_WARN, "dtype of the output", or_str(obs_sample_file_dtype(m), "?"),
			    "not declared (result.dtype)", NULL);
	} else {
		r = kd_rows_add(rows, "sample.dtype", dtype_fits(or_str(obs_sample_file_dtype(m), "?"), wdtype)
				? KD_R_PASS : KD_R_FAIL, "dtype of the output", or_str(obs_sample_file_dtype(m), "?"), wdtype, NULL);
		if (r->status == KD_R_FAIL)
			kd_row_set_error(r, obs_sample_file_file(m), "the output's element type differs from the result contract");
	}
	files = obs_sample_outputs_files(obs);
	json_array_foreach(files, i, f) {
		nan += obs_sample_file_nan(f);
		inf += obs_sample_file_posinf(f) + obs_sample_file_neginf(f);
	}
	snprintf(a, sizeof a, "%lld NaN, %lld infinite", nan, inf);
	if (json_is_true(finite)) {
		r = kd_rows_add(rows, "sample.finite", nan + inf ? KD_R_FAIL : KD_R_PASS,
				"no NaN or infinite value", a, "none (result.finite)", NULL);
		if (nan + inf)
			kd_row_set_error(r, a, "the computation produced non-finite values: compare the precision settings (stage 5) and the inputs");
	} else {
		kd_rows_add(rows, "sample.finite", json_is_false(finite) ? KD_R_INFO
			    : nan + inf ? KD_R_WARN : KD_R_PASS, "NaN and infinite values", a,
			    json_is_false(finite) ? "allowed (result.finite: false)" : "not declared (result.finite)",
			    NULL);
	}
}

static void
row_ids(const json_t *obs, struct kd_rows *rows)
{
	const char *order = obs_sample_ids_order(obs) ? obs_sample_ids_order(obs) : "same";
	struct kd_row *r;
	char buf[1024], fe[1024] = "";

	if (obs_sample_ids(obs) == NULL || main_output(obs) == NULL)
		return;
	if (!obs_sample_ids_declared(obs)) {
		kd_rows_add(rows, "sample.ids", KD_R_WARN, "identifiers match the input", "not checked",
			    "not declared (result.ids)", NULL);
		return;
	}
	if (obs_sample_ids_error(obs) != NULL) {
		r = kd_rows_add(rows, "sample.ids", KD_R_FAIL, "identifiers match the input",
				"cannot be checked", "declared identifiers", NULL);
		kd_row_set_error(r, obs_sample_ids_error(obs), "fix result.ids in the reference, or make the entry point write the identifiers");
		return;
	}
	snprintf(buf, sizeof buf, "%lld output ids for %lld rows, %lld input ids; %lld missing, %lld extra, %lld duplicated%s",
		 (long long)obs_sample_ids_output(obs), (long long)obs_sample_ids_rows(obs),
		 (long long)obs_sample_ids_input(obs), (long long)obs_sample_ids_missing(obs),
		 (long long)obs_sample_ids_extra(obs), (long long)obs_sample_ids_duplicates(obs),
		 obs_sample_ids_same_order(obs) ? ", same order" : "");
	if (obs_sample_ids_ok(obs)) {
		kd_rows_add(rows, "sample.ids", KD_R_PASS, "identifiers match the input", buf,
			    strcmp(order, "set") == 0 ? "same set" : "same order", NULL);
		return;
	}
	r = kd_rows_add(rows, "sample.ids", KD_R_FAIL, "identifiers match the input", buf,
			strcmp(order, "set") == 0 ? "same set" : "same order", NULL);
	if (obs_sample_ids_first_missing(obs))
		snprintf(fe, sizeof fe, "input id \"%s\" has no output", obs_sample_ids_first_missing(obs));
	else if (obs_sample_ids_first_extra(obs))
		snprintf(fe, sizeof fe, "output id \"%s\" is not an input id", obs_sample_ids_first_extra(obs));
	else if (obs_sample_ids_first_duplicate(obs))
		snprintf(fe, sizeof fe, "output id \"%s\" appears twice", obs_sample_ids_first_duplicate(obs));
	else if (obs_sample_ids_first_misplaced(obs))
		snprintf(fe, sizeof fe, "input id \"%s\" is out of order in the output", obs_sample_ids_first_misplaced(obs));
	else
		snprintf(fe, sizeof fe, "as many identifiers as output rows are needed");
	kd_row_set_error(r, fe, "every input item needs exactly one output row with its identifier");
}

static void
num_str(const json_t *v, char *buf, size_t len)
{
	if (json_is_number(v))
		snprintf(buf, len, "%.6g", json_number_value(v));
	else
		snprintf(buf, len, "%s", json_string_value(v) ? json_string_value(v) : "?");
}

static void
row_compare(const json_t *obs, struct kd_rows *rows)
{
	const char *rule = obs_sample_comparison_rule(obs);
	struct kd_row *r;
	char buf[1024], o[64], f[64], fe[1024];

	if (obs_sample_comparison(obs) == NULL || main_output(obs) == NULL)
		return;
	if (obs_sample_comparison_error(obs) != NULL) {
		r = kd_rows_add(rows, "sample.compare", KD_R_FAIL, "output agrees with the reference output",
				"not compared", rule ? rule : "the declared rule", NULL);
		kd_row_set_error(r, obs_sample_comparison_error(obs),
				 json_is_false(obs_sample_comparison_rule_declared(obs))
				 ? "declare result.rule in the reference (stage 1): there is no default tolerance"
				 : "see the error");
		return;
	}
	num_str(obs_sample_comparison_max_abs_error(obs), o, sizeof o);
	num_str(obs_sample_comparison_max_rel_error(obs), f, sizeof f);
	if (obs_sample_comparison_metric(obs) != NULL) {
		char m[64];
		num_str(obs_sample_comparison_metric(obs), m, sizeof m);
		snprintf(buf, sizeof buf, "metric %s (worst row %s); max abs error %s, max rel error %s",
			 m, obs_sample_comparison_worst_row(obs) ? obs_sample_comparison_worst_row(obs)
			 : "#", o, f);
	} else {
		snprintf(buf, sizeof buf, "max abs error %s, max rel error %s; %lld of %lld out of tolerance",
			 o, f, (long long)obs_sample_comparison_out_of_tolerance(obs),
			 (long long)obs_sample_comparison_compared(obs));
	}
	r = kd_rows_add(rows, "sample.compare", obs_sample_comparison_pass(obs) ? KD_R_PASS
			: KD_R_FAIL, "output agrees with the reference output", buf,
			rule ? rule : "", NULL);
	if (obs_sample_comparison_worst(obs) != NULL) {
		const char *el = obs_sample_comparison_worst_element(obs);
		num_str(obs_sample_comparison_worst_out(obs), o, sizeof o);
		num_str(obs_sample_comparison_worst_ref(obs), f, sizeof f);
		snprintf(fe, sizeof fe, "worst element %s: output %s, reference %s",
			 el ? el : "?", o, f);
		if (r->status == KD_R_FAIL)
			kd_row_set_error(r, fe, "if the difference is acceptable, the rule is changed in stage 1 with a justification (recorded as a deviation)");
		else {
			free(r->first_error);
			r->first_error = strdup(fe);
		}
	}
}

/* The rule seen with this comparison against the first one seen; a new
 * change records a deviation automatically. */
static int
row_rule(struct kd_ctx *ctx, struct kd_result *res, struct kd_err *err)
{
	const char *cur = obs_sample_comparison_rule_digest(res->obs);
	const char *canon = obs_sample_comparison_rule_canonical(res->obs) ?
		obs_sample_comparison_rule_canonical(res->obs) : "";
	const json_t *settings = ctx->state.settings;
	const char *base = json_string_value(yamlio_get(settings, "sample.rule_baseline.digest"));
	const char *basec = json_string_value(yamlio_get(settings, "sample.rule_baseline.rule"));
	const char *seen = json_string_value(yamlio_get(settings, "sample.rule_seen.digest"));
	int fresh;
	char what[2048], now[32];
	struct kd_row *r;

	if (cur == NULL || settings == NULL)
		return 0;
	fsutil_utc_now(now, sizeof now);
	if (base == NULL) {
		kd_result_set(res, "sample.rule_baseline",
			      json_pack("{s:s, s:s, s:s}", "digest", cur, "rule", canon, "at", now));
		kd_result_set(res, "sample.rule_seen", json_pack("{s:s, s:s}", "digest", cur, "at", now));
		kd_rows_addf(&res->rows, "sample.rule-changed", KD_R_PASS,
			     "comparison rule unchanged since the first comparison", "unchanged",
			     "first comparison under rule %.12s", cur);
		return 0;
	}
	fresh = seen == NULL || strcmp(seen, cur) != 0;
	if (strcmp(base, cur) == 0) {
		if (fresh)
			kd_result_set(res, "sample.rule_seen", json_pack("{s:s, s:s}", "digest", cur, "at", now));
		kd_rows_addf(&res->rows, "sample.rule-changed", KD_R_PASS,
			     "comparison rule unchanged since the first comparison", "unchanged",
			     "rule %.12s, as at the first comparison", cur);
		return 0;
	}
	snprintf(what, sizeof what, "comparison rule %s -> %s", basec ? basec : base, canon);
	r = kd_rows_addf(&res->rows, "sample.rule-changed", KD_R_FAIL,
			 "comparison rule unchanged since the first comparison", "unchanged",
			 "changed after a comparison was seen: %s", what);
	kd_row_set_error(r, what, "a deviation was recorded automatically; review it, the rule should change only with a written justification");
	if (!fresh)
		return 0;
	kd_result_set(res, "sample.rule_seen", json_pack("{s:s, s:s}", "digest", cur, "at", now));
	/* the frame records it once the rows are in the state (stage_run) */
	kd_result_deviate(res, "sample.rule-changed", what,
			  "recorded automatically: the comparison rule was changed after a comparison had been shown",
			  KD_AUTHOR_AUTOMATIC);
	(void)err;
	return 0;
}

static int
sample_check(struct kd_ctx *ctx, struct kd_result *res, struct kd_err *err)
{
	const json_t *obs = res->obs;
	const char *ev = "sample.yaml";
	size_t start = res->rows.n;
	int rc;

	row_entry_point(obs, &res->rows);
	row_outputs(ctx, obs, &res->rows);
	row_structure(ctx, obs, &res->rows);
	row_ids(obs, &res->rows);
	row_compare(obs, &res->rows);
	for (size_t i = start; i < res->rows.n; i++)
		if (res->rows.v[i].evidence == NULL)
			res->rows.v[i].evidence = strdup(ev);
	rc = row_rule(ctx, res, err);
	if (rc == 0)
		rc = resume_check_rows(ctx, res, err);
	return rc;
}

static void
sample_describe(const struct kd_result *res, struct kd_rows *rows)
{
	const json_t *obs = res->obs, *files, *f;
	size_t i;

	if (obs_sample_moved_aside(obs) != NULL) {
		const char *from = obs_sample_moved_aside_from(obs), *to = obs_sample_moved_aside_to(obs);
		kd_rows_addf(rows, "sample.info.moved-aside", KD_R_INFO, "previous outputs moved aside",
			     NULL, "%s -> %s", from ? from : "?", to ? to : "?");
	}
	if (obs_sample_step_reached(obs) != NULL)
		kd_rows_add(rows, "sample.info.step", KD_R_INFO, "last step announced (KD_STEP)",
			    obs_sample_step_reached(obs), NULL, NULL);
	files = obs_sample_outputs_files(obs);
	json_array_foreach(files, i, f) {
		char shape[256], id[300], mn[64], mx[64];
		const char *name = or_str(obs_sample_file_file(f), "?"), *fmt = or_str(obs_sample_file_format(f), "?");
		if (obs_sample_file_dtype(f) == NULL)
			continue;
		shape_str(obs_sample_file_shape(f), shape, sizeof shape);
		num_str(obs_sample_file_min(f), mn, sizeof mn);
		num_str(obs_sample_file_max(f), mx, sizeof mx);
		snprintf(id, sizeof id, "sample.info.file.%s", name);
		kd_rows_addf(rows, id, KD_R_INFO, name, NULL,
			     "%s %s %s, %lld values, min %s, max %s, %lld NaN",
			     fmt, obs_sample_file_dtype(f), shape,
			     (long long)obs_sample_file_count(f), mn, mx,
			     (long long)obs_sample_file_nan(f));
	}
}

static const struct kd_field sample_fields[] = {
	{ .path = "code.entry_point", .label = "entry point", .kind = KD_FIELD_ARGV,
	  .help = "the command that runs the application on the sample; \"python\" is the project interpreter" },
	{ .path = "result.outputs", .label = "output folder", .kind = KD_FIELD_TEXT,
	  .help = "the folder the entry point writes (moved aside before each run)" },
	{ .path = "result.format", .label = "output format", .kind = KD_FIELD_CHOICE,
	  .choices = "npy|safetensors|csv|jsonl", .help = "the format of the output files" },
	{ .path = "result.example.path", .label = "reference output", .kind = KD_FIELD_TEXT,
	  .help = "one valid output of the reference, compared under the rule" },
	{ .path = "result.rule.kind", .label = "rule", .kind = KD_FIELD_CHOICE,
	  .choices = "exact|tolerance|metric", .help = "how the output is compared with the reference output" },
	{ .path = "result.rule.atol", .label = "atol", .kind = KD_FIELD_NUMBER,
	  .help = "absolute tolerance: |out - ref| <= atol + rtol*|ref|" },
	{ .path = "result.rule.rtol", .label = "rtol", .kind = KD_FIELD_NUMBER,
	  .help = "relative tolerance: |out - ref| <= atol + rtol*|ref|" },
	{ .path = "result.rule.justification", .label = "justification", .kind = KD_FIELD_TEXT,
	  .help = "why this rule is right for this result" },
};

const struct kd_stage_ops kd_stage_sample = {
	.id = "sample",
	.title = "Sample",
	.summary = "runs the entry point on the sample, rereads its outputs and compares them with the reference output",
	.replay = 1,
	.fields = sample_fields,
	.nfields = sizeof sample_fields / sizeof sample_fields[0],
	.gather = sample_gather,
	.check = sample_check,
	.describe = sample_describe,
};
