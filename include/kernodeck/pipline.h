/*
 * pipline.h - reading the text that pip and people produce: lines, the
 * noise around a pasted output (shell prompts with the echoed command,
 * `set -x` traces, markdown fences), URLs with credentials and local paths.
 * Shared by the requirements, freeze and pip check parsers.
 */
#ifndef KD_PIPLINE_H
#define KD_PIPLINE_H

#include <stddef.h>

#include "kernodeck/err.h"

struct pipline_iter {
	const char *p, *end;
	int lineno;            /* 1-based number of the line last returned */
};

void pipline_init(struct pipline_iter *it, const char *text, size_t len);
/* The next line without its end of line (\n, \r\n); 0 at the end. */
int pipline_next(struct pipline_iter *it, const char **line, size_t *n);

/* Refuse what is not text: a NUL byte, a line over KD_CAP_LINE, bad UTF-8,
 * more than KD_CAP_INPUT_LINES lines.  name is the file for the message. */
int pipline_check_text(const char *text, size_t len, const char *name, struct kd_err *err);
/* The same with another line cap (0: none, for a parser that streams its
 * tree: treeout.h). */
int pipline_check_text_ex(const char *text, size_t len, const char *name, unsigned max_lines,
			  struct kd_err *err);

/* Trim spaces at both ends of [*s, *s + *n). */
void pipline_trim(const char **s, size_t *n);
/* A line of a pasted output made ready: trimmed, without the e-mail quote
 * marks before it ("> ", "> > ", ">> ") and without a markdown fence glued
 * to its end ("...installed.```"). */
void pipline_unpaste(const char **s, size_t *n);
/* A markdown fence ("```", "~~~", with an optional language). */
int pipline_is_fence(const char *s, size_t n);
/* A shell prompt followed by a command ("$ pip check", "[u@h d]$ echo $?",
 * "(env) C:\x> python -m pip freeze", "root@c:/d# pip freeze", "❯ pip
 * freeze") or a trace line ("+ pip check").  Returns the offset of the
 * command in s, or -1.  hash_prompt: accept "# " as a prompt (not in files
 * where "#" starts a comment). */
long pipline_command(const char *s, size_t n, int hash_prompt);
/* Does the command (at the offset pipline_command gave) contain word? */
int pipline_command_has(const char *cmd, size_t n, const char *word);

/* Is there a URL with a credential in [s, s+n): scheme://USERINFO@host
 * where USERINFO is more than environment variable references (pip expands
 * ${NAME}; "user:${TOKEN}@" and "${TOKEN}@" are fine)?  Returns 1 and the
 * place of the userinfo in *off and *len. */
int pipline_url_credential(const char *s, size_t n, size_t *off, size_t *len);
/* Is this (a path or a URL) a local absolute path: "/x", "~/x", "C:\x",
 * "\\server\x", or a file: URL? */
int pipline_is_local_abs(const char *s, size_t n);
/* A VCS URL ("git+https://...", "hg+", "svn+", "bzr+")? */
int pipline_is_vcs(const char *url);
/* The parts of a VCS or direct URL that pip reads: the revision after the
 * last '@' of the path, #egg= and subdirectory= of the fragment.  Each is
 * malloc'd or NULL. */
struct pipline_url_parts {
	char *rev;
	char *egg;
	char *subdirectory;
};
void pipline_url_split(const char *url, struct pipline_url_parts *p);
void pipline_url_parts_free(struct pipline_url_parts *p);
/* A full 40 (SHA-1) or 64 (SHA-256) hex commit id? */
int pipline_is_commit_id(const char *s);
/* A malloc'd, NUL-terminated copy of [s, s+n). */
char *pipline_dup(const char *s, size_t n);

#endif
