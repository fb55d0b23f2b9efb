/* test-venv.c - reading an existing venv without running it: where it
 * was made (pyvenv.cfg command, bin/activate, script shebangs), moved or
 * copied, its interpreter, and moving it aside. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/venv.h"

static char root[] = "/tmp/kdvenv.XXXXXX";

static void
put(const char *rel, const char *text)
{
	char p[PATH_MAX], d[PATH_MAX];
	FILE *fp;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	snprintf(d, sizeof d, "%s", p);
	*strrchr(d, '/') = '\0';
	assert_int_equal(fsutil_mkdirs(d, NULL), 0);
	fp = fopen(p, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* A venv at ROOT/REL that says it was made at MADE, running /usr/bin/python3
 * (through a link, as venv makes it). */
static void
fake_venv(const char *rel, const char *made, int with_cmd)
{
	char buf[1024], p[PATH_MAX];

	snprintf(buf, sizeof buf, "home = /usr/bin\ninclude-system-site-packages = true\n"
		 "version = 3.11.2\nexecutable = /usr/bin/python3.11\n%s%s%s",
		 with_cmd ? "command = /usr/bin/python3 -m venv --without-pip " : "",
		 with_cmd ? made : "", with_cmd ? "\n" : "");
	snprintf(p, sizeof p, "%s/pyvenv.cfg", rel);
	put(p, buf);
	snprintf(buf, sizeof buf, "# This file must be used with \"source bin/activate\"\n"
		 "VIRTUAL_ENV=\"%s\"\nexport VIRTUAL_ENV\n", made);
	snprintf(p, sizeof p, "%s/bin/activate", rel);
	put(p, buf);
	snprintf(buf, sizeof buf, "#!%s/bin/python3\nimport sys\n", made);
	snprintf(p, sizeof p, "%s/bin/tool", rel);
	put(p, buf);
	snprintf(p, sizeof p, "%s/%s/bin/python", root, rel);
	if (access("/usr/bin/python3", X_OK) == 0)
		assert_int_equal(symlink("/usr/bin/python3", p), 0);
}

static void
test_in_place(void **state)
{
	struct venv_info vi;
	char at[PATH_MAX];

	(void)state;
	snprintf(at, sizeof at, "%s/a/.venv", root);
	fake_venv("a/.venv", at, 1);
	assert_int_equal(venv_inspect(at, &vi, NULL), 0);
	assert_true(vi.exists && vi.is_venv);
	assert_string_equal(vi.home, "/usr/bin");
	assert_string_equal(vi.version, "3.11.2");
	assert_true(vi.system_site);
	assert_string_equal(vi.recorded_path, at);
	assert_string_equal(vi.recorded_from, "pyvenv.cfg command");
	assert_false(vi.moved);
	assert_int_equal(strlen(vi.cfg_sha256), 64);
	if (access("/usr/bin/python3", X_OK) == 0) {
		assert_string_equal(vi.python_link, "/usr/bin/python3");
		assert_true(venv_uses_python(&vi, "/usr/bin/python3"));
	}
	assert_false(venv_uses_python(&vi, "/bin/sh"));
	json_t *j = venv_info_json(&vi);
	assert_true(json_is_false(json_object_get(j, "moved")));
	json_decref(j);
	venv_info_free(&vi);
}

static void
test_moved_and_copied(void **state)
{
	struct venv_info vi;
	char at[PATH_MAX], gone[PATH_MAX], orig[PATH_MAX];

	(void)state;
	/* moved: activate (no command line, Python < 3.11) names a folder that is gone */
	snprintf(at, sizeof at, "%s/b/.venv", root);
	snprintf(gone, sizeof gone, "%s/old-place/.venv", root);
	fake_venv("b/.venv", gone, 0);
	assert_int_equal(venv_inspect(at, &vi, NULL), 0);
	assert_true(vi.moved);
	assert_false(vi.copied);
	assert_string_equal(vi.recorded_path, gone);
	assert_string_equal(vi.recorded_from, "bin/activate");
	venv_info_free(&vi);
	/* copied: the original is still there */
	snprintf(orig, sizeof orig, "%s/a/.venv", root);
	snprintf(at, sizeof at, "%s/c/.venv", root);
	fake_venv("c/.venv", orig, 1);
	assert_int_equal(venv_inspect(at, &vi, NULL), 0);
	assert_true(vi.moved && vi.copied);
	venv_info_free(&vi);
	/* only a shebang says where: still found */
	snprintf(at, sizeof at, "%s/d/.venv", root);
	snprintf(gone, sizeof gone, "%s/elsewhere/.venv", root);
	fake_venv("d/.venv", gone, 0);
	snprintf(orig, sizeof orig, "%s/d/.venv/bin/activate", root);
	unlink(orig);
	assert_int_equal(venv_inspect(at, &vi, NULL), 0);
	assert_true(vi.moved);
	assert_string_equal(vi.recorded_from, "bin/tool shebang");
	venv_info_free(&vi);
}

