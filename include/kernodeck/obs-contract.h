/*
 * obs-contract.h - the tree of contract.yaml (the contract stage's observations):
 * each key its type, getter name and path.  Getters: obs_contract_NAME(obs).
 * Keep in step with what the stage writes; tests/e2e/obs-keys.sh proves
 * every key not marked KD_OBS_OPT is there after the demo's check.
 */
#ifndef KD_OBS_CONTRACT_H
#define KD_OBS_CONTRACT_H

#include "kernodeck/obs.h"

#define KD_OBS_CONTRACT(X) \
	X(arr, differences, "inventory.comparison.differences", KD_OBS_OPT) \
	/* end */

#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(contract, type, name, path, flags)
KD_OBS_CONTRACT(KD_OBS_G)
#undef KD_OBS_G

#endif
