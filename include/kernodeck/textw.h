/*
 * textw.h - text measured in terminal columns (no curses).
 *
 * Everything the walkthrough prints comes from files and programs, so it is
 * untrusted: textw_fit() turns any bytes into printable text of a given
 * display width.  Control characters and bytes that are not UTF-8 are shown
 * visibly by termout_clean (termout.h: ESC as \x1b, BEL as \x07, C1 and
 * bidirectional controls as \uHHHH; a newline as \x0a except where
 * textw_wrap breaks the line), a tab becomes a space, and what the locale
 * cannot show becomes '?'; a text that does not fit ends with an ellipsis ("…"
 * in a UTF-8 locale, "~" otherwise).  The current LC_CTYPE decides how
 * bytes decode (setlocale is the caller's).
 */
#ifndef KD_TEXTW_H
#define KD_TEXTW_H

#include <stddef.h>

/* Display width of s once sanitised. */
int textw_width(const char *s);
/* Write into out (NUL-terminated, at most outlen bytes) the sanitised
 * prefix of s that fits in w columns, ending with an ellipsis when s was
 * cut.  Returns the columns used. */
int textw_fit(const char *s, int w, char *out, size_t outlen);
/* Word-wrap s into at most maxlines lines of w columns; each line is a
 * malloc'd sanitised string (newlines in s start a new line; a word longer
 * than w is cut).  Returns the number of lines. */
int textw_wrap(const char *s, int w, char **lines, int maxlines);
/* Case-insensitive search of needle in hay (ASCII folding); NULL if none. */
const char *textw_search(const char *hay, const char *needle);

#endif
