/*
 * sys-query.h - the argument vectors of stage 2's queries
 * (src/facts/sys-query.c), in one table: what stage 2 runs and what
 * replay's plan shows are the same vectors.
 */
#ifndef KD_SYS_QUERY_H
#define KD_SYS_QUERY_H

/* Stage 2's queries of this machine's tools, each a fixed argument vector
 * whose first word is the program (found on PATH, or where CUDA_HOME,
 * ROCM_PATH and the like say): sys-gpu.c, sys-tools.c and sys-python.c run
 * exactly these (sysinfo_run records each as run: in system.yaml), and
 * replay's plan shows them.  Each runs only when its
 * program is there; the AMD ones when an AMD GPU is plausible; the
 * nvidia-smi query without compute_cap when the first one fails on that
 * field; rocminfo when rocm_agent_enumerator fails. */
enum sysquery {
	SYSQ_SMI_CSV, SYSQ_SMI_CSV_OLD, SYSQ_SMI_TABLE, SYSQ_HIPCONFIG,
	SYSQ_AGENTS, SYSQ_ROCMINFO, SYSQ_AMDSMI, SYSQ_GCC, SYSQ_GXX, SYSQ_NVCC,
	SYSQ_HIPCC, SYSQ_CMAKE, SYSQ_NINJA, SYSQ_N
};
/* The vector of a query (static, NULL-terminated; argv[0] the program's
 * name) and what it asks. */
const char *const *sysquery_argv(enum sysquery q);
const char *sysquery_what(enum sysquery q);
/* PY -I -S -c QUERY: what an interpreter is (stage 2 asks each candidate
 * and the reference's); static but for argv[0], which is python. */
void sysquery_python(const char *python, const char *argv[6]);

#endif
