/* test-baseenv.c - a base environment without running it: finding its
 * interpreter (venv, conda, interpreter, missing, none), reading what its
 * interpreter reports (and refusing a bad report), the .pth text, the
 * inventory digest, the origin of each package and what changed. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/baseenv.h"
#include "kernodeck/fsutil.h"

static char root[] = "/tmp/kdbase.XXXXXX";

static void
put(const char *rel, const char *text, int mode)
{
	char p[PATH_MAX], d[PATH_MAX];
	FILE *fp;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	snprintf(d, sizeof d, "%s", p);
	*strrchr(d, '/') = '\0';
	assert_int_equal(fsutil_mkdirs(d, NULL), 0);
	fp = fopen(p, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	chmod(p, (mode_t)mode);
}

static int
setup(void **state)
{
	(void)state;
	return mkdtemp(root) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	return fsutil_rmtree(root, NULL);
}

static const char report[] =
	"WARNING: something on stderr first\n"
	BASEENV_MARK "{\"executable\": \"/b/bin/python\", \"version\": \"3.11.2\", "
	"\"prefix\": \"/b\", \"purelib\": \"/b/lib/python3.11/site-packages\", "
	"\"site_dirs\": [\"/b/lib/python3.11/site-packages\", \"/usr/lib/python3/dist-packages\"], "
	"\"packages\": ["
	"{\"name\": \"Torch\", \"version\": \"1.13.1\", \"location\": \"/usr/lib/python3/dist-packages\"},"
	"{\"name\": \"base_pkg\", \"version\": \"1.0\", \"location\": \"/b/lib/python3.11/site-packages\"}"
	"]}\n";

static void
test_locate(void **state)
{
	struct baseenv be;
	struct kd_err e = { 0 };
	char p[PATH_MAX];

	(void)state;
	put("venv/pyvenv.cfg", "home = /usr/bin\n", 0644);
	put("venv/bin/python3", "#!/bin/sh\n", 0755);
	assert_int_equal(baseenv_locate(root, "venv", &be, &e), 0);
	assert_string_equal(be.kind, "venv");
	snprintf(p, sizeof p, "%s/venv/bin/python3", root);
	assert_string_equal(be.python, p);
	baseenv_free(&be);

	put("conda/conda-meta/history", "", 0644);
	put("conda/bin/python", "#!/bin/sh\n", 0755);
	snprintf(p, sizeof p, "%s/conda", root);
	assert_int_equal(baseenv_locate("/elsewhere", p, &be, &e), 0);
	assert_string_equal(be.kind, "conda");
	assert_non_null(strstr(be.python, "/conda/bin/python"));
	baseenv_free(&be);

	snprintf(p, sizeof p, "%s/venv/bin/python3", root);
	assert_int_equal(baseenv_locate(root, p, &be, &e), 0);
	assert_string_equal(be.kind, "interpreter");
	baseenv_free(&be);

	assert_int_equal(baseenv_locate(root, "nowhere", &be, &e), KD_EINPUT);
	assert_non_null(strstr(e.msg, "/nowhere is missing"));
	baseenv_free(&be);

	put("empty/README", "no interpreter here\n", 0644);
	assert_int_equal(baseenv_locate(root, "empty", &be, &e), KD_EINPUT);
	assert_non_null(strstr(e.msg, "holds no bin/python3 or bin/python"));
	baseenv_free(&be);

	assert_int_equal(baseenv_locate(root, "empty/README", &be, &e), KD_EINPUT);
	assert_non_null(strstr(e.msg, "neither a folder nor an executable"));
	baseenv_free(&be);
	assert_int_equal(baseenv_locate(root, "", &be, &e), KD_EINPUT);
	baseenv_free(&be);
}

static void
test_parse_and_pth(void **state)
{
	struct baseenv_query q;
	struct baseenv be = { .path = "/b", .python = "/b/bin/python" };
	struct kd_err e = { 0 };
	char *t;
	size_t len;

	(void)state;
	assert_int_equal(baseenv_parse(report, strlen(report), &q, &e), 0);
	assert_int_equal(q.npackages, 2);
	assert_string_equal(q.version, "3.11.2");
	assert_int_equal(strlen(q.digest), 64);
	t = baseenv_pth_text(&be, &q, &len);
	assert_non_null(t);
	assert_non_null(strstr(t, "\n/b/lib/python3.11/site-packages\n/usr/lib/python3/dist-packages\n"));
	/* every other line is a comment: Python would run a line starting "import" */
	for (char *l = t; *l; l = strchr(l, '\n') + 1)
		assert_true(l[0] == '#' || l[0] == '/');
	free(t);
	t = baseenv_freeze_text(&q, &len);
	assert_string_equal(t, "base-pkg==1.0\ntorch==1.13.1\n");
	free(t);
	baseenv_query_free(&q);
}

