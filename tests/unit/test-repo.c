/*
 * test-repo.c - repo.c on real git repositories made by the test with the
 * git command line: clean and dirty trees, tags, detached HEAD, remotes
 * with credentials, the private exclude file, submodules, and the edge
 * cases (not a repository, no commit yet, owned by another user).
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/repo.h"
#include "testutil.h"

static char tmp[256];

static char *
path(const char *rel)
{
	static char p[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof p[k], "%s/%s", tmp, rel);
	return p[k];
}

/* A repository with one commit (main.py) in tmp/NAME. */
static char *
make_repo(const char *name)
{
	char *d = path(name);

	mkdir(d, 0755);
	assert_int_equal(tu_git(d, "init", "-q", "-b", "main", NULL), 0);
	tu_put(d, "main.py", "print('hi')\n");
	assert_int_equal(tu_git(d, "add", "main.py", NULL), 0);
	assert_int_equal(tu_git(d, "commit", "-q", "-m", "first", NULL), 0);
	return d;
}

static int
setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof tmp, "/tmp/kd-repo.XXXXXX");
	if (mkdtemp(tmp) == NULL)
		return -1;
	/* a private HOME: no global git config (safe.directory) leaks in */
	tu_git_env(tmp);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return fsutil_rmtree(tmp, NULL);
}

static void
test_full_id(void **state)
{
	(void)state;
	assert_true(repo_is_full_id("0123456789abcdef0123456789abcdef01234567"));
	assert_false(repo_is_full_id("0123456789abcdef0123456789abcdef0123456"));
	assert_false(repo_is_full_id("0123456789ABCDEF0123456789abcdef01234567"));
	assert_false(repo_is_full_id("main"));
	assert_false(repo_is_full_id(NULL));
}

static void
test_not_a_repo(void **state)
{
	struct repo_info ri;
	struct kd_err err;
	char *d = path("plain");

	(void)state;
	mkdir(d, 0755);
	assert_int_equal(repo_inspect(d, &ri, &err), KD_EINPUT);
	assert_int_equal(ri.problem, REPO_NOT_A_REPO);
	assert_non_null(strstr(err.msg, "not inside a git repository"));
	repo_info_free(&ri);
}

static void
test_empty_repo(void **state)
{
	struct repo_info ri;
	struct kd_err err;
	char *d = path("empty");

	(void)state;
	mkdir(d, 0755);
	assert_int_equal(tu_git(d, "init", "-q", NULL), 0);
	assert_int_equal(repo_inspect(d, &ri, &err), KD_EINPUT);
	assert_int_equal(ri.problem, REPO_EMPTY);
	assert_non_null(strstr(err.msg, "no commit yet"));
	repo_info_free(&ri);
}

static void
test_clean_and_dirty(void **state)
{
	struct repo_info ri;
	struct kd_err err;
	char *d = make_repo("clean"), head[64];
	FILE *f;
	char cmd[600];

	(void)state;
	assert_int_equal(repo_inspect(d, &ri, &err), 0);
	assert_true(repo_is_full_id(ri.commit));
	assert_string_equal(ri.branch, "main");
	assert_false(ri.detached);
	assert_int_equal(ri.ndirty, 0);
	assert_null(ri.remote_url);
	/* the commit is the one git says */
	snprintf(cmd, sizeof cmd, "%s/.git/refs/heads/main", d);
	f = fopen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(head, sizeof head, f));
	fclose(f);
	head[40] = '\0';
	assert_string_equal(ri.commit, head);
	repo_info_free(&ri);

	tu_put(d, "main.py", "print('changed')\n");
	tu_put(d, "notes.txt", "x\n");
	assert_int_equal(repo_inspect(d, &ri, &err), 0);
	assert_int_equal(ri.ndirty, 2);
	for (size_t i = 0; i < ri.ndirty; i++) {
		if (strcmp(ri.dirty[i].path, "main.py") == 0)
			assert_string_equal(ri.dirty[i].status, "modified");
		else {
			assert_string_equal(ri.dirty[i].path, "notes.txt");
			assert_string_equal(ri.dirty[i].status, "untracked");
		}
	}
	repo_info_free(&ri);
}

