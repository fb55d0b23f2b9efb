/*
 * quote.h - the one way to write a string as a shell word.
 *
 * A command kernodeck shows (replay's plan, a log's "# kernodeck: run"
 * line), writes (a dossier's procedure.sh) or lets a person edit (an ARGV
 * field of the walkthrough) is written with quote_word(), so that one
 * command reads the same everywhere:
 *   - a word of plain characters (letters, digits and - _ . / = : , + @ %)
 *     as it is, but the first word of a command (QUOTE_FIRST) holding '=',
 *     which bash would take for an assignment;
 *   - else in single quotes, each ' written as '\'';
 *   - else, when it holds a line break, a control character, a hidden code
 *     point (a C1 control, a bidirectional override) or a byte that is not
 *     UTF-8, as bash's ANSI-C form $'...' with \n, \t, \\, \', \xHH and
 *     \uHHHH escapes (termout.h's forms).
 * Every word is safe to print (termout_unsafe() finds nothing in it) and
 * names its string unambiguously: bash reads it back as it was, and so
 * does shellwords_split() (screens/).
 */
#ifndef KD_QUOTE_H
#define KD_QUOTE_H

enum {
	QUOTE_FIRST = 1 << 0,   /* the word is the first of a command */
};

/* s as one shell word (malloc'd; NULL when out of memory). */
char *quote_word(const char *s, int flags);
/* An argument vector as one line of shell words separated by spaces
 * (malloc'd; NULL when out of memory). */
char *quote_argv(const char *const *argv);

#endif
