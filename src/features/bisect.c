/*
 * bisect.c - why this machine's sample result differs from a dossier's,
 * one layer at a time (bisect.h).
 *
 * Every run is the entry point of stage 6 (code.entry_point, "python"
 * the project's interpreter) in a folder of its own under STATE/bisect/,
 * a step of the runner: a timeout (KD_TIMEOUT_SAMPLE), a log, nothing
 * left running.  The plan (every vector, every variable set or unset)
 * is printed before the first run.  A layer's run sets that layer as the
 * dossier has it and nothing else; its outputs are compared with the
 * dossier's outputs bit for bit (why_tensor, why_trajectory) and under
 * result.rule (cmp_run).  A layer explains the difference when it makes
 * it vanish (bit for bit); it shrinks it when the largest difference is
 * smaller or the trajectories part later than here.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/argv.h"
#include "kernodeck/bisect.h"
#include "kernodeck/compare.h"
#include "kernodeck/ctx.h"
#include "kernodeck/dossier-lock.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/hash.h"
#include "kernodeck/outputs.h"
#include "kernodeck/place.h"
#include "kernodeck/quote.h"
#include "kernodeck/reference.h"
#include "kernodeck/replay.h"
#include "kernodeck/rows.h"
#include "kernodeck/run.h"
#include "kernodeck/runenv.h"
#include "kernodeck/sha256sums.h"
#include "kernodeck/stage.h"
#include "kernodeck/step.h"
#include "kernodeck/why.h"
#include "kernodeck/venv.h"
#include "kernodeck/yamlio.h"
#include "kernodeck/obs-rebuild.h"
#include "kernodeck/obs-system.h"

#define BISECT_MAX_RUNS 64    /* runs of one bisect, halving included */
#define BISECT_DEPTH    32    /* folders below the project copied, at most */

/* The precision and determinism settings the probe records (compute
 * stage, probe.steps[precision]) that the settings layer can set before
 * the entry point's script runs. */
static const char *const settings_keys[] = {
	"matmul_allow_tf32", "cudnn_allow_tf32", "float32_matmul_precision",
	"cudnn_benchmark", "cudnn_deterministic", "deterministic_algorithms",
	"num_threads",
};

/* The wrapper the settings layer runs with the project's interpreter:
 * argv[1] the settings (JSON), then the script and its arguments. */
static const char settings_wrapper[] =
	"import json, os, runpy, sys\n"
	"import torch\n"
	"s = json.loads(sys.argv[1])\n"
	"b = torch.backends\n"
	"if 'num_threads' in s: torch.set_num_threads(int(s['num_threads']))\n"
	"if 'matmul_allow_tf32' in s: b.cuda.matmul.allow_tf32 = bool(s['matmul_allow_tf32'])\n"
	"if 'cudnn_allow_tf32' in s: b.cudnn.allow_tf32 = bool(s['cudnn_allow_tf32'])\n"
	"if 'float32_matmul_precision' in s: torch.set_float32_matmul_precision(str(s['float32_matmul_precision']))\n"
	"if 'cudnn_benchmark' in s: b.cudnn.benchmark = bool(s['cudnn_benchmark'])\n"
	"if 'cudnn_deterministic' in s: b.cudnn.deterministic = bool(s['cudnn_deterministic'])\n"
	"if 'deterministic_algorithms' in s: torch.use_deterministic_algorithms(bool(s['deterministic_algorithms']))\n"
	"sys.argv = sys.argv[2:]\n"
	"sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))\n"
	"runpy.run_path(sys.argv[0], run_name='__main__')\n";

struct bisect {
	struct kd_ctx *ctx;
	const struct bisect_opts *o;
	char *dossier;          /* the dossier's folder */
	json_t *dy;             /* dossier.yaml */
	json_t *want_env;       /* the dossier's run-changing variables */
	json_t *env_diff;       /* [names] that differ from here */
	json_t *settings;       /* {key: value} the dossier's that differ from here */
	const char *settings_none;   /* why the settings layer has nothing, or NULL */
	json_t *data_items;     /* [{path, at}] checked under --data */
	json_t *lock_head;      /* the dossier lock's option lines (--no-index, --find-links) */
	json_t *lock_there;     /* {name: line} the dossier's lock */
	json_t *lock_here;      /* {name: line} this project's */
	json_t *pkg_diff;       /* [names] whose line differs */
	const char *pkg_none;   /* why the packages layer cannot run, or NULL */
	char *pkg_vpy;          /* the packages layer's side venv's interpreter, once made */
	char pkg_buf[600];
	char **argv;            /* the entry point's vector (the project's interpreter) */
	const char *script;     /* its script, for the settings layer, or NULL */
	char *dir;              /* STATE/bisect */
	json_t *runs;           /* every run's record */
	json_t *here;           /* the comparison of the run as here */
	int nrun;
};

