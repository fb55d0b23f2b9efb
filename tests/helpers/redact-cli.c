/*
 * redact-cli.c - `kd-redact VALUES`: for tests/integration/redact-formats.sh.
 * VALUES holds NAME<TAB>VALUE lines, registered as known values (as
 * secrets_collect does at start; "-": none).  Each line of stdin names a
 * file; FILE.red gets redact_text of it.  Exit 0, or 3 when a file cannot
 * be read or written.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/redact.h"

#define CLI_CAP (16u << 20)

int
main(int argc, char **argv)
{
	struct kd_err err;
	char *buf = NULL, line[4096];
	size_t len = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: kd-redact VALUES <FILES\n");
		return 2;
	}
	if (strcmp(argv[1], "-") != 0) {
		if (fsutil_read_file(argv[1], CLI_CAP, &buf, &len, &err) != 0) {
			fprintf(stderr, "kd-redact: %s\n", err.msg);
			return 3;
		}
		for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save)) {
			char *tab = strchr(l, '\t');
			if (tab != NULL) {
				*tab = '\0';
				redact_value_add(l, tab + 1);
			}
		}
		free(buf);
	}
	while (fgets(line, sizeof line, stdin) != NULL) {
		char out[4200], *red;
		size_t rl;
		line[strcspn(line, "\n")] = '\0';
		if (fsutil_read_file(line, CLI_CAP, &buf, &len, &err) != 0) {
			fprintf(stderr, "kd-redact: %s\n", err.msg);
			return 3;
		}
		red = redact_text(buf, len, &rl);
		snprintf(out, sizeof out, "%s.red", line);
		if (red == NULL || fsutil_write_atomic(out, red, rl, FSUTIL_RAW, &err) != 0) {
			fprintf(stderr, "kd-redact: cannot write %s\n", out);
			return 3;
		}
		free(red);
		free(buf);
	}
	redact_value_clear();
	return 0;
}
