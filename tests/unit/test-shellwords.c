/* test-shellwords.c - argument vectors written as shell-like lines. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/shellwords.h"

/* Split line and compare with the expected words (NULL-terminated). */
static void
expect_words(const char *line, const char *const *words)
{
	char error[128];
	json_t *arr = NULL;
	size_t n = 0;

	assert_int_equal(shellwords_split(line, &arr, error, sizeof error), 0);
	while (words[n] != NULL)
		n++;
	assert_int_equal(json_array_size(arr), n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(json_string_value(json_array_get(arr, i)), words[i]);
	json_decref(arr);
}

static void
test_split_plain(void **state)
{
	(void)state;
	expect_words("python embed.py --out outputs",
		     (const char *const[]){ "python", "embed.py", "--out", "outputs", NULL });
	expect_words("  a   b\t", (const char *const[]){ "a", "b", NULL });
	expect_words("", (const char *const[]){ NULL });
}

static void
test_split_quotes(void **state)
{
	(void)state;
	expect_words("python -c 'print(\"hi there\")'",
		     (const char *const[]){ "python", "-c", "print(\"hi there\")", NULL });
	expect_words("a \"b \\\"c\\\" \\n\" d",
		     (const char *const[]){ "a", "b \"c\" \\n", "d", NULL });
	expect_words("x\\ y '' \"\"", (const char *const[]){ "x y", "", "", NULL });
	expect_words("pre'mid dle'post", (const char *const[]){ "premid dlepost", NULL });
	/* nothing is expanded */
	expect_words("$HOME *.py ~", (const char *const[]){ "$HOME", "*.py", "~", NULL });
}

static void
test_split_errors(void **state)
{
	char error[128];
	json_t *arr = NULL;

	(void)state;
	assert_int_equal(shellwords_split("a 'b", &arr, error, sizeof error), 1);
	assert_null(arr);
	assert_non_null(strstr(error, "column 3"));
	assert_int_equal(shellwords_split("a \"b", &arr, error, sizeof error), 1);
	assert_int_equal(shellwords_split("a\\", &arr, error, sizeof error), 1);
}

static void
test_quote_round_trip(void **state)
{
	static const char *const words[] = {
		"plain", "two words", "it's", "\"dq\"", "back\\slash", "$VAR", "", "a;b|c",
		"--flag=x y", "\xc3\xa9t\xc3\xa9", "\x1b[31mred", "tab\tline\nbreak", "\xe2\x80\xae" "gnp",
		"\\'", "A=b",
	};
	json_t *arr = json_array(), *back = NULL;
	char error[128], *line;

	(void)state;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		json_array_append_new(arr, json_string(words[i]));
	line = shellwords_join(arr);
	assert_non_null(line);
	assert_int_equal(shellwords_split(line, &back, error, sizeof error), 0);
	assert_true(json_equal(arr, back));
	free(line);
	json_decref(arr);
	json_decref(back);
	/* the form quote.h writes every command in */
	arr = json_pack("[s, s, s]", "A=b", "simple", "x\x1b");
	line = shellwords_join(arr);
	assert_string_equal(line, "'A=b' simple $'x\\x1b'");
	free(line);
	json_decref(arr);
	/* bash's escapes in $'...', an unknown one kept as written */
	assert_int_equal(shellwords_split("$'\\x41\\u00e9\\q\\r' $'", &back, error, sizeof error), 1);
	assert_non_null(strstr(error, "$' at column 19"));
	assert_int_equal(shellwords_split("$'\\x41\\u00e9\\q\\r'x", &back, error, sizeof error), 0);
	assert_string_equal(json_string_value(json_array_get(back, 0)), "A\xc3\xa9\\q\rx");
	json_decref(back);
	line = shellwords_join(NULL);
	assert_string_equal(line, "");
	free(line);
}

static void
test_argv(void **state)
{
	char error[128], **argv;

	(void)state;
	argv = shellwords_argv("code --wait", "/tmp/ref file.yaml", error, sizeof error);
	assert_non_null(argv);
	assert_string_equal(argv[0], "code");
	assert_string_equal(argv[1], "--wait");
	assert_string_equal(argv[2], "/tmp/ref file.yaml");
	assert_null(argv[3]);
	shellwords_free(argv);
	assert_null(shellwords_argv("   ", "f", error, sizeof error));
	assert_null(shellwords_argv("vi 'x", "f", error, sizeof error));
}

static void
test_too_many_words(void **state)
{
	size_t n = KD_CAP_SHELLWORDS + 10;
	char *line = malloc(n * 2 + 1), error[128];
	json_t *arr = NULL;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		line[2 * i] = 'a';
		line[2 * i + 1] = ' ';
	}
	line[2 * n] = '\0';
	assert_int_equal(shellwords_split(line, &arr, error, sizeof error), 1);
	assert_non_null(strstr(error, "words"));
	free(line);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_plain),
		cmocka_unit_test(test_split_quotes),
		cmocka_unit_test(test_split_errors),
		cmocka_unit_test(test_quote_round_trip),
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_too_many_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