static void
say(const struct bisect *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
say(const struct bisect *b, const char *fmt, ...)
{
	va_list ap;

	if (b->o->plan == NULL)
		return;
	va_start(ap, fmt);
	vfprintf(b->o->plan, fmt, ap);
	va_end(ap);
	fputc('\n', b->o->plan);
	fflush(b->o->plan);
}

int
bisect_parse_layers(const char *list, unsigned *layers, const char **bad, size_t *badlen)
{
	static const struct { const char *name; unsigned bit; } names[] = {
		{ "env", BISECT_ENV }, { "settings", BISECT_SETTINGS },
		{ "packages", BISECT_PACKAGES }, { "data", BISECT_DATA },
	};
	const char *p = list;

	*layers = 0;
	while (*p != '\0') {
		size_t n = strcspn(p, ",");
		size_t i;
		for (i = 0; i < sizeof names / sizeof names[0]; i++)
			if (strlen(names[i].name) == n && strncmp(names[i].name, p, n) == 0)
				break;
		if (i == sizeof names / sizeof names[0]) {
			*bad = p;
			*badlen = n;
			return -1;
		}
		*layers |= names[i].bit;
		p += n;
		if (*p == ',')
			p++;
	}
	if (*layers == 0) {
		*bad = list;
		*badlen = 0;
		return -1;
	}
	return 0;
}

/* --- the dossier --- */

static int
load_dossier(struct bisect *b, struct kd_err *err)
{
	struct stat st;
	struct yamlio_doc doc;
	struct sha256sums sums;
	struct sha256sums_report rep;
	char *file, *sp;
	int rc;

	if (stat(b->o->dossier, &st) != 0)
		return kd_err_sys(err, KD_EINPUT, b->o->dossier, errno, "%s: no such dossier",
				  b->o->dossier);
	if (S_ISDIR(st.st_mode)) {
		b->dossier = strdup(b->o->dossier);
	} else {
		const char *sl = strrchr(b->o->dossier, '/');
		b->dossier = sl ? strndup(b->o->dossier, (size_t)(sl - b->o->dossier)) : strdup(".");
	}
	file = fsutil_join(b->dossier, "dossier.yaml");
	if (file == NULL || !fsutil_exists(file)) {
		rc = kd_err_set(err, KD_EINPUT, b->o->dossier, 0,
				"%s: no dossier.yaml there (give the folder kernodeck dossier wrote)",
				b->o->dossier);
		free(file);
		return rc;
	}
	/* a dossier may come from someone else: it must verify first */
	sp = fsutil_join(b->dossier, "SHA256SUMS");
	if (sp == NULL || !fsutil_exists(sp)) {
		free(sp);
		free(file);
		return kd_err_set(err, KD_EINPUT, b->dossier, 0,
				  "%s: no SHA256SUMS: not a dossier kernodeck wrote", b->dossier);
	}
	rc = sha256sums_load(sp, &sums, err);
	free(sp);
	if (rc != 0) {
		free(file);
		return KD_EINPUT;
	}
	memset(&rep, 0, sizeof rep);
	rc = sha256sums_verify(b->dossier, &sums, "SHA256SUMS", &rep, err);
	if (rc == KD_EFAIL)
		rc = kd_err_set(err, KD_EINPUT, b->dossier, 0,
				"%s does not verify against its SHA256SUMS (first: %s %s)",
				b->dossier, rep.n ? rep.v[0].path : "?", rep.n ? rep.v[0].what : "?");
	sha256sums_report_free(&rep);
	sha256sums_free(&sums);
	if (rc != 0) {
		free(file);
		return rc;
	}
	rc = yamlio_load_file(file, &doc, err);
	free(file);
	if (rc != 0)
		return KD_EINPUT;
	if (!json_is_object(doc.root) || !json_is_string(json_object_get(doc.root, "kind"))) {
		yamlio_doc_free(&doc);
		return kd_err_set(err, KD_EINPUT, b->dossier, 1, "%s/dossier.yaml: not a dossier",
				  b->dossier);
	}
	b->dy = json_incref(doc.root);
	yamlio_doc_free(&doc);
	return 0;
}

static const json_t *
dossier_stage(const json_t *dy, const char *id)
{
	size_t i;
	json_t *s;

	json_array_foreach(json_object_get(dy, "stages"), i, s)
		if (json_is_string(json_object_get(s, "id")) &&
		    strcmp(json_string_value(json_object_get(s, "id")), id) == 0)
			return json_object_get(s, "observations");
	return NULL;
}

/* The probe's precision step in a compute observation, or NULL. */
static const json_t *
precision_of(const json_t *compute)
{
	size_t i;
	json_t *s;

	json_array_foreach(json_object_get(compute, "steps"), i, s)
		if (json_is_string(json_object_get(s, "step")) &&
		    strcmp(json_string_value(json_object_get(s, "step")), "precision") == 0)
			return s;
	return NULL;
}

/* The env layer: the dossier's allow-listed variables, and which differ
 * from this process's environment (an unset on one side differs). */
static void
env_layer(struct bisect *b)
{
	const json_t *env = json_object_get(b->dy, "environment");
	const char *const *names;
	size_t n;

	if (!json_is_object(env))
		env = json_object_get(dossier_stage(b->dy, "system"), "env");
	b->want_env = json_is_object(env) ? runenv_filter(env) : json_object();
	b->env_diff = json_array();
	names = runenv_names(&n);
	for (size_t i = 0; i < n; i++) {
		const char *here = getenv(names[i]);
		const char *there = json_string_value(json_object_get(b->want_env, names[i]));
		if ((here == NULL) != (there == NULL) ||
		    (here != NULL && strcmp(here, there) != 0))
			json_array_append_new(b->env_diff, json_string(names[i]));
	}
}

/* The settings layer: the dossier's recorded settings that differ from
 * this project's own probe. */
static void
settings_layer(struct bisect *b)
{
	const json_t *there = precision_of(dossier_stage(b->dy, "compute"));
	const json_t *here = precision_of(kd_ctx_obs(b->ctx, stage_pos(&kd_stage_compute)));

	b->settings = json_object();
	if (there == NULL) {
		b->settings_none = "the dossier records no precision or determinism settings";
		return;
	}
	for (size_t i = 0; i < sizeof settings_keys / sizeof settings_keys[0]; i++) {
		json_t *v = json_object_get(there, settings_keys[i]);
		if (v == NULL || json_is_null(v) || (json_is_string(v) &&
		    strncmp(json_string_value(v), "unavailable", 11) == 0))
			continue;   /* an older or newer PyTorch lacks it */
		if (here != NULL && json_equal(v, json_object_get(here, settings_keys[i])))
			continue;
		json_object_set(b->settings, settings_keys[i], v);
	}
	if (json_object_size(b->settings) == 0)
		b->settings_none = here ? "the dossier's precision and determinism settings are this "
			"machine's" : "the dossier records no precision or determinism setting that "
			"can be set";
	else if (b->script == NULL)
		b->settings_none = "the entry point is not a Python script: its settings cannot be "
			"set before it runs";
}

/* The data layer: each data item the dossier's reference records (and
 * the sample), found under --data as DIR/PATH or DIR/NAME and checked by
 * its SHA-256.  0, or KD_EINPUT naming the item. */
static int
data_layer(struct bisect *b, struct kd_err *err)
{
	const json_t *ref = json_object_get(b->dy, "reference");
	json_t *items = json_array(), *it;
	size_t i;
	int rc = 0;

	b->data_items = json_array();
	json_array_foreach(json_object_get(ref, "data"), i, it)
		json_array_append(items, it);
	if (json_is_object(yamlio_get(ref, "result.sample")))
		json_array_append(items, yamlio_get(ref, "result.sample"));
	json_array_foreach(items, i, it) {
		const char *path = json_string_value(json_object_get(it, "path"));
		const char *want = json_string_value(json_object_get(it, "sha256"));
		const char *name;
		char *at = NULL, hex[65];
		struct stat st;
		int hr;

		if (path == NULL || want == NULL)
			continue;
		if (path[0] == '/' || !sha256sums_path_safe(path)) {
			rc = kd_err_set(err, KD_EINPUT, b->dossier, 0, "data %s: not a path inside "
					"the project: cannot be put where the project reads it", path);
			break;
		}
		name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		at = fsutil_join(b->o->data, path);
		if (at != NULL && !fsutil_exists(at)) {
			free(at);
			at = fsutil_join(b->o->data, name);
		}
		if (at == NULL || !fsutil_exists(at)) {
			rc = kd_err_set(err, KD_EINPUT, b->o->data, 0, "data %s: not found under --data "
					"%s (as %s or %s)", path, b->o->data, path, name);
			free(at);
			break;
		}
		if (stat(at, &st) == 0 && S_ISDIR(st.st_mode))
			hr = hash_folder(at, NULL, NULL, hex, NULL, NULL, err);
		else
			hr = hash_file(at, NULL, NULL, hex, NULL, err);
		if (hr != 0 || strcmp(hex, want) != 0) {
			if (hr == 0)
				kd_err_set(err, KD_EINPUT, at, 0, "data %s: %s has SHA-256 %.12s, the "
					   "dossier records %.12s", path, at, hex, want);
			rc = KD_EINPUT;
			free(at);
			break;
		}
		/* the same item twice (the sample is often a data item too) */
		{
			size_t j;
			json_t *d;
			int seen = 0;
			json_array_foreach(b->data_items, j, d)
				seen |= strcmp(json_string_value(json_object_get(d, "path")), path) == 0;
			if (!seen)
				json_array_append_new(b->data_items, json_pack("{s:s s:s}", "path", path,
									       "at", at));
		}
		free(at);
	}
	json_decref(items);
	return rc;
}

/* A lock in pip's hash-checking form: its option lines into head (when
 * not NULL), each requirement line by its name into lines. */
static void
lock_lines(const char *text, json_t *head, json_t *lines)
{
	const char *p = text;

	while (p != NULL && *p != '\0') {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p), k;
		char *line = strndup(p, n);

		p = nl ? nl + 1 : NULL;
		if (line == NULL || line[0] == '\0' || line[0] == '#') {
			free(line);
			continue;
		}
		if (line[0] == '-') {
			if (head != NULL)
				json_array_append_new(head, json_string(line));
		} else {
			k = strcspn(line, "=<>!~ ;[");
			char *name = strndup(line, k);
			for (size_t i = 0; name != NULL && name[i]; i++)
				name[i] = name[i] == '_' || name[i] == '.' ? '-' :
					  (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
			if (name != NULL)
				json_object_set_new(lines, name, json_string(line));
			free(name);
		}
		free(line);
	}
}

/* The lock's artefacts from a find-links folder outside the recorded
 * project are not named in requirements-lock.txt (dossier_lock_folders):
 * the recorded folder, when it holds every one of them here, is added to
 * the install's --find-links; one that does not makes the layer
 * impossible, the folder named. */
static void
lock_outside_folders(struct bisect *b)
{
	const json_t *lp = yamlio_get(b->dy, "code.local_path");
	json_t *all = dossier_lock_folders(json_is_string(lp) ? json_string_value(lp) : "",
					   yamlio_get(b->dy, "origins"));
	const json_t *f, *v;
	size_t i, k;

	json_array_foreach(all, i, f) {
		const char *dir = json_string_value(json_object_get(f, "folder"));
		int here = dir != NULL && dir[0] == '/' && strstr(dir, "://") == NULL;
		if (json_object_get(f, "path") != NULL)
			continue;   /* inside the project: named in the lock */
		json_array_foreach(json_object_get(f, "files"), k, v) {
			char *p = here ? fsutil_join(dir, json_string_value(v)) : NULL;
			struct stat st;
			here = p != NULL && stat(p, &st) == 0 && S_ISREG(st.st_mode);
			free(p);
		}
		if (!here) {
			if (b->pkg_none == NULL) {
				snprintf(b->pkg_buf, sizeof b->pkg_buf, "impossible: the lock's artefacts "
					 "are not reachable here (--find-links %.400s: no such folder, "
					 "or without them)", dir ? dir : "?");
				b->pkg_none = b->pkg_buf;
			}
			continue;
		}
		json_array_append_new(b->lock_head, json_sprintf("--find-links %s", dir));
	}
	json_decref(all);
}

/* The packages layer: the dossier's lock against this project's, and
 * whether its artefacts can be reached here (folders only: --no-index). */
static void
packages_layer(struct bisect *b)
{
	char *lp = fsutil_join(b->dossier, DOSSIER_REQ_LOCK), *text = NULL, *mine;
	const json_t *rb = kd_ctx_obs(b->ctx, stage_pos(&kd_stage_rebuild));
	size_t len = 0, i;
	struct kd_err e;
	const char *k;
	json_t *v;
	int no_index = 0;

	b->lock_head = json_array();
	b->lock_there = json_object();
	b->lock_here = json_object();
	b->pkg_diff = json_array();
	if (lp == NULL || !fsutil_exists(lp) ||
	    fsutil_read_file(lp, 1 << 20, &text, &len, &e) != 0) {
		b->pkg_none = "impossible: the dossier holds no lock (" DOSSIER_REQ_LOCK ")";
		free(lp);
		return;
	}
	free(lp);
	lock_lines(text, b->lock_head, b->lock_there);
	free(text);
	/* the dossier comes from someone else: only folders and artefacts
	 * pinned by digest cross into the side venv's install */
	json_array_foreach(b->lock_head, i, v) {
		const char *o = json_string_value(v);
		if (strcmp(o, "--no-index") != 0 && (strncmp(o, "--find-links ", 13) != 0 ||
						     strstr(o, "://") != NULL)) {
			snprintf(b->pkg_buf, sizeof b->pkg_buf, "impossible: the dossier's lock holds "
				 "an option bisect does not pass on (%.200s): only --no-index and "
				 "--find-links FOLDER", o);
			b->pkg_none = b->pkg_buf;
			return;
		}
	}
	json_object_foreach(b->lock_there, k, v) {
		const char *l = json_string_value(v);
		if (strstr(l, "==") == NULL || strstr(l, " --hash=sha256:") == NULL ||
		    strstr(l, "://") != NULL || strstr(l, " @ ") != NULL) {
			snprintf(b->pkg_buf, sizeof b->pkg_buf, "impossible: the dossier's lock line "
				 "\"%.200s\" is not a version pinned by its digest", l);
			b->pkg_none = b->pkg_buf;
			return;
		}
	}
	lock_outside_folders(b);
	mine = rb ? dossier_requirements_lock(b->ctx, obs_rebuild_origins_packages(rb)) : NULL;
	lock_lines(mine, NULL, b->lock_here);
	free(mine);
	json_object_foreach(b->lock_there, k, v)
		if (!json_equal(v, json_object_get(b->lock_here, k)))
			json_array_append_new(b->pkg_diff, json_string(k));
	json_array_foreach(b->lock_head, i, v) {
		const char *o = json_string_value(v);
		if (strcmp(o, "--no-index") == 0)
			no_index = 1;
		if (strncmp(o, "--find-links ", 13) == 0) {
			const char *dir = o + 13;
			char *at = dir[0] == '/' ? strdup(dir) : fsutil_join(b->ctx->project_dir, dir);
			if (at == NULL || !fsutil_exists(at)) {
				snprintf(b->pkg_buf, sizeof b->pkg_buf, "impossible: the lock's artefacts "
					 "are not reachable here (--find-links %s: no such folder)", dir);
				b->pkg_none = b->pkg_buf;
			}
			free(at);
		}
	}
	if (!no_index && b->pkg_none == NULL)
		b->pkg_none = "impossible: the lock installs from an index; bisect installs only "
			"from the folders it names (--no-index --find-links)";
	if (b->pkg_none == NULL && json_array_size(b->pkg_diff) == 0)
		b->pkg_none = json_object_size(b->lock_there) == 0 ? "the dossier's lock installs "
			"nothing with pip" : "the dossier's lock is this project's";
}

/* A side venv, STATE/bisect/NN-packages/venv, holding this project's
 * packages with those named in names as the dossier's lock has them: its
 * interpreter (malloc'd), or NULL with err. */
static char *
side_venv(struct bisect *b, const char *rdir, const json_t *names, struct kd_err *err)
{
	const json_t *sys = kd_ctx_obs(b->ctx, stage_pos(&kd_stage_system));
	const char *base = obs_system_python_chosen_path(sys);
	int sys_site = json_is_true(yamlio_get(b->ctx->ref, "python.install.system_site_packages"));
	int no_pip = sys_site && json_is_true(yamlio_get(b->ctx->ref, "python.install.without_pip"));
	char *venv = fsutil_join(rdir, "venv"), *lock = fsutil_join(rdir, DOSSIER_REQ_LOCK);
	char *vpy = NULL, **argv;
	json_t *steps = json_array(), *v, *lines = json_object();
	struct kd_step s;
	const char *k;
	size_t i;
	int rc;

	if (venv == NULL || lock == NULL || fsutil_mkdirs(rdir, err) != 0)
		goto fail;
	if (base == NULL)
		base = yamlio_get_str(b->ctx->ref, "python.interpreter");
	if (base == NULL) {
		kd_err_set(err, KD_EINPUT, b->ctx->ref_path, 0, "no interpreter to make a venv with "
			   "(python.interpreter)");
		goto fail;
	}
	/* the lock: the dossier's options, then each package from one side */
	json_object_update(lines, b->lock_here);
	json_array_foreach(names, i, v)
		json_object_set(lines, json_string_value(v),
				json_object_get(b->lock_there, json_string_value(v)));
	{
		char *text = NULL;
		size_t tlen = 0;
		FILE *m = open_memstream(&text, &tlen);
		int wrc;
		if (m == NULL) {
			kd_err_sys(err, KD_EENV, lock, errno, "cannot write %s", lock);
			goto fail;
		}
		json_array_foreach(b->lock_head, i, v)
			fprintf(m, "%s\n", json_string_value(v));
		json_object_foreach(lines, k, v)
			fprintf(m, "%s\n", json_string_value(v));
		wrc = fclose(m) == 0 ? fsutil_write_atomic(lock, text, tlen, 0, err)
				     : kd_err_sys(err, KD_EENV, lock, errno, "cannot write %s", lock);
		free(text);
		if (wrc != 0)
			goto fail;
	}
	memset(&s, 0, sizeof s);
	argv = venv_create_argv(base, sys_site, no_pip);
	if (argv == NULL)
		goto fail;
	/* the venv's folder is the last word of the vector */
	free(argv[argv_count(argv) - 1]);
	argv[argv_count(argv) - 1] = strdup(venv);
	rc = step_plan(b->ctx, b->o->sink, "bisect-venv", "a side venv", argv, 300, &s, steps, err);
	if (rc != 0 || !step_ok(&s)) {
		if (rc == 0)
			kd_err_set(err, KD_EENV, s.log, 0, "the side venv could not be made: see %s",
				   s.log ? s.log : "its log");
		step_free(&s);
		goto fail;
	}
	step_free(&s);
	vpy = fsutil_join(venv, "bin/python");
	memset(&s, 0, sizeof s);
	argv = venv_pip_install_argv(vpy, NULL, lock, NULL);
	rc = step_plan(b->ctx, b->o->sink, "bisect-install", "the dossier's packages", argv, 600,
		       &s, steps, err);
	if (rc != 0 || !step_ok(&s)) {
		if (rc == 0)
			kd_err_set(err, KD_EENV, s.log, 0, "the dossier's lock could not be installed in "
				   "the side venv: see %s", s.log ? s.log : "its log");
		step_free(&s);
		free(vpy);
		vpy = NULL;
		goto fail;
	}
	step_free(&s);
fail:
	json_decref(steps);
	json_decref(lines);
	free(venv);
	free(lock);
	return vpy;
}

/* --- one run --- */

/* Is rel (below the project) one of the paths a run's copy leaves out? */
static int
left_out(const struct bisect *b, const char *rel, const json_t *skip)
{
	const char *outs = yamlio_get_str(b->ctx->ref, "result.outputs");
	size_t n = strlen(b->ctx->project_dir), i;
	json_t *s;

	if (strcmp(rel, ".git") == 0 || strcmp(rel, ".venv-rebuild") == 0 ||
	    (outs != NULL && strcmp(rel, outs) == 0))
		return 1;
	/* kernodeck's folder below the project (the runs' own folders are in
	 * it: a copy of it would copy the copies) */
	if (strncmp(b->ctx->state_dir, b->ctx->project_dir, n) == 0 &&
	    b->ctx->state_dir[n] == '/' && strcmp(rel, b->ctx->state_dir + n + 1) == 0)
		return 1;
	json_array_foreach(skip, i, s)
		if (strcmp(rel, json_string_value(json_object_get(s, "path"))) == 0)
			return 1;
	return 0;
}

/* Copy the project's files below src (rel below the project) into dst:
 * folders made, files reflinked or copied (never a hard link: a run that
 * rewrites a file in place must not change the project's), links made
 * again as links. */
static int
copy_tree(const struct bisect *b, const char *src, const char *dst, const char *rel, int depth,
	  const json_t *skip, struct kd_err *err)
{
	DIR *d;
	struct dirent *de;
	int rc = 0;

	if (depth > BISECT_DEPTH)
		return 0;
	if (fsutil_mkdirs(dst, err) != 0)
		return KD_EENV;
	if ((d = opendir(src)) == NULL)
		return kd_err_sys(err, KD_EENV, src, errno, "cannot read %s", src);
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char r[PATH_MAX], *s, *t;
		struct stat st;
		enum place_how how;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(r, sizeof r, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
		if (left_out(b, r, skip))
			continue;
		s = fsutil_join(src, de->d_name);
		t = fsutil_join(dst, de->d_name);
		if (s == NULL || t == NULL || lstat(s, &st) != 0) {
			free(s);
			free(t);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			rc = copy_tree(b, s, t, r, depth + 1, skip, err);
		} else if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlink(s, target, sizeof target - 1);
			if (n > 0) {
				target[n] = '\0';
				if (symlink(target, t) != 0)
					rc = kd_err_sys(err, KD_EENV, t, errno, "cannot make the link %s", t);
			}
		} else if (S_ISREG(st.st_mode)) {
			if (place_tree_flags(s, t, PLACE_NO_HARDLINK, &how, err) != 0)
				rc = KD_EENV;
		}
		free(s);
		free(t);
	}
	closedir(d);
	return rc;
}

