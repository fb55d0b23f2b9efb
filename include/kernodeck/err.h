/*
 * err.h - errors carried to the caller.
 *
 * Functions that can fail return an int (0 on success, a KD_E* code
 * otherwise) and fill a struct kd_err: a message for a person, the file and
 * line the error is about (when it is about an input), and errno.  Screens
 * and the headless reporter show it the same way (kd_err_format).
 */
#ifndef KD_ERR_H
#define KD_ERR_H

#include <stddef.h>

/* Return codes, chosen to map one to one onto the exit statuses. */
enum {
	KD_OK = 0,
	KD_EFAIL = 1,   /* a check failed, a stage is pending, a confirmation declined */
	KD_EINPUT = 2,  /* bad usage, an input missing, unreadable or malformed */
	KD_EENV = 3,    /* the environment failed: a program cannot run, a write failed */
};

struct kd_err {
	int code;          /* one of KD_E* */
	char msg[1024];
	char file[1024];   /* the file the error is about, or "" */
	int line;          /* 1-based line in that file, or 0 */
	int errnum;        /* errno when a system call failed, or 0 */
};

/* Fill err (if not NULL) and return code. */
int kd_err_set(struct kd_err *err, int code, const char *file, int line,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Same, appending strerror(errnum) to the message. */
int kd_err_sys(struct kd_err *err, int code, const char *file, int errnum,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void kd_err_clear(struct kd_err *err);
/* "FILE:LINE: MESSAGE" (or the parts that are known) into buf. */
const char *kd_err_format(const struct kd_err *err, char *buf, size_t len);

#endif
