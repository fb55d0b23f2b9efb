/* test-variant.c - the CUDA driver table and minor-version compatibility,
 * the torch release matrix, reading the plan from a rebuild file, and the
 * verdicts with the rule that failed and what would fit. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernodeck/caps.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/variant.h"

#define REAL KD_SRCDIR "/tests/fixtures/variant/real-"

static char tmpdir[256];

static int
setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/kd-variant-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	return fsutil_rmtree(tmpdir, NULL);
}

static void
test_vercmp(void **state)
{
	(void)state;
	assert_true(variant_vercmp("470.129", "525.60.13") < 0);
	assert_true(variant_vercmp("535.129.03", "530.30.02") > 0);
	assert_int_equal(variant_vercmp("12.1", "12.1.0"), 0);
	assert_true(variant_vercmp("3.10", "3.9") > 0);
	assert_true(variant_vercmp("570.26", "570.124.06") < 0);
}

static void
test_tags(void **state)
{
	char c[16];

	(void)state;
	assert_int_equal(variant_cuda_of_tag("cu121", c, sizeof c), 0);
	assert_string_equal(c, "12.1");
	assert_int_equal(variant_cuda_of_tag("cu92", c, sizeof c), 0);
	assert_string_equal(c, "9.2");
	assert_int_equal(variant_cuda_of_tag("cu130", c, sizeof c), 0);
	assert_string_equal(c, "13.0");
	assert_int_not_equal(variant_cuda_of_tag("cpu", c, sizeof c), 0);
	assert_int_not_equal(variant_cuda_of_tag("cuda12", c, sizeof c), 0);
}

/* NVIDIA's table and the minor-version compatibility rule. */
static void
test_driver_table(void **state)
{
	char s[256];

	(void)state;
	assert_string_equal(variant_cuda_min_driver("12.1"), "530.30.02");
	assert_string_equal(variant_cuda_min_driver("11.8.89"), "520.61.05");
	assert_string_equal(variant_cuda_min_driver("10.0"), "410.48");
	assert_null(variant_cuda_min_driver("7.5"));
	assert_string_equal(variant_cuda_compat_min("12.4"), "525.60.13");
	assert_string_equal(variant_cuda_compat_min("11.8"), "450.80.02");
	assert_null(variant_cuda_compat_min("10.2"));
	assert_int_equal(variant_driver_runs("470.129", "12.1"), 0);
	assert_int_equal(variant_driver_runs("470.129", "11.8"), 2);   /* minor-version compat */
	assert_int_equal(variant_driver_runs("470.129", "11.4"), 1);
	assert_int_equal(variant_driver_runs("535.129.03", "12.1"), 1);
	assert_int_equal(variant_driver_runs("525.60.13", "12.4"), 2);
	assert_int_equal(variant_driver_runs("440.33", "11.0"), 0);
	assert_int_equal(variant_driver_runs("418.39", "10.2"), 0);  /* no compat before 11 */
	assert_int_equal(variant_driver_runs("384.98", "9.0"), 1);
	assert_int_equal(variant_driver_runs("999.1", "14.2"), -1);
	variant_driver_span("470.129", s, sizeof s);
	assert_string_equal(s, "CUDA 11.x (11.4 natively, later 11.x through minor-version compatibility)");
	variant_driver_native_max("535.129.03", s, sizeof s);
	assert_string_equal(s, "12.2");
	variant_driver_span("410.48", s, sizeof s);
	assert_string_equal(s, "CUDA up to 10.0");
}

/* PyTorch's release compatibility matrix. */
static void
test_python_matrix(void **state)
{
	char r[32];

	(void)state;
	assert_int_equal(variant_python_ok("2.1.0", "3.12.1", r, sizeof r), 0);
	assert_string_equal(r, "3.8-3.11");
	assert_int_equal(variant_python_ok("2.2.1", "3.12", r, sizeof r), 1);
	assert_int_equal(variant_python_ok("1.13.1", "3.11.2", r, sizeof r), 0);
	assert_int_equal(variant_python_ok("2.5", "3.8.10", r, sizeof r), 0);
	assert_int_equal(variant_python_ok("2.9.0", "3.14", r, sizeof r), 1);
	assert_int_equal(variant_python_ok("0.4.1", "3.6", r, sizeof r), -1);
	assert_string_equal(variant_pypi_cuda("2.3.1"), "12.1");
	assert_string_equal(variant_pypi_cuda("1.13.1"), "11.7");
	assert_null(variant_pypi_cuda("0.4.1"));
	assert_non_null(strstr(variant_cuda_tags("2.1.0"), "cu118"));
	assert_non_null(strstr(variant_rocm_tags("2.5.1"), "rocm6.2"));
}

static json_t *
plan_of(const char *text)
{
	return variant_plan_parse(text, strlen(text), "requirements-rebuild.txt", tmpdir);
}

static const char *
pstr(const json_t *p, const char *k)
{
	return json_string_value(json_object_get(p, k));
}

