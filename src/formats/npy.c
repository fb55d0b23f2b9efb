/*
 * npy.c - the .npy reader (see include/kernodeck/npy.h for the format and
 * what is refused) and `kernodeck inspect npy`.
 *
 * The header is a Python literal; only the subset NumPy writes is accepted:
 * a dict of quoted string keys whose values are quoted strings, True,
 * False, or a tuple of non-negative integers (Python 2's "3L" included).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/caps.h"
#include "kernodeck/inspect.h"
#include "kernodeck/npy.h"

static const unsigned char npy_magic[6] = { 0x93, 'N', 'U', 'M', 'P', 'Y' };

/* A cursor over the header text. */
struct hp {
	const char *s;
	size_t len, i;
	const char *name;
	struct kd_err *err;
};

static int
hp_fail(struct hp *h, const char *what)
{
	return kd_err_set(h->err, KD_EINPUT, h->name, 0,
			  "%s: malformed NPY header at byte %zu of the header: %s",
			  h->name, h->i, what);
}

static void
hp_ws(struct hp *h)
{
	while (h->i < h->len && (h->s[h->i] == ' ' || h->s[h->i] == '\t' ||
				 h->s[h->i] == '\n' || h->s[h->i] == '\r'))
		h->i++;
}

static int
hp_peek(struct hp *h)
{
	hp_ws(h);
	return h->i < h->len ? (unsigned char)h->s[h->i] : -1;
}

static int
hp_expect(struct hp *h, char c, const char *what)
{
	if (hp_peek(h) != (unsigned char)c)
		return hp_fail(h, what);
	h->i++;
	return 0;
}

/* A quoted string without escapes (NumPy never writes any in a header). */
static int
hp_string(struct hp *h, char *out, size_t outlen)
{
	int q = hp_peek(h);
	size_t start, n;

	if (q != '\'' && q != '"')
		return hp_fail(h, "expected a quoted string");
	start = ++h->i;
	while (h->i < h->len && h->s[h->i] != q) {
		if (h->s[h->i] == '\\' || h->s[h->i] == '\n')
			return hp_fail(h, "escapes and newlines are not expected in a header string");
		h->i++;
	}
	if (h->i >= h->len)
		return hp_fail(h, "unterminated string");
	n = h->i - start;
	h->i++;
	if (n >= outlen)
		return hp_fail(h, "string too long");
	memcpy(out, h->s + start, n);
	out[n] = '\0';
	return 0;
}

static int
hp_word(struct hp *h, const char *w)
{
	size_t n = strlen(w);

	hp_ws(h);
	if (h->len - h->i >= n && memcmp(h->s + h->i, w, n) == 0) {
		h->i += n;
		return 1;
	}
	return 0;
}

static int
hp_uint(struct hp *h, uint64_t *v)
{
	uint64_t x = 0;
	size_t start;

	hp_ws(h);
	start = h->i;
	while (h->i < h->len && h->s[h->i] >= '0' && h->s[h->i] <= '9') {
		unsigned d = (unsigned)(h->s[h->i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return hp_fail(h, "dimension too large");
		x = x * 10 + d;
		h->i++;
	}
	if (h->i == start)
		return hp_fail(h, "expected a non-negative integer in the shape");
	if (h->i < h->len && h->s[h->i] == 'L')
		h->i++;
	*v = x;
	return 0;
}

/* "(3, 4)", "(5,)" or "()". */
static int
hp_shape(struct hp *h, struct kd_tensor *t)
{
	int c;

	if (hp_peek(h) == '[')
		return hp_fail(h, "the shape must be a tuple");
	if (hp_expect(h, '(', "expected a tuple for 'shape'") != 0)
		return KD_EINPUT;
	t->ndim = 0;
	if (hp_peek(h) == ')') {
		h->i++;
		return 0;
	}
	for (;;) {
		if (t->ndim >= KD_TENSOR_MAXDIM)
			return hp_fail(h, "more than 32 dimensions");
		if (hp_uint(h, &t->shape[t->ndim++]) != 0)
			return KD_EINPUT;
		c = hp_peek(h);
		if (c == ',') {
			h->i++;
			if (hp_peek(h) == ')') {
				h->i++;
				return 0;
			}
			continue;
		}
		if (c == ')') {
			h->i++;
			if (t->ndim == 1)
				return hp_fail(h, "a one-element tuple needs a trailing comma: (n,)");
			return 0;
		}
		return hp_fail(h, "expected ',' or ')' in the shape");
	}
}

static int
host_is_big_endian(void)
{
	const union { uint16_t u; unsigned char c[2]; } probe = { .u = 1 };

	return probe.c[0] == 0;
}

/* '<f4' -> dtype and byte order. */
static int
npy_descr(const char *descr, const char *name, struct kd_tensor *t, struct kd_err *err)
{
	const char *p = descr;
	char order = '=';
	enum kd_dtype dt;

	if (*p == '<' || *p == '>' || *p == '|' || *p == '=')
		order = *p++;
	if (strchr("OUSVaMmcG", *p) != NULL && *p != '\0')
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "%s: dtype '%s' is not a numeric array (object, string, complex or datetime): not read",
				  name, descr);
	if (strlen(p) != 2 || tensor_dtype_parse(p, &dt) != 0 ||
	    (p[0] == 'b' && strcmp(p, "b1") != 0))
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "%s: unsupported dtype '%s' (read: bool b1, int i1..i8, uint u1..u8, float f2, f4, f8)",
				  name, descr);
	t->dtype = dt;
	if (order == '>')
		t->big_endian = 1;
	else if (order == '<')
		t->big_endian = 0;
	else
		t->big_endian = host_is_big_endian();
	if (tensor_dtype_size(dt) == 1)
		t->big_endian = 0;
	return 0;
}

