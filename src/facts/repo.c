/*
 * repo.c - what stage 1 records about the code, read with libgit2.
 *
 * Every function opens the repository, reads what it needs and releases
 * everything at one `out:` label; nothing here writes to the repository
 * except repo_ensure_excludes(), which only appends kernodeck's own folders
 * to the private .git/info/exclude (through fsutil_write_atomic).
 *
 * libgit2 1.5 refuses a repository owned by another user, but the error it
 * leaves is "config value 'safe.directory' was not found" (the lookup that
 * failed, not the reason): repo_open() recognises it and says what it
 * means, with the git command that marks the folder safe.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pthread.h>

#include <git2.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/redact.h"
#include "kernodeck/repo.h"

/* libgit2 set up once for the process, not once a call: each set-up reads
 * the system's certificates (about 8 ms).  Each call still takes and
 * gives back its own reference (git_libgit2_init counts them); the one
 * taken here is given back at exit. */
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void
lib_release(void)
{
	git_libgit2_shutdown();
}

static void
lib_hold(void)
{
	if (git_libgit2_init() > 0)
		atexit(lib_release);
}

static void
lib_init(void)
{
	pthread_once(&lib_once, lib_hold);
	git_libgit2_init();
}

int
repo_is_full_id(const char *s)
{
	size_t n = 0;

	if (s == NULL)
		return 0;
	for (; s[n] != '\0'; n++)
		if (!isxdigit((unsigned char)s[n]) || isupper((unsigned char)s[n]))
			return 0;
	return n == 40 || n == 64;
}

static const char *
git_msg(void)
{
	const git_error *e = git_error_last();

	return e != NULL && e->message != NULL ? e->message : "unknown libgit2 error";
}

static char *
strip_slash(const char *p)
{
	char *s = strdup(p);
	size_t n;

	if (s == NULL)
		return NULL;
	n = strlen(s);
	while (n > 1 && s[n - 1] == '/')
		s[--n] = '\0';
	return s;
}

/* The nearest folder at or above dir holding a .git entry, for messages
 * about a repository libgit2 would not open (malloc'd, or a copy of dir). */
static char *
find_top(const char *dir)
{
	char cur[PATH_MAX], probe[PATH_MAX + 8];
	char *slash;

	if (realpath(dir, cur) == NULL)
		snprintf(cur, sizeof cur, "%s", dir);
	for (;;) {
		snprintf(probe, sizeof probe, "%s/.git", cur);
		if (fsutil_exists(probe))
			return strdup(cur);
		slash = strrchr(cur, '/');
		if (slash == NULL || slash == cur)
			break;
		*slash = '\0';
	}
	return strdup(dir);
}

/* Open the repository containing dir, turning libgit2's errors into the
 * messages the reference screen shows. */
static int
repo_open(git_repository **repop, const char *dir, enum repo_problem *problem,
	  struct kd_err *err)
{
	const git_error *e;
	char *top;
	struct stat st;
	int rc;

	*problem = REPO_OK;
	rc = git_repository_open_ext(repop, dir, 0, NULL);
	if (rc == 0)
		return 0;
	e = git_error_last();
	if (rc == GIT_EOWNER ||
	    (e != NULL && e->message != NULL && strstr(e->message, "safe.directory") != NULL)) {
		*problem = REPO_NOT_OWNED;
		top = find_top(dir);
		if (stat(top, &st) != 0)
			st.st_uid = (uid_t)-1;
		kd_err_set(err, KD_EINPUT, top, 0,
			   "the git repository %s belongs to another user (uid %ld, you are "
			   "uid %ld); libgit2 refuses to read it and reports this as a "
			   "missing 'safe.directory' config value.  If you trust this "
			   "folder, mark it safe with: git config --global --add "
			   "safe.directory %s", top, (long)st.st_uid, (long)geteuid(), top);
		free(top);
		return KD_EINPUT;
	}
	if (rc == GIT_ENOTFOUND) {
		*problem = REPO_NOT_A_REPO;
		return kd_err_set(err, KD_EINPUT, dir, 0,
				  "%s is not inside a git repository: the code cannot be "
				  "pinned to a commit (run `git init` and commit it, or "
				  "set code.repository to the folder holding the code)", dir);
	}
	*problem = REPO_OTHER;
	return kd_err_set(err, KD_EINPUT, dir, 0, "cannot open the git repository at %s: %s",
			  dir, git_msg());
}

