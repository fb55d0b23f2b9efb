/*
 * sys-python.h - the interpreters of this machine and the one chosen for
 * the rebuild (--python, else the reference's path, else the first
 * python3.X on PATH with the reference's major.minor, else
 * /usr/bin/python3, else python3 on PATH).  sysinfo_choose_python (in
 * sysinfo.h) is implemented here.
 */
#ifndef KD_SYS_PYTHON_H
#define KD_SYS_PYTHON_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"

#define KD_CAP_SYS_PYTHONS 64   /* interpreters listed */

/* python3.X interpreters on PATH and in /usr/bin, /usr/local/bin, without
 * running them: [{path, version (from the name), realpath}]. */
json_t *syspython_available(void);
/* Run one interpreter once: {path, version, implementation, executable,
 * venv: true|false, venv_error?} or {status, reason} when it cannot run. */
json_t *syspython_query(const char *path);
/* "3.11" from "3.11.2", "3.11", "Python 3.11.2+": 0 when found. */
int syspython_major_minor(const char *version, char *out, size_t len);
/* The python section of the observations: {chosen {...query, reason},
 * available [...]}; *chosen gets the chosen path (malloc'd) or NULL. */
int syspython_observe(const json_t *ref, const char *override, json_t **out,
		      char **chosen, struct kd_err *err);

#endif
