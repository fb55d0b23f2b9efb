/* cmd-replay.c - placeholder while replay is written. */
#include "config.h"

#include <stdio.h>

#include "kernodeck/cmd.h"
#include "kernodeck/dossier.h"

int
replay_run(const struct replay_opts *o, json_t **verdict, struct kd_err *err)
{
	(void)o;
	*verdict = NULL;
	return kd_err_set(err, KD_EENV, NULL, 0, "replay is not written yet");
}

int
cmd_replay(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("kernodeck replay: not written yet\n", stderr);
	return KD_EENV;
}
