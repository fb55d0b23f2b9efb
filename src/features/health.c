/*
 * health.c - `kernodeck health` (see health.h): this node's cheap system
 * facts, a short probe and its run-changing environment, each compared
 * with the reference and with the latest fleet result's majority; one
 * line per problem; with --drain, this node drained through scontrol.
 *
 * Slurm runs a HealthCheckProgram as SlurmdUser with no terminal and an
 * environment of its own, every HealthCheckInterval seconds, and a slow
 * one holds slurmd up: everything here is read-only, bounded by one budget,
 * and quiet when the node is healthy.  The lines copy NHC's habit (one
 * "ERROR:  NAME: what is wrong" per problem, the checker's name again in
 * the drain reason) so that the output sits well next to other checkers.
 *
 * A drain is this program's own only when its reason starts with
 * "kernodeck:".  A node someone else drained (an admin's "maint", another
 * checker's) is never touched, and no node is ever resumed here: resuming
 * is an admin's decision (`scontrol update NodeName=N State=RESUME`).
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernodeck/ctx.h"
#include "kernodeck/fleet.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/health.h"
#include "kernodeck/obs-compute.h"
#include "kernodeck/obs-system.h"
#include "kernodeck/paths.h"
#include "kernodeck/probe.h"
#include "kernodeck/run.h"
#include "kernodeck/runenv.h"
#include "kernodeck/stage.h"
#include "kernodeck/sysinfo.h"
#include "kernodeck/sysinfo-util.h"
#include "kernodeck/venv.h"
#include "kernodeck/yamlio.h"

/* The budget (--timeout) in turns, each bounded by what is left of it:
 * the system's queries by a deadline at HEALTH_SYS_SHARE of the time left
 * before the drain's reserve (sysinfo_set_deadline: each query ends by it,
 * so that four in a row do too, give or take 0.1 s), the probe by the rest of that time less its
 * grace, and with --drain, the two scontrol calls by the reserve
 * (HEALTH_DRAIN_SHARE of the budget, at least HEALTH_DRAIN_MIN_S and at
 * most HEALTH_DRAIN_RESERVE_S, never more than half of the budget: two
 * short calls, on a node that may be loaded).  HEALTH_EXIT_S is kept for
 * printing and ending. */
#define HEALTH_SYS_SHARE 0.4
#define HEALTH_DRAIN_RESERVE_S 2.0
#define HEALTH_DRAIN_MIN_S 1.0
#define HEALTH_DRAIN_SHARE 0.25
#define HEALTH_EXIT_S 0.1
/* SIGTERM -> SIGKILL for the probe and scontrol: at most this, and at most
 * a fifth of the time each is given */
#define HEALTH_GRACE_S 0.5
/* System rows health does not gather (the interpreter chosen for a
 * rebuild and the planned variant belong to stage 2's full run). */
static const char *const not_gathered[] = { "system.python", "system.interpreter", "system.variant" };
/* Compute rows whose observed value is a fact two healthy nodes share;
 * the other compute rows (measurements) are compared by status only. */
static const char *const compute_values[] = { "compute.python", "compute.import-torch",
	"compute.backend", "compute.expected" };

static const char *
nz(const char *s)
{
	return s ? s : "";
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
in_list(const char *id, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(id, list[i]) == 0)
			return 1;
	return 0;
}

/* A node name for scontrol: [A-Za-z0-9._-], not starting with '.' or '-'. */
static int
node_name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > KD_FLEET_NAME_MAX || s[0] == '.' || s[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '.' && s[i] != '_' && s[i] != '-')
			return 0;
	return 1;
}

/* s with every number followed by a unit of time ("12.5 ms", "3 s")
 * replaced by N: two runs of the same check differ in their durations
 * only (the rule of the fleet's matrix). */
