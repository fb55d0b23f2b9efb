/* paths.c - where kernodeck's own files are. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/paths.h"

char *
kd_share_path(const char *rel)
{
	const char *env = getenv("KD_SHARE_DIR");
	char *p;

	if (env != NULL && *env != '\0')
		return fsutil_join(env, rel);
	p = fsutil_join(KD_PKGDATADIR, "probe.py");
	if (p != NULL && access(p, R_OK) == 0) {
		free(p);
		return fsutil_join(KD_PKGDATADIR, rel);
	}
	free(p);
	p = fsutil_join(KD_SRCDIR, "share");
	if (p == NULL)
		return NULL;
	char *r = fsutil_join(p, rel);
	free(p);
	return r;
}

char *
kd_abspath(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/')
		return strdup(path);
	if (getcwd(cwd, sizeof cwd) == NULL)
		return strdup(path);
	if (strcmp(path, ".") == 0)
		return strdup(cwd);
	if (strncmp(path, "./", 2) == 0)
		path += 2;
	return fsutil_join(cwd, path);
}
