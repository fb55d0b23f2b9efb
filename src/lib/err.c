/* err.c - struct kd_err helpers. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernodeck/err.h"

static void
err_fill(struct kd_err *err, int code, const char *file, int line,
	 const char *fmt, va_list ap)
{
	err->code = code;
	err->line = line;
	err->errnum = 0;
	snprintf(err->file, sizeof err->file, "%s", file ? file : "");
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
}

int
kd_err_set(struct kd_err *err, int code, const char *file, int line,
	   const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	va_start(ap, fmt);
	err_fill(err, code, file, line, fmt, ap);
	va_end(ap);
	return code;
}

int
kd_err_sys(struct kd_err *err, int code, const char *file, int errnum,
	   const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (err == NULL)
		return code;
	va_start(ap, fmt);
	err_fill(err, code, file, 0, fmt, ap);
	va_end(ap);
	err->errnum = errnum;
	n = strlen(err->msg);
	if (errnum != 0 && n < sizeof err->msg)
		snprintf(err->msg + n, sizeof err->msg - n, ": %s",
			 strerror(errnum));
	return code;
}

void
kd_err_clear(struct kd_err *err)
{
	if (err != NULL)
		memset(err, 0, sizeof *err);
}

const char *
kd_err_format(const struct kd_err *err, char *buf, size_t len)
{
	size_t fl = strlen(err->file);
	const char *msg = err->msg;

	/* "FILE: message" already names the file: do not say it twice */
	if (fl > 0 && strncmp(msg, err->file, fl) == 0 && msg[fl] == ':' && msg[fl + 1] == ' ')
		msg += fl + 2;
	if (err->file[0] != '\0' && err->line > 0)
		snprintf(buf, len, "%s:%d: %s", err->file, err->line, msg);
	else if (err->file[0] != '\0' && strstr(err->msg, err->file) == NULL)
		snprintf(buf, len, "%s: %s", err->file, err->msg);
	else
		snprintf(buf, len, "%s", err->msg);
	return buf;
}