static char *
masked(const char *s)
{
	size_t n = strlen(nz(s)), k = 0;
	char *out = malloc(n + 1);

	if (out == NULL)
		return NULL;
	for (const char *p = nz(s); *p; ) {
		const char *q = p;
		while ((*q >= '0' && *q <= '9') || *q == '.')
			q++;
		if (q > p && (p == s || p[-1] == ' ' || p[-1] == '(') &&
		    (strncmp(q, " ms", 3) == 0 || strncmp(q, " s", 2) == 0 || strncmp(q, "ms", 2) == 0)) {
			out[k++] = 'N';
			p = q;
		} else if (q > p) {
			memcpy(out + k, p, (size_t)(q - p));
			k += (size_t)(q - p);
			p = q;
		} else {
			out[k++] = *p++;
		}
	}
	out[k] = '\0';
	return out;
}

static int
same_masked(const char *a, const char *b)
{
	char *x = masked(a), *y = masked(b);
	int same = x != NULL && y != NULL && strcmp(x, y) == 0;

	free(x);
	free(y);
	return same;
}

struct health {
	const struct health_opts *o;
	double deadline;    /* t0 + --timeout, less HEALTH_EXIT_S */
	double reserve;     /* the drain's seconds at the end, 0 without --drain */
	struct kd_ctx ctx;
	struct fleet_matrix m;
	int have_fleet;
	char node[KD_FLEET_NAME_MAX + 1];
	json_t *problems;   /* [{check, against, message}] */
	json_t *drain;      /* what --drain did, or NULL */
};

