/*
 * test-reference.c - stage 1 on small real projects made by the test: a
 * git repository (git command line), parameter files, data and weights
 * (a file and a folder), an input sample and an example output.  Each test
 * runs the stage through stage_run() and reads the rows it left in the
 * state; the helpers of reference.h are tested directly, and the rows of
 * the hard-to-provoke edge cases (unreadable, changed while hashed) from
 * observation trees.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernodeck/capture.h"
#include "kernodeck/ctx.h"
#include "kernodeck/fsutil.h"
#include "kernodeck/hash.h"
#include "kernodeck/reference.h"
#include "kernodeck/runner.h"
#include "kernodeck/stage.h"
#include "kernodeck/yamlio.h"
#include "testutil.h"

static char tmp[256];
static int nproj;

/* The reference of the test project, with every digest left empty. */
static const char ref_json[] =
	"{\"schema\": 1, \"goal\": \"close-values\","
	" \"code\": {\"entry_point\": [\"python\", \"embed.py\", \"--title\", \"two words\"],"
	"   \"params\": [{\"path\": \"config.yaml\"}]},"
	" \"data\": ["
	"   {\"name\": \"word list\", \"kind\": \"data\", \"path\": \"data/words.txt\","
	"    \"version\": \"v1\", \"provenance\": \"typed by the test\", \"access\": \"public\"},"
	"   {\"name\": \"encoder weights\", \"kind\": \"weights\", \"path\": \"weights\","
	"    \"version\": \"2024-01\", \"provenance\": \"run 42\", \"access\": \"env:HF_TOKEN\"}],"
	" \"python\": {\"version\": \"3.11.2\", \"inventory\": \"reference/freeze.txt\","
	"   \"install\": {\"procedure\": \"python3 -m venv .venv && pip install -r r.txt\","
	"     \"sources\": [\"--find-links wheels\"]}},"
	" \"system\": {\"os\": \"Debian GNU/Linux 12\", \"arch\": \"x86_64\","
	"   \"gpu_vendor\": \"none\", \"gpu_count\": 0, \"backend\": \"cpu\"},"
	" \"result\": {\"format\": \"npy\", \"outputs\": \"outputs\", \"count\": 1,"
	"   \"shape\": [\"3\", \"4\"], \"dtype\": \"float32\", \"finite\": true,"
	"   \"ids\": {\"file\": \"outputs/ids.txt\", \"reference\": \"sample/ids.txt\"},"
	"   \"criterion\": \"neighbours kept\","
	"   \"rule\": {\"kind\": \"tolerance\", \"atol\": 1e-5, \"rtol\": 1e-4,"
	"     \"justification\": \"float32 against a float64 reference\"},"
	"   \"sample\": {\"path\": \"sample\"}, \"example\": {\"path\": \"reference/expected.npy\"}}}";

/* A committed project in tmp/pN; returns its folder. */
static char *
make_project(void)
{
	static char dir[512];

	snprintf(dir, sizeof dir, "%s/p%d", tmp, ++nproj);
	mkdir(dir, 0755);
	assert_int_equal(tu_git(dir, "init", "-q", "-b", "main", NULL), 0);
	tu_put(dir, "embed.py", "print('embed')\n");
	tu_put(dir, "config.yaml", "dim: 4\n");
	tu_put(dir, "data/words.txt", "alpha\nbeta\ngamma\n");
	tu_put(dir, "weights/enc.bin", "0123456789");
	tu_put(dir, "weights/sub/dec.bin", "abcdef");
	tu_put(dir, "sample/ids.txt", "a\nb\nc\n");
	tu_put(dir, "sample/input.txt", "one\ntwo\nthree\n");
	tu_put(dir, "reference/expected.npy", "not really npy");
	tu_put(dir, "reference/freeze.txt", "numpy==1.24.2\ntorch==1.13.1\n");
	assert_int_equal(tu_git(dir, "add", ".", NULL), 0);
	assert_int_equal(tu_git(dir, "commit", "-q", "-m", "project", NULL), 0);
	return dir;
}

/* Open dir, put the reference tree in, run stage 1. */
static void
open_run(struct kd_ctx *ctx, const char *dir, json_t *ref)
{
	struct kd_err err;
	int rc;

	assert_int_equal(kd_ctx_open(ctx, dir, NULL, KD_LOCK_REQUIRED, &err), 0);
	if (ref != NULL) {
		json_decref(ctx->ref);
		ctx->ref = ref;
		assert_int_equal(kd_ctx_save_ref(ctx, &err), 0);
	}
	rc = stage_run(ctx, 0, NULL, NULL, &err);
	if (rc != 0)
		fprintf(stderr, "stage_run: %s\n", err.msg);
	assert_int_equal(rc, 0);
}

static json_t *
ref_tree(void)
{
	json_error_t je;
	json_t *r = json_loads(ref_json, 0, &je);

	if (r == NULL)
		fprintf(stderr, "ref_json: %s at %d\n", je.text, je.position);
	assert_non_null(r);
	return r;
}

static const struct kd_row *
row(const struct kd_ctx *ctx, const char *id)
{
	const struct kd_row *r = kd_rows_find(&ctx->state.st[0].rows, id);

	if (r == NULL)
		fprintf(stderr, "no row %s\n", id);
	assert_non_null(r);
	return r;
}

