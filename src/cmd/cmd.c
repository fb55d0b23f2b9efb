/*
 * cmd.c - the command table and what every command shares: the option
 * parser, the usage, --help and the synopses, all from each command's one
 * declaration (struct kd_cmd_entry, cmd.h).
 */
#include "config.h"

#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernodeck/caps.h"
#include "kernodeck/cmd.h"
#include "kernodeck/ctx.h"
#include "kernodeck/err.h"

#define KD_CMD_REF(n) &kd_cmd_##n,
const struct kd_cmd_entry *const kd_cmd_table[] = { KD_CMD_LIST(KD_CMD_REF) NULL };
#undef KD_CMD_REF

static const struct kd_opt walkthrough_opts[] = {
	{ "state-dir", 's', "DIR", 0 },
	{ "python", 'p', "PATH", 0 },
	{ NULL, 0, NULL, 0 },
};

const struct kd_cmd_entry kd_cmd_walkthrough = {
	.name = NULL,
	.args = "[DIR]",
	.opts = walkthrough_opts,
	.help = "Open the walkthrough on the project in DIR (default: the current folder).",
};

int (*cmd_open_walkthrough)(const char *project_dir);

const struct kd_cmd_entry *
cmd_find(const char *name)
{
	for (size_t i = 0; kd_cmd_table[i] != NULL; i++)
		if (strcmp(kd_cmd_table[i]->name, name) == 0)
			return kd_cmd_table[i];
	return NULL;
}

/* ---- parsing ---- */

void
cmd_getopt_reset(void)
{
	optind = 0;
}

int
cmd_getopt(const struct kd_cmd_entry *e, int argc, char **argv)
{
	static struct option lo[KD_CAP_CMD_OPTS + 2];
	char so[3 * KD_CAP_CMD_OPTS + 8], bad[KD_CAP_CMD_ELEMENT];
	size_t n = 0, k = 0;
	int c;

	if (e->stop_at_operand)
		so[k++] = '+';
	so[k++] = ':';
	so[k++] = 'h';
	for (const struct kd_opt *o = e->opts; o && o->name && n < KD_CAP_CMD_OPTS; o++, n++) {
		lo[n].name = o->name;
		lo[n].has_arg = o->arg ? required_argument : no_argument;
		lo[n].flag = NULL;
		lo[n].val = o->val;
		if (o->flags & KD_OPT_SHORT) {
			so[k++] = (char)o->val;
			if (o->arg)
				so[k++] = ':';
		}
	}
	so[k] = '\0';
	lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	opterr = 0;
	c = getopt_long(argc, argv, so, lo, NULL);
	if (c == 'h')
		return KD_CMD_HELP;
	if (c != '?' && c != ':')
		return c;
	/* a long option is the word before optind; a short one is optopt */
	if (optind > 0 && optind <= argc && strncmp(argv[optind - 1], "--", 2) == 0)
		snprintf(bad, sizeof bad, "%s", argv[optind - 1]);
	else
		snprintf(bad, sizeof bad, "-%c", optopt ? optopt : '?');
	fprintf(stderr, "kernodeck%s%s: %s %s\n", e->name ? " " : "", e->name ? e->name : "",
		c == ':' ? "an argument is needed after" : "unknown option", bad);
	return KD_CMD_BAD;
}

/* ---- usage and synopses ---- */

/* The synopsis as elements: each an operand word or a bracketed option. */
static size_t
elements(const struct kd_cmd_entry *e, char el[][KD_CAP_CMD_ELEMENT], size_t max)
{
	size_t n = 0;
	const char *parts[2] = { e->args, e->args_after };

	for (int p = 0; p < 2; p++) {
		if (p == 1)
			for (const struct kd_opt *o = e->opts; o && o->name && n < max; o++) {
				if (o->flags & KD_OPT_HIDDEN)
					continue;
				int opt = !(o->flags & KD_OPT_NEEDED);
				snprintf(el[n++], KD_CAP_CMD_ELEMENT, "%s--%s%s%s%s%s", opt ? "[" : "",
					 o->name, o->arg ? " " : "", o->arg ? o->arg : "",
					 opt ? "]" : "", o->flags & KD_OPT_MANY ? "..." : "");
			}
		for (const char *s = parts[p]; s != NULL && *s != '\0' && n < max;) {
			size_t len = strcspn(s, " ");
			snprintf(el[n++], KD_CAP_CMD_ELEMENT, "%.*s", (int)len, s);
			s += len;
			while (*s == ' ')
				s++;
		}
	}
	return n;
}

const char *
cmd_synopsis(const struct kd_cmd_entry *e, char *buf, size_t len)
{
	char el[KD_CAP_CMD_OPTS + 8][KD_CAP_CMD_ELEMENT];
	size_t n = elements(e, el, sizeof el / sizeof el[0]), k = 0;

	buf[0] = '\0';
	if (e->name != NULL)
		k = (size_t)snprintf(buf, len, "%s", e->name);
	for (size_t i = 0; i < n && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? " " : "", el[i]);
	return buf;
}