static void
test_absent_and_not_venv(void **state)
{
	struct venv_info vi;
	char at[PATH_MAX];

	(void)state;
	snprintf(at, sizeof at, "%s/nothing", root);
	assert_int_equal(venv_inspect(at, &vi, NULL), 0);
	assert_false(vi.exists);
	venv_info_free(&vi);
	put("plain/readme.txt", "not a venv\n");
	snprintf(at, sizeof at, "%s/plain", root);
	assert_int_equal(venv_inspect(at, &vi, NULL), 0);
	assert_true(vi.exists);
	assert_false(vi.is_venv);
	assert_null(vi.python_real);
	venv_info_free(&vi);
}

static void
test_move_aside(void **state)
{
	char at[PATH_MAX], *to = NULL, *to2 = NULL;
	struct kd_err err = { 0 };

	(void)state;
	snprintf(at, sizeof at, "%s/e/.venv-rebuild", root);
	fake_venv("e/.venv-rebuild", at, 1);
	assert_int_equal(venv_move_aside(at, &to, &err), 0);
	assert_non_null(strstr(to, "/e/.venv-rebuild.aside-"));
	assert_int_equal(to[strlen(to) - 1], 'Z');
	assert_false(fsutil_exists(at));
	assert_true(fsutil_exists(to));
	/* the same second again: another free name, nothing overwritten */
	fake_venv("e/.venv-rebuild", at, 1);
	assert_int_equal(venv_move_aside(at, &to2, &err), 0);
	assert_string_not_equal(to, to2);
	assert_true(fsutil_exists(to) && fsutil_exists(to2));
	free(to);
	free(to2);
	/* nothing there: an error, not a crash */
	assert_int_equal(venv_move_aside(at, &to, &err), KD_EENV);
	assert_null(to);
}

static int
setup(void **state)
{
	(void)state;
	return mkdtemp(root) == NULL;
}

/* The commit a VCS install's direct_url.json names, found by the
 * distribution's canonical name in the venv's site-packages. */
static void
test_direct_commit(void **state)
{
	char venv[PATH_MAX], got[64];
	const char *c = "0123456789abcdef0123456789abcdef01234567";

	(void)state;
	put("dv/lib/python3.11/site-packages/My_Pkg-0.1.dist-info/direct_url.json",
	    "{\"url\": \"file:///r\", \"vcs_info\": {\"vcs\": \"git\", "
	    "\"commit_id\": \"0123456789abcdef0123456789abcdef01234567\"}}");
	put("dv/lib/python3.11/site-packages/folder_pkg-1.0.dist-info/direct_url.json",
	    "{\"url\": \"file:///f\", \"dir_info\": {}}");
	put("dv/lib/python3.11/site-packages/plain-2.0.dist-info/METADATA", "Name: plain\n");
	snprintf(venv, sizeof venv, "%s/dv", root);
	venv_direct_commit(venv, "my-pkg", got, sizeof got);
	assert_string_equal(got, c);
	venv_direct_commit(venv, "folder-pkg", got, sizeof got);
	assert_string_equal(got, "(none)");
	venv_direct_commit(venv, "plain", got, sizeof got);
	assert_string_equal(got, "");
	venv_direct_commit(venv, "absent", got, sizeof got);
	assert_string_equal(got, "");
}

static int
teardown(void **state)
{
	(void)state;
	return fsutil_rmtree(root, NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_place),
		cmocka_unit_test(test_moved_and_copied),
		cmocka_unit_test(test_absent_and_not_venv),
		cmocka_unit_test(test_move_aside),
		cmocka_unit_test(test_direct_commit),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
