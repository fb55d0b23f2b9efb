/*
 * obs-files.h - every observation file with the keys its obs-ID.h header
 * declares (src/engine/obs-files.c), for the test that proves each is
 * where its stage writes it (tests/helpers/obs-keys.c).  The files and
 * their key lists come from the list of stages (stages.h).
 */
#ifndef KD_OBS_FILES_H
#define KD_OBS_FILES_H

#include <jansson.h>

/* The keys of one file, for the test. */
struct kd_obs_key {
	const char *path;   /* "python.chosen"; NULL ends the list */
	const char *type;   /* "str", "obj", ... */
	unsigned flags;     /* KD_OBS_OPT */
};

struct kd_obs_file {
	const char *file;                /* "system.yaml"; NULL ends the table */
	const struct kd_obs_key *keys;
};

#define KD_OBS_KEY(type, name, path, flags) { path, #type, flags },

extern const struct kd_obs_file kd_obs_files[];
/* The entry of an observation file name ("system.yaml"), or NULL. */
const struct kd_obs_file *obs_file_find(const char *file);
/* Whether node has the declared type (str, obj, arr, any, bool, int, num). */
int obs_type_ok(const json_t *node, const char *type);

/* The keys of each element of an array (or each value of a mapping) at
 * path in file: a header's element list (KD_OBS_SYSTEM_GPU ...), for the
 * same test. */
struct kd_obs_elems {
	const char *file;                /* "system.yaml"; NULL ends the table */
	const char *path;                /* "gpus" */
	const struct kd_obs_key *keys;
};

extern const struct kd_obs_elems kd_obs_elems[];

#endif
