/*
 * nvidia-smi.c - read a pasted `nvidia-smi` output (nvidia-smi.h).
 *
 * The table is read by its cells, not by columns at fixed offsets: the
 * column widths changed with the driver generations (the 79-character
 * table up to 525, 89 characters from 530, wider bus ids from 550), and
 * the number of lines a GPU takes is given by the header rows between the
 * first separator and the "|===" line (two, or three when the "MIG M." row
 * exists).  A GPU starts at a row whose first cell opens with its index.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/caps.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/inspect.h"
#include "kernodeck/nvidia-smi.h"
#include "kernodeck/pipline.h"

#define KD_CAP_SMI_CELLS 8     /* cells of one table row */
#define KD_CAP_SMI_GPUS  4096  /* GPUs and MIG devices kept */

enum section { SEC_NONE, SEC_HEAD, SEC_GPUS, SEC_PROCS, SEC_MIG };

struct smi {
	json_t *found, *gpus, *migs;
	json_t *lgpus, *lmigs;  /* the GPU and MIG lines of -L */
	json_t *smi, *driver, *cuda, *qdriver, *qcuda, *attached;
	json_t *module, *failure;
	json_t *cur;            /* the GPU whose rows are being read */
	enum section sec;
	int tables;             /* table headers seen; only the first is read */
	int head_rows, mig_row; /* the GPU header's rows, the "MIG M." one or -1 */
	int row;                /* the row of the current GPU */
	int list_gpus;          /* -L lines read */
	json_int_t list_last;   /* the index of the last -L GPU line */
	json_t *qgpu;           /* the -q report's current GPU */
	int q_mig;              /* inside its "MIG Mode" block */
};

/* A copy of s (n bytes) trimmed, as a JSON string, or null when empty. */
static json_t *
str_or_null(const char *s, size_t n)
{
	pipline_trim(&s, &n);
	return n == 0 ? json_null() : json_stringn(s, n);
}

static void
add_found(struct smi *m, const char *what)
{
	size_t i;
	json_t *v;

	json_array_foreach(m->found, i, v)
		if (strcmp(json_string_value(v), what) == 0)
			return;
	json_array_append_new(m->found, json_string(what));
}

/* The word after "label" in s (a version, "N/A"...), or NULL. */
static json_t *
word_after(const char *s, const char *label)
{
	const char *p = strstr(s, label);
	size_t n;

	if (p == NULL)
		return NULL;
	p += strlen(label);
	while (*p == ' ')
		p++;
	n = strcspn(p, " |");
	if (n == 0)
		return NULL;
	if (n == 3 && strncmp(p, "N/A", 3) == 0)
		return json_null();
	return json_stringn(p, n);
}

static void
set_once(json_t **slot, json_t *v)
{
	if (v == NULL)
		return;
	if (*slot == NULL)
		*slot = v;
	else
		json_decref(v);
}

/* Split a table row "| a | b | c |" into at most KD_CAP_SMI_CELLS cells
 * (pointers into the row, which is cut).  Returns the count. */
static int
cells_of(char *row, char **cell)
{
	int n = 0;
	char *p = row + 1, *bar;
	size_t len = strlen(p);

	if (len > 0 && p[len - 1] == '|')
		p[len - 1] = '\0';
	while (n < KD_CAP_SMI_CELLS) {
		bar = strchr(p, '|');
		cell[n++] = p;
		if (bar == NULL)
			break;
		*bar = '\0';
		p = bar + 1;
	}
	return n;
}

static int
is_version(const char *s, size_t n)
{
	int dots = 0;

	if (n == 0 || !isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[n - 1]))
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.')
			dots++;
		else if (!isdigit((unsigned char)s[i]))
			return 0;
	}
	return dots >= 1;
}

