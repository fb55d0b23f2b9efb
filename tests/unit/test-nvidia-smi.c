/* test-nvidia-smi.c - pasted nvidia-smi outputs: every fixture's values
 * (tests/fixtures/nvidia_smi/SOURCES.md says what a careful reader takes
 * from each), the paste wrappings, the failures, and refusals. */
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
#include "kernodeck/fsutil.h"
#include "kernodeck/inspect.h"
#include "kernodeck/nvidia-smi.h"
#include "testutil.h"

#define FX KD_SRCDIR "/tests/fixtures/nvidia_smi/"

/* What a fixture must give; NULL is JSON null, ngpu -1 a null count. */
struct want {
	const char *file, *smi, *driver, *cuda;
	int ngpu;
	const char *gpu0;      /* the first GPU's name as printed */
	int cut0;              /* was it cut with "..." */
	const char *bus0;      /* its bus id as printed */
	long mem0;             /* its total memory in MiB, -1 null */
	const char *mig0;      /* its MIG mode, NULL null */
	int nmig;              /* MIG devices */
	const char *failure;   /* the failure's kind, NULL none */
	const char *module;    /* the kernel module's version, NULL none */
};

static const struct want wants[] = {
	{ "real-01-470-processes.txt", "470.63.01", "470.63.01", "11.4", 1, "NVIDIA GeForce ...",
	  1, "00000000:01:00.0", 16116, "N/A", 0, NULL, NULL },
	{ "real-05-list-535.txt", "535.129.03", "535.129.03", "12.2", 2, "Quadro RTX 4000", 0,
	  "00000000:06:00.0", 8192, "N/A", 0, NULL, NULL },
	{ "real-07-proc-384.txt", NULL, "384.98", NULL, -1, NULL, 0, NULL, -1, NULL, 0, NULL,
	  "384.98" },
	{ "real-08-proc-open-565.txt", NULL, "565.57.01", NULL, -1, NULL, 0, NULL, -1, NULL, 0,
	  NULL, "565.57.01" },
	{ "real-11-mismatch.txt", NULL, "580.173.02", NULL, -1, NULL, 0, NULL, -1, NULL, 0,
	  "version-mismatch", "580.173.02" },
	{ "titanxp-450.txt", "450.57", "450.57", "11.0", 1, "TITAN Xp", 0, "00000000:17:00.0",
	  12196, "N/A", 0, NULL, NULL },
	{ "t4-smi450-driver418-err.txt", "450.66", "418.67", "10.1", 1, "Tesla T4", 0,
	  "00000000:00:04.0", 15079, NULL, 0, NULL, NULL },
	{ "a100x2-580.txt", "580.126.09", "580.126.09", "13.0", 2, "NVIDIA A100-SXM4-40GB", 0,
	  "00000000:10:1C.0", 40960, "Disabled", 0, NULL, NULL },
	{ "rtx4070-550.txt", "550.40.07", "550.40.07", "12.4", 1, "NVIDIA GeForce RTX 4070", 0,
	  "00000000:2D:00.0", 12282, "N/A", 0, NULL, NULL },
	{ "v100-cut-525.txt", "525.105.17", "525.105.17", "12.0", 1, "Tesla V100-SXM2...", 1,
	  "00000000:00:09.0", 32768, "N/A", 0, NULL, NULL },
	{ "windows-wddm-531-quoted.txt", "531.14", "531.14", "12.1", 1,
	  "NVIDIA GeForce GTX 1080 Ti", 0, "00000000:09:00.0", 11264, "N/A", 0, NULL, NULL },
	{ "k80-410-nomig.txt", "410.104", "410.104", "10.0", 1, "Tesla K80", 0,
	  "00000000:00:04.0", 11441, NULL, 0, NULL, NULL },
	{ "titanxp-384-nocuda.txt", "384.66", "384.66", NULL, 1, "TITAN Xp", 0,
	  "00000000:41:00.0", 12174, NULL, 0, NULL, NULL },
	{ "k3100m-367-4digit.txt", "367.48", "367.48", NULL, 1, "Quadro K3100M", 0,
	  "0000:01:00.0", 4034, NULL, 0, NULL, NULL },
	{ "a100-mig-535.txt", "535.104.05", "535.104.05", "12.2", 1, "NVIDIA A100-SXM4-80GB", 0,
	  "00000000:", -1, "Enabled", 0, NULL, NULL },
	{ "mig-devices-a100.txt", NULL, NULL, NULL, -1, NULL, 0, NULL, -1, NULL, 3, NULL, NULL },
	{ "no-driver.txt", NULL, NULL, NULL, -1, NULL, 0, NULL, -1, NULL, 0, "no-driver", NULL },
	{ "no-devices.txt", NULL, NULL, NULL, 0, NULL, 0, NULL, -1, NULL, 0, "no-devices", NULL },
	{ "query-418.txt", NULL, "418.67", "10.1", 1, "GeForce GTX 1080 Ti", 0,
	  "00000000:41:00.0", -1, NULL, 0, NULL, NULL },
};

