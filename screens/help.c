/*
 * help.c - the help overlay and the key bar, both generated from
 * KD_KEY_INFO (keys.h), the table the man page's KEYS section also comes
 * from; the current stage's own actions are added after the frame's keys.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/screen.h"
#include "kernodeck/textw.h"

struct help_key {
	int action, context;
	const char *names, *bar, *help;
};

#define KD_HK(a, ctx, names, c1, c2, c3, bar, help) { a, ctx, names, bar, help },
static const struct help_key help_keys[] = { KD_KEY_INFO(KD_HK) };
#undef KD_HK

#define KD_CT(e, title) title,
static const char *const context_titles[] = { KD_KEY_CONTEXT_INFO(KD_CT) };
#undef KD_CT

#define NHELP (sizeof help_keys / sizeof help_keys[0])
#define HELP_NAMES_W 19
#define HELP_MAX_LINES 400

/* Append one wrapped "names  help" entry to lines. */
static int
help_entry(char **lines, int n, int w, const char *names, const char *help)
{
	char *wrapped[8], buf[1024];
	int k, i;

	k = kd_wrap(help, w - HELP_NAMES_W - 4, wrapped, 8);
	for (i = 0; i < k && n < HELP_MAX_LINES; i++) {
		snprintf(buf, sizeof buf, "  %-*s%s", HELP_NAMES_W, i == 0 ? names : "", wrapped[i]);
		lines[n++] = kd_xstrdup(buf);
	}
	kd_wrap_free(wrapped, k);
	return n;
}

/* The help text as lines for width w (malloc'd strings). */
static int
help_lines(struct kd_screen *scr, char **lines, int w)
{
	int n = 0, c;
	size_t i;
	char buf[256];

	snprintf(buf, sizeof buf, "Kernodeck walks through %s stages; each has fields, checks "
		 "and a log.", stage_count_word());
	lines[n++] = kd_xstrdup(buf);
	lines[n++] = kd_xstrdup("The state is saved after every change: quitting loses nothing.");
	for (c = 0; c < KD_KC__COUNT; c++) {
		lines[n++] = kd_xstrdup("");
		snprintf(buf, sizeof buf, "\x01%s", context_titles[c]);
		lines[n++] = kd_xstrdup(buf);
		for (i = 0; i < NHELP && n < HELP_MAX_LINES - 8; i++)
			if (help_keys[i].context == c)
				n = help_entry(lines, n, w, help_keys[i].names, help_keys[i].help);
	}
	lines[n++] = kd_xstrdup("");
	snprintf(buf, sizeof buf, "\x01" "Actions of the %s stage", scr->stage->title);
	lines[n++] = kd_xstrdup(buf);
	if (scr->stage->nactions == 0)
		lines[n++] = kd_xstrdup("  (none)");
	for (i = 0; i < scr->stage->nactions && n < HELP_MAX_LINES - 8; i++) {
		char k[8];

		snprintf(k, sizeof k, "%c", scr->stage->actions[i].key);
		n = help_entry(lines, n, w, k, scr->stage->actions[i].label);
	}
	lines[n++] = kd_xstrdup("");
	lines[n++] = kd_xstrdup("\x01Stage marks");
	n = help_entry(lines, n, w, "+ ! ~ ? x blank", "passed, failed, deviation (advanced "
		       "with recorded deviations), stale (an earlier stage changed), cancelled "
		       "(its last run was; check it again), pending");
	return n;
}

void
kd_help_run(struct kd_screen *scr)
{
	char *lines[HELP_MAX_LINES];
	int n = 0, top = 0;

	for (;;) {
		int y = 1, h = LINES - 2, rows = h - 2, key, a;

		kd_frame_draw(scr);
		if (scr->g.full) {
			kd_wrap_free(lines, n);
			n = help_lines(scr, lines, COLS - 4);
			if (top > n - rows)
				top = n - rows;
			if (top < 0)
				top = 0;
			kd_box(y, 0, h, COLS, "Help", kd_attr(KD_C_BORDER));
			for (int i = 0; i < rows && top + i < n; i++) {
				const char *s = lines[top + i];

				if (s[0] == '\x01')
					kd_put(y + 1 + i, 2, COLS - 4, s + 1, kd_attr(KD_C_HEADER), 0);
				else
					kd_put(y + 1 + i, 2, COLS - 4, s, A_NORMAL, 0);
			}
			snprintf(scr->msg, sizeof scr->msg, "%s", "");
			kd_put(y + h - 1, 2, COLS - 4, top + rows < n
			       ? " Down/PgDn more \u2502 Esc close " : " Esc close ",
			       kd_attr(KD_C_BORDER), 0);
		}
		key = kd_tui_key(scr, 1);
		if (key < 0)
			break;
		if (key == 0 || key == KD_K_RESIZE)
			continue;
		a = kd_key_action(KD_KC_ANY, key);
		if (a == KD_A_CLOSE || a == KD_A_HELP || kd_key_action(KD_KC_MAIN, key) == KD_A_QUIT)
			break;
		switch (a) {
		case KD_A_UP: top--; break;
		case KD_A_DOWN: top++; break;
		case KD_A_PGUP: top -= rows; break;
		case KD_A_PGDN: top += rows; break;
		case KD_A_HOME: top = 0; break;
		case KD_A_END: top = n; break;
		}
	}
	kd_wrap_free(lines, n);
}

