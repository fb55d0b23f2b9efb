/*
 * fuzz-sha256sums.c - a dossier's SHA256SUMS manifest from someone else
 * (sha256sums_parse).  Property: a manifest that parses is formatted
 * (sha256sums_format) into text that parses again to the same entries, and
 * every entry's path is one that sha256sums_path_safe accepts.
 */
#include "config.h"

#include "fuzz.h"
#include "kernodeck/sha256sums.h"

static int
same_entry(const struct sha256sums *a, size_t i, const struct sha256sums *b)
{
	size_t j;

	for (j = 0; j < b->n; j++)
		if (strcmp(a->v[i].path, b->v[j].path) == 0)
			return strcmp(a->v[i].hex, b->v[j].hex) == 0;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sha256sums s, s2;
	struct kd_err err;
	size_t i, n;
	char *text;

	memset(&s, 0, sizeof s);
	if (sha256sums_parse((const char *)data, size, "SHA256SUMS", &s, &err) != 0) {
		sha256sums_free(&s);
		return 0;
	}
	for (i = 0; i < s.n; i++)
		if (!sha256sums_path_safe(s.v[i].path)) {
			fprintf(stderr, "unsafe path accepted: %s\n", s.v[i].path);
			abort();
		}
	text = sha256sums_format(&s, &n);
	memset(&s2, 0, sizeof s2);
	if (sha256sums_parse(text, n, "formatted", &s2, &err) != 0 || s2.n != s.n) {
		fprintf(stderr, "formatted manifest does not parse back: %s\n%s\n", err.msg,
			text);
		abort();
	}
	for (i = 0; i < s.n; i++)
		if (!same_entry(&s, i, &s2)) {
			fprintf(stderr, "entry %zu changes across format: %s\n", i, s.v[i].path);
			abort();
		}
	sha256sums_free(&s2);
	sha256sums_free(&s);
	free(text);
	return 0;
}
