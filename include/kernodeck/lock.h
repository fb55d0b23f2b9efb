/*
 * lock.h - one kernodeck writes a folder at a time.
 *
 * The lock is STATE_DIR/lock, held with flock(2) for as long as the process
 * lives (so a lock left by a dead process is free again) and holding who
 * took it: user, host, pid and UTC time.
 */
#ifndef KD_LOCK_H
#define KD_LOCK_H

#include <stddef.h>
#include <sys/types.h>

#include "kernodeck/err.h"

struct kd_lock;

struct kd_lock_holder {
	char user[64];
	char host[256];
	long pid;
	char since[32];
};

/* Take the lock.  0: taken (*lockp set).  KD_EFAIL: held by another, holder
 * filled and err says who.  KD_EENV: the folder cannot be written. */
int lock_take(const char *state_dir, struct kd_lock **lockp,
	      struct kd_lock_holder *holder, struct kd_err *err);
void lock_release(struct kd_lock *lock);
/* Who holds it now (0), or KD_EFAIL when nobody does. */
int lock_holder(const char *state_dir, struct kd_lock_holder *holder);

#endif
