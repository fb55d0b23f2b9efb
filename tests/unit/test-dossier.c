/*
 * test-dossier.c - the texts of a dossier: shell quoting, procedure.sh
 * (credentials only as required variables, arguments quoted, valid bash),
 * README cells, the variant summary.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernodeck/ctx.h"
#include "kernodeck/dossier-creds.h"
#include "kernodeck/dossier-text.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/redact.h"
#include "kernodeck/run.h"
#include "kernodeck/stage.h"
#include "kernodeck/yamlio.h"

static const char ref_yaml[] =
	"schema: 1\n"
	"code:\n"
	"  commit: 0123456789abcdef0123456789abcdef01234567\n"
	"  remote: https://git.example.org/team/proj.git\n"
	"  entry_point: [python, run.py, --name, \"it's a test\", \"$HOME\", \"a|b\"]\n"
	"data:\n"
	"  - name: encoder weights\n"
	"    path: weights/enc.safetensors\n"
	"    sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n"
	"    url: https://huggingface.co/acme/enc/resolve/v3/enc.safetensors\n"
	"    access: env:HF_TOKEN\n"
	"python:\n"
	"  interpreter: /opt/py 3/bin/python3\n"
	"  install:\n"
	"    system_site_packages: false\n"
	"system:\n"
	"  backend: cuda\n"
	"result:\n"
	"  format: npy\n"
	"  outputs: out dir\n"
	"  files: [y.npy]\n";

struct fixture {
	struct kd_ctx ctx;
	struct yamlio_doc doc;
	char dir[64];
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	struct kd_err err;
	char *req;
	static const char reqs[] = "--index-url https://${PIP_USER}:${PIP_TOKEN}@pypi.example.org/simple\n"
				   "torch==2.3.0\n";

	snprintf(f->dir, sizeof f->dir, "/tmp/kd-dossier.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	req = fsutil_join(f->dir, "requirements-rebuild.txt");
	assert_int_equal(fsutil_write_atomic(req, reqs, sizeof reqs - 1, FSUTIL_RAW, &err), 0);
	free(req);
	assert_int_equal(yamlio_load_mem(ref_yaml, sizeof ref_yaml - 1, "ref", &f->doc, &err), 0);
	state_init(&f->ctx.state);
	f->ctx.ref = f->doc.root;
	f->ctx.project_dir = f->dir;
	f->ctx.state_dir = f->dir;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	struct kd_err err;

	state_free(&f->ctx.state);
	yamlio_doc_free(&f->doc);
	fsutil_rmtree(f->dir, &err);
	free(f);
	return 0;
}

static void
test_shell_quote(void **state)
{
	char *q;
	(void)state;

	q = dossier_shell_quote("plain");
	assert_string_equal(q, "'plain'");
	free(q);
	q = dossier_shell_quote("it's $HOME `x`");
	assert_string_equal(q, "'it'\\''s $HOME `x`'");
	free(q);
}

static void
test_credentials(void **state)
{
	struct fixture *f = *state;
	json_t *c = dossier_credentials(&f->ctx), *v;
	size_t i;
	int hf = 0, user = 0, token = 0;

	json_array_foreach(c, i, v) {
		const char *n = json_string_value(json_object_get(v, "name"));
		const char *p = json_string_value(json_object_get(v, "provide"));
		const char *w = json_string_value(json_array_get(json_object_get(v, "where"), 0));
		hf |= strcmp(n, "HF_TOKEN") == 0 && strcmp(p, "env:HF_TOKEN") == 0 &&
		      strcmp(w, "reference.yaml data item encoder weights (access)") == 0;
		user |= strcmp(n, "PIP_USER") == 0;
		token |= strcmp(n, "PIP_TOKEN") == 0 && strcmp(p, "env:PIP_TOKEN") == 0 &&
			 strcmp(w, "requirements-rebuild.txt line 1 (the index URL)") == 0 &&
			 strcmp(json_string_value(json_object_get(v, "how")),
				"set PIP_TOKEN in the environment") == 0;
	}
	assert_true(hf && user && token);
	assert_int_equal(json_array_size(c), 3);
	json_decref(c);
}

/* procedure.sh: the variables required with how to obtain them, every
 * argument quoted, valid bash, nothing a scan would find. */
