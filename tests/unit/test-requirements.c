/* test-requirements.c - requirements files: the real ones of tests/fixtures/pip
 * (sources in its SOURCES.md), the lint on kernodeck's own,
 * and the reading rules (continuations, comments, options). */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernodeck/inspect.h"
#include "kernodeck/parse-requirements.h"

#define FIX KD_SRCDIR "/tests/fixtures/pip/requirements/"

static json_t *
load(const char *name, int flags)
{
	struct kd_err err = { 0 };
	json_t *t = NULL;

	if (requirements_load(name, flags, &t, &err) != 0)
		fail_msg("%s: %s", name, err.msg);
	return t;
}

static json_t *
mem(const char *text)
{
	struct kd_err err = { 0 };
	json_t *t = NULL;

	if (requirements_parse(text, strlen(text), "<mem>", &t, &err) != 0)
		fail_msg("<mem>: %s", err.msg);
	return t;
}

static const char *
s(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));
	return v ? v : "(null)";
}

static const json_t *
req(const json_t *t, const char *canon)
{
	const json_t *r;
	size_t i;

	json_array_foreach(json_object_get(t, "requirements"), i, r)
		if (strcmp(s(r, "canonical_name"), canon) == 0)
			return r;
	fail_msg("no requirement %s", canon);
	return NULL;
}

static size_t
nreq(const json_t *t)
{
	return json_array_size(json_object_get(t, "requirements"));
}

/* Number of findings with code (and severity, when not NULL). */
static size_t
nfind(const json_t *t, const char *code, const char *sev)
{
	const json_t *f;
	size_t i, n = 0;

	json_array_foreach(json_object_get(t, "findings"), i, f)
		if (strcmp(s(f, "code"), code) == 0 && (sev == NULL || strcmp(s(f, "severity"), sev) == 0))
			n++;
	return n;
}

static const json_t *
find(const json_t *t, const char *code, int line)
{
	const json_t *f;
	size_t i;

	json_array_foreach(json_object_get(t, "findings"), i, f)
		if (strcmp(s(f, "code"), code) == 0 &&
		    json_integer_value(json_object_get(f, "line")) == line)
			return f;
	fail_msg("no finding %s on line %d", code, line);
	return NULL;
}

static void
test_real_01(void **state)
{
	json_t *t = load(FIX "01.txt", 0);

	(void)state;
	assert_true(json_is_null(json_object_get(t, "index_url")));
	assert_string_equal(json_string_value(json_array_get(json_object_get(t, "extra_index_urls"), 0)),
			    "https://download.pytorch.org/whl/cu121");
	assert_int_equal(json_array_size(json_object_get(t, "find_links")), 0);
	assert_string_equal(json_string_value(json_array_get(json_object_get(t, "includes"), 0)),
			    "torch_common.txt");
	assert_int_equal(nreq(t), 4);
	assert_string_equal(s(req(t, "torch"), "marker"), "sys_platform == 'linux'");
	assert_string_equal(s(req(t, "torch"), "specifier"), "==2.2.0+cu121");
	assert_string_equal(s(req(t, "torch"), "local_label"), "cu121");
	assert_string_equal(s(req(t, "torchvision"), "local_label"), "cu121");
	assert_string_equal(s(req(t, "torchaudio"), "local_label"), "cu121");
	assert_null(json_object_get(req(t, "torchtext"), "local_label"));
	assert_true(json_is_false(json_object_get(t, "hash_mode")));
	/* the comment's URL is not an option */
	assert_int_equal(json_array_size(json_object_get(t, "extra_index_urls")), 1);
	/* the include is not next to the fixture: a finding */
	assert_int_equal(nfind(t, "include", "fail"), 1);
	assert_string_equal(s(json_object_get(t, "torch_variant"), "variant"), "cu121");
	assert_int_equal(nfind(t, "torch-source", NULL), 0);
	json_decref(t);
}

