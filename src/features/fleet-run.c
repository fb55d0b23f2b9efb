/*
 * fleet-run.c - `kernodeck fleet`'s Slurm side (see fleet-run.h): the node
 * task, which runs the stages on its node and writes its node file, and the
 * command, which rebuilds once, starts the node tasks through srun and
 * gathers their files into the matrix (fleet.c).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernodeck/caps.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fleet.h"
#include "kernodeck/fleet-run.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/obs-system.h"
#include "kernodeck/paths.h"
#include "kernodeck/redact.h"
#include "kernodeck/run.h"
#include "kernodeck/runenv.h"
#include "kernodeck/runner.h"
#include "kernodeck/step.h"
#include "kernodeck/stop.h"
#include "kernodeck/termout.h"
#include "kernodeck/yamlio.h"

/* The most seconds the runner waits past the node budget before it ends
 * srun (whose own --time is the budget rounded up to a minute). */
#define FLEET_MARGIN_S 30
#define FLEET_MAX_NODES 100000

static const char *
nz(const char *s)
{
	return s ? s : "";
}

/* A node or job name we put in a path: [A-Za-z0-9._-], no leading dot. */
static int
safe_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > KD_FLEET_NAME_MAX || s[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] >= 'a' && s[i] <= 'z') && !(s[i] >= 'A' && s[i] <= 'Z') &&
		    !(s[i] >= '0' && s[i] <= '9') && s[i] != '.' && s[i] != '_' && s[i] != '-')
			return 0;
	return 1;
}

/* A malloc'd printf, or NULL. */
static char *
xprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The rows of stage i as the node file keeps them; with sysobs (the
 * system stage's observation of this run), the facts fleet_system_facts
 * adds after them. */
static json_t *
stage_tree(const struct kd_ctx *ctx, int i, const json_t *sysobs)
{
	const struct kd_stage_state *ss = &ctx->state.st[i];
	json_t *rows = json_array();
	struct kd_rows facts = { 0 };

	if (sysobs != NULL)
		fleet_system_facts(sysobs, &facts);
	for (size_t k = 0; k < ss->rows.n + facts.n; k++) {
		const struct kd_row *r = k < ss->rows.n ? &ss->rows.v[k] : &facts.v[k - ss->rows.n];
		json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "id", r->id,
				      "status", kd_rstat_name(r->status),
				      "observed", nz(r->observed), "expected", nz(r->expected));
		if (r->first_error != NULL)
			json_object_set_new(o, "first_error", json_string(r->first_error));
		if (stage_find_deviation(&ctx->state, i, r->id) != NULL)
			json_object_set_new(o, "deviation", json_true());
		json_array_append_new(rows, o);
	}
	kd_rows_free(&facts);
	return json_pack("{s:s, s:s, s:o}", "id", kd_stages[i]->id,
			 "status", kd_status_name(ss->status), "rows", rows);
}

/* Variables every node lists even when unset ("unset" is a value the
 * others may differ from): device visibility and the dynamic loader's
 * paths.  The rest of the run-changing variables (runenv.h) are listed
 * when set. */
static const char *const env_always[] = {
	"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
	"GPU_DEVICE_ORDINAL", "ZE_AFFINITY_MASK", "NVIDIA_VISIBLE_DEVICES",
	"LD_LIBRARY_PATH", "LD_PRELOAD",
};

static void
env_row(json_t *rows, const char *name, int always)
{
	const char *v = getenv(name);
	char id[128], shown[1024], *red = NULL;
	size_t rl = 0;

	if (v == NULL && !always)
		return;
	snprintf(id, sizeof id, "env.%s", name);
	/* a value from a prolog or a start-up file: redacted (no credential
	 * reaches the node file) and cleaned of control bytes */
	if (v != NULL && (red = redact_text(v, strlen(v), &rl)) == NULL)
		v = "(not shown: out of memory)";
	termout_str(red ? red : v ? v : FLEET_ENV_UNSET, 0, shown, sizeof shown);
	free(red);
	json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:s}", "id", id, "status",
					      kd_rstat_name(KD_R_INFO), "observed", shown,
					      "expected", ""));
}

/* The "env" pseudo-stage of a node file: one row per run-changing variable
 * (env.NAME), its value or "unset". */
