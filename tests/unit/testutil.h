/*
 * testutil.h - helpers the unit tests share (tests/unit/testutil.c, linked
 * into the tests that list $(TESTUTIL) in mk/): run a program quietly, run git
 * in a folder, write a small file, read a monotonic clock, run the test
 * HTTP server, check a tensor, check a string member of a JSON object.
 */
#ifndef KD_TESTUTIL_H
#define KD_TESTUTIL_H

#include <sys/types.h>

/* Run argv (argv[0] a path, no shell) with stdin, stdout and stderr on
 * /dev/null; its exit status, or -1 when it did not exit. */
int tu_run_quiet(char *const argv[]);
/* Run git (found in PATH) with the arguments up to NULL in cwd, quietly;
 * its exit status. */
int tu_git(const char *cwd, ...);
/* Make git see only the test's settings: HOME (no global config, no
 * safe.directory leaking in), no system config, a fixed identity. */
void tu_git_env(const char *home);
/* Write text to DIR/REL, making REL's folders; fails the test when it
 * cannot. */
void tu_put(const char *dir, const char *rel, const char *text);
/* Seconds on the monotonic clock. */
double tu_now_s(void);

/* tests/helpers/httpd.py on 127.0.0.1, run by /usr/bin/python3; it serves
 * while its stdin is open. */
struct tu_httpd {
	pid_t pid;
	int stdin_fd;
	int http_port, https_port;   /* https_port: -1 without TLS */
};
/* Start it (TLS too when cert and key are given) and read its ports; 0
 * when it answered, -1 otherwise (stop it all the same). */
int tu_httpd_start(struct tu_httpd *s, const char *cert, const char *key);
void tu_httpd_stop(struct tu_httpd *s);

struct kd_tensor;
/* Load t from file (tensor_load) and check it holds 0, 1, 2... (a bool
 * tensor: i % 2) in C order; fails the test otherwise. */
void tu_expect_counting(const char *file, const struct kd_tensor *t);

struct json_t;
/* o's member key is the string want, or JSON null when want is NULL; fails
 * the test otherwise, naming file (the fixture o was read from) and key. */
void tu_expect_str(const struct json_t *o, const char *key, const char *want,
		   const char *file);

#endif
