/*
 * reference-check.c - the checks of stage 1, judged from the reference
 * tree and the observations gathered by src/stages/stage-reference.c.
 *
 * Nothing here reads a file, the repository or the network: gather did,
 * and left in the observation tree what it saw (obs.code, obs.files,
 * obs.urls, obs.warnings).  A check therefore gives the same rows for the
 * same reference and observations, and the unit tests drive it with trees.
 *
 * Every row is filled or not applicable with a reason (reference_na); a
 * row that fails says what was seen, what was expected, the first error
 * and what to do.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernodeck/caps.h"
#include "kernodeck/baseenv.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/obs-reference.h"
#include "kernodeck/redact.h"
#include "kernodeck/reference.h"
#include "kernodeck/repo.h"
#include "kernodeck/resume.h"
#include "kernodeck/yamlio.h"

#define KD_CAP_DIRTY_SHOWN 30    /* files named in a failing code.clean */

/* A string from an observation, which may have any shape: never NULL. */
static const char *
nz(const char *s)
{
	return s != NULL ? s : "?";
}

static struct kd_row *
fail(struct kd_rows *rows, const char *id, const char *label, const char *observed,
     const char *expected, const char *first_error, const char *hint)
{
	struct kd_row *r = kd_rows_add(rows, id, KD_R_FAIL, label, observed, expected, NULL);

	kd_row_set_error(r, first_error, hint);
	return r;
}

/* A passing row for a field marked not applicable; 1 when it was. */
static int
na_row(struct kd_rows *rows, const json_t *ref, const char *path, const char *id,
       const char *label)
{
	const char *why = reference_na(ref, path);
	char obs[600];

	if (why == NULL)
		return 0;
	snprintf(obs, sizeof obs, "not applicable: %s", why);
	kd_rows_add(rows, id, KD_R_PASS, label, obs, "filled or not applicable", NULL);
	return 1;
}

/* Append to list (", "-separated) the name of each of keys (relative to
 * base) that is neither filled nor not applicable. */
static void
missing_fields(const json_t *ref, const char *base, const char *const *keys,
	       char *list, size_t len)
{
	char path[256];
	size_t o = strlen(list);

	for (int i = 0; keys[i] != NULL; i++) {
		snprintf(path, sizeof path, "%s.%s", base, keys[i]);
		if (reference_filled(yamlio_get(ref, path)) || reference_na(ref, path) != NULL)
			continue;
		o += (size_t)snprintf(list + o, o < len ? len - o : 0, "%s%s",
				      o > 0 ? ", " : "", keys[i]);
		if (o >= len)
			break;
	}
}

/* A failing row "missing: LIST" when list (missing_fields) names a field;
 * 1 when it did. */
static int
missing_row(struct kd_rows *rows, const char *list, const char *id, const char *label,
	    const char *expected, const char *hint)
{
	char msg[400];

	if (list[0] == '\0')
		return 0;
	snprintf(msg, sizeof msg, "missing: %s", list);
	fail(rows, id, label, msg, expected, msg, hint);
	return 1;
}

static void
human_size(uint64_t n, char *buf, size_t len)
{
	if (n >= (1ull << 30))
		snprintf(buf, len, "%.1f GiB", (double)n / (1ull << 30));
	else if (n >= (1ull << 20))
		snprintf(buf, len, "%.1f MiB", (double)n / (1ull << 20));
	else if (n >= 1024)
		snprintf(buf, len, "%.1f KiB", (double)n / 1024);
	else
		snprintf(buf, len, "%" PRIu64 " bytes", n);
}

static int
is_sha256(const char *s)
{
	size_t n = 0;

	if (s == NULL)
		return 0;
	for (; s[n] != '\0'; n++)
		if (!isxdigit((unsigned char)s[n]))
			return 0;
	return n == 64;
}

/* ----------------------------------------------------------------- goal */

static void
check_goal(const json_t *ref, struct kd_rows *rows)
{
	static const char *const goals[] = {
		"same-categories", "close-values", "training-trajectory", NULL,
	};
	const char *g = yamlio_get_str(ref, "goal");

	if (na_row(rows, ref, "goal", "goal", "goal declared"))
		return;
	if (g == NULL || !reference_filled(json_object_get(ref, "goal"))) {
		fail(rows, "goal", "goal declared", "not filled",
		     "same-categories, close-values or training-trajectory",
		     "the reference does not say what reproducing means", "fill the goal field");
		return;
	}
	for (int i = 0; goals[i] != NULL; i++)
		if (strcmp(g, goals[i]) == 0) {
			kd_rows_add(rows, "goal", KD_R_PASS, "goal declared", g, NULL, NULL);
			return;
		}
	fail(rows, "goal", "goal declared", g,
	     "same-categories, close-values or training-trajectory",
	     "unknown goal", "choose one of the three goals");
}

/* ----------------------------------------------------------------- code */

static const char *
problem_hint(const char *problem, const char *msg)
{
	if (problem == NULL)
		return "fix the repository named above and check again";
	if (strcmp(problem, "not-a-repo") == 0)
		return "run `git init` and commit the code, set code.repository to the folder "
		       "holding it, or mark code not applicable with a reason";
	if (strcmp(problem, "empty") == 0)
		return "commit the code (git add, git commit), then check again";
	if (strcmp(problem, "not-owned") == 0) {
		const char *p = msg != NULL ? strstr(msg, "git config --global") : NULL;

		return p != NULL ? p : "git config --global --add safe.directory PATH";
	}
	return "fix the repository named above and check again";
}