static void
test_real_05(void **state)
{
	json_t *t = load(FIX "05.txt", 0);
	const json_t *fl = json_object_get(t, "find_links");

	(void)state;
	assert_string_equal(json_string_value(json_array_get(json_object_get(t, "extra_index_urls"), 0)),
			    "https://download.pytorch.org/whl/cu121");
	assert_int_equal(json_array_size(fl), 2);
	assert_string_equal(json_string_value(json_array_get(fl, 0)),
			    "https://data.pyg.org/whl/torch-2.3.0+cu121.html");
	assert_string_equal(json_string_value(json_array_get(fl, 1)),
			    "https://storage.googleapis.com/jax-releases/jax_cuda_releases.html");
	assert_int_equal(nreq(t), 13);
	assert_string_equal(s(req(t, "tensorflow"), "marker"),
			    "python_version < '3.12' and (sys_platform != 'darwin' or platform_machine != 'arm64')");
	assert_string_equal(s(req(t, "torch-scatter"), "local_label"), "pt23cu121");
	assert_string_equal(s(req(t, "jaxlib"), "local_label"), "cuda12.cudnn89");
	assert_string_equal(s(req(t, "tensorflow-datasets"), "specifier"), "");
	assert_int_equal(nfind(t, "unpinned", "warn"), 2);
	assert_true(json_is_false(json_object_get(t, "hash_mode")));
	json_decref(t);
	/* strict: unpinned fails */
	t = load(FIX "05.txt", REQ_STRICT);
	assert_int_equal(nfind(t, "unpinned", "fail"), 2);
	json_decref(t);
}

static void
test_real_09_constraints(void **state)
{
	json_t *t = load(FIX "09.txt", 0);

	(void)state;
	assert_string_equal(json_string_value(json_array_get(json_object_get(t, "constraints"), 0)),
			    "homeassistant/package_constraints.txt");
	assert_int_equal(json_array_size(json_object_get(t, "includes")), 0);
	assert_true(json_is_null(json_object_get(t, "index_url")));
	assert_int_equal(nreq(t), 60);
	assert_true(json_is_false(json_object_get(t, "hash_mode")));
	assert_string_equal(s(req(t, "fnv-hash-fast"), "specifier"), "==2.0.3");
	assert_int_equal(json_array_size(json_object_get(req(t, "fnv-hash-fast"), "hashes")), 0);
	assert_string_equal(s(req(t, "typing-extensions"), "specifier"), ">=4.15.0,<5.0");
	json_decref(t);
}

static void
test_real_10_hashes(void **state)
{
	json_t *t = load(FIX "10.txt", 0);
	const json_t *r;

	(void)state;
	assert_int_equal(nreq(t), 1);
	r = req(t, "ruff");
	assert_string_equal(s(r, "specifier"), "==0.8.2");
	assert_int_equal(json_array_size(json_object_get(r, "hashes")), 18);
	assert_string_equal(json_string_value(json_array_get(json_object_get(r, "hashes"), 0)),
			    "sha256:1ca4e3a87496dc07d2427b7dd7ffa88a1e597c28dad65ae6433ecb9f2e4f022f");
	assert_int_equal(json_integer_value(json_object_get(r, "line")), 3);
	assert_true(json_is_true(json_object_get(t, "hash_mode")));
	assert_int_equal(nfind(t, "hashes", NULL), 0);
	assert_int_equal(json_array_size(json_object_get(t, "findings")), 0);
	json_decref(t);
}

