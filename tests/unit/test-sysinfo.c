/* test-sysinfo.c - the system chain's readers: /proc/driver/nvidia/version
 * (proprietary and open module), nvidia-smi outputs and failures, gfx
 * targets, PCI names and GPU name matching, tool versions, interpreters,
 * the environment allow-list, the list of variables that cross a dossier
 * (runenv.h), and one machine read from a fixture tree. */
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
#include "kernodeck/runenv.h"
#include "kernodeck/sys-gpu.h"
#include "kernodeck/sys-python.h"
#include "kernodeck/sys-tools.h"
#include "kernodeck/sysinfo.h"

#define FX KD_SRCDIR "/tests/fixtures/"

static char *
slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	struct kd_err err;

	if (fsutil_read_file(path, KD_CAP_TEXT_FILE, &buf, &len, &err) != 0)
		fail_msg("%s: %s", path, err.msg);
	return buf;
}

/* The real /proc/driver/nvidia/version lines (shared fixtures 07, 08, 11). */
static void
test_nvrm(void **state)
{
	struct sysgpu_nvrm n;
	char *t;

	(void)state;
	t = slurp(FX "sysroot/nvidia-open/proc/driver/nvidia/version");   /* real 08.txt */
	assert_int_equal(sysgpu_parse_nvrm(t, &n), 0);
	assert_string_equal(n.version, "565.57.01");
	assert_string_equal(n.flavor, "open");
	assert_string_equal(n.arch, "x86_64");
	assert_string_equal(n.gcc, "13.3.0");
	free(t);
	t = slurp(FX "sysroot/nvidia-mismatch/proc/driver/nvidia/version"); /* real 11.txt */
	assert_int_equal(sysgpu_parse_nvrm(t, &n), 0);
	assert_string_equal(n.version, "580.173.02");
	assert_string_equal(n.flavor, "proprietary");
	free(t);
	/* real 07.txt, with its prompt line and the trailing space */
	assert_int_equal(sysgpu_parse_nvrm("$ cat /proc/driver/nvidia/version\n"
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  384.98  Thu Oct 26 15:16:01 PDT 2017\n"
		"GCC version:  gcc version 7.2.0 (Ubuntu 7.2.0-8ubuntu3) \n", &n), 0);
	assert_string_equal(n.version, "384.98");
	assert_string_equal(n.flavor, "proprietary");
	assert_string_equal(n.gcc, "7.2.0");
	assert_int_not_equal(sysgpu_parse_nvrm("no such line\n", &n), 0);
}

static void
test_smi_table_and_failures(void **state)
{
	char c[32], *t;

	(void)state;
	t = slurp(FX "bin-nvidia-ok/table.txt");          /* real 05.txt */
	assert_int_equal(sysgpu_parse_smi_cuda(t, c, sizeof c), 0);
	assert_string_equal(c, "12.2");
	free(t);
	t = slurp(FX "bin-nvidia-oldfield/table.txt");    /* real 01.txt */
	assert_int_equal(sysgpu_parse_smi_cuda(t, c, sizeof c), 0);
	assert_string_equal(c, "11.4");
	free(t);
	assert_int_not_equal(sysgpu_parse_smi_cuda("Failed to initialize NVML: Driver/library "
						   "version mismatch\n", c, sizeof c), 0);
	assert_string_equal(sysgpu_smi_failure("NVIDIA-SMI has failed because it couldn't "
		"communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is "
		"installed and running.\n"), "no-driver");
	assert_string_equal(sysgpu_smi_failure("Failed to initialize NVML: Driver/library version "
		"mismatch\nNVML library version: 580.178\n"), "mismatch");
	assert_string_equal(sysgpu_smi_failure("Field \"compute_cap\" is not a valid field to "
					       "query.\n"), "invalid-field");
	assert_string_equal(sysgpu_smi_failure("No devices were found\n"), "no-devices");
	assert_string_equal(sysgpu_smi_failure("Segmentation fault\n"), "failed");
}