/* code.commit: a full immutable id, never a branch, tag or short id. */
static void
check_commit(const json_t *ref, const json_t *obs, struct kd_rows *rows, int repo_ok)
{
	const char *rec = yamlio_get_str(ref, "code.commit");
	const char *kind = obs_reference_code_recorded_kind(obs);
	const char *now = obs_reference_code_recorded_resolves_to(obs);
	const char *label = "code pinned to a full commit id";
	char msg[600];

	if (na_row(rows, ref, "code.commit", "code.commit", label))
		return;
	if (rec == NULL || !reference_filled(yamlio_get(ref, "code.commit"))) {
		fail(rows, "code.commit", label, "not filled", "a 40-hex commit id",
		     "no commit recorded",
		     repo_ok ? "check again: the commit at HEAD is recorded when the field is empty"
			     : "fix the repository, or type the full commit id");
		return;
	}
	if (repo_is_full_id(rec)) {
		if (repo_ok && kind == NULL) {
			snprintf(msg, sizeof msg, "commit %s is not in the repository %s", rec,
				 nz(obs_reference_code_workdir(obs)));
			fail(rows, "code.commit", label, rec, "a commit of this repository", msg,
			     "fetch it (git fetch), or record the commit the code is at (key u)");
			return;
		}
		kd_rows_add(rows, "code.commit", KD_R_PASS, label, rec, "a 40-hex commit id", NULL);
		return;
	}
	if (kind != NULL && (strcmp(kind, "branch") == 0 || strcmp(kind, "remote-branch") == 0))
		snprintf(msg, sizeof msg, "'%s' is a branch name: a branch moves; the reference "
			 "needs the full commit id (it is %s now)", rec, now ? now : "?");
	else if (kind != NULL && strcmp(kind, "tag") == 0)
		snprintf(msg, sizeof msg, "'%s' is a tag: a tag can be moved; record the full "
			 "commit id %s", rec, now ? now : "?");
	else if (kind != NULL && strcmp(kind, "commit") == 0)
		snprintf(msg, sizeof msg, "'%s' is an abbreviated id: record the full id %s",
			 rec, now ? now : "?");
	else if (reference_is_floating(rec))
		snprintf(msg, sizeof msg, "'%s' is a floating name, not a commit", rec);
	else
		snprintf(msg, sizeof msg, "'%s' is not a commit id", rec);
	fail(rows, "code.commit", label, rec, "a 40-hex commit id", msg,
	     "record the full 40-character commit id (key u records HEAD)");
}

static void
check_head(const json_t *ref, const json_t *obs, struct kd_rows *rows)
{
	const char *rec = yamlio_get_str(ref, "code.commit");
	const char *head = obs_reference_code_commit(obs);
	const char *branch = obs_reference_code_branch(obs);
	char msg[400];

	if (reference_na(ref, "code.commit") != NULL || !repo_is_full_id(rec) || head == NULL)
		return;
	if (strcmp(rec, head) == 0) {
		snprintf(msg, sizeof msg, "HEAD %.12s (%s)", head, branch ? branch : "detached");
		kd_rows_add(rows, "code.head", KD_R_PASS, "the work tree is at that commit", msg,
			    rec, NULL);
		return;
	}
	snprintf(msg, sizeof msg, "HEAD is at %s (%s), the reference records %s", head,
		 branch ? branch : "detached", rec);
	fail(rows, "code.head", "the work tree is at that commit", head, rec, msg,
	     "git checkout the recorded commit, or record HEAD (key u) if the code changed "
	     "on purpose");
}

/* The entry point's script is in the recorded commit: a replay clones that
 * commit and runs it. */
static void
check_entry_script(const json_t *obs, struct kd_rows *rows)
{
	const char *path = obs_reference_code_entry_script_path(obs);
	const char *commit = obs_reference_code_entry_script_commit(obs);
	const char *label = "the entry point's script is in the recorded commit";
	char msg[800];

	if (path == NULL || commit == NULL)
		return;
	if (obs_reference_code_entry_script_at_commit(obs)) {
		snprintf(msg, sizeof msg, "%s in %.12s", path, commit);
		kd_rows_add(rows, "code.entry-script", KD_R_PASS, label, msg, "present", NULL);
		return;
	}
	snprintf(msg, sizeof msg, "%s is not a file of commit %.12s: a replay, which clones that "
		 "commit, could not run it", path, commit);
	fail(rows, "code.entry-script", label, "absent", path, msg,
	     "commit the script (git add, git commit) and record the new commit (key u), or "
	     "fix code.entry_point");
}

static void
check_clean(const json_t *ref, const json_t *robs, struct kd_rows *rows)
{
	const json_t *dirty = obs_reference_code_dirty(robs), *f;
	const char *outs = obs_reference_outputs_excluded(robs);
	size_t n = json_array_size(dirty), i, o = 0;
	char obs[256], list[4096], hint[512];

	if (na_row(rows, ref, "code.commit", "code.clean", "the work tree is clean"))
		return;
	/* the outputs folder the sample moves aside and writes again is kept
	 * out of git status as kernodeck/ is (reference_exclude_own): said */
	snprintf(hint, sizeof hint, "%s%s%s", outs ? "; the outputs folder " : "",
		 outs ? outs : "", outs ? "/ is excluded, as kernodeck/ is" : "");
	if (n == 0) {
		kd_rows_addf(rows, "code.clean", KD_R_PASS, "the work tree is clean", "clean",
			     "no modified or untracked file%s", hint);
		return;
	}
	list[0] = '\0';
	json_array_foreach(dirty, i, f) {
		if (i >= KD_CAP_DIRTY_SHOWN) {
			snprintf(list + o, sizeof list - o, "; and %zu more", n - i);
			break;
		}
		o += (size_t)snprintf(list + o, sizeof list - o, "%s%s %s", i ? "; " : "",
				      nz(obs_reference_dirty_status(f)), nz(obs_reference_dirty_path(f)));
		if (o >= sizeof list)
			break;
	}
	snprintf(obs, sizeof obs, "%zu%s changed: %.200s", n,
		 obs_reference_code_dirty_truncated(robs) ? "+" : "", list);
	snprintf(hint, sizeof hint, "commit or remove these files (git status); kernodeck's own "
		 "folders%s%s%s are already excluded through .git/info/exclude",
		 outs ? " and the outputs folder " : "", outs ? outs : "", outs ? "/" : "");
	fail(rows, "code.clean", "the work tree is clean", obs, "clean", list, hint);
}

