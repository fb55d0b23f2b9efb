/*
 * stages.h - the one list of the stages, in their order.  Every table
 * indexed by stage is made from it, so that a stage is added in one line
 * here (doc/design.md, "Adding a stage"):
 *
 *   kd_stages[]      the stages' ops, kd_stage_ID (src/engine/stage.c)
 *   kd_screens[]     their screens, kd_screen_ID (screens/frame.c)
 *   kd_obs_files[]   their observation files and declared keys
 *                    (src/engine/obs-files.c, obs-ID.h's list)
 *   KD_NSTAGES       the count, and stage_count_word() its word ("seven")
 *   kd_stage_ids[]   the ids, for the state file (src/engine/stages.c)
 *
 * X(ID, OBS_FILE, OBS_KEYS): ID the stage's id as a bare word (its ops
 * must say the same in .id: the unit test test-stage checks it), OBS_FILE
 * its observation file under the kernodeck folder, OBS_KEYS the X-macro
 * list of obs-ID.h that documents that file's tree.
 *
 * Code names a stage by its ops (stage_pos(&kd_stage_rebuild)) or through
 * this list, never by its index or its id in a string.
 */
#ifndef KD_STAGES_H
#define KD_STAGES_H

#include <stddef.h>

#define KD_STAGE_LIST(X) \
	X(reference, "reference-obs.yaml", KD_OBS_REFERENCE) \
	X(system,    "system.yaml",        KD_OBS_SYSTEM) \
	X(rebuild,   "rebuild.yaml",       KD_OBS_REBUILD) \
	X(contract,  "contract.yaml",      KD_OBS_CONTRACT) \
	X(compute,   "compute.yaml",       KD_OBS_COMPUTE) \
	X(sample,    "sample.yaml",        KD_OBS_SAMPLE) \
	X(dossier,   "dossier-obs.yaml",   KD_OBS_DOSSIER) \
	/* end */

#define KD_STAGE_ONE_(id, file, keys) + 1
/* The number of stages. */
#define KD_NSTAGES (0 KD_STAGE_LIST(KD_STAGE_ONE_))

/* The stage ids in the list's order ("reference", "system", ...). */
extern const char *const kd_stage_ids[KD_NSTAGES];
/* Index of a stage id, or -1. */
int stage_index(const char *id);
/* The stage ids in order, joined by sep ("reference, system, ...") into
 * buf; returns buf. */
const char *stage_id_list(char *buf, size_t len, const char *sep);
/* The observation file of stage i under the kernodeck folder ("system.yaml"),
 * or NULL for an index out of the list. */
const char *stage_obs_file(int i);
/* The count in words, for a person ("seven"; digits past twelve). */
const char *stage_count_word(void);

#endif