/* Print the failing rows, to make a failed assertion readable. */
static void
dump_fails(const struct kd_ctx *ctx)
{
	const struct kd_rows *rows = &ctx->state.st[0].rows;

	for (size_t i = 0; i < rows->n; i++)
		if (rows->v[i].status == KD_R_FAIL)
			fprintf(stderr, "  FAIL %s: %s (%s)\n", rows->v[i].id,
				rows->v[i].observed ? rows->v[i].observed : "",
				rows->v[i].first_error ? rows->v[i].first_error : "");
}

static void
assert_row(const struct kd_ctx *ctx, const char *id, enum kd_rstat st)
{
	const struct kd_row *r = row(ctx, id);

	if (r->status != st) {
		fprintf(stderr, "row %s is %s: observed %s; error %s\n", id,
			kd_rstat_name(r->status), r->observed ? r->observed : "",
			r->first_error ? r->first_error : "");
		dump_fails(ctx);
	}
	assert_int_equal(r->status, st);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof tmp, "/tmp/kd-ref.XXXXXX");
	if (mkdtemp(tmp) == NULL)
		return -1;
	tu_git_env(tmp);
	setenv("KD_NET_TIMEOUT", "2", 1);
	unsetenv("http_proxy");
	unsetenv("https_proxy");
	unsetenv("all_proxy");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return fsutil_rmtree(tmp, NULL);
}

/* -------------------------------------------------------------- helpers */

static void
test_floating(void **state)
{
	char seg[64];

	(void)state;
	assert_true(reference_is_floating("latest"));
	assert_true(reference_is_floating(" Main "));
	assert_true(reference_is_floating("NIGHTLY"));
	assert_true(reference_is_floating("dernier-modele"));
	assert_true(reference_is_floating("dernier"));
	assert_false(reference_is_floating("v3"));
	assert_false(reference_is_floating("mainline"));
	assert_false(reference_is_floating(NULL));
	assert_true(reference_url_floating("https://huggingface.co/org/m/resolve/main/x.bin",
					   seg, sizeof seg));
	assert_string_equal(seg, "main");
	assert_true(reference_url_floating("https://example.org/models/latest/w.pt", seg,
					   sizeof seg));
	assert_string_equal(seg, "latest");
	assert_false(reference_url_floating("https://huggingface.co/org/m/resolve/0123abc/x.bin",
					    seg, sizeof seg));
	/* the host is not a path segment */
	assert_false(reference_url_floating("https://main/x.bin", seg, sizeof seg));
}

static void
test_na_and_filled(void **state)
{
	json_t *ref = json_loads("{\"system\": {\"gpu_vendor\": \"none\"},"
				 " \"not_applicable\": {\"code\": \"a notebook, no git\","
				 "   \"data[1].url\": \"local only\", \"result.ids\": \"\"}}", 0, NULL);

	(void)state;
	assert_non_null(ref);
	assert_string_equal(reference_na(ref, "code.commit"), "a notebook, no git");
	assert_string_equal(reference_na(ref, "code"), "a notebook, no git");
	assert_string_equal(reference_na(ref, "data[1].url"), "local only");
	assert_null(reference_na(ref, "data[0].url"));
	assert_null(reference_na(ref, "result.ids"));    /* empty reason: no */
	assert_non_null(strstr(reference_na(ref, "system.driver"), "no GPU"));
	assert_null(reference_na(ref, "system.os"));
	json_object_set_new(json_object_get(ref, "system"), "gpu_vendor", json_string("nvidia"));
	assert_null(reference_na(ref, "system.driver"));
	assert_non_null(reference_na(ref, "system.rocm"));
	json_decref(ref);

	assert_false(reference_filled(NULL));
	assert_false(reference_filled(json_null()));
	ref = json_pack("{s:s, s:s, s:[], s:{}, s:i, s:b}", "a", "  ", "b", "x", "c", "d",
			"e", 0, "f", 0);
	assert_false(reference_filled(json_object_get(ref, "a")));
	assert_true(reference_filled(json_object_get(ref, "b")));
	assert_false(reference_filled(json_object_get(ref, "c")));
	assert_false(reference_filled(json_object_get(ref, "d")));
	assert_true(reference_filled(json_object_get(ref, "e")));
	assert_true(reference_filled(json_object_get(ref, "f")));
	json_decref(ref);
}

static void
test_slugs_urls_argv(void **state)
{
	json_t *data = json_loads("[{\"name\": \"Encoder weights (v3)\"}, {\"path\": \"a/b.bin\"},"
				  " {}, {\"name\": \"Encoder weights (v3)\"}]", 0, NULL);
	json_t *argv = json_pack("[s, s, s, s, s]", "python", "embed.py", "--title", "two words",
				 "it's");
	char buf[64], *s;
	int had;

	(void)state;
	reference_data_slug(data, 0, buf, sizeof buf);
	assert_string_equal(buf, "encoder-weights-v3");
	reference_data_slug(data, 1, buf, sizeof buf);
	assert_string_equal(buf, "a-b-bin");
	reference_data_slug(data, 2, buf, sizeof buf);
	assert_string_equal(buf, "item-3");
	reference_data_slug(data, 3, buf, sizeof buf);
	assert_string_equal(buf, "encoder-weights-v3-4");
	json_decref(data);

	s = reference_strip_url("https://bob:s3cr@t@example.org/x?y=1", &had);
	assert_true(had);
	assert_string_equal(s, "https://example.org/x?y=1");
	free(s);
	s = reference_strip_url("https://${CREDENTIALS}@example.org/x", &had);
	assert_true(had);
	assert_string_equal(s, "https://example.org/x");
	free(s);
	s = reference_strip_url("https://example.org/a@b", &had);
	assert_false(had);
	assert_string_equal(s, "https://example.org/a@b");
	free(s);

	s = reference_argv_line(argv);
	assert_string_equal(s, "python embed.py --title 'two words' 'it'\\''s'");
	free(s);
	json_decref(argv);
}

