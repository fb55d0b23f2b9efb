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
#include "kernodeck/parse-requirements.h"
#include "kernodeck/termout.h"
#include "kernodeck/yamlio.h"

#define CONTAIN_DEPTH 32         /* folders below a written root, at most */
#define CONTAIN_DIFF_LINES 20    /* lines of a difference shown */

/* Folders kernodeck writes in the work folder besides the outputs. */
static const char *const written[] = { "kernodeck", ".venv-rebuild", ".cache", ".cache/pip",
				       ".tmp", ".home" };

/* The resume check's path fields (resume_spec_parse). */
static const char *const resume_fields[] = { "resume.checkpoint", "resume.metrics",
					     "resume.reference_metrics" };

/* Why a path of the reference would leave the work folder or cannot be
 * shown as it is, or NULL. */
static const char *
escapes(const char *p)
{
	if (termout_unsafe(p, strlen(p)) > 0 || strpbrk(p, "\n\t") != NULL)
		return "a path with a control or hidden character";
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

void
contain_each_field(const json_t *ref, contain_field_fn *fn, void *u)
{
	static const char *const fields[] = { "result.outputs", "python.inventory", "python.inspect",
					      "result.ids.file", "result.ids.reference",
					      "result.example.path" };
	const json_t *v;
	char name[64];
	size_t i;

	for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		const char *p = yamlio_get_str(ref, fields[i]);
		if (p != NULL && fn(u, fields[i], p, 0) != 0)
			return;
	}
	json_array_foreach(yamlio_get(ref, "result.files"), i, v) {
		const char *p = json_string_value(v);
		snprintf(name, sizeof name, "result.files[%zu]", i);
		if (p != NULL && fn(u, name, p, 0) != 0)
			return;
	}
	json_array_foreach(yamlio_get(ref, "data"), i, v) {
		const char *p = json_string_value(json_object_get(v, "path"));
		snprintf(name, sizeof name, "data[%zu].path", i);
		if (p != NULL && fn(u, name, p, 1) != 0)
			return;
	}
	/* the resume check's: the checkpoint and the metrics each run writes
	 * under {out} (a folder below the work folder), the reference
	 * machine's trajectory in the clone (resume.c reads them) */
	for (i = 0; i < sizeof resume_fields / sizeof resume_fields[0]; i++) {
		const char *p = json_string_value(json_object_get(json_object_get(ref, "resume"),
								  resume_fields[i] + 7));
		if (p != NULL && fn(u, resume_fields[i], p, 0) != 0)
			return;
	}
}

struct field_check {
	const char *file;
	struct kd_err *err;
	int rc;
};

/* One field, refused as contain_check_fields says. */
static int
field_check(void *u, const char *field, const char *p, int data)
{
	struct field_check *c = u;
	const char *why = escapes(p);
	char shown[512];

	/* data items are only read: an absolute path is allowed (the plan
	 * names it), a ".." is not */
	if (why == NULL || (data && p[0] == '/' && strcmp(why, "an absolute path") == 0))
		return 0;
	c->rc = kd_err_set(c->err, KD_EINPUT, c->file, 0,
			   "%s is \"%s\": %s; the replay writes and reads only inside its work "
			   "folder (refusing the dossier)", field,
			   termout_str(p, 0, shown, sizeof shown), why);
	return 1;
}

int
contain_check_fields(const json_t *ref, const char *file, struct kd_err *err)
{
	struct field_check c = { file, err, 0 };

	contain_each_field(ref, field_check, &c);
	return c.rc;
}

/* The stage after which the tree is checked (contain_check_after), or
 * NULL: the link came with the repository. */
static const char *after_stage;
/* The path checked is one kernodeck only reads (check_root's caller). */
static int reading;

