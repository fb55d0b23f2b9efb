/*
 * obs-reference.h - the tree of reference-obs.yaml (the reference stage's
 * observations, src/stages/stage-reference.c; judged by src/stages/reference-check.c):
 * each key its type, getter name and path.  Getters: obs_reference_NAME(obs).
 * Keep in step with what the stage writes; tests/helpers/obs-keys (run by
 * demo-headless and demo-training) proves every key not marked KD_OBS_OPT is
 * there after the demo's check.
 *
 *   checked_at          when (UTC)
 *   exclude_added       lines added to .git/info/exclude by this check
 *   code                the repository (repo.h, repo_info_to_json): .workdir,
 *                       .commit (HEAD), .branch (null when detached), .tags,
 *                       .remote (credentials stripped), .remote_had_credentials,
 *                       .on_remote_branch (false: HEAD is on no remote-tracking
 *                       branch; null: unknown), .dirty [{status, path}],
 *                       .dirty_truncated, .submodules [{path, initialized,
 *                       checked_out}], .superproject, .recorded {name, kind
 *                       (branch, remote-branch, tag, commit), resolves_to}: what
 *                       the reference's code.commit names; .entry_script
 *                       {path, commit, at_commit}: the entry point's script
 *                       (reference_entry_script) in the tree of that commit; or,
 *                       when the
 *                       repository cannot be read, .error and .problem
 *   files               {REFPATH: file} one hashed item per reference path
 *                       ("code.params[0]", "data[1]", "result.sample"); the
 *                       keys hold dots, so read with json_object_get and the
 *                       KD_OBS_REFERENCE_FILE getters
 *   urls                {REFPATH: url} what each data item's URL answered
 *                       (KD_OBS_REFERENCE_URL)
 *   filled              [field path] recorded from this machine by this check
 *   warnings            [{id, label, message}] (KD_OBS_REFERENCE_WARNING)
 *   changed             [field path] inputs changed since the previous check
 */
#ifndef KD_OBS_REFERENCE_H
#define KD_OBS_REFERENCE_H

#include "kernodeck/obs.h"

#define KD_OBS_REFERENCE(X) \
	X(int, exclude_added, "exclude_added", KD_OBS_OPT) \
	X(obj, code, "code", 0) \
	X(str, code_workdir, "code.workdir", KD_OBS_OPT) \
	X(str, code_commit, "code.commit", KD_OBS_OPT) \
	X(str, code_branch, "code.branch", KD_OBS_OPT) \
	X(arr, code_tags, "code.tags", KD_OBS_OPT) \
	X(str, code_remote, "code.remote", KD_OBS_OPT) \
	X(bool, code_remote_had_credentials, "code.remote_had_credentials", KD_OBS_OPT) \
	X(any, code_on_remote_branch, "code.on_remote_branch", KD_OBS_OPT) \
	X(arr, code_dirty, "code.dirty", KD_OBS_OPT) \
	X(bool, code_dirty_truncated, "code.dirty_truncated", KD_OBS_OPT) \
	X(arr, code_submodules, "code.submodules", KD_OBS_OPT) \
	X(str, code_superproject, "code.superproject", KD_OBS_OPT) \
	X(str, code_recorded_kind, "code.recorded.kind", KD_OBS_OPT) \
	X(str, code_recorded_resolves_to, "code.recorded.resolves_to", KD_OBS_OPT) \
	X(str, code_entry_script_path, "code.entry_script.path", KD_OBS_OPT) \
	X(str, code_entry_script_commit, "code.entry_script.commit", KD_OBS_OPT) \
	X(bool, code_entry_script_at_commit, "code.entry_script.at_commit", KD_OBS_OPT) \
	X(str, code_error, "code.error", KD_OBS_OPT) \
	X(str, code_problem, "code.problem", KD_OBS_OPT) \
	X(obj, files, "files", 0) \
	X(obj, urls, "urls", 0) \
	X(arr, filled, "filled", 0) \
	X(arr, warnings, "warnings", 0) \
	X(arr, changed, "changed", 0) \
	/* end */

/* One element of code.dirty: obs_reference_dirty_NAME(f).  status is
 * git status's two letters ("M ", "??"). */
#define KD_OBS_REFERENCE_DIRTY(X) \
	X(str, status, "status", 0) \
	X(str, path, "path", 0) \
	/* end */

/* One element of code.submodules: obs_reference_submodule_NAME(s). */
#define KD_OBS_REFERENCE_SUBMODULE(X) \
	X(str, path, "path", 0) \
	X(bool, initialized, "initialized", 0) \
	X(str, checked_out, "checked_out", KD_OBS_OPT) \
	/* end */

/* One value of files: obs_reference_file_NAME(file).  sha256 (a folder's
 * is its manifest's), size, kind (file, folder), from_cache, manifest (the
 * folder's manifest, under the kernodeck folder), or error and error_kind
 * (missing, unreadable, changed ...). */
#define KD_OBS_REFERENCE_FILE(X) \
	X(str, sha256, "sha256", KD_OBS_OPT) \
	X(int, size, "size", KD_OBS_OPT) \
	X(str, kind, "kind", KD_OBS_OPT) \
	X(bool, from_cache, "from_cache", KD_OBS_OPT) \
	X(str, manifest, "manifest", KD_OBS_OPT) \
	X(str, error, "error", KD_OBS_OPT) \
	X(str, error_kind, "error_kind", KD_OBS_OPT) \
	/* end */

/* One value of urls: obs_reference_url_NAME(url).  status (HTTP), size
 * (-1 when not announced), redirects, final_url, etag_sha256 (an ETag that
 * is a SHA-256), had_credentials, or error. */
#define KD_OBS_REFERENCE_URL(X) \
	X(int, status, "status", KD_OBS_OPT) \
	X(int, size, "size", KD_OBS_OPT) \
	X(int, redirects, "redirects", KD_OBS_OPT) \
	X(str, final_url, "final_url", KD_OBS_OPT) \
	X(str, etag_sha256, "etag_sha256", KD_OBS_OPT) \
	X(bool, had_credentials, "had_credentials", KD_OBS_OPT) \
	X(str, error, "error", KD_OBS_OPT) \
	/* end */

/* One element of warnings: obs_reference_warning_NAME(w). */
#define KD_OBS_REFERENCE_WARNING(X) \
	X(str, id, "id", 0) \
	X(str, label, "label", 0) \
	X(str, message, "message", 0) \
	/* end */

#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(reference, type, name, path, flags)
KD_OBS_REFERENCE(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(reference_dirty, type, name, path, flags)
KD_OBS_REFERENCE_DIRTY(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(reference_submodule, type, name, path, flags)
KD_OBS_REFERENCE_SUBMODULE(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(reference_file, type, name, path, flags)
KD_OBS_REFERENCE_FILE(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(reference_url, type, name, path, flags)
KD_OBS_REFERENCE_URL(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(reference_warning, type, name, path, flags)
KD_OBS_REFERENCE_WARNING(KD_OBS_G)
#undef KD_OBS_G

#endif
