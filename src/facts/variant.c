/*
 * variant.c - which PyTorch build the rebuild plans, and whether this
 * machine can run it.
 *
 * The plan comes from the rebuild file: a local label on the torch pin
 * (torch==2.3.0+cu121) first, then a wheel named in a direct URL, then the
 * index the file names (--index-url / --extra-index-url ending in cpu,
 * cuXXX or rocmX.Y), then torch wheels in a local --find-links folder, and
 * last the wheels PyPI serves for that release.  A file without a torch
 * line, in a project whose reference installs with system site packages,
 * takes torch from the system.  -r includes are followed one level.  (The
 * rebuild stage's full parser is src/formats/parse-requirements.c; this reader only
 * needs the torch line and the package sources.)
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/caps.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/obs-system.h"
#include "kernodeck/redact.h"
#include "kernodeck/sysinfo.h"
#include "kernodeck/variant.h"

/* ------------------------------------------------------------ versions */

int
variant_vercmp(const char *a, const char *b)
{
	while (*a || *b) {
		unsigned long x = strtoul(a, (char **)&a, 10);
		unsigned long y = strtoul(b, (char **)&b, 10);
		if (x != y)
			return x < y ? -1 : 1;
		while (*a && !isdigit((unsigned char)*a))
			a++;
		while (*b && !isdigit((unsigned char)*b))
			b++;
	}
	return 0;
}

/* "12.1" from "12.1.105" (major.minor) into out. */
static void
major_minor(const char *v, char *out, size_t len)
{
	const char *dot = strchr(v, '.');
	size_t n = dot ? (size_t)(dot - v) + 1 + strspn(dot + 1, "0123456789") : strlen(v);

	snprintf(out, len, "%.*s", (int)n, v);
}

int
variant_cuda_of_tag(const char *tag, char *out, size_t len)
{
	size_t n;

	if (strncmp(tag, "cu", 2) != 0)
		return -1;
	n = strspn(tag + 2, "0123456789");
	if (n < 2 || n > 3 || tag[2 + n] != '\0')
		return -1;
	snprintf(out, len, "%.*s.%c", (int)n - 1, tag + 2, tag[2 + n - 1]);
	return 0;
}

/*
 * Minimum Linux x86_64 driver of each CUDA release (the GA release of each
 * minor version): NVIDIA CUDA Toolkit Release Notes, Table 3 "CUDA Toolkit
 * and Corresponding Driver Versions",
 * https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html
 * And the minor-version compatibility rule: from CUDA 11 on, an application
 * built with any 11.x (12.x, 13.x) runs on a driver of at least the family
 * minimum (11.x: 450.80.02, 12.x: 525.60.13, 13.x: 580.65.06): "CUDA Minor
 * Version Compatibility", Table 1,
 * https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html
 */
static const struct {
	const char *cuda, *driver;
} cuda_drivers[] = {
	{ "8.0", "367.48" }, { "9.0", "384.81" }, { "9.1", "390.46" },
	{ "9.2", "396.26" }, { "10.0", "410.48" }, { "10.1", "418.39" },
	{ "10.2", "440.33" }, { "11.0", "450.36.06" }, { "11.1", "455.23" },
	{ "11.2", "460.27.03" }, { "11.3", "465.19.01" }, { "11.4", "470.42.01" },
	{ "11.5", "495.29.05" }, { "11.6", "510.39.01" }, { "11.7", "515.43.04" },
	{ "11.8", "520.61.05" }, { "12.0", "525.60.13" }, { "12.1", "530.30.02" },
	{ "12.2", "535.54.03" }, { "12.3", "545.23.06" }, { "12.4", "550.54.14" },
	{ "12.5", "555.42.02" }, { "12.6", "560.28.03" }, { "12.8", "570.26" },
	{ "12.9", "575.51.03" }, { "13.0", "580.65.06" },
};
static const struct {
	const char *major, *driver;
} cuda_compat[] = {
	{ "11", "450.80.02" }, { "12", "525.60.13" }, { "13", "580.65.06" },
};
#define NCUDA (sizeof cuda_drivers / sizeof cuda_drivers[0])

const char *
variant_cuda_min_driver(const char *cuda)
{
	char mm[32];

	major_minor(cuda, mm, sizeof mm);
	for (size_t i = 0; i < NCUDA; i++)
		if (strcmp(cuda_drivers[i].cuda, mm) == 0)
			return cuda_drivers[i].driver;
	return NULL;
}

const char *
variant_cuda_compat_min(const char *cuda)
{
	size_t n = strcspn(cuda, ".");

	for (size_t i = 0; i < sizeof cuda_compat / sizeof cuda_compat[0]; i++)
		if (strlen(cuda_compat[i].major) == n && strncmp(cuda, cuda_compat[i].major, n) == 0)
			return cuda_compat[i].driver;
	return NULL;
}

