/*
 * stop.c - Ctrl-C, SIGTERM and SIGHUP for the headless commands: see
 * stop.h.  The handler only records the signal; the runner polls it
 * (run.c, about ten times a second) through the stage's sink.
 */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "kernodeck/stop.h"

static volatile sig_atomic_t stop_signal;

static void
on_stop(int sig)
{
	stop_signal = sig;
}

void
kd_stop_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old;
		/* a signal ignored by whoever started us (nohup, `cmd &` in a
		 * script) stays ignored */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

int
kd_stop_requested(void *u)
{
	(void)u;
	return stop_signal;
}

void
kd_stop_finish(void)
{
	int sig = stop_signal;

	if (sig == 0)
		return;
	signal(sig, SIG_DFL);
	raise(sig);
}
