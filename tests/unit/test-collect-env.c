/* test-collect-env.c - collect_env reports: every fixture's values, the
 * noise around pasted reports, refusals, and the reference row made from
 * a report. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/caps.h"
#include "kernodeck/collect-env.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/inspect.h"
#include "kernodeck/sysinfo.h"
#include "testutil.h"

#define FX KD_SRCDIR "/tests/fixtures/collect_env/"

/* What a fixture must give; NULL means JSON null.  cudnn "a|b" is a list. */
struct want {
	const char *file, *torch, *cuda, *rocm;
	int avail;              /* 1 true, 0 false, -1 null */
	int ngpu;
	const char *gpu0, *driver, *os, *python, *cudnn;
};

static const struct want wants[] = {
	{ "real-01.txt", "1.7.0a0+9ddd3df", NULL, "3.7.20315-077bcfa0", 1, 1, "Device 66a1",
	  NULL, "Ubuntu 18.04.4 LTS (x86_64)", "3.6", NULL },
	{ "real-04.txt", "1.3.1", "10.1.243", NULL, 0, 8, "TITAN Xp", "410.48",
	  "Ubuntu 16.04.4 LTS", "3.6", NULL },
	{ "real-07.txt", "2.6.0+cu124", "12.4", NULL, 1, 8, "NVIDIA H100", "535.154.05",
	  "CentOS Stream 9 (x86_64)", "3.12.0", "8.9.2|9.7.1" },
	{ "real-09.txt", "2.1.1", NULL, NULL, 0, 2, "NVIDIA GeForce RTX 3090", "525.147.05",
	  "Ubuntu 22.04.3 LTS (x86_64)", "3.9.18", "8.8.0" },
	{ "real-10.txt", "2.10.0.dev20251008", NULL, NULL, 0, 0, NULL, NULL,
	  "macOS 13.7.4 (arm64)", "3.11.9", NULL },
	{ "real-13.txt", "1.5.0+cu101", "10.1", NULL, 1, 1, "Quadro P1000", "426.25", NULL,
	  "3.7", NULL },
	{ "real-16.txt", "1.10.2+cu113", "11.3", NULL, 0, 1, "NVIDIA GeForce RTX 3080 Laptop GPU",
	  "511.79", "Ubuntu 20.04.4 LTS (x86_64)", "3.9.7", NULL },
	{ "real-18.txt", "2.6.0+cpu", NULL, NULL, 0, 0, NULL, NULL, "Ubuntu 24.10 (x86_64)",
	  "3.12.9", NULL },
	{ "real-20.txt", "2.0.1+cu117", "11.7", NULL, 1, 1, "NVIDIA H100 PCIe", "535.104.12",
	  "Ubuntu 22.04.3 LTS (x86_64)", "3.10.12", NULL },
	{ "real-22.txt", "1.7.1", "10.2", NULL, 0, 0, NULL, NULL, "CentOS Linux 7 (Core) (x86_64)",
	  "3.8", NULL },
	{ "mig-a100.txt", "2.5.0.dev20240705+cu121", "12.1", NULL, 1, 1, "NVIDIA A100-SXM4-80GB",
	  "535.161.08", "Ubuntu 22.04.4 LTS (x86_64)", "3.10.12", "9.1.0" },
	{ "wsl-vllm.txt", "2.4.0+cu121", "12.1", NULL, 1, 1, "NVIDIA GeForce RTX 4070 Laptop GPU",
	  "551.88", "Ubuntu 22.04.2 LTS (x86_64)", "3.12.3", NULL },
	{ "topology-scalellm.txt", "2.4.0+cu124", "12.4", NULL, 1, 1, "NVIDIA A100 80GB PCIe",
	  "550.90.07", "Ubuntu 22.04.3 LTS (x86_64)", "3.10.12", NULL },
	{ "rocm63-gfx1010.txt", "2.7.0.dev20250123+rocm6.3", NULL, "6.3.42131-fa1d09cbd", 1, 1,
	  "AMD Radeon RX 5700 XT (gfx1010:xnack-)", NULL, "Gentoo Linux (x86_64)", "3.12.8", NULL },
	{ "rocm60-runpy.txt", "2.4.0.dev20240501+rocm6.0", NULL, "6.0.32830-d62f6a171", 1, 1,
	  "AMD Radeon RX 6800 XT (gfx1030)", NULL, "Ubuntu 22.04.4 LTS (x86_64)", "3.9.19", NULL },
	{ "vllm-aligned-rhel.txt", "2.5.1+cu124", "12.4", NULL, -1, 0, NULL, NULL,
	  "Red Hat Enterprise Linux release 8.3 (Ootpa) (x86_64)", "3.10.16", NULL },
	{ "vllm-aligned-3090.txt", "2.11.0+cu130", "13.0", NULL, 1, 3, "NVIDIA GeForce RTX 3090",
	  NULL, "Ubuntu 24.04.4 LTS (x86_64)", "3.12.12", NULL },
	{ "v100-separator.txt", "2.5.1+cu118", "11.8", NULL, 1, 3, "Tesla V100S-PCIE-32GB", NULL,
	  "Ubuntu 20.04.6 LTS (x86_64)", "3.10.15", NULL },
	{ "fence-inline-1.12.txt", "1.12.1", "11.6", NULL, 1, 1, "NVIDIA GeForce RTX 3090",
	  "530.30.02", "Ubuntu 20.04.5 LTS (x86_64)", "3.7.3", "8.3.2" },
};