static void
test_tags_and_detached(void **state)
{
	struct repo_info ri;
	struct kd_err err;
	char *d = make_repo("tags");
	char old[41], full[41];

	(void)state;
	assert_int_equal(tu_git(d, "tag", "old", NULL), 0);
	assert_int_equal(repo_inspect(d, &ri, &err), 0);
	memcpy(old, ri.commit, sizeof old);
	repo_info_free(&ri);
	tu_put(d, "main.py", "print(2)\n");
	assert_int_equal(tu_git(d, "commit", "-q", "-am", "second", NULL), 0);
	assert_int_equal(tu_git(d, "tag", "v1", NULL), 0);
	assert_int_equal(tu_git(d, "tag", "-a", "v1-annotated", "-m", "release", NULL), 0);
	assert_int_equal(repo_inspect(d, &ri, &err), 0);
	assert_int_equal(ri.ntags, 2);
	assert_string_equal(ri.tags[0], "v1");
	assert_string_equal(ri.tags[1], "v1-annotated");
	repo_info_free(&ri);

	/* names where a commit is needed */
	assert_string_equal(repo_classify_name(d, "main", full), "branch");
	assert_true(repo_is_full_id(full));
	assert_string_equal(repo_classify_name(d, "old", full), "tag");
	assert_string_equal(full, old);
	assert_string_equal(repo_classify_name(d, "v1-annotated", full), "tag");
	assert_string_equal(repo_classify_name(d, old, full), "commit");
	assert_string_equal(full, old);
	old[10] = '\0';
	assert_string_equal(repo_classify_name(d, old, full), "commit");
	assert_null(repo_classify_name(d, "nosuchthing", full));
	assert_null(repo_classify_name(d, "0000000000000000000000000000000000000000", full));

	assert_int_equal(tu_git(d, "checkout", "-q", "--detach", "HEAD~1", NULL), 0);
	assert_int_equal(repo_inspect(d, &ri, &err), 0);
	assert_true(ri.detached);
	assert_null(ri.branch);
	assert_int_equal(ri.ntags, 1);
	assert_string_equal(ri.tags[0], "old");
	repo_info_free(&ri);
}

static void
test_remote_credentials(void **state)
{
	struct repo_info ri;
	struct kd_err err;
	char *d = make_repo("remote");
	json_t *j;
	char *dump;

	(void)state;
	assert_int_equal(tu_git(d, "remote", "add", "upstream",
			     "https://bob:s3cret@example.org/team/x.git", NULL), 0);
	assert_int_equal(repo_inspect(d, &ri, &err), 0);
	assert_string_equal(ri.remote_name, "upstream");
	assert_string_equal(ri.remote_url, "https://example.org/team/x.git");
	assert_true(ri.remote_had_credentials);
	j = repo_info_to_json(&ri);
	dump = json_dumps(j, 0);
	assert_null(strstr(dump, "s3cret"));
	free(dump);
	repo_info_free(&ri);
	json_decref(j);

	assert_int_equal(tu_git(d, "remote", "add", "origin", "https://example.org/o.git", NULL), 0);
	assert_int_equal(repo_inspect(d, &ri, &err), 0);
	assert_string_equal(ri.remote_name, "origin");
	assert_false(ri.remote_had_credentials);
	repo_info_free(&ri);
}

static char *
slurp(const char *p)
{
	char *buf = NULL;
	size_t len;

	if (fsutil_read_file(p, 1 << 20, &buf, &len, NULL) != 0)
		return NULL;
	return buf;
}

