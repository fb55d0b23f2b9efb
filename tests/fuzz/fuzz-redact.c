/*
 * fuzz-redact.c - the credential detector (redact.c) on any text: what a
 * log, a rebuild file or a dossier may hold.  Properties: the scan and the
 * redaction agree (a finding if and only if the text changes), the
 * redacted text holds nothing more to find, redacting it again changes
 * nothing, and redacting the text line by line as a stream (run.c, each
 * line knowing the next) leaves nothing to find either.  Two values are
 * known (as secrets_collect registers them), so that their spellings
 * (percent-encoded, JSON-escaped) and their splits by a line break are
 * exercised: fuzz-redact.dict holds them.
 */
#include "config.h"

#include "fuzz.h"
#include "kernodeck/redact.h"

static void
fail(const char *what)
{
	fprintf(stderr, "fuzz-redact: %s\n", what);
	abort();
}

/* The text redacted line by line, joined again. */
static char *
by_lines(const char *t, size_t n, size_t *lenp)
{
	struct redact_stream st = { 0 };
	char *o = NULL;
	size_t ol = 0, ls = 0;

	while (ls <= n) {
		const char *nl = memchr(t + ls, '\n', n - ls), *nn = NULL;
		size_t le = nl ? (size_t)(nl - t) : n, rl;
		if (nl != NULL)
			nn = memchr(nl + 1, '\n', n - le - 1);
		char *r = redact_stream_next(&st, t + ls, le - ls, nl ? nl + 1 : NULL,
					     nl ? (nn ? (size_t)(nn - nl - 1) : n - le - 1) : 0, &rl), *no;
		if (r == NULL || (no = realloc(o, ol + rl + 2)) == NULL) {
			free(r);
			free(o);
			return NULL;
		}
		o = no;
		memcpy(o + ol, r, rl);
		ol += rl;
		if (nl)
			o[ol++] = '\n';
		o[ol] = '\0';
		free(r);
		if (!nl)
			break;
		ls = le + 1;
	}
	*lenp = ol;
	return o;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t = fuzz_dup(data, size), *o, *again, *s;
	size_t n, ol, al, sl;

	if (t == NULL)
		return 0;
	if (redact_value_count() == 0) {
		redact_value_add("FUZZ_PASSWORD", "pw:Zq8/vK3@x");
		redact_value_add("FUZZ_TOKEN", "Tk9\"q\\w7Lm2");
	}
	n = redact_scan(t, size, NULL, 0);
	o = redact_text(t, size, &ol);
	if (o == NULL) {
		free(t);
		return 0;
	}
	if ((n > 0) != (ol != size || memcmp(o, t, size) != 0))
		fail("the scan and the redaction disagree");
	if (redact_scan(o, ol, NULL, 0) != 0)
		fail("the redacted text still holds a finding");
	again = redact_text(o, ol, &al);
	if (again != NULL && (al != ol || memcmp(again, o, ol) != 0))
		fail("redacting twice changed the text");
	s = by_lines(t, size, &sl);
	if (s != NULL && redact_scan(s, sl, NULL, 0) != 0)
		fail("the text redacted line by line still holds a finding");
	free(s);
	free(again);
	free(o);
	free(t);
	return 0;
}
