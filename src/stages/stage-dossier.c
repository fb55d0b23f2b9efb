/*
 * stage-dossier.c - stage 7: write the dossier, scan it, replay it.
 *
 * gather builds the dossier in memory and scans it (dossier.c); a clean
 * scan writes it (kernodeck/dossier, an older one moved aside) and checks
 * it back against its SHA256SUMS.  check turns that into rows: one failing
 * row per credential found (file, line, kind; never the value), absolute
 * paths under $HOME, the dossier written and verified, and the last replay
 * when one was asked for.  A deviation never lets a secret through: one
 * recorded on a credential row or on the written row is dropped again and
 * the row says why.
 *
 * Actions: x redacts the sources of the findings (values become ${NAME}),
 * o leaves the file of the selected finding out, m makes absolute project
 * paths relative, y replays the dossier in a clean folder under the
 * kernodeck folder.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/ctx.h"
#include "kernodeck/dossier.h"
#include "kernodeck/replay.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/sha256sums.h"
#include "kernodeck/stage.h"
#include "kernodeck/yamlio.h"
#include "kernodeck/obs-dossier.h"

static int
relative_wanted(const struct kd_ctx *ctx)
{
	return json_is_true(yamlio_get(ctx->state.settings, "dossier.relative"));
}

static int
dossier_gather(struct kd_ctx *ctx, struct kd_result *res, const struct kd_sink *sink,
	       struct kd_err *err)
{
	json_t *s = NULL;
	char *out = kd_ctx_path(ctx, "dossier"), line[1200];
	int rc;

	kd_sink_step(sink, "gathering and scanning the dossier", -1);
	rc = dossier_write(ctx, out, relative_wanted(ctx), &s, err);
	if (rc != 0) {
		json_decref(s);
		free(out);
		return rc;
	}
	if (obs_dossier_written(s)) {
		struct sha256sums sums;
		struct sha256sums_report rep = { 0 };
		struct kd_err e2 = { 0 };
		char ebuf[2200];
		char *sp = fsutil_join(out, "SHA256SUMS");
		int ok = 0;

		if (sha256sums_load(sp, &sums, &e2) == 0) {
			ok = sha256sums_verify(out, &sums, "SHA256SUMS", &rep, &e2) == 0;
			sha256sums_free(&sums);
		}
		json_object_set_new(s, "verified", json_boolean(ok));
		json_object_set_new(s, "verified_files", json_integer((json_int_t)rep.checked));
		if (!ok)
			json_object_set_new(s, "verify_problem", rep.n > 0 ?
					    json_sprintf("%s: %s", rep.v[0].path, rep.v[0].what) :
					    json_string(kd_err_format(&e2, ebuf, sizeof ebuf)));
		sha256sums_report_free(&rep);
		free(sp);
		snprintf(line, sizeof line, "dossier written to %s", out);
	} else {
		snprintf(line, sizeof line, "dossier NOT written: %zu credential(s) found",
			 json_array_size(obs_dossier_findings(s)));
	}
	kd_sink_line(sink, line);
	res->obs = s;
	free(out);
	return 0;
}

/* Drop a deviation recorded on a row that must never be deviated. */
static int
drop_deviation(struct kd_ctx *ctx, const char *prefix)
{
	struct kd_stage_state *ss = &ctx->state.st[stage_pos(&kd_stage_dossier)];
	int dropped = 0;

	for (size_t k = 0; k < ss->ndevs;) {
		struct kd_deviation *d = &ss->devs[k];
		if (strncmp(d->check, prefix, strlen(prefix)) != 0) {
			k++;
			continue;
		}
		free(d->check);
		free(d->what);
		free(d->why);
		free(d->author);
		free(d->time);
		memmove(d, d + 1, (ss->ndevs - k - 1) * sizeof *d);
		ss->ndevs--;
		dropped = 1;
	}
	return dropped;
}

