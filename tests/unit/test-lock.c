/* test-lock.c - one writer per folder, stale locks, read-only opening. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/lock.h"

static char tmpdir[256];

static int
setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/kd-lock-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	return fsutil_rmtree(tmpdir, NULL);
}

/* A child takes the lock and waits; returns its pid. */
static pid_t
child_holds(const char *dir, int *release_fd)
{
	int ready[2], go[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct kd_lock *l;
		close(ready[0]);
		close(go[1]);
		if (lock_take(dir, &l, NULL, NULL) != 0)
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		lock_release(l);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	*release_fd = go[1];
	return pid;
}

static void
test_second_writer_told_who(void **state)
{
	struct kd_lock_holder h;
	struct kd_lock *l = NULL;
	struct kd_err err;
	int go, status;
	pid_t pid = child_holds(tmpdir, &go);

	(void)state;
	assert_int_equal(lock_take(tmpdir, &l, &h, &err), KD_EFAIL);
	assert_int_equal(h.pid, (long)pid);
	assert_true(h.user[0] != '\0');
	assert_true(h.host[0] != '\0');
	assert_int_equal(strlen(h.since), 20);
	assert_non_null(strstr(err.msg, "in use"));
	assert_int_equal(lock_holder(tmpdir, &h), 0);
	close(go);
	waitpid(pid, &status, 0);
	assert_int_equal(lock_take(tmpdir, &l, &h, &err), 0);
	lock_release(l);
}

static void
test_dead_holder_is_stale(void **state)
{
	struct kd_lock *l = NULL;
	struct kd_lock_holder h;
	int go, status;
	pid_t pid = child_holds(tmpdir, &go);

	(void)state;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(go);
	/* the file still names the dead process, but the lock is free */
	assert_int_equal(lock_take(tmpdir, &l, &h, NULL), 0);
	lock_release(l);
	assert_int_equal(lock_holder(tmpdir, &h), KD_EFAIL);
}

static void
test_ctx_opens_readonly_when_held(void **state)
{
	struct kd_ctx ctx;
	struct kd_err err;
	char kdir[512];
	int go, status;
	pid_t pid;

	(void)state;
	snprintf(kdir, sizeof kdir, "%s/kernodeck", tmpdir);
	fsutil_mkdirs(kdir, NULL);
	pid = child_holds(kdir, &go);
	assert_int_equal(kd_ctx_open(&ctx, tmpdir, NULL, KD_LOCK_REQUIRED, &err), KD_EENV);   /* held by another: exit 3 */
	kd_ctx_close(&ctx);
	assert_int_equal(kd_ctx_open(&ctx, tmpdir, NULL, KD_LOCK_READONLY_OK, &err), 0);
	assert_true(ctx.readonly);
	assert_int_equal(kd_ctx_save_state(&ctx, &err), KD_EENV);
	kd_ctx_close(&ctx);
	close(go);
	waitpid(pid, &status, 0);
}

/* Permissions: as root this proves nothing, so the child drops to nobody
 * before opening a folder it cannot write. */
static void
test_unwritable_folder_as_nobody(void **state)
{
	char proj[512];
	int status;
	pid_t pid;

	(void)state;
	snprintf(proj, sizeof proj, "%s/ro", tmpdir);
	fsutil_mkdirs(proj, NULL);
	chmod(tmpdir, 0755);
	chmod(proj, 0755);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct kd_ctx ctx;
		struct kd_err err;
		if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
			_exit(10);
		if (kd_ctx_open(&ctx, proj, NULL, KD_LOCK_REQUIRED, &err) != KD_EENV)
			_exit(11);
		kd_ctx_close(&ctx);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_second_writer_told_who),
		cmocka_unit_test(test_dead_holder_is_stale),
		cmocka_unit_test(test_ctx_opens_readonly_when_held),
		cmocka_unit_test(test_unwritable_folder_as_nobody),
	};
	return cmocka_run_group_tests_name("lock", tests, setup, teardown);
}
