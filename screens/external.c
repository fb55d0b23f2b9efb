/*
 * external.c - leaving the walkthrough for $EDITOR and $PAGER.
 *
 * The program is started from an argument vector (the variable split like
 * a shell line but without a shell, then the file), with the terminal
 * given back to it (endwin) and taken again when it exits.  After the
 * editor, reference.yaml is loaded again; when it does not load, the error
 * with its line is shown, the last valid reference stays in use and the
 * file is left as the person wrote it, to be edited again.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernodeck/fsutil.h"
#include "kernodeck/run.h"
#include "kernodeck/screen.h"
#include "kernodeck/shellwords.h"
#include "kernodeck/state.h"

int
kd_frame_spawn(struct kd_screen *scr, char *const argv[], struct kd_err *err)
{
	struct sigaction ign, old_int, old_quit;
	int status = 0;
	pid_t pid;

	(void)scr;
	def_prog_mode();
	endwin();
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "kernodeck: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	reset_prog_mode();
	clearok(curscr, TRUE);
	refresh();
	if (pid < 0) {
		kd_err_sys(err, KD_EENV, NULL, errno, "cannot start %s", argv[0]);
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		kd_err_set(err, KD_EENV, NULL, 0, "%s could not be started "
			   "(not found or not executable)", argv[0]);
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The program a variable names, with a fallback found on PATH. */
static const char *
program_from(const char *var, const char *const *fallbacks)
{
	const char *v = getenv(var);

	if (v != NULL && *v != '\0')
		return v;
	for (; *fallbacks != NULL; fallbacks++) {
		char *p = run_which(*fallbacks);

		if (p != NULL) {
			free(p);
			return *fallbacks;
		}
	}
	return NULL;
}

/* Run a program named by a variable on a file; -1 with a message. */
static int
open_with(struct kd_screen *scr, const char *var, const char *const *fallbacks,
	  const char *path)
{
	const char *prog = program_from(var, fallbacks);
	char error[256];
	struct kd_err err;
	char **argv;
	int rc;

	if (prog == NULL) {
		kd_frame_message(scr, KD_C_ERROR, "Set $%s: no %s was found on PATH.", var,
				 fallbacks[0]);
		return -1;
	}
	argv = shellwords_argv(prog, path, error, sizeof error);
	if (argv == NULL) {
		kd_frame_message(scr, KD_C_ERROR, "$%s (\"%s\"): %s", var, prog, error);
		return -1;
	}
	kd_err_clear(&err);
	rc = kd_frame_spawn(scr, argv, &err);
	if (rc < 0)
		kd_frame_message(scr, KD_C_ERROR, "$%s: %s", var, err.msg);
	shellwords_free(argv);
	return rc;
}

void
kd_open_pager(struct kd_screen *scr, const char *path)
{
	static const char *const pagers[] = { "less", "more", NULL };

	open_with(scr, "PAGER", pagers, path);
}

unsigned
kd_reference_reread(struct kd_screen *scr, const char *who)
{
	char before[65], buf[1400];
	struct kd_err err;

	memcpy(before, scr->ctx->ref_id, sizeof before);
	kd_err_clear(&err);
	if (kd_ctx_reload_ref(scr->ctx, &err) != 0) {
		scr->ref_broken = 1;
		kd_err_format(&err, buf, sizeof buf);
		snprintf(scr->ref_error, sizeof scr->ref_error, "%s", buf);
		kd_frame_message(scr, KD_C_ERROR, "reference.yaml%s: %s", who, buf);
		return KD_HANDLED | KD_REDRAW;
	}
	scr->ref_broken = 0;
	scr->ref_error[0] = '\0';
	if (strcmp(before, scr->ctx->ref_id) != 0) {
		/* kd_ctx_reload_ref marked the checked stages stale and saved */
		kd_frame_message(scr, KD_C_OK, "reference.yaml changed%s (identity %.12s): "
				 "checked stages are stale.", who, scr->ctx->ref_id);
		return KD_HANDLED | KD_REDRAW | KD_SAVE | KD_DESCRIBE;
	}
	kd_frame_message(scr, KD_C_NORMAL, "reference.yaml unchanged.");
	return KD_HANDLED | KD_REDRAW;
}

/* Load reference.yaml again after the editor: KD_* flags; *again when the
 * person wants to edit a file that does not load once more. */
static unsigned
reload_reference(struct kd_screen *scr, int *again)
{
	char text[1700];
	unsigned flags = kd_reference_reread(scr, "");

	*again = 0;
	if (scr->ref_broken) {
		snprintf(text, sizeof text, "%s\n\nThe walkthrough keeps using the last valid "
			 "reference, and your file stays as you wrote it.\n\n"
			 "Edit it again now?", scr->ref_error);
		*again = kd_dialog_confirm(scr, "reference.yaml does not load", text);
	}
	return flags;
}

unsigned
kd_edit_reference(struct kd_screen *scr)
{
	static const char *const editors[] = { "editor", "vi", "nano", NULL };
	unsigned flags = KD_HANDLED | KD_REDRAW;
	struct kd_err err;
	char buf[1400];
	int again;

	if (!fsutil_exists(scr->ctx->ref_path)) {
		kd_err_clear(&err);
		if (kd_ctx_save_ref(scr->ctx, &err) != 0) {
			kd_frame_message(scr, KD_C_ERROR, "Cannot write reference.yaml: %s",
					 kd_err_format(&err, buf, sizeof buf));
			return flags;
		}
	}
	do {
		if (open_with(scr, "EDITOR", editors, scr->ctx->ref_path) < 0)
			return flags;
		flags |= reload_reference(scr, &again);
	} while (again);
	return flags;
}