static void
test_smi_csv(void **state)
{
	char *t = slurp(FX "bin-nvidia-ok/query.csv");
	json_t *l = sysgpu_parse_smi_csv(t, 1), *g;

	(void)state;
	assert_int_equal(json_array_size(l), 2);
	g = json_array_get(l, 1);
	assert_int_equal(json_integer_value(json_object_get(g, "index")), 1);
	assert_string_equal(json_string_value(json_object_get(g, "name")), "Quadro RTX 4000");
	assert_string_equal(json_string_value(json_object_get(g, "pci")), "0000:07:00.0");
	assert_string_equal(json_string_value(json_object_get(g, "compute_cap")), "7.5");
	assert_int_equal(json_integer_value(json_object_get(g, "memory_mib")), 8192);
	json_decref(l);
	free(t);
	/* without compute_cap; [N/A] values; lines that are no GPU */
	l = sysgpu_parse_smi_csv("WARNING: something\n"
				 "0, Tesla K80, [N/A], 00000000:05:00.0, 418.87.00, 11441\n"
				 "1, Tesla K80, GPU-x, 00000000:06:00.0, 418.87.00\n", 0);
	assert_int_equal(json_array_size(l), 1);
	assert_true(json_is_null(json_object_get(json_array_get(l, 0), "uuid")));
	assert_null(json_object_get(json_array_get(l, 0), "compute_cap"));
	json_decref(l);
}

static void
test_gfx(void **state)
{
	json_t *l;

	(void)state;
	l = sysgpu_parse_gfx("gfx000\ngfx90a\ngfx90a\n");
	assert_int_equal(json_array_size(l), 1);
	assert_string_equal(json_string_value(json_array_get(l, 0)), "gfx90a");
	json_decref(l);
	l = sysgpu_parse_gfx("  Name:                    AMD EPYC 7713\n"
			     "  Name:                    gfx1030\n"
			     "  Marketing Name:          AMD Radeon RX 6800 XT\n"
			     "      Name:                    amdgcn-amd-amdhsa--gfx1030\n");
	assert_int_equal(json_array_size(l), 1);
	assert_string_equal(json_string_value(json_array_get(l, 0)), "gfx1030");
	json_decref(l);
}

static void
test_pci_names(void **state)
{
	char out[256], mk[256], bus[64];

	(void)state;
	assert_int_equal(sysgpu_pci_name(FX "pci.ids", "10de", "2330", out, sizeof out), 0);
	assert_string_equal(out, "GH100[H100 SXM5 80GB]");
	sysgpu_marketing_name(out, mk, sizeof mk);
	assert_string_equal(mk, "H100 SXM5 80GB");
	assert_int_equal(sysgpu_pci_name(FX "pci.ids", "0x1002", "0x740f", out, sizeof out), 0);
	assert_string_equal(out, "Aldebaran/MI200 [Instinct MI210]");
	assert_int_not_equal(sysgpu_pci_name(FX "pci.ids", "10de", "ffff", out, sizeof out), 0);
	assert_int_not_equal(sysgpu_pci_name("/nonexistent/pci.ids", "10de", "2330", out,
					     sizeof out), 0);
	assert_string_equal(sysgpu_vendor_of_id("0x10de"), "nvidia");
	assert_string_equal(sysgpu_vendor_of_id("1002"), "amd");
	assert_null(sysgpu_vendor_of_id("1a03"));
	assert_string_equal(sysgpu_vendor_of_name("Tesla V100S-PCIE-32GB"), "nvidia");
	assert_string_equal(sysgpu_vendor_of_name("AMD Radeon RX 6800 XT (gfx1030)"), "amd");
	assert_string_equal(sysgpu_vendor_of_name("Device 66a1"), "unknown");
	sysgpu_norm_bus_id("00000000:06:00.0", bus, sizeof bus);
	assert_string_equal(bus, "0000:06:00.0");
	sysgpu_norm_bus_id("0000:C1:00.0", bus, sizeof bus);
	assert_string_equal(bus, "0000:c1:00.0");
	sysgpu_norm_bus_id("01:00.0", bus, sizeof bus);
	assert_string_equal(bus, "0000:01:00.0");
}

static void
test_name_match(void **state)
{
	char n[128];

	(void)state;
	sysgpu_norm_name("NVIDIA GeForce RTX 3090", n, sizeof n);
	assert_string_equal(n, "geforce rtx 3090");
	assert_int_equal(sysgpu_name_match("NVIDIA GeForce RTX 3090", "GeForce RTX 3090"), 2);
	assert_int_equal(sysgpu_name_match("NVIDIA A100-SXM4-80GB", "nvidia a100 sxm4 80gb"), 2);
	assert_int_equal(sysgpu_name_match("NVIDIA H100", "NVIDIA H100 80GB HBM3"), 1);
	assert_int_equal(sysgpu_name_match("Quadro RTX 4000", "Tesla T4"), 0);
	assert_int_equal(sysgpu_name_match("NVIDIA H100", "NVIDIA H1000"), 0);
	assert_int_equal(sysgpu_name_match(NULL, "x"), 0);
}

