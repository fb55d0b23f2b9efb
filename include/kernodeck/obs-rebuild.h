/*
 * obs-rebuild.h - the tree of rebuild.yaml (the rebuild stage's observations):
 * each key its type, getter name and path.  Getters: obs_rebuild_NAME(obs).
 * Keep in step with what the stage writes; tests/e2e/obs-keys.sh proves
 * every key not marked KD_OBS_OPT is there after the demo's check.
 */
#ifndef KD_OBS_REBUILD_H
#define KD_OBS_REBUILD_H

#include "kernodeck/obs.h"

#define KD_OBS_REBUILD(X) \
	X(obj, base, "base", KD_OBS_OPT) \
	X(arr, base_site_dirs, "base.site_dirs", KD_OBS_OPT) \
	/* end */

#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(rebuild, type, name, path, flags)
KD_OBS_REBUILD(KD_OBS_G)
#undef KD_OBS_G

#endif
