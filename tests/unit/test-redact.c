/*
 * test-redact.c - the redaction on the corpus of planted secrets and
 * look-alikes (tests/fixtures/secrets/), and its small rules one by one.
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
#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/redact.h"
#include "kernodeck/secrets.h"

#define CORPUS KD_SRCDIR "/tests/fixtures/secrets"
#define MAXF 256

static char *
slurp(const char *path, size_t *len)
{
	struct kd_err err;
	char *buf = NULL;

	if (fsutil_read_file(path, 1 << 20, &buf, len, &err) != 0)
		fail_msg("cannot read %s: %s", path, err.msg);
	return buf;
}

static char *
red(const char *s)
{
	size_t n;

	return redact_text(s, strlen(s), &n);
}

/* Every planted secret is found at its line with its kind, nothing else is
 * found, and the redacted text holds none of them. */
static void
test_planted(void **state)
{
	size_t tlen, nrows = 0;
	char *tsv = slurp(CORPUS "/planted.tsv", &tlen);
	char *save = NULL, *line;
	char prev[256] = "";
	(void)state;

	for (line = strtok_r(tsv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char file[256], kind[64], path[512];
		char *value;
		int ln;
		size_t len, n, m, perfile = 0;
		struct redact_finding f[MAXF];
		char *text, *out, *again;

		if (line[0] == '#')
			continue;
		value = strrchr(line, '\t');
		assert_non_null(value);
		*value++ = '\0';
		assert_int_equal(sscanf(line, "%255[^\t]\t%d\t%63s", file, &ln, kind), 3);
		nrows++;
		snprintf(path, sizeof path, CORPUS "/planted/%s", file);
		text = slurp(path, &len);
		n = redact_scan(text, len, f, MAXF);
		int found = 0;
		for (size_t i = 0; i < n && i < MAXF; i++) {
			if (f[i].line != ln || strcmp(f[i].kind, kind) != 0)
				continue;
			/* the span holds the value (or, for a key, its first line) */
			char *span = strndup(text + f[i].off, f[i].len);
			if (strstr(span, value) != NULL)
				found = 1;
			free(span);
		}
		if (!found) {
			for (size_t i = 0; i < n && i < MAXF; i++)
				print_message("  %s:%d: %s\n", file, f[i].line, f[i].kind);
			fail_msg("%s:%d: no %s finding", file, ln, kind);
		}
		out = redact_text(text, len, &m);
		assert_non_null(out);
		if (strstr(out, value) != NULL)
			fail_msg("%s:%d: the value survived redaction", file, ln);
		if (strcmp(kind, "private-key") == 0) {
			/* every line of the block's body is gone */
			char *p = text;
			/* the block's body starts at the finding's line */
			for (int k = 1; k < ln && p; k++)
				p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
			if (p) {
				char *e = strchr(p, '\n');
				char *l1 = strndup(p, e ? (size_t)(e - p) : strlen(p));
				if (strstr(l1, "-----BEGIN") != NULL)
					p = NULL;   /* one line, not a block of lines */
				free(l1);
			}
			while (p && *p && strncmp(p, "-----END", 8) != 0) {
				char *e = strchr(p, '\n');
				char *body = strndup(p, e ? (size_t)(e - p) : strlen(p));
				if (strlen(body) > 8 && strstr(out, body) != NULL)
					fail_msg("%s: a key line survived", file);
				free(body);
				p = e ? e + 1 : NULL;
			}
		}
		/* redaction is idempotent and leaves nothing to find */
		again = redact_text(out, m, NULL);
		assert_string_equal(again, out);
		assert_int_equal(redact_scan(out, m, f, MAXF), 0);
		/* no finding that was not planted: count the file's rows once */
		if (strcmp(prev, file) != 0) {
			FILE *fp = fopen(CORPUS "/planted.tsv", "r");
			char l2[8192];
			assert_non_null(fp);
			while (fgets(l2, sizeof l2, fp))
				if (strncmp(l2, file, strlen(file)) == 0 && l2[strlen(file)] == '\t')
					perfile++;
			fclose(fp);
			if (n != perfile) {
				for (size_t i = 0; i < n && i < MAXF; i++)
					print_message("  %s:%d: %s\n", file, f[i].line, f[i].kind);
				fail_msg("%s: %zu findings, %zu planted", file, n, perfile);
			}
			snprintf(prev, sizeof prev, "%s", file);
		}
		free(again);
		free(out);
		free(text);
	}
	assert_true(nrows >= 30);
	free(tsv);
}

/* Undo the corpus's escapes: \n, \t and \\. */
static char *
unescape(const char *s)
{
	char *o = malloc(strlen(s) + 1), *q = o;

	assert_non_null(o);
	for (; *s; s++) {
		if (*s == '\\' && s[1] != '\0') {
			s++;
			*q++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
		} else {
			*q++ = *s;
		}
	}
	*q = '\0';
	return o;
}

struct row {
	char *verdict, *kind, *value, *text, *var, *raw;
};

/* Split one corpus row in place; 0 for a comment or a short row. */
static int
split_row(char *line, struct row *r)
{
	char *f[6] = { 0 };
	int n = 0;

	if (line[0] == '#' || line[0] == '\0')
		return 0;
	f[n++] = line;
	for (char *p = line; *p && n < 6; p++)
		if (*p == '\t') {
			*p = '\0';
			f[n++] = p + 1;
		}
	if (n < 4)
		return 0;
	r->verdict = f[0];
	r->kind = f[1];
	r->value = f[2];
	r->text = f[3];
	r->var = f[4];
	r->raw = f[5];   /* a known value the text spells otherwise */
	return 1;
}

/* One planted row: a finding of its kind covers the value, the redaction
 * removes it, leaves nothing to find and is idempotent.  Returns 1 when
 * it holds. */
static int
planted_row(const struct row *r, const char *text)
{
	struct redact_finding f[MAXF];
	size_t len = strlen(text), n, m;
	char *value = unescape(r->value), *out, *again, *save = NULL;
	int found = 1, ok, survived = 0;

	n = redact_scan(text, len, f, MAXF);
	out = redact_text(text, len, &m);
	assert_non_null(out);
	/* a value split by a line break: each part is found and removed */
	for (char *part = strtok_r(value, "\n", &save); part; part = strtok_r(NULL, "\n", &save)) {
		int here = 0;
		for (size_t i = 0; i < n && i < MAXF; i++)
			if (strcmp(f[i].kind, r->kind) == 0 && f[i].len >= strlen(part) &&
			    memmem(text + f[i].off, f[i].len, part, strlen(part)) != NULL)
				here = 1;
		found &= here;
		survived |= strstr(out, part) != NULL;
	}
	again = redact_text(out, m, NULL);
	ok = found && !survived && redact_scan(out, m, f, MAXF) == 0 && strcmp(again, out) == 0;
	if (!ok) {
		print_message("  missed %s: %s\n", r->kind, r->text);
		print_message("    -> %s\n", out);
		n = redact_scan(text, len, f, MAXF);
		for (size_t i = 0; i < n && i < MAXF; i++)
			print_message("    found %s at %zu+%zu\n", f[i].kind, f[i].off, f[i].len);
	}
	free(again);
	free(out);
	free(value);
	return ok;
}

/* The corpus (corpus.tsv): every planted value is found with its kind and
 * redacted, at most one look-alike is touched, and on every row the scan
 * and the redaction agree (a finding if and only if the text changes). */
static void
test_corpus(void **state)
{
	size_t tlen, planted = 0, clean = 0, missed = 0, touched = 0, disagree = 0;
	char *tsv = slurp(CORPUS "/corpus.tsv", &tlen);
	char *save = NULL, *line;
	struct row r;
	(void)state;

	redact_value_clear();
	/* the values a run collects at start (environment, pip.conf, ...) */
	for (char *p = tsv; p && *p;) {
		char *e = strchr(p, '\n'), buf[8192];
		size_t n = e ? (size_t)(e - p) : strlen(p);
		snprintf(buf, sizeof buf, "%.*s", (int)n, p);
		if (split_row(buf, &r) && strcmp(r.kind, "known-value") == 0 && r.var != NULL)
			assert_int_equal(redact_value_add(r.var, r.raw ? r.raw : r.value), 1);
		p = e ? e + 1 : NULL;
	}
	for (line = strtok_r(tsv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct redact_finding f[MAXF];
		char *text, *out;
		size_t n, m;

		if (!split_row(line, &r))
			continue;
		text = unescape(r.text);
		n = redact_scan(text, strlen(text), f, MAXF);
		out = redact_text(text, strlen(text), &m);
		assert_non_null(out);
		if ((n > 0) != (strcmp(out, text) != 0)) {
			print_message("  scan and redaction disagree: %s\n", r.text);
			disagree++;
		}
		if (strcmp(r.verdict, "secret") == 0) {
			planted++;
			missed += !planted_row(&r, text);
		} else {
			clean++;
			if (n > 0 || strcmp(out, text) != 0) {
				print_message("  touched look-alike: %s -> %s\n", r.text, out);
				touched++;
			}
		}
		free(out);
		free(text);
	}
	print_message("  corpus: %zu planted (%zu missed), %zu look-alikes (%zu touched)\n",
		      planted, missed, clean, touched);
	assert_true(planted >= 300);   /* 248, and 73 of issue 27 */
	assert_true(clean >= 240);     /* 188, and 63 of issue 27 */
	assert_int_equal(missed, 0);
	assert_true(touched <= 1);
	assert_int_equal(disagree, 0);
	redact_value_clear();
	free(tsv);
}

/* A private key block that arrives line by line (a log) is hidden up to
 * its END line; the line after is untouched. */
static void
test_stream(void **state)
{
	const char *lines[] = {
		"Cloning...", "-----BEGIN OPENSSH PRIVATE KEY-----",
		"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
		"QyNTUxOQAAACBhbm90aGVyIHN5bnRoZXRpYyBrZXkgYm9keSBmb3IgdGVzdHM=",
		"-----END OPENSSH PRIVATE KEY-----", "Done QyNTUxOQ", NULL,
	};
	struct redact_stream st = { 0 };
	size_t n;
	(void)state;

	for (int i = 0; lines[i]; i++) {
		char *o = redact_stream_line(&st, lines[i], strlen(lines[i]), &n);
		assert_non_null(o);
		if (i == 2 || i == 3)
			assert_string_equal(o, "${PRIVATE_KEY}");
		else
			assert_string_equal(o, lines[i]);
		free(o);
	}
	assert_int_equal(st.redacted, 2);
	assert_int_equal(st.in_key, 0);
}

/* Secret-like environment names, and values registered by value. */
static void
test_values(void **state)
{
	char *u;
	(void)state;

	assert_true(secrets_env_name("HF_TOKEN"));
	assert_true(secrets_env_name("WANDB_API_KEY"));
	assert_true(secrets_env_name("MYSQL_ROOT_PASSWORD"));
	assert_true(secrets_env_name("PASSWORD"));
	assert_true(secrets_env_name("CLIENT_SECRET_V2"));
	assert_false(secrets_env_name("KEY_SIZE"));
	assert_false(secrets_env_name("TOKENIZERS_PARALLELISM"));
	assert_false(secrets_env_name("DB_PASSWORD_FILE"));
	assert_false(secrets_env_name("AWS_ACCESS_KEY_ID"));
	assert_false(secrets_env_name("HOME"));

	redact_value_clear();
	assert_int_equal(redact_value_add("LAB_PW", "short"), 0);   /* < REDACT_VALUE_MIN */
	assert_int_equal(redact_value_add("LAB_PW", "${LAB_PW}"), 0);
	assert_int_equal(redact_value_add("LAB_PW", "c0rrect-h0rse!"), 1);
	assert_int_equal(redact_value_add("OTHER", "c0rrect-h0rse!"), 0);   /* known */
	u = red("login with c0rrect-h0rse! failed; c0rrect-h0rse! again");
	assert_string_equal(u, "login with ${LAB_PW} failed; ${LAB_PW} again");
	free(u);
	redact_value_clear();
	u = red("login with c0rrect-h0rse! failed");
	assert_string_equal(u, "login with c0rrect-h0rse! failed");
	free(u);
}

static void
write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* secrets_collect: the environment, pip.conf (PIP_CONFIG_FILE), ~/.netrc,
 * ~/.gitconfig and ~/.git-credentials give values that are then hidden
 * wherever they appear; ordinary values are not collected. */
static void
test_collect(void **state)
{
	char home[] = "/tmp/kd-test-redact-XXXXXX", p[800], pipconf[600], env0[700];
	char *env[8], *u;
	(void)state;

	assert_non_null(mkdtemp(home));
	snprintf(pipconf, sizeof pipconf, "%s/pip.conf", home);
	write_file(pipconf, "[global]\nindex-url = https://ci:Pq7%40Zw9xRt2@pypi.example.com/simple\n");
	snprintf(p, sizeof p, "%s/.netrc", home);
	write_file(p, "machine files.example.com\n  login bob\n  password hunter2hunter2x\n");
	snprintf(p, sizeof p, "%s/.gitconfig", home);
	write_file(p, "[remote \"origin\"]\n\turl = https://oauth2:gitpw8812Zq@git.example.com/x.git\n");
	snprintf(p, sizeof p, "%s/.git-credentials", home);
	write_file(p, "https://bob:credpw4471Xy@git.example.com\n");
	snprintf(env0, sizeof env0, "HOME=%s", home);
	env[0] = env0;
	env[1] = "LAB_DB_PASSWORD=Tr0ub4dor&3xyz";
	env[2] = "KEY_SIZE=4096";
	env[3] = "DEPLOY_SECRET=production";
	snprintf(p, sizeof p, "PIP_CONFIG_FILE=%s", pipconf);
	env[4] = p;
	env[5] = "DATABASE_URL=postgres://app:pgpw5521Kq@db.example.com/x";
	env[6] = "XDG_CONFIG_HOME=/nonexistent";
	env[7] = NULL;
	redact_value_clear();
	assert_true(secrets_collect(env) >= 7);
	u = red("a Tr0ub4dor&3xyz b Pq7@Zw9xRt2 c hunter2hunter2x d gitpw8812Zq e credpw4471Xy "
		"f pgpw5521Kq g 4096 production");
	assert_string_equal(u, "a ${LAB_DB_PASSWORD} b ${CREDENTIALS} c ${NETRC_PASSWORD} "
			    "d ${CREDENTIALS} e ${CREDENTIALS} f ${CREDENTIALS} g 4096 production");
	free(u);
	redact_value_clear();
	for (int i = 0; i < 4; i++) {
		static const char *const rel[] = { "pip.conf", ".netrc", ".gitconfig",
						   ".git-credentials" };
		snprintf(p, sizeof p, "%s/%s", home, rel[i]);
		assert_int_equal(unlink(p), 0);
	}
	assert_int_equal(rmdir(home), 0);
}

/* A CI checkout's .git/config: http.<url>.extraheader holds a Basic
 * authorization; the token inside it is hidden wherever it is printed
 * alone, and user:token too. */
static void
test_basic(void **state)
{
	char dir[] = "/tmp/kd-test-basic-XXXXXX", p[600];
	char *u;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof p, "%s/.git", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/.git/config", dir);
	write_file(p, "[http \"https://github.com/\"]\n"
		      "\textraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46UnE3dFcybXo5S3BMeDRWYg==\n");
	redact_value_clear();
	assert_true(secrets_collect_project(dir) >= 2);
	u = red("token Rq7tW2mz9KpLx4Vb and x-access-token:Rq7tW2mz9KpLx4Vb and Rq7tW2mz9K\npLx4Vb");
	assert_null(strstr(u, "Rq7tW2mz9KpLx4Vb"));
	assert_null(strstr(u, "Rq7tW2mz9K"));
	assert_null(strstr(u, "pLx4Vb"));
	free(u);
	redact_value_clear();
	assert_int_equal(unlink(p), 0);
	snprintf(p, sizeof p, "%s/.git", dir);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* Look-alikes: nothing found, nothing changed. */
static void
test_lookalikes(void **state)
{
	DIR *d = opendir(CORPUS "/lookalike");
	struct dirent *de;
	size_t lines = 0, files = 0;
	(void)state;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		char path[512];
		size_t len, m, n;
		struct redact_finding f[MAXF];
		char *text, *out;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, CORPUS "/lookalike/%s", de->d_name);
		text = slurp(path, &len);
		files++;
		for (size_t i = 0; i < len; i++)
			if (text[i] == '\n')
				lines++;
		n = redact_scan(text, len, f, MAXF);
		for (size_t i = 0; i < n && i < MAXF; i++)
			print_message("  %s:%d: %s \"%.*s\"\n", de->d_name, f[i].line, f[i].kind,
				      (int)f[i].len, text + f[i].off);
		assert_int_equal(n, 0);
		out = redact_text(text, len, &m);
		assert_int_equal(m, len);
		assert_memory_equal(out, text, len);
		free(out);
		free(text);
	}
	closedir(d);
	assert_true(files >= 5);
	assert_true(lines >= 30);
}

static void
test_url(void **state)
{
	int had;
	char *u;
	(void)state;

	u = redact_url("https://bob:pw1234@example.org/simple", &had);
	assert_string_equal(u, "https://example.org/simple");
	assert_int_equal(had, 1);
	free(u);
	u = redact_url("ssh://git@github.com/acme/x.git", &had);
	assert_string_equal(u, "ssh://git@github.com/acme/x.git");
	assert_int_equal(had, 0);
	free(u);
	u = redact_url("https://example.org:8443/a@b", &had);
	assert_int_equal(had, 0);
	free(u);
	u = red("pip install --index-url https://u:p4ss@h/simple x");
	assert_string_equal(u, "pip install --index-url https://${CREDENTIALS}@h/simple x");
	free(u);
}

/* Each text redacts to its expected form. */
static void
expect_red(const char *const (*pairs)[2], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *u = red(pairs[i][0]);
		assert_string_equal(u, pairs[i][1]);
		free(u);
	}
}

