/*
 * rebuild-base.h - stage 3 on a base environment (python.install.base):
 * the steps src/stages/stage-rebuild.c runs when the reference names one, and
 * their rows.  The mechanism is baseenv.h's.
 *
 * Observations (rebuild.yaml):
 *   base: {given, path, kind, python, version, site_dirs[], packages,
 *          digest, pth, inventory_file, moved_from, changed{was_digest,
 *          added[], removed[]}, problem (missing | unusable | moved |
 *          query | changed | layer), error}
 *   inventory.origin: {rebuilt[], base[], system[]} of name==version
 *   (read back through obs-rebuild.h's getters)
 * Settings: rebuild.built.base {path, digest, packages[]}, with the rest of
 * rebuild.built (rebuild.h).
 */
#ifndef KD_REBUILD_BASE_H
#define KD_REBUILD_BASE_H

#include <jansson.h>

#include "kernodeck/baseenv.h"
#include "kernodeck/ctx.h"
#include "kernodeck/stage.h"

struct rebuild_base {
	int on;                       /* the reference names a base */
	struct baseenv env;
	struct baseenv_query base;    /* what the base's interpreter reported */
	json_t *obs;                  /* obs.base (borrowed) */
};

/* Run python's query (baseenv_query_py) as step `what` (label to the
 * sink); parse it into q.  0 or -1 (msg set). */
int rebuild_base_ask(struct kd_ctx *ctx, const struct kd_sink *sink, json_t *steps,
		     const char *what, const char *label, const char *python,
		     struct baseenv_query *q, char *msg, size_t len);
/* Find and ask the base (step base-query), and refuse one that moved or
 * changed since the venv in venv_dir was built on it.  0 to go on (also
 * when there is no base: rb->on = 0), 1 to stop: obs.base says why and
 * obs.blocked is set. */
int rebuild_base_prepare(struct kd_ctx *ctx, const struct kd_sink *sink, json_t *obs,
			 json_t *steps, const char *venv_dir, struct rebuild_base *rb);
/* Was the venv built on this base as it is now (rebuild.built.base)?  1
 * also when neither has a base. */
int rebuild_base_matches(const struct kd_ctx *ctx, const struct rebuild_base *rb);
/* Layer the venv on the base: ask the venv's interpreter for its
 * site-packages (step venv-query) and write the .pth there.  0 or 1 to
 * stop (obs.base.problem: layer). */
int rebuild_base_layer(struct kd_ctx *ctx, const struct kd_sink *sink, json_t *obs,
		       json_t *steps, const char *venv_python, struct rebuild_base *rb);
/* Record the base in rebuild.built (after record_built). */
void rebuild_base_record(struct kd_ctx *ctx, const struct rebuild_base *rb);
/* After the inventory: where each package comes from (step venv-origin)
 * into obs.inventory.origin, and the base's inventory as
 * kernodeck/base-inventory.txt. */
void rebuild_base_capture(struct kd_ctx *ctx, const struct kd_sink *sink, json_t *obs,
			  json_t *steps, const char *venv_python, struct rebuild_base *rb);
void rebuild_base_free(struct rebuild_base *rb);
/* The rows rebuild.base, rebuild.base.layer, rebuild.inventory.origin. */
void rebuild_base_check(const json_t *obs, struct kd_rows *rows);

#endif