static const char *
status_word(unsigned int f)
{
	if (f & GIT_STATUS_CONFLICTED)
		return "conflicted";
	if (f & GIT_STATUS_WT_NEW)
		return (f & GIT_STATUS_INDEX_NEW) ? "added" : "untracked";
	if (f & (GIT_STATUS_WT_DELETED | GIT_STATUS_INDEX_DELETED))
		return "deleted";
	if (f & (GIT_STATUS_WT_RENAMED | GIT_STATUS_INDEX_RENAMED))
		return "renamed";
	if (f & GIT_STATUS_WT_TYPECHANGE || f & GIT_STATUS_INDEX_TYPECHANGE)
		return "typechange";
	if (f & GIT_STATUS_INDEX_NEW)
		return "added";
	if (f & GIT_STATUS_WT_UNREADABLE)
		return "unreadable";
	return "modified";
}

/* Modified and untracked files (untracked folders as "dir/", like git
 * status), capped at KD_CAP_REPO_DIRTY. */
static int
read_status(git_repository *repo, struct repo_info *ri, struct kd_err *err)
{
	git_status_options so;
	git_status_list *list = NULL;
	size_t n, i;

	git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);

	so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_INCLUDE_UNREADABLE;
	if (git_status_list_new(&list, repo, &so) < 0)
		return kd_err_set(err, KD_EENV, ri->workdir, 0,
				  "cannot read the status of %s: %s", ri->workdir, git_msg());
	n = git_status_list_entrycount(list);
	ri->dirty = calloc(n < KD_CAP_REPO_DIRTY ? n + 1 : KD_CAP_REPO_DIRTY, sizeof *ri->dirty);
	if (ri->dirty == NULL) {
		git_status_list_free(list);
		return kd_err_sys(err, KD_EENV, NULL, ENOMEM, "status");
	}
	for (i = 0; i < n; i++) {
		const git_status_entry *s = git_status_byindex(list, i);
		const git_diff_delta *d;

		if (s == NULL || s->status == GIT_STATUS_CURRENT ||
		    (s->status & GIT_STATUS_IGNORED))
			continue;
		if (ri->ndirty == KD_CAP_REPO_DIRTY) {
			ri->dirty_truncated = 1;
			break;
		}
		d = s->index_to_workdir != NULL ? s->index_to_workdir : s->head_to_index;
		if (d == NULL)
			continue;
		ri->dirty[ri->ndirty].path = strdup(d->new_file.path ? d->new_file.path :
						    d->old_file.path);
		ri->dirty[ri->ndirty].status = strdup(status_word(s->status));
		ri->ndirty++;
	}
	git_status_list_free(list);
	return 0;
}

struct tag_walk {
	git_repository *repo;
	const git_oid *head;
	struct repo_info *ri;
};

static int
tag_cb(const char *name, git_oid *oid, void *payload)
{
	struct tag_walk *w = payload;
	git_object *obj = NULL, *peeled = NULL;
	const char *shortname = name;

	if (w->ri->ntags >= KD_CAP_REPO_TAGS)
		return 0;
	if (strncmp(name, "refs/tags/", 10) == 0)
		shortname = name + 10;
	if (git_object_lookup(&obj, w->repo, oid, GIT_OBJECT_ANY) == 0 &&
	    git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) == 0 &&
	    git_oid_equal(git_object_id(peeled), w->head))
		w->ri->tags[w->ri->ntags++] = strdup(shortname);
	git_object_free(peeled);
	git_object_free(obj);
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
read_remote(git_repository *repo, struct repo_info *ri)
{
	git_remote *r = NULL;
	git_strarray names = { 0 };
	const char *url;

	if (git_remote_lookup(&r, repo, "origin") != 0) {
		r = NULL;
		if (git_remote_list(&names, repo) == 0 && names.count > 0 &&
		    git_remote_lookup(&r, repo, names.strings[0]) != 0)
			r = NULL;
		git_strarray_dispose(&names);
	}
	if (r == NULL)
		return;
	ri->remote_name = strdup(git_remote_name(r));
	url = git_remote_url(r);
	if (url != NULL)
		ri->remote_url = redact_url(url, &ri->remote_had_credentials);
	git_remote_free(r);
}

/* Is HEAD's commit on some remote-tracking branch (the branch's commit or
 * an ancestor of it)?  -1 when the repository has none (never fetched). */
