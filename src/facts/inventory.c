/*
 * inventory.c - two package inventories compared by canonical name.
 *
 * Both sides are indexed by PEP 503 name (the first occurrence wins, as on
 * sys.path); then each reference package is missing, the same, changed in
 * its public version (PEP 440 order) or changed only in its local label,
 * and what is left on the new side is extra.  The local label case is kept
 * apart because it is the one a pin does not catch: ==2.3.0 accepts
 * 2.3.0+cu121 and 2.3.0+cpu alike.
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernodeck/caps.h"
#include "kernodeck/parse-freeze.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/inventory.h"
#include "kernodeck/pep440.h"
#include "kernodeck/parse-inspect.h"
#include "kernodeck/pylock.h"

int
inventory_parse(const char *text, size_t len, const char *name, json_t **pkgs,
		const char **format, struct kd_err *err)
{
	json_t *tree = NULL;
	int rc, is_json = 0;

	*pkgs = NULL;
	if (pylock_kind_of(name) != NULL) {
		/* a lock file (PEP 751 pylock.toml, uv.lock), known by its name */
		const char *k = pylock_kind_of(name);
		rc = strcmp(k, "pylock") == 0 ? pylock_parse(text, len, name, &tree, err) :
		     uvlock_parse(text, len, name, &tree, err);
		if (rc != 0)
			return rc;
		if (format)
			*format = k;
		*pkgs = json_incref(json_object_get(tree, "packages"));
		json_decref(tree);
		return 0;
	}
	for (size_t i = 0; i < len; i++) {
		if (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')
			continue;
		is_json = text[i] == '{';
		break;
	}
	/* a pip inspect report may follow a warning line: look for "{" at a
	 * line start followed by the "installed" key */
	if (!is_json) {
		const char *brace = text;
		while ((brace = memchr(brace, '{', len - (size_t)(brace - text))) != NULL) {
			if ((brace == text || brace[-1] == '\n') &&
			    memmem(brace, len - (size_t)(brace - text), "\"installed\"", 11)) {
				is_json = 1;
				break;
			}
			brace++;
		}
	}
	if (is_json)
		rc = pipinspect_parse(text, len, name, &tree, err);
	else
		rc = freeze_parse(text, len, name, &tree, err);
	if (rc != 0)
		return rc;
	if (format)
		*format = is_json ? "pip-inspect" : "freeze";
	*pkgs = json_incref(json_object_get(tree, "packages"));
	json_decref(tree);
	return 0;
}

int
inventory_load(const char *path, json_t **pkgs, const char **format, struct kd_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	*pkgs = NULL;
	if ((rc = fsutil_read_file(path, KD_CAP_PIP_OUTPUT, &buf, &len, err)) != 0)
		return rc == KD_EENV ? KD_EINPUT : rc;
	rc = inventory_parse(buf, len, path, pkgs, format, err);
	free(buf);
	return rc;
}

const json_t *
inventory_packages(const json_t *tree)
{
	if (json_is_array(tree))
		return tree;
	if (json_is_object(tree) && json_is_array(json_object_get(tree, "packages")))
		return json_object_get(tree, "packages");
	return NULL;
}

int
inventory_is_tooling(const char *cn)
{
	return cn != NULL && (strcmp(cn, "pip") == 0 || strcmp(cn, "setuptools") == 0 ||
			      strcmp(cn, "wheel") == 0 || strcmp(cn, "distribute") == 0);
}

/* Is path inside dir (as written, or both resolved)? */
static int
inside(const char *path, const char *dir)
{
	char rp[PATH_MAX], rd[PATH_MAX];
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0'))
		return 1;
	if (realpath(path, rp) == NULL || realpath(dir, rd) == NULL)
		return 0;
	n = strlen(rd);
	return strncmp(rp, rd, n) == 0 && (rp[n] == '/' || rp[n] == '\0');
}

size_t
inventory_label_system(json_t *pkgs, const char *prefix)
{
	json_t *p;
	size_t i, n = 0;

	json_array_foreach(pkgs, i, p) {
		const char *loc = json_string_value(json_object_get(p, "location"));
		if (loc == NULL || prefix == NULL)
			continue;
		int sys = !inside(loc, prefix);
		json_object_set_new(p, "system", json_boolean(sys));
		n += sys;
	}
	return n;
}

