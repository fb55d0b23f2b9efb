/*
 * fleet.c - node files, their gathering and the matrix of what differs
 * between the nodes of a Slurm job (see fleet.h).  The srun side, which
 * starts the node tasks, is in fleet-run.c.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/fleet.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/junit.h"
#include "kernodeck/obs-system.h"
#include "kernodeck/treeout.h"
#include "kernodeck/yamlio.h"

static const char *
nz(const char *s)
{
	return s ? s : "";
}

/* Bytes from a node file or a program reach the terminal with control
 * characters shown as '?'. */
static void
put_vis(FILE *fp, const char *s)
{
	for (; s && *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, fp);
}

static const char *
status_name(enum fleet_node_status s)
{
	return s == FLEET_PASSED ? "passed" : s == FLEET_FAILED ? "failed" : "unreachable";
}

/* Checks whose observed value is a measurement that differs between any
 * two healthy machines: only their status is compared. */
static const char *const status_only[] = { "compute.agreement", "collective.bandwidth",
					   "collective.rank", "collective.pairs", "collective.link" };

/* Measurements judged against the fleet's median (higher is better), by
 * prefix: the compute probe's throughputs (a device suffix may follow). */
static const char *const measured_prefix[] = { "compute.perf-" };

static int
is_measured(const char *id)
{
	for (size_t i = 0; i < sizeof measured_prefix / sizeof measured_prefix[0]; i++)
		if (strncmp(id, measured_prefix[i], strlen(measured_prefix[i])) == 0)
			return 1;
	return 0;
}

static int
is_status_only(const char *id)
{
	for (size_t i = 0; i < sizeof status_only / sizeof status_only[0]; i++)
		if (strcmp(id, status_only[i]) == 0)
			return 1;
	return is_measured(id);
}

/* The number that leads a measurement's observed text, or -1. */
static double
measured_value(const json_t *row)
{
	const char *obs = json_string_value(json_object_get(row, "observed"));
	char *end;
	double v;

	if (obs == NULL)
		return -1;
	v = strtod(obs, &end);
	return end > obs && v >= 0 ? v : -1;
}

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The value two nodes must share: status and observed, with every number
 * followed by a unit of time ("12.5 ms", "3 s") replaced by N. */
static char *
comparable(const char *id, const json_t *row)
{
	const char *st = json_string_value(json_object_get(row, "status"));
	const char *obs = json_string_value(json_object_get(row, "observed"));
	size_t n = strlen(nz(st)) + strlen(nz(obs)) + 2, k = 0;
	char *out = malloc(n);

	if (out == NULL)
		return NULL;
	k = (size_t)snprintf(out, n, "%s\x1f", nz(st));
	if (is_status_only(id))
		return out;
	for (const char *p = nz(obs); *p; ) {
		const char *q = p;
		while ((*q >= '0' && *q <= '9') || *q == '.')
			q++;
		if (q > p && (p == obs || p[-1] == ' ' || p[-1] == '(') &&
		    (strncmp(q, " ms", 3) == 0 || strncmp(q, " s", 2) == 0 ||
		     strncmp(q, "ms", 2) == 0)) {
			out[k++] = 'N';
			p = q;
			continue;
		}
		if (q > p) {
			memcpy(out + k, p, (size_t)(q - p));
			k += (size_t)(q - p);
			p = q;
			continue;
		}
		out[k++] = *p++;
	}
	out[k] = '\0';
	return out;
}

void
fleet_add_node(struct fleet_matrix *m, const char *name, json_t *file, const char *reason)
{
	struct fleet_node *nd;

	if (m->nnodes == m->capnodes) {
		size_t cap = m->capnodes ? m->capnodes * 2 : 16;
		struct fleet_node *v = realloc(m->nodes, cap * sizeof *v);
		if (v == NULL) {
			json_decref(file);
			return;
		}
		m->nodes = v;
		m->capnodes = cap;
	}
	nd = &m->nodes[m->nnodes++];
	memset(nd, 0, sizeof *nd);
	nd->name = strdup(name);
	nd->file = file;
	nd->reason = reason ? strdup(reason) : NULL;
	if (file == NULL)
		nd->status = FLEET_UNREACHABLE;
	else if (json_is_string(json_object_get(file, "status")) &&
		 strcmp(json_string_value(json_object_get(file, "status")), "passed") == 0)
		nd->status = FLEET_PASSED;
	else
		nd->status = FLEET_FAILED;
}

