/* Shared by the engine's parts (engine.c, engine_apply.c, engine_ctl.c, engine_loop.c). */
#ifndef MPAMD_CORE_ENGINE_ENGINE_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_INTERNAL_H

#include "core/base/clock.h"
#include "core/base/counter.h"
#include "core/ctl/ctl.h"
#include "core/engine/compose.h"
#include "core/engine/engine.h"
#include "core/engine/tick_stats.h"
#include "core/report/events.h"
#include "core/report/metrics.h"
#include "core/report/record.h"
#include "core/report/textfile.h"
#include "policies/policy.h"

struct loop;
struct ctl_server;

/* A configuration partitions were opened from. Backends keep pointers into it (partition_ref.config,
 * their tables), so it lives while any of its partitions does, while it is the engine's
 * configuration, and while the backend opened with it is open. */
struct engine_gen {
	struct config *config;
	size_t users;
	struct engine_gen *next;
};

#define ENGINE_ORIGIN_MAX (NAME_MAX_LEN + 1)
/* A failed partition is tried again after one tick, then twice as long each time, up to this. */
#define ENGINE_RETRY_MAX_NS (60ull * 1000000000ull)

/* Per slot: what the engine knows beyond the public status. A slot keeps its number while its
 * partition lives; a removed partition's slot is free for the next one added. */
struct engine_partition {
	bool used;			 /* the slot holds a partition */
	struct partition_config *config; /* in gen->config: what it runs with (set changes its goals) */
	struct engine_gen *gen;
	struct partition_goals file_goals; /* its goals as the file said (without set's changes) */
	char origin[ENGINE_ORIGIN_MAX];	   /* "": the file; else what made it (a template's name) */
	bool hw_open;			   /* the composition holds it (close or remove it once) */
	/* Could not be opened or its limits applied: tried again at retry_ns (engine clock). */
	bool failed;
	char error[ERR_TEXT_MAX]; /* why it failed, or (open) why its limits could not be applied */
	uint64_t retry_ns, backoff_ns;
	unsigned attempts; /* failed attempts in a row */
	struct partition_status status;
	struct partition_ref ref;	   /* how the control opened it */
	struct partition_limits applied;   /* what the last successful apply asked for */
	struct partition_limits effective; /* what it put in force, per domain */
	bool applied_once;
	struct actuation actuated;	 /* what the actuators last carried out */
	uint64_t invalid_samples;	 /* ticks at which it was open and its sample invalid */
	bool jumped;			 /* its last sample was refused as more than a domain can carry */
	char pmu_reason[PMU_REASON_MAX]; /* why the sampler could not count it at all ("": it could) */
};

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

struct run_state;

/* One domain the engine reports and the policies decide on (engine_domains.c). */
struct engine_dom {
	char name[24];		     /* the record's domain column, the metrics' label: the control's id */
	char what[NAME_MAX_LEN + 8]; /* for people: "MB domain 0", "msc sim0", "counters L3_00" */
	int control;		     /* its index in hw.caps.domains; -1: limits are the partition's */
	uint64_t monitors;	     /* bit m: monitor domain m (hw.domains) measures it */
	double learned_mbps;	     /* the highest valid total seen on it */
};

