/*
 * replay.c - the replay engine: rebuild and re-check a project from a
 * dossier in a clean folder (`kernodeck replay`, src/cmd/cmd-replay.c, and the
 * dossier stage's replay action call replay_run).
 *
 * A dossier from someone else is untrusted.  Before anything runs:
 * SHA256SUMS is parsed (an entry that points outside the dossier is
 * refused) and every file is verified (a changed, missing, linked or
 * unlisted file is refused); then every command the replay will run is
 * shown and confirmed once (--yes skips the question; without a terminal
 * and without --yes the replay declines).  Nothing is written outside the
 * work folder: the code is cloned into it (libgit2, the recorded remote or
 * local path, then the recorded commit), kernodeck's folder is made inside
 * it, and pip's cache, temporary files and Python's bytecode are kept in it
 * or not written.
 *
 * The data and weights digests are checked where the reference says (in
 * the clone, else in the recorded project folder) or under --data.  Stages
 * 2 to 6 then run headless through the engine (stage_run) with the
 * deviations and inventory marks the dossier records; the verdict of each
 * stage is: passed, as recorded (every failing check is a recorded
 * deviation), new differences (listed, for a person to record), or not run.
 * Exit 0 only when no stage shows a new difference.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "kernodeck/argv.h"
#include "kernodeck/baseenv.h"
#include "kernodeck/beneath.h"
#include "kernodeck/caps.h"
#include "kernodeck/contain.h"
#include "kernodeck/ctx.h"
#include "kernodeck/dossier.h"
#include "kernodeck/dossier-lock.h"
#include "kernodeck/dossier-text.h"
#include "kernodeck/fleet.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/hash.h"
#include "kernodeck/lock.h"
#include "kernodeck/origin.h"
#include "kernodeck/paths.h"
#include "kernodeck/place.h"
#include "kernodeck/probe.h"
#include "kernodeck/quote.h"
#include "kernodeck/rebuild.h"
#include "kernodeck/reference.h"
#include "kernodeck/replay.h"
#include "kernodeck/repo.h"
#include "kernodeck/resume.h"
#include "kernodeck/run.h"
#include "kernodeck/runenv.h"
#include "kernodeck/runner.h"
#include "kernodeck/sha256sums.h"
#include "kernodeck/sys-query.h"
#include "kernodeck/sys-tools.h"
#include "kernodeck/sysinfo.h"
#include "kernodeck/venv.h"
#include "kernodeck/yamlio.h"

/* where a replay puts the dossier's lock, in the work folder */
#define REPLAY_LOCK "kernodeck/" DOSSIER_REQ_LOCK
#define REPLAY_DIRECT "kernodeck/" DOSSIER_REQ_DIRECT

