/* test-stage.c - the advance, deviation and stale rules. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "kernodeck/stage.h"
#include "kernodeck/state.h"

static void
apply(struct kd_state *s, int i, enum kd_rstat a, enum kd_rstat b)
{
	struct kd_rows rows = { 0 };

	kd_rows_add(&rows, "one", a, "first", "x", "x", NULL);
	kd_rows_add(&rows, "two", b, "second", "y", "z", NULL);
	stage_apply_rows(s, i, &rows, "ref1");
	kd_rows_free(&rows);
}

static void
test_table_in_order(void **state)
{
	static const char *ids[] = { "reference", "system", "rebuild", "contract",
				     "compute", "sample", "dossier" };
	(void)state;
	assert_int_equal(KD_NSTAGES, sizeof ids / sizeof ids[0]);
	for (int i = 0; i < KD_NSTAGES; i++) {
		assert_string_equal(kd_stages[i]->id, ids[i]);
		/* the ops say the id the list of stages.h gives them */
		assert_string_equal(kd_stage_ids[i], ids[i]);
		assert_int_equal(stage_index(ids[i]), i);
		assert_int_equal(stage_pos(kd_stages[i]), i);
		assert_non_null(kd_stages[i]->check);
		assert_non_null(stage_obs_file(i));
	}
	assert_int_equal(stage_index("nope"), -1);
	assert_null(stage_obs_file(KD_NSTAGES));
	assert_string_equal(stage_obs_file(stage_pos(&kd_stage_system)), "system.yaml");
	assert_string_equal(stage_count_word(), "seven");
}

static void
test_pending_refuses(void **state)
{
	struct kd_state s;
	char why[512];

	(void)state;
	state_init(&s);
	assert_int_equal(s.st[0].status, KD_ST_PENDING);
	assert_false(stage_can_advance(&s, 0, why, sizeof why));
	assert_non_null(strstr(why, "not been checked"));
	state_free(&s);
}

static void
test_pass_and_warn_advance(void **state)
{
	struct kd_state s;
	char why[512];

	(void)state;
	state_init(&s);
	apply(&s, 0, KD_R_PASS, KD_R_WARN);
	assert_int_equal(s.st[0].status, KD_ST_PASSED);
	assert_true(stage_can_advance(&s, 0, why, sizeof why));
	state_free(&s);
}

static void
test_fail_blocks_until_each_deviates(void **state)
{
	struct kd_state s;
	struct kd_err err;
	char why[1024];

	(void)state;
	state_init(&s);
	apply(&s, 1, KD_R_FAIL, KD_R_FAIL);
	assert_int_equal(s.st[1].status, KD_ST_FAILED);
	assert_false(stage_can_advance(&s, 1, why, sizeof why));
	assert_non_null(strstr(why, "one"));
	assert_non_null(strstr(why, "two"));
	assert_non_null(strstr(why, "kernodeck deviate"));
	assert_int_equal(stage_record_deviation(&s, 1, "one", NULL, "older GPU here", 0, "a", &err), 0);
	assert_int_equal(s.st[1].status, KD_ST_FAILED);
	assert_false(stage_can_advance(&s, 1, why, sizeof why));
	assert_null(strstr(why, " one"));
	assert_int_equal(stage_record_deviation(&s, 1, "two", "z vs y", "variant", 1, "b", &err), 0);
	assert_int_equal(s.st[1].status, KD_ST_DEVIATION);
	assert_true(stage_can_advance(&s, 1, why, sizeof why));
	/* the deviation's record */
	const struct kd_deviation *d = stage_find_deviation(&s, 1, "two");
	assert_non_null(d);
	assert_string_equal(d->what, "z vs y");
	assert_true(d->intentional);
	assert_string_equal(d->author, "b");
	assert_int_equal(strlen(d->time), 20);
	/* a default "what" from the row */
	d = stage_find_deviation(&s, 1, "one");
	assert_non_null(strstr(d->what, "observed x"));
	state_free(&s);
}

static void
test_deviation_rules(void **state)
{
	struct kd_state s;
	struct kd_err err;

	(void)state;
	state_init(&s);
	apply(&s, 0, KD_R_PASS, KD_R_FAIL);
	assert_int_equal(stage_record_deviation(&s, 0, "two", NULL, "", 0, NULL, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "reason"));
	assert_int_equal(stage_record_deviation(&s, 0, "two", NULL, "  \n", 0, NULL, &err), KD_EINPUT);
	assert_int_equal(stage_record_deviation(&s, 0, "nosuch", NULL, "x", 0, NULL, &err), KD_EINPUT);
	assert_int_equal(stage_record_deviation(&s, 0, "one", NULL, "x", 0, NULL, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "not failing"));
	assert_int_equal(s.st[0].ndevs, 0);
	/* replacing keeps one record */
	assert_int_equal(stage_record_deviation(&s, 0, "two", NULL, "first", 0, NULL, &err), 0);
	assert_int_equal(stage_record_deviation(&s, 0, "two", NULL, "second", 0, NULL, &err), 0);
	assert_int_equal(s.st[0].ndevs, 1);
	assert_string_equal(s.st[0].devs[0].why, "second");
	/* re-running with the same failure keeps the deviation */
	apply(&s, 0, KD_R_PASS, KD_R_FAIL);
	assert_int_equal(s.st[0].status, KD_ST_DEVIATION);
	state_free(&s);
}

