/*
 * pytrace.h - following a Python program's output line by line (stage 6's
 * entry point): the steps it announces with "KD_STEP: NAME" lines, and its
 * first traceback: the exception line (the first error), the frames and
 * the source line under each.  A chained traceback ("During handling of
 * the above exception...") adds nothing: the first error is the first.
 *
 * pytrace_failed_step() names the step a failure happened in: a
 * recognisable library frame or source line (data loading, writing, an
 * operator of torch.nn, a transfer), else an out-of-memory message
 * (allocation), else the last step the program announced, else a device
 * error message.
 */
#ifndef KD_PYTRACE_H
#define KD_PYTRACE_H

#include <stddef.h>

#define PYTRACE_FRAMES 64   /* the innermost frames kept */

struct pytrace {
	char *step;                     /* the last KD_STEP, or NULL */
	char *step_at_error;            /* the KD_STEP when the traceback began */
	char *error;                    /* the first traceback's exception line */
	char *frames[PYTRACE_FRAMES];   /* its 'File "...", line N, in f' lines, outermost first */
	char *codes[PYTRACE_FRAMES];    /* the source line under each, or NULL */
	size_t nframes;
	int in_tb, tb_done;
};

void pytrace_init(struct pytrace *t);
/* Feed one line (no newline).  Returns 1 when it announced a step. */
int pytrace_feed(struct pytrace *t, const char *line, size_t len);
/* The step the failure happened in, or NULL; buf holds composed names. */
const char *pytrace_failed_step(const struct pytrace *t, char *buf, size_t len);
/* The innermost frame and its source line, or NULL. */
const char *pytrace_frame(const struct pytrace *t);
const char *pytrace_code(const struct pytrace *t);
void pytrace_free(struct pytrace *t);

#endif
