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

/* p without "." parts and repeated slashes ("/a/./b//c/" -> "/a/b/c"),
 * in place; a ".." part is left to realpath (a link may stand before it). */
static char *
tidy(char *p)
{
	char *o = p, *s = p;

	while (*s) {
		if (s[0] == '/' && (s[1] == '/' || (s[1] == '.' && (s[2] == '/' || s[2] == '\0')))) {
			s += s[1] == '/' ? 1 : 2;
			continue;
		}
		*o++ = *s++;
	}
	while (o > p + 1 && o[-1] == '/')
		o--;
	*o = '\0';
	return p;
}

char *
kd_abspath(const char *path)
{
	char cwd[PATH_MAX], real[PATH_MAX], *p;

	if (path[0] == '/') {
		p = strdup(path);
	} else if (getcwd(cwd, sizeof cwd) == NULL) {
		return strdup(path);
	} else if (strcmp(path, ".") == 0) {
		return strdup(cwd);
	} else {
		if (strncmp(path, "./", 2) == 0)
			path += 2;
		p = fsutil_join(cwd, path);
	}
	if (p == NULL)
		return NULL;
	tidy(p);
	/* "build/../kernodeck-demo": shown as the folder it is */
	if ((strstr(p, "/../") != NULL || (strlen(p) >= 3 && strcmp(p + strlen(p) - 3, "/..") == 0)) &&
	    realpath(p, real) != NULL) {
		free(p);
		p = strdup(real);
	}
	return p;
}