static void
say(const struct replay_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
say(const struct replay_opts *o, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (o->sink != NULL)
		kd_sink_line(o->sink, buf);
	else
		fprintf(stderr, "%s\n", buf);
}

static void
say_line(void *u, const char *line)
{
	say(u, "%s", line);
}

/* ---- the dossier, verified -------------------------------------------------- */

static int
verify_dossier(const struct replay_opts *o, struct kd_err *err)
{
	struct sha256sums sums;
	struct sha256sums_report rep;
	char *sp = fsutil_join(o->dossier, "SHA256SUMS");
	int rc;

	if (sp == NULL || !fsutil_exists(sp)) {
		free(sp);
		return kd_err_set(err, KD_EINPUT, o->dossier, 0,
				  "%s: no SHA256SUMS: not a dossier kernodeck wrote", o->dossier);
	}
	rc = sha256sums_load(sp, &sums, err);
	free(sp);
	if (rc != 0)
		return KD_EINPUT;
	rc = sha256sums_verify(o->dossier, &sums, "SHA256SUMS", &rep, err);
	if (rc == KD_EFAIL) {
		for (size_t i = 0; i < rep.n; i++)
			say(o, "  %s: %s", rep.v[i].path, rep.v[i].what);
		rc = kd_err_set(err, KD_EINPUT, o->dossier, 0,
				"%s does not verify against its SHA256SUMS (%zu problem%s, "
				"first: %s %s): refusing to replay it", o->dossier, rep.n,
				rep.n == 1 ? "" : "s", rep.v[0].path, rep.v[0].what);
	} else if (rc == 0) {
		say(o, "dossier %s: %zu files verified against SHA256SUMS", o->dossier, rep.checked);
	}
	sha256sums_report_free(&rep);
	sha256sums_free(&sums);
	return rc;
}

static int
load_yaml(const char *dir, const char *rel, struct yamlio_doc *doc, struct kd_err *err)
{
	char *p = fsutil_join(dir, rel);
	int rc = yamlio_load_file(p, doc, err);

	free(p);
	return rc;
}

/* procedure.sh is what dossier.yaml and the reference make of it: made
 * again here and compared, so that a line added (and SHA256SUMS computed
 * again, as anyone can) is refused with the difference shown. */
static int
check_procedure(const struct replay_opts *o, const json_t *dy, const json_t *ref,
		struct kd_err *err)
{
	char *pp = fsutil_join(o->dossier, "procedure.sh"), *have = NULL;
	char *want = dossier_procedure_of(dy, ref);
	size_t len;
	int rc = 0;

	if (pp == NULL || fsutil_read_file(pp, 1u << 20, &have, &len, err) != 0) {
		rc = KD_EINPUT;
	} else if (want != NULL && strcmp(have, want) != 0) {
		contain_show_diff(want, have, "procedure.sh", say_line, (void *)o);
		rc = kd_err_set(err, KD_EINPUT, pp, 0,
				"procedure.sh disagrees with dossier.yaml and the reference "
				"(- what they make of it, + the dossier's): refusing the dossier");
	}
	free(pp);
	free(have);
	free(want);
	return rc;
}

/* The dossier's rebuild file names no include that leaves the project. */
static int
includes_contained(const struct replay_opts *o, struct kd_err *err)
{
	char *dp = fsutil_join(o->dossier, "project");
	json_t *list = NULL;
	int rc = dp == NULL ? KD_EENV : contain_includes(dp, "requirements-rebuild.txt", &list, err);

	json_decref(list);
	free(dp);
	return rc;
}

/* ---- the commands, shown and confirmed ------------------------------------ */

static const char *
str_of(const json_t *t, const char *path)
{
	return yamlio_get_str(t, path);
}

/* The lines of a file of the dossier that are not empty or comments, each
 * after indent; header (or NULL) said first.  Nothing when it cannot be
 * read. */
static void
show_lines(const struct replay_opts *o, const char *path, const char *indent,
	   const char *header)
{
	char *text = NULL;
	size_t len;

	if (path == NULL || fsutil_read_file(path, 1u << 20, &text, &len, NULL) != 0)
		return;
	if (header != NULL)
		say(o, "%s", header);
	for (char *l = text, *nl; l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		if (*l != '\0' && *l != '#')
			say(o, "%s%s", indent, l);
	}
	free(text);
}

/* The files the rebuild file includes (-r, -c), as the dossier holds them:
 * each is compared with the clone's before pip runs. */
static void
show_includes(const struct replay_opts *o)
{
	char *dp = fsutil_join(o->dossier, "project");
	json_t *list = NULL, *v;
	size_t i;

	if (dp != NULL && contain_includes(dp, "requirements-rebuild.txt", &list, NULL) == 0) {
		json_array_foreach(list, i, v) {
			const char *rel = json_string_value(json_object_get(v, "path"));
			char *p = fsutil_join(dp, rel);
			say(o, "    %s %s (named in %s), which holds:",
			    json_string_value(json_object_get(v, "kind")), rel,
			    json_string_value(json_object_get(v, "from")));
			show_lines(o, p, "      ", NULL);
			free(p);
		}
	}
	json_decref(list);
	free(dp);
}

/* One command of the plan: "    $ ARGV" (quote_argv: the line the run's
 * log records), with what it is for on the line above; argv released. */
static void
plan_line(const struct replay_opts *o, const char *what, char **argv)
{
	char *line = argv ? quote_argv((const char *const *)argv) : NULL;

	say(o, "    # %s", what);
	say(o, "    $ %s", line ? line : "(out of memory)");
	free(line);
	argv_free(argv);
}

/* The lines of the rebuild file, as the plan shows them. */
static void
plan_requirements(const struct replay_opts *o)
{
	char *rp = fsutil_join(o->dossier, "project/" REBUILD_REQUIREMENTS);

	show_lines(o, rp, "        ", "      " REBUILD_REQUIREMENTS " (the dossier's copy; the "
		   "clone's is refused unless the same) holds:");
	free(rp);
}

/* The dossier's lock the rebuild installs (malloc'd path), or NULL: with
 * --unlocked, or a dossier written before kernodeck kept one. */
static char *
replay_lock(const struct replay_opts *o)
{
	char *p = fsutil_join(o->dossier, DOSSIER_REQ_LOCK);

	if (o->unlocked || p == NULL || !fsutil_exists(p)) {
		free(p);
		return NULL;
	}
	return p;
}

/* Does dir hold every file named in files (an array of names)? */
static int
holds_all(const char *dir, const json_t *files)
{
	const json_t *v;
	size_t i;
	struct stat st;

	json_array_foreach(files, i, v) {
		char *p = dir ? fsutil_join(dir, json_string_value(v)) : NULL;
		int ok = p != NULL && stat(p, &st) == 0 && S_ISREG(st.st_mode);
		free(p);
		if (!ok)
			return 0;
	}
	return dir != NULL;
}

/* The folders the lock's artefacts from outside the recorded project are
 * found in here (dossier_lock_folders): for each such folder, the first
 * --find-links DIR that holds all its files, else the recorded folder
 * when it does.  An array of {folder (recorded), name, files, how, dir
 * (here, absent when missing)}; into *dirs a NULL-ended vector of the
 * folders pip is given (with --unlocked: the --find-links DIRs). */
static json_t *
lock_folders(const struct replay_opts *o, const json_t *dy, char ***dirs)
{
	char *lk = replay_lock(o);
	json_t *all = lk ? dossier_lock_folders(str_of(dy, "code.local_path"),
						yamlio_get(dy, "origins")) : json_array();
	json_t *out = json_array(), *use = json_array(), *f, *v;
	size_t i, k, n = 0;

	json_array_foreach(all, i, f) {
		const json_t *files = json_object_get(f, "files");
		const char *rec = json_string_value(json_object_get(f, "folder")), *hit = NULL;
		if (json_object_get(f, "path") != NULL)
			continue;   /* inside the project: in the clone */
		for (k = 0; o->find_links != NULL && o->find_links[k] != NULL && !hit; k++)
			if (holds_all(o->find_links[k], files))
				hit = o->find_links[k];
		json_object_set_new(f, "how", json_string(hit ? "--find-links" :
			holds_all(rec, files) ? "the recorded folder, found here" : "missing"));
		if (hit == NULL && holds_all(rec, files))
			hit = rec;
		if (hit != NULL) {
			json_object_set_new(f, "dir", json_string(hit));
			json_array_append_new(use, json_string(hit));
		}
		json_array_append(out, f);
	}
	for (k = 0; lk == NULL && o->find_links != NULL && o->find_links[k] != NULL; k++)
		json_array_append_new(use, json_string(o->find_links[k]));
	if ((*dirs = calloc(json_array_size(use) + 1, sizeof **dirs)) != NULL)
		json_array_foreach(use, i, v) {
			int dup = 0;
			for (k = 0; k < n; k++)
				dup = dup || strcmp((*dirs)[k], json_string_value(v)) == 0;
			if (!dup)
				(*dirs)[n++] = strdup(json_string_value(v));
		}
	json_decref(use);
	json_decref(all);
	free(lk);
	return out;
}

/* Say where each folder of lock_folders is; 1 when one is missing. */
static int
plan_folders(const struct replay_opts *o, const json_t *folders)
{
	const json_t *f, *v;
	size_t i, k;
	int missing = 0;

	json_array_foreach(folders, i, f) {
		const char *dir = json_string_value(json_object_get(f, "dir"));
		char names[1024] = "";
		size_t len = 0;
		json_array_foreach(json_object_get(f, "files"), k, v) {
			int w = snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "",
					 json_string_value(v));
			if (w < 0 || (size_t)w >= sizeof names - len)
				break;
			len += (size_t)w;
		}
		if (dir != NULL) {
			say(o, "    # the lock's %s: from the find-links folder %s of the building "
			    "machine, here %s (%s)", names,
			    json_string_value(json_object_get(f, "folder")), dir,
			    json_string_value(json_object_get(f, "how")));
		} else {
			missing = 1;
			say(o, "    # MISSING: the lock's %s, from the find-links folder %s of the "
			    "building machine (outside its project), are not there nor under any "
			    "--find-links DIR: give the folder that holds them with --find-links DIR",
			    names, json_string_value(json_object_get(f, "folder")));
		}
	}
	return missing;
}

/* Stage 3: the venv (on the base environment when the reference names
 * one), pip, the install, the inventory. */
