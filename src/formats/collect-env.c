/*
 * collect-env.c - read the report of `python -m torch.utils.collect_env`.
 *
 * The report is a list of "Label: value" lines with three kinds of block:
 * the GPU list (one "GPU N: name" per line, after an empty value), the
 * cuDNN candidates ("Probably one of the following:" then library paths),
 * and the trailing sections "CPU:" (lscpu output) and "Versions of relevant
 * libraries:" ([pip3] / [conda] lines).  Reading starts at the first known
 * label ("PyTorch version:" in every layout), so prompts, the command and
 * warnings printed before it are skipped; fences and indentation are
 * stripped from every line.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/caps.h"
#include "kernodeck/collect-env.h"
#include "kernodeck/pipline.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/inspect.h"

#define KD_CAP_CE_LINES 100000   /* lines of one report */
#define KD_CAP_CE_LIST  4096     /* GPUs, libraries, CPU lines kept */

/* The labels collect_env (and vLLM's copy) prints, in all layouts. */
static const char *const known_labels[] = {
	"PyTorch version", "Is debug build", "CUDA used to build PyTorch",
	"ROCM used to build PyTorch", "OS", "GCC version", "Clang version",
	"CMake version", "Libc version", "Python version", "Python platform",
	"Is CUDA available", "CUDA runtime version", "CUDA_MODULE_LOADING set to",
	"GPU models and configuration", "Nvidia driver version", "cuDNN version",
	"HIP runtime version", "MIOpen runtime version", "Is XNNPACK available",
	"Is XPU available", "XPU used to build PyTorch", "Intel GPU driver version",
	"Intel GPU models onboard", "Intel GPU models detected", "Is MPS available",
	"Caching allocator config", "vLLM Version", "vLLM Build Flags", "GPU Topology",
	"ROCM Version", "Neuron SDK Version", "Aphrodite Version",
	"Versions of relevant libraries", "CPU",
};

int
collect_env_is_null_word(const char *v)
{
	return v == NULL || *v == '\0' || strcmp(v, "N/A") == 0 || strcmp(v, "None") == 0 ||
	       strcmp(v, "Could not collect") == 0 || strcmp(v, "No CUDA") == 0;
}

/* Is "label" (n bytes) a known label? */
static int
is_known(const char *l, size_t n)
{
	for (size_t i = 0; i < sizeof known_labels / sizeof known_labels[0]; i++)
		if (strlen(known_labels[i]) == n && strncmp(known_labels[i], l, n) == 0)
			return 1;
	return 0;
}

/* The label of a "Label: value" or "Label:" line (vLLM aligns them as
 * "Label      : value"): its length, or 0; *voff gets where the value
 * starts.  A label is short, starts with a letter and holds no sentence
 * punctuation; known is set when it is one of collect_env's. */
