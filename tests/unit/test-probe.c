/* test-probe.c - the probe's output as src/facts/probe.c understands and judges
 * it, on real CPU runs and on outputs written from documented GPU values
 * (tests/fixtures/probe/README.md says which is which). */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/caps.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/probe.h"

#define FIX KD_SRCDIR "/tests/fixtures/probe/"

/* Feed the probe's output text and judge it as if the probe had ended as
 * r says. */
static json_t *
obs_of_text(const char *text, size_t len, const char *expected, const struct run_result *r)
{
	struct probe_out p;
	struct probe_end e = { .expected = expected, .interpreter = "/p/.venv-rebuild/bin/python",
			       .probe_path = "/usr/share/kernodeck/probe.py", .log = "logs/x-probe.log",
			       .run = r };
	json_t *obs;

	probe_out_init(&p);
	probe_feed_text(&p, text, len);
	obs = probe_obs(&p, &e);
	probe_out_free(&p);
	return obs;
}

/* The same with a fixture file. */
static json_t *
obs_of(const char *file, const char *expected, const struct run_result *r)
{
	struct kd_err err = { 0 };
	char *buf;
	size_t len;
	json_t *obs;

	if (fsutil_read_file(file, KD_CAP_TEXT_FILE, &buf, &len, &err) != 0)
		fail_msg("%s: %s", file, err.msg);
	obs = obs_of_text(buf, len, expected, r);
	free(buf);
	return obs;
}

static const struct run_result exit0 = { .started = 1, .exited = 1, .exit_code = 0, .elapsed_s = 3 };
static const struct run_result exit1 = { .started = 1, .exited = 1, .exit_code = 1, .elapsed_s = 3 };

static size_t
count_status(const struct kd_rows *rows, enum kd_rstat st)
{
	size_t n = 0;

	for (size_t i = 0; i < rows->n; i++)
		n += rows->v[i].status == st;
	return n;
}

static const struct kd_row *
must_find(const struct kd_rows *rows, const char *id)
{
	const struct kd_row *r = kd_rows_find(rows, id);

	if (r == NULL)
		fail_msg("no row %s", id);
	return r;
}

static void
test_cpu_pass(void **state)
{
	json_t *obs = obs_of(FIX "cpu-pass.jsonl", "cpu", &exit0);
	struct kd_rows rows = { 0 };

	(void)state;
	assert_true(json_is_true(json_object_get(obs, "completed")));
	assert_true(json_is_null(json_object_get(obs, "first_error")));
	assert_int_equal(json_array_size(json_object_get(obs, "steps")), 11);
	probe_check_rows(obs, &rows);
	assert_int_equal(count_status(&rows, KD_R_FAIL), 0);
	assert_int_equal(must_find(&rows, "compute.backend")->status, KD_R_PASS);
	assert_string_equal(must_find(&rows, "compute.backend")->expected, "cpu");
	assert_int_equal(must_find(&rows, "compute.agreement")->status, KD_R_PASS);
	assert_non_null(strstr(must_find(&rows, "compute.agreement")->observed, "<= bound"));
	assert_int_equal(must_find(&rows, "compute.precision")->status, KD_R_INFO);
	assert_non_null(strstr(must_find(&rows, "compute.precision")->observed, "TF32 matmul off"));
	assert_non_null(strstr(must_find(&rows, "compute.precision")->observed, "CUBLAS_WORKSPACE_CONFIG unset"));
	assert_null(kd_rows_find(&rows, "compute.first-error"));
	kd_rows_free(&rows);
	json_decref(obs);
}

/* Expecting CUDA on a CPU-only build: the backend fails with the reason
 * and nothing was computed on the CPU in its place. */