int
variant_driver_runs(const char *driver, const char *cuda)
{
	const char *nat = variant_cuda_min_driver(cuda);
	const char *fam = variant_cuda_compat_min(cuda);

	if (nat == NULL && fam == NULL)
		return -1;
	if (nat != NULL && variant_vercmp(driver, nat) >= 0)
		return 1;
	if (fam != NULL && variant_vercmp(driver, fam) >= 0)
		return 2;
	if (nat == NULL) {
		/* a minor version newer than the table: only the family rule */
		return -1;
	}
	return 0;
}

void
variant_driver_native_max(const char *driver, char *out, size_t len)
{
	out[0] = '\0';
	for (size_t i = 0; i < NCUDA; i++)
		if (variant_vercmp(driver, cuda_drivers[i].driver) >= 0)
			snprintf(out, len, "%s", cuda_drivers[i].cuda);
}

void
variant_driver_span(const char *driver, char *out, size_t len)
{
	char nat[16];
	const char *fam_major = NULL;

	variant_driver_native_max(driver, nat, sizeof nat);
	for (size_t i = 0; i < sizeof cuda_compat / sizeof cuda_compat[0]; i++)
		if (variant_vercmp(driver, cuda_compat[i].driver) >= 0)
			fam_major = cuda_compat[i].major;
	if (nat[0] == '\0') {
		snprintf(out, len, "no CUDA version of the table (older than CUDA 8.0)");
		return;
	}
	if (fam_major != NULL && strncmp(nat, fam_major, strlen(fam_major)) == 0 &&
	    nat[strlen(fam_major)] == '.')
		snprintf(out, len, "CUDA %s.x (%s natively, later %s.x through minor-version "
			 "compatibility)", fam_major, nat, fam_major);
	else
		snprintf(out, len, "CUDA up to %s", nat);
}

/* ------------------------------------------------------ torch releases */

/*
 * Python versions and wheel variants of each torch release: PyTorch's
 * "Release Compatibility Matrix",
 * https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix
 * (experimental Python versions that have wheels are included), the index
 * variants from https://pytorch.org/get-started/previous-versions/, and
 * the CUDA of the default Linux x86_64 wheels on PyPI.
 */
static const struct torch_release {
	const char *torch, *py_min, *py_max, *cuda_tags, *rocm_tags, *pypi_cuda;
} torch_releases[] = {
	{ "1.7", "3.6", "3.9", "cu92 cu101 cu102 cu110", "", "10.2" },
	{ "1.8", "3.6", "3.9", "cu101 cu102 cu111", "rocm3.10 rocm4.0.1", "10.2" },
	{ "1.9", "3.6", "3.9", "cu102 cu111", "rocm4.0.1 rocm4.1 rocm4.2", "10.2" },
	{ "1.10", "3.6", "3.9", "cu102 cu111 cu113", "rocm4.1 rocm4.2", "10.2" },
	{ "1.11", "3.7", "3.10", "cu102 cu113 cu115", "rocm4.3.1 rocm4.5.2", "10.2" },
	{ "1.12", "3.7", "3.10", "cu102 cu113 cu116", "rocm5.0 rocm5.1.1", "10.2" },
	{ "1.13", "3.7", "3.10", "cu116 cu117", "rocm5.1.1 rocm5.2", "11.7" },
	{ "2.0", "3.8", "3.11", "cu117 cu118", "rocm5.3 rocm5.4.2", "11.7" },
	{ "2.1", "3.8", "3.11", "cu118 cu121", "rocm5.5 rocm5.6", "12.1" },
	{ "2.2", "3.8", "3.12", "cu118 cu121", "rocm5.6 rocm5.7", "12.1" },
	{ "2.3", "3.8", "3.12", "cu118 cu121", "rocm5.7 rocm6.0", "12.1" },
	{ "2.4", "3.8", "3.12", "cu118 cu121 cu124", "rocm6.0 rocm6.1", "12.1" },
	{ "2.5", "3.9", "3.13", "cu118 cu121 cu124", "rocm6.1 rocm6.2", "12.4" },
	{ "2.6", "3.9", "3.13", "cu118 cu124 cu126", "rocm6.1 rocm6.2.4", "12.4" },
	{ "2.7", "3.9", "3.13", "cu118 cu126 cu128", "rocm6.2.4 rocm6.3", "12.6" },
	{ "2.8", "3.9", "3.13", "cu126 cu128 cu129", "rocm6.3 rocm6.4", "12.8" },
	{ "2.9", "3.10", "3.14", "cu126 cu128 cu130", "rocm6.3 rocm6.4", "12.8" },
	{ "2.10", "3.10", "3.14", "cu126 cu128 cu130", "rocm7.0 rocm7.1", "12.8" },
	{ "2.11", "3.10", "3.14", "cu126 cu128 cu130", "rocm7.1 rocm7.2", NULL },
};
#define NTORCH (sizeof torch_releases / sizeof torch_releases[0])