static void
test_lint_all(void **state)
{
	json_t *t = load(FIX "k01-lint.txt", 0);
	char *dump = json_dumps(t, 0);

	(void)state;
	/* credential in the index URL (line 2); ${VAR} userinfo is fine (line 3) */
	assert_int_equal(nfind(t, "credential", "fail"), 1);
	find(t, "credential", 2);
	assert_null(strstr(dump, "s3cretpass"));
	free(dump);
	assert_string_equal(s(t, "index_url"), "https://pypi.example.org/simple");
	/* -c pins certifi: not unpinned; -r followed; a missing -r is a finding */
	assert_true(json_is_false(json_object_get(req(t, "certifi"), "pinned")));
	assert_non_null(json_object_get(req(t, "certifi"), "pinned_by_constraint"));
	assert_string_equal(s(req(t, "idna"), "file"), FIX "k01-sub/more.txt");
	assert_int_equal(json_array_size(json_object_get(req(t, "idna"), "hashes")), 1);
	find(t, "include", 6);
	assert_int_equal(nfind(t, "include", "fail"), 1);
	/* unpinned: torch>=2.0 and numpy (>=1.20) */
	assert_int_equal(nfind(t, "unpinned", "warn"), 2);
	find(t, "unpinned", 8);
	find(t, "unpinned", 17);
	assert_string_equal(s(req(t, "numpy"), "specifier"), ">=1.20");
	/* torch without a variant source */
	find(t, "torch-source", 8);
	/* hashes: some have --hash, so every one needs one */
	assert_true(json_is_true(json_object_get(t, "hash_mode")));
	find(t, "hashes", 12);          /* urllib3==2.2.1 without hash */
	assert_int_equal(json_array_size(json_object_get(req(t, "requests"), "hashes")), 1);
	assert_int_equal(json_integer_value(json_object_get(req(t, "requests"), "line")), 10);
	/* local paths: --find-links /opt/wheels, the /home wheel, -e /home/... */
	find(t, "local-path", 7);
	find(t, "local-path", 14);
	find(t, "local-path", 15);
	assert_int_equal(nfind(t, "local-path", NULL), 3);
	/* relative wheel: a path requirement, named from its file name */
	assert_string_equal(s(req(t, "pkg"), "path"), "./local/pkg-1.0-py3-none-any.whl");
	/* an editable absolute path looks like pip freeze */
	find(t, "freeze", 15);
	find(t, "unknown-option", 16);
	json_decref(t);
	/* strict makes unpinned and the torch source fail */
	t = load(FIX "k01-lint.txt", REQ_STRICT);
	assert_int_equal(nfind(t, "unpinned", "fail"), 2);
	assert_int_equal(nfind(t, "torch-source", "fail"), 1);
	json_decref(t);
}

static void
test_clean_file(void **state)
{
	json_t *t = load(FIX "k02-clean.txt", REQ_STRICT);

	(void)state;
	assert_int_equal(json_array_size(json_object_get(t, "findings")), 0);
	assert_int_equal(nreq(t), 3);
	assert_string_equal(s(json_object_get(t, "torch_variant"), "variant"), "cu121");
	assert_int_equal(json_array_size(json_object_get(t, "files")), 2);
	assert_int_equal(strlen(s(json_array_get(json_object_get(t, "files"), 1), "sha256")), 64);
	assert_string_equal(s(req(t, "numpy"), "marker"), "python_version >= \"3.9\"");
	json_decref(t);
	/* the variant from the index URL alone */
	t = mem("--index-url https://download.pytorch.org/whl/rocm6.2\ntorch==2.5.1\n");
	assert_string_equal(s(json_object_get(t, "torch_variant"), "variant"), "rocm6.2");
	assert_int_equal(json_array_size(json_object_get(t, "findings")), 0);
	json_decref(t);
}

static void
test_reading_rules(void **state)
{
	json_t *t;

	(void)state;
	/* continuation, inline comment, #egg fragment kept, options after it */
	t = mem("foo==1.0 \\\n  --hash=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
		" # c\n"
		"git+https://github.com/a/b.git@0123456789abcdef0123456789abcdef01234567#egg=bpkg\n"
		"extra[x, y]==2 ; python_version<'3.12'\n"
		"named @ https://example.org/named-1.0.tar.gz\n"
		"# a comment ending in a backslash \\\n"
		"last==3\n");
	assert_int_equal(nreq(t), 5);
	assert_int_equal(json_array_size(json_object_get(req(t, "foo"), "hashes")), 1);
	assert_true(json_is_true(json_object_get(req(t, "bpkg"), "pinned")));
	assert_string_equal(s(req(t, "extra"), "marker"), "python_version<'3.12'");
	assert_int_equal(json_array_size(json_object_get(req(t, "extra"), "extras")), 2);
	assert_string_equal(s(req(t, "named"), "url"), "https://example.org/named-1.0.tar.gz");
	assert_int_equal(json_integer_value(json_object_get(req(t, "last"), "line")), 7);
	json_decref(t);
	/* noise around a pasted file, a hash without pin, a freeze line */
	t = mem("$ cat requirements.txt\n```\nbar>=1 --hash=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"
		"x @ file:///tmp/build/x_1/work\n```\n");
	assert_int_equal(nreq(t), 2);
	assert_int_equal(nfind(t, "hashes", "fail"), 2);
	assert_int_equal(nfind(t, "freeze", "warn"), 1);
	assert_int_equal(nfind(t, "local-path", "warn"), 1);
	json_decref(t);
	/* bad lines */
	t = mem("-r\n==1.0\nfoo[bar\nok==1\n");
	assert_int_equal(nreq(t), 1);
	assert_int_equal(nfind(t, "syntax", "fail"), 3);
	json_decref(t);
	/* a binary file is refused with its line */
	{
		struct kd_err err = { 0 };
		assert_int_equal(requirements_parse("a==1\nb\0", 7, "bin.txt", &t, &err), KD_EINPUT);
		assert_int_equal(err.line, 2);
		assert_int_equal(inspect_requirements(FIX "missing.txt", &t, &err), KD_EINPUT);
	}
}