/* The index of check id, added when new. */
static struct fleet_check *
check_of(struct fleet_matrix *m, const char *id, const char *stage)
{
	json_t *ix = json_object_get(m->check_index, id);
	struct fleet_check *c;

	if (ix != NULL)
		return &m->checks[json_integer_value(ix)];
	if (m->nchecks == m->capchecks) {
		size_t cap = m->capchecks ? m->capchecks * 2 : 32;
		struct fleet_check *v = realloc(m->checks, cap * sizeof *v);
		if (v == NULL)
			return NULL;
		m->checks = v;
		m->capchecks = cap;
	}
	c = &m->checks[m->nchecks];
	memset(c, 0, sizeof *c);
	c->id = strdup(id);
	c->stage = strdup(nz(stage));
	c->majority = -1;
	c->cell = calloc(m->nnodes ? m->nnodes : 1, sizeof *c->cell);
	if (c->id == NULL || c->stage == NULL || c->cell == NULL) {
		free(c->id);
		free(c->stage);
		free(c->cell);
		return NULL;
	}
	json_object_set_new(m->check_index, id, json_integer((json_int_t)m->nchecks));
	m->nchecks++;
	return c;
}

/* Put node j's rows into the cells of their checks. */
static void
fill_node(struct fleet_matrix *m, size_t j)
{
	const json_t *stages = json_object_get(m->nodes[j].file, "stages"), *st, *row;
	size_t a, b;

	json_array_foreach(stages, a, st) {
		const char *sid = json_string_value(json_object_get(st, "id"));
		if (sid != NULL && strcmp(sid, FLEET_ENV_STAGE) == 0)
			m->nodes[j].has_env = 1;
		json_array_foreach(json_object_get(st, "rows"), b, row) {
			const char *id = json_string_value(json_object_get(row, "id"));
			struct fleet_check *c;
			if (id == NULL || (c = check_of(m, id, sid)) == NULL)
				continue;
			c->cell[j] = row;
		}
	}
}

/* A measurement: the nodes of the majority's status below the slow
 * fraction of the median are outliers too (sorting the values: n log n). */
static void
judge_slow(struct fleet_matrix *m, struct fleet_check *c, char **key)
{
	double *v = calloc(m->nnodes ? m->nnodes : 1, sizeof *v), frac;
	char *mk = c->majority >= 0 && key[c->majority] ? strdup(key[c->majority]) : NULL;
	size_t n = 0;
	int example = -1;

	c->measured = 1;
	for (size_t j = 0; v != NULL && j < m->nnodes; j++)
		if (c->cell[j] != NULL && measured_value(c->cell[j]) >= 0)
			v[n++] = measured_value(c->cell[j]);
	if (n == 0 || mk == NULL) {
		free(v);
		free(mk);
		return;
	}
	qsort(v, n, sizeof *v, dbl_cmp);
	c->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	frac = m->slow > 0 ? m->slow : FLEET_SLOW_DEFAULT;
	for (size_t j = 0; j < m->nnodes; j++) {
		double x;
		if (c->cell[j] == NULL || key[j] == NULL || strcmp(key[j], mk) != 0)
			continue;   /* no row, or already an outlier by its status */
		x = measured_value(c->cell[j]);
		if (x >= 0 && x < frac * c->median) {
			c->outliers[c->noutliers++] = j;
			c->agree--;
			m->nodes[j].differs = 1;
		} else if (example < 0) {
			example = (int)j;   /* the majority's example: a node not slow */
		}
	}
	if (example >= 0)
		c->majority = example;
	free(mk);
}

static void judge_all(struct fleet_matrix *m);

/* Majority and outliers of one check: one hash of the values, linear. */
static void
judge_check(struct fleet_matrix *m, struct fleet_check *c)
{
	json_t *count = json_object();
	char **key = calloc(m->nnodes, sizeof *key);
	json_int_t best = 0;

	if (count == NULL || key == NULL)
		goto out;
	for (size_t j = 0; j < m->nnodes; j++) {
		json_t *v;
		json_int_t k;
		if (c->cell[j] == NULL)
			continue;
		c->answered++;
		if ((key[j] = comparable(c->id, c->cell[j])) == NULL)
			continue;
		v = json_object_get(count, key[j]);
		k = v ? json_integer_value(v) + 1 : 1;
		json_object_set_new(count, key[j], json_integer(k));
		if (k > best) {
			best = k;
			c->majority = (int)j;
		}
	}
	c->agree = (size_t)best;
	if (c->answered > 0)
		c->outliers = calloc(c->answered, sizeof *c->outliers);
	for (size_t j = 0; j < m->nnodes && c->outliers != NULL; j++) {
		if (c->cell[j] == NULL || key[j] == NULL || key[c->majority] == NULL ||
		    strcmp(key[j], key[c->majority]) == 0)
			continue;
		c->outliers[c->noutliers++] = j;
		m->nodes[j].differs = 1;
	}
	if (is_measured(c->id) && c->outliers != NULL)
		judge_slow(m, c, key);
out:
	for (size_t j = 0; key != NULL && j < m->nnodes; j++)
		free(key[j]);
	free(key);
	json_decref(count);
}

