/* test-state.c - state.yaml round trip, refusal of bad files, resume. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/state.h"

static char tmpdir[256];

static int
setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/kd-state-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	return fsutil_rmtree(tmpdir, NULL);
}

static void
fill(struct kd_state *s)
{
	struct kd_rows rows = { 0 };
	struct kd_row *r;

	kd_rows_add(&rows, "code.commit", KD_R_PASS, "commit", "abc", "abc", NULL);
	r = kd_rows_add(&rows, "data.digest", KD_R_FAIL, "digest", "11", "22", "logs/x.log");
	kd_row_set_error(r, "digest differs: 11 != 22", "restore the file");
	kd_rows_add(&rows, "note: \"quoted\"", KD_R_WARN, "multi\nline", "true", "123", NULL);
	stage_apply_rows(s, 0, &rows, "feedface");
	assert_int_equal(stage_record_deviation(s, 0, "data.digest", NULL, "known newer data",
						1, "tester", NULL), 0);
	assert_int_equal(stage_add_note(s, 0, "looked at it: fine", "pair", NULL), 0);
	s->current = 2;
	yamlio_set(s->settings, "system.python", json_string("/usr/bin/python3"));
	kd_rows_free(&rows);
}

static void
test_round_trip(void **state)
{
	struct kd_state a, b;
	char *path = fsutil_join(tmpdir, "state.yaml");
	json_t *ja, *jb;

	(void)state;
	state_init(&a);
	fill(&a);
	assert_int_equal(state_save(path, &a, NULL), 0);
	assert_int_equal(state_load(path, &b, NULL), 0);
	ja = state_to_json(&a);
	jb = state_to_json(&b);
	assert_true(json_equal(ja, jb));
	assert_int_equal(b.current, 2);
	assert_int_equal(b.st[0].status, KD_ST_DEVIATION);
	assert_string_equal(b.st[0].devs[0].why, "known newer data");
	assert_true(b.st[0].devs[0].intentional);
	assert_string_equal(b.st[0].notes[0].author, "pair");
	json_decref(ja);
	json_decref(jb);
	state_free(&a);
	state_free(&b);
	free(path);
}

static char *
slurp(const char *path, size_t *len)
{
	char *buf;

	assert_int_equal(fsutil_read_file(path, 64u << 20, &buf, len, NULL), 0);
	return buf;
}

/* Every file in tests/fixtures/bad-state is refused with its name and a
 * line, is left byte for byte as it was, and the project does not open. */
static void
test_bad_files_refused(void **state)
{
	char dir[512];
	DIR *d;
	struct dirent *de;
	int count = 0;

	(void)state;
	snprintf(dir, sizeof dir, "%s/tests/fixtures/bad-state", KD_SRCDIR);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		char src[1024], proj[1024], kdir[1100], dst[1200];
		struct kd_state s;
		struct kd_err err;
		struct kd_ctx ctx;
		char *before, *after;
		size_t lb, la;
		if (de->d_name[0] == '.')
			continue;
		snprintf(src, sizeof src, "%s/%s", dir, de->d_name);
		snprintf(proj, sizeof proj, "%s/p-%s", tmpdir, de->d_name);
		snprintf(kdir, sizeof kdir, "%s/kernodeck", proj);
		snprintf(dst, sizeof dst, "%s/state.yaml", kdir);
		assert_int_equal(fsutil_mkdirs(kdir, NULL), 0);
		before = slurp(src, &lb);
		assert_int_equal(fsutil_write_atomic(dst, before, lb, FSUTIL_RAW, NULL), 0);
		memset(&err, 0, sizeof err);
		if (state_load(dst, &s, &err) == 0)
			fail_msg("%s was accepted", de->d_name);
		assert_int_equal(err.code, KD_EINPUT);
		assert_non_null(strstr(err.file, "state.yaml"));
		if (err.line <= 0)
			fail_msg("%s: no line in \"%s\"", de->d_name, err.msg);
		state_free(&s);
		assert_int_equal(kd_ctx_open(&ctx, proj, NULL, KD_LOCK_REQUIRED, &err), KD_EINPUT);
		kd_ctx_close(&ctx);
		after = slurp(dst, &la);
		assert_int_equal(la, lb);
		assert_memory_equal(before, after, lb);
		free(before);
		free(after);
		count++;
	}
	closedir(d);
	assert_true(count >= 15);
}

static void
test_oversized_refused(void **state)
{
	char *path = fsutil_join(tmpdir, "huge.yaml");
	struct kd_state s;
	struct kd_err err;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "schema: 1\n", 10), 10);
	assert_int_equal(ftruncate(fd, 20 * 1024 * 1024), 0);
	close(fd);
	assert_int_equal(state_load(path, &s, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "too large"));
	assert_non_null(strstr(err.msg, "huge.yaml"));
	state_free(&s);
	free(path);
}

static void
test_resume_where_stopped(void **state)
{
	char proj[512];
	struct kd_ctx ctx;
	struct kd_err err;

	(void)state;
	snprintf(proj, sizeof proj, "%s/resume", tmpdir);
	assert_int_equal(fsutil_mkdirs(proj, NULL), 0);
	assert_int_equal(kd_ctx_open(&ctx, proj, NULL, KD_LOCK_REQUIRED, &err), 0);
	assert_int_equal(ctx.state.current, 0);
	ctx.state.current = 4;
	assert_int_equal(kd_ctx_save_state(&ctx, &err), 0);
	kd_ctx_close(&ctx);
	assert_int_equal(kd_ctx_open(&ctx, proj, NULL, KD_LOCK_REQUIRED, &err), 0);
	assert_int_equal(ctx.state.current, 4);
	kd_ctx_close(&ctx);
}

static void
test_failed_write_keeps_previous(void **state)
{
	char *path = fsutil_join(tmpdir, "keep.yaml");
	struct kd_state a, b;
	struct kd_err err;

	(void)state;
	state_init(&a);
	a.current = 1;
	assert_int_equal(state_save(path, &a, NULL), 0);
	a.current = 5;
	setenv("KD_FAULT_WRITE", "keep.yaml", 1);
	assert_int_equal(state_save(path, &a, &err), KD_EENV);
	unsetenv("KD_FAULT_WRITE");
	assert_non_null(strstr(err.msg, "previous version is kept"));
	assert_int_equal(state_load(path, &b, NULL), 0);
	assert_int_equal(b.current, 1);
	state_free(&a);
	state_free(&b);
	free(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_files_refused),
		cmocka_unit_test(test_oversized_refused),
		cmocka_unit_test(test_resume_where_stopped),
		cmocka_unit_test(test_failed_write_keeps_previous),
	};
	return cmocka_run_group_tests_name("state", tests, setup, teardown);
}
