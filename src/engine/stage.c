/*
 * stage.c - the ordered stage table, statuses, rows, and the rules:
 * advance, deviation and stale (see include/kernodeck/stage.h).
 */
#include "config.h"

#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>

#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/logkeep.h"
#include "kernodeck/stage.h"
#include "kernodeck/state.h"

const struct kd_stage_ops *const kd_stages[KD_NSTAGES] = {
	&kd_stage_reference,
	&kd_stage_system,
	&kd_stage_rebuild,
	&kd_stage_contract,
	&kd_stage_compute,
	&kd_stage_sample,
	&kd_stage_dossier,
};

#define KD_ST_NAME(e, n, m) n,
#define KD_ST_MARK(e, n, m) m,
#define KD_R_NAME(e, n) n,
static const char *const status_names[] = { KD_STATUS_INFO(KD_ST_NAME) };
static const char status_marks[] = { KD_STATUS_INFO(KD_ST_MARK) };
static const char *const rstat_names[] = { KD_RSTAT_INFO(KD_R_NAME) };

const char *
kd_status_name(enum kd_status s)
{
	return (unsigned)s < KD_ST__COUNT ? status_names[s] : "?";
}

char
kd_status_mark(enum kd_status s)
{
	return (unsigned)s < KD_ST__COUNT ? status_marks[s] : '?';
}

int
kd_status_parse(const char *name, enum kd_status *out)
{
	for (int i = 0; i < KD_ST__COUNT; i++)
		if (name != NULL && strcmp(name, status_names[i]) == 0) {
			*out = (enum kd_status)i;
			return 0;
		}
	return -1;
}

const char *
kd_rstat_name(enum kd_rstat s)
{
	return (unsigned)s < KD_R__COUNT ? rstat_names[s] : "?";
}

int
kd_rstat_parse(const char *name, enum kd_rstat *out)
{
	for (int i = 0; i < KD_R__COUNT; i++)
		if (name != NULL && strcmp(name, rstat_names[i]) == 0) {
			*out = (enum kd_rstat)i;
			return 0;
		}
	return -1;
}

int
stage_index(const char *id)
{
	for (int i = 0; i < KD_NSTAGES; i++)
		if (id != NULL && strcmp(kd_stages[i]->id, id) == 0)
			return i;
	return -1;
}

int
stage_pos(const struct kd_stage_ops *ops)
{
	for (int i = 0; i < KD_NSTAGES; i++)
		if (kd_stages[i] == ops)
			return i;
	return -1;
}

const char *
stage_id_list(char *buf, size_t len, const char *sep)
{
	size_t n = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (int i = 0; i < KD_NSTAGES && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? sep : "", kd_stages[i]->id);
	return buf;
}

/* ---- rows ---- */

static char *
dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

struct kd_row *
kd_rows_add(struct kd_rows *rows, const char *id, enum kd_rstat st,
	    const char *label, const char *observed, const char *expected,
	    const char *evidence)
{
	struct kd_row *r;

	if (rows->n == rows->cap) {
		size_t nc = rows->cap ? rows->cap * 2 : 8;
		struct kd_row *nv = realloc(rows->v, nc * sizeof *nv);
		if (nv == NULL)
			abort();
		rows->v = nv;
		rows->cap = nc;
	}
	r = &rows->v[rows->n++];
	memset(r, 0, sizeof *r);
	r->id = strdup(id ? id : "");
	r->status = st;
	r->label = dup_or_null(label ? label : id);
	r->observed = dup_or_null(observed);
	r->expected = dup_or_null(expected);
	r->evidence = dup_or_null(evidence);
	return r;
}

struct kd_row *
kd_rows_addf(struct kd_rows *rows, const char *id, enum kd_rstat st,
	     const char *label, const char *expected, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return kd_rows_add(rows, id, st, label, buf, expected, NULL);
}

void
kd_row_set_error(struct kd_row *row, const char *first_error, const char *hint)
{
	if (first_error != NULL) {
		free(row->first_error);
		row->first_error = strdup(first_error);
	}
	if (hint != NULL) {
		free(row->hint);
		row->hint = strdup(hint);
	}
}

