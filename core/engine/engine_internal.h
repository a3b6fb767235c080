/* Shared by the engine's parts (engine.c, engine_apply.c, engine_ctl.c, engine_loop.c). */
#ifndef MPAMD_CORE_ENGINE_ENGINE_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_INTERNAL_H

#include "core/base/clock.h"
#include "core/base/counter.h"
#include "core/ctl/ctl.h"
#include "core/engine/compose.h"
#include "core/engine/engine.h"
#include "core/engine/engine_apply_internal.h"
#include "core/engine/engine_ctl_internal.h"
#include "core/engine/engine_domains_internal.h"
#include "core/engine/engine_gens_internal.h"
#include "core/engine/engine_loop_internal.h"
#include "core/engine/engine_metrics_internal.h"
#include "core/engine/engine_partition_internal.h"
#include "core/engine/engine_place_internal.h"
#include "core/engine/engine_record_internal.h"
#include "core/engine/engine_slots_internal.h"
#include "core/engine/engine_vms_internal.h"
#include "core/engine/tick_stats.h"
#include "core/report/events.h"
#include "core/report/metrics.h"
#include "core/report/record.h"
#include "core/report/textfile.h"
#include "policies/policy.h"

struct loop;

struct engine {
	struct engine_gens gens; /* the configuration in force and those partitions came from */
	struct engine_options opts;
	const struct engine_registry *registry;
	struct clock clock;
	struct composition hw;	       /* the control, monitors and actuators */
	struct engine_slots slots;     /* the partitions, each in its slot, and what the backends read for them */
	struct engine_policy policy;   /* the policies' view, memory and decisions */
	struct engine_domains domains; /* the engine's domains, and each partition's rate and limits on them */
	struct engine_record record;   /* the record file */
	struct event_log events;
	struct engine_ticks ticks; /* the tick's timing and counts */
	uint64_t changes;	   /* sets and reloads: with ticks_done, the replies' generation */
	unsigned cpus;		   /* online CPUs at start (sysconf reads sysfs: not on every tick) */
	struct engine_run run;	   /* the event loop */
	struct engine_ctl ctl;	   /* the control socket */
	struct engine_metrics metrics;
	struct engine_place place;
	struct engine_vms vms;
};

/* engine.c */
int engine_open_backend(struct engine *e, struct err *err);
void engine_close_backend(struct engine *e);
void engine_tick(struct engine *e, uint64_t now_ns);
uint64_t engine_t_ms(const struct engine *e, uint64_t now_ns);
/* The policies' copy of partition `index`'s configuration (after open, set, reload). */
void engine_policy_config(struct engine *e, size_t index);
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
/* IPC and stall ratio of a partition as JSON (null when not counted), for list, show and status. */
void engine_pmu_json(const struct engine *e, size_t index, json_t *json);
/* The status reply's "pmu": the sampler counting ("perf", "sim") or null. */
void engine_pmu_status_json(const struct engine *e, json_t *status);

/* A rate summed over monitor domains: one invalid sample makes it invalid, with that sample's reason. */
struct sample_sum {
	bool valid, estimated;
	double mbps;
	uint64_t bytes;
	const char *reason;
};

static inline void sample_sum_add(struct sample_sum *sum, const struct sample *s)
{
	if (s->state == SAMPLE_INVALID) {
		sum->valid = false;
		sum->reason = s->reason;
		return;
	}
	sum->estimated |= s->state == SAMPLE_ESTIMATED;
	sum->mbps += counter_rate_mbps(s->bytes, s->elapsed_ns);
	sum->bytes += s->bytes;
}

#endif
