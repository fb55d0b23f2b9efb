/*
 * hash-cli.c - `kd-hash`: cmd_hash() as a program, for tests/bench/hash.sh
 * until `kernodeck hash` is wired into main.c (same arguments).
 */
#include "config.h"

#include "kernodeck/cmd.h"

int
main(int argc, char **argv)
{
	return cmd_hash(argc, argv);
}