static void
secret_rows(struct kd_ctx *ctx, const json_t *findings, struct kd_rows *rows)
{
	size_t i;
	json_t *f;
	int dropped = drop_deviation(ctx, "dossier.secret");

	dropped |= drop_deviation(ctx, "dossier.written");
	if (json_array_size(findings) == 0) {
		kd_rows_add(rows, "dossier.secrets", KD_R_PASS, "no credential in the dossier",
			    "none found", "none", NULL);
		return;
	}
	json_array_foreach(findings, i, f) {
		char id[64], obs[1024], hint[1024];
		const char *src = obs_dossier_finding_source(f);
		struct kd_row *r;
		snprintf(id, sizeof id, "dossier.secret.%zu", i + 1);
		snprintf(obs, sizeof obs, "%s:%lld: %s", obs_dossier_finding_file(f),
			 (long long)obs_dossier_finding_line(f), obs_dossier_finding_kind(f));
		snprintf(hint, sizeof hint,
			 "%sx replaces the value by ${%s} in %s; o leaves that file out of the "
			 "dossier.  No deviation lets a credential through.",
			 dropped ? "A deviation was recorded here and has been removed: " : "",
			 obs_dossier_finding_name(f), src ? src : "its source");
		r = kd_rows_add(rows, id, KD_R_FAIL, "a credential would go in the dossier",
				obs, "no credential", obs_dossier_finding_file(f));
		kd_row_set_error(r, obs, hint);
	}
}

static int
dossier_check(struct kd_ctx *ctx, struct kd_result *res, struct kd_err *err)
{
	const json_t *s = res->obs, *home = obs_dossier_home_paths(s);
	const json_t *replay = yamlio_get(ctx->state.settings, "dossier.replay");
	char obs[1200];
	(void)err;

	secret_rows(ctx, obs_dossier_findings(s), &res->rows);
	if (json_array_size(home) > 0 && !obs_dossier_relative(s)) {
		const json_t *h = json_array_get(home, 0);
		struct kd_row *r;
		snprintf(obs, sizeof obs, "%zu absolute path(s) under $HOME, first %s:%lld %s",
			 json_array_size(home), obs_dossier_home_file(h),
			 (long long)obs_dossier_home_line(h), obs_dossier_home_path(h));
		r = kd_rows_add(&res->rows, "dossier.home-paths", KD_R_WARN,
				"paths that only exist on this machine", obs,
				"paths relative to the project", NULL);
		kd_row_set_error(r, obs, "m makes the project's absolute paths relative");
	}
	if (obs_dossier_written(s)) {
		snprintf(obs, sizeof obs, "%s (%lld files and SHA256SUMS)", obs_dossier_out(s),
			 (long long)obs_dossier_files(s));
		kd_rows_add(&res->rows, "dossier.written", KD_R_PASS, "dossier written", obs,
			    "written, scanned clean", "dossier/README.md");
		if (obs_dossier_verified(s))
			kd_rows_addf(&res->rows, "dossier.sha256sums", KD_R_PASS,
				     "SHA256SUMS verifies", "every file matches",
				     "%lld files match", (long long)obs_dossier_verified_files(s));
		else
			kd_row_set_error(kd_rows_add(&res->rows, "dossier.sha256sums", KD_R_FAIL,
				     "SHA256SUMS verifies", obs_dossier_verify_problem(s),
				     "every file matches", "dossier/SHA256SUMS"),
				     obs_dossier_verify_problem(s), "write the dossier again (r)");
	} else {
		struct kd_row *r = kd_rows_add(&res->rows, "dossier.written", KD_R_FAIL,
					       "dossier written", "not written",
					       "written, scanned clean", NULL);
		kd_row_set_error(r, "the scan found credentials",
				 "redact them (x) or leave their files out (o), then r");
	}
	if (json_is_object(replay)) {
		const char *v = json_string_value(json_object_get(replay, "verdict"));
		snprintf(obs, sizeof obs, "%s in %s (%s)", v ? v : "?",
			 json_string_value(json_object_get(replay, "workdir")),
			 json_string_value(json_object_get(replay, "time")));
		kd_rows_add(&res->rows, "dossier.replay",
			    v && strcmp(v, "passed") == 0 ? KD_R_PASS : KD_R_WARN,
			    "replay in a clean folder", obs, "passed", NULL);
	}
	return 0;
}

