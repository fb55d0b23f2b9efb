/*
 * termout.h - the one way out to the terminal.
 *
 * Bytes from outside (file names, YAML strings, requirements lines, the
 * output of the programs kernodeck runs, git messages) can hold terminal
 * control sequences: erase a line of a confirmation, set the window title,
 * write the clipboard (OSC 52).  termout_clean() shows every control
 * character visibly and keeps valid UTF-8 text as it is:
 *   - C0 controls and DEL as \xHH (ESC is \x1b, BEL \x07, CR \x0d), tab
 *     and (with TERMOUT_KEEP_NL) newline kept;
 *   - C1 controls (U+0080..U+009F), the bidirectional marks, overrides
 *     and isolates (U+200E, U+200F, U+202A..U+202E, U+2066..U+2069, U+061C),
 *     the zero-width and other invisible format characters (U+200B..U+200D,
 *     U+2060..U+2064, U+FEFF, U+00AD, the fillers, the line and paragraph
 *     separators U+2028, U+2029) as \uHHHH, the tags (U+E0000..U+E007F)
 *     as \UHHHHHHHH: termout_hidden_ranges() lists them;
 *   - a byte that is not part of valid UTF-8 as \xHH.
 * termout_install() routes stdout and stderr of a headless command through
 * termout_clean() (fopencookie), so that every print of every command goes
 * through it; the logs kernodeck writes keep the raw bytes.  The walkthrough
 * draws with textw_fit(), which passes every text through termout_clean()
 * first (the screen shows \x1b as stdout does), and filters stderr only
 * (curses owns stdout).
 */
#ifndef KD_TERMOUT_H
#define KD_TERMOUT_H

#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

enum {
	TERMOUT_KEEP_NL = 1 << 0,   /* newline kept (else shown as \x0a) */
};

/* Would the redaction (redact.c) change s?  Everything termout shows
 * passes it first (termout_clean, termout_str, the stdio filter), so that
 * nothing printed holds what a written file may not. */
int termout_secret(const char *s, size_t n);
/* s[0..n) made safe to print (malloc'd, NUL-terminated, *outlen its length
 * when outlen is not NULL); NULL only when out of memory. */
char *termout_clean(const char *s, size_t n, int flags, size_t *outlen);
/* The same for a NUL-terminated string, into buf (cut to len - 1 bytes,
 * never in the middle of an escape); returns buf. */
const char *termout_str(const char *s, int flags, char *buf, size_t len);
/* Is name (a path) a file a person reads, whose text is cleaned the same
 * way with TERMOUT_KEEP_NL before it is written (a .md or .txt file:
 * fsutil_write_atomic does so, the dossier's README too)? */
int termout_person_file(const char *name);
/* How many bytes of s[0..n) termout_clean would change (0: safe as is). */
size_t termout_unsafe(const char *s, size_t n);
/* The code points above U+007F that termout_clean shows escaped: *n
 * ranges [first, last], ascending (procedure.sh's check is made from
 * them). */
const uint32_t (*termout_hidden_ranges(size_t *n))[2];
/* Route stdout (when which & 1) and stderr (which & 2) through
 * termout_clean from now on.  0, or -1 (the streams are left as they were). */
int termout_install(int which);
/* Write text kernodeck made itself (a progress line that starts with \r)
 * straight to the file descriptor of f, after flushing f. */
void termout_write_trusted(FILE *f, const char *s);

#endif