/* The replacement names what must be provided. */
static void
test_names(void **state)
{
	static const char *const pairs[][2] = {
		{ "HF_TOKEN=hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgHiJ\n", "HF_TOKEN=${HF_TOKEN}\n" },
		{ "  db_password: 'x9!kq'\n", "  db_password: '${DB_PASSWORD}'\n" },
		{ "run --api-key=Zk83hQ0pLm2Xv7Rt5Yw1 --n 3", "run --api-key=${API_KEY} --n 3" },
		{ "Authorization: Basic YWxpY2U6c2VjcmV0cGFzcw==", "Authorization: Basic ${BASIC_AUTH}" },
	};
	(void)state;
	expect_red(pairs, sizeof pairs / sizeof pairs[0]);
}

static void
test_private_key(void **state)
{
	const char *t = "a\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB3x\nQ29mZmVl\n"
			"-----END EC PRIVATE KEY-----\nb\n";
	struct redact_finding f[4];
	char *u;
	(void)state;

	assert_int_equal(redact_scan(t, strlen(t), f, 4), 1);
	assert_int_equal(f[0].line, 3);
	assert_string_equal(f[0].kind, "private-key");
	u = red(t);
	assert_string_equal(u, "a\n-----BEGIN EC PRIVATE KEY-----\n${PRIVATE_KEY}\n"
			    "-----END EC PRIVATE KEY-----\nb\n");
	free(u);
	/* cut before its END line: the rest is hidden */
	u = red("x\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\nkqhkiG9w0");
	assert_null(strstr(u, "MIIEvQ"));
	assert_null(strstr(u, "kqhkiG"));
	free(u);
}

