/* A bench double of a host for the policies: domains, a throughput curve per setting, MBW_MAX bands,
 * bursty demand and measurement noise, with the one-tick delay between a decision and its effect.
 *
 * It is not the simulator (backends/sim): it runs the policy functions directly, so a bench or a
 * test can give them plants the simulator does not have and count what they do tick by tick.
 *
 *  - A setting u (percent) lets through capacity * curve(band(u)) on each domain: band() is MBW_MAX's
 *    rounding when bwa_wd is set (the percentage rounded down to one of 2^bwa_wd levels), else u
 *    itself; curve() is piecewise linear through (0, 0), the curve's points and (100, 1).
 *  - Each partition's traffic is on one domain. A domain serves its partitions with the simulator's
 *    water filling (backends/sim/traffic.c): ceilings and minimums as shares of that domain.
 *  - Demand is a base rate, with an optional burst: `period` ticks of which the first `duty` share is
 *    at the base rate and the rest at `low` (MB/s).
 *  - A measurement is the served rate times (1 + noise * u), u uniform in [-1, 1) from a seeded
 *    generator; `truth` is the served rate.
 *  - The chain runs once on the whole host (capacity: all domains together, the engine's view today),
 *    or, with per_domain, once per domain over that domain's partitions with that domain's capacity
 *    (what an engine that runs its policies per domain would do). */
#ifndef MPAMD_BENCH_PLANT_H
#define MPAMD_BENCH_PLANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/sim/traffic.h"
#include "policies/policy.h"

#define PLANT_CURVE_POINTS 8
#define PLANT_MAX_DOMAINS  4

struct plant_curve {
	const char *name;
	size_t n;
	double pct[PLANT_CURVE_POINTS];	 /* increasing, in (0, 100) */
	double frac[PLANT_CURVE_POINTS]; /* share of capacity at pct, increasing */
};

extern const struct plant_curve plant_linear;
extern const struct plant_curve plant_concave; /* MBA-like: 10% -> 35%, 30% -> 75%, 50% -> 90% */

struct plant_setup {
	unsigned domains;
	double capacity_mbps; /* per domain */
	unsigned gran_pct, min_pct;
	unsigned bwa_wd; /* 0: settings act exactly; else MBW_MAX bands of this width */
	bool has_mb_min;
	const struct plant_curve *curve;
	double noise; /* relative, e.g. 0.02 */
	uint64_t seed;
	bool capacity_known; /* else the policies get the highest valid total seen, as learned */
	bool per_domain;
};

struct plant_demand {
	double base_mbps;
	unsigned period; /* 0: no burst */
	double duty;	 /* share of the period at base_mbps */
	double low_mbps; /* the rest of the period */
};

struct plant {
	struct plant_setup setup;
	struct policy_host host;
	size_t n, cap;
	struct policy_partition *parts;
	struct policy_decision *dec;
	struct plant_demand *demand;
	unsigned *domain;
	double *truth; /* this tick's served rate */
	const struct policy_chain *chain;
	struct traffic_rng rng;
	double learned_mbps[PLANT_MAX_DOMAINS + 1]; /* per domain, and [domains]: the host */
	/* scratch, per tick */
	struct traffic_request *req;
	struct traffic_share *work;
	double *served;
	size_t *members;
	struct policy_partition *sub_parts;
	struct policy_decision *sub_dec;
};

int plant_init(struct plant *pl, const struct plant_setup *setup, const struct policy_chain *chain, size_t cap);
void plant_free(struct plant *pl);
/* Adds a partition (open, limits 100/0 in force); returns its index. */
size_t plant_add(struct plant *pl, const char *name, enum partition_class class, unsigned domain,
		 struct plant_demand demand);
/* One tick: serve under the limits in force, measure, decide, apply (shows in the next tick). */
void plant_tick(struct plant *pl);
/* The demand of partition i at the plant's current tick. */
double plant_demand_now(const struct plant *pl, size_t i);
/* What the curve lets through at setting pct, as a share of a domain. */
double plant_fraction(const struct plant *pl, unsigned pct);

#endif
