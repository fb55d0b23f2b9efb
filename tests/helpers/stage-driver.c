/*
 * stage-driver.c - test aid for stages 3 and 4: run one stage through
 * stage_run with a sink that can cancel, or run one of a stage's actions,
 * as the walkthrough does, without a terminal.
 *
 *   stage-driver DIR STAGE run [--cancel-step TEXT --cancel-after SECONDS
 *                               [--cancel-file PATH]]
 *   stage-driver DIR STAGE action KEY [ROW-ID]
 *
 * `run` cancels once the step whose name holds TEXT has run for SECONDS
 * (and, with --cancel-file, once PATH exists: the child got that far).
 * It prints "status: STATUS" and exits 0 when the stage ran.  `action`
 * saves the state after the action, as the frame does, and exits with the
 * action's code.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernodeck/ctx.h"
#include "kernodeck/fleet.h"
#include "kernodeck/runner.h"
#include "kernodeck/stage.h"

struct drv {
	const char *cancel_step;
	const char *cancel_file;
	double cancel_after;
	double step_started;   /* 0: the step is not running */
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
drv_step(void *u, const char *step, double fraction)
{
	struct drv *d = u;

	(void)fraction;
	printf("- %s\n", step);
	fflush(stdout);
	if (d->cancel_step != NULL && strstr(step, d->cancel_step) != NULL)
		d->step_started = now_s();
}

static void
drv_line(void *u, const char *line, size_t len)
{
	(void)u;
	printf("| %.*s\n", (int)len, line);
	fflush(stdout);
}

static int
drv_cancelled(void *u)
{
	struct drv *d = u;

	return d->step_started > 0 && now_s() - d->step_started >= d->cancel_after &&
	       (d->cancel_file == NULL || access(d->cancel_file, F_OK) == 0);
}

int
main(int argc, char **argv)
{
	struct drv d = { 0 };
	struct kd_sink sink = { drv_step, drv_line, drv_cancelled, &d };
	struct kd_err err = { 0 };
	struct kd_ctx ctx;
	struct kd_runner run;
	char buf[2200];
	int i, rc;

	if (argc < 4 || (i = stage_index(argv[2])) < 0) {
		fprintf(stderr, "usage: stage-driver DIR STAGE run|action ...\n");
		return 2;
	}
	for (int a = 4; a + 1 < argc; a += 2) {
		if (strcmp(argv[a], "--cancel-step") == 0)
			d.cancel_step = argv[a + 1];
		else if (strcmp(argv[a], "--cancel-file") == 0)
			d.cancel_file = argv[a + 1];
		else if (strcmp(argv[a], "--cancel-after") == 0)
			d.cancel_after = atof(argv[a + 1]);
	}
	rc = kd_ctx_open(&ctx, argv[1], NULL, KD_LOCK_REQUIRED, &err);
	if (rc != 0) {
		fprintf(stderr, "stage-driver: %s\n", kd_err_format(&err, buf, sizeof buf));
		kd_ctx_close(&ctx);
		return rc;
	}
	if (strcmp(argv[3], "run") == 0) {
		runner_begin(&run, &ctx, 0, fleet_latest);   /* this stage alone */
		rc = stage_run(&ctx, i, &sink, NULL, &err);
		runner_end(&run);
		printf("status: %s\n", kd_status_name(ctx.state.st[i].status));
	} else if (strcmp(argv[3], "action") == 0 && argc >= 5) {
		const struct kd_stage_ops *ops = kd_stages[i];
		const struct kd_action *act = NULL;
		for (size_t k = 0; k < ops->nactions; k++)
			if (ops->actions[k].key == argv[4][0])
				act = &ops->actions[k];
		if (act == NULL) {
			fprintf(stderr, "stage-driver: no action %s\n", argv[4]);
			rc = 2;
		} else {
			rc = act->run(&ctx, argc > 5 ? argv[5] : NULL, &sink, &err);
			if (rc == 0)
				rc = kd_ctx_save_state(&ctx, &err);
			printf("status: %s\n", kd_status_name(ctx.state.st[i].status));
		}
	} else {
		rc = 2;
	}
	if (rc != 0 && err.msg[0])
		fprintf(stderr, "stage-driver: %s\n", kd_err_format(&err, buf, sizeof buf));
	kd_ctx_close(&ctx);
	return rc;
}
