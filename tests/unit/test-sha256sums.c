/*
 * test-sha256sums.c - the SHA256SUMS parser on good and hostile manifests,
 * its output format, and verification of a folder.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/hash.h"
#include "kernodeck/sha256sums.h"

#define H1 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define H2 "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08"

static int
parse(const char *text, struct sha256sums *s, struct kd_err *err)
{
	return sha256sums_parse(text, strlen(text), "SHA256SUMS", s, err);
}

static void
test_good(void **state)
{
	struct sha256sums s;
	struct kd_err err;
	(void)state;

	assert_int_equal(parse(H1 "  README.md\n\n" H2 " *logs/a b.log\n"
			       "\\" H1 "  odd\\\\name\\nx\n" H1 "  last-no-newline", &s, &err), 0);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.v[0].path, "README.md");
	assert_int_equal(s.v[0].binary, 0);
	assert_string_equal(s.v[1].path, "logs/a b.log");
	assert_int_equal(s.v[1].binary, 1);
	/* digests are kept lowercase */
	assert_string_equal(s.v[1].hex, "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
	assert_int_equal(s.v[1].line, 3);
	assert_string_equal(s.v[2].path, "odd\\name\nx");
	sha256sums_free(&s);
}

/* Each hostile manifest is refused with the line that is wrong. */
static void
test_bad(void **state)
{
	static const struct { const char *text; int line; } bad[] = {
		{ "e3b0  README.md\n", 1 },
		{ H1 " README.md\n", 1 },
		{ H1 "\tREADME.md\n", 1 },
		{ H1 "  \n", 1 },
		{ H1 "  /etc/passwd\n", 1 },
		{ H1 "  ../outside\n", 1 },
		{ H1 "  a/../../outside\n", 1 },
		{ H1 "  a//b\n", 1 },
		{ H1 "  ./a\n", 1 },
		{ H1 "  dir/\n", 1 },
		{ H1 "  a\n" H1 "  a\n", 2 },
		{ H1 "  a\r\n", 1 },
		{ "\\" H1 "  bad\\escape\n", 1 },
		{ "zz3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a\n", 1 },
		{ "# comment\n", 1 },
		{ "SHA256 (a) = " H1 "\n", 1 },
	};
	struct sha256sums s;
	struct kd_err err;
	(void)state;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		kd_err_clear(&err);
		if (parse(bad[i].text, &s, &err) == 0)
			fail_msg("accepted bad manifest %zu", i);
		assert_int_equal(err.code, KD_EINPUT);
		assert_int_equal(err.line, bad[i].line);
		assert_int_equal(s.n, 0);
	}
	/* a NUL byte */
	assert_int_equal(sha256sums_parse(H1 "  a\0b\n", 69, "S", &s, &err), KD_EINPUT);
}

/* A refusal names the manifest and the line once: "FILE:LINE: what". */
static void
test_message(void **state)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ H1 "  a\nX" H1 "  b\n",
		  "d/SHA256SUMS:2: not a SHA256SUMS line (64 hex digits, two spaces or \" *\", a path)" },
		{ H1 "  ../outside\n",
		  "d/SHA256SUMS:1: the path points outside the dossier or is malformed" },
		{ H1 "  a\n\n" H1 "  a\n", "d/SHA256SUMS:3: a is listed twice" },
	};
	struct sha256sums s;
	struct kd_err err;
	char buf[2200];
	(void)state;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		kd_err_clear(&err);
		assert_int_equal(sha256sums_parse(bad[i].text, strlen(bad[i].text), "d/SHA256SUMS",
						  &s, &err), KD_EINPUT);
		assert_string_equal(kd_err_format(&err, buf, sizeof buf), bad[i].msg);
	}
	kd_err_clear(&err);
	assert_int_equal(sha256sums_parse(H1 "  a\0b\n", 69, "d/SHA256SUMS", &s, &err), KD_EINPUT);
	assert_string_equal(kd_err_format(&err, buf, sizeof buf), "d/SHA256SUMS: holds a NUL byte");
}

static void
test_path_safe(void **state)
{
	(void)state;
	assert_true(sha256sums_path_safe("a"));
	assert_true(sha256sums_path_safe("logs/2024-run.log"));
	assert_true(sha256sums_path_safe("..a/b..c"));
	assert_false(sha256sums_path_safe(""));
	assert_false(sha256sums_path_safe("/a"));
	assert_false(sha256sums_path_safe(".."));
	assert_false(sha256sums_path_safe("a/.."));
	assert_false(sha256sums_path_safe("a/./b"));
}

