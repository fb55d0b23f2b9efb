/*
 * dossier-text.c - README.md and procedure.sh of a dossier.
 *
 * The README is for a person who was not there: what was reproduced, the
 * five layers (what is kept, how it is checked after a rebuild, what this
 * run found), each stage's verdict and checks, every deviation with its
 * reason, the reference identity and whether the run is a variant.
 *
 * procedure.sh is the same sequence a person can run by hand in a clean
 * folder with bash: get the code at the recorded commit, check the data
 * digests, rebuild the venv with an explicit interpreter (never activated),
 * diagnose (pip check, the inventory, a computation on the expected device,
 * never falling back to the CPU), run the sample, reread its output and
 * compare it with the reference under the declared rule.  A credential
 * appears only as a required environment variable with how to obtain it.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernodeck/baseenv.h"
#include "kernodeck/ctx.h"
#include "kernodeck/dossier-creds.h"
#include "kernodeck/dossier-lock.h"
#include "kernodeck/dossier-guard.h"
#include "kernodeck/dossier-resume.h"
#include "kernodeck/dossier-text.h"
#include "kernodeck/fleet.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/quote.h"
#include "kernodeck/rebuild.h"
#include "kernodeck/reference.h"
#include "kernodeck/sha256sums.h"
#include "kernodeck/stage.h"
#include "kernodeck/yamlio.h"

/* ---- a growing string -------------------------------------------------- */

struct sb {
	char *s;
	size_t len, cap;
};