static void
test_excludes(void **state)
{
	struct repo_info ri;
	struct kd_err err;
	char *d = make_repo("excl"), *before, *after;
	const char *folders[] = { "kernodeck", ".venv-rebuild", "/elsewhere/state" };
	char p[512];
	int added;

	(void)state;
	snprintf(p, sizeof p, "%s/kernodeck", d);
	mkdir(p, 0755);
	tu_put(d, "kernodeck/state.yaml", "schema: 1\n");
	snprintf(p, sizeof p, "%s/.venv-rebuild", d);
	mkdir(p, 0755);
	tu_put(d, ".venv-rebuild/pyvenv.cfg", "home = /usr/bin\n");
	assert_int_equal(repo_inspect(d, &ri, &err), 0);
	assert_int_equal(ri.ndirty, 2);
	repo_info_free(&ri);

	assert_int_equal(repo_ensure_excludes(d, folders, 3, &added, &err), 0);
	assert_int_equal(added, 2);
	assert_int_equal(repo_inspect(d, &ri, &err), 0);
	assert_int_equal(ri.ndirty, 0);
	repo_info_free(&ri);
	snprintf(p, sizeof p, "%s/.git/info/exclude", d);
	before = slurp(p);
	assert_non_null(before);
	assert_non_null(strstr(before, "\n/kernodeck/\n"));
	assert_non_null(strstr(before, "\n/.venv-rebuild/\n"));
	assert_null(strstr(before, "elsewhere"));
	/* git's own template lines are kept */
	assert_non_null(strstr(before, "# git ls-files --others --exclude-from=.git/info/exclude"));

	/* idempotent: a second run adds nothing and changes no byte */
	assert_int_equal(repo_ensure_excludes(d, folders, 3, &added, &err), 0);
	assert_int_equal(added, 0);
	after = slurp(p);
	assert_string_equal(before, after);
	free(before);
	free(after);
	/* never through a tracked file */
	snprintf(p, sizeof p, "%s/.gitignore", d);
	assert_false(fsutil_exists(p));
	/* git itself agrees */
	assert_int_equal(tu_git(d, "diff", "--quiet", NULL), 0);
}

static void
test_excludes_subfolder_and_missing_info(void **state)
{
	struct repo_info ri;
	struct kd_err err;
	char *d = make_repo("sub"), *text;
	const char *folders[] = { "kernodeck" };
	char p[512];
	int added;

	(void)state;
	/* no info/ folder at all */
	snprintf(p, sizeof p, "%s/.git/info", d);
	assert_int_equal(fsutil_rmtree(p, NULL), 0);
	snprintf(p, sizeof p, "%s/proj", d);
	mkdir(p, 0755);
	tu_put(d, "proj/run.py", "pass\n");
	assert_int_equal(tu_git(d, "add", "proj", NULL), 0);
	assert_int_equal(tu_git(d, "commit", "-q", "-m", "proj", NULL), 0);
	snprintf(p, sizeof p, "%s/proj/kernodeck", d);
	mkdir(p, 0755);
	tu_put(d, "proj/kernodeck/x", "y\n");
	snprintf(p, sizeof p, "%s/proj", d);
	assert_int_equal(repo_ensure_excludes(p, folders, 1, &added, &err), 0);
	assert_int_equal(added, 1);
	assert_int_equal(repo_inspect(p, &ri, &err), 0);
	assert_int_equal(ri.ndirty, 0);
	repo_info_free(&ri);
	snprintf(p, sizeof p, "%s/.git/info/exclude", d);
	text = slurp(p);
	assert_non_null(text);
	assert_non_null(strstr(text, "/proj/kernodeck/\n"));
	free(text);

	/* a folder that is not a repository: nothing to do, no error */
	assert_int_equal(repo_ensure_excludes(tmp, folders, 1, &added, &err), 0);
	assert_int_equal(added, 0);
}

