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
#include "kernodeck/stage.h"
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

/* Write text to path (whole file). */
static void
put(const char *path, const char *text)
{
	assert_int_equal(fsutil_write_atomic(path, text, strlen(text), FSUTIL_RAW, NULL), 0);
}

/* A project folder NAME under tmpdir with a kernodeck/ folder, its path in
 * proj and the kernodeck folder's in sd. */
static void
project(const char *name, char *proj, size_t plen, char *sd, size_t slen)
{
	snprintf(proj, plen, "%s/%s", tmpdir, name);
	snprintf(sd, slen, "%s/kernodeck", proj);
	assert_int_equal(fsutil_mkdirs(sd, NULL), 0);
}

static void
test_changed_only_when_it_differs(void **state)
{
	char proj[512], sd[600], *sp;
	struct kd_ctx ctx;
	struct kd_err err;
	struct stat a, b;

	(void)state;
	project("changed", proj, sizeof proj, sd, sizeof sd);
	sp = fsutil_join(sd, "state.yaml");
	assert_int_equal(kd_ctx_open(&ctx, proj, NULL, KD_LOCK_REQUIRED, &err), 0);
	assert_int_equal(kd_ctx_state_changed(&ctx), 1);      /* no file yet */
	assert_int_equal(kd_ctx_save_state(&ctx, &err), 0);
	assert_int_equal(kd_ctx_state_changed(&ctx), 0);
	assert_int_equal(stage_add_note(&ctx.state, 1, "a note", "tester", NULL), 0);
	assert_int_equal(kd_ctx_state_changed(&ctx), 1);
	assert_int_equal(kd_ctx_save_state(&ctx, &err), 0);
	assert_int_equal(kd_ctx_state_changed(&ctx), 0);
	ctx.state.current = 3;
	assert_int_equal(kd_ctx_state_changed(&ctx), 1);
	ctx.state.current = 0;
	assert_int_equal(kd_ctx_state_changed(&ctx), 0);
	kd_ctx_close(&ctx);

	/* reopened: what was read is what the state says */
	assert_int_equal(stat(sp, &a), 0);
	assert_int_equal(kd_ctx_open(&ctx, proj, NULL, KD_LOCK_REQUIRED, &err), 0);
	assert_int_equal(ctx.state.st[1].nnotes, 1);
	assert_int_equal(kd_ctx_state_changed(&ctx), 0);
	kd_ctx_close(&ctx);
	assert_int_equal(stat(sp, &b), 0);
	assert_true(a.st_ino == b.st_ino && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec);

	/* a stage checked against another reference is marked stale at open:
	 * that is a change to save */
	put(sp, "schema: 1\ncurrent: reference\nstages:\n  reference:\n    status: passed\n"
	    "    checked_ref: '0000000000000000000000000000000000000000000000000000000000000000'\n");
	assert_int_equal(kd_ctx_open(&ctx, proj, NULL, KD_LOCK_REQUIRED, &err), 0);
	assert_int_equal(ctx.state.st[0].status, KD_ST_STALE);
	assert_int_equal(kd_ctx_state_changed(&ctx), 1);
	kd_ctx_close(&ctx);
	free(sp);
}

/* kd_ctx_open's identity of the reference, against a fresh digest of it. */
static void
open_and_check_identity(const char *proj, char id[65])
{
	struct kd_ctx ctx;
	struct kd_err err;
	char want[65];

	assert_int_equal(kd_ctx_open(&ctx, proj, NULL, KD_LOCK_REQUIRED, &err), 0);
	kd_ref_identity(ctx.ref, want);
	assert_string_equal(ctx.ref_id, want);
	memcpy(id, ctx.ref_id, 65);
	kd_ctx_close(&ctx);
}

