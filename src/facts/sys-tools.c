/*
 * sys-tools.c - compilers and build tools, each with its version.
 *
 * A tool is run only when it is found; nvcc is looked for in $CUDA_HOME
 * (then $CUDA_PATH), on PATH, then in /usr/local/cuda; hipcc in $ROCM_PATH,
 * on PATH, then in /opt/rocm.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernodeck/run.h"
#include "kernodeck/sys-query.h"
#include "kernodeck/sys-tools.h"
#include "kernodeck/sysinfo-util.h"

/* The first dotted number in text ("12.2.0"; "V12.4.131" gives
 * "12.4.131"), into out. */
static int
dotted_at(const char *text, char *out, size_t len)
{
	for (const char *p = text; p != NULL && *p != '\0'; p++) {
		if (!isdigit((unsigned char)*p))
			continue;
		if (p > text && isalnum((unsigned char)p[-1]) && p[-1] != 'V' && p[-1] != 'v')
			continue;
		if (p > text && isdigit((unsigned char)p[-1]))
			continue;
		size_t n = strspn(p, "0123456789.");
		while (n > 0 && p[n - 1] == '.')
			n--;
		if (memchr(p, '.', n) == NULL) {
			p += n;
			continue;
		}
		snprintf(out, len, "%.*s", (int)n, p);
		return 0;
	}
	return -1;
}

int
systools_parse_version(const char *tool, const char *text, char *out, size_t len,
		       char *release, size_t rlen)
{
	const char *p;

	if (text == NULL)
		return -1;
	if (release != NULL && rlen > 0)
		release[0] = '\0';
	if (strcmp(tool, "nvcc") == 0) {
		p = strstr(text, "release ");
		if (p == NULL)
			return -1;
		if (release != NULL)
			dotted_at(p + 8, release, rlen);
		const char *v = strstr(p, ", V");
		return dotted_at(v ? v + 3 : p + 8, out, len);
	}
	if (strcmp(tool, "hipcc") == 0) {
		p = strstr(text, "HIP version:");
		if (p == NULL)
			return -1;
		p += strlen("HIP version:");
		while (*p == ' ')
			p++;
		snprintf(out, len, "%.*s", (int)strcspn(p, " \r\n"), p);
		return *out ? 0 : -1;
	}
	if (strcmp(tool, "cmake") == 0) {
		p = strstr(text, "version ");
		return dotted_at(p ? p + 8 : text, out, len);
	}
	/* gcc -dumpfullversion, ninja --version: the number alone */
	return dotted_at(text, out, len) == 0 ? 0 :
	       (isdigit((unsigned char)*text) ? (snprintf(out, len, "%.*s",
			(int)strcspn(text, "\r\n"), text), 0) : -1);
}

/* The first of $var/bin/prog, PATH, fallback that is executable. */
static char *
find_tool(const char *prog, const char *var1, const char *var2, const char *fallback)
{
	const char *vars[] = { var1, var2 };

	for (size_t i = 0; i < 2; i++) {
		const char *v = vars[i] ? getenv(vars[i]) : NULL;
		if (v != NULL && *v != '\0') {
			char *p = sysinfo_fmt("%s/bin/%s", v, prog);
			if (p != NULL && access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
	char *p = run_which(prog);
	if (p != NULL)
		return p;
	if (fallback != NULL && access(fallback, X_OK) == 0)
		return strdup(fallback);
	return NULL;
}

/* each tool's query: its vector in sys-query.c (sysquery_argv) */
static const struct {
	const char *key, *parser, *var1, *var2, *fallback;
	enum sysquery q;
} tools[] = {
	{ "gcc", "gcc", NULL, NULL, NULL, SYSQ_GCC },
	{ "g++", "gcc", NULL, NULL, NULL, SYSQ_GXX },
	{ "nvcc", "nvcc", "CUDA_HOME", "CUDA_PATH", "/usr/local/cuda/bin/nvcc", SYSQ_NVCC },
	{ "hipcc", "hipcc", "ROCM_PATH", "HIP_PATH", "/opt/rocm/bin/hipcc", SYSQ_HIPCC },
	{ "cmake", "cmake", NULL, NULL, NULL, SYSQ_CMAKE },
	{ "ninja", "ninja", NULL, NULL, NULL, SYSQ_NINJA },
};
#define NTOOLS (sizeof tools / sizeof tools[0])

char *
systools_find(enum sysquery q)
{
	const char *const *av = sysquery_argv(q);

	for (size_t i = 0; i < NTOOLS; i++)
		if (tools[i].q == q)
			return find_tool(av[0], tools[i].var1, tools[i].var2, tools[i].fallback);
	return run_which(av[0]);
}

json_t *
systools_observe(void)
{
	json_t *t = json_object();
	struct sysinfo_job jobs[NTOOLS];
	char *paths[NTOOLS];
	size_t idx[NTOOLS], n = 0;
	const char *ch = getenv("CUDA_HOME");

	memset(jobs, 0, sizeof jobs);
	for (size_t i = 0; i < NTOOLS; i++) {
		const char *const *av = sysquery_argv(tools[i].q);
		paths[i] = systools_find(tools[i].q);
		if (paths[i] == NULL)
			continue;
		jobs[n].prog = paths[i];
		for (size_t k = 0; av[k] != NULL && k + 1 < sizeof jobs[n].argv / sizeof jobs[n].argv[0]; k++)
			jobs[n].argv[k] = av[k];
		jobs[n].timeout_s = sysinfo_timeout();
		idx[n++] = i;
	}
	sysinfo_run_jobs(jobs, n);
	for (size_t i = 0; i < NTOOLS; i++)
		if (paths[i] == NULL)
			json_object_set_new(t, tools[i].key, sysinfo_status(json_object(),
					    "missing", "not found on PATH"));
	for (size_t k = 0; k < n; k++) {
		size_t i = idx[k];
		char ver[64], rel[32];
		json_t *rec = jobs[k].rec;
		if (jobs[k].code == 0) {
			if (systools_parse_version(tools[i].parser, jobs[k].out, ver, sizeof ver,
						   rel, sizeof rel) == 0) {
				json_object_set_new(rec, "version", json_string(ver));
				if (rel[0] != '\0')
					json_object_set_new(rec, "release", json_string(rel));
			} else {
				sysinfo_status(rec, "failed", "no version in its output");
			}
		}
		if (strcmp(tools[i].key, "nvcc") == 0 && ch != NULL && *ch != '\0')
			json_object_set_new(rec, "cuda_home", json_string(ch));
		json_object_set_new(t, tools[i].key, rec);
		free(jobs[k].out);
		free(paths[i]);
	}
	/* keep the order of the table */
	json_t *sorted = json_object();
	for (size_t i = 0; i < NTOOLS; i++)
		json_object_set(sorted, tools[i].key, json_object_get(t, tools[i].key));
	json_decref(t);
	return sorted;
}