static void
test_cpu_expect_cuda(void **state)
{
	json_t *obs = obs_of(FIX "cpu-expect-cuda.jsonl", "cuda", &exit1);
	struct kd_rows rows = { 0 };
	const struct kd_row *b;

	(void)state;
	probe_check_rows(obs, &rows);
	b = must_find(&rows, "compute.backend");
	assert_int_equal(b->status, KD_R_FAIL);
	assert_string_equal(b->expected, "cuda");
	assert_non_null(strstr(b->observed, "seen cpu"));
	assert_non_null(strstr(b->first_error, "CPU-only build"));
	assert_non_null(strstr(b->hint, "variant"));
	assert_null(kd_rows_find(&rows, "compute.compute"));
	assert_null(kd_rows_find(&rows, "compute.device"));
	assert_null(kd_rows_find(&rows, "compute.agreement"));
	assert_int_equal(count_status(&rows, KD_R_FAIL), 1);
	assert_non_null(strstr(must_find(&rows, "compute.first-error")->observed, "in step backend"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(obs, "first_error"), "reason")),
			    "cpu-only-build");
	kd_rows_free(&rows);
	json_decref(obs);
}

static void
test_crash_in_step(void **state)
{
	struct run_result r = { .started = 1, .signaled = 1, .term_signal = SIGABRT };
	json_t *obs = obs_of(FIX "cpu-abort-in-compute.jsonl", "cpu", &r);
	struct kd_rows rows = { 0 };
	const struct kd_row *c;

	(void)state;
	assert_false(json_is_true(json_object_get(obs, "completed")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(obs, "interrupted_in"), "begin")),
			    "compute");
	assert_string_equal(json_string_value(json_object_get(json_object_get(obs, "first_error"), "type")),
			    "Crash");
	probe_check_rows(obs, &rows);
	c = must_find(&rows, "compute.compute");
	assert_int_equal(c->status, KD_R_FAIL);
	assert_non_null(strstr(c->observed, "killed by SIGABRT"));
	assert_int_equal(must_find(&rows, "compute.h2d")->status, KD_R_PASS);
	assert_null(kd_rows_find(&rows, "compute.agreement"));
	kd_rows_free(&rows);
	json_decref(obs);
}

static void
test_hang_in_step(void **state)
{
	struct run_result r = { .started = 1, .signaled = 1, .term_signal = SIGTERM, .timed_out = 1,
				.timeout_s = 5 };
	const char *out = "{\"begin\": \"python\"}\n{\"step\": \"python\", \"ok\": true, \"ms\": 1}\n"
			  "{\"begin\": \"import_torch\"}\n";
	json_t *obs = obs_of_text(out, strlen(out), "cuda", &r);
	struct kd_rows rows = { 0 };
	const struct kd_row *row;

	(void)state;
	probe_check_rows(obs, &rows);
	row = must_find(&rows, "compute.import-torch");
	assert_int_equal(row->status, KD_R_FAIL);
	assert_non_null(strstr(row->observed, "timed out after 5 s"));
	assert_non_null(strstr(row->hint, "hung"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(obs, "first_error"), "type")),
			    "Timeout");
	kd_rows_free(&rows);
	json_decref(obs);
}

static void
test_no_output(void **state)
{
	struct run_result r = { .started = 1, .exited = 1, .exit_code = 127 };
	const char *out = "/p/.venv-rebuild/bin/python: can't open file 'probe.py'\n";
	json_t *obs = obs_of_text(out, strlen(out), NULL, &r);
	struct kd_rows rows = { 0 };
	const struct kd_row *row;

	(void)state;
	probe_check_rows(obs, &rows);
	row = must_find(&rows, "compute.probe");
	assert_int_equal(row->status, KD_R_FAIL);
	assert_non_null(strstr(row->observed, "exit 127"));
	assert_non_null(strstr(row->first_error, "can't open file"));
	assert_int_equal(must_find(&rows, "compute.expected")->status, KD_R_FAIL);
	kd_rows_free(&rows);
	json_decref(obs);
}