/* ------------------------------------------------------------ the stage */

static void
test_complete_reference_passes(void **state)
{
	struct kd_ctx ctx;
	struct yamlio_doc doc;
	struct kd_err err;
	char *dir = make_project(), p[600];
	const struct kd_row *r;

	(void)state;
	/* the digest cache keeps no entry for a file changed in the last
	 * 50 ms (hash.c: racily clean): let the files age past that, or the
	 * second run below may find nothing cached (seen under load) */
	usleep(120000);
	open_run(&ctx, dir, ref_tree());
	if (ctx.state.st[0].status != KD_ST_PASSED)
		dump_fails(&ctx);
	assert_int_equal(ctx.state.st[0].status, KD_ST_PASSED);
	/* empty fingerprints were recorded, and saved */
	assert_true(yamlio_get_str(ctx.ref, "code.commit") != NULL);
	assert_int_equal(strlen(yamlio_get_str(ctx.ref, "code.commit")), 40);
	assert_string_equal(yamlio_get_str(ctx.ref, "code.branch"), "main");
	assert_int_equal(strlen(yamlio_get_str(ctx.ref, "data[0].sha256")), 64);
	assert_int_equal(json_integer_value(yamlio_get(ctx.ref, "data[0].size")), 17);
	assert_int_equal(json_integer_value(yamlio_get(ctx.ref, "data[1].size")), 16);
	assert_int_equal(strlen(yamlio_get_str(ctx.ref, "result.sample.sha256")), 64);
	assert_int_equal(strlen(yamlio_get_str(ctx.ref, "code.params[0].sha256")), 64);
	assert_int_equal(json_integer_value(yamlio_get(ctx.ref, "result.shape[0]")), 3);
	assert_int_equal(yamlio_load_file(ctx.ref_path, &doc, &err), 0);
	assert_string_equal(yamlio_get_str(doc.root, "data[0].sha256"),
			    yamlio_get_str(ctx.ref, "data[0].sha256"));
	yamlio_doc_free(&doc);
	/* the stage was checked against the saved identity */
	assert_string_equal(ctx.state.st[0].checked_ref, ctx.ref_id);
	/* the folder item's manifest is kept in the kernodeck folder */
	r = row(&ctx, "data.encoder-weights.sha256");
	assert_non_null(r->evidence);
	snprintf(p, sizeof p, "%s/%s", ctx.state_dir, r->evidence);
	assert_true(fsutil_exists(p));
	assert_non_null(strstr(row(&ctx, "code.entry_point")->observed, "'two words'"));
	assert_row(&ctx, "code.clean", KD_R_PASS);
	assert_row(&ctx, "python.inventory", KD_R_PASS);
	assert_non_null(strstr(row(&ctx, "python.inventory")->observed, "2 packages"));
	/* kernodeck's folder is kept out through the private exclude file */
	snprintf(p, sizeof p, "%s/.gitignore", dir);
	assert_false(fsutil_exists(p));
	kd_ctx_close(&ctx);

	/* a second run reads unchanged files from the digest cache */
	open_run(&ctx, dir, NULL);
	assert_int_equal(ctx.state.st[0].status, KD_ST_PASSED);
	assert_true(json_is_true(json_object_get(json_object_get(json_object_get(kd_ctx_obs(&ctx, 0),
		    "files"), "data[0]"), "from_cache")));
	kd_ctx_close(&ctx);
}

static void
test_changed_data_fails_and_later_stale(void **state)
{
	struct kd_ctx ctx;
	char *dir = make_project(), rec[65];
	const struct kd_row *r;

	(void)state;
	open_run(&ctx, dir, ref_tree());
	assert_int_equal(ctx.state.st[0].status, KD_ST_PASSED);
	snprintf(rec, sizeof rec, "%s", yamlio_get_str(ctx.ref, "data[0].sha256"));
	ctx.state.st[1].status = KD_ST_PASSED;   /* as if stage 2 had passed */
	memcpy(ctx.state.st[1].checked_ref, ctx.ref_id, sizeof ctx.ref_id);
	kd_ctx_save_state(&ctx, NULL);
	kd_ctx_close(&ctx);

	tu_put(dir, "data/words.txt", "alpha\nbeta\ndelta\n");
	tu_put(dir, "weights/sub/dec.bin", "ABCDEF");
	open_run(&ctx, dir, NULL);
	assert_int_equal(ctx.state.st[0].status, KD_ST_FAILED);
	r = row(&ctx, "data.word-list.sha256");
	assert_int_equal(r->status, KD_R_FAIL);
	assert_string_equal(r->expected, rec);
	assert_int_equal(strlen(r->observed), 64);
	assert_string_not_equal(r->observed, rec);
	assert_non_null(strstr(r->first_error, rec));
	assert_non_null(strstr(r->first_error, r->observed));
	/* a file changed inside a folder item changes its manifest digest */
	assert_row(&ctx, "data.encoder-weights.sha256", KD_R_FAIL);
	/* the tree is dirty too, and says which files */
	assert_row(&ctx, "code.clean", KD_R_FAIL);
	assert_non_null(strstr(row(&ctx, "code.clean")->observed, "data/words.txt"));
	assert_null(strstr(row(&ctx, "code.clean")->first_error, "kernodeck/"));
	/* the digest was not silently replaced */
	assert_string_equal(yamlio_get_str(ctx.ref, "data[0].sha256"), rec);
	/* what stage 2 was checked with changed: it must be checked again */
	assert_int_equal(ctx.state.st[1].status, KD_ST_STALE);
	assert_non_null(kd_rows_find(&ctx.state.st[0].rows, "stage.error") == NULL ?
			"ok" : NULL);
	/* a check that finds nothing new leaves a passed later stage alone */
	ctx.state.st[1].status = KD_ST_PASSED;
	assert_int_equal(stage_run(&ctx, 0, NULL, NULL, NULL), 0);
	assert_int_equal(ctx.state.st[1].status, KD_ST_PASSED);
	kd_ctx_close(&ctx);

	/* a person changes the reference: the later stage becomes stale */
	assert_int_equal(kd_ctx_open(&ctx, dir, NULL, KD_LOCK_REQUIRED, NULL), 0);
	ctx.state.st[1].status = KD_ST_PASSED;
	memcpy(ctx.state.st[1].checked_ref, ctx.ref_id, sizeof ctx.ref_id);
	yamlio_set(ctx.ref, "data[0].sha256", json_string(""));
	assert_int_equal(kd_ctx_save_ref(&ctx, NULL), 0);
	assert_int_equal(ctx.state.st[1].status, KD_ST_STALE);
	kd_ctx_close(&ctx);
}

