/*
 * cmd-replay.c - `kernodeck replay DOSSIER [--workdir DIR] [--data DIR]
 * [--python PATH] [--yes]`: the arguments, then the replay engine
 * (src/replay.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kernodeck/cmd.h"
#include "kernodeck/err.h"
#include "kernodeck/paths.h"
#include "kernodeck/replay.h"

int
cmd_replay(int argc, char **argv)
{
	struct replay_opts o = { 0 };
	char *dossier = NULL, *work = NULL, *data = NULL, buf[2048];
	json_t *verdict = NULL;
	struct kd_err err;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			puts("usage: kernodeck replay DOSSIER [--workdir DIR] [--data DIR] [--python PATH] "
			     "[--repo PATH|URL] [--yes]\n\nVerify the dossier's SHA256SUMS, show every command and ask "
			     "once (--yes: do not ask),\nclone the code at the recorded commit into "
			     "DIR (default ./kernodeck-replay), check\nthe data digests (where the "
			     "reference says, or under --data), rebuild and run\nstages 2 to 6.  Exit 0 "
			     "when every stage passed or shows exactly the recorded\ndeviations, 1 on new "
			     "differences or a declined confirmation.");
			free(work);
			free(data);
			free(dossier);
			return 0;
		} else if (strcmp(argv[i], "--yes") == 0 || strcmp(argv[i], "-y") == 0)
			o.yes = 1;
		else if (strcmp(argv[i], "--workdir") == 0 && i + 1 < argc)
			work = kd_abspath(argv[++i]);
		else if (strcmp(argv[i], "--data") == 0 && i + 1 < argc)
			data = kd_abspath(argv[++i]);
		else if (strcmp(argv[i], "--python") == 0 && i + 1 < argc)
			o.python = argv[++i];
		else if (strcmp(argv[i], "--repo") == 0 && i + 1 < argc)
			o.repo = argv[++i];
		else if (argv[i][0] == '-' || dossier != NULL) {
			fputs("usage: kernodeck replay DOSSIER [--workdir DIR] [--data DIR] "
			      "[--python PATH] [--repo PATH|URL] [--yes]\n", stderr);
			free(work);
			free(data);
			free(dossier);
			return KD_EINPUT;
		} else
			dossier = kd_abspath(argv[i]);
	}
	if (dossier == NULL) {
		fputs("usage: kernodeck replay DOSSIER [--workdir DIR] [--data DIR] [--python PATH] "
		      "[--repo PATH|URL] [--yes]\n", stderr);
		free(work);
		free(data);
		return KD_EINPUT;
	}
	if (work == NULL)
		work = kd_abspath("kernodeck-replay");
	o.dossier = dossier;
	o.workdir = work;
	o.data = data;
	kd_err_clear(&err);
	rc = replay_run(&o, &verdict, &err);
	if (rc != 0 && !(rc == KD_EFAIL && verdict != NULL))
		fprintf(stderr, "kernodeck replay: %s\n", kd_err_format(&err, buf, sizeof buf));
	json_decref(verdict);
	free(dossier);
	free(work);
	free(data);
	return rc;
}
