/*
 * fuzz-baseenv.c - what a base environment's interpreter reports to the
 * rebuild (baseenv_parse), and what is made of it: the .pth text, the
 * inventory, the origin of each package.
 */
#include "config.h"

#include "fuzz.h"
#include "kernodeck/baseenv.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct baseenv be = { .path = "/base", .python = "/base/bin/python3" };
	struct baseenv_query q;
	struct kd_err err;
	char *s = fuzz_dup(data, size), *t;
	size_t len;

	if (s != NULL && baseenv_parse(s, size, &q, &err) == 0) {
		json_t *o = baseenv_origins(&q, &q), *l = baseenv_package_list(&q);
		json_t *d = baseenv_diff(l, json_object_get(o, "base"));
		free(baseenv_pth_text(&be, &q, &len));
		t = baseenv_freeze_text(&q, &len);
		free(t);
		fuzz_emit(o);
		json_decref(d);
		json_decref(l);
		json_decref(o);
	}
	baseenv_query_free(&q);
	free(s);
	return 0;
}