static void sb_printf(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
sb_put(struct sb *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 4096;
		while (c < b->len + n + 1)
			c *= 2;
		char *ns = realloc(b->s, c);
		if (ns == NULL)
			abort();
		b->s = ns;
		b->cap = c;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void
sb_puts(struct sb *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

static void
sb_printf(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	char small[512];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		sb_put(b, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (big == NULL)
		abort();
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb_put(b, big, (size_t)n);
	free(big);
}

/* A Markdown table cell: no line break, no bare '|'. */
static void
sb_cell(struct sb *b, const char *s)
{
	if (s == NULL || *s == '\0') {
		sb_puts(b, "-");
		return;
	}
	for (; *s; s++) {
		if (*s == '|')
			sb_puts(b, "\\|");
		else if (*s == '\n' || *s == '\r' || *s == '\t')
			sb_puts(b, " ");
		else
			sb_put(b, s, 1);
	}
}

static const char *
str_or(const json_t *root, const char *path, const char *dflt)
{
	const char *s = yamlio_get_str(root, path);

	return s != NULL && *s != '\0' ? s : dflt;
}

/* ---- summaries ---------------------------------------------------------- */

json_t *
dossier_variant(const struct kd_ctx *ctx)
{
	json_t *o = json_object(), *reasons = json_array();

	for (int i = 0; i < KD_NSTAGES; i++)
		for (size_t k = 0; k < ctx->state.st[i].ndevs; k++) {
			const struct kd_deviation *d = &ctx->state.st[i].devs[k];
			char buf[1200];
			if (!d->intentional)
				continue;
			snprintf(buf, sizeof buf, "%s/%s: %s", kd_stages[i]->id, d->check,
				 d->why ? d->why : "");
			json_array_append_new(reasons, json_string(buf));
		}
	/* inventory differences marked intentional in stage 4 (settings.variant) */
	if (json_is_true(yamlio_get(ctx->state.settings, "variant"))) {
		const json_t *d = yamlio_get(ctx->state.settings, "variant_differences"), *v;
		size_t i;
		json_array_foreach(d, i, v) {
			char buf[600];
			const char *n = json_is_string(v) ? json_string_value(v) :
				json_string_value(json_object_get(v, "name")) ?
				json_string_value(json_object_get(v, "name")) :
				json_string_value(json_object_get(v, "canonical_name"));
			snprintf(buf, sizeof buf, "contract: %s differs from the reference inventory "
				 "(marked intentional)", n ? n : "a package");
			json_array_append_new(reasons, json_string(buf));
		}
		if (json_array_size(d) == 0)
			json_array_append_new(reasons, json_string(
				"contract: inventory differences marked intentional"));
	}
	json_object_set_new(o, "variant", json_boolean(json_array_size(reasons) > 0));
	json_object_set_new(o, "reasons", reasons);
	return o;
}

/* ---- README.md ------------------------------------------------------------- */

static void
stage_counts(const struct kd_ctx *ctx, int i, struct sb *b)
{
	const struct kd_stage_state *ss = &ctx->state.st[i];
	size_t pass = 0, fail = 0, dev = 0, warn = 0;

	for (size_t k = 0; k < ss->rows.n; k++) {
		const struct kd_row *r = &ss->rows.v[k];
		if (r->status == KD_R_PASS)
			pass++;
		else if (r->status == KD_R_WARN)
			warn++;
		else if (r->status == KD_R_FAIL) {
			if (stage_find_deviation(&ctx->state, i, r->id))
				dev++;
			else
				fail++;
		}
	}
	sb_printf(b, "%s %s (%zu passed", kd_stages[i]->title, kd_status_name(ss->status), pass);
	if (fail)
		sb_printf(b, ", %zu failed", fail);
	if (dev)
		sb_printf(b, ", %zu deviated", dev);
	if (warn)
		sb_printf(b, ", %zu warnings", warn);
	sb_puts(b, ")");
}

/* Literal text, then (when key is set) the reference's value at key, or
 * dflt ("-" when NULL), as a table cell; a list ends at text NULL. */
struct piece {
	const char *text, *key, *dflt;
};

static void
sb_pieces(struct sb *b, const json_t *ref, const struct piece *p)
{
	for (; p->text != NULL; p++) {
		sb_puts(b, p->text);
		if (p->key != NULL)
			sb_cell(b, str_or(ref, p->key, p->dflt ? p->dflt : "-"));
	}
}

/* The "this run" cell of a layer checked by stage i (and j, when j >= 0),
 * and the end of the row. */
static void
run_cell(const struct kd_ctx *ctx, struct sb *b, int i, int j)
{
	stage_counts(ctx, i, b);
	if (j >= 0) {
		sb_puts(b, "; ");
		stage_counts(ctx, j, b);
	}
	sb_puts(b, " |\n");
}

static const struct piece python_row[] = {
	{ "| Python and packages | interpreter ", "python.interpreter", NULL },
	{ " (Python ", "python.version", NULL },
	{ "); install procedure; `requirements-rebuild.txt`; reference inventory ",
	  "python.inventory", NULL },
	{ " | a fresh venv built with the explicit interpreter; `pip freeze --all` "
	  "compared package by package with the reference inventory; `pip check` "
	  "(stages 3, 4) | ", NULL, NULL },
	{ NULL, NULL, NULL },
};

static const struct piece system_row[] = {
	{ "| System and backend | ", "system.os", NULL },
	{ ", ", "system.arch", NULL },
	{ ", GPU ", "system.gpu_model", "none" },
	{ ", driver ", "system.driver", "none" },
	{ ", backend ", "system.backend", NULL },
	{ " | the system chain read again (stage 2); a computation on the expected "
	  "device compared with the CPU, never falling back to it (stage 5) | ", NULL, NULL },
	{ NULL, NULL, NULL },
};

/* the result row, around its shape */
static const struct piece result_row[] = {
	{ "| Result | ", "result.format", NULL },
	{ " in ", "result.outputs", NULL },
	{ ", shape ", NULL, NULL },
	{ NULL, NULL, NULL },
};

static const struct piece result_row2[] = {
	{ ", ", "result.dtype", NULL },
	{ "; reference output ", "result.example.path", NULL },
	{ "; rule: ", "result.rule.kind", NULL },
	{ NULL, NULL, NULL },
};

/* The table of the five layers: what is kept, how it is checked after a
 * rebuild, and what this run's stages found. */
static void
layers_table(const struct kd_ctx *ctx, struct sb *b)
{
	const json_t *ref = ctx->ref;
	const json_t *params = yamlio_get(ref, "code.params"), *data = yamlio_get(ref, "data");
	const json_t *shape = yamlio_get(ref, "result.shape");
	char *shp = shape ? json_dumps(shape, JSON_COMPACT) : NULL;
	int si = stage_pos(&kd_stage_sample);

	sb_puts(b, "| layer | what is kept | how it is checked after a rebuild | this run |\n"
		"|---|---|---|---|\n");
	/* code and parameters */
	sb_puts(b, "| Code and parameters | commit `");
	sb_cell(b, str_or(ref, "code.commit", "?"));
	sb_puts(b, "` (branch ");
	sb_cell(b, str_or(ref, "code.branch", "-"));
	sb_puts(b, reference_remote(ref) ? ") of " : ") of the local repository ");
	sb_cell(b, reference_remote(ref) ? reference_remote(ref) : ctx->project_dir);
	sb_printf(b, "; entry point and %zu parameter file(s) with SHA-256 | ",
		  json_array_size(params));
	sb_puts(b, "the work tree is at the commit and clean; each parameter file hashes to "
		"its digest (stage 1) | ");
	run_cell(ctx, b, 0, -1);
	/* data and weights */
	sb_printf(b, "| Data and weights | %zu item(s): path or URL, SHA-256, size, version, "
		  "provenance, access (never a secret) | each local item hashes to its digest "
		  "(folders: digest of their sorted manifest); URLs answer with the recorded "
		  "size (stage 1) | ", json_array_size(data));
	run_cell(ctx, b, 0, -1);
	sb_pieces(b, ref, python_row);
	run_cell(ctx, b, 2, 3);
	sb_pieces(b, ref, system_row);
	run_cell(ctx, b, 1, 4);
	sb_pieces(b, ref, result_row);
	sb_cell(b, shp);
	sb_pieces(b, ref, result_row2);
	if (yamlio_get(ref, "result.rule.atol"))
		sb_printf(b, " atol %g rtol %g",
			  json_number_value(yamlio_get(ref, "result.rule.atol")),
			  json_number_value(yamlio_get(ref, "result.rule.rtol")));
	sb_puts(b, " | the entry point run on the sample; outputs reread: count, shape, dtype, "
		"finite values, identifiers, and the comparison with the reference output "
		"(stage 6) | ");
	if (si >= 0) {
		stage_counts(ctx, si, b);
		for (size_t k = 0; k < ctx->state.st[si].rows.n; k++) {
			const struct kd_row *r = &ctx->state.st[si].rows.v[k];
			if (strstr(r->id, "compar") != NULL && r->observed) {
				sb_puts(b, "; ");
				sb_cell(b, r->observed);
				break;
			}
		}
	}
	sb_puts(b, " |\n");
	free(shp);
}

static void
stage_section(const struct kd_ctx *ctx, int i, struct sb *b)
{
	const struct kd_stage_state *ss = &ctx->state.st[i];

	sb_printf(b, "\n### %d. %s — %s\n\n", i + 1, kd_stages[i]->title,
		  kd_status_name(ss->status));
	if (ss->checked_at)
		sb_printf(b, "Checked %s against reference %.12s.\n\n", ss->checked_at,
			  ss->checked_ref[0] ? ss->checked_ref : "(none)");
	if (ss->rows.n == 0) {
		sb_puts(b, "No check recorded.\n");
		return;
	}
	sb_puts(b, "| status | check | observed | expected |\n|---|---|---|---|\n");
	for (size_t k = 0; k < ss->rows.n; k++) {
		const struct kd_row *r = &ss->rows.v[k];
		const struct kd_deviation *d = stage_find_deviation(&ctx->state, i, r->id);
		sb_puts(b, "| ");
		sb_puts(b, d && r->status == KD_R_FAIL ? "deviation" : kd_rstat_name(r->status));
		sb_puts(b, " | ");
		sb_cell(b, r->label && strcmp(r->label, r->id) ? r->label : r->id);
		sb_puts(b, " (`");
		sb_cell(b, r->id);
		sb_puts(b, "`) | ");
		sb_cell(b, r->observed);
		sb_puts(b, " | ");
		sb_cell(b, r->expected);
		sb_puts(b, " |\n");
	}
	for (size_t k = 0; k < ss->nnotes; k++) {
		sb_printf(b, "\nNote (%s, %s): ", ss->notes[k].author ? ss->notes[k].author : "?",
			  ss->notes[k].time ? ss->notes[k].time : "?");
		sb_cell(b, ss->notes[k].text);
		sb_puts(b, "\n");
	}
}

/* At the top of the README: a commit that a clone of the remote will not
 * have (stage 1's code.pushed or code.remote warning), with what to do. */
static void
unfetchable(const struct kd_ctx *ctx, const json_t *tree, struct sb *b)
{
	const char *why = yamlio_get_str(tree, "code.unfetchable");

	if (why == NULL)
		return;
	sb_puts(b, "**The recorded commit `");
	sb_cell(b, str_or(ctx->ref, "code.commit", "?"));
	sb_puts(b, "` cannot be fetched from ");
	sb_cell(b, reference_remote(ctx->ref) ? reference_remote(ctx->ref) : "any remote");
	sb_puts(b, "** (stage 1: ");
	sb_cell(b, why);
	sb_puts(b, ").  Push it (`git push`) before handing this dossier on, or replay with "
		"a copy of the repository that has it: `kernodeck replay DOSSIER --repo PATH` "
		"or `REPO=PATH bash procedure.sh`.\n\n");
}

/* The origin of one package as a table cell: "find-links `wheels`",
 * "system: Debian python3-torch 1.13.1+dfsg-4", ... */
static void
origin_cell(struct sb *b, const json_t *o)
{
	const json_t *pv = json_object_get(o, "provider");
	const char *kind = json_string_value(json_object_get(pv, "kind"));
	const char *pk = json_string_value(json_object_get(pv, "package"));

	sb_cell(b, json_string_value(json_object_get(o, "origin")));
	if (pk != NULL) {
		sb_puts(b, strcmp(kind, "debian") == 0 ? ": Debian " : ": conda ");
		sb_cell(b, pk);
		sb_puts(b, " ");
		sb_cell(b, str_or(pv, "version", "?"));
	} else if (json_string_value(json_object_get(o, "source")) != NULL) {
		sb_puts(b, " `");
		sb_cell(b, json_string_value(json_object_get(o, "source")));
		sb_puts(b, "`");
	}
	if (json_string_value(json_object_get(o, "commit")) != NULL) {
		sb_puts(b, " at ");
		sb_cell(b, json_string_value(json_object_get(o, "commit")));
	}
}

/* "Python and packages": each distribution, its version, origin and digest
 * (rebuild.yaml's origins), and the lock the dossier carries. */
static void
packages_table(const struct kd_ctx *ctx, const json_t *tree, struct sb *b)
{
	const json_t *og = json_object_get(tree, "origins"), *o, *v;
	json_t *folders;
	size_t i, k;

	if (!json_is_array(og))
		return;
	sb_puts(b, "\n## Python and packages\n\n"
		"Where each distribution of the rebuilt venv came from, from pip's own "
		"installation report (`kernodeck/" REBUILD_REPORT "`); what pip did not install "
		"names its provider.  The lock is `pylock.toml` (PEP 751) and "
		"`requirements-lock.txt` (pip's hash-checking form); replay installs it.\n\n"
		"| package | version | origin | digest |\n|---|---|---|---|\n");
	json_array_foreach(og, i, o) {
		const char *sha = json_string_value(json_object_get(o, "sha256"));
		sb_puts(b, "| ");
		sb_cell(b, str_or(o, "name", "?"));
		sb_puts(b, " | ");
		sb_cell(b, str_or(o, "version", "?"));
		sb_puts(b, " | ");
		origin_cell(b, o);
		sb_puts(b, " | ");
		if (sha != NULL)
			sb_printf(b, "`sha256:%s`", sha);
		else
			sb_puts(b, json_object_get(o, "provider") ? "provided" : "none recorded");
		sb_puts(b, " |\n");
	}
	/* a find-links folder outside the project: to be provided */
	folders = dossier_lock_folders(ctx->project_dir, og);
	json_array_foreach(folders, i, o) {
		if (json_object_get(o, "path") != NULL)
			continue;
		sb_puts(b, "\nTo provide where the lock is installed (`kernodeck replay --find-links "
			"DIR`, `FIND_LINKS=DIR bash procedure.sh`): the find-links folder `");
		sb_cell(b, str_or(o, "folder", "?"));
		sb_puts(b, "` of the building machine, outside the project, which held");
		json_array_foreach(json_object_get(o, "files"), k, v) {
			sb_puts(b, k ? ", `" : " `");
			sb_cell(b, json_string_value(v));
			sb_puts(b, "`");
		}
		sb_puts(b, ".\n");
	}
	json_decref(folders);
}

char *
dossier_readme(const struct kd_ctx *ctx, const json_t *tree)
{
	struct sb b = {0};
	const char *slash = strrchr(ctx->project_dir, '/');
	const json_t *var = json_object_get(tree, "variant"), *devs = json_object_get(tree, "deviations");
	const json_t *creds = json_object_get(tree, "credentials"), *v;
	size_t i;

	sb_printf(&b, "# Dossier: %s\n\n", slash ? slash + 1 : ctx->project_dir);
	sb_printf(&b, "Written by kernodeck %s on %s from the project folder `%s`.\n\n",
		  PACKAGE_VERSION, json_string_value(json_object_get(tree, "created")),
		  ctx->project_dir);
	unfetchable(ctx, tree, &b);
	sb_puts(&b, "## What was reproduced\n\n");
	sb_puts(&b, "Goal: ");
	sb_cell(&b, str_or(ctx->ref, "goal", "not stated"));
	sb_puts(&b, ".  Entry point: `");
	{
		const json_t *ep = yamlio_get(ctx->ref, "code.entry_point");
		json_array_foreach(ep, i, v) {
			if (i)
				sb_puts(&b, " ");
			sb_cell(&b, json_string_value(v));
		}
	}
	sb_puts(&b, "`.  Business criterion: ");
	sb_cell(&b, str_or(ctx->ref, "result.criterion", "not stated"));
	sb_puts(&b, ".\n\n");
	sb_printf(&b, "Reference identity: `%s` (SHA-256 of the canonical reference.yaml).\n\n",
		  ctx->ref_id);
	if (json_is_true(json_object_get(var, "variant"))) {
		sb_puts(&b, "**This run is a variant of the reference**: ");
		json_array_foreach(json_object_get(var, "reasons"), i, v) {
			if (i)
				sb_puts(&b, "; ");
			sb_cell(&b, json_string_value(v));
		}
		sb_puts(&b, ".\n\n");
	} else {
		sb_puts(&b, "This run is not a variant: no intentional difference was recorded.\n\n");
	}
	sb_puts(&b, "## The five layers\n\n");
	layers_table(ctx, &b);
	packages_table(ctx, tree, &b);
	{
		char *rs = dossier_resume_readme(ctx);
		if (rs != NULL) {
			sb_puts(&b, "\n");
			sb_puts(&b, rs);
			free(rs);
		}
	}
	sb_puts(&b, "\n## Verdicts\n\n| stage | status | checked at |\n|---|---|---|\n");
	for (int k = 0; k < KD_NSTAGES; k++) {
		int self = kd_stages[k] == &kd_stage_dossier;
		sb_printf(&b, "| %d. %s | %s | %s |\n", k + 1, kd_stages[k]->title,
			  self ? "this dossier (scanned clean, SHA256SUMS)" :
			  kd_status_name(ctx->state.st[k].status),
			  self ? json_string_value(json_object_get(tree, "created")) :
			  ctx->state.st[k].checked_at ? ctx->state.st[k].checked_at : "-");
	}
	{
		char *fleet = fleet_markdown(ctx->state_dir);   /* kernodeck fleet ran here */
		if (fleet != NULL)
			sb_puts(&b, fleet);
		free(fleet);
	}
	sb_puts(&b, "\n## Deviations\n\n");
	size_t current = 0;
	json_array_foreach(devs, i, v)
		current += !json_is_false(json_object_get(v, "needed"));
	if (current == 0)
		sb_puts(&b, "None: every check passed.\n");
	else
		sb_puts(&b, "| stage | check | what differs | why | kind | by, when |\n"
			"|---|---|---|---|---|---|\n");
	json_array_foreach(devs, i, v) {
		if (json_is_false(json_object_get(v, "needed")))
			continue;
		sb_puts(&b, "| ");
		sb_cell(&b, json_string_value(json_object_get(v, "stage")));
		sb_puts(&b, " | `");
		sb_cell(&b, json_string_value(json_object_get(v, "check")));
		sb_puts(&b, "` | ");
		sb_cell(&b, json_string_value(json_object_get(v, "what")));
		sb_puts(&b, " | ");
		sb_cell(&b, json_string_value(json_object_get(v, "why")));
		sb_puts(&b, json_is_true(json_object_get(v, "intentional")) ?
			" | intentional (variant) | " : " | to fix | ");
		sb_cell(&b, json_string_value(json_object_get(v, "author")));
		sb_puts(&b, ", ");
		sb_cell(&b, json_string_value(json_object_get(v, "time")));
		sb_puts(&b, " |\n");
	}
	if (current < json_array_size(devs)) {
		sb_puts(&b, "\nNo longer needed (recorded on checks that pass now; "
			"`kernodeck deviate DIR --stage ID --check CHECK --withdraw` takes one back):");
		json_array_foreach(devs, i, v) {
			if (!json_is_false(json_object_get(v, "needed")))
				continue;
			sb_puts(&b, " `");
			sb_cell(&b, json_string_value(json_object_get(v, "stage")));
			sb_puts(&b, "/");
			sb_cell(&b, json_string_value(json_object_get(v, "check")));
			sb_puts(&b, "`");
		}
		sb_puts(&b, ".\n");
	}
	{
		char *cr = dossier_creds_readme(creds);   /* dossier-creds.c */
		if (cr != NULL)
			sb_puts(&b, cr);
		free(cr);
	}
	sb_puts(&b, "\n## Rebuilding from this dossier\n\n"
		"- By hand: `bash procedure.sh WORKDIR` (rebuild, diagnose, run the sample, reread "
		"the output; explicit interpreter paths, no activation).\n"
		"- With kernodeck: `kernodeck replay DOSSIER --workdir WORKDIR` (verifies "
		"SHA256SUMS, shows every command and asks once, then runs stages 2 to 6).\n"
		"- Integrity: `sha256sum -c SHA256SUMS` in this folder.\n");
	if (yamlio_get_str(ctx->ref, "python.install.base") != NULL) {
		sb_puts(&b, "- Base environment: the venv was layered on `");
		sb_cell(&b, yamlio_get_str(ctx->ref, "python.install.base"));
		sb_puts(&b, "` (`python.install.base`): its interpreter made the venv, and its package "
			"folders are named in the venv's `" BASEENV_PTH "`, after the venv's own.  It "
			"must exist where the rebuild runs (`BASE=` in procedure.sh names another); "
			"its inventory is `kernodeck/" BASEENV_INVENTORY "`, and `kernodeck/rebuild.yaml` "
			"says which packages came from it.\n");
	}
	sb_puts(&b, "\n"
		"Files: `dossier.yaml` (everything, machine-readable), `data-references.yaml`, "
		"`project/` (the rebuild file and the reference inventory), `outputs/` (the "
		"outputs the sample read), `kernodeck/` (state, reference, observations of every "
		"stage, installed-after.txt, and in `logs/` the logs they name: the evidence of "
		"the verdicts, not the history).\n");
	sb_puts(&b, "\n## Checks of every stage\n");
	for (int k = 0; k < KD_NSTAGES; k++)
		stage_section(ctx, k, &b);
	return b.s;
}

/* ---- procedure.sh ----------------------------------------------------------- */

static const char reread_py[] =
	"import csv, json, math, os, struct, sys\n"
	"c = json.loads(sys.argv[1])\n"
	"c.setdefault('outputs', 'outputs')\n"
	"bad = []\n"
	"NPY = {'b1': ('?', 'bool'), 'i1': ('b', 'int8'), 'i2': ('h', 'int16'), 'i4': ('i', 'int32'),\n"
	"       'i8': ('q', 'int64'), 'u1': ('B', 'uint8'), 'u2': ('H', 'uint16'), 'u4': ('I', 'uint32'),\n"
	"       'u8': ('Q', 'uint64'), 'f2': ('e', 'float16'), 'f4': ('f', 'float32'),\n"
	"       'f8': ('d', 'float64')}\n"
	"ST = {'BOOL': ('?', 'bool'), 'I8': ('b', 'int8'), 'I16': ('h', 'int16'), 'I32': ('i', 'int32'),\n"
	"      'I64': ('q', 'int64'), 'U8': ('B', 'uint8'), 'U16': ('H', 'uint16'), 'U32': ('I', 'uint32'),\n"
	"      'U64': ('Q', 'uint64'), 'F16': ('e', 'float16'), 'BF16': ('bf', 'bfloat16'),\n"
	"      'F32': ('f', 'float32'), 'F64': ('d', 'float64')}\n"
	"def prod(s):\n"
	"    n = 1\n"
	"    for x in s:\n"
	"        n *= x\n"
	"    return n\n"
	"def unpack(code, order, raw, n, path):\n"
	"    if code == 'bf':   # bfloat16: the high half of a float32\n"
	"        h = struct.unpack(order + str(n) + 'H', raw)\n"
	"        return [struct.unpack('<f', struct.pack('<I', x << 16))[0] for x in h]\n"
	"    if len(raw) != n * struct.calcsize(code):\n"
	"        sys.exit('%s: truncated' % path)\n"
	"    return [float(x) for x in struct.unpack(order + str(n) + code, raw)]\n"
	"def table(shape, vals, ids=None, cols=None):\n"
	"    rows = shape[0] if shape else 1\n"
	"    return {'shape': list(shape), 'rows': rows, 'cols': prod(shape[1:]), 'v': vals,\n"
	"            'ids': ids, 'colnames': cols}\n"
	"def load_npy(path):\n"
	"    import ast\n"
	"    with open(path, 'rb') as f:\n"
	"        if f.read(6) != b'\\x93NUMPY':\n"
	"            sys.exit('%s: not an .npy file' % path)\n"
	"        major = f.read(2)[0]\n"
	"        hl = struct.unpack('<H' if major == 1 else '<I', f.read(2 if major == 1 else 4))[0]\n"
	"        h = ast.literal_eval(f.read(hl).decode('latin1'))\n"
	"        d, shape = h['descr'], tuple(h['shape'])\n"
	"        if d[1:] not in NPY:\n"
	"            sys.exit('%s: dtype %s is not read by this script' % (path, d))\n"
	"        code, name = NPY[d[1:]]\n"
	"        v = unpack(code, '>' if d[0] == '>' else '<', f.read(), prod(shape), path) \\\n"
	"            if prod(shape) else []\n"
	"        if h['fortran_order'] and len(shape) >= 2:\n"
	"            strides = [prod(shape[:i]) for i in range(len(shape))]\n"
	"            def idx(k):\n"
	"                out = 0\n"
	"                for i in range(len(shape) - 1, -1, -1):\n"
	"                    out += (k % shape[i]) * strides[i]\n"
	"                    k //= shape[i]\n"
	"                return out\n"
	"            v = [v[idx(k)] for k in range(len(v))]\n"
	"    t = table(shape, v)\n"
	"    t['dtype'] = name\n"
	"    return t\n"
	"def load_safetensors(path, want):\n"
	"    with open(path, 'rb') as f:\n"
	"        n = struct.unpack('<Q', f.read(8))[0]\n"
	"        h = json.loads(f.read(n))\n"
	"        base = 8 + n\n"
	"        h.pop('__metadata__', None)\n"
	"        if not h:\n"
	"            sys.exit('%s: no tensor in the file' % path)\n"
	"        name = want or min(h, key=lambda k: h[k]['data_offsets'][0])\n"
	"        if name not in h:\n"
	"            sys.exit('%s: no tensor %s (result.tensor)' % (path, name))\n"
	"        e = h[name]\n"
	"        if e['dtype'] not in ST:\n"
	"            sys.exit('%s: dtype %s is not read by this script' % (path, e['dtype']))\n"
	"        code, dname = ST[e['dtype']]\n"
	"        b0, b1 = e['data_offsets']\n"
	"        f.seek(base + b0)\n"
	"        v = unpack(code, '<', f.read(b1 - b0), prod(e['shape']), path)\n"
	"    t = table(tuple(e['shape']), v)\n"
	"    t['dtype'] = dname\n"
	"    return t\n"
	"def cell(x):\n"
	"    if x is None:\n"
	"        return float('nan')\n"
	"    if isinstance(x, bool):\n"
	"        return float(x)\n"
	"    if isinstance(x, (int, float)):\n"
	"        return float(x)\n"
	"    try:\n"
	"        return float(str(x).strip())\n"
	"    except ValueError:\n"
	"        return str(x)\n"
	"def load_rows(path, header, rows, idcol):\n"
	"    if idcol is not None and idcol not in header:\n"
	"        sys.exit('%s: no column or key %s for the identifiers' % (path, idcol))\n"
	"    cols = [h for h in header if h != idcol]\n"
	"    ids = [str(r[idcol]) for r in rows] if idcol is not None else None\n"
	"    vals = [cell(r[h]) for r in rows for h in cols]\n"
	"    t = table((len(rows), len(cols)), vals, ids, cols)\n"
	"    t['dtype'] = 'mixed' if any(isinstance(x, str) for x in vals) else 'number'\n"
	"    return t\n"
	"def load_csv(path, idcol):\n"
	"    with open(path, newline='', encoding='utf-8') as f:\n"
	"        r = list(csv.reader(f))\n"
	"    if not r:\n"
	"        sys.exit('%s: empty, no header row' % path)\n"
	"    header, body = r[0], r[1:]\n"
	"    rows = []\n"
	"    for i, row in enumerate(body):\n"
	"        if len(row) != len(header):\n"
	"            sys.exit('%s:%d: %d fields, the header has %d' % (path, i + 2, len(row), len(header)))\n"
	"        d = dict(zip(header, row))\n"
	"        if idcol is not None:\n"
	"            d[idcol] = row[header.index(idcol)]\n"
	"        rows.append(d)\n"
	"    return load_rows(path, header, rows, idcol)\n"
	"def load_jsonl(path, idcol):\n"
	"    rows, header = [], None\n"
	"    with open(path, encoding='utf-8') as f:\n"
	"        for i, line in enumerate(f):\n"
	"            if not line.strip():\n"
	"                continue\n"
	"            o, flat = json.loads(line), {}\n"
	"            for k, x in o.items():\n"
	"                if isinstance(x, list):\n"
	"                    for j, y in enumerate(x):\n"
	"                        flat['%s[%d]' % (k, j)] = y\n"
	"                else:\n"
	"                    flat[k] = x\n"
	"            if header is None:\n"
	"                header = list(flat)\n"
	"            elif sorted(flat) != sorted(header):\n"
	"                sys.exit('%s:%d: not the keys of the first line' % (path, i + 1))\n"
	"            rows.append(flat)\n"
	"    return load_rows(path, header or [], rows, idcol)\n"
	"def load(path, fmt):\n"
	"    if fmt is None:\n"
	"        fmt = {'.npy': 'npy', '.safetensors': 'safetensors', '.csv': 'csv', '.jsonl': 'jsonl',\n"
	"               '.ndjson': 'jsonl'}.get(os.path.splitext(path)[1])\n"
	"    if fmt == 'npy':\n"
	"        return load_npy(path)\n"
	"    if fmt == 'safetensors':\n"
	"        return load_safetensors(path, c.get('tensor'))\n"
	"    if fmt == 'csv':\n"
	"        return load_csv(path, c.get('id_column'))\n"
	"    if fmt == 'jsonl':\n"
	"        return load_jsonl(path, c.get('id_column'))\n"
	"    sys.exit('%s: unknown output format %s (npy, safetensors, csv or jsonl)' % (path, fmt))\n"
	"fmt = c.get('format')\n"
	"files = c.get('files')\n"
	"if not files:\n"
	"    ext = {'npy': ('.npy',), 'safetensors': ('.safetensors',), 'csv': ('.csv',),\n"
	"           'jsonl': ('.jsonl', '.ndjson')}.get(fmt, ())\n"
	"    files = sorted(f for f in os.listdir(c.get('outputs')) if f.endswith(ext) and f[0] != '.') \\\n"
	"        if os.path.isdir(c.get('outputs')) else []\n"
	"if c.get('count') is not None and len(files) != c.get('count'):\n"
	"    bad.append('%d output files, expected %d' % (len(files), c.get('count')))\n"
	"main = None\n"
	"for f in files:\n"
	"    p = os.path.join(c.get('outputs'), f)\n"
	"    if not os.path.isfile(p):\n"
	"        here = sorted(os.listdir(c.get('outputs'))) if os.path.isdir(c.get('outputs')) else []\n"
	"        bad.append('%s is missing (the folder holds: %s)' % (p, ', '.join(here) or 'nothing'))\n"
	"        continue\n"
	"    t = load(p, fmt)\n"
	"    print('output %s: dtype %s, shape %s' % (p, t['dtype'], t['shape']))\n"
	"    main = main or t\n"
	"if main is None:\n"
	"    sys.exit('reread: ' + '; '.join(bad or ['no output file was read']))\n"
	"out = main['v']\n"
	"if c.get('shape') is not None:\n"
	"    want = c.get('shape')\n"
	"    if len(want) != len(main['shape']) or any(w not in (None, -1) and w != s\n"
	"                                               for w, s in zip(want, main['shape'])):\n"
	"        bad.append('shape %s, expected %s' % (main['shape'], want))\n"
	"dt = c.get('dtype')\n"
	"if dt:\n"
	"    dt = {'f2': 'float16', 'f4': 'float32', 'f8': 'float64', 'i4': 'int32', 'i8': 'int64',\n"
	"          'half': 'float16', 'float': 'float32', 'double': 'float64'}.get(dt, dt)\n"
	"    seen = main['dtype']\n"
	"    fits = seen == dt or (seen == 'number' and dt.startswith(('float', 'int', 'uint', 'number')))\n"
	"    if not fits:\n"
	"        bad.append('dtype %s, expected %s' % (seen, dt))\n"
	"nonfinite = sum(1 for x in out if isinstance(x, float) and not math.isfinite(x))\n"
	"print('non-finite values: %d' % nonfinite)\n"
	"if c.get('finite') and nonfinite:\n"
	"    bad.append('%d non-finite values' % nonfinite)\n"
	"refids = None\n"
	"if c.get('ids_reference'):\n"
	"    refids = [l.strip() for l in open(c.get('ids_reference'), encoding='utf-8') if l.strip()]\n"
	"    if c.get('ids_file'):\n"
	"        ids = [l.strip() for l in open(c.get('ids_file'), encoding='utf-8') if l.strip()]\n"
	"    else:\n"
	"        ids = main['ids']\n"
	"    if ids is not None:\n"
	"        same = ids == refids if c.get('order') != 'set' else sorted(ids) == sorted(refids)\n"
	"        print('identifiers: %d output, %d input, %s' % (len(ids), len(refids),\n"
	"                                                       'match' if same else 'DIFFER'))\n"
	"        if not same:\n"
	"            bad.append('identifiers differ from the input')\n"
	"r = c.get('rule') or {}\n"
	"if c.get('example'):\n"
	"    ex = load(c.get('example'), None)\n"
	"    ref = ex['v']\n"
	"    if main['ids'] is not None and ex['ids'] is not None:\n"
	"        # tables carry their ids: compare row with row of the same id\n"
	"        k = main['cols']\n"
	"        at = {i: n for n, i in enumerate(ex['ids'])}\n"
	"        if sorted(at) != sorted(main['ids']) or ex['cols'] != k:\n"
	"            bad.append('the output rows are not those of the reference output')\n"
	"            ref = None\n"
	"        else:\n"
	"            ref = [x for i in main['ids'] for x in ex['v'][at[i] * k:(at[i] + 1) * k]]\n"
	"    if ref is None:\n"
	"        pass\n"
	"    elif len(ref) != len(out):\n"
	"        bad.append('%d values, the reference has %d' % (len(out), len(ref)))\n"
	"    elif r.get('kind') in ('tolerance', 'exact'):\n"
	"        tol = r.get('kind') == 'tolerance'\n"
	"        atol = float(r['atol']) if tol else 0.0\n"
	"        rtol = float(r['rtol']) if tol else 0.0\n"
	"        nan_eq = bool(r.get('nan_equal'))\n"
	"        off, worst = 0, 0.0\n"
	"        for o, e in zip(out, ref):\n"
	"            if isinstance(o, str) or isinstance(e, str):\n"
	"                good = o == e\n"
	"            elif math.isnan(o) or math.isnan(e):\n"
	"                good = nan_eq and math.isnan(o) and math.isnan(e)\n"
	"            elif math.isinf(o) or math.isinf(e):\n"
	"                good = o == e\n"
	"            else:\n"
	"                good = abs(o - e) <= atol + rtol * abs(e)\n"
	"                worst = max(worst, abs(o - e))\n"
	"            off += not good\n"
	"        if tol:\n"
	"            print('comparison: |out - ref| <= %g + %g*|ref|: %d of %d out of tolerance, '\n"
	"                  'max abs error %.3g' % (atol, rtol, off, len(out), worst))\n"
	"        else:\n"
	"            print('comparison: exact: %d of %d differ' % (off, len(out)))\n"
	"        if off:\n"
	"            bad.append('%d values %s' % (off, 'out of tolerance' if tol else 'differ'))\n"
	"    elif r.get('kind') == 'metric':\n"
	"        m, k, n = r.get('metric'), max(main['cols'], 1), main['rows']\n"
	"        rows = [(out[i * k:(i + 1) * k], ref[i * k:(i + 1) * k]) for i in range(n)]\n"
	"        num = lambda x: not isinstance(x, str) and math.isfinite(x)\n"
	"        if m == 'cosine-min':\n"
	"            cos = []\n"
	"            for a, b in rows:\n"
	"                if not all(num(x) for x in a + b):\n"
	"                    cos.append(-math.inf)\n"
	"                    continue\n"
	"                na = math.sqrt(sum(x * x for x in a)); nb = math.sqrt(sum(x * x for x in b))\n"
	"                cos.append(sum(x * y for x, y in zip(a, b)) / (na * nb) if na and nb else 0.0)\n"
	"            got, what = (min(cos) if cos else math.inf), 'smallest cosine similarity'\n"
	"        elif m == 'exact-categories':\n"
	"            got = sum(1 for o, e in zip(out, ref) if o == e) / len(out) if out else 1.0\n"
	"            what = 'share of equal elements'\n"
	"        elif m == 'argmax-categories':\n"
	"            am = lambda v: max(range(len(v)), key=lambda j: v[j]) if v else -1\n"
	"            got = sum(1 for a, b in rows if am(a) == am(b)) / n if n else 1.0\n"
	"            what = 'share of rows with the same largest element'\n"
	"        else:\n"
	"            sys.exit('reread: metric %s is not known to this script' % m)\n"
	"        th = r.get('threshold')\n"
	"        th = float(th) if th is not None else 1.0\n"
	"        print('comparison: %s %.6f (threshold %g)' % (what, got, th))\n"
	"        if got < th:\n"
	"            bad.append('%s %.6f below the threshold %g' % (what, got, th))\n"
	"    else:\n"
	"        bad.append('no comparison rule declared (result.rule.kind)')\n"
	"if bad:\n"
	"    sys.exit('reread: ' + '; '.join(bad))\n"
	"print('reread: the output agrees with the reference')\n";

static const char probe_py[] =
	"import sys\n"
	"want = sys.argv[1]\n"
	"import torch\n"
	"print('torch %s, torch.version.cuda %s, torch.version.hip %s' % (torch.__version__,\n"
	"      torch.version.cuda, getattr(torch.version, 'hip', None)))\n"
	"dev = 'cpu'\n"
	"if want in ('cuda', 'rocm'):\n"
	"    if want == 'cuda' and not torch.version.cuda:\n"
	"        sys.exit('this torch is not a CUDA build: the expected GPU is not reachable')\n"
	"    if want == 'rocm' and not getattr(torch.version, 'hip', None):\n"
	"        sys.exit('this torch is not a ROCm build: the expected GPU is not reachable')\n"
	"    if not torch.cuda.is_available():\n"
	"        sys.exit('no %s device is visible: the computation is not run on the CPU instead' % want)\n"
	"    dev = 'cuda'\n"
	"elif want not in ('cpu', ''):\n"
	"    dev = want\n"
	"a = torch.arange(64 * 64, dtype=torch.float64).reshape(64, 64) / 4096.0\n"
	"ref = a @ a.t()\n"
	"out = (a.float().to(dev) @ a.float().t().to(dev)).to('cpu').double()\n"
	"err = (out - ref).abs().max().item()\n"
	"print('device %s: float32 matrix product, max abs error %.3g against float64 on the CPU' % (dev, err))\n"
	"if not err <= 1e-3 * ref.abs().max().item():\n"
	"    sys.exit('the computation on %s disagrees with the CPU' % dev)\n";

/* Is a data path a folder in the project now? */
static int
is_folder(const struct kd_ctx *ctx, const char *rel)
{
	struct stat st;
	char *p = rel[0] == '/' ? strdup(rel) : fsutil_join(ctx->project_dir, rel);
	int r = p != NULL && stat(p, &st) == 0 && S_ISDIR(st.st_mode);

	free(p);
	return r;
}

static void
contract_json(const struct kd_ctx *ctx, struct sb *b)
{
	json_t *c = json_object();
	const json_t *ref = ctx->ref;
	char *s, *q;

	json_object_set_new(c, "format", json_string(str_or(ref, "result.format", "")));
	json_object_set_new(c, "outputs", json_string(str_or(ref, "result.outputs", "outputs")));
	json_object_set_new(c, "files", json_deep_copy(yamlio_get(ref, "result.files")));
	json_object_set_new(c, "count", json_deep_copy(yamlio_get(ref, "result.count")));
	json_object_set_new(c, "tensor", json_deep_copy(yamlio_get(ref, "result.tensor")));
	json_object_set_new(c, "id_column", json_deep_copy(yamlio_get(ref, "result.ids.column") ?
				yamlio_get(ref, "result.ids.column") : yamlio_get(ref, "result.ids.key")));
	json_object_set_new(c, "shape", json_deep_copy(yamlio_get(ref, "result.shape")));
	json_object_set_new(c, "dtype", json_deep_copy(yamlio_get(ref, "result.dtype")));
	json_object_set_new(c, "finite", json_boolean(json_is_true(yamlio_get(ref, "result.finite"))));
	json_object_set_new(c, "ids_file", json_deep_copy(yamlio_get(ref, "result.ids.file")));
	json_object_set_new(c, "ids_reference",
			    json_deep_copy(yamlio_get(ref, "result.ids.reference")));
	json_object_set_new(c, "order", json_deep_copy(yamlio_get(ref, "result.ids.order")));
	json_object_set_new(c, "rule", json_deep_copy(yamlio_get(ref, "result.rule")));
	json_object_set_new(c, "example", json_deep_copy(yamlio_get(ref, "result.example.path")));
	s = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS);
	q = quote_word(s ? s : "{}", 0);
	sb_puts(b, q);
	free(q);
	free(s);
	json_decref(c);
}

/* BASE and PY when the rebuild is layered on a base environment: PY is
 * the base's interpreter (bin/python3 of a folder, or the file itself). */
static void
base_vars(struct sb *b, const struct kd_ctx *ctx, const char *base)
{
	char *abs = base[0] == '/' ? strdup(base) : fsutil_join(ctx->project_dir, base);
	char *q = quote_word(abs ? abs : base, 0);

	sb_printf(b, "\n# the base environment (python.install.base): its packages are seen by the\n"
		  "# rebuilt venv through a .pth file; override with BASE=/path/to/it\n"
		  "BASE=${BASE:-%s}\n"
		  "if [ -d \"$BASE\" ] && [ -x \"$BASE/bin/python3\" ]; then PY=${PY:-$BASE/bin/python3}\n"
		  "elif [ -d \"$BASE\" ]; then PY=${PY:-$BASE/bin/python}\n"
		  "else PY=${PY:-$BASE}; fi\n"
		  "base_query() {   # dirs | freeze: what the base's interpreter reports\n"
		  "\t\"$PY\" -s - \"$1\" <<'KD_BASE'\n%sKD_BASE\n}\n", q, baseenv_query_py);
	free(q);
	free(abs);
}

/* The layer: the base's package folders in the venv's .pth, and the
 * base's inventory compared with the one the dossier recorded. */
static void
base_layer(struct sb *b)
{
	sb_puts(b, "SITE=$(.venv-rebuild/bin/python -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])')\n"
		"{ echo \"# kernodeck: the package folders of the base environment $BASE\"; base_query dirs; } "
		"> \"$SITE/" BASEENV_PTH "\"\n"
		"base_query freeze > base-inventory.txt\n"
		"if [ -f \"$DOSSIER/kernodeck/" BASEENV_INVENTORY "\" ]; then\n"
		"\tdiff \"$DOSSIER/kernodeck/" BASEENV_INVENTORY "\" base-inventory.txt || echo \"the base "
		"environment differs from the one the dossier recorded (lines < dossier, > this machine)\"\n"
		"fi\n");
}

/* After the install of requirements-lock-direct.txt: each VCS package
 * (VCS+URL@COMMIT#egg=NAME) at its commit, as its direct_url.json says. */
static const char direct_py[] =
	"import json, re, sys\n"
	"from importlib import metadata\n"
	"bad = 0\n"
	"for line in open(sys.argv[1]):\n"
	"    m = re.match(r\"\\S+@([0-9a-f]{40})#egg=([A-Za-z0-9._-]+)\", line)\n"
	"    if not m:\n"
	"        continue\n"
	"    try:\n"
	"        got = json.loads(metadata.distribution(m[2]).read_text(\"direct_url.json\") or \"{}\")\n"
	"    except metadata.PackageNotFoundError:\n"
	"        got = {}\n"
	"    got = got.get(\"vcs_info\", {}).get(\"commit_id\")\n"
	"    if got != m[1]:\n"
	"        print(\"%s: installed at commit %s, the lock has %s\" % (m[2], got, m[1]), file=sys.stderr)\n"
	"        bad = 1\n"
	"    else:\n"
	"        print(\"%s: at commit %s\" % (m[2], got))\n"
	"sys.exit(bad)\n";

/* FL=(--find-links DIR...) for the lock's install: each folder of
 * FIND_LINKS (space-separated), else each recorded find-links folder
 * outside the project that the artefacts came from, when it is there; a
 * missing one stops the procedure naming its files. */
static void
lock_find_links(struct sb *b, const struct kd_ctx *ctx, const json_t *tree)
{
	json_t *folders = dossier_lock_folders(ctx->project_dir, json_object_get(tree, "origins"));
	const json_t *f, *v;
	size_t i, k;

	sb_puts(b, "\tFL=()\n\tfor d in ${FIND_LINKS:-}; do FL+=(--find-links \"$d\"); done\n");
	json_array_foreach(folders, i, f) {
		char *q;
		if (json_object_get(f, "path") != NULL)
			continue;
		q = quote_word(json_string_value(json_object_get(f, "folder")), 0);
		sb_printf(b, "\t# a find-links folder outside the project, its artefacts:");
		json_array_foreach(json_object_get(f, "files"), k, v)
			if (strpbrk(json_string_value(v), "\r\n") == NULL)
				sb_printf(b, " %s", json_string_value(v));
		sb_printf(b, "\n\tif [ -z \"${FIND_LINKS:-}\" ]; then\n"
			  "\t\tif [ -d %s ]; then FL+=(--find-links %s)\n"
			  "\t\telse echo \"the lock's artefacts from the find-links folder \"%s\" are not "
			  "here: set FIND_LINKS=DIR, the folder that holds them\" >&2; exit 1; fi\n"
			  "\tfi\n", q, q, q);
		free(q);
	}
	json_decref(folders);
}

char *
dossier_procedure(const struct kd_ctx *ctx, const json_t *tree)
{
	struct sb b = {0};
	const json_t *ref = ctx->ref, *v, *ep = yamlio_get(ref, "code.entry_point");
	const char *py = str_or(ref, "python.interpreter", ctx->python ? ctx->python : "/usr/bin/python3");
	const char *remote = reference_remote(ref);
	int ssp = json_is_true(yamlio_get(ref, "python.install.system_site_packages"));
	const char *base = str_or(ref, "python.install.base", NULL);
	char *q;
	size_t i;

	sb_puts(&b, "#!/bin/bash\n"
		"# procedure.sh - rebuild, diagnose, run the sample and reread the output,\n"
		"# by hand, in a clean folder.  Written by kernodeck with the dossier.\n"
		"#\n"
		"#   bash procedure.sh [WORKDIR]      (default: ./kernodeck-rebuild)\n"
		"#\n"
		"# Every command uses an explicit interpreter path; nothing is activated.\n"
		"# Override with PY=/path/to/python3, REPO=URL-or-folder, DATA=folder (where the\n"
		"# data and weights are when they moved), FIND_LINKS=folder (where the lock's\n"
		"# wheels from a find-links folder outside the project are).\n"
		"set -euo pipefail\n");
	{
		char *g = dossier_guard_procedure(tree, ref);
		if (g == NULL)
			abort();
		sb_puts(&b, g);
		free(g);
	}
	sb_puts(&b, "\n");
	{
		char *cp = dossier_creds_procedure(json_object_get(tree, "credentials"));
		if (cp != NULL)
			sb_puts(&b, cp);
		free(cp);
	}
	if (base != NULL) {
		base_vars(&b, ctx, base);
	} else {
		q = quote_word(py, 0);
		sb_printf(&b, "\nPY=${PY:-%s}\n", q);
		free(q);
	}
	sb_puts(&b, "DOSSIER=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\n");
	if (remote == NULL && json_is_true(json_object_get(tree, "relative"))) {
		/* no absolute path: the project is two folders above its dossier */
		sb_puts(&b, "REPO=${REPO:-\"$DOSSIER/../..\"}\n");
	} else {
		q = quote_word(remote ? remote : ctx->project_dir, 0);
		sb_printf(&b, "REPO=${REPO:-%s}\n", q);
		free(q);
	}
	q = quote_word(str_or(ref, "code.commit", "HEAD"), 0);
	sb_printf(&b, "COMMIT=%s\n", q);
	free(q);
	sb_puts(&b, "WORK=\"${1:-$PWD/kernodeck-rebuild}\"\n"
		"DATA=\"${DATA:-}\"\n"
		"step() { printf '\\n== %s\\n' \"$*\"; }\n\n");

	sb_puts(&b, "step \"1. the code at commit $COMMIT\"\n"
		"if [ -e \"$WORK\" ]; then echo \"$WORK exists: give a new folder\" >&2; exit 2; fi\n"
		"git clone --quiet --no-checkout \"$REPO\" \"$WORK\"\n"
		"git -C \"$WORK\" checkout --quiet --detach \"$COMMIT\"\n"
		"cd \"$WORK\"\n"
		"test \"$(git rev-parse HEAD)\" = \"$COMMIT\"\n\n");
	{
		char *rl = dossier_resume_links(ctx);
		if (rl != NULL) {
			sb_puts(&b, rl);
			free(rl);
		}
	}

	sb_puts(&b, "step \"2. data and weights: SHA-256, then put where the project reads them\"\n"
		"folder_digest() {   # kernodeck's digest of a folder: its sorted manifest\n"
		"\t(cd \"$1\" && find . -type f -printf '%P\\n' | LC_ALL=C sort | while IFS= read -r f; do\n"
		"\t\tprintf '%s  %s  %s\\n' \"$(sha256sum < \"$f\" | cut -d' ' -f1)\" \"$(stat -c %s \"$f\")\" \"$f\"\n"
		"\tdone) | sha256sum | cut -d' ' -f1\n"
		"}\n"
		"# PATH SHA256: the clone's own PATH, else $DATA/PATH, else $DATA/NAME (the last\n"
		"# part of PATH); verified, then put at PATH in the clone: a hard link, else a\n"
		"# reflink, else a copy.  A tracked file is never replaced.\n"
		"place_item() {\n"
		"\tlocal p=\"$1\" want=\"$2\" src=\"\" got how\n"
		"\t# in the clone, nothing on the way is a link (the project's own may point\n"
		"\t# anywhere): kernodeck replay refuses it too\n"
		"\tcase \"$p\" in /*) ;; *)\n"
		"\t\t(set -f; IFS=/; q=\"\"\n"
		"\t\tfor c in $p; do q=${q:+$q/}$c\n"
		"\t\t\tif [ -L \"$q\" ]; then echo \"$p: $q in the work folder is a link: not read "
		"or written through\" >&2; exit 1; fi\n"
		"\t\tdone) || exit 1 ;;\n"
		"\tesac\n"
		"\tcase \"$p\" in\n"
		"\t/*) set -- ${DATA:+\"$DATA/${p##*/}\"} \"$p\" ;;\n"
		"\t*) set -- \"$p\" ${DATA:+\"$DATA/$p\" \"$DATA/${p##*/}\"} ;;\n"
		"\tesac\n"
		"\tfor c in \"$@\"; do if [ -e \"$c\" ]; then src=$c; break; fi; done\n"
		"\tif [ -z \"$src\" ]; then echo \"$p: not found (looked for $*): set DATA= to the folder that holds it\" >&2; exit 1; fi\n"
		"\tif [ -d \"$src\" ]; then got=$(folder_digest \"$src\"); else got=$(sha256sum < \"$src\" | cut -d' ' -f1); fi\n"
		"\tif [ \"$got\" != \"$want\" ]; then echo \"$src: SHA-256 $got, expected $want\" >&2; exit 1; fi\n"
		"\tif [ \"$src\" = \"$p\" ] || [ \"${p#/}\" != \"$p\" ]; then echo \"$p: OK ($src)\"; return; fi\n"
		"\tmkdir -p \"$(dirname \"$p\")\"\n"
		"\tif [ -d \"$src\" ]; then\n"
		"\t\tif cp -al \"$src\" \"$p\" 2>/dev/null; then how=hard-linked\n"
		"\t\telif rm -rf \"$p\" && cp -a --reflink=always \"$src\" \"$p\" 2>/dev/null; then how=reflinked\n"
		"\t\telse rm -rf \"$p\"; cp -a \"$src\" \"$p\"; how=copied; fi\n"
		"\telif ln \"$src\" \"$p\" 2>/dev/null; then how=hard-linked\n"
		"\telif cp --reflink=always \"$src\" \"$p\" 2>/dev/null; then how=reflinked\n"
		"\telse cp \"$src\" \"$p\"; how=copied; fi\n"
		"\techo \"$p: OK ($src, $how)\"\n"
		"}\n");
	{
		int any = 0;
		json_array_foreach(yamlio_get(ref, "data"), i, v) {
			const char *p = json_string_value(json_object_get(v, "path"));
			const char *h = json_string_value(json_object_get(v, "sha256"));
			char *qp, *qh;
			if (p == NULL || h == NULL)
				continue;
			qp = quote_word(p, 0);
			qh = quote_word(h, 0);
			sb_printf(&b, "place_item %s %s%s\n", qp, qh,
				  is_folder(ctx, p) ? "   # a folder" : "");
			free(qp);
			free(qh);
			any = 1;
		}
		if (!any)
			sb_puts(&b, "echo '(no local data or weights item recorded)'\n");
	}

	sb_printf(&b, "\nstep \"3. rebuild: a fresh venv with $PY%s\"\n"
		  "%s\"$PY\" -m venv%s .venv-rebuild\n", base ? ", layered on the base environment "
		  "$BASE" : "", base ? "test -e \"$BASE\" || { echo \"the base environment $BASE is "
		  "missing\" >&2; exit 1; }\n" : "", ssp ? " --system-site-packages" : "");
	if (base != NULL)
		base_layer(&b);
	sb_printf(&b, ".venv-rebuild/bin/python -m pip --version\n"
		  "if [ -z \"${UNLOCKED:-}\" ] && [ -f \"$DOSSIER/requirements-lock.txt\" ]; then\n"
		  "\t# the lock: exactly the artefacts the rebuild installed, each checked by its\n"
		  "\t# digest, no resolution (UNLOCKED=1 resolves requirements-rebuild.txt again)\n");
	lock_find_links(&b, ctx, tree);
	sb_printf(&b, "\t.venv-rebuild/bin/python -m pip install --timeout 60 --retries 2 "
		  "--require-hashes --no-deps \"${FL[@]}\" -r \"$DOSSIER/requirements-lock.txt\"\n"
		  "\tif [ -f \"$DOSSIER/" DOSSIER_REQ_DIRECT "\" ]; then\n"
		  "\t\t# what the lock cannot hash: VCS checkouts at their commit, folders\n"
		  "\t\t.venv-rebuild/bin/python -m pip install --timeout 60 --retries 2 "
		  "--no-deps -r \"$DOSSIER/" DOSSIER_REQ_DIRECT "\"\n"
		  "\t\t.venv-rebuild/bin/python - \"$DOSSIER/" DOSSIER_REQ_DIRECT "\" <<'KD_DIRECT'\n"
		  "%s"
		  "KD_DIRECT\n"
		  "\tfi\n"
		  "else\n"
		  "\t.venv-rebuild/bin/python -m pip install --timeout 60 --retries 2 -r requirements-rebuild.txt\n"
		  "fi\n"
		  ".venv-rebuild/bin/python -m pip freeze --all > installed-after.txt\n", direct_py);

	sb_puts(&b, "\nstep \"4. diagnose: pip check, the inventory, a computation on the device\"\n"
		".venv-rebuild/bin/python -m pip check || echo \"pip check reported the problems above "
		"(the dossier's kernodeck/ records which were accepted)\"\n");
	{
		const char *inv = str_or(ref, "python.inventory", NULL);
		if (inv != NULL && sha256sums_path_safe(inv)) {
			q = quote_word(inv, 0);
			sb_printf(&b, "diff <(grep -v '^#' \"$DOSSIER/project/\"%s | LC_ALL=C sort -f) "
				  "<(LC_ALL=C sort -f installed-after.txt) "
				  "|| echo \"the inventory differs from the reference (lines < reference, > this machine)\"\n",
				  q);
			free(q);
		}
	}
	q = quote_word(str_or(ref, "system.backend", "cpu"), 0);
	sb_printf(&b, ".venv-rebuild/bin/python - %s <<'KD_PROBE'\n%sKD_PROBE\n", q, probe_py);
	free(q);

	q = quote_word(str_or(ref, "result.outputs", "outputs"), 0);
	sb_printf(&b, "\nstep \"5. run the sample\"\n"
		  "if [ -e %s ]; then mv %s %s.before-$(date +%%s); fi\n", q, q, q);
	free(q);
	json_array_foreach(ep, i, v) {
		const char *a = json_string_value(v);
		if (a == NULL)
			continue;
		if (i)
			sb_puts(&b, " ");
		if (i == 0 && (strcmp(a, "python") == 0 || strcmp(a, "python3") == 0)) {
			sb_puts(&b, ".venv-rebuild/bin/python");
		} else {
			q = quote_word(a, i == 0 ? QUOTE_FIRST : 0);
			sb_puts(&b, q);
			free(q);
		}
	}
	if (json_array_size(ep) == 0)
		sb_puts(&b, "echo 'no entry point recorded' >&2; exit 1");
	sb_puts(&b, "\n\nstep \"6. reread the output and compare it with the reference\"\n"
		".venv-rebuild/bin/python - ");
	contract_json(ctx, &b);
	sb_printf(&b, " <<'KD_REREAD'\n%sKD_REREAD\n", reread_py);
	{
		char *rs = dossier_resume_procedure(ctx);
		if (rs != NULL) {
			sb_puts(&b, rs);
			free(rs);
		}
	}
	sb_puts(&b, "\necho \"procedure.sh: done in $WORK\"\n");
	return b.s;
}

char *
dossier_procedure_of(const json_t *dy, const json_t *ref)
{
	struct kd_ctx fake;
	const char *local = yamlio_get_str(dy, "code.local_path");

	memset(&fake, 0, sizeof fake);
	fake.ref = (json_t *)ref;
	fake.project_dir = (char *)(local ? local : "");
	return dossier_procedure(&fake, dy);
}