static void
test_commit_rules(void **state)
{
	struct kd_ctx ctx;
	char *dir = make_project(), first[41];
	json_t *ref;

	(void)state;
	/* a branch name where a commit is needed */
	ref = ref_tree();
	yamlio_set(ref, "code.commit", json_string("main"));
	open_run(&ctx, dir, ref);
	assert_row(&ctx, "code.commit", KD_R_FAIL);
	assert_non_null(strstr(row(&ctx, "code.commit")->first_error, "branch"));
	snprintf(first, sizeof first, "%s", json_string_value(json_object_get(
		json_object_get(json_object_get(kd_ctx_obs(&ctx, 0), "code"), "recorded"), "resolves_to")));
	assert_int_equal(strlen(first), 40);
	kd_ctx_close(&ctx);

	/* an abbreviated id */
	ref = ref_tree();
	first[8] = '\0';
	yamlio_set(ref, "code.commit", json_string(first));
	open_run(&ctx, dir, ref);
	assert_row(&ctx, "code.commit", KD_R_FAIL);
	assert_non_null(strstr(row(&ctx, "code.commit")->first_error, "abbreviated"));
	kd_ctx_close(&ctx);

	/* the recorded commit is no longer HEAD */
	ref = ref_tree();
	open_run(&ctx, dir, ref);
	assert_row(&ctx, "code.head", KD_R_PASS);
	kd_ctx_close(&ctx);
	tu_put(dir, "embed.py", "print('v2')\n");
	assert_int_equal(tu_git(dir, "commit", "-q", "-am", "v2", NULL), 0);
	open_run(&ctx, dir, NULL);
	assert_row(&ctx, "code.commit", KD_R_PASS);
	assert_row(&ctx, "code.head", KD_R_FAIL);
	assert_row(&ctx, "code.clean", KD_R_PASS);
	/* the action records HEAD */
	assert_int_equal(kd_stage_reference.actions[1].key, 'u');
	assert_int_equal(kd_stage_reference.actions[1].run(&ctx, NULL, NULL, NULL), 0);
	assert_int_equal(stage_run(&ctx, 0, NULL, NULL, NULL), 0);
	assert_row(&ctx, "code.head", KD_R_PASS);
	kd_ctx_close(&ctx);

	/* an unknown full id */
	ref = ref_tree();
	yamlio_set(ref, "code.commit", json_string("0123456789abcdef0123456789abcdef01234567"));
	open_run(&ctx, dir, ref);
	assert_row(&ctx, "code.commit", KD_R_FAIL);
	assert_non_null(strstr(row(&ctx, "code.commit")->first_error, "not in the repository"));
	kd_ctx_close(&ctx);
}

static void
test_repository_edge_cases(void **state)
{
	struct kd_ctx ctx;
	char dir[512], p[600];

	(void)state;
	/* not a git repository */
	snprintf(dir, sizeof dir, "%s/nogit", tmp);
	mkdir(dir, 0755);
	open_run(&ctx, dir, ref_tree());
	assert_row(&ctx, "code.repository", KD_R_FAIL);
	assert_non_null(strstr(row(&ctx, "code.repository")->first_error,
			       "not inside a git repository"));
	assert_row(&ctx, "code.commit", KD_R_FAIL);
	kd_ctx_close(&ctx);

	/* unless code is marked not applicable with a reason */
	{
		json_t *ref = ref_tree();

		yamlio_set(ref, "not_applicable.code", json_string("scripts copied by hand"));
		open_run(&ctx, dir, ref);
		assert_row(&ctx, "code.commit", KD_R_PASS);
		assert_non_null(strstr(row(&ctx, "code.commit")->observed, "not applicable"));
		assert_null(kd_rows_find(&ctx.state.st[0].rows, "code.repository"));
		kd_ctx_close(&ctx);
	}

	/* an empty repository */
	snprintf(dir, sizeof dir, "%s/emptygit", tmp);
	mkdir(dir, 0755);
	assert_int_equal(tu_git(dir, "init", "-q", NULL), 0);
	open_run(&ctx, dir, ref_tree());
	assert_row(&ctx, "code.repository", KD_R_FAIL);
	assert_non_null(strstr(row(&ctx, "code.repository")->first_error, "no commit yet"));
	kd_ctx_close(&ctx);

	/* owned by another user */
	if (geteuid() == 0) {
		char *d = make_project();

		snprintf(p, sizeof p, "%s/.git", d);
		assert_int_equal(chown(d, 65534, 65534), 0);
		assert_int_equal(chown(p, 65534, 65534), 0);
		open_run(&ctx, d, ref_tree());
		assert_row(&ctx, "code.repository", KD_R_FAIL);
		assert_non_null(strstr(row(&ctx, "code.repository")->first_error,
				       "safe.directory"));
		assert_non_null(strstr(row(&ctx, "code.repository")->hint,
				       "git config --global --add safe.directory"));
		kd_ctx_close(&ctx);
	}
}