struct kd_row *
kd_rows_fail(struct kd_rows *rows, const char *id, const char *label, const char *observed,
	     const char *expected, const char *first_error, const char *hint)
{
	struct kd_row *r = kd_rows_add(rows, id, KD_R_FAIL, label, observed, expected, NULL);

	kd_row_set_error(r, first_error, hint);
	return r;
}

const struct kd_row *
kd_rows_find(const struct kd_rows *rows, const char *id)
{
	for (size_t i = 0; i < rows->n; i++)
		if (strcmp(rows->v[i].id, id) == 0)
			return &rows->v[i];
	return NULL;
}

static void
row_free(struct kd_row *r)
{
	free(r->id);
	free(r->label);
	free(r->observed);
	free(r->expected);
	free(r->evidence);
	free(r->first_error);
	free(r->hint);
}

void
kd_rows_free(struct kd_rows *rows)
{
	for (size_t i = 0; i < rows->n; i++)
		row_free(&rows->v[i]);
	free(rows->v);
	memset(rows, 0, sizeof *rows);
}

void
kd_rows_copy(struct kd_rows *dst, const struct kd_rows *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct kd_row *s = &src->v[i];
		struct kd_row *d = kd_rows_add(dst, s->id, s->status, s->label, s->observed,
					       s->expected, s->evidence);
		kd_row_set_error(d, s->first_error, s->hint);
	}
}

void
kd_result_init(struct kd_result *res)
{
	memset(res, 0, sizeof *res);
}

void
kd_result_free(struct kd_result *res)
{
	json_decref(res->obs);
	json_decref(res->record);
	kd_rows_free(&res->rows);
	memset(res, 0, sizeof *res);
}

/* The list name of res->record, made when missing. */
static json_t *
record_list(struct kd_result *res, const char *name)
{
	json_t *l;

	if (res->record == NULL)
		res->record = json_object();
	if ((l = json_object_get(res->record, name)) == NULL) {
		l = json_array();
		json_object_set_new(res->record, name, l);
	}
	return l;
}

void
kd_result_set(struct kd_result *res, const char *path, json_t *value)
{
	json_array_append_new(record_list(res, "settings"),
			      json_pack("{s:s, s:o}", "path", path, "value", value));
}

void
kd_result_deviate(struct kd_result *res, const char *check, const char *what,
		  const char *why, const char *author)
{
	json_array_append_new(record_list(res, "deviations"),
			      json_pack("{s:s, s:s?, s:s, s:s}", "check", check, "what", what,
					"why", why, "author", author));
}

static int
apply_record(struct kd_ctx *ctx, int i, const json_t *record, struct kd_err *err)
{
	const json_t *x;
	size_t k;
	int rc = 0;

	json_array_foreach(json_object_get(record, "settings"), k, x)
		yamlio_set(ctx->state.settings, json_string_value(json_object_get(x, "path")),
			   json_incref(json_object_get(x, "value")));
	json_array_foreach(json_object_get(record, "deviations"), k, x)
		if (rc == 0)
			rc = stage_record_deviation(&ctx->state, i,
				json_string_value(json_object_get(x, "check")),
				json_string_value(json_object_get(x, "what")),
				json_string_value(json_object_get(x, "why")), 0,
				json_string_value(json_object_get(x, "author")), err);
	return rc;
}

int
stage_settle(struct kd_ctx *ctx, int i, const struct kd_result *res, struct kd_err *err)
{
	stage_apply_rows(&ctx->state, i, &res->rows, ctx->ref_id);
	return apply_record(ctx, i, res->record, err);
}

/* ---- sinks ---- */

void
kd_sink_step(const struct kd_sink *s, const char *step, double fraction)
{
	if (s != NULL && s->on_step != NULL)
		s->on_step(s->u, step, fraction);
}

void
kd_sink_line(const struct kd_sink *s, const char *line)
{
	if (s != NULL && s->on_line != NULL)
		s->on_line(s->u, line, strlen(line));
}