static void
dossier_describe(const struct kd_result *res, struct kd_rows *rows)
{
	const json_t *s = res->obs;
	char obs[1200];

	if (obs_dossier_moved_aside(s) != NULL) {
		snprintf(obs, sizeof obs, "the previous dossier is kept in %s", obs_dossier_moved_aside(s));
		kd_rows_add(rows, "dossier.previous", KD_R_INFO, "previous dossier", obs, NULL, NULL);
	}
	if (json_array_size(obs_dossier_removed_backups(s)) > 0) {
		snprintf(obs, sizeof obs, "%zu older dossier(s) kernodeck wrote removed (one is kept)",
			 json_array_size(obs_dossier_removed_backups(s)));
		kd_rows_add(rows, "dossier.older", KD_R_INFO, "older dossiers", obs, NULL, NULL);
	}
	if (obs_dossier_backup_error(s) != NULL)
		kd_rows_add(rows, "dossier.older-error", KD_R_WARN, "older dossiers",
			    obs_dossier_backup_error(s), NULL, NULL);
	if (json_array_size(obs_dossier_excluded(s)) > 0) {
		snprintf(obs, sizeof obs, "%zu file(s) left out by you",
			 json_array_size(obs_dossier_excluded(s)));
		kd_rows_add(rows, "dossier.excluded", KD_R_INFO, "files left out", obs, NULL, NULL);
	}
}

/* ---- actions ------------------------------------------------------------- */

static int
act_redact(struct kd_ctx *ctx, const char *arg, const struct kd_sink *sink, struct kd_err *err)
{
	struct dossier_plan p;
	int changed = 0, rc;
	char line[256];
	(void)arg;

	if ((rc = dossier_plan_build(ctx, relative_wanted(ctx), &p, err)) != 0)
		return rc;
	rc = dossier_redact_sources(&p, &changed, err);
	snprintf(line, sizeof line, "redacted %zu credential(s) in %d file(s); run the stage again (r)",
		 p.nfindings, changed);
	kd_sink_line(sink, line);
	dossier_plan_free(&p);
	if (rc == 0 && changed > 0)
		kd_ctx_reload_ref(ctx, err);   /* reference.yaml may have been one of them */
	return rc;
}

static int
act_exclude(struct kd_ctx *ctx, const char *arg, const struct kd_sink *sink, struct kd_err *err)
{
	int i = stage_pos(&kd_stage_dossier);
	const json_t *f;
	const char *src;
	char *end, line[1200];
	json_t *ex;
	size_t n, nf, k;

	if (arg == NULL || strncmp(arg, "dossier.secret.", 15) != 0)
		return kd_err_set(err, KD_EINPUT, NULL, 0,
				  "select a credential row (dossier.secret.N) to leave its file out");
	n = (size_t)strtoul(arg + 15, &end, 10);
	nf = json_array_size(obs_dossier_findings(kd_ctx_obs(ctx, i)));
	f = json_array_get(obs_dossier_findings(kd_ctx_obs(ctx, i)), n - 1);
	if (arg[15] < '1' || arg[15] > '9' || *end != '\0' || f == NULL) {
		if (nf == 0)
			return kd_err_set(err, KD_EINPUT, NULL, 0, "%s: the last check of the "
					  "dossier found no credential", arg);
		return kd_err_set(err, KD_EINPUT, NULL, 0, "%s is not a credential found by the "
				  "last check (dossier.secret.1 to dossier.secret.%zu)", arg, nf);
	}
	src = obs_dossier_finding_source(f);
	if (src == NULL)
		return kd_err_set(err, KD_EINPUT, NULL, 0,
				  "that file is written by kernodeck itself: redact it (x) instead");
	ex = yamlio_get(ctx->state.settings, "dossier.exclude");
	if (!json_is_array(ex)) {
		yamlio_set(ctx->state.settings, "dossier.exclude", json_array());
		ex = yamlio_get(ctx->state.settings, "dossier.exclude");
	}
	for (k = 0; k < json_array_size(ex); k++)
		if (json_is_string(json_array_get(ex, k)) &&
		    strcmp(json_string_value(json_array_get(ex, k)), src) == 0)
			break;
	if (k == json_array_size(ex))   /* once, however often it is asked */
		json_array_append_new(ex, json_string(src));
	snprintf(line, sizeof line, "%s: left out of the dossier; run the stage again (r)", src);
	kd_sink_line(sink, line);
	return 0;
}

