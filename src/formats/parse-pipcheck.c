/*
 * parse-pipcheck.c - `pip check` output into a table of problems.
 *
 * pip prints three shapes (pip/_internal/commands/check.py):
 *   "X V requires R, which is not installed."
 *   "X V has requirement R, but you have D DV."
 *   "X V is not supported on this platform"      (pip >= 24.2)
 * and "No broken requirements found." when clean.  Anything else within
 * the command's output is kept verbatim as kind "unknown".
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/caps.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/inspect.h"
#include "kernodeck/pep440.h"
#include "kernodeck/parse-pipcheck.h"
#include "kernodeck/pipline.h"
#include "kernodeck/treeout.h"

static const char MISSING_TAIL[] = ", which is not installed.";
static const char CONFLICT_MID[] = ", but you have ";
static const char UNSUPPORTED_TAIL[] = " is not supported on this platform";

static int
ends_with(const char *s, size_t n, const char *tail)
{
	size_t t = strlen(tail);

	return n >= t && memcmp(s + n - t, tail, t) == 0;
}

static int
starts_with(const char *s, size_t n, const char *head)
{
	size_t h = strlen(head);

	return n >= h && memcmp(s, head, h) == 0;
}

static int
ascii(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80 || s[i] == '\0')
			return 0;
	return 1;
}

/* o[key] = [s, s+n).  The text was checked as UTF-8 as a whole; an ASCII
 * piece skips jansson's check, any other is checked (and left out when it
 * is not UTF-8, as before). */
static void
set_str(json_t *o, const char *key, const char *s, size_t n)
{
	if (ascii(s, n)) {
		json_object_set_new_nocheck(o, key, json_stringn_nocheck(s, n));
		return;
	}
	char *d = pipline_dup(s, n);

	json_object_set_new(o, key, json_string(d ? d : ""));
	free(d);
}

static void
set_canon(json_t *o, const char *key, const char *s, size_t n)
{
	char canon[256];
	size_t k = pep503_canonical_n(s, n, canon, sizeof canon);

	if (ascii(canon, k))
		json_object_set_new_nocheck(o, key, json_stringn_nocheck(canon, k));
	else
		json_object_set_new(o, key, json_string(canon));
}

/* The project name at the start of a requirement ("foo[bar]>=1; ..."). */
static size_t
name_len(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '_' ||
			 s[i] == '.'))
		i++;
	return i;
}

/* "X V rest": package and version are the first two words: their ends
 * in *a and *b (the rest starts at *b). */
static int
head_at(const char *s, size_t n, size_t *a_out, size_t *b_out)
{
	size_t a = 0, b;

	while (a < n && s[a] != ' ')
		a++;
	if (a == 0 || a >= n)
		return -1;
	b = a + 1;
	while (b < n && s[b] != ' ')
		b++;
	if (b == a + 1 || !pep503_valid_name(s, a))
		return -1;
	*a_out = a;
	*b_out = b;
	return 0;
}

static void
set_head(json_t *o, const char *s, size_t a, size_t b)
{
	set_str(o, "package", s, a);
	set_canon(o, "canonical_package", s, a);
	set_str(o, "version", s + a + 1, b - a - 1);
}

/* Recognise one line; returns a new problem of kind "unknown" when it is
 * none of pip's shapes.  The head is read first and set once the shape is
 * known, so that the keys come in the same order for every shape. */
static json_t *
problem(const char *s, size_t n, int lineno, json_t *const *kinds)
{
	json_t *o = json_object();
	size_t a, r;
	int have_head = head_at(s, n, &a, &r) == 0;

	if (have_head && ends_with(s, n, MISSING_TAIL) &&
	    starts_with(s + r, n - r, " requires ")) {
		const char *req = s + r + 10;
		size_t rn = n - r - 10 - (sizeof MISSING_TAIL - 1);
		set_head(o, s, a, r);
		json_object_set_nocheck(o, "kind", kinds[0]);
		set_str(o, "requirement", req, rn);
		set_str(o, "dependency", req, name_len(req, rn));
		set_canon(o, "canonical_dependency", req, name_len(req, rn));
		goto out;
	}
	if (have_head && starts_with(s + r, n - r, " has requirement ")) {
		const char *req = s + r + 17, *mid = NULL;
		for (const char *q = req; q + sizeof CONFLICT_MID - 1 <= s + n; q++)
			if (memcmp(q, CONFLICT_MID, sizeof CONFLICT_MID - 1) == 0)
				mid = q;
		if (mid != NULL) {
			const char *have = mid + sizeof CONFLICT_MID - 1;
			size_t hn = (size_t)(s + n - have);
			if (hn > 0 && have[hn - 1] == '.')
				hn--;
			const char *sp = NULL;
			for (size_t i = hn; i > 0; i--)
				if (have[i - 1] == ' ') {
					sp = have + i - 1;
					break;
				}
			if (sp != NULL && sp > have) {
				set_head(o, s, a, r);
				json_object_set_nocheck(o, "kind", kinds[1]);
				set_str(o, "requirement", req, (size_t)(mid - req));
				set_str(o, "dependency", have, (size_t)(sp - have));
				set_canon(o, "canonical_dependency", have, (size_t)(sp - have));
				set_str(o, "installed_version", sp + 1, (size_t)(have + hn - sp - 1));
				goto out;
			}
		}
	}
	{
		size_t m = n;
		if (m > 0 && s[m - 1] == '.')
			m--;
		if (ends_with(s, m, UNSUPPORTED_TAIL) && head_at(s, m, &a, &r) == 0 &&
		    r == m - (sizeof UNSUPPORTED_TAIL - 1)) {
			set_head(o, s, a, r);
			json_object_set_nocheck(o, "kind", kinds[2]);
			goto out;
		}
	}
	json_object_set_nocheck(o, "kind", kinds[3]);
	json_object_set_new_nocheck(o, "package", json_null());
	json_object_set_new_nocheck(o, "version", json_null());
out:
	set_str(o, "line", s, n);
	json_object_set_new_nocheck(o, "line_number", json_integer(lineno));
	return o;
}