static void
test_missing_items_and_floating(void **state)
{
	struct kd_ctx ctx;
	char *dir = make_project();
	json_t *ref = ref_tree(), *item;

	(void)state;
	yamlio_set(ref, "data[0].path", json_string("data/nope.txt"));
	yamlio_set(ref, "data[1].version", json_string("latest"));
	/* a URL-only item with a floating revision and no digest */
	item = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i}", "name", "remote model",
			 "kind", "weights",
			 "url", "http://alice:hunter2@127.0.0.1:9/org/m/resolve/main/m.bin",
			 "version", "main", "provenance", "hub", "access", "public", "size", 5);
	json_array_append_new(json_object_get(ref, "data"), item);
	yamlio_set(ref, "code.remote", json_string("https://bob:tok@example.org/x.git"));
	open_run(&ctx, dir, ref);
	assert_row(&ctx, "data.word-list.sha256", KD_R_FAIL);
	assert_non_null(strstr(row(&ctx, "data.word-list.sha256")->observed, "missing"));
	assert_non_null(strstr(row(&ctx, "data.word-list.sha256")->first_error, "nope.txt"));
	/* the weights are pinned by their digest: a warning only */
	assert_row(&ctx, "data.encoder-weights.version", KD_R_WARN);
	/* the URL item: floating, no digest, unreachable, credentials stripped */
	assert_row(&ctx, "data.remote-model.version", KD_R_FAIL);
	assert_row(&ctx, "data.remote-model.sha256", KD_R_FAIL);
	assert_row(&ctx, "data.remote-model.url", KD_R_FAIL);
	assert_row(&ctx, "data.remote-model.credentials", KD_R_WARN);
	assert_row(&ctx, "code.remote.credentials", KD_R_WARN);
	assert_null(strstr(yamlio_get_str(ctx.ref, "data[2].url"), "hunter2"));
	assert_string_equal(yamlio_get_str(ctx.ref, "code.remote"), "https://example.org/x.git");
	{
		char *buf = NULL;
		size_t len;

		assert_int_equal(fsutil_read_file(ctx.ref_path, 1 << 20, &buf, &len, NULL), 0);
		assert_null(strstr(buf, "hunter2"));
		assert_null(strstr(buf, "tok@"));
		free(buf);
	}
	kd_ctx_close(&ctx);
}

static void
test_contract_rule_and_na(void **state)
{
	struct kd_ctx ctx;
	char *dir = make_project();
	json_t *ref = ref_tree();

	(void)state;
	json_object_del(yamlio_get(ref, "result.rule"), "justification");
	json_object_del(yamlio_get(ref, "result"), "criterion");
	json_object_del(ref, "goal");
	json_object_set_new(ref, "not_applicable", json_pack("{s:s}", "result.ids", ""));
	json_object_set_new(json_object_get(ref, "system"), "gpu_vendor", json_string("nvidia"));
	open_run(&ctx, dir, ref);
	assert_row(&ctx, "result.rule", KD_R_FAIL);
	assert_non_null(strstr(row(&ctx, "result.rule")->first_error, "justification"));
	assert_row(&ctx, "result.contract", KD_R_FAIL);
	assert_non_null(strstr(row(&ctx, "result.contract")->observed, "criterion"));
	assert_row(&ctx, "goal", KD_R_FAIL);
	assert_row(&ctx, "not_applicable", KD_R_FAIL);
	assert_row(&ctx, "system", KD_R_FAIL);   /* a GPU: driver, model, CUDA needed */
	assert_non_null(strstr(row(&ctx, "system")->observed, "driver"));
	assert_null(strstr(row(&ctx, "system")->observed, "rocm"));
	kd_ctx_close(&ctx);

	ref = ref_tree();
	yamlio_set(ref, "result.rule", json_pack("{s:s}", "kind", "exact"));
	yamlio_set(ref, "system.backend", json_string("cuda"));
	open_run(&ctx, dir, ref);
	assert_row(&ctx, "result.rule", KD_R_PASS);
	assert_row(&ctx, "system", KD_R_FAIL);   /* cuda without an NVIDIA GPU */
	kd_ctx_close(&ctx);

	ref = ref_tree();
	yamlio_set(ref, "python.version", json_real(3.1));
	json_object_del(json_object_get(ref, "result"), "rule");
	open_run(&ctx, dir, ref);
	assert_row(&ctx, "result.rule", KD_R_FAIL);
	assert_non_null(strstr(row(&ctx, "result.rule")->first_error, "no default"));
	/* version: 3.10 unquoted is the number 3.1 */
	assert_row(&ctx, "python.version", KD_R_FAIL);
	assert_non_null(strstr(row(&ctx, "python.version")->hint, "quote it"));
	kd_ctx_close(&ctx);
}

