/*
 * metrics.c - the strict metrics.jsonl reader of the resume check (see
 * include/kernodeck/metrics.h).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kernodeck/caps.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/metrics.h"

#define NONFINITE_MARK '\001'

int
metrics_pattern_parse(const char *pat, const char *const *keys, size_t nkeys,
		      struct metrics_pattern *p, char *why, size_t len)
{
	const char *s, *o;
	int seen[METRICS_MAX_KEYS + 1] = { 0 };
	size_t lit = 0;

	memset(p, 0, sizeof *p);
	if (pat == NULL || strlen(pat) >= sizeof p->text) {
		snprintf(why, len, "a pattern of 1 to %d bytes", METRICS_PATTERN_CAP - 1);
		return -1;
	}
	memcpy(p->text, pat, strlen(pat) + 1);
	for (s = p->text; (o = strchr(s, '{')) != NULL; s = strchr(o, '}') + 1) {
		const char *e = strchr(o, '}');
		size_t n = e ? (size_t)(e - o - 1) : 0;
		int slot = -2;

		if (e == NULL) {
			snprintf(why, len, "an unclosed { at byte %zu", (size_t)(o - p->text) + 1);
			return -1;
		}
		if (n == 4 && strncmp(o + 1, "step", 4) == 0)
			slot = -1;
		for (size_t k = 0; k < nkeys && slot == -2; k++)
			if (strlen(keys[k]) == n && strncmp(o + 1, keys[k], n) == 0)
				slot = (int)k;
		if (slot == -2) {
			snprintf(why, len, "{%.*s} is neither {step} nor a key of resume.compare", (int)n, o + 1);
			return -1;
		}
		if (seen[slot + 1]++ || p->nslots > METRICS_MAX_KEYS) {
			snprintf(why, len, "{%.*s} appears twice", (int)n, o + 1);
			return -1;
		}
		if (o == s && p->nslots > 0) {
			snprintf(why, len, "two placeholders with nothing between them");
			return -1;
		}
		p->lit_at[lit] = (size_t)(s - p->text);
		p->lit_len[lit++] = (size_t)(o - s);
		p->slot[p->nslots++] = slot;
	}
	p->lit_at[lit] = (size_t)(s - p->text);
	p->lit_len[lit] = strlen(s);
	for (size_t k = 0; k <= nkeys; k++)
		if (!seen[k]) {
			snprintf(why, len, "{%s} is missing: the pattern names {step} and every key of resume.compare",
				 k == 0 ? "step" : keys[k - 1]);
			return -1;
		}
	return 0;
}

/* Literal l (n bytes) at line[*i]: a blank in it takes any run of blanks
 * (one at least), anything else itself. */
static int
lit_match(const char *l, size_t n, const char *line, size_t len, size_t *i)
{
	size_t j = *i;

	for (size_t k = 0; k < n; k++) {
		if (l[k] == ' ') {
			if (j >= len || (line[j] != ' ' && line[j] != '\t'))
				return 0;
			while (j < len && (line[j] == ' ' || line[j] == '\t'))
				j++;
			while (k + 1 < n && l[k + 1] == ' ')
				k++;
		} else if (j >= len || line[j] != l[k]) {
			return 0;
		} else {
			j++;
		}
	}
	*i = j;
	return 1;
}

/* A number at line[*i] (a whole one for the step); 1 and *i past it. */
static int
num_match(const char *line, size_t len, size_t *i, int whole, double *v, long long *st)
{
	char buf[64], *end;
	size_t n = 0;

	while (*i + n < len && n + 1 < sizeof buf && strchr("+-.0123456789eEnaifNAIF", line[*i + n]) != NULL)
		n++;
	if (n == 0)
		return 0;
	memcpy(buf, line + *i, n);
	buf[n] = '\0';
	if (whole) {
		errno = 0;
		*st = strtoll(buf, &end, 10);
		if (errno != 0 || end == buf)
			return 0;
	} else {
		*v = strtod(buf, &end);
		if (end == buf)
			return 0;
	}
	*i += (size_t)(end - buf);
	return 1;
}

int
metrics_pattern_match(const struct metrics_pattern *p, const char *line, size_t len,
		      long long *step, double *vals)
{
	for (size_t start = 0; start < len; start++) {
		size_t i = start, k;

		for (k = 0; k < p->nslots; k++) {
			double v = 0;
			long long st = 0;

			if (!lit_match(p->text + p->lit_at[k], p->lit_len[k], line, len, &i) ||
			    !num_match(line, len, &i, p->slot[k] < 0, &v, &st))
				break;
			if (p->slot[k] < 0)
				*step = st;
			else
				vals[p->slot[k]] = v;
		}
		if (k == p->nslots && lit_match(p->text + p->lit_at[k], p->lit_len[k], line, len, &i))
			return 1;
	}
	return 0;
}