/* Is a command the pip check itself ("pip check", "python -m pip check")? */
static int
is_check_command(const char *c, size_t n)
{
	return pipline_command_has(c, n, "check") &&
	       (pipline_command_has(c, n, "pip") || pipline_command_has(c, n, "pip3") ||
		pipline_command_has(c, n, "-m") || (n >= 3 && memcmp(c, "pip", 3) == 0) ||
		memmem(c, n, "/pip", 4) != NULL);
}

static int
is_integer(const char *s, size_t n)
{
	if (n == 0 || n > 3)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* The arrays of the tree, as treeout ids (treeout.h). */
enum { PC_PROBLEMS, PC_WARNINGS };
static const char *const pc_ids[] = { "problems", "warnings" };

/* pipcheck_parse, with a pick (treeout.h) or without (NULL). */
static int
parse_pick(const char *text, size_t len, const char *name, struct kd_pick *pick,
	   json_t **out, struct kd_err *err)
{
	struct pipline_iter it;
	const char *s;
	size_t n;
	int rc, marked = 0, on, clean = 0, after_status = 0, exit_code = -1;
	json_t *problems, *warnings;

	*out = NULL;
	if ((rc = pipline_check_text_ex(text, len, name, pick ? 0 : KD_CAP_INPUT_LINES, err)) != 0)
		return rc;
	/* is the command shown? then only its output counts */
	pipline_init(&it, text, len);
	while (pipline_next(&it, &s, &n)) {
		pipline_unpaste(&s, &n);
		long c = pipline_command(s, n, 1);
		if (c >= 0 && is_check_command(s + c, n - (size_t)c))
			marked = 1;
	}
	on = !marked;
	/* the kinds, one string each shared by the problems (never changed) */
	json_t *kinds[4] = { json_string_nocheck("missing"), json_string_nocheck("conflict"),
			     json_string_nocheck("unsupported"), json_string_nocheck("unknown") };
	problems = json_array();
	warnings = json_array();
	pipline_init(&it, text, len);
	while (pipline_next(&it, &s, &n)) {
		pipline_unpaste(&s, &n);
		if (n == 0 || pipline_is_fence(s, n))
			continue;
		long c = pipline_command(s, n, 1);
		if (c >= 0) {
			const char *cmd = s + c;
			size_t cn = n - (size_t)c;
			/* marked: read only the check's output; else everything */
			on = !marked || is_check_command(cmd, cn);
			after_status = pipline_command_has(cmd, cn, "echo") &&
				       (memmem(cmd, cn, "$?", 2) != NULL ||
					memmem(cmd, cn, "%ERRORLEVEL%", 12) != NULL ||
					memmem(cmd, cn, "$status", 7) != NULL);
			continue;
		}
		if (after_status) {
			after_status = 0;
			if (is_integer(s, n)) {
				exit_code = 0;
				for (size_t k = 0; k < n; k++)
					exit_code = exit_code * 10 + (s[k] - '0');
				continue;
			}
		}
		if (!on)
			continue;
		if (starts_with(s, n, "No broken requirements found")) {
			clean = 1;
			continue;
		}
		if (starts_with(s, n, "WARNING:") || starts_with(s, n, "ERROR:") ||
		    starts_with(s, n, "DEPRECATION:") || starts_with(s, n, "[notice]")) {
			char *d = pipline_dup(s, n);
			treeout_add(pick, warnings, PC_WARNINGS, json_string(d ? d : ""));
			free(d);
			continue;
		}
		treeout_add(pick, problems, PC_PROBLEMS, problem(s, n, it.lineno, kinds));
	}
	for (int k = 0; k < 4; k++)
		json_decref(kinds[k]);
	*out = json_pack("{s:o, s:b, s:o, s:o}", "problems", problems, "clean", clean,
			 "exit_code", exit_code >= 0 ? json_integer(exit_code) : json_null(),
			 "warnings", warnings);
	return 0;
}

int
pipcheck_parse(const char *text, size_t len, const char *name, json_t **out,
	       struct kd_err *err)
{
	return parse_pick(text, len, name, NULL, out, err);
}

struct pc_input {
	const char *text, *name;
	size_t len;
};

static int
parse_input(void *arg, struct kd_pick *pick, json_t **out, struct kd_err *err)
{
	const struct pc_input *in = arg;

	return parse_pick(in->text, in->len, in->name, pick, out, err);
}

int
inspect_print_pip_check(FILE *fp, enum kd_format fmt, const char *path, struct kd_err *err)
{
	struct pc_input in = { .name = path };
	char *buf = NULL;
	int rc;

	if ((rc = fsutil_read_file(path, KD_CAP_PIP_OUTPUT, &buf, &in.len, err)) != 0)
		return rc == KD_EENV ? KD_EINPUT : rc;
	in.text = buf;
	rc = treeout_print(fp, fmt, parse_input, &in, pc_ids, 2, err);
	free(buf);
	return rc;
}

int
inspect_pip_check(const char *path, json_t **out, struct kd_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	if ((rc = fsutil_read_file(path, KD_CAP_PIP_OUTPUT, &buf, &len, err)) != 0)
		return rc == KD_EENV ? KD_EINPUT : rc;
	rc = pipcheck_parse(buf, len, path, out, err);
	free(buf);
	return rc;
}
