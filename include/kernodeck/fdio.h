/*
 * fdio.h - writing to a file descriptor (src/lib/fdio.c): what fsutil's
 * atomic writes, the runner's logs and termout's filtered streams share,
 * below both fsutil and termout (fsutil cleans a person's text with
 * termout, termout writes through this).
 */
#ifndef KD_FDIO_H
#define KD_FDIO_H

#include <stddef.h>

/* Write all of p to fd, again after a short write or EINTR: 0, or -1
 * with errno set. */
int fdio_write_all(int fd, const char *p, size_t len);

#endif
