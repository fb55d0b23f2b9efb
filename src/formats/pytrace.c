/*
 * pytrace.c - following a Python program's output: announced steps and the
 * first traceback (see include/kernodeck/pytrace.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/pytrace.h"

static char *
trimdup(const char *s, size_t len)
{
	while (len > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\r' || s[len - 1] == '\t'))
		len--;
	return strndup(s, len);
}

void
pytrace_init(struct pytrace *t)
{
	memset(t, 0, sizeof *t);
}

static void
add_frame(struct pytrace *t, const char *line, size_t len)
{
	if (t->nframes == PYTRACE_FRAMES) {
		free(t->frames[0]);
		free(t->codes[0]);
		memmove(t->frames, t->frames + 1, (PYTRACE_FRAMES - 1) * sizeof *t->frames);
		memmove(t->codes, t->codes + 1, (PYTRACE_FRAMES - 1) * sizeof *t->codes);
		t->nframes--;
	}
	t->frames[t->nframes] = trimdup(line, len);
	t->codes[t->nframes] = NULL;
	t->nframes++;
}

int
pytrace_feed(struct pytrace *t, const char *line, size_t len)
{
	const char *m;

	if (len >= 8 && (m = memmem(line, len, "KD_STEP:", 8)) != NULL) {
		free(t->step);
		t->step = trimdup(m + 8, len - (size_t)(m + 8 - line));
		return 1;
	}
	if (t->tb_done)
		return 0;
	if (!t->in_tb) {
		if (len >= 34 && memcmp(line, "Traceback (most recent call last):", 34) == 0) {
			t->in_tb = 1;
			free(t->step_at_error);
			t->step_at_error = t->step ? strdup(t->step) : NULL;
		}
		return 0;
	}
	if (len >= 7 && memcmp(line, "  File ", 7) == 0) {
		add_frame(t, line, len);
		return 0;
	}
	if (len > 0 && (line[0] == ' ' || line[0] == '\t')) {
		/* the source line under a frame (later indented lines are carets) */
		if (t->nframes > 0 && t->codes[t->nframes - 1] == NULL)
			t->codes[t->nframes - 1] = trimdup(line, len);
		return 0;
	}
	if (len == 0)
		return 0;
	t->error = trimdup(line, len);
	t->in_tb = 0;
	t->tb_done = 1;
	return 0;
}

const char *
pytrace_frame(const struct pytrace *t)
{
	return t->nframes ? t->frames[t->nframes - 1] : NULL;
}

const char *
pytrace_code(const struct pytrace *t)
{
	return t->nframes ? t->codes[t->nframes - 1] : NULL;
}

void
pytrace_free(struct pytrace *t)
{
	for (size_t i = 0; i < t->nframes; i++) {
		free(t->frames[i]);
		free(t->codes[i]);
	}
	free(t->step);
	free(t->error);
	free(t->step_at_error);
	memset(t, 0, sizeof *t);
}

/* Which step a traceback failed in: recognisable library frames and
 * source lines (innermost first), then an out-of-memory message, then the
 * last KD_STEP the application printed, then a device error message. */
const char *
pytrace_failed_step(const struct pytrace *f, char *buf, size_t len)
{
	static const struct { const char *file, *func, *step; } table[] = {
		{ "torch/utils/data/", NULL, "data loading" },
		{ "numpy/lib/npyio.py", "save", "writing" },
		{ "numpy/lib/npyio.py", "load", "data loading" },
		{ "numpy/lib/format.py", "write", "writing" },
		{ "numpy/lib/format.py", "read", "data loading" },
		{ "safetensors/", "save", "writing" },
		{ "safetensors/", "load", "data loading" },
		{ "safetensors/", "safe_open", "data loading" },
		{ "/csv.py", "write", "writing" },
		{ "pandas/io/", "to_", "writing" },
		{ "pandas/io/", "read_", "data loading" },
		{ "torch/serialization.py", "save", "writing" },
		{ "torch/serialization.py", "load", "data loading (weights)" },
		{ "torch/cuda/", NULL, "device (torch.cuda)" },
	};
	const char *msg = f->error ? f->error : "";

	for (size_t k = f->nframes; k-- > 0;) {
		const char *fr = f->frames[k], *code = f->codes[k] ? f->codes[k] : "";
		const char *in = strstr(fr, ", in ");
		const char *mod;
		for (size_t t = 0; t < sizeof table / sizeof table[0]; t++)
			if (strstr(fr, table[t].file) != NULL &&
			    (table[t].func == NULL || (in && strstr(in + 5, table[t].func) == in + 5)))
				return table[t].step;
		if ((mod = strstr(fr, "torch/nn/modules/")) != NULL) {
			const char *e = strstr(mod, ".py");
			int n = e ? (int)(e - (mod + 17)) : 0;
			snprintf(buf, len, "operator (torch.nn %.*s)", n, mod + 17);
			return buf;
		}
		if (strstr(fr, "torch/nn/functional.py") != NULL)
			return "operator (torch.nn.functional)";
		if (strstr(code, ".to(") != NULL || strstr(code, ".cuda(") != NULL ||
		    strstr(code, ".cpu()") != NULL)
			return "transfer";
	}
	if (strstr(msg, "out of memory") != NULL || strstr(msg, "OutOfMemoryError") != NULL)
		return "allocation";
	if (f->error != NULL && f->step_at_error != NULL)
		return f->step_at_error;   /* what the application announced */
	if (strstr(msg, "CUDA error") != NULL || strstr(msg, "HIP error") != NULL)
		return "device";
	return NULL;
}