static json_t *
env_stage(void)
{
	json_t *rows = json_array();
	size_t n = 0;
	const char *const *names = runenv_names(&n);

	for (size_t i = 0; i < sizeof env_always / sizeof env_always[0]; i++)
		env_row(rows, env_always[i], 1);
	for (size_t i = 0; i < n; i++) {
		int dup = 0;
		for (size_t k = 0; k < sizeof env_always / sizeof env_always[0]; k++)
			dup |= strcmp(names[i], env_always[k]) == 0;
		if (!dup)
			env_row(rows, names[i], 0);
	}
	return json_pack("{s:s, s:s, s:o}", "id", FLEET_ENV_STAGE, "status", "passed",
			 "rows", rows);
}

/* Expand a Slurm host list ("n[1-3],gpu7") with `scontrol show hostnames`;
 * *out gets a malloc'd array of malloc'd names. */
static int
expand_hostlist(const char *list, char ***out, size_t *n)
{
	const char *argv[] = { "scontrol", "show", "hostnames", list, NULL };
	char *txt = NULL, *save = NULL;
	int code = -1;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	if (list == NULL || *list == '\0' ||
	    run_capture(argv, 30, 0, &txt, &code, NULL) != 0 || code != 0) {
		free(txt);
		return -1;
	}
	for (char *t = strtok_r(txt, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
		if (*n == cap) {
			char **v = realloc(*out, (cap = cap ? cap * 2 : 16) * sizeof *v);
			if (v == NULL)
				break;
			*out = v;
		}
		(*out)[(*n)++] = strdup(t);
	}
	free(txt);
	return 0;
}

static void
free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The address Slurm knows for node (NodeAddr in `scontrol show node`),
 * malloc'd, or NULL. */
static char *
node_addr(const char *node)
{
	const char *argv[] = { "scontrol", "-o", "show", "node", node, NULL };
	char *txt = NULL, *p, *addr = NULL;
	int code = -1;

	if (run_capture(argv, 30, 0, &txt, &code, NULL) == 0 && code == 0 &&
	    (p = strstr(txt, "NodeAddr=")) != NULL) {
		p += 9;
		addr = strndup(p, strcspn(p, " \n"));
	}
	free(txt);
	return addr;
}

struct collective_line {
	json_t *last;   /* the last JSON object the script printed */
};

static void
collective_on_line(void *u, const char *line, size_t len)
{
	struct collective_line *cl = u;
	json_t *j;

	if (len == 0 || line[0] != '{')
		return;
	if ((j = json_loadb(line, len, 0, NULL)) != NULL && json_is_object(j)) {
		json_decref(cl->last);
		cl->last = j;
	} else {
		json_decref(j);
	}
}

/* The torch.distributed backend the reference's system.backend asks for. */
static const char *
collective_backend(const struct kd_ctx *ctx)
{
	const char *b = yamlio_get_str(ctx->ref, "system.backend");

	if (b == NULL || strcmp(b, "cpu") == 0)
		return "gloo";
	if (strcmp(b, "cuda") == 0 || strcmp(b, "rocm") == 0)
		return "nccl";
	return NULL;
}

/* Run share/collective.py with the project interpreter on this node: one
 * rank of the all-reduce.  Its report becomes the "collective" stage. */
static json_t *
run_collective(struct kd_ctx *ctx, const char *node, const char *job, const char *run,
	       const char *folder, int pairs, double slow)
{
	const char *backend = collective_backend(ctx), *nodelist = getenv("SLURM_STEP_NODELIST");
	char *python = fsutil_join(ctx->project_dir, ".venv-rebuild/bin/python");
	char *script = kd_share_path("collective.py");
	char **names = NULL, *addr = NULL, *rdv = NULL, tmo[32], slows[32], joined[8192] = "";
	size_t nn = 0;
	struct collective_line cl = { NULL };
	struct kd_step st = { .what = "collective", .on_line = collective_on_line, .u = &cl,
			      .cancelled = kd_stop_requested };
	struct kd_err e = { 0 };
	json_t *rows = json_array(), *stage;
	double timeout = kd_env_seconds("KD_TIMEOUT_COLLECTIVE", 60);

	if (nodelist == NULL)
		nodelist = getenv("SLURM_JOB_NODELIST");
	if (access(python, X_OK) != 0) {
		free(python);
		python = strdup(ctx->python ? ctx->python : "/usr/bin/python3");
	}
	if (backend == NULL) {
		json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:s}", "id", "collective.backend",
			"status", "fail", "observed", yamlio_get_str(ctx->ref, "system.backend"),
			"expected", "cpu (gloo), cuda or rocm (nccl)"));
		goto out;
	}
	if (expand_hostlist(nodelist, &names, &nn) != 0 || nn == 0 ||
	    (addr = node_addr(names[0])) == NULL) {
		json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:s}", "id", "collective.join",
			"status", "fail", "observed", "no rendezvous address: scontrol cannot show the first node",
			"expected", "the first node's NodeAddr"));
		goto out;
	}
	for (size_t i = 0; i < nn; i++)
		snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s",
			 i ? "," : "", names[i]);
	rdv = xprintf("%s/.rendezvous-%s", folder, run);
	snprintf(tmo, sizeof tmo, "%g", timeout);
	snprintf(slows, sizeof slows, "%g", slow > 0 ? slow : FLEET_SLOW_DEFAULT);
	{
		const char *argv[] = { python, script, "--backend", backend, "--addr", addr,
			"--rank", nz(getenv("SLURM_PROCID")), "--world", nz(getenv("SLURM_NTASKS")),
			"--nodes", joined, "--port-file", nz(rdv), "--timeout", tmo, "--slow", slows,
			pairs ? "--pairs" : NULL, NULL };
		st.argv = argv;
		st.timeout_s = timeout * 3 + 30;
		if (step_run(ctx, NULL, &st, &e) != 0 || cl.last == NULL) {
			char buf[1400], how[128];
			snprintf(buf, sizeof buf, "the collective did not report: %s",
				 st.r.started ? run_describe(&st.r, how, sizeof how) :
				 kd_err_format(&e, buf + 900, 400));
			json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:s}", "id", "collective.join",
				"status", "fail", "observed", buf, "expected", "every rank joins"));
			goto out;
		}
	}
	{
		json_t *rr = json_object_get(cl.last, "rows"), *row;
		size_t a;
		json_array_foreach(rr, a, row)
			json_array_append(rows, row);
	}
