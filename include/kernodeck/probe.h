/*
 * probe.h - stage 5's compute probe: running share/probe.py with the
 * project interpreter and understanding its output.
 *
 * The probe prints one JSON object per line: {"begin": STEP} when a step
 * starts, {"step": STEP, "ok": ..., "ms": ...} when it ends, and a final
 * {"step": "end", ...}.  Every line is fed to probe_feed(): an object is
 * kept (each line bounded by KD_CAP_JSON_LINE), anything else (a warning
 * PyTorch printed, a crash message) is kept as text.  A step that began and
 * never ended is where the probe crashed or hung.
 *
 * probe_obs() turns what was fed, and how the process ended, into the
 * observations saved as compute.yaml; probe_check_rows() judges them
 * (one row per step, the backend expected against the one seen, the
 * product's agreement with its bound, the first error with its step, the
 * precision settings as information).  Both work from the tree alone, so
 * outputs recorded on GPU machines (tests/fixtures/probe/) are judged the
 * same way as a live run.
 */
#ifndef KD_PROBE_H
#define KD_PROBE_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"
#include "kernodeck/run.h"
#include "kernodeck/stage.h"

#define PROBE_TEXT_LINES 200    /* non-JSON lines kept */
#define PROBE_TEXT_LINE_CAP 2000 /* bytes kept of each */
#define PROBE_MAX_ARGS 64        /* the probe's argument vector */

struct probe_out {
	json_t *steps;      /* array: every {"step": ...} object but "end" */
	json_t *end;        /* the final object, or NULL */
	json_t *begun;      /* the last {"begin": ...} without its step, or NULL */
	json_t *text;       /* array of strings: lines that were not JSON objects */
	size_t text_dropped;
	void (*on_begin)(void *u, const char *step, const char *device);
	void *u;
};

void probe_out_init(struct probe_out *p);
void probe_out_free(struct probe_out *p);
/* Feed one line (no newline).  Returns 1 when it was a JSON object. */
int probe_feed(struct probe_out *p, const char *line, size_t len);
/* Feed a whole output (a fixture), line by line. */
void probe_feed_text(struct probe_out *p, const char *buf, size_t len);

/* How the run went, for probe_obs. */
struct probe_end {
	const char *expected;     /* the reference's backend, or NULL */
	const char *interpreter;
	const char *probe_path;
	const char *log;          /* relative to the kernodeck folder, or NULL */
	const struct run_result *run;  /* NULL: not run */
};
/* The observation tree (compute.yaml). */
json_t *probe_obs(const struct probe_out *p, const struct probe_end *e);

/* Check rows from observations. */
void probe_check_rows(const json_t *obs, struct kd_rows *rows);
/* Informative rows: Python, PyTorch, devices, libraries. */
void probe_describe_rows(const json_t *obs, struct kd_rows *rows);

/* Run the probe: python PROBE --expect EXPECT [--ext E]...  Lines go to
 * on_line (with u) and into p.  Returns run_program's code. */
struct probe_opts {
	const char *python;
	const char *probe_path;
	const char *expect;               /* NULL or "": --expect auto */
	const char *const *exts;          /* "module[:func]", NULL-terminated, or NULL */
	char *const *argv;                /* not NULL: the vector to run (plan_probe), the
					   * fields above only describe it */
	double timeout_s;
	double grace_s;                   /* SIGTERM -> SIGKILL after a timeout; 0: 2 s */
	const char *log_path;
	const char *cwd;
	const char *const *env_base;      /* run_opts.env_base: the context's, or NULL */
	void (*on_line)(void *u, const char *line, size_t len);
	int (*cancelled)(void *u);
	void *u;
};
int probe_exec(const struct probe_opts *o, struct probe_out *p, struct run_result *r,
	       struct kd_err *err);
/* The argument vector probe_exec runs, as a JSON array (for the
 * observations and the dossier's procedure). */
json_t *probe_argv_json(const struct probe_opts *o);

#define PROBE_MAX_EXTS 16     /* compute.extensions passed to the probe */
/* PROJECT/.venv-rebuild/bin/python PROBE --expect BACKEND [--ext MOD[:CALL]]...
 * from the reference's system.backend and compute.extensions, as an argv.h
 * vector; probe is the probe's path (kd_share_path("probe.py")). */
char **probe_run_argv(const char *project_dir, const char *probe, const json_t *ref);

#endif