struct engine {
	struct config *config;	     /* the configuration in force (the last good file) */
	struct engine_gen *gen;	     /* e->config's */
	struct engine_gen *hw_gen;   /* the one the composition was opened with */
	struct engine_gen *gens;     /* every one still held */
	size_t slot_count, slot_cap; /* slots in use are below slot_count; arrays hold slot_cap */
	struct run_state *run;	     /* the loop, while it runs (engine_loop.c) */
	struct engine_options opts;
	const struct engine_registry *registry;
	struct clock clock;
	struct composition hw; /* the control, monitors and actuators */
	struct engine_partition *partitions;
	/* The policies' view of every partition (with their memory) and this tick's decisions, kept
	 * side by side as the policy contract wants them, so a tick copies nothing. */
	struct policy_partition *policy;
	struct policy_decision *decisions;
	struct sample *samples; /* [slot][domain of hw.domains] */
	/* The engine's domains (engine_domains.c) and, per slot, what each partition has on each. */
	struct engine_dom doms[ENGINE_MAX_DOMAINS];
	unsigned dom_count;
	bool per_domain;		  /* the doms are the control's: the policies decide per domain */
	struct domain_status *dom_status; /* [slot][dom] */
	struct policy_domain *policy_dom; /* [slot][dom]: the policies' view and memory (per_domain) */
	unsigned *dom_max, *dom_min;	  /* [slot][dom]: this tick's decisions (per_domain) */
	struct policy_host_domain host_doms[ENGINE_MAX_DOMAINS];
	size_t *policy_work;	/* [slot]: room for the guard to order partitions */
	struct pmu_sample *pmu; /* [slot]: the PMU sampler's last deltas */
	struct record *record;
	struct event_log events;
	uint64_t interval_ns;
	uint64_t start_ns;
	uint64_t wall_start_ms; /* CLOCK_REALTIME at the start: the record's times on the simulated clock */
	uint64_t last_tick_ns;
	uint64_t ticks_done;
	uint64_t overruns;
	struct tick_stats tick_stats; /* measured in engine_loop.c */
	uint64_t changes;	      /* sets and reloads: with ticks_done, the replies' generation */
	double learned_capacity_mbps; /* the highest valid total seen */
	unsigned cpus;		      /* online CPUs at start (sysconf reads sysfs: not on every tick) */
	bool stopping;
	struct loop *loop;
	struct ctl_server *ctl;
	struct ctl_handler handler;
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

/* engine_slots.c: slots and the configurations they come from */
/* Holds `config` (taking ownership) as a generation with no users yet; NULL when out of memory (the
 * config is then freed). */
struct engine_gen *engine_gen_new(struct engine *e, struct config *config);
void engine_gen_hold(struct engine_gen *g);
/* Drops one use; the last frees the configuration. */
void engine_gen_drop(struct engine *e, struct engine_gen *g);
/* The lowest free slot, with every per-slot array long enough to hold it: -ENOMEM. */
int engine_slot_alloc(struct engine *e, size_t *ret, struct err *err);
/* Gives slot `slot` partition `p` of `g` (from `origin`, "" for the file); nothing is opened. */
void engine_slot_fill(struct engine *e, size_t slot, struct engine_gen *g, struct partition_config *p,
		      const char *origin);
/* Frees the slot (its partition must be closed): its generation is dropped. */
void engine_slot_free(struct engine *e, size_t slot);
/* The slot of the partition called `name`, or -1. */
long engine_slot_by_name(const struct engine *e, const char *name);
void engine_slots_free(struct engine *e);

/* engine_partition.c: one partition's life in the hardware */
/* Opens slot `slot` in the composition and applies its configured limits; a failure marks it failed
 * (retried by engine_heal) and is logged: 0 or the negative errno. */
int engine_slot_open(struct engine *e, size_t slot, uint64_t now_ns);
/* Closes it in every backend (PMU, monitors, actuators, control). With `remove`, the control removes
 * what it created for it (its resctrl group, when mpamd made it). */
void engine_slot_close(struct engine *e, size_t slot, bool remove);
/* Its status says what failed and retry_ns hold (summarised each tick; at once where they change). */
void engine_slot_show_failure(struct engine *e, size_t slot);
/* It failed: closed in the backends, its error kept, tried again after the backoff. */
void engine_slot_failed(struct engine *e, size_t slot, uint64_t now_ns, const char *error);
/* Its limits could not be applied while it stays open (the limits in force stay, and status shows
 * them): the error is kept for status and logged once while it stays the same; the next tick that
 * applies tries again. */
void engine_slot_apply_failed(struct engine *e, size_t slot, const char *error);
/* Its limits were applied: an apply error it had is cleared, saying so. */
void engine_slot_applied(struct engine *e, size_t slot);
/* Tries again each failed partition whose time has come (asking the control to recover first when it
 * can): failed partitions heal without a reload. */
void engine_heal(struct engine *e, uint64_t now_ns);

/* engine_desired.c: from one configuration to another */
/* The JSON of what a reload would refuse or changed, and the reload itself (engine_ctl.c calls it). */
json_t *engine_reload_report(struct engine *e, json_t **ret_messages, struct err *err);

/* engine_loop.c */
/* interval_ms changed: the timer runs on the new interval from now on. */
void engine_loop_rearm(struct engine *e);

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

/* engine_domains.c: the domains rates and limits are reported and decided in */
/* Works out e->doms from the composition just opened. */
void engine_domains_map(struct engine *e);
/* Every per-domain value of a partition's goals, or of capacity_mbps, names a domain of this host:
 * -EINVAL and which one otherwise. */
int engine_check_goal_domains(const struct engine *e, const struct partition_goals *g, struct err *err);
int engine_check_capacity_domains(const struct engine *e, const struct config *config, struct err *err);
/* What monitor domain m, and engine domain d, can carry as far as is known (0: unknown). */
double engine_monitor_capacity(const struct engine *e, unsigned m);
double engine_dom_known_capacity(const struct engine *e, unsigned d);
/* Partition `index`'s rate and limits on each domain, from this tick's samples. */
void engine_domains_summarise(struct engine *e, size_t index);
/* The policies' copy of its configured limits on each domain (after open, set, reload). */
void engine_domains_config(struct engine *e, size_t slot);

/* engine_apply.c: policies and their decisions */
/* Capacity of the measuring domains together, and whether it is only learned from measurements. */
double engine_host_capacity(const struct engine *e, bool *learned);
void engine_run_policies(struct engine *e, uint64_t now_ns);
/* Applies the configured limits of one partition right away (open, set, reset). */
int engine_apply_limits(struct engine *e, size_t index, const struct partition_limits *want, struct err *err);
void engine_reset_limits(struct engine *e);
/* The limits to program for partition `p`: its cache mask, under a kernel MB/s controller (mba_MBps)
 * its target_mbps as each domain's ceiling, and on each of the control's domains the MB limits of
 * max_at/min_at (the policies' per-domain decisions, by engine domain), or without them its own
 * per-domain values where it has them and mb_max/mb_min elsewhere. */
struct partition_limits engine_limits(const struct engine *e, const struct partition_config *p, unsigned mb_max,
				      unsigned mb_min, const unsigned *max_at, const unsigned *min_at);
/* Goals the composition cannot serve at all (guarantee_mbps where mpamd's guard may not run): -EOPNOTSUPP
 * and why. */
int engine_check_goals(const struct engine *e, const struct partition_config *p, struct err *err);
/* Whether the control can hold `want` at all (its validate op); 0 when it has no such check. */
int engine_validate_limits(struct engine *e, const struct partition_limits *want, struct err *err);
/* An event of partition `index` now: the event log, the partition's event of this tick, the log. */
void engine_note_event(struct engine *e, size_t index, const char *text);

/* engine_record.c: the record file */
/* Opens the record file (opts.record_path, else the record key), if there is one. */
int engine_record_open(struct engine *e, struct err *err);
/* One row per partition, written when the tick ends; a write failure stops the recording. */
void engine_record_tick(struct engine *e, uint64_t now_ns);
/* SIGHUP: closes the record file and opens the path the configuration names now (a file logrotate
 * moved away is left complete, a new one begun); a failure is the record's (record.h: it shows in
 * status and metrics and is tried again). */
void engine_record_reopen(struct engine *e);
void engine_record_close(struct engine *e);

/* engine_ctl.c */
void engine_ctl_handler(struct engine *e, struct ctl_handler *ret);
/* Opens the control socket (opts.socket_path) on the engine's loop; a no-op without a path. */
int engine_ctl_attach(struct engine *e, struct err *err);
void engine_ctl_detach(struct engine *e);

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