/* "00000000:01:00.0" or "0000:01:00.0" -> the 8-digit domain, upper case. */
static json_t *
pci_of(const char *s, size_t n)
{
	char dom[9], rest[16];
	const char *c = memchr(s, ':', n);
	size_t d, r;

	if (c == NULL)
		return json_null();
	d = (size_t)(c - s);
	r = n - d;
	/* ":BB:DD.F" after the domain */
	if (d == 0 || d > 8 || r != 8 || c[3] != ':' || c[6] != '.')
		return json_null();
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) && s[i] != ':' && s[i] != '.')
			return json_null();
	memset(dom, '0', 8 - d);
	memcpy(dom + 8 - d, s, d);
	dom[8] = '\0';
	memcpy(rest, c, r);
	rest[r] = '\0';
	for (char *p = dom; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	for (char *p = rest; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	return json_sprintf("%s%s", dom, rest);
}

/* "393MiB / 16116MiB" -> used and total, or nulls (N/A, ERR!). */
static void
memory_of(json_t *gpu, const char *cell)
{
	long used = -1, total = -1;
	char u1[8] = "", u2[8] = "";

	if (sscanf(cell, " %ld%7[A-Za-z] / %ld%7[A-Za-z]", &used, u1, &total, u2) == 4 &&
	    strcmp(u1, "MiB") == 0 && strcmp(u2, "MiB") == 0) {
		json_object_set_new(gpu, "memory_used_mib", json_integer(used));
		json_object_set_new(gpu, "memory_total_mib", json_integer(total));
	} else if (strstr(cell, "ERR!") != NULL) {
		json_array_append_new(json_object_get(gpu, "errors"), json_string("memory"));
	}
}

static json_t *
new_gpu(json_int_t index)
{
	return json_pack("{s:I s:n s:b s:n s:n s:n s:n s:n s:n s:[]}", "index", index,
			 "name", "name_cut", 0, "bus_id", "pci_bus_id", "memory_used_mib",
			 "memory_total_mib", "mig_mode", "uuid", "errors");
}

/* The first row of a GPU: "   0  NAME  Off  | BUS  Disp | ECC". */
static void
gpu_first_row(struct smi *m, char **cell, int n)
{
	static const char *const tails[] = { "On", "Off", "N/A", "WDDM", "TCC", "ERR!" };
	const char *s = cell[0];
	size_t len;
	char *end;
	long idx;

	while (*s == ' ')
		s++;
	idx = strtol(s, &end, 10);
	s = end;
	len = strlen(s);
	pipline_trim(&s, &len);
	/* the persistence mode (TCC/WDDM on Windows) ends the cell */
	for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
		size_t k = strlen(tails[t]);
		if (len > k && s[len - k - 1] == ' ' && strncmp(s + len - k, tails[t], k) == 0) {
			len -= k;
			pipline_trim(&s, &len);
			break;
		}
	}
	m->cur = NULL;
	if (json_array_size(m->gpus) >= KD_CAP_SMI_GPUS)
		return;
	m->cur = new_gpu((json_int_t)idx);
	json_array_append_new(m->gpus, m->cur);
	json_object_set_new(m->cur, "name", str_or_null(s, len));
	json_object_set_new(m->cur, "name_cut", json_boolean(len >= 3 &&
			    strncmp(s + len - 3, "...", 3) == 0));
	if (n >= 2) {
		const char *b = cell[1];
		while (*b == ' ')
			b++;
		size_t bl = strcspn(b, " ");
		if (bl > 0 && strncmp(b, "ERR!", 4) != 0) {
			json_object_set_new(m->cur, "bus_id", json_stringn(b, bl));
			json_object_set_new(m->cur, "pci_bus_id", pci_of(b, bl));
		}
	}
	m->row = 0;
}

/* A row of the GPU section. */
static void
gpu_row(struct smi *m, char *line)
{
	char *cell[KD_CAP_SMI_CELLS];
	int n = cells_of(line, cell);
	const char *c0 = cell[0];

	while (*c0 == ' ')
		c0++;
	/* "  0  NAME" opens a GPU; " 30%   25C" (the fan) does not */
	if (isdigit((unsigned char)*c0)) {
		const char *d = c0;
		while (isdigit((unsigned char)*d))
			d++;
		if (*d == ' ') {
			gpu_first_row(m, cell, n);
			return;
		}
	}
	if (m->cur == NULL)
		return;
	m->row++;
	if (m->row == 1 && n >= 2)
		memory_of(m->cur, cell[1]);
	if (m->row == m->mig_row && n >= 3) {
		const char *v = cell[2];
		size_t vl = strlen(v);
		pipline_trim(&v, &vl);
		if (vl == 4 && strncmp(v, "ERR!", 4) == 0)
			json_array_append_new(json_object_get(m->cur, "errors"),
					      json_string("mig_mode"));
		else if (vl > 0)
			json_object_set_new(m->cur, "mig_mode", json_stringn(v, vl));
	}
}

