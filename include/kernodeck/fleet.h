/*
 * fleet.h - the same checks on every node of a Slurm allocation, gathered
 * into one matrix of what differs and where (`kernodeck fleet`).
 *
 * Kernodeck never runs anything on a node itself: `srun` places one
 * kernodeck per node (one task per node), each runs the chosen stages on
 * its own node and writes one node file,
 *
 *   STATE_DIR/fleet/JOB/NODE.yaml
 *
 *     schema: 1
 *     job: "12"            the Slurm job id
 *     run: TOKEN           the fleet run that asked (stale files are ignored)
 *     node: n1             SLURMD_NODENAME
 *     rank: 0              SLURM_PROCID
 *     host: HOSTNAME
 *     started: UTC time    elapsed_s: seconds
 *     status: passed | failed
 *     stages:
 *     - id: system
 *       status: passed
 *       rows: [{id, status, observed, expected, first_error}]
 *                          and the facts no check compares with the
 *                          reference: system.kernel, system.libc (info)
 *     - id: env            the run-changing variables (runenv.h) set on the
 *       status: passed     node, and the device-visibility and loader ones
 *       rows: [{id: env.CUDA_VISIBLE_DEVICES, status: info, observed: VALUE}]
 *                          (observed "unset" when not set)
 *     collective: {...}    with --collective: share/collective.py's report
 *
 * written atomically.  A node task opens the project without the lock and
 * read-only: it never writes state.yaml nor the observation files.
 *
 * The matrix: a row per check ("system.os"), a column per node, each cell
 * a status and an observed value.  Values are compared after durations are
 * taken out (" in 12 ms"); rows where every answering node agrees are
 * folded; where they differ the most common value is the majority and every
 * other node is named.  A node with no file (down, killed, too slow) is
 * unreachable.  An env.NAME row a node with an env stage lacks is "unset"
 * there, so a variable a prolog sets on one node only names that node.
 * Building it is linear in nodes x checks (a hash per check).
 */
#ifndef KD_FLEET_H
#define KD_FLEET_H

#include <stdio.h>
#include <jansson.h>

#include "kernodeck/err.h"
#include "kernodeck/report.h"
#include "kernodeck/stage.h"

/* How many node columns the text matrix draws before it names outliers
 * only, and how many outliers a difference names before "and N more". */
#define KD_FLEET_TEXT_COLUMNS 8
#define KD_FLEET_NAMED_OUTLIERS 8
/* A node or job name: [A-Za-z0-9._-], not starting with '.' */
#define KD_FLEET_NAME_MAX 64
/* The node file's stage of environment rows, and the value of a variable
 * that is not set. */
#define FLEET_ENV_STAGE "env"
#define FLEET_ENV_UNSET "unset"
/* A measurement row (compute.perf-matmul, compute.perf-copy: the number
 * leads its observed text, higher is better) names the nodes below this
 * fraction of the fleet's median (`fleet --slow FRACTION`). */
#define FLEET_SLOW_DEFAULT 0.8

enum fleet_node_status { FLEET_PASSED, FLEET_FAILED, FLEET_UNREACHABLE };

struct fleet_node {
	char *name;
	enum fleet_node_status status;
	char *reason;        /* unreachable or unreadable: why; else NULL */
	json_t *file;        /* the node file's tree, or NULL */
	int differs;         /* an outlier in at least one row */
	int has_env;         /* the node file has the env stage */
};

struct fleet_check {
	char *id;            /* "system.os" */
	char *stage;         /* "system" */
	const json_t **cell; /* [nnodes]: the node's row, or NULL */
	int majority;        /* index of a node holding the majority value, or -1 */
	size_t agree;        /* nodes with the majority value */
	size_t answered;     /* nodes with a row */
	size_t noutliers;
	size_t *outliers;    /* node indices */
	int measured;        /* a measurement: judged against the median */
	double median;       /* its median over the nodes that answered */
};

struct fleet_matrix {
	char *job;
	char *folder;
	struct fleet_node *nodes;
	size_t nnodes, capnodes;
	struct fleet_check *checks;
	size_t nchecks, capchecks;
	json_t *check_index; /* check id -> index (integer) */
	json_t *unset_row;   /* the cell of an env.NAME row a node lacks */
	size_t ndiffer, nfailed, nunreachable;
	double slow;         /* 0: FLEET_SLOW_DEFAULT */
};

/* Gather folder (STATE_DIR/fleet/JOB): one column per name in expected
 * (nodes with no file are unreachable, with reasons[i] when given), then
 * one per other node file found, in name order.  run, when not NULL, is
 * the token a node file must carry.  Returns 0, or KD_EINPUT when the
 * folder cannot be read (a malformed node file is a failed column, never an
 * error of the whole). */
int fleet_gather(struct fleet_matrix *m, const char *folder, const char *job,
		 const char *const *expected, const char *const *reasons, size_t nexpected,
		 const char *run, struct kd_err *err);
/* Build the rows, fold them and find outliers (after fleet_gather or
 * fleet_add_node). */
void fleet_build(struct fleet_matrix *m);
/* Judge again with another slow fraction (0 < slow <= 1). */
void fleet_set_slow(struct fleet_matrix *m, double slow);
/* Add one node from a tree (steals file; NULL: unreachable for reason). */
void fleet_add_node(struct fleet_matrix *m, const char *name, json_t *file, const char *reason);
void fleet_matrix_free(struct fleet_matrix *m);
/* The matrix as a tree: {job, nodes, differences, checks}. */
json_t *fleet_tree(const struct fleet_matrix *m);
void fleet_print(FILE *fp, const struct fleet_matrix *m, enum kd_format fmt);
/* One line: "fleet: 3 nodes, 1 differs" (and failed, unreachable counts). */
void fleet_summary(const struct fleet_matrix *m, char *buf, size_t len);
int fleet_junit(const char *path, const struct fleet_matrix *m, struct kd_err *err);
/* 0 every node passed and none differs, else 1. */
int fleet_exit_status(const struct fleet_matrix *m);
/* `kernodeck diff FOLDER`: the matrix of a fleet folder (kernodeck/fleet/JOB),
 * or of the latest one under a kernodeck folder or a project; returns the
 * exit status (0, 1, 2 when there is no fleet folder there). */
int fleet_diff(const char *path, enum kd_format fmt);
/* The dossier README's section on the latest fleet folder of state_dir: a
 * table of the nodes and one of the checks (malloc'd Markdown), or NULL
 * when there is none. */
char *fleet_markdown(const char *state_dir);
/* Stage 2's cheap facts that no check compares with the reference (it
 * records none) but that the nodes of one job share: the kernel release
 * (system.kernel) and glibc's version (system.libc), as info rows whose
 * observed text is the value, added to rows from sysobs (system.yaml's
 * tree; a fact it lacks gives no row).  A node task adds them to its system
 * stage, so that the matrix names a node booted into another kernel, and
 * `kernodeck health` compares its own with the fleet's majority. */
void fleet_system_facts(const json_t *sysobs, struct kd_rows *rows);
/* The latest STATE_DIR/fleet/JOB folder (by modification time), malloc'd,
 * or NULL when there is none. */
char *fleet_latest(const char *state_dir);

#endif