static void
problem(struct health *h, const char *check, const char *against, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void
problem(struct health *h, const char *check, const char *against, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	json_array_append_new(h->problems, json_pack("{s:s, s:s, s:s}", "check", check,
						     "against", against, "message", msg));
}

/* A line after the problems, in text only (json has the drain object). */
static void
note(const struct health *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
note(const struct health *h, const char *fmt, ...)
{
	va_list ap;

	if (h->o->fmt == KD_FMT_JSON)
		return;
	fputs("NOTE:  kernodeck: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

static double
left_s(const struct health *h)
{
	return h->deadline - now_s();
}

/* The grace (SIGTERM -> SIGKILL) of a program given t seconds in all. */
static double
grace_of(double t)
{
	return t / 5 < HEALTH_GRACE_S ? (t > 0 ? t / 5 : 0.01) : HEALTH_GRACE_S;
}

/* The fleet's check id, or NULL when the latest fleet result has no such
 * row or no value held by more than half of the nodes that answered it. */
static const struct fleet_check *
fleet_majority(const struct health *h, const char *id)
{
	const json_t *ix;
	const struct fleet_check *c;

	if (!h->have_fleet || (ix = json_object_get(h->m.check_index, id)) == NULL)
		return NULL;
	c = &h->m.checks[json_integer_value(ix)];
	if (c->majority < 0 || c->agree * 2 <= c->answered)
		return NULL;
	return c;
}

static const char *
cell(const struct fleet_check *c, const char *key)
{
	return nz(json_string_value(json_object_get(c->cell[c->majority], key)));
}

/* One row of this node against the reference and the fleet: one problem
 * when it differs from either, naming both when it differs from both. */
static void
judge_row(struct health *h, int stage, const struct kd_row *r, int values)
{
	const struct fleet_check *c = fleet_majority(h, r->id);
	const char *label = r->label ? r->label : r->id;
	int ref_bad = r->status == KD_R_FAIL && stage_find_deviation(&h->ctx.state, stage, r->id) == NULL;
	int val_bad = c != NULL && values && !same_masked(r->observed, cell(c, "observed"));
	int st_bad = c != NULL && !val_bad && strcmp(cell(c, "status"), kd_rstat_name(r->status)) != 0;
	char ref[600] = "", fleet[600] = "";

	if (ref_bad && r->first_error != NULL && strncmp(r->id, "compute.", 8) == 0)
		snprintf(ref, sizeof ref, ": %s", r->first_error);
	else if (ref_bad)
		snprintf(ref, sizeof ref, " %s differs from the reference's %s", nz(r->observed),
			 nz(r->expected));
	if (st_bad)
		snprintf(fleet, sizeof fleet, "%s is %s (%s) where the fleet's is %s (%s; %zu of %zu nodes)",
			 ref_bad ? "; it" : "", kd_rstat_name(r->status), nz(r->observed),
			 cell(c, "status"), cell(c, "observed"), c->agree, c->answered);
	else if (val_bad && ref_bad && ref[0] == ' ')
		snprintf(fleet, sizeof fleet, " and from the fleet's %s (%zu of %zu nodes)",
			 cell(c, "observed"), c->agree, c->answered);
	else if (val_bad)
		snprintf(fleet, sizeof fleet, "%s %s differs from the fleet's %s (%zu of %zu nodes)",
			 ref_bad ? "; it" : "", nz(r->observed), cell(c, "observed"), c->agree, c->answered);
	if (ref_bad || st_bad || val_bad)
		problem(h, r->id, ref_bad && (st_bad || val_bad) ? "reference and fleet" :
			ref_bad ? "reference" : "fleet", "%s%s%s", label, ref, fleet);
}

/* Stage 2's cheap facts: sysinfo_observe and the system stage's check on
 * them, without the interpreter chooser nor the variant. */
static void
check_system(struct health *h)
{
	int i = stage_pos(&kd_stage_system);
	struct kd_result res;
	struct kd_err e = { 0 };
	char buf[1400];
	const char *smi;
	int rc;

	kd_result_init(&res);
	/* every query (nvidia-smi, rocm-smi, the compilers) ends by a share of
	 * what is left before the drain's reserve (KD_SYS_TIMEOUT may only
	 * shorten it) */
	sysinfo_set_deadline(now_s() + HEALTH_SYS_SHARE * (left_s(h) - h->reserve));
	rc = sysinfo_observe(&res.obs, NULL, &e);
	sysinfo_set_deadline(0);
	if (rc != 0 || res.obs == NULL) {
		problem(h, "system.observed", "reference", "this node's system could not be read: %s",
			kd_err_format(&e, buf, sizeof buf));
		kd_result_free(&res);
		return;
	}
	kd_stage_system.check(&h->ctx, &res, &e);
	fleet_system_facts(res.obs, &res.rows);
	for (size_t k = 0; k < res.rows.n; k++)
		if (!in_list(res.rows.v[k].id, not_gathered, sizeof not_gathered / sizeof *not_gathered))
			judge_row(h, i, &res.rows.v[k], 1);
	smi = obs_system_nvidia_smi_status(res.obs);
	if (smi != NULL && strcmp(smi, "timeout") == 0)
		problem(h, "system.nvidia-smi", "reference", "nvidia-smi did not answer within the "
			"%g s budget (%s): the GPUs' names and count as it sees them not checked",
			h->o->timeout_s, nz(obs_system_nvidia_smi_reason(res.obs)));
	kd_result_free(&res);
}

/* "3.11" of "3.11.2" (at most len bytes). */
static void
major_minor(const char *v, char *out, size_t len)
{
	const char *dot = v ? strchr(v, '.') : NULL;
	size_t n = dot ? strcspn(dot + 1, ".") + (size_t)(dot + 1 - v) : strlen(nz(v));

	snprintf(out, len, "%.*s", (int)n, nz(v));
}

/* The venv's Python (the probe's python step) against the reference's
 * python.version, major.minor as stage 2 compares them. */
static void
check_python(struct health *h, const json_t *obs)
{
	const char *want = yamlio_get_str(h->ctx.ref, "python.version");
	const json_t *st;
	size_t i;
	char a[32], b[32];

	if (want == NULL)
		return;
	json_array_foreach(obs_compute_steps(obs), i, st) {
		const char *v = obs_compute_step_version(st);
		if (obs_compute_step_step(st) == NULL || strcmp(obs_compute_step_step(st), "python") != 0 ||
		    v == NULL)
			continue;
		major_minor(v, a, sizeof a);
		major_minor(want, b, sizeof b);
		if (strcmp(a, b) != 0)
			problem(h, "compute.python-version", "reference",
				"Python %s in the project's venv differs from the reference's %s", v, want);
	}
}

/* The compute probe, smallest form (no extensions), within what is left. */
static void
check_probe(struct health *h)
{
	int i = stage_pos(&kd_stage_compute);
	const char *expect = yamlio_get_str(h->ctx.ref, "system.backend");
	char *python = venv_python(h->ctx.project_dir), *probe = kd_share_path("probe.py");
	char *log = NULL, buf[1400];
	double budget = left_s(h) - h->reserve, grace = grace_of(budget);
	struct probe_opts po;
	struct probe_out out;
	struct probe_end pe;
	struct run_result r;
	struct kd_rows rows = { 0 };
	struct kd_err e = { 0 };
	json_t *obs = NULL;

	memset(&r, 0, sizeof r);
	probe_out_init(&out);
	if (access(python, X_OK) != 0) {
		problem(h, "compute.interpreter", "reference", "the project interpreter %s is missing "
			"(run `kernodeck fleet` or stage 3 once)", python);
		goto out;
	}
	if (probe == NULL || access(probe, R_OK) != 0) {
		problem(h, "compute.probe", "reference", "the probe %s cannot be read", nz(probe));
		goto out;
	}
	if (budget - grace < 1) {
		problem(h, "compute.probe", "reference", "no time left for the probe within %g s: "
			"Python, torch and the product against the CPU not checked", h->o->timeout_s);
		goto out;
	}
	/* one log per node, its last run only: a check Slurm runs every few
	 * minutes on every node must not fill the shared folder */
	if (access(h->ctx.state_dir, W_OK) == 0) {
		char rel[KD_FLEET_NAME_MAX + 32];
		snprintf(rel, sizeof rel, "logs/health-%s.log", node_name_ok(h->node) ? h->node : "node");
		if ((log = kd_ctx_path(&h->ctx, rel)) != NULL)
			unlink(log);
	}
	memset(&po, 0, sizeof po);
	po.python = python;
	po.probe_path = probe;
	po.expect = expect;
	po.timeout_s = budget - grace;
	po.grace_s = grace;
	po.log_path = log;
	po.cwd = h->ctx.project_dir;
	if (probe_exec(&po, &out, &r, &e) != 0) {
		problem(h, "compute.probe", "reference", "the probe could not run: %s",
			kd_err_format(&e, buf, sizeof buf));
		goto out;
	}
	if (r.timed_out) {
		/* what it had printed says nothing of the rest: one problem */
		problem(h, "compute.probe", "reference", "the compute probe did not finish within "
			"the %g s budget (stopped after %.1f s): Python, torch and the product "
			"against the CPU not checked", h->o->timeout_s, r.elapsed_s);
		goto out;
	}
	pe.expected = expect;
	pe.interpreter = python;
	pe.probe_path = probe;
	pe.log = log ? kd_ctx_relpath(&h->ctx, log) : NULL;
	pe.run = &r;
	obs = probe_obs(&out, &pe);
	check_python(h, obs);
	probe_check_rows(obs, &rows);
	for (size_t k = 0; k < rows.n; k++)
		judge_row(h, i, &rows.v[k], in_list(rows.v[k].id, compute_values,
			  sizeof compute_values / sizeof *compute_values));
out:
	kd_rows_free(&rows);
	json_decref(obs);
	probe_out_free(&out);
	run_result_free(&r);
	free(log);
	free(probe);
	free(python);
}

static int
unset_word(const char *v)
{
	return v == NULL || *v == '\0' || strcmp(v, "unset") == 0 || strcmp(v, "(unset)") == 0 ||
	       strcmp(v, "not set") == 0;
}

/* The fleet's row for variable name: "env.NAME", or any "STAGE.env.NAME". */
static const struct fleet_check *
fleet_env(const struct health *h, const char *name)
{
	size_t nl = strlen(name);

	if (!h->have_fleet)
		return NULL;
	for (size_t i = 0; i < h->m.nchecks; i++) {
		const char *id = h->m.checks[i].id;
		size_t il = strlen(id);
		if (il < nl + 4 || strcmp(id + il - nl, name) != 0 ||
		    strncmp(id + il - nl - 4, "env.", 4) != 0 ||
		    (il > nl + 4 && id[il - nl - 5] != '.'))
			continue;
		return fleet_majority(h, id);
	}
	return NULL;
}

/* The run-changing variables (runenv.h) against the fleet's majority. */
static void
check_env(struct health *h)
{
	size_t n = 0;
	const char *const *names = runenv_names(&n);

	for (size_t i = 0; i < n; i++) {
		const char *mine = getenv(names[i]), *bad = mine ? runenv_bad_value(mine) : NULL;
		const struct fleet_check *c = fleet_env(h, names[i]);
		const char *theirs;
		char id[128];

		snprintf(id, sizeof id, "env.%s", names[i]);
		if (bad != NULL)
			problem(h, id, "reference", "%s holds a value that cannot be recorded (%s)",
				names[i], bad);
		if (c == NULL)
			continue;
		theirs = cell(c, "observed");
		if (unset_word(mine) && unset_word(theirs))
			continue;
		if (!unset_word(mine) && !unset_word(theirs) && strcmp(mine, theirs) == 0)
			continue;
		problem(h, id, "fleet", "%s=%s differs from the fleet's %s (%zu of %zu nodes)",
			names[i], unset_word(mine) ? "(unset)" : mine,
			unset_word(theirs) ? "(unset)" : theirs, c->agree, c->answered);
	}
}

/* The latest fleet folder, read into h->m.  0, or 2 when it is unreadable. */
static int
read_fleet(struct health *h)
{
	char *folder = fleet_latest(h->ctx.state_dir), buf[1400];
	const char *job;
	struct kd_err e = { 0 };

	if (folder == NULL)
		return 0;
	job = strrchr(folder, '/') ? strrchr(folder, '/') + 1 : folder;
	if (fleet_gather(&h->m, folder, job, NULL, NULL, 0, NULL, &e) != 0) {
		fprintf(stderr, "kernodeck health: the fleet result %s cannot be read: %s\n", folder,
			kd_err_format(&e, buf, sizeof buf));
		fleet_matrix_free(&h->m);
		free(folder);
		return 2;
	}
	h->have_fleet = 1;
	free(folder);
	return 0;
}

/* This node's name: SLURMD_NODENAME (slurmd sets it for HealthCheckProgram
 * and prologs), else the short host name. */
static void
this_node(struct health *h)
{
	const char *nm = getenv("SLURMD_NODENAME");
	char host[256] = "";

	if (nm != NULL && *nm) {
		snprintf(h->node, sizeof h->node, "%s", nm);
		return;
	}
	gethostname(host, sizeof host - 1);
	host[strcspn(host, ".")] = '\0';
	snprintf(h->node, sizeof h->node, "%s", host);
}

/* The drain reason: "kernodeck: " and the first problem (and how many
 * more), every control or non-ASCII byte and '"' made '?', cut short. */
static void
drain_reason(const struct health *h, char *out, size_t len)
{
	size_t n = json_array_size(h->problems);
	const char *first = json_string_value(json_object_get(json_array_get(h->problems, 0),
							      "message"));
	char more[48] = "";
	const char *p;
	size_t room, k;

	if (n > 1)
		snprintf(more, sizeof more, " (+%zu more)", n - 1);
	if (len > HEALTH_REASON_MAX + 1)
		len = HEALTH_REASON_MAX + 1;
	k = (size_t)snprintf(out, len, "kernodeck: ");
	room = len - 1 - strlen(more);
	p = nz(first);
	for (; *p && k < room; p++)
		out[k++] = (*p < 0x20 || *p > 0x7e || *p == '"') ? '?' : *p;
	if (*p != '\0' && k >= 3)   /* cut short: said so */
		memcpy(out + k - 3, "...", 3);
	out[k] = '\0';
	snprintf(out + k, len - k, "%s", more);
}

/* Run argv within t seconds in all, its grace included: 0 with its exit
 * code in *code and its output (the run's tail, malloc'd) in *txt, or -1
 * with why it did not exit (not started, timed out, no time left). */
static int
run_within(const char *const *argv, double t, char **txt, int *code, char *why, size_t wlen)
{
	struct run_opts o;
	struct run_result r;
	struct kd_err e = { 0 };
	double g = grace_of(t);

	*txt = NULL;
	*code = -1;
	if (t - g < 0.05) {
		snprintf(why, wlen, "not run: no time left within the budget");
		return -1;
	}
	memset(&o, 0, sizeof o);
	memset(&r, 0, sizeof r);
	o.argv = argv;
	o.timeout_s = t - g;
	o.grace_s = g;
	if (run_program(&o, &r, &e) != 0) {
		kd_err_format(&e, why, wlen);
		run_result_free(&r);
		return -1;
	}
	if (r.timed_out) {
		snprintf(why, wlen, "timed out after %.1f s", o.timeout_s);
		run_result_free(&r);
		return -1;
	}
	if (!r.exited) {
		run_describe(&r, why, wlen);
		run_result_free(&r);
		return -1;
	}
	*code = r.exit_code;
	*txt = strdup(r.tail ? r.tail : "");
	run_result_free(&r);
	return 0;
}

/* `scontrol -o show node NAME`: *drained 1 when its state holds DRAIN, and
 * its reason (malloc'd, or NULL).  0, or -1 when scontrol did not answer. */
static int
node_state(const char *node, double timeout, int *drained, char **reason, char *why, size_t wlen)
{
	const char *argv[] = { "scontrol", "-o", "show", "node", node, NULL };
	char *txt = NULL, *p, how[1400];
	int code = -1;

	*drained = 0;
	*reason = NULL;
	if (run_within(argv, timeout, &txt, &code, how, sizeof how) != 0 || code != 0) {
		snprintf(why, wlen, "`scontrol show node %s` %s", node, code > 0 ? "failed" : how);
		if (code > 0 && txt != NULL)
			snprintf(why + strlen(why), wlen - strlen(why), ": %.*s",
				 (int)strcspn(txt, "\n"), txt);
		free(txt);
		return -1;
	}
	if ((p = strstr(txt, " State=")) != NULL) {
		size_t l = strcspn(p + 7, " \n");
		char *st = strndup(p + 7, l);
		*drained = st != NULL && strstr(st, "DRAIN") != NULL;
		free(st);
	}
	if ((p = strstr(txt, " Reason=")) != NULL)
		*reason = strndup(p + 8, strcspn(p + 8, "\n"));
	free(txt);
	return 0;
}

static void
do_drain(struct health *h)
{
	char reason[HEALTH_REASON_MAX + 1], why[1600], arg_node[KD_FLEET_NAME_MAX + 16];
	char arg_reason[HEALTH_REASON_MAX + 16];
	int drained, code = -1;
	char *old = NULL, *txt = NULL;

	h->drain = json_pack("{s:s, s:b}", "node", h->node, "drained", 0);
	if (!node_name_ok(h->node)) {
		json_object_set_new(h->drain, "error", json_string("not a Slurm node name"));
		fprintf(stderr, "kernodeck health: \"%s\" is not a node name: not drained\n", h->node);
		return;
	}
	/* the state within less than half of what is left (the reserve, when
	 * the probe took its time), the update within the rest */
	if (node_state(h->node, 0.45 * left_s(h), &drained, &old, why, sizeof why) != 0) {
		json_object_set_new(h->drain, "error", json_string(why));
		fprintf(stderr, "kernodeck health: %s not drained: %s\n", h->node, why);
		return;
	}
	/* someone else's: drained, or down or failing with a reason of theirs
	 * (draining it would overwrite that reason) */
	if ((drained || (old != NULL && *old && strcmp(old, "(null)") != 0)) &&
	    (old == NULL || strncmp(old, "kernodeck:", 10) != 0)) {
		json_object_set_new(h->drain, "left", json_string(nz(old)));
		note(h, "%s was %s by someone else (Reason=%s): left as it is", h->node,
		     drained ? "drained" : "marked", nz(old));
		free(old);
		return;
	}
	if (json_array_size(h->problems) == 0) {
		if (drained) {
			json_object_set_new(h->drain, "stays", json_string(nz(old)));
			note(h, "%s stays drained (Reason=%s); kernodeck never resumes a node: "
			     "`scontrol update NodeName=%s State=RESUME`", h->node, nz(old), h->node);
		}
		free(old);
		return;
	}
	free(old);
	drain_reason(h, reason, sizeof reason);
	snprintf(arg_node, sizeof arg_node, "NodeName=%s", h->node);
	snprintf(arg_reason, sizeof arg_reason, "Reason=%s", reason);
	{
		const char *argv[] = { "scontrol", "update", arg_node, "State=DRAIN", arg_reason, NULL };
		char how[1400];
		if (run_within(argv, left_s(h), &txt, &code, how, sizeof how) != 0 || code != 0) {
			snprintf(why, sizeof why, "`scontrol update %s State=DRAIN` %s%s%.*s", arg_node,
				 code > 0 ? "failed" : how,
				 txt && *txt ? ": " : "", txt ? (int)strcspn(txt, "\n") : 0, nz(txt));
			json_object_set_new(h->drain, "error", json_string(why));
			fprintf(stderr, "kernodeck health: %s not drained: %s\n", h->node, why);
			free(txt);
			return;
		}
	}
	free(txt);
	json_object_set_new(h->drain, "drained", json_true());
	json_object_set_new(h->drain, "reason", json_string(reason));
	note(h, "drained %s: %s", h->node, reason);
}

static void
print_result(const struct health *h, double elapsed)
{
	size_t i;
	json_t *p;

	if (h->o->fmt == KD_FMT_JSON) {
		json_t *t = json_pack("{s:s, s:b, s:O, s:f}", "node", h->node,
				      "healthy", json_array_size(h->problems) == 0,
				      "problems", h->problems, "elapsed_s", elapsed);
		json_object_set_new(t, "fleet", h->have_fleet ?
			json_pack("{s:s, s:i}", "job", h->m.job, "nodes", (json_int_t)h->m.nnodes) :
			json_null());
		if (h->drain != NULL)
			json_object_set(t, "drain", h->drain);
		json_dumpf(t, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
		fputc('\n', stdout);
		json_decref(t);
		return;
	}
	json_array_foreach(h->problems, i, p)
		printf("ERROR:  kernodeck: %s\n", json_string_value(json_object_get(p, "message")));
}

int
health_run(const struct health_opts *o)
{
	struct health h;
	struct kd_err e = { 0 };
	char buf[1400];
	double t0 = now_s();
	int rc;

	memset(&h, 0, sizeof h);
	h.o = o;
	h.deadline = t0 + o->timeout_s - HEALTH_EXIT_S;
	if (o->drain) {
		h.reserve = o->timeout_s * HEALTH_DRAIN_SHARE;
		if (h.reserve < HEALTH_DRAIN_MIN_S)
			h.reserve = HEALTH_DRAIN_MIN_S;
		if (h.reserve > HEALTH_DRAIN_RESERVE_S)
			h.reserve = HEALTH_DRAIN_RESERVE_S;
		if (h.reserve > o->timeout_s / 2)
			h.reserve = o->timeout_s / 2;
	}
	h.problems = json_array();
	this_node(&h);
	/* no lock, read-only: a health check never waits for nor changes a run */
	if ((rc = kd_ctx_open(&h.ctx, o->dir, NULL, KD_LOCK_NONE, &e)) != 0) {
		fprintf(stderr, "kernodeck health: %s\n", kd_err_format(&e, buf, sizeof buf));
		rc = KD_EINPUT;   /* exit 2: the project or its reference cannot be read */
		goto out;
	}
	if (!fsutil_exists(h.ctx.ref_path)) {
		fprintf(stderr, "kernodeck health: %s: no reference there (a project checked with "
			"`kernodeck check` or `kernodeck capture` has one)\n", h.ctx.ref_path);
		rc = KD_EINPUT;
		goto out;
	}
	if ((rc = read_fleet(&h)) != 0)
		goto out;
	check_system(&h);
	check_env(&h);
	check_probe(&h);
	/* text: the problems, then what the drain did; json: one object */
	if (o->fmt != KD_FMT_JSON)
		print_result(&h, now_s() - t0);
	if (o->drain)
		do_drain(&h);
	if (o->fmt == KD_FMT_JSON)
		print_result(&h, now_s() - t0);
	rc = json_array_size(h.problems) == 0 && (h.drain == NULL ||
	     json_object_get(h.drain, "error") == NULL) ? 0 : 1;
out:
	if (h.have_fleet)
		fleet_matrix_free(&h.m);
	if (h.ctx.project_dir != NULL)
		kd_ctx_close(&h.ctx);
	json_decref(h.problems);
	json_decref(h.drain);
	fflush(stdout);
	return rc;
}