void
kd_sink_print_step(void *u, const char *step, double fraction)
{
	(void)u;
	if (fraction >= 0)
		fprintf(stderr, "  - %s (%.0f%%)\n", step, fraction * 100);
	else
		fprintf(stderr, "  - %s\n", step);
}

int
kd_sink_cancelled(const struct kd_sink *s)
{
	return s != NULL && s->cancelled != NULL && s->cancelled(s->u);
}

/* ---- the rules ---- */

const struct kd_deviation *
stage_find_deviation(const struct kd_state *s, int i, const char *check)
{
	const struct kd_stage_state *ss = &s->st[i];

	for (size_t k = 0; k < ss->ndevs; k++)
		if (strcmp(ss->devs[k].check, check) == 0)
			return &ss->devs[k];
	return NULL;
}

void
stage_recompute(struct kd_state *s, int i)
{
	struct kd_stage_state *ss = &s->st[i];
	int failing = 0, deviated = 0;

	if (ss->status == KD_ST_STALE)
		return;
	if (ss->checked_at == NULL) {
		ss->status = KD_ST_PENDING;
		return;
	}
	if (kd_rows_find(&ss->rows, KD_ROW_CANCELLED) != NULL) {
		ss->status = KD_ST_CANCELLED;
		return;
	}
	for (size_t k = 0; k < ss->rows.n; k++) {
		if (ss->rows.v[k].status != KD_R_FAIL)
			continue;
		if (stage_find_deviation(s, i, ss->rows.v[k].id) != NULL)
			deviated++;
		else
			failing++;
	}
	if (failing > 0)
		ss->status = KD_ST_FAILED;
	else if (deviated > 0)
		ss->status = KD_ST_DEVIATION;
	else
		ss->status = KD_ST_PASSED;
}

void
stage_apply_rows(struct kd_state *s, int i, const struct kd_rows *rows, const char *ref_id)
{
	struct kd_stage_state *ss = &s->st[i];
	char now[32];

	kd_rows_free(&ss->rows);
	kd_rows_copy(&ss->rows, rows);
	fsutil_utc_now(now, sizeof now);
	free(ss->checked_at);
	ss->checked_at = strdup(now);
	snprintf(ss->checked_ref, sizeof ss->checked_ref, "%s", ref_id ? ref_id : "");
	ss->status = KD_ST_PENDING;  /* leave stale: it was checked again */
	stage_recompute(s, i);
}

int
stage_can_advance(const struct kd_state *s, int i, char *why, size_t len)
{
	const struct kd_stage_state *ss = &s->st[i];
	const char *title = kd_stages[i]->title;
	size_t n;

	switch (ss->status) {
	case KD_ST_PASSED:
	case KD_ST_DEVIATION:
		if (why && len)
			why[0] = '\0';
		return 1;
	case KD_ST_PENDING:
		snprintf(why, len, "%s has not been checked yet: run its checks (r) first.", title);
		return 0;
	case KD_ST_STALE:
		snprintf(why, len, "%s is stale (an earlier input changed): check it again (r).", title);
		return 0;
	case KD_ST_CANCELLED:
		snprintf(why, len, "%s was cancelled before it finished: check it again (r).", title);
		return 0;
	default:
		break;
	}
	n = (size_t)snprintf(why, len, "%s has failing checks without a deviation:", title);
	for (size_t k = 0; k < ss->rows.n && n < len; k++) {
		const struct kd_row *r = &ss->rows.v[k];
		if (r->status == KD_R_FAIL && stage_find_deviation(s, i, r->id) == NULL)
			n += (size_t)snprintf(why + n, len - n, " %s", r->id);
	}
	if (n < len)
		snprintf(why + n, len - n,
			 ". Fix them and check again, or record a deviation for each "
			 "(d in the walkthrough, or kernodeck deviate DIR --stage %s --check ID --why TEXT).",
			 kd_stages[i]->id);
	return 0;
}

/* Is d a deviation kernodeck recorded itself, to fix? */
static int
deviation_automatic(const struct kd_deviation *d)
{
	return d != NULL && !d->intentional && d->author != NULL &&
		strcmp(d->author, KD_AUTHOR_AUTOMATIC) == 0;
}

