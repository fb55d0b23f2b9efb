/*
 * fleet-run.h - `kernodeck fleet`'s Slurm side: the rebuild done once, srun
 * placing one node task per node, the node task itself, and the gathering
 * of their node files into the matrix (fleet.h).
 *
 * Outside an allocation srun asks for one (--nodes N --ntasks-per-node 1,
 * plus the user's SRUN_ARGS); inside one (SLURM_JOB_ID set) it runs a step
 * of it.  srun gets a time limit (--time) and the runner a timeout of its
 * own; a timeout or Ctrl-C ends srun (which cancels the step) and then
 * `scancel`s the step or the job kernodeck asked for, so that nothing is left
 * running on any node.
 */
#ifndef KD_FLEET_RUN_H
#define KD_FLEET_RUN_H

#include "kernodeck/err.h"
#include "kernodeck/report.h"
#include "kernodeck/stage.h"

/* How many ranks --pairs measures every pair of; beyond, the ring
 * neighbours (share/collective.py's PAIRS_ALL). */
#define FLEET_PAIRS_ALL 16

/* A node task: run the stages (indices) on this node and write its node
 * file; collective: the all-reduce (pairs: and the pairs' bandwidth, slow:
 * the fraction of the median below which a rank or link is slow).
 * Returns 0 when the file was written, else KD_E* with err. */
int fleet_node_task(const char *dir, const char *state_dir, const char *job, const char *run,
		    const int *stages, int nstages, int collective, int pairs, double slow,
		    struct kd_err *err);

struct fleet_opts {
	const char *dir, *state_dir;
	int nodes;                 /* 0: the allocation's, or 1 */
	int stages[KD_NSTAGES];
	int nstages;
	int collective;
	int pairs;                 /* --pairs: with the collective, every pair's bandwidth */
	enum kd_format fmt;
	const char *junit;
	char *const *srun_args;
	int nsrun_args;
	double timeout_s;          /* the node tasks' budget */
	double slow;               /* --slow FRACTION, or 0: FLEET_SLOW_DEFAULT */
	int quiet;
};
/* The whole command: rebuild once, srun the node tasks, gather, print.
 * Returns the exit status (0, 1, 2, 3). */
int fleet_run(const struct fleet_opts *o);

#endif
