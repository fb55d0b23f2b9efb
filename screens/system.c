/*
 * system.c - the screen of stage "system": the system chain of this machine, apart from Python packages.
 * A thin view: the fields, checks and log are drawn by the frame's default
 * view from kd_stage_system; this file only says what to do first, opens
 * the fleet matrix (F) and imports a colleague's paste (P): the same
 * comparison as `kernodeck diff PASTE`.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/paste.h"
#include "kernodeck/screen.h"

#define KD_PASTE_SHOWN 40   /* lines of the comparison shown in the box */

static int
validate_file(void *u, const char *text, char *error, size_t len)
{
	(void)u;
	if (text == NULL || *text == '\0') {
		snprintf(error, len, "Give the file that holds the paste.");
		return 1;
	}
	if (!fsutil_exists(text)) {
		snprintf(error, len, "No such file.");
		return 1;
	}
	return 0;
}

/* The comparison as text, cut to what the box can show. */
static char *
compare_text(const json_t *r, const char *file)
{
	char *text = NULL, *cut;
	size_t len = 0, lines = 0, i;
	FILE *m = open_memstream(&text, &len);

	if (m == NULL)
		return NULL;
	paste_print_text(m, r);
	fclose(m);
	for (i = 0; text != NULL && text[i] != '\0'; i++)
		if (text[i] == '\n' && ++lines == KD_PASTE_SHOWN)
			break;
	if (text == NULL || text[i] == '\0')
		return text;
	text[i + 1] = '\0';
	if (asprintf(&cut, "%s... (kernodeck diff %s shows the rest)", text, file) < 0)
		cut = NULL;
	free(text);
	return cut;
}

static unsigned
paste_import(struct kd_screen *scr)
{
	struct kd_lineedit le;
	struct kd_err err;
	json_t *fa = NULL, *fb = NULL, *r;
	char *text;

	memset(&le, 0, sizeof le);
	le.title = "Import a paste";
	le.label = "File holding a collect_env report, an nvidia-smi output or a pip freeze";
	le.help = "As pasted in an issue, a chat or an e-mail; it is compared with this machine.";
	le.validate = validate_file;
	if (!kd_lineedit_run(scr, &le))
		return KD_HANDLED | KD_REDRAW;
	kd_err_clear(&err);
	if (paste_load(le.text, &fa, &err) != 0 ||
	    paste_facts_of_project(scr->ctx->state_dir, &fb, &err) != 0) {
		kd_frame_error_box(scr, "The paste was not compared", &err);
		json_decref(fa);
		free(le.text);
		return KD_HANDLED | KD_REDRAW;
	}
	r = paste_compare(fa, fb);
	text = compare_text(r, le.text);
	kd_dialog_message(scr, "The paste against this machine", text ? text : "(out of memory)",
			  json_integer_value(json_object_get(r, "differences")) > 0 ?
			  KD_C_WARN : KD_C_OK);
	kd_frame_message(scr, KD_C_INFO, "%lld difference(s) with %s.",
			 (long long)json_integer_value(json_object_get(r, "differences")), le.text);
	free(text);
	json_decref(r);
	json_decref(fa);
	json_decref(fb);
	free(le.text);
	return KD_HANDLED | KD_REDRAW;
}

static unsigned
system_key(struct kd_screen *scr, int key, int action)
{
	if (action == KD_A_PASTE)
		return paste_import(scr);
	return kd_fleet_key(scr, key, action);
}

const struct kd_screen_ops kd_screen_system = {
	.stage = &kd_stage_system,
	.enter = kd_fleet_enter,
	.key = system_key,
	.empty_hint = "Not checked yet: press r to observe this machine (GPU, driver, device nodes, CUDA or ROCm, OS, compilers, interpreter) and compare it with the reference; P compares a colleague's paste with it.",
};
