/* The engine: one thread that ticks every interval_ms — read every counter, turn counts into rates,
 * run the policies, apply what changed, publish (record file, event log, control socket). It owns
 * the configuration, so that a reload can replace it. */
#ifndef MPAMD_CORE_ENGINE_ENGINE_H
#define MPAMD_CORE_ENGINE_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include <sys/types.h>

#include "core/base/error.h"
#include "core/config/config.h"
#include "core/config/model.h"
#include "core/engine/tick_stats.h"
#include "core/report/events.h"
#include "core/report/partition_status.h"

struct engine;
struct engine_registry;
struct policy_chain;

struct engine_options {
	uint64_t ticks;		 /* stop after this many ticks; 0: run until stopped */
	const char *record_path; /* replaces the config's record key when set */
	bool sim_clock;		 /* ticks back to back on simulated time (a simulated control only) */
	/* With sim_clock on another control: the caller keeps the hardware in step with simulated time
	 * (tests: the resctrl emulator on its manual clock, advanced by the interval from on_tick), so
	 * that a test on a loaded machine measures the plant, not the scheduler. */
	bool sim_clock_in_step;
	/* Daemon: SIGHUP reloads, SIGTERM/SIGINT stop (through a signalfd); tests leave it off. */
	bool handle_signals;
	const char *config_path;	   /* what a reload reads; NULL: reload is refused */
	struct config_overrides overrides; /* command-line settings a reload keeps */
	const char *socket_path;	   /* control socket; NULL: none */
	gid_t socket_gid;		   /* group allowed to change things; (gid_t)-1: root only */
	/* What to leave in force when stopping (enum stop_mode), replacing the on_stop key when
	 * on_stop_given (--on-stop, --reset-on-exit). */
	bool on_stop_given;
	unsigned on_stop;
	const struct policy_chain *policies;	/* NULL: mpamd's own chain */
	const struct engine_registry *registry; /* NULL: engine_registry_default */
	/* Where the bandwidth ACPI HMAT publishes is read, as each resctrl MB domain's capacity
	 * (backends/shared/hmat_capacity.h): "/sys" for mpamd, a fixture tree for tests; NULL: not read. */
	const char *sysfs_root;
	/* Called once the loop runs and handles signals (readiness for service managers and tests). */
	void (*on_ready)(void *ctx, struct engine *engine);
	void *on_ready_ctx;
	/* Called after every tick (tests and benchmarks change scenarios from here). */
	void (*on_tick)(void *ctx, struct engine *engine);
	void *on_tick_ctx;
};

/* Opens the backend, opens every partition (one failing does not stop the others) and applies the
 * configured limits. Takes ownership of `config`, also on failure. */
int engine_new(struct config *config, const struct engine_options *opts, struct engine **ret, struct err *err);
void engine_free(struct engine *engine);

/* Runs ticks until opts.ticks are done, engine_stop is called or (with handle_signals) SIGTERM/SIGINT
 * arrives. */
int engine_run(struct engine *engine, struct err *err);
/* Asks engine_run to return after the current tick, as a stop signal does (from the on_tick hook: a
 * test whose condition is met, a program that embeds the engine). */
void engine_stop(struct engine *engine);

/* Partitions live in slots: a number each keeps for its lifetime (the file's partitions get 0..n-1 in
 * the file's order at the start), which adding or removing another never changes. The count is one
 * more than the highest slot in use; a free slot's status has name NULL. */
size_t engine_partition_count(const struct engine *engine);
const struct partition_status *engine_partition(const struct engine *engine, size_t index);
size_t engine_partitions_in_use(const struct engine *engine);
/* Partition entries in every configuration the engine keeps alive (the running one, and those
 * partitions were opened from): what reloads and VMs that come and go cost in memory. */
size_t engine_config_partitions_held(const struct engine *engine);
/* What made the partition in slot `index`: NULL for the configuration file, else the name its maker
 * gave (a [vm-template]'s). */
const char *engine_partition_origin(const struct engine *engine, size_t index);
uint64_t engine_ticks_done(const struct engine *engine);
/* Seconds from the start to the last tick. */
double engine_last_tick_s(const struct engine *engine);
/* The configuration in force (set and reload change it) and the events logged so far. */
const struct config *engine_config(const struct engine *engine);
const struct event_log *engine_events(const struct engine *engine);
/* The domains rates and limits are reported in (record rows, list, show, metrics): the control's
 * domains where the counters can be attributed to them (then the policies decide per domain too),
 * else the counters' own. Named as the configuration names them ("0": mb_max = 0=30); status and
 * list add a description for people ("MB domain 0", "msc mem0"). */
