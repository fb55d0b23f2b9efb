/* test-pytrace.c - following a Python program's output: announced steps,
 * the first traceback's error and innermost frame, and the step a failure
 * is placed in. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kernodeck/pytrace.h"

static void
feed_all(struct pytrace *t, const char *text)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		pytrace_feed(t, p, len);
		p += len + (nl != NULL);
	}
}

/* Python 3.11 with carets, then a chained exception: the first error wins. */
static void
test_first_error_and_frame(void **state)
{
	const char *out =
		"KD_STEP: data loading\n"
		"loading 4 items\n"
		"KD_STEP: compute\n"
		"Traceback (most recent call last):\n"
		"  File \"/p/embed.py\", line 30, in <module>\n"
		"    main()\n"
		"  File \"/p/embed.py\", line 12, in main\n"
		"    y = scale(x)\n"
		"        ^^^^^^^^\n"
		"  File \"/p/embed.py\", line 5, in scale\n"
		"    return x / 0\n"
		"           ~~^~~\n"
		"ZeroDivisionError: division by zero\n"
		"\n"
		"During handling of the above exception, another exception occurred:\n"
		"\n"
		"Traceback (most recent call last):\n"
		"  File \"/p/embed.py\", line 32, in <module>\n"
		"    raise SystemExit(1)\n"
		"SystemExit: 1\n";
	struct pytrace t;
	char buf[128];

	(void)state;
	pytrace_init(&t);
	feed_all(&t, out);
	assert_string_equal(t.step, "compute");
	assert_string_equal(t.error, "ZeroDivisionError: division by zero");
	assert_string_equal(pytrace_frame(&t), "File \"/p/embed.py\", line 5, in scale");
	assert_string_equal(pytrace_code(&t), "return x / 0");
	assert_int_equal(t.nframes, 3);
	assert_string_equal(pytrace_failed_step(&t, buf, sizeof buf), "compute");
	pytrace_free(&t);
}

static const char *
step_of(const char *out)
{
	static char buf[128];
	static char keep[128];
	struct pytrace t;
	const char *s;

	pytrace_init(&t);
	feed_all(&t, out);
	s = pytrace_failed_step(&t, buf, sizeof buf);
	snprintf(keep, sizeof keep, "%s", s ? s : "(none)");
	pytrace_free(&t);
	return keep;
}

static void
test_steps_from_frames(void **state)
{
	(void)state;
	assert_string_equal(step_of(
		"KD_STEP: compute\n"
		"Traceback (most recent call last):\n"
		"  File \"/p/m.py\", line 9, in <module>\n"
		"    out = model(x)\n"
		"  File \"/usr/lib/python3/dist-packages/torch/nn/modules/module.py\", line 1194, in _call_impl\n"
		"    return forward_call(*input, **kwargs)\n"
		"  File \"/usr/lib/python3/dist-packages/torch/nn/modules/linear.py\", line 114, in forward\n"
		"    return F.linear(input, self.weight, self.bias)\n"
		"RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x3 and 5x2)\n"),
		"operator (torch.nn linear)");
	assert_string_equal(step_of(
		"Traceback (most recent call last):\n"
		"  File \"/p/m.py\", line 3, in <module>\n"
		"    for b in loader:\n"
		"  File \"/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py\", line 628, in __next__\n"
		"    data = self._next_data()\n"
		"  File \"/p/m.py\", line 20, in __getitem__\n"
		"    return self.items[i]\n"
		"IndexError: list index out of range\n"),
		"data loading");
	assert_string_equal(step_of(
		"Traceback (most recent call last):\n"
		"  File \"/p/m.py\", line 3, in <module>\n"
		"    np.save(path, emb)\n"
		"  File \"/usr/lib/python3/dist-packages/numpy/lib/npyio.py\", line 518, in save\n"
		"    file_ctx = open(file, \"wb\")\n"
		"PermissionError: [Errno 13] Permission denied: 'out/e.npy'\n"),
		"writing");
	assert_string_equal(step_of(
		"KD_STEP: compute\n"
		"Traceback (most recent call last):\n"
		"  File \"/p/m.py\", line 7, in <module>\n"
		"    x = batch.to(device)\n"
		"RuntimeError: CUDA error: out of range\n"),
		"transfer");
	assert_string_equal(step_of(
		"KD_STEP: compute\n"
		"Traceback (most recent call last):\n"
		"  File \"/p/m.py\", line 7, in <module>\n"
		"    y = model(x)\n"
		"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"),
		"allocation");
	assert_string_equal(step_of(
		"Traceback (most recent call last):\n"
		"  File \"/p/m.py\", line 7, in <module>\n"
		"    y = f(x)\n"
		"RuntimeError: CUDA error: device-side assert triggered\n"),
		"device");
	assert_string_equal(step_of("no traceback at all\n"), "(none)");
}

static void
test_bounded_frames(void **state)
{
	struct pytrace t;

	(void)state;
	pytrace_init(&t);
	pytrace_feed(&t, "Traceback (most recent call last):", 34);
	for (int i = 0; i < PYTRACE_FRAMES + 40; i++) {
		char line[64];
		int n = snprintf(line, sizeof line, "  File \"/p/r.py\", line %d, in f", i);
		pytrace_feed(&t, line, (size_t)n);
		pytrace_feed(&t, "    return f(n - 1)", 19);
	}
	pytrace_feed(&t, "RecursionError: maximum recursion depth exceeded", 48);
	assert_int_equal(t.nframes, PYTRACE_FRAMES);
	assert_non_null(strstr(pytrace_frame(&t), "line 103, in f"));
	assert_string_equal(t.error, "RecursionError: maximum recursion depth exceeded");
	pytrace_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_error_and_frame),
		cmocka_unit_test(test_steps_from_frames),
		cmocka_unit_test(test_bounded_frames),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
