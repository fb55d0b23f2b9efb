/*
 * cmd-replay.c - `kernodeck replay DOSSIER [--workdir DIR] [--data DIR]
 * [--python PATH] [--repo PATH|URL] [--find-links DIR]... [--unlocked] [--yes]`: the arguments, then
 * the replay engine (src/features/replay.c).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kernodeck/cmd.h"
#include "kernodeck/err.h"
#include "kernodeck/paths.h"
#include "kernodeck/replay.h"

static int
cmd_replay(int argc, char **argv)
{
	const struct kd_cmd_entry *e = &kd_cmd_replay;
	struct replay_opts o = { 0 };
	char *dossier = NULL, *work = NULL, *data = NULL, buf[2048], **fl = NULL;
	size_t nfl = 0;
	json_t *verdict = NULL;
	struct kd_err err;
	int c, rc;

	cmd_getopt_reset();
	while ((c = cmd_getopt(e, argc, argv)) != -1) {
		switch (c) {
		case 'y': o.yes = 1; break;
		case 'w': free(work); work = kd_abspath(optarg); break;
		case 'D': free(data); data = kd_abspath(optarg); break;
		case 'p': o.python = optarg; break;
		case 'r': o.repo = optarg; break;
		case 'U': o.unlocked = 1; break;
		case 'f': {
			char **nv = realloc(fl, (nfl + 2) * sizeof *fl);
			if (nv == NULL)
				break;
			fl = nv;
			fl[nfl++] = kd_abspath(optarg);
			fl[nfl] = NULL;
			break;
		}
		case KD_CMD_HELP:
			rc = cmd_help(e);
			goto out;
		default:
			rc = cmd_usage_error(e, NULL);
			goto out;
		}
	}
	if (argc - optind != 1) {
		rc = cmd_usage_error(e, NULL);
		goto out;
	}
	dossier = kd_abspath(argv[optind]);
	if (work == NULL)
		work = kd_abspath("kernodeck-replay");
	o.dossier = dossier;
	o.workdir = work;
	o.data = data;
	o.find_links = (const char *const *)fl;
	kd_err_clear(&err);
	rc = replay_run(&o, &verdict, &err);
	if (rc != 0 && !(rc == KD_EFAIL && verdict != NULL))
		fprintf(stderr, "kernodeck replay: %s\n", kd_err_format(&err, buf, sizeof buf));
	json_decref(verdict);
out:
	free(dossier);
	free(work);
	free(data);
	for (size_t i = 0; i < nfl; i++)
		free(fl[i]);
	free(fl);
	return rc;
}

static const struct kd_opt replay_opts[] = {
	{ "workdir", 'w', "DIR", 0 },
	{ "data", 'D', "DIR", 0 },
	{ "python", 'p', "PATH", 0 },
	{ "repo", 'r', "PATH|URL", 0 },
	{ "find-links", 'f', "DIR", KD_OPT_MANY },
	{ "unlocked", 'U', NULL, 0 },
	{ "yes", 'y', NULL, KD_OPT_SHORT },
	{ NULL, 0, NULL, 0 },
};

const struct kd_cmd_entry kd_cmd_replay = {
	.name = "replay",
	.args = "DOSSIER",
	.opts = replay_opts,
	.help = "Verify the dossier's SHA256SUMS, show every command and ask once (--yes: do not ask),\n"
		"clone the code at the recorded commit into DIR (default ./kernodeck-replay; --repo:\n"
		"from that copy), check every data item's digest (the clone's own, else under --data\n"
		"as DIR/PATH or DIR/NAME) and put it where the project reads it inside the clone (a\n"
		"hard link, else a reflink, else a copy), rebuild and run stages 2 to 6.  The rebuild\n"
		"installs the dossier's lock (requirements-lock.txt: --require-hashes --no-deps,\n"
		"exactly the artefacts recorded); --unlocked resolves requirements-rebuild.txt again.\n"
		"The lock's artefacts from a find-links folder outside the project are looked for\n"
		"under each --find-links DIR, else in the recorded folder; the plan names the one used\n"
		"and a missing one stops the replay before anything runs (exit 2).\n"
		"A folder an earlier replay made is made again.  Exit 0 when every stage passed or\n"
		"shows exactly the recorded deviations, 1 on new differences, a data item that does\n"
		"not verify or a declined confirmation, 2 a data item not found.",
	.exec = cmd_replay,
};