unsigned engine_domain_count(const struct engine *engine);
const char *engine_domain_name(const struct engine *engine, unsigned d);
/* What domain d can carry: known (capacity_mbps, the hardware's), else learned (*learned: the
 * highest total seen on it); 0 when neither. */
double engine_domain_capacity(const struct engine *engine, unsigned d, bool *learned);
/* Where domain d's capacity comes from, in the order of trust: "configured" ([global] capacity_mbps),
 * "hardware" (the monitors' own figure: the simulator's), "hmat" (the firmware's, sysfs_root),
 * "record" (the most the record of earlier runs shows it carried, engine_capacity_record.c, until a
 * higher total is seen), "learned" (the totals seen, established once saturation showed), "none"
 * (nothing yet). */
const char *engine_domain_capacity_source(const struct engine *engine, unsigned d);
/* Whether the guarantees are enforced: NULL when they are (the capacity is known) or no open
 * partition has one; else why not yet, for status, show and check-config --host. */
const char *engine_guarantees_pending(const struct engine *engine);
/* Some open partition has a guarantee. */
bool engine_has_guarantees(const struct engine *engine);
/* Partition `index` on domain d at the last tick. */
const struct domain_status *engine_partition_domain(const struct engine *engine, size_t index, unsigned d);
/* Whether the partitions' truth_mbps is a simulator's ground truth. */
bool engine_has_truth(const struct engine *engine);
/* How long ticks take and how late the last one began (status reports them; benchmarks read them). */
const struct tick_stats *engine_tick_stats(const struct engine *engine);
/* Intervals skipped because a tick began more than one interval late. */
uint64_t engine_overruns(const struct engine *engine);

/* mpamctl set: "key=value" settings of partition `name`, validated like the config file and against
 * what the hardware can hold, all or nothing; they last until a reload changes the partition's entry
 * in the file (an unchanged entry keeps them). Limits (mb_max,
 * mb_min, l3_cbm) are applied at once. The set is an event of partition `name`, naming `who` (the
 * peer; NULL: not named). *ret_result (may be NULL) gets what was asked and what is in force. */
int engine_set(struct engine *engine, const char *name, const char *const *settings, size_t count, const char *who,
	       json_t **ret_result, struct err *err);
/* The same, and the settings persisted: written (atomically) to persist_dir's file of partition `name`
 * (core/config/config_persist.h), whose keys replace the main file's at every start and reload, before
 * they are put in force; a partition of the main file only (not an included file's, not a
 * template's), and refused when the file's other keys with these would be refused at the next start.
 * The partition's goals as filed take them, so a reload of the same file keeps its other sets. The
 * result's "persisted" names the file. */
int engine_set_persist(struct engine *engine, const char *name, const char *const *settings, size_t count,
		       const char *who, json_t **ret_result, struct err *err);
/* Re-reads opts.config_path and applies it, with one partition per running VM its [vm-template]s take,
 * through engine_apply_desired; an invalid file leaves everything as it was (and says why: each
 * finding is logged as FILE:LINE). */
int engine_reload(struct engine *engine, struct err *err);

/* Makes the running set of partitions what `desired` says, changing only the difference, and takes
 * ownership of `desired` (also on failure). Partitions are matched by name:
 *  - equal in both (the file's entry unchanged): untouched, same slot, counters keep their
 *    baseline, policy memory and `mpamctl set` changes kept;
 *  - only goals changed (mb_max, target_mbps, class...): re-applied in place, the file's goals
 *    replacing set's;
 *  - anything else changed (partid, cgroup, vm, threads, pids, cpus, simulator keys): removed and
 *    added again;
 *  - gone: closed and removed (resctrl: its group, only when mpamd made it);
 *  - new: opened in the lowest free slot.
 * `origins` (may be NULL) names, for each of desired's partitions, what made it (NULL: the file):
 * list and show report it as "template". [global] keys that need the backend opened again (backend,
 * monitor, resctrl_root, group_prefix, socket, mmio_beside_kernel, cgroup_root, [msc], [sim], [pmu])
 * are refused with -EBUSY and nothing changes; so is a partition the hardware cannot hold (-EOPNOTSUPP, -ERANGE).
 * interval_ms takes effect at once (the timer is re-armed). *ret_report (may be NULL) gets
 * {"added", "removed", "changed", "readded": [names], "unchanged": N, "interval_ms": N}. */
int engine_apply_desired(struct engine *engine, struct config *desired, const char *const *origins, json_t **ret_report,
			 struct err *err);
/* Closes the partition in slot `index` and removes it (its resctrl group only when mpamd made it);
 * the slot is free for the next partition. Its entry stays in the configuration's model: a later
 * engine_apply_desired decides from the desired set alone. */
void engine_partition_remove(struct engine *engine, size_t index);

#endif
