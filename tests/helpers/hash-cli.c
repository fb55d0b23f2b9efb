/*
 * hash-cli.c - `kd-hash`: kd_cmd_hash.exec() as a program, for tests/bench/hash.sh
 * until `kernodeck hash` is wired into main.c (same arguments).
 */
#include "config.h"

#include "kernodeck/cmd.h"

int
main(int argc, char **argv)
{
	return kd_cmd_hash.exec(argc, argv);
}