out:
	(void)node;
	(void)job;
	stage = json_pack("{s:s, s:s, s:o}", "id", "collective", "status", "passed", "rows", rows);
	{
		json_t *row;
		size_t a;
		json_array_foreach(rows, a, row)
			if (strcmp(nz(json_string_value(json_object_get(row, "status"))), "fail") == 0)
				json_object_set_new(stage, "status", json_string("failed"));
	}
	if (cl.last != NULL)
		json_object_set_new(stage, "report", cl.last);
	step_free(&st);
	free_names(names, nn);
	free(addr);
	free(rdv);
	free(python);
	free(script);
	return stage;
}

static void
node_step(void *u, const char *step, double fraction)
{
	(void)fraction;
	fprintf(stderr, "kernodeck fleet node %s: %s\n", (const char *)u, step);
}

int
fleet_node_task(const char *dir, const char *state_dir, const char *job, const char *run,
		const int *stages, int nstages, int collective, int pairs, double slow,
		struct kd_err *err)
{
	char host[256] = "", node[256], started[32], *folder = NULL, *path = NULL, *rel;
	const char *nm = getenv("SLURMD_NODENAME");
	struct kd_sink sink = { node_step, NULL, kd_stop_requested, node };
	struct kd_ctx ctx;
	json_t *t = NULL, *sts = json_array();
	double t0 = now_s();
	int rc, passed = 1;

