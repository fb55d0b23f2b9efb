/*
 * cmd-health.c - `kernodeck health`: its arguments; the work is in
 * src/features/health.c.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/cmd.h"
#include "kernodeck/health.h"
#include "kernodeck/report.h"

static int
cmd_health(int argc, char **argv)
{
	const struct kd_cmd_entry *e = &kd_cmd_health;
	struct health_opts o = { .dir = ".", .timeout_s = HEALTH_DEFAULT_TIMEOUT_S };
	char *end;
	long v;
	int c;

	cmd_getopt_reset();
	while ((c = cmd_getopt(e, argc, argv)) != -1) {
		switch (c) {
		case 'D': o.drain = 1; break;
		case 't':
			v = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || v < 1 || v > 3600) {
				fprintf(stderr, "kernodeck health: --timeout wants seconds (1 to 3600), "
					"not \"%s\"\n", optarg);
				return KD_EXIT_USAGE;
			}
			o.timeout_s = (double)v;
			break;
		case 'f':
			if (report_parse_format(optarg, &o.fmt) != 0 || o.fmt == KD_FMT_YAML) {
				fprintf(stderr, "kernodeck health: unknown format \"%s\" (text or json)\n",
					optarg);
				return KD_EXIT_USAGE;
			}
			break;
		case KD_CMD_HELP: return cmd_help(e);
		default: return cmd_usage_error(e, NULL);
		}
	}
	if (optind < argc)
		o.dir = argv[optind++];
	if (optind < argc)
		return cmd_usage_error(e, "one project folder at most");
	return health_run(&o);
}

static const struct kd_opt health_opts[] = {
	{ "drain", 'D', NULL, 0 },
	{ "timeout", 't', "SECONDS", 0 },
	{ "format", 'f', "text|json", 0 },
	{ NULL, 0, NULL, 0 },
};

const struct kd_cmd_entry kd_cmd_health = {
	.name = "health",
	.args = "[DIR]",
	.opts = health_opts,
	.help = "Check this node for Slurm (HealthCheckProgram, a prolog): its GPUs, driver,\n"
		"CUDA or ROCm, OS and backend (and its kernel and glibc, against the fleet\n"
		"only), the compute probe in the project's venv (Python,\n"
		"torch, a product checked against the CPU) and the run-changing environment\n"
		"variables, against DIR's reference and the latest fleet result's majority.\n"
		"One line per problem (\"ERROR:  kernodeck: ...\"), nothing when healthy.  Reads\n"
		"DIR only (at most the probe's last log, kernodeck/logs/health-NODE.log); needs\n"
		"no terminal nor HOME; ends within --timeout (default 10 s), scontrol included:\n"
		"what cannot finish in it is a problem that says what was not checked.\n"
		"--drain drains this node (SLURMD_NODENAME, else the host name) with\n"
		"`scontrol update State=DRAIN Reason=\"kernodeck: ...\"`; a node someone else\n"
		"drained or marked down is left as it is, and no node is ever resumed (an\n"
		"admin does: `scontrol update NodeName=N State=RESUME`).\n"
		"Exit 0: healthy; 1: a problem (or the drain failed); 2: bad usage, or DIR's\n"
		"reference or fleet result cannot be read.",
	.exec = cmd_health,
};