static void
test_stale_rule(void **state)
{
	struct kd_state s;
	char why[512];

	(void)state;
	state_init(&s);
	apply(&s, 0, KD_R_PASS, KD_R_PASS);
	apply(&s, 1, KD_R_PASS, KD_R_PASS);
	apply(&s, 2, KD_R_FAIL, KD_R_PASS);
	apply(&s, 3, KD_R_PASS, KD_R_PASS);
	stage_mark_changed(&s, 1);
	assert_int_equal(s.st[0].status, KD_ST_PASSED);
	assert_int_equal(s.st[1].status, KD_ST_STALE);
	assert_int_equal(s.st[2].status, KD_ST_FAILED);
	assert_int_equal(s.st[3].status, KD_ST_STALE);
	assert_int_equal(s.st[4].status, KD_ST_PENDING);
	assert_false(stage_can_advance(&s, 3, why, sizeof why));
	assert_non_null(strstr(why, "stale"));
	/* checking again clears stale */
	apply(&s, 3, KD_R_PASS, KD_R_PASS);
	assert_int_equal(s.st[3].status, KD_ST_PASSED);
	state_free(&s);
}

static void
test_notes(void **state)
{
	struct kd_state s;

	(void)state;
	state_init(&s);
	assert_int_equal(stage_add_note(&s, 3, "", "a", NULL), KD_EINPUT);
	assert_int_equal(stage_add_note(&s, 3, "pip check ok, driver next", "a", NULL), 0);
	assert_int_equal(stage_add_note(&s, 3, "second", NULL, NULL), 0);
	assert_int_equal(s.st[3].nnotes, 2);
	assert_non_null(s.st[3].notes[1].author);
	state_free(&s);
}

/* --strict: a warning fails until a deviation acknowledges it; a deviation
 * kernodeck recorded itself, to fix, acknowledges nothing. */
static void
test_strict_rule(void **state)
{
	struct kd_state s;
	struct kd_err err;
	char why[1024];

	(void)state;
	state_init(&s);
	apply(&s, 2, KD_R_PASS, KD_R_WARN);
	assert_int_equal(s.st[2].status, KD_ST_PASSED);
	assert_false(stage_strict_ok(&s, 2, why, sizeof why));
	assert_non_null(strstr(why, "two (warnings without a deviation)"));
	assert_non_null(strstr(why, "kernodeck deviate DIR --stage rebuild"));
	assert_int_equal(stage_record_deviation(&s, 2, "two", NULL, "the shell's", 0, "a", &err), 0);
	assert_int_equal(s.st[2].status, KD_ST_PASSED);
	assert_true(stage_strict_ok(&s, 2, why, sizeof why));
	assert_string_equal(why, "");
	/* a failing check deviated by kernodeck itself */
	apply(&s, 5, KD_R_FAIL, KD_R_PASS);
	assert_int_equal(stage_record_deviation(&s, 5, "one", NULL, "recorded automatically", 0,
						KD_AUTHOR_AUTOMATIC, &err), 0);
	assert_int_equal(s.st[5].status, KD_ST_DEVIATION);
	assert_true(stage_can_advance(&s, 5, why, sizeof why));
	assert_false(stage_strict_ok(&s, 5, why, sizeof why));
	assert_non_null(strstr(why, "one (deviations kernodeck recorded itself"));
	/* a person records it again: it counts */
	assert_int_equal(stage_record_deviation(&s, 5, "one", NULL, "reviewed", 0, "b", &err), 0);
	assert_true(stage_strict_ok(&s, 5, why, sizeof why));
	state_free(&s);
}

/* A cancelled run: the stage is cancelled, its failing rows not judged,
 * and the cancel row cannot be deviated. */
static void
test_cancelled(void **state)
{
	struct kd_state s;
	struct kd_rows rows = { 0 };
	struct kd_err err;
	char why[512];

	(void)state;
	state_init(&s);
	kd_rows_add(&rows, "ok", KD_R_PASS, "fine", "x", "x", NULL);
	kd_rows_fail(&rows, "ran", "it ran", "cancelled", "exit 0", "tick 19", "fix it");
	stage_rows_cancelled(&rows);
	assert_string_equal(kd_rows_find(&rows, "ran")->first_error,
			    "not judged: the stage was cancelled before it finished");
	assert_null(kd_rows_find(&rows, "ok")->first_error);
	stage_apply_rows(&s, 5, &rows, "ref1");
	kd_rows_free(&rows);
	assert_int_equal(s.st[5].status, KD_ST_CANCELLED);
	assert_string_equal(kd_status_name(s.st[5].status), "cancelled");
	assert_false(stage_can_advance(&s, 5, why, sizeof why));
	assert_non_null(strstr(why, "cancelled"));
	assert_int_not_equal(stage_record_deviation(&s, 5, KD_ROW_CANCELLED, NULL, "no", 0, "a",
						    &err), 0);
	assert_int_equal(stage_record_deviation(&s, 5, "ran", NULL, "later", 0, "a", &err), 0);
	assert_int_equal(s.st[5].status, KD_ST_CANCELLED);
	state_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_in_order),
		cmocka_unit_test(test_pending_refuses),
		cmocka_unit_test(test_pass_and_warn_advance),
		cmocka_unit_test(test_fail_blocks_until_each_deviates),
		cmocka_unit_test(test_deviation_rules),
		cmocka_unit_test(test_stale_rule),
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_strict_rule),
		cmocka_unit_test(test_cancelled),
	};
	return cmocka_run_group_tests_name("stage", tests, NULL, NULL);
}