static size_t
label_of(const char *s, int *known, size_t *voff)
{
	const char *c = strchr(s, ':');
	size_t n;

	*known = 0;
	while (c != NULL && c[1] != '\0' && c[1] != ' ')
		c = strchr(c + 1, ':');   /* "CUDA_MODULE_LOADING set to: LAZY" vs urls */
	if (c == NULL || c == s)
		return 0;
	n = (size_t)(c - s);
	*voff = n + 1;
	while (s[*voff] == ' ')
		(*voff)++;
	while (n > 0 && s[n - 1] == ' ')
		n--;
	if (n == 0)
		return 0;
	if (is_known(s, n)) {
		*known = 1;
		return n;
	}
	if (n > 60 || !isalpha((unsigned char)s[0]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr(" _()./-", s[i]))
			return 0;
	return n;
}

/* A line, made ready: trailing blanks, indentation and a quote marker go. */
static char *
clean_line(char *l)
{
	const char *s = l;
	size_t n = strlen(l);

	pipline_unpaste(&s, &n);
	l += s - l;
	l[n] = '\0';
	return l;
}

/* A markdown fence opens or closes a block: "```", "```text", "``` bash"
 * are dropped; "```Collecting environment..." keeps its text. */
static char *
strip_fence(char *l)
{
	if (strncmp(l, "```", 3) != 0 && strncmp(l, "~~~", 3) != 0)
		return l;
	l += 3;
	while (*l == '`' || *l == '~')
		l++;
	while (*l == ' ')
		l++;
	return strchr(l, ' ') == NULL ? l + strlen(l) : l;
}

/* "Collecting environment information...   PyTorch version: 2.7" (two
 * lines joined in a paste) keeps what follows the banner. */
static char *
strip_banner(char *l)
{
	static const char banner[] = "Collecting environment information...";
	char *b = strstr(l, banner);

	if (b == NULL)
		return l;
	b += sizeof banner - 1;
	while (*b == ' ' || *b == '\t')
		b++;
	return b;
}

/* "GPU 0: NVIDIA H100 (UUID: GPU-...)" -> "NVIDIA H100"; MIG lines and
 * empty names give NULL. */
static json_t *
gpu_name(const char *l)
{
	const char *p = l;
	char buf[512];
	size_t n;

	if (strncmp(l, "MIG ", 4) == 0)
		return NULL;
	if (strncmp(l, "GPU ", 4) == 0 && isdigit((unsigned char)l[4])) {
		p = strchr(l, ':');
		if (p == NULL)
			return NULL;
		p++;
	}
	while (*p == ' ')
		p++;
	snprintf(buf, sizeof buf, "%s", p);
	char *uuid = strstr(buf, " (UUID:");
	if (uuid != NULL)
		*uuid = '\0';
	n = strlen(buf);
	while (n > 0 && buf[n - 1] == ' ')
		buf[--n] = '\0';
	if (n == 0 || collect_env_is_null_word(buf))
		return NULL;
	return json_string(buf);
}

/* The cuDNN version in a library path: libcudnn_ops.so.9.1.0 -> 9.1.0;
 * cudnn_ops_infer64_8.dll -> 8. */
static int
cudnn_of_path(const char *l, char *out, size_t len)
{
	const char *p = strstr(l, "cudnn");
	const char *so = p ? strstr(p, ".so.") : NULL;

	if (so != NULL && isdigit((unsigned char)so[4])) {
		size_t n = strspn(so + 4, "0123456789.");
		snprintf(out, len, "%.*s", (int)n, so + 4);
		return 0;
	}
	const char *dll = p ? strstr(p, ".dll") : NULL;
	if (dll != NULL) {
		const char *u = dll;
		while (u > p && isdigit((unsigned char)u[-1]))
			u--;
		if (u < dll && u[-1] == '_') {
			snprintf(out, len, "%.*s", (int)(dll - u), u);
			return 0;
		}
	}
	return -1;
}

static void
add_unique(json_t *list, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v)
		if (strcmp(json_string_value(v), s) == 0)
			return;
	json_array_append_new(list, json_string(s));
}

/* raw[label] gets a following line appended (multi-line values). */
static void
raw_append(json_t *raw, const char *label, const char *line)
{
	const char *old = json_string_value(json_object_get(raw, label));

	if (old == NULL || *old == '\0')
		json_object_set_new(raw, label, json_string(line));
	else
		json_object_set_new(raw, label, json_sprintf("%s\n%s", old, line));
}

enum block { B_NONE, B_GPU, B_CUDNN, B_CPU, B_LIBS, B_OTHER };

struct ce {
	json_t *raw, *gpus, *cudnn, *cpu, *libs;
	enum block block;
	char label[128];
	int known_seen;
};

/* One label line: store it and open the block it starts. */
static void
take_label(struct ce *c, const char *l, size_t n, size_t voff)
{
	const char *v = l + voff;
	json_t *g;
	snprintf(c->label, sizeof c->label, "%.*s", (int)n, l);
	if (json_object_get(c->raw, c->label) == NULL)
		json_object_set_new(c->raw, c->label, json_string(v));
	c->block = B_OTHER;
	if (strcmp(c->label, "GPU models and configuration") == 0) {
		c->block = B_GPU;
		if (*v != '\0' && (g = gpu_name(v)) != NULL)
			json_array_append_new(c->gpus, g);
	} else if (strcmp(c->label, "cuDNN version") == 0) {
		c->block = B_CUDNN;
		char ver[64];
		if (cudnn_of_path(v, ver, sizeof ver) == 0)
			add_unique(c->cudnn, ver);
	} else if (strcmp(c->label, "CPU") == 0) {
		c->block = B_CPU;
	} else if (strcmp(c->label, "Versions of relevant libraries") == 0) {
		c->block = B_LIBS;
	}
}

