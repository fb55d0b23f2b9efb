/*
 * sys-gpu.c - GPUs, drivers and device nodes of this machine.
 *
 * The PCI bus is the ground truth for which GPUs are there (it needs no
 * driver); the driver's own files and tools add versions and names.  When
 * a tool fails, its failure is classified (driver not reachable, library
 * and kernel module of different versions, a field the old driver does not
 * know) and kept with its first line: nothing here is fatal.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/run.h"
#include "kernodeck/sys-gpu.h"
#include "kernodeck/sys-query.h"
#include "kernodeck/sysinfo-util.h"

#define KD_CAP_SYS_GPUS 64      /* GPUs listed */
#define KD_CAP_SYS_NODES 128    /* device nodes listed */

/* ------------------------------------------------------------ names, ids */

const char *
sysgpu_vendor_of_id(const char *v)
{
	if (v == NULL)
		return NULL;
	if (strncmp(v, "0x", 2) == 0)
		v += 2;
	if (strcasecmp(v, "10de") == 0)
		return "nvidia";
	if (strcasecmp(v, "1002") == 0)
		return "amd";
	if (strcasecmp(v, "8086") == 0)
		return "intel";
	return NULL;
}

/* Does word w appear in s as a whole word (case-insensitive)? */
static int
has_word(const char *s, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = s; (p = strcasestr(p, w)) != NULL; p++) {
		int left = p == s || !isalnum((unsigned char)p[-1]);
		int right = !isalnum((unsigned char)p[n]);
		if (left && right)
			return 1;
	}
	return 0;
}

const char *
sysgpu_vendor_of_name(const char *name)
{
	static const char *const nv[] = { "nvidia", "geforce", "quadro", "tesla", "titan",
		"rtx", "gtx", "a100", "h100", "h200", "a10", "a40", "l4", "l40", "v100", "t4" };
	static const char *const amd[] = { "amd", "radeon", "instinct", "ati", "vega",
		"navi", "aldebaran", "mi100", "mi210", "mi250", "mi250x", "mi300x", "mi300a" };
	static const char *const intel[] = { "intel", "arc", "iris", "uhd", "xe" };

	if (name == NULL)
		return "unknown";
	for (size_t i = 0; i < sizeof nv / sizeof nv[0]; i++)
		if (has_word(name, nv[i]))
			return "nvidia";
	for (size_t i = 0; i < sizeof amd / sizeof amd[0]; i++)
		if (has_word(name, amd[i]))
			return "amd";
	for (size_t i = 0; i < sizeof intel / sizeof intel[0]; i++)
		if (has_word(name, intel[i]))
			return "intel";
	return "unknown";
}

static FILE *
open_pci_ids(const char *ids_path)
{
	static const char *const places[] = {
		"/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids", "/usr/share/pci.ids",
	};
	const char *env = getenv("KD_PCI_IDS");

	if (ids_path != NULL)
		return fopen(ids_path, "re");
	if (env != NULL && *env != '\0')
		return fopen(env, "re");
	for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
		FILE *fp = fopen(places[i], "re");
		if (fp != NULL)
			return fp;
	}
	return NULL;
}

static const char *
skip_0x(const char *s)
{
	return strncmp(s, "0x", 2) == 0 ? s + 2 : s;
}

int
sysgpu_pci_name(const char *ids_path, const char *vendor_id, const char *device_id,
		char *out, size_t len)
{
	FILE *fp = open_pci_ids(ids_path);
	char line[1024];
	int in_vendor = 0, found = -1;
	const char *v = skip_0x(vendor_id), *d = skip_0x(device_id);

	if (fp == NULL)
		return -1;
	while (fgets(line, sizeof line, fp) != NULL) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (line[0] == 'C' && line[1] == ' ')
			break;                  /* the class list follows the vendors */
		if (line[0] != '\t') {
			if (in_vendor)
				break;
			in_vendor = strncasecmp(line, v, 4) == 0 && line[4] == ' ';
			continue;
		}
		if (!in_vendor || line[1] == '\t')
			continue;
		if (strncasecmp(line + 1, d, 4) == 0 && line[5] == ' ') {
			snprintf(out, len, "%s", line + 6);
			sysinfo_trim(out);
			found = 0;
			break;
		}
	}
	fclose(fp);
	return found;
}

void
sysgpu_marketing_name(const char *pci_name, char *out, size_t len)
{
	const char *o = strchr(pci_name, '['), *c = o ? strrchr(o, ']') : NULL;

	if (o != NULL && c != NULL && c > o + 1)
		snprintf(out, len, "%.*s", (int)(c - o - 1), o + 1);
	else
		snprintf(out, len, "%s", pci_name);
	sysinfo_trim(out);
}