/* A row of the MIG devices section: "|  1    3   0   0  |  14366MiB ...". */
static void
mig_row(struct smi *m, char *line)
{
	char *cell[KD_CAP_SMI_CELLS];
	long g, gi, ci, dev;

	cells_of(line, cell);
	if (sscanf(cell[0], " %ld %ld %ld %ld", &g, &gi, &ci, &dev) == 4 &&
	    json_array_size(m->migs) < KD_CAP_SMI_GPUS)
		json_array_append_new(m->migs, json_pack("{s:I s:I s:I s:I}", "gpu",
				      (json_int_t)g, "gi", (json_int_t)gi, "ci", (json_int_t)ci,
				      "mig_dev", (json_int_t)dev));
}

/* A line of the table (it starts with '|' or '+'). */
static void
table_line(struct smi *m, char *line)
{
	int sep = line[0] == '+' || strncmp(line, "|-", 2) == 0 || strncmp(line, "|=", 2) == 0;

	if (strstr(line, "NVIDIA-SMI ") != NULL) {
		m->tables++;
		if (m->tables > 1) {
			m->sec = SEC_NONE;
			return;
		}
		add_found(m, "table");
		set_once(&m->smi, word_after(line, "NVIDIA-SMI "));
		set_once(&m->driver, word_after(line, "Driver Version:"));
		set_once(&m->cuda, word_after(line, "CUDA Version:"));
		m->sec = SEC_HEAD;
		m->head_rows = 0;
		m->mig_row = -1;
		return;
	}
	if (m->tables > 1)
		return;
	if (strstr(line, "Processes:") != NULL) {
		m->sec = SEC_PROCS;
		return;
	}
	if (strstr(line, "MIG devices:") != NULL) {
		add_found(m, "table");
		m->sec = SEC_MIG;
		return;
	}
	if (m->sec == SEC_HEAD) {
		if (strncmp(line, "|=", 2) == 0)
			m->sec = SEC_GPUS;
		else if (!sep) {
			if (strstr(line, "MIG M.") != NULL)
				m->mig_row = m->head_rows;
			m->head_rows++;
		}
		return;
	}
	if (sep)
		return;
	if (m->sec == SEC_GPUS)
		gpu_row(m, line);
	else if (m->sec == SEC_MIG)
		mig_row(m, line);
}

/* "GPU 0: NAME (UUID: GPU-...)" and "  MIG 1g.5gb Device 0: (UUID: MIG-...)". */
static int
list_line(struct smi *m, const char *s)
{
	const char *u, *name;
	char *end;
	long idx;

	if (strncmp(s, "MIG ", 4) == 0 && strstr(s, "(UUID: MIG-") != NULL) {
		if (m->list_gpus > 0 && json_array_size(m->lmigs) < KD_CAP_SMI_GPUS)
			json_array_append_new(m->lmigs, json_pack("{s:I s:n s:n s:n}", "gpu",
					      m->list_last, "gi", "ci", "mig_dev"));
		return 1;
	}
	if (strncmp(s, "GPU ", 4) != 0 || !isdigit((unsigned char)s[4]))
		return 0;
	idx = strtol(s + 4, &end, 10);
	if (strncmp(end, ": ", 2) != 0)
		return 0;
	name = end + 2;
	u = strstr(name, " (UUID: ");
	if (u == NULL)
		return 0;
	add_found(m, "list");
	m->list_gpus++;
	m->list_last = (json_int_t)idx;
	if (json_array_size(m->lgpus) < KD_CAP_SMI_GPUS) {
		const char *id = u + 8;
		json_t *gpu = new_gpu((json_int_t)idx);
		json_object_set_new(gpu, "name", str_or_null(name, (size_t)(u - name)));
		json_object_set_new(gpu, "uuid", str_or_null(id, strcspn(id, ")")));
		json_array_append_new(m->lgpus, gpu);
	}
	return 1;
}

