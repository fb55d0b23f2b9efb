/*
 * venv.c - reading an existing virtual environment without running it.
 *
 * Three places remember where a venv was created: pyvenv.cfg's `command`
 * line (Python 3.11+), bin/activate's VIRTUAL_ENV assignment, and the
 * shebang of every pip-installed script in bin/.  The first one found that
 * names a folder is compared with where the venv is now.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kernodeck/argv.h"
#include "kernodeck/beneath.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/hash.h"
#include "kernodeck/paths.h"
#include "kernodeck/pep440.h"
#include "kernodeck/pipline.h"
#include "kernodeck/rebuild.h"
#include "kernodeck/venv.h"

#define VENV_CAP_CFG   (64u * 1024)   /* pyvenv.cfg, bin/activate */
#define VENV_MAX_SCRIPTS 64           /* bin/ entries looked at for shebangs */

static char *
trimmed_dup(const char *s, size_t n)
{
	pipline_trim(&s, &n);
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
		s++;
		n -= 2;
	}
	return pipline_dup(s, n);
}

/* key = value lines of pyvenv.cfg. */
static void
read_cfg(struct venv_info *vi, const char *text, size_t len)
{
	struct pipline_iter it;
	const char *l;
	size_t n;

	pipline_init(&it, text, len);
	while (pipline_next(&it, &l, &n)) {
		const char *eq = memchr(l, '=', n);
		if (eq == NULL)
			continue;
		const char *k = l;
		size_t kn = (size_t)(eq - l);
		pipline_trim(&k, &kn);
		char *v = trimmed_dup(eq + 1, (size_t)(l + n - eq - 1));
		char **slot = NULL;
		if (kn == 4 && strncmp(k, "home", 4) == 0)
			slot = &vi->home;
		else if ((kn == 7 && strncmp(k, "version", 7) == 0) ||
			 (kn == 12 && strncmp(k, "version_info", 12) == 0))
			slot = &vi->version;
		else if (kn == 10 && strncmp(k, "executable", 10) == 0)
			slot = &vi->executable;
		else if (kn == 7 && strncmp(k, "command", 7) == 0)
			slot = &vi->command;
		else if (kn == 28 && strncmp(k, "include-system-site-packages", 28) == 0)
			vi->system_site = v != NULL && strcasecmp(v, "true") == 0;
		if (slot != NULL && *slot == NULL) {
			*slot = v;
			v = NULL;
		}
		free(v);
	}
}

/* The folder of a venv from its interpreter path ".../V/bin/python3". */
static char *
venv_of_interpreter(const char *py, size_t n)
{
	const char *bin = NULL;

	for (size_t i = n; i > 4; i--)
		if (strncmp(py + i - 5, "/bin/", 5) == 0) {
			bin = py + i - 5;
			break;
		}
	if (bin == NULL || strncmp(bin + 5, "python", 6) != 0 || bin == py)
		return NULL;
	return pipline_dup(py, (size_t)(bin - py));
}

static void
set_recorded(struct venv_info *vi, char *path, const char *from)
{
	if (path == NULL || vi->recorded_path != NULL) {
		free(path);
		return;
	}
	vi->recorded_path = path;
	vi->recorded_from = strdup(from);
}

/* pyvenv.cfg: "command = /usr/bin/python3 -m venv [opts] /old/place". */
static void
from_command(struct venv_info *vi)
{
	const char *c = vi->command, *last = NULL;

	if (c == NULL)
		return;
	for (const char *p = c; *p; ) {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		last = p;
		p += strcspn(p, " ");
	}
	if (last != NULL && last[0] == '/')
		set_recorded(vi, pipline_dup(last, strcspn(last, " ")), "pyvenv.cfg command");
}

/* bin/activate: VIRTUAL_ENV="/old/place" (or '...'). */
static void
from_activate(struct venv_info *vi)
{
	char *p = fsutil_join(vi->path, "bin/activate"), *buf = NULL;
	struct pipline_iter it;
	const char *l;
	size_t len = 0, n;

	if (fsutil_read_file(p, VENV_CAP_CFG, &buf, &len, NULL) == 0) {
		pipline_init(&it, buf, len);
		while (pipline_next(&it, &l, &n)) {
			pipline_trim(&l, &n);
			if (n > 12 && strncmp(l, "VIRTUAL_ENV=", 12) == 0) {
				char *v = trimmed_dup(l + 12, n - 12);
				if (v != NULL && v[0] == '/') {
					set_recorded(vi, v, "bin/activate");
					break;
				}
				free(v);
			}
		}
	}
	free(buf);
	free(p);
}