static void
test_include_cycle(void **state)
{
	char dir[] = "/tmp/kdreq.XXXXXX";
	char a[256], b[256];
	FILE *fp;
	json_t *t;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof a, "%s/a.txt", dir);
	snprintf(b, sizeof b, "%s/b.txt", dir);
	fp = fopen(a, "w");
	fputs("-r b.txt\nalpha==1\n", fp);
	fclose(fp);
	fp = fopen(b, "w");
	fputs("-r a.txt\nbeta==2\n", fp);
	fclose(fp);
	t = load(a, 0);
	assert_int_equal(nreq(t), 2);
	assert_int_equal(nfind(t, "include", "fail"), 1);
	json_decref(t);
	remove(a);
	remove(b);
	rmdir(dir);
}

/* The syntax findings of a one-line file (0 when pip would read it). */
static size_t
syntax_findings(const char *text, const char *code, char *msg, size_t len)
{
	json_t *t = mem(text);
	const json_t *f;
	size_t i, n = 0;

	msg[0] = '\0';
	json_array_foreach(json_object_get(t, "findings"), i, f)
		if (strcmp(json_string_value(json_object_get(f, "code")), code) == 0 &&
		    strcmp(json_string_value(json_object_get(f, "severity")), "fail") == 0) {
			if (n++ == 0)
				snprintf(msg, len, "%s", json_string_value(json_object_get(f,
									"message")));
		}
	json_decref(t);
	return n;
}

/* Environment markers by PEP 508's grammar: cases in the spirit of the
 * marker tests of packaging and pip (written here). */
static void
test_markers_pep508(void **state)
{
	static const char *const good[] = {
		"a==1 ; python_version >= \"3.8\"\n",
		"a==1; python_version<'3.12' and sys_platform == 'linux'\n",
		"a==1 ; (os_name == 'nt' or os_name == 'posix') and extra == 'gpu'\n",
		"a==1 ; 'linux' in sys_platform\n",
		"a==1 ; platform_machine not in 'arm64 aarch64'\n",
		"a==1 ; python_full_version === '3.11.2'\n",
		"a==1 ; implementation_name == \"cpython\" and platform_python_implementation != 'PyPy'\n",
		"a @ https://example.org/a-1.0-py3-none-any.whl ; python_version > '3'\n",
		"a==1 ; ((python_version >= '3.8'))\n",
	};
	static const struct { const char *line, *why; } bad[] = {
		{ "a==1 ; python_version >= 3.8\n", "not quoted" },
		{ "a==1 ; pyversion >= '3.8'\n", "pyversion is not a marker variable" },
		{ "a==1 ; python_version >= '3.8' and\n", "ends where a variable" },
		{ "a==1 ; or python_version >= '3.8'\n", "or is not a marker variable" },
		{ "a==1 ; (python_version >= '3.8'\n", "not closed" },
		{ "a==1 ; python_version >= '3.8')\n", "without its" },
		{ "a==1 ; python_version >= '3.8' ; os_name == 'nt'\n", "second ';'" },
		{ "a==1 ; 'a' == 'b'\n", "variable on one side" },
		{ "a==1 ; python_version\n", "comparison is expected" },
		{ "a==1 ; python_version not '3'\n", "followed by \"in\"" },
		{ "a==1 ; python_version == '3\n", "not closed" },
		{ "a==1 ;\n", "empty marker" },
	};
	char msg[1024];

	(void)state;
	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		if (syntax_findings(good[i], "syntax", msg, sizeof msg) != 0)
			fail_msg("refused: %s-> %s", good[i], msg);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		if (syntax_findings(bad[i].line, "syntax", msg, sizeof msg) != 1 ||
		    strstr(msg, bad[i].why) == NULL || strstr(msg, "line 1") == NULL)
			fail_msg("%s-> \"%s\" (want \"%s\")", bad[i].line, msg, bad[i].why);
}

