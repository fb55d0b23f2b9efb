/*
 * stage-compute.c - stage 5, "compute": can the project interpreter compute
 * with PyTorch on the device the reference expects?
 *
 * gather runs share/probe.py with the project interpreter
 * (PROJECT/.venv-rebuild/bin/python, never an activated shell) and
 * --expect set to the reference's system.backend, streams and logs its
 * output and keeps the steps it reported (compute.yaml).  check judges
 * them (src/facts/probe.c): the stage passes when every step passed, the
 * expected backend was seen and the product agreed with float64 on the
 * CPU.  An unreachable GPU fails the stage: the probe never computes on
 * the CPU in its place.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernodeck/argv.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/obs-compute.h"
#include "kernodeck/paths.h"
#include "kernodeck/probe.h"
#include "kernodeck/stage.h"
#include "kernodeck/venv.h"


static const char *const backends[] = { "cpu", "cuda", "rocm", "mps", "xpu", NULL };

struct compute_sink {
	const struct kd_sink *sink;
};

static void
compute_line(void *u, const char *line, size_t len)
{
	const struct kd_sink *s = ((struct compute_sink *)u)->sink;

	if (s != NULL && s->on_line != NULL)
		s->on_line(s->u, line, len);
}

static void
compute_begin(void *u, const char *step, const char *device)
{
	char buf[128];

	snprintf(buf, sizeof buf, "probe: %s%s%s", step, device ? " on " : "", device ? device : "");
	kd_sink_step(((struct compute_sink *)u)->sink, buf, -1);
}

static int
compute_cancelled(void *u)
{
	return kd_sink_cancelled(((struct compute_sink *)u)->sink);
}

static int
known_backend(const char *b)
{
	for (size_t i = 0; b != NULL && backends[i] != NULL; i++)
		if (strcmp(b, backends[i]) == 0)
			return 1;
	return 0;
}

static int
compute_gather(struct kd_ctx *ctx, struct kd_result *res, const struct kd_sink *sink,
	       struct kd_err *err)
{
	const char *expect = yamlio_get_str(ctx->ref, "system.backend");
	char *python = venv_python(ctx->project_dir);
	char *probe = kd_share_path("probe.py"), *log = NULL;
	char **argv = NULL;
	struct compute_sink cs = { .sink = sink };
	struct probe_opts po;
	struct probe_out out;
	struct probe_end pe;
	struct run_result r;
	int rc = 0;

	memset(&r, 0, sizeof r);
	if (access(python, X_OK) != 0) {
		res->obs = json_pack("{s:s, s:b, s:s?}", "interpreter", python, "interpreter_missing", 1,
				     "expected", expect);
		goto out;
	}
	if (probe == NULL || access(probe, R_OK) != 0) {
		rc = kd_err_set(err, KD_EENV, probe, 0,
				"the probe %s cannot be read (is kernodeck installed, or KD_SHARE_DIR set?)",
				probe ? probe : "probe.py");
		goto out;
	}
	if (expect != NULL && !known_backend(expect)) {
		res->obs = json_pack("{s:s, s:s, s:b}", "interpreter", python, "expected", expect,
				     "unknown_backend", 1);
		goto out;
	}
	if ((argv = probe_run_argv(ctx->project_dir, probe, ctx->ref)) == NULL) {
		rc = kd_err_sys(err, KD_EENV, NULL, ENOMEM, "the probe's argument vector");
		goto out;
	}
	log = kd_ctx_log_path(ctx, "probe");
	probe_out_init(&out);
	out.on_begin = compute_begin;
	out.u = &cs;
	memset(&po, 0, sizeof po);
	po.python = python;
	po.probe_path = probe;
	po.expect = expect;
	po.argv = argv;
	po.timeout_s = kd_env_seconds("KD_TIMEOUT_PROBE", ctx->timeout_probe);
	po.log_path = log;
	po.cwd = ctx->project_dir;
	po.env_base = ctx->child_env;
	po.on_line = compute_line;
	po.cancelled = compute_cancelled;
	po.u = &cs;
	kd_sink_step(sink, "probe: starting", -1);
	rc = probe_exec(&po, &out, &r, err);
	if (rc == 0) {
		pe.expected = expect;
		pe.interpreter = python;
		pe.probe_path = probe;
		pe.log = log ? kd_ctx_relpath(ctx, log) : NULL;
		pe.run = &r;
		res->obs = probe_obs(&out, &pe);
		json_object_set_new(res->obs, "argv", probe_argv_json(&po));
		json_object_set_new(res->obs, "cwd", json_string(ctx->project_dir));
		json_object_set_new(res->obs, "timeout", json_real(po.timeout_s));
	}
	probe_out_free(&out);
	run_result_free(&r);
out:
	argv_free(argv);
	free(log);
	free(probe);
	free(python);
	return rc;
}

static int
compute_check(struct kd_ctx *ctx, struct kd_result *res, struct kd_err *err)
{
	const json_t *obs = res->obs;
	const char *log = obs_compute_log(obs);
	size_t start = res->rows.n;
	struct kd_row *r;

	(void)ctx;
	(void)err;
	if (obs_compute_interpreter_missing(obs)) {
		r = kd_rows_add(&res->rows, "compute.interpreter", KD_R_FAIL,
				"the project interpreter exists", obs_compute_interpreter(obs),
				".venv-rebuild/bin/python", NULL);
		kd_row_set_error(r, "the rebuilt venv has no interpreter",
				 "run stage 3 (rebuild) first: the probe runs in the project interpreter");
		return 0;
	}
	if (obs_compute_unknown_backend(obs)) {
		r = kd_rows_addf(&res->rows, "compute.expected", KD_R_FAIL,
				 "the reference declares its backend", "cpu, cuda, rocm, mps or xpu",
				 "%s", obs_compute_expected(obs));
		kd_row_set_error(r, "unknown backend", "fix system.backend in the reference (stage 1)");
		return 0;
	}
	probe_check_rows(obs, &res->rows);
	for (size_t i = start; log != NULL && i < res->rows.n; i++)
		if (res->rows.v[i].evidence == NULL)
			res->rows.v[i].evidence = strdup(log);
	return 0;
}

static void
compute_describe(const struct kd_result *res, struct kd_rows *rows)
{
	probe_describe_rows(res->obs, rows);
}

static const struct kd_field ext_fields[] = {
	{ .path = "module", .label = "module", .kind = KD_FIELD_TEXT,
	  .help = "the extension's import name, e.g. mypkg._C" },
	{ .path = "call", .label = "function", .kind = KD_FIELD_TEXT,
	  .help = "optional: a function of the module called with no argument" },
};

static const struct kd_field compute_fields[] = {
	{ .path = "system.backend", .label = "expected backend", .kind = KD_FIELD_CHOICE,
	  .choices = "cpu|cuda|rocm|mps|xpu",
	  .help = "the device the computation must run on; a GPU that cannot be reached fails the stage" },
	{ .path = "compute.extensions", .label = "extensions", .kind = KD_FIELD_LIST,
	  .help = "compiled extensions to import (and call) in the project interpreter",
	  .item_fields = ext_fields, .nitem_fields = sizeof ext_fields / sizeof ext_fields[0] },
};

const struct kd_stage_ops kd_stage_compute = {
	.id = "compute",
	.title = "Compute",
	.summary = "a probe in the project interpreter: backend, devices, a product checked against the CPU",
	.replay = 1,
	.fields = compute_fields,
	.nfields = sizeof compute_fields / sizeof compute_fields[0],
	.gather = compute_gather,
	.check = compute_check,
	.describe = compute_describe,
};
