/*
 * plan.h - the argument vector of every program stages 3 to 6 run and of stage 2's queries, built
 * in one place.
 *
 * The stages run exactly the vectors these functions return, and replay's
 * plan (src/features/replay.c) shows the same vectors before anything runs, each
 * argument a shell word (termout_argv): what a person confirms is what
 * runs.  Every vector is NULL-terminated, its strings malloc'd; plan_free
 * releases it.  Relative paths (.venv-rebuild, requirements-rebuild.txt)
 * are taken from the project folder, where the stages run them.
 */
#ifndef KD_PLAN_H
#define KD_PLAN_H

#include <jansson.h>

#define PLAN_MAX_EXTS 16     /* compute.extensions passed to the probe */
#define PLAN_MAX_ARGS 256    /* the entry point's argument vector */

enum plan_pip {
	PLAN_PIP_VERSION,   /* pip --version */
	PLAN_PIP_INSTALL,   /* pip install --timeout 15 --retries 1 -r requirements-rebuild.txt */
	PLAN_PIP_FREEZE,    /* pip freeze --all */
	PLAN_PIP_INSPECT,   /* pip inspect */
	PLAN_PIP_CHECK,     /* pip check */
};

/* PY -m venv [--system-site-packages] [--without-pip] .venv-rebuild */
char **plan_venv(const char *python, int sys_site, int without_pip);
/* VPY -I -m pip ... (the isolated interpreter: the project is not on sys.path) */
char **plan_pip(const char *vpy, enum plan_pip which);
/* PY -s -c QUERY json: the base environment's folders and packages */
char **plan_base_query(const char *python);
/* PROJECT/.venv-rebuild/bin/python PROBE --expect BACKEND [--ext MOD[:CALL]]...
 * from the reference's system.backend and compute.extensions; probe is the
 * probe's path (kd_share_path("probe.py")). */
char **plan_probe(const char *project_dir, const char *probe, const json_t *ref);
/* code.entry_point, "python"/"python3" first standing for the project's
 * interpreter (*uses_venv set).  NULL with *why set when the entry point
 * is not an argument vector of strings. */
char **plan_entry(const char *project_dir, const json_t *ep, int *uses_venv, const char **why);
/* The project's interpreter, PROJECT/.venv-rebuild/bin/python (malloc'd). */
char *plan_venv_python(const char *project_dir);
/* Stage 2's queries of this machine's tools, each a fixed argument vector
 * whose first word is the program (found on PATH, or where CUDA_HOME,
 * ROCM_PATH and the like say): sys-gpu.c, sys-tools.c and sys-python.c run
 * exactly these, and replay's plan shows them.  Each runs only when its
 * program is there; the AMD ones when an AMD GPU is plausible; the
 * nvidia-smi query without compute_cap when the first one fails on that
 * field; rocminfo when rocm_agent_enumerator fails. */
enum plan_query {
	PLAN_Q_SMI_CSV, PLAN_Q_SMI_CSV_OLD, PLAN_Q_SMI_TABLE, PLAN_Q_HIPCONFIG,
	PLAN_Q_AGENTS, PLAN_Q_ROCMINFO, PLAN_Q_AMDSMI, PLAN_Q_GCC, PLAN_Q_GXX, PLAN_Q_NVCC,
	PLAN_Q_HIPCC, PLAN_Q_CMAKE, PLAN_Q_NINJA, PLAN_NQ
};
/* The vector of a query (static, NULL-terminated; argv[0] the program's
 * name) and what it asks. */
const char *const *plan_query_argv(enum plan_query q);
const char *plan_query_what(enum plan_query q);
/* PY -I -S -c QUERY: what an interpreter is (stage 2 asks each candidate
 * and the reference's); static but for argv[0], which is python. */
void plan_python_query(const char *python, const char *argv[6]);
size_t plan_count(char *const *argv);
void plan_free(char **argv);

#endif