static const struct torch_release *
torch_release(const char *torch)
{
	char mm[32];

	if (torch == NULL)
		return NULL;
	major_minor(torch, mm, sizeof mm);
	for (size_t i = 0; i < NTORCH; i++)
		if (strcmp(torch_releases[i].torch, mm) == 0)
			return &torch_releases[i];
	return NULL;
}

int
variant_python_ok(const char *torch, const char *python, char *range, size_t len)
{
	const struct torch_release *r = torch_release(torch);
	char mm[32];

	if (range != NULL && len > 0)
		range[0] = '\0';
	if (r == NULL || python == NULL)
		return -1;
	if (range != NULL)
		snprintf(range, len, "%s-%s", r->py_min, r->py_max);
	major_minor(python, mm, sizeof mm);
	return variant_vercmp(mm, r->py_min) >= 0 && variant_vercmp(mm, r->py_max) <= 0;
}

const char *
variant_pypi_cuda(const char *torch)
{
	const struct torch_release *r = torch_release(torch);

	return r ? r->pypi_cuda : NULL;
}

const char *
variant_cuda_tags(const char *torch)
{
	const struct torch_release *r = torch_release(torch);

	return r ? r->cuda_tags : NULL;
}

const char *
variant_rocm_tags(const char *torch)
{
	const struct torch_release *r = torch_release(torch);

	return r ? r->rocm_tags : NULL;
}

/* --------------------------------------------------- reading the plan */

#define KD_VARIANT_INCLUDES 8     /* -r files followed */

/* The variant tag in an index URL: its last path part when that is cpu,
 * cuXXX or rocmX.Y ("https://download.pytorch.org/whl/nightly/cu121/"). */
static int
tag_of_url(const char *url, char *out, size_t len)
{
	char buf[1024];
	size_t n;
	char cuda[16];

	snprintf(buf, sizeof buf, "%s", url);
	n = strlen(buf);
	while (n > 0 && buf[n - 1] == '/')
		buf[--n] = '\0';
	const char *last = strrchr(buf, '/');
	last = last ? last + 1 : buf;
	if (strcmp(last, "cpu") == 0 || strncmp(last, "cpu-", 4) == 0 ||
	    strcmp(last, "cpu_pypi_pkg") == 0 ||
	    variant_cuda_of_tag(last, cuda, sizeof cuda) == 0 ||
	    (strncmp(last, "rocm", 4) == 0 && isdigit((unsigned char)last[4]))) {
		snprintf(out, len, "%s", strncmp(last, "cpu", 3) == 0 ? "cpu" : last);
		return 0;
	}
	return -1;
}

/* Fill kind, cuda, rocm of a plan from a tag. */
static void
plan_set_tag(json_t *plan, const char *tag, const char *source)
{
	char cuda[16];

	json_object_set_new(plan, "tag", json_string(tag));
	json_object_set_new(plan, "source", json_string(source));
	if (strcmp(tag, "cpu") == 0) {
		json_object_set_new(plan, "kind", json_string("cpu"));
	} else if (variant_cuda_of_tag(tag, cuda, sizeof cuda) == 0) {
		json_object_set_new(plan, "kind", json_string("cuda"));
		json_object_set_new(plan, "cuda", json_string(cuda));
	} else if (strncmp(tag, "rocm", 4) == 0) {
		json_object_set_new(plan, "kind", json_string("rocm"));
		json_object_set_new(plan, "rocm", json_string(tag + 4));
	}
}

