/*
 * fdio.c - writing to a file descriptor: see fdio.h.
 */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "kernodeck/fdio.h"

int
fdio_write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
