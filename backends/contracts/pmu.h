/* The PMU sampler contract: per-partition core counters (cycles, instructions, backend stalls) beside
 * bandwidth. It is neither a monitor (it measures no bandwidth) nor a control (it limits nothing): it
 * is told which partitions to count, and reads each one's deltas every tick. It decides nothing.
 *
 * A partition whose events cannot be opened is not counted (its reason says why); the others carry
 * on. A count that never ran in the interval (running time 0) is "not counted", never a 0. */
#ifndef MPAMD_BACKENDS_CONTRACTS_PMU_H
#define MPAMD_BACKENDS_CONTRACTS_PMU_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/contracts/control.h"
#include "core/base/error.h"
#include "core/config/model.h"

/* The counted roles, in this order everywhere. */
enum pmu_role {
	PMU_ROLE_CYCLES,
	PMU_ROLE_INSTRUCTIONS,
	PMU_ROLE_STALLS,
	PMU_ROLES,
};

#define PMU_REASON_MAX ERR_TEXT_MAX /* the longest reason a sampler gives: a struct err's text fits whole */

/* One event of one partition over one interval. */
struct pmu_count {
	bool counted;	    /* false: not open, not configured, or it never ran (running == 0) */
	double value;	    /* the multiplexing estimate: raw * enabled / running */
	double running_pct; /* 100 * running / enabled */
};

struct pmu_sample {
	bool open; /* the sampler counts this partition */
	struct pmu_count counts[PMU_ROLES];
	/* Why it is not open, or why a role is not counted; NULL: nothing to say. The sampler's own text
	 * (not a buffer in every sample of every partition: most have nothing to say), valid until its
	 * next read, remove or free. */
	const char *reason;
};

struct pmu_sampler;

struct pmu_sampler_ops {
	const char *name; /* for logs and describe: "perf", "sim" */
	/* Runs beside simulated controls (the simulator's model) or real ones (perf_event_open). */
	bool simulated;
	/* Keys it adds to the configuration (NULL: none). */
	const struct config_ext *config_ext;
	/* Opens what the configuration asks for (the [pmu] section). -ENODEV with why when there is
	 * nothing to count on this host: the engine then runs without PMU counts. */
	int (*open)(const struct config *config, const struct control_shared *shared, struct pmu_sampler **ret,
		    struct err *err);
	void (*free)(struct pmu_sampler *sampler);
	/* Starts counting partition `index` (its cgroup, or its pids): any slot, also one beyond the
	 * partitions of the configuration it was opened with. A failure concerns it alone. */
	int (*add)(struct pmu_sampler *sampler, size_t index, const struct partition_ref *ref, struct err *err);
	/* Stops counting partition `index` and frees its events (nothing when it was not counted). */
	void (*remove)(struct pmu_sampler *sampler, size_t index);
	/* Reads every partition's deltas since the last read into out[index] (count entries). The first
	 * read after add sets baselines and counts nothing. Returns a negative errno only when nothing
	 * at all could be read. */
	int (*read)(struct pmu_sampler *sampler, uint64_t now_ns, struct pmu_sample *out, size_t count,
		    struct err *err);
	/* What it counts, with which events, for discover and show. */
	json_t *(*describe)(struct pmu_sampler *sampler);
};

/* Implementations embed this as their first member. */
struct pmu_sampler {
	const struct pmu_sampler_ops *ops;
};

/* Derived values of a sample: IPC and stall ratio when both of their counts were counted and cycles
 * were not 0; false otherwise (not counted is not 0). */
static inline bool pmu_sample_ipc(const struct pmu_sample *s, double *ret)
{
	const struct pmu_count *c = &s->counts[PMU_ROLE_CYCLES], *i = &s->counts[PMU_ROLE_INSTRUCTIONS];

	if (!s->open || !c->counted || !i->counted || !(c->value > 0))
		return false;
	*ret = i->value / c->value;
	return true;
}

static inline bool pmu_sample_stall_ratio(const struct pmu_sample *s, double *ret)
{
	const struct pmu_count *c = &s->counts[PMU_ROLE_CYCLES], *st = &s->counts[PMU_ROLE_STALLS];

	if (!s->open || !c->counted || !st->counted || !(c->value > 0))
		return false;
	*ret = st->value / c->value;
	return true;
}

#endif
