/* What hardware a control or monitor drives alone. One mpamd per piece of hardware: before anything is
 * touched, mpamd asks the control and monitors a configuration composes what they would drive, and
 * locks each resource they name (cli/instance_lock.c). A second mpamd that names one of them finds it
 * held and exits having changed nothing. A simulated control's composition drives no hardware and is
 * not asked. */
#ifndef MPAMD_BACKENDS_CONTRACTS_CLAIM_H
#define MPAMD_BACKENDS_CONTRACTS_CLAIM_H

#include "core/base/error.h"

/* Where claims go: the instance lock, or a test. */
struct claim_sink {
	void *ctx;
	/* One resource. `id` names it the same way in every process, whichever mpamd names it (a real
	 * path, a physical address; the lock file's name is made of it): two claims of one resource, by
	 * a control and a monitor, have the same id. `what` says it for people, in the message a second
	 * mpamd prints ("/sys/fs/resctrl", "the MSC window at 0x..."). A negative errno (err says why)
	 * stops the claims. */
	int (*claim)(void *ctx, const char *id, const char *what, struct err *err);
};

static inline int claim(const struct claim_sink *sink, const char *id, const char *what, struct err *err)
{
	return sink->claim(sink->ctx, id, what, err);
}

#endif
