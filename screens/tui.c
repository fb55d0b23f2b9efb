/*
 * tui.c - the terminal: start and end curses, semantic colours, keys, and
 * drawing helpers that never write outside the screen.
 *
 * Colours are asked for by meaning (KD_C_FAILED), never by name; each has a
 * monochrome attribute used when NO_COLOR is set or the terminal has no
 * colours.  Keys come back as code points or KD_K_* (keys.h), and the key
 * map is built once from KD_KEY_INFO.
 */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernodeck/screen.h"
#include "kernodeck/termcheck.h"
#include "kernodeck/textw.h"

static int tui_active;
static int tui_color;

struct kd_color_def {
	short fg, bg;
	attr_t mono, attr;
};

#define KD_C_DEF(e, fg, bg, mono, attr) { fg, bg, mono, attr },
static const struct kd_color_def color_defs[KD_C__COUNT] = { KD_COLOR_INFO(KD_C_DEF) };
#undef KD_C_DEF

/* The key map, from the one table. */
struct kd_keybind {
	int action, context;
	int codes[3];
	const char *names;
};

#define KD_KB(a, ctx, names, c1, c2, c3, bar, help) { a, ctx, { c1, c2, c3 }, names },
static const struct kd_keybind keymap[] = { KD_KEY_INFO(KD_KB) };
#undef KD_KB

static int
bind_matches(const struct kd_keybind *b, int context, int key)
{
	return b->context == context &&
	       (b->codes[0] == key || b->codes[1] == key || b->codes[2] == key);
}

int
kd_key_action(int context, int key)
{
	size_t i;

	if (key <= 0)
		return KD_A_NONE;
	for (i = 0; i < sizeof keymap / sizeof keymap[0]; i++)
		if (bind_matches(&keymap[i], context, key))
			return keymap[i].action;
	if (context == KD_KC_EDIT)
		return KD_A_NONE;
	for (i = 0; i < sizeof keymap / sizeof keymap[0]; i++)
		if (bind_matches(&keymap[i], KD_KC_ANY, key))
			return keymap[i].action;
	return KD_A_NONE;
}

const char *
kd_key_names(int action)
{
	for (size_t i = 0; i < sizeof keymap / sizeof keymap[0]; i++)
		if (keymap[i].action == action)
			return keymap[i].names;
	return "?";
}

static volatile sig_atomic_t tui_signalled;

#if !defined(__SANITIZE_ADDRESS__)
/* A crash under the walkthrough: give the terminal back, say so, exit 3.
 * (endwin is not async-signal-safe, but the alternative is a terminal left
 * in raw mode; htop and tig make the same choice.)  The state on disk is
 * intact: every save is atomic. */
static void
on_fatal(int sig)
{
	static const char msg[] = "kernodeck: fatal error (signal); the terminal was "
		"restored and the saved state is intact\n";

	if (tui_active)
		endwin();
	if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0)
		(void)sig;
	_exit(KD_EENV);
}
#endif

static void
on_signal(int sig)
{
	tui_signalled = sig;
}

int
kd_tui_signalled(void)
{
	return tui_signalled != 0;
}

