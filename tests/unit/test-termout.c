/*
 * test-termout.c - the one way out to the terminal: control characters,
 * C1 controls, bidirectional overrides and bytes that are not UTF-8 are
 * shown visibly, valid UTF-8 text is kept, and the stdio filter gives the
 * same result whatever the writes' boundaries.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kernodeck/redact.h"
#include "kernodeck/termout.h"

static void
expect(const char *in, size_t n, int flags, const char *want)
{
	size_t len;
	char *out = termout_clean(in, n, flags, &len);

	assert_non_null(out);
	assert_string_equal(out, want);
	assert_int_equal(len, strlen(want));
	free(out);
}

static void
test_controls(void **state)
{
	(void)state;
	expect("a\033]2;PWNED\007b", 12, 0, "a\\x1b]2;PWNED\\x07b");
	expect("\033]52;c;aGk=\033\\", 13, 0, "\\x1b]52;c;aGk=\\x1b\\");
	expect("x\rhidden\b\177", 10, 0, "x\\x0dhidden\\x08\\x7f");
	expect("a\0b", 3, 0, "a\\x00b");
	expect("tab\there\nnext", 13, 0, "tab\there\\x0anext");
	expect("tab\there\nnext", 13, TERMOUT_KEEP_NL, "tab\there\nnext");
}

static void
test_utf8(void **state)
{
	(void)state;
	expect("caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80", 14, 0, "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80");
	/* C1 controls (CSI is U+009B) and bidi overrides */
	expect("\xc2\x9b" "31m", 5, 0, "\\u009b31m");
	expect("\xc2\x85", 2, 0, "\\u0085");
	expect("a\xe2\x80\xae" "b\xe2\x81\xa6", 8, 0, "a\\u202eb\\u2066");
	/* zero-width and invisible format characters: ZWSP, ZWJ, LRM, word
	 * joiner, BOM, soft hyphen, the Arabic letter mark, a line separator,
	 * a tag (above U+FFFF: \UHHHHHHHH) */
	expect("a\xe2\x80\x8b" "b\xe2\x80\x8d" "c\xe2\x80\x8e", 12, 0, "a\\u200bb\\u200dc\\u200e");
	expect("\xe2\x81\xa0" "\xef\xbb\xbf" "\xc2\xad" "\xd8\x9c", 10, 0,
	       "\\u2060\\ufeff\\u00ad\\u061c");
	expect("x\xe2\x80\xa8" "y\xf3\xa0\x80\x81", 9, 0, "x\\u2028y\\U000e0001");
	/* a neighbour of each range stays as it is: U+2010 (hyphen), U+2070 */
	expect("\xe2\x80\x90" "\xe2\x81\xb0", 6, 0, "\xe2\x80\x90" "\xe2\x81\xb0");
	/* bytes that are not UTF-8: a lone C1 byte, overlong, surrogate, cut */
	expect("\x9b" "31m", 4, 0, "\\x9b31m");
	expect("\xc0\xaf", 2, 0, "\\xc0\\xaf");
	expect("\xe0\x80\xaf", 3, 0, "\\xe0\\x80\\xaf");
	expect("\xed\xa0\x80", 3, 0, "\\xed\\xa0\\x80");
	expect("\xf4\x90\x80\x80", 4, 0, "\\xf4\\x90\\x80\\x80");
	expect("end\xe2\x9c", 5, 0, "end\\xe2\\x9c");
	expect("\xff\xfe", 2, 0, "\\xff\\xfe");
}

static void
test_str_and_unsafe(void **state)
{
	char buf[8];

	(void)state;
	/* cut at a character, never inside an escape */
	assert_string_equal(termout_str("ab\033cd", 0, buf, sizeof buf), "ab\\x1bc");
	assert_string_equal(termout_str("abcd\033", 0, buf, sizeof buf), "abcd");
	assert_int_equal(termout_unsafe("plain caf\xc3\xa9\n", 11), 0);
	assert_int_equal(termout_unsafe("a\033b\xc2\x9b", 5), 3);
}

/* The filter on a pipe: a character split between two writes is kept
 * whole, an ESC is shown, whatever the boundaries. */
/* What the stdio filter writes for s written in two pieces (cut at
 * cut), into got. */
static void
through_filter(const char *s, size_t cut, char *got, size_t cap)
{
	int p[2], saved;
	ssize_t n;
	FILE *keep = stdout;

	assert_int_equal(pipe(p), 0);
	saved = dup(STDOUT_FILENO);
	dup2(p[1], STDOUT_FILENO);
	close(p[1]);
	assert_int_equal(termout_install(1), 0);
	fwrite(s, 1, cut, stdout);
	fflush(stdout);
	fwrite(s + cut, 1, strlen(s) - cut, stdout);
	fclose(stdout);
	stdout = keep;
	dup2(saved, STDOUT_FILENO);
	close(saved);
	n = read(p[0], got, cap - 1);
	close(p[0]);
	assert_true(n > 0);
	got[n] = '\0';
}

static void
test_filter(void **state)
{
	static const char text[] = "ok \xe2\x9c\x93 \033[2J caf\xc3\xa9\n";
	const char *want = "ok \xe2\x9c\x93 \\x1b[2J caf\xc3\xa9\n";
	char got[256];

	(void)state;
	for (size_t cut = 0; cut < sizeof text - 1; cut++) {
		through_filter(text, cut, got, sizeof got);
		assert_string_equal(got, want);
	}
}

/* What is shown passes the redaction files pass: a known value and a
 * shaped credential, through termout_clean, termout_str and the stdio
 * filter; termout_secret says when there is one. */
static void
test_redacted(void **state)
{
	static const char line[] = "justification: key sk-proj-Zq8vN3kLm2Rt7Wx5pYc4Qa1 \033[2J hunter2hunter9x\n";
	const char *want = "justification: key ${OPENAI_API_KEY} \\x1b[2J ${LAB_SECRET}\n";
	char buf[256], got[256];

	(void)state;
	redact_value_clear();
	assert_int_equal(redact_value_add("LAB_SECRET", "hunter2hunter9x"), 1);
	assert_true(termout_secret(line, strlen(line)));
	assert_false(termout_secret("nothing here", 12));
	expect(line, strlen(line), TERMOUT_KEEP_NL, want);
	termout_str("pw hunter2hunter9x", 0, buf, sizeof buf);
	assert_string_equal(buf, "pw ${LAB_SECRET}");
	through_filter(line, strlen(line), got, sizeof got);
	assert_string_equal(got, want);
	redact_value_clear();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_controls),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_str_and_unsafe),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_redacted),
	};
	return cmocka_run_group_tests_name("termout", tests, NULL, NULL);
}