static void
test_procedure(void **state)
{
	struct fixture *f = *state;
	json_t *tree = json_object();
	char *text, *path;
	struct kd_err err;
	struct redact_finding rf[8];
	const char *argv[] = { "bash", "-n", NULL, NULL };
	char *out = NULL;
	int code = -1;

	json_object_set_new(tree, "credentials", dossier_credentials(&f->ctx));
	text = dossier_procedure(&f->ctx, tree);
	assert_non_null(strstr(text, "if [ -z \"${HF_TOKEN:-}\" ]; then echo 'procedure.sh: set "
				     "HF_TOKEN (access to encoder weights at https://huggingface.co/"));
	assert_non_null(strstr(text, "if [ -z \"${PIP_TOKEN:-}\" ]; then echo 'procedure.sh: set "
				     "PIP_TOKEN (an account named in the rebuild file (pip reads ${NAME} "
				     "from the environment)): env:PIP_TOKEN is needed by "
				     "requirements-rebuild.txt line 1 (the index URL)' >&2; exit 3; fi\n"));
	assert_non_null(strstr(text, "PY=${PY:-'/opt/py 3/bin/python3'}"));
	assert_non_null(strstr(text, ".venv-rebuild/bin/python 'run.py' '--name' 'it'\\''s a test' "
				     "'$HOME' 'a|b'"));
	assert_non_null(strstr(text, "-m venv .venv-rebuild"));   /* no system site packages */
	assert_null(strstr(text, "bin/activate"));
	assert_null(strstr(text, "source "));
	/* the probe refuses to fall back to the CPU */
	assert_non_null(strstr(text, "- 'cuda' <<'KD_PROBE'"));
	assert_int_equal(redact_scan(text, strlen(text), rf, 8), 0);
	path = fsutil_join(f->dir, "procedure.sh");
	assert_int_equal(fsutil_write_atomic(path, text, strlen(text), FSUTIL_RAW, &err), 0);
	argv[2] = path;
	assert_int_equal(run_capture(argv, 10, 1 << 16, &out, &code, &err), 0);
	if (code != 0)
		fail_msg("bash -n: %s", out ? out : "");
	free(out);
	free(path);
	free(text);
	json_decref(tree);
}

static void
test_variant_and_readme(void **state)
{
	struct fixture *f = *state;
	struct kd_err err;
	struct kd_rows rows = { 0 };
	json_t *v, *tree = json_object();
	char *readme;
	int i = stage_index("compute");

	kd_rows_add(&rows, "compute.backend", KD_R_FAIL, "backend", "cpu | no GPU", "cuda", NULL);
	stage_apply_rows(&f->ctx.state, i, &rows, "x");
	kd_rows_free(&rows);
	v = dossier_variant(&f->ctx);
	assert_false(json_is_true(json_object_get(v, "variant")));
	json_decref(v);
	assert_int_equal(stage_record_deviation(&f->ctx.state, i, "compute.backend", NULL,
						"no GPU on the new machine", 1, "alice", &err), 0);
	v = dossier_variant(&f->ctx);
	assert_true(json_is_true(json_object_get(v, "variant")));
	json_object_set_new(tree, "variant", v);
	json_object_set_new(tree, "deviations", dossier_deviations(&f->ctx));
	json_object_set_new(tree, "credentials", json_array());
	json_object_set_new(tree, "created", json_string("2026-01-01T00:00:00Z"));
	readme = dossier_readme(&f->ctx, tree);
	assert_non_null(strstr(readme, "**This run is a variant of the reference**"));
	assert_non_null(strstr(readme, "| compute | `compute.backend` |"));
	assert_non_null(strstr(readme, "intentional (variant)"));
	/* a '|' in a value does not break the table */
	assert_non_null(strstr(readme, "cpu \\| no GPU"));
	free(readme);
	json_decref(tree);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shell_quote),
		cmocka_unit_test_setup_teardown(test_credentials, setup, teardown),
		cmocka_unit_test_setup_teardown(test_procedure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_variant_and_readme, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