void
sysgpu_norm_name(const char *name, char *out, size_t len)
{
	static const char *const drop[] = { "nvidia", "corporation", "amd", "ati",
		"advanced", "micro", "devices", "inc", "intel", "r", "tm", "graphics", "gpu" };
	char word[128];
	size_t o = 0, w = 0;

	if (len == 0)
		return;
	out[0] = '\0';
	for (const char *p = name;; p++) {
		if (*p != '\0' && isalnum((unsigned char)*p)) {
			if (w + 1 < sizeof word)
				word[w++] = (char)tolower((unsigned char)*p);
			continue;
		}
		word[w] = '\0';
		int keep = w > 0;
		for (size_t i = 0; keep && i < sizeof drop / sizeof drop[0]; i++)
			if (strcmp(word, drop[i]) == 0)
				keep = 0;
		if (keep && o + w + 2 < len) {
			if (o > 0)
				out[o++] = ' ';
			memcpy(out + o, word, w);
			o += w;
			out[o] = '\0';
		}
		w = 0;
		if (*p == '\0')
			break;
	}
}

int
sysgpu_name_match(const char *a, const char *b)
{
	char na[256], nb[256];
	size_t la, lb;

	if (a == NULL || b == NULL)
		return 0;
	sysgpu_norm_name(a, na, sizeof na);
	sysgpu_norm_name(b, nb, sizeof nb);
	if (na[0] == '\0' || nb[0] == '\0')
		return 0;
	if (strcmp(na, nb) == 0)
		return 2;
	la = strlen(na);
	lb = strlen(nb);
	if (la < lb && strncmp(na, nb, la) == 0 && nb[la] == ' ')
		return 1;
	if (lb < la && strncmp(na, nb, lb) == 0 && na[lb] == ' ')
		return 1;
	return 0;
}

void
sysgpu_norm_bus_id(const char *in, char *out, size_t len)
{
	const char *colon = strchr(in, ':');
	char buf[64];
	size_t n;

	/* domain:bus:dev.fn; the domain is 8 digits in nvidia-smi, 4 in sysfs */
	if (colon != NULL && strchr(colon + 1, ':') != NULL && colon - in > 4)
		in = colon - 4;
	else if (colon != NULL && strchr(colon + 1, ':') == NULL) {
		snprintf(buf, sizeof buf, "0000:%s", in);
		in = buf;
	}
	snprintf(out, len, "%s", in);
	for (n = 0; out[n] != '\0'; n++)
		out[n] = (char)tolower((unsigned char)out[n]);
	sysinfo_trim(out);
}

/* ------------------------------------------------------------ PCI scan */

static unsigned long
read_hex(const char *dir, const char *name, int *ok)
{
	char *p = sysinfo_fmt("%s/%s", dir, name);
	char *s = p ? sysinfo_read_line(p) : NULL;
	unsigned long v = 0;

	*ok = s != NULL;
	if (s != NULL)
		v = strtoul(s, NULL, 16);
	free(p);
	free(s);
	return v;
}

static int
cmp_pci(const void *a, const void *b)
{
	const json_t *x = *(const json_t *const *)a, *y = *(const json_t *const *)b;

	return strcmp(json_string_value(json_object_get(x, "pci")),
		      json_string_value(json_object_get(y, "pci")));
}

/* One display controller of a known vendor, or NULL. */
static json_t *
pci_gpu(const char *base, const char *addr)
{
	char *dir = sysinfo_fmt("%s/%s", base, addr);
	int ok1, ok2, ok3;
	unsigned long cls = read_hex(dir, "class", &ok1);
	unsigned long ven = read_hex(dir, "vendor", &ok2);
	unsigned long dev = read_hex(dir, "device", &ok3);
	json_t *g = NULL;
	char vid[8], did[8], name[512], link[512];
	const char *vendor;

	if (!ok1 || !ok2 || !ok3)
		goto out;
	cls >>= 8;
	if (cls != 0x0300 && cls != 0x0302 && cls != 0x0380)
		goto out;
	snprintf(vid, sizeof vid, "%04lx", ven & 0xffff);
	snprintf(did, sizeof did, "%04lx", dev & 0xffff);
	vendor = sysgpu_vendor_of_id(vid);
	if (vendor == NULL)
		goto out;          /* a BMC's VGA (ASPEED, Matrox), a virtual display */
	g = json_object();
	json_object_set_new(g, "pci", json_string(addr));
	json_object_set_new(g, "vendor", json_string(vendor));
	json_object_set_new(g, "vendor_id", json_string(vid));
	json_object_set_new(g, "device_id", json_string(did));
	json_object_set_new(g, "class", json_sprintf("0x%04lx", cls));
	if (sysgpu_pci_name(NULL, vid, did, name, sizeof name) == 0) {
		json_object_set_new(g, "pci_name", json_string(name));
		char mk[512];
		sysgpu_marketing_name(name, mk, sizeof mk);
		json_object_set_new(g, "name", json_string(mk));
		json_object_set_new(g, "name_source", json_string("pci.ids"));
	} else {
		json_object_set_new(g, "name", json_sprintf("%s device %s",
			strcmp(vendor, "nvidia") == 0 ? "NVIDIA" :
			strcmp(vendor, "amd") == 0 ? "AMD" : "Intel", did));
		json_object_set_new(g, "name_source", json_string("pci id (no pci.ids)"));
	}
	/* the bound kernel driver: DRIVER= in uevent, else the driver link */
	char *ue = sysinfo_fmt("%s/uevent", dir);
	char *uet = ue ? sysinfo_read(ue, NULL) : NULL;
	const char *dv = uet ? strstr(uet, "DRIVER=") : NULL;
	if (dv != NULL && (dv == uet || dv[-1] == '\n')) {
		json_object_set_new(g, "kernel_driver", json_stringn(dv + 7, strcspn(dv + 7, "\n")));
	} else {
		char *dl = sysinfo_fmt("%s/driver", dir);
		char *dlp = dl ? sysinfo_path(dl) : NULL;
		ssize_t n = dlp ? readlink(dlp, link, sizeof link - 1) : -1;
		if (n > 0) {
			link[n] = '\0';
			const char *slash = strrchr(link, '/');
			json_object_set_new(g, "kernel_driver", json_string(slash ? slash + 1 : link));
		} else {
			json_object_set_new(g, "kernel_driver", json_null());
		}
		free(dl);
		free(dlp);
	}
	free(ue);
	free(uet);
	/* amdgpu says how much memory the card has */
	char *vram = sysinfo_fmt("%s/mem_info_vram_total", dir);
	char *vs = vram ? sysinfo_read_line(vram) : NULL;
	if (vs != NULL && strtoull(vs, NULL, 10) > 0)
		json_object_set_new(g, "memory_mib",
				    json_integer((json_int_t)(strtoull(vs, NULL, 10) >> 20)));
	free(vram);
	free(vs);
out:
	free(dir);
	return g;
}