static void
check_submodules(const json_t *obs, struct kd_rows *rows)
{
	const json_t *subs = obs_reference_code_submodules(obs), *s;
	const char *sup = obs_reference_code_superproject(obs);
	char list[1024], bad[1024], msg[1200];
	size_t i, o = 0, b = 0;

	if (sup != NULL) {
		snprintf(msg, sizeof msg, "this repository is a submodule of %s: the commit "
			 "recorded is the submodule's own, not the superproject's", sup);
		kd_rows_add(rows, "code.superproject", KD_R_WARN, "the code is a whole repository",
			    msg, "a repository of its own", NULL);
	}
	if (json_array_size(subs) == 0)
		return;
	list[0] = bad[0] = '\0';
	json_array_foreach(subs, i, s) {
		const char *p = nz(obs_reference_submodule_path(s));
		const char *wd = obs_reference_submodule_checked_out(s);

		if (!obs_reference_submodule_initialized(s)) {
			if (b < sizeof bad)
				b += (size_t)snprintf(bad + b, sizeof bad - b, "%s%s",
						      b ? ", " : "", p);
		} else if (o < sizeof list) {
			o += (size_t)snprintf(list + o, sizeof list - o, "%s%s at %.12s",
					      o ? ", " : "", p, wd ? wd : "?");
		}
	}
	if (b > 0) {
		snprintf(msg, sizeof msg, "submodules not checked out: %s", bad);
		fail(rows, "code.submodules", "submodules checked out", msg, "every submodule",
		     msg, "git submodule update --init --recursive");
		return;
	}
	kd_rows_add(rows, "code.submodules", KD_R_PASS, "submodules checked out", list,
		    "every submodule", NULL);
}

static void
check_remote(const json_t *ref, const json_t *obs, struct kd_rows *rows)
{
	const char *rem = yamlio_get_str(ref, "code.remote");
	const char *label = "remote recorded, without credentials";

	if (na_row(rows, ref, "code.remote", "code.remote", label))
		return;
	if (obs_reference_code_remote_had_credentials(obs))
		kd_rows_add(rows, "code.remote.credentials", KD_R_WARN,
			    "no credentials in the remote URL",
			    "the repository's remote URL holds credentials: they were stripped "
			    "from the reference", "none", NULL);
	if (rem == NULL || !reference_filled(yamlio_get(ref, "code.remote"))) {
		kd_rows_add(rows, "code.remote", KD_R_WARN, label,
			    "no remote: another machine cannot fetch this commit",
			    "a remote URL", NULL);
		return;
	}
	kd_rows_add(rows, "code.remote", KD_R_PASS, label, rem, NULL, NULL);
	/* a commit no remote-tracking branch holds: a replay elsewhere will not
	 * find it (said now, not when the clone fails) */
	if (json_is_false(obs_reference_code_on_remote_branch(obs))) {
		struct kd_row *r = kd_rows_add(rows, "code.pushed", KD_R_WARN,
					       "the commit is on a remote branch",
					       "on no remote-tracking branch: not pushed?",
					       "pushed to the remote", NULL);
		kd_row_set_error(r, "the commit is on no remote-tracking branch (git branch -r "
				 "--contains finds none): a clone of the remote will not have it",
				 "git push (then git fetch), or replay with --repo PATH naming a "
				 "clone that has the commit");
	}
}

static void
check_entry(const json_t *ref, struct kd_rows *rows)
{
	const json_t *ep = yamlio_get(ref, "code.entry_point"), *a;
	const char *label = "entry point and options";
	char *line;
	size_t i;

	if (na_row(rows, ref, "code.entry_point", "code.entry_point", label))
		return;
	if (!reference_filled(ep)) {
		fail(rows, "code.entry_point", label, "not filled", "an argument vector",
		     "the reference does not say how the code is run",
		     "fill the entry point, e.g. python embed.py --out outputs");
		return;
	}
	if (!json_is_array(ep)) {
		fail(rows, "code.entry_point", label, "a single string", "an argument vector",
		     "code.entry_point must be a list of arguments",
		     "write it as a list: [python, embed.py, --out, outputs]");
		return;
	}
	json_array_foreach(ep, i, a)
		if (!json_is_string(a)) {
			fail(rows, "code.entry_point", label, "a non-string argument",
			     "an argument vector", "every argument must be a string",
			     "quote numbers in the list");
			return;
		}
	line = reference_argv_line(ep);
	kd_rows_add(rows, "code.entry_point", KD_R_PASS, label, line, NULL, NULL);
	free(line);
}

/* ------------------------------------------------------------- hashing */

/* The digest row of one hashed item: path (or URL only), the observation
 * of its hashing, and the recorded SHA-256. */
static void
check_digest(struct kd_rows *rows, const json_t *ref, const char *refpath, const char *id,
	     const char *label, const json_t *item, const json_t *files, int has_url)
{
	const char *path = json_string_value(json_object_get(item, "path"));
	const char *rec = json_string_value(json_object_get(item, "sha256"));
	const json_t *o = json_object_get(files, refpath);
	const char *got = obs_reference_file_sha256(o);
	const char *error = obs_reference_file_error(o);
	const char *ekind = obs_reference_file_error_kind(o);
	const char *kind;
	char napath[300], obs[400], msg[700], sz[32];

	snprintf(napath, sizeof napath, "%s.sha256", refpath);
	if (na_row(rows, ref, napath, id, label))
		return;
	if (path == NULL || *path == '\0') {
		if (has_url && is_sha256(rec)) {
			snprintf(obs, sizeof obs, "no local copy; the recorded digest is %.16s…", rec);
			kd_rows_add(rows, id, KD_R_PASS, label, obs, "a recorded SHA-256", NULL);
		} else if (has_url) {
			fail(rows, id, label, "no SHA-256 recorded", "a recorded SHA-256",
			     "an item known only by its URL has no digest",
			     "download it to hash it (key w), or record its SHA-256");
		} else {
			fail(rows, id, label, "no path", "a file or folder", "no path recorded",
			     "fill its path");
		}
		return;
	}
	if (error != NULL) {
		const char *hint = "fix the file named above and check again";

		if (ekind != NULL && strcmp(ekind, "missing") == 0)
			hint = has_url ? "put the file there, or download it (key w)"
				       : "put the file at that path, or correct the path";
		else if (ekind != NULL && strcmp(ekind, "unreadable") == 0)
			hint = "give this user read access (chmod/chown), then check again";
		else if (ekind != NULL && strcmp(ekind, "changed") == 0)
			hint = "wait until nothing writes the file, then check again";
		snprintf(obs, sizeof obs, "%s: %s", ekind ? ekind : "error", path);
		fail(rows, id, label, obs, rec ? rec : "a SHA-256", error, hint);
		return;
	}
	if (got == NULL) {
		fail(rows, id, label, "not hashed", "a SHA-256", "the file was not hashed",
		     "check again");
		return;
	}
	if (!is_sha256(rec)) {
		snprintf(msg, sizeof msg, "%s has SHA-256 %s, but the reference records %s", path,
			 got, rec && *rec ? rec : "none");
		fail(rows, id, label, got, rec && *rec ? rec : "a recorded SHA-256", msg,
		     "clear the sha256 field and check again to record the digest");
		return;
	}
	if (strcasecmp(got, rec) != 0) {
		snprintf(msg, sizeof msg, "%s: SHA-256 is %s, the reference records %s", path, got,
			 rec);
		fail(rows, id, label, got, rec, msg,
		     "restore the reference's file; if it changed on purpose, clear the "
		     "sha256 field and check again to record the new digest");
		return;
	}
	human_size((uint64_t)obs_reference_file_size(o), sz, sizeof sz);
	kind = obs_reference_file_kind(o);
	snprintf(obs, sizeof obs, "%s%s, %s%s",
		 kind != NULL && strcmp(kind, "folder") == 0 ? "manifest " : "", got, sz,
		 obs_reference_file_from_cache(o) ? ", from the cache" : "");
	kd_rows_add(rows, id, KD_R_PASS, label, obs, rec, obs_reference_file_manifest(o));
}