static void
test_submodules(void **state)
{
	struct kd_ctx ctx;
	char lib[512], app[512], clone[512], sub[600];
	char *d;

	(void)state;
	d = make_project();
	snprintf(lib, sizeof lib, "%s", d);
	d = make_project();
	snprintf(app, sizeof app, "%s", d);
	assert_int_equal(tu_git(app, "-c", "protocol.file.allow=always", "submodule", "add", "-q",
			     lib, "vendor/lib", NULL), 0);
	assert_int_equal(tu_git(app, "commit", "-q", "-m", "add lib", NULL), 0);
	open_run(&ctx, app, ref_tree());
	assert_row(&ctx, "code.submodules", KD_R_PASS);
	assert_non_null(strstr(row(&ctx, "code.submodules")->observed, "vendor/lib at "));
	assert_row(&ctx, "code.clean", KD_R_PASS);
	kd_ctx_close(&ctx);

	/* the project is the submodule itself: a warning names the superproject */
	snprintf(sub, sizeof sub, "%s/vendor/lib", app);
	open_run(&ctx, sub, ref_tree());
	assert_row(&ctx, "code.superproject", KD_R_WARN);
	assert_non_null(strstr(row(&ctx, "code.superproject")->observed, app));
	kd_ctx_close(&ctx);

	/* a clone without its submodule checked out */
	snprintf(clone, sizeof clone, "%s/clone%d", tmp, nproj);
	assert_int_equal(tu_git(tmp, "-c", "protocol.file.allow=always", "clone", "-q", app, clone,
			     NULL), 0);
	open_run(&ctx, clone, ref_tree());
	assert_row(&ctx, "code.submodules", KD_R_FAIL);
	assert_non_null(strstr(row(&ctx, "code.submodules")->hint, "git submodule update --init"));
	kd_ctx_close(&ctx);
}

static void
test_validate(void **state)
{
	static const struct {
		const char *yaml, *msg;
		int line;
	} bad[] = {
		{ "schema: 1\ncode: [1, 2]\ndata: 7\n", "code must be a mapping, not a list", 2 },
		{ "schema: 1\ndata: 7\n", "data must be a list (or empty), not a whole number", 2 },
		{ "data:\n  - name: x\n    sha256: 0123\n", "data[0].sha256 must be text", 3 },
		{ "data:\n  - name: x\n    size: big\n", "data[0].size must be a whole number", 3 },
		{ "data:\n  - just a string\n", "data[0] must be a mapping", 2 },
		{ "result:\n  rule:\n    atol: small\n", "result.rule.atol must be a number", 3 },
		{ "result:\n  finite: maybe\n", "result.finite must be true or false", 2 },
		{ "code:\n  entry_point:\n    - python\n    - {a: b}\n",
		  "code.entry_point[1] must be", 4 },
		{ "not_applicable:\n  system.driver: [x]\n", "not_applicable.system.driver must be", 2 },
		{ "schema: 7\n", "newer than this kernodeck", 1 },
	};
	struct yamlio_doc doc;
	struct kd_err err;
	json_t *ok = ref_tree();

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(yamlio_load_mem(bad[i].yaml, strlen(bad[i].yaml), "reference.yaml",
						 &doc, &err), 0);
		kd_err_clear(&err);
		assert_int_equal(reference_validate(doc.root, &doc, "reference.yaml", &err),
				 KD_EINPUT);
		if (strstr(err.msg, bad[i].msg) == NULL || err.line != bad[i].line)
			fprintf(stderr, "case %zu: line %d: %s\n", i, err.line, err.msg);
		assert_non_null(strstr(err.msg, bad[i].msg));
		assert_int_equal(err.line, bad[i].line);
		assert_string_equal(err.file, "reference.yaml");
		yamlio_doc_free(&doc);
	}
	/* the test project's reference, unknown keys, numbers where YAML makes them */
	json_object_set_new(ok, "team_notes", json_pack("[i]", 1));
	yamlio_set(ok, "python.version", json_real(3.11));
	yamlio_set(ok, "data[0].version", json_integer(3));
	assert_int_equal(reference_validate(ok, NULL, "reference.yaml", &err), 0);
	json_decref(ok);
}

/* Rows of edge cases that a test cannot provoke reliably as root or at a
 * given moment, from the observations gather would leave. */
