/*
 * pep440.h - Python version identifiers (PEP 440) and project names
 * (PEP 503), written against the specifications.
 *
 * A version is parsed into its parts: epoch, release, pre-release
 * (a/b/rc), post-release, development release and local label, accepting
 * every spelling PEP 440 normalises ("1.0-ALPHA.1", "v2", "1.0.post-2",
 * "1!2.0c3", "2.3.0+CU121").  Ordering follows the specification:
 * 1.0.dev0 < 1.0a1 < 1.0b1.dev0 < 1.0rc1 < 1.0 < 1.0+local < 1.0.post1,
 * with trailing zeros of the release ignored (1.0 == 1.0.0).  Local labels
 * compare part by part, numbers numerically and after letters.
 *
 * A version that is not PEP 440 ("0.21ubuntu2", only usable with "===")
 * is refused by pep440_parse; the string helpers fall back to comparing
 * such versions as text.
 */
#ifndef KD_PEP440_H
#define KD_PEP440_H

#include <stddef.h>
#include <stdint.h>

#define KD_PEP440_MAX_RELEASE 16   /* parts of the release segment */
#define KD_PEP440_MAX_LOCAL   128  /* bytes of a normalised local label */
#define KD_PEP440_MAX_TEXT    256  /* bytes of a version string */

struct pep440_version {
	uint64_t epoch;
	uint64_t release[KD_PEP440_MAX_RELEASE];
	size_t nrelease;
	char pre_l;              /* 0 none, 'a', 'b', 'r' (rc) */
	uint64_t pre_n;
	int has_post;
	uint64_t post_n;
	int has_dev;
	uint64_t dev_n;
	char local[KD_PEP440_MAX_LOCAL];  /* normalised ("cu121"), "" when none */
};

/* Parse s (surrounding spaces allowed).  0 on success, -1 when s is not a
 * PEP 440 version. */
int pep440_parse(const char *s, struct pep440_version *v);
/* The normalised form ("1!2.0rc3.post1.dev0+cu121") into buf. */
const char *pep440_format(const struct pep440_version *v, char *buf, size_t len);
/* Same without the local label (the public version). */
const char *pep440_format_public(const struct pep440_version *v, char *buf, size_t len);
/* <0, 0, >0.  pep440_cmp includes the local label, pep440_cmp_public not. */
int pep440_cmp(const struct pep440_version *a, const struct pep440_version *b);
int pep440_cmp_public(const struct pep440_version *a, const struct pep440_version *b);
int pep440_is_prerelease(const struct pep440_version *v);

/* Compare two version strings: as PEP 440 when both parse, else as text
 * (case-insensitively); *valid (may be NULL) says which. */
int pep440_compare_str(const char *a, const char *b, int *valid);
/* The local label of a version string ("cu121" for "2.3.0+CU121"),
 * normalised, into buf; "" when none.  Works on non-PEP 440 text too. */
const char *pep440_local_of(const char *s, char *buf, size_t len);
/* The version string without its local label, normalised when it parses. */
const char *pep440_public_of(const char *s, char *buf, size_t len);

/* Does version satisfy one clause of a specifier ("==2.3.*", "~=1.4",
 * ">=1,<2" is two clauses: use pep440_spec_contains)?  1 yes, 0 no, -1 the
 * clause or the version cannot be read. */
int pep440_clause_contains(const char *clause, const char *version);
/* A whole specifier: comma-separated clauses, all must hold ("" holds). */
int pep440_spec_contains(const char *spec, const char *version);
/* Is this specifier an exact pin: one "==V" without a wildcard, or "===V"? */
int pep440_spec_is_pin(const char *spec);

/* PEP 503 canonical name: lower case, runs of '-', '_', '.' as one '-'.
 * Into buf (truncated to len); returns buf. */
const char *pep503_canonical(const char *name, char *buf, size_t len);
/* The same for the first nl bytes of name (it stops at a NUL byte too);
 * returns the length written. */
size_t pep503_canonical_n(const char *name, size_t nl, char *buf, size_t len);
/* Is name a valid project name (letters, digits, '-', '_', '.', starting
 * and ending with a letter or digit)? */
int pep503_valid_name(const char *name, size_t len);

#endif