/* Sort a list of GPU objects by PCI address, in place. */
static void
sort_by_pci(json_t *gpus)
{
	json_t *v[KD_CAP_SYS_GPUS * 2];
	size_t n = 0, i;
	json_t *g;

	json_array_foreach(gpus, i, g)
		if (n < sizeof v / sizeof v[0] && json_string_value(json_object_get(g, "pci")))
			v[n++] = json_incref(g);
	if (n != json_array_size(gpus)) {
		for (i = 0; i < n; i++)
			json_decref(v[i]);
		return;
	}
	qsort(v, n, sizeof v[0], cmp_pci);
	json_array_clear(gpus);
	for (i = 0; i < n; i++)
		json_array_append_new(gpus, v[i]);
}

static json_t *
scan_pci(json_t **status)
{
	const char *base = "/sys/bus/pci/devices";
	char *p = sysinfo_path(base);
	DIR *d = p ? opendir(p) : NULL;
	json_t *list = json_array(), *v[KD_CAP_SYS_GPUS];
	size_t n = 0;
	struct dirent *e;

	free(p);
	if (d == NULL) {
		*status = json_string("no /sys/bus/pci/devices (no PCI bus visible)");
		return list;
	}
	while ((e = readdir(d)) != NULL && n < KD_CAP_SYS_GPUS) {
		if (e->d_name[0] == '.')
			continue;
		json_t *g = pci_gpu(base, e->d_name);
		if (g != NULL)
			v[n++] = g;
	}
	closedir(d);
	qsort(v, n, sizeof v[0], cmp_pci);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(list, v[i]);
	*status = NULL;
	return list;
}

/* ------------------------------------------------------------- NVIDIA */

static int
is_version_token(const char *t)
{
	int dots = 0;

	if (!isdigit((unsigned char)*t))
		return 0;
	for (; *t; t++) {
		if (*t == '.')
			dots++;
		else if (!isdigit((unsigned char)*t))
			return 0;
	}
	return dots >= 1;
}

static int
is_arch_token(const char *t)
{
	return strcmp(t, "x86_64") == 0 || strcmp(t, "aarch64") == 0 ||
	       strcmp(t, "ppc64le") == 0 || strcmp(t, "arm64") == 0 ||
	       strcmp(t, "sbsa") == 0;
}

int
sysgpu_parse_nvrm(const char *text, struct sysgpu_nvrm *out)
{
	const char *nv = strstr(text, "NVRM version:");
	char line[1024], *save = NULL, *tok[64];
	size_t nt = 0;
	int after_module = 0;

	memset(out, 0, sizeof *out);
	if (nv == NULL)
		return -1;
	snprintf(line, sizeof line, "%.*s", (int)strcspn(nv, "\n"), nv);
	for (char *t = strtok_r(line, " \t", &save); t && nt < 64; t = strtok_r(NULL, " \t", &save))
		tok[nt++] = t;
	snprintf(out->flavor, sizeof out->flavor, "%s",
		 strstr(nv, "Open Kernel Module") && strstr(nv, "Open Kernel Module") <
		 nv + strcspn(nv, "\n") ? "open" : "proprietary");
	for (size_t i = 0; i < nt; i++) {
		if (strcmp(tok[i], "Module") == 0) {
			after_module = 1;
			continue;
		}
		if (is_arch_token(tok[i]) && out->arch[0] == '\0')
			snprintf(out->arch, sizeof out->arch, "%s", tok[i]);
		if (after_module && out->version[0] == '\0' && is_version_token(tok[i]))
			snprintf(out->version, sizeof out->version, "%s", tok[i]);
	}
	const char *g = strstr(text, "gcc version ");
	if (g != NULL) {
		g += strlen("gcc version ");
		snprintf(out->gcc, sizeof out->gcc, "%.*s", (int)strcspn(g, " \n"), g);
	}
	return out->version[0] ? 0 : -1;
}

