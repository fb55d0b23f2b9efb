/*
 * obs-dossier.h - the tree of dossier-obs.yaml (the dossier stage's observations):
 * each key its type, getter name and path.  Getters: obs_dossier_NAME(obs).
 * Keep in step with what the stage writes; tests/helpers/obs-keys (run by
 * tests/integration/demo-headless.sh and demo-training.sh) proves every key
 * not marked KD_OBS_OPT is there after the demos' checks.
 *
 * The tree is dossier_write's summary (src/features/dossier.c; `kernodeck dossier`
 * reads the same one), with the stage's check of SHA256SUMS added:
 *   out                 the dossier folder
 *   files               how many files the dossier holds
 *   findings[]          the credentials the scan found: KD_OBS_DOSSIER_FINDING
 *                       (then nothing is written)
 *   home_paths[]        absolute paths under $HOME: file, line, path
 *   excluded[]          the files left out by the person (dossier.exclude)
 *   relative            project paths written relative to it
 *   written             written (no finding, no error)
 *   moved_aside         where the previous dossier went
 *   removed_backups[], backup_error   older dossiers pruned, or why not
 *   created             when the dossier was made (UTC)
 *   verified, verified_files, verify_problem   SHA256SUMS checked back
 *                       (the stage, when written)
 */
#ifndef KD_OBS_DOSSIER_H
#define KD_OBS_DOSSIER_H

#include "kernodeck/obs.h"

#define KD_OBS_DOSSIER(X) \
	X(str, out, "out", 0) \
	X(int, files, "files", 0) \
	X(arr, findings, "findings", 0) \
	X(arr, home_paths, "home_paths", 0) \
	X(arr, excluded, "excluded", 0) \
	X(bool, relative, "relative", 0) \
	X(bool, written, "written", 0) \
	X(str, moved_aside, "moved_aside", KD_OBS_OPT) \
	X(arr, removed_backups, "removed_backups", KD_OBS_OPT) \
	X(str, backup_error, "backup_error", KD_OBS_OPT) \
	X(str, created, "created", 0) \
	X(bool, verified, "verified", KD_OBS_OPT) \
	X(int, verified_files, "verified_files", KD_OBS_OPT) \
	X(str, verify_problem, "verify_problem", KD_OBS_OPT) \
	/* end */

/* One element of findings: obs_dossier_finding_NAME(f). */
#define KD_OBS_DOSSIER_FINDING(X) \
	X(str, file, "file", 0) \
	X(str, source, "source", KD_OBS_OPT) \
	X(int, line, "line", 0) \
	X(str, kind, "kind", 0) \
	X(str, name, "name", 0) \
	/* end */

/* One element of home_paths: obs_dossier_home_NAME(h). */
#define KD_OBS_DOSSIER_HOME(X) \
	X(str, file, "file", 0) \
	X(int, line, "line", 0) \
	X(str, path, "path", 0) \
	/* end */

#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(dossier, type, name, path, flags)
KD_OBS_DOSSIER(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(dossier_finding, type, name, path, flags)
KD_OBS_DOSSIER_FINDING(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(dossier_home, type, name, path, flags)
KD_OBS_DOSSIER_HOME(KD_OBS_G)
#undef KD_OBS_G

#endif