void
fleet_build(struct fleet_matrix *m)
{
	if (m->check_index == NULL)
		m->check_index = json_object();
	for (size_t j = 0; j < m->nnodes; j++)
		if (m->nodes[j].file != NULL)
			fill_node(m, j);
	/* a variable a node with an env stage does not list is unset there */
	if (m->unset_row == NULL)
		m->unset_row = json_pack("{s:s, s:s}", "status", "info", "observed", FLEET_ENV_UNSET);
	for (size_t i = 0; i < m->nchecks; i++) {
		struct fleet_check *c = &m->checks[i];
		if (strcmp(c->stage, FLEET_ENV_STAGE) != 0)
			continue;
		for (size_t j = 0; j < m->nnodes; j++)
			if (c->cell[j] == NULL && m->nodes[j].has_env)
				c->cell[j] = m->unset_row;
	}
	judge_all(m);
}

void
fleet_set_slow(struct fleet_matrix *m, double slow)
{
	m->slow = slow;
	for (size_t j = 0; j < m->nnodes; j++)
		m->nodes[j].differs = 0;
	for (size_t i = 0; i < m->nchecks; i++) {
		struct fleet_check *c = &m->checks[i];
		free(c->outliers);
		c->outliers = NULL;
		c->noutliers = c->answered = c->agree = 0;
		c->majority = -1;
		c->measured = 0;
		c->median = 0;
	}
	judge_all(m);
}

static void
judge_all(struct fleet_matrix *m)
{
	m->ndiffer = m->nfailed = m->nunreachable = 0;
	for (size_t i = 0; i < m->nchecks; i++)
		judge_check(m, &m->checks[i]);
	for (size_t j = 0; j < m->nnodes; j++) {
		m->ndiffer += m->nodes[j].differs;
		m->nfailed += m->nodes[j].status == FLEET_FAILED;
		m->nunreachable += m->nodes[j].status == FLEET_UNREACHABLE;
	}
}

/* Nodes that sent a node file. */
static size_t
with_file(const struct fleet_matrix *m)
{
	size_t n = 0;

	for (size_t j = 0; j < m->nnodes; j++)
		n += m->nodes[j].file != NULL;
	return n;
}

void
fleet_matrix_free(struct fleet_matrix *m)
{
	for (size_t j = 0; j < m->nnodes; j++) {
		free(m->nodes[j].name);
		free(m->nodes[j].reason);
		json_decref(m->nodes[j].file);
	}
	for (size_t i = 0; i < m->nchecks; i++) {
		free(m->checks[i].id);
		free(m->checks[i].stage);
		free(m->checks[i].cell);
		free(m->checks[i].outliers);
	}
	free(m->nodes);
	free(m->checks);
	free(m->job);
	free(m->folder);
	json_decref(m->check_index);
	json_decref(m->unset_row);
	memset(m, 0, sizeof *m);
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The node files' names (without .yaml) in folder, sorted; temporary
 * files and dot files are left out. */
static int
list_node_files(const char *folder, char ***namesp, size_t *np, struct kd_err *err)
{
	DIR *d = opendir(folder);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0, cap = 0;

	*namesp = NULL;
	*np = 0;
	if (d == NULL)
		return errno == ENOENT ? 0 : kd_err_sys(err, KD_EINPUT, folder, errno,
							"cannot read %s", folder);
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] == '.' || l <= 5 || strcmp(e->d_name + l - 5, ".yaml") != 0)
			continue;
		if (n == cap) {
			char **nv = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof *v);
			if (nv == NULL)
				break;
			v = nv;
		}
		v[n++] = strndup(e->d_name, l - 5);
	}
	closedir(d);
	if (n > 1)
		qsort(v, n, sizeof *v, name_cmp);
	*namesp = v;
	*np = n;
	return 0;
}

/* Load one node file; a bad one is a failed column with the reason. */
static json_t *
load_node_file(const char *folder, const char *name, const char *run, char *why, size_t wlen,
	       int *stale)
{
	char file[4096], ebuf[1400];
	struct yamlio_doc doc;
	struct kd_err e = { 0 };
	const char *fnode, *frun;
	json_t *t;

	*stale = 0;
	snprintf(file, sizeof file, "%s/%s.yaml", folder, name);
	if (yamlio_load_file(file, &doc, &e) != 0) {
		snprintf(why, wlen, "%s", kd_err_format(&e, ebuf, sizeof ebuf));
		return NULL;
	}
	t = json_incref(doc.root);
	yamlio_doc_free(&doc);
	fnode = json_string_value(json_object_get(t, "node"));
	frun = json_string_value(json_object_get(t, "run"));
	if (!json_is_object(t) || !json_is_array(json_object_get(t, "stages"))) {
		snprintf(why, wlen, "%s: not a node file (no stages)", file);
	} else if (fnode == NULL || strcmp(fnode, name) != 0) {
		snprintf(why, wlen, "%s: the file names node \"%s\"", file, nz(fnode));
	} else if (run != NULL && (frun == NULL || strcmp(frun, run) != 0)) {
		snprintf(why, wlen, "no answer in this run (%s is from run %s)", file, nz(frun));
		*stale = 1;
	} else {
		return t;
	}
	json_decref(t);
	return NULL;
}