/* Is the requirement on this line torch?  Then its spec follows at *rest. */
static int
is_torch_line(const char *l, const char **rest)
{
	if (strncasecmp(l, "torch", 5) != 0)
		return 0;
	const char *p = l + 5;
	if (isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.')
		return 0;   /* torchvision, torch-geometric, torch_scatter */
	while (*p == ' ')
		p++;
	if (*p == '[') {
		p = strchr(p, ']');
		if (p == NULL)
			return 0;
		p++;
	}
	*rest = p;
	return 1;
}

/* version and local label from the spec of a torch line. */
static void
torch_spec(json_t *t, const char *spec)
{
	char buf[512], *semi;
	const char *p;

	snprintf(buf, sizeof buf, "%s", spec);
	semi = strchr(buf, ';');
	if (semi != NULL) {
		json_object_set_new(t, "marker", json_string(sysinfo_trim(semi + 1)));
		*semi = '\0';
	}
	sysinfo_trim(buf);
	json_object_set_new(t, "spec", json_string(buf));
	if ((p = strstr(buf, "@")) != NULL) {
		/* torch @ https://.../torch-2.3.0%2Bcu121-cp311-...whl */
		const char *f = strrchr(p, '/');
		f = f ? f + 1 : p + 1;
		if (strncmp(f, "torch-", 6) == 0) {
			const char *v = f + 6;
			size_t n = strcspn(v, "-");
			char ver[128];
			snprintf(ver, sizeof ver, "%.*s", (int)n, v);
			char *plus = strstr(ver, "%2B");
			if (plus == NULL)
				plus = strstr(ver, "%2b");
			if (plus != NULL) {
				memmove(plus + 1, plus + 3, strlen(plus + 3) + 1);
				*plus = '+';
			}
			plus = strchr(ver, '+');
			if (plus != NULL) {
				json_object_set_new(t, "local", json_string(plus + 1));
				*plus = '\0';
			}
			json_object_set_new(t, "version", json_string(ver));
			json_object_set_new(t, "from_url", json_true());
		}
		return;
	}
	p = buf;
	while (*p == ' ')
		p++;
	int exact = strncmp(p, "===", 3) == 0 ? 3 : strncmp(p, "==", 2) == 0 ? 2 :
		    strncmp(p, "~=", 2) == 0 ? 2 : 0;
	if (exact == 0 || strchr(p, ',') != NULL)
		return;     /* a range, or nothing: the release is not known */
	p += exact;
	while (*p == ' ')
		p++;
	char ver[128];
	snprintf(ver, sizeof ver, "%.*s", (int)strcspn(p, " "), p);
	char *plus = strchr(ver, '+');
	if (plus != NULL) {
		json_object_set_new(t, "local", json_string(plus + 1));
		*plus = '\0';
	}
	char *star = strstr(ver, ".*");
	if (star != NULL)
		*star = '\0';
	json_object_set_new(t, "version", json_string(ver));
	json_object_set_new(t, "pinned", json_boolean(exact != 0 && strncmp(p - exact, "~=", 2)
						      && star == NULL));
}

/* An option's value: "--index-url URL", "--index-url=URL", "-i URL". */
static const char *
option_value(const char *l, const char *longname, const char *shortname)
{
	size_t n = strlen(longname);

	if (strncmp(l, longname, n) == 0 && (l[n] == ' ' || l[n] == '=' || l[n] == '\t'))
		l += n + 1;
	else if (shortname != NULL && strncmp(l, shortname, strlen(shortname)) == 0 &&
		 (l[strlen(shortname)] == ' ' || l[strlen(shortname)] == '\t'))
		l += strlen(shortname) + 1;
	else
		return NULL;
	while (*l == ' ' || *l == '\t' || *l == '=')
		l++;
	return l;
}

struct reader {
	json_t *plan, *indexes, *links, *files;
	int depth;
};

static void read_text(struct reader *r, const char *text, size_t len, const char *name,
		      const char *base_dir);

static void
read_include(struct reader *r, const char *rel, const char *base_dir)
{
	char *path = rel[0] == '/' || base_dir == NULL ? strdup(rel) : fsutil_join(base_dir, rel);
	char *buf = NULL;
	size_t len = 0;
	struct kd_err err;

	if (path == NULL || r->depth >= 1 || json_array_size(r->files) >= KD_VARIANT_INCLUDES) {
		free(path);
		return;     /* shallow: one level of -r */
	}
	if (fsutil_read_file(path, KD_CAP_TEXT_FILE, &buf, &len, &err) == 0) {
		char *dir = strdup(path), *slash = strrchr(dir, '/');
		if (slash != NULL)
			*slash = '\0';
		r->depth++;
		read_text(r, buf, len, path, slash ? dir : base_dir);
		r->depth--;
		free(dir);
	}
	free(buf);
	free(path);
}

/* One logical line (continuations joined, comment removed). */
static void
read_line(struct reader *r, char *l, const char *name, int lineno, const char *base_dir)
{
	const char *v, *rest;

	sysinfo_trim(l);
	if (*l == '\0')
		return;
	if ((v = option_value(l, "--index-url", "-i")) != NULL ||
	    (v = option_value(l, "--extra-index-url", NULL)) != NULL) {
		char *red = redact_url(v, NULL);
		json_array_append_new(r->indexes, json_string(red ? red : v));
		free(red);
		return;
	}
	if ((v = option_value(l, "--find-links", "-f")) != NULL) {
		json_array_append_new(r->links, json_string(v));
		return;
	}
	if ((v = option_value(l, "--requirement", "-r")) != NULL) {
		read_include(r, v, base_dir);
		return;
	}
	if (*l == '-')
		return;
	if (is_torch_line(l, &rest) && json_object_get(r->plan, "torch") == NULL) {
		json_t *t = json_object();
		json_object_set_new(t, "line", json_string(l));
		json_object_set_new(t, "file", json_string(name));
		json_object_set_new(t, "line_no", json_integer(lineno));
		torch_spec(t, rest);
		json_object_set_new(r->plan, "torch", t);
	}
}

static void
read_text(struct reader *r, const char *text, size_t len, const char *name,
	  const char *base_dir)
{
	char *buf = malloc(len + 1), logical[KD_CAP_LINE];
	size_t ll = 0;
	int lineno = 0, start = 0;

	if (buf == NULL)
		return;
	json_array_append_new(r->files, json_string(name));
	memcpy(buf, text, len);
	buf[len] = '\0';
	for (char *p = buf; p != NULL;) {
		char *nl = strchr(p, '\n');
		if (nl != NULL)
			*nl = '\0';
		lineno++;
		if (ll == 0)
			start = lineno;
		/* a comment starts with # at the line start or after a blank */
		for (char *h = strchr(p, '#'); h != NULL; h = strchr(h + 1, '#'))
			if (h == p || h[-1] == ' ' || h[-1] == '\t') {
				*h = '\0';
				break;
			}
		size_t n = strlen(p);
		while (n > 0 && (p[n - 1] == '\r' || p[n - 1] == ' '))
			p[--n] = '\0';
		int cont = n > 0 && p[n - 1] == '\\';
		if (cont)
			p[--n] = '\0';
		if (ll + n + 1 < sizeof logical) {
			memcpy(logical + ll, p, n);
			ll += n;
			logical[ll] = '\0';
		}
		if (!cont) {
			read_line(r, logical, name, start, base_dir);
			ll = 0;
			logical[0] = '\0';
		}
		p = nl ? nl + 1 : NULL;
	}
	if (ll > 0)
		read_line(r, logical, name, start, base_dir);
	free(buf);
}

/* A torch wheel in a local --find-links folder: its local label. */
static int
tag_from_links(const json_t *links, const char *base_dir, char *tag, size_t len,
	       char *where, size_t wlen)
{
	size_t i;
	json_t *v;

	json_array_foreach(links, i, v) {
		const char *l = json_string_value(v);
		if (strstr(l, "://") != NULL && strncmp(l, "file://", 7) != 0)
			continue;
		if (strncmp(l, "file://", 7) == 0)
			l += 7;
		char *dir = l[0] == '/' || base_dir == NULL ? strdup(l) : fsutil_join(base_dir, l);
		DIR *d = dir ? opendir(dir) : NULL;
		struct dirent *e;
		while (d != NULL && (e = readdir(d)) != NULL) {
			if (strncmp(e->d_name, "torch-", 6) != 0)
				continue;
			const char *plus = strchr(e->d_name, '+');
			const char *dash = strchr(e->d_name + 6, '-');
			if (plus != NULL && dash != NULL && plus < dash) {
				snprintf(tag, len, "%.*s", (int)(dash - plus - 1), plus + 1);
				snprintf(where, wlen, "%s", e->d_name);
				closedir(d);
				free(dir);
				return 0;
			}
		}
		if (d != NULL)
			closedir(d);
		free(dir);
	}
	return -1;
}

/* Decide kind/tag/cuda/rocm/source from what was read. */
static void
plan_decide(json_t *plan, const char *base_dir)
{
	const json_t *t = json_object_get(plan, "torch");
	const char *local = json_string_value(json_object_get(t, "local"));
	const char *ver = json_string_value(json_object_get(t, "version"));
	const json_t *idx = json_object_get(plan, "index_urls");
	char tag[64], where[512], buf[1200];
	size_t i;
	json_t *v;

	if (t == NULL) {
		json_object_set_new(plan, "kind", json_string("none"));
		json_object_set_new(plan, "source", json_string("no torch line in the rebuild file"));
		return;
	}
	if (local != NULL) {
		snprintf(tag, sizeof tag, "%s", local);
		snprintf(buf, sizeof buf, "%s +%s on the torch %s", json_is_true(json_object_get(t,
			 "from_url")) ? "wheel file name" : "local label", local,
			 json_is_true(json_object_get(t, "from_url")) ? "URL" : "pin");
		plan_set_tag(plan, tag, buf);
		if (json_object_get(plan, "kind") != NULL)
			return;
	}
	json_array_foreach(idx, i, v) {
		if (tag_of_url(json_string_value(v), tag, sizeof tag) == 0) {
			snprintf(buf, sizeof buf, "index %s", json_string_value(v));
			plan_set_tag(plan, tag, buf);
			return;
		}
	}
	if (tag_from_links(json_object_get(plan, "find_links"), base_dir, tag, sizeof tag,
			   where, sizeof where) == 0) {
		snprintf(buf, sizeof buf, "wheel %s in --find-links", where);
		plan_set_tag(plan, tag, buf);
		if (json_object_get(plan, "kind") != NULL)
			return;
	}
	if (json_array_size(idx) > 0) {
		json_object_set_new(plan, "kind", json_string("unknown"));
		json_object_set_new(plan, "source", json_string(
			"an index that does not name a PyTorch variant"));
		return;
	}
	const char *pc = variant_pypi_cuda(ver);
	if (pc != NULL) {
		json_object_set_new(plan, "kind", json_string("cuda"));
		json_object_set_new(plan, "cuda", json_string(pc));
		json_object_set_new(plan, "source", json_sprintf("PyPI: torch %s wheels for "
			"Linux x86_64 are built with CUDA %s", ver, pc));
		return;
	}
	json_object_set_new(plan, "kind", json_string("unknown"));
	json_object_set_new(plan, "source", json_string(ver ?
		"PyPI, a torch release kernodeck does not know" :
		"PyPI, torch not pinned: the build depends on the release pip picks"));
}

json_t *
variant_plan_parse(const char *text, size_t len, const char *name, const char *base_dir)
{
	struct reader r;

	memset(&r, 0, sizeof r);
	r.plan = json_object();
	r.indexes = json_array();
	r.links = json_array();
	r.files = json_array();
	json_object_set_new(r.plan, "file", json_string(name));
	read_text(&r, text, len, name, base_dir);
	json_object_set_new(r.plan, "index_urls", r.indexes);
	json_object_set_new(r.plan, "find_links", r.links);
	json_object_set_new(r.plan, "files", r.files);
	plan_decide(r.plan, base_dir);
	return r.plan;
}

/* Debian's python3-torch and the like: torch-VERSION.egg-info or
 * .dist-info in the system's dist-packages. */
static void
system_torch(json_t *plan)
{
	static const char *const dirs[] = { "/usr/lib/python3/dist-packages",
					    "/usr/local/lib/python3/dist-packages" };

	for (size_t i = 0; i < 2; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;
		while (d != NULL && (e = readdir(d)) != NULL) {
			if (strncmp(e->d_name, "torch-", 6) != 0 ||
			    (!strstr(e->d_name, ".egg-info") && !strstr(e->d_name, ".dist-info")))
				continue;
			json_object_set_new(plan, "system_torch", json_sprintf("%.*s in %s",
				(int)strcspn(e->d_name + 6, "-"), e->d_name + 6, dirs[i]));
			break;
		}
		if (d != NULL)
			closedir(d);
	}
}

json_t *
variant_plan_read(const char *project_dir, const json_t *ref)
{
	char *path = fsutil_join(project_dir, "requirements-rebuild.txt");
	char *buf = NULL;
	size_t len = 0;
	struct kd_err err;
	json_t *plan;
	int ssp = json_is_true(json_object_get(json_object_get(json_object_get(ref, "python"),
							"install"), "system_site_packages"));

	if (path == NULL || fsutil_read_file(path, KD_CAP_TEXT_FILE, &buf, &len, &err) != 0) {
		plan = json_object();
		json_object_set_new(plan, "file", json_string("requirements-rebuild.txt"));
		json_object_set_new(plan, "kind", json_string(ssp ? "system" : "missing"));
		json_object_set_new(plan, "source", json_string(
			path && !fsutil_exists(path) ? "no requirements-rebuild.txt in the project" :
			err.msg));
		if (ssp)
			system_torch(plan);
		free(path);
		return plan;
	}
	plan = variant_plan_parse(buf, len, "requirements-rebuild.txt", project_dir);
	if (ssp && strcmp(json_string_value(json_object_get(plan, "kind")), "none") == 0) {
		json_object_set_new(plan, "kind", json_string("system"));
		json_object_set_new(plan, "source", json_string(
			"no torch line, and the reference installs with system site packages"));
		system_torch(plan);
	}
	free(buf);
	free(path);
	return plan;
}

/* ----------------------------------------------------------- judging */

static void
problem(json_t *v, const char *status, const char *rule, const char *message, const char *fits)
{
	json_t *p = json_pack("{s:s, s:s, s:s}", "status", status, "rule", rule, "message", message);

	if (fits != NULL)
		json_object_set_new(p, "fits", json_string(fits));
	json_array_append_new(json_object_get(v, "problems"), p);
}

/* The cuXXX tags of a torch release (or of every release) that a driver
 * runs, as "cu118 or cu117". */
static void
fitting_cuda(const char *torch, const char *driver, char *out, size_t len)
{
	const char *tags = variant_cuda_tags(torch);
	char copy[256], *save = NULL, cuda[16];
	size_t o = 0;

	out[0] = '\0';
	if (tags == NULL)
		tags = "cu118 cu121 cu124 cu126 cu128 cu130";
	snprintf(copy, sizeof copy, "%s", tags);
	/* newest first */
	char *v[16];
	size_t n = 0;
	for (char *t = strtok_r(copy, " ", &save); t && n < 16; t = strtok_r(NULL, " ", &save))
		v[n++] = t;
	while (n-- > 0) {
		if (variant_cuda_of_tag(v[n], cuda, sizeof cuda) == 0 &&
		    variant_driver_runs(driver, cuda) > 0) {
			int w = snprintf(out + o, len - o, "%s%s", o ? " or " : "", v[n]);
			if (w < 0 || (size_t)w >= len - o)
				break;
			o += (size_t)w;
		}
	}
}

static void
judge_cuda(json_t *v, const json_t *plan, const json_t *obs)
{
	const char *cuda = json_string_value(json_object_get(plan, "cuda"));
	const char *tag = json_string_value(json_object_get(plan, "tag"));
	const char *torch = json_string_value(json_object_get(json_object_get(plan, "torch"),
							      "version"));
	const char *vendor = obs_system_gpu_vendor(obs);
	const char *drv = obs_system_driver_version(obs);
	const char *dvendor = obs_system_driver_vendor(obs);
	char planned[64], msg[1024], span[256], fits[128];

	if (tag != NULL)
		snprintf(planned, sizeof planned, "%s", tag);
	else
		snprintf(planned, sizeof planned, "a CUDA %s wheel", cuda ? cuda : "?");
	if (vendor == NULL || strcmp(vendor, "nvidia") != 0) {
		snprintf(msg, sizeof msg, "the plan is %s (a CUDA build) but this machine has no "
			 "NVIDIA GPU (%s); use the cpu variant%s", planned,
			 vendor && strcmp(vendor, "none") ? vendor : "no GPU",
			 vendor && strcmp(vendor, "amd") == 0 ? ", or a rocm one" : "");
		problem(v, "fail", "cuda-needs-nvidia", msg, "cpu");
		return;
	}
	if (drv == NULL || dvendor == NULL || strcmp(dvendor, "nvidia") != 0) {
		const char *need = variant_cuda_compat_min(cuda) ? variant_cuda_compat_min(cuda) :
				   variant_cuda_min_driver(cuda);
		snprintf(msg, sizeof msg, "the plan is %s but no NVIDIA driver is loaded; "
			 "install a driver %s%s", planned, need ? need : "for that CUDA",
			 need ? " or later" : "");
		problem(v, "fail", "driver", msg, NULL);
		return;
	}
	int runs = variant_driver_runs(drv, cuda);
	variant_driver_span(drv, span, sizeof span);
	if (runs == 0) {
		const char *need = variant_cuda_compat_min(cuda);
		const char *nat = variant_cuda_min_driver(cuda);
		fitting_cuda(torch, drv, fits, sizeof fits);
		snprintf(msg, sizeof msg, "driver %s supports %s; the plan is %s, which needs "
			 "%s or later; %s%s%s update the driver", drv, span, planned,
			 need && variant_vercmp(need, nat) < 0 ? need : nat,
			 fits[0] ? "use " : "", fits, fits[0] ? ", or" : "");
		problem(v, "fail", "driver", msg, fits[0] ? fits : NULL);
		return;
	}
	if (runs < 0) {
		snprintf(msg, sizeof msg, "CUDA %s is not in kernodeck's driver table; driver %s "
			 "supports %s", cuda, drv, span);
		problem(v, "warn", "driver", msg, NULL);
		return;
	}
	if (obs_system_backend_reason(obs) != NULL &&
	    strcmp(obs_system_backend(obs), "cuda") != 0) {
		problem(v, "fail", "device",
			obs_system_backend_reason(obs), NULL);
		return;
	}
	snprintf(msg, sizeof msg, "driver %s runs CUDA %s%s", drv, cuda,
		 runs == 2 ? " through minor-version compatibility" : "");
	json_object_set_new(v, "note", json_string(msg));
}

static void
judge_rocm(json_t *v, const json_t *plan, const json_t *obs)
{
	const char *tag = json_string_value(json_object_get(plan, "tag"));
	const char *vendor = obs_system_gpu_vendor(obs);
	const char *backend = obs_system_backend(obs);
	const char *rv = obs_system_rocm_version(obs);
	char msg[1024];

	if (vendor == NULL || strcmp(vendor, "amd") != 0) {
		snprintf(msg, sizeof msg, "the plan is %s (a ROCm build), which needs an AMD GPU "
			 "with ROCm; this machine has %s; use %s", tag,
			 vendor && strcmp(vendor, "none") ? (strcmp(vendor, "nvidia") == 0 ?
			 "an NVIDIA GPU" : "an Intel GPU") : "no GPU",
			 vendor && strcmp(vendor, "nvidia") == 0 ? "a cuXXX variant" : "the cpu variant");
		problem(v, "fail", "rocm-needs-amd", msg,
			vendor && strcmp(vendor, "nvidia") == 0 ? NULL : "cpu");
		return;
	}
	if (backend == NULL || strcmp(backend, "rocm") != 0) {
		snprintf(msg, sizeof msg, "the plan is %s but ROCm cannot reach the GPU: %s", tag,
			 obs_system_backend_reason(obs) ?
			 obs_system_backend_reason(obs) : "no /dev/kfd");
		problem(v, "fail", "rocm-device", msg, NULL);
		return;
	}
	snprintf(msg, sizeof msg, "AMD GPU reachable through /dev/kfd%s%s; the %s wheel brings "
		 "its own ROCm user-space libraries", rv ? ", ROCm " : "", rv ? rv : "", tag);
	json_object_set_new(v, "note", json_string(msg));
}

json_t *
variant_judge(const json_t *plan, const json_t *obs, const char *python)
{
	json_t *v = json_object();
	const char *kind = json_string_value(json_object_get(plan, "kind"));
	const char *torch = json_string_value(json_object_get(json_object_get(plan, "torch"),
							      "version"));
	const char *backend = obs_system_backend(obs);
	char range[32], msg[512];
	size_t i;
	json_t *p;

	json_object_set_new(v, "problems", json_array());
	if (kind == NULL)
		kind = "unknown";
	if (strcmp(kind, "cuda") == 0) {
		judge_cuda(v, plan, obs);
	} else if (strcmp(kind, "rocm") == 0) {
		judge_rocm(v, plan, obs);
	} else if (strcmp(kind, "cpu") == 0) {
		if (backend != NULL && strcmp(backend, "cpu") != 0) {
			snprintf(msg, sizeof msg, "a CPU build on a machine with a usable %s GPU: "
				 "the GPU will not be used%s", strcmp(backend, "cuda") == 0 ?
				 "NVIDIA" : "AMD", strcmp(backend, "cuda") == 0 ?
				 " (a cuXXX variant would use it)" : " (a rocm variant would use it)");
			problem(v, "warn", "cpu-on-gpu", msg, NULL);
		}
	} else if (strcmp(kind, "system") == 0) {
		const char *st = json_string_value(json_object_get(plan, "system_torch"));
		json_object_set_new(v, "note", json_sprintf("torch is provided by the system%s%s "
			"(system site packages), not by a wheel: the PyTorch release matrix "
			"does not apply", st ? ": torch " : "", st ? st : ""));
	} else if (strcmp(kind, "missing") == 0) {
		problem(v, "warn", "plan", "no requirements-rebuild.txt in the project yet: "
			"the PyTorch variant is judged once it exists", NULL);
	} else if (strcmp(kind, "none") == 0) {
		json_object_set_new(v, "note", json_string("the rebuild file installs no torch"));
	} else {
		problem(v, "warn", "plan", json_string_value(json_object_get(plan, "source")), NULL);
	}
	/* the Python rule, for wheels from the PyTorch index or PyPI */
	if (strcmp(kind, "system") != 0 && torch != NULL && python != NULL) {
		int ok = variant_python_ok(torch, python, range, sizeof range);
		char mm[16];
		major_minor(python, mm, sizeof mm);
		if (ok == 0) {
			snprintf(msg, sizeof msg, "torch %s has wheels for Python %s; the chosen "
				 "interpreter is Python %s: choose a Python in that range "
				 "(--python), or another torch release", torch, range, mm);
			problem(v, "fail", "python", msg, NULL);
		} else if (ok < 0) {
			snprintf(msg, sizeof msg, "torch %s is not in kernodeck's release table: "
				 "its Python support is not checked", torch);
			problem(v, "warn", "python", msg, NULL);
		}
	}
	const char *status = "pass";
	json_array_foreach(json_object_get(v, "problems"), i, p) {
		const char *s = json_string_value(json_object_get(p, "status"));
		if (strcmp(s, "fail") == 0)
			status = "fail";
		else if (strcmp(s, "warn") == 0 && strcmp(status, "pass") == 0)
			status = "warn";
	}
	json_object_set_new(v, "status", json_string(status));
	return v;
}