/* A finding never carries the value into its own fields. */
static void
test_finding_fields(void **state)
{
	const char *t = "x\nexport GITLAB_TOKEN=glpat-Ab3dEf6hIj9kLm2nOp5q\n";
	struct redact_finding f[2];
	(void)state;

	assert_int_equal(redact_scan(t, strlen(t), f, 2), 1);
	assert_int_equal(f[0].line, 2);
	assert_string_equal(f[0].kind, "gitlab-token");
	assert_string_equal(f[0].name, "GITLAB_TOKEN");
	assert_null(strstr(f[0].name, "glpat"));
	/* max smaller than the number of findings: the count is still right */
	assert_int_equal(redact_scan("a_token=Q1w2e3r4t5 b_token=Z9x8c7v6b5", 37, f, 0), 2);
}

static void
test_credential_files(void **state)
{
	(void)state;
	assert_string_equal(redact_credential_file("/home/a/.netrc"), "netrc-file");
	assert_string_equal(redact_credential_file(".git-credentials"), "credentials-file");
	assert_null(redact_credential_file("requirements.txt"));
}

/* Big inputs stay linear: 4 MB of log lines in well under a second. */
static void
test_large(void **state)
{
	const char *l = "Collecting numpy==1.26.4 from https://pypi.org/simple (token: none)\n";
	size_t ll = strlen(l), n = (4u << 20) / ll, m;
	char *buf = malloc(n * ll + 1), *out;
	(void)state;

	for (size_t i = 0; i < n; i++)
		memcpy(buf + i * ll, l, ll);
	buf[n * ll] = '\0';
	out = redact_text(buf, n * ll, &m);
	assert_int_equal(m, n * ll);
	free(out);
	free(buf);
}

