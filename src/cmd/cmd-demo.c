/*
 * cmd-demo.c - `kernodeck demo [DIR] [--training] [--create-only]`: the
 * embedded default.
 *
 * Creates DIR (default ./kernodeck-demo) from share/demo/project: a small
 * embedding application with its sample, its rebuild file and the tokenizer
 * wheel; makes it a fresh git repository with one commit (libgit2, author
 * "kernodeck demo"), keeps kernodeck's folders out of it through
 * .git/info/exclude, writes the shipped reference (share/demo/reference.yaml)
 * as DIR/kernodeck/reference.yaml with code.commit set to that commit, and
 * opens the walkthrough unless --create-only.  --training does the same
 * from share/demo/training (a small resumable training run, goal
 * training-trajectory, with the resume check) and share/demo/training.yaml.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include <git2.h>

#include "kernodeck/cmd.h"
#include "kernodeck/dossier.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/paths.h"
#include "kernodeck/repo.h"

#define DEMO_AUTHOR "kernodeck demo"
#define DEMO_EMAIL "demo@kernodeck.invalid"

static int
git_fail(struct kd_err *err, const char *dir, const char *what)
{
	const git_error *e = git_error_last();

	return kd_err_set(err, KD_EENV, dir, 0, "%s: %s: %s", dir, what,
			  e && e->message ? e->message : "libgit2 error");
}

/* git init (branch main) + add everything + one commit; id into commit. */
static int
demo_commit(const char *dir, const char *message, char commit[41], struct kd_err *err)
{
	git_repository_init_options opts;
	git_repository *repo = NULL;
	git_index *idx = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_oid tree_id, id;
	int rc = 0;

	git_libgit2_init();
	git_repository_init_options_init(&opts, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	opts.flags = GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_NO_REINIT;
	opts.initial_head = "main";
	if (git_repository_init_ext(&repo, dir, &opts) < 0) {
		rc = git_fail(err, dir, "git init");
		goto out;
	}
	if (git_repository_index(&idx, repo) < 0 ||
	    git_index_add_all(idx, NULL, GIT_INDEX_ADD_DEFAULT, NULL, NULL) < 0 ||
	    git_index_write(idx) < 0 || git_index_write_tree(&tree_id, idx) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_id) < 0) {
		rc = git_fail(err, dir, "git add");
		goto out;
	}
	if (git_signature_now(&sig, DEMO_AUTHOR, DEMO_EMAIL) < 0 ||
	    git_commit_create_v(&id, repo, "HEAD", sig, sig, NULL,
				message, tree, 0) < 0) {
		rc = git_fail(err, dir, "git commit");
		goto out;
	}
	git_oid_tostr(commit, 41, &id);
out:
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(idx);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return rc;
}

/* The shipped reference with code.commit filled in, comments kept. */
static int
demo_reference(const char *dir, const char *tplname, const char *commit, struct kd_err *err)
{
	char *tpl = kd_share_path(tplname), *text = NULL, *kd = NULL, *out = NULL;
	char *at, *o = NULL;
	size_t len;
	int rc;

	if ((rc = fsutil_read_file(tpl, 1u << 20, &text, &len, err)) != 0)
		goto done;
	at = strstr(text, "\n  commit: null\n");
	if (at == NULL) {
		rc = kd_err_set(err, KD_EENV, tpl, 0, "%s: no \"commit: null\" line to fill", tpl);
		goto done;
	}
	o = malloc(len + 64);
	if (o == NULL) {
		rc = kd_err_sys(err, KD_EENV, tpl, ENOMEM, "demo");
		goto done;
	}
	size_t head = (size_t)(at - text) + 1, n;
	memcpy(o, text, head);
	n = head + (size_t)snprintf(o + head, 64, "  commit: %s\n", commit);
	memcpy(o + n, text + head + 15, len - head - 15);   /* after "  commit: null\n" */
	n += len - head - 15;
	kd = fsutil_join(dir, "kernodeck");
	out = fsutil_join(kd, "reference.yaml");
	if ((rc = fsutil_mkdirs(kd, err)) == 0)
		rc = fsutil_write_atomic(out, o, n, 0, err);
done:
	free(o);
	free(out);
	free(kd);
	free(text);
	free(tpl);
	return rc;
}

static int
empty_or_missing(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int empty = 1;

	if (d == NULL)
		return errno == ENOENT;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			empty = 0;
	closedir(d);
	return empty;
}