static void
plan_rebuild(const struct replay_opts *o, const json_t *ref, const char *py, const char *vpy,
	     const json_t *folders, char *const *dirs)
{
	int sys_site = json_is_true(yamlio_get(ref, "python.install.system_site_packages"));
	int no_pip = sys_site && json_is_true(yamlio_get(ref, "python.install.without_pip"));
	const char *base = yamlio_get_str(ref, "python.install.base");

	say(o, "  stage 3, rebuild:");
	if (base != NULL) {
		struct baseenv be;
		struct kd_err e = { 0 };
		int ok = baseenv_locate(o->workdir, base, &be, &e) == 0;

		if (!ok)
			say(o, "    (the base environment %s cannot be found: %s)", base, e.msg);
		plan_line(o, "the base environment: its package folders and packages",
			  baseenv_query_argv(ok ? be.python : base));
		plan_line(o, "the venv, made with the base environment's interpreter",
			  venv_create_argv(ok ? be.python : base, sys_site, no_pip));
		say(o, "    # then the base's package folders into .venv-rebuild/.../site-packages/"
		    BASEENV_PTH " (a file, no program)");
		plan_line(o, "the venv: its site-packages", baseenv_query_argv(vpy));
		baseenv_free(&be);
	} else {
		plan_line(o, "the venv", venv_create_argv(py, sys_site, no_pip));
	}
	plan_line(o, "pip's version", venv_pip_argv(vpy, VENV_PIP_VERSION));
	{
		/* the work folder's kernodeck/ (kd_ctx_open without --state-dir) */
		char *report = venv_report_path(o->workdir, o->workdir, "kernodeck/"
						REBUILD_REPORT_PART);
		char *lock = replay_lock(o);
		plan_line(o, lock ? "the install of the dossier's lock: exactly the artefacts "
			  "recorded, each checked by its digest, no resolution (--unlocked "
			  "resolves the rebuild file again)" : "the install, pip's installation "
			  "report kept (where each package comes from, its digest)",
			  report ? venv_pip_install_argv(vpy, report, lock ? REPLAY_LOCK : NULL,
							 (const char *const *)dirs) : NULL);
		plan_folders(o, folders);
		if (lock != NULL)
			show_lines(o, lock, "        ", "      " REPLAY_LOCK " (the dossier's "
				   DOSSIER_REQ_LOCK ") holds:");
		if (lock != NULL) {
			char *direct = fsutil_join(o->dossier, DOSSIER_REQ_DIRECT);
			char *r2 = venv_report_path(o->workdir, o->workdir, "kernodeck/"
						    REBUILD_REPORT_DIRECT);
			if (direct != NULL && fsutil_exists(direct)) {
				plan_line(o, "then what the lock cannot hash (VCS checkouts at their "
					  "recorded commit, folders of the clone), no dependencies; "
					  "each VCS package's direct_url.json is then checked against "
					  "its commit", r2 ? venv_pip_direct_argv(vpy, r2, REPLAY_DIRECT) :
					  NULL);
				show_lines(o, direct, "        ", "      " REPLAY_DIRECT " (the "
					   "dossier's " DOSSIER_REQ_DIRECT ") holds:");
			}
			free(direct);
			free(r2);
		}
		free(lock);
		free(report);
	}
	plan_requirements(o);
	show_includes(o);
	plan_line(o, "the inventory", venv_pip_argv(vpy, VENV_PIP_FREEZE));
	plan_line(o, "the inventory, with each package's metadata", venv_pip_argv(vpy, VENV_PIP_INSPECT));
	if (base != NULL)
		plan_line(o, "the venv: where each package comes from", baseenv_query_argv(vpy));
	plan_line(o, "the venv: where the packages pip did not install are",
		  baseenv_query_argv(vpy));
	if (sys_site || base != NULL)
		plan_line(o, "Debian's Python packages and their files: who provides the "
			  "system's packages", origin_dpkg_argv());
}

static void plan_env(const struct replay_opts *o, char *const *env, const json_t *denv);

/* Stage 2's queries (sys-query.c's vectors), each program where stage 2
 * finds it (systools_find: nvcc in $CUDA_HOME before PATH); one that is
 * not found is not run. */
static void
plan_system(const struct replay_opts *o, const char *py)
{
	const char *pq[6];
	char **v;

	say(o, "  stage 2, the system: each program where this machine has it");
	for (int q = 0; q < SYSQ_N; q++) {
		const char *const *av = sysquery_argv((enum sysquery)q);
		char *path = systools_find((enum sysquery)q);
		size_t n = 0;

		if (path == NULL) {
			say(o, "    # %s: %s is not found here (not run)",
			    sysquery_what((enum sysquery)q), av[0]);
			continue;
		}
		while (av[n] != NULL)
			n++;
		if ((v = calloc(n + 1, sizeof *v)) != NULL) {
			v[0] = path;
			path = NULL;
			for (size_t k = 1; k < n; k++)
				v[k] = strdup(av[k]);
		}
		free(path);
		plan_line(o, sysquery_what((enum sysquery)q), v);
	}
	sysquery_python(py, pq);
	if ((v = calloc(6, sizeof *v)) != NULL)
		for (size_t k = 0; k < 5; k++)
			v[k] = strdup(pq[k]);
	plan_line(o, "the interpreter for the rebuild (another, whose name gives no version, is "
		  "asked the same way only when the choice needs it)", v);
}

/* The resume check's programs (reference resume:), each as the vector
 * resume_gather then runs (resume_argv: placeholders substituted, the
 * runs' folders under the work folder's kernodeck/resume/). */
static void
plan_resume(const struct replay_opts *o, const json_t *ref, const char *work)
{
	struct resume_spec s;
	char why[512], *kdir, *da, *db, *reader;
	int rc = resume_spec_parse(ref, &s, why, sizeof why);

	if (rc == 1)
		return;
	if (rc != 0) {
		say(o, "    (the resume check does not run: %s)", why);
		return;
	}
	kdir = fsutil_join(work, "kernodeck");
	da = fsutil_join(kdir ? kdir : work, "resume/uninterrupted");
	db = fsutil_join(kdir ? kdir : work, "resume/interrupted");
	reader = kd_share_path("ckpt-inventory.py");
	for (int i = 0; i < RESUME_NWHICH; i++) {
		char what[300];

		if (i == RESUME_PEEK && !s.kill)
			continue;
		snprintf(what, sizeof what, "%s%s%s", resume_what[i],
			 i == RESUME_INTERRUPTED && s.kill ? " (killed once its checkpoint is "
			 "complete)" : "", i == RESUME_FINAL ? " (only when both exist)" : "");
		plan_line(o, what, resume_argv(work, &s, (enum resume_which)i, da ? da : work,
					       db ? db : work, reader ? reader : "ckpt-inventory.py"));
	}
	free(reader);
	free(da);
	free(db);
	free(kdir);
}

/* Every command the replay runs, each as the argument vector the stage
 * then executes (argv.h: the domains build both). */