static void
test_digest(void **state)
{
	struct baseenv_query a, b;
	char other[sizeof report + 64], *p;

	(void)state;
	assert_int_equal(baseenv_parse(report, strlen(report), &a, NULL), 0);
	/* the same packages in another order: the same digest */
	snprintf(other, sizeof other, BASEENV_MARK "{\"purelib\": \"/b/x\", \"site_dirs\": [], "
		 "\"packages\": [{\"name\": \"base-pkg\", \"version\": \"1.0\", \"location\": "
		 "\"/b/lib/python3.11/site-packages\"}, {\"name\": \"torch\", \"version\": \"1.13.1\", "
		 "\"location\": \"/usr/lib/python3/dist-packages\"}]}\n");
	assert_int_equal(baseenv_parse(other, strlen(other), &b, NULL), 0);
	assert_string_equal(a.digest, b.digest);
	baseenv_query_free(&b);
	/* a version changed: another digest */
	p = strstr(other, "1.13.1");
	p[5] = '2';
	assert_int_equal(baseenv_parse(other, strlen(other), &b, NULL), 0);
	assert_string_not_equal(a.digest, b.digest);
	baseenv_query_free(&b);
	baseenv_query_free(&a);
}

static void
test_bad_reports(void **state)
{
	static const char *const bad[] = {
		"no marker at all\n",
		BASEENV_MARK "not json\n",
		BASEENV_MARK "[1, 2]\n",
		BASEENV_MARK "{\"purelib\": \"relative\", \"site_dirs\": [], \"packages\": []}\n",
		BASEENV_MARK "{\"purelib\": \"/p\", \"site_dirs\": [\"/a\\nimport os\"], \"packages\": []}\n",
		BASEENV_MARK "{\"purelib\": \"/p\", \"site_dirs\": [\"rel\"], \"packages\": []}\n",
		BASEENV_MARK "{\"purelib\": \"/p\", \"site_dirs\": [], \"packages\": [3]}\n",
		BASEENV_MARK "{\"purelib\": \"/p\", \"site_dirs\": {}, \"packages\": []}\n",
	};
	struct baseenv_query q;
	struct kd_err e = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		assert_int_equal(baseenv_parse(bad[i], strlen(bad[i]), &q, &e), KD_EINPUT);
		assert_true(e.msg[0] != '\0');
		baseenv_query_free(&q);
	}
}

static void
test_origins_and_diff(void **state)
{
	static const char venv[] =
		BASEENV_MARK "{\"purelib\": \"/v/lib/python3.11/site-packages\", \"site_dirs\": [], "
		"\"packages\": ["
		"{\"name\": \"proj\", \"version\": \"1.0\", \"location\": \"/v/lib/python3.11/site-packages\"},"
		"{\"name\": \"base_pkg\", \"version\": \"1.0\", \"location\": \"/b/lib/python3.11/site-packages\"},"
		"{\"name\": \"base_pkg\", \"version\": \"1.0\", \"location\": \"/b/lib/python3.11/site-packages\"},"
		"{\"name\": \"other\", \"version\": \"2\", \"location\": \"/opt/elsewhere\"},"
		"{\"name\": \"nowhere\", \"version\": \"3\"}]}\n";
	struct baseenv_query b, v;
	json_t *o, *was, *now, *d;

	(void)state;
	assert_int_equal(baseenv_parse(report, strlen(report), &b, NULL), 0);
	assert_int_equal(baseenv_parse(venv, strlen(venv), &v, NULL), 0);
	o = baseenv_origins(&v, &b);
	assert_int_equal(json_array_size(json_object_get(o, "rebuilt")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(o, "rebuilt"), 0)),
			    "proj==1.0");
	/* a package seen twice in one folder is listed once */
	assert_int_equal(json_array_size(json_object_get(o, "base")), 1);
	assert_int_equal(json_array_size(json_object_get(o, "system")), 2);
	json_decref(o);

	was = baseenv_package_list(&b);
	assert_int_equal(json_array_size(was), 2);
	now = json_pack("[s, s]", "base-pkg==1.0", "extra==1.0");
	d = baseenv_diff(was, now);
	assert_int_equal(json_array_size(json_object_get(d, "added")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(d, "added"), 0)),
			    "extra==1.0");
	assert_string_equal(json_string_value(json_array_get(json_object_get(d, "removed"), 0)),
			    "torch==1.13.1");
	json_decref(d);
	json_decref(now);
	json_decref(was);
	baseenv_query_free(&v);
	baseenv_query_free(&b);
}

static void
test_write_pth(void **state)
{
	struct baseenv_query q;
	struct baseenv be = { .path = "/b", .python = "/b/bin/python" };
	char sp[PATH_MAX], *path = NULL, *buf = NULL;
	struct stat st1, st2;
	size_t len;

	(void)state;
	snprintf(sp, sizeof sp, "%s/v/lib/python3.11/site-packages", root);
	assert_int_equal(fsutil_mkdirs(sp, NULL), 0);
	assert_int_equal(baseenv_parse(report, strlen(report), &q, NULL), 0);
	assert_int_equal(baseenv_write_pth(sp, &be, &q, &path, NULL), 0);
	assert_non_null(strstr(path, "/site-packages/" BASEENV_PTH));
	assert_int_equal(fsutil_read_file(path, 1 << 20, &buf, &len, NULL), 0);
	assert_non_null(strstr(buf, "\n/usr/lib/python3/dist-packages\n"));
	free(buf);
	/* the same text again: the file is not rewritten */
	assert_int_equal(stat(path, &st1), 0);
	free(path);
	assert_int_equal(baseenv_write_pth(sp, &be, &q, &path, NULL), 0);
	assert_int_equal(stat(path, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	free(path);
	baseenv_query_free(&q);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_locate),
		cmocka_unit_test(test_parse_and_pth),
		cmocka_unit_test(test_digest),
		cmocka_unit_test(test_bad_reports),
		cmocka_unit_test(test_origins_and_diff),
		cmocka_unit_test(test_write_pth),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