/* Shebangs of scripts in bin/ ("#!/old/place/bin/python3"). */
static void
from_shebangs(struct venv_info *vi)
{
	char *bin = fsutil_join(vi->path, "bin");
	DIR *d = opendir(bin);
	struct dirent *de;
	int seen = 0;

	while (d != NULL && (de = readdir(d)) != NULL && seen < VENV_MAX_SCRIPTS &&
	       vi->recorded_path == NULL) {
		char *p, line[PATH_MAX + 3];
		FILE *fp;
		struct stat st;
		if (de->d_name[0] == '.' || strncmp(de->d_name, "python", 6) == 0 ||
		    strncmp(de->d_name, "activate", 8) == 0)
			continue;
		p = fsutil_join(bin, de->d_name);
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && (fp = fopen(p, "r")) != NULL) {
			seen++;
			if (fgets(line, sizeof line, fp) != NULL && strncmp(line, "#!", 2) == 0) {
				size_t n = strcspn(line + 2, " \r\n");
				char from[300];
				snprintf(from, sizeof from, "bin/%.200s shebang", de->d_name);
				set_recorded(vi, venv_of_interpreter(line + 2, n), from);
			}
			fclose(fp);
		}
		free(p);
	}
	if (d != NULL)
		closedir(d);
	free(bin);
}

/* Same folder?  Compared resolved when both exist, else as text. */
static int
same_dir(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	if (realpath(a, ra) != NULL && realpath(b, rb) != NULL)
		return strcmp(ra, rb) == 0;
	return strcmp(a, b) == 0;
}

int
venv_inspect(const char *dir, struct venv_info *vi, struct kd_err *err)
{
	struct stat st;
	char *cfg, *buf = NULL, *py, link[PATH_MAX], real[PATH_MAX];
	size_t len = 0;
	ssize_t ln;

	memset(vi, 0, sizeof *vi);
	vi->path = kd_abspath(dir);
	if (vi->path == NULL)
		return kd_err_sys(err, KD_EENV, dir, ENOMEM, "out of memory");
	if (lstat(vi->path, &st) != 0)
		return 0;
	vi->exists = 1;
	cfg = fsutil_join(vi->path, "pyvenv.cfg");
	if (fsutil_read_file(cfg, VENV_CAP_CFG, &buf, &len, NULL) == 0) {
		vi->is_venv = 1;
		read_cfg(vi, buf, len);
		hash_buffer(buf, len, vi->cfg_sha256);
	}
	free(buf);
	free(cfg);
	py = fsutil_join(vi->path, "bin/python");
	if ((ln = readlink(py, link, sizeof link - 1)) > 0) {
		link[ln] = '\0';
		vi->python_link = strdup(link);
	}
	if (realpath(py, real) != NULL)
		vi->python_real = strdup(real);
	free(py);
	from_command(vi);
	from_activate(vi);
	from_shebangs(vi);
	if (vi->recorded_path != NULL && !same_dir(vi->recorded_path, vi->path)) {
		char *oc = fsutil_join(vi->recorded_path, "pyvenv.cfg");
		vi->moved = 1;
		vi->copied = fsutil_exists(oc);
		free(oc);
	}
	return 0;
}

void
venv_info_free(struct venv_info *vi)
{
	free(vi->path);
	free(vi->home);
	free(vi->version);
	free(vi->executable);
	free(vi->command);
	free(vi->python_link);
	free(vi->python_real);
	free(vi->recorded_path);
	free(vi->recorded_from);
	memset(vi, 0, sizeof *vi);
}

static json_t *
jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *
venv_info_json(const struct venv_info *vi)
{
	return json_pack("{s:o, s:b, s:b, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:b, s:b}",
			 "path", jstr(vi->path), "exists", vi->exists, "is_venv", vi->is_venv,
			 "home", jstr(vi->home), "version", jstr(vi->version),
			 "executable", jstr(vi->executable),
			 "system_site_packages", vi->system_site,
			 "python_link", jstr(vi->python_link), "python_real", jstr(vi->python_real),
			 "recorded_path", jstr(vi->recorded_path),
			 "recorded_from", jstr(vi->recorded_from), "moved", vi->moved,
			 "copied", vi->copied);
}

int
venv_uses_python(const struct venv_info *vi, const char *python)
{
	char want[PATH_MAX], exe[PATH_MAX];

	if (python == NULL || realpath(python, want) == NULL)
		return 0;
	if (vi->python_real != NULL && strcmp(vi->python_real, want) == 0)
		return 1;
	/* bin/python copied (--copies): pyvenv.cfg's executable says which */
	if (vi->python_link == NULL && vi->executable != NULL &&
	    realpath(vi->executable, exe) != NULL && strcmp(exe, want) == 0)
		return 1;
	return 0;
}

int
venv_move_aside(const char *dir, char **newpath, struct kd_err *err)
{
	char stamp[32], suffix[64];
	time_t t = time(NULL);
	struct tm tm;
	char *to = NULL;
	struct kd_err be;

	*newpath = NULL;
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	for (int n = 0; n < 100; n++) {
		size_t len = strlen(dir) + sizeof suffix;
		free(to);
		to = malloc(len);
		if (to == NULL)
			return kd_err_sys(err, KD_EENV, dir, ENOMEM, "out of memory");
		if (n == 0)
			snprintf(suffix, sizeof suffix, ".aside-%s", stamp);
		else
			snprintf(suffix, sizeof suffix, ".aside-%s.%d", stamp, n);
		snprintf(to, len, "%s%s", dir, suffix);
		if (!fsutil_exists(to))
			break;
	}
	if (beneath_rename(dir, to, 0, &be) != 0) {
		free(to);
		if (be.code == KD_EINPUT)
			return kd_err_set(err, KD_EINPUT, dir, 0, "%s", be.msg);
		return kd_err_sys(err, KD_EENV, dir, be.errnum, "cannot move %s aside", dir);
	}
	*newpath = to;
	return 0;
}