/* The vector of one run: the entry point, or the settings wrapper
 * before its script. */
static char **
run_argv(const struct bisect *b, const json_t *settings, const char *python)
{
	size_t n = argv_count(b->argv), k = 0;
	char **v = calloc(n + 5, sizeof *v);
	char *js;

	if (v == NULL)
		return NULL;
	v[k++] = strdup(python ? python : b->argv[0]);
	if (settings != NULL && json_object_size(settings) > 0) {
		js = json_dumps(settings, JSON_COMPACT | JSON_SORT_KEYS);
		v[k++] = strdup("-c");
		v[k++] = strdup(settings_wrapper);
		v[k++] = js;
		/* the interpreter's own options are dropped: the script and its
		 * arguments follow */
		for (size_t i = 1; i < n; i++)
			if (strcmp(b->argv[i], b->script) == 0) {
				for (; i < n; i++)
					v[k++] = strdup(b->argv[i]);
				break;
			}
	} else {
		for (size_t i = 1; i < n; i++)
			v[k++] = strdup(b->argv[i]);
	}
	v[k] = NULL;
	for (size_t i = 0; i < k; i++)
		if (v[i] == NULL) {
			argv_free(v);
			return NULL;
		}
	return v;
}

/* The variables of a run that sets the env layer's names in names
 * (NULL: none): env_set "NAME=VALUE" and env_unset "NAME". */