void
cmd_put_wrapped(FILE *fp, const char *text, size_t first_col, size_t indent, size_t width)
{
	size_t col = first_col;
	int depth = 0, first = 1;

	for (const char *w = text; *w != '\0';) {
		const char *e = w;
		size_t n;
		/* a word runs to a space outside brackets */
		for (; *e != '\0' && (*e != ' ' || depth > 0); e++)
			depth += *e == '[' ? 1 : *e == ']' ? -1 : 0;
		n = (size_t)(e - w);
		if (!first && col + 1 + n > width) {
			fprintf(fp, "\n%*s", (int)indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', fp);
			col++;
		}
		fwrite(w, 1, n, fp);
		col += n;
		first = 0;
		for (w = e; *w == ' '; w++)
			;
	}
	fputc('\n', fp);
}

void
cmd_usage(const struct kd_cmd_entry *e, FILE *fp)
{
	char syn[KD_CAP_CMD_SYNOPSIS], lead[64];
	size_t n;

	snprintf(lead, sizeof lead, "usage: kernodeck%s%s", e->name ? " " : "",
		 e->name ? e->name : "");
	n = strlen(lead);
	cmd_synopsis(e, syn, sizeof syn);
	fprintf(fp, "%s ", lead);
	/* the synopsis begins with the name: print the rest after it */
	cmd_put_wrapped(fp, e->name ? syn + strlen(e->name) + 1 : syn, n + 1, n + 1, 80);
	if (e->usage_tail != NULL)
		e->usage_tail(fp);
}

int
cmd_help(const struct kd_cmd_entry *e)
{
	cmd_usage(e, stdout);
	if (e->help != NULL)
		printf("\n%s\n", e->help);
	return KD_EXIT_OK;
}

int
cmd_usage_error(const struct kd_cmd_entry *e, const char *fmt, ...)
{
	va_list ap;

	if (fmt != NULL) {
		fprintf(stderr, "kernodeck%s%s: ", e->name ? " " : "", e->name ? e->name : "");
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	cmd_usage(e, stderr);
	return KD_EXIT_USAGE;
}

/* One run of the synopsis in its man-page font: an option bold (its
 * dashes real minus signs), a metavariable (capitals) italic, another word
 * (a command, a format name) bold, punctuation roman. */
static void
roff_run(FILE *fp, const char *s, size_t n)
{
	int upper = 1;

	for (size_t i = 0; i < n; i++)
		if (islower((unsigned char)s[i]))
			upper = 0;
	fputs(s[0] == '-' || !upper ? "\\fB" : "\\fI", fp);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '-')
			fputs("\\-", fp);
		else
			fputc(s[i], fp);
	}
	fputs("\\fR", fp);
}

void
cmd_synopsis_roff(const struct kd_cmd_entry *e, FILE *fp)
{
	char syn[KD_CAP_CMD_SYNOPSIS];
	const char *s;
	int depth = 0;

	cmd_synopsis(e, syn, sizeof syn);
	s = e->name ? syn + strlen(e->name) : syn;
	fprintf(fp, ".B kernodeck%s%s\n", e->name ? " " : "", e->name ? e->name : "");
	while (*s == ' ')
		s++;
	while (*s != '\0') {
		size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-");
		if (n > 0) {
			roff_run(fp, s, n);
			s += n;
			continue;
		}
		depth += *s == '[' ? 1 : *s == ']' ? -1 : 0;
		/* no line break inside a bracket: an unpaddable space there */
		if (*s == ' ' && depth > 0)
			fputs("\\ ", fp);
		else
			fputc(*s, fp);
		s++;
	}
	fputs("\n.br\n", fp);
}

/* ---- the project ---- */

int
cmd_exit_of(int rc)
{
	return rc == KD_EINPUT ? KD_EXIT_USAGE : KD_EXIT_ENV;
}

int
cmd_open_project(const struct kd_cmd_entry *e, enum kd_cmd_project how, struct kd_ctx *ctx,
		 const char *dir, const char *state_dir)
{
	struct kd_err err = { 0 };
	char buf[2200];
	int rc = kd_ctx_open(ctx, dir, state_dir,
			     how == KD_PROJECT_LOCKED ? KD_LOCK_REQUIRED : KD_LOCK_NONE, &err);

	if (rc == 0)
		return 0;
	fprintf(stderr, "kernodeck%s%s: %s\n", e->name ? " " : "", e->name ? e->name : "",
		kd_err_format(&err, buf, sizeof buf));
	kd_ctx_close(ctx);
	return cmd_exit_of(rc);
}