static void
test_tool_versions(void **state)
{
	char v[64], r[32];

	(void)state;
	/* nvcc --version of CUDA 13.0 (this build machine) */
	assert_int_equal(systools_parse_version("nvcc", "nvcc: NVIDIA (R) Cuda compiler driver\n"
		"Copyright (c) 2005-2025 NVIDIA Corporation\nBuilt on Wed_Aug_20_01:58:59_PM_PDT_2025\n"
		"Cuda compilation tools, release 13.0, V13.0.88\n"
		"Build cuda_13.0.r13.0/compiler.36424714_0\n", v, sizeof v, r, sizeof r), 0);
	assert_string_equal(v, "13.0.88");
	assert_string_equal(r, "13.0");
	assert_int_equal(systools_parse_version("cmake", "cmake version 3.25.1\n\nCMake suite "
		"maintained and supported by Kitware (kitware.com/cmake).\n", v, sizeof v, NULL, 0), 0);
	assert_string_equal(v, "3.25.1");
	assert_int_equal(systools_parse_version("gcc", "12.2.0\n", v, sizeof v, NULL, 0), 0);
	assert_string_equal(v, "12.2.0");
	assert_int_equal(systools_parse_version("gcc", "13\n", v, sizeof v, NULL, 0), 0);
	assert_string_equal(v, "13");
	assert_int_equal(systools_parse_version("hipcc", "HIP version: 6.2.41133-dd7f95766\n"
		"AMD clang version 18.0.0git\n", v, sizeof v, NULL, 0), 0);
	assert_string_equal(v, "6.2.41133-dd7f95766");
	assert_int_not_equal(systools_parse_version("nvcc", "bash: nvcc: not found\n", v,
						    sizeof v, r, sizeof r), 0);
}

static void
test_python_choice(void **state)
{
	char *path = NULL, *reason = NULL, mm[16], ver[32], dir[] = "/tmp/kd-py-XXXXXX", link[128];
	struct kd_err err;
	json_t *q, *ref;
	const char *oldpath = getenv("PATH");
	char *saved = strdup(oldpath ? oldpath : "/usr/bin:/bin");

	(void)state;
	assert_int_equal(syspython_major_minor("3.11.2", mm, sizeof mm), 0);
	assert_string_equal(mm, "3.11");
	assert_int_equal(syspython_major_minor("Python 3.9", mm, sizeof mm), 0);
	assert_string_equal(mm, "3.9");
	assert_int_not_equal(syspython_major_minor("three", mm, sizeof mm), 0);
	assert_int_equal(sysinfo_choose_python(NULL, "/nonexistent/python3", &path, &reason, &err),
			 KD_EINPUT);
	if (access("/usr/bin/python3", X_OK) != 0) {
		free(saved);
		skip();
	}
	assert_int_equal(sysinfo_choose_python(NULL, "/usr/bin/python3", &path, &reason, &err), 0);
	assert_string_equal(reason, "given with --python");
	free(path); free(reason);
	q = syspython_query("/usr/bin/python3");
	assert_string_equal(json_string_value(json_object_get(q, "status")), "ok");
	assert_string_equal(json_string_value(json_object_get(q, "implementation")), "CPython");
	assert_true(json_is_boolean(json_object_get(q, "venv")));
	snprintf(ver, sizeof ver, "%s", json_string_value(json_object_get(q, "version")));
	json_decref(q);
	/* the reference's path and version */
	ref = json_pack("{s:{s:s, s:s}}", "python", "interpreter", "/usr/bin/python3", "version", ver);
	assert_int_equal(sysinfo_choose_python(ref, NULL, &path, &reason, &err), 0);
	assert_string_equal(path, "/usr/bin/python3");
	assert_non_null(strstr(reason, "same path"));
	free(path); free(reason); json_decref(ref);
	/* the reference's path is missing here: the first on PATH of that version */
	assert_non_null(mkdtemp(dir));
	syspython_major_minor(ver, mm, sizeof mm);
	snprintf(link, sizeof link, "%s/python%s", dir, mm);
	assert_int_equal(symlink("/usr/bin/python3", link), 0);
	setenv("PATH", dir, 1);
	ref = json_pack("{s:{s:s, s:s}}", "python", "interpreter", "/opt/gone/bin/python3",
			"version", ver);
	assert_int_equal(sysinfo_choose_python(ref, NULL, &path, &reason, &err), 0);
	assert_string_equal(path, link);
	assert_non_null(strstr(reason, "first Python"));
	free(path); free(reason); json_decref(ref);
	/* a reference naming a program that is not named like a Python: never
	 * run (a script that would leave a mark), the first Python on PATH */
	{
		char prog[160], mark[160];
		FILE *f;
		snprintf(prog, sizeof prog, "%s/tool", dir);
		snprintf(mark, sizeof mark, "%s/ran", dir);
		f = fopen(prog, "w");
		assert_non_null(f);
		fprintf(f, "#!/bin/sh\ntouch '%s'\n", mark);
		fclose(f);
		assert_int_equal(chmod(prog, 0755), 0);
		ref = json_pack("{s:{s:s, s:s}}", "python", "interpreter", prog, "version", ver);
		assert_int_equal(sysinfo_choose_python(ref, NULL, &path, &reason, &err), 0);
		assert_string_equal(path, link);
		assert_non_null(strstr(reason, "not named like a Python interpreter (not run)"));
		assert_int_not_equal(access(mark, F_OK), 0);
		free(path); free(reason); json_decref(ref);
		unlink(prog);
	}
	/* a version nowhere: the default, said so */
	ref = json_pack("{s:{s:s}}", "python", "version", "3.99.1");
	assert_int_equal(sysinfo_choose_python(ref, NULL, &path, &reason, &err), 0);
	assert_non_null(strstr(reason, "no Python 3.99"));
	free(path); free(reason); json_decref(ref);
	/* available: the python3.X names of PATH */
	q = syspython_available();
	assert_true(json_array_size(q) >= 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(q, 0), "path")), link);
	json_decref(q);
	setenv("PATH", saved, 1);
	unlink(link);
	rmdir(dir);
	free(saved);
}

