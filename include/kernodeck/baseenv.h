/*
 * baseenv.h - a base environment for the rebuild (python.install.base):
 * a venv, a conda environment or an interpreter that already holds
 * packages (PyTorch from an HPC module, an admin's venv, Debian's
 * python3-torch), on which stage 3 layers its fresh .venv-rebuild.
 *
 * The mechanism, one and documented (doc/reference-format.md): the base's
 * interpreter makes the venv, and reports, through baseenv_query_py run by
 * the runner, its own package directories (sys.path without the standard
 * library, the script folder and the user site) and its distributions with
 * the directory each lives in.  Those directories are written, in the
 * base's order, one a line, into BASEENV_PTH in the new venv's
 * site-packages.  Python appends a .pth file's lines after the folder that
 * holds it, so the rebuilt packages come first and win over the base's;
 * the name sorts after the venv's other .pth files for the same reason.
 * A base that is itself a venv with system site packages reports the
 * system's folders too (Debian's python3-torch): the new venv reaches them
 * through the same file, with no --system-site-packages of its own.
 *
 * The base's inventory (canonical name==version and folder, sorted) has a
 * SHA-256: the rebuild stores it, and a base that changed since, moved or
 * went missing is a failing check naming the path.
 */
#ifndef KD_BASEENV_H
#define KD_BASEENV_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"

#define BASEENV_PTH       "zz-kernodeck-base.pth"
#define BASEENV_INVENTORY "base-inventory.txt"   /* under the kernodeck folder */
#define BASEENV_MARK      "KD-BASE "             /* the query's JSON line starts so */

/* The query, for `PY -s -c baseenv_query_py MODE`: MODE json (default)
 * prints BASEENV_MARK and one JSON object {executable, version, prefix,
 * purelib, site_dirs[], packages[{name, version, location}]}; dirs prints
 * the package folders one a line (procedure.sh's .pth); freeze prints
 * name==version lines (PEP 503 names), sorted as baseenv_freeze_text does. */
extern const char baseenv_query_py[];

struct baseenv {
	char *given;        /* python.install.base as written */
	char *path;         /* absolute (relative to the project folder) */
	char *python;       /* its interpreter */
	const char *kind;   /* "venv", "conda", "prefix" or "interpreter" */
	char *moved_from;   /* a venv whose files name another folder, or NULL */
};

/* Find the base's interpreter: PATH/bin/python3 (or bin/python) of a folder,
 * or PATH itself when it is an executable file.  KD_EINPUT naming the path
 * when it is missing, holds no interpreter or is not executable. */
int baseenv_locate(const char *project_dir, const char *given, struct baseenv *be,
		   struct kd_err *err);
void baseenv_free(struct baseenv *be);

/* What one run of the query reported. */
struct baseenv_query {
	json_t *obj;        /* the whole object (owned) */
	const json_t *site_dirs, *packages;
	const char *purelib, *version;
	char digest[65];    /* SHA-256 of the sorted inventory lines */
	size_t npackages;
};

/* Parse the query's output (the BASEENV_MARK line).  KD_EINPUT with the
 * reason when the line is missing or not the expected object; a folder
 * that is not absolute or holds a newline is refused. */
int baseenv_parse(const char *out, size_t len, struct baseenv_query *q, struct kd_err *err);
void baseenv_query_free(struct baseenv_query *q);

/* The .pth text naming the base's folders (malloc'd, *len set). */
char *baseenv_pth_text(const struct baseenv *be, const struct baseenv_query *q, size_t *len);
/* Write BASEENV_PTH into the venv's site-packages (purelib) atomically,
 * unless it already holds that text.  *path gets the file (malloc'd). */
int baseenv_write_pth(const char *purelib, const struct baseenv *be,
		      const struct baseenv_query *q, char **path, struct kd_err *err);
/* name==version lines of the base's inventory, sorted (malloc'd). */
char *baseenv_freeze_text(const struct baseenv_query *q, size_t *len);
/* The sorted "name==version" strings of an inventory, as a JSON array. */
json_t *baseenv_package_list(const struct baseenv_query *q);

/* Where each package of the rebuilt venv comes from, by the folder it
 * lives in: {rebuilt: [...], base: [...], system: [...]} of name==version,
 * `rebuilt` for the venv's own purelib, `base` for a folder of the base. */
json_t *baseenv_origins(const struct baseenv_query *venv, const struct baseenv_query *base);

/* Mark with "base": true the packages (objects with a "location", as pip
 * inspect's) that live in one of the base's folders; returns how many. */
size_t baseenv_label(json_t *pkgs, const json_t *site_dirs);

/* What changed between two package lists (arrays of name==version):
 * {added: [...], removed: [...]}. */
json_t *baseenv_diff(const json_t *was, const json_t *now);

/* PY -s -c QUERY json: the base environment's folders and packages, as an
 * argv.h vector (parsed by baseenv_parse). */
char **baseenv_query_argv(const char *python);

#endif
