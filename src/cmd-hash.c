/*
 * cmd-hash.c - `kernodeck hash [--cache DIR] [--threads N] [--progress]
 * PATH...`: the arguments, then the hashing engine (src/hash.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernodeck/cmd.h"
#include "kernodeck/err.h"
#include "kernodeck/hash.h"
#include "kernodeck/termout.h"

static void
cmd_progress(void *u, uint64_t done, uint64_t total, double rate)
{
	double left = rate > 0 && total > done ? (double)(total - done) / rate : 0;
	char line[128];

	(void)u;
	/* our own numbers, with the \r that the filter of stderr would show */
	snprintf(line, sizeof line, "\r%llu/%llu MiB  %.0f MiB/s  %.0f s left  %s",
		 (unsigned long long)(done >> 20), (unsigned long long)(total >> 20),
		 rate / 1048576.0, left, done >= total ? "\n" : "");
	termout_write_trusted(stderr, line);
}

static int
cmd_usage(void)
{
	fprintf(stderr, "usage: kernodeck hash [--cache DIR] [--threads N] [--progress] PATH...\n");
	return KD_EINPUT;
}

/* Hash the folders among paths one by one, printing their lines in place;
 * files are hashed together first, on all workers. */
int
cmd_hash(int argc, char **argv)
{
	struct hash_progress prog = { .on_progress = cmd_progress };
	struct hash_cache *c = NULL;
	struct hash_job *jobs;
	struct kd_err err;
	struct stat st;
	const char *cache_dir = NULL;
	char buf[2048], hex[65];
	int i, first, threads = 0, progress = 0, rc = 0, r;
	size_t n = 0, k;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else if (strcmp(argv[i], "--cache") == 0 && i + 1 < argc) {
			cache_dir = argv[++i];
		} else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
			threads = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--progress") == 0) {
			progress = 1;
		} else {
			return cmd_usage();
		}
	}
	first = i;
	if (first >= argc)
		return cmd_usage();
	if (cache_dir != NULL && (c = hash_cache_open(cache_dir, &err)) == NULL) {
		fprintf(stderr, "kernodeck: %s\n", kd_err_format(&err, buf, sizeof buf));
		return err.code;
	}
	jobs = calloc((size_t)(argc - first), sizeof *jobs);
	if (jobs == NULL) {
		hash_cache_close(c);
		return KD_EENV;
	}
	for (i = first; i < argc; i++)
		if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode))
			jobs[n++].path = argv[i];
	if (hash_files(jobs, n, threads, c, progress ? &prog : NULL) != 0)
		rc = KD_EFAIL;
	for (k = 0; k < n; k++) {
		if (jobs[k].rc != 0) {
			fprintf(stderr, "kernodeck: %s\n",
				kd_err_format(&jobs[k].err, buf, sizeof buf));
			if (jobs[k].rc > rc)
				rc = jobs[k].rc;
		} else {
			printf("%s  %s\n", jobs[k].hex, jobs[k].path);
		}
	}
	for (i = first; i < argc && rc != KD_EFAIL; i++) {
		if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		r = hash_folder(argv[i], c, progress ? &prog : NULL, hex, NULL, NULL, &err);
		if (r != 0) {
			fprintf(stderr, "kernodeck: %s\n", kd_err_format(&err, buf, sizeof buf));
			rc = r > rc ? r : rc;
		} else {
			printf("%s  %s\n", hex, argv[i]);
		}
	}
	if (c != NULL && hash_cache_flush(c, &err) != 0) {
		fprintf(stderr, "kernodeck: %s\n", kd_err_format(&err, buf, sizeof buf));
		rc = rc ? rc : KD_EENV;
	}
	hash_cache_close(c);
	free(jobs);
	return rc;
}
