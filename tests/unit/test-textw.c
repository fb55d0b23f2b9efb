/* test-textw.c - untrusted text measured and cut in terminal columns. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/textw.h"

static int
setup_utf8(void **state)
{
	(void)state;
	return setlocale(LC_ALL, "C.UTF-8") == NULL ? -1 : 0;
}

static void
test_width_ascii_and_wide(void **state)
{
	(void)state;
	assert_int_equal(textw_width("abc"), 3);
	assert_int_equal(textw_width(""), 0);
	assert_int_equal(textw_width(NULL), 0);
	/* e-acute is one column, a CJK ideograph two */
	assert_int_equal(textw_width("\xc3\xa9t\xc3\xa9"), 3);
	assert_int_equal(textw_width("\xe6\xbc\xa2\xe5\xad\x97"), 4);
}

static void
test_fit_keeps_short_text(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(textw_fit("hello", 10, out, sizeof out), 5);
	assert_string_equal(out, "hello");
	assert_int_equal(textw_fit("hello", 5, out, sizeof out), 5);
	assert_string_equal(out, "hello");
}

static void
test_fit_cuts_with_ellipsis(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(textw_fit("hello world", 6, out, sizeof out), 6);
	assert_string_equal(out, "hello\xe2\x80\xa6");
	/* a wide character that would straddle the edge is left out */
	assert_int_equal(textw_fit("a\xe6\xbc\xa2\xe5\xad\x97", 3, out, sizeof out), 2);
	assert_string_equal(out, "a\xe2\x80\xa6");
	assert_int_equal(textw_fit("abc", 0, out, sizeof out), 0);
	assert_string_equal(out, "");
	assert_int_equal(textw_fit("abc", -3, out, sizeof out), 0);
}

static void
test_fit_sanitises_bytes(void **state)
{
	char out[64];

	(void)state;
	/* invalid UTF-8, an escape sequence and a tab never reach the terminal
	 * raw: the controls and bad bytes are shown as termout shows them */
	textw_fit("a\xff" "b\x1b[2Jc\td", 40, out, sizeof out);
	assert_string_equal(out, "a\\xffb\\x1b[2Jc d");
	assert_int_equal(textw_width("\x1b"), 4);
	/* OSC 52 (the clipboard) and a BEL; a newline in a one-line text */
	textw_fit("\x1b]52;c;SGk=\x07x\ny", 40, out, sizeof out);
	assert_string_equal(out, "\\x1b]52;c;SGk=\\x07x\\x0ay");
	/* truncated multibyte sequence at the end */
	textw_fit("ok\xe6\xbc", 40, out, sizeof out);
	assert_string_equal(out, "ok\\xe6\\xbc");
}

static void
test_fit_small_buffer(void **state)
{
	char out[4];

	(void)state;
	textw_fit("abcdefgh", 8, out, sizeof out);
	assert_true(strlen(out) < sizeof out);
}

static void
test_fit_non_utf8_locale(void **state)
{
	char out[64];

	(void)state;
	assert_non_null(setlocale(LC_ALL, "C"));
	textw_fit("hello world", 6, out, sizeof out);
	assert_string_equal(out, "hello~");
	textw_fit("\xc3\xa9", 6, out, sizeof out);
	assert_string_equal(out, "??");
	assert_non_null(setlocale(LC_ALL, "C.UTF-8"));
}

static void
test_wrap(void **state)
{
	char *lines[8];
	int n;

	(void)state;
	n = textw_wrap("the quick brown fox jumps", 10, lines, 8);
	assert_int_equal(n, 3);
	assert_string_equal(lines[0], "the quick");
	assert_string_equal(lines[1], "brown fox");
	assert_string_equal(lines[2], "jumps");
	for (int i = 0; i < n; i++)
		free(lines[i]);
	/* newlines start lines; a long word is cut; maxlines is respected */
	n = textw_wrap("a\nabcdefghijkl\nz", 5, lines, 3);
	assert_int_equal(n, 3);
	assert_string_equal(lines[0], "a");
	assert_string_equal(lines[1], "abcde");
	assert_string_equal(lines[2], "fghij");
	for (int i = 0; i < n; i++)
		free(lines[i]);
	assert_int_equal(textw_wrap("x", 0, lines, 3), 0);
	assert_int_equal(textw_wrap(NULL, 5, lines, 3), 0);
	/* a BEL in a wrapped text is shown, the newline still breaks the line */
	n = textw_wrap("ab\x07\ncd", 20, lines, 3);
	assert_int_equal(n, 2);
	assert_string_equal(lines[0], "ab\\x07");
	assert_string_equal(lines[1], "cd");
	for (int k = 0; k < n; k++)
		free(lines[k]);
	/* width 1 with a wide character still progresses */
	n = textw_wrap("\xe6\xbc\xa2\xe5\xad\x97", 1, lines, 8);
	assert_int_equal(n, 2);
	for (int i = 0; i < n; i++)
		free(lines[i]);
}

static void
test_search(void **state)
{
	(void)state;
	assert_non_null(textw_search("ERROR: No matching distribution", "no matching"));
	assert_null(textw_search("all fine", "error"));
	assert_null(textw_search("x", ""));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_width_ascii_and_wide),
		cmocka_unit_test(test_fit_keeps_short_text),
		cmocka_unit_test(test_fit_cuts_with_ellipsis),
		cmocka_unit_test(test_fit_sanitises_bytes),
		cmocka_unit_test(test_fit_small_buffer),
		cmocka_unit_test(test_fit_non_utf8_locale),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_search),
	};

	return cmocka_run_group_tests(tests, setup_utf8, NULL);
}