static int
link_refused(const char *rel, const char *full, struct kd_err *err)
{
	char target[PATH_MAX];
	ssize_t n = readlink(full, target, sizeof target - 1);

	target[n > 0 ? n : 0] = '\0';
	const char *how = reading ? "reads" : "writes", *what = reading ? "read" : "write";

	if (after_stage != NULL)
		return kd_err_set(err, KD_EINPUT, rel, 0,
				  "%s became a symbolic link (to %s) while stage %s ran, where "
				  "kernodeck %s: the replay would %s outside its work folder "
				  "(refusing to go on)", rel, n > 0 ? target : "?", after_stage, how,
				  what);
	return kd_err_set(err, KD_EINPUT, rel, 0,
			  "%s in the repository is a symbolic link (to %s), where kernodeck "
			  "%s: the replay would %s outside its work folder (refusing it)",
			  rel, n > 0 ? target : "?", how, what);
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
	const char *refm = json_string_value(json_object_get(json_object_get(ref, "resume"),
							     "reference_metrics"));
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
	if (rc == 0 && refm != NULL && escapes(refm) == NULL) {
		/* read only, but a link in the clone would lead the read out */
		reading = 1;
		rc = check_root(workdir, refm, 0, err);
		reading = 0;
	}
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

/* The project-relative path of val included from the file from (itself
 * project-relative) into out: 0, or why it leaves the project. */
static const char *
include_path(const char *from, const char *val, char *out, size_t len)
{
	const char *slash = strrchr(from, '/');
	char joined[PATH_MAX];
	size_t o = 0;

	if (val[0] == '/')
		return "an absolute path";
	if (val[0] == '~')
		return "a path in a home folder";
	if (snprintf(joined, sizeof joined, "%.*s%s%s", slash ? (int)(slash - from) : 0, from,
		     slash ? "/" : "", val) >= (int)sizeof joined)
		return "a path too long";
	for (const char *c = joined; *c;) {
		size_t n = strcspn(c, "/");
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (o == 0)
				return "a path that leaves the project";
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else if (n > 0 && !(n == 1 && c[0] == '.')) {
			if (o + n + 2 > len)
				return "a path too long";
			if (o > 0)
				out[o++] = '/';
			memcpy(out + o, c, n);
			o += n;
		}
		c += n;
		while (*c == '/')
			c++;
	}
	out[o] = '\0';
	return o == 0 ? "not a file" : NULL;
}

/* Add the files rel (under base) names with -r and -c to list, then
 * theirs: see contain_includes. */
static int
includes_of(const char *base, const char *rel, json_t *list, int depth, struct kd_err *err)
{
	static const char *const kinds[] = { "includes", "constraints" };
	char *p = fsutil_join(base, rel), *text = NULL;
	json_t *tree = NULL, *v;
	size_t len, i;
	int rc = 0;

	if (p == NULL || !fsutil_exists(p) ||
	    fsutil_read_file(p, KD_CAP_TEXT_FILE, &text, &len, NULL) != 0 ||
	    requirements_parse(text, len, rel, &tree, NULL) != 0)
		goto out;   /* not there or not text: the comparison says so */
	for (size_t k = 0; k < 2 && rc == 0; k++) {
		json_array_foreach(json_object_get(tree, kinds[k]), i, v) {
			const char *val = json_string_value(v), *why;
			char inc[PATH_MAX];
			int seen = 0;
			size_t j;
			json_t *w;

			if (val == NULL || strstr(val, "://") != NULL)
				continue;   /* a URL: the plan shows the line that names it */
			if ((why = include_path(rel, val, inc, sizeof inc)) != NULL) {
				rc = kd_err_set(err, KD_EINPUT, rel, 0,
						"%s names %s %s, %s: a dossier holds, and its replay "
						"reads, only files of the project (refusing)",
						rel, k ? "-c" : "-r", val, why);
				break;
			}
			json_array_foreach(list, j, w)
				seen |= strcmp(json_string_value(json_object_get(w, "path")), inc) == 0;
			if (seen || strcmp(inc, rel) == 0)
				continue;
			json_array_append_new(list, json_pack("{s:s, s:s, s:s}", "path", inc, "kind",
							      k ? "-c" : "-r", "from", rel));
			if (depth < KD_REQ_MAX_DEPTH &&
			    (rc = includes_of(base, inc, list, depth + 1, err)) != 0)
				break;
		}
	}
out:
	json_decref(tree);
	free(text);
	free(p);
	return rc;
}

int
contain_includes(const char *base, const char *rel, json_t **list, struct kd_err *err)
{
	int rc;

	*list = json_array();
	rc = includes_of(base, rel, *list, 0, err);
	if (rc != 0) {
		json_decref(*list);
		*list = NULL;
	}
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

/* The rebuild file's includes, as the dossier's copy and as the clone's
 * name them: none leaves the project or is a link, and each is the same
 * bytes in the clone as in the dossier (one the dossier lacks is refused). */
static int
same_includes(const char *workdir, const char *dossier,
	      void (*show)(void *u, const char *line), void *u, struct kd_err *err)
{
	char *dp = fsutil_join(dossier, "project");
	json_t *mine = NULL, *theirs = NULL, *v;
	size_t i;
	int rc;

	rc = dp == NULL ? KD_EENV : contain_includes(dp, "requirements-rebuild.txt", &mine, err);
	if (rc == 0)
		rc = contain_includes(workdir, "requirements-rebuild.txt", &theirs, err);
	if (rc == 0)
		json_array_extend(mine, theirs);
	json_array_foreach(mine, i, v) {
		const char *inc = json_string_value(json_object_get(v, "path"));
		if (rc == 0)
			rc = check_root(workdir, inc, 0, err);
		if (rc == 0)
			rc = same_copy(workdir, dossier, inc, 0, show, u, err);
	}
	json_decref(mine);
	json_decref(theirs);
	free(dp);
	return rc;
}

int
contain_check_copies(const char *workdir, const char *dossier, const json_t *ref,
		     void (*show)(void *u, const char *line), void *u, struct kd_err *err)
{
	const char *inv = yamlio_get_str(ref, "python.inventory");
	const char *ins = yamlio_get_str(ref, "python.inspect");
	int rc = same_copy(workdir, dossier, "requirements-rebuild.txt", 0, show, u, err);

	if (rc == 0)
		rc = same_includes(workdir, dossier, show, u, err);
	if (rc == 0 && inv != NULL && escapes(inv) == NULL)
		rc = same_copy(workdir, dossier, inv, 1, show, u, err);
	if (rc == 0 && ins != NULL && escapes(ins) == NULL)
		rc = same_copy(workdir, dossier, ins, 1, show, u, err);
	return rc;
}
