/*
 * dossier-resume.c - the resume check in the dossier (see
 * include/kernodeck/dossier-resume.h): the README's tables of the two
 * trajectories and of the checkpoint inventory, and the step of
 * procedure.sh that reruns the exercise by hand and compares.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/ctx.h"
#include "kernodeck/dossier-resume.h"
#include "kernodeck/quote.h"
#include "kernodeck/resume.h"
#include "kernodeck/stage.h"
#include "kernodeck/yamlio.h"
#include "kernodeck/obs-sample.h"

#define DOSSIER_RESUME_ROWS 40   /* trajectory rows in the README */

static const char *
or_str(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

/* A Markdown cell: no line break, no bare '|'. */
static void
cell(FILE *f, const char *s)
{
	if (s == NULL || *s == '\0') {
		fputs("-", f);
		return;
	}
	for (; *s; s++)
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s, f);
}

static void
num(FILE *f, const json_t *v)
{
	if (json_is_number(v))
		fprintf(f, "%.9g", json_number_value(v));
	else
		fputs("-", f);
}

/* The trajectory table: every step when they are few, else evenly spaced
 * steps with the interruption and the first divergence. */
static void
trajectory_table(FILE *f, const json_t *obs)
{
	const json_t *a = obs_sample_resume_plot_uninterrupted(obs);
	const json_t *b = obs_sample_resume_plot_resumed(obs);
	const char *key = obs_sample_resume_plot_key(obs) ? obs_sample_resume_plot_key(obs) : "?";
	long long n = (long long)json_array_size(a), at = obs_sample_resume_resumed_from(obs)
		      ? obs_sample_resume_resumed_from(obs) : obs_sample_resume_interrupt_at(obs);
	long long div, every;

	div = obs_sample_resume_trajectory_first_step(obs);
	every = n > DOSSIER_RESUME_ROWS ? (n + DOSSIER_RESUME_ROWS - 1) / DOSSIER_RESUME_ROWS : 1;
	fprintf(f, "| step | %s, uninterrupted | %s, interrupted then resumed | |\n|---|---|---|---|\n",
		key, key);
	for (long long st = 1; st <= n; st++) {
		const json_t *va = json_array_get(a, (size_t)(st - 1)), *vb = json_array_get(b, (size_t)(st - 1));
		if (st % every != 0 && st != 1 && st != n && st != at && st != at + 1 && st != div)
			continue;
		fprintf(f, "| %lld | ", st);
		num(f, va);
		fputs(" | ", f);
		num(f, vb);
		fprintf(f, " | %s%s |\n", st == at ? "interrupted here" : st == at + 1 ? "first resumed step" : "",
			st == div ? (st == at + 1 ? "; first divergence" : "first divergence") : "");
	}
}

static void
inventory_table(FILE *f, const json_t *obs)
{
	const json_t *k, *w;
	size_t i, j;

	if (obs_sample_resume_inventory(obs) == NULL)
		return;
	fputs("\nCheckpoint inventory of `", f);
	cell(f, or_str(obs_sample_resume_inventory_checkpoint(obs), "?"));
	fputs("`", f);
	if (obs_sample_resume_inventory_error(obs) != NULL) {
		fputs(": not read: ", f);
		cell(f, obs_sample_resume_inventory_error(obs));
		fputs(".\n", f);
		return;
	}
	fputs(" (loader: ", f);
	cell(f, or_str(obs_sample_resume_inventory_loader(obs), "?"));
	fputs("):\n\n| kind | held | where |\n|---|---|---|\n", f);
	json_array_foreach(obs_sample_resume_inventory_kinds(obs), i, k) {
		fputs("| ", f);
		cell(f, or_str(obs_sample_kind_kind(k), "?"));
		fprintf(f, " | %s", obs_sample_kind_present(k) ? "yes" : "no");
		if (json_is_false(obs_sample_kind_buffers(k)))
			fputs(" (no per-parameter buffers)", f);
		fputs(" | ", f);
		json_array_foreach(obs_sample_kind_where(k), j, w) {
			if (j)
				fputs(", ", f);
			cell(f, json_string_value(w));
		}
		fputs(" |\n", f);
	}
}

static const struct kd_row *
row_of(const struct kd_ctx *ctx, const char *id)
{
	int i = stage_pos(&kd_stage_sample);

	return i < 0 ? NULL : kd_rows_find(&ctx->state.st[i].rows, id);
}