int
npy_parse_header(const char *hdr, size_t len, const char *name,
		 struct kd_tensor *t, char *descr, size_t descrlen, struct kd_err *err)
{
	struct hp h = { .s = hdr, .len = len, .i = 0, .name = name, .err = err };
	int seen_descr = 0, seen_fortran = 0, seen_shape = 0;
	char key[64];

	memset(t, 0, sizeof *t);
	if (memchr(hdr, '\0', len) != NULL)
		return kd_err_set(err, KD_EINPUT, name, 0, "%s: NUL byte in the NPY header", name);
	if (hp_expect(&h, '{', "expected '{'") != 0)
		return KD_EINPUT;
	while (hp_peek(&h) != '}') {
		if (hp_string(&h, key, sizeof key) != 0 ||
		    hp_expect(&h, ':', "expected ':' after a key") != 0)
			return KD_EINPUT;
		if (strcmp(key, "descr") == 0 && !seen_descr++) {
			if (hp_peek(&h) == '[')
				return kd_err_set(err, KD_EINPUT, name, 0,
						  "%s: structured dtype (a list of fields): not read", name);
			if (hp_string(&h, descr, descrlen) != 0 ||
			    npy_descr(descr, name, t, err) != 0)
				return KD_EINPUT;
		} else if (strcmp(key, "fortran_order") == 0 && !seen_fortran++) {
			if (hp_word(&h, "True"))
				t->fortran = 1;
			else if (hp_word(&h, "False"))
				t->fortran = 0;
			else
				return hp_fail(&h, "'fortran_order' must be True or False");
		} else if (strcmp(key, "shape") == 0 && !seen_shape++) {
			if (hp_shape(&h, t) != 0)
				return KD_EINPUT;
		} else {
			return kd_err_set(err, KD_EINPUT, name, 0,
					  "%s: NPY header has an unexpected or repeated key '%s'",
					  name, key);
		}
		if (hp_peek(&h) == ',')
			h.i++;
		else if (hp_peek(&h) != '}')
			return hp_fail(&h, "expected ',' or '}'");
	}
	h.i++;
	hp_ws(&h);
	if (h.i != len)
		return hp_fail(&h, "text after the closing '}'");
	if (!seen_descr || !seen_fortran || !seen_shape)
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "%s: NPY header lacks '%s'", name,
				  !seen_descr ? "descr" : !seen_fortran ? "fortran_order" : "shape");
	if (tensor_count(t->shape, t->ndim, tensor_dtype_size(t->dtype), &t->count) != 0)
		return kd_err_set(err, KD_EINPUT, name, 0,
				  "%s: the shape's size overflows", name);
	t->nbytes = t->count * tensor_dtype_size(t->dtype);
	return 0;
}

static int
read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		got += (size_t)n;
	}
	return 1;
}

int
npy_open(const char *path, struct kd_tensor *t, struct npy_info *info,
	 struct kd_err *err)
{
	unsigned char pre[12];
	struct stat st;
	char *hdr = NULL;
	size_t prelen;
	uint64_t hlen, need;
	int fd, rc = KD_EINPUT;

