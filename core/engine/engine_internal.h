/* The engine's state, and what its parts call of each other. Each part declares the sub-structure it
 * changes, and its functions, in an engine_*_internal.h beside it; struct engine holds them all, so that
 * every file of core/engine reads what it needs without a copy (a tick passes one pointer). A field
 * that a file other than its part's changes says which. */
#ifndef MPAMD_CORE_ENGINE_ENGINE_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_INTERNAL_H

#include "core/base/clock.h"
#include "core/base/counter.h"
#include "core/engine/compose.h"
#include "core/engine/engine.h"
#include "core/engine/engine_apply_internal.h"
#include "core/engine/engine_classes_internal.h"
#include "core/engine/engine_ctl_internal.h"
#include "core/engine/engine_domains_internal.h"
#include "core/engine/engine_gens_internal.h"
#include "core/engine/engine_loop_internal.h"
#include "core/engine/engine_metrics_internal.h"
#include "core/engine/engine_partition_internal.h"
#include "core/engine/engine_place_internal.h"
#include "core/engine/engine_pool_internal.h"
#include "core/engine/engine_record_internal.h"
#include "core/engine/engine_slots_internal.h"
#include "core/engine/engine_vms_internal.h"
#include "core/report/events.h"

struct engine {
	struct engine_gens gens; /* engine_gens.c, engine.c, engine_desired.c: the configurations */

	/* Set up by engine_new and engine_open_backend (engine.c), then left as they are. */
	struct engine_options opts;
	const struct engine_registry *registry;
	unsigned cpus;	       /* online CPUs at start (sysconf reads sysfs: not on every tick) */
	struct clock clock;    /* engine_loop.c advances the simulated one */
	struct composition hw; /* the control, monitors and actuators (the backends change what is behind it) */

	/* Each part's own, changed by that part (the configurations above too). */
	struct engine_slots slots;     /* engine_slots.c, engine_partition.c: the partitions in their slots */
	struct engine_domains domains; /* engine_domains.c: the domains, each partition's rate and limits there */
	struct engine_policy policy;   /* engine_apply.c: the policies' view, memory and decisions */
	struct engine_classes classes; /* engine_classes.c: partitions sharing the control's classes */
	struct event_log events;       /* engine_apply.c's engine_note_event: what happened to the partitions */
	struct engine_ticks ticks;     /* engine.c's engine_tick, engine_loop.c: when ticks happen, how many did */
	struct engine_run run;	       /* engine_loop.c: the event loop */
	struct engine_record record;   /* engine_record.c: the record file */
	struct engine_ctl ctl;	       /* engine_ctl.c: the control socket */
	struct engine_metrics metrics; /* engine_metrics.c: the Prometheus text, the textfile */
	struct engine_place place;     /* engine_place.c: the proc connector, the reconciles */
	struct engine_vms vms;	       /* engine_vms.c: partitions that follow VMs */
	uint64_t changes;	       /* engine_snapshot.c: sets and reloads (the replies' generation) */
};

/* engine.c */
int engine_open_backend(struct engine *e, struct err *err);
void engine_close_backend(struct engine *e);
void engine_tick(struct engine *e, uint64_t now_ns);
uint64_t engine_t_ms(const struct engine *e, uint64_t now_ns);
/* The policies' copy of partition `index`'s configuration (after open, set, reload). */
void engine_policy_config(struct engine *e, size_t index);
/* The target controller's memory for partition `index` where goals `g` name a target, zeroed, once:
 * most partitions have no target and no such memory; one that had keeps it while it lives (the
 * controller forgets it when the target goes). 0 or -ENOMEM and why. */
int engine_target_room(struct engine *e, size_t index, const struct partition_goals *g, struct err *err);
/* Refuses an interval in which a counter could wrap more than once between reads. */
int engine_check_interval(const struct engine *e, unsigned interval_ms, struct err *err);

/* engine_desired.c: from one configuration to another */
/* The JSON of what a reload would refuse or changed, and the reload itself (engine_ctl.c calls it). */
json_t *engine_reload_report(struct engine *e, json_t **ret_messages, struct err *err);

/* engine_pmu.c: PMU counts beside bandwidth */
/* The sampler starts counting partition `index`; a failure is logged and kept as its reason. */
void engine_pmu_open(struct engine *e, size_t index);
/* Reads every partition's PMU deltas into its status. */
void engine_pmu_tick(struct engine *e, uint64_t now_ns);

/* A rate summed over monitor domains: one invalid sample makes it invalid, with that sample's reason. */
struct sample_sum {
	bool valid, estimated;
	double mbps;
	uint64_t bytes;
	const char *reason;
};

/* `mbps`: the sample's rate, counter_rate_mbps of its bytes and interval (worked out once a tick for
 * the partition's total, its domains and the screening alike). */
static inline void sample_sum_add(struct sample_sum *sum, const struct sample *s, double mbps)
{
	if (s->state == SAMPLE_INVALID) {
		sum->valid = false;
		sum->reason = s->reason;
		return;
	}
	sum->estimated |= s->state == SAMPLE_ESTIMATED;
	sum->mbps += mbps;
	sum->bytes += s->bytes;
}

#endif