/* --hash: the algorithms pip allows, each with its length; -e with
 * #egg=name[extra]; a wheel's version from its name; a URL pip cannot
 * fetch. */
static void
test_pip_agreement(void **state)
{
	static const struct { const char *line; size_t n; } hashes[] = {
		{ "a==1 --hash=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n", 0 },
		{ "a==1 --hash=sha384:0123456789abcdef0123456789abcdef0123456789abcdef"
		  "0123456789abcdef0123456789abcdef0123456789abcdef\n", 0 },
		{ "a==1 --hash=sha512:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
		  "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n", 0 },
		{ "a==1 --hash=md5:0123456789abcdef0123456789abcdef\n", 1 },
		{ "a==1 --hash=sha1:0123456789abcdef0123456789abcdef01234567\n", 1 },
		{ "a==1 --hash=sha256:0123456789abcdef\n", 1 },
		{ "a==1 --hash=sha256:zz23456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n", 1 },
	};
	char msg[1024];
	json_t *t;
	const json_t *r;

	(void)state;
	for (size_t i = 0; i < sizeof hashes / sizeof *hashes; i++)
		/* a refused --hash leaves the requirement without one: a second finding */
		if ((syntax_findings(hashes[i].line, "hashes", msg, sizeof msg) > 0) != (hashes[i].n > 0))
			fail_msg("%s-> %s", hashes[i].line, msg[0] ? msg : "accepted");
	assert_true(syntax_findings("a==1 --hash=md5:0123456789abcdef0123456789abcdef\n",
				    "hashes", msg, sizeof msg) >= 1);
	assert_non_null(strstr(msg, "sha256, sha384 and sha512"));

	t = mem("-e git+https://example.org/r.git@0123456789abcdef0123456789abcdef01234567"
		"#egg=My_Pkg[gpu,test]\n");
	r = json_array_get(json_object_get(t, "requirements"), 0);
	assert_string_equal(json_string_value(json_object_get(r, "name")), "My_Pkg");
	assert_string_equal(json_string_value(json_object_get(r, "canonical_name")), "my-pkg");
	assert_int_equal(json_array_size(json_object_get(r, "extras")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(r, "extras"), 1)),
			    "test");
	json_decref(t);

	t = mem("./wheels/torch-2.3.1+cpu-cp311-cp311-linux_x86_64.whl\n"
		"https://example.org/w/numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.whl\n");
	r = json_array_get(json_object_get(t, "requirements"), 0);
	assert_string_equal(json_string_value(json_object_get(r, "version")), "2.3.1+cpu");
	assert_string_equal(json_string_value(json_object_get(r, "specifier")), "==2.3.1+cpu");
	assert_string_equal(json_string_value(json_object_get(r, "local_label")), "cpu");
	r = json_array_get(json_object_get(t, "requirements"), 1);
	assert_string_equal(json_string_value(json_object_get(r, "version")), "1.26.4");
	json_decref(t);

	assert_int_equal(syntax_findings("https://example.org/a-1.0.tar.gz\n", "syntax", msg,
					 sizeof msg), 0);
	assert_int_equal(syntax_findings("ftp://example.org/a-1.0.tar.gz\n", "syntax", msg,
					 sizeof msg), 1);
	assert_non_null(strstr(msg, "pip cannot fetch a ftp: URL"));
	assert_int_equal(syntax_findings("a @ s3://bucket/a-1.0-py3-none-any.whl\n", "syntax", msg,
					 sizeof msg), 1);
	assert_int_equal(syntax_findings("a @ git+ssh://git@example.org/a.git@v1\n", "syntax", msg,
					 sizeof msg), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_01),
		cmocka_unit_test(test_real_05),
		cmocka_unit_test(test_real_09_constraints),
		cmocka_unit_test(test_real_10_hashes),
		cmocka_unit_test(test_lint_all),
		cmocka_unit_test(test_clean_file),
		cmocka_unit_test(test_reading_rules),
		cmocka_unit_test(test_include_cycle),
		cmocka_unit_test(test_markers_pep508),
		cmocka_unit_test(test_pip_agreement),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
