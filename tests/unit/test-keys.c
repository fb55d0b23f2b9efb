/* test-keys.c - the one key table: complete, unambiguous, and free letters
 * for the stages' own actions. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "kernodeck/keys.h"
#include "kernodeck/stage.h"

struct tk {
	int action, context, codes[3];
	const char *names, *bar, *help;
};

#define TK(a, ctx, names, c1, c2, c3, bar, help) { a, ctx, { c1, c2, c3 }, names, bar, help },
static const struct tk keys[] = { KD_KEY_INFO(TK) };
#undef TK
#define NKEYS (sizeof keys / sizeof keys[0])

/* The same code bound twice where both bindings could apply. */
static int
clash(const struct tk *a, const struct tk *b)
{
	if (a->context != b->context && a->context != KD_KC_ANY && b->context != KD_KC_ANY)
		return 0;
	/* the line editor does not fall back to KD_KC_ANY */
	if ((a->context == KD_KC_EDIT) != (b->context == KD_KC_EDIT))
		return 0;
	/* a view's own binding wins over KD_KC_ANY by design */
	if (a->context != b->context)
		return 0;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			if (a->codes[i] != 0 && a->codes[i] == b->codes[j])
				return 1;
	return 0;
}

static void
test_every_key_documented(void **state)
{
	(void)state;
	assert_int_equal((int)NKEYS, KD_A__COUNT - 1);
	for (size_t i = 0; i < NKEYS; i++) {
		assert_int_equal(keys[i].action, (int)i + 1);
		assert_true(keys[i].context >= 0 && keys[i].context < KD_KC__COUNT);
		assert_non_null(keys[i].names);
		assert_true(strlen(keys[i].names) > 0);
		assert_true(strlen(keys[i].help) > 5);
		assert_true(keys[i].codes[0] != 0);
	}
}

static void
test_no_ambiguous_binding(void **state)
{
	(void)state;
	for (size_t i = 0; i < NKEYS; i++)
		for (size_t j = i + 1; j < NKEYS; j++)
			if (clash(&keys[i], &keys[j]))
				fail_msg("\"%s\" (%s) and \"%s\" (%s) share a key", keys[i].names,
					 keys[i].help, keys[j].names, keys[j].help);
}

static void
test_design_keys_present(void **state)
{
	/* the walkthrough's main keys (the man page's KEYS) */
	static const int main_keys[] = {
		'j', 'k', '\t', '\n', 27, '?', 'e', 'r', 'd', 'p', 'n', 'q', 'N', 'E',
		KD_K_UP, KD_K_DOWN, KD_K_F(1), KD_K_F(2), KD_K_F(5), KD_K_F(6), KD_K_F(7),
		KD_K_F(8), KD_K_F(10),
	};

	(void)state;
	for (size_t i = 0; i < sizeof main_keys / sizeof main_keys[0]; i++)
		assert_true(kd_key_reserved(main_keys[i]));
	assert_false(kd_key_reserved('c'));
	assert_false(kd_key_reserved(0));
}

static void
test_stage_actions_use_free_letters(void **state)
{
	(void)state;
	for (int i = 0; i < KD_NSTAGES; i++) {
		const struct kd_stage_ops *st = kd_stages[i];

		for (size_t k = 0; k < st->nactions; k++) {
			int key = st->actions[k].key;

			if (kd_key_reserved(key))
				fail_msg("stage %s: action \"%s\" uses '%c', a key of the frame",
					 st->id, st->actions[k].label, key);
			assert_true(key >= 'a' && key <= 'z');
			for (size_t m = k + 1; m < st->nactions; m++)
				assert_int_not_equal(key, st->actions[m].key);
		}
	}
}

/* Every action has a command-line name for `kernodeck act`: lowercase
 * letters and dashes, one per stage; an ARG it needs is named. */
static void
test_stage_actions_have_names(void **state)
{
	(void)state;
	for (int i = 0; i < KD_NSTAGES; i++) {
		const struct kd_stage_ops *st = kd_stages[i];

		for (size_t k = 0; k < st->nactions; k++) {
			const struct kd_action *a = &st->actions[k];

			if (a->name == NULL || a->name[0] == '\0' ||
			    strspn(a->name, "abcdefghijklmnopqrstuvwxyz-") != strlen(a->name))
				fail_msg("stage %s: action \"%s\" has no command-line name of "
					 "lowercase letters and dashes", st->id, a->label);
			if (a->arg_required && a->arg_name == NULL)
				fail_msg("stage %s: action %s requires an ARG it does not name",
					 st->id, a->name);
			for (size_t m = k + 1; m < st->nactions; m++)
				assert_string_not_equal(a->name, st->actions[m].name);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_key_documented),
		cmocka_unit_test(test_no_ambiguous_binding),
		cmocka_unit_test(test_design_keys_present),
		cmocka_unit_test(test_stage_actions_use_free_letters),
		cmocka_unit_test(test_stage_actions_have_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