void
metrics_free(struct kd_metrics *m)
{
	for (size_t k = 0; k < m->nkeys; k++)
		free(m->keys[k]);
	free(m->step);
	free(m->v);
	free(m->line);
	memset(m, 0, sizeof *m);
}

long
metrics_find(const struct kd_metrics *m, long long step)
{
	/* records are in step order, one per step: a direct look-up first */
	if (m->n > 0 && step >= m->step[0] && (size_t)(step - m->step[0]) < m->n &&
	    m->step[step - m->step[0]] == step)
		return (long)(step - m->step[0]);
	for (size_t i = 0; i < m->n; i++)
		if (m->step[i] == step)
			return (long)i;
	return -1;
}

/* Python's json writes NaN, Infinity and -Infinity, which are not JSON:
 * outside strings, rewrite them as marked strings so that the line still
 * parses and the key can be named.  Returns a malloc'd copy. */
static char *
mark_nonfinite(const char *s, size_t len, size_t *outlen)
{
	static const char *const words[] = { "-Infinity", "Infinity", "NaN" };
	size_t cap = len * 4 + 16;   /* NaN (3 bytes) grows to 11 */
	char *o = malloc(cap);
	size_t j = 0;
	int in_str = 0;

	if (o == NULL)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		size_t w;

		if (in_str) {
			o[j++] = s[i];
			if (s[i] == '\\' && i + 1 < len)
				o[j++] = s[++i];
			else if (s[i] == '"')
				in_str = 0;
			continue;
		}
		if (s[i] == '"') {
			in_str = 1;
			o[j++] = s[i];
			continue;
		}
		for (w = 0; w < 3; w++) {
			size_t wl = strlen(words[w]);
			if (len - i >= wl && memcmp(s + i, words[w], wl) == 0) {
				j += (size_t)snprintf(o + j, cap - j, "\"\\u0001%s\"", words[w]);
				i += wl - 1;
				break;
			}
		}
		if (w == 3)
			o[j++] = s[i];
	}
	o[j] = '\0';
	*outlen = j;
	return o;
}

struct reader {
	const char *path;
	const char *const *keys;
	size_t nkeys;
	long long restart_after;
	struct kd_metrics *m;
	size_t cap;
	long long first_seen_line;   /* of the last step, for a repeat */
	struct kd_err *err;
};

static int
grow(struct reader *r)
{
	struct kd_metrics *m = r->m;
	size_t nc = r->cap ? r->cap * 2 : 256;
	long long *s = realloc(m->step, nc * sizeof *s);
	size_t *l;
	double *v;

	if (s == NULL)
		return -1;
	m->step = s;
	if ((l = realloc(m->line, nc * sizeof *l)) == NULL)
		return -1;
	m->line = l;
	if ((v = realloc(m->v, nc * (r->nkeys ? r->nkeys : 1) * sizeof *v)) == NULL)
		return -1;
	m->v = v;
	r->cap = nc;
	return 0;
}

/* The step of a record against the steps before it. */
static int
take_step(struct reader *r, long long step, size_t lineno)
{
	struct kd_metrics *m = r->m;
	long long last = m->n ? m->step[m->n - 1] : 0;

	if (m->n == 0 || step == last + 1)
		return 0;
	if (r->restart_after > 0 && !m->restarted && step == r->restart_after + 1 && step <= last) {
		/* the resumed run starts again after the checkpoint's step */
		long i = metrics_find(m, step);
		if (i >= 0) {
			m->dropped += m->n - (size_t)i;
			m->n = (size_t)i;
		}
		m->restarted = 1;
		return 0;
	}
	if (step == last) {
		long i = metrics_find(m, step);
		return kd_err_set(r->err, KD_EINPUT, r->path, (int)lineno,
				  "step %lld appears again (first on line %zu)", step,
				  i >= 0 ? m->line[i] : 0);
	}
	if (step < last)
		return kd_err_set(r->err, KD_EINPUT, r->path, (int)lineno,
				  "step %lld comes after step %lld: steps must increase by 1", step, last);
	if (step == last + 2)
		return kd_err_set(r->err, KD_EINPUT, r->path, (int)lineno,
				  "step %lld follows step %lld: step %lld is missing", step, last, last + 1);
	return kd_err_set(r->err, KD_EINPUT, r->path, (int)lineno,
			  "step %lld follows step %lld: steps %lld to %lld are missing", step, last,
			  last + 1, step - 1);
}

