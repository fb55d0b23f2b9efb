/*
 * regress-main.c - run a fuzz target without libFuzzer: every file named on
 * the command line, or found directly in a folder named there, is passed
 * once to LLVMFuzzerTestOneInput.  One TAP line per file:
 *   ok - fuzz-npy regress tests/fuzz/corpus/fuzz-npy/f4-le.npy
 * A crash ends the program (the runner counts it); a file that cannot be
 * read is a failure.  The target's name comes from the program's name
 * (regress-npy -> fuzz-npy).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char target[128];
static int failures;

static void
run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL) {
		printf("not ok - %s regress %s (%s)\n", target, path, strerror(errno));
		failures++;
		return;
	}
	do {
		if (len == cap) {
			unsigned char *nb;
			cap = cap ? cap * 2 : 4096;
			nb = realloc(buf, cap);
			if (nb == NULL)
				abort();
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	/* An exact-size copy, so ASan sees a read past the input. */
	{
		unsigned char *exact = malloc(len ? len : 1);
		if (exact == NULL)
			abort();
		if (len)
			memcpy(exact, buf, len);
		free(buf);
		fflush(stdout);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	printf("ok - %s regress %s\n", target, path);
	fflush(stdout);
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files directly in dir, in name order (so runs are comparable). */
static void
run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, i;

	if (d == NULL) {
		printf("not ok - %s regress %s (%s)\n", target, dir, strerror(errno));
		failures++;
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn;
			cap = cap ? cap * 2 : 64;
			nn = realloc(names, cap * sizeof *names);
			if (nn == NULL)
				abort();
			names = nn;
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof *names, by_name);
	for (i = 0; i < n; i++) {
		size_t l = strlen(dir) + strlen(names[i]) + 2;
		char *p = malloc(l);
		struct stat st;
		if (p == NULL)
			abort();
		snprintf(p, l, "%s/%s", dir, names[i]);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
			run_file(p);
		free(p);
		free(names[i]);
	}
	free(names);
}

int
main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	struct stat st;
	int i;

	base = base ? base + 1 : argv[0];
	if (strncmp(base, "lt-", 3) == 0)
		base += 3;
	if (strncmp(base, "regress-", 8) == 0)
		snprintf(target, sizeof target, "fuzz-%s", base + 8);
	else
		snprintf(target, sizeof target, "%s", base);
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			run_dir(argv[i]);
		else
			run_file(argv[i]);
	}
	return failures ? 1 : 0;
}