/* Split one CSV line of nvidia-smi into fields (", " separated). */
static size_t
split_csv(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *p = line;

	while (n < max) {
		f[n++] = p;
		char *c = strchr(p, ',');
		if (c == NULL)
			break;
		*c = '\0';
		p = c + 1;
	}
	for (size_t i = 0; i < n; i++)
		sysinfo_trim(f[i]);
	return n;
}

static json_t *
smi_value(const char *s)
{
	if (*s == '\0' || s[0] == '[' || strcmp(s, "N/A") == 0)
		return json_null();     /* [N/A], [Not Supported], [Unknown Error] */
	return json_string(s);
}

json_t *
sysgpu_parse_smi_csv(const char *text, int with_cc)
{
	json_t *list = json_array();
	size_t want = with_cc ? 7 : 6;
	char *copy = strdup(text ? text : ""), *save = NULL;

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *f[16];
		size_t n = split_csv(l, f, 16), k = 0;
		if (n != want || !isdigit((unsigned char)f[0][0]))
			continue;
		json_t *g = json_object();
		json_object_set_new(g, "index", json_integer(strtol(f[k++], NULL, 10)));
		json_object_set_new(g, "name", smi_value(f[k++]));
		json_object_set_new(g, "uuid", smi_value(f[k++]));
		char bus[64];
		sysgpu_norm_bus_id(f[k++], bus, sizeof bus);
		json_object_set_new(g, "pci", json_string(bus));
		json_object_set_new(g, "driver_version", smi_value(f[k++]));
		if (with_cc)
			json_object_set_new(g, "compute_cap", smi_value(f[k++]));
		const char *mem = f[k++];
		if (isdigit((unsigned char)*mem))
			json_object_set_new(g, "memory_mib", json_integer(strtol(mem, NULL, 10)));
		json_array_append_new(list, g);
		if (json_array_size(list) >= KD_CAP_SYS_GPUS)
			break;
	}
	free(copy);
	return list;
}

int
sysgpu_parse_smi_cuda(const char *text, char *out, size_t len)
{
	const char *p = text ? strstr(text, "CUDA Version:") : NULL;

	if (p == NULL)
		return -1;
	p += strlen("CUDA Version:");
	while (*p == ' ')
		p++;
	size_t n = strspn(p, "0123456789.");
	if (n == 0)
		return -1;
	snprintf(out, len, "%.*s", (int)n, p);
	return 0;
}

const char *
sysgpu_smi_failure(const char *text)
{
	if (text == NULL)
		return "failed";
	if (strstr(text, "couldn't communicate with the NVIDIA driver") ||
	    strstr(text, "Driver Not Loaded") || strstr(text, "could not communicate"))
		return "no-driver";
	if (strstr(text, "Driver/library version mismatch"))
		return "mismatch";
	if (strstr(text, "is not a valid field"))
		return "invalid-field";
	if (strstr(text, "No devices were found"))
		return "no-devices";
	return "failed";
}

static const char *
smi_failure_reason(const char *kind)
{
	if (strcmp(kind, "no-driver") == 0)
		return "nvidia-smi cannot reach the NVIDIA driver: the kernel module is not "
		       "loaded, or this container has no /dev/nvidia* nodes";
	if (strcmp(kind, "mismatch") == 0)
		return "the NVIDIA user-space library and the loaded kernel module are of "
		       "different versions (a driver update without reboot): reboot, or "
		       "reload the nvidia module";
	if (strcmp(kind, "no-devices") == 0)
		return "nvidia-smi found no devices";
	return NULL;
}

/* "NVML library version: 580.178" in a mismatch text. */
static void
smi_library_version(json_t *nv, const char *text)
{
	const char *p = text ? strstr(text, "NVML library version:") : NULL;

	if (p == NULL)
		return;
	p += strlen("NVML library version:");
	while (*p == ' ')
		p++;
	json_object_set_new(nv, "library_version",
			    json_stringn(p, strspn(p, "0123456789.")));
}

/* A job's argument vector: the query's, from sys-query.c. */
static void
job_argv(struct sysinfo_job *j, enum sysquery q)
{
	const char *const *av = sysquery_argv(q);
	size_t k = 0;

	for (; av[k] != NULL && k + 1 < sizeof j->argv / sizeof j->argv[0]; k++)
		j->argv[k] = av[k];
	j->argv[k] = NULL;
}