int
stage_row_strict_fails(const struct kd_state *s, int i, const struct kd_row *r)
{
	const struct kd_deviation *d;

	if (r->status != KD_R_WARN && r->status != KD_R_FAIL)
		return 0;
	d = stage_find_deviation(s, i, r->id);
	return (r->status == KD_R_WARN && d == NULL) || deviation_automatic(d);
}

int
stage_strict_ok(const struct kd_state *s, int i, char *why, size_t len)
{
	const struct kd_stage_state *ss = &s->st[i];
	size_t n = 0;
	int warn = 0, autodev = 0;

	for (size_t k = 0; k < ss->rows.n; k++) {
		const struct kd_row *r = &ss->rows.v[k];
		if (!stage_row_strict_fails(s, i, r))
			continue;
		if (r->status == KD_R_WARN && stage_find_deviation(s, i, r->id) == NULL)
			warn = 1;
		else
			autodev = 1;
		if (n < len)
			n += (size_t)snprintf(why + n, len - n, "%s%s", n ? " " : "", r->id);
	}
	if (!warn && !autodev) {
		if (len)
			why[0] = '\0';
		return 1;
	}
	if (n < len)
		snprintf(why + n, len - n, " (%s%s%s): acknowledge each with kernodeck deviate DIR "
			 "--stage %s --check CHECK --why TEXT",
			 warn ? "warnings without a deviation" : "", warn && autodev ? "; " : "",
			 autodev ? "deviations kernodeck recorded itself, to fix, that no person "
			 "reviewed" : "", kd_stages[i]->id);
	return 0;
}

int
stage_gate(struct kd_ctx *ctx, int i, char *why, size_t len)
{
	struct kd_state *s = &ctx->state;
	char moved[1024];

	for (int j = 0; j < i && j < KD_NSTAGES; j++) {
		enum kd_status st = s->st[j].status;
		if ((st == KD_ST_PASSED || st == KD_ST_DEVIATION) && kd_stages[j]->fresh != NULL &&
		    !kd_stages[j]->fresh(ctx, moved, sizeof moved)) {
			stage_mark_changed(s, j);
			snprintf(why, len, "stage %d (%s) is stale: %s.", j + 1, kd_stages[j]->id,
				 moved);
			return j;
		}
		if (st == KD_ST_PENDING || stage_can_advance(s, j, moved, sizeof moved))
			continue;
		snprintf(why, len, "stage %d (%s): %s", j + 1, kd_stages[j]->id, moved);
		return j;
	}
	if (len)
		why[0] = '\0';
	return -1;
}

void
stage_rows_cancelled(struct kd_rows *rows)
{
	struct kd_row *r;

	for (size_t k = 0; k < rows->n; k++)
		if (rows->v[k].status == KD_R_FAIL)
			kd_row_set_error(&rows->v[k], "not judged: the stage was cancelled before "
					 "it finished", "check again; the cancel stopped it, not the "
					 "project");
	r = kd_rows_add(rows, KD_ROW_CANCELLED, KD_R_FAIL, "the stage ran to the end",
			"cancelled", "not cancelled", NULL);
	kd_row_set_error(r, "cancelled (Ctrl-C, Esc or a signal) before the stage finished",
			 "check again");
}

static void
deviation_free(struct kd_deviation *d)
{
	free(d->check);
	free(d->what);
	free(d->why);
	free(d->author);
	free(d->time);
}