static json_t *
parse_file(const char *name)
{
	char path[1024];
	json_t *o = NULL;
	struct kd_err err;

	snprintf(path, sizeof path, FX "%s", name);
	if (inspect_collect_env(path, &o, &err) != 0)
		fail_msg("%s: %s", name, err.msg);
	return o;
}

static void
check_want(const json_t *o, const struct want *w)
{
	const json_t *av = json_object_get(o, "cuda_available");
	const json_t *cud = json_object_get(o, "cudnn_version");

	tu_expect_str(o, "torch_version", w->torch, w->file);
	tu_expect_str(o, "cuda_build", w->cuda, w->file);
	tu_expect_str(o, "rocm_build", w->rocm, w->file);
	if (w->avail < 0)
		assert_true(json_is_null(av));
	else
		assert_int_equal(json_is_true(av), w->avail);
	assert_int_equal(json_integer_value(json_object_get(o, "gpu_count")), w->ngpu);
	assert_int_equal(json_array_size(json_object_get(o, "gpus")), (size_t)w->ngpu);
	if (w->gpu0 != NULL)
		assert_string_equal(json_string_value(json_array_get(json_object_get(o, "gpus"), 0)),
				    w->gpu0);
	tu_expect_str(o, "driver_version", w->driver, w->file);
	tu_expect_str(o, "os", w->os, w->file);
	tu_expect_str(o, "python_version", w->python, w->file);
	if (w->cudnn == NULL) {
		assert_true(json_is_null(cud));
	} else if (strchr(w->cudnn, '|') != NULL) {
		char a[32], b[32];
		assert_true(json_is_array(cud));
		assert_int_equal(json_array_size(cud), 2);
		snprintf(a, sizeof a, "%.*s", (int)strcspn(w->cudnn, "|"), w->cudnn);
		snprintf(b, sizeof b, "%s", strchr(w->cudnn, '|') + 1);
		assert_string_equal(json_string_value(json_array_get(cud, 0)), a);
		assert_string_equal(json_string_value(json_array_get(cud, 1)), b);
	} else {
		tu_expect_str(o, "cudnn_version", w->cudnn, w->file);
	}
	assert_true(json_is_object(json_object_get(o, "raw")));
}

/* Every fixture quoted as in an issue or an e-mail ("> ", then "> > ")
 * reads exactly like the clean text. */