/* One line inside the report. */
static void
take_line(struct ce *c, const char *l)
{
	int known;
	size_t n, voff = 0;
	json_t *g;
	char ver[64];

	if (*l == '\0' || strncmp(l, "===", 3) == 0) {
		if (c->block != B_LIBS || *l != '\0')
			c->block = B_NONE;
		return;
	}
	n = label_of(l, &known, &voff);
	if (c->block == B_CPU) {            /* lscpu: "Architecture: x86_64" */
		if (known && c->known_seen) {
			take_label(c, l, n, voff);
		} else if (json_array_size(c->cpu) < KD_CAP_CE_LIST) {
			json_array_append_new(c->cpu, json_string(l));
		}
		return;
	}
	if (c->block == B_LIBS && l[0] == '[') {
		if (json_array_size(c->libs) < KD_CAP_CE_LIST)
			json_array_append_new(c->libs, json_string(l));
		return;
	}
	if (c->block == B_GPU && !known &&
	    ((strncmp(l, "GPU ", 4) == 0 && isdigit((unsigned char)l[4])) ||
	     strncmp(l, "MIG ", 4) == 0 || n == 0)) {
		raw_append(c->raw, c->label, l);
		if ((g = gpu_name(l)) != NULL && json_array_size(c->gpus) < KD_CAP_CE_LIST)
			json_array_append_new(c->gpus, g);
		return;
	}
	if (c->block == B_CUDNN && !known && cudnn_of_path(l, ver, sizeof ver) == 0) {
		raw_append(c->raw, c->label, l);
		add_unique(c->cudnn, ver);
		return;
	}
	if (n > 0) {
		take_label(c, l, n, voff);
		return;
	}
	/* anything else (a warning inside the report) is left out */
}

static json_t *
value_or_null(const json_t *raw, const char *label)
{
	const char *v = json_string_value(json_object_get(raw, label));

	return collect_env_is_null_word(v) ? json_null() : json_string(v);
}

static json_t *
bool_of(const json_t *raw, const char *label)
{
	const char *v = json_string_value(json_object_get(raw, label));

	if (v == NULL)
		return json_null();
	if (strcmp(v, "True") == 0 || strcmp(v, "Yes") == 0)
		return json_true();
	if (strcmp(v, "False") == 0 || strcmp(v, "No") == 0)
		return json_false();
	return json_null();
}

/* The tree from what was read. */
static json_t *
build(struct ce *c, const char *name)
{
	json_t *o = json_object();
	const json_t *raw = c->raw;
	const char *py = json_string_value(json_object_get(raw, "Python version"));
	const char *os = json_string_value(json_object_get(raw, "OS"));
	const char *plat = json_string_value(json_object_get(raw, "Python platform"));
	const char *cud = json_string_value(json_object_get(raw, "cuDNN version"));

	json_object_set_new(o, "source", json_string(name));
	json_object_set_new(o, "layout", json_string(
		json_object_get(raw, "ROCM used to build PyTorch") ? "new" : "old"));
	json_object_set_new(o, "torch_version", value_or_null(raw, "PyTorch version"));
	json_object_set_new(o, "cuda_build", value_or_null(raw, "CUDA used to build PyTorch"));
	json_object_set_new(o, "rocm_build", value_or_null(raw, "ROCM used to build PyTorch"));
	json_object_set_new(o, "cuda_available", bool_of(raw, "Is CUDA available"));
	json_object_set(o, "gpus", c->gpus);
	json_object_set_new(o, "gpu_count", json_integer((json_int_t)json_array_size(c->gpus)));
	json_object_set_new(o, "driver_version", value_or_null(raw, "Nvidia driver version"));
	json_object_set_new(o, "os", value_or_null(raw, "OS"));
	if (os != NULL && !collect_env_is_null_word(os)) {
		const char *open = strrchr(os, '(');
		size_t n = strlen(os);
		if (open != NULL && os[n - 1] == ')' && open > os && open[-1] == ' ')
			json_object_set_new(o, "os_arch", json_stringn(open + 1,
					    (size_t)(os + n - 1 - open - 1)));
	}
	if (collect_env_is_null_word(py))
		json_object_set_new(o, "python_version", json_null());
	else
		json_object_set_new(o, "python_version", json_stringn(py, strcspn(py, " ")));
	if (json_array_size(c->cudnn) == 1)
		json_object_set(o, "cudnn_version", json_array_get(c->cudnn, 0));
	else if (json_array_size(c->cudnn) > 1)
		json_object_set(o, "cudnn_version", c->cudnn);
	else if (collect_env_is_null_word(cud) || strncmp(cud, "Probably", 8) == 0)
		json_object_set_new(o, "cudnn_version", json_null());
	else
		json_object_set_new(o, "cudnn_version", json_string(cud));
	json_object_set_new(o, "cuda_runtime", value_or_null(raw, "CUDA runtime version"));
	json_object_set_new(o, "hip_runtime", value_or_null(raw, "HIP runtime version"));
	json_object_set_new(o, "miopen_runtime", value_or_null(raw, "MIOpen runtime version"));
	json_object_set_new(o, "gcc_version", value_or_null(raw, "GCC version"));
	json_object_set_new(o, "cmake_version", value_or_null(raw, "CMake version"));
	json_object_set_new(o, "libc_version", value_or_null(raw, "Libc version"));
	json_object_set_new(o, "python_platform", value_or_null(raw, "Python platform"));
	json_object_set_new(o, "is_debug_build", bool_of(raw, "Is debug build"));
	json_object_set_new(o, "wsl", json_boolean(plat != NULL &&
		(strstr(plat, "microsoft") || strstr(plat, "Microsoft"))));
	json_object_set(o, "cpu", c->cpu);
	json_object_set(o, "libraries", c->libs);
	json_object_set(o, "raw", c->raw);
	return o;
}