static int
head_on_remote(git_repository *repo, const char *commit)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	git_oid head;
	int found = 0, any = 0;

	if (git_oid_fromstr(&head, commit) != 0 ||
	    git_reference_iterator_glob_new(&it, repo, "refs/remotes/*") != 0)
		return -1;
	while (!found && git_reference_next(&ref, it) == 0) {
		git_object *o = NULL;
		if (git_reference_peel(&o, ref, GIT_OBJECT_COMMIT) == 0) {
			const git_oid *tip = git_object_id(o);
			any = 1;
			found = git_oid_equal(tip, &head) ||
				git_graph_descendant_of(repo, tip, &head) == 1;
			git_object_free(o);
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	return found ? 1 : any ? 0 : -1;
}

static int
sub_name_cb(git_submodule *sm, const char *name, void *payload)
{
	struct repo_info *ri = payload;

	(void)sm;
	if (ri->nsubs >= KD_CAP_REPO_SUBMODULES)
		return 0;
	ri->subs[ri->nsubs++].path = strdup(name);
	return 0;
}

/* Submodules: collected by name first (libgit2 advises against lookups
 * inside the walk), then each one's recorded and checked-out commits. */
static void
read_submodules(git_repository *repo, struct repo_info *ri)
{
	ri->subs = calloc(KD_CAP_REPO_SUBMODULES, sizeof *ri->subs);
	if (ri->subs == NULL)
		return;
	if (git_submodule_foreach(repo, sub_name_cb, ri) != 0) {
		git_error_clear();
		return;
	}
	for (size_t i = 0; i < ri->nsubs; i++) {
		struct repo_submodule *s = &ri->subs[i];
		git_submodule *sm = NULL;
		unsigned int st = 0;
		const git_oid *id;

		if (s->path == NULL || git_submodule_lookup(&sm, repo, s->path) != 0)
			continue;
		if ((id = git_submodule_head_id(sm)) != NULL)
			git_oid_tostr(s->head, sizeof s->head, id);
		if ((id = git_submodule_wd_id(sm)) != NULL)
			git_oid_tostr(s->wd, sizeof s->wd, id);
		free(s->path);
		s->path = strdup(git_submodule_path(sm));
		if (git_submodule_status(&st, repo, git_submodule_name(sm),
					 GIT_SUBMODULE_IGNORE_NONE) == 0) {
			s->initialized = !(st & GIT_SUBMODULE_STATUS_WD_UNINITIALIZED) &&
				!(st & GIT_SUBMODULE_STATUS_WD_DELETED);
			s->dirty = (st & (GIT_SUBMODULE_STATUS_WD_MODIFIED |
					  GIT_SUBMODULE_STATUS_WD_INDEX_MODIFIED |
					  GIT_SUBMODULE_STATUS_WD_WD_MODIFIED |
					  GIT_SUBMODULE_STATUS_INDEX_MODIFIED)) != 0;
		}
		git_submodule_free(sm);
	}
}

/* Is this work tree a submodule of a repository above it? */
static void
read_superproject(struct repo_info *ri)
{
	git_repository *sup = NULL;
	git_submodule *sm = NULL;
	char parent[PATH_MAX];
	const char *swd;
	char *slash;
	size_t n;

	snprintf(parent, sizeof parent, "%s", ri->workdir);
	slash = strrchr(parent, '/');
	if (slash == NULL || slash == parent)
		return;
	*slash = '\0';
	if (git_repository_open_ext(&sup, parent, 0, NULL) != 0) {
		git_error_clear();
		return;
	}
	swd = git_repository_workdir(sup);
	n = swd != NULL ? strlen(swd) : 0;
	if (n > 0 && strncmp(ri->workdir, swd, n) == 0 &&
	    git_submodule_lookup(&sm, sup, ri->workdir + n) == 0) {
		ri->superproject = strip_slash(swd);
		git_submodule_free(sm);
	}
	git_error_clear();
	git_repository_free(sup);
}

int
repo_inspect(const char *dir, struct repo_info *ri, struct kd_err *err)
{
	git_repository *repo = NULL;
	git_reference *head = NULL;
	const git_oid *oid;
	int rc;

	memset(ri, 0, sizeof *ri);
	lib_init();
	rc = repo_open(&repo, dir, &ri->problem, err);
	if (rc != 0)
		goto out;
	if (git_repository_is_bare(repo) || git_repository_workdir(repo) == NULL) {
		ri->problem = REPO_BARE;
		rc = kd_err_set(err, KD_EINPUT, dir, 0,
				"%s is a bare git repository: it has no work tree to run", dir);
		goto out;
	}
	ri->workdir = strip_slash(git_repository_workdir(repo));
	ri->gitdir = strip_slash(git_repository_path(repo));
	if (git_repository_head_unborn(repo) == 1) {
		ri->problem = REPO_EMPTY;
		rc = kd_err_set(err, KD_EINPUT, ri->workdir, 0,
				"the git repository %s has no commit yet: commit the code "
				"(git add, git commit) so it can be pinned", ri->workdir);
		goto out;
	}
	if (git_repository_head(&head, repo) != 0 ||
	    (oid = git_reference_target(head)) == NULL) {
		ri->problem = REPO_OTHER;
		rc = kd_err_set(err, KD_EINPUT, ri->workdir, 0,
				"cannot resolve HEAD in %s: %s", ri->workdir, git_msg());
		goto out;
	}
	git_oid_tostr(ri->commit, sizeof ri->commit, oid);
	ri->detached = git_repository_head_detached(repo) == 1;
	if (!ri->detached)
		ri->branch = strdup(git_reference_shorthand(head));
	ri->tags = calloc(KD_CAP_REPO_TAGS, sizeof *ri->tags);
	if (ri->tags != NULL) {
		struct tag_walk w = { repo, oid, ri };

		if (git_tag_foreach(repo, tag_cb, &w) != 0)
			git_error_clear();
		qsort(ri->tags, ri->ntags, sizeof *ri->tags, cmp_str);
	}
	read_remote(repo, ri);
	ri->on_remote = ri->remote_name != NULL && ri->commit[0] ? head_on_remote(repo, ri->commit)
			: -1;
	read_submodules(repo, ri);
	rc = read_status(repo, ri, err);
	if (rc != 0)
		goto out;
	read_superproject(ri);
out:
	git_reference_free(head);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return rc;
}

void
repo_info_free(struct repo_info *ri)
{
	size_t i;

	free(ri->workdir);
	free(ri->gitdir);
	free(ri->branch);
	for (i = 0; i < ri->ntags; i++)
		free(ri->tags[i]);
	free(ri->tags);
	free(ri->remote_name);
	free(ri->remote_url);
	for (i = 0; i < ri->ndirty; i++) {
		free(ri->dirty[i].path);
		free(ri->dirty[i].status);
	}
	free(ri->dirty);
	for (i = 0; i < ri->nsubs; i++)
		free(ri->subs[i].path);
	free(ri->subs);
	free(ri->superproject);
	memset(ri, 0, sizeof *ri);
}

static json_t *
str_or_null(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

json_t *
repo_info_to_json(const struct repo_info *ri)
{
	json_t *o = json_object(), *a;
	size_t i;

	json_object_set_new(o, "workdir", str_or_null(ri->workdir));
	json_object_set_new(o, "commit", ri->commit[0] ? json_string(ri->commit) : json_null());
	json_object_set_new(o, "branch", str_or_null(ri->branch));
	json_object_set_new(o, "detached", json_boolean(ri->detached));
	a = json_array();
	for (i = 0; i < ri->ntags; i++)
		json_array_append_new(a, json_string(ri->tags[i]));
	json_object_set_new(o, "tags", a);
	json_object_set_new(o, "remote_name", str_or_null(ri->remote_name));
	json_object_set_new(o, "remote", str_or_null(ri->remote_url));
	json_object_set_new(o, "remote_had_credentials", json_boolean(ri->remote_had_credentials));
	json_object_set_new(o, "on_remote_branch", ri->on_remote < 0 ? json_null()
			    : json_boolean(ri->on_remote));
	a = json_array();
	for (i = 0; i < ri->ndirty; i++)
		json_array_append_new(a, json_pack("{s:s?, s:s?}", "path", ri->dirty[i].path,
						   "status", ri->dirty[i].status));
	json_object_set_new(o, "dirty", a);
	json_object_set_new(o, "dirty_truncated", json_boolean(ri->dirty_truncated));
	a = json_array();
	for (i = 0; i < ri->nsubs; i++) {
		const struct repo_submodule *s = &ri->subs[i];

		json_array_append_new(a, json_pack("{s:s?, s:s, s:s, s:b, s:b}",
						   "path", s->path, "recorded", s->head,
						   "checked_out", s->wd,
						   "initialized", s->initialized,
						   "dirty", s->dirty));
	}
	json_object_set_new(o, "submodules", a);
	json_object_set_new(o, "superproject", str_or_null(ri->superproject));
	return o;
}

/* Lexically normalise an absolute path ("a/./b/../c" -> "a/c") in place. */
static void
normalise(char *p)
{
	char *out = p, *s = p;

	while (*s != '\0') {
		char *e;
		size_t n;

		while (*s == '/')
			s++;
		if (*s == '\0')
			break;
		e = strchr(s, '/');
		n = e != NULL ? (size_t)(e - s) : strlen(s);
		if (n == 1 && s[0] == '.') {
			/* skip */
		} else if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (out > p && *(out - 1) != '/')
				out--;
			if (out > p)
				out--;
		} else {
			*out++ = '/';
			memmove(out, s, n);
			out += n;
		}
		s += n;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/* Absolute, symlink-resolved form of path (relative to base) even when its
 * last parts do not exist yet: the longest existing prefix is resolved. */
static int
resolve_loose(const char *base, const char *path, char out[PATH_MAX])
{
	char buf[PATH_MAX], head[PATH_MAX];
	size_t cut;

	if (path[0] == '/')
		snprintf(buf, sizeof buf, "%s", path);
	else if (snprintf(buf, sizeof buf, "%s/%s", base, path) >= (int)sizeof buf)
		return -1;
	normalise(buf);
	cut = strlen(buf);
	for (;;) {
		memcpy(head, buf, cut);
		head[cut] = '\0';
		if (realpath(cut > 0 ? head : "/", out) != NULL) {
			size_t n = strlen(out), rest = strlen(buf + cut);

			if (n == 1 && buf[cut] == '/')
				n = 0;       /* "/" + "/x" */
			if (n + rest >= PATH_MAX)
				return -1;
			memcpy(out + n, buf + cut, rest + 1);
			return 0;
		}
		while (cut > 0 && buf[cut - 1] != '/')
			cut--;
		if (cut == 0)
			return -1;
		cut--;
	}
}

/* Is `line` (one line of the exclude file, without its newline) exactly
 * pattern, ignoring trailing blanks? */
static int
has_line(const char *text, size_t len, const char *pattern)
{
	size_t plen = strlen(pattern), i = 0;

	while (i < len) {
		const char *l = text + i, *nl = memchr(l, '\n', len - i);
		size_t n = nl != NULL ? (size_t)(nl - l) : len - i;
		size_t m = n;

		while (m > 0 && (l[m - 1] == ' ' || l[m - 1] == '\t' || l[m - 1] == '\r'))
			m--;
		if (m == plen && memcmp(l, pattern, plen) == 0)
			return 1;
		i += n + 1;
	}
	return 0;
}

int
repo_ensure_excludes(const char *dir, const char *const *folders, size_t n,
		     int *added, struct kd_err *err)
{
	static const char header[] = "# kernodeck's own folders (added by kernodeck)\n";
	git_repository *repo = NULL;
	enum repo_problem problem;
	char *path = NULL, *old = NULL, *text = NULL, *infodir = NULL;
	size_t oldlen = 0, len, cap;
	char wd[PATH_MAX], abs[PATH_MAX], pat[PATH_MAX + 4];
	const char *common;
	int rc, nadd = 0;

	*added = 0;
	lib_init();
	rc = repo_open(&repo, dir, &problem, err);
	if (rc != 0) {
		if (problem == REPO_NOT_A_REPO)
			rc = 0;
		goto out;
	}
	if (git_repository_workdir(repo) == NULL ||
	    realpath(git_repository_workdir(repo), wd) == NULL)
		goto out;
	common = git_repository_commondir(repo);
	infodir = fsutil_join(common, "info");
	path = fsutil_join(infodir, "exclude");
	if (infodir == NULL || path == NULL) {
		rc = kd_err_sys(err, KD_EENV, NULL, ENOMEM, "exclude");
		goto out;
	}
	if (fsutil_exists(path)) {
		rc = fsutil_read_file(path, KD_CAP_GIT_EXCLUDE, &old, &oldlen, err);
		if (rc != 0)
			goto out;
	}
	cap = oldlen + sizeof header + 2 + n * (PATH_MAX + 8);
	text = malloc(cap);
	if (text == NULL) {
		rc = kd_err_sys(err, KD_EENV, path, ENOMEM, "exclude");
		goto out;
	}
	memcpy(text, old != NULL ? old : "", oldlen);
	len = oldlen;
	for (size_t i = 0; i < n; i++) {
		size_t wl = strlen(wd), pl;

		if (resolve_loose(dir, folders[i], abs) != 0)
			continue;
		/* only folders inside the work tree (not the tree itself) */
		if (strncmp(abs, wd, wl) != 0 || abs[wl] != '/' || abs[wl + 1] == '\0')
			continue;
		snprintf(pat, sizeof pat, "%s/", abs + wl);
		if (has_line(text, len, pat))
			continue;
		if (nadd == 0) {
			if (len > 0 && text[len - 1] != '\n')
				text[len++] = '\n';
			if (!has_line(text, len, "# kernodeck's own folders (added by kernodeck)")) {
				memcpy(text + len, header, sizeof header - 1);
				len += sizeof header - 1;
			}
		}
		pl = strlen(pat);
		memcpy(text + len, pat, pl);
		len += pl;
		text[len++] = '\n';
		nadd++;
	}
	if (nadd > 0) {
		rc = fsutil_mkdirs(infodir, err);
		/* RAW: the file is the user's; keep their lines byte for byte */
		if (rc == 0)
			rc = fsutil_write_atomic(path, text, len, FSUTIL_RAW, err);
	}
	if (rc == 0)
		*added = nadd;
out:
	free(text);
	free(old);
	free(path);
	free(infodir);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return rc;
}

int
repo_has_path(const char *dir, const char *commit, const char *base, const char *path)
{
	git_repository *repo = NULL;
	git_object *obj = NULL;
	git_tree *tree = NULL;
	git_tree_entry *ent = NULL;
	enum repo_problem problem;
	char abs[PATH_MAX], top[PATH_MAX];
	const char *wd;
	size_t n;
	int rc = -1;

	lib_init();
	if (commit == NULL || path == NULL || repo_open(&repo, dir, &problem, NULL) != 0 ||
	    (wd = git_repository_workdir(repo)) == NULL || realpath(wd, top) == NULL ||
	    resolve_loose(base, path, abs) != 0)
		goto out;
	if (git_revparse_single(&obj, repo, commit) != 0 ||
	    git_object_peel((git_object **)&tree, obj, GIT_OBJECT_TREE) != 0)
		goto out;
	n = strlen(top);
	if (strncmp(abs, top, n) != 0 || abs[n] != '/' || abs[n + 1] == '\0') {
		rc = 0;
		goto out;
	}
	rc = git_tree_entry_bypath(&ent, tree, abs + n + 1) == 0 &&
		git_tree_entry_type(ent) == GIT_OBJECT_BLOB;
out:
	git_error_clear();
	git_tree_entry_free(ent);
	git_tree_free(tree);
	git_object_free(obj);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return rc;
}

const char *
repo_classify_name(const char *dir, const char *name, char full[41])
{
	git_repository *repo = NULL;
	git_reference *ref = NULL;
	git_object *obj = NULL, *peeled = NULL;
	enum repo_problem problem;
	const char *kind = NULL;

	full[0] = '\0';
	if (name == NULL || *name == '\0')
		return NULL;
	lib_init();
	if (repo_open(&repo, dir, &problem, NULL) != 0)
		goto out;
	if (git_reference_dwim(&ref, repo, name) == 0) {
		if (git_reference_is_branch(ref))
			kind = "branch";
		else if (git_reference_is_remote(ref))
			kind = "remote-branch";
		else if (git_reference_is_tag(ref))
			kind = "tag";
		else
			kind = "reference";
		if (git_reference_peel(&peeled, ref, GIT_OBJECT_COMMIT) == 0)
			git_oid_tostr(full, 41, git_object_id(peeled));
		goto out;
	}
	if (git_revparse_single(&obj, repo, name) == 0 &&
	    git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) == 0) {
		kind = "commit";
		git_oid_tostr(full, 41, git_object_id(peeled));
	}
out:
	git_error_clear();
	git_object_free(peeled);
	git_object_free(obj);
	git_reference_free(ref);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return kind;
}