/* The GPUs: the table's (or the -q report's), each given the uuid of the
 * -L line of the same index; the -L lines' alone when there is no table. */
static void
merge_list(struct smi *m)
{
	size_t i, j;
	json_t *t, *l;

	if (json_array_size(m->gpus) == 0) {
		json_array_extend(m->gpus, m->lgpus);
		return;
	}
	json_array_foreach(m->gpus, i, t)
		json_array_foreach(m->lgpus, j, l)
			if (json_integer_value(json_object_get(t, "index")) ==
			    json_integer_value(json_object_get(l, "index")) &&
			    json_is_null(json_object_get(t, "uuid")))
				json_object_set(t, "uuid", json_object_get(l, "uuid"));
}

/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  384.98  Thu Oct 26 ..."
 * "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  565.57.01  ..." */
static void
proc_line(struct smi *m, const char *s)
{
	const char *k = strstr(s, "Kernel Module"), *p;
	json_t *arch = json_null(), *version = json_null();
	int open;

	if (k == NULL || m->module != NULL)
		return;
	add_found(m, "proc");
	open = strstr(s, "Open Kernel Module") != NULL;
	p = k + strlen("Kernel Module");
	while (*p == ' ')
		p++;
	if (strncmp(p, "for ", 4) == 0) {
		p += 4;
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		json_decref(arch);
		arch = json_stringn(p, n);
		p += n;
	} else {
		/* the word before "Kernel" (or before "Open Kernel") */
		const char *e = open ? strstr(s, "Open Kernel") : k;
		const char *b = e;
		while (b > s && b[-1] == ' ')
			b--;
		e = b;
		while (b > s && b[-1] != ' ')
			b--;
		if (e > b && strncmp(b, "UNIX", 4) != 0) {
			json_decref(arch);
			arch = json_stringn(b, (size_t)(e - b));
		}
	}
	while (*p != '\0') {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (is_version(p, n)) {
			json_decref(version);
			version = json_stringn(p, n);
			break;
		}
		p += n;
	}
	m->module = json_pack("{s:o s:b s:o s:n}", "version", version, "open", open, "arch",
			      arch, "gcc_version");
}

/* "GCC version:  gcc version 7.2.0 (Ubuntu ...)" after the NVRM line. */
static void
gcc_line(struct smi *m, const char *s)
{
	const char *p = strstr(s, "gcc version ");

	if (m->module == NULL || p == NULL)
		return;
	p += strlen("gcc version ");
	json_object_set_new(m->module, "gcc_version", str_or_null(p, strcspn(p, " ")));
}

/* The failures nvidia-smi prints in place of a table. */
static int
failure_line(struct smi *m, const char *s, size_t n)
{
	const char *kind = NULL;

	if (strstr(s, "No devices were found") != NULL)
		kind = "no-devices";
	else if (strstr(s, "NVIDIA-SMI has failed because it couldn") != NULL)
		kind = "no-driver";
	else if (strstr(s, "Driver/library version mismatch") != NULL)
		kind = "version-mismatch";
	else if (strstr(s, "GPU is lost") != NULL)
		kind = "gpu-lost";
	else if (strncmp(s, "NVML library version:", 21) == 0) {
		if (m->failure != NULL)
			json_object_set_new(m->failure, "nvml_library_version",
					    str_or_null(s + 21, n - 21));
		return 1;
	}
	if (kind == NULL)
		return 0;
	if (m->failure == NULL)
		m->failure = json_pack("{s:s s:s% s:n}", "kind", kind, "message", s, n,
				       "nvml_library_version");
	return 1;
}

/* The -q report: "Driver Version : 396.54", "GPU 00000000:01:00.0",
 * "Product Name : GeForce GTX 1080", "MIG Mode" / "Current : Disabled". */
