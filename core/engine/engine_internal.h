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
#include "core/engine/engine_partition_internal.h"
#include "core/engine/engine_record_internal.h"
#include "core/engine/engine_slots_internal.h"
#include "core/engine/tick_stats.h"
#include "core/report/events.h"
#include "core/report/metrics.h"
#include "core/report/record.h"
#include "core/report/textfile.h"
#include "policies/policy.h"

struct loop;

/* The Prometheus exposition of the engine (engine_metrics.c): built at most once per tick (and
 * after a set or reload), when a control request or the textfile wants it, and what it needs that
 * the engine keeps nowhere else. */
struct engine_metrics {
	struct metrics_buf text;
	json_t *reply; /* the `metrics` reply holding `text`, shared by the tick's requests */
	uint64_t tick; /* the tick `text` is of */
	bool fresh;    /* text is of `tick`, and no set or reload came since */
	struct histogram tick_duration;
	double last_tick_unix_s;
	bool reload_ok;
	double reload_ok_unix_s;
	struct textfile textfile;
	uint64_t textfile_tried_ns; /* CLOCK_MONOTONIC of the last attempt; 0: none */
};

struct proc_connector;
struct cgroup_tree;

/* Placement's side of the engine (engine_place.c): the proc connector on the loop, and what the
 * reconciles and events did. */
struct engine_place {
	struct proc_connector *connector; /* NULL: none (see why) */
	char why[ERR_TEXT_MAX];		  /* why there is none ("" while it is on or nothing wants it) */
	bool soon;			  /* events were lost: every partition is reconciled at the next tick */
	uint64_t reconciles, events, lost;
};

/* Partitions that follow VMs (engine_vms.c). */
struct engine_vms {
	struct engine_gen *file;  /* the file's configuration, while it has [vm-template]s; NULL: none */
	struct cgroup_tree *tree; /* where VMs are listed, opened at the first need */
	bool told_no_tree;
	char **running; /* the VMs a template took at the last sync, sorted */
	size_t running_count;
	char error[ERR_TEXT_MAX]; /* why the last sync could not apply them ("": it could) */
};

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

/* engine_place.c: placement's events and reconciles */
/* Opens the proc connector (on the running loop) when something names tasks and it is wanted, closes
 * it when nothing does: at the start and after every change of the partitions. */
void engine_place_update(struct engine *e);
void engine_place_stop(struct engine *e);
/* At the start of each tick: the events queued so far, then the reconcile when it is due (every
 * reconcile_ms in ticks, or at once after lost events). */
void engine_place_tick(struct engine *e);
/* "tasks", "placements", "misses" of a partition (null where nothing places it) into a list row. */
void engine_place_partition_json(const struct engine *e, size_t index, json_t *json);
/* show's "placement": its source, whether it is found, the counts and the reason; null without one. */
json_t *engine_place_detail_json(const struct engine *e, size_t index);
/* status's "placement": the proc connector, the reconciles, the totals. */
void engine_place_status_json(const struct engine *e, json_t *status);

/* engine_vms.c: partitions that follow VMs */
/* At the start: the file's templates make their VMs' partitions. */
void engine_vms_start(struct engine *e);
/* The running VMs are listed again; the partitions follow when the set a template takes changed. */
void engine_vms_sync(struct engine *e);
/* A reload: `fresh` (owned) and one partition per running VM its templates take, applied with
 * engine_apply_desired (its report in *ret_report). */
int engine_vms_reload(struct engine *e, struct config *fresh, json_t **ret_report, struct err *err);
void engine_vms_fini(struct engine *e);

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

/* engine_metrics.c */
void engine_metrics_init(struct engine *e);
void engine_metrics_fini(struct engine *e);
/* A set or a reload changed what the text says: the next request builds it again. */
void engine_metrics_stale(struct engine *e);
/* The outcome of a reload (a config file that was read, valid or not). */
void engine_metrics_reloaded(struct engine *e, bool ok);
/* After each tick: the tick's duration, then the textfile when one is configured (at most once per
 * second of `mono_now_ns`, CLOCK_MONOTONIC). */
void engine_metrics_tick_done(struct engine *e, uint64_t duration_ns, uint64_t mono_now_ns);
/* {"format": METRICS_FORMAT, "text": ...}: a new reference, or NULL when out of memory. */
json_t *engine_metrics_reply(struct engine *e);
/* A stop: the textfile goes, as what it says is no longer true. */
void engine_metrics_stop(struct engine *e);

#endif