/* The node files of a folder, loaded side by side: parsing thousands of
 * YAML files is most of a big matrix's time, and each is independent. */
struct load_all {
	const char *folder, *run;
	char **names;
	size_t n;
	json_t **tree;       /* [n]: the file's tree, or NULL */
	char **why;          /* [n]: why not (malloc'd), when tree[i] is NULL */
	int *stale;          /* [n] */
	size_t next;         /* the next file to take (atomic) */
};

static void *
load_worker(void *u)
{
	struct load_all *l = u;
	char why[5200];

	for (;;) {
		size_t i = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
		if (i >= l->n)
			break;
		why[0] = '\0';
		l->tree[i] = load_node_file(l->folder, l->names[i], l->run, why, sizeof why, &l->stale[i]);
		if (l->tree[i] == NULL)
			l->why[i] = strdup(why);
	}
	return NULL;
}

#define FLEET_LOAD_THREADS 8    /* at most, and one per online CPU */
#define FLEET_LOAD_MIN 64       /* files below which one thread loads them */

static void
load_files(struct load_all *l)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nt = cpus > 1 ? (size_t)cpus : 1, started = 0;
	pthread_t th[FLEET_LOAD_THREADS];

	if (nt > FLEET_LOAD_THREADS)
		nt = FLEET_LOAD_THREADS;
	if (l->n < FLEET_LOAD_MIN)
		nt = 1;
	for (size_t k = 1; k < nt; k++)
		if (pthread_create(&th[started], NULL, load_worker, l) == 0)
			started++;
	load_worker(l);   /* this thread too; alone when none could start */
	for (size_t k = 0; k < started; k++)
		pthread_join(th[k], NULL);
}

int
fleet_gather(struct fleet_matrix *m, const char *folder, const char *job,
	     const char *const *expected, const char *const *reasons, size_t nexpected,
	     const char *run, struct kd_err *err)
{
	char **names = NULL, why[5200];
	size_t n = 0;
	json_t *seen = json_object();   /* name -> its index in names */
	struct load_all l = { 0 };
	int rc;

	memset(m, 0, sizeof *m);
	m->job = strdup(nz(job));
	m->folder = strdup(folder);
	m->check_index = json_object();
	rc = list_node_files(folder, &names, &n, err);
	l.folder = folder;
	l.run = run;
	l.names = names;
	l.n = rc == 0 ? n : 0;
	l.tree = calloc(n ? n : 1, sizeof *l.tree);
	l.why = calloc(n ? n : 1, sizeof *l.why);
	l.stale = calloc(n ? n : 1, sizeof *l.stale);
	if (l.tree == NULL || l.why == NULL || l.stale == NULL)
		l.n = 0;
	load_files(&l);
	for (size_t i = 0; i < l.n; i++)
		json_object_set_new(seen, names[i], json_integer((json_int_t)i));
	for (size_t i = 0; rc == 0 && i < nexpected; i++) {
		json_t *t = NULL, *ix = json_object_get(seen, expected[i]);
		int stale = 0, had = ix != NULL && json_is_integer(ix);
		why[0] = '\0';
		if (had) {
			size_t k = (size_t)json_integer_value(ix);
			t = l.tree[k];
			l.tree[k] = NULL;   /* taken */
			stale = l.stale[k];
			if (t == NULL)
				snprintf(why, sizeof why, "%s", nz(l.why[k]));
			json_object_set_new(seen, expected[i], json_false());
		}
		if (t == NULL && why[0] == '\0')
			snprintf(why, sizeof why, "%s", reasons && reasons[i] ? reasons[i] :
				 "no node file: the node did not answer");
		fleet_add_node(m, expected[i], t, t ? NULL : why);
		if (t == NULL && !stale && had && strncmp(why, "no answer", 9) != 0)
			m->nodes[m->nnodes - 1].status = FLEET_FAILED;
	}
	for (size_t i = 0; rc == 0 && i < l.n; i++) {
		json_t *t;
		if (!json_is_integer(json_object_get(seen, names[i])))
			continue;   /* an expected node, added above */
		t = l.tree[i];
		l.tree[i] = NULL;
		if (t == NULL && l.stale[i])
			continue;   /* an earlier run's node, not asked for now */
		fleet_add_node(m, names[i], t, t ? NULL : nz(l.why[i]));
		if (t == NULL)
			m->nodes[m->nnodes - 1].status = FLEET_FAILED;
	}
	for (size_t i = 0; i < n; i++) {
		if (l.tree != NULL)
			json_decref(l.tree[i]);
		if (l.why != NULL)
			free(l.why[i]);
		free(names[i]);
	}
	free(l.tree);
	free(l.why);
	free(l.stale);
	free(names);
	json_decref(seen);
	if (rc == 0)
		fleet_build(m);
	return rc;
}

int
fleet_exit_status(const struct fleet_matrix *m)
{
	return m->nnodes > 0 && m->ndiffer == 0 && m->nfailed == 0 && m->nunreachable == 0 ? 0 : 1;
}