/* What identifies a package without a version: its commit, else its URL. */
static const char *
identity(const json_t *p)
{
	const char *v = json_string_value(json_object_get(p, "version"));

	if (v != NULL)
		return v;
	if ((v = json_string_value(json_object_get(p, "commit"))) != NULL)
		return v;
	if ((v = json_string_value(json_object_get(p, "url"))) != NULL)
		return v;
	return json_string_value(json_object_get(p, "path"));
}

/* One side of a comparison: its packages in their order, and a hash
 * table by canonical name (open addressing, the first occurrence of a name
 * in it).  This replaces a jansson object per side (a hash table of 5,000
 * keys, each key copied); each package's tree is read once, here. */
struct inv_ent {
	const char *cn;            /* canonical name (the package's, or owned) */
	char *own;                 /* computed from the name when it had none */
	const json_t *p;           /* the package (borrowed) */
	const char *id;            /* identity(p) */
	uint64_t h;                /* hash of cn */
	int first;                 /* the first occurrence of cn on this side */
};

struct inv_side {
	struct inv_ent *v;         /* in the array's order */
	size_t n;
	struct inv_ent **tab;      /* firsts by hash; NULL: empty slot */
	size_t mask;               /* table size - 1 */
};

static uint64_t
name_hash(const char *s)
{
	uint64_t h = 14695981039346656037ULL;   /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h ^ (h >> 29);
}

/* The first package named cn (hash h) on this side, or NULL. */
static const struct inv_ent *
side_find(const struct inv_side *s, const char *cn, uint64_t h)
{
	for (size_t i = (size_t)h & s->mask; s->tab[i] != NULL; i = (i + 1) & s->mask)
		if (s->tab[i]->h == h && strcmp(s->tab[i]->cn, cn) == 0)
			return s->tab[i];
	return NULL;
}

static void
side_free(struct inv_side *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].own);
	free(s->v);
	free(s->tab);
	memset(s, 0, sizeof *s);
}

/* Index pkgs by canonical name; the first occurrence wins (as on sys.path).
 * Packages without a name are left out.  -1 when out of memory. */
static int
side_of(const json_t *pkgs, struct inv_side *s)
{
	size_t cnt = json_array_size(pkgs), i, size = 16;
	json_t *p;
	char canon[256];

	memset(s, 0, sizeof *s);
	while (size < 2 * cnt)
		size *= 2;
	s->v = calloc(cnt ? cnt : 1, sizeof *s->v);
	s->tab = calloc(size, sizeof *s->tab);
	s->mask = size - 1;
	if (s->v == NULL || s->tab == NULL) {
		side_free(s);
		return -1;
	}
	json_array_foreach(pkgs, i, p) {
		const char *cn = json_string_value(json_object_get(p, "canonical_name"));
		char *own = NULL;
		if (cn == NULL) {
			const char *nm = json_string_value(json_object_get(p, "name"));
			if (nm == NULL)
				continue;
			cn = pep503_canonical(nm, canon, sizeof canon);
			if (*cn && (own = strdup(cn)) == NULL) {
				side_free(s);
				return -1;
			}
			cn = own ? own : cn;
		}
		if (*cn == '\0')
			continue;
		struct inv_ent *e = &s->v[s->n++];
		e->cn = cn;
		e->own = own;
		e->p = p;
		e->id = identity(p);
		e->h = name_hash(cn);
		size_t k = (size_t)e->h & s->mask;
		while (s->tab[k] != NULL && !(s->tab[k]->h == e->h && strcmp(s->tab[k]->cn, cn) == 0))
			k = (k + 1) & s->mask;
		if (s->tab[k] == NULL) {
			s->tab[k] = e;
			e->first = 1;
		}
	}
	return 0;
}

static json_t *
jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* o with k set to v; NULL when o or v is NULL (a string that is not
 * UTF-8), o then released, as json_pack fails on such a value. */
static json_t *
obj_set(json_t *o, const char *k, json_t *v)
{
	if (o == NULL || v == NULL) {
		json_decref(o);
		json_decref(v);
		return NULL;
	}
	json_object_set_new_nocheck(o, k, v);
	return o;
}

