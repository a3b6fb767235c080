/* A bench double of a host for the policies: domains, a throughput curve per setting, MBW_MAX bands,
 * bursty demand and measurement noise, with the one-tick delay between a decision and its effect.
 *
 * It is not the simulator (backends/sim): it runs the policy functions directly, so a bench or a
 * test can give them plants the simulator does not have and count what they do tick by tick.
 *
 *  - A setting u (percent) is held as the nearest rung of the plant's ladder (core/base/ladder.h:
 *    MBW_MAX bands of 2^bwa_wd levels when bwa_wd is set, else percent steps of gran_pct from
 *    min_pct) and lets through capacity * curve(rung) on each domain; curve() is piecewise linear
 *    through (0, 0), the curve's points and (100, 1).
 *  - Each partition's traffic is on one domain, or (PLANT_ALL_DOMAINS) spread evenly over all of
 *    them. A domain serves its partitions with the simulator's water filling
 *    (backends/sim/traffic.c): ceilings and minimums as shares of that domain.
 *  - Demand is a base rate, with an optional burst: `period` ticks of which the first `duty` share is
 *    at the base rate and the rest at `low` (MB/s).
 *  - A measurement is the served rate times (1 + noise * u), u uniform in [-1, 1) from a seeded
 *    generator; `truth` is the served rate.
 *  - Monitors: with `monitors` set and fewer of them than partitions, counters rotate as
 *    backends/shared/counter_pool.c rotates them: a partition with a guarantee keeps a counter (at
 *    most monitors - 1 of them), and each tick the next of the others in turn are measured with the
 *    counters left; every other one gets an estimated sample, its last measured rate on each domain
 *    (invalid until its first measurement).
 *  - A limit decided at tick t is read back at once (the policies see it in force) but the traffic
 *    obeys it from tick t + 1 + delay: `delay` ticks of actuation delay (0..PLANT_MAX_DELAY).
 *  - AMD-like: with units_max set, the ceiling is in units of mbps_per_unit MB/s (1..units_max, the
 *    top meaning no throttling) and the curve takes the setting's bandwidth as a share of the
 *    domain's capacity.
 *  - The policies see the host as the engine shows it: with per_domain, each partition's rate,
 *    limits and memory on each domain and each domain's capacity and total (policy.h), deciding a
 *    limit per domain; without, only the totals (capacity: all domains together) and one limit put on
 *    every domain (the engine where counters and controls cannot be matched, and mpamd before it
 *    decided per domain). */
#ifndef MPAMD_BENCH_PLANT_H
#define MPAMD_BENCH_PLANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/sim/traffic.h"
#include "backends/sim/mb_curve.h"
#include "policies/policy.h"

#define PLANT_MAX_DOMAINS 4
#define PLANT_MAX_DELAY	  4
#define PLANT_ALL_DOMAINS (~0u) /* a partition spread evenly over every domain */

/* A policy and what it runs after and before in the default chain, for tests of that one policy. */
extern const struct policy_chain plant_target_chain; /* static, target */
extern const struct policy_chain plant_guard_chain;  /* static, guard, share */

/* The simulator's curves (backends/sim/mb_curve.h): what a setting lets through. */
extern const struct mb_curve plant_linear;
extern const struct mb_curve plant_concave; /* MBA-like: 10% -> 35%, 30% -> 75%, 50% -> 90% */

struct plant_setup {
	unsigned domains;
	double capacity_mbps; /* per domain */
	unsigned gran_pct, min_pct;
	unsigned bwa_wd; /* 0: percent steps of gran_pct from min_pct; else MBW_MAX bands of this width */
	bool has_mb_min;
	const struct mb_curve *curve;
	double noise;	    /* relative, e.g. 0.02 */
	unsigned delay;	    /* ticks of actuation delay beyond the one between a decision and its tick */
	uint32_t units_max; /* AMD-like absolute units (0: percent or MPAM ladders) */
	double mbps_per_unit;
	uint64_t seed;
	bool capacity_known; /* else the policies get the highest valid total seen, as learned */
	bool per_domain;
	unsigned monitors; /* rate counters shared by the partitions; 0: one each */
};

struct plant_demand {
	double base_mbps;
	unsigned period; /* 0: no burst */
	double duty;	 /* share of the period at base_mbps */
	double low_mbps; /* the rest of the period */
};

struct plant {
	struct plant_setup setup;
	struct ladder max_ladder, min_ladder; /* what the hardware holds (from the setup) */
	struct policy_host host;
	size_t n, cap;
	struct policy_partition *parts;
	struct target_memory *targets; /* [partition]: the target controller's memory of each */
	struct partition_goals *goals; /* [partition]: each one's goals, which its view reads (write them here) */
	struct policy_decision *dec;
	struct plant_demand *demand;
	unsigned *domain; /* its domain, or PLANT_ALL_DOMAINS */
	double *truth;	  /* this tick's served rate */
	double *truth_at; /* [partition][domain]: this tick's served rate on each domain */
	double *measured; /* [partition][domain]: this tick's measurement on each domain */
	const struct policy_chain *chain;
	struct traffic_rng rng;
	double learned_mbps[PLANT_MAX_DOMAINS + 1]; /* per domain, and [domains]: the host */
	/* the policies' per-domain view (per_domain) */
	struct policy_domain *pdom; /* [partition][domain] */
	double *dec_max, *dec_min;  /* [partition][domain] */
	double *max_at, *min_at;    /* [partition][domain]: in force */
	/* [PLANT_MAX_DELAY + 1][partition][domain]: what was decided at each of the last ticks, the
	 * traffic obeying the one `delay` ticks old */
	double *max_ring, *min_ring;
	struct policy_host_domain host_doms[PLANT_MAX_DOMAINS];
	size_t *policy_work; /* the policies' scratch (policy_host.work) */
	/* scratch, per tick */
	struct traffic_request *req;
	struct traffic_share *serve_work; /* traffic_serve's */
	double *served;
	size_t *members;
	/* rotation (setup.monitors): each partition's last measurement per domain, whether it had one,
	 * and the next partition to get a counter */
	double *last_at;
	bool *seen;
	bool *monitored; /* this tick */
	size_t cursor;
};

int plant_init(struct plant *pl, const struct plant_setup *setup, const struct policy_chain *chain, size_t cap);
void plant_free(struct plant *pl);
/* Adds a partition (open, limits 100/0 in force) on `domain` (or PLANT_ALL_DOMAINS); returns its index. */
size_t plant_add(struct plant *pl, const char *name, enum partition_class class, unsigned domain,
		 struct plant_demand demand);
/* One tick: serve under the limits in force, measure, decide, apply (shows in the next tick). */
void plant_tick(struct plant *pl);
/* The demand of partition i at the plant's current tick. */
double plant_demand_now(const struct plant *pl, size_t i);
/* What the curve lets through at setting pct, as a share of a domain. */
double plant_fraction(const struct plant *pl, double pct);
/* Partition i's limit in force on domain d, and what the policies decided for it there this tick. */
double plant_max_at(const struct plant *pl, size_t i, unsigned d);
double plant_decided_max_at(const struct plant *pl, size_t i, unsigned d);

#endif