static int
query_line(struct smi *m, const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n), *v;
	size_t kl, vl;

	if (strncmp(s, "==============NVSMI LOG", 23) == 0) {
		add_found(m, "query");
		return 1;
	}
	if (strncmp(s, "GPU ", 4) == 0 && n > 4 && isxdigit((unsigned char)s[4]) &&
	    memchr(s + 4, ' ', n - 4) == NULL && colon != NULL) {
		if (json_array_size(m->gpus) >= KD_CAP_SMI_GPUS || m->tables > 0)
			return 1;
		m->qgpu = new_gpu((json_int_t)json_array_size(m->gpus));
		json_object_set_new(m->qgpu, "bus_id", json_stringn(s + 4, n - 4));
		json_object_set_new(m->qgpu, "pci_bus_id", pci_of(s + 4, n - 4));
		json_array_append_new(m->gpus, m->qgpu);
		add_found(m, "query");
		m->q_mig = 0;
		return 1;
	}
	if (strncmp(s, "MIG Mode", 8) == 0 && colon == NULL) {
		m->q_mig = 1;
		return 1;
	}
	if (colon == NULL)
		return 0;
	kl = (size_t)(colon - s);
	while (kl > 0 && s[kl - 1] == ' ')
		kl--;
	v = colon + 1;
	vl = n - (size_t)(v - s);
	pipline_trim(&v, &vl);
#define KEY(k) (kl == sizeof k - 1 && strncmp(s, k, kl) == 0)
	if (KEY("Driver Version"))
		set_once(&m->qdriver, vl ? json_stringn(v, vl) : NULL);
	else if (KEY("CUDA Version"))
		set_once(&m->qcuda, vl == 3 && strncmp(v, "N/A", 3) == 0 ? json_null() :
			 vl ? json_stringn(v, vl) : NULL);
	else if (KEY("Attached GPUs")) {
		char *end;
		long c = strtol(v, &end, 10);
		if (end != v && c >= 0)
			set_once(&m->attached, json_integer(c));
	} else if (KEY("Product Name") && m->qgpu != NULL)
		json_object_set_new(m->qgpu, "name", str_or_null(v, vl));
	else if (KEY("GPU UUID") && m->qgpu != NULL)
		json_object_set_new(m->qgpu, "uuid", str_or_null(v, vl));
	else if (KEY("Current") && m->q_mig && m->qgpu != NULL) {
		json_object_set_new(m->qgpu, "mig_mode", str_or_null(v, vl));
		m->q_mig = 0;
	} else
		return 0;
#undef KEY
	return 1;
}

static void
take_line(struct smi *m, char *line, size_t n)
{
	if (line[0] == '|' || line[0] == '+') {
		table_line(m, line);
		return;
	}
	if (strncmp(line, "NVRM version:", 13) == 0) {
		proc_line(m, line);
		return;
	}
	if (strncmp(line, "GCC version:", 12) == 0) {
		gcc_line(m, line);
		return;
	}
	/* anything else (a prompt, a blank line, another line) ends the table */
	m->sec = SEC_NONE;
	m->cur = NULL;
	if (!failure_line(m, line, n) && !list_line(m, line))
		query_line(m, line, n);
}

static json_t *
build(struct smi *m, const char *name)
{
	json_t *o = json_object(), *count;
	json_t *driver = m->driver ? json_incref(m->driver) :
			 m->qdriver ? json_incref(m->qdriver) :
			 m->module ? json_incref(json_object_get(m->module, "version")) : json_null();
	json_t *cuda = m->cuda ? json_incref(m->cuda) : m->qcuda ? json_incref(m->qcuda) :
		       json_null();

	merge_list(m);
	if (m->tables > 0 || m->list_gpus > 0 || json_array_size(m->gpus) > 0)
		count = json_integer((json_int_t)json_array_size(m->gpus));
	else if (m->attached != NULL)
		count = json_incref(m->attached);
	else if (m->failure != NULL &&
		 strcmp(json_string_value(json_object_get(m->failure, "kind")), "no-devices") == 0)
		count = json_integer(0);
	else
		count = json_null();
	json_object_set_new(o, "source", json_string(name));
	json_object_set(o, "found", m->found);
	json_object_set_new(o, "smi_version", m->smi ? json_incref(m->smi) : json_null());
	json_object_set_new(o, "driver_version", driver);
	json_object_set_new(o, "cuda_version", cuda);
	json_object_set_new(o, "gpu_count", count);
	json_object_set(o, "gpus", m->gpus);
	json_object_set(o, "mig_devices", json_array_size(m->migs) ? m->migs : m->lmigs);
	json_object_set_new(o, "kernel_module", m->module ? json_incref(m->module) : json_null());
	json_object_set_new(o, "failure", m->failure ? json_incref(m->failure) : json_null());
	return o;
}