char *
dossier_resume_readme(const struct kd_ctx *ctx)
{
	const json_t *obs = kd_ctx_obs(ctx, stage_pos(&kd_stage_sample));
	const json_t *r = obs_sample_resume(obs);
	static const char *const ids[] = {
		"sample.resume.interrupted", "sample.resume.checkpoint", "sample.resume.resumed",
		"sample.resume.trajectory", "sample.resume.final", "sample.resume.reference",
		"sample.resume.inventory",
	};
	const char *not_run = obs_sample_resume_not_run(obs);
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (r == NULL || (f = open_memstream(&text, &len)) == NULL)
		return NULL;
	fputs("## The resume check\n\n", f);
	if (obs_sample_resume_runs(obs) == NULL) {
		fputs("Not run: see stage 6's rows (`sample.resume`).\n\n", f);
		fclose(f);
		return text;
	}
	/* only what happened: an interruption and a resumed run, or why not */
	if (not_run == NULL && !obs_sample_resume_cancelled(obs))
		fprintf(f, "%lld steps uninterrupted; interrupted at step %lld (%s), then resumed from its checkpoint.\n\n",
			(long long)obs_sample_resume_steps(obs), (long long)obs_sample_resume_interrupt_at(obs),
			or_str(obs_sample_resume_interrupt(obs), "stop"));
	else {
		fprintf(f, "%lld steps uninterrupted; the interruption at step %lld (%s) and the resume were not checked: ",
			(long long)obs_sample_resume_steps(obs), (long long)obs_sample_resume_interrupt_at(obs),
			or_str(obs_sample_resume_interrupt(obs), "stop"));
		cell(f, or_str(not_run, "the resume check was cancelled"));
		fputs(". The resumed trajectory and the final checkpoints were not compared.\n\n", f);
	}
	fputs("| check | status | observed |\n|---|---|---|\n", f);
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		const struct kd_row *row = row_of(ctx, ids[i]);
		if (row == NULL)
			continue;
		fprintf(f, "| %s | %s | ", ids[i], kd_rstat_name(row->status));
		cell(f, row->observed);
		if (row->first_error) {
			fputs("; ", f);
			cell(f, row->first_error);
		}
		fputs(" |\n", f);
	}
	fputs("\n", f);
	if (obs_sample_resume_plot(obs) != NULL && not_run == NULL)
		trajectory_table(f, obs);
	inventory_table(f, obs);
	fputs("\n", f);
	fclose(f);
	return text;
}

/* The n bytes of text at s quoted (nothing when n is 0); flags apply to
 * the first text of a word only. */
static void
put_text(FILE *f, const char *s, size_t n, int *flags)
{
	char *t = n ? strndup(s, n) : NULL, *q = t ? quote_word(t, *flags) : NULL;

	if (q != NULL)
		fputs(q, f);
	free(q);
	free(t);
	*flags = 0;
}

/* A template as one shell word: {out} as "${OUT}", {checkpoint} "${CKPT}",
 * {steps} "${STEPS}", {step} "${STEP}", the text between them quoted as
 * every word is (quote.h); flags as quote_word's for the text before the
 * first placeholder. */
static void
shell_word(FILE *f, const char *s, int flags)
{
	static const struct { const char *ph, *var; } v[] = {
		{ "{steps}", "\"${STEPS}\"" }, { "{out}", "\"${OUT}\"" },
		{ "{checkpoint}", "\"${CKPT}\"" }, { "{step}", "\"${STEP}\"" },
	};
	size_t lit = 0;

	if (*s == '\0')
		fputs("''", f);
	while (s[lit] != '\0') {
		size_t k;
		for (k = 0; k < 4; k++)
			if (strncmp(s + lit, v[k].ph, strlen(v[k].ph)) == 0)
				break;
		if (k == 4) {
			lit++;
			continue;
		}
		put_text(f, s, lit, &flags);
		fputs(v[k].var, f);
		s += lit + strlen(v[k].ph);
		lit = 0;
	}
	put_text(f, s, lit, &flags);
}

static void
command(FILE *f, const json_t *argv)
{
	const json_t *a;
	size_t i;

	json_array_foreach(argv, i, a) {
		const char *s = json_string_value(a);
		if (i)
			fputc(' ', f);
		if (i == 0 && s && (strcmp(s, "python") == 0 || strcmp(s, "python3") == 0))
			fputs(".venv-rebuild/bin/python", f);
		else
			shell_word(f, s ? s : "", i == 0 ? QUOTE_FIRST : 0);
	}
}