static void
check_want(const json_t *o, const struct want *w)
{
	const json_t *gpus = json_object_get(o, "gpus"), *g0 = json_array_get(gpus, 0);
	const json_t *fail = json_object_get(o, "failure");
	const json_t *km = json_object_get(o, "kernel_module");

	tu_expect_str(o, "smi_version", w->smi, w->file);
	tu_expect_str(o, "driver_version", w->driver, w->file);
	tu_expect_str(o, "cuda_version", w->cuda, w->file);
	if (w->ngpu < 0)
		assert_true(json_is_null(json_object_get(o, "gpu_count")));
	else
		assert_int_equal(json_integer_value(json_object_get(o, "gpu_count")), w->ngpu);
	if (w->gpu0 == NULL) {
		assert_int_equal(json_array_size(gpus), 0);
	} else {
		tu_expect_str(g0, "name", w->gpu0, w->file);
		assert_int_equal(json_is_true(json_object_get(g0, "name_cut")), w->cut0);
		tu_expect_str(g0, "bus_id", w->bus0, w->file);
		if (w->mem0 < 0)
			assert_true(json_is_null(json_object_get(g0, "memory_total_mib")));
		else
			assert_int_equal(json_integer_value(json_object_get(g0, "memory_total_mib")),
					 w->mem0);
		tu_expect_str(g0, "mig_mode", w->mig0, w->file);
	}
	assert_int_equal(json_array_size(json_object_get(o, "mig_devices")), (size_t)w->nmig);
	if (w->failure == NULL)
		assert_true(json_is_null(fail));
	else
		tu_expect_str(fail, "kind", w->failure, w->file);
	if (w->module == NULL)
		assert_true(json_is_null(km));
	else
		tu_expect_str(km, "version", w->module, w->file);
}