/* Create the demo project in dir. */
static int
demo_create(const char *dir, int training, char commit[41], struct kd_err *err)
{
	static const char *const excl[] = { "kernodeck", ".venv-rebuild" };
	char *src = kd_share_path(training ? "demo/training" : "demo/project");
	int rc, added;

	if (!empty_or_missing(dir)) {
		char *ref = fsutil_join(dir, "kernodeck/reference.yaml");
		int project = ref != NULL && fsutil_exists(ref);

		free(ref);
		free(src);
		/* a demo made earlier (./quickstart.sh demo run again): how to reopen it */
		if (project)
			return kd_err_set(err, KD_EINPUT, dir, 0, "%s holds a kernodeck project "
					  "already (a demo made earlier?): reopen it with `kernodeck "
					  "%s` (the walkthrough, where it stopped) or `kernodeck check "
					  "%s`; give a new folder for a new demo", dir, dir, dir);
		return kd_err_set(err, KD_EINPUT, dir, 0,
				  "%s exists and is not empty: give a new folder", dir);
	}
	if (src == NULL || !fsutil_exists(src)) {
		rc = kd_err_set(err, KD_EENV, src, 0,
				"the demo project is not installed (%s is missing)", src ? src : "share");
		free(src);
		return rc;
	}
	rmdir(dir);
	rc = dossier_copy_tree(src, dir, err);
	free(src);
	if (rc == 0)
		rc = demo_commit(dir, training ? "kernodeck demo: a small resumable training run\n"
				 : "kernodeck demo: a small embedding application\n", commit, err);
	if (rc == 0)
		rc = repo_ensure_excludes(dir, excl, 2, &added, err);
	if (rc == 0)
		rc = demo_reference(dir, training ? "demo/training.yaml" : "demo/reference.yaml", commit, err);
	return rc;
}

/* `kernodeck demo`: create the demo, then open the walkthrough on it
 * through cmd_open_walkthrough, which the program's main sets: the core
 * never calls into screens/. */
static int
cmd_demo(int argc, char **argv)
{
	const struct kd_cmd_entry *e = &kd_cmd_demo;
	const char *dir = NULL;
	int create_only = 0, training = 0, c, rc;
	char commit[41] = "", buf[2048];
	struct kd_err err;
	char *abs;

	cmd_getopt_reset();
	while ((c = cmd_getopt(e, argc, argv)) != -1) {
		switch (c) {
		case 'c': create_only = 1; break;
		case 't': training = 1; break;
		case KD_CMD_HELP: return cmd_help(e);
		default: return cmd_usage_error(e, NULL);
		}
	}
	if (argc - optind > 1)
		return cmd_usage_error(e, "one folder at most");
	if (optind < argc)
		dir = argv[optind];
	abs = kd_abspath(dir ? dir : "kernodeck-demo");
	kd_err_clear(&err);
	if (demo_create(abs, training, commit, &err) != 0) {
		fprintf(stderr, "kernodeck demo: %s\n", kd_err_format(&err, buf, sizeof buf));
		free(abs);
		return err.code ? err.code : KD_EXIT_ENV;
	}
	printf("kernodeck demo: created %s (commit %.12s)\n", abs, commit);
	if (create_only || cmd_open_walkthrough == NULL) {
		printf("next: kernodeck check %s   (headless)   or   kernodeck %s\n", abs, abs);
		free(abs);
		return KD_EXIT_OK;
	}
	rc = cmd_open_walkthrough(abs);
	free(abs);
	return rc;
}

static const struct kd_opt demo_opts[] = {
	{ "training", 't', NULL, 0 },
	{ "create-only", 'c', NULL, 0 },
	{ NULL, 0, NULL, 0 },
};

const struct kd_cmd_entry kd_cmd_demo = {
	.name = "demo",
	.args = "[DIR]",
	.opts = demo_opts,
	.help = "Create DIR (default ./kernodeck-demo): a small embedding application\n"
		"with its reference, committed in a fresh git repository, and open the\n"
		"walkthrough on it.  --training creates a small resumable training run\n"
		"instead (goal training-trajectory, with the resume check of stage 6).\n"
		"--create-only stops after creating it, so that `kernodeck check DIR`\n"
		"can walk it headless.  Offline, on the CPU.",
	.exec = cmd_demo,
};
