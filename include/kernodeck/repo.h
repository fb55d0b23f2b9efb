/*
 * repo.h - the project's git repository, read with libgit2.
 *
 * repo_inspect() answers what stage 1 records about the code: the full
 * commit id at HEAD, the branch (or detached), the tags pointing at HEAD,
 * the remote URL with any credentials stripped, the modified and untracked
 * files, and the submodules with the commit each has checked out.  It never
 * changes the repository.
 *
 * repo_ensure_excludes() keeps kernodeck's own folders out of the list of
 * untracked files by appending them, once, to .git/info/exclude (the
 * repository's private ignore file), never to a tracked .gitignore.
 *
 * The edge cases each give a clear message in err: not a git repository,
 * no commit yet, a repository owned by another user (libgit2 1.5 reports a
 * missing safe.directory config value; the message says so and gives the
 * `git config --global --add safe.directory` fix).
 */
#ifndef KD_REPO_H
#define KD_REPO_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"

#define KD_CAP_REPO_DIRTY    1000   /* modified/untracked files listed */
#define KD_CAP_REPO_TAGS     200    /* tags read at HEAD */
#define KD_CAP_REPO_SUBMODULES 200
#define KD_CAP_GIT_EXCLUDE   (1024u * 1024)  /* .git/info/exclude read back */

/* Why repo_inspect failed, beyond err (so a check can word its row). */
enum repo_problem {
	REPO_OK = 0,
	REPO_NOT_A_REPO,     /* no .git found from the folder upwards */
	REPO_EMPTY,          /* a repository without any commit */
	REPO_NOT_OWNED,      /* owned by another user: safe.directory */
	REPO_BARE,           /* no work tree */
	REPO_OTHER,
};

struct repo_file {
	char *path;          /* relative to the work tree */
	char *status;        /* "modified", "untracked", "deleted", "added", ... */
};

struct repo_submodule {
	char *path;
	char head[41];       /* commit recorded in the superproject ("" if none) */
	char wd[41];         /* commit checked out in its folder ("" if not) */
	int initialized;     /* its folder holds a checkout */
	int dirty;           /* new commits or modified content */
};

struct repo_info {
	enum repo_problem problem;
	char *workdir;       /* absolute, no trailing slash */
	char *gitdir;        /* absolute */
	char commit[41];
	char *branch;        /* NULL when detached */
	int detached;
	char **tags;         /* tags pointing at HEAD (annotated ones peeled) */
	size_t ntags;
	char *remote_name;   /* "origin", else the first remote, or NULL */
	char *remote_url;    /* credentials stripped, or NULL */
	int remote_had_credentials;
	int on_remote;       /* HEAD is on a remote-tracking branch: 1, not: 0,
				no remote-tracking branch at all: -1 */
	struct repo_file *dirty;
	size_t ndirty;
	int dirty_truncated; /* more than KD_CAP_REPO_DIRTY */
	struct repo_submodule *subs;
	size_t nsubs;
	char *superproject;  /* the work tree of the repository this one is a
				submodule of, or NULL */
};

/* Read the repository containing dir (searching upwards).  On failure
 * returns KD_EINPUT (or KD_EENV for a libgit2 failure unrelated to the
 * input) with err filled and ri->problem saying which case it was. */
int repo_inspect(const char *dir, struct repo_info *ri, struct kd_err *err);
void repo_info_free(struct repo_info *ri);
/* The observation tree saved under `code` in reference-obs.yaml. */
json_t *repo_info_to_json(const struct repo_info *ri);

/* Append each of patterns (folders like "/kernodeck/") that is not yet
 * there to the private exclude file of the repository containing dir.
 * Idempotent.  *added counts the lines appended.  A folder that is not a
 * git repository is not an error (returns 0, *added 0). */
int repo_ensure_excludes(const char *dir, const char *const *patterns, size_t n,
			 int *added, struct kd_err *err);

/* What a name given where a commit is needed stands for in the repository
 * of dir: "branch", "remote-branch", "tag", "commit" (an abbreviated or full
 * id) or NULL when it resolves to nothing.  full gets the commit id it
 * resolves to now ("" when none). */
const char *repo_classify_name(const char *dir, const char *name, char full[41]);

/* Does the tree of commit (a full id) in the repository of dir hold path
 * (absolute, or relative to base) as a file?  1 yes, 0 no (outside the work
 * tree counts as no), -1 when it cannot tell (no repository, no such
 * commit).  Reads the object database only: the work tree may be
 * elsewhere. */
int repo_has_path(const char *dir, const char *commit, const char *base, const char *path);

/* 1 when s is a full 40-hex (SHA-1) or 64-hex (SHA-256) object id. */
int repo_is_full_id(const char *s);

#endif