void
fleet_summary(const struct fleet_matrix *m, char *buf, size_t len)
{
	int k = snprintf(buf, len, "fleet: %zu node%s, %zu differ%s", m->nnodes,
			 m->nnodes == 1 ? "" : "s", m->ndiffer, m->ndiffer == 1 ? "s" : "");

	if (k > 0 && (size_t)k < len && m->nfailed > 0)
		k += snprintf(buf + k, len - (size_t)k, ", %zu failed", m->nfailed);
	if (k > 0 && (size_t)k < len && m->nunreachable > 0)
		snprintf(buf + k, len - (size_t)k, ", %zu unreachable", m->nunreachable);
}

static const char *
cell_str(const json_t *row, const char *key)
{
	return nz(json_string_value(json_object_get(row, key)));
}

/* "n2: Ubuntu 22.04 (fail) where 7 nodes have Debian 12 (pass)". */
static char *
difference_text(const struct fleet_matrix *m, const struct fleet_check *c)
{
	const json_t *maj = c->majority >= 0 ? c->cell[c->majority] : NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	if (fp == NULL)
		return NULL;
	for (size_t k = 0; k < c->noutliers && k < KD_FLEET_NAMED_OUTLIERS; k++) {
		const json_t *r = c->cell[c->outliers[k]];
		fprintf(fp, "%s%s: %s (%s)", k ? ", " : "", m->nodes[c->outliers[k]].name,
			cell_str(r, "observed"), cell_str(r, "status"));
	}
	if (c->noutliers > KD_FLEET_NAMED_OUTLIERS)
		fprintf(fp, " and %zu more", c->noutliers - KD_FLEET_NAMED_OUTLIERS);
	if (c->measured && c->median > 0)
		fprintf(fp, ", below %.2g of the fleet's median %.6g;", m->slow > 0 ? m->slow :
			FLEET_SLOW_DEFAULT, c->median);
	fprintf(fp, " where %zu node%s ha%s %s (%s)", c->agree, c->agree == 1 ? "" : "s",
		c->agree == 1 ? "s" : "ve", cell_str(maj, "observed"), cell_str(maj, "status"));
	if (c->answered < m->nnodes)
		fprintf(fp, "; %zu node%s without this check", m->nnodes - c->answered,
			m->nnodes - c->answered == 1 ? "" : "s");
	fclose(fp);
	return buf;
}

static json_t *
node_tree(const struct fleet_node *nd)
{
	json_t *o = json_object(), *st = json_object_get(nd->file, "stages");

	json_object_set_new(o, "name", json_string(nd->name));
	json_object_set_new(o, "status", json_string(status_name(nd->status)));
	json_object_set_new(o, "differs", json_boolean(nd->differs));
	if (nd->reason != NULL)
		json_object_set_new(o, "reason", json_string(nd->reason));
	if (json_object_get(nd->file, "host") != NULL)
		json_object_set(o, "host", json_object_get(nd->file, "host"));
	if (json_object_get(nd->file, "elapsed_s") != NULL)
		json_object_set(o, "elapsed_s", json_object_get(nd->file, "elapsed_s"));
	json_object_set_new(o, "stages", st ? json_deep_copy(st) : json_array());
	if (json_object_get(nd->file, "collective") != NULL)
		json_object_set(o, "collective", json_object_get(nd->file, "collective"));
	return o;
}

static json_t *
difference_tree(const struct fleet_matrix *m, const struct fleet_check *c)
{
	json_t *o = json_object(), *vals = json_object(), *sts = json_object(), *out = json_array();
	char *text = difference_text(m, c);

	for (size_t j = 0; j < m->nnodes; j++) {
		if (c->cell[j] == NULL)
			continue;
		json_object_set_new(vals, m->nodes[j].name, json_string(cell_str(c->cell[j], "observed")));
		json_object_set_new(sts, m->nodes[j].name, json_string(cell_str(c->cell[j], "status")));
	}
	for (size_t k = 0; k < c->noutliers; k++)
		json_array_append_new(out, json_string(m->nodes[c->outliers[k]].name));
	json_object_set_new(o, "check", json_string(c->id));
	json_object_set_new(o, "stage", json_string(c->stage));
	json_object_set_new(o, "values", vals);
	json_object_set_new(o, "statuses", sts);
	json_object_set_new(o, "outliers", out);
	json_object_set_new(o, "majority", json_string(c->majority >= 0 ?
			    cell_str(c->cell[c->majority], "observed") : ""));
	json_object_set_new(o, "text", json_string(nz(text)));
	if (c->measured) {
		json_object_set_new(o, "median", json_real(c->median));
		json_object_set_new(o, "slow_fraction", json_real(m->slow > 0 ? m->slow : FLEET_SLOW_DEFAULT));
	}
	free(text);
	return o;
}

