/*
 * redact.h - credentials never reach a file kernodeck writes.
 *
 * redact_text() returns a copy of a text with every credential replaced:
 * URL userinfo (https://user:pass@host -> https://${CREDENTIALS}@host),
 * tokens of known shapes and values of secret-named assignments, each by
 * ${NAME}.  redact_scan() reports findings without changing anything (the
 * dossier refuses to write a file with one).  Both use the same patterns.
 *
 * Kinds: url-userinfo, pip-conf-credential, authorization-bearer,
 * authorization-basic, authorization-token, private-key, aws-access-key,
 * github-token, gitlab-token, huggingface-token, slack-token, slack-webhook,
 * pypi-token, secret-assignment (NAME=VALUE where NAME ends in _TOKEN,
 * _SECRET, _PASSWORD, _PASSWD, _KEY), netrc-password.  References
 * (${NAME}, $NAME), masks and placeholders are not findings, so redacting
 * twice changes nothing.
 */
#ifndef KD_REDACT_H
#define KD_REDACT_H

#include <stddef.h>

struct redact_finding {
	int line;            /* 1-based */
	const char *kind;    /* static string: "url-userinfo", "github-token", ... */
	size_t off, len;     /* the value's place in the text */
	char name[64];       /* the suggested ${NAME} */
};

/* A malloc'd redacted copy; *lenp gets its length. */
char *redact_text(const char *text, size_t len, size_t *lenp);
/* Strip userinfo from one URL into a malloc'd string; *had set to 1 when
 * there was some. */
char *redact_url(const char *url, int *had);
/* Findings in text; returns their number, fills up to max. */
size_t redact_scan(const char *text, size_t len, struct redact_finding *out, size_t max);
/* Replace the spans of findings (sorted by offset, as redact_scan gives
 * them) by ${NAME}; a malloc'd copy. */
char *redact_apply(const char *text, size_t len, const struct redact_finding *f,
		   size_t n, size_t *lenp);
/* The kind of a file that holds credentials by its name (.netrc, _netrc,
 * .git-credentials, .pypirc, credentials), or NULL. */
const char *redact_credential_file(const char *path);

#endif