/* Where the report starts: the first line holding a known label. */
static int
report_start(char **lines, size_t n)
{
	int known;
	size_t voff;

	for (size_t i = 0; i < n; i++)
		if (label_of(lines[i], &known, &voff) > 0 && known &&
		    strncmp(lines[i], "CPU", 3) != 0 && strncmp(lines[i], "Versions", 8) != 0)
			return (int)i;
	return -1;
}

int
collect_env_parse(const char *text, size_t len, const char *name, json_t **out,
		  struct kd_err *err)
{
	char *buf, **lines;
	size_t n = 0;
	struct ce c;
	int start, rc = 0;

	*out = NULL;
	if (memchr(text, '\0', len) != NULL)
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "a binary file, not the text of collect_env");
	/* over-long lines and text that is not UTF-8 are refused, with the line */
	if ((rc = pipline_check_text(text, len, name, err)) != 0)
		return rc;
	buf = malloc(len + 1);
	lines = calloc(KD_CAP_CE_LINES, sizeof *lines);
	if (buf == NULL || lines == NULL) {
		free(buf);
		free(lines);
		return kd_err_set(err, KD_EENV, name, 0, "out of memory");
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	/* split on \n keeping empty lines (they end blocks) */
	for (char *p = buf; p != NULL && n < KD_CAP_CE_LINES;) {
		char *nl = strchr(p, '\n');
		if (nl != NULL)
			*nl = '\0';
		lines[n++] = strip_banner(strip_fence(clean_line(p)));
		p = nl ? nl + 1 : NULL;
	}
	start = report_start(lines, n);
	if (start < 0) {
		rc = kd_err_set(err, KD_EINPUT, name, 0,
				"not the output of python -m torch.utils.collect_env "
				"(no \"PyTorch version:\" line)");
		goto out;
	}
	memset(&c, 0, sizeof c);
	c.raw = json_object();
	c.gpus = json_array();
	c.cudnn = json_array();
	c.cpu = json_array();
	c.libs = json_array();
	c.known_seen = 1;
	for (size_t i = (size_t)start; i < n; i++)
		take_line(&c, lines[i]);
	size_t nknown = 0;
	for (size_t i = 0; i < sizeof known_labels / sizeof known_labels[0]; i++)
		nknown += json_object_get(c.raw, known_labels[i]) != NULL;
	if (json_object_get(c.raw, "PyTorch version") == NULL && nknown < 3)
		rc = kd_err_set(err, KD_EINPUT, name, start + 1,
				"not the output of python -m torch.utils.collect_env "
				"(no \"PyTorch version:\" line)");
	else
		*out = build(&c, name);
	json_decref(c.raw);
	json_decref(c.gpus);
	json_decref(c.cudnn);
	json_decref(c.cpu);
	json_decref(c.libs);
out:
	free(lines);
	free(buf);
	return rc;
}

int
inspect_collect_env(const char *path, json_t **out, struct kd_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = fsutil_read_file(path, KD_CAP_TEXT_FILE, &buf, &len, err);

	if (rc != 0)
		return rc;
	rc = collect_env_parse(buf, len, path, out, err);
	free(buf);
	return rc;
}
