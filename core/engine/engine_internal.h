/* Shared by the engine's parts (engine.c, engine_apply.c, engine_ctl.c, engine_loop.c). */
#ifndef MPAMD_CORE_ENGINE_ENGINE_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_INTERNAL_H

#include "core/base/clock.h"
#include "core/ctl/ctl.h"
#include "core/engine/compose.h"
#include "core/engine/engine.h"
#include "core/engine/events.h"
#include "core/engine/record.h"
#include "core/engine/tick_stats.h"
#include "policies/policy.h"

struct loop;
struct ctl_server;

/* Per partition: what the engine knows beyond the public status. */
struct engine_partition {
	struct partition_status status;
	struct partition_ref ref;	 /* how the control opened it */
	struct partition_limits applied; /* what the last successful apply asked for */
	bool applied_once;
	struct actuation actuated; /* what the actuators last carried out */
};

struct engine {
	struct config *config;
	struct engine_options opts;
	const struct engine_registry *registry;
	struct clock clock;
	struct composition hw; /* the control, monitors and actuators */
	struct engine_partition *partitions;
	/* The policies' view of every partition (with their memory) and this tick's decisions, kept
	 * side by side as the policy contract wants them, so a tick copies nothing. */
	struct policy_partition *policy;
	struct policy_decision *decisions;
	struct sample *samples; /* [partition][domain of hw.domains] */
	struct record *record;
	struct event_log events;
	uint64_t interval_ns;
	uint64_t start_ns;
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
};

/* engine.c */
int engine_open_backend(struct engine *e, struct err *err);
void engine_close_backend(struct engine *e);
void engine_tick(struct engine *e, uint64_t now_ns);
uint64_t engine_t_ms(const struct engine *e, uint64_t now_ns);
/* The policies' copy of partition `index`'s configuration (after open, set, reload). */
void engine_policy_config(struct engine *e, size_t index);

/* engine_apply.c: policies and their decisions */
/* Capacity of the measuring domains together, and whether it is only learned from measurements. */
double engine_host_capacity(const struct engine *e, bool *learned);
void engine_run_policies(struct engine *e, uint64_t now_ns);
/* Applies the configured limits of one partition right away (open, set, reset). */
int engine_apply_limits(struct engine *e, size_t index, const struct partition_limits *want, struct err *err);
void engine_reset_limits(struct engine *e);

/* engine_ctl.c */
void engine_ctl_handler(struct engine *e, struct ctl_handler *ret);
/* Opens the control socket (opts.socket_path) on the engine's loop; a no-op without a path. */
int engine_ctl_attach(struct engine *e, struct err *err);
void engine_ctl_detach(struct engine *e);

#endif
