/*
 * npy.h - NumPy .npy files, read against the format's specification
 * (numpy.lib.format): the magic "\x93NUMPY", a version (1.0, 2.0 or 3.0),
 * a little-endian header length (2 bytes in 1.0, 4 bytes after), then a
 * Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...)}
 * padded with spaces and a newline, then the data.
 *
 * Every little- and big-endian float (f2, f4, f8), integer (i1..i8,
 * u1..u8) and bool (b1) dtype is read, in C or Fortran order.  Refused with
 * an error naming the file: a bad magic or unknown version, a header over
 * KD_CAP_NPY_HEADER or that is not the dict above (unknown, missing or
 * repeated keys), structured, object, string, complex or datetime dtypes,
 * a shape whose byte count overflows, and a data part shorter (truncated)
 * or longer (inconsistent) than the header announces.
 */
#ifndef KD_NPY_H
#define KD_NPY_H

#include <jansson.h>

#include "kernodeck/err.h"
#include "kernodeck/tensor.h"

struct npy_info {
	int major, minor;      /* format version */
	char descr[32];        /* as written: "<f4" */
	uint64_t header_len;   /* bytes of the dict (with padding) */
};

/* Parse and validate an .npy file's header against its size. */
int npy_open(const char *path, struct kd_tensor *t, struct npy_info *info,
	     struct kd_err *err);
/* Parse a header held in memory (the bytes after the preamble); name is
 * used in messages.  Exposed for the unit tests and the fuzz target. */
int npy_parse_header(const char *hdr, size_t len, const char *name,
		     struct kd_tensor *t, char *descr, size_t descrlen,
		     struct kd_err *err);

#endif
