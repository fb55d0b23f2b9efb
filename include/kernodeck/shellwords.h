/*
 * shellwords.h - argument vectors written as a shell-like line (no shell).
 *
 * The ARGV fields of a stage (an entry point: [python, embed.py, --out,
 * outputs]) are stored as a JSON array and edited as one line, quoted the
 * way a person would type it at a shell prompt: words split on blanks,
 * '...' keeps everything literally, "..." keeps everything but \" \\ \$ \`
 * escapes, a backslash outside quotes escapes the next character.  Nothing
 * is expanded: no variables, no globs.  The same splitting turns $EDITOR
 * and $PAGER ("code --wait") into an argument vector.
 */
#ifndef KD_SHELLWORDS_H
#define KD_SHELLWORDS_H

#include <stddef.h>
#include <jansson.h>

#define KD_CAP_SHELLWORDS 4096   /* words in one line */

/* Split line into a new JSON array of strings.  0, or 1 with error filled
 * ("unbalanced quote at column 7"). */
int shellwords_split(const char *line, json_t **out, char *error, size_t len);
/* The same as a NULL-terminated malloc'd argv (free with shellwords_free);
 * extra (may be NULL) is appended as a last argument. */
char **shellwords_argv(const char *line, const char *extra, char *error, size_t len);
void shellwords_free(char **argv);
/* Join an array as a line of words quoted as every command kernodeck
 * shows (quote_argv, quote.h), which shellwords_split gives back
 * (malloc'd; NULL when out of memory); non-string items are printed as
 * JSON.  NULL or a non-array gives "". */
char *shellwords_join(const json_t *arr);

#endif