/* Run nvidia-smi: the CSV query and the table (for the CUDA version) at
 * once; the query again without compute_cap when an old driver does not
 * know that field. */
static json_t *
observe_smi(const char *smi, json_t *nv)
{
	struct sysinfo_job j[2];
	char cuda[32];
	int with_cc = 1;
	json_t *rec;

	memset(j, 0, sizeof j);
	for (int i = 0; i < 2; i++) {
		j[i].prog = smi;
		j[i].timeout_s = sysinfo_timeout();
	}
	job_argv(&j[0], SYSQ_SMI_CSV);
	job_argv(&j[1], SYSQ_SMI_TABLE);
	sysinfo_run_jobs(j, 2);
	rec = j[0].rec;
	if (j[0].code != 0 && strcmp(sysgpu_smi_failure(j[0].out), "invalid-field") == 0) {
		json_object_set_new(rec, "retried", json_string("compute_cap unknown to this "
			"driver: queried again without it"));
		free(j[0].out);
		job_argv(&j[0], SYSQ_SMI_CSV_OLD);
		with_cc = 0;
		json_t *r2 = sysinfo_run(smi, j[0].argv, sysinfo_timeout(), &j[0].out,
					 &j[0].code);
		json_object_update(rec, r2);
		if (j[0].code == 0)
			json_object_del(rec, "reason");
		json_decref(r2);
	}
	if (j[0].code == 0) {
		json_object_set_new(nv, "smi_gpus", sysgpu_parse_smi_csv(j[0].out, with_cc));
	} else {
		const char *kind = sysgpu_smi_failure(j[0].out);
		json_object_set_new(rec, "failure", json_string(kind));
		if (smi_failure_reason(kind))
			json_object_set_new(rec, "explanation",
					    json_string(smi_failure_reason(kind)));
		smi_library_version(nv, j[0].out);
	}
	if (j[1].code == 0 && sysgpu_parse_smi_cuda(j[1].out, cuda, sizeof cuda) == 0)
		json_object_set_new(nv, "cuda_version", json_string(cuda));
	else if (j[0].code == 0)
		json_object_set_new(nv, "cuda_version_error", json_string(
			"no \"CUDA Version\" in the nvidia-smi table"));
	json_decref(j[1].rec);
	free(j[0].out);
	free(j[1].out);
	return rec;
}

static json_t *
observe_nvidia(int have_gpu)
{
	json_t *nv = json_object();
	char *mod = sysinfo_read_line("/sys/module/nvidia/version");
	char *proc = sysinfo_read("/proc/driver/nvidia/version", NULL);
	struct sysgpu_nvrm nvrm;

	if (mod != NULL)
		json_object_set_new(nv, "module_version", json_string(mod));
	if (proc != NULL && sysgpu_parse_nvrm(proc, &nvrm) == 0) {
		json_object_set_new(nv, "proc_version", json_pack("{s:s, s:s, s:s, s:s}",
			"version", nvrm.version, "flavor", nvrm.flavor,
			"arch", nvrm.arch, "gcc", nvrm.gcc));
		json_object_set_new(nv, "module_flavor", json_string(nvrm.flavor));
	}
	free(mod);
	free(proc);
	/* nvidia-smi only when it is there; a GPU-less machine without the
	 * driver is not asked */
	char *smi = run_which("nvidia-smi");
	if (smi != NULL || have_gpu) {
		json_object_set_new(nv, "smi", smi ? observe_smi(smi, nv) :
			sysinfo_status(json_object(), "missing", "nvidia-smi not found on PATH"));
	}
	free(smi);
	return nv;
}

/* --------------------------------------------------------------- AMD */

json_t *
sysgpu_parse_gfx(const char *text)
{
	json_t *list = json_array();
	const char *p = text;

	while (p != NULL && (p = strstr(p, "gfx")) != NULL) {
		size_t n = 3 + strspn(p + 3, "0123456789abcdef");
		if (n > 3 && (p == text || !isalnum((unsigned char)p[-1])) &&
		    !(n == 6 && strncmp(p, "gfx000", 6) == 0)) {
			int dup = 0;
			size_t i;
			json_t *v;
			json_array_foreach(list, i, v)
				if (strlen(json_string_value(v)) == n &&
				    strncmp(json_string_value(v), p, n) == 0)
					dup = 1;
			if (!dup && json_array_size(list) < KD_CAP_SYS_GPUS)
				json_array_append_new(list, json_stringn(p, n));
		}
		p += n;
	}
	return list;
}

/* "6.2.0-66" -> "6.2.0". */
static json_t *
version_prefix(const char *s)
{
	while (*s != '\0' && !isdigit((unsigned char)*s))
		s++;
	return json_stringn(s, strspn(s, "0123456789."));
}

