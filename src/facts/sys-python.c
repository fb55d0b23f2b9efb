/*
 * sys-python.c - interpreters: which are there, which one the rebuild uses
 * and why, and whether it can create virtual environments.
 *
 * Listing reads directory entries only (a version comes from the name
 * python3.X); the chosen interpreter is run once (-I, isolated from the
 * environment) to learn its exact version, implementation and whether
 * `import venv, ensurepip` works (Debian splits ensurepip into python3-venv).
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/run.h"
#include "kernodeck/sys-python.h"
#include "kernodeck/sys-query.h"
#include "kernodeck/sysinfo-util.h"
#include "kernodeck/sysinfo.h"

/* Asks for version, implementation and executable, and whether the venv
 * and ensurepip modules are there (find_spec: cheaper than importing). */

int
syspython_major_minor(const char *v, char *out, size_t len)
{
	while (v != NULL && *v != '\0' && !isdigit((unsigned char)*v))
		v++;
	if (v == NULL || *v == '\0')
		return -1;
	const char *dot = strchr(v, '.');
	if (dot == NULL || !isdigit((unsigned char)dot[1]))
		return -1;
	size_t n = (size_t)(dot - v) + 1 + strspn(dot + 1, "0123456789");
	snprintf(out, len, "%.*s", (int)n, v);
	return 0;
}

/* The last component of path's real name (links followed; path itself
 * when it cannot be resolved), in real (PATH_MAX bytes). */
static const char *
real_name(const char *path, char real[PATH_MAX])
{
	const char *base;

	if (realpath(path, real) == NULL)
		snprintf(real, PATH_MAX, "%s", path);
	base = strrchr(real, '/');
	return base ? base + 1 : real;
}

/* "3.11" when the name (after resolving links) is python3.11. */
static int
version_from_name(const char *path, char *out, size_t len)
{
	char real[PATH_MAX];
	const char *base = real_name(path, real);

	if (strncmp(base, "python", 6) != 0 || !isdigit((unsigned char)base[6]))
		return -1;
	if (strspn(base + 6, "0123456789.") != strlen(base + 6))
		return -1;
	return syspython_major_minor(base + 6, out, len);
}

static int
is_exec_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* Is name "python3.N" exactly? */
static int
is_python3x(const char *name)
{
	if (strncmp(name, "python3.", 8) != 0 || name[8] == '\0')
		return 0;
	return strspn(name + 8, "0123456789") == strlen(name + 8);
}

static void
add_dir(json_t *list, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL && json_array_size(list) < KD_CAP_SYS_PYTHONS) {
		if (!is_python3x(e->d_name))
			continue;
		char *p = sysinfo_fmt("%s/%s", dir, e->d_name), real[PATH_MAX];
		int dup = 0;
		size_t i;
		json_t *v;
		if (realpath(p, real) == NULL)
			snprintf(real, sizeof real, "%s", p);
		/* /bin/python3.11 and /usr/bin/python3.11 are one interpreter */
		json_array_foreach(list, i, v) {
			const char *vp = json_string_value(json_object_get(v, "path"));
			const char *vr = json_string_value(json_object_get(v, "realpath"));
			if (strcmp(vp, p) == 0 || strcmp(vr ? vr : vp, real) == 0)
				dup = 1;
		}
		if (!dup && is_exec_file(p)) {
			json_t *py = json_pack("{s:s, s:s}", "path", p, "version", e->d_name + 6);
			if (strcmp(real, p) != 0)
				json_object_set_new(py, "realpath", json_string(real));
			json_array_append_new(list, py);
		}
		free(p);
	}
	closedir(d);
}

json_t *
syspython_available(void)
{
	json_t *list = json_array();
	const char *path = getenv("PATH");
	char *copy = strdup(path ? path : ""), *save = NULL;

	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
		if (*d == '/')
			add_dir(list, d);
	free(copy);
	add_dir(list, "/usr/local/bin");
	add_dir(list, "/usr/bin");
	return list;
}

json_t *
syspython_query(const char *path)
{
	const char *argv[6];
	char *out = NULL, impl[64], ver[64], exe[PATH_MAX];
	int code;
	json_t *rec;
	const char *kd;

	sysquery_python(path, argv);
	rec = sysinfo_run(path, argv, sysinfo_timeout(), &out, &code);
	kd = out ? strstr(out, "KD ") : NULL;

	if (code == 0 && kd != NULL &&
	    sscanf(kd, "KD %63s %63s %4095[^\n]", impl, ver, exe) == 3) {
		json_object_set_new(rec, "version", json_string(ver));
		if (strcmp(impl, "cpython") == 0)
			snprintf(impl, sizeof impl, "CPython");
		else if (strcmp(impl, "pypy") == 0)
			snprintf(impl, sizeof impl, "PyPy");
		json_object_set_new(rec, "implementation", json_string(impl));
		json_object_set_new(rec, "executable", json_string(exe));
		const char *v = strstr(out, "KDVENV ");
		if (v != NULL && strncmp(v + 7, "ok", 2) == 0) {
			json_object_set_new(rec, "venv", json_true());
		} else {
			json_object_set_new(rec, "venv", json_false());
			char mm[32];
			int n = v ? (int)strcspn(v + 7, "\n") : 0;
			json_object_set_new(rec, "venv_error", v == NULL ?
				json_string("no answer about venv") :
				syspython_major_minor(ver, mm, sizeof mm) == 0 ?
				json_sprintf("%.*s (on Debian or Ubuntu: apt-get install "
					     "python%s-venv)", n, v + 7, mm) :
				json_stringn(v + 7, (size_t)n));
		}
	} else if (code == 0) {
		sysinfo_status(rec, "failed", "it did not answer like a Python 3 interpreter");
	}
	free(out);
	return rec;
}

