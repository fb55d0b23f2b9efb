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

struct inspect_kind {
	const char *name;
	int (*parse)(const char *path, json_t **out, struct kd_err *err);
	/* parse and print as it goes (the text formats: inspect.h) */
	int (*print)(FILE *fp, enum kd_format fmt, const char *path, struct kd_err *err);
};

static const struct inspect_kind kinds[] = {
	{ "collect-env", inspect_collect_env, NULL },
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

static int
inspect_usage(FILE *fp, int rc)
{
	fputs("usage: kernodeck inspect KIND FILE [--format text|json|yaml]\n  KIND:", fp);
	for (const struct inspect_kind *k = kinds; k->name; k++)
		fprintf(fp, " %s", k->name);
	fputc('\n', fp);
	return rc;
}

int
cmd_inspect(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum kd_format fmt = KD_FMT_YAML;
	struct kd_err err = { 0 };
	const struct inspect_kind *k;
	json_t *out = NULL;
	char buf[2200];
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (report_parse_format(optarg, &fmt) != 0) {
				fprintf(stderr, "kernodeck inspect: unknown format \"%s\"\n", optarg);
				return 2;
			}
			if (fmt == KD_FMT_TEXT)
				fmt = KD_FMT_YAML;
			break;
		case 'h': return inspect_usage(stdout, 0);
		default: return inspect_usage(stderr, 2);
		}
	}
	if (argc - optind != 2)
		return inspect_usage(stderr, 2);
	for (k = kinds; k->name; k++)
		if (strcmp(k->name, argv[optind]) == 0)
			break;
	if (k->name == NULL) {
		fprintf(stderr, "kernodeck inspect: unknown kind \"%s\"\n", argv[optind]);
		return inspect_usage(stderr, 2);
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
	report_print_tree(stdout, out, fmt);
	json_decref(out);
	return 0;
}
