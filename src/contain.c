/*
 * contain.c - a replay stays inside its work folder and runs what its plan
 * showed: see contain.h.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/caps.h"
#include "kernodeck/contain.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/yamlio.h"

#define CONTAIN_DEPTH 32         /* folders below a written root, at most */
#define CONTAIN_DIFF_LINES 20    /* lines of a difference shown */

/* Folders kernodeck writes in the work folder besides the outputs. */
static const char *const written[] = { "kernodeck", ".venv-rebuild", ".cache", ".cache/pip",
				       ".tmp", ".home" };

/* Why a path of the reference would leave the work folder, or NULL. */
static const char *
escapes(const char *p)
{
	if (p[0] == '/')
		return "an absolute path";
	if (p[0] == '~')
		return "a path in a home folder";
	for (const char *c = p; *c;) {
		size_t n = strcspn(c, "/");
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return "a path with \"..\", which leaves the work folder";
		c += n;
		while (*c == '/')
			c++;
	}
	return NULL;
}

static int
field_bad(const char *file, const char *field, const char *p, const char *why,
	  struct kd_err *err)
{
	return kd_err_set(err, KD_EINPUT, file, 0,
			  "%s is \"%s\": %s; the replay writes and reads only inside its work "
			  "folder (refusing the dossier)", field, p, why);
}

int
contain_check_fields(const json_t *ref, const char *file, struct kd_err *err)
{
	static const char *const fields[] = { "result.outputs", "python.inventory", "python.inspect",
					      "result.ids.file", "result.ids.reference",
					      "result.example.path" };
	const json_t *v;
	const char *why;
	char name[64];
	size_t i;

	for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		const char *p = yamlio_get_str(ref, fields[i]);
		if (p != NULL && (why = escapes(p)) != NULL)
			return field_bad(file, fields[i], p, why, err);
	}
	json_array_foreach(yamlio_get(ref, "result.files"), i, v) {
		const char *p = json_string_value(v);
		snprintf(name, sizeof name, "result.files[%zu]", i);
		if (p != NULL && (why = escapes(p)) != NULL)
			return field_bad(file, name, p, why, err);
	}
	/* data items are only read: an absolute path is allowed (the plan
	 * names it), a ".." is not */
	json_array_foreach(yamlio_get(ref, "data"), i, v) {
		const char *p = json_string_value(json_object_get(v, "path"));
		snprintf(name, sizeof name, "data[%zu].path", i);
		if (p != NULL && p[0] != '/' && (why = escapes(p)) != NULL)
			return field_bad(file, name, p, why, err);
	}
	return 0;
}

/* The stage after which the tree is checked (contain_check_after), or
 * NULL: the link came with the repository. */
static const char *after_stage;

static int
link_refused(const char *rel, const char *full, struct kd_err *err)
{
	char target[PATH_MAX];
	ssize_t n = readlink(full, target, sizeof target - 1);

	target[n > 0 ? n : 0] = '\0';
	if (after_stage != NULL)
		return kd_err_set(err, KD_EINPUT, rel, 0,
				  "%s became a symbolic link (to %s) while stage %s ran, where "
				  "kernodeck writes: the replay would write outside its work folder "
				  "(refusing to go on)", rel, n > 0 ? target : "?", after_stage);
	return kd_err_set(err, KD_EINPUT, rel, 0,
			  "%s in the repository is a symbolic link (to %s), where kernodeck "
			  "writes: the replay would write outside its work folder (refusing it)",
			  rel, n > 0 ? target : "?");
}

/* No symbolic link anywhere below dir (rel its name in the work folder). */
static int
no_link_below(const char *dir, const char *rel, int depth, struct kd_err *err)
{
	DIR *d;
	struct dirent *de;
	int rc = 0;

	if (depth > CONTAIN_DEPTH)
		return kd_err_set(err, KD_EINPUT, rel, 0, "%s: folders nested too deep", rel);
	if ((d = opendir(dir)) == NULL)
		return 0;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char full[PATH_MAX], sub[PATH_MAX];
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(full, sizeof full, "%s/%s", dir, de->d_name) >= (int)sizeof full ||
		    snprintf(sub, sizeof sub, "%s/%s", rel, de->d_name) >= (int)sizeof sub ||
		    lstat(full, &st) != 0)
			continue;
		if (S_ISLNK(st.st_mode))
			rc = link_refused(sub, full, err);
		else if (S_ISDIR(st.st_mode))
			rc = no_link_below(full, sub, depth + 1, err);
	}
	closedir(d);
	return rc;
}

/* No component of rel under workdir is a link; deep: nor below it. */
static int
check_root(const char *workdir, const char *rel, int deep, struct kd_err *err)
{
	char full[PATH_MAX], part[PATH_MAX];
	struct stat st;
	size_t n = 0;

	if (snprintf(full, sizeof full, "%s/%s", workdir, rel) >= (int)sizeof full)
		return kd_err_set(err, KD_EINPUT, rel, 0, "%s: path too long", rel);
	while (rel[n] != '\0') {
		n += strcspn(rel + n, "/");
		snprintf(part, sizeof part, "%s/%.*s", workdir, (int)n, rel);
		if (lstat(part, &st) != 0)
			return 0;   /* not there: kernodeck makes it */
		if (S_ISLNK(st.st_mode)) {
			char prel[PATH_MAX];
			snprintf(prel, sizeof prel, "%.*s", (int)n, rel);
			return link_refused(prel, part, err);
		}
		while (rel[n] == '/')
			n++;
	}
	return deep && S_ISDIR(st.st_mode) ? no_link_below(full, rel, 0, err) : 0;
}