static void
smi_free(struct smi *m)
{
	json_t *all[] = { m->found, m->gpus, m->migs, m->lgpus, m->lmigs, m->smi, m->driver, m->cuda, m->qdriver,
			  m->qcuda, m->attached, m->module, m->failure };

	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		json_decref(all[i]);
}

/* A table line cut in two by e-mail wrapping: "| ... |  N/A" then "|"
 * ("|" does not end the first part, the second starts with no '|'). */
static int
wrapped(const char *line, size_t n, const char *next, size_t nn)
{
	return n > 0 && (line[0] == '|' || line[0] == '+') && line[n - 1] != '|' &&
	       line[n - 1] != '+' && nn > 0 && next[0] != '|' && next[0] != '+' &&
	       next[nn - 1] == '|';
}

int
nvidia_smi_parse(const char *text, size_t len, const char *name, json_t **out,
		 struct kd_err *err)
{
	struct pipline_iter it;
	struct smi m;
	const char *l, *l2 = NULL;
	size_t n, n2 = 0;
	int rc = 0, have2 = 0;
	char *line;

	*out = NULL;
	if (memchr(text, '\0', len) != NULL)
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "a binary file, not the text of nvidia-smi");
	if ((rc = pipline_check_text(text, len, name, err)) != 0)
		return rc;
	memset(&m, 0, sizeof m);
	m.found = json_array();
	m.gpus = json_array();
	m.migs = json_array();
	m.lmigs = json_array();
	m.lgpus = json_array();
	m.mig_row = -1;
	pipline_init(&it, text, len);
	for (;;) {
		if (have2) {
			l = l2, n = n2, have2 = 0;
		} else if (!pipline_next(&it, &l, &n)) {
			break;
		}
		pipline_unpaste(&l, &n);
		if (pipline_is_fence(l, n))
			continue;
		if (n > 0 && (l[0] == '|' || l[0] == '+') && l[n - 1] != '|' && l[n - 1] != '+' &&
		    pipline_next(&it, &l2, &n2)) {
			const char *c2 = l2;
			size_t cn2 = n2;
			pipline_unpaste(&c2, &cn2);
			if (wrapped(l, n, c2, cn2)) {
				line = malloc(n + cn2 + 2);
				if (line == NULL)
					break;
				memcpy(line, l, n);
				line[n] = ' ';
				memcpy(line + n + 1, c2, cn2);
				line[n + 1 + cn2] = '\0';
				take_line(&m, line, n + 1 + cn2);
				free(line);
				continue;
			}
			have2 = 1;
		}
		line = pipline_dup(l, n);
		if (line == NULL)
			break;
		take_line(&m, line, n);
		free(line);
	}
	if (json_array_size(m.found) == 0 && m.failure == NULL)
		rc = kd_err_set(err, KD_EINPUT, name, 0,
				"not an nvidia-smi output (no table, no nvidia-smi -L or -q line, "
				"no /proc/driver/nvidia/version line, no known failure)");
	else
		*out = build(&m, name);
	smi_free(&m);
	return rc;
}

int
inspect_nvidia_smi(const char *path, json_t **out, struct kd_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = fsutil_read_file(path, KD_CAP_TEXT_FILE, &buf, &len, err);

	if (rc != 0)
		return rc;
	rc = nvidia_smi_parse(buf, len, path, out, err);
	free(buf);
	return rc;
}