	memset(t, 0, sizeof *t);
	memset(info, 0, sizeof *info);
	if ((fd = fsutil_open_regular(path, &st, err)) < 0)
		return KD_EINPUT;
	if (st.st_size < 10 || read_full(fd, pre, 10) != 1) {
		kd_err_set(err, KD_EINPUT, path, 0, "%s: too short to be an NPY file (%lld bytes)",
			   path, (long long)st.st_size);
		goto out;
	}
	if (memcmp(pre, npy_magic, 6) != 0) {
		kd_err_set(err, KD_EINPUT, path, 0,
			   "%s: not an NPY file (the magic \\x93NUMPY is missing)", path);
		goto out;
	}
	info->major = pre[6];
	info->minor = pre[7];
	if (info->major < 1 || info->major > 3 || info->minor != 0) {
		kd_err_set(err, KD_EINPUT, path, 0,
			   "%s: NPY format version %d.%d is not known (1.0, 2.0 and 3.0 are)",
			   path, info->major, info->minor);
		goto out;
	}
	if (info->major == 1) {
		prelen = 10;
		hlen = (uint64_t)pre[8] | (uint64_t)pre[9] << 8;
	} else {
		prelen = 12;
		if (read_full(fd, pre + 10, 2) != 1) {
			kd_err_set(err, KD_EINPUT, path, 0, "%s: truncated in the NPY preamble", path);
			goto out;
		}
		hlen = (uint64_t)pre[8] | (uint64_t)pre[9] << 8 |
		       (uint64_t)pre[10] << 16 | (uint64_t)pre[11] << 24;
	}
	info->header_len = hlen;
	if (hlen > KD_CAP_NPY_HEADER) {
		kd_err_set(err, KD_EINPUT, path, 0,
			   "%s: NPY header of %llu bytes is over the cap of %u bytes (KD_CAP_NPY_HEADER)",
			   path, (unsigned long long)hlen, KD_CAP_NPY_HEADER);
		goto out;
	}
	if ((uint64_t)st.st_size < prelen + hlen) {
		kd_err_set(err, KD_EINPUT, path, 0,
			   "%s: truncated: the NPY header announces %llu bytes but the file ends first",
			   path, (unsigned long long)hlen);
		goto out;
	}
	hdr = malloc(hlen + 1);
	if (hdr == NULL) {
		rc = kd_err_set(err, KD_EENV, path, 0, "out of memory");
		goto out;
	}
	if (hlen > 0 && read_full(fd, hdr, hlen) != 1) {
		rc = kd_err_sys(err, KD_EENV, path, errno, "%s: cannot read", path);
		goto out;
	}
	if (npy_parse_header(hdr, hlen, path, t, info->descr, sizeof info->descr, err) != 0)
		goto out;
	t->offset = prelen + hlen;
	need = t->offset + t->nbytes;
	if (need < t->offset || (uint64_t)st.st_size < need) {
		kd_err_set(err, KD_EINPUT, path, 0,
			   "%s: truncated: the header announces %llu data bytes (%llu elements of %s) but the file holds %llu",
			   path, (unsigned long long)t->nbytes, (unsigned long long)t->count,
			   info->descr, (unsigned long long)((uint64_t)st.st_size - t->offset));
		goto out;
	}
	if ((uint64_t)st.st_size > need) {
		kd_err_set(err, KD_EINPUT, path, 0,
			   "%s: inconsistent: %llu bytes follow the %llu data bytes the header announces",
			   path, (unsigned long long)((uint64_t)st.st_size - need),
			   (unsigned long long)t->nbytes);
		goto out;
	}
	rc = 0;
out:
	free(hdr);
	close(fd);
	return rc;
}

/* `kernodeck inspect npy FILE`: header and summary statistics. */
int
inspect_npy(const char *path, json_t **out, struct kd_err *err)
{
	struct kd_tensor t;
	struct npy_info info;
	struct kd_stats st;
	char ver[16];
	json_t *o, *h;
	int rc;

	*out = NULL;
	if ((rc = npy_open(path, &t, &info, err)) != 0)
		return rc;
	if ((rc = tensor_stats(path, &t, &st, err)) != 0)
		return rc;
	o = json_object();
	json_object_set_new(o, "file", json_string(path));
	json_object_set_new(o, "format", json_string("npy"));
	snprintf(ver, sizeof ver, "%d.%d", info.major, info.minor);
	json_object_set_new(o, "version", json_string(ver));
	h = tensor_header_json(&t);
	json_object_set_new(h, "descr", json_string(info.descr));
	json_object_set_new(h, "header_len", json_integer((json_int_t)info.header_len));
	json_object_set_new(o, "header", h);
	json_object_set_new(o, "stats", tensor_stats_json(&st));
	*out = o;
	return 0;
}
