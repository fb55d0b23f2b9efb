/*
 * stage.c - the ordered stage table (made from the list of stages.h) and
 * the rules: advance, deviation and stale (see include/kernodeck/stage.h).
 */
#include "config.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/stage.h"
#include "kernodeck/state.h"

#define KD_STAGE_OPS_(id, file, keys) &kd_stage_##id,
const struct kd_stage_ops *const kd_stages[KD_NSTAGES] = { KD_STAGE_LIST(KD_STAGE_OPS_) };

int
stage_pos(const struct kd_stage_ops *ops)
{
	for (int i = 0; i < KD_NSTAGES; i++)
		if (kd_stages[i] == ops)
			return i;
	return -1;
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
			state_deviation_free(d);
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
		state_deviation_free(&ss->devs[k]);
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