static void
check_params(const json_t *ref, const json_t *obs, struct kd_rows *rows)
{
	const json_t *params = yamlio_get(ref, "code.params"), *p;
	const json_t *files = obs_reference_files(obs);
	char id[128], slug[64], key[64];
	size_t i;

	if (na_row(rows, ref, "code.params", "code.params", "parameter files listed"))
		return;
	if (!json_is_array(params) || json_array_size(params) == 0) {
		fail(rows, "code.params", "parameter files listed", "none",
		     "parameter and preprocessing files, each hashed",
		     "no parameter or preprocessing file is listed",
		     "add them (code.params), or mark code.params not applicable with a reason");
		return;
	}
	kd_rows_addf(rows, "code.params", KD_R_PASS, "parameter files listed", NULL,
		     "%zu file%s", json_array_size(params),
		     json_array_size(params) > 1 ? "s" : "");
	json_array_foreach(params, i, p) {
		reference_item_slug(p, i, slug, sizeof slug);
		snprintf(id, sizeof id, "code.params.%s", slug);
		snprintf(key, sizeof key, "code.params[%zu]", i);
		check_digest(rows, ref, key, id, "parameter file unchanged", p, files, 0);
	}
}

/* ----------------------------------------------------------------- data */

static void
check_item_fields(const json_t *ref, const json_t *item, size_t i, const char *slug,
		  struct kd_rows *rows)
{
	static const char *const keys[] = {
		"name", "kind", "sha256", "size", "version", "provenance", "access", NULL,
	};
	const char *kind = json_string_value(json_object_get(item, "kind"));
	char base[64], list[512] = "", id[128], msg[700];
	struct redact_finding f;
	const char *access = json_string_value(json_object_get(item, "access"));
	const char *prov = json_string_value(json_object_get(item, "provenance"));

	snprintf(base, sizeof base, "data[%zu]", i);
	snprintf(id, sizeof id, "data.%s.fields", slug);
	if (!reference_filled(json_object_get(item, "path")) &&
	    !reference_filled(json_object_get(item, "url")))
		snprintf(list, sizeof list, "path or url");
	missing_fields(ref, base, keys, list, sizeof list);
	if (missing_row(rows, list, id, "item described",
			"name, kind, path or url, sha256, size, version, provenance, access",
			"fill them, or mark each not applicable with a reason"))
		return;
	if (kind != NULL && strcmp(kind, "data") != 0 && strcmp(kind, "weights") != 0) {
		snprintf(msg, sizeof msg, "kind '%s'", kind);
		fail(rows, id, "item described", msg, "data or weights", msg, "choose data or weights");
		return;
	}
	if ((access != NULL && redact_scan(access, strlen(access), &f, 1) > 0) ||
	    (prov != NULL && redact_scan(prov, strlen(prov), &f, 1) > 0)) {
		fail(rows, id, "item described", "a credential in access or provenance",
		     "how access is obtained, never the secret",
		     "access and provenance must not hold a secret",
		     "write the procedure, or env:NAME for an environment variable");
		return;
	}
	kd_rows_add(rows, id, KD_R_PASS, "item described",
		    json_string_value(json_object_get(item, "name")), NULL, NULL);
}

static void
check_item_url(const json_t *ref, const json_t *item, const json_t *u, const char *slug,
	       struct kd_rows *rows)
{
	const char *url = json_string_value(json_object_get(item, "url"));
	const char *error = obs_reference_url_error(u);
	const char *etag_sha = obs_reference_url_etag_sha256(u);
	const char *rec = json_string_value(json_object_get(item, "sha256"));
	json_t *rsize = json_object_get(item, "size");
	json_int_t size = obs_reference_url_size(u);
	char id[128], obs[1200], msg[1400];
	int o;

	snprintf(id, sizeof id, "data.%s.url", slug);
	if (obs_reference_url_had_credentials(u)) {
		char cid[160];

		snprintf(cid, sizeof cid, "data.%s.credentials", slug);
		kd_rows_add(rows, cid, KD_R_WARN, "no credentials in the URL",
			    "the URL held credentials: they were stripped from the reference",
			    "none", NULL);
	}
	if (u == NULL) {
		fail(rows, id, "URL answers", "not checked", "HTTP 2xx", "the URL was not checked",
		     "check again");
		return;
	}
	if (error != NULL) {
		snprintf(obs, sizeof obs, "%s", error);
		snprintf(msg, sizeof msg, "%s: %s", url ? url : "?", error);
		fail(rows, id, "URL answers", obs, "HTTP 2xx", msg,
		     "check the URL, the network and any proxy; a moved file needs its new URL");
		return;
	}
	o = snprintf(obs, sizeof obs, "HTTP %lld", (long long)obs_reference_url_status(u));
	if (size >= 0)
		o += snprintf(obs + o, sizeof obs - (size_t)o, ", %lld bytes", (long long)size);
	if (obs_reference_url_redirects(u) > 0)
		o += snprintf(obs + o, sizeof obs - (size_t)o, ", redirected to %.300s",
			      nz(obs_reference_url_final_url(u)));
	if (json_is_integer(rsize) && size >= 0 && json_integer_value(rsize) != size) {
		snprintf(msg, sizeof msg, "the server announces %lld bytes, the reference records %lld",
			 (long long)size, (long long)json_integer_value(rsize));
		fail(rows, id, "URL answers with the recorded file", obs, "the recorded size", msg,
		     "the file behind the URL changed: pin a fixed revision in the URL, or "
		     "record the new file deliberately");
		return;
	}
	if (etag_sha != NULL && is_sha256(rec) && strcasecmp(etag_sha, rec) != 0) {
		snprintf(msg, sizeof msg, "the server's ETag is the SHA-256 %s, the reference "
			 "records %s", etag_sha, rec);
		fail(rows, id, "URL answers with the recorded file", obs, rec, msg,
		     "the file behind the URL changed: pin a fixed revision in the URL, or "
		     "record the new file deliberately");
		return;
	}
	if (etag_sha != NULL && is_sha256(rec))
		snprintf(obs + o, sizeof obs - (size_t)o, ", ETag matches the SHA-256");
	(void)ref;
	kd_rows_add(rows, id, KD_R_PASS, "URL answers with the recorded file", obs,
		    "HTTP 2xx, recorded size", NULL);
}