/* See venv.h. */
char **
venv_create_argv(const char *python, int sys_site, int without_pip)
{
	const char *a = sys_site ? "--system-site-packages" : REBUILD_VENV;
	const char *b = !sys_site ? NULL : without_pip ? "--without-pip" : REBUILD_VENV;
	const char *c = sys_site && without_pip ? REBUILD_VENV : NULL;

	return argv_new(python, "-m", "venv", a, b, c, (const char *)NULL);
}

/* See venv.h. */
char **
venv_pip_argv(const char *vpy, enum venv_pip which)
{
	switch (which) {
	case VENV_PIP_VERSION:
		return argv_new(vpy, "-I", "-m", "pip", "--version", (const char *)NULL);
	case VENV_PIP_FREEZE:
		return argv_new(vpy, "-I", "-m", "pip", "freeze", "--all", (const char *)NULL);
	case VENV_PIP_INSPECT:
		return argv_new(vpy, "-I", "-m", "pip", "inspect", (const char *)NULL);
	case VENV_PIP_CHECK:
		return argv_new(vpy, "-I", "-m", "pip", "check", (const char *)NULL);
	}
	return NULL;
}

/* See venv.h. */
char **
venv_pip_install_argv(const char *vpy, const char *report, const char *lock,
		      const char *const *find_links)
{
	char **v = argv_new(vpy, "-I", "-m", "pip", "install", "--timeout", "15", "--retries",
			    "1", report ? "--report" : NULL, report, (const char *)NULL);
	const char *tail[] = { "--require-hashes", "--no-deps", "-r", lock };
	size_t n = argv_count(v), m = 0, i;
	char **w;

	while (find_links != NULL && find_links[m] != NULL)
		m++;
	if (v == NULL || (w = realloc(v, (n + 2 * m + 5) * sizeof *v)) == NULL) {
		argv_free(v);
		return NULL;
	}
	v = w;
	for (i = 0; i < m; i++) {
		v[n++] = strdup("--find-links");
		v[n++] = strdup(find_links[i]);
	}
	if (lock == NULL) {
		v[n++] = strdup("-r");
		v[n++] = strdup(REBUILD_REQUIREMENTS);
	} else {
		for (i = 0; i < 4; i++)
			v[n++] = strdup(tail[i]);
	}
	v[n] = NULL;
	for (i = 0; i < n; i++)
		if (v[i] == NULL) {
			v[n] = NULL;
			for (size_t k = i + 1; k < n; k++)
				free(v[k]);
			v[i] = NULL;
			argv_free(v);
			return NULL;
		}
	return v;
}

/* See venv.h. */
char **
venv_pip_direct_argv(const char *vpy, const char *report, const char *file)
{
	return report != NULL ?
	       argv_new(vpy, "-I", "-m", "pip", "install", "--timeout", "15", "--retries", "1",
			"--report", report, "--no-deps", "-r", file, (const char *)NULL) :
	       argv_new(vpy, "-I", "-m", "pip", "install", "--timeout", "15", "--retries", "1",
			"--no-deps", "-r", file, (const char *)NULL);
}

/* See venv.h. */
void
venv_direct_commit(const char *venv, const char *cn, char *out, size_t olen)
{
	char pat[PATH_MAX], c2[256];
	glob_t g;

	out[0] = '\0';
	snprintf(pat, sizeof pat, "%s/lib/python*/site-packages/*.dist-info/direct_url.json", venv);
	if (glob(pat, 0, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc && out[0] == '\0'; i++) {
		char *p = g.gl_pathv[i], *di = strrchr(p, '/'), *base, *text = NULL;
		const char *id;
		size_t n, len;
		json_t *j;
		*di = '\0';
		base = strrchr(p, '/') + 1;
		n = strcspn(base, "-");
		*di = '/';
		pep503_canonical_n(base, n, c2, sizeof c2);
		if (strcmp(c2, cn) != 0 || fsutil_read_file(p, 1u << 16, &text, &len, NULL) != 0)
			continue;
		j = json_loadb(text, len, 0, NULL);
		id = json_string_value(json_object_get(json_object_get(j, "vcs_info"), "commit_id"));
		snprintf(out, olen, "%s", id ? id : "(none)");
		json_decref(j);
		free(text);
	}
	globfree(&g);
}

/* See venv.h. */
char *
venv_report_path(const char *project_dir, const char *state_dir, const char *rel)
{
	size_t n = strlen(project_dir);
	char *abs = fsutil_join(state_dir, rel);

	if (abs != NULL && strncmp(abs, project_dir, n) == 0 && abs[n] == '/') {
		char *r = strdup(abs + n + 1);
		free(abs);
		return r;
	}
	return abs;
}

/* See venv.h. */
char *
venv_python(const char *project_dir)
{
	return fsutil_join(project_dir, REBUILD_VENV "/bin/python");
}
