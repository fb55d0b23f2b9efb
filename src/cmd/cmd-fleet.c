/*
 * cmd-fleet.c - `kernodeck fleet`: its arguments; the work is in
 * fleet-run.c (srun, the node task) and fleet.c (the matrix).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/caps.h"
#include "kernodeck/cmd.h"
#include "kernodeck/fleet-run.h"
#include "kernodeck/stop.h"

/* A whole number in [lo, hi], or -1. */
static long
number(const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *s && *end == '\0' && v >= lo && v <= hi ? v : -1;
}

static int
add_stage(struct fleet_opts *o, const char *id)
{
	int i = stage_index(id);
	char ids[KD_CAP_STAGE_IDS];

	if (i < 0) {
		fprintf(stderr, "kernodeck fleet: unknown stage \"%s\" (%s)\n", id,
			stage_id_list(ids, sizeof ids, ", "));
		return KD_EXIT_USAGE;
	}
	for (int k = 0; k < o->nstages; k++)
		if (o->stages[k] == i)
			return 0;
	o->stages[o->nstages++] = i;
	return 0;
}

static int
cmd_fleet(int argc, char **argv)
{
	const struct kd_cmd_entry *e = &kd_cmd_fleet;
	struct fleet_opts o = { .dir = ".", .timeout_s = 600 };
	const char *run = NULL;
	int c, ac = argc, node_task = 0;
	long v;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			ac = i;
			o.srun_args = argv + i + 1;
			o.nsrun_args = argc - i - 1;
			break;
		}
	cmd_getopt_reset();
	while ((c = cmd_getopt(e, ac, argv)) != -1) {
		switch (c) {
		case 'n':
			if ((v = number(optarg, 1, 100000)) < 0) {
				fprintf(stderr, "kernodeck fleet: --nodes wants a number of nodes, not \"%s\"\n", optarg);
				return KD_EXIT_USAGE;
			}
			o.nodes = (int)v;
			break;
		case 's': if (add_stage(&o, optarg) != 0) return KD_EXIT_USAGE; break;
		case 'c': o.collective = 1; break;
		case 'P': o.pairs = 1; break;
		case 'j': o.junit = optarg; break;
		case 'd': o.state_dir = optarg; break;
		case 'q': o.quiet = 1; break;
		case 'N': node_task = 1; break;
		case 'r': run = optarg; break;
		case 't':
			if ((v = number(optarg, 1, 7 * 24 * 3600)) < 0) {
				fprintf(stderr, "kernodeck fleet: --timeout wants seconds, not \"%s\"\n", optarg);
				return KD_EXIT_USAGE;
			}
			o.timeout_s = (double)v;
			break;
		case 'S': {
			char *end;
			double f = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' || !(f > 0 && f <= 1)) {
				fprintf(stderr, "kernodeck fleet: --slow wants a fraction of the fleet's "
					"median in (0, 1], not \"%s\"\n", optarg);
				return KD_EXIT_USAGE;
			}
			o.slow = f;
			break;
		}
		case 'f':
			if (report_parse_format(optarg, &o.fmt) != 0) {
				fprintf(stderr, "kernodeck fleet: unknown format \"%s\" (text, yaml or json)\n", optarg);
				return KD_EXIT_USAGE;
			}
			break;
		case KD_CMD_HELP: return cmd_help(e);
		default: return cmd_usage_error(e, NULL);
		}
	}
	if (optind < ac)
		o.dir = argv[optind++];
	if (optind < ac)
		return cmd_usage_error(e, "one project folder at most");
	if (o.pairs && !o.collective)
		return cmd_usage_error(e, "--pairs measures the collective's links: give --collective too");
	if (o.nstages == 0 && !node_task) {
		add_stage(&o, kd_stage_system.id);
		add_stage(&o, kd_stage_compute.id);
	}
	kd_stop_install();   /* Ctrl-C ends srun, which cancels the step */
	if (node_task) {
		struct kd_err err = { 0 };
		char buf[1400];
		int rc = fleet_node_task(o.dir, o.state_dir, NULL, run ? run : "0", o.stages,
					 o.nstages, o.collective, o.pairs, o.slow, &err);
		if (rc != 0) {
			const char *n = getenv("SLURMD_NODENAME");
			fprintf(stderr, "kernodeck fleet node %s: error: %s\n", n ? n : "?",
				kd_err_format(&err, buf, sizeof buf));
		}
		return rc;
	}
	return fleet_run(&o);
}

static const struct kd_opt fleet_opts[] = {
	{ "nodes", 'n', "N", 0 },
	{ "stage", 's', "ID", KD_OPT_MANY },
	{ "collective", 'c', NULL, 0 },
	{ "pairs", 'P', NULL, 0 },
	{ "slow", 'S', "FRACTION", 0 },
	{ "format", 'f', "text|yaml|json", 0 },
	{ "junit", 'j', "FILE", 0 },
	{ "timeout", 't', "SECONDS", 0 },
	{ "state-dir", 'd', "DIR", 0 },
	{ "quiet", 'q', NULL, 0 },
	{ "node-task", 'N', NULL, KD_OPT_HIDDEN },   /* run by srun on each node */
	{ "run", 'r', "DIR", KD_OPT_HIDDEN },
	{ NULL, 0, NULL, 0 },
};

const struct kd_cmd_entry kd_cmd_fleet = {
	.name = "fleet",
	.args = "[DIR]",
	.args_after = "[-- SRUN_ARGS...]",
	.opts = fleet_opts,
	.help = "The same checks on every node of a Slurm allocation (srun, one task per\n"
		"node; default stages system and compute), one matrix of what differs and\n"
		"where: agreeing rows folded, the odd node named.  Rows are the stages'\n"
		"checks, env.NAME (the variables that change a run; device visibility,\n"
		"LD_LIBRARY_PATH and LD_PRELOAD even when unset), the compute probe's\n"
		"throughputs compute.perf-matmul and compute.perf-copy (a node below\n"
		"--slow FRACTION, default 0.8, of the fleet's median is named with its value\n"
		"and the median) and compute.lib.NAME (the libraries its process loaded).\n"
		"--collective adds an all-reduce (each rank's speed: collective.rank);\n"
		"--pairs with it measures every pair of ranks (the ring beyond 16) and names\n"
		"the node common to the slow pairs (collective.link).\n"
		"Exit 0 every node passed and none differs; 1 a node failed, did not answer\n"
		"or differs; 2 bad usage; 3 Slurm cannot be used.",
	.exec = cmd_fleet,
};
