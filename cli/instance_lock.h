/* One mpamd per piece of hardware. Before anything is touched, mpamd takes an exclusive lock for
 * every resource the control and monitors its configuration composes claim (the contracts' `claims`,
 * backends/contracts/claim.h): a resctrl mount, each MSC window mapped... A simulated host is nobody
 * else's and takes none. A second mpamd on the same hardware finds a lock held, says which process
 * holds it, and exits having changed nothing. The locks are flock(2)s on files under
 * INSTANCE_LOCK_DIR, so they go with the process, also with kill -9.
 *
 * The files do not pile up: mpamd removes its own on the way out, and the first claim removes those no
 * process holds (left by a kill -9, or by an mpamd of other hardware). Never one a live process holds,
 * and never so that two mpamds could run: a file is removed only by a process holding its lock, and a
 * lock counts only while its file is still the one at its path (a taker that locked a file removed
 * after it opened it lets go and opens the path again). */
#ifndef MPAMD_CLI_INSTANCE_LOCK_H
#define MPAMD_CLI_INSTANCE_LOCK_H

#include <stddef.h>

#include "core/base/error.h"
#include "core/config/config.h"
#include "core/engine/registry.h"

#define INSTANCE_LOCK_DIR "/run/mpamd"
#define INSTANCE_LOCK_MAX (CONFIG_MAX_MSCS + 2) /* every MSC window, a mount, and room to spare */

struct instance_lock {
	int fds[INSTANCE_LOCK_MAX];
	char *paths[INSTANCE_LOCK_MAX]; /* each fd's file, removed on release */
	size_t count;
};

/* Takes a lock under `dir` (created when missing, and rid of stale lock files) for every resource
 * `config` has `registry`'s control and monitors claim, once each. -EBUSY and err naming the holder's
 * pid and the resource when another process has one; nothing stays taken on failure. */
int instance_lock_take(const struct engine_registry *registry, const struct config *config, const char *dir,
		       struct instance_lock *ret, struct err *err);
/* Removes the lock files and lets go of the locks. */
void instance_lock_release(struct instance_lock *lock);

#endif
