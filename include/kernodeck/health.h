/*
 * health.h - `kernodeck health`: this node checked against the reference
 * and against the latest fleet result, made to be Slurm's
 * HealthCheckProgram or a line of a prolog (src/features/health.c).
 *
 * It gathers the cheap facts of stage 2 (the GPUs, their count and names,
 * the driver, CUDA or ROCm, the OS, the backend, the device nodes: the same
 * rows with the same ids as the fleet's node files), runs the compute probe
 * in its smallest form (no extensions) in the project's venv, which gives
 * the Python and torch versions and a product checked against the CPU,
 * and reads the run-changing environment variables (runenv.h).  Each row is
 * compared with the reference (a failing row without a deviation) and with
 * the majority value of the same row in the latest fleet folder
 * (STATE_DIR/fleet/JOB, fleet.h), when more than half of the nodes that
 * answered share it.
 *
 * The output follows the node health checkers sites already run (NHC, the
 * LBNL Node Health Check): nothing but one line per problem, each starting
 * with "ERROR:  " and the checker's name, so that a log or a person grepping
 * for "ERROR:" across checkers finds it; the reason given to Slurm carries
 * the same name first ("kernodeck: ...") so that an admin knows who drained
 * the node, and so that kernodeck knows which drains are its own.
 *
 * It writes nothing in the project but, when the kernodeck folder can be
 * written, the probe's log under logs/.  Nothing it starts outlives the
 * budget (the probe's timeout is what is left of it).
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
