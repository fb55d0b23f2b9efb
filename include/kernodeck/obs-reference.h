/*
 * obs-reference.h - the tree of reference-obs.yaml (the reference stage's observations):
 * each key its type, getter name and path.  Getters: obs_reference_NAME(obs).
 * Keep in step with what the stage writes; tests/e2e/obs-keys.sh proves
 * every key not marked KD_OBS_OPT is there after the demo's check.
 */
#ifndef KD_OBS_REFERENCE_H
#define KD_OBS_REFERENCE_H

#include "kernodeck/obs.h"

#define KD_OBS_REFERENCE(X) \
	X(obj, code, "code", 0) \
	X(str, code_remote, "code.remote", KD_OBS_OPT) \
	X(bool, code_remote_had_credentials, "code.remote_had_credentials", KD_OBS_OPT) \
	/* end */

#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(reference, type, name, path, flags)
KD_OBS_REFERENCE(KD_OBS_G)
#undef KD_OBS_G

#endif
