/*
 * obs-dossier.h - the tree of dossier-obs.yaml (the dossier stage's observations):
 * each key its type, getter name and path.  Getters: obs_dossier_NAME(obs).
 * Keep in step with what the stage writes; tests/e2e/obs-keys.sh proves
 * every key not marked KD_OBS_OPT is there after the demo's check.
 */
#ifndef KD_OBS_DOSSIER_H
#define KD_OBS_DOSSIER_H

#include "kernodeck/obs.h"

#define KD_OBS_DOSSIER(X) \
	X(arr, findings, "findings", 0) \
	/* end */

#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(dossier, type, name, path, flags)
KD_OBS_DOSSIER(KD_OBS_G)
#undef KD_OBS_G

#endif
