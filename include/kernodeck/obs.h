/*
 * obs.h - reading the observation files back: one header per file
 * (obs-reference.h ... obs-dossier.h) documents its tree as a list of
 * keys, each with its type and path, and this header turns each key into
 * a typed getter
 *
 *   obs_system_python_chosen(obs)   for   X(str, python_chosen, "python.chosen", 0)
 *
 * so that stage, report, dossier and screen code never spells a key path
 * (a misspelt getter is a compile error, not a silent NULL), and one table
 * per file (obs-files.h, kd_obs_files) lets a test prove every key the header
 * declares is where the stage writes it (tests/helpers/obs-keys.c, run on
 * the demo's observations by demo-headless and demo-training).
 *
 * Types: str (const char *, NULL when absent or not a string), obj and arr
 * (const json_t *, NULL when absent or of another kind), any (const json_t
 * *), bool (int: 1 only for true), int (json_int_t, 0 when absent), num
 * (double, 0 when absent; integers too).  Flags: KD_OBS_OPT for a key that
 * is absent or null in some runs (the test does not require it, nor the
 * keys below it where it is absent).
 */
#ifndef KD_OBS_H
#define KD_OBS_H

#include <jansson.h>

#include "kernodeck/yamlio.h"

#define KD_OBS_OPT 0x1u   /* absent or null in some runs */

#define KD_OBS_T_str  const char *
#define KD_OBS_T_obj  const json_t *
#define KD_OBS_T_arr  const json_t *
#define KD_OBS_T_any  const json_t *
#define KD_OBS_T_bool int
#define KD_OBS_T_int  json_int_t
#define KD_OBS_T_num  double

static inline const char *kd_obs_v_str(const json_t *j) { return json_string_value(j); }
static inline const json_t *kd_obs_v_obj(const json_t *j) { return json_is_object(j) ? j : NULL; }
static inline const json_t *kd_obs_v_arr(const json_t *j) { return json_is_array(j) ? j : NULL; }
static inline const json_t *kd_obs_v_any(const json_t *j) { return j; }
static inline int kd_obs_v_bool(const json_t *j) { return json_is_true(j); }
static inline json_int_t kd_obs_v_int(const json_t *j) { return json_integer_value(j); }
static inline double kd_obs_v_num(const json_t *j) { return json_number_value(j); }

/* One getter: obs_FILE_NAME(obs), obs being the file's whole tree (or NULL). */
#define KD_OBS_GETTER(file, type, name, path, flags) \
	static inline KD_OBS_T_##type obs_##file##_##name(const json_t *obs) \
	{ return kd_obs_v_##type(yamlio_get(obs, path)); }

#endif