/* The real requirements files of the shared fixtures. */
static void
test_plan_real_files(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	struct kd_err err;
	json_t *p;

	(void)state;
	assert_int_equal(fsutil_read_file(REAL "01.txt", KD_CAP_TEXT_FILE, &buf, &len, &err), 0);
	p = variant_plan_parse(buf, len, "01.txt", NULL);
	assert_string_equal(pstr(p, "kind"), "cuda");
	assert_string_equal(pstr(p, "tag"), "cu121");
	assert_string_equal(pstr(p, "cuda"), "12.1");
	assert_string_equal(json_string_value(json_object_get(json_object_get(p, "torch"),
							      "version")), "2.2.0");
	/* the URL in the comment on line 1 is not an option */
	assert_int_equal(json_array_size(json_object_get(p, "index_urls")), 1);
	json_decref(p);
	free(buf);
	assert_int_equal(fsutil_read_file(REAL "09.txt", KD_CAP_TEXT_FILE, &buf, &len, &err), 0);
	p = variant_plan_parse(buf, len, "09.txt", NULL);
	assert_string_equal(pstr(p, "kind"), "none");
	json_decref(p);
	free(buf);
}

static void
test_plan_sources(void **state)
{
	json_t *p;

	(void)state;
	/* the index names the variant */
	p = plan_of("--index-url https://download.pytorch.org/whl/rocm6.2/\ntorch==2.5.1\n");
	assert_string_equal(pstr(p, "kind"), "rocm");
	assert_string_equal(pstr(p, "rocm"), "6.2");
	json_decref(p);
	p = plan_of("-i https://download.pytorch.org/whl/nightly/cu126\ntorch\n");
	assert_string_equal(pstr(p, "tag"), "cu126");
	json_decref(p);
	/* the local label wins over the index */
	p = plan_of("--extra-index-url https://download.pytorch.org/whl/cu118\ntorch==2.1.0+cpu\n");
	assert_string_equal(pstr(p, "kind"), "cpu");
	assert_non_null(strstr(pstr(p, "source"), "local label"));
	json_decref(p);
	/* plain PyPI: the release's default CUDA */
	p = plan_of("numpy==1.26.4\ntorch==2.3.1 ; sys_platform == 'linux'\n");
	assert_string_equal(pstr(p, "kind"), "cuda");
	assert_string_equal(pstr(p, "cuda"), "12.1");
	assert_non_null(strstr(pstr(p, "source"), "PyPI"));
	json_decref(p);
	/* unpinned on PyPI: unknown */
	p = plan_of("torch>=2.0\n");
	assert_string_equal(pstr(p, "kind"), "unknown");
	json_decref(p);
	/* torchvision is not torch; a continued line; a URL wheel */
	p = plan_of("torchvision==0.16.0+cu118\ntorch @ \\\n https://download.pytorch.org/whl/cu118/"
		    "torch-2.1.0%2Bcu118-cp311-cp311-linux_x86_64.whl\n");
	assert_string_equal(pstr(p, "tag"), "cu118");
	assert_string_equal(json_string_value(json_object_get(json_object_get(p, "torch"),
							      "version")), "2.1.0");
	json_decref(p);
	/* credentials in an index URL are not kept */
	p = plan_of("--extra-index-url https://bob:hunter2@pypi.example.org/simple\ntorch==2.1.0\n");
	char *dump = json_dumps(json_object_get(p, "index_urls"), 0);
	assert_null(strstr(dump, "hunter2"));
	free(dump);
	assert_string_equal(pstr(p, "kind"), "unknown");
	json_decref(p);
}

/* -r includes (one level) and a local --find-links folder. */
static void
test_plan_includes_and_links(void **state)
{
	char path[512];
	json_t *p;

	(void)state;
	snprintf(path, sizeof path, "%s/torch.txt", tmpdir);
	assert_int_equal(fsutil_write_atomic(path, "torch==2.4.1+cu124\n", 19, 0, NULL), 0);
	p = plan_of("-r torch.txt\nnumpy\n");
	assert_string_equal(pstr(p, "tag"), "cu124");
	assert_string_equal(json_string_value(json_object_get(json_object_get(p, "torch"), "file")),
			    path);
	json_decref(p);
	snprintf(path, sizeof path, "%s/wheels", tmpdir);
	assert_int_equal(fsutil_mkdirs(path, NULL), 0);
	snprintf(path, sizeof path, "%s/wheels/torch-2.1.0+cpu-cp311-cp311-linux_x86_64.whl", tmpdir);
	assert_int_equal(fsutil_write_atomic(path, "x", 1, FSUTIL_RAW, NULL), 0);
	p = plan_of("--no-index\n--find-links wheels\ntorch==2.1.0\n");
	assert_string_equal(pstr(p, "kind"), "cpu");
	assert_non_null(strstr(pstr(p, "source"), "find-links"));
	json_decref(p);
}

static json_t *
machine(const char *vendor, const char *backend, const char *driver)
{
	json_t *o = json_pack("{s:s, s:s}", "gpu_vendor", vendor, "backend", backend);

	if (driver != NULL)
		json_object_set_new(o, "driver", json_pack("{s:s, s:s}", "vendor",
				    strcmp(vendor, "amd") == 0 ? "amd" : "nvidia", "version", driver));
	return o;
}

