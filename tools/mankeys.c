/*
 * mankeys.c - build-time generator of kernodeck.1 from share/kernodeck.1.in:
 * @KEYS@ becomes the KEYS section body in roff, generated from the same
 * table as the help overlay (KD_KEY_INFO in keys.h) plus each stage's own
 * actions (kd_stages[]) with their names for `kernodeck act`; @SYNOPSIS@
 * becomes the synopsis of the walkthrough and of every command, from their
 * declarations (kd_cmd_table, cmd.h) as `--help` prints them;
 * @INSPECT_KINDS@ becomes the kinds of `kernodeck inspect` (kd_inspect_kinds,
 * inspect.h), one .BR line each; @VERSION@ becomes the version given.
 *
 * usage: mankeys TEMPLATE VERSION > kernodeck.1
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/cmd.h"
#include "kernodeck/inspect.h"
#include "kernodeck/keys.h"
#include "kernodeck/stage.h"

struct mk_key {
	int context;
	const char *names, *help;
};

#define MK_KEY(a, ctx, names, c1, c2, c3, bar, help) { ctx, names, help },
static const struct mk_key keys[] = { KD_KEY_INFO(MK_KEY) };
#undef MK_KEY

#define MK_CT(e, title) title,
static const char *const contexts[] = { KD_KEY_CONTEXT_INFO(MK_CT) };
#undef MK_CT

/* Print text escaped for roff: backslashes doubled, a leading dot or quote
 * protected, and "-" as a real minus where it is an option dash. */
static void
roff(const char *s, FILE *fp)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", fp);
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			fputs("\\e", fp);
		else if (*s == '-')
			fputs("\\-", fp);
		else
			fputc(*s, fp);
	}
}

static void
print_keys(FILE *fp)
{
	size_t i;
	int c;

	fputs("Every key is also listed by the help overlay (\\fB?\\fR or \\fBF1\\fR), "
	      "which is generated from the same table.\n", fp);
	for (c = 0; c < KD_KC__COUNT; c++) {
		fputs(".SS ", fp);
		roff(contexts[c], fp);
		fputs("\n.PD 0\n", fp);
		for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
			if (keys[i].context != c)
				continue;
			fputs(".TP 18n\n.B ", fp);
			roff(keys[i].names, fp);
			fputc('\n', fp);
			roff(keys[i].help, fp);
			fputc('\n', fp);
		}
		fputs(".PD\n", fp);
	}
	fputs(".SS Stage actions\n"
	      "Some stages offer actions of their own, each on a lowercase letter "
	      "shown in the key bar:\n.PD 0\n", fp);
	for (i = 0; i < KD_NSTAGES; i++) {
		const struct kd_stage_ops *st = kd_stages[i];

		for (size_t k = 0; k < st->nactions; k++) {
			if (kd_key_reserved(st->actions[k].key))
				continue;
			fprintf(fp, ".TP 18n\n.B %c\n", st->actions[k].key);
			fputs("(", fp);
			roff(st->id, fp);
			fputs(") ", fp);
			roff(st->actions[k].label, fp);
			/* its name for `kernodeck act` */
			fputs("; headless: \\fBact \\-\\-stage ", fp);
			roff(st->id, fp);
			fputc(' ', fp);
			roff(st->actions[k].name, fp);
			fputs("\\fR", fp);
			if (st->actions[k].arg_name != NULL) {
				fputs(st->actions[k].arg_required ? " \\fI" : " [\\fI", fp);
				roff(st->actions[k].arg_name, fp);
				fputs(st->actions[k].arg_required ? "\\fR" : "\\fR]", fp);
			}
			fputc('\n', fp);
		}
	}
	fputs(".PD\n", fp);
}

static void
print_synopsis(FILE *fp)
{
	fputs(".nh\n", fp);   /* an option is never hyphenated */
	cmd_synopsis_roff(&kd_cmd_walkthrough, fp);
	for (size_t i = 0; kd_cmd_table[i] != NULL; i++)
		cmd_synopsis_roff(kd_cmd_table[i], fp);
	fputs(".B kernodeck\n.BR \\-\\-help \" | \" \\-\\-version\n.hy\n", fp);
}

/* The kinds as a roff list: ".BR name ," each, the last ending with ".". */
static void
print_inspect_kinds(FILE *fp)
{
	for (const struct kd_inspect_kind *k = kd_inspect_kinds; k->name != NULL; k++) {
		fputs(".BR ", fp);
		roff(k->name, fp);
		fputs(k[1].name != NULL ? " ,\n" : " .\n", fp);
	}
}

int
main(int argc, char **argv)
{
	char line[4096];
	FILE *in;

	if (argc != 3) {
		fprintf(stderr, "usage: mankeys TEMPLATE VERSION\n");
		return 2;
	}
	in = fopen(argv[1], "r");
	if (in == NULL) {
		perror(argv[1]);
		return 2;
	}
	while (fgets(line, sizeof line, in) != NULL) {
		char *at;

		if (strcmp(line, "@KEYS@\n") == 0) {
			print_keys(stdout);
			continue;
		}
		if (strcmp(line, "@SYNOPSIS@\n") == 0) {
			print_synopsis(stdout);
			continue;
		}
		if (strcmp(line, "@INSPECT_KINDS@\n") == 0) {
			print_inspect_kinds(stdout);
			continue;
		}
		while ((at = strstr(line, "@VERSION@")) != NULL) {
			*at = '\0';
			fputs(line, stdout);
			fputs(argv[2], stdout);
			memmove(line, at + 9, strlen(at + 9) + 1);
		}
		fputs(line, stdout);
	}
	fclose(in);
	return ferror(stdout) ? 1 : 0;
}