static void
show_plan(const struct replay_opts *o, const char *url, const json_t *dy, const json_t *ref,
	  const char *py, const json_t *folders, char *const *dirs, char *const *env)
{
	char *work = kd_abspath(o->workdir), *vpy = venv_python(work ? work : o->workdir);
	char *probe = kd_share_path("probe.py");
	const char *why = NULL;
	const json_t *v;
	int uses_venv;
	char **ep;
	size_t i;

	say(o, "The replay will run, in %s (and write nothing outside it):", work);
	plan_env(o, env, json_object_get(dy, "environment"));
	say(o, "  git clone %s %s   (libgit2, no program), then check out %s%s",
	    url, work, str_of(dy, "code.commit") ? str_of(dy, "code.commit") : "?",
	    o->repo != NULL ? "   (--repo: this copy, not the recorded remote)" : "");
	json_array_foreach(yamlio_get(ref, "data"), i, v)
		if (json_string_value(json_object_get(v, "path"))) {
			const char *dp = json_string_value(json_object_get(v, "path"));
			const char *h = json_string_value(json_object_get(v, "sha256"));
			say(o, "  sha256 of data %s (expect %.12s): %s%s%s%s", dp, h ? h : "?",
			    dp[0] == '/' ? "" : "the clone's own if it holds it, else ",
			    o->data ? o->data : dp[0] == '/' ? dp : "the recorded project folder's",
			    o->data ? "/PATH or NAME" : "",
			    dp[0] == '/' ? "   (read outside the work folder, where --data or the "
			    "reference says)" : ", read outside the work folder and put at that "
			    "path in the clone (a hard link, else a reflink, else a copy)");
		}
	plan_system(o, py);
	plan_rebuild(o, ref, py, vpy, folders, dirs);
	say(o, "  stage 4, contract:");
	plan_line(o, "pip check", venv_pip_argv(vpy, VENV_PIP_CHECK));
	plan_line(o, "the rebuilt inventory, compared with the reference's (when stage 3's "
		  "pip inspect is not up to date)",
		  venv_pip_argv(vpy, VENV_PIP_INSPECT));
	say(o, "  stage 5, compute:");
	plan_line(o, "kernodeck's probe: import torch, a small computation on the expected "
		  "device", probe_run_argv(work ? work : o->workdir, probe, ref));
	say(o, "  stage 6, sample:");
	if ((ep = reference_entry_argv(work ? work : o->workdir, yamlio_get(ref, "code.entry_point"),
			     &uses_venv, &why)) != NULL)
		plan_line(o, "the entry point, on the sample", ep);
	else
		say(o, "    (no entry point runs: %s)", why);
	plan_resume(o, ref, work ? work : o->workdir);
	free(probe);
	free(vpy);
	free(work);
}

/* Ask once on the terminal.  1: yes. */
static int
confirm(const struct replay_opts *o)
{
	char ans[64];

	if (o->yes)
		return 1;
	if (!isatty(STDIN_FILENO)) {
		say(o, "not confirmed: there is no terminal to ask; pass --yes to run these commands");
		return 0;
	}
	fputs("Run these commands? [y/N] ", stderr);
	fflush(stderr);
	if (fgets(ans, sizeof ans, stdin) == NULL)
		return 0;
	return ans[0] == 'y' || ans[0] == 'Y';
}

/* ---- the code ---------------------------------------------------------------- */

static int
clone_at(const char *url, const char *commit, const char *dir, struct kd_err *err)
{
	git_clone_options co;
	git_checkout_options ck;
	git_repository *repo = NULL;
	git_commit *c = NULL;
	git_oid oid;
	int rc = 0;
	const git_error *e;

	git_libgit2_init();
	git_clone_options_init(&co, GIT_CLONE_OPTIONS_VERSION);
	co.checkout_opts.checkout_strategy = GIT_CHECKOUT_NONE;
	if (git_clone(&repo, url, dir, &co) < 0) {
		e = git_error_last();
		rc = kd_err_set(err, KD_EENV, url, 0, "cannot clone %s: %s", url,
				e && e->message ? e->message : "libgit2 error");
		goto out;
	}
	if (git_oid_fromstr(&oid, commit) < 0 || git_commit_lookup(&c, repo, &oid) < 0) {
		rc = kd_err_set(err, KD_EINPUT, url, 0,
				"the recorded commit %s is not in %s (was it pushed?)", commit, url);
		goto out;
	}
	git_checkout_options_init(&ck, GIT_CHECKOUT_OPTIONS_VERSION);
	ck.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (git_checkout_tree(repo, (const git_object *)c, &ck) < 0 ||
	    git_repository_set_head_detached(repo, &oid) < 0) {
		e = git_error_last();
		rc = kd_err_set(err, KD_EENV, dir, 0, "cannot check out %s: %s", commit,
				e && e->message ? e->message : "libgit2 error");
	}
out:
	git_commit_free(c);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return rc;
}

/* ---- data and weights ---------------------------------------------------------- */

/* Where a data item is looked for, in this order: the clone (what the
 * project reads, tracked or not), then --data (DIR/PATH as the reference
 * writes it, then DIR/NAME, its last part), else the recorded project
 * folder; an absolute path under --data by its name, else where it is.
 * Each place tried is appended to tried ("; "-separated).  The first that
 * exists (malloc'd), or NULL; *in_clone: it is the clone's own. */
static char *
locate(const struct replay_opts *o, const char *local, const char *path, char *tried,
       size_t tlen, int *in_clone)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *dirs[4] = { NULL }, *rels[4] = { NULL };
	size_t n = 0;

	*in_clone = 0;
	if (path[0] != '/') {
		dirs[n] = o->workdir, rels[n++] = path;
		if (o->data != NULL)
			dirs[n] = o->data, rels[n++] = path;
	}
	if (o->data != NULL && (path[0] == '/' || strcmp(name, path) != 0))
		dirs[n] = o->data, rels[n++] = name;
	if (path[0] == '/')
		dirs[n] = "", rels[n++] = path;
	else if (o->data == NULL && local != NULL)
		dirs[n] = local, rels[n++] = path;
	for (size_t i = 0; i < n; i++) {
		char *p = *dirs[i] ? fsutil_join(dirs[i], rels[i]) : strdup(rels[i]);
		size_t tl = strlen(tried);

		if (p == NULL)
			return NULL;
		snprintf(tried + tl, tlen - tl, "%s%s", tl ? "; " : "", p);
		if (fsutil_exists(p)) {
			*in_clone = i == 0 && path[0] != '/';
			return p;
		}
		free(p);
	}
	return NULL;
}

/* One item: found, its SHA-256 the recorded one, and (when found outside
 * the clone, for a path the project reads inside it) placed there by
 * place_tree.  A problem is appended to bad: 2 not found, 1 another, 0
 * none. */
static int
place_item(const struct replay_opts *o, const char *local, const char *path, const char *want,
	   json_t *bad)
{
	char hex[65], tried[4 * PATH_MAX + 16] = "", *at;
	struct stat st;
	struct kd_err e;
	enum place_how how;
	size_t before = json_array_size(bad);
	int in_clone, rc;

	if ((at = locate(o, local, path, tried, sizeof tried, &in_clone)) == NULL) {
		json_array_append_new(bad, json_sprintf("data %s: not found (looked for %s)%s", path,
			tried, o->data ? "" : "; give --data DIR, the folder that holds it"));
		return 2;
	}
	/* the clone's own item is read below the work folder without following
	 * a link its commit holds (hash.c reads through beneath_open_read) */
	if (lstat(at, &st) == 0 && S_ISDIR(st.st_mode))
		rc = hash_folder(at, NULL, NULL, hex, NULL, NULL, &e);
	else
		rc = hash_file(at, NULL, NULL, hex, NULL, &e);
	if (rc != 0) {
		json_array_append_new(bad, json_sprintf("data %s: %s", path, e.msg));
	} else if (strcmp(hex, want) != 0) {
		json_array_append_new(bad, json_sprintf("data %s: %s has SHA-256 %.12s, the "
			"reference records %.12s", path, at, hex, want));
	} else if (in_clone || path[0] == '/') {
		say(o, "data %s: SHA-256 matches (%s)", path, at);
	} else if (!sha256sums_path_safe(path)) {
		json_array_append_new(bad, json_sprintf("data %s: not a path inside the work "
			"folder: cannot be put where the project reads it", path));
	} else {
		char *in = fsutil_join(o->workdir, path);
		if (in == NULL || place_tree(at, in, &how, &e) != 0)
			json_array_append_new(bad, json_sprintf("data %s: verified in %s, but cannot "
				"be put in the work folder: %s", path, at, in ? e.msg : "no memory"));
		else
			say(o, "data %s: SHA-256 matches (%s), %s into %s", path, at,
			    place_how_name(how), in);
		free(in);
	}
	free(at);
	return json_array_size(bad) > before;
}