/* No floating name as the only identity of an item. */
static void
check_item_version(const json_t *ref, const json_t *item, size_t i, const char *slug,
		   struct kd_rows *rows)
{
	const char *ver = json_string_value(json_object_get(item, "version"));
	const char *url = json_string_value(json_object_get(item, "url"));
	const char *rec = json_string_value(json_object_get(item, "sha256"));
	const char *label = "a fixed version, not a floating name";
	char id[128], seg[128], what[300];
	int floating = 0;

	(void)ref;
	(void)i;
	snprintf(id, sizeof id, "data.%s.version", slug);
	if (ver != NULL && reference_is_floating(ver)) {
		snprintf(what, sizeof what, "version '%s' is a floating name", ver);
		floating = 1;
	} else if (url != NULL && reference_url_floating(url, seg, sizeof seg)) {
		snprintf(what, sizeof what, "the URL names '%s', a floating revision", seg);
		floating = 1;
	}
	if (!floating) {
		const json_t *v = json_object_get(item, "version");
		char shown[128];

		if (!reference_filled(v))
			return;    /* the fields row says it is missing (or n/a) */
		if (json_is_string(v))
			snprintf(shown, sizeof shown, "%s", json_string_value(v));
		else if (json_is_integer(v))
			snprintf(shown, sizeof shown, "%lld", (long long)json_integer_value(v));
		else
			snprintf(shown, sizeof shown, "%g", json_number_value(v));
		kd_rows_add(rows, id, KD_R_PASS, label, shown, NULL, NULL);
		return;
	}
	if (is_sha256(rec)) {
		char obs[400];

		snprintf(obs, sizeof obs, "%s; its recorded SHA-256 pins it", what);
		kd_rows_add(rows, id, KD_R_WARN, label, obs, "a fixed version", NULL);
		return;
	}
	fail(rows, id, label, what, "a fixed version or a SHA-256", what,
	     "record a fixed version (a release, a commit) and the item's SHA-256");
}

static void
check_data(const json_t *ref, const json_t *obs, struct kd_rows *rows)
{
	const json_t *data = json_object_get(ref, "data"), *item;
	const json_t *files = obs_reference_files(obs);
	const json_t *urls = obs_reference_urls(obs);
	char slug[64], id[128], key[32];
	size_t i;

	if (na_row(rows, ref, "data", "data.items", "data and weights listed"))
		return;
	if (!json_is_array(data) || json_array_size(data) == 0) {
		fail(rows, "data.items", "data and weights listed", "none", "at least one item",
		     "no data or weights item is listed",
		     "add items (data), or mark data not applicable with a reason");
		return;
	}
	kd_rows_addf(rows, "data.items", KD_R_PASS, "data and weights listed", NULL,
		     "%zu item%s", json_array_size(data), json_array_size(data) > 1 ? "s" : "");
	json_array_foreach(data, i, item) {
		reference_data_slug(data, i, slug, sizeof slug);
		snprintf(key, sizeof key, "data[%zu]", i);
		check_item_fields(ref, item, i, slug, rows);
		snprintf(id, sizeof id, "data.%s.sha256", slug);
		check_digest(rows, ref, key, id, "SHA-256 matches", item, files,
			     reference_filled(json_object_get(item, "url")));
		if (reference_filled(json_object_get(item, "url")))
			check_item_url(ref, item, json_object_get(urls, key), slug, rows);
		check_item_version(ref, item, i, slug, rows);
	}
}

/* --------------------------------------------------------------- python */

/* Count the packages of an inventory: pip inspect JSON or pip freeze. */
static int
count_inventory(const char *path, size_t *n, const char **kind, char *why, size_t len)
{
	char *buf = NULL;
	size_t blen;
	struct kd_err e;

	*n = 0;
	if (fsutil_read_file(path, KD_CAP_PIP_OUTPUT, &buf, &blen, &e) != 0) {
		kd_err_format(&e, why, len);
		return -1;
	}
	if (blen > 0 && buf[0] == '{') {
		json_t *j = json_loadb(buf, blen, 0, NULL);

		*kind = "pip inspect";
		*n = json_array_size(json_object_get(j, "installed"));
		if (j == NULL || !json_is_array(json_object_get(j, "installed")))
			snprintf(why, len, "%s is not a pip inspect report", path);
		json_decref(j);
		free(buf);
		return j == NULL ? -1 : 0;
	}
	*kind = "pip freeze";
	for (char *p = buf; p != NULL && *p != '\0';) {
		char *e2 = strchr(p, '\n');
		size_t l = e2 != NULL ? (size_t)(e2 - p) : strlen(p);

		if (l > 0 && isalnum((unsigned char)p[0]) &&
		    (memmem(p, l, "==", 2) != NULL || memmem(p, l, " @ ", 3) != NULL))
			(*n)++;
		p = e2 != NULL ? e2 + 1 : NULL;
	}
	free(buf);
	if (*n == 0)
		snprintf(why, len, "%s lists no package (name==version lines)", path);
	return *n == 0 ? -1 : 0;
}

/* python.install.base, when given: a folder holding bin/python3 (a venv, a
 * conda environment, a prefix) or an interpreter; a moved venv fails. */