json_t *
fleet_tree(const struct fleet_matrix *m)
{
	json_t *t = json_object(), *nodes = json_array(), *diffs = json_array(), *agree = json_array();
	char sum[256];

	fleet_summary(m, sum, sizeof sum);
	json_object_set_new(t, "job", json_string(nz(m->job)));
	json_object_set_new(t, "summary", json_string(sum));
	size_t wf = with_file(m);

	for (size_t j = 0; j < m->nnodes; j++)
		json_array_append_new(nodes, node_tree(&m->nodes[j]));
	for (size_t i = 0; i < m->nchecks; i++) {
		const struct fleet_check *c = &m->checks[i];
		if (c->noutliers > 0 || c->answered < wf) {
			json_array_append_new(diffs, difference_tree(m, c));
		} else if (c->majority >= 0) {
			json_t *o = json_object();
			json_object_set_new(o, "check", json_string(c->id));
			json_object_set_new(o, "status", json_string(cell_str(c->cell[c->majority], "status")));
			json_object_set_new(o, "value", json_string(cell_str(c->cell[c->majority], "observed")));
			json_object_set_new(o, "nodes", json_integer((json_int_t)c->agree));
			json_array_append_new(agree, o);
		}
	}
	json_object_set_new(t, "nodes", nodes);
	json_object_set_new(t, "differences", diffs);
	json_object_set_new(t, "agree", agree);
	return t;
}

static void
print_cells(FILE *fp, const struct fleet_matrix *m, const struct fleet_check *c)
{
	for (size_t j = 0; j < m->nnodes; j++) {
		const char *s = c->cell[j] ? cell_str(c->cell[j], "status") : "-";
		int out = 0;
		for (size_t k = 0; k < c->noutliers; k++)
			out |= c->outliers[k] == j;
		fprintf(fp, "  %s%-5s", out ? "*" : " ", s);
	}
	fputc('\n', fp);
}

/* The text matrix: a header of nodes, then a row per check. */
static void
print_text(FILE *fp, const struct fleet_matrix *m)
{
	int cols = m->nnodes <= KD_FLEET_TEXT_COLUMNS;
	char sum[256];
	size_t wf = with_file(m);

	fleet_summary(m, sum, sizeof sum);
	fprintf(fp, "job ");
	put_vis(fp, m->job);
	fprintf(fp, "  %s\n", sum);
	for (size_t j = 0; j < m->nnodes; j++) {
		const struct fleet_node *nd = &m->nodes[j];
		if (!cols && nd->status == FLEET_PASSED && !nd->differs)
			continue;
		fprintf(fp, "  node %-12s %s%s", nd->name, status_name(nd->status),
			nd->differs ? ", differs" : "");
		if (nd->reason) {
			fputs(": ", fp);
			put_vis(fp, nd->reason);
		}
		fputc('\n', fp);
	}
	if (m->nchecks == 0)
		return;
	fprintf(fp, "\n  %-4s %-26s", "", "check");
	for (size_t j = 0; cols && j < m->nnodes; j++)
		fprintf(fp, "  %-6.6s", m->nodes[j].name);
	fputc('\n', fp);
	for (size_t i = 0; i < m->nchecks; i++) {
		const struct fleet_check *c = &m->checks[i];
		const json_t *maj = c->majority >= 0 ? c->cell[c->majority] : NULL;
		int differ = c->noutliers > 0 || c->answered < wf;
		if (!differ) {
			fprintf(fp, "  %-4s %-26s ", cell_str(maj, "status"), c->id);
			fprintf(fp, "all %zu node%s: ", c->agree, c->agree == 1 ? "" : "s");
			put_vis(fp, cell_str(maj, "observed"));
			fputc('\n', fp);
			continue;
		}
		char *text = difference_text(m, c);
		fprintf(fp, "  %-4s %-26s", "DIFF", c->id);
		if (cols)
			print_cells(fp, m, c);
		else
			fputc('\n', fp);
		fputs("       ", fp);
		put_vis(fp, text);
		fputc('\n', fp);
		free(text);
	}
}

void
fleet_print(FILE *fp, const struct fleet_matrix *m, enum kd_format fmt)
{
	if (fmt == KD_FMT_TEXT) {
		print_text(fp, m);
		return;
	}
	json_t *t = fleet_tree(m);
	treeout_print_tree(fp, t, fmt);
	json_decref(t);
}

/* The stage ids any node answered for, in first-seen order. */
static json_t *
stage_ids(const struct fleet_matrix *m)
{
	json_t *ids = json_array(), *seen = json_object(), *st;
	size_t a;

	for (size_t j = 0; j < m->nnodes; j++)
		json_array_foreach(json_object_get(m->nodes[j].file, "stages"), a, st) {
			const char *id = json_string_value(json_object_get(st, "id"));
			if (id != NULL && json_object_get(seen, id) == NULL) {
				json_object_set_new(seen, id, json_true());
				json_array_append_new(ids, json_string(id));
			}
		}
	if (json_array_size(ids) == 0)
		json_array_append_new(ids, json_string("node"));
	json_decref(seen);
	return ids;
}