static void
add_diff(json_t *res, const char *list, const char *cn, const char *name, const char *kind,
	 const char *rv, const char *nv, const char *detail, json_t *extra)
{
	/* built key by key: json_pack parses its format at every call */
	json_t *d = json_object();
	d = obj_set(d, "canonical_name", json_string(cn));
	d = obj_set(d, "name", jstr(name));
	d = obj_set(d, "kind", json_string(kind));
	d = obj_set(d, "ref_version", jstr(rv));
	d = obj_set(d, "new_version", jstr(nv));
	d = obj_set(d, "tooling", json_boolean(inventory_is_tooling(cn)));
	d = obj_set(d, "detail", json_string(detail));
	json_t *l = json_object_get(res, list);
	json_t *item = obj_set(obj_set(json_object(), "canonical_name", json_string(cn)),
			       "name", jstr(name));

	if (strcmp(list, "missing") != 0)
		json_object_set_new(item, "new_version", jstr(nv));
	if (strcmp(list, "extra") != 0)
		json_object_set_new(item, "ref_version", jstr(rv));
	if (extra != NULL)
		json_object_update(item, extra);
	if (extra != NULL && strcmp(list, "origin_changed") == 0)
		json_object_update(d, extra);   /* both digests or origins */
	json_array_append_new(l, item);
	json_array_append_new(json_object_get(res, "differences"), d);
}

static int
cmp_diff(const void *a, const void *b)
{
	const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;

	return strcmp(json_string_value(json_object_get(x, "canonical_name")),
		      json_string_value(json_object_get(y, "canonical_name")));
}

static void
sort_differences(json_t *res)
{
	json_t *d = json_object_get(res, "differences");
	size_t n = json_array_size(d);
	json_t **v = calloc(n ? n : 1, sizeof *v);

	if (v == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(d, i));
	qsort(v, n, sizeof *v, cmp_diff);
	json_array_clear(d);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(d, v[i]);
	free(v);
}

/* "find-links ./wheels", "index URL", "system" into buf. */
static const char *
origin_text(const json_t *p, char *buf, size_t len)
{
	const char *o = json_string_value(json_object_get(p, "origin"));
	const char *s = json_string_value(json_object_get(p, "source"));

	snprintf(buf, len, "%s%s%s", o ? o : "?", s ? " " : "", s ? s : "");
	return buf;
}

/* The same version on both sides: another artefact (both name a SHA-256)
 * or another origin (both name one) is a difference of its own.  1 when
 * the same. */
static int
compare_origin(json_t *res, const char *cn, const json_t *rp, const char *rv,
	       const json_t *np, const char *nv)
{
	const char *rs = json_string_value(json_object_get(rp, "sha256"));
	const char *ns = json_string_value(json_object_get(np, "sha256"));
	const char *name = json_string_value(json_object_get(np, "name"));
	char detail[700], ro[300], no[300];
	json_t *extra;

	if (json_object_get(rp, "origin") == NULL || json_object_get(np, "origin") == NULL)
		ro[0] = no[0] = '\0';
	else {
		origin_text(rp, ro, sizeof ro);
		origin_text(np, no, sizeof no);
	}
	if (rs != NULL && ns != NULL && strcasecmp(rs, ns) != 0) {
		snprintf(detail, sizeof detail, "the same version, another artefact: sha256 %.16s... "
			 "-> %.16s...%s%s%s%s", rs, ns, ro[0] ? " (" : "", ro, ro[0] ? " -> " : "",
			 ro[0] ? no : "");
		if (ro[0])
			strncat(detail, ")", sizeof detail - strlen(detail) - 1);
		extra = json_pack("{s:s, s:s}", "ref_sha256", rs, "new_sha256", ns);
		add_diff(res, "origin_changed", cn, name, "digest", rv, nv, detail, extra);
		json_decref(extra);
		return 0;
	}
	if (ro[0] && strcmp(ro, no) != 0) {
		snprintf(detail, sizeof detail, "the same version from another origin: %s -> %s",
			 ro, no);
		extra = json_pack("{s:s, s:s}", "ref_origin", ro, "new_origin", no);
		add_diff(res, "origin_changed", cn, name, "origin", rv, nv, detail, extra);
		json_decref(extra);
		return 0;
	}
	return 1;
}