int
stage_record_deviation(struct kd_state *s, int i, const char *check,
		       const char *what, const char *why, int intentional,
		       const char *author, struct kd_err *err)
{
	struct kd_stage_state *ss;
	const struct kd_row *row;
	struct kd_deviation *d = NULL;
	char now[32];
	const char *p;

	if (i < 0 || i >= KD_NSTAGES)
		return kd_err_set(err, KD_EINPUT, NULL, 0, "unknown stage");
	ss = &s->st[i];
	for (p = why; p != NULL && (*p == ' ' || *p == '\t' || *p == '\n'); p++)
		;
	if (p == NULL || *p == '\0')
		return kd_err_set(err, KD_EINPUT, NULL, 0,
				  "a deviation needs a reason (why): it cannot be empty");
	if (stage_deviable(check, err) != 0)
		return KD_EINPUT;
	if (check == NULL || (row = kd_rows_find(&ss->rows, check)) == NULL)
		return kd_err_set(err, KD_EINPUT, NULL, 0,
				  "stage %s has no check \"%s\" (run its checks first)",
				  kd_stages[i]->id, check ? check : "");
	if (row->status != KD_R_FAIL && row->status != KD_R_WARN)
		return kd_err_set(err, KD_EINPUT, NULL, 0,
				  "check %s of stage %s is not failing: no deviation to record",
				  check, kd_stages[i]->id);
	for (size_t k = 0; k < ss->ndevs; k++)
		if (strcmp(ss->devs[k].check, check) == 0) {
			d = &ss->devs[k];
			deviation_free(d);
			break;
		}
	if (d == NULL) {
		struct kd_deviation *nv = realloc(ss->devs, (ss->ndevs + 1) * sizeof *nv);
		if (nv == NULL)
			return kd_err_set(err, KD_EENV, NULL, 0, "out of memory");
		ss->devs = nv;
		d = &ss->devs[ss->ndevs++];
	}
	fsutil_utc_now(now, sizeof now);
	d->check = strdup(check);
	if (what != NULL && *what != '\0') {
		d->what = strdup(what);
	} else {
		char buf[1024];
		snprintf(buf, sizeof buf, "observed %s, expected %s",
			 row->observed ? row->observed : "(nothing)",
			 row->expected ? row->expected : "(nothing)");
		d->what = strdup(buf);
	}
	d->why = strdup(why);
	d->intentional = intentional ? 1 : 0;
	d->author = strdup(author ? author : kd_author());
	d->time = strdup(now);
	stage_recompute(s, i);
	return 0;
}

int
stage_deviable(const char *check, struct kd_err *err)
{
	if (check != NULL && strcmp(check, KD_ROW_CANCELLED) == 0)
		return kd_err_set(err, KD_EINPUT, NULL, 0,
				  "check %s cannot be deviated: a cancelled stage is checked "
				  "again, to the end", check);
	if (!stage_never_deviable(check))
		return 0;
	return kd_err_set(err, KD_EINPUT, NULL, 0,
			  "check %s can never be deviated: no deviation lets a credential "
			  "into the dossier; take the value out (the walkthrough's x, or "
			  "${NAME} in its source) or leave the file out (dossier --leave-out)",
			  check);
}

int
stage_never_deviable(const char *check)
{
	static const char *const never[] = { "dossier.secret", "dossier.written" };

	for (size_t k = 0; check != NULL && k < sizeof never / sizeof never[0]; k++)
		if (strncmp(check, never[k], strlen(never[k])) == 0)
			return 1;
	return 0;
}

int
stage_withdraw_deviation(struct kd_state *s, int i, const char *check, struct kd_err *err)
{
	struct kd_stage_state *ss;

	if (i < 0 || i >= KD_NSTAGES)
		return kd_err_set(err, KD_EINPUT, NULL, 0, "unknown stage");
	ss = &s->st[i];
	for (size_t k = 0; check != NULL && k < ss->ndevs; k++) {
		if (strcmp(ss->devs[k].check, check) != 0)
			continue;
		deviation_free(&ss->devs[k]);
		memmove(&ss->devs[k], &ss->devs[k + 1], (ss->ndevs - k - 1) * sizeof *ss->devs);
		ss->ndevs--;
		stage_recompute(s, i);
		return 0;
	}
	return kd_err_set(err, KD_EINPUT, NULL, 0, "stage %s has no deviation for check \"%s\"",
			  kd_stages[i]->id, check ? check : "");
}

int
stage_deviation_needed(const struct kd_state *s, int i, const char *check)
{
	const struct kd_row *row = kd_rows_find(&s->st[i].rows, check);

	/* not checked again since, or stale: still what was recorded */
	if (row == NULL || s->st[i].status == KD_ST_STALE)
		return 1;
	return row->status == KD_R_FAIL || row->status == KD_R_WARN;
}