	gethostname(host, sizeof host - 1);
	snprintf(node, sizeof node, "%s", nm && *nm ? nm : host);
	if (job == NULL)
		job = getenv("SLURM_JOB_ID");
	if (!safe_name(node) || !safe_name(job) || !safe_name(run)) {
		json_decref(sts);
		return kd_err_set(err, KD_EINPUT, NULL, 0,
				  "node \"%s\", job \"%s\" or run \"%s\" is not a name for a file",
				  node, nz(job), nz(run));
	}
	fsutil_utc_now(started, sizeof started);
	/* the compute probe times the product and a copy on every node: the
	 * matrix compares the throughputs against the fleet's median */
	setenv("KD_PROBE_PERF", "1", 1);
	/* no lock, read-only: the node never writes the project's state */
	rc = kd_ctx_open(&ctx, dir, state_dir, KD_LOCK_NONE, err);
	if (rc != 0)
		goto out;
	folder = kd_ctx_path(&ctx, "fleet");
	rel = fsutil_join(folder, job);
	free(folder);
	folder = rel;
	for (int k = 0; k < nstages; k++) {
		struct kd_err se = { 0 };
		int i = stages[k], ran;
		const json_t *so;
		ran = stage_run(&ctx, i, &sink, NULL, &se) == 0;
		if (!ran && ctx.state.st[i].rows.n == 0) {
			char buf[1400];
			kd_rows_fail(&ctx.state.st[i].rows, "stage.error", "the stage could run",
				     kd_err_format(&se, buf, sizeof buf), "no error", NULL, NULL);
			ctx.state.st[i].status = KD_ST_FAILED;
		}
		if (ctx.state.st[i].status != KD_ST_PASSED && ctx.state.st[i].status != KD_ST_DEVIATION)
			passed = 0;
		/* the facts of this run's observation only, never of the
		 * project's system.yaml from another machine */
		so = ran && i == stage_pos(&kd_stage_system) ? kd_ctx_obs(&ctx, i) : NULL;
		if (so != NULL && strcmp(nz(obs_system_observed_at(so)), started) < 0)
			so = NULL;
		json_array_append_new(sts, stage_tree(&ctx, i, so));
		if (kd_stop_requested(NULL)) {
			/* srun cancelled the step: no node file, end by the signal */
			rc = kd_err_set(err, KD_EENV, NULL, 0, "cancelled");
			goto out;
		}
	}
	json_array_append_new(sts, env_stage());
	if (collective) {
		json_t *c;
		if (fsutil_mkdirs(folder, err) != 0) {
			rc = KD_EENV;
			goto out;
		}
		c = run_collective(&ctx, node, job, run, folder, pairs, slow);
		if (strcmp(json_string_value(json_object_get(c, "status")), "passed") != 0)
			passed = 0;
		json_array_append_new(sts, c);
	}
	t = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:f, s:s, s:O}", "schema", 1,
		      "job", job, "run", run, "node", node, "rank", nz(getenv("SLURM_PROCID")),
		      "host", host, "started", started, "elapsed_s", now_s() - t0,
		      "status", passed ? "passed" : "failed", "stages", sts);
	if (fsutil_mkdirs(folder, err) != 0) {
		rc = KD_EENV;
		goto out;
	}
	if ((path = xprintf("%s/%s.yaml", folder, node)) == NULL) {
		rc = kd_err_set(err, KD_EENV, NULL, 0, "out of memory");
		goto out;
	}
	rc = yamlio_save_file(path, t, 0, err);
	if (rc == 0)
		printf("kernodeck fleet node %s: wrote %s (%s)\n", node, path,
		       passed ? "passed" : "failed");
out:
	if (ctx.project_dir != NULL)
		kd_ctx_close(&ctx);
	json_decref(t);
	json_decref(sts);
	free(folder);
	free(path);
	return rc;
}

/* What srun says while it runs: the job, its nodes, launch failures. */
struct srun_watch {
	char job[KD_FLEET_NAME_MAX + 1];
	char step[32];
	char *nodelist;
	json_t *reasons;   /* node -> why it did not answer */
	char last_error[512];
	int quiet;
};

/* "srun: jobid 12: nodes(3):`n[1-3]', cpu counts: 1(x3)" and
 * "srun: error: Task launch for StepId=12.0 failed on node n3: REASON". */