static const char compare_py[] =
	"import json, os, re, sys\n"
	"c = json.loads(sys.argv[1])\n"
	"def pattern(p):\n"
	"    # resume.metrics_pattern: {step} a whole number, {KEY} a number, a blank any blanks\n"
	"    out, pos = '', 0\n"
	"    for m in re.finditer(r'\\{([^{}]*)\\}', p):\n"
	"        out += r'\\s+'.join(re.escape(w) for w in p[pos:m.start()].split(' '))\n"
	"        out += r'(?P<step>[+-]?\\d+)' if m.group(1) == 'step' else r'(?P<k%d>[-+.0-9eEnaifNAIF]+)' % c['keys'].index(m.group(1))\n"
	"        pos = m.end()\n"
	"    return re.compile(out + r'\\s+'.join(re.escape(w) for w in p[pos:].split(' ')))\n"
	"pat = pattern(c['pattern']) if c.get('pattern') else None\n"
	"def read(p, printed):\n"
	"    # a link the project's code planted is not read through\n"
	"    if os.path.islink(p):\n"
	"        sys.exit('%s is a symbolic link: not read through (kernodeck replay refuses it too)' % p)\n"
	"    out = {}\n"
	"    for line in os.fdopen(os.open(p, os.O_RDONLY | os.O_NOFOLLOW), errors='replace'):\n"
	"        if printed:\n"
	"            m = pat.search(line)\n"
	"            if m:\n"
	"                o = {k: float(m.group('k%d' % i)) for i, k in enumerate(c['keys'])}\n"
	"                out[int(m.group('step'))] = o\n"
	"        elif line.strip():\n"
	"            try:\n"
	"                o = json.loads(line)\n"
	"            except ValueError:\n"
	"                continue\n"
	"            out[o['step']] = o\n"
	"    return out\n"
	"def compare(a, b, r, lo, hi, an, bn, what):\n"
	"    for st in range(lo, hi + 1):\n"
	"        for k in c['keys']:\n"
	"            if st not in a or st not in b:\n"
	"                sys.exit('%s: step %d is missing' % (what, st))\n"
	"            x, y = a[st][k], b[st][k]\n"
	"            ok = x == y if r.get('kind') == 'exact' else abs(y - x) <= r['atol'] + r['rtol'] * abs(x)\n"
	"            if not ok:\n"
	"                sys.exit('%s: first divergence at step %d, %s: %s %r, %s %r' % (what, st, k, an, x, bn, y))\n"
	"    print('%s: steps %d-%d agree under the rule %s' % (what, lo, hi, json.dumps(r)))\n"
	"a = read(os.environ['A_METRICS'], pat is not None)\n"
	"b = read(os.environ['B_METRICS'], pat is not None)\n"
	"compare(a, b, c['rule'], c['from'], c['to'], 'uninterrupted', 'resumed', 'resume')\n"
	"if c.get('reference'):\n"
	"    ref = read(os.environ['REF_METRICS'], False)\n"
	"    compare(ref, a, c['reference_rule'], 1, c['to'], 'reference', 'this machine', 'reference')\n";

/* One run of the exercise in procedure.sh: the vars, the command, its
 * output kept in printed (metrics_pattern) or not. */
static void
run_line(FILE *f, const json_t *argv, const char *printed, int background)
{
	command(f, argv);
	if (printed != NULL)
		fprintf(f, " >>\"%s\" 2>&1", printed);
	fputs(background ? " &\n" : "\n", f);
}

/* procedure.sh's kd_no_link PATH: no component of PATH (in the work
 * folder) is a symbolic link, or exit 1 naming it. */
static const char no_link_fn[] =
	"kd_no_link() {   # PATH (in the work folder): no component is a link\n"
	"\t(set -f; IFS=/; q=\"\"\n"
	"\tfor c in $1; do q=${q:+$q/}$c\n"
	"\t\tif [ -L \"$q\" ]; then echo \"$1: $q in the work folder is a link: not read "
	"or written through\" >&2; exit 1; fi\n"
	"\tdone) || exit 1\n"
	"}\n";

char *
dossier_resume_links(const struct kd_ctx *ctx)
{
	struct resume_spec s;
	char why[512], *text = NULL, *q;
	size_t len = 0;
	FILE *f;

	if (resume_spec_parse(ctx->ref, &s, why, sizeof why) != 0 ||
	    (f = open_memstream(&text, &len)) == NULL)
		return NULL;
	/* nothing on the way to what step 7 writes or reads in the clone is a
	 * link (the project's own may point anywhere): replay refuses it too */
	fputs("# the resume check (step 7) writes in kernodeck-resume and reads the reference\n"
	      "# machine's metrics: no link on the way (kernodeck replay refuses one too)\n", f);
	fputs(no_link_fn, f);
	fputs("kd_no_link kernodeck-resume\n", f);
	if (s.reference_metrics != NULL) {
		q = quote_word(s.reference_metrics, 0);
		fprintf(f, "kd_no_link %s\n", q);
		free(q);
	}
	fputs("\n", f);
	fclose(f);
	return text;
}

