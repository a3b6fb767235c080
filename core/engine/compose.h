/* What one configuration composes from the registry: one control, the monitors that measure beside it
 * (the monitor key's, or the first available one for auto), and the actuators, with every monitor's
 * domains laid side by side in one row per partition. The engine ticks over it; `mpamctl discover`
 * describes it. */
#ifndef MPAMD_CORE_ENGINE_COMPOSE_H
#define MPAMD_CORE_ENGINE_COMPOSE_H

#include <jansson.h>
#include <stdbool.h>

#include "core/engine/registry.h"

#define ENGINE_MAX_MONITORS  4
#define ENGINE_MAX_ACTUATORS 4
#define ENGINE_MAX_DOMAINS   64

struct engine_monitor {
	const struct monitor_ops *ops;
	struct monitor *monitor;
	struct monitor_caps caps;
	unsigned first_domain; /* its domains' place in a partition's row of samples */
};

struct engine_actuator {
	const struct actuator_ops *ops;
	struct actuator *actuator;
};

/* One measuring domain, as the engine sees it. */
struct engine_domain {
	const char *name;
	double capacity_mbps; /* 0: the monitor cannot tell */
	unsigned counter_bits, counter_scale;
	const char *id_space; /* the control domain it measures (monitor_domain.id_space, id) */
	unsigned id;
};

/* The PMU sampler, when [pmu] lets one count; per partition, why it does not count it. */
struct engine_sampler {
	const struct pmu_sampler_ops *ops;
	struct pmu_sampler *sampler;
};

struct composition {
	const struct control_ops *control_ops;
	struct control *control;
	struct control_caps caps;
	struct control_shared shared;
	struct engine_monitor monitors[ENGINE_MAX_MONITORS];
	size_t monitor_count;
	struct engine_actuator actuators[ENGINE_MAX_ACTUATORS];
	size_t actuator_count;
	struct engine_domain domains[ENGINE_MAX_DOMAINS];
	unsigned domain_count;
	struct engine_sampler pmu; /* ops NULL: no PMU counts */
};

/* Hands `sink` every resource the composition of `config` would drive (claim.h), before any of it is
 * opened: the control's claims and the monitor's (monitor = auto: every monitor's, as a candidate).
 * A simulated control's composition drives no hardware: nothing. -EOPNOTSUPP for a backend or
 * monitor the registry does not have; a claim's error stops it. */
int composition_claims(const struct engine_registry *registry, const struct config *config,
		       const struct claim_sink *sink, struct err *err);

/* Opens what `config` names. On failure nothing stays open and err says why. */
int composition_open(const struct engine_registry *registry, const struct config *config, struct clock *clock,
		     struct composition *ret, struct err *err);
void composition_close(struct composition *c);

/* The control opens partition `index`; then every monitor and actuator learns how to find it (*ret). */
int composition_partition_open(struct composition *c, size_t index, const struct partition_config *p,
			       struct partition_ref *ret, struct err *err);

/* Whether partition `index` keeps a counter where counters rotate, from its goals (a guarantee
 * does): at open, and again when its goals change. A monitor that cannot keep one says so (a
 * warning); the partition is measured in turn then. */
void composition_monitors_keep(struct composition *c, size_t index, const struct partition_config *p);

/* Partition `index` is in a new group (`ref`, a class move that could not keep its counts): the
 * monitors take it again, from a new baseline. 0, or why a monitor cannot. */
int composition_remonitor(struct composition *c, size_t index, const struct partition_ref *ref, struct err *err);

/* Partition `index` leaves every monitor, actuator and the PMU sampler, then the control: closed, or
 * with `remove` removed (what the control created for it goes: its resctrl group, only when mpamd
 * made it). Only a removal can fail (err says why); everything is closed either way. */
int composition_partition_close(struct composition *c, size_t index, bool remove, struct err *err);

/* The control finds its hardware again after it went away (resctrl unmounted and mounted again):
 * 1 reopened (every partition must be opened again), 0 nothing had gone, negative while it is
 * still gone. */
int composition_recover(struct composition *c, struct err *err);
/* The control removes what none of `keep` (partitions' names) uses (control_ops.tidy): how many it
 * removed, 0 where it has nothing to tidy, or a negative errno and why. */
int composition_tidy(struct composition *c, const char *const *keep, size_t count, struct err *err);

/* Partition `index` once more from scratch, after its hardware side was lost (a resctrl group removed
 * behind mpamd's back): every monitor forgets it, the control closes and opens it again (recreating
 * the group), and the monitors and actuators learn the new *ret. */
int composition_partition_reopen(struct composition *c, size_t index, const struct partition_config *p,
				 struct partition_ref *ret, struct err *err);
/* The sampler starts counting partition `index` (opened as `ref`). A failure concerns the PMU counts
 * of that partition only: the partition runs without them; err says why. */
int composition_pmu_add(struct composition *c, size_t index, const struct partition_ref *ref, struct err *err);
/* Reads every partition's PMU deltas into out[count]; all "not open" without a sampler. */
void composition_read_pmu(struct composition *c, uint64_t now_ns, struct pmu_sample *out, size_t count);

/* Reads every monitor into the partitions' rows: domain d of partition i is samples[i * domain_count + d].
 * Returns the first monitor's error, if any (the others are still read). */
int composition_read(struct composition *c, uint64_t now_ns, struct sample *samples, struct err *err);

/* The control domain (an index into caps.domains) monitor domain `m` measures: the one of the same
 * id space and id, or the control's only domain; -1 when none can be told. */
int composition_control_domain(const struct composition *c, unsigned m);
/* Every actuator that places tasks reconciles partition `index`: the first failure, if any (the others
 * still run). */
int composition_reconcile(struct composition *c, size_t index, struct err *err);
/* A task the kernel reported, to every actuator that places tasks. */
void composition_task_event(struct composition *c, const struct task_event *ev);
/* What placement knows of partition `index`, or NULL (it names no tasks, or nothing places). */
const struct placement_status *composition_placement(const struct composition *c, size_t index);

/* The control's description with the monitors' ("monitor", "monitors"), for `mpamctl discover`. */
json_t *composition_describe(const struct composition *c);

#endif