static void
test_format_roundtrip(void **state)
{
	struct sha256sums s = {0}, t;
	struct kd_err err;
	size_t len;
	char *text;
	(void)state;

	assert_int_equal(sha256sums_add(&s, H1, "z.txt", &err), 0);
	assert_int_equal(sha256sums_add(&s, H1, "a/b.txt", &err), 0);
	assert_int_equal(sha256sums_add(&s, H1, "back\\slash", &err), 0);
	assert_int_equal(sha256sums_add(&s, H1, "../x", &err), KD_EINPUT);
	assert_int_equal(sha256sums_add(&s, "abc", "x", &err), KD_EINPUT);
	text = sha256sums_format(&s, &len);
	/* sorted by path, "HEX  PATH", escaped names start with a backslash */
	assert_string_equal(text, H1 "  a/b.txt\n\\" H1 "  back\\\\slash\n" H1 "  z.txt\n");
	assert_int_equal(sha256sums_parse(text, len, "x", &t, &err), 0);
	assert_int_equal(t.n, 3);
	assert_string_equal(t.v[1].path, "back\\slash");
	sha256sums_free(&t);
	sha256sums_free(&s);
	free(text);
}

static void
put(const char *dir, const char *rel, const char *text)
{
	char *p = fsutil_join(dir, rel);
	struct kd_err err;

	assert_int_equal(fsutil_write_atomic(p, text, strlen(text), FSUTIL_RAW, &err), 0);
	free(p);
}

static int
has(const struct sha256sums_report *r, const char *path, const char *what)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i].path, path) == 0 && strcmp(r->v[i].what, what) == 0)
			return 1;
	return 0;
}

/* A folder verified: one clean pass, then each kind of tampering. */
static void
test_verify(void **state)
{
	char dir[] = "/tmp/kd-sums.XXXXXX", moved[64], hex[65], *p;
	struct sha256sums s = {0};
	struct sha256sums_report rep;
	struct kd_err err;
	uint64_t size;
	(void)state;

	assert_non_null(mkdtemp(dir));
	p = fsutil_join(dir, "logs");
	assert_int_equal(fsutil_mkdirs(p, &err), 0);
	free(p);
	put(dir, "README.md", "hello\n");
	put(dir, "logs/run.log", "line\n");
	p = fsutil_join(dir, "README.md");
	assert_int_equal(hash_file(p, NULL, NULL, hex, &size, &err), 0);
	free(p);
	sha256sums_add(&s, hex, "README.md", &err);
	p = fsutil_join(dir, "logs/run.log");
	assert_int_equal(hash_file(p, NULL, NULL, hex, &size, &err), 0);
	free(p);
	sha256sums_add(&s, hex, "logs/run.log", &err);
	put(dir, "SHA256SUMS", "ignored: the manifest itself\n");

	assert_int_equal(sha256sums_verify(dir, &s, "SHA256SUMS", &rep, &err), 0);
	assert_int_equal(rep.checked, 2);
	sha256sums_report_free(&rep);

	/* changed, unlisted, missing */
	put(dir, "README.md", "hello!\n");
	put(dir, "extra.sh", "rm -rf /\n");
	p = fsutil_join(dir, "logs/run.log");
	unlink(p);
	free(p);
	assert_int_equal(sha256sums_verify(dir, &s, "SHA256SUMS", &rep, &err), KD_EFAIL);
	assert_true(has(&rep, "README.md", "changed"));
	assert_true(has(&rep, "extra.sh", "not listed"));
	assert_true(has(&rep, "logs/run.log", "missing"));
	sha256sums_report_free(&rep);

	/* a symbolic link on the way out of the folder */
	p = fsutil_join(dir, "logs/run.log");
	assert_int_equal(symlink("/etc/hostname", p), 0);
	free(p);
	assert_int_equal(sha256sums_verify(dir, &s, "SHA256SUMS", &rep, &err), KD_EFAIL);
	assert_true(has(&rep, "logs/run.log", "escapes"));
	sha256sums_report_free(&rep);
	p = fsutil_join(dir, "logs");
	snprintf(moved, sizeof moved, "%s-moved", dir);
	assert_int_equal(rename(p, moved), 0);
	assert_int_equal(symlink(moved, p), 0);
	free(p);
	assert_int_equal(sha256sums_verify(dir, &s, "SHA256SUMS", &rep, &err), KD_EFAIL);
	assert_true(has(&rep, "logs/run.log", "escapes"));
	sha256sums_report_free(&rep);

	sha256sums_free(&s);
	fsutil_rmtree(moved, &err);
	assert_int_equal(fsutil_rmtree(dir, &err), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_message),
		cmocka_unit_test(test_path_safe),
		cmocka_unit_test(test_format_roundtrip),
		cmocka_unit_test(test_verify),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