/* Every data and weights item with a recorded SHA-256, before any stage
 * runs: 0, or the problems said and an error (KD_EINPUT: an item not
 * found; KD_EFAIL: one that does not verify or cannot be placed). */
static int
place_data(const struct replay_opts *o, const json_t *ref, const char *local, struct kd_err *err)
{
	json_t *bad = json_array(), *b;
	const json_t *it;
	int missing = 0, rc = 0;
	size_t i;

	json_array_foreach(yamlio_get(ref, "data"), i, it) {
		const char *path = json_string_value(json_object_get(it, "path"));
		const char *want = json_string_value(json_object_get(it, "sha256"));

		if (path != NULL && want != NULL && place_item(o, local, path, want, bad) == 2)
			missing = 1;
	}
	json_array_foreach(bad, i, b)
		say(o, "  %s", json_string_value(b));
	if (json_array_size(bad) > 0)
		rc = kd_err_set(err, missing ? KD_EINPUT : KD_EFAIL, NULL, 0,
				"%zu data or weights item%s not found or not verified (first: %s): "
				"no stage was run", json_array_size(bad),
				json_array_size(bad) == 1 ? "" : "s",
				json_string_value(json_array_get(bad, 0)));
	json_decref(bad);
	return rc;
}

/* ---- the stages ------------------------------------------------------------------- */

/* The deviations of stage id recorded in the dossier's state. */
static const json_t *
recorded_devs(const json_t *dy, const char *id)
{
	const json_t *stages = json_object_get(dy, "stages"), *s;
	size_t i;

	json_array_foreach(stages, i, s)
		if (json_is_string(json_object_get(s, "id")) &&
		    strcmp(json_string_value(json_object_get(s, "id")), id) == 0)
			return json_object_get(s, "deviations");
	return NULL;
}

/* Put the recorded deviations into the fresh state, so that the replayed
 * state shows them as the dossier does. */
static void
seed_deviations(struct kd_ctx *ctx, const json_t *dy)
{
	for (int i = 0; i < KD_NSTAGES; i++) {
		const json_t *devs = recorded_devs(dy, kd_stages[i]->id), *d;
		struct kd_stage_state *ss = &ctx->state.st[i];
		size_t k;

		if (!kd_stages[i]->replay)
			continue;

		json_array_foreach(devs, k, d) {
			struct kd_deviation *nv = realloc(ss->devs, (ss->ndevs + 1) * sizeof *nv);
			const char *ch = json_string_value(json_object_get(d, "check"));
			const char *why = json_string_value(json_object_get(d, "why"));
			if (nv == NULL || ch == NULL || why == NULL)
				continue;
			ss->devs = nv;
			nv += ss->ndevs++;
			nv->check = strdup(ch);
			nv->what = json_string_value(json_object_get(d, "what")) ?
				strdup(json_string_value(json_object_get(d, "what"))) : NULL;
			nv->why = strdup(why);
			nv->intentional = json_is_true(json_object_get(d, "intentional"));
			nv->author = strdup(json_string_value(json_object_get(d, "author")) ?
					    json_string_value(json_object_get(d, "author")) : "dossier");
			nv->time = json_string_value(json_object_get(d, "time")) ?
				strdup(json_string_value(json_object_get(d, "time"))) : NULL;
		}
	}
}

/* Is every folder of rel (relative, safe) inside the work folder a real
 * folder or not there yet?  A link on the way could lead out of it. */
static int
parents_contained(const char *workdir, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;
	int n = snprintf(path, sizeof path, "%s/%s", workdir, rel);

	if (n < 0 || (size_t)n >= sizeof path)
		return 0;
	for (char *s = path + strlen(workdir) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		int r = lstat(path, &st);
		*s = '/';
		if (r == 0 && !S_ISDIR(st.st_mode))
			return 0;
		if (r != 0)
			break;
	}
	return 1;
}

/* The reference's files that the clone lacks but the dossier holds (its
 * project/ copies, verified by SHA256SUMS): the inventory and pip inspect
 * that capture wrote into kernodeck/reference/, a folder git ignores.  Put
 * where the reference names them, inside the work folder. */
static int
restore_missing(const struct replay_opts *o, const json_t *ref, struct kd_err *err)
{
	static const char *const keys[] = { "python.inventory", "python.inspect" };
	int rc = 0;

	for (size_t i = 0; i < sizeof keys / sizeof keys[0] && rc == 0; i++) {
		const char *rel = yamlio_get_str(ref, keys[i]);
		char src[PATH_MAX], dst[PATH_MAX], *text = NULL, *slash;
		size_t len = 0;

		if (rel == NULL || !sha256sums_path_safe(rel))
			continue;
		snprintf(src, sizeof src, "%s/project/%s", o->dossier, rel);
		snprintf(dst, sizeof dst, "%s/%s", o->workdir, rel);
		if (fsutil_exists(dst) || !fsutil_exists(src) || !parents_contained(o->workdir, rel))
			continue;
		if ((slash = strrchr(dst, '/')) != NULL) {
			*slash = '\0';
			rc = fsutil_mkdirs(dst, err);
			*slash = '/';
		}
		if (rc == 0 && (rc = fsutil_read_file(src, KD_CAP_PIP_OUTPUT, &text, &len, err)) == 0)
			rc = fsutil_write_atomic(dst, text, len, 0, err);
		free(text);
		if (rc == 0)
			say(o, "%s: from the dossier (%s), which the clone does not hold", rel, keys[i]);
	}
	return rc;
}

/* The choices a person made that the stages read back: the inventory
 * marks of stage 4. */
static void
seed_settings(struct kd_ctx *ctx, const char *dossier)
{
	struct yamlio_doc doc;
	static const char *const keep[] = { "contract.marks" };

	if (load_yaml(dossier, "kernodeck/state.yaml", &doc, NULL) != 0)
		return;
	for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
		json_t *v = yamlio_get(json_object_get(doc.root, "settings"), keep[i]);
		if (v != NULL)
			yamlio_set(ctx->state.settings, keep[i], json_deep_copy(v));
	}
	yamlio_doc_free(&doc);
}

static void
stderr_line(void *u, const char *line, size_t len)
{
	(void)u;
	fprintf(stderr, "  | %.*s\n", (int)len, line);
}

/* Run the stages a replay runs (ops->replay); the verdict of each into
 * verdict[]. */
