/*
 * cmd-dossier.c - `kernodeck dossier [DIR] [--out DIR] [--relative]`: write
 * the dossier of a project headless, as stage 7 does, without running the
 * other stages.  A credential found blocks the write and is named (file,
 * line, kind), never shown.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/cmd.h"
#include "kernodeck/ctx.h"
#include "kernodeck/dossier.h"
#include "kernodeck/paths.h"
#include "kernodeck/yamlio.h"

static int
usage(FILE *fp)
{
	fputs("usage: kernodeck dossier [DIR] [--state-dir DIR] [--out DIR] [--relative]\n"
	      "                         [--redact] [--leave-out FILE]...\n"
	      "Write the dossier (default DIR/kernodeck/dossier); credentials found block it:\n"
	      "--redact puts ${NAME} in their place in the sources, --leave-out keeps a file\n"
	      "out, --relative writes the project's absolute paths relative to it.\n", fp);
	return KD_EINPUT;
}

int
cmd_dossier(int argc, char **argv)
{
	const char *dir = ".", *out = NULL, *state_dir = NULL;
	int relative = 0, redact = 0, rc;
	json_t *leave = json_array();
	struct kd_ctx ctx;
	struct kd_err err;
	json_t *s = NULL, *f;
	char buf[2048];
	size_t i;

	for (int k = 1; k < argc; k++) {
		if (strcmp(argv[k], "--out") == 0 && k + 1 < argc)
			out = argv[++k];
		else if (strcmp(argv[k], "--state-dir") == 0 && k + 1 < argc)
			state_dir = argv[++k];
		else if (strcmp(argv[k], "--relative") == 0)
			relative = 1;
		else if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0) {
			json_decref(leave);
			usage(stdout);
			return 0;
		} else if (strcmp(argv[k], "--redact") == 0)
			redact = 1;
		else if (strcmp(argv[k], "--leave-out") == 0 && k + 1 < argc) {
			char *a = kd_abspath(argv[++k]);
			json_array_append_new(leave, json_string(a));
			free(a);
		} else if (argv[k][0] == '-') {
			json_decref(leave);
			return usage(stderr);
		}
		else
			dir = argv[k];
	}
	kd_err_clear(&err);
	if ((rc = kd_ctx_open(&ctx, dir, state_dir, KD_LOCK_REQUIRED, &err)) != 0) {
		fprintf(stderr, "kernodeck dossier: %s\n", kd_err_format(&err, buf, sizeof buf));
		kd_ctx_close(&ctx);
		json_decref(leave);
		return rc;
	}
	/* files left out are remembered in the state, as the stage's o does */
	if (json_array_size(leave) > 0) {
		json_t *ex = yamlio_get(ctx.state.settings, "dossier.exclude");
		if (!json_is_array(ex))
			yamlio_set(ctx.state.settings, "dossier.exclude", json_array());
		json_array_extend(yamlio_get(ctx.state.settings, "dossier.exclude"), leave);
		kd_ctx_save_state(&ctx, NULL);
	}
	json_decref(leave);
	if (redact) {
		struct dossier_plan p;
		int changed = 0;
		if ((rc = dossier_plan_build(&ctx, relative, &p, &err)) == 0) {
			rc = dossier_redact_sources(&p, &changed, &err);
			if (rc == 0 && p.nfindings > 0)
				printf("redacted %zu credential(s) in %d file(s): each value is now "
				       "${NAME}, to be provided from the environment\n", p.nfindings,
				       changed);
			dossier_plan_free(&p);
		}
		if (rc == 0 && changed > 0)
			rc = kd_ctx_reload_ref(&ctx, &err);
		if (rc != 0) {
			fprintf(stderr, "kernodeck dossier: %s\n", kd_err_format(&err, buf, sizeof buf));
			kd_ctx_close(&ctx);
			return rc;
		}
	}
	char *absout = out ? kd_abspath(out) : NULL;
	rc = dossier_write(&ctx, absout, relative, &s, &err);
	free(absout);
	if (rc != 0) {
		fprintf(stderr, "kernodeck dossier: %s\n", kd_err_format(&err, buf, sizeof buf));
	} else if (json_is_true(json_object_get(s, "written"))) {
		printf("dossier written to %s\n", json_string_value(json_object_get(s, "out")));
		if (json_is_string(json_object_get(s, "moved_aside")))
			printf("the previous dossier is kept in %s\n",
			       json_string_value(json_object_get(s, "moved_aside")));
		json_array_foreach(json_object_get(s, "removed_backups"), i, f)
			printf("an older dossier kernodeck wrote is removed: %s\n",
			       json_string_value(f));
		if (json_is_string(json_object_get(s, "backup_error")))
			fprintf(stderr, "kernodeck dossier: an older dossier is not removed: %s\n",
				json_string_value(json_object_get(s, "backup_error")));
	} else {
		fprintf(stderr, "kernodeck dossier: not written: credentials found\n");
		json_array_foreach(json_object_get(s, "findings"), i, f) {
			const char *src = json_string_value(json_object_get(f, "source"));
			fprintf(stderr, "  %s:%lld: %s%s%s%s\n",
				json_string_value(json_object_get(f, "file")),
				(long long)json_integer_value(json_object_get(f, "line")),
				json_string_value(json_object_get(f, "kind")),
				src ? "  (from " : "", src ? src : "", src ? ")" : "");
		}
		fputs("redact them (the dossier stage's x: values become ${NAME}) or leave their "
		      "files out (o)\n", stderr);
		rc = KD_EFAIL;
	}
	json_decref(s);
	kd_ctx_close(&ctx);
	return rc;
}
