/*
 * fuzz-probe.c - the compute probe's output, one JSON object per line
 * mixed with whatever else the interpreter printed: probe_feed_text, then
 * the observation tree (probe_obs) and its check and describe rows.
 */
#include "config.h"

#include "fuzz.h"
#include "kernodeck/probe.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe_out p;
	struct probe_end e;
	struct run_result r;
	struct kd_rows rows;
	json_t *obs;

	probe_out_init(&p);
	probe_feed_text(&p, (const char *)data, size);

	memset(&r, 0, sizeof r);
	r.started = 1;
	r.exited = 1;
	r.exit_code = size > 0 ? data[0] & 3 : 0;
	memset(&e, 0, sizeof e);
	e.expected = size > 1 ? (data[1] & 1 ? "cuda" : "rocm") : NULL;
	e.interpreter = "/p/.venv-rebuild/bin/python";
	e.probe_path = "/p/probe.py";
	e.log = "logs/probe.log";
	e.run = &r;
	obs = probe_obs(&p, &e);
	fuzz_emit(obs);

	memset(&rows, 0, sizeof rows);
	probe_check_rows(obs, &rows);
	kd_rows_free(&rows);
	memset(&rows, 0, sizeof rows);
	probe_describe_rows(obs, &rows);
	kd_rows_free(&rows);

	json_decref(obs);
	probe_out_free(&p);
	return 0;
}