static int
run_stages(const struct replay_opts *o, struct kd_ctx *ctx, json_t *verdict, int *newdiff,
	   struct kd_err *err)
{
	struct kd_sink dflt = { kd_sink_print_step, stderr_line, NULL, NULL };
	const struct kd_sink *sink = o->sink ? o->sink : &dflt;
	int stop = 0;

	for (int i = 0; i < KD_NSTAGES; i++) {
		json_t *v, *nd;
		const struct kd_stage_state *ss = &ctx->state.st[i];
		struct kd_rows info = { 0 };
		const char *what;
		int rc;

		if (!kd_stages[i]->replay)
			continue;
		v = json_object();
		nd = json_array();
		json_object_set_new(v, "stage", json_string(kd_stages[i]->id));
		if (stop) {
			json_object_set_new(v, "verdict", json_string("not run"));
			json_array_append_new(verdict, v);
			json_decref(nd);
			continue;
		}
		if (o->sink == NULL)
			fprintf(stderr, "kernodeck replay: stage %d, %s\n", i + 1, kd_stages[i]->id);
		/* the paths kernodeck writes, again proven free of links */
		rc = contain_check_tree(o->workdir, ctx->ref, 0, err);
		if (rc == 0)
			rc = stage_run(ctx, i, sink, &info, err);
		/* and after it: its programs (the entry point) may have made one */
		if (rc == 0)
			rc = contain_check_after(o->workdir, ctx->ref, kd_stages[i]->id, err);
		kd_rows_free(&info);
		if (rc != 0) {
			char buf[1200];
			json_object_set_new(v, "verdict", json_string("error"));
			json_object_set_new(v, "error", json_string(kd_err_format(err, buf, sizeof buf)));
			json_array_append_new(verdict, v);
			json_decref(nd);
			return rc;
		}
		for (size_t k = 0; k < ss->rows.n; k++) {
			const struct kd_row *r = &ss->rows.v[k];
			if (r->status == KD_R_FAIL && stage_find_deviation(&ctx->state, i, r->id) == NULL)
				json_array_append_new(nd, json_pack("{s:s, s:s?, s:s?, s:s?}", "check",
					r->id, "observed", r->observed, "expected", r->expected,
					"first_error", r->first_error));
		}
		if (json_array_size(nd) > 0) {
			what = "new differences";
			*newdiff = 1;
			stop = 1;
		} else if (ss->status == KD_ST_DEVIATION) {
			what = "as recorded";
		} else {
			what = kd_status_name(ss->status);
		}
		json_object_set_new(v, "verdict", json_string(what));
		json_object_set_new(v, "new_differences", nd);
		json_array_append_new(verdict, v);
	}
	return 0;
}

static void
print_verdict(const json_t *verdict, int newdiff)
{
	const json_t *v, *d;
	size_t i, k;

	printf("replay verdict:\n");
	json_array_foreach(verdict, i, v) {
		printf("  %-9s %s\n", json_string_value(json_object_get(v, "stage")),
		       json_string_value(json_object_get(v, "verdict")));
		json_array_foreach(json_object_get(v, "new_differences"), k, d) {
			const char *ob = json_string_value(json_object_get(d, "observed"));
			const char *ex = json_string_value(json_object_get(d, "expected"));
			const char *fe = json_string_value(json_object_get(d, "first_error"));
			printf("      %s: %s%s%s%s\n", json_string_value(json_object_get(d, "check")),
			       ob ? ob : "", ex ? " (expected " : "", ex ? ex : "", ex ? ")" : "");
			/* what failed, in its own words (the package and both commits of
			 * a VCS checkout the lock has at another commit) */
			if (fe != NULL && fe[0] != '\0' && (ob == NULL || strcmp(fe, ob) != 0))
				printf("        %.*s\n", (int)strcspn(fe, "\n"), fe);
		}
	}
	printf("overall: %s\n", newdiff ? "NEW DIFFERENCES: record them (kernodeck deviate, or "
	       "the walkthrough) or fix them" : "passed (every stage passed or shows exactly the "
	       "recorded deviations)");
}

/* The environment of every program the replay's stages run: each cache,
 * temporary file and home-folder file inside the work folder, Python's
 * bytecode unwritten, and the variables of dossier.yaml's environment
 * (runenv.h's list, checked at load) that kernodeck's own environment does
 * not set.  The user's configuration (pip's index settings, git's
 * identity) is still read from where it is.  Given to the runner through
 * the context (ctx.child_env): kernodeck's own environment is not changed.
 * env[] gets at most REPLAY_NENV malloc'd strings, NULL-ended; the plan
 * shows them all before anything runs. */
#define REPLAY_NOWN 7
#define REPLAY_NENV (REPLAY_NOWN + RUNENV_MAX_VARS)
static void
contain_env(const char *workdir, const json_t *denv, char *env[REPLAY_NENV + 1])
{
	char *cache = fsutil_join(workdir, ".cache"), *tmp = fsutil_join(workdir, ".tmp");
	char *pip = fsutil_join(cache, "pip"), *home = fsutil_join(workdir, ".home");
	const char *old = getenv("HOME"), *k;
	json_t *v;
	size_t n = 0;

	if (old != NULL && *old != '\0') {
		char *cfg = fsutil_join(old, ".config"), *git = fsutil_join(old, ".gitconfig");
		if (getenv("XDG_CONFIG_HOME") == NULL)
			env[n++] = sysinfo_fmt("XDG_CONFIG_HOME=%s", cfg);
		if (getenv("GIT_CONFIG_GLOBAL") == NULL && fsutil_exists(git))
			env[n++] = sysinfo_fmt("GIT_CONFIG_GLOBAL=%s", git);
		free(cfg);
		free(git);
	}
	env[n++] = sysinfo_fmt("HOME=%s", home);
	env[n++] = sysinfo_fmt("PIP_CACHE_DIR=%s", pip);
	env[n++] = sysinfo_fmt("XDG_CACHE_HOME=%s", cache);
	env[n++] = sysinfo_fmt("TMPDIR=%s", tmp);
	env[n++] = strdup("PYTHONDONTWRITEBYTECODE=1");
	json_object_foreach((json_t *)denv, k, v)
		if (n < REPLAY_NENV && runenv_allowed(k) && json_is_string(v) && getenv(k) == NULL)
			env[n++] = sysinfo_fmt("%s=%s", k, json_string_value(v));
	env[n] = NULL;
	free(home);
	free(pip);
	free(cache);
	free(tmp);
}

/* The folders contain_env names, made once the plan is confirmed. */
static void
contain_dirs(const char *workdir)
{
	static const char *const dirs[] = { ".cache/pip", ".tmp", ".home" };

	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		char *d = fsutil_join(workdir, dirs[i]);
		fsutil_mkdirs(d, NULL);
		free(d);
	}
}

/* Every variable the replay sets, as the plan shows it: one shell word
 * each (quote_word), and the dossier's variables that this machine's
 * environment sets already (kept as they are). */
