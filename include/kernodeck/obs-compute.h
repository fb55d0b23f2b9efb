/*
 * obs-compute.h - the tree of compute.yaml (the compute stage's observations):
 * each key its type, getter name and path.  Getters: obs_compute_NAME(obs).
 * Keep in step with what the stage writes; tests/e2e/obs-keys.sh proves
 * every key not marked KD_OBS_OPT is there after the demo's check.
 */
#ifndef KD_OBS_COMPUTE_H
#define KD_OBS_COMPUTE_H

#include "kernodeck/obs.h"

#define KD_OBS_COMPUTE(X) \
	X(str, expected, "expected", 0) \
	X(str, probe, "probe", 0) \
	/* end */

#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(compute, type, name, path, flags)
KD_OBS_COMPUTE(KD_OBS_G)
#undef KD_OBS_G

#endif