static json_t *
observe_amd(int have_gpu)
{
	json_t *amd = json_object();
	char *mod = sysinfo_read_line("/sys/module/amdgpu/version");
	const char *rp = getenv("ROCM_PATH");
	char *vf = sysinfo_fmt("%s/.info/version", rp && *rp ? rp : "/opt/rocm");
	char *rv = vf ? sysinfo_read_line(vf) : NULL;
	char *kfd = sysinfo_path("/dev/kfd");

	if (mod != NULL)
		json_object_set_new(amd, "module_version", json_string(mod));
	if (rv != NULL) {
		json_object_set_new(amd, "rocm_version", version_prefix(rv));
		json_object_set_new(amd, "rocm_version_file", json_string(vf));
	}
	int plausible = have_gpu || rv != NULL || (kfd && access(kfd, F_OK) == 0);
	free(mod);
	free(rv);
	free(vf);
	free(kfd);
	if (!plausible)
		return amd;
	/* hipconfig, rocm_agent_enumerator (else rocminfo) and amd-smi at once */
	struct sysinfo_job j[3];
	memset(j, 0, sizeof j);
	job_argv(&j[0], SYSQ_HIPCONFIG);
	job_argv(&j[1], SYSQ_AGENTS);
	job_argv(&j[2], SYSQ_AMDSMI);
	for (int i = 0; i < 3; i++)
		j[i].timeout_s = sysinfo_timeout();
	sysinfo_run_jobs(j, 3);
	if (j[0].code == 0 && j[0].out != NULL) {
		char *o = sysinfo_trim(j[0].out);
		json_object_set_new(j[0].rec, "version", json_stringn(o, strcspn(o, "\n")));
		json_object_set_new(amd, "hip_version", version_prefix(o));
	}
	json_object_set_new(amd, "hipconfig", j[0].rec);
	if (j[1].code != 0) {
		json_decref(j[1].rec);
		free(j[1].out);
		job_argv(&j[1], SYSQ_ROCMINFO);
		j[1].rec = sysinfo_run(NULL, j[1].argv, sysinfo_timeout(), &j[1].out,
				       &j[1].code);
		json_object_set_new(amd, "gfx_source", json_string("rocminfo"));
	} else {
		json_object_set_new(amd, "gfx_source", json_string("rocm_agent_enumerator"));
	}
	if (j[1].code == 0)
		json_object_set_new(amd, "gfx_targets", sysgpu_parse_gfx(j[1].out));
	json_object_set_new(amd, "agents", j[1].rec);
	if (j[2].code == 0 && j[2].out != NULL) {
		const char *r = strstr(j[2].out, "ROCm version:");
		if (r != NULL) {
			json_object_set_new(j[2].rec, "rocm_version", version_prefix(r + 13));
			if (json_object_get(amd, "rocm_version") == NULL)
				json_object_set_new(amd, "rocm_version", version_prefix(r + 13));
		}
	}
	json_object_set_new(amd, "amd_smi", j[2].rec);
	for (int i = 0; i < 3; i++)
		free(j[i].out);
	if (json_object_get(amd, "rocm_version") == NULL && json_object_get(amd, "hip_version"))
		json_object_set(amd, "rocm_version", json_object_get(amd, "hip_version"));
	return amd;
}

/* ---------------------------------------------------------- device nodes */

/* Name of group gid from the root's /etc/group (fixtures have their own). */
static void
group_name(gid_t gid, char *out, size_t len)
{
	char *buf = sysinfo_read("/etc/group", NULL), *save = NULL;

	snprintf(out, len, "%lu", (unsigned long)gid);
	if (buf == NULL)
		return;
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (c2 == NULL)
			continue;
		if (strtoul(c2 + 1, NULL, 10) == gid && isdigit((unsigned char)c2[1])) {
			snprintf(out, len, "%.*s", (int)(c1 - l), l);
			break;
		}
	}
	free(buf);
}

static int
in_group(gid_t gid)
{
	gid_t groups[256];
	int n = getgroups(256, groups);

	if (getegid() == gid)
		return 1;
	for (int i = 0; i < n; i++)
		if (groups[i] == gid)
			return 1;
	return 0;
}