/* A known value in every spelling: percent-encoded in either case,
 * JSON-escaped, split by a line break (in a text and in a stream). */
static void
test_spellings(void **state)
{
	struct redact_stream st = { 0 };
	char *u, *a, *b;
	size_t n;
	(void)state;

	redact_value_clear();
	assert_int_equal(redact_value_add("GIT_PASSWORD", "pw:Zq8/vK3@x"), 1);
	u = red("q=pw%3aZq8%2fvK3%40x&r=1 and pw%3AZq8%2FvK3%40x and pw:Zq8/vK3@x");
	assert_string_equal(u, "q=${GIT_PASSWORD}&r=1 and ${GIT_PASSWORD} and ${GIT_PASSWORD}");
	free(u);
	u = red("{\"p\": \"pw:Zq8\\/\\u0076K3@x\", \"q\": \"pw:Zq8/\\u0076K3\\u0040x\"}");
	assert_string_equal(u, "{\"p\": \"${GIT_PASSWORD}\", \"q\": \"${GIT_PASSWORD}\"}");
	free(u);
	/* split by a line break: both lines keep their shape */
	u = red("token pw:Zq8\n/vK3@x done\nnext line\n");
	assert_string_equal(u, "token ${GIT_PASSWORD}\n${GIT_PASSWORD} done\nnext line\n");
	free(u);
	u = red("a pw:Zq8/v\r\n   K3@x\n");
	assert_string_equal(u, "a ${GIT_PASSWORD}\r\n   ${GIT_PASSWORD}\n");
	free(u);
	/* the same in a stream: the line knows the next one */
	a = redact_stream_next(&st, "token pw:Z", 10, "q8/vK3@x done", 13, &n);
	assert_string_equal(a, "token ${GIT_PASSWORD}");
	b = redact_stream_next(&st, "q8/vK3@x done", 13, NULL, 0, &n);
	assert_string_equal(b, "${GIT_PASSWORD} done");
	assert_int_equal(st.carry, 0);
	free(a);
	free(b);
	/* a prefix alone is not the value */
	u = red("token pw:Zq8\nnothing here\n");
	assert_string_equal(u, "token pw:Zq8\nnothing here\n");
	free(u);
	redact_value_clear();
}

