/*
 * testutil.h - helpers the unit tests share (tests/unit/testutil.c, linked
 * into the tests that list $(TESTUTIL) in mk/): run a program quietly, run git
 * in a folder, write a small file, read a monotonic clock.
 */
#ifndef KD_TESTUTIL_H
#define KD_TESTUTIL_H

/* Run argv (argv[0] a path, no shell) with stdin, stdout and stderr on
 * /dev/null; its exit status, or -1 when it did not exit. */
int tu_run_quiet(char *const argv[]);
/* Run git (found in PATH) with the arguments up to NULL in cwd, quietly;
 * its exit status. */
int tu_git(const char *cwd, ...);
/* Write text to DIR/REL, making REL's folders; fails the test when it
 * cannot. */
void tu_put(const char *dir, const char *rel, const char *text);
/* Seconds on the monotonic clock. */
double tu_now_s(void);

#endif