/* For each node, the checks where it is an outlier, in check order (one
 * pass over the outliers: no node x outliers loop). */
struct outlier_index {
	size_t *first;   /* [nnodes + 1]: node j's checks are check[first[j]..first[j+1]) */
	size_t *check;
};

static int
outlier_index(const struct fleet_matrix *m, struct outlier_index *x)
{
	size_t total = 0, *fill;

	x->first = calloc(m->nnodes + 1, sizeof *x->first);
	for (size_t i = 0; i < m->nchecks; i++)
		total += m->checks[i].noutliers;
	x->check = calloc(total ? total : 1, sizeof *x->check);
	fill = calloc(m->nnodes + 1, sizeof *fill);
	if (x->first == NULL || x->check == NULL || fill == NULL) {
		free(fill);
		return -1;
	}
	for (size_t i = 0; i < m->nchecks; i++)
		for (size_t k = 0; k < m->checks[i].noutliers; k++)
			x->first[m->checks[i].outliers[k] + 1]++;
	for (size_t j = 0; j < m->nnodes; j++)
		x->first[j + 1] += x->first[j];
	for (size_t i = 0; i < m->nchecks; i++)
		for (size_t k = 0; k < m->checks[i].noutliers; k++) {
			size_t j = m->checks[i].outliers[k];
			x->check[x->first[j] + fill[j]++] = i;
		}
	free(fill);
	return 0;
}

/* The failure message of node j's stage sid, or NULL when it passed. */
static char *
junit_failure(const struct fleet_matrix *m, size_t j, const char *sid, const struct outlier_index *x)
{
	const struct fleet_node *nd = &m->nodes[j];
	const json_t *st;
	size_t a;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	if (nd->file == NULL)
		return strdup(nd->reason ? nd->reason : "unreachable");
	if ((fp = open_memstream(&buf, &len)) == NULL)
		return NULL;
	json_array_foreach(json_object_get(nd->file, "stages"), a, st)
		if (strcmp(cell_str(st, "id"), sid) == 0 &&
		    strcmp(cell_str(st, "status"), "passed") != 0 &&
		    strcmp(cell_str(st, "status"), "deviation") != 0)
			fprintf(fp, "stage %s %s. ", sid, cell_str(st, "status"));
	for (size_t k = x->first[j]; k < x->first[j + 1]; k++) {
		const struct fleet_check *c = &m->checks[x->check[k]];
		if (strcmp(c->stage, sid) == 0)
			fprintf(fp, "%s differs: %s (%s) where %zu nodes have %s. ", c->id,
				cell_str(c->cell[j], "observed"), cell_str(c->cell[j], "status"),
				c->agree, cell_str(c->cell[c->majority], "observed"));
	}
	fclose(fp);
	if (len == 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int
fleet_junit(const char *path, const struct fleet_matrix *m, struct kd_err *err)
{
	json_t *ids = stage_ids(m), *id;
	struct kd_junit j;
	struct outlier_index x = { NULL, NULL };
	size_t a, tests = 0, failures = 0;
	int rc;

	if (outlier_index(m, &x) != 0) {
		free(x.first);
		free(x.check);
		json_decref(ids);
		return kd_err_set(err, KD_EENV, path, 0, "out of memory");
	}
	for (size_t n = 0; n < m->nnodes; n++)
		json_array_foreach(ids, a, id) {
			char *f = junit_failure(m, n, json_string_value(id), &x);
			tests++;
			failures += f != NULL;
			free(f);
		}
	if (junit_begin(&j, path, "kernodeck fleet", tests, failures, -1, err) != 0) {
		free(x.first);
		free(x.check);
		json_decref(ids);
		return err->code;
	}
	junit_suite(&j, "fleet.", m->job, tests, failures, 0);
	for (size_t n = 0; n < m->nnodes; n++)
		json_array_foreach(ids, a, id) {
			char *f = junit_failure(m, n, json_string_value(id), &x);
			struct kd_junit_case c = { .class_prefix = "kernodeck.fleet.",
						   .class_name = m->nodes[n].name,
						   .name = json_string_value(id), .failure = f };
			junit_case(&j, &c);
			free(f);
		}
	junit_suite_end(&j);
	json_decref(ids);
	rc = junit_end(&j, path, err);
	free(x.first);
	free(x.check);
	return rc;
}

/* See fleet.h. */
void
fleet_system_facts(const json_t *sysobs, struct kd_rows *rows)
{
	const char *k = obs_system_kernel_release(sysobs), *c = obs_system_libc_version(sysobs);

	if (k != NULL && *k)
		kd_rows_add(rows, "system.kernel", KD_R_INFO, "kernel", k, NULL, "system.yaml");
	if (c != NULL && *c)
		kd_rows_add(rows, "system.libc", KD_R_INFO, "glibc", c, NULL, "system.yaml");
}

char *
fleet_latest(const char *state_dir)
{
	char *root = fsutil_join(state_dir, "fleet"), *best = NULL;
	DIR *d = opendir(root);
	struct dirent *e;
	struct timespec bt = { 0, 0 };

	while (d != NULL && (e = readdir(d)) != NULL) {
		struct stat st;
		char *p;
		if (e->d_name[0] == '.')
			continue;
		p = fsutil_join(root, e->d_name);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode) &&
		    (best == NULL || st.st_mtim.tv_sec > bt.tv_sec ||
		     (st.st_mtim.tv_sec == bt.tv_sec && st.st_mtim.tv_nsec > bt.tv_nsec))) {
			free(best);
			best = p;
			bt = st.st_mtim;
		} else {
			free(p);
		}
	}
	if (d != NULL)
		closedir(d);
	free(root);
	return best;
}