/* A redaction inside a YAML flow collection keeps the file YAML: the
 * value ends at the flow indicator, and the plain scalar is quoted. */
static void
test_flow(void **state)
{
	static const char *const pairs[][2] = {
		{ "  entry_point: [python, run.py, --password=Xk29vLq0Pz]\n",
		  "  entry_point: [python, run.py, \"--password=${PASSWORD}\"]\n" },
		{ "db: {user: bob, password: Xk29vLq0Pz, port: 5432}\n",
		  "db: {user: bob, password: \"${PASSWORD}\", port: 5432}\n" },
		{ "args: [\"--token=Xk29vLq0Pz\", x]\n", "args: [\"--token=${TOKEN}\", x]\n" },
		{ "run: [python, run.py, --password, Xk29vLq0Pz, --n, 3]\n",
		  "run: [python, run.py, --password, \"${PASSWORD}\", --n, 3]\n" },
		/* not YAML: a log's bracket */
		{ "Epoch [1/10 --token=Xk29vLq0Pz\n", "Epoch [1/10 --token=${TOKEN}\n" },
	};
	(void)state;
	expect_red(pairs, sizeof pairs / sizeof pairs[0]);
}

/* Shapes of issue 27: URL query parameters by family, command lines by
 * convention, and their look-alikes kept. */