int
kd_tui_init(struct kd_err *err)
{
	const char *nc = getenv("NO_COLOR");
	struct sigaction sa;
	SCREEN *s;

	if (kd_tui_check_term(err) != 0)
		return err ? err->code : KD_EENV;
	s = newterm(NULL, stdout, stdin);
	if (s == NULL)
		return kd_err_set(err, KD_EENV, NULL, 0, "cannot start curses on this terminal "
				  "(TERM=%s)", getenv("TERM"));
	set_term(s);
	tui_active = 1;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	tui_color = 0;
	if ((nc == NULL || *nc == '\0') && has_colors() && start_color() == OK) {
		use_default_colors();
		tui_color = 1;
		for (int i = 1; i < KD_C__COUNT && i < COLOR_PAIRS; i++)
			init_pair((short)i, color_defs[i].fg, color_defs[i].bg);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
#if !defined(__SANITIZE_ADDRESS__)
	/* (a sanitizer build keeps its own reports of these) */
	sa.sa_handler = on_fatal;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
#endif
	return 0;
}

void
kd_tui_end(void)
{
	if (!tui_active)
		return;
	curs_set(1);
	endwin();
	tui_active = 0;
}

void
kd_tui_fatal(const char *fmt, ...)
{
	va_list ap;

	kd_tui_end();
	fputs("kernodeck: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(KD_EENV);
}

char *
kd_xstrdup(const char *s)
{
	char *copy = strdup(s ? s : "");

	if (copy == NULL)
		kd_tui_fatal("out of memory");
	return copy;
}

attr_t
kd_attr(enum kd_color c)
{
	if ((int)c < 0 || c >= KD_C__COUNT)
		return A_NORMAL;
	if (!tui_color || c == KD_C_NORMAL || (int)c >= COLOR_PAIRS)
		return color_defs[c].mono;
	return COLOR_PAIR(c) | color_defs[c].attr;
}

/* A key given back (kd_tui_unget), or -1. */
static int tui_pushed = -1;

void
kd_tui_unget(int key)
{
	tui_pushed = key;
}

int
kd_tui_getkey(int timeout_ms)
{
	wint_t wc;
	int r;

	if (tui_pushed >= 0) {
		r = tui_pushed;
		tui_pushed = -1;
		return r;
	}
	timeout(timeout_ms);
	r = get_wch(&wc);
	if (r == ERR)
		return -1;
	if (r == KEY_CODE_YES)
		return KD_KFUNC | (int)wc;
	if (wc == 0 || wc > 0x10ffff)
		return -1;
	return (int)wc;
}

int
kd_tui_key(struct kd_screen *scr, int tick)
{
	refresh();
	for (;;) {
		int key;

		if (kd_tui_signalled())
			return -1;
		key = kd_tui_getkey(1000);
		if (key == KD_K_RESIZE)
			kd_frame_layout(scr);
		if (key >= 0)
			return key;
		if (tick)
			return 0;
	}
}

double
kd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Set the drawing attribute: attr_set() takes the colour pair apart. */
static void
use_attr(attr_t attr)
{
	attr_set(attr & ~A_COLOR, (short)PAIR_NUMBER(attr), NULL);
}

/* Is (y, x .. x+w) on the screen?  Clips w. */
static int
clip(int y, int x, int *w)
{
	if (y < 0 || y >= LINES || x < 0 || x >= COLS || *w <= 0)
		return 0;
	if (x + *w > COLS)
		*w = COLS - x;
	return *w > 0;
}

int
kd_put(int y, int x, int w, const char *s, attr_t attr, int pad)
{
	char buf[4096];
	int used;

	if (!clip(y, x, &w))
		return 0;
	used = textw_fit(s ? s : "", w, buf, sizeof buf);
	use_attr(attr);
	mvaddstr(y, x, buf);   /* no scrolling: the last cell is safe */
	if (pad && used < w) {
		move(y, x + used);
		for (int i = used; i < w; i++) {
			if (y == LINES - 1 && x + i == COLS - 1)
				insch(' ');
			else
				addch(' ');
		}
	}
	use_attr(A_NORMAL);
	return used;
}

void
kd_fill(int y, int x, int w, attr_t attr)
{
	kd_put(y, x, w, "", attr, 1);
}

/* Line drawing: Unicode box characters in a UTF-8 locale (they survive
 * every terminal and a text capture alike), the alternate charset
 * otherwise. */
enum { LN_H, LN_V, LN_UL, LN_UR, LN_LL, LN_LR };

static void
line_char(int y, int x, int which, attr_t attr)
{
	static const char *const uni[] = {
		"\u2500", "\u2502", "\u250c", "\u2510", "\u2514", "\u2518",
	};

	if (y < 0 || y >= LINES || x < 0 || x >= COLS)
		return;
	use_attr(attr);
	if (MB_CUR_MAX > 1) {
		mvaddstr(y, x, uni[which]);
	} else {
		const chtype acs[] = {
			ACS_HLINE, ACS_VLINE, ACS_ULCORNER, ACS_URCORNER, ACS_LLCORNER,
			ACS_LRCORNER,
		};

		mvaddch(y, x, acs[which]);
	}
	use_attr(A_NORMAL);
}

void
kd_hline(int y, int x, int w, attr_t attr)
{
	if (!clip(y, x, &w))
		return;
	for (int i = 0; i < w; i++)
		line_char(y, x + i, LN_H, attr);
}

void
kd_vline(int y, int x, int h, attr_t attr)
{
	for (int i = 0; i < h; i++)
		line_char(y + i, x, LN_V, attr);
}

void
kd_box(int y, int x, int h, int w, const char *title, attr_t attr)
{
	int i;

	if (h < 2 || w < 2 || y < 0 || x < 0 || y + h > LINES || x + w > COLS)
		return;
	for (i = y; i < y + h; i++)
		kd_fill(i, x, w, kd_attr(KD_C_DIALOG));
	line_char(y, x, LN_UL, attr);
	kd_hline(y, x + 1, w - 2, attr);
	line_char(y, x + w - 1, LN_UR, attr);
	kd_vline(y + 1, x, h - 2, attr);
	kd_vline(y + 1, x + w - 1, h - 2, attr);
	line_char(y + h - 1, x, LN_LL, attr);
	kd_hline(y + h - 1, x + 1, w - 2, attr);
	line_char(y + h - 1, x + w - 1, LN_LR, attr);
	if (title != NULL && *title != '\0' && w > 6) {
		char t[512];

		snprintf(t, sizeof t, " %s ", title);
		kd_put(y, x + 2, w - 4, t, attr | A_BOLD, 0);
	}
}

void
kd_dialog_place(int h, int w, int *y, int *x, int *hh, int *ww)
{
	*hh = h + 2;
	*ww = w + 4;
	if (*hh > LINES - 2)
		*hh = LINES - 2;
	if (*ww > COLS - 4)
		*ww = COLS - 4;
	if (*hh < 3)
		*hh = 3;
	if (*ww < 10)
		*ww = 10;
	*y = (LINES - *hh) / 2;
	*x = (COLS - *ww) / 2;
	if (*y < 0)
		*y = 0;
	if (*x < 0)
		*x = 0;
}

int
kd_wrap(const char *text, int w, char **lines, int maxlines)
{
	return textw_wrap(text, w, lines, maxlines);
}

void
kd_wrap_free(char **lines, int n)
{
	for (int i = 0; i < n; i++)
		free(lines[i]);
}
