/* test-pep440.c - PEP 440 versions and specifiers, PEP 503 names. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "kernodeck/pep440.h"

static void
norm_is(const char *in, const char *want)
{
	struct pep440_version v;
	char buf[256];

	if (pep440_parse(in, &v) != 0)
		fail_msg("'%s' did not parse", in);
	assert_string_equal(pep440_format(&v, buf, sizeof buf), want);
}

static void
test_normalise(void **state)
{
	(void)state;
	norm_is("1.0", "1.0");
	norm_is("v1.0", "1.0");
	norm_is(" 1.0 ", "1.0");
	norm_is("1.0-ALPHA.1", "1.0a1");
	norm_is("1.0alpha", "1.0a0");
	norm_is("1.0.beta2", "1.0b2");
	norm_is("1.0c1", "1.0rc1");
	norm_is("1.0pre1", "1.0rc1");
	norm_is("1.0preview_3", "1.0rc3");
	norm_is("1.0-1", "1.0.post1");
	norm_is("1.0.post", "1.0.post0");
	norm_is("1.0-r4", "1.0.post4");
	norm_is("1.0rev2", "1.0.post2");
	norm_is("1.0_dev", "1.0.dev0");
	norm_is("1!2.0RC3.post1.dev0+CU121", "1!2.0rc3.post1.dev0+cu121");
	norm_is("2.3.0+pt23-cu121", "2.3.0+pt23.cu121");
	norm_is("0.4.22+cuda12.cudnn89", "0.4.22+cuda12.cudnn89");
	norm_is("2.10.0.dev20251008", "2.10.0.dev20251008");
	norm_is("1.7.0a0+9ddd3df", "1.7.0a0+9ddd3df");
	norm_is("00.01", "0.1");
}

static void
test_invalid(void **state)
{
	static const char *bad[] = {
		"", "   ", "a", "1.0ubuntu2", "0.21ubuntu2", "1.0+", "1.0+a..b", "1.0-",
		"1..0", "1.0 2", "1.0+-a", "v", "1!", "!1", "1.0.post1.post2",
		"99999999999999999999999", "1.0+a+b", "1.0.", "1.0-dev-x", "latest",
	};
	struct pep440_version v;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		if (pep440_parse(bad[i], &v) == 0)
			fail_msg("'%s' parsed but is not PEP 440", bad[i]);
}

/* The order from PEP 440's summary of permitted suffixes, extended with
 * epochs and local labels: every pair is compared. */
static void
test_order(void **state)
{
	static const char *seq[] = {
		"1.0.dev456", "1.0a1", "1.0a2.dev456", "1.0a12.dev456", "1.0a12",
		"1.0b1.dev456", "1.0b2", "1.0b2.post345.dev456", "1.0b2.post345",
		"1.0rc1.dev456", "1.0rc1", "1.0", "1.0+abc.5", "1.0+abc.7", "1.0+5",
		"1.0.post456.dev34", "1.0.post456", "1.0.15", "1.1.dev1",
		"2.3.0", "2.3.0+cpu", "2.3.0+cu118", "2.3.0+cu121", "2.3.0.post1",
		"10.0", "1!0.1", "1!1.0",
	};
	size_t n = sizeof seq / sizeof *seq;
	struct pep440_version a, b;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(pep440_parse(seq[i], &a), 0);
		for (size_t j = 0; j < n; j++) {
			assert_int_equal(pep440_parse(seq[j], &b), 0);
			int c = pep440_cmp(&a, &b), want = i < j ? -1 : i > j;
			if (c != want)
				fail_msg("cmp(%s, %s) = %d, wanted %d", seq[i], seq[j], c, want);
		}
	}
}

static void
test_equalities(void **state)
{
	int valid;

	(void)state;
	assert_int_equal(pep440_compare_str("1.0", "1.0.0", &valid), 0);
	assert_int_equal(valid, 1);
	assert_int_equal(pep440_compare_str("1.0a1", "1.0.0-alpha-1", NULL), 0);
	assert_true(pep440_compare_str("1.9", "1.10", NULL) < 0);
	assert_true(pep440_compare_str("2.3.0+cu121", "2.3.0", NULL) > 0);
	/* non-PEP 440: text */
	assert_int_equal(pep440_compare_str("0.21ubuntu2", "0.21UBUNTU2", &valid), 0);
	assert_int_equal(valid, 0);
	{
		struct pep440_version a, b;
		assert_int_equal(pep440_parse("2.3.0+cu121", &a), 0);
		assert_int_equal(pep440_parse("2.3.0+cpu", &b), 0);
		assert_int_equal(pep440_cmp_public(&a, &b), 0);
		assert_true(pep440_cmp(&a, &b) != 0);
	}
}

