/* The actuator contract: what the engine does to a partition's tasks other than bandwidth limits —
 * the CPU quota of its cgroup now, task placement next. The policies decide (struct actuation); an
 * actuator carries it out and says whether it could. */
#ifndef MPAMD_BACKENDS_CONTRACTS_ACTUATOR_H
#define MPAMD_BACKENDS_CONTRACTS_ACTUATOR_H

#include <stdbool.h>
#include <stddef.h>

#include "backends/contracts/control.h"
#include "core/base/error.h"
#include "core/config/model.h"

/* What the policies want done to a partition's tasks. */
struct actuation {
	unsigned cpu_quota_pct; /* percent of one CPU (200 = two CPUs); 0: unlimited */
};

struct actuator;

struct actuator_ops {
	const char *name;
	/* Takes the place of the real actuator of the same name beside a simulated control. */
	bool simulated;
	/* Whether this configuration wants it at all (NULL: always). */
	bool (*wanted)(const struct config *config);
	int (*open)(const struct config *config, const struct control_shared *shared, struct actuator **ret,
		    struct err *err);
	void (*free)(struct actuator *actuator);
	/* Partition `index`, as the control opened it, is managed from now on. */
	int (*partition_open)(struct actuator *actuator, size_t index, const struct partition_ref *ref,
			      struct err *err);
	/* Partition `index` is no longer managed (removed by a reload, or about to be opened again):
	 * the actuator forgets it, so the slot may be given to another partition. NULL: nothing kept. */
	void (*partition_close)(struct actuator *actuator, size_t index);
	/* Carries out `want` for partition `index`; on failure nothing is assumed to have changed. */
	int (*apply)(struct actuator *actuator, size_t index, const struct actuation *want, struct err *err);
};

/* Implementations embed this as their first member. */
struct actuator {
	const struct actuator_ops *ops;
};

#endif