static void
srun_on_line(void *u, const char *line, size_t len)
{
	struct srun_watch *w = u;
	char buf[KD_CAP_LINE];
	const char *p;

	snprintf(buf, sizeof buf, "%.*s", (int)len, line);
	if (sscanf(buf, "srun: jobid %64[0-9]: nodes(", w->job) == 1 &&
	    (p = strchr(buf, '`')) != NULL) {
		free(w->nodelist);
		w->nodelist = strndup(p + 1, strcspn(p + 1, "'"));
	}
	if ((p = strstr(buf, "StepId=")) != NULL && w->step[0] == '\0')
		sscanf(p, "StepId=%*[0-9].%31[0-9]", w->step);
	if ((p = strstr(buf, " failed on node ")) != NULL) {
		char name[KD_FLEET_NAME_MAX + 1];
		if (sscanf(p, " failed on node %64[^:]:", name) == 1) {
			const char *why = strchr(p + 16, ':');
			json_object_set_new(w->reasons, name, json_string(why ? why + 2 : p + 1));
		}
	}
	if ((p = strstr(buf, "kernodeck fleet node ")) != NULL && strstr(buf, ": error: ")) {
		char name[KD_FLEET_NAME_MAX + 1];
		if (sscanf(p, "kernodeck fleet node %64[^:]:", name) == 1)
			json_object_set_new(w->reasons, name, json_string(strstr(buf, ": error: ") + 9));
	}
	if (strncmp(buf, "srun: error: ", 13) == 0)
		snprintf(w->last_error, sizeof w->last_error, "%.500s", buf + 13);
	if (!w->quiet && (strncmp(buf, "srun: ", 6) != 0 || strstr(buf, "error")))
		fprintf(stderr, "  | %s\n", buf);
}

/* `scontrol ping`: 0 when a controller answers, else 3 with a message. */
static int
controller_answers(void)
{
	const char *argv[] = { "scontrol", "ping", NULL };
	char *txt = NULL;
	int code = -1;
	struct kd_err e = { 0 };

	if (run_capture(argv, 30, 0, &txt, &code, &e) != 0) {
		char buf[1400];
		fprintf(stderr, "kernodeck fleet: Slurm cannot be used: `scontrol ping` could not run: %s\n",
			kd_err_format(&e, buf, sizeof buf));
		return 3;
	}
	if (code != 0 || strstr(txt, " is UP") == NULL) {
		fprintf(stderr, "kernodeck fleet: Slurm cannot be used: no controller answers "
			"(`scontrol ping`, exit %d): %.*s\n", code, (int)strcspn(txt, "\n"), txt);
		free(txt);
		return 3;
	}
	free(txt);
	return 0;
}

/* Stage 3 once, in the project folder, before the nodes use its venv. */
static int
rebuild_once(struct kd_ctx *ctx, int quiet)
{
	struct kd_sink sink = { quiet ? NULL : kd_sink_print_step, NULL, kd_stop_requested, NULL };
	struct kd_err e = { 0 };
	enum kd_status s;
	char buf[1400];
	int rebuild = stage_pos(&kd_stage_rebuild);

	if (!quiet)
		fprintf(stderr, "kernodeck fleet: the rebuild, once, in %s\n", ctx->project_dir);
	if (stage_run(ctx, rebuild, &sink, NULL, &e) != 0) {
		fprintf(stderr, "kernodeck fleet: the rebuild could not run: %s\n",
			kd_err_format(&e, buf, sizeof buf));
		return e.code ? e.code : 3;
	}
	s = ctx->state.st[rebuild].status;
	if (s != KD_ST_PASSED && s != KD_ST_DEVIATION) {
		const struct kd_rows *rows = &ctx->state.st[rebuild].rows;
		fprintf(stderr, "kernodeck fleet: the rebuild %s; the nodes were not started "
			"(see `kernodeck check %s --stage %s`)\n", kd_status_name(s), ctx->project_dir,
			kd_stage_rebuild.id);
		for (size_t k = 0; k < rows->n; k++)
			if (rows->v[k].status == KD_R_FAIL)
				fprintf(stderr, "  fail %s: %s\n", rows->v[k].id,
					nz(rows->v[k].first_error ? rows->v[k].first_error : rows->v[k].observed));
		return 1;
	}
	return 0;
}