static void
test_env_allow_list(void **state)
{
	json_t *e;
	char *dump;

	(void)state;
	setenv("PIP_INDEX_URL", "https://carol:pa55word@pypi.example.org/simple", 1);
	setenv("NCCL_DEBUG", "INFO", 1);
	setenv("GITHUB_TOKEN", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", 1);
	setenv("NCCL_SECRET_KEY", "x", 1);
	setenv("EDITOR", "vi", 1);
	e = sysinfo_env();
	dump = json_dumps(e, 0);
	assert_null(strstr(dump, "pa55word"));
	assert_non_null(strstr(json_string_value(json_object_get(e, "PIP_INDEX_URL")),
			       "pypi.example.org"));
	assert_string_equal(json_string_value(json_object_get(e, "NCCL_DEBUG")), "INFO");
	assert_null(json_object_get(e, "GITHUB_TOKEN"));
	assert_null(json_object_get(e, "NCCL_SECRET_KEY"));
	assert_null(json_object_get(e, "EDITOR"));
	free(dump);
	json_decref(e);
	unsetenv("PIP_INDEX_URL");
	unsetenv("GITHUB_TOKEN");
	unsetenv("NCCL_SECRET_KEY");
}

/* One whole machine from a fixture tree, no programs on PATH. */
static void
test_observe_fixture_tree(void **state)
{
	json_t *o = NULL, *row;
	struct kd_err err;
	const char *oldpath = getenv("PATH");
	char *saved = strdup(oldpath ? oldpath : "/usr/bin:/bin");

	(void)state;
	setenv("KD_SYSROOT", FX "sysroot/container-no-driver", 1);
	setenv("KD_PCI_IDS", FX "pci.ids", 1);
	setenv("PATH", "/nonexistent", 1);
	assert_int_equal(sysinfo_observe(&o, NULL, &err), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(o, "os"), "pretty")),
			    "Ubuntu 22.04.3 LTS");
	assert_string_equal(json_string_value(json_object_get(json_object_get(o, "container"),
							      "kind")), "docker");
	assert_string_equal(json_string_value(json_object_get(o, "gpu_vendor")), "nvidia");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(o,
				"gpus"), 0), "name")), "H100 SXM5 80GB");
	assert_string_equal(json_string_value(json_object_get(json_object_get(o, "driver"),
							      "version")), "550.54.15");
	assert_string_equal(json_string_value(json_object_get(o, "backend")), "cpu");
	assert_non_null(strstr(json_string_value(json_object_get(o, "backend_reason")),
			       "/dev/nvidia"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(o,
				"tools"), "gcc"), "status")), "missing");
	row = sysinfo_reference_row(o);
	assert_string_equal(json_string_value(json_object_get(row, "gpu_vendor")), "nvidia");
	assert_string_equal(json_string_value(json_object_get(row, "gpu_model")), "H100 SXM5 80GB");
	assert_int_equal(json_integer_value(json_object_get(row, "gpu_count")), 1);
	assert_string_equal(json_string_value(json_object_get(row, "driver")), "550.54.15");
	assert_string_equal(json_string_value(json_object_get(row, "os")), "Ubuntu 22.04.3 LTS");
	json_decref(row);
	json_decref(o);
	/* a missing root is no machine at all, not a crash */
	setenv("KD_SYSROOT", "/nonexistent/root", 1);
	assert_int_equal(sysinfo_observe(&o, NULL, &err), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(o, "os"), "status")),
			    "unknown");
	assert_int_equal(json_array_size(json_object_get(o, "gpus")), 0);
	json_decref(o);
	unsetenv("KD_SYSROOT");
	setenv("PATH", saved, 1);
	free(saved);
}

