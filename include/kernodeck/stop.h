/*
 * stop.h - Ctrl-C, SIGTERM and SIGHUP for the headless commands.
 *
 * Without this, a signal killed kernodeck and left the program it was
 * running (pip, the probe, the entry point) alive in its own process
 * group, holding the venv, with nobody to enforce its timeout.  With it,
 * the signal asks the running stage to stop: the runner ends the program's
 * group (SIGTERM, SIGKILL after a grace), the stage is recorded as
 * cancelled and the state saved, then kd_stop_finish() ends kernodeck by
 * the same signal, so that a shell sees it (exit status 128 + N).
 * The walkthrough reads Ctrl-C as a key and does not use this.
 */
#ifndef KD_STOP_H
#define KD_STOP_H

/* Catch SIGINT, SIGTERM and SIGHUP from now on. */
void kd_stop_install(void);
/* The signal caught, or 0; the argument is ignored, so that it can be a
 * kd_sink's cancelled callback. */
int kd_stop_requested(void *u);
/* When a signal was caught: restore its default action and raise it. */
void kd_stop_finish(void);

#endif
