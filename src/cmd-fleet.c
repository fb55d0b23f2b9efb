/*
 * cmd-fleet.c - `kernodeck fleet`: its arguments; the work is in
 * fleet-run.c (srun, the node task) and fleet.c (the matrix).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/cmd.h"
#include "kernodeck/fleet-run.h"
#include "kernodeck/stop.h"

static int
fleet_usage(FILE *fp, int rc)
{
	fputs("usage: kernodeck fleet [DIR] [--nodes N] [--stage ID]... [--collective]\n"
	      "                       [--format text|yaml|json] [--junit FILE] [--timeout SECONDS]\n"
	      "                       [--state-dir DIR] [--quiet] [-- SRUN_ARGS...]\n", fp);
	return rc;
}

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

	if (i < 0) {
		fprintf(stderr, "kernodeck fleet: unknown stage \"%s\" (reference, system, rebuild, "
			"contract, compute, sample, dossier)\n", id);
		return 2;
	}
	for (int k = 0; k < o->nstages; k++)
		if (o->stages[k] == i)
			return 0;
	o->stages[o->nstages++] = i;
	return 0;
}

int
cmd_fleet(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nodes", required_argument, NULL, 'n' },
		{ "stage", required_argument, NULL, 's' },
		{ "collective", no_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "junit", required_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "state-dir", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "node-task", no_argument, NULL, 'N' },   /* run by srun on each node */
		{ "run", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
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
	optind = 1;
	while ((c = getopt_long(ac, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if ((v = number(optarg, 1, 100000)) < 0) {
				fprintf(stderr, "kernodeck fleet: --nodes wants a number of nodes, not \"%s\"\n", optarg);
				return 2;
			}
			o.nodes = (int)v;
			break;
		case 's': if (add_stage(&o, optarg) != 0) return 2; break;
		case 'c': o.collective = 1; break;
		case 'j': o.junit = optarg; break;
		case 'd': o.state_dir = optarg; break;
		case 'q': o.quiet = 1; break;
		case 'N': node_task = 1; break;
		case 'r': run = optarg; break;
		case 't':
			if ((v = number(optarg, 1, 7 * 24 * 3600)) < 0) {
				fprintf(stderr, "kernodeck fleet: --timeout wants seconds, not \"%s\"\n", optarg);
				return 2;
			}
			o.timeout_s = (double)v;
			break;
		case 'f':
			if (report_parse_format(optarg, &o.fmt) != 0) {
				fprintf(stderr, "kernodeck fleet: unknown format \"%s\" (text, yaml or json)\n", optarg);
				return 2;
			}
			break;
		case 'h': return fleet_usage(stdout, 0);
		default: return fleet_usage(stderr, 2);
		}
	}
	if (optind < ac)
		o.dir = argv[optind++];
	if (optind < ac)
		return fleet_usage(stderr, 2);
	if (o.nstages == 0 && !node_task) {
		add_stage(&o, "system");
		add_stage(&o, "compute");
	}
	kd_stop_install();   /* Ctrl-C ends srun, which cancels the step */
	if (node_task) {
		struct kd_err err = { 0 };
		char buf[1400];
		int rc = fleet_node_task(o.dir, o.state_dir, NULL, run ? run : "0", o.stages,
					 o.nstages, o.collective, &err);
		if (rc != 0) {
			const char *n = getenv("SLURMD_NODENAME");
			fprintf(stderr, "kernodeck fleet node %s: error: %s\n", n ? n : "?",
				kd_err_format(&err, buf, sizeof buf));
		}
		return rc;
	}
	return fleet_run(&o);
}