static void
test_local_public(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(pep440_local_of("2.3.0+CU121", buf, sizeof buf), "cu121");
	assert_string_equal(pep440_local_of("2.3.0", buf, sizeof buf), "");
	assert_string_equal(pep440_local_of("0.21ubuntu2+X", buf, sizeof buf), "x");
	assert_string_equal(pep440_public_of("2.3.0+cu121", buf, sizeof buf), "2.3.0");
	assert_string_equal(pep440_public_of("1.0-ALPHA+x", buf, sizeof buf), "1.0a0");
	assert_string_equal(pep440_public_of("weird+x", buf, sizeof buf), "weird");
}

static void
test_specifiers(void **state)
{
	(void)state;
	/* pip's ==2.3.0 accepts any local label */
	assert_int_equal(pep440_spec_contains("==2.3.0", "2.3.0+cu121"), 1);
	assert_int_equal(pep440_spec_contains("==2.3.0", "2.3.0+cpu"), 1);
	assert_int_equal(pep440_spec_contains("==2.3.0+cu121", "2.3.0+cpu"), 0);
	assert_int_equal(pep440_spec_contains("==2.3.0+cu121", "2.3.0+cu121"), 1);
	assert_int_equal(pep440_spec_contains("==2.3.*", "2.3.1"), 1);
	assert_int_equal(pep440_spec_contains("==2.3.*", "2.4"), 0);
	assert_int_equal(pep440_spec_contains("==2.3.*", "2.3"), 1);
	assert_int_equal(pep440_spec_contains("!=2.3.*", "2.4"), 1);
	assert_int_equal(pep440_spec_contains(">=1.0, <2", "1.5"), 1);
	assert_int_equal(pep440_spec_contains(">=1.0,<2", "2.0"), 0);
	assert_int_equal(pep440_spec_contains("<2", "2.0a1"), 0);
	assert_int_equal(pep440_spec_contains("<2.0a2", "2.0a1"), 1);
	assert_int_equal(pep440_spec_contains(">1.0", "1.0.post1"), 0);
	assert_int_equal(pep440_spec_contains(">1.0", "1.0+local"), 0);
	assert_int_equal(pep440_spec_contains(">1.0", "1.1"), 1);
	assert_int_equal(pep440_spec_contains("~=1.4.5", "1.4.9"), 1);
	assert_int_equal(pep440_spec_contains("~=1.4.5", "1.5.0"), 0);
	assert_int_equal(pep440_spec_contains("~=1.4", "1.9"), 1);
	assert_int_equal(pep440_spec_contains("~=1.4", "2.0"), 0);
	assert_int_equal(pep440_spec_contains("~=1", "1.0"), -1);
	assert_int_equal(pep440_spec_contains("===0.21ubuntu2", "0.21ubuntu2"), 1);
	assert_int_equal(pep440_spec_contains("<=1!1.0", "2.0"), 1);
	assert_int_equal(pep440_spec_contains("", "2.0"), 1);
	assert_int_equal(pep440_spec_contains(">=x", "2.0"), -1);
	assert_int_equal(pep440_spec_contains(">=2.*", "2.0"), -1);
	assert_int_equal(pep440_spec_contains("2.0", "2.0"), -1);
	assert_true(pep440_spec_is_pin("==1.0"));
	assert_true(pep440_spec_is_pin(" == 1.0+cu121"));
	assert_true(pep440_spec_is_pin("===weird"));
	assert_false(pep440_spec_is_pin("==1.*"));
	assert_false(pep440_spec_is_pin(">=1.0"));
	assert_false(pep440_spec_is_pin("==1.0,!=1.1"));
	assert_false(pep440_spec_is_pin(""));
}

static void
test_names(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(pep503_canonical("Friendly-Bard", buf, sizeof buf), "friendly-bard");
	assert_string_equal(pep503_canonical("FRIENDLY_bard", buf, sizeof buf), "friendly-bard");
	assert_string_equal(pep503_canonical("friendly.._-bard", buf, sizeof buf), "friendly-bard");
	assert_string_equal(pep503_canonical("backports.shutil_get_terminal_size", buf, sizeof buf),
			    "backports-shutil-get-terminal-size");
	assert_string_equal(pep503_canonical("PyYAML", buf, 3), "py");
	/* the first nl bytes only, as the parsers pass a name inside a line */
	assert_int_equal(pep503_canonical_n("Torch_Vision==0.15", 12, buf, sizeof buf), 12);
	assert_string_equal(buf, "torch-vision");
	assert_int_equal(pep503_canonical_n("A..b", 4, buf, 3), 2);
	assert_string_equal(buf, "a-");
	/* a byte >= 0x80 goes through tolower(), as before, and is kept */
	assert_string_equal(pep503_canonical("Caf\xc3\xa9_X", buf, sizeof buf), "caf\xc3\xa9-x");
	assert_true(pep503_valid_name("typing_extensions", 17));
	assert_false(pep503_valid_name("-x", 2));
	assert_false(pep503_valid_name("a b", 3));
	assert_false(pep503_valid_name("", 0));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalise),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_equalities),
		cmocka_unit_test(test_local_public),
		cmocka_unit_test(test_specifiers),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