static void
test_quoted_like_clean(void **state)
{
	static const char *const marks[] = { "> ", "> > ", ">> " };

	(void)state;
	for (size_t i = 0; i < sizeof wants / sizeof wants[0]; i++) {
		char path[1024], *buf = NULL, *q;
		size_t len = 0, qn = 0;
		struct kd_err err = { 0 };
		snprintf(path, sizeof path, FX "%s", wants[i].file);
		assert_int_equal(fsutil_read_file(path, KD_CAP_TEXT_FILE, &buf, &len, &err), 0);
		for (size_t m = 0; m < sizeof marks / sizeof *marks; m++) {
			size_t ml = strlen(marks[m]);
			q = malloc(len * (ml + 1) + ml + 1);
			assert_non_null(q);
			qn = 0;
			memcpy(q, marks[m], ml);
			qn = ml;
			for (size_t k = 0; k < len; k++) {
				q[qn++] = buf[k];
				if (buf[k] == '\n' && k + 1 < len) {
					memcpy(q + qn, marks[m], ml);
					qn += ml;
				}
			}
			json_t *o = NULL;
			if (collect_env_parse(q, qn, wants[i].file, &o, &err) != 0)
				fail_msg("%s quoted with \"%s\": %s", wants[i].file, marks[m],
					 err.msg);
			check_want(o, &wants[i]);
			json_decref(o);
			free(q);
		}
		free(buf);
	}
}

static void
test_every_fixture(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof wants / sizeof wants[0]; i++) {
		json_t *o = parse_file(wants[i].file);
		check_want(o, &wants[i]);
		json_decref(o);
	}
}

/* "Could not collect", "N/A", "None" stay distinct in raw. */
static void
test_raw_keeps_words(void **state)
{
	json_t *o9 = parse_file("real-09.txt"), *o10 = parse_file("real-10.txt");
	json_t *o1 = parse_file("real-01.txt"), *o4 = parse_file("real-04.txt");

	(void)state;
	assert_string_equal(json_string_value(json_object_get(json_object_get(o9, "raw"),
			    "CUDA used to build PyTorch")), "Could not collect");
	assert_string_equal(json_string_value(json_object_get(json_object_get(o10, "raw"),
			    "CUDA used to build PyTorch")), "None");
	assert_string_equal(json_string_value(json_object_get(json_object_get(o1, "raw"),
			    "CUDA used to build PyTorch")), "N/A");
	assert_string_equal(json_string_value(json_object_get(json_object_get(o10, "raw"),
			    "GPU models and configuration")), "No CUDA");
	/* old layout: no ROCm line at all */
	assert_null(json_object_get(json_object_get(o4, "raw"), "ROCM used to build PyTorch"));
	assert_string_equal(json_string_value(json_object_get(o4, "layout")), "old");
	json_decref(o9);
	json_decref(o10);
	json_decref(o1);
	json_decref(o4);
}

/* The same report indented, fenced, with a prompt and CRLF ends. */
static void
test_pasted_noise(void **state)
{
	char *buf = NULL, *noisy;
	size_t len = 0, o = 0;
	struct kd_err err;
	json_t *t = NULL;

	(void)state;
	assert_int_equal(fsutil_read_file(FX "real-20.txt", KD_CAP_TEXT_FILE, &buf, &len, &err), 0);
	noisy = malloc(len * 3 + 256);
	o += (size_t)snprintf(noisy, 256, "> user@host:~$ python -m torch.utils.collect_env\r\n"
			      "    ```text\r\n");
	for (char *p = buf; *p;) {
		char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		memcpy(noisy + o, "    ", 4);
		o += 4;
		memcpy(noisy + o, p, n);
		o += n;
		memcpy(noisy + o, "\r\n", 2);
		o += 2;
		p = nl ? nl + 1 : p + n;
	}
	o += (size_t)snprintf(noisy + o, 64, "    ```\r\n");
	assert_int_equal(collect_env_parse(noisy, o, "noisy", &t, &err), 0);
	check_want(t, &wants[8]);
	json_decref(t);
	free(noisy);
	free(buf);
}

