/*
 * health.h - `kernodeck health`: this node checked against the reference
 * and against the latest fleet result, made to be Slurm's
 * HealthCheckProgram or a line of a prolog (src/features/health.c).
 *
 * It gathers the cheap facts of stage 2 (the GPUs, their count and names,
 * the driver, CUDA or ROCm, the OS, the backend, the device nodes: the same
 * rows with the same ids as the fleet's node files, and the facts
 * fleet_system_facts adds, the kernel and glibc, against the fleet only), runs the compute probe
 * in its smallest form (no extensions) in the project's venv, which gives
 * the Python and torch versions and a product checked against the CPU,
 * and reads the run-changing environment variables (runenv.h: compared
 * with the fleet's rows "env.NAME" or "STAGE.env.NAME" only, as the
 * reference records none; a value that could not be recorded, a control
 * character in it, is a problem of its own).  Each row is
 * compared with the reference (a failing row without a deviation) and with
 * the majority value of the same row in the latest fleet folder
 * (STATE_DIR/fleet/JOB, fleet.h), when more than half of the nodes that
 * answered share it.
 *
 * The output follows the node health checker most sites already run, NHC
 * (the LBNL Node Health Check): for each failed check it prints a line that
 * starts with "ERROR:", two spaces and the checker's name ("ERROR:  nhc:
 * Health check failed:  ..."), and it marks a node with a note led by its
 * own name ("NHC: ..."), after reading the node's current note so that a
 * note it did not place is never overwritten.  Here: one line per problem,
 * "ERROR:  kernodeck: WHAT", nothing when healthy, and the drain reason led
 * by "kernodeck:", which is how kernodeck tells its own drains from anyone
 * else's.  Unlike NHC, which brings back online the nodes it took offline,
 * kernodeck never resumes a node: an admin does.
 *
 * It writes nothing in the project but, when the kernodeck folder can be
 * written, the probe's log of its last run, logs/health-NODE.log (one per
 * node, replaced at each run: Slurm runs it every few minutes).  The whole
 * command ends within its budget, --drain's scontrol calls included: every
 * program it starts is given what is left of it, its grace included (see
 * health.c), and one that cannot finish is a problem saying what was not
 * checked.
 */
#ifndef KD_HEALTH_H
#define KD_HEALTH_H

#include "kernodeck/format.h"

#define HEALTH_DEFAULT_TIMEOUT_S 10
/* Bytes of the reason given to Slurm, "kernodeck: " included: Slurm keeps
 * longer ones, but sinfo's reason column and its logs are read by people. */
#define HEALTH_REASON_MAX 120

struct health_opts {
	const char *dir;           /* the project folder */
	double timeout_s;          /* the whole budget */
	int drain;                 /* --drain */
	enum kd_format fmt;        /* text or json */
};

/* The whole command; returns the exit status: 0 healthy, 1 a problem (or
 * a drain that could not be done), 2 an unreadable project or reference. */
int health_run(const struct health_opts *o);

#endif
