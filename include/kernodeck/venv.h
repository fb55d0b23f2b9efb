/*
 * venv.h - an existing virtual environment: what made it, where it was
 * made, and moving it aside.
 *
 * A venv cannot be moved or copied: its scripts' shebangs, bin/activate
 * (VIRTUAL_ENV=...) and, since Python 3.11, pyvenv.cfg's `command` name the
 * folder it was created in.  venv_inspect() reads those and says whether
 * the venv is where it was made (moved: it is not; copied: it is not and
 * the original is still there), and which interpreter it runs (bin/python
 * followed to the real file, pyvenv.cfg's home/executable/version).
 * Nothing here deletes anything: an old venv is renamed aside with a UTC
 * timestamp.
 */
#ifndef KD_VENV_H
#define KD_VENV_H

#include <jansson.h>

#include "kernodeck/err.h"

struct venv_info {
	char *path;            /* absolute path examined */
	int exists;            /* something is there */
	int is_venv;           /* it holds a pyvenv.cfg */
	char *home, *version, *executable, *command;   /* pyvenv.cfg, or NULL */
	int system_site;       /* include-system-site-packages = true */
	char *python_link;     /* bin/python's link target, NULL when not a link */
	char *python_real;     /* bin/python resolved, NULL when missing/dangling */
	char *recorded_path;   /* the folder its files name, or NULL */
	char *recorded_from;   /* which file said so ("bin/activate", ...) */
	int moved;             /* recorded_path is not this folder */
	int copied;            /* moved, and the recorded folder still holds a venv */
	char cfg_sha256[65];   /* digest of pyvenv.cfg ("" when none) */
};

/* Examine dir.  0 (also when nothing is there: exists = 0). */
int venv_inspect(const char *dir, struct venv_info *vi, struct kd_err *err);
void venv_info_free(struct venv_info *vi);
json_t *venv_info_json(const struct venv_info *vi);
/* Does the venv run this interpreter (the same real file, or pyvenv.cfg's
 * executable resolving to it)?  1 yes, 0 no. */
int venv_uses_python(const struct venv_info *vi, const char *python);
/* Rename dir to DIR.aside-YYYYmmddTHHMMSSZ (a free name); *newpath gets
 * the new path (malloc'd).  KD_EENV when the rename fails. */
int venv_move_aside(const char *dir, char **newpath, struct kd_err *err);

/* The project venv's programs, as argv.h vectors (the stages run them,
 * replay's plan shows them): PY -m venv [--system-site-packages]
 * [--without-pip] .venv-rebuild. */
char **venv_create_argv(const char *python, int sys_site, int without_pip);
/* VPY -I -m pip ... (the isolated interpreter: the project is not on
 * sys.path). */
enum venv_pip {
	VENV_PIP_VERSION,   /* pip --version */
	VENV_PIP_FREEZE,    /* pip freeze --all */
	VENV_PIP_INSPECT,   /* pip inspect */
	VENV_PIP_CHECK,     /* pip check */
};
char **venv_pip_argv(const char *vpy, enum venv_pip which);
/* VPY -I -m pip install --timeout 15 --retries 1 --report REPORT then
 * -r requirements-rebuild.txt, or with lock (a hash-checking file, the
 * dossier's requirements-lock.txt) --require-hashes --no-deps -r LOCK:
 * exactly the locked artefacts, no resolution.  report is the path pip
 * writes its installation report to (venv_report_path), or NULL for a pip
 * before 22.2 (no --report).  find_links (NULL-ended, or NULL): the
 * folders given as --find-links before the requirements (a replay's
 * folders of the lock's artefacts from outside the project). */
char **venv_pip_install_argv(const char *vpy, const char *report, const char *lock,
			     const char *const *find_links);
/* VPY -I -m pip install --timeout 15 --retries 1 [--report REPORT]
 * --no-deps -r FILE: what the lock's hash-checking mode refuses (the
 * dossier's requirements-lock-direct.txt: VCS checkouts at their commit,
 * folders), installed after it. */
char **venv_pip_direct_argv(const char *vpy, const char *report, const char *file);
/* The commit of the distribution cn (a canonical name) installed in the
 * venv, from its VCS direct_url.json (vcs_info.commit_id), into out: ""
 * when no such distribution has a direct_url.json, "(none)" when it has
 * one without a commit. */
void venv_direct_commit(const char *venv, const char *cn, char *out, size_t olen);
/* The report's path as the install names it: REL under the kernodeck
 * folder, relative to the project folder when it is inside it (the
 * install runs there), else absolute (malloc'd). */
char *venv_report_path(const char *project_dir, const char *state_dir, const char *rel);
/* The project's interpreter, PROJECT/.venv-rebuild/bin/python (malloc'd). */
char *venv_python(const char *project_dir);

#endif