void
stage_mark_changed(struct kd_state *s, int i)
{
	for (int k = i; k < KD_NSTAGES; k++)
		if (s->st[k].status == KD_ST_PASSED || s->st[k].status == KD_ST_DEVIATION)
			s->st[k].status = KD_ST_STALE;
}

int
stage_add_note(struct kd_state *s, int i, const char *text, const char *author,
	       struct kd_err *err)
{
	struct kd_stage_state *ss = &s->st[i];
	struct kd_note *nv;
	char now[32];

	if (text == NULL || *text == '\0')
		return kd_err_set(err, KD_EINPUT, NULL, 0, "a note cannot be empty");
	nv = realloc(ss->notes, (ss->nnotes + 1) * sizeof *nv);
	if (nv == NULL)
		return kd_err_set(err, KD_EENV, NULL, 0, "out of memory");
	ss->notes = nv;
	fsutil_utc_now(now, sizeof now);
	nv[ss->nnotes].text = strdup(text);
	nv[ss->nnotes].author = strdup(author ? author : kd_author());
	nv[ss->nnotes].time = strdup(now);
	ss->nnotes++;
	return 0;
}

const char *
kd_author(void)
{
	static char name[256];
	git_config *cfg = NULL;
	git_buf buf = { 0 };
	const char *u;

	if (name[0] != '\0')
		return name;
	git_libgit2_init();
	if (git_config_open_default(&cfg) == 0) {
		if (git_config_get_string_buf(&buf, cfg, "user.name") == 0 && buf.ptr && *buf.ptr)
			snprintf(name, sizeof name, "%s", buf.ptr);
		git_buf_dispose(&buf);
		git_config_free(cfg);
	}
	git_libgit2_shutdown();
	if (name[0] == '\0') {
		u = getenv("USER");
		if (u == NULL || *u == '\0') {
			struct passwd *pw = getpwuid(getuid());
			u = pw ? pw->pw_name : "unknown";
		}
		snprintf(name, sizeof name, "%s", u);
	}
	return name;
}

void
state_deviation_free(struct kd_deviation *d)
{
	deviation_free(d);
}

/* See stage.h. */
int
stage_run(struct kd_ctx *ctx, int i, const struct kd_sink *sink,
	  struct kd_rows *info_rows, struct kd_err *err)
{
	const struct kd_stage_ops *ops = kd_stages[i];
	struct kd_result res;
	int rc = 0;

	kd_result_init(&res);
	if (ops->gather != NULL)
		rc = ops->gather(ctx, &res, sink, err);
	if (rc == 0 && res.obs != NULL)
		rc = kd_ctx_save_obs(ctx, i, res.obs, err);
	if (rc == 0 && ops->check != NULL)
		rc = ops->check(ctx, &res, err);
	if (rc == 0 && kd_sink_cancelled(sink))
		stage_rows_cancelled(&res.rows);
	if (rc != 0 && ctx->ref_id[0] != '\0') {
		/* keep the failure visible in the state: a row with the error */
		char msg[1400];
		struct kd_row *r;
		kd_err_format(err, msg, sizeof msg);
		if (kd_sink_cancelled(sink)) {
			stage_rows_cancelled(&res.rows);
		} else {
			r = kd_rows_add(&res.rows, "stage.error", KD_R_FAIL, "the stage could run",
					"error", "no error", NULL);
			kd_row_set_error(r, msg, rc == KD_EINPUT ?
					 "fix the input named above and check again" :
					 "fix the environment problem named above and check again");
		}
		stage_apply_rows(&ctx->state, i, &res.rows, ctx->ref_id);
		if (!ctx->readonly)
			kd_ctx_save_state(ctx, NULL);
	}
	if (rc == 0)
		rc = stage_settle(ctx, i, &res, err);
	if (rc == 0) {
		if (info_rows != NULL && ops->describe != NULL)
			ops->describe(&res, info_rows);
		if (!ctx->readonly)
			rc = kd_ctx_save_state(ctx, err);
	}
	/* the state is saved: logs it no longer names can go (logkeep.h) */
	if (rc == 0)
		logkeep_prune(ctx);
	kd_result_free(&res);
	return rc;
}
