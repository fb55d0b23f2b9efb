/*
 * cmd-capture.c - `kernodeck capture [DIR] [--python PATH] [--state-dir D]`:
 * on the reference machine, record this machine's interpreter, its package
 * inventory (pip freeze --all and pip inspect, saved under the kernodeck
 * folder) and the system row into the reference.  The work is
 * capture_reference(); this is its command line.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "kernodeck/capture.h"
#include "kernodeck/cmd.h"
#include "kernodeck/ctx.h"
#include "kernodeck/reference.h"
#include "kernodeck/stop.h"
#include "kernodeck/yamlio.h"

static const char *
str_of(const json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
		return buf;
	}
	return "-";
}

static void
print_summary(const json_t *s)
{
	static const char *const keys[] = {
		"os", "arch", "gpu_vendor", "gpu_model", "gpu_count", "driver", "cuda", "rocm",
		"backend", NULL,
	};
	const json_t *sys = json_object_get(s, "system");
	const char *inspect = json_string_value(json_object_get(s, "inspect"));
	char buf[64];

	printf("interpreter: %s\n", json_string_value(json_object_get(s, "interpreter")));
	printf("python:      %s\n", json_string_value(json_object_get(s, "version")));
	printf("packages:    %lld (pip freeze --all: %s)\n",
	       (long long)json_integer_value(json_object_get(s, "packages")),
	       json_string_value(json_object_get(s, "freeze")));
	printf("pip inspect: %s\n", inspect != NULL ? inspect : "not available");
	for (int i = 0; keys[i] != NULL; i++)
		printf("system.%-11s %s\n", keys[i], str_of(json_object_get(sys, keys[i]), buf,
							    sizeof buf));
}

static int
cmd_capture(int argc, char **argv)
{
	const struct kd_cmd_entry *e = &kd_cmd_capture;
	const char *python = NULL, *state_dir = NULL, *dir = ".";
	struct kd_sink sink = { kd_sink_print_step, NULL, kd_stop_requested, NULL };
	struct kd_err err = { 0 };
	struct kd_ctx ctx;
	json_t *summary = NULL;
	char buf[2200];
	int c, rc;

	kd_stop_install();   /* Ctrl-C stops the running program, then kernodeck */
	cmd_getopt_reset();
	while ((c = cmd_getopt(e, argc, argv)) != -1) {
		switch (c) {
		case 'p': python = optarg; break;
		case 'd': state_dir = optarg; break;
		case KD_CMD_HELP: return cmd_help(e);
		default: return cmd_usage_error(e, NULL);
		}
	}
	if (optind < argc)
		dir = argv[optind++];
	if (optind < argc)
		return cmd_usage_error(e, "one project folder at most");
	if ((rc = cmd_open_project(e, e->project, &ctx, dir, state_dir)) != 0)
		return rc;
	ctx.python_override = python;
	rc = capture_reference(&ctx, python, &sink, &summary, &err);
	if (rc != 0) {
		fprintf(stderr, "kernodeck capture: %s\n", kd_err_format(&err, buf, sizeof buf));
		kd_ctx_close(&ctx);
		return cmd_exit_of(rc);
	}
	print_summary(summary);
	printf("recorded in %s (identity %.12s)\n", ctx.ref_path, ctx.ref_id);
	json_decref(summary);
	kd_ctx_close(&ctx);
	return KD_EXIT_OK;
}

static const struct kd_opt capture_opts[] = {
	{ "python", 'p', "PATH", 0 },
	{ "state-dir", 'd', "DIR", 0 },
	{ NULL, 0, NULL, 0 },
};

const struct kd_cmd_entry kd_cmd_capture = {
	.name = "capture",
	.args = "[DIR]",
	.opts = capture_opts,
	.project = KD_PROJECT_LOCKED,
	.help = "Record this machine (the reference machine) into DIR's reference: the\n"
		"interpreter, its packages (pip freeze --all, pip inspect) and the system.",
	.exec = cmd_capture,
};
