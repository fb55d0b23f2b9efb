/*
 * logkeep.c - the referenced logs and the bounded history of
 * kernodeck/logs/ (see logkeep.h).
 *
 * References are found by meaning-free search: every string of a source
 * is scanned for "logs/" followed by a file name, and the name counts when
 * that file is a regular file of the logs folder.  A new key that names a
 * log is thus kept without a list of keys to keep in step.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/caps.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/logkeep.h"
#include "kernodeck/stages.h"
#include "kernodeck/state.h"
#include "kernodeck/yamlio.h"

static int
name_char(int c)
{
	return isalnum(c) || c == '.' || c == '_' || c == '-' || c == '+';
}

/* Add to set every NAME of "logs/NAME" in s that is a regular file of dir. */
static void
scan_string(const char *s, const char *dir, json_t *set)
{
	for (const char *p = strstr(s, "logs/"); p != NULL; p = strstr(p + 5, "logs/")) {
		char name[NAME_MAX + 1], *path;
		size_t n = 0;
		struct stat st;

		if (p > s && (name_char((unsigned char)p[-1])))
			continue;   /* "mylogs/" is another folder */
		while (name_char((unsigned char)p[5 + n]) && n < NAME_MAX)
			n++;
		if (n == 0 || n >= NAME_MAX || p[5] == '.')
			continue;
		memcpy(name, p + 5, n);
		name[n] = '\0';
		if (json_object_get(set, name) != NULL)
			continue;
		path = fsutil_join(dir, name);
		if (path != NULL && lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			json_object_set_new(set, name, json_true());
		free(path);
	}
}

static void
scan_tree(const json_t *t, const char *dir, json_t *set, int depth)
{
	const char *k;
	json_t *v;
	size_t i;

	if (depth > KD_CAP_YAML_DEPTH + 8)
		return;
	if (json_is_string(t))
		scan_string(json_string_value(t), dir, set);
	else if (json_is_object(t))
		json_object_foreach((json_t *)t, k, v)
			scan_tree(v, dir, set, depth + 1);
	else if (json_is_array(t))
		json_array_foreach(t, i, v)
			scan_tree(v, dir, set, depth + 1);
}

/* A YAML file's tree scanned; 0 when it is absent or read, -1 when it is
 * there but does not load. */
static int
scan_file(const char *path, const char *dir, json_t *set)
{
	struct yamlio_doc doc;

	if (!fsutil_exists(path))
		return 0;
	if (yamlio_load_file(path, &doc, NULL) != 0)
		return -1;
	scan_tree(doc.root, dir, set, 0);
	yamlio_doc_free(&doc);
	return 0;
}

/* The files NAME.yaml of the caller's folder (the latest fleet run's node
 * files). */
static int
scan_root(const struct kd_ctx *ctx, logkeep_root_fn root, const char *dir, json_t *set)
{
	char *folder = root != NULL ? root(ctx->state_dir) : NULL;
	DIR *d = folder ? opendir(folder) : NULL;
	struct dirent *de;
	int rc = 0;

	while (d != NULL && (de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		char *p;
		if (de->d_name[0] == '.' || n < 6 || strcmp(de->d_name + n - 5, ".yaml") != 0)
			continue;
		if ((p = fsutil_join(folder, de->d_name)) != NULL && scan_file(p, dir, set) != 0)
			rc = -1;
		free(p);
	}
	if (d != NULL)
		closedir(d);
	free(folder);
	return rc;
}

/* See logkeep.h. */
json_t *
logkeep_referenced(const struct kd_ctx *ctx, logkeep_root_fn root, int *complete)
{
	json_t *set = json_object(), *mem;
	char *dir = kd_ctx_path(ctx, "logs");
	int ok = dir != NULL && set != NULL;

	if (!ok)
		goto out;
	mem = state_to_json(&ctx->state);
	scan_tree(mem, dir, set, 0);
	json_decref(mem);
	/* state.yaml as it is on disk: what a kill now would leave */
	if (ctx->state_disk != NULL)
		scan_tree(ctx->state_disk, dir, set, 0);
	else if (ctx->state_path != NULL && fsutil_exists(ctx->state_path))
		ok = 0;
	for (int i = 0; i < KD_NSTAGES; i++) {
		const char *f = stage_obs_file(i);
		const json_t *obs = kd_ctx_obs(ctx, i);
		char *p;
		if (f == NULL)
			continue;
		if (obs != NULL) {
			scan_tree(obs, dir, set, 0);
			continue;
		}
		/* no observations in memory: the file, if any, must be read */
		if ((p = kd_ctx_path(ctx, f)) != NULL && scan_file(p, dir, set) != 0)
			ok = 0;
		free(p);
	}
	if (scan_root(ctx, root, dir, set) != 0)
		ok = 0;
out:
	if (complete != NULL)
		*complete = ok;
	free(dir);
	return set;
}

/* See logkeep.h. */
int
logkeep_history(void)
{
	const char *s = getenv("KD_LOG_HISTORY");
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return KD_CAP_LOG_HISTORY;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end != '\0' || errno != 0 || v < 0 || v > 100000)
		return KD_CAP_LOG_HISTORY;
	return (int)v;
}

/* One log that kernodeck named: STAMP[.N]-STEP.log. */
struct logname {
	char *name;
	const char *step;   /* inside name */
	size_t steplen;
	char stamp[17];
	long seq;           /* the .N of a second log in the same second */
};

/* Parse name as kernodeck's log name; 0 when it is one. */
static int
parse_name(const char *name, struct logname *l)
{
	size_t n = strlen(name), i = 16;
	const char *dash;

	if (n < 16 + 1 + 1 + 4 || strcmp(name + n - 4, ".log") != 0)
		return -1;
	for (size_t k = 0; k < 16; k++) {
		int want = k == 8 ? 'T' : k == 15 ? 'Z' : 0;
		if (want ? name[k] != want : !isdigit((unsigned char)name[k]))
			return -1;
	}
	memcpy(l->stamp, name, 16);
	l->stamp[16] = '\0';
	l->seq = 0;
	if (name[i] == '.') {
		char *end;
		l->seq = strtol(name + i + 1, &end, 10);
		if (end == name + i + 1)
			return -1;
		i = (size_t)(end - name);
	}
	if (name[i] != '-' || (dash = name + i + 1) >= name + n - 4)
		return -1;
	l->step = dash;
	l->steplen = (size_t)(name + n - 4 - dash);
	return 0;
}

static int
same_step(const struct logname *x, const struct logname *y)
{
	return x->steplen == y->steplen && memcmp(x->step, y->step, x->steplen) == 0;
}

/* Step ascending, then newest first. */
static int
cmp_log(const void *a, const void *b)
{
	const struct logname *x = a, *y = b;
	size_t m = x->steplen < y->steplen ? x->steplen : y->steplen;
	int c = memcmp(x->step, y->step, m);

	if (c != 0)
		return c;
	if (x->steplen != y->steplen)
		return x->steplen < y->steplen ? -1 : 1;
	if ((c = strcmp(x->stamp, y->stamp)) != 0)
		return -c;
	return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;
}

/* kernodeck's logs of dir (regular files), sorted by cmp_log (*np
 * entries, malloc'd). */
static struct logname *
list_logs(const char *dir, size_t *np)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct logname *v = NULL, l;
	size_t n = 0, cap = 0;

	while (d != NULL && (de = readdir(d)) != NULL) {
		struct stat st;
		if (parse_name(de->d_name, &l) != 0 || fstatat(dirfd(d), de->d_name, &st,
							       AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;   /* a link or a folder by that name is not ours */
		if (n == cap) {
			struct logname *nv = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof *nv);
			if (nv == NULL)
				break;
			v = nv;
		}
		if ((l.name = strdup(de->d_name)) == NULL)
			break;
		l.step = l.name + (l.step - de->d_name);
		v[n++] = l;
	}
	if (d != NULL)
		closedir(d);
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_log);
	*np = n;
	return v;
}

