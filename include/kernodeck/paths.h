/*
 * paths.h - where kernodeck's own files are (the probe, the demo, wheels).
 *
 * $KD_SHARE_DIR when set, else the installed pkgdatadir when it holds the
 * probe, else the source tree's share/ (running from the build tree).
 */
#ifndef KD_PATHS_H
#define KD_PATHS_H

/* malloc'd absolute path of share/REL. */
char *kd_share_path(const char *rel);
/* malloc'd absolute form of path (not resolving symlinks). */
char *kd_abspath(const char *path);

#endif
