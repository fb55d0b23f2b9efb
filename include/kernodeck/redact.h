/*
 * redact.h - credentials never reach a file kernodeck writes.
 *
 * One detector: redact_text() returns a copy of a text with every finding
 * replaced by ${NAME} (https://${CREDENTIALS}@host/simple, HF_TOKEN=${HF_TOKEN}:
 * the line stays readable and names the variable that provides the value),
 * and redact_scan() reports the same findings without changing anything
 * (the dossier refuses to write a file with one).  Both run the same rules
 * (doc/secrets.md lists them):
 *
 * By shape: url-userinfo (user:password@, a token alone, percent-encoded),
 * pip-conf-credential, authorization-bearer/-basic/-token/-other,
 * private-key (PEM blocks, one line or many, across the lines of a stream),
 * aws-access-key, aws-secret-key, aws-session-token, github-token,
 * gitlab-token, huggingface-token, openai-key, anthropic-key, stripe-key,
 * google-api-key, google-oauth-secret, google-oauth-token, slack-token,
 * slack-webhook, discord-webhook, npm-token, pypi-token, sendgrid-key,
 * telegram-token, jwt, azure-key, azure-sas, url-signature (presigned URLs'
 * X-Amz-Signature, X-Goog-Signature, sig=), url-query-secret (a query
 * parameter of a credential's name family with a random value),
 * secret-assignment (NAME=VALUE,
 * NAME: VALUE, "NAME": "VALUE" where NAME ends in _TOKEN, _SECRET,
 * _PASSWORD, _PASSWD, _PASS, _PWD, _KEY...), secret-option (--password
 * VALUE, -u user:password, and tools' conventions: mysql -p, sshpass -p,
 * docker login -p, wandb login KEY, ...), netrc-password.
 *
 * By value: known-value, a value registered with redact_value_add()
 * (secrets.c collects them from the environment and the configuration
 * files at start), wherever it appears, whatever its shape: as written,
 * percent-encoded in either case, JSON-escaped (\u0076, \/, \"), and
 * split by a line break (both lines keep their shape).
 *
 * A replacement inside a plain scalar of a YAML flow collection
 * ([python, run.py, --password=VALUE]) quotes that scalar, so that the
 * file still parses to the same tree with only the value replaced.
 *
 * References (${NAME}, $NAME), masks and placeholders are not findings, so
 * redacting twice changes nothing.
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

/* A known value shorter than this is not registered (it would hide words
 * of ordinary text); one longer than the max neither. */
#define REDACT_VALUE_MIN 8
#define REDACT_VALUE_MAX 4096

/* The state a stream of lines carries from one line to the next. */
struct redact_stream {
	int in_key;          /* inside a private key block */
	int netrc;           /* the previous line was .netrc syntax */
	size_t redacted;     /* findings replaced so far */
	size_t carry;        /* the next line starts with the rest of a known value: its length */
	char carry_name[64]; /* and that value's ${NAME} */
};

/* A malloc'd redacted copy; *lenp gets its length. */
char *redact_text(const char *text, size_t len, size_t *lenp);
/* The same for one line of a stream (without its newline): a private key
 * block that began on an earlier line is hidden up to its END line. */
char *redact_stream_line(struct redact_stream *st, const char *line, size_t len,
			 size_t *lenp);
/* The same, knowing the line that follows (NULL: none yet): a known
 * value split by the line break (an output's wrapping) is hidden on both
 * lines, each keeping its own ${NAME}; the next call hides the rest. */
char *redact_stream_next(struct redact_stream *st, const char *line, size_t len,
			 const char *next, size_t nextlen, size_t *lenp);
/* Register a value to hide wherever it appears, replaced by ${name};
 * returns 1 when added, 0 when too short, too long, a placeholder or known
 * already, -1 without memory. */
int redact_value_add(const char *name, const char *value);
/* How many known values there are (the fuzz target registers its own when
 * none). */
size_t redact_value_count(void);
void redact_value_clear(void);
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
