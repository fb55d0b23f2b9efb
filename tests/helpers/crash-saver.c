/*
 * crash-saver.c - test helper for crash consistency.
 *
 *   crash-saver save PATH     save state N = 1, 2, 3... to PATH forever
 *   crash-saver verify PATH   load PATH; exit 0 and print N when it equals
 *                             the state generated for its N, else exit 1
 *
 * The state for N is fully determined by N, so a file that loads and
 * equals gen(N) is a whole state: the previous one or the new one.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/stage.h"
#include "kernodeck/state.h"

static void
gen(struct kd_state *s, long n)
{
	struct kd_rows rows = { 0 };
	char buf[128];

	state_init(s);
	s->current = (int)(n % KD_NSTAGES);
	for (int k = 0; k < 40; k++) {
		snprintf(buf, sizeof buf, "observed value %ld/%d with some padding text", n, k);
		kd_rows_add(&rows, buf, (enum kd_rstat)((n + k) % 4), "label", buf, "expected", NULL);
	}
	for (int i = 0; i < KD_NSTAGES; i++) {
		stage_apply_rows(s, i, &rows, "0123456789abcdef");
		free(s->st[i].checked_at);
		s->st[i].checked_at = strdup("2026-01-01T00:00:00Z");
	}
	json_object_set_new(s->settings, "counter", json_integer(n));
	kd_rows_free(&rows);
}

int
main(int argc, char **argv)
{
	struct kd_state s, g;
	struct kd_err err;
	json_t *a, *b;
	long n;
	int same;

	if (argc != 3)
		return 2;
	if (strcmp(argv[1], "save") == 0) {
		for (n = 1;; n++) {
			gen(&s, n);
			if (state_save(argv[2], &s, &err) != 0) {
				fprintf(stderr, "%s\n", err.msg);
				return 3;
			}
			state_free(&s);
		}
	}
	if (state_load(argv[2], &s, &err) != 0) {
		fprintf(stderr, "load failed: %s (line %d)\n", err.msg, err.line);
		return 1;
	}
	n = (long)json_integer_value(json_object_get(s.settings, "counter"));
	gen(&g, n);
	a = state_to_json(&s);
	b = state_to_json(&g);
	same = json_equal(a, b);
	printf("%ld\n", n);
	json_decref(a);
	json_decref(b);
	state_free(&s);
	state_free(&g);
	return same && n > 0 ? 0 : 1;
}