static void
test_extensions(void **state)
{
	json_t *obs = obs_of(FIX "cpu-ext-fail.jsonl", "cpu", &exit1);
	struct kd_rows rows = { 0 };

	(void)state;
	probe_check_rows(obs, &rows);
	assert_int_equal(must_find(&rows, "compute.ext.json")->status, KD_R_FAIL);
	assert_non_null(strstr(must_find(&rows, "compute.ext.json")->observed, "AttributeError"));
	assert_int_equal(must_find(&rows, "compute.ext.nosuchmod")->status, KD_R_FAIL);
	assert_non_null(strstr(must_find(&rows, "compute.ext.nosuchmod")->observed, "ModuleNotFoundError"));
	assert_int_equal(must_find(&rows, "compute.agreement")->status, KD_R_PASS);
	assert_int_equal(count_status(&rows, KD_R_FAIL), 2);
	kd_rows_free(&rows);
	json_decref(obs);
}

static void
test_documented_cuda_pass(void **state)
{
	json_t *obs = obs_of(FIX "documented-cuda-h100x8.jsonl", "cuda", &exit0);
	struct kd_rows rows = { 0 }, info = { 0 };

	(void)state;
	probe_check_rows(obs, &rows);
	assert_int_equal(count_status(&rows, KD_R_FAIL), 0);
	assert_int_equal(must_find(&rows, "compute.agreement")->status, KD_R_PASS);
	assert_int_equal(must_find(&rows, "compute.agreement.cuda7")->status, KD_R_PASS);
	assert_int_equal(must_find(&rows, "compute.h2d.cuda3")->status, KD_R_PASS);
	assert_non_null(strstr(must_find(&rows, "compute.backend")->observed, "8 device(s): NVIDIA H100"));
	probe_describe_rows(obs, &info);
	assert_non_null(strstr(must_find(&info, "compute.info.torch")->observed, "2.6.0+cu124"));
	assert_non_null(strstr(must_find(&info, "compute.info.torch")->observed, "torch.version.cuda 12.4"));
	assert_non_null(strstr(must_find(&info, "compute.info.devices")->observed, "7: NVIDIA H100, capability 9.0"));
	assert_string_equal(must_find(&info, "compute.info.libraries")->observed, "cuDNN 90100; NCCL 2.21.5");
	assert_non_null(strstr(must_find(&info, "compute.info.arch-list")->observed, "sm_90"));
	kd_rows_free(&rows);
	kd_rows_free(&info);
	json_decref(obs);
}

