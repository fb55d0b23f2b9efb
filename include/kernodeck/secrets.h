/*
 * secrets.h - the credentials this machine holds, collected at start so
 * that redact.c hides their values wherever they appear, whatever their
 * shape; and `kernodeck inspect secrets FILE`.
 *
 * Collected (doc/secrets.md): the values of environment variables with
 * secret-like names (*_TOKEN, *_KEY, *_SECRET, *_PASSWORD, *PASSWORD*,
 * *SECRET*, ...), the userinfo of any URL in the environment (PIP_INDEX_URL,
 * DATABASE_URL, ...), and every credential the rules find in pip's
 * configuration files, ~/.netrc, ~/.pypirc, the git configuration and
 * ~/.git-credentials.  A value shorter than REDACT_VALUE_MIN, a path, a
 * number, a placeholder or one lower-case word shorter than 16 characters
 * is not collected (it would hide ordinary text).
 */
#ifndef KD_SECRETS_H
#define KD_SECRETS_H

#include <jansson.h>

#include "kernodeck/err.h"

/* Does an environment variable's name say that it holds a secret? */
int secrets_env_name(const char *name);
/* Collect from envp (NULL-terminated NAME=VALUE) and from the files under
 * the environment's HOME; returns the number of values registered. */
size_t secrets_collect(char *const *envp);
/* Register the credentials the rules find in one file (a missing file is
 * not an error); returns the number registered. */
size_t secrets_collect_file(const char *path);
/* What the rules find in a file: line, kind and name of each finding, and
 * the value's length, never the value. */
int inspect_secrets(const char *path, json_t **out, struct kd_err *err);

#endif