static int
act_relative(struct kd_ctx *ctx, const char *arg, const struct kd_sink *sink, struct kd_err *err)
{
	int on = !relative_wanted(ctx);
	(void)arg;
	(void)err;

	yamlio_set(ctx->state.settings, "dossier.relative", json_boolean(on));
	kd_sink_line(sink, on ? "paths under the project will be written relative to it (r)"
			      : "paths will be written as they are (r)");
	return 0;
}

static int
act_replay(struct kd_ctx *ctx, const char *arg, const struct kd_sink *sink, struct kd_err *err)
{
	char stamp[32], name[64];
	char *dossier = kd_ctx_path(ctx, "dossier"), *work;
	json_t *verdict = NULL, *o = json_object();
	struct replay_opts ro = { 0 };
	int rc;
	(void)arg;

	fsutil_utc_now(stamp, sizeof stamp);
	snprintf(name, sizeof name, "replay-%.4s%.2s%.2sT%.2s%.2s%.2sZ", stamp, stamp + 5,
		 stamp + 8, stamp + 11, stamp + 14, stamp + 17);
	work = kd_ctx_path(ctx, name);
	ro.dossier = dossier;
	ro.workdir = work;
	ro.yes = 1;   /* the user asked for it on their own dossier */
	ro.sink = sink;
	rc = replay_run(&ro, &verdict, err);
	json_object_set_new(o, "workdir", json_string(work));
	json_object_set_new(o, "time", json_string(stamp));
	json_object_set_new(o, "verdict", json_string(rc == 0 ? "passed" : rc == KD_EFAIL ?
						      "new differences" : "error"));
	if (verdict)
		json_object_set_new(o, "stages", verdict);
	yamlio_set(ctx->state.settings, "dossier.replay", o);
	free(work);
	free(dossier);
	return rc == KD_EFAIL ? 0 : rc;
}

static const struct kd_action dossier_actions[] = {
	{ .key = 'x', .name = "redact", .run = act_redact,
	  .label = "redact the credentials found (values become ${NAME})",
	  .confirm = "rewrites the project's files that hold the credentials found" },
	{ .key = 'o', .name = "leave-out", .run = act_exclude,
	  .label = "leave the file of the selected credential out",
	  .arg_name = "N", .arg_prefix = "dossier.secret.", .arg_required = 1 },
	{ .key = 'm', .name = "relative", .run = act_relative,
	  .label = "make the project's absolute paths relative (toggle)" },
	{ .key = 'y', .name = "replay", .run = act_replay,
	  .label = "replay the dossier in a clean folder",
	  .confirm = "runs the dossier's commands (clone, venv, install, checks) in a new "
		     "folder under the kernodeck folder" },
};

const struct kd_stage_ops kd_stage_dossier = {
	.id = "dossier",
	.title = "Dossier",
	.summary = "Write the handoff dossier, scan it for credentials, verify and replay it",
	.gather = dossier_gather,
	.check = dossier_check,
	.describe = dossier_describe,
	.actions = dossier_actions,
	.nactions = sizeof dossier_actions / sizeof dossier_actions[0],
};