static void
test_not_owned(void **state)
{
	struct repo_info ri;
	struct kd_err err;
	char *d;
	int added;
	const char *folders[] = { "kernodeck" };

	(void)state;
	if (geteuid() != 0)
		skip();
	d = make_repo("foreign");
	assert_int_equal(chown(d, 65534, 65534), 0);
	{
		char p[512];

		snprintf(p, sizeof p, "%s/.git", d);
		assert_int_equal(chown(p, 65534, 65534), 0);
	}
	assert_int_equal(repo_inspect(d, &ri, &err), KD_EINPUT);
	assert_int_equal(ri.problem, REPO_NOT_OWNED);
	assert_non_null(strstr(err.msg, "safe.directory"));
	assert_non_null(strstr(err.msg, "git config --global --add safe.directory"));
	assert_non_null(strstr(err.msg, d));
	repo_info_free(&ri);
	/* the exclude step reports it too, without writing */
	assert_int_equal(repo_ensure_excludes(d, folders, 1, &added, &err), KD_EINPUT);
	assert_int_equal(added, 0);
	/* the fix the message gives works */
	assert_int_equal(tu_git(tmp, "config", "--global", "--add", "safe.directory", d, NULL), 0);
	assert_int_equal(repo_inspect(d, &ri, &err), 0);
	repo_info_free(&ri);
}

static void
test_submodule(void **state)
{
	struct repo_info ri;
	struct kd_err err;
	char *lib = make_repo("lib"), *app = make_repo("app"), p[512];

	(void)state;
	assert_int_equal(tu_git(app, "-c", "protocol.file.allow=always", "submodule", "add", "-q",
			     lib, "vendor/lib", NULL), 0);
	assert_int_equal(tu_git(app, "commit", "-q", "-m", "add lib", NULL), 0);
	assert_int_equal(repo_inspect(app, &ri, &err), 0);
	assert_int_equal(ri.nsubs, 1);
	assert_string_equal(ri.subs[0].path, "vendor/lib");
	assert_true(ri.subs[0].initialized);
	assert_true(repo_is_full_id(ri.subs[0].head));
	assert_string_equal(ri.subs[0].head, ri.subs[0].wd);
	assert_false(ri.subs[0].dirty);
	assert_int_equal(ri.ndirty, 0);
	assert_null(ri.superproject);
	repo_info_free(&ri);

	/* the project is itself the submodule */
	snprintf(p, sizeof p, "%s/vendor/lib", app);
	assert_int_equal(repo_inspect(p, &ri, &err), 0);
	assert_non_null(ri.superproject);
	assert_string_equal(ri.superproject, app);
	repo_info_free(&ri);

	/* new commit inside the submodule: the superproject's tree is dirty */
	tu_put(p, "lib.py", "x = 1\n");
	assert_int_equal(tu_git(p, "add", "lib.py", NULL), 0);
	assert_int_equal(tu_git(p, "commit", "-q", "-m", "lib change", NULL), 0);
	assert_int_equal(repo_inspect(app, &ri, &err), 0);
	assert_true(ri.subs[0].dirty);
	assert_int_equal(ri.ndirty, 1);
	assert_string_equal(ri.dirty[0].path, "vendor/lib");
	repo_info_free(&ri);

	/* a clone without --recurse-submodules: not checked out */
	assert_int_equal(tu_git(tmp, "-c", "protocol.file.allow=always", "clone", "-q", app,
			     path("clone"), NULL), 0);
	assert_int_equal(repo_inspect(path("clone"), &ri, &err), 0);
	assert_int_equal(ri.nsubs, 1);
	assert_false(ri.subs[0].initialized);
	repo_info_free(&ri);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_id),
		cmocka_unit_test(test_not_a_repo),
		cmocka_unit_test(test_empty_repo),
		cmocka_unit_test(test_clean_and_dirty),
		cmocka_unit_test(test_tags_and_detached),
		cmocka_unit_test(test_remote_credentials),
		cmocka_unit_test(test_excludes),
		cmocka_unit_test(test_excludes_subfolder_and_missing_info),
		cmocka_unit_test(test_not_owned),
		cmocka_unit_test(test_submodule),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
