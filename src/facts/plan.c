/*
 * plan.c - the argument vectors of stages 3 to 6: see plan.h.
 *
 * Each builder copies its arguments into a vector it owns, so that the
 * stage that runs it and the plan that shows it hold the same strings.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/baseenv.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/plan.h"
#include "kernodeck/rebuild.h"
#include "kernodeck/redact.h"
#include "kernodeck/yamlio.h"

/* A vector of n copies of the NULL-ended list that follows; NULL when a
 * copy fails. */
static char **
vec(const char *first, ...)
{
	const char *items[32];
	size_t n = 0;
	char **v;
	va_list ap;

	va_start(ap, first);
	for (const char *s = first; s != NULL && n < 31; s = va_arg(ap, const char *))
		items[n++] = s;
	va_end(ap);
	if ((v = calloc(n + 1, sizeof *v)) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if ((v[i] = strdup(items[i])) == NULL) {
			plan_free(v);
			return NULL;
		}
	return v;
}

char **
plan_venv(const char *python, int sys_site, int without_pip)
{
	const char *a = sys_site ? "--system-site-packages" : REBUILD_VENV;
	const char *b = !sys_site ? NULL : without_pip ? "--without-pip" : REBUILD_VENV;
	const char *c = sys_site && without_pip ? REBUILD_VENV : NULL;

	return vec(python, "-m", "venv", a, b, c, (const char *)NULL);
}

char **
plan_pip(const char *vpy, enum plan_pip which)
{
	switch (which) {
	case PLAN_PIP_VERSION:
		return vec(vpy, "-I", "-m", "pip", "--version", (const char *)NULL);
	case PLAN_PIP_INSTALL:
		return vec(vpy, "-I", "-m", "pip", "install", "--timeout", "15", "--retries", "1",
			   "-r", REBUILD_REQUIREMENTS, (const char *)NULL);
	case PLAN_PIP_FREEZE:
		return vec(vpy, "-I", "-m", "pip", "freeze", "--all", (const char *)NULL);
	case PLAN_PIP_INSPECT:
		return vec(vpy, "-I", "-m", "pip", "inspect", (const char *)NULL);
	case PLAN_PIP_CHECK:
		return vec(vpy, "-I", "-m", "pip", "check", (const char *)NULL);
	}
	return NULL;
}

char **
plan_base_query(const char *python)
{
	return vec(python, "-s", "-c", baseenv_query_py, "json", (const char *)NULL);
}

char *
plan_venv_python(const char *project_dir)
{
	return fsutil_join(project_dir, REBUILD_VENV "/bin/python");
}

char **
plan_probe(const char *project_dir, const char *probe, const json_t *ref)
{
	const char *expect = yamlio_get_str(ref, "system.backend");
	const json_t *list = yamlio_get(ref, "compute.extensions"), *e;
	char **v = calloc(5 + 2 * PLAN_MAX_EXTS, sizeof *v);
	size_t i, n = 0, next = 0;
	int ok;

	if (v == NULL)
		return NULL;
	v[n++] = plan_venv_python(project_dir);
	v[n++] = strdup(probe ? probe : "probe.py");
	v[n++] = strdup("--expect");
	v[n++] = strdup(expect && *expect ? expect : "auto");
	json_array_foreach(list, i, e) {
		const char *mod = json_is_string(e) ? json_string_value(e)
				  : json_string_value(json_object_get(e, "module"));
		const char *call = json_string_value(json_object_get(e, "call"));
		size_t len;

		if (mod == NULL || *mod == '\0' || next >= PLAN_MAX_EXTS)
			continue;
		len = strlen(mod) + (call ? strlen(call) : 0) + 2;
		v[n++] = strdup("--ext");
		if ((v[n] = malloc(len)) != NULL)
			snprintf(v[n], len, "%s%s%s", mod, call && *call ? ":" : "",
				 call && *call ? call : "");
		n++;
		next++;
	}
	ok = 1;
	for (size_t k = 0; k < n; k++)
		ok = ok && v[k] != NULL;
	if (!ok) {
		for (size_t k = 0; k < n; k++)
			free(v[k]);
		free(v);
		return NULL;
	}
	return v;
}

/* An argument with ${NAME} (what `dossier --redact` writes in place of a
 * credential on the command line) gets the variable's value when it is
 * set, and the value is hidden wherever it would be shown or written
 * (redact_value_add); malloc'd.  An unset variable stays as written. */
static char *
expand_refs(const char *s)
{
	size_t cap = strlen(s) + 1, o = 0;
	char *out = strstr(s, "${") ? malloc(cap) : strdup(s);

	if (out == NULL || strstr(s, "${") == NULL)
		return out;
	while (*s) {
		const char *e = s[0] == '$' && s[1] == '{' ? strchr(s + 2, '}') : NULL;
		char name[128];
		const char *v = NULL;
		size_t n = e ? (size_t)(e - s - 2) : 0;
		if (e != NULL && n > 0 && n < sizeof name && strspn(s + 2, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789_") == n) {
			memcpy(name, s + 2, n);
			name[n] = '\0';
			if ((v = getenv(name)) != NULL)
				redact_value_add(name, v);
		}
		size_t vl = v ? strlen(v) : 1;
		if (o + vl + 1 > cap) {
			char *nb = realloc(out, cap = (o + vl + 1) * 2);
			if (nb == NULL) {
				free(out);
				return NULL;
			}
			out = nb;
		}
		if (v != NULL) {
			memcpy(out + o, v, vl);
			o += vl;
			s = e + 1;
		} else {
			out[o++] = *s++;
		}
	}
	out[o] = '\0';
	return out;
}

char **
plan_entry(const char *project_dir, const json_t *ep, int *uses_venv, const char **why)
{
	size_t i, n = 0;
	json_t *a;
	char **v;

	*uses_venv = 0;
	if (!json_is_array(ep) || json_array_size(ep) == 0) {
		*why = "code.entry_point is not declared as an argument vector ([python, main.py, ...])";
		return NULL;
	}
	if (json_array_size(ep) >= PLAN_MAX_ARGS) {
		*why = "code.entry_point has too many arguments";
		return NULL;
	}
	if ((v = calloc(json_array_size(ep) + 1, sizeof *v)) == NULL) {
		*why = "out of memory";
		return NULL;
	}
	json_array_foreach(ep, i, a) {
		const char *s = json_string_value(a);

		if (s == NULL) {
			*why = "every item of code.entry_point must be a string";
			plan_free(v);
			return NULL;
		}
		if (i == 0 && (strcmp(s, "python") == 0 || strcmp(s, "python3") == 0)) {
			v[n++] = plan_venv_python(project_dir);
			*uses_venv = 1;
		} else {
			v[n++] = expand_refs(s);
		}
		if (v[n - 1] == NULL) {
			*why = "out of memory";
			plan_free(v);
			return NULL;
		}
	}
	return v;
}

size_t
plan_count(char *const *argv)
{
	size_t n = 0;

	while (argv != NULL && argv[n] != NULL)
		n++;
	return n;
}

void
plan_free(char **argv)
{
	for (size_t i = 0; argv != NULL && argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}
