/*
 * termcheck.h - can the walkthrough drive this terminal?  Asked before
 * anything is opened or drawn, so that a wrong TERM gives a clear message
 * and leaves nothing behind.  (A separate module because <term.h> defines
 * macros named like ordinary words and cannot sit next to other headers.)
 */
#ifndef KD_TERMCHECK_H
#define KD_TERMCHECK_H

#include "kernodeck/err.h"

/* 0 when TERM is set, has a terminfo entry and can address the cursor;
 * otherwise KD_EENV with a message that says what to do. */
int kd_tui_check_term(struct kd_err *err);

#endif