static void
plan_env(const struct replay_opts *o, char *const *env, const json_t *denv)
{
	const char *k;
	json_t *v;

	say(o, "  every program runs with kernodeck's environment, and these set (nothing else "
	    "of the dossier's):");
	for (size_t i = 0; env[i] != NULL; i++) {
		char *line = quote_word(env[i], 0);
		say(o, "    %s", line ? line : "(out of memory)");
		free(line);
	}
	json_object_foreach((json_t *)denv, k, v)
		if (runenv_allowed(k) && getenv(k) != NULL)
			say(o, "    (%s: dossier.yaml's value not set, kept as this machine sets it)", k);
}

static void
env_free(char *env[REPLAY_NENV + 1])
{
	for (size_t i = 0; i < REPLAY_NENV + 1; i++) {
		free(env[i]);
		env[i] = NULL;
	}
}

static int
empty_or_missing(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0)
		return errno == ENOENT;
	/* an empty folder is removed: the clone makes it again */
	return S_ISDIR(st.st_mode) && rmdir(dir) == 0;
}

/* The mark a replay leaves in its clone's .git (no file of the project's
 * tree): the folder is one a replay made, which a later replay may remove
 * and make again. */

static int
mark_replay(const char *dir, const char *dossier, const char *url, const char *commit,
	    struct kd_err *err)
{
	char *p = fsutil_join(dir, REPLAY_MARK);
	char *text = sysinfo_fmt("# this folder is a kernodeck replay: kernodeck replay may "
				 "remove it and start again\ndossier: %s\nsource: %s\ncommit: %s\n",
				 dossier, url, commit);
	int rc = p == NULL || text == NULL ? kd_err_sys(err, KD_EENV, dir, ENOMEM, "replay")
		 : fsutil_write_atomic(p, text, strlen(text), 0, err);

	free(p);
	free(text);
	return rc;
}

/* A work folder an earlier replay left (its mark is a regular file in a
 * real .git folder): said, then removed, so that this replay starts again
 * in a clean folder.  0: removed (or none); KD_EFAIL: another kernodeck
 * is replaying in it now; -1: not an earlier replay. */
static int
start_again(const struct replay_opts *o, struct kd_err *err)
{
	char *mark = fsutil_join(o->workdir, REPLAY_MARK), *kd = fsutil_join(o->workdir, "kernodeck");
	char *rp = fsutil_join(kd ? kd : "", "replay.yaml");
	struct kd_lock_holder h;
	struct yamlio_doc doc = { 0 };
	struct stat st, gst;
	char git[PATH_MAX];
	const char *how = "it stopped before its verdict: a failure, or an interruption";
	int rc = -1;

	snprintf(git, sizeof git, "%s/.git", o->workdir);
	if (mark == NULL || kd == NULL || rp == NULL || lstat(git, &gst) != 0 ||
	    !S_ISDIR(gst.st_mode) || lstat(mark, &st) != 0 || !S_ISREG(st.st_mode))
		goto out;
	if (lock_holder(kd, &h) == 0) {
		rc = kd_err_set(err, KD_EFAIL, o->workdir, 0, "%s: another kernodeck (%s on %s, pid "
				"%ld) is replaying in it now: wait for it, or give another --workdir",
				o->workdir, h.user, h.host, h.pid);
		goto out;
	}
	if (fsutil_exists(rp) && yamlio_load_file(rp, &doc, NULL) == 0)
		how = json_is_true(json_object_get(doc.root, "passed")) ? "it passed"
		      : "it showed new differences";
	say(o, "%s holds an earlier replay (%s): starting again in a clean folder (the "
	    "earlier one is removed)", o->workdir, how);
	rc = fsutil_rmtree(o->workdir, err);
out:
	yamlio_doc_free(&doc);
	free(mark);
	free(kd);
	free(rp);
	return rc;
}

