/*
 * obs-sample.h - the tree of sample.yaml (the sample stage's observations):
 * each key its type, getter name and path.  Getters: obs_sample_NAME(obs).
 * Keep in step with what the stage writes; tests/e2e/obs-keys.sh proves
 * every key not marked KD_OBS_OPT is there after the demo's check.
 */
#ifndef KD_OBS_SAMPLE_H
#define KD_OBS_SAMPLE_H

#include "kernodeck/obs.h"

#define KD_OBS_SAMPLE(X) \
	X(obj, resume, "resume", KD_OBS_OPT) \
	/* end */

#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(sample, type, name, path, flags)
KD_OBS_SAMPLE(KD_OBS_G)
#undef KD_OBS_G

#endif