int
contain_check_tree(const char *workdir, const json_t *ref, int deep, struct kd_err *err)
{
	const char *outs = yamlio_get_str(ref, "result.outputs");
	const char *inv = yamlio_get_str(ref, "python.inventory");
	int rc = 0;

	for (size_t i = 0; i < sizeof written / sizeof written[0] && rc == 0; i++)
		/* the venv holds links of its own once made */
		rc = check_root(workdir, written[i], deep && strcmp(written[i], ".venv-rebuild") != 0,
				err);
	if (rc == 0 && outs != NULL && escapes(outs) == NULL)
		rc = check_root(workdir, outs, deep, err);
	if (rc == 0)
		rc = check_root(workdir, "requirements-rebuild.txt", 0, err);
	if (rc == 0 && inv != NULL && escapes(inv) == NULL)
		rc = check_root(workdir, inv, 0, err);
	return rc;
}

int
contain_check_after(const char *workdir, const json_t *ref, const char *stage,
		    struct kd_err *err)
{
	int rc;

	after_stage = stage;
	rc = contain_check_tree(workdir, ref, 1, err);
	after_stage = NULL;
	return rc;
}

/* Show the lines of a not in b as "-", of b not in a as "+" (a line is
 * looked for anywhere in the other text), at most CONTAIN_DIFF_LINES. */
void
contain_show_diff(const char *a, const char *b, const char *name,
		  void (*show)(void *u, const char *line), void *u)
{
	const char *texts[2] = { a, b }, *sign = "-+";
	char line[512];
	int shown = 0;

	for (int k = 0; k < 2; k++) {
		const char *t = texts[k], *other = texts[1 - k];
		while (t && *t && shown < CONTAIN_DIFF_LINES) {
			const char *nl = strchr(t, '\n');
			size_t n = nl ? (size_t)(nl - t) : strlen(t);
			int found = 0;
			for (const char *o = other; o && *o;) {
				const char *onl = strchr(o, '\n');
				size_t on = onl ? (size_t)(onl - o) : strlen(o);
				if (on == n && memcmp(o, t, n) == 0) {
					found = 1;
					break;
				}
				o = onl ? onl + 1 : NULL;
			}
			if (!found) {
				snprintf(line, sizeof line, "  %c %s: %.*s", sign[k], name,
					 (int)(n < 400 ? n : 400), t);
				show(u, line);
				shown++;
			}
			t = nl ? nl + 1 : NULL;
		}
	}
}

/* The clone's rel and the dossier's project/rel: the same bytes.  With
 * dossier_only, a file the clone lacks is no refusal: replay restores it
 * from the dossier's copy (capture's inventory, in a folder git ignores). */
static int
same_copy(const char *workdir, const char *dossier, const char *rel, int dossier_only,
	  void (*show)(void *u, const char *line), void *u, struct kd_err *err)
{
	char *dp = fsutil_join(dossier, "project"), *copy = fsutil_join(dp, rel);
	char *cp = fsutil_join(workdir, rel), *a = NULL, *b = NULL;
	size_t al = 0, bl = 0;
	int ha, hb, rc = 0;

	ha = copy != NULL && fsutil_read_file(copy, KD_CAP_TEXT_FILE, &a, &al, NULL) == 0;
	hb = cp != NULL && fsutil_read_file(cp, KD_CAP_TEXT_FILE, &b, &bl, NULL) == 0;
	if (ha && hb && al == bl && memcmp(a, b, al) == 0)
		goto out;
	if ((!ha && !hb) || (ha && !hb && dossier_only))
		goto out;
	if (ha && hb) {
		contain_show_diff(a, b, rel, show, u);
		rc = kd_err_set(err, KD_EINPUT, rel, 0,
				"%s in the repository differs from the dossier's copy, which the "
				"plan showed (- the dossier's, + the repository's): refusing to "
				"run what was not shown", rel);
	} else if (hb) {
		rc = kd_err_set(err, KD_EINPUT, rel, 0,
				"%s is in the repository but the dossier holds no copy of it: the "
				"plan did not show it (refusing)", rel);
	}
	/* in the dossier only: the replay puts the dossier's copy in place */
out:
	free(a);
	free(b);
	free(dp);
	free(copy);
	free(cp);
	return rc;
}

int
contain_check_copies(const char *workdir, const char *dossier, const json_t *ref,
		     void (*show)(void *u, const char *line), void *u, struct kd_err *err)
{
	const char *inv = yamlio_get_str(ref, "python.inventory");
	const char *ins = yamlio_get_str(ref, "python.inspect");
	int rc = same_copy(workdir, dossier, "requirements-rebuild.txt", 0, show, u, err);

	if (rc == 0 && inv != NULL && escapes(inv) == NULL)
		rc = same_copy(workdir, dossier, inv, 1, show, u, err);
	if (rc == 0 && ins != NULL && escapes(ins) == NULL)
		rc = same_copy(workdir, dossier, ins, 1, show, u, err);
	return rc;
}

const char *
contain_quote(const char *arg, char *buf, size_t len)
{
	size_t o = 0;
	int plain = *arg != '\0';

	for (const char *c = arg; *c && plain; c++)
		plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			(*c >= '0' && *c <= '9') || strchr("-_./=:,+@%", *c) != NULL;
	if (plain) {
		snprintf(buf, len, "%s", arg);
		return buf;
	}
	if (len < 3) {
		if (len > 0)
			buf[0] = '\0';
		return buf;
	}
	buf[o++] = '\'';
	for (const char *c = arg; *c && o + 6 < len; c++) {
		if (*c == '\'') {
			memcpy(buf + o, "'\\''", 4);
			o += 4;
		} else {
			buf[o++] = *c;
		}
	}
	buf[o++] = '\'';
	buf[o] = '\0';
	return buf;
}
