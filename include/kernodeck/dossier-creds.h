/*
 * dossier-creds.h - the credentials a rebuild from a dossier needs: which
 * ones, where they were needed and how to provide them, never a value.
 *
 * dossier.yaml's `credentials:` is a list of {name, provide, how, for,
 * where}: provide is `env:NAME` (an environment variable) or `netrc:HOST`
 * (a netrc entry or a git credential helper for HOST); how says it in
 * words; where lists the places (the rebuild file's line and field, a data
 * item, the git remote).  Sources: data items with access env:NAME, every
 * ${NAME} in the rebuild file and the files it includes (-r, -c), index
 * URLs of the rebuild file whose host has a netrc entry, and a git remote
 * whose URL held a credential (stripped by repo.c).
 */
#ifndef KD_DOSSIER_CREDS_H
#define KD_DOSSIER_CREDS_H

#include <jansson.h>

struct kd_ctx;

/* The list above (new reference). */
json_t *dossier_credentials(const struct kd_ctx *ctx);
/* README.md's "Credentials to provide" section (malloc'd). */
char *dossier_creds_readme(const json_t *creds);
/* procedure.sh's checks: each env:NAME must be set (exit 3 naming the
 * variable, never printing a value); a netrc:HOST is looked for and only
 * noted when missing (a credential helper may hold it).  Malloc'd. */
char *dossier_creds_procedure(const json_t *creds);

#endif
