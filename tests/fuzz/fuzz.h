/*
 * tests/fuzz/fuzz.h - helpers shared by the fuzz targets (not part of the
 * program).  Each target is one file exposing LLVMFuzzerTestOneInput; it is
 * linked either with libFuzzer (make fuzz, clang) or with regress-main.c
 * (make check, any compiler), which replays a corpus.
 *
 * Parsers that only read from a path get their input through an anonymous
 * memory file (memfd) named by /proc/self/fd/N: a regular file, so the
 * readers' "is this a regular file" checks pass as for a real one.
 */
#ifndef KD_FUZZ_H
#define KD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <jansson.h>

#include "kernodeck/yamlio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of the input (parsers take a length, but a stray
 * strlen in one of them must not read past the fuzzer's buffer). */
static inline char *
fuzz_dup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		abort();
	if (size > 0)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Replace the content of this process's memory file with data and return
 * its path (static buffer). */
static inline const char *
fuzz_memfile(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];

	if (fd < 0) {
		fd = memfd_create("kd-fuzz", 0);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0)
		abort();
	if (size > 0 && pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	return path;
}

/* Print a tree both ways `kernodeck inspect` would (json and yaml), so the
 * emitters see whatever a parser put into its tree. */
static inline void
fuzz_emit(const json_t *tree)
{
	char *s;
	size_t n;

	if (tree == NULL)
		return;
	s = json_dumps(tree, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	free(s);
	s = yamlio_dump(tree, 0, &n);
	free(s);
}

#endif
