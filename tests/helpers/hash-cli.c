/*
 * hash-cli.c - `kd-hash`: hash_cmd() as a program, for tests/bench/hash.sh
 * until `kernodeck hash` is wired into main.c (same arguments).
 */
#include "config.h"

#include "kernodeck/hash.h"

int
main(int argc, char **argv)
{
	return hash_cmd(argc, argv);
}