/* One "key label" item of the bar; returns the new x. */
static int
bar_item(int y, int x, const char *key, const char *label)
{
	int kw = textw_width(key), lw = textw_width(label);

	if (x < 0 || x + kw + lw + 1 > COLS)
		return -1;
	kd_put(y, x, kw, key, kd_attr(KD_C_KEY), 0);
	kd_put(y, x + kw + 1, lw, label, A_NORMAL, 0);
	return x + kw + lw + 3;
}

/* The key of an entry as shown in the bar: its first name ("r", "Esc"). */
static void
bar_key(const char *names, char *buf, size_t len)
{
	size_t n = strcspn(names, ",");

	snprintf(buf, len, "%.*s", (int)n, names);
}

/* An action's short name for the key bar: its command-line name (unique
 * in a stage, the word `kernodeck act` takes), else the first word of its
 * label. */
static void
action_word(const struct kd_action *a, char *buf, size_t len)
{
	if (a->name != NULL)
		snprintf(buf, len, "%s", a->name);
	else
		snprintf(buf, len, "%.*s", (int)strcspn(a->label, " ("), a->label);
}

/* The current stage's actions in the bar, each with the first word of its
 * label when those words are distinct and all fit; otherwise their keys
 * together ("i,a,t,x actions").  The help overlay gives whole labels. */
static int
bar_actions(struct kd_screen *scr, int y, int x, int limit)
{
	const struct kd_stage_ops *st = scr->stage;
	char k[64], label[32], other[32];
	int need = 0, distinct = 1, n = 0;

	for (size_t i = 0; i < st->nactions; i++) {
		if (kd_key_reserved(st->actions[i].key))
			continue;
		action_word(&st->actions[i], label, sizeof label);
		need += 2 + textw_width(label) + 2;
		for (size_t j = 0; j < i; j++) {
			action_word(&st->actions[j], other, sizeof other);
			if (strcmp(label, other) == 0)
				distinct = 0;
		}
		n++;
	}
	if (n == 0 || x < 0)
		return x;
	if (distinct && x + need <= limit) {
		for (size_t i = 0; i < st->nactions && x >= 0; i++) {
			if (kd_key_reserved(st->actions[i].key))
				continue;
			snprintf(k, sizeof k, "%c", st->actions[i].key);
			action_word(&st->actions[i], label, sizeof label);
			x = bar_item(y, x, k, label);
		}
		return x;
	}
	k[0] = '\0';
	for (size_t i = 0, o = 0; i < st->nactions && o + 3 < sizeof k; i++) {
		if (kd_key_reserved(st->actions[i].key))
			continue;
		o += (size_t)snprintf(k + o, sizeof k - o, "%s%c", o ? "," : "", st->actions[i].key);
	}
	if (x + textw_width(k) + 8 <= limit)
		x = bar_item(y, x, k, "actions");
	return x;
}

/* The key bar's name for E, on the screens that ask for it (bar_editref):
 * the words the reference screen's body uses. */
#define REF_BAR_KEY  "E"
#define REF_BAR_WORD "file"

void
kd_keybar_draw(struct kd_screen *scr, int y, int context)
{
	int x = 0, limit = COLS, quit_w = 0;
	char k[32];

	kd_fill(y, 0, COLS, A_NORMAL);
	if (context < 0) {
		bar_item(y, 0, "Esc", "cancel the run");
		return;
	}
	if (context == KD_KC_MAIN) {
		/* quit always shows, at the right end */
		bar_key(kd_key_names(KD_A_QUIT), k, sizeof k);
		quit_w = textw_width(k) + 1 + textw_width("quit");
		if (quit_w < COLS)
			bar_item(y, COLS - quit_w, k, "quit");
		limit = COLS - quit_w - 1;
	}
	for (size_t i = 0; i < NHELP && x >= 0; i++) {
		const struct help_key *hk = &help_keys[i];
		int show, nx;

		if (hk->bar == NULL || hk->action == KD_A_QUIT)
			continue;
		if (context == KD_KC_MAIN)
			show = hk->context == KD_KC_MAIN ||
				(hk->context == KD_KC_ANY && hk->action == KD_A_HELP);
		else
			show = hk->context == context || hk->context == KD_KC_ANY;
		if (!show)
			continue;
		bar_key(hk->names, k, sizeof k);
		if (x + textw_width(k) + textw_width(hk->bar) + 1 > limit)
			break;
		nx = bar_item(y, x, k, hk->bar);
		if (nx < 0)
			break;
		x = nx;
	}
	if (context == KD_KC_MAIN && scr->ops != NULL && scr->ops->bar_editref && x >= 0 &&
	    x + textw_width(REF_BAR_KEY) + textw_width(REF_BAR_WORD) + 1 <= limit)
		x = bar_item(y, x, REF_BAR_KEY, REF_BAR_WORD);
	if (context == KD_KC_MAIN)
		bar_actions(scr, y, x, limit - 1);
}