static void
check_base(const struct kd_ctx *ctx, const json_t *ref, struct kd_rows *rows)
{
	const char *given = yamlio_get_str(ref, "python.install.base");
	struct baseenv be;
	struct kd_err e = { 0 };
	char msg[1200];

	if (given == NULL || *given == '\0')
		return;
	if (baseenv_locate(ctx->project_dir, given, &be, &e) != 0) {
		fail(rows, "python.install.base", "the base environment can be used", given,
		     "a venv, a conda environment or an interpreter",
		     kd_err_format(&e, msg, sizeof msg),
		     "give the folder of the environment that holds PyTorch (its bin/python3), "
		     "or the interpreter itself");
	} else if (be.moved_from != NULL) {
		snprintf(msg, sizeof msg, "the base environment %s was made in %s: a venv does not "
			 "work once moved", be.path, be.moved_from);
		fail(rows, "python.install.base", "the base environment can be used", be.path,
		     "where it was made", msg, "recreate the venv where it is, or give its old "
		     "place back");
	} else {
		kd_rows_addf(rows, "python.install.base", KD_R_PASS,
			     "the base environment can be used", NULL, "%s (%s, %s)", be.path,
			     be.kind, be.python);
	}
	baseenv_free(&be);
}

/* A procedure that made its venv with --system-site-packages while the
 * flag the rebuild reads says otherwise: the rebuilt venv would not see the
 * packages the reference ran with (a system PyTorch among them). */
static void
check_site_flag(const json_t *ref, struct kd_rows *rows)
{
	const char *proc = yamlio_get_str(ref, "python.install.procedure");
	struct kd_row *r;

	if (proc == NULL || strstr(proc, "--system-site-packages") == NULL ||
	    json_is_true(yamlio_get(ref, "python.install.system_site_packages")))
		return;
	r = kd_rows_add(rows, "python.install.system_site_packages", KD_R_WARN,
			"the procedure and the system site packages flag agree",
			"the procedure says --system-site-packages, the flag says false",
			"system_site_packages: true", NULL);
	kd_row_set_error(r, "python.install.procedure makes its venv with "
			 "--system-site-packages, but python.install.system_site_packages is "
			 "not true: the rebuild would make a venv without them, and the packages "
			 "the reference saw among the system's packages (a PyTorch of the system) would be missing",
			 "set python.install.system_site_packages: true (kernodeck capture does "
			 "it for a system interpreter), or correct the procedure");
}

static void
check_python(const struct kd_ctx *ctx, const json_t *ref, struct kd_rows *rows)
{
	static const char *const install_keys[] = { "procedure", "sources", NULL };
	const char *inv = yamlio_get_str(ref, "python.inventory");
	const char *kind = "";
	char why[1200] = "", obs[256], list[128] = "";
	char *abs;
	size_t n;

	if (!na_row(rows, ref, "python.version", "python.version", "Python version recorded")) {
		const json_t *v = yamlio_get(ref, "python.version");
		char num[64];

		if (json_is_number(v)) {
			/* 3.10 unquoted is the number 3.1 */
			snprintf(num, sizeof num, "the number %g", json_number_value(v));
			fail(rows, "python.version", "Python version recorded", num,
			     "a version string, e.g. \"3.10\"",
			     "python.version is a number in reference.yaml, so 3.10 would read as 3.1",
			     "quote it: version: \"3.10\"");
		} else if (reference_filled(v))
			kd_rows_add(rows, "python.version", KD_R_PASS, "Python version recorded",
				    yamlio_get_str(ref, "python.version"), NULL, NULL);
		else
			fail(rows, "python.version", "Python version recorded", "not filled",
			     "e.g. 3.11.2", "the reference does not say which Python ran it",
			     "type it, or run kernodeck capture on the reference machine (key c)");
	}
	if (!na_row(rows, ref, "python.inventory", "python.inventory",
		    "reference inventory of packages")) {
		if (inv == NULL || *inv == '\0') {
			fail(rows, "python.inventory", "reference inventory of packages",
			     "not filled", "a pip freeze or pip inspect file",
			     "no inventory of the reference environment",
			     "run kernodeck capture on the reference machine (key c), or give the "
			     "path of its pip freeze --all output");
		} else {
			abs = reference_abspath(ctx, inv);
			if (count_inventory(abs, &n, &kind, why, sizeof why) != 0) {
				fail(rows, "python.inventory", "reference inventory of packages", inv,
				     "a pip freeze or pip inspect file", why,
				     "give the path of the reference's pip freeze --all output");
			} else {
				snprintf(obs, sizeof obs, "%zu packages (%s)", n, kind);
				kd_rows_add(rows, "python.inventory", KD_R_PASS,
					    "reference inventory of packages", obs, NULL, inv);
			}
			free(abs);
		}
	}
	missing_fields(ref, "python.install", install_keys, list, sizeof list);
	if (!missing_row(rows, list, "python.install", "install procedure and package sources",
			 "the procedure that installed it and its package sources",
			 "write the commands that built the reference environment and where its "
			 "packages came from (index URLs, wheel folders, Debian packages)")) {
		kd_rows_add(rows, "python.install", KD_R_PASS, "install procedure and package sources",
			    yamlio_get_str(ref, "python.install.procedure") ?
			    yamlio_get_str(ref, "python.install.procedure") : "not applicable",
			    NULL, NULL);
	}
	check_site_flag(ref, rows);
	check_base(ctx, ref, rows);
}

/* --------------------------------------------------------------- system */

static int
one_of(const char *s, const char *const *v)
{
	for (int i = 0; s != NULL && v[i] != NULL; i++)
		if (strcmp(s, v[i]) == 0)
			return 1;
	return 0;
}

/* The row of a section (system, result): passing when the section is
 * marked not applicable, failing when one of keys is neither filled nor
 * not applicable; 1 when the row is made, 0 when the checks go on. */
static int
section_row(struct kd_rows *rows, const json_t *ref, const char *section,
	    const char *const *keys, const char *id, const char *label, const char *hint)
{
	char list[256] = "";

	if (na_row(rows, ref, section, id, label))
		return 1;
	missing_fields(ref, section, keys, list, sizeof list);
	return missing_row(rows, list, id, label, "every field filled or not applicable", hint);
}

/* A failing row "NAME 'VALUE'" when the field at path is not marked not
 * applicable and is not one of v; 1 when it failed. */
static int
choice_row(struct kd_rows *rows, const json_t *ref, const char *path, const char *const *v,
	   const char *id, const char *label, const char *expected, const char *hint)
{
	const char *s = yamlio_get_str(ref, path);
	char msg[400];

	if (reference_na(ref, path) != NULL || one_of(s, v))
		return 0;
	snprintf(msg, sizeof msg, "%s '%s'", strrchr(path, '.') + 1, s ? s : "?");
	fail(rows, id, label, msg, expected, msg, hint);
	return 1;
}

