/*
 * obs-system.h - the tree of system.yaml (the system stage's observations):
 * each key its type, getter name and path.  Getters: obs_system_NAME(obs).
 * Keep in step with what the stage writes; tests/e2e/obs-keys.sh proves
 * every key not marked KD_OBS_OPT is there after the demo's check.
 */
#ifndef KD_OBS_SYSTEM_H
#define KD_OBS_SYSTEM_H

#include "kernodeck/obs.h"

#define KD_OBS_SYSTEM(X) \
	X(obj, env, "env", 0) \
	/* end */

#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(system, type, name, path, flags)
KD_OBS_SYSTEM(KD_OBS_G)
#undef KD_OBS_G

#endif