/* The srun argument vector (malloc'd array of borrowed or owned strings). */
static char **
srun_argv(const struct fleet_opts *o, const char *self, const char *run, const char *dir,
	  const char *state_dir, char *own[4])
{
	int n = 0, in_alloc = getenv("SLURM_JOB_ID") != NULL;
	char **v = calloc((size_t)(o->nsrun_args + 2 * o->nstages + 32), sizeof *v);
	long minutes = (long)ceil(o->timeout_s / 60.0);

	if (v == NULL)
		return NULL;
	if (minutes < 1)
		minutes = 1;
	own[0] = xprintf("--time=%ld", minutes);
	own[1] = xprintf("--nodes=%d", o->nodes > 0 ? o->nodes : 1);
	v[n++] = "srun";
	v[n++] = "-v";
	v[n++] = "--job-name=kernodeck-fleet";
	if (!in_alloc || o->nodes > 0)
		v[n++] = own[1];
	v[n++] = "--ntasks-per-node=1";
	v[n++] = "--kill-on-bad-exit=0";
	v[n++] = own[0];
	for (int i = 0; i < o->nsrun_args; i++)
		v[n++] = o->srun_args[i];
	v[n++] = (char *)self;
	v[n++] = "fleet";
	v[n++] = (char *)dir;
	v[n++] = "--node-task";
	v[n++] = "--run";
	v[n++] = (char *)run;
	if (state_dir != NULL) {
		v[n++] = "--state-dir";
		v[n++] = (char *)state_dir;
	}
	for (int i = 0; i < o->nstages; i++) {
		v[n++] = "--stage";
		v[n++] = (char *)kd_stages[o->stages[i]]->id;
	}
	if (o->collective)
		v[n++] = "--collective";
	if (o->collective && o->pairs)
		v[n++] = "--pairs";
	if (o->slow > 0) {
		own[2] = xprintf("--slow=%g", o->slow);
		v[n++] = own[2];
	}
	v[n] = NULL;
	return v;
}

/* The runner's wait past the budget: 5 s plus 5%, at most FLEET_MARGIN_S. */
static double
margin_s(double budget)
{
	double m = 5 + budget / 20;

	return m > FLEET_MARGIN_S ? FLEET_MARGIN_S : m;
}

/* End what srun may have left: the step (inside an allocation) or the job
 * kernodeck asked for. */
static void
scancel(const struct srun_watch *w, int in_alloc)
{
	char id[128];
	const char *argv[] = { "scancel", id, NULL };
	char *txt = NULL;
	int code;

	if (w->job[0] == '\0')
		return;
	if (in_alloc && w->step[0] != '\0')
		snprintf(id, sizeof id, "%s.%s", w->job, w->step);
	else if (!in_alloc)
		snprintf(id, sizeof id, "%s", w->job);
	else
		return;
	run_capture(argv, 30, 0, &txt, &code, NULL);
	free(txt);
}

/* Why a node without a file did not answer. */
static char *
why_unreachable(const struct srun_watch *w, const struct run_result *r, const char *node,
		double timeout)
{
	const char *s = json_string_value(json_object_get(w->reasons, node));
	char *out = NULL, how[128];

	if (s != NULL)
		out = xprintf("did not answer: %s", s);
	else if (r->timed_out)
		out = xprintf("did not answer within %.0f s", timeout + margin_s(timeout));
	else if (r->cancelled)
		out = xprintf("did not answer: cancelled");
	else
		out = xprintf("did not answer (no node file; srun: %s%s%s)", run_describe(r, how, sizeof how),
			 w->last_error[0] ? ", " : "", w->last_error);
	return out;
}

/* Gather and report; returns the exit status. */
static int
report(const struct fleet_opts *o, struct kd_ctx *ctx, struct srun_watch *w,
       const struct run_result *r, const char *run)
{
	char **names = NULL, **why = NULL, *folder = NULL, *rel = NULL, buf[1400];
	const char *list = w->nodelist ? w->nodelist : getenv("SLURM_JOB_NODELIST");
	size_t nn = 0;
	struct fleet_matrix m;
	struct kd_err e = { 0 };
	int rc;

	if (w->job[0] == '\0' && getenv("SLURM_JOB_ID") != NULL && safe_name(getenv("SLURM_JOB_ID")))
		snprintf(w->job, sizeof w->job, "%s", getenv("SLURM_JOB_ID"));
	if (w->job[0] == '\0') {
		fprintf(stderr, "kernodeck fleet: Slurm cannot be used: srun started no job (%s)\n",
			w->last_error[0] ? w->last_error : "it printed no job id");
		return 3;
	}
	if (expand_hostlist(list, &names, &nn) != 0)
		nn = 0;
	why = calloc(nn ? nn : 1, sizeof *why);
	for (size_t i = 0; why != NULL && i < nn; i++)
		why[i] = why_unreachable(w, r, names[i], o->timeout_s);
	rel = xprintf("fleet/%s", w->job);
	folder = kd_ctx_path(ctx, rel);
	rc = fleet_gather(&m, folder, w->job, (const char *const *)names, (const char *const *)why,
			  nn, run, &e);
	if (rc != 0) {
		fprintf(stderr, "kernodeck fleet: %s\n", kd_err_format(&e, buf, sizeof buf));
	} else {
		if (o->slow > 0)
			fleet_set_slow(&m, o->slow);
		fleet_print(stdout, &m, o->fmt);
		rc = fleet_exit_status(&m);
		if (o->junit != NULL && fleet_junit(o->junit, &m, &e) != 0) {
			fprintf(stderr, "kernodeck fleet: %s\n", kd_err_format(&e, buf, sizeof buf));
			rc = 3;
		}
	}
	fleet_matrix_free(&m);
	free_names(why, nn);
	free_names(names, nn);
	free(folder);
	free(rel);
	return rc;
}