static json_t *
parse_file(const char *name)
{
	char path[1024];
	json_t *o = NULL;
	struct kd_err err;

	snprintf(path, sizeof path, FX "%s", name);
	if (inspect_nvidia_smi(path, &o, &err) != 0)
		fail_msg("%s: %s", name, err.msg);
	return o;
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

/* The details a careful reader takes beyond the table above. */
static void
test_details(void **state)
{
	json_t *o;
	const json_t *g, *km;

	(void)state;
	/* -L gives the uuids of the table's GPUs, not GPUs of its own */
	o = parse_file("real-05-list-535.txt");
	g = json_array_get(json_object_get(o, "gpus"), 1);
	tu_expect_str(g, "uuid", "GPU-d6de6afc-bdfe-75c4-5273-0544439153fc", "05");
	tu_expect_str(g, "bus_id", "00000000:07:00.0", "05");
	assert_true(json_is_null(json_object_get(g, "memory_total_mib")));  /* cut there */
	json_decref(o);
	/* the open kernel module, its architecture and compiler */
	o = parse_file("real-08-proc-open-565.txt");
	km = json_object_get(o, "kernel_module");
	assert_true(json_is_true(json_object_get(km, "open")));
	tu_expect_str(km, "arch", "x86_64", "08");
	tu_expect_str(km, "gcc_version", "13.3.0", "08");
	json_decref(o);
	o = parse_file("real-07-proc-384.txt");
	km = json_object_get(o, "kernel_module");
	assert_true(json_is_false(json_object_get(km, "open")));
	tu_expect_str(km, "arch", "x86_64", "07");
	json_decref(o);
	/* the library version of a mismatch */
	o = parse_file("real-11-mismatch.txt");
	tu_expect_str(json_object_get(o, "failure"), "nvml_library_version", "580.178", "11");
	json_decref(o);
	/* ERR! is an error of that field, not a value */
	o = parse_file("t4-smi450-driver418-err.txt");
	g = json_array_get(json_object_get(o, "gpus"), 0);
	assert_string_equal(json_string_value(json_array_get(json_object_get(g, "errors"), 0)),
			    "mig_mode");
	json_decref(o);
	/* a 4-digit domain is read as printed and given its 8-digit form */
	o = parse_file("k3100m-367-4digit.txt");
	g = json_array_get(json_object_get(o, "gpus"), 0);
	tu_expect_str(g, "pci_bus_id", "00000000:01:00.0", "367");
	json_decref(o);
	/* a bus id cut by the person who pasted it has no 8-digit form */
	o = parse_file("a100-mig-535.txt");
	g = json_array_get(json_object_get(o, "gpus"), 0);
	assert_true(json_is_null(json_object_get(g, "pci_bus_id")));
	assert_int_equal(json_integer_value(json_object_get(g, "index")), 3);
	json_decref(o);
	/* the MIG section's instances are not GPUs */
	o = parse_file("mig-devices-a100.txt");
	g = json_array_get(json_object_get(o, "mig_devices"), 1);
	assert_int_equal(json_integer_value(json_object_get(g, "gpu")), 1);
	assert_int_equal(json_integer_value(json_object_get(g, "gi")), 5);
	assert_int_equal(json_integer_value(json_object_get(g, "mig_dev")), 1);
	json_decref(o);
	/* the processes of 01 are no GPUs either */
	o = parse_file("real-01-470-processes.txt");
	assert_int_equal(json_array_size(json_object_get(o, "gpus")), 1);
	json_decref(o);
}

static json_t *
parse_text(const char *text)
{
	json_t *o = NULL;
	struct kd_err err;

	if (nvidia_smi_parse(text, strlen(text), "paste.txt", &o, &err) != 0)
		fail_msg("%s", err.msg);
	return o;
}

#define ROW0 "|   0  Tesla T4            Off  | 00000000:00:04.0 Off |                    0 |\n"
#define ROW1 "| N/A   77C    P0    68W /  70W |    163MiB / 15079MiB |     95%      Default |\n"
#define HEAD "| NVIDIA-SMI 450.66       Driver Version: 418.67       CUDA Version: 10.1     |\n" \
	"|-------------------------------+----------------------+----------------------+\n" \
	"| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n" \
	"| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n" \
	"|===============================+======================+======================|\n"

/* The wrappings of a paste: a <details> block, CRLF line ends, an e-mail
 * client that cut a long line in two, a second table (only the first is
 * read), -L MIG lines. */
static void
test_wrappings(void **state)
{
	json_t *o;
	const json_t *g;

	(void)state;
	o = parse_text("<details><summary>nvidia-smi</summary>\n\n```\n" HEAD ROW0 ROW1
		       "```\n</details>\n");
	assert_int_equal(json_integer_value(json_object_get(o, "gpu_count")), 1);
	json_decref(o);
	o = parse_text("| NVIDIA-SMI 450.66       Driver Version: 418.67       CUDA Version: 10.1     |\r\n"
		       "|===============================+======================+======================|\r\n"
		       ROW0);
	g = json_array_get(json_object_get(o, "gpus"), 0);
	tu_expect_str(g, "name", "Tesla T4", "crlf");
	tu_expect_str(o, "driver_version", "418.67", "crlf");
	json_decref(o);
	o = parse_text(HEAD ROW0 "| N/A   77C    P0    68W /  70W |    163MiB / 15079MiB |     95%      Defa\n"
		       "ult |\n");
	g = json_array_get(json_object_get(o, "gpus"), 0);
	assert_int_equal(json_integer_value(json_object_get(g, "memory_total_mib")), 15079);
	json_decref(o);
	o = parse_text(HEAD ROW0 ROW1 "\n$ nvidia-smi\n"
		       "| NVIDIA-SMI 535.54       Driver Version: 535.54       CUDA Version: 12.2     |\n");
	tu_expect_str(o, "driver_version", "418.67", "two tables");
	json_decref(o);
	o = parse_text("GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-1)\n"
		       "  MIG 3g.20gb     Device  0: (UUID: MIG-a)\n"
		       "  MIG 3g.20gb     Device  1: (UUID: MIG-b)\n"
		       "GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-2)\n");
	assert_int_equal(json_integer_value(json_object_get(o, "gpu_count")), 2);
	assert_int_equal(json_array_size(json_object_get(o, "mig_devices")), 2);
	json_decref(o);
	/* a curly apostrophe, as some pastes have it */
	o = parse_text("NVIDIA-SMI has failed because it couldn\xe2\x80\x98t communicate with the "
		       "NVIDIA driver.\n");
	tu_expect_str(json_object_get(o, "failure"), "kind", "no-driver", "curly");
	assert_true(json_is_null(json_object_get(o, "gpu_count")));
	json_decref(o);
}

static void
test_refusals(void **state)
{
	json_t *o = NULL;
	struct kd_err err;
	static const char bin[] = "| NVIDIA-SMI 1\0x";

	(void)state;
	assert_int_equal(nvidia_smi_parse("hello\nworld\n", 12, "a.txt", &o, &err), KD_EINPUT);
	assert_null(o);
	assert_non_null(strstr(err.msg, "not an nvidia-smi output"));
	assert_int_equal(nvidia_smi_parse(bin, sizeof bin - 1, "b.txt", &o, &err), KD_EINPUT);
	assert_int_equal(nvidia_smi_parse("GPU 0: \xff\xfe (UUID: x)\n", 19, "c.txt", &o, &err),
			 KD_EINPUT);
	assert_int_equal(nvidia_smi_parse("", 0, "d.txt", &o, &err), KD_EINPUT);
	/* a fan at 30% is not a GPU of index 30 */
	o = parse_text(HEAD ROW0 "| 30%   25C    P8    10W / 125W |      1MiB /  8192MiB |      0%      Default |\n");
	assert_int_equal(json_integer_value(json_object_get(o, "gpu_count")), 1);
	json_decref(o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_fixture),
		cmocka_unit_test(test_details),
		cmocka_unit_test(test_wrappings),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