/* Is path a folder holding node files (NAME.yaml)? */
static int
holds_node_files(const char *path)
{
	char **names = NULL;
	size_t n = 0;
	int yes;

	if (list_node_files(path, &names, &n, NULL) != 0)
		return 0;
	yes = n > 0;
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return yes;
}

int
fleet_diff(const char *path, enum kd_format fmt)
{
	char *folder = NULL, *kd = fsutil_join(path, "kernodeck"), buf[1400];
	const char *job;
	struct fleet_matrix m;
	struct kd_err e = { 0 };
	int rc;

	if (holds_node_files(path))
		folder = strdup(path);
	else if ((folder = fleet_latest(path)) == NULL)
		folder = fleet_latest(kd);
	free(kd);
	if (folder == NULL) {
		fprintf(stderr, "kernodeck diff: %s holds no node files nor a fleet folder "
			"(kernodeck/fleet/JOB)\n", path);
		return 2;
	}
	job = strrchr(folder, '/') ? strrchr(folder, '/') + 1 : folder;
	rc = fleet_gather(&m, folder, job, NULL, NULL, 0, NULL, &e);
	if (rc != 0) {
		fprintf(stderr, "kernodeck diff: %s\n", kd_err_format(&e, buf, sizeof buf));
	} else {
		fleet_print(stdout, &m, fmt);
		rc = fleet_exit_status(&m);
	}
	fleet_matrix_free(&m);
	free(folder);
	return rc;
}

/* A Markdown table cell: '|' escaped, control characters as '?'. */
static void
md_cell(FILE *fp, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputs("\\|", fp);
		else
			fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, fp);
	}
}

char *
fleet_markdown(const char *state_dir)
{
	char *folder = fleet_latest(state_dir), *buf = NULL, sum[256];
	const char *job;
	struct fleet_matrix m;
	size_t len = 0;
	FILE *fp;

	if (folder == NULL)
		return NULL;
	job = strrchr(folder, '/') + 1;
	if (fleet_gather(&m, folder, job, NULL, NULL, 0, NULL, NULL) != 0 || m.nnodes == 0 ||
	    (fp = open_memstream(&buf, &len)) == NULL) {
		fleet_matrix_free(&m);
		free(folder);
		return NULL;
	}
	fleet_summary(&m, sum, sizeof sum);
	fprintf(fp, "\n## The fleet\n\nSlurm job `");
	md_cell(fp, job);
	fprintf(fp, "`, %s; the node files are in `kernodeck/fleet/", sum + 7);
	md_cell(fp, job);
	fprintf(fp, "/` (`kernodeck diff kernodeck/fleet/");
	md_cell(fp, job);
	fprintf(fp, "` prints the matrix again).\n\n| node | status |\n|---|---|\n");
	for (size_t j = 0; j < m.nnodes; j++) {
		fputs("| ", fp);
		md_cell(fp, m.nodes[j].name);
		fprintf(fp, " | %s%s", status_name(m.nodes[j].status), m.nodes[j].differs ? ", differs" : "");
		if (m.nodes[j].reason) {
			fputs(": ", fp);
			md_cell(fp, m.nodes[j].reason);
		}
		fputs(" |\n", fp);
	}
	fprintf(fp, "\n| check | status | nodes that agree | value | outliers |\n|---|---|---|---|---|\n");
	for (size_t i = 0; i < m.nchecks; i++) {
		const struct fleet_check *c = &m.checks[i];
		const json_t *maj = c->majority >= 0 ? c->cell[c->majority] : NULL;
		char *text = c->noutliers ? difference_text(&m, c) : NULL;
		fputs("| ", fp);
		md_cell(fp, c->id);
		fputs(" | ", fp);
		md_cell(fp, cell_str(maj, "status"));
		fprintf(fp, " | %zu of %zu | ", c->agree, m.nnodes);
		md_cell(fp, cell_str(maj, "observed"));
		fputs(" | ", fp);
		md_cell(fp, text ? text : "none");
		fputs(" |\n", fp);
		free(text);
	}
	fclose(fp);
	fleet_matrix_free(&m);
	free(folder);
	return buf;
}