int
fleet_run(const struct fleet_opts *o)
{
	char *srun = run_which("srun"), *self = realpath("/proc/self/exe", NULL);
	char *own[4] = { NULL }, **argv = NULL, run[64];
	int in_alloc = getenv("SLURM_JOB_ID") != NULL, rc = 0, need_rebuild = 0;
	struct srun_watch w = { .reasons = json_object(), .quiet = o->quiet };
	struct kd_step st = { .what = "fleet-srun", .on_line = srun_on_line, .u = &w,
			      .cancelled = kd_stop_requested, .grace_s = 10 };
	struct kd_err e = { 0 };
	struct kd_ctx ctx;
	char buf[1400];

	memset(&ctx, 0, sizeof ctx);
	if (srun == NULL) {
		fprintf(stderr, "kernodeck fleet: Slurm cannot be used: srun is not on PATH (%s)\n",
			nz(getenv("PATH")));
		rc = 3;
		goto out;
	}
	if (!in_alloc && (rc = controller_answers()) != 0)
		goto out;
	if ((rc = kd_ctx_open(&ctx, o->dir, o->state_dir, KD_LOCK_REQUIRED, &e)) != 0) {
		fprintf(stderr, "kernodeck fleet: %s\n", kd_err_format(&e, buf, sizeof buf));
		rc = rc == KD_EFAIL ? 3 : rc;
		goto out;
	}
	for (int i = 0; i < o->nstages; i++)
		need_rebuild |= o->stages[i] == stage_pos(&kd_stage_compute);
	need_rebuild |= o->collective;
	if (need_rebuild && (rc = rebuild_once(&ctx, o->quiet)) != 0)
		goto out;
	snprintf(run, sizeof run, "%ld-%ld", (long)time(NULL), (long)getpid());
	argv = srun_argv(o, self ? self : "kernodeck", run, ctx.project_dir,
			 o->state_dir ? ctx.state_dir : NULL, own);
	st.argv = (const char *const *)argv;
	st.timeout_s = o->timeout_s + margin_s(o->timeout_s);
	{
		if (!o->quiet)
			fprintf(stderr, "kernodeck fleet: srun, one task per node%s\n",
				in_alloc ? " of this allocation" : "");
		if (step_run(&ctx, NULL, &st, &e) != 0) {
			fprintf(stderr, "kernodeck fleet: Slurm cannot be used: %s\n",
				kd_err_format(&e, buf, sizeof buf));
			rc = 3;
			goto out;
		}
	}
	if (st.r.cancelled || st.r.timed_out)
		scancel(&w, in_alloc);
	rc = report(o, &ctx, &w, &st.r, run);
	if (o->collective && w.job[0] != '\0') {
		char *rdv = xprintf("fleet/%s/.rendezvous-%s", w.job, run), *p;
		if (rdv != NULL && (p = kd_ctx_path(&ctx, rdv)) != NULL) {
			unlink(p);   /* rank 0's port: of no use once the step ended */
			free(p);
		}
		free(rdv);
	}
	fflush(stdout);   /* kd_stop_finish may end kernodeck by the signal next */
out:
	if (ctx.project_dir != NULL)
		kd_ctx_close(&ctx);
	step_free(&st);
	json_decref(w.reasons);
	free(w.nodelist);
	for (int i = 0; i < 4; i++)
		free(own[i]);
	free(argv);
	free(srun);
	free(self);
	return rc;
}
