/* What the unit tests of the feedback policies (tests/unit/test_policy_*.c) share: a host and
 * partitions built by hand for a single policy call, and a small closed loop whose plant is the
 * simulator's own traffic model (traffic_serve) behind MPAM's MBW_MAX/MBW_MIN rungs, with a
 * one-tick delay between a decision and its measurement.
 *
 * The rig is one domain of RIG_CAPACITY MB/s on a host of RIG_CPUS CPUs; its limits are programmed
 * as MPAM fields of BWA_WD `wd` bits (core/base/ladder.h), so a decision is a rung the hardware holds.
 * (bench/plant.c is the larger double, with domains, curves and noise; this one is exact.) */
#ifndef MPAMD_TESTS_UTIL_POLICY_RIG_H
#define MPAMD_TESTS_UTIL_POLICY_RIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policies/policy.h"

#define RIG_MAX_PARTS 6
#define RIG_CAPACITY  40000.0 /* MB/s */
#define RIG_CPUS      16
/* A `wd` of 0: limits in whole percents from 1% (minimums from 0%), for tests of what a policy
 * decides rather than of MPAM's bands. */
#define RIG_WHOLE_PERCENTS 0

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

struct policy_rig {
	struct policy_host host;
	unsigned wd;
	size_t n;
	double demand[RIG_MAX_PARTS];
	double bias[RIG_MAX_PARTS]; /* relative error of this tick's measurement */
	uint16_t max_field[RIG_MAX_PARTS], min_field[RIG_MAX_PARTS];
	struct policy_partition parts[RIG_MAX_PARTS];
	struct target_memory targets[RIG_MAX_PARTS]; /* each part's target controller's memory (any may get a target) */
	struct policy_domain one[RIG_MAX_PARTS];     /* each part's one domain (the rig's host has no domain arrays) */
	struct partition_goals goals[RIG_MAX_PARTS]; /* each part's goals (rig_goals writes them) */
	struct policy_decision dec[RIG_MAX_PARTS];
	const policy_fn *fns;
	size_t nfns;
	bool quota_scales_demand; /* demand shrinks with the CPU quota (escalation tests) */
};

/* ---- a single policy call on hand-built state ---- */

/* The rig's host at BWA_WD `wd` (or RIG_WHOLE_PERCENTS): its ladders, a known capacity, a valid total
 * of 0. */
struct policy_host rig_host(unsigned wd);
/* Whole percents from `floor_pct` (an Intel-like floor under fine steps), for a host's max_ladder. */
const struct ladder *rig_floor_ladder(unsigned floor_pct);
/* Room for a partition's goals (the default class, mb_max 100, weight 100) and its one domain, zeroed
 * (the policies' view and memory on a host without domain arrays, policy.h): rig_part gives each
 * partition its own. */
void rig_part_room(struct policy_partition *p);
/* The goals the view of a rig's partition reads (its room, rig_part_room or the rig's), to write. */
struct partition_goals *rig_goals(struct policy_partition *p);
/* An open partition with a valid sample of `mbps`, configured and in force at 100% / 0%, weight 100,
 * with its one domain's room. */
struct policy_partition rig_part(const char *name, enum partition_class class, double mbps);
/* The configured limits as the engine gives them to the policies: rungs of the host's ladders. */
void rig_snap_goals(const struct policy_host *h, struct policy_partition *p);
/* Sets every decision to the partition's configured limits, as the engine does, then calls fn. */
void rig_decide(policy_fn fn, const struct policy_host *h, struct policy_partition *parts, size_t n,
		struct policy_decision *dec);
/* The partitions' measured rates added up, MB/s. */
double rig_total(const struct policy_partition *parts, size_t n);

/* ---- the closed loop ---- */

void rig_init(struct policy_rig *rig, unsigned wd, const policy_fn *fns, size_t nfns);
/* Adds an open partition wanting `demand` MB/s, limits 100% / 0% in force; returns it. */
struct policy_partition *rig_add(struct policy_rig *rig, const char *name, enum partition_class class, double demand);
/* Sets a partition's configured limits and applies them, as the engine does when it opens it. */
void rig_configure(struct policy_rig *rig, struct policy_partition *p, unsigned mb_min, unsigned mb_max);
/* One tick: traffic flows under the limits in force, is measured, the policies decide, the decisions
 * are applied (rounded by MBW_MAX/MBW_MIN) and show in the next tick's traffic. */
void rig_tick(struct policy_rig *rig);
/* Frees the event texts of decisions a test holds (policy_decision_clear on each), and a rig's. */
void rig_clear(struct policy_decision *dec, size_t n);
void rig_fini(struct policy_rig *rig);
/* Served bandwidth of partition i under the limits now in force (what the next tick will measure). */
double rig_next_mbps(const struct policy_rig *rig, size_t i);

#endif
