/* test-beneath.c - writes below a containment root follow no link: with
 * openat2 and with the component walk (KD_FAULT_NO_OPENAT2). */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/beneath.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/lock.h"

static char tmpdir[256], rootdir[300], outdir[300];

/* A root and an outside folder; root/link -> outside, root/flink -> a
 * file outside. */
static int
setup(void **state)
{
	char p[400];

	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/kd-beneath-XXXXXX");
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	snprintf(rootdir, sizeof rootdir, "%s/root", tmpdir);
	snprintf(outdir, sizeof outdir, "%s/outside", tmpdir);
	if (mkdir(rootdir, 0755) != 0 || mkdir(outdir, 0755) != 0)
		return -1;
	snprintf(p, sizeof p, "%s/link", rootdir);
	if (symlink(outdir, p) != 0)
		return -1;
	snprintf(p, sizeof p, "%s/file", outdir);
	if (fsutil_write_atomic(p, "outside\n", 8, FSUTIL_RAW, NULL) != 0)
		return -1;
	snprintf(p, sizeof p, "%s/flink", rootdir);
	if (symlink("../outside/file", p) != 0)
		return -1;
	return beneath_set_root(rootdir, NULL);
}

static int
teardown(void **state)
{
	(void)state;
	beneath_set_root(NULL, NULL);
	unsetenv("KD_FAULT_NO_OPENAT2");
	return fsutil_rmtree(tmpdir, NULL);
}

/* The outside folder holds only its file, unchanged. */
static void
outside_unchanged(void)
{
	char p[400], *text = NULL;
	DIR *d = opendir(outdir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	assert_int_equal(n, 1);
	snprintf(p, sizeof p, "%s/file", outdir);
	assert_int_equal(fsutil_read_file(p, 100, &text, NULL, NULL), 0);
	assert_string_equal(text, "outside\n");
	free(text);
}

static void
both(void (*fn)(void))
{
	fn();
	setenv("KD_FAULT_NO_OPENAT2", "1", 1);
	fn();
	unsetenv("KD_FAULT_NO_OPENAT2");
}

static void
inside_ok(void)
{
	char p[400], *text = NULL;
	struct kd_err err;

	snprintf(p, sizeof p, "%s/a/b", rootdir);
	assert_int_equal(fsutil_mkdirs(p, &err), 0);
	snprintf(p, sizeof p, "%s/a/b/state.yaml", rootdir);
	assert_int_equal(fsutil_write_atomic(p, "x: 1\n", 5, 0, &err), 0);
	assert_int_equal(fsutil_read_file(p, 100, &text, NULL, NULL), 0);
	assert_string_equal(text, "x: 1\n");
	free(text);
	/* a file opened (made) below the root, as the runner opens its logs */
	snprintf(p, sizeof p, "%s/a/b/run.log", rootdir);
	{
		int fd = beneath_open(p, O_WRONLY | O_CREAT | O_APPEND, 0644, &err);
		struct stat st;
		assert_true(fd >= 0);
		assert_int_equal(fstat(fd, &st), 0);
		assert_true(S_ISREG(st.st_mode));
		assert_int_equal(write(fd, "log\n", 4), 4);
		close(fd);
		fd = beneath_open(p, O_RDONLY, 0, &err);
		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(unlink(p), 0);
	}
	/* a "." and doubled slashes are nothing to refuse */
	snprintf(p, sizeof p, "%s/./a//b/other", rootdir);
	assert_int_equal(fsutil_write_atomic(p, "y\n", 2, 0, &err), 0);
	assert_int_equal(fsutil_rmtree(p, &err), 0);
}

static void
test_inside(void **state)
{
	(void)state;
	both(inside_ok);
}

static void
through_link(void)
{
	char p[400];
	struct kd_err err;

	snprintf(p, sizeof p, "%s/link/state.yaml", rootdir);
	assert_int_equal(fsutil_write_atomic(p, "x: 1\n", 5, 0, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "link in the work folder"));
	assert_non_null(strstr(err.msg, "is a symbolic link (to "));
	assert_non_null(strstr(err.msg, outdir));
	snprintf(p, sizeof p, "%s/link/sub/deeper", rootdir);
	assert_int_equal(fsutil_mkdirs(p, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "link in the work folder"));
	snprintf(p, sizeof p, "%s/link/run.log", rootdir);
	assert_true(beneath_open(p, O_WRONLY | O_CREAT | O_APPEND, 0644, &err) < 0);
	assert_int_equal(err.code, KD_EINPUT);
	/* the lock of a state folder that is a link */
	snprintf(p, sizeof p, "%s/link", rootdir);
	{
		struct kd_lock *l = NULL;
		assert_int_equal(lock_take(p, &l, NULL, &err), KD_EINPUT);
		assert_null(l);
	}
	outside_unchanged();
}

static void
test_through_link(void **state)
{
	(void)state;
	both(through_link);
}

static void
last_is_link(void)
{
	char p[400];
	struct kd_err err;
	int fd;

	snprintf(p, sizeof p, "%s/flink", rootdir);
	fd = beneath_open(p, O_WRONLY | O_TRUNC, 0, &err);
	assert_true(fd < 0);
	assert_int_equal(err.code, KD_EINPUT);
	assert_non_null(strstr(err.msg, "flink in the work folder"));
	/* an atomic write replaces the link by a file: nothing outside */
	assert_int_equal(fsutil_write_atomic(p, "new\n", 4, 0, &err), 0);
	outside_unchanged();
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("../outside/file", p), 0);
}

