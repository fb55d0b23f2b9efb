/*
 * test-quote.c - the one shell-word quoting (quote.h): plain words as they
 * are, single quotes when needed, $'...' with visible escapes for line
 * breaks, controls, hidden code points and bytes that are not UTF-8; every
 * line safe to print, and bash reads each line back as the words it was
 * made from.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kernodeck/quote.h"
#include "kernodeck/termout.h"

static const struct {
	const char *argv[4];
	const char *want;
} cases[] = {
	{ { "/usr/bin/python3", "-m", "venv", NULL }, "/usr/bin/python3 -m venv" },
	{ { "a b", "", "it's", NULL }, "'a b' '' 'it'\\''s'" },
	{ { "\x1b]52;c;SGk=\x07", NULL }, "$'\\x1b]52;c;SGk=\\x07'" },
	{ { "x\ny\tz", "back\\slash", NULL }, "$'x\\ny\\tz' 'back\\slash'" },
	{ { "it's\x1b", "\xff", NULL }, "$'it\\'s\\x1b' $'\\xff'" },
	{ { "\xe2\x80\xae" "gnp.exe", "caf\xc3\xa9", NULL }, "$'\\u202egnp.exe' 'caf\xc3\xa9'" },
	/* '=' is plain but in the first word, which bash would take for an
	 * assignment */
	{ { "A=b", "--out=x", "k=v", NULL }, "'A=b' --out=x k=v" },
	{ { "$HOME", "`id`", "*.py", NULL }, "'$HOME' '`id`' '*.py'" },
	{ { "tab\there", "del\x7f", "\xc2\x9b" "31m", NULL }, "'tab\there' $'del\\x7f' $'\\u009b31m'" },
};

static void
test_words(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got = quote_argv(cases[i].argv);

		assert_non_null(got);
		assert_string_equal(got, cases[i].want);
		assert_int_equal(termout_unsafe(got, strlen(got)), 0);
		free(got);
	}
}

/* quote_word(s, flags) is want. */
static void
expect_word(const char *s, int flags, const char *want)
{
	char *q = quote_word(s, flags);

	assert_non_null(q);
	assert_string_equal(q, want);
	free(q);
}

static void
test_one_word(void **state)
{
	(void)state;
	expect_word("plain", 0, "plain");
	/* not the first word: '=' stays plain */
	expect_word("OMP_NUM_THREADS=4", 0, "OMP_NUM_THREADS=4");
	expect_word("OMP_NUM_THREADS=4", QUOTE_FIRST, "'OMP_NUM_THREADS=4'");
	expect_word("it's $HOME `x`", 0, "'it'\\''s $HOME `x`'");
	expect_word("", 0, "''");
}

/* What bash makes of "printf '%s\0' LINE": the words, NUL-separated. */
static size_t
bash_words(const char *line, char *out, size_t len)
{
	char script[4096];
	int p[2], status;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	snprintf(script, sizeof script, "printf '%%s\\0' %s", line);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		close(p[0]);
		close(p[1]);
		execl("/bin/bash", "bash", "--norc", "-c", script, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (n < len && (r = read(p[0], out + n, len - n)) > 0)
		n += (size_t)r;
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return n;
}

/* bash reads every line back as its words (the first word is printf's
 * argument here, so "A=b" is read as a word, quoted or not). */
static void
test_bash_reads_back(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *line = quote_argv(cases[i].argv), got[1024], want[1024];
		size_t n = bash_words(line, got, sizeof got), w = 0;

		for (const char *const *a = cases[i].argv; *a != NULL; a++) {
			size_t l = strlen(*a) + 1;
			memcpy(want + w, *a, l);
			w += l;
		}
		assert_int_equal(n, w);
		assert_memory_equal(got, want, w);
		free(line);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_one_word),
		cmocka_unit_test(test_bash_reads_back),
	};
	return cmocka_run_group_tests_name("quote", tests, NULL, NULL);
}