/* Is the program at path (its real name, links followed) named like a
 * Python interpreter (python..., pypy...)?  A reference comes from
 * someone else: what it names as the interpreter is run to ask its
 * version only when it is. */
static int
python_named(const char *path)
{
	char real[PATH_MAX];
	const char *base = real_name(path, real);

	return strncmp(base, "python", 6) == 0 || strncmp(base, "pypy", 4) == 0;
}

/* The version (major.minor) of an interpreter: from its name, else by
 * running it when it is named like a Python (python_named); -1 when it
 * is not, or gave none. */
static int
python_mm(const char *path, char *out, size_t len)
{
	if (version_from_name(path, out, len) == 0)
		return 0;
	if (!python_named(path))
		return -1;
	json_t *q = syspython_query(path);
	const char *v = json_string_value(json_object_get(q, "version"));
	int rc = v ? syspython_major_minor(v, out, len) : -1;
	json_decref(q);
	return rc;
}

/* The first interpreter on PATH (then /usr/bin) that is python{mm}, or a
 * python3/python whose link resolves to python{mm}. */
static char *
find_mm_on_path(const char *mm)
{
	const char *path = getenv("PATH");
	char *copy = sysinfo_fmt("%s:/usr/local/bin:/usr/bin", path ? path : ""), *save = NULL;
	char *found = NULL, got[32];

	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		if (*d != '/')
			continue;
		char *p = sysinfo_fmt("%s/python%s", d, mm);
		if (p != NULL && is_exec_file(p)) {
			found = p;
			break;
		}
		free(p);
		static const char *const names[] = { "python3", "python" };
		for (size_t i = 0; i < 2 && !found; i++) {
			p = sysinfo_fmt("%s/%s", d, names[i]);
			if (p != NULL && is_exec_file(p) &&
			    version_from_name(p, got, sizeof got) == 0 && strcmp(got, mm) == 0)
				found = p;
			else
				free(p);
		}
	}
	free(copy);
	return found;
}

int
sysinfo_choose_python(const json_t *ref, const char *override, char **path,
		      char **reason, struct kd_err *err)
{
	const json_t *py = json_object_get(ref, "python");
	const char *rpath = json_string_value(json_object_get(py, "interpreter"));
	const char *rver = json_string_value(json_object_get(py, "version"));
	char mm[32] = "", got[32] = "?";
	char *p;

	*path = NULL;
	*reason = NULL;
	if (override != NULL && *override != '\0') {
		p = strchr(override, '/') ? strdup(override) : run_which(override);
		if (p == NULL || !is_exec_file(p)) {
			free(p);
			return kd_err_set(err, KD_EINPUT, NULL, 0,
					  "--python %s: not found or not executable", override);
		}
		*path = p;
		*reason = strdup("given with --python");
		return 0;
	}
	if (rver != NULL)
		syspython_major_minor(rver, mm, sizeof mm);
	if (rpath != NULL && rpath[0] == '/' && is_exec_file(rpath)) {
		if (mm[0] == '\0' || (python_mm(rpath, got, sizeof got) == 0 &&
				      strcmp(got, mm) == 0)) {
			*path = strdup(rpath);
			*reason = strdup("the reference's interpreter, same path");
			return 0;
		}
	}
	if (mm[0] != '\0' && (p = find_mm_on_path(mm)) != NULL) {
		*path = p;
		*reason = rpath && rpath[0] == '/' && is_exec_file(rpath) && !python_named(rpath) ?
			sysinfo_fmt("the reference's %s is not named like a Python interpreter "
				    "(not run): first Python %s on PATH", rpath, mm) :
			rpath && is_exec_file(rpath) ?
			sysinfo_fmt("the reference's %s is Python %s here, not %s: first "
				    "Python %s on PATH", rpath, got, mm, mm) :
			sysinfo_fmt("first Python %s on PATH (the reference's version%s%s%s)",
				    mm, rpath ? "; " : "", rpath ? rpath : "",
				    rpath ? " is not on this machine" : "");
		return 0;
	}
	if (is_exec_file("/usr/bin/python3")) {
		*path = strdup("/usr/bin/python3");
	} else if ((p = run_which("python3")) != NULL) {
		*path = p;
	} else {
		return kd_err_set(err, KD_EENV, NULL, 0,
				  "no Python interpreter: neither /usr/bin/python3 nor python3 "
				  "on PATH (install python3, or give --python PATH)");
	}
	if (mm[0] != '\0')
		*reason = sysinfo_fmt("no Python %s on this machine (the reference's); "
				      "falling back to %s", mm, *path);
	else
		*reason = sysinfo_fmt("no interpreter in the reference; the default %s", *path);
	return 0;
}

int
syspython_observe(const json_t *ref, const char *override, json_t **out, char **chosen,
		  struct kd_err *err)
{
	json_t *py = json_object(), *q;
	char *path = NULL, *reason = NULL;
	struct kd_err le;
	int rc;

	*chosen = NULL;
	kd_err_clear(&le);
	json_object_set_new(py, "available", syspython_available());
	rc = sysinfo_choose_python(ref, override, &path, &reason, &le);
	if (rc != 0) {
		json_object_set_new(py, "chosen", sysinfo_status(json_object(), "missing", le.msg));
		if (err != NULL)
			*err = le;
		*out = py;
		return rc;
	}
	q = syspython_query(path);
	json_object_set_new(q, "path", json_string(path));
	json_object_set_new(q, "reason", json_string(reason));
	json_object_set_new(py, "chosen", q);
	*chosen = path;
	free(reason);
	*out = py;
	return 0;
}
