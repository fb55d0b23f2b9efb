/*
 * argv.h - an argument vector as kernodeck builds and runs it: NULL-ended,
 * each string malloc'd, released with argv_free.
 *
 * The domain that knows a program builds its vector (venv.h: the venv and
 * pip; baseenv.h: the base environment's query; probe.h: the probe;
 * reference.h: the entry point); the stages run exactly those vectors, and
 * replay's plan (src/features/replay.c) shows the same ones before
 * anything runs, each argument a shell word (termout_argv): what a person
 * confirms is what runs.  Relative paths (.venv-rebuild,
 * requirements-rebuild.txt) are taken from the project folder, where the
 * stages run them.
 */
#ifndef KD_ARGV_H
#define KD_ARGV_H

#include <stddef.h>

/* A vector of copies of the NULL-ended list of strings that follows (at
 * most 31); NULL when a copy fails. */
char **argv_new(const char *first, ...);
/* The number of strings of argv (0 for NULL). */
size_t argv_count(char *const *argv);
/* Release argv and its strings (NULL is fine). */
void argv_free(char **argv);

#endif