static void
check_system(const json_t *ref, struct kd_rows *rows)
{
	static const char *const keys[] = {
		"os", "arch", "gpu_vendor", "gpu_model", "driver", "cuda", "rocm", "backend", NULL,
	};
	static const char *const vendors[] = { "none", "nvidia", "amd", "intel", NULL };
	static const char *const backends[] = { "cpu", "cuda", "rocm", "mps", "xpu", NULL };
	const char *label = "reference system and backend";
	const char *vendor = yamlio_get_str(ref, "system.gpu_vendor");
	const char *backend = yamlio_get_str(ref, "system.backend");
	char msg[400];

	if (section_row(rows, ref, "system", keys, "system", label,
			"run kernodeck capture on the reference machine (key c), type them, or "
			"mark each not applicable with a reason") ||
	    choice_row(rows, ref, "system.gpu_vendor", vendors, "system", label,
		       "none, nvidia, amd or intel", "choose the GPU vendor") ||
	    choice_row(rows, ref, "system.backend", backends, "system", label,
		       "cpu, cuda, rocm, mps or xpu", "choose the PyTorch backend the reference used"))
		return;
	if (vendor != NULL && backend != NULL &&
	    ((strcmp(backend, "cuda") == 0 && strcmp(vendor, "nvidia") != 0) ||
	     (strcmp(backend, "rocm") == 0 && strcmp(vendor, "amd") != 0))) {
		snprintf(msg, sizeof msg, "backend %s on gpu_vendor %s", backend, vendor);
		fail(rows, "system", label, msg, "a backend the GPU can run", msg,
		     "cuda needs an NVIDIA GPU and rocm an AMD one: correct one of them");
		return;
	}
	snprintf(msg, sizeof msg, "%s, %s, %s, backend %s",
		 yamlio_get_str(ref, "system.os") ? yamlio_get_str(ref, "system.os") : "-",
		 yamlio_get_str(ref, "system.arch") ? yamlio_get_str(ref, "system.arch") : "-",
		 vendor && strcmp(vendor, "none") != 0 ?
		 (yamlio_get_str(ref, "system.gpu_model") ? yamlio_get_str(ref, "system.gpu_model")
		  : vendor) : "no GPU", backend ? backend : "-");
	kd_rows_add(rows, "system", KD_R_PASS, label, msg, NULL, NULL);
}

/* -------------------------------------------------------------- result */

static int
shape_ok(const json_t *shape)
{
	const json_t *d;
	size_t i;

	if (!json_is_array(shape))
		return 0;
	json_array_foreach(shape, i, d)
		if (!(json_is_integer(d) && json_integer_value(d) >= 0) && !json_is_null(d))
			return 0;
	return 1;
}

static void
check_contract(const json_t *ref, struct kd_rows *rows)
{
	static const char *const keys[] = {
		"format", "outputs", "count", "shape", "dtype", "finite", "ids", "criterion", NULL,
	};
	static const char *const formats[] = { "npy", "safetensors", "csv", "jsonl", NULL };
	const char *label = "result contract";
	const char *fmt = yamlio_get_str(ref, "result.format");
	const json_t *ids = yamlio_get(ref, "result.ids");
	char msg[400];

	if (section_row(rows, ref, "result", keys, "result.contract", label,
			"describe the outputs: format, folder, count, shape, dtype, finiteness, "
			"how they map to input ids, and the business criterion") ||
	    choice_row(rows, ref, "result.format", formats, "result.contract", label,
		       "npy, safetensors, csv or jsonl", "choose an output format kernodeck can read"))
		return;
	if (reference_na(ref, "result.shape") == NULL && !shape_ok(yamlio_get(ref, "result.shape"))) {
		fail(rows, "result.contract", label, "shape is not a list of sizes",
		     "e.g. [12, 16] (null for a free dimension)", "result.shape must list sizes",
		     "write the shape as a list of whole numbers");
		return;
	}
	if (reference_na(ref, "result.ids") == NULL &&
	    (!json_is_object(ids) || (!reference_filled(json_object_get(ids, "file")) &&
				      !reference_filled(json_object_get(ids, "column")) &&
				      !reference_filled(json_object_get(ids, "key"))))) {
		fail(rows, "result.contract", label, "ids without file, column or key",
		     "ids.file, ids.column or ids.key", "result.ids does not say where ids are",
		     "name the ids file, the CSV column or the JSON key of the identifiers");
		return;
	}
	snprintf(msg, sizeof msg, "%s in %s", fmt ? fmt : "-",
		 yamlio_get_str(ref, "result.outputs") ? yamlio_get_str(ref, "result.outputs") : "-");
	kd_rows_add(rows, "result.contract", KD_R_PASS, label, msg, NULL, NULL);
}

static int
nonneg_number(const json_t *v)
{
	return json_is_number(v) && json_number_value(v) >= 0;
}