/* See logkeep.h. */
int
logkeep_prune(struct kd_ctx *ctx, logkeep_root_fn root)
{
	char *dir = NULL;
	json_t *refs;
	struct logname *v = NULL;
	size_t n = 0, rank = 0;
	int complete = 0, keep = logkeep_history(), removed = 0;

	if (ctx->readonly || ctx->lock == NULL || ctx->state_dir == NULL)
		return 0;
	refs = logkeep_referenced(ctx, root, &complete);
	if (!complete || (dir = kd_ctx_path(ctx, "logs")) == NULL)
		goto out;
	v = list_logs(dir, &n);
	for (size_t i = 0; i < n; i++) {
		char *p;
		struct stat st;
		if (i == 0 || !same_step(&v[i - 1], &v[i]))
			rank = 0;
		if (rank++ < (size_t)keep || json_object_get(refs, v[i].name) != NULL)
			continue;
		p = fsutil_join(dir, v[i].name);
		/* a regular file only: a folder or a link by that name is not
		 * ours; one this run wrote may be named by a later stage */
		if (p != NULL && !kd_ctx_own_log(ctx, v[i].name) &&
		    lstat(p, &st) == 0 && S_ISREG(st.st_mode) && unlink(p) == 0) {
			removed++;
			fsutil_fault_point("log-prune");
		}
		free(p);
	}
	if (removed > 0) {
		/* the removals last: the folder itself is synced */
		char *any = fsutil_join(dir, ".");
		if (any != NULL)
			fsutil_fsync_parent(any);
		free(any);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	free(dir);
	json_decref(refs);
	return removed;
}
