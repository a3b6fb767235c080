/* From measurements to limits (engine_apply.c): the policies' input, the chain, and applying only what
 * changed. */
#ifndef MPAMD_CORE_ENGINE_ENGINE_APPLY_INTERNAL_H
#define MPAMD_CORE_ENGINE_ENGINE_APPLY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/engine/capacity_learner.h"
#include "core/engine/compose.h"
#include "policies/policy.h"

struct engine;

/* What the policy contract reads and writes, kept side by side as it wants them so a tick copies
 * nothing. engine_apply.c fills the view from the tick's measurements and applies the decisions; the
 * configuration's part of the view comes from engine.c's engine_policy_config (cfg_max and cfg_min
 * from engine_domains_config), open from engine_partition.c, IPC from engine_pmu.c, and the policies
 * keep their memory in it. */
struct engine_policy {
	struct policy_partition *partitions; /* [slot]: the view of each partition, with its memory */
	struct policy_decision *decisions;   /* [slot]: this tick's decisions */
	/* [slot][domain]: the view and memory on each domain (per_domain); without per_domain each slot's
	 * first is its one domain (policy.h). engine_policy_domains of them a slot. */
	struct policy_domain *domains;
	double *max_at, *min_at; /* [slot][domain]: this tick's decisions there (per_domain) */
	size_t *work;		 /* [slot]: room for the guard to order partitions */
	struct policy_host_domain host_domains[ENGINE_MAX_DOMAINS];
	struct capacity_learner host_learn; /* the host's capacity learned from its totals (engine_capacity.c) */
};

/* A slot's entries in policy.domains: the engine's domains, at least one. */
size_t engine_policy_domains(const struct engine *e);
/* Capacity of the measuring domains together, and whether it is only learned from measurements; the
 * policies' figure, learned only until the host has shown saturation (engine_capacity.c). */
double engine_host_capacity(const struct engine *e, bool *learned);
double engine_host_policy_capacity(const struct engine *e, bool *learned);
void engine_run_policies(struct engine *e, uint64_t now_ns);
/* Applies the configured limits of one partition right away (open, set, reset). */
int engine_apply_limits(struct engine *e, size_t index, const struct partition_limits *want, struct err *err);
void engine_reset_limits(struct engine *e);
/* Every open partition back to its configured limits, without CPU quota (on_stop = configured). */
void engine_configured_limits(struct engine *e);
/* The limits to program for partition `p`: its cache mask, under a kernel MB/s controller (mba_MBps)
 * its target_mbps as each domain's ceiling, and on each of the control's domains the MB limits of
 * max_at/min_at (the policies' per-domain decisions, by engine domain), or without them its own
 * per-domain values where it has them and mb_max/mb_min elsewhere. */
/* g in percent on every domain (core/engine/domain_limits.h domain_goals_pct, with the configuration's
 * capacity_mbps); goals it cannot convert (engine_check_goals refuses them) as no limit. */
const struct partition_goals *engine_goals_pct(const struct engine *e, const struct partition_goals *g,
					       struct partition_goals_buf *buf);
/* engine_limits of the partition's configured mb_max and mb_min (in percent). */
struct partition_limits engine_config_limits(const struct engine *e, const struct partition_config *p);
struct partition_limits engine_limits(const struct engine *e, const struct partition_config *p, double mb_max,
				      double mb_min, const double *max_at, const double *min_at);
/* Goals the composition cannot serve at all (guarantee_mbps where mpamd's guard may not run: -EOPNOTSUPP;
 * a domain it does not have, MB/s where the capacity is unknown under `gc`: -EINVAL) and why. */
int engine_check_goals(const struct engine *e, const struct global_config *gc, const struct partition_config *p,
		       struct err *err);
/* Whether the control can hold `want` at all (its validate op); 0 when it has no such check. */
int engine_validate_limits(struct engine *e, const struct partition_limits *want, struct err *err);
/* An event of partition `index` now: the event log, the partition's event of this tick, the log. */
void engine_note_event(struct engine *e, size_t index, const char *text);
/* The same, with `log_text` (which says more than an event can hold) as the log's one line about it. */
void engine_note_event_logged_as(struct engine *e, size_t index, const char *text, const char *log_text);

#endif