static void
test_shapes3(void **state)
{
	static const char *const pairs[][2] = {
		{ "GET /v1?page=2&access_token=Zk83hQ0pLm2Xv7 200", "GET /v1?page=2&access_token=${ACCESS_TOKEN} 200" },
		{ "https://h/x?code=4aZ0bX9Lq2Ww&state=ok", "https://h/x?code=${CODE}&state=ok" },
		{ "https://h/x?code=python&page=2&key-size=2048", "https://h/x?code=python&page=2&key-size=2048" },
		{ "sshpass -p Zk83hQ0pLm2Xv7 ssh node3", "sshpass -p ${SSHPASS} ssh node3" },
		{ "mysql -u root -pZk83hQ0pLm2Xv7 runs", "mysql -u root -p${MYSQL_PWD} runs" },
		{ "docker login -u ci -p Zk83hQ0pLm2Xv7 r.example.com", "docker login -u ci -p ${DOCKER_PASSWORD} r.example.com" },
		{ "wandb login Zk83hQ0pLm2Xv7aa11bb22cc33dd44ee55ff66", "wandb login ${WANDB_API_KEY}" },
		{ "docker run -p 8080:80 nginx && ssh -p 2222 node3", "docker run -p 8080:80 nginx && ssh -p 2222 node3" },
		{ "python train.py --key-size 2048", "python train.py --key-size 2048" },
	};
	(void)state;
	expect_red(pairs, sizeof pairs / sizeof pairs[0]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_planted),
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_collect),
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_lookalikes),
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_private_key),
		cmocka_unit_test(test_finding_fields),
		cmocka_unit_test(test_credential_files),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_spellings),
		cmocka_unit_test(test_flow),
		cmocka_unit_test(test_shapes3),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