/* Compare one package present on both sides. */
static int
compare_one(json_t *res, const char *cn, const json_t *rp, const char *rv, const json_t *np,
	    const char *nv)
{
	const char *name;
	struct pep440_version a, b;
	char detail[512], rl[KD_PEP440_MAX_LOCAL], nl[KD_PEP440_MAX_LOCAL];

	if (rv != NULL && nv != NULL && strcmp(rv, nv) == 0)
		return compare_origin(res, cn, rp, rv, np, nv);
	name = json_string_value(json_object_get(np, "name"));
	if (rv != NULL && nv != NULL && pep440_parse(rv, &a) == 0 && pep440_parse(nv, &b) == 0) {
		if (pep440_cmp(&a, &b) == 0)
			return compare_origin(res, cn, rp, rv, np, nv);   /* 1.0 and 1.0.0 */
		if (pep440_cmp_public(&a, &b) == 0) {
			snprintf(detail, sizeof detail, "local label changed: +%s -> +%s "
				 "(==%s accepts both)", a.local[0] ? a.local : "(none)",
				 b.local[0] ? b.local : "(none)",
				 pep440_format_public(&a, rl, sizeof rl));
			json_t *extra = json_pack("{s:s, s:s}", "ref_local", a.local,
						  "new_local", b.local);
			add_diff(res, "local_label_changed", cn, name, "local-label", rv, nv,
				 detail, extra);
			json_decref(extra);
			return 0;
		}
		int up = pep440_cmp_public(&a, &b) < 0;
		snprintf(detail, sizeof detail, "version %s: %s -> %s", up ? "up" : "down", rv, nv);
		json_t *extra = json_pack("{s:s}", "direction", up ? "up" : "down");
		pep440_local_of(rv, rl, sizeof rl);
		pep440_local_of(nv, nl, sizeof nl);
		if (strcmp(rl, nl) != 0)
			json_object_set_new(extra, "local_label_changed", json_true());
		add_diff(res, "version_changed", cn, name, "version", rv, nv, detail, extra);
		json_decref(extra);
		return 0;
	}
	if (rv != NULL && nv != NULL && strcasecmp(rv, nv) == 0)
		return compare_origin(res, cn, rp, rv, np, nv);
	snprintf(detail, sizeof detail, "version changed: %s -> %s", rv ? rv : "(none)",
		 nv ? nv : "(none)");
	json_t *extra = json_pack("{s:s}", "direction", "unknown");
	add_diff(res, "version_changed", cn, name, "version", rv, nv, detail, extra);
	json_decref(extra);
	return 0;
}

json_t *
inventory_compare(const json_t *ref, const json_t *new_inv, int flags)
{
	const json_t *rp = inventory_packages(ref), *np = inventory_packages(new_inv);
	json_t *res = json_pack("{s:[], s:[], s:[], s:[], s:[], s:[], s:i}", "missing", "extra",
				"version_changed", "local_label_changed", "origin_changed",
				"differences", "same", 0);
	struct inv_side ri, ni;
	int same = 0;
	char detail[512];

	(void)flags;
	if (side_of(rp, &ri) != 0)
		return res;
	if (side_of(np, &ni) != 0) {
		side_free(&ri);
		return res;
	}
	for (size_t i = 0; i < ri.n; i++) {
		const struct inv_ent *e = &ri.v[i];
		if (!e->first)
			continue;
		const char *cn = e->cn;
		const struct inv_ent *m = side_find(&ni, cn, e->h);
		if (m != NULL) {
			same += compare_one(res, cn, e->p, e->id, m->p, m->id);
			continue;
		}
		const char *name = json_string_value(json_object_get(e->p, "name"));
		snprintf(detail, sizeof detail, "missing: the reference has %s %s",
			 name ? name : cn, e->id ? e->id : "");
		add_diff(res, "missing", cn, name, "missing", e->id, NULL, detail, NULL);
	}
	for (size_t i = 0; i < ni.n; i++) {
		const struct inv_ent *e = &ni.v[i];
		if (!e->first || side_find(&ri, e->cn, e->h) != NULL)
			continue;
		const char *cn = e->cn;
		const char *name = json_string_value(json_object_get(e->p, "name"));
		snprintf(detail, sizeof detail, "extra: %s %s is not in the reference",
			 name ? name : cn, e->id ? e->id : "");
		add_diff(res, "extra", cn, name, "extra", NULL, e->id, detail, NULL);
	}
	json_object_set_new(res, "same", json_integer(same));
	sort_differences(res);
	side_free(&ri);
	side_free(&ni);
	return res;
}
