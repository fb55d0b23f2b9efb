/*
 * cmd-hash.c - `kernodeck hash [--cache DIR] [--threads N] [--progress]
 * PATH...`: the arguments, then the hashing engine (src/lib/hash.c).
 */
#include "config.h"

#include <getopt.h>
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

/* Hash the folders among paths one by one, printing their lines in place;
 * files are hashed together first, on all workers. */
static int
cmd_hash(int argc, char **argv)
{
	const struct kd_cmd_entry *e = &kd_cmd_hash;
	struct hash_progress prog = { .on_progress = cmd_progress };
	struct hash_cache *c = NULL;
	struct hash_job *jobs;
	struct kd_err err;
	struct stat st;
	const char *cache_dir = NULL;
	char buf[2048], hex[65];
	int i, first, threads = 0, progress = 0, rc = 0, r;
	size_t n = 0, k;

	cmd_getopt_reset();
	while ((r = cmd_getopt(e, argc, argv)) != -1) {
		switch (r) {
		case 'c': cache_dir = optarg; break;
		case 't': threads = atoi(optarg); break;
		case 'p': progress = 1; break;
		case KD_CMD_HELP: return cmd_help(e);
		default: return cmd_usage_error(e, NULL);
		}
	}
	first = optind;
	if (first >= argc)
		return cmd_usage_error(e, NULL);
	if (cache_dir != NULL && (c = hash_cache_open(cache_dir, &err)) == NULL) {
		fprintf(stderr, "kernodeck: %s\n", kd_err_format(&err, buf, sizeof buf));
		return err.code;
	}
	jobs = calloc((size_t)(argc - first), sizeof *jobs);
	if (jobs == NULL) {
		hash_cache_close(c);
		return KD_EXIT_ENV;
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

static const struct kd_opt hash_opts[] = {
	{ "cache", 'c', "DIR", 0 },
	{ "threads", 't', "N", 0 },
	{ "progress", 'p', NULL, 0 },
	{ NULL, 0, NULL, 0 },
};

const struct kd_cmd_entry kd_cmd_hash = {
	.name = "hash",
	.args_after = "PATH...",
	.opts = hash_opts,
	.help = "Print \"SHA256  PATH\" for each file, in sha256sum's format (a folder's\n"
		"line has the digest of its manifest).  Exit 1: cancelled; 2: a path could\n"
		"not be hashed.",
	.stop_at_operand = 1,
	.exec = cmd_hash,
};