char *
dossier_resume_procedure(const struct kd_ctx *ctx)
{
	struct resume_spec s;
	char why[512], *text = NULL, *cfg, *q;
	const char *pa = NULL, *pb = NULL;
	json_t *c, *keys;
	size_t len = 0;
	FILE *f;

	if (resume_spec_parse(ctx->ref, &s, why, sizeof why) != 0 ||
	    (f = open_memstream(&text, &len)) == NULL)
		return NULL;
	fputs("\nstep \"7. the resume check: uninterrupted, interrupted, resumed, compared\"\n", f);
	/* the project's runs since the clone may have made one; the step
	 * defines kd_no_link again, so that it can be run alone */
	fputs(no_link_fn, f);
	fputs("if [ -L \"$WORK/kernodeck-resume\" ]; then echo \"kernodeck-resume: kernodeck-resume in "
	      "the work folder is a link: not read or written through\" >&2; exit 1; fi\n", f);
	fputs("A=\"$WORK/kernodeck-resume/uninterrupted\" B=\"$WORK/kernodeck-resume/interrupted\"\n"
	      "rm -rf \"$A\" \"$B\"\nmkdir -p \"$A\" \"$B\"\n", f);
	if (s.metrics_pattern != NULL) {
		/* the printed lines are the metrics: each run's output kept */
		pa = "$A.out";
		pb = "$B.out";
		fputs(": >\"$A.out\"; : >\"$B.out\"\n", f);
	}
	fprintf(f, "STEP=%lld OUT=\"$B\"\nCKPT=", s.interrupt_at);
	shell_word(f, s.checkpoint, 0);
	fputs("\n", f);
	fprintf(f, "STEPS=%lld OUT=\"$A\"\n", s.steps);
	run_line(f, s.run, pa, 0);
	if (s.kill) {
		fprintf(f, "STEPS=%lld OUT=\"$B\"\n", s.steps);
		run_line(f, s.run, pb, 1);
		fputs("pid=$!\n"
		      "while kill -0 \"$pid\" 2>/dev/null && ! [ -s \"$CKPT\" ]; do sleep 0.1; done\n"
		      "kill -KILL \"$pid\" 2>/dev/null || true\nwait \"$pid\" || true\n", f);
	} else {
		fprintf(f, "STEPS=%lld OUT=\"$B\"\n", s.interrupt_at);
		run_line(f, s.run, pb, 0);
	}
	fprintf(f, "STEPS=%lld OUT=\"$B\"\n", s.steps);
	run_line(f, s.resume, pb, 0);
	if (s.metrics_pattern != NULL) {
		fputs("export A_METRICS=\"$A.out\" B_METRICS=\"$B.out\"\n", f);
	} else {
		fputs("OUT=\"$A\"\nexport A_METRICS=", f);
		shell_word(f, s.metrics, 0);
		fputs("\nOUT=\"$B\"\nexport B_METRICS=", f);
		shell_word(f, s.metrics, 0);
		fputs("\n", f);
	}
	if (s.reference_metrics != NULL) {
		/* the reference machine's trajectory: in the checkout, else the dossier's copy */
		q = quote_word(s.reference_metrics, 0);
		fprintf(f, "REF_METRICS=%s\nkd_no_link \"$REF_METRICS\"\n"
			"[ -f \"$REF_METRICS\" ] || REF_METRICS=\"$DOSSIER/project/$REF_METRICS\"\n"
			"export REF_METRICS\n", q);
		free(q);
	}
	keys = json_array();
	for (size_t i = 0; i < s.nkeys; i++)
		json_array_append_new(keys, json_string(s.keys[i]));
	c = json_pack("{s:o, s:O, s:I, s:I}", "keys", keys, "rule", s.rule_tree,
		      "from", (json_int_t)(s.interrupt_at + 1), "to", (json_int_t)s.steps);
	if (s.metrics_pattern != NULL)
		json_object_set_new(c, "pattern", json_string(s.metrics_pattern));
	if (s.reference_metrics != NULL) {
		json_object_set_new(c, "reference", json_true());
		json_object_set(c, "reference_rule", (json_t *)s.reference_rule_tree);
	}
	cfg = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS);
	q = quote_word(cfg ? cfg : "{}", 0);
	fprintf(f, ".venv-rebuild/bin/python - %s <<'KD_RESUME'\n%sKD_RESUME\n", q, compare_py);
	free(q);
	free(cfg);
	json_decref(c);
	fclose(f);
	return text;
}
