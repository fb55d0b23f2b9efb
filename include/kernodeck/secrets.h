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
/* Register what the rules find in a project's own git configuration
 * (PROJECT/.git/config, or the folders a ".git" file and "commondir"
 * name): remote URLs with userinfo, http.extraHeader; called when a
 * context opens, since main does not know the project.  Returns the number
 * registered. */
size_t secrets_collect_project(const char *project);
/* Register what the rules find in an argument vector (the reference's
 * code.entry_point: --password VALUE, sshpass -p VALUE, ...), its words
 * joined as one command line: hidden by value wherever it appears, in a
 * log, a written file or the terminal.  Returns the number registered. */
size_t secrets_collect_argv(const json_t *argv);
/* An argument vector's strings as one line, each followed by a blank, as
 * the rules read it (malloc'd; *len its length), or NULL. */
char *secrets_argv_line(const json_t *argv, size_t *len);
/* pip's configuration files, in the order pip reads them
 * ($PIP_CONFIG_FILE, /etc/pip.conf, $XDG_CONFIG_DIRS/pip/pip.conf,
 * ~/.config/pip/pip.conf, ~/.pip/pip.conf, $VIRTUAL_ENV/pip.conf): a JSON
 * array of paths (missing files included). */
json_t *secrets_pip_files(char *const *envp);
/* What the rules find in a file: line, kind and name of each finding, and
 * the value's length, never the value. */
int inspect_secrets(const char *path, json_t **out, struct kd_err *err);

#endif