static void
check_rule(const json_t *ref, struct kd_rows *rows)
{
	const char *label = "comparison rule declared";
	const char *kind = yamlio_get_str(ref, "result.rule.kind");
	const json_t *just = yamlio_get(ref, "result.rule.justification");
	char msg[400];

	if (na_row(rows, ref, "result.rule", "result.rule", label))
		return;
	if (kind == NULL || *kind == '\0') {
		fail(rows, "result.rule", label, "not declared",
		     "exact, tolerance (atol, rtol, justification) or metric (name, threshold)",
		     "there is no default comparison rule",
		     "declare result.rule: exact; or tolerance with atol, rtol and a written "
		     "justification; or a metric with its threshold");
		return;
	}
	if (strcmp(kind, "exact") == 0) {
		kd_rows_add(rows, "result.rule", KD_R_PASS, label, "exact equality", NULL, NULL);
		return;
	}
	if (strcmp(kind, "tolerance") == 0) {
		if (!nonneg_number(yamlio_get(ref, "result.rule.atol")) ||
		    !nonneg_number(yamlio_get(ref, "result.rule.rtol"))) {
			fail(rows, "result.rule", label, "tolerance without atol and rtol",
			     "atol and rtol, numbers >= 0", "a tolerance needs both atol and rtol",
			     "give result.rule.atol and result.rule.rtol (|out - ref| <= atol + "
			     "rtol * |ref|)");
			return;
		}
		if (!reference_filled(just)) {
			fail(rows, "result.rule", label, "tolerance without a justification",
			     "a written justification",
			     "a tolerance needs a written justification; there is no default",
			     "say why these tolerances are right (result.rule.justification)");
			return;
		}
		snprintf(msg, sizeof msg, "|out - ref| <= %g + %g * |ref|%s",
			 json_number_value(yamlio_get(ref, "result.rule.atol")),
			 json_number_value(yamlio_get(ref, "result.rule.rtol")),
			 json_is_true(yamlio_get(ref, "result.rule.nan_equal")) ? ", NaN equals NaN" : "");
		kd_rows_add(rows, "result.rule", KD_R_PASS, label, msg, NULL, NULL);
		return;
	}
	if (strcmp(kind, "metric") == 0) {
		if (!reference_filled(yamlio_get(ref, "result.rule.metric")) ||
		    !json_is_number(yamlio_get(ref, "result.rule.threshold"))) {
			fail(rows, "result.rule", label, "metric without a name and threshold",
			     "metric and threshold", "a metric rule needs its name and threshold",
			     "give result.rule.metric (e.g. cosine-min) and result.rule.threshold");
			return;
		}
		snprintf(msg, sizeof msg, "%s >= %g", yamlio_get_str(ref, "result.rule.metric"),
			 json_number_value(yamlio_get(ref, "result.rule.threshold")));
		kd_rows_add(rows, "result.rule", reference_filled(just) ? KD_R_PASS : KD_R_WARN,
			    label, msg, reference_filled(just) ? NULL : "a written justification",
			    NULL);
		return;
	}
	snprintf(msg, sizeof msg, "kind '%s'", kind);
	fail(rows, "result.rule", label, msg, "exact, tolerance or metric", msg,
	     "choose exact, tolerance or metric");
}

static void
check_samples(const json_t *ref, const json_t *obs, struct kd_rows *rows)
{
	const json_t *files = obs_reference_files(obs);
	const json_t *s = yamlio_get(ref, "result.sample");
	const json_t *e = yamlio_get(ref, "result.example");

	if (!na_row(rows, ref, "result.sample", "result.sample", "input sample hashed")) {
		if (!reference_filled(json_object_get(s, "path")))
			fail(rows, "result.sample", "input sample hashed", "not filled",
			     "a small input sample", "no input sample recorded",
			     "give the path of the small input sample (file or folder)");
		else
			check_digest(rows, ref, "result.sample", "result.sample",
				     "input sample hashed", s, files, 0);
	}
	if (!na_row(rows, ref, "result.example", "result.example", "example output hashed")) {
		if (!reference_filled(json_object_get(e, "path")))
			fail(rows, "result.example", "example output hashed", "not filled",
			     "one valid output", "no example output recorded",
			     "give the path of one valid output of the reference");
		else
			check_digest(rows, ref, "result.example", "result.example",
				     "example output hashed", e, files, 0);
	}
}

/* ------------------------------------------------------- the rest */

static void
check_na(const json_t *ref, struct kd_rows *rows)
{
	const json_t *na = json_object_get(ref, "not_applicable"), *v;
	const char *k;
	char list[512] = "";
	size_t o = 0, n = 0;

	if (na == NULL || json_is_null(na)) {
		kd_rows_add(rows, "not_applicable", KD_R_PASS, "not applicable rows have a reason",
			    "none marked", NULL, NULL);
		return;
	}
	if (!json_is_object(na)) {
		fail(rows, "not_applicable", "not applicable rows have a reason", "not a mapping",
		     "field: reason", "not_applicable must map field paths to reasons",
		     "write not_applicable as `system.driver: CPU-only project` lines");
		return;
	}
	json_object_foreach((json_t *)na, k, v) {
		n++;
		if (json_is_string(v) && reference_filled(v))
			continue;
		if (o < sizeof list)
			o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", o ? ", " : "", k);
	}
	if (o > 0) {
		char msg[600];

		snprintf(msg, sizeof msg, "without a reason: %s", list);
		fail(rows, "not_applicable", "not applicable rows have a reason", msg, "a reason each",
		     msg, "say why each field does not apply");
		return;
	}
	kd_rows_addf(rows, "not_applicable", KD_R_PASS, "not applicable rows have a reason", NULL,
		     "%zu field%s marked", n, n == 1 ? "" : "s");
}

static void
check_warnings(const json_t *obs, struct kd_rows *rows)
{
	const json_t *w = obs_reference_warnings(obs), *x;
	size_t i;

	json_array_foreach(w, i, x)
		kd_rows_add(rows, obs_reference_warning_id(x), KD_R_WARN,
			    obs_reference_warning_label(x), obs_reference_warning_message(x), NULL, NULL);
}

static void
check_code(const json_t *ref, const json_t *obs, struct kd_rows *rows)
{
	const char *error = obs_reference_code_error(obs);
	const char *problem = obs_reference_code_problem(obs);

	if (na_row(rows, ref, "code", "code.commit", "code pinned to a full commit id"))
		goto entry;
	if (error != NULL && reference_na(ref, "code.commit") == NULL) {
		fail(rows, "code.repository", "git repository readable",
		     problem ? problem : "error", "a git repository with a commit", error,
		     problem_hint(problem, error));
		check_commit(ref, obs, rows, 0);
		goto entry;
	}
	check_commit(ref, obs, rows, error == NULL);
	if (error == NULL) {
		check_head(ref, obs, rows);
		check_entry_script(obs, rows);
		check_clean(ref, obs, rows);
		check_submodules(obs, rows);
	}
	check_remote(ref, obs, rows);
entry:
	check_entry(ref, rows);
}

int
reference_check_rows(const struct kd_ctx *ctx, const json_t *ref, const json_t *obs,
		     struct kd_rows *rows)
{
	if (!json_is_object(ref) || json_object_size(ref) == 0) {
		fail(rows, "reference.present", "a reference is recorded", "empty",
		     "kernodeck/reference.yaml",
		     "nothing is recorded about the reference yet",
		     "fill the fields, or run kernodeck capture on the reference machine");
	}
	check_goal(ref, rows);
	check_code(ref, obs, rows);
	check_params(ref, obs, rows);
	check_data(ref, obs, rows);
	check_python(ctx, ref, rows);
	check_system(ref, rows);
	check_contract(ref, rows);
	check_rule(ref, rows);
	check_samples(ref, obs, rows);
	resume_reference_rows(ref, rows);
	check_na(ref, rows);
	check_warnings(obs, rows);
	return 0;
}