static void
test_rows_from_observations(void **state)
{
	json_t *ref = ref_tree();
	json_t *obs = json_loads(
		"{\"code\": {\"commit\": null, \"dirty\": []}, \"files\": {"
		" \"data[0]\": {\"path\": \"data/words.txt\", \"kind\": \"file\","
		"   \"error\": \"cannot read data/words.txt: Permission denied\","
		"   \"error_kind\": \"unreadable\"},"
		" \"data[1]\": {\"path\": \"weights\", \"kind\": \"folder\","
		"   \"error\": \"weights/enc.bin changed while it was hashed\","
		"   \"error_kind\": \"changed\"}}}", 0, NULL);
	struct kd_rows rows = { 0 };
	const struct kd_row *r;

	(void)state;
	assert_non_null(obs);
	yamlio_set(ref, "data[0].sha256", json_string(
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	reference_check_rows(NULL, ref, obs, &rows);
	r = kd_rows_find(&rows, "data.word-list.sha256");
	assert_non_null(r);
	assert_int_equal(r->status, KD_R_FAIL);
	assert_non_null(strstr(r->observed, "unreadable"));
	assert_non_null(strstr(r->hint, "read access"));
	r = kd_rows_find(&rows, "data.encoder-weights.sha256");
	assert_non_null(r);
	assert_int_equal(r->status, KD_R_FAIL);
	assert_non_null(strstr(r->first_error, "changed while"));
	assert_non_null(strstr(r->hint, "nothing writes"));
	kd_rows_free(&rows);
	json_decref(obs);
	json_decref(ref);
}

static int
always_cancel(void *u)
{
	(void)u;
	return 1;
}

static void
test_readonly_and_cancel(void **state)
{
	struct kd_ctx ctx, ro;
	struct kd_sink sink = { NULL, NULL, always_cancel, NULL };
	struct kd_result res;
	struct kd_err err;
	char *dir = make_project();

	(void)state;
	assert_int_equal(kd_ctx_open(&ctx, dir, NULL, KD_LOCK_REQUIRED, &err), 0);
	json_decref(ctx.ref);
	ctx.ref = ref_tree();
	assert_int_equal(kd_ctx_save_ref(&ctx, &err), 0);
	/* a second kernodeck opens read-only: it records nothing */
	assert_int_equal(kd_ctx_open(&ro, dir, NULL, KD_LOCK_READONLY_OK, &err), 0);
	assert_true(ro.readonly);
	kd_result_init(&res);
	assert_int_equal(kd_stage_reference.gather(&ro, &res, NULL, &err), 0);
	assert_null(yamlio_get(ro.ref, "data[0].sha256"));
	assert_int_equal(strlen(json_string_value(json_object_get(json_object_get(
		json_object_get(res.obs, "files"), "data[0]"), "sha256"))), 64);
	assert_int_equal(kd_stage_reference.check(&ro, &res, &err), 0);
	assert_int_equal(kd_rows_find(&res.rows, "data.word-list.sha256")->status, KD_R_FAIL);
	kd_result_free(&res);
	kd_ctx_close(&ro);

	/* cancelled while hashing: an error, nothing recorded */
	kd_result_init(&res);
	assert_int_equal(kd_stage_reference.gather(&ctx, &res, &sink, &err), KD_EFAIL);
	assert_non_null(strstr(err.msg, "cancelled"));
	assert_null(yamlio_get(ctx.ref, "data[0].sha256"));
	kd_result_free(&res);
	kd_ctx_close(&ctx);
}

/* ------------------------------------------------- capture and download */

#define PYTHON "/usr/bin/python3"
#define LFS_BODY "weights of a model stored with git LFS\n"

/* A real venv made with /usr/bin/python3 -m venv, without ensurepip (slow
 * on a small machine): Debian's pip is linked into its site-packages, and
 * one small package is installed by hand. */
static int
make_venv(const char *dir)
{
	char *argv[] = { PYTHON, "-m", "venv", "--without-pip", (char *)dir, NULL };
	char sp[1024], p[1400], link[1400];
	const char *lib = "/usr/lib/python3/dist-packages";
	DIR *d;
	struct dirent *de;
	char pyver[256] = "";

	if (access(PYTHON, X_OK) != 0 || tu_run_quiet(argv) != 0)
		return -1;
	snprintf(p, sizeof p, "%s/lib", dir);
	if ((d = opendir(p)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, "python3", 7) == 0 && strlen(de->d_name) < sizeof pyver)
			memcpy(pyver, de->d_name, strlen(de->d_name) + 1);
	closedir(d);
	snprintf(sp, sizeof sp, "%s/lib/%s/site-packages", dir, pyver);
	if ((d = opendir(lib)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, "pip") != 0 &&
		    !(strncmp(de->d_name, "pip-", 4) == 0 && strstr(de->d_name, ".dist-info")))
			continue;
		snprintf(p, sizeof p, "%s/%s", lib, de->d_name);
		snprintf(link, sizeof link, "%s/%s", sp, de->d_name);
		if (symlink(p, link) != 0) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	snprintf(p, sizeof p, "%s/demo_pkg-1.0.dist-info", sp);
	mkdir(p, 0755);
	tu_put(p, "METADATA", "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n");
	tu_put(p, "RECORD", "");
	return 0;
}

static void
test_capture_real_venv(void **state)
{
	struct kd_ctx ctx;
	struct kd_err err;
	char *dir = make_project(), venv[600], py[700], *buf = NULL;
	json_t *summary = NULL, *inspect;
	const char *inv;
	size_t len;
	int ok = 0;

	(void)state;
	snprintf(venv, sizeof venv, "%s/venv", tmp);
	if (make_venv(venv) != 0)
		skip();
	snprintf(py, sizeof py, "%s/bin/python", venv);
	assert_int_equal(kd_ctx_open(&ctx, dir, NULL, KD_LOCK_REQUIRED, &err), 0);
	if (capture_reference(&ctx, py, NULL, &summary, &err) != 0)
		fprintf(stderr, "capture: %s\n", err.msg);
	assert_non_null(summary);
	/* the interpreter as given (the venv's, not the one it links to) */
	assert_string_equal(yamlio_get_str(ctx.ref, "python.interpreter"), py);
	assert_int_equal(strncmp(yamlio_get_str(ctx.ref, "python.version"), "3.", 2), 0);
	assert_false(json_is_true(yamlio_get(ctx.ref, "python.install.system_site_packages")));
	/* the inventories, under the kernodeck folder, named relative to the project */
	inv = yamlio_get_str(ctx.ref, "python.inventory");
	assert_string_equal(inv, "kernodeck/reference/pip-freeze.txt");
	snprintf(py, sizeof py, "%s/%s", dir, inv);
	assert_int_equal(fsutil_read_file(py, 1 << 20, &buf, &len, NULL), 0);
	assert_non_null(strstr(buf, "demo-pkg==1.0\n"));
	assert_non_null(strstr(buf, "pip==2"));
	assert_null(strstr(buf, "WARNING"));
	free(buf);
	assert_string_equal(yamlio_get_str(ctx.ref, "python.inspect"),
			    "kernodeck/reference/pip-inspect.json");
	snprintf(py, sizeof py, "%s/kernodeck/reference/pip-inspect.json", dir);
	inspect = json_load_file(py, 0, NULL);
	assert_non_null(inspect);
	for (size_t i = 0; i < json_array_size(json_object_get(inspect, "installed")); i++) {
		json_t *m = json_object_get(json_array_get(json_object_get(inspect, "installed"), i),
					    "metadata");

		ok |= strcmp(json_string_value(json_object_get(m, "name")), "demo-pkg") == 0;
	}
	assert_true(ok);
	json_decref(inspect);
	/* the system row: this machine has no GPU driver, torch is not in the venv */
	assert_non_null(yamlio_get_str(ctx.ref, "system.os"));
	assert_non_null(yamlio_get_str(ctx.ref, "system.arch"));
	assert_non_null(yamlio_get_str(ctx.ref, "system.backend"));
	/* a log per program run */
	snprintf(py, sizeof py, "%s/kernodeck/logs", dir);
	assert_true(fsutil_exists(py));
	json_decref(summary);

	/* an interpreter that is not there */
	assert_int_equal(capture_reference(&ctx, "/nonexistent/python", NULL, NULL, &err),
			 KD_EINPUT);
	assert_non_null(strstr(err.msg, "/nonexistent/python"));
	/* one that cannot answer */
	assert_int_equal(capture_reference(&ctx, "/bin/false", NULL, NULL, &err), KD_EENV);
	kd_ctx_close(&ctx);
}

static void
test_download_action(void **state)
{
	struct kd_ctx ctx;
	struct kd_err err;
	char *dir = make_project(), url[128], hex[65], wrong[65];
	json_t *ref = ref_tree(), *item;
	struct tu_httpd srv;

	(void)state;
	if (tu_httpd_start(&srv, NULL, NULL) != 0) {
		tu_httpd_stop(&srv);
		skip();
	}
	snprintf(url, sizeof url, "http://127.0.0.1:%d/lfs", srv.http_port);
	item = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "name", "hub weights",
			 "kind", "weights", "url", url, "version", "rev-1",
			 "provenance", "the hub", "access", "public");
	json_array_append_new(json_object_get(ref, "data"), item);
	open_run(&ctx, dir, ref);
	assert_row(&ctx, "data.hub-weights.sha256", KD_R_FAIL);
	/* the HEAD answered and the size is recorded nowhere yet */
	assert_row(&ctx, "data.hub-weights.url", KD_R_PASS);
	assert_int_equal(kd_stage_reference.actions[2].key, 'w');
	assert_int_equal(kd_stage_reference.actions[2].run(&ctx, "data.hub-weights.sha256", NULL,
							   &err), 0);
	hash_buffer(LFS_BODY, strlen(LFS_BODY), hex);
	assert_string_equal(yamlio_get_str(ctx.ref, "data[2].sha256"), hex);
	assert_int_equal(json_integer_value(yamlio_get(ctx.ref, "data[2].size")),
			 (json_int_t)strlen(LFS_BODY));
	/* the download itself is not kept */
	{
		char p[700];

		snprintf(p, sizeof p, "%s/kernodeck/downloads/hub-weights.download", dir);
		assert_false(fsutil_exists(p));
	}
	/* now the ETag (the SHA-256 of the body) agrees with the reference */
	assert_int_equal(stage_run(&ctx, 0, NULL, NULL, &err), 0);
	assert_row(&ctx, "data.hub-weights.sha256", KD_R_PASS);
	assert_row(&ctx, "data.hub-weights.url", KD_R_PASS);
	assert_non_null(strstr(row(&ctx, "data.hub-weights.url")->observed, "ETag matches"));

	/* a recorded digest that the server's file does not match */
	memset(wrong, 'b', 64);
	wrong[64] = '\0';
	yamlio_set(ctx.ref, "data[2].sha256", json_string(wrong));
	assert_int_equal(kd_ctx_save_ref(&ctx, &err), 0);
	assert_int_equal(stage_run(&ctx, 0, NULL, NULL, &err), 0);
	assert_row(&ctx, "data.hub-weights.url", KD_R_FAIL);
	assert_non_null(strstr(row(&ctx, "data.hub-weights.url")->first_error, "ETag"));
	assert_int_equal(kd_stage_reference.actions[2].run(&ctx, "data.hub-weights.url", NULL,
							   &err), KD_EFAIL);
	assert_string_equal(yamlio_get_str(ctx.ref, "data[2].sha256"), wrong);
	kd_ctx_close(&ctx);
	tu_httpd_stop(&srv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_floating),
		cmocka_unit_test(test_na_and_filled),
		cmocka_unit_test(test_slugs_urls_argv),
		cmocka_unit_test(test_complete_reference_passes),
		cmocka_unit_test(test_changed_data_fails_and_later_stale),
		cmocka_unit_test(test_commit_rules),
		cmocka_unit_test(test_repository_edge_cases),
		cmocka_unit_test(test_missing_items_and_floating),
		cmocka_unit_test(test_contract_rule_and_na),
		cmocka_unit_test(test_submodules),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_rows_from_observations),
		cmocka_unit_test(test_readonly_and_cancel),
		cmocka_unit_test(test_capture_real_venv),
		cmocka_unit_test(test_download_action),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