static const char *
first_message(const json_t *v)
{
	return json_string_value(json_object_get(json_array_get(json_object_get(v, "problems"), 0),
						 "message"));
}

/* The example, word for word. */
static void
test_judge_driver_too_old(void **state)
{
	json_t *p = plan_of("torch==2.1.0+cu121\n"), *m = machine("nvidia", "cuda", "470.129");
	json_t *v = variant_judge(p, m, "3.11.2");

	(void)state;
	assert_string_equal(pstr(v, "status"), "fail");
	assert_string_equal(first_message(v),
		"driver 470.129 supports CUDA 11.x (11.4 natively, later 11.x through minor-version "
		"compatibility); the plan is cu121, which needs 525.60.13 or later; use cu118, "
		"or update the driver");
	json_decref(v);
	json_decref(m);
	m = machine("nvidia", "cuda", "535.129.03");
	v = variant_judge(p, m, "3.11.2");
	assert_string_equal(pstr(v, "status"), "pass");
	json_decref(v);
	json_decref(m);
	json_decref(p);
}

static void
test_judge_rules(void **state)
{
	json_t *p, *m, *v;

	(void)state;
	/* a ROCm wheel needs an AMD GPU */
	p = plan_of("torch==2.5.1+rocm6.2\n");
	m = machine("nvidia", "cuda", "550.54.15");
	v = variant_judge(p, m, "3.11");
	assert_string_equal(pstr(v, "status"), "fail");
	assert_non_null(strstr(first_message(v), "needs an AMD GPU"));
	json_decref(v); json_decref(m);
	m = machine("amd", "rocm", NULL);
	v = variant_judge(p, m, "3.11");
	assert_string_equal(pstr(v, "status"), "pass");
	json_decref(v); json_decref(m); json_decref(p);
	/* a CPU wheel on a GPU machine is flagged */
	p = plan_of("torch==2.3.0+cpu\n");
	m = machine("nvidia", "cuda", "550.54.15");
	v = variant_judge(p, m, "3.11");
	assert_string_equal(pstr(v, "status"), "warn");
	json_decref(v); json_decref(m);
	m = machine("none", "cpu", NULL);
	v = variant_judge(p, m, "3.11");
	assert_string_equal(pstr(v, "status"), "pass");
	json_decref(v); json_decref(m); json_decref(p);
	/* a CUDA wheel without an NVIDIA GPU */
	p = plan_of("torch==2.3.0+cu121\n");
	m = machine("none", "cpu", NULL);
	v = variant_judge(p, m, "3.11");
	assert_string_equal(pstr(v, "status"), "fail");
	assert_non_null(strstr(first_message(v), "no NVIDIA GPU"));
	json_decref(v); json_decref(m); json_decref(p);
	/* the Python rule */
	p = plan_of("torch==2.1.2+cpu\n");
	m = machine("none", "cpu", NULL);
	v = variant_judge(p, m, "3.12.1");
	assert_string_equal(pstr(v, "status"), "fail");
	assert_non_null(strstr(first_message(v), "torch 2.1.2 has wheels for Python 3.8-3.11"));
	json_decref(v); json_decref(m); json_decref(p);
}

/* torch from the system (system site packages, no torch line). */
static void
test_plan_system(void **state)
{
	char path[512];
	json_t *ref = json_pack("{s:{s:{s:b}}}", "python", "install", "system_site_packages", 1);
	json_t *p, *m = machine("none", "cpu", NULL), *v;

	(void)state;
	snprintf(path, sizeof path, "%s/requirements-rebuild.txt", tmpdir);
	assert_int_equal(fsutil_write_atomic(path, "numpy\n", 6, 0, NULL), 0);
	p = variant_plan_read(tmpdir, ref);
	assert_string_equal(pstr(p, "kind"), "system");
	v = variant_judge(p, m, "3.99");     /* the release matrix does not apply */
	assert_string_equal(pstr(v, "status"), "pass");
	assert_non_null(strstr(pstr(v, "note"), "provided by the system"));
	json_decref(v); json_decref(p);
	unlink(path);
	json_t *empty = json_object();
	p = variant_plan_read(tmpdir, empty);
	json_decref(empty);
	assert_string_equal(pstr(p, "kind"), "missing");
	v = variant_judge(p, m, "3.11");
	assert_string_equal(pstr(v, "status"), "warn");
	json_decref(v); json_decref(p); json_decref(m); json_decref(ref);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vercmp),
		cmocka_unit_test(test_tags),
		cmocka_unit_test(test_driver_table),
		cmocka_unit_test(test_python_matrix),
		cmocka_unit_test(test_plan_real_files),
		cmocka_unit_test(test_plan_sources),
		cmocka_unit_test(test_plan_includes_and_links),
		cmocka_unit_test(test_judge_driver_too_old),
		cmocka_unit_test(test_judge_rules),
		cmocka_unit_test(test_plan_system),
	};
	return cmocka_run_group_tests_name("variant", tests, setup, teardown);
}