static void
test_last_is_link(void **state)
{
	(void)state;
	both(last_is_link);
}

static void
escapes(void)
{
	char p[400];
	struct kd_err err;

	snprintf(p, sizeof p, "%s/elsewhere.txt", outdir);
	assert_int_equal(fsutil_write_atomic(p, "x\n", 2, 0, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "is outside the work folder"));
	snprintf(p, sizeof p, "%s/a/../../outside/x", rootdir);
	assert_int_equal(fsutil_write_atomic(p, "x\n", 2, 0, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "\"..\""));
	snprintf(p, sizeof p, "%s/a", rootdir);
	assert_int_equal(fsutil_mkdirs(p, &err), 0);
	{
		char dst[400];
		snprintf(dst, sizeof dst, "%s/link/a", rootdir);
		assert_int_equal(fsutil_move_tree(p, dst, &err), KD_EINPUT);
		assert_true(fsutil_exists(p));
		snprintf(dst, sizeof dst, "%s/moved", rootdir);
		assert_int_equal(fsutil_move_tree(p, dst, &err), 0);
		assert_int_equal(fsutil_move_tree(dst, p, &err), 0);
	}
	outside_unchanged();
}

static void
test_escapes(void **state)
{
	(void)state;
	both(escapes);
}

/* A relative root and relative paths; no root: links are followed. */
static void
test_relative_and_none(void **state)
{
	char cwd[512], p[400];
	struct kd_err err;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(tmpdir), 0);
	assert_int_equal(beneath_set_root("root", &err), 0);
	assert_string_equal(beneath_root(), rootdir);
	assert_int_equal(fsutil_write_atomic("root/rel.txt", "r\n", 2, 0, &err), 0);
	assert_int_equal(fsutil_write_atomic("root/link/rel.txt", "r\n", 2, 0, &err), KD_EINPUT);
	assert_int_equal(fsutil_write_atomic("outside/rel.txt", "r\n", 2, 0, &err), KD_EINPUT);
	assert_int_equal(chdir(cwd), 0);
	outside_unchanged();
	/* the same root reached through a link to it */
	snprintf(p, sizeof p, "%s/root-alias", tmpdir);
	assert_int_equal(symlink(rootdir, p), 0);
	snprintf(p, sizeof p, "%s/root-alias/alias.txt", tmpdir);
	assert_int_equal(fsutil_write_atomic(p, "a\n", 2, 0, &err), KD_EINPUT);
	snprintf(p, sizeof p, "%s/root/alias.txt", tmpdir);
	assert_int_equal(fsutil_write_atomic(p, "a\n", 2, 0, &err), 0);
	assert_int_equal(beneath_set_root(NULL, NULL), 0);
	assert_null(beneath_root());
	snprintf(p, sizeof p, "%s/link/free.txt", rootdir);
	assert_int_equal(fsutil_write_atomic(p, "f\n", 2, 0, &err), 0);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(beneath_set_root(rootdir, &err), 0);
	snprintf(p, sizeof p, "%s/missing-root", tmpdir);
	assert_int_equal(beneath_set_root(p, &err), KD_EENV);
	assert_null(beneath_root());
	assert_int_equal(beneath_set_root(rootdir, &err), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inside),
		cmocka_unit_test(test_through_link),
		cmocka_unit_test(test_last_is_link),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_relative_and_none),
	};
	return cmocka_run_group_tests_name("beneath", tests, setup, teardown);
}
