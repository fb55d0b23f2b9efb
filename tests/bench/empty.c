/*
 * empty.c - the baseline of tests/bench/walkthrough.sh: a program that does
 * nothing, linked with the libraries kernodeck links (ncursesw, libyaml,
 * jansson, libgit2, libcrypto, pthread), built by the script with the same
 * pkg-config flags.  libcurl is not among them: kernodeck opens it with
 * dlopen when a URL is first checked (src/lib/net.c).  The calls below are
 * never made (argc is never that large) but keep every library needed,
 * whatever the linker's --as-needed default.
 *
 *   empty          exits at once: the cost of loading the libraries
 *   empty frame    starts curses, draws one line at the top and one at the
 *                  bottom, waits for a key, ends curses: the cost of a
 *                  curses frame with nothing behind it
 */
#include <git2.h>
#include <jansson.h>
#include <locale.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <string.h>
#include <yaml.h>

#include <curses.h>

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "frame") == 0) {
		setlocale(LC_ALL, "");
		initscr();
		cbreak();
		noecho();
		mvaddstr(0, 1, "empty: Dossier");
		mvaddstr(LINES - 1, 1, "q quit");
		refresh();
		getch();
		endwin();
		return 0;
	}
	if (argc > 1000) {
		json_decref(json_object());
		yaml_get_version_string();
		git_libgit2_init();
		(void)EVP_sha256();
		(void)pthread_self();
		initscr();
	}
	return 0;
}
