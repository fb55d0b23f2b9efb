/* cmd-diff.c - placeholder while diff is written. */
#include "config.h"

#include <stdio.h>

#include "kernodeck/cmd.h"
#include "kernodeck/dossier.h"

int
dossier_load_layers(const char *path, json_t **layers, struct kd_err *err)
{
	*layers = NULL;
	return kd_err_set(err, KD_EENV, path, 0, "not written yet");
}

int
cmd_diff(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return KD_EENV;
}