/* One complete line: a JSON object with a step and the keys. */
static int
take_line(struct reader *r, const char *s, size_t len, size_t lineno, int last_unended)
{
	struct kd_metrics *m = r->m;
	json_error_t je;
	json_t *o, *st;
	char *t;
	size_t tl;
	long long step;
	int rc = 0;

	while (len > 0 && (s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len == 0)
		return 0;
	if (len > KD_CAP_METRICS_LINE)
		return kd_err_set(r->err, KD_EINPUT, r->path, (int)lineno,
				  "the line is %zu bytes long, more than the %u a step's metrics may take",
				  len, KD_CAP_METRICS_LINE);
	if ((t = mark_nonfinite(s, len, &tl)) == NULL)
		return kd_err_sys(r->err, KD_EENV, r->path, ENOMEM, "reading %s", r->path);
	o = json_loadb(t, tl, JSON_REJECT_DUPLICATES, &je);
	free(t);
	if (!json_is_object(o)) {
		json_decref(o);
		if (last_unended) {
			m->truncated_last = 1;   /* a killed run's last write */
			return 0;
		}
		return kd_err_set(r->err, KD_EINPUT, r->path, (int)lineno,
				  "not a JSON object (%s): each line must be one step's metrics, {\"step\": N, ...}",
				  o ? "another JSON value" : je.text);
	}
	st = json_object_get(o, "step");
	if (!json_is_integer(st) && !(json_is_real(st) && json_real_value(st) == floor(json_real_value(st)))) {
		rc = kd_err_set(r->err, KD_EINPUT, r->path, (int)lineno,
				"no whole-number \"step\" key: each line needs {\"step\": N, ...}");
		goto out;
	}
	step = json_is_integer(st) ? (long long)json_integer_value(st) : (long long)json_real_value(st);
	if (step < 0) {
		rc = kd_err_set(r->err, KD_EINPUT, r->path, (int)lineno, "step %lld is negative", step);
		goto out;
	}
	if ((rc = take_step(r, step, lineno)) != 0)
		goto out;
	if (m->n == r->cap && grow(r) != 0) {
		rc = kd_err_sys(r->err, KD_EENV, r->path, ENOMEM, "reading %s", r->path);
		goto out;
	}
	for (size_t k = 0; k < r->nkeys; k++) {
		json_t *v = json_object_get(o, r->keys[k]);
		const char *sv = json_string_value(v);

		if (v == NULL) {
			rc = kd_err_set(r->err, KD_EINPUT, r->path, (int)lineno,
					"step %lld has no \"%s\" (a compared key)", step, r->keys[k]);
			goto out;
		}
		if (sv != NULL && sv[0] == NONFINITE_MARK) {
			rc = kd_err_set(r->err, KD_EINPUT, r->path, (int)lineno,
					"\"%s\" is %s at step %lld: the trajectory is not finite",
					r->keys[k], sv + 1, step);
			goto out;
		}
		if (!json_is_number(v)) {
			rc = kd_err_set(r->err, KD_EINPUT, r->path, (int)lineno,
					"\"%s\" at step %lld is not a number", r->keys[k], step);
			goto out;
		}
		m->v[m->n * r->nkeys + k] = json_number_value(v);
	}
	m->step[m->n] = step;
	m->line[m->n] = lineno;
	m->n++;
out:
	json_decref(o);
	return rc;
}

int
metrics_read(const char *path, const char *const *keys, size_t nkeys,
	     long long restart_after, struct kd_metrics *m, struct kd_err *err)
{
	struct reader r = { path, keys, nkeys, restart_after, m, 0, 0, err };
	char *buf = NULL;
	size_t len = 0, at = 0, lineno = 0;
	int rc;

	memset(m, 0, sizeof *m);
	if (nkeys > METRICS_MAX_KEYS)
		return kd_err_set(err, KD_EINPUT, path, 0, "more than %d metric keys to compare",
				  METRICS_MAX_KEYS);
	for (size_t k = 0; k < nkeys; k++)
		m->keys[m->nkeys++] = strdup(keys[k]);
	if ((rc = fsutil_read_file(path, KD_CAP_METRICS_FILE, &buf, &len, err)) != 0)
		goto out;
	if (memchr(buf, '\0', len) != NULL) {
		rc = kd_err_set(err, KD_EINPUT, path, 0, "a NUL byte: not a JSON Lines file");
		goto out;
	}
	while (at < len && rc == 0) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t ll = nl ? (size_t)(nl - (buf + at)) : len - at;

		lineno++;
		rc = take_line(&r, buf + at, ll, lineno, nl == NULL);
		at += ll + (nl != NULL);
	}
	if (rc == 0 && m->n == 0)
		rc = kd_err_set(err, KD_EINPUT, path, 0, "no step's metrics in the file (empty)");
out:
	free(buf);
	if (rc != 0)
		metrics_free(m);
	return rc;
}