static void
test_reference_identity_cache(void **state)
{
	char proj[512], sd[600], *rp, *cp, *buf = NULL, id1[65], id2[65], id3[65];
	struct kd_ctx ctx;
	struct kd_err err;
	size_t len;

	(void)state;
	project("refid", proj, sizeof proj, sd, sizeof sd);
	rp = fsutil_join(sd, "reference.yaml");
	cp = fsutil_join(sd, "cache/reference-identity");
	put(rp, "schema: 1\nname: alpha\n");
	/* just written: racily clean, so not cached yet */
	open_and_check_identity(proj, id1);
	assert_false(fsutil_exists(cp));
	usleep(120 * 1000);
	open_and_check_identity(proj, id2);
	assert_string_equal(id1, id2);
	assert_int_equal(fsutil_read_file(cp, 4096, &buf, &len, NULL), 0);
	assert_non_null(strstr(buf, id1));
	free(buf);
	/* read from the cache now */
	open_and_check_identity(proj, id2);
	assert_string_equal(id1, id2);

	/* the same size, another content: another identity, and the stage
	 * checked against the first one is stale */
	assert_int_equal(kd_ctx_open(&ctx, proj, NULL, KD_LOCK_REQUIRED, &err), 0);
	ctx.state.st[0].status = KD_ST_PASSED;
	memcpy(ctx.state.st[0].checked_ref, ctx.ref_id, 65);
	assert_int_equal(kd_ctx_save_state(&ctx, &err), 0);
	kd_ctx_close(&ctx);
	put(rp, "schema: 1\nname: omega\n");
	open_and_check_identity(proj, id3);
	assert_string_not_equal(id1, id3);
	assert_int_equal(kd_ctx_open(&ctx, proj, NULL, KD_LOCK_REQUIRED, &err), 0);
	assert_int_equal(ctx.state.st[0].status, KD_ST_STALE);
	kd_ctx_close(&ctx);

	/* a cache entry that does not parse is not used */
	usleep(120 * 1000);
	put(cp, "kernodeck-reference-identity 1 garbage\n");
	open_and_check_identity(proj, id2);
	assert_string_equal(id2, id3);
	put(cp, "");
	open_and_check_identity(proj, id2);
	assert_string_equal(id2, id3);
	free(rp);
	free(cp);
}

static void
test_observations_read_when_asked(void **state)
{
	char proj[512], sd[600], *op;
	struct kd_ctx ctx;
	struct kd_err err;
	json_t *o;

	(void)state;
	project("obs", proj, sizeof proj, sd, sizeof sd);
	op = fsutil_join(sd, stage_obs_file(1));
	put(op, "gpu: none\n");
	assert_int_equal(kd_ctx_open(&ctx, proj, NULL, KD_LOCK_REQUIRED, &err), 0);
	/* changed after the open, read when first asked for; whole: it ends
	 * with the end mark kernodeck writes */
	put(op, "gpu: two\n...\n");
	o = kd_ctx_obs(&ctx, 1);
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "gpu")), "two");
	assert_ptr_equal(kd_ctx_obs(&ctx, 1), o);             /* read once */
	assert_null(kd_ctx_obs(&ctx, 2));                     /* no file */
	assert_null(kd_ctx_obs(&ctx, -1));
	assert_null(kd_ctx_obs(&ctx, KD_NSTAGES));
	o = json_pack("{s:i}", "n", 7);
	assert_int_equal(kd_ctx_save_obs(&ctx, 2, o, &err), 0);
	json_decref(o);
	assert_int_equal(json_integer_value(json_object_get(kd_ctx_obs(&ctx, 2), "n")), 7);
	kd_ctx_close(&ctx);
	/* saved, and read back by the next open */
	assert_int_equal(kd_ctx_open(&ctx, proj, NULL, KD_LOCK_REQUIRED, &err), 0);
	assert_int_equal(json_integer_value(json_object_get(kd_ctx_obs(&ctx, 2), "n")), 7);
	kd_ctx_close(&ctx);
	/* a malformed file: no observations */
	put(op, "gpu: [unclosed\n");
	assert_int_equal(kd_ctx_open(&ctx, proj, NULL, KD_LOCK_REQUIRED, &err), 0);
	assert_null(kd_ctx_obs(&ctx, 1));
	kd_ctx_close(&ctx);
	/* cut short (it parses, but the end mark is missing): none either */
	put(op, "gpu: two\n");
	assert_int_equal(kd_ctx_open(&ctx, proj, NULL, KD_LOCK_REQUIRED, &err), 0);
	assert_null(kd_ctx_obs(&ctx, 1));
	kd_ctx_close(&ctx);
	free(op);
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
		cmocka_unit_test(test_changed_only_when_it_differs),
		cmocka_unit_test(test_reference_identity_cache),
		cmocka_unit_test(test_observations_read_when_asked),
	};
	return cmocka_run_group_tests_name("state", tests, setup, teardown);
}
