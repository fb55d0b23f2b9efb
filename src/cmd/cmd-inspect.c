/*
 * cmd-inspect.c - `kernodeck inspect KIND FILE [--format text|json|yaml]`:
 * plumbing that shows what kernodeck understood from one file.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/cmd.h"
#include "kernodeck/hash.h"
#include "kernodeck/inspect.h"
#include "kernodeck/report.h"
#include "kernodeck/secrets.h"
#include "kernodeck/treeout.h"

struct inspect_kind {
	const char *name;
	int (*parse)(const char *path, json_t **out, struct kd_err *err);
	/* parse and print as it goes (the text formats: inspect.h) */
	int (*print)(FILE *fp, enum kd_format fmt, const char *path, struct kd_err *err);
};

static const struct inspect_kind kinds[] = {
	{ "collect-env", inspect_collect_env, NULL },
	{ "nvidia-smi", inspect_nvidia_smi, NULL },
	{ "requirements", inspect_requirements, inspect_print_requirements },
	{ "freeze", inspect_freeze, inspect_print_freeze },
	{ "pip-check", inspect_pip_check, inspect_print_pip_check },
	{ "pip-inspect", inspect_pip_inspect, NULL },
	{ "npy", inspect_npy, NULL },
	{ "safetensors", inspect_safetensors, NULL },
	{ "sha256", inspect_sha256, NULL },
	{ "secrets", inspect_secrets, NULL },
	{ NULL, NULL, NULL },
};

/* The kinds, after every usage of the command. */
static void
inspect_kinds(FILE *fp)
{
	fputs("  KIND:", fp);
	for (const struct inspect_kind *k = kinds; k->name; k++)
		fprintf(fp, " %s", k->name);
	fputc('\n', fp);
}

static int
cmd_inspect(int argc, char **argv)
{
	const struct kd_cmd_entry *e = &kd_cmd_inspect;
	enum kd_format fmt = KD_FMT_YAML;
	struct kd_err err = { 0 };
	const struct inspect_kind *k;
	json_t *out = NULL;
	char buf[2200];
	int c, rc;

	cmd_getopt_reset();
	while ((c = cmd_getopt(e, argc, argv)) != -1) {
		switch (c) {
		case 'f':
			if (report_parse_format(optarg, &fmt) != 0) {
				fprintf(stderr, "kernodeck inspect: unknown format \"%s\"\n", optarg);
				return KD_EXIT_USAGE;
			}
			if (fmt == KD_FMT_TEXT)
				fmt = KD_FMT_YAML;
			break;
		case KD_CMD_HELP: return cmd_help(e);
		default: return cmd_usage_error(e, NULL);
		}
	}
	if (argc - optind != 2)
		return cmd_usage_error(e, NULL);
	for (k = kinds; k->name; k++)
		if (strcmp(k->name, argv[optind]) == 0)
			break;
	if (k->name == NULL) {
		return cmd_usage_error(e, "unknown kind \"%s\"", argv[optind]);
	}
	if (k->print != NULL && getenv("KD_INSPECT_TREE") == NULL) {
		if ((rc = k->print(stdout, fmt, argv[optind + 1], &err)) != 0)
			fprintf(stderr, "kernodeck: %s\n", kd_err_format(&err, buf, sizeof buf));
		return rc;
	}
	rc = k->parse(argv[optind + 1], &out, &err);
	if (rc != 0) {
		fprintf(stderr, "kernodeck: %s\n", kd_err_format(&err, buf, sizeof buf));
		return rc;
	}
	treeout_print_tree(stdout, out, fmt);
	json_decref(out);
	return KD_EXIT_OK;
}

static const struct kd_opt inspect_opts[] = {
	{ "format", 'f', "text|yaml|json", 0 },
	{ NULL, 0, NULL, 0 },
};

const struct kd_cmd_entry kd_cmd_inspect = {
	.name = "inspect",
	.args = "KIND FILE",
	.opts = inspect_opts,
	.usage_tail = inspect_kinds,
	.exec = cmd_inspect,
};