static json_t *
device_node(const char *abs)
{
	json_t *d = json_object();
	char *p = sysinfo_path(abs), grp[64];
	struct stat st;

	json_object_set_new(d, "path", json_string(abs));
	if (p == NULL || stat(p, &st) != 0) {
		json_object_set_new(d, "exists", json_false());
		free(p);
		return d;
	}
	json_object_set_new(d, "exists", json_true());
	json_object_set_new(d, "kind", json_string(S_ISCHR(st.st_mode) ? "char" : "other"));
	group_name(st.st_gid, grp, sizeof grp);
	json_object_set_new(d, "group", json_string(grp));
	json_object_set_new(d, "mode", json_sprintf("%04o", (unsigned)(st.st_mode & 07777)));
	int ok = access(p, R_OK | W_OK) == 0;
	json_object_set_new(d, "access", json_string(ok ? "rw" : "denied"));
	int member = in_group(st.st_gid);
	json_object_set_new(d, "in_group", json_boolean(member));
	if (!ok) {
		const char *user = getenv("USER") ? getenv("USER") : "$USER";
		json_object_set_new(d, "hint", member ?
			json_sprintf("the permissions of %s (%04o) deny this user", abs,
				     (unsigned)(st.st_mode & 07777)) :
			json_sprintf("this user is not in group '%s': sudo usermod -aG %s %s, "
				     "then log in again", grp, grp, user));
	}
	free(p);
	return d;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in dir (under the root) matching prefix, sorted, as absolute
 * paths into v; returns their number. */
static size_t
list_nodes(const char *dir, const char *prefix, char **v, size_t max)
{
	char *p = sysinfo_path(dir);
	DIR *d = p ? opendir(p) : NULL;
	struct dirent *e;
	size_t n = 0;

	free(p);
	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL && n < max)
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
			v[n++] = sysinfo_fmt("%s/%s", strcmp(dir, "/") ? dir : "", e->d_name);
	closedir(d);
	qsort(v, n, sizeof v[0], cmp_str);
	return n;
}

static json_t *
observe_devices(void)
{
	json_t *list = json_array();
	char *v[KD_CAP_SYS_NODES];
	size_t n = list_nodes("/dev", "nvidia", v, KD_CAP_SYS_NODES / 2);
	char *kfd = sysinfo_path("/dev/kfd");

	if (kfd != NULL && access(kfd, F_OK) == 0)
		v[n++] = strdup("/dev/kfd");
	free(kfd);
	n += list_nodes("/dev/dri", "renderD", v + n, KD_CAP_SYS_NODES - n);
	for (size_t i = 0; i < n; i++) {
		if (v[i] != NULL && strcmp(v[i], "/dev/nvidia-caps") != 0)
			json_array_append_new(list, device_node(v[i]));
		free(v[i]);
	}
	return list;
}

/* ------------------------------------------------------------- joining */

/* Enrich the PCI GPUs with what nvidia-smi says about them (by bus id);
 * GPUs nvidia-smi lists that the PCI scan missed are added. */
static void
merge_smi(json_t *gpus, const json_t *smi)
{
	size_t i, j;
	json_t *s, *g;

	json_array_foreach(smi, i, s) {
		const char *bus = json_string_value(json_object_get(s, "pci"));
		json_t *hit = NULL;
		json_array_foreach(gpus, j, g)
			if (bus && strcmp(bus, json_string_value(json_object_get(g, "pci"))) == 0)
				hit = g;
		if (hit == NULL) {
			hit = json_pack("{s:s, s:s}", "vendor", "nvidia", "vendor_id", "10de");
			json_object_set(hit, "pci", json_object_get(s, "pci"));
			json_array_append_new(gpus, hit);
		}
		if (json_string_value(json_object_get(s, "name")) != NULL) {
			json_object_set(hit, "name", json_object_get(s, "name"));
			json_object_set_new(hit, "name_source", json_string("nvidia-smi"));
		}
		static const char *const keys[] = { "index", "uuid", "compute_cap", "memory_mib" };
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
			if (json_object_get(s, keys[k]) != NULL)
				json_object_set(hit, keys[k], json_object_get(s, keys[k]));
	}
}

/* The compute vendor: NVIDIA before AMD before Intel. */
static const char *
main_vendor(const json_t *gpus, size_t *count, const json_t **first)
{
	static const char *const order[] = { "nvidia", "amd", "intel" };
	size_t i;
	json_t *g;

	for (size_t k = 0; k < 3; k++) {
		*count = 0;
		*first = NULL;
		json_array_foreach(gpus, i, g) {
			if (strcmp(json_string_value(json_object_get(g, "vendor")), order[k]) == 0) {
				if ((*count)++ == 0)
					*first = g;
			}
		}
		if (*count > 0)
			return order[k];
	}
	return "none";
}

static int
node_there(const json_t *devices, const char *prefix)
{
	size_t i;
	json_t *d;

	json_array_foreach(devices, i, d)
		if (strncmp(json_string_value(json_object_get(d, "path")), prefix,
			    strlen(prefix)) == 0 && json_is_true(json_object_get(d, "exists")))
			return 1;
	return 0;
}

/* Did nvidia-smi fail in a way CUDA fails too (no driver, mismatch)? */
static int
smi_failed_hard(const json_t *nv)
{
	const char *f = json_string_value(json_object_get(json_object_get(nv, "smi"), "failure"));

	return f != NULL && (strcmp(f, "mismatch") == 0 || strcmp(f, "no-driver") == 0);
}