/* The list that crosses a dossier: no variable that changes how a program
 * is found or started, and a dossier naming one is refused with it named. */
static void
test_runenv(void **state)
{
	static const char *const starters[] = { "LD_", "GIT_", "BASH", "PYTHONPATH", "PYTHONHOME",
						"PYTHONSTARTUP", "PYTHONUSERBASE", "PIP_", "PATH" };
	size_t n;
	const char *const *names = runenv_names(&n);
	json_t *env, *kept;
	struct kd_err err;

	(void)state;
	assert_true(n >= 20);
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < sizeof starters / sizeof starters[0]; k++)
			if (strncmp(names[i], starters[k], strlen(starters[k])) == 0)
				fail_msg("%s is on the list", names[i]);
		assert_true(strcmp(names[i], "ENV") != 0 && strcmp(names[i], "PS4") != 0 &&
			    strcmp(names[i], "IFS") != 0);
		assert_true(strspn(names[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
			    strlen(names[i]));
	}
	assert_true(runenv_allowed("OMP_NUM_THREADS"));
	assert_true(runenv_allowed("PYTHONHASHSEED"));
	assert_false(runenv_allowed("OMP_TOOL_LIBRARIES"));   /* loads a library */
	assert_false(runenv_allowed("NCCL_NET_PLUGIN"));
	assert_false(runenv_allowed("LD_PRELOAD"));
	assert_false(runenv_allowed("CUDA_HOME"));
	/* the writer's filter */
	env = json_pack("{s:s, s:s, s:s, s:s}", "OMP_NUM_THREADS", "4", "PATH", "/usr/bin",
			"PIP_INDEX_URL", "http://x", "CUDA_VISIBLE_DEVICES", "0\xe2\x80\x8b");
	kept = runenv_filter(env);
	assert_int_equal(json_object_size(kept), 1);
	assert_string_equal(json_string_value(json_object_get(kept, "OMP_NUM_THREADS")), "4");
	assert_int_equal(runenv_check(kept, "dossier.yaml", &err), 0);
	/* the loader's check names every refused variable */
	assert_int_equal(runenv_check(env, "dossier.yaml", &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "PATH, PIP_INDEX_URL (change how a program is found or "
				  "started: the shell's, pip's"));
	assert_non_null(strstr(err.msg, "the value of CUDA_VISIBLE_DEVICES"));
	assert_string_equal(err.file, "dossier.yaml");
	json_decref(kept);
	json_decref(env);
	env = json_pack("{s:s}", "KD_OTHER", "1");
	assert_int_equal(runenv_check(env, "d", &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "KD_OTHER (not variables that change a run)"));
	json_decref(env);
	env = json_pack("[s]", "x");
	assert_int_equal(runenv_check(env, "d", &err), KD_EINPUT);
	json_decref(env);
	assert_string_equal(runenv_bad_value("a\tb") ? "bad" : "ok", "bad");
	assert_null(runenv_bad_value(":4096:8"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvrm),
		cmocka_unit_test(test_smi_table_and_failures),
		cmocka_unit_test(test_smi_csv),
		cmocka_unit_test(test_gfx),
		cmocka_unit_test(test_pci_names),
		cmocka_unit_test(test_name_match),
		cmocka_unit_test(test_tool_versions),
		cmocka_unit_test(test_python_choice),
		cmocka_unit_test(test_env_allow_list),
		cmocka_unit_test(test_runenv),
		cmocka_unit_test(test_observe_fixture_tree),
	};
	return cmocka_run_group_tests_name("sysinfo", tests, NULL, NULL);
}