static void
test_refusals(void **state)
{
	json_t *o = NULL;
	struct kd_err err;
	char path[512];

	(void)state;
	snprintf(path, sizeof path, FX "traceback-rocm.txt");
	assert_int_equal(inspect_collect_env(path, &o, &err), KD_EINPUT);
	assert_null(o);
	assert_non_null(strstr(err.msg, "PyTorch version"));
	assert_non_null(strstr(err.file, "traceback-rocm.txt"));
	assert_int_equal(collect_env_parse("PyTorch version: 2.1\0x", 22, "bin", &o, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "binary"));
	assert_int_equal(collect_env_parse("", 0, "empty", &o, &err), KD_EINPUT);
	assert_int_equal(collect_env_parse("OS: Linux\nname: x\n", 18, "yaml", &o, &err), KD_EINPUT);
	assert_int_equal(inspect_collect_env("/nonexistent/ce.txt", &o, &err), KD_EINPUT);
}

static void
test_null_words(void **state)
{
	(void)state;
	assert_true(collect_env_is_null_word("N/A"));
	assert_true(collect_env_is_null_word("None"));
	assert_true(collect_env_is_null_word("Could not collect"));
	assert_true(collect_env_is_null_word("No CUDA"));
	assert_false(collect_env_is_null_word("12.1"));
}

/* The reference's system row from a report. */
static void
test_reference_row(void **state)
{
	json_t *o9 = parse_file("real-09.txt"), *o1 = parse_file("real-01.txt");
	json_t *o10 = parse_file("real-10.txt"), *o7 = parse_file("real-07.txt");
	json_t *r9 = sysinfo_reference_row(o9), *r1 = sysinfo_reference_row(o1);
	json_t *r10 = sysinfo_reference_row(o10), *r7 = sysinfo_reference_row(o7);

	(void)state;
	/* a CPU build on a machine with NVIDIA GPUs */
	assert_string_equal(json_string_value(json_object_get(r9, "gpu_vendor")), "nvidia");
	assert_string_equal(json_string_value(json_object_get(r9, "backend")), "cpu");
	assert_true(json_is_null(json_object_get(r9, "cuda")));
	assert_string_equal(json_string_value(json_object_get(r9, "os")), "Ubuntu 22.04.3 LTS");
	assert_string_equal(json_string_value(json_object_get(r9, "arch")), "x86_64");
	assert_int_equal(json_integer_value(json_object_get(r9, "gpu_count")), 2);
	/* ROCm, a PCI id for a name */
	assert_string_equal(json_string_value(json_object_get(r1, "gpu_vendor")), "amd");
	assert_string_equal(json_string_value(json_object_get(r1, "backend")), "rocm");
	/* macOS arm64 */
	assert_string_equal(json_string_value(json_object_get(r10, "arch")), "aarch64");
	assert_string_equal(json_string_value(json_object_get(r10, "gpu_vendor")), "none");
	assert_string_equal(json_string_value(json_object_get(r7, "cuda")), "12.4");
	assert_string_equal(json_string_value(json_object_get(r7, "driver")), "535.154.05");
	assert_string_equal(json_string_value(json_object_get(r7, "backend")), "cuda");
	json_decref(r9); json_decref(r1); json_decref(r10); json_decref(r7);
	json_decref(o9); json_decref(o1); json_decref(o10); json_decref(o7);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_fixture),
		cmocka_unit_test(test_quoted_like_clean),
		cmocka_unit_test(test_raw_keeps_words),
		cmocka_unit_test(test_pasted_noise),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_null_words),
		cmocka_unit_test(test_reference_row),
	};
	return cmocka_run_group_tests_name("collect-env", tests, NULL, NULL);
}