/* driver, cuda, rocm and backend from what was seen. */
static void
summarise(json_t *obs, const char *vendor, const json_t *nv, const json_t *amd,
	  const json_t *devices)
{
	json_t *drv = json_object(), *cuda = json_object(), *rocm = json_object();
	const char *mv = json_string_value(json_object_get(nv, "module_version"));
	const char *pv = json_string_value(json_object_get(json_object_get(nv, "proc_version"),
							   "version"));
	const json_t *sg = json_array_get(json_object_get(nv, "smi_gpus"), 0);
	const char *sv = json_string_value(json_object_get(sg, "driver_version"));
	const char *backend = "cpu", *why = NULL;

	if (mv || pv || sv) {
		json_object_set_new(drv, "vendor", json_string("nvidia"));
		json_object_set_new(drv, "version", json_string(mv ? mv : pv ? pv : sv));
		json_object_set_new(drv, "source", json_string(mv ? "/sys/module/nvidia/version" :
			pv ? "/proc/driver/nvidia/version" : "nvidia-smi"));
		if (json_object_get(nv, "module_flavor"))
			json_object_set(drv, "flavor", json_object_get(nv, "module_flavor"));
	} else if (json_object_get(amd, "module_version") != NULL) {
		json_object_set_new(drv, "vendor", json_string("amd"));
		json_object_set(drv, "version", json_object_get(amd, "module_version"));
		json_object_set_new(drv, "source", json_string("/sys/module/amdgpu/version"));
	} else if (strcmp(vendor, "amd") == 0 && node_there(devices, "/dev/kfd")) {
		json_object_set_new(drv, "vendor", json_string("amd"));
		json_object_set_new(drv, "version", json_null());
		json_object_set_new(drv, "source", json_string(
			"amdgpu from the kernel (no /sys/module/amdgpu/version: in-tree driver)"));
	} else {
		sysinfo_status(drv, "none", strcmp(vendor, "none") == 0 ?
			       "no GPU on this machine" : "no GPU driver loaded");
		json_object_set_new(drv, "version", json_null());
	}
	json_object_set_new(obs, "driver", drv);

	json_object_set(cuda, "driver_max", json_object_get(nv, "cuda_version") ?
			json_object_get(nv, "cuda_version") : json_null());
	json_object_set_new(obs, "cuda", cuda);
	json_object_set(rocm, "version", json_object_get(amd, "rocm_version") ?
			json_object_get(amd, "rocm_version") : json_null());
	if (json_object_get(amd, "gfx_targets"))
		json_object_set(rocm, "gfx_targets", json_object_get(amd, "gfx_targets"));
	json_object_set_new(obs, "rocm", rocm);

	if (strcmp(vendor, "nvidia") == 0) {
		if (!(mv || pv || sv))
			why = "an NVIDIA GPU is on the PCI bus but no NVIDIA driver is loaded";
		else if (!node_there(devices, "/dev/nvidia"))
			why = "the NVIDIA driver is loaded but there are no /dev/nvidia* nodes "
			      "(a container started without GPU access?)";
		else if (smi_failed_hard(nv))
			why = json_string_value(json_object_get(json_object_get(nv, "smi"),
								 "explanation"));
		else
			backend = "cuda";
	} else if (strcmp(vendor, "amd") == 0) {
		if (!node_there(devices, "/dev/kfd"))
			why = "an AMD GPU is on the PCI bus but there is no /dev/kfd "
			      "(amdgpu not loaded, or a container without /dev/kfd)";
		else
			backend = "rocm";
	} else if (strcmp(vendor, "intel") == 0) {
		why = "an Intel GPU is present; kernodeck judges it as CPU-only";
	}
	json_object_set_new(obs, "backend", json_string(backend));
	if (why != NULL)
		json_object_set_new(obs, "backend_reason", json_string(why));
}

void
sysgpu_observe(json_t *obs)
{
	json_t *pci_status = NULL;
	json_t *gpus = scan_pci(&pci_status), *nv, *amd, *devices;
	size_t count = 0, i;
	const json_t *first, *g;
	int have_nv = 0, have_amd = 0;

	json_array_foreach(gpus, i, g) {
		const char *v = json_string_value(json_object_get(g, "vendor"));
		have_nv |= strcmp(v, "nvidia") == 0;
		have_amd |= strcmp(v, "amd") == 0;
	}
	nv = observe_nvidia(have_nv);
	amd = observe_amd(have_amd);
	merge_smi(gpus, json_object_get(nv, "smi_gpus"));
	sort_by_pci(gpus);
	devices = observe_devices();
	const char *vendor = main_vendor(gpus, &count, &first);
	json_object_set_new(obs, "gpus", gpus);
	if (pci_status != NULL)
		json_object_set_new(obs, "gpus_reason", pci_status);
	json_object_set_new(obs, "gpu_vendor", json_string(vendor));
	json_object_set_new(obs, "gpu_count", json_integer((json_int_t)count));
	json_object_set_new(obs, "gpu_model", first ? json_deep_copy(json_object_get(first, "name"))
			    : json_null());
	summarise(obs, vendor, nv, amd, devices);
	json_object_set_new(obs, "nvidia", nv);
	json_object_set_new(obs, "amd", amd);
	json_object_set_new(obs, "devices", devices);
}