/* One failing backend per documented reason, each with its hint. */
static void
test_documented_failures(void **state)
{
	static const struct { const char *file, *expect, *needle, *hint; } cases[] = {
		{ "documented-cuda-h100-arch.jsonl", "cuda", "sm_90", "arch list" },
		{ "documented-cuda-no-driver.jsonl", "cuda", "Found no NVIDIA driver", "nvidia-smi" },
		{ "documented-cuda-driver-old.jsonl", "cuda", "too old (found version 12080)", "update the GPU driver" },
		{ "documented-rocm-gfx1101-arch.jsonl", "rocm", "gfx1101", "arch list" },
		{ "documented-cpu-label.jsonl", "cuda", "label +cpu", "variant" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char path[512];
		struct kd_rows rows = { 0 };
		const struct kd_row *b;
		json_t *obs;

		snprintf(path, sizeof path, FIX "%s", cases[i].file);
		obs = obs_of(path, cases[i].expect, &exit1);
		probe_check_rows(obs, &rows);
		b = must_find(&rows, "compute.backend");
		assert_int_equal(b->status, KD_R_FAIL);
		if (strstr(b->first_error, cases[i].needle) == NULL)
			fail_msg("%s: \"%s\" lacks \"%s\"", cases[i].file, b->first_error, cases[i].needle);
		if (b->hint == NULL || strstr(b->hint, cases[i].hint) == NULL)
			fail_msg("%s: hint \"%s\" lacks \"%s\"", cases[i].file, b->hint ? b->hint : "",
				 cases[i].hint);
		assert_null(kd_rows_find(&rows, "compute.compute"));
		assert_int_equal(count_status(&rows, KD_R_FAIL), 1);
		kd_rows_free(&rows);
		json_decref(obs);
	}
}

static void
test_documented_rocm_pass(void **state)
{
	json_t *obs = obs_of(FIX "documented-rocm-gfx906.jsonl", "rocm", &exit0);
	struct kd_rows rows = { 0 }, info = { 0 };
	const json_t *imp = json_array_get(json_object_get(obs, "steps"), 1);

	(void)state;
	/* ROCm answers through torch.cuda; the build is known from version.hip */
	assert_true(json_is_null(json_object_get(imp, "cuda")));
	assert_string_equal(json_string_value(json_object_get(imp, "hip")), "3.7.20315-077bcfa0");
	probe_check_rows(obs, &rows);
	assert_int_equal(count_status(&rows, KD_R_FAIL), 0);
	assert_non_null(strstr(must_find(&rows, "compute.backend")->observed, "rocm build"));
	assert_non_null(strstr(must_find(&rows, "compute.backend")->observed, "gfx906"));
	assert_int_equal(must_find(&rows, "compute.agreement")->status, KD_R_PASS);
	probe_describe_rows(obs, &info);
	assert_string_equal(must_find(&info, "compute.info.libraries")->observed, "MIOpen 2006000; RCCL 2.7.0");
	kd_rows_free(&rows);
	kd_rows_free(&info);
	json_decref(obs);
}

static void
test_feed_edges(void **state)
{
	struct probe_out p;
	char *big = malloc(KD_CAP_JSON_LINE + 10);
	const char *ok_line = "  {\"step\": \"python\", \"ok\": true}\r";

	(void)state;
	probe_out_init(&p);
	assert_int_equal(probe_feed(&p, "UserWarning: something", 22), 0);
	assert_int_equal(probe_feed(&p, "{not json", 9), 0);
	assert_int_equal(probe_feed(&p, "{\"x\": 1}", 8), 0);           /* no step */
	assert_int_equal(probe_feed(&p, "[1, 2]", 6), 0);
	assert_int_equal(probe_feed(&p, "", 0), 0);
	assert_int_equal(probe_feed(&p, "{\"step\": \"a\", \"step\": \"b\"}", 26), 0); /* duplicate key */
	assert_int_equal(probe_feed(&p, ok_line, strlen(ok_line)), 1);
	assert_int_equal(json_array_size(p.steps), 1);
	assert_int_equal(json_array_size(p.text), 5);
	memset(big, ' ', KD_CAP_JSON_LINE + 10);
	big[0] = '{';
	assert_int_equal(probe_feed(&p, big, KD_CAP_JSON_LINE + 10), 0);
	assert_int_equal(strlen(json_string_value(json_array_get(p.text, 5))), PROBE_TEXT_LINE_CAP);
	assert_int_equal(probe_feed(&p, "\xff\xfe bad utf-8", 13), 0);
	assert_non_null(strstr(json_string_value(json_array_get(p.text, 6)), "bad utf-8"));
	for (int i = 0; i < PROBE_TEXT_LINES + 5; i++)
		probe_feed(&p, "noise", 5);
	assert_int_equal(json_array_size(p.text), PROBE_TEXT_LINES);
	assert_true(p.text_dropped > 0);
	free(big);
	probe_out_free(&p);
}

/* A GPU node's perf and libs steps (the shapes share/probe.py prints): the
 * throughputs lead their rows (the host CPU's apart, .cpu), two copies of cuBLAS warn with both paths,
 * each notable library is a row with its owner and version. */
static void
test_perf_and_libs_rows(void **state)
{
	static const char text[] =
		"{\"step\": \"agree\", \"ok\": true, \"ms\": 1, \"device\": \"cuda:0\", \"max_abs_error\": 1e-6, \"bound\": 1e-3}\n"
		"{\"step\": \"perf\", \"ok\": true, \"ms\": 2100, \"device\": \"cuda:0\", \"dtype\": \"bfloat16\", "
		"\"n\": 4096, \"windows\": 5, \"window_s\": 0.2, \"gflops\": 612345.5, \"copy_gbps\": 1834.25}\n"
		"{\"step\": \"perf\", \"ok\": true, \"ms\": 2100, \"device\": \"cpu\", \"dtype\": \"bfloat16\", "
		"\"n\": 256, \"windows\": 5, \"window_s\": 0.2, \"gflops\": 98.5, \"copy_gbps\": 12.5}\n"
		"{\"step\": \"libs\", \"ok\": true, \"ms\": 80, \"available\": true, \"count\": 3, \"libraries\": ["
		"{\"path\": \"/v/nvidia/cublas/lib/libcublas.so.12\", \"base\": \"libcublas\", \"owner\": \"wheel\", "
		"\"package\": \"nvidia_cublas_cu12\", \"version\": \"12.4.5.8\", \"file_version\": \"12\"}, "
		"{\"path\": \"/opt/cuda/lib64/libcublas.so.12.1.0\", \"base\": \"libcublas\", \"owner\": \"loose\", "
		"\"package\": null, \"version\": null, \"file_version\": \"12.1.0\"}, "
		"{\"path\": \"/usr/lib/x86_64-linux-gnu/libc.so.6\", \"base\": \"libc\", \"owner\": \"deb\", "
		"\"package\": \"libc6:amd64\", \"version\": \"2.36-9\", \"file_version\": \"6\"}], "
		"\"lib_warnings\": [{\"kind\": \"duplicate\", \"library\": \"libcublas\", "
		"\"paths\": [\"/v/nvidia/cublas/lib/libcublas.so.12\", \"/opt/cuda/lib64/libcublas.so.12.1.0\"], "
		"\"message\": \"two copies of libcublas in one process: /v/nvidia/cublas/lib/libcublas.so.12 and "
		"/opt/cuda/lib64/libcublas.so.12.1.0\"}]}\n";
	json_t *obs = obs_of_text(text, sizeof text - 1, "cuda", &exit0);
	struct kd_rows rows = { 0 };
	const struct kd_row *r;
	(void)state;
	probe_check_rows(obs, &rows);
	r = must_find(&rows, "compute.perf-matmul");
	assert_int_equal(r->status, KD_R_INFO);
	assert_string_equal(r->observed, "612346 GFLOP/s on cuda:0, bfloat16 4096x4096 (median of 5 windows of 0.2 s)");
	assert_string_equal(must_find(&rows, "compute.perf-copy")->observed,
			    "1834.25 GB/s on cuda:0 (median of 5 windows of 0.2 s)");
	assert_string_equal(must_find(&rows, "compute.perf-matmul.cpu")->observed,
			    "98.5 GFLOP/s on cpu, bfloat16 256x256 (median of 5 windows of 0.2 s)");
	r = must_find(&rows, "compute.libraries");
	assert_int_equal(r->status, KD_R_WARN);
	assert_string_equal(r->observed, "3 shared objects: 1 from wheels, 1 Debian, 0 conda, 1 loose; see the warnings");
	r = must_find(&rows, "compute.libraries.duplicate.libcublas");
	assert_int_equal(r->status, KD_R_WARN);
	assert_non_null(strstr(r->observed, "/v/nvidia/cublas/lib/libcublas.so.12 and /opt/cuda/lib64/libcublas.so.12.1.0"));
	assert_string_equal(must_find(&rows, "compute.lib.libcublas")->observed,
			    "/v/nvidia/cublas/lib/libcublas.so.12 (wheel nvidia_cublas_cu12 12.4.5.8)");
	assert_null(kd_rows_find(&rows, "compute.lib.libc"));   /* not one of the notable */
	kd_rows_free(&rows);
	json_decref(obs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_pass),
		cmocka_unit_test(test_cpu_expect_cuda),
		cmocka_unit_test(test_crash_in_step),
		cmocka_unit_test(test_hang_in_step),
		cmocka_unit_test(test_no_output),
		cmocka_unit_test(test_extensions),
		cmocka_unit_test(test_documented_cuda_pass),
		cmocka_unit_test(test_documented_failures),
		cmocka_unit_test(test_documented_rocm_pass),
		cmocka_unit_test(test_feed_edges),
		cmocka_unit_test(test_perf_and_libs_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
