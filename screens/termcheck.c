/*
 * termcheck.c - the terminal type is checked with setupterm() before curses
 * starts: unknown types, and types that cannot move the cursor (dumb, hard
 * copy), are refused with a message instead of a garbled screen.
 */
#include "config.h"

#include <locale.h>
#include <stdlib.h>
#include <unistd.h>

#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <term.h>

#include "kernodeck/termcheck.h"

int
kd_tui_check_term(struct kd_err *err)
{
	const char *term = getenv("TERM");
	const char *cup;
	int errret = 0, hardcopy;

	setlocale(LC_ALL, "");
	if (term == NULL || *term == '\0')
		return kd_err_set(err, KD_EENV, NULL, 0,
				  "TERM is not set: the walkthrough needs a terminal "
				  "(try TERM=xterm-256color, or use `kernodeck check`)");
	if (setupterm(NULL, STDOUT_FILENO, &errret) != OK)
		return kd_err_set(err, KD_EENV, NULL, 0,
				  "cannot drive the terminal type \"%s\" (TERM): %s; try "
				  "TERM=xterm-256color, or use `kernodeck check`", term,
				  errret == 0 ? "no terminfo entry for it"
				  : "its terminfo entry is unusable");
	cup = tigetstr("cup");
	hardcopy = tigetflag("hc") > 0;
	del_curterm(cur_term);
	if (cup == NULL || cup == (char *)-1 || hardcopy)
		return kd_err_set(err, KD_EENV, NULL, 0,
				  "the terminal type \"%s\" (TERM) cannot move the cursor: the "
				  "walkthrough needs a full-screen terminal (try "
				  "TERM=xterm-256color, or use `kernodeck check`)", term);
	return 0;
}