/* See replay.h. */
int
replay_run(const struct replay_opts *o, json_t **verdict, struct kd_err *err)
{
	struct yamlio_doc dy = { 0 }, rdoc = { 0 };
	struct kd_ctx ctx;
	struct kd_runner run;
	const char *url, *commit, *local;
	char *kdir = NULL, *refp = NULL, *py = NULL, *why = NULL;
	char *env[REPLAY_NENV + 1] = { NULL };
	int rc, newdiff = 0, opened = 0, contained = 0, remove = 0, install_lock = 0;
	int install_direct = 0;
	json_t *folders = NULL, *fv;
	char **dirs = NULL;
	size_t fi;

	*verdict = NULL;
	if ((rc = verify_dossier(o, err)) != 0)
		goto out;
	if ((rc = load_yaml(o->dossier, "dossier.yaml", &dy, err)) != 0 ||
	    (rc = load_yaml(o->dossier, "kernodeck/reference.yaml", &rdoc, err)) != 0)
		goto out;
	commit = str_of(dy.root, "code.commit");
	local = str_of(dy.root, "code.local_path");
	/* the recorded remote, unless the reference marks it not applicable */
	url = reference_na(rdoc.root, "code.remote") != NULL ? NULL : str_of(dy.root, "code.remote");
	url = o->repo ? o->repo : url ? url : local;
	if (commit == NULL || url == NULL || !repo_is_full_id(commit)) {
		rc = kd_err_set(err, KD_EINPUT, "dossier.yaml", 0,
				"the dossier records no commit and repository to clone");
		goto out;
	}
	if (yamlio_get_str(rdoc.root, "code.commit") != NULL &&
	    strcmp(yamlio_get_str(rdoc.root, "code.commit"), commit) != 0) {
		rc = kd_err_set(err, KD_EINPUT, "dossier.yaml", 0,
				"dossier.yaml records commit %s, kernodeck/reference.yaml commit %s: "
				"the dossier disagrees with itself (refusing it)", commit,
				yamlio_get_str(rdoc.root, "code.commit"));
		goto out;
	}
	if ((rc = start_again(o, err)) > 0)
		goto out;
	rc = 0;
	if (!empty_or_missing(o->workdir)) {
		char mark[PATH_MAX];
		snprintf(mark, sizeof mark, "%s/kernodeck", o->workdir);
		rc = kd_err_set(err, KD_EINPUT, o->workdir, 0,
				fsutil_exists(mark)
				? "%s holds an earlier replay (it failed, or was done): remove it "
				  "(rm -rf %s) or give another --workdir to replay again"
				: "%s exists and is not empty: the replay needs a clean folder "
				  "(give a new --workdir)", o->workdir, o->workdir);
		goto out;
	}
	{
		char *rf = fsutil_join(o->dossier, "kernodeck/reference.yaml");
		rc = contain_check_fields(rdoc.root, rf, err);
		free(rf);
		if (rc != 0)
			goto out;
	}
	{
		/* the variables that cross the dossier: runenv.h's list only */
		char *dp = fsutil_join(o->dossier, "dossier.yaml");
		rc = runenv_check(json_object_get(dy.root, "environment"), dp, err);
		free(dp);
		if (rc != 0)
			goto out;
	}
	if ((rc = check_procedure(o, dy.root, rdoc.root, err)) != 0 ||
	    (rc = includes_contained(o, err)) != 0)
		goto out;
	sysinfo_choose_python(rdoc.root, o->python, &py, &why, NULL);
	folders = lock_folders(o, dy.root, &dirs);
	contain_env(o->workdir, json_object_get(dy.root, "environment"), env);
	show_plan(o, url, dy.root, rdoc.root, py ? py : "python3", folders, dirs, env);
	if (dirs == NULL) {
		rc = kd_err_sys(err, KD_EENV, NULL, ENOMEM, "replay");
		goto out;
	}
	json_array_foreach(folders, fi, fv)
		if (json_object_get(fv, "dir") == NULL) {
			rc = kd_err_set(err, KD_EINPUT, NULL, 0, "the lock's artefacts from the "
					"find-links folder %s of the building machine are not here: "
					"give the folder that holds them with --find-links DIR (nothing "
					"was run)", json_string_value(json_object_get(fv, "folder")));
			goto out;
		}
	if (!confirm(o)) {
		rc = kd_err_set(err, KD_EFAIL, NULL, 0, "replay declined: nothing was run");
		goto out;
	}
	if ((rc = clone_at(url, commit, o->workdir, err)) != 0 ||
	    (rc = mark_replay(o->workdir, o->dossier, url, commit, err)) != 0) {
		struct kd_err e2;
		fsutil_rmtree(o->workdir, &e2);   /* it was empty: nothing of it is lost */
		say(o, "%s was removed: correct what is said below and replay again", o->workdir);
		goto out;
	}
	say(o, "code: %s at %s", url, commit);
	/* what the clone holds is proven before anything runs: no link where
	 * kernodeck writes, the files the plan showed the same bytes */
	if ((rc = contain_check_tree(o->workdir, rdoc.root, 1, err)) != 0 ||
	    (rc = contain_check_copies(o->workdir, o->dossier, rdoc.root, say_line,
				       (void *)o, err)) != 0) {
		struct kd_err e2;
		fsutil_rmtree(o->workdir, &e2);   /* our clone: nothing of it ran */
		goto out;
	}
	/* from here on, every write is made below the work folder without
	 * following a link (src/lib/beneath.c), whatever the project's code does */
	if ((rc = beneath_set_root(o->workdir, err)) != 0)
		goto out;
	contained = 1;
	contain_dirs(o->workdir);
	/* data and weights, verified and put where the project reads them,
	 * before any stage runs */
	if ((rc = place_data(o, rdoc.root, local, err)) != 0) {
		remove = 1;
		goto out;
	}
	/* the kernodeck folder of the replay, with the dossier's reference */
	kdir = fsutil_join(o->workdir, "kernodeck");
	refp = fsutil_join(kdir, "reference.yaml");
	{
		static const char *const excl[] = { "kernodeck", ".venv-rebuild", ".cache", ".tmp",
						    ".home" };
		int added;
		char *src = fsutil_join(o->dossier, "kernodeck/reference.yaml"), *text = NULL;
		size_t len;
		if ((rc = fsutil_mkdirs(kdir, err)) != 0 ||
		    (rc = fsutil_read_file(src, 16u << 20, &text, &len, err)) != 0 ||
		    (rc = fsutil_write_atomic(refp, text, len, 0, err)) != 0) {
			free(src);
			free(text);
			goto out;
		}
		free(src);
		free(text);
		repo_ensure_excludes(o->workdir, excl, 5, &added, NULL);
	}
	{
		/* the lock the rebuild installs, a copy in the work folder's kernodeck/ */
		char *lock = replay_lock(o), *text = NULL, *dst = fsutil_join(o->workdir,
									    REPLAY_LOCK);
		size_t len;
		if (lock != NULL &&
		    ((rc = fsutil_read_file(lock, KD_CAP_TEXT_FILE, &text, &len, err)) != 0 ||
		     (rc = fsutil_write_atomic(dst, text, len, 0, err)) != 0)) {
			free(lock);
			free(text);
			free(dst);
			goto out;
		}
		install_lock = lock != NULL;
		free(lock);
		free(text);
		free(dst);
	}
	if (install_lock) {
		/* and what it cannot hash, beside it */
		char *src = fsutil_join(o->dossier, DOSSIER_REQ_DIRECT), *text = NULL;
		char *dst = fsutil_join(o->workdir, REPLAY_DIRECT);
		size_t len;
		if (src != NULL && fsutil_exists(src)) {
			if ((rc = fsutil_read_file(src, KD_CAP_TEXT_FILE, &text, &len, err)) == 0)
				rc = fsutil_write_atomic(dst, text, len, 0, err);
			install_direct = rc == 0;
		}
		free(src);
		free(text);
		free(dst);
		if (rc != 0)
			goto out;
	}
	if ((rc = restore_missing(o, rdoc.root, err)) != 0)
		goto out;
	if ((rc = kd_ctx_open(&ctx, o->workdir, NULL, KD_LOCK_REQUIRED, err)) != 0)
		goto out;
	opened = 1;
	ctx.python_override = o->python;
	runner_begin(&run, &ctx, 1, fleet_latest);   /* stages 2 to 6, one after the other */
	ctx.install_lock = install_lock ? REPLAY_LOCK : NULL;
	ctx.install_find_links = (const char *const *)dirs;
	ctx.install_direct = install_direct ? REPLAY_DIRECT : NULL;
	ctx.child_env = (const char *const *)env;
	seed_deviations(&ctx, dy.root);
	seed_settings(&ctx, o->dossier);
	*verdict = json_array();
	rc = run_stages(o, &ctx, *verdict, &newdiff, err);
	kd_ctx_save_state(&ctx, NULL);
	if (rc == 0) {
		char *rp = kd_ctx_path(&ctx, "replay.yaml");
		json_t *rep = json_pack("{s:s, s:s, s:O, s:b}", "dossier", o->dossier, "commit",
					commit, "stages", *verdict, "passed", !newdiff);
		yamlio_save_file(rp, rep, 0, NULL);
		json_decref(rep);
		free(rp);
		if (o->sink == NULL) {
			print_verdict(*verdict, newdiff);
		} else {
			const json_t *v;
			size_t i;
			json_array_foreach(*verdict, i, v)
				say(o, "replay: %s %s", json_string_value(json_object_get(v, "stage")),
				    json_string_value(json_object_get(v, "verdict")));
			say(o, "replay: overall %s", newdiff ? "NEW DIFFERENCES" : "passed");
		}
		rc = newdiff ? KD_EFAIL : 0;
		if (newdiff)
			kd_err_set(err, KD_EFAIL, NULL, 0, "the replay shows new differences");
	}
out:
	if (opened) {
		runner_end(&run);
		kd_ctx_close(&ctx);
	}
	if (contained)
		beneath_set_root(NULL, NULL);
	if (remove) {
		/* nothing ran in it: the next replay starts in a clean folder */
		struct kd_err e2;
		if (fsutil_rmtree(o->workdir, &e2) == 0)
			say(o, "%s was removed (no stage ran): correct what is said above and "
			    "replay again", o->workdir);
	}
	env_free(env);
	json_decref(folders);
	argv_free(dirs);
	yamlio_doc_free(&dy);
	yamlio_doc_free(&rdoc);
	free(kdir);
	free(refp);
	free(py);
	free(why);
	return rc;
}