static void
run_env(const struct bisect *b, const json_t *names, char ***set, char ***unset)
{
	size_t n = names ? json_array_size(names) : 0, ks = 0, ku = 0;
	json_t *v;
	size_t i;

	*set = calloc(n + 2, sizeof **set);
	*unset = calloc(n + 1, sizeof **unset);
	if (*set == NULL || *unset == NULL)
		return;
	(*set)[ks++] = strdup("PYTHONUNBUFFERED=1");
	json_array_foreach(names, i, v) {
		const char *name = json_string_value(v);
		const char *val = json_string_value(json_object_get(b->want_env, name));
		if (val != NULL) {
			size_t len = strlen(name) + strlen(val) + 2;
			char *kv = malloc(len);
			if (kv != NULL)
				snprintf(kv, len, "%s=%s", name, val);
			(*set)[ks++] = kv;
		} else {
			(*unset)[ku++] = strdup(name);
		}
	}
}

static void
strv_free(char **v)
{
	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* One run's outputs against the dossier's: {same (bit for bit), tensors:
 * [why_tensor...], trajectory: why_trajectory or null, rule: {pass,
 * mismatched, max_abs}, largest}. */
static json_t *
compare_outputs(const struct bisect *b, const char *outdir)
{
	const json_t *ref = b->ctx->ref;
	const char *tensor = yamlio_get_str(ref, "result.tensor");
	const char *idcol = yamlio_get_str(ref, "result.ids.column");
	const char *idkey = yamlio_get_str(ref, "result.ids.key");
	char *dout = fsutil_join(b->dossier, "outputs");
	json_t *r = json_object(), *tensors = json_array(), *notes = json_array();
	DIR *d = dout ? opendir(dout) : NULL;
	struct dirent *de;
	double largest = 0;
	int same = 1, compared = 0;
	json_t *files = yamlio_get(ref, "result.files");
	const char *main_file = json_string_value(json_array_get(files, 0));

	while (d != NULL && (de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		char *pa, *pb;
		struct kd_err e;
		json_t *t = NULL;
		int is_npy = n > 4 && strcmp(de->d_name + n - 4, ".npy") == 0;
		int is_jsonl = n > 6 && strcmp(de->d_name + n - 6, ".jsonl") == 0;

		if (!is_npy && !is_jsonl)
			continue;
		pa = fsutil_join(dout, de->d_name);
		pb = fsutil_join(outdir, de->d_name);
		kd_err_clear(&e);
		if (pb == NULL || !fsutil_exists(pb)) {
			same = 0;
			json_array_append_new(notes, json_sprintf("%s: not written by this run",
								  de->d_name));
		} else {
			compared++;
			t = is_npy ? why_tensor(de->d_name, pa, pb, NULL, &e) :
			    why_trajectory(de->d_name, pa, pb, &e);
			if (t != NULL) {
				double l = json_number_value(json_object_get(t, "largest"));
				same = 0;
				if (l > largest)
					largest = l;
				json_array_append_new(tensors, t);
			} else if (e.msg[0] != '\0') {
				same = 0;
				json_array_append_new(notes, json_sprintf("%s: %s", de->d_name, e.msg));
			}
		}
		free(pa);
		free(pb);
	}
	if (d != NULL)
		closedir(d);
	/* the trajectory: the dossier's uninterrupted resume run when its
	 * outputs hold none */
	{
		const char *mp = yamlio_get_str(ref, "resume.metrics");
		const char *name = mp ? strrchr(mp, '/') : NULL;
		char *pa = NULL, *pb = NULL, *po = NULL;
		name = name ? name + 1 : NULL;
		if (name != NULL && strchr(name, '{') == NULL) {
			po = fsutil_join(dout, name);
			char rel[PATH_MAX];
			snprintf(rel, sizeof rel, "kernodeck/resume/uninterrupted/%s", name);
			pa = fsutil_join(b->dossier, rel);
			pb = fsutil_join(outdir, name);
		}
		if (po != NULL && !fsutil_exists(po) && pa != NULL && fsutil_exists(pa) &&
		    pb != NULL && fsutil_exists(pb)) {
			struct kd_err e;
			json_t *t;
			kd_err_clear(&e);
			t = why_trajectory(name, pa, pb, &e);
			compared++;
			if (t != NULL) {
				double l = json_number_value(json_object_get(t, "largest"));
				same = 0;
				if (l > largest)
					largest = l;
				json_object_set_new(r, "trajectory", t);
			}
		}
		free(po);
		free(pa);
		free(pb);
	}
	/* under the declared rule: the main output against the dossier's */
	if (main_file != NULL) {
		struct cmp_rule rule;
		struct kd_output oa, ob;
		struct kd_err e;
		char why[512], *pa = fsutil_join(dout, main_file), *pb = fsutil_join(outdir, main_file);
		memset(&oa, 0, sizeof oa);
		memset(&ob, 0, sizeof ob);
		if (cmp_rule_parse(yamlio_get(ref, "result.rule"), &rule, why, sizeof why) != 0) {
			json_object_set_new(r, "rule", json_pack("{s:s}", "error", why));
		} else if (pa && pb && fsutil_exists(pa) && fsutil_exists(pb) &&
			   output_load(pa, NULL, tensor, idcol ? idcol : idkey, &oa, &e) == 0) {
			if (output_load(pb, NULL, tensor, idcol ? idcol : idkey, &ob, &e) == 0) {
				struct cmp_report cr;
				cmp_run(&rule, &ob.data, &oa.data, &cr);
				json_object_set_new(r, "rule", cr.error ?
					json_pack("{s:s}", "error", cr.msg) :
					json_pack("{s:b s:I s:I s:f}", "pass", cr.pass, "compared",
						  (json_int_t)cr.compared, "mismatched",
						  (json_int_t)cr.mismatched, "max_abs", cr.max_abs));
				output_free(&ob);
			}
			output_free(&oa);
		}
		free(pa);
		free(pb);
	}
	if (compared == 0) {
		same = 0;
		json_array_append_new(notes, json_string("nothing of the dossier's outputs to compare"));
	}
	json_object_set_new(r, "same", json_boolean(same));
	json_object_set_new(r, "tensors", tensors);
	json_object_set_new(r, "largest", json_real(largest));
	if (json_array_size(notes) > 0)
		json_object_set_new(r, "notes", notes);
	else
		json_decref(notes);
	free(dout);
	return r;
}

/* Where the trajectory parts (a large number when it does not). */
static json_int_t
parts_at(const json_t *c)
{
	const json_t *t = json_object_get(c, "trajectory");
	size_t i;
	json_t *x;
	json_int_t at = (json_int_t)LLONG_MAX;

	if (t != NULL)
		at = json_integer_value(json_object_get(t, "first_step"));
	json_array_foreach(json_object_get(c, "tensors"), i, x)
		if (json_is_integer(json_object_get(x, "first_step")) &&
		    json_integer_value(json_object_get(x, "first_step")) < at)
			at = json_integer_value(json_object_get(x, "first_step"));
	return at;
}

/* vanishes, shrinks or stays, against the run as here. */
static const char *
outcome(const struct bisect *b, const json_t *c)
{
	double l = json_number_value(json_object_get(c, "largest"));
	double h = json_number_value(json_object_get(b->here, "largest"));

	if (json_is_true(json_object_get(c, "same")))
		return "vanishes";
	if (json_object_get(c, "notes") != NULL)
		return "stays";
	if (l < h || parts_at(c) > parts_at(b->here))
		return "shrinks";
	return "stays";
}

/* Run the entry point once, as label, with env (names of the env layer
 * to set), settings and data (items to place) set: the comparison, or
 * NULL with err. */
static json_t *
run_once(struct bisect *b, const char *label, const json_t *env, const json_t *settings,
	 const json_t *data, const char *python, struct kd_err *err)
{
	char name[64], **argv = NULL, **set = NULL, **unset = NULL, *rdir = NULL, *work = NULL;
	char *outdir = NULL, *line;
	const char *outs = yamlio_get_str(b->ctx->ref, "result.outputs");
	json_t *cmp = NULL, *rec;
	struct kd_step s;
	size_t i;
	json_t *it;
	int rc;

	if (b->nrun >= BISECT_MAX_RUNS) {
		kd_err_set(err, KD_EENV, NULL, 0, "more than %d runs", BISECT_MAX_RUNS);
		return NULL;
	}
	snprintf(name, sizeof name, "%02d-%s", ++b->nrun, label);
	rdir = fsutil_join(b->dir, name);
	work = rdir ? fsutil_join(rdir, "work") : NULL;
	if (work == NULL || (rc = copy_tree(b, b->ctx->project_dir, work, "", 0, data, err)) != 0)
		goto out;
	json_array_foreach(data, i, it) {
		char *t = fsutil_join(work, json_string_value(json_object_get(it, "path")));
		enum place_how how;
		rc = t ? place_tree(json_string_value(json_object_get(it, "at")), t, &how, err) :
		     KD_EENV;
		free(t);
		if (rc != 0)
			goto out;
	}
	argv = run_argv(b, settings, python);
	run_env(b, env, &set, &unset);
	if (argv == NULL || set == NULL || unset == NULL) {
		kd_err_set(err, KD_EENV, NULL, 0, "out of memory");
		goto out;
	}
	line = quote_argv((const char *const *)argv);
	say(b, "run %s: %s", name, line ? line : "?");
	free(line);
	memset(&s, 0, sizeof s);
	s.what = "bisect";
	s.label = name;
	s.argv = (const char *const *)argv;
	s.cwd = work;
	s.env_set = (const char *const *)set;
	s.env_unset = (const char *const *)unset;
	s.timeout_s = kd_env_seconds("KD_TIMEOUT_SAMPLE", b->ctx->timeout_sample);
	rc = step_run(b->ctx, b->o->sink, &s, err);
	rec = step_record(b->ctx, &s, rc, err);
	json_object_set_new(rec, "name", json_string(name));
	json_object_set_new(rec, "folder", json_string(kd_ctx_relpath(b->ctx, rdir)));
	if (rc != 0 || !step_ok(&s)) {
		json_array_append_new(b->runs, rec);
		if (rc == 0)
			kd_err_set(err, KD_EENV, s.log, 0, "the entry point failed in run %s: "
				   "see its log %s", name, s.log ? s.log : "(none)");
		step_free(&s);
		goto out;
	}
	step_free(&s);
	outdir = outs ? fsutil_join(work, outs) : NULL;
	cmp = compare_outputs(b, outdir ? outdir : work);
	json_object_set(rec, "comparison", cmp);
	json_array_append_new(b->runs, rec);
out:
	argv_free(argv);
	strv_free(set);
	strv_free(unset);
	free(rdir);
	free(work);
	free(outdir);
	return cmp;
}

/* --- halving inside the env layer --- */

static json_t *
concat(const json_t *a, const json_t *b2)
{
	json_t *r = json_array();

	json_array_extend(r, (json_t *)a);
	json_array_extend(r, (json_t *)b2);
	return r;
}

static json_t *
slice(const json_t *a, size_t from, size_t to)
{
	json_t *r = json_array();

	for (size_t i = from; i < to; i++)
		json_array_append(r, json_array_get(a, i));
	return r;
}

/* One run with the names of a layer set as the dossier has them: 'e'
 * variables of the env layer, 'p' packages (a side venv of their own).
 * The comparison, or NULL with err. */
static json_t *
try_set(struct bisect *b, int kind, const char *label, const json_t *names, struct kd_err *err)
{
	char rel[64], *rdir, *vpy;
	json_t *c;

	if (kind == 'e')
		return run_once(b, label, names, NULL, NULL, NULL, err);
	snprintf(rel, sizeof rel, "%02d-%s", b->nrun + 1, label);
	if ((rdir = fsutil_join(b->dir, rel)) == NULL)
		return NULL;
	vpy = side_venv(b, rdir, names, err);
	free(rdir);
	if (vpy == NULL)
		return NULL;
	c = run_once(b, label, NULL, NULL, NULL, vpy, err);
	/* the whole layer's venv serves the layers together again */
	if (b->pkg_vpy == NULL && json_equal(names, b->pkg_diff))
		b->pkg_vpy = vpy;
	else
		free(vpy);
	return c;
}

/* The smallest part of set that, with fixed, makes the difference
 * vanish (set and fixed together do): halves first, both halves when
 * neither alone does.  NULL with err when a run failed. */
static json_t *
halve(struct bisect *b, int kind, const json_t *set, const json_t *fixed, struct kd_err *err)
{
	size_t n = json_array_size(set);
	json_t *half[2], *r = NULL;

	if (n <= 1)
		return json_deep_copy(set);
	half[0] = slice(set, 0, n / 2);
	half[1] = slice(set, n / 2, n);
	for (int k = 0; k < 2 && r == NULL; k++) {
		json_t *names = concat(fixed, half[k]), *c;
		c = try_set(b, kind, kind == 'e' ? "env-half" : "packages-half", names, err);
		json_decref(names);
		if (c == NULL) {
			/* a part that does not run (a mix of packages that does not
			 * import) does not explain it: its record says why */
			kd_err_clear(err);
			continue;
		}
		if (strcmp(outcome(b, c), "vanishes") == 0)
			r = halve(b, kind, half[k], fixed, err);
		json_decref(c);
		if (r == NULL && err->msg[0] != '\0')
			goto out;
	}
	if (r == NULL) {
		/* each half needs something of the other */
		json_t *f0 = concat(fixed, half[1]), *ra = halve(b, kind, half[0], f0, err), *f1, *rb;
		json_decref(f0);
		if (ra == NULL)
			goto out;
		f1 = concat(fixed, ra);
		rb = halve(b, kind, half[1], f1, err);
		json_decref(f1);
		if (rb != NULL)
			r = concat(ra, rb);
		json_decref(ra);
		json_decref(rb);
	}
out:
	json_decref(half[0]);
	json_decref(half[1]);
	return r;
}

/* --- the plan --- */

static void
plan_run(const struct bisect *b, const char *label, const json_t *env, const json_t *settings,
	 const json_t *data)
{
	char **argv = run_argv(b, settings, NULL), **set = NULL, **unset = NULL, *line;
	size_t i;
	json_t *it;

	run_env(b, env, &set, &unset);
	line = argv ? quote_argv((const char *const *)argv) : NULL;
	say(b, "  %s:", label);
	say(b, "    $ %s", line ? line : "?");
	for (i = 0; set != NULL && set[i] != NULL; i++)
		say(b, "      set %s", set[i]);
	for (i = 0; unset != NULL && unset[i] != NULL; i++)
		say(b, "      unset %s", unset[i]);
	json_array_foreach(data, i, it)
		say(b, "      data %s from %s (SHA-256 checked)",
		    json_string_value(json_object_get(it, "path")),
		    json_string_value(json_object_get(it, "at")));
	free(line);
	argv_free(argv);
	strv_free(set);
	strv_free(unset);
}

/* --- the whole bisect --- */

static json_t *
layer_row(const char *layer, const char *result, const char *why, json_t *cmp)
{
	json_t *r = json_pack("{s:s s:s}", "layer", layer, "outcome", result);

	if (why != NULL)
		json_object_set_new(r, "why", json_string(why));
	if (cmp != NULL)
		json_object_set(r, "comparison", cmp);
	return r;
}

/* A layer's run c judged: its row (with the differing items) appended to
 * layers; when the difference vanishes, halving (kind 'e': variables, 'p':
 * packages) finds the smallest set, which explains it (noun names the
 * set); when it does not, the layer is one to try together.  0, or the
 * error of a halving run. */
static int
judge_halved(struct bisect *b, int kind, const char *layer, const char *noun, json_t *diff,
	     json_t *c, json_t *layers, json_t *explained, json_t *ran,
	     struct kd_err *err)
{
	json_t *row = layer_row(layer, outcome(b, c), NULL, c);

	json_object_set(row, "differing", diff);
	if (strcmp(outcome(b, c), "vanishes") == 0) {
		json_t *none = json_array(), *min = halve(b, kind, diff, none, err);
		json_decref(none);
		if (min == NULL) {
			json_decref(row);
			return err->code ? err->code : KD_EENV;
		}
		json_object_set_new(row, "smallest", min);
		json_array_append_new(explained, json_pack("{s:s s:O}", "layer", layer, noun, min));
	} else {
		json_array_append_new(ran, json_string(layer));
	}
	json_array_append_new(layers, row);
	return 0;
}

/* One run with the layers of ran whose bit is in mask set together, as
 * "together-L1+L2": its row appended to layers; *vpy, the side venv
 * with the dossier's packages (the packages layer's, or made on the
 * first set that needs it).
 * The comparison, or NULL with err. */
static json_t *
together_run(struct bisect *b, const json_t *ran, unsigned mask, char **vpy, json_t *layers,
	     struct kd_err *err)
{
	char label[64] = "together";
	const json_t *env = NULL, *settings = NULL, *data = NULL;
	json_t *names = json_array(), *row, *c;
	int pkg = 0;
	size_t i;

	for (i = 0; i < json_array_size(ran); i++) {
		const char *l = json_string_value(json_array_get(ran, i));
		if (!(mask & (1u << i)))
			continue;
		json_array_append_new(names, json_string(l));
		snprintf(label + strlen(label), sizeof label - strlen(label), "%c%s",
			 json_array_size(names) == 1 ? '-' : '+', l);
		if (strcmp(l, "env") == 0)
			env = b->env_diff;
		else if (strcmp(l, "settings") == 0)
			settings = b->settings;
		else if (strcmp(l, "data") == 0)
			data = b->data_items;
		else if (strcmp(l, "packages") == 0)
			pkg = 1;
	}
	if (pkg && *vpy == NULL && b->pkg_vpy != NULL)
		*vpy = strdup(b->pkg_vpy);
	if (pkg && *vpy == NULL) {
		char *rdir = fsutil_join(b->dir, "venv-together");
		*vpy = rdir ? side_venv(b, rdir, b->pkg_diff, err) : NULL;
		free(rdir);
		if (*vpy == NULL) {
			json_decref(names);
			return NULL;
		}
	}
	c = run_once(b, label, env, settings, data, pkg ? *vpy : NULL, err);
	if (c != NULL) {
		row = layer_row("together", outcome(b, c), NULL, c);
		json_object_set(row, "layers", names);
		json_array_append_new(layers, row);
	}
	json_decref(names);
	return c;
}

static unsigned
bits(unsigned m)
{
	unsigned n = 0;

	for (; m != 0; m &= m - 1)
		n++;
	return n;
}

/* No layer alone makes the difference vanish: the smallest set of the
 * layers that ran (ran, in their order) that does, together.  All of them
 * first: when they do not, none of their parts is tried (one run); then
 * the sets of two, of three..., the first that vanishes explains it.  0,
 * or the error of a run. */
static int
together(struct bisect *b, const json_t *ran, json_t *layers, json_t *explained,
	 struct kd_err *err)
{
	size_t n = json_array_size(ran);
	unsigned all = (1u << n) - 1, found = 0;
	char *vpy = NULL;
	json_t *c;
	int rc = 0;

	if (n < 2)
		return 0;
	if ((c = together_run(b, ran, all, &vpy, layers, err)) == NULL) {
		rc = err->code ? err->code : KD_EENV;
		goto out;
	}
	if (strcmp(outcome(b, c), "vanishes") == 0)
		found = all;
	json_decref(c);
	for (unsigned size = 2; found == all && size < n; size++) {
		for (unsigned m = 1; m < all && found == all; m++) {
			if (bits(m) != size)
				continue;
			if ((c = together_run(b, ran, m, &vpy, layers, err)) == NULL) {
				rc = err->code ? err->code : KD_EENV;
				goto out;
			}
			if (strcmp(outcome(b, c), "vanishes") == 0)
				found = m;
			json_decref(c);
		}
	}
	if (found != 0) {
		json_t *names = json_array();
		for (size_t i = 0; i < n; i++)
			if (found & (1u << i))
				json_array_append(names, json_array_get(ran, i));
		json_array_append_new(explained, json_pack("{s:o}", "layers", names));
	}
out:
	free(vpy);
	return rc;
}

int
bisect_run(struct kd_ctx *ctx, const struct bisect_opts *o, json_t **report, struct kd_err *err)
{
	struct bisect b = { .ctx = ctx, .o = o };
	const json_t *ep = yamlio_get(ctx->ref, "code.entry_point");
	const char *why = NULL;
	json_t *layers = json_array(), *explained = json_array(), *c, *ran = json_array();
	int uses_venv = 0, rc = 0;

	*report = NULL;
	b.runs = json_array();
	if ((rc = load_dossier(&b, err)) != 0)
		goto out;
	if ((b.argv = reference_entry_argv(ctx->project_dir, ep, &uses_venv, &why)) == NULL) {
		rc = kd_err_set(err, KD_EINPUT, ctx->ref_path, 0, "code.entry_point: %s", why);
		goto out;
	}
	if (uses_venv && access(b.argv[0], X_OK) != 0) {
		rc = kd_err_set(err, KD_EINPUT, b.argv[0], 0, "%s: the project's interpreter is "
				"missing (run the rebuild stage first)", b.argv[0]);
		goto out;
	}
	if (yamlio_get_str(ctx->ref, "result.outputs") == NULL) {
		rc = kd_err_set(err, KD_EINPUT, ctx->ref_path, 0, "result.outputs (the folder the "
				"entry point writes) is not declared");
		goto out;
	}
	b.script = reference_entry_script(ep);
	env_layer(&b);
	settings_layer(&b);
	if ((o->layers & BISECT_DATA) && o->data != NULL && (rc = data_layer(&b, err)) != 0)
		goto out;
	if (b.data_items == NULL)
		b.data_items = json_array();
	packages_layer(&b);
	b.dir = kd_ctx_path(ctx, "bisect");
	if (b.dir == NULL) {
		rc = kd_err_set(err, KD_EENV, NULL, 0, "out of memory");
		goto out;
	}

	say(&b, "bisect: the entry point runs again in %s/NN-LAYER/work (a copy of the project "
	    "without .git, the venv, kernodeck's folder and the outputs), compared with %s/outputs:",
	    b.dir, b.dossier);
	plan_run(&b, "here (nothing changed)", NULL, NULL, NULL);
	if (o->layers & BISECT_ENV) {
		if (json_array_size(b.env_diff) == 0)
			say(&b, "  env: the dossier's run-changing variables are this machine's: no run");
		else
			plan_run(&b, "env (the dossier's run-changing variables; then halving among "
				 "them: the same vector with a part of them set)", b.env_diff, NULL, NULL);
	}
	if (o->layers & BISECT_SETTINGS) {
		if (b.settings_none != NULL)
			say(&b, "  settings: %s: no run", b.settings_none);
		else
			plan_run(&b, "settings (the dossier's precision and determinism settings, set "
				 "before the script runs)", NULL, b.settings, NULL);
	}
	if (o->layers & BISECT_PACKAGES) {
		if (b.pkg_none != NULL) {
			say(&b, "  packages: %s: no run", b.pkg_none);
		} else {
			char **va = venv_create_argv("PYTHON", 0, 0), *l1 = NULL;
			size_t i;
			json_t *v;
			say(&b, "  packages (a side venv, %s/NN-packages/venv, with the dossier's lock "
			    "for the packages that differ; then halving among them, a venv each):", b.dir);
			json_array_foreach(b.pkg_diff, i, v)
				say(&b, "      %s", json_string_value(json_object_get(b.lock_there,
					json_string_value(v))));
			say(&b, "    $ %s -m venv [--system-site-packages] VENV (the rebuild's interpreter)",
			    obs_system_python_chosen_path(kd_ctx_obs(ctx, stage_pos(&kd_stage_system))) ?
			    obs_system_python_chosen_path(kd_ctx_obs(ctx, stage_pos(&kd_stage_system))) :
			    "python");
			argv_free(va);
			va = venv_pip_install_argv("VENV/bin/python", NULL, "NN-packages/" DOSSIER_REQ_LOCK,
						   NULL);
			l1 = va ? quote_argv((const char *const *)va) : NULL;
			say(&b, "    $ %s   (in %s)", l1 ? l1 : "?", ctx->project_dir);
			free(l1);
			argv_free(va);
			plan_run(&b, "then the entry point with VENV/bin/python", NULL, NULL, NULL);
		}
	}
	if (o->layers & BISECT_DATA) {
		if (o->data == NULL)
			say(&b, "  data: no --data DIR: no run");
		else
			plan_run(&b, "data (the dossier's data, checked by digest)", NULL, NULL,
				 b.data_items);
	}

	say(&b, "  then, when no layer alone makes the difference vanish: the layers that ran, "
	    "together (all of them first, then the smallest sets: two, three...), the same "
	    "vectors with their variables, settings, packages and data");

	/* the runs go into a folder of their own, made again */
	if (fsutil_exists(b.dir) && fsutil_rmtree(b.dir, err) != 0) {
		rc = KD_EENV;
		goto out;
	}
	if ((b.here = run_once(&b, "here", NULL, NULL, NULL, NULL, err)) == NULL) {
		rc = err->code ? err->code : KD_EENV;
		goto out;
	}
	json_array_append_new(layers, layer_row("here", json_is_true(json_object_get(b.here, "same")) ?
						"same" : "differs", NULL, b.here));
	if (json_is_true(json_object_get(b.here, "same"))) {
		rc = KD_EFAIL;
		goto report;
	}
	if (o->layers & BISECT_ENV) {
		if (json_array_size(b.env_diff) == 0) {
			json_array_append_new(layers, layer_row("env", "not run", "the dossier's "
				"run-changing variables are this machine's", NULL));
		} else if ((c = run_once(&b, "env", b.env_diff, NULL, NULL, NULL, err)) == NULL) {
			rc = err->code ? err->code : KD_EENV;
			goto out;
		} else {
			rc = judge_halved(&b, 'e', "env", "variables", b.env_diff, c, layers, explained,
					  ran, err);
			json_decref(c);
			if (rc != 0)
				goto out;
		}
	}
	if (o->layers & BISECT_SETTINGS) {
		if (b.settings_none != NULL) {
			json_array_append_new(layers, layer_row("settings", "not run", b.settings_none,
								NULL));
		} else if ((c = run_once(&b, "settings", NULL, b.settings, NULL, NULL, err)) == NULL) {
			rc = err->code ? err->code : KD_EENV;
			goto out;
		} else {
			json_t *row = layer_row("settings", outcome(&b, c), NULL, c);
			json_object_set(row, "settings", b.settings);
			if (strcmp(outcome(&b, c), "vanishes") == 0)
				json_array_append_new(explained, json_pack("{s:s s:O}", "layer",
					"settings", "settings", b.settings));
			else
				json_array_append_new(ran, json_string("settings"));
			json_array_append_new(layers, row);
			json_decref(c);
		}
	}
	if (o->layers & BISECT_PACKAGES) {
		if (b.pkg_none != NULL) {
			json_array_append_new(layers, layer_row("packages", strncmp(b.pkg_none,
				"impossible: ", 12) == 0 ? "impossible" : "not run", strncmp(b.pkg_none,
				"impossible: ", 12) == 0 ? b.pkg_none + 12 : b.pkg_none, NULL));
		} else if ((c = try_set(&b, 'p', "packages", b.pkg_diff, err)) == NULL) {
			rc = err->code ? err->code : KD_EENV;
			goto out;
		} else {
			rc = judge_halved(&b, 'p', "packages", "packages", b.pkg_diff, c, layers,
					  explained, ran, err);
			json_decref(c);
			if (rc != 0)
				goto out;
		}
	}
	if (o->layers & BISECT_DATA) {
		if (o->data == NULL) {
			json_array_append_new(layers, layer_row("data", "not run", "no --data DIR: "
				"where the dossier's data is was not given", NULL));
		} else if ((c = run_once(&b, "data", NULL, NULL, b.data_items, NULL, err)) == NULL) {
			rc = err->code ? err->code : KD_EENV;
			goto out;
		} else {
			json_t *row = layer_row("data", outcome(&b, c), NULL, c), *paths = json_array();
			size_t i;
			json_t *it;
			json_array_foreach(b.data_items, i, it)
				json_array_append(paths, json_object_get(it, "path"));
			json_object_set(row, "items", paths);
			if (strcmp(outcome(&b, c), "vanishes") == 0)
				json_array_append_new(explained, json_pack("{s:s s:O}", "layer", "data",
									   "items", paths));
			else
				json_array_append_new(ran, json_string("data"));
			json_decref(paths);
			json_array_append_new(layers, row);
			json_decref(c);
		}
	}
	/* no layer alone: the smallest set of them, together */
	if (json_array_size(explained) == 0 && (rc = together(&b, ran, layers, explained, err)) != 0)
		goto out;
	rc = json_array_size(explained) > 0 ? 0 : KD_EFAIL;
report:
	*report = json_pack("{s:s s:s s:b s:O s:O s:O}", "dossier", b.dossier, "project",
			    ctx->project_dir, "differs", !json_is_true(json_object_get(b.here, "same")),
			    "layers", layers, "explained_by", explained, "runs", b.runs);
	{
		char *path = fsutil_join(b.dir, "bisect.yaml");
		struct kd_err e2;
		if (path == NULL || yamlio_save_file(path, *report, 0, &e2) != 0) {
			if (path != NULL)
				*err = e2;
			rc = KD_EENV;
		}
		free(path);
	}
out:
	json_decref(layers);
	json_decref(explained);
	json_decref(ran);
	json_decref(b.runs);
	json_decref(b.here);
	json_decref(b.dy);
	json_decref(b.want_env);
	json_decref(b.env_diff);
	json_decref(b.settings);
	json_decref(b.data_items);
	json_decref(b.lock_head);
	json_decref(b.lock_there);
	json_decref(b.lock_here);
	json_decref(b.pkg_diff);
	argv_free(b.argv);
	free(b.pkg_vpy);
	free(b.dossier);
	free(b.dir);
	return rc;
}

/* --- the table --- */

static void
print_comparison(FILE *fp, const json_t *c)
{
	size_t i;
	json_t *t, *rule = json_object_get(c, "rule");

	if (c == NULL)
		return;
	if (json_is_true(json_object_get(c, "same"))) {
		fprintf(fp, "bit for bit the dossier's");
	} else {
		const char *sep = "";
		json_array_foreach(json_object_get(c, "tensors"), i, t) {
			const char *k = json_string_value(json_object_get(t, "key"));
			if (json_object_get(t, "first_step") != NULL)
				fprintf(fp, "%s%s parts at step %" JSON_INTEGER_FORMAT, sep, k,
					json_integer_value(json_object_get(t, "first_step")));
			else if (json_object_get(t, "differing") != NULL)
				fprintf(fp, "%s%s: %" JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT
					" differ, largest %.2g", sep, k,
					json_integer_value(json_object_get(t, "differing")),
					json_integer_value(json_object_get(t, "elements")),
					json_number_value(json_object_get(t, "largest")));
			else
				fprintf(fp, "%s%s: another shape", sep, k);
			sep = "; ";
		}
		if ((t = json_object_get(c, "trajectory")) != NULL) {
			fprintf(fp, "%s%s parts at step %" JSON_INTEGER_FORMAT, sep,
				json_string_value(json_object_get(t, "key")),
				json_integer_value(json_object_get(t, "first_step")));
			sep = "; ";
		}
		json_array_foreach(json_object_get(c, "notes"), i, t) {
			fprintf(fp, "%s%s", sep, json_string_value(t));
			sep = "; ";
		}
	}
	if (json_is_boolean(json_object_get(rule, "pass")))
		fprintf(fp, "; under the rule: %s", json_is_true(json_object_get(rule, "pass")) ?
			"passes" : "fails");
}

void
bisect_print(FILE *fp, const json_t *r)
{
	size_t i, j;
	json_t *l, *x, *v;

	fprintf(fp, "bisect %s against %s\n", json_string_value(json_object_get(r, "project")),
		json_string_value(json_object_get(r, "dossier")));
	json_array_foreach(json_object_get(r, "layers"), i, l) {
		const char *why = json_string_value(json_object_get(l, "why"));
		fprintf(fp, "  %-9s %-10s ", json_string_value(json_object_get(l, "layer")),
			json_string_value(json_object_get(l, "outcome")));
		if (why != NULL)
			fputs(why, fp);
		json_array_foreach(json_object_get(l, "layers"), j, v)
			fprintf(fp, "%s%s", j ? "+" : "", json_string_value(v));
		if (json_array_size(json_object_get(l, "layers")) > 0)
			fputs(": ", fp);
		print_comparison(fp, json_object_get(l, "comparison"));
		fputc('\n', fp);
	}
	if (!json_is_true(json_object_get(r, "differs"))) {
		fprintf(fp, "the result here is the dossier's bit for bit: nothing to explain\n");
		return;
	}
	if (json_array_size(json_object_get(r, "explained_by")) == 0) {
		fprintf(fp, "no layer explains the difference\n");
		return;
	}
	json_array_foreach(json_object_get(r, "explained_by"), i, x) {
		const char *layer = json_string_value(json_object_get(x, "layer"));
		const json_t *what = json_object_get(x, "variables");
		if (what == NULL)
			what = json_object_get(x, "items");
		if (what == NULL)
			what = json_object_get(x, "packages");
		if (layer == NULL) {
			fprintf(fp, "explained by the layers together:");
			json_array_foreach(json_object_get(x, "layers"), j, v)
				fprintf(fp, " %s", json_string_value(v));
			fputc('\n', fp);
			continue;
		}
		fprintf(fp, "explained by %s", layer);
		if (json_is_array(what)) {
			fputs(":", fp);
			json_array_foreach(what, j, v)
				fprintf(fp, " %s", json_string_value(v));
		} else if (json_is_object(json_object_get(x, "settings"))) {
			const char *k;
			fputs(":", fp);
			json_object_foreach(json_object_get(x, "settings"), k, v) {
				char *d = json_dumps(v, JSON_ENCODE_ANY);
				fprintf(fp, " %s=%s", k, d ? d : "?");
				free(d);
			}
		}
		fputc('\n', fp);
	}
}

char *
bisect_last_dossier(const struct kd_ctx *ctx)
{
	char *p = fsutil_join(ctx->project_dir, REPLAY_MARK), *buf = NULL, *r = NULL, *l;
	size_t len = 0;
	struct kd_err e;

	if (p != NULL && fsutil_exists(p) && fsutil_read_file(p, 1 << 16, &buf, &len, &e) == 0)
		for (l = buf; l != NULL && *l != '\0'; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
			if (strncmp(l, "dossier: ", 9) == 0) {
				r = strndup(l + 9, strcspn(l + 9, "\n"));
				break;
			}
	free(buf);
	free(p);
	return r;
}
