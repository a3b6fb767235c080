/* The traffic model: how much bandwidth each partition gets from one memory-system component
 * (an MSC or a resctrl domain) of a given capacity, given its demand and its limits.
 * Pure arithmetic; shared by the MSC simulator and the resctrl emulator. */
#ifndef MPAMD_BACKENDS_SIM_TRAFFIC_H
#define MPAMD_BACKENDS_SIM_TRAFFIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct traffic_request {
	double demand_mbps;  /* what the partition would use unthrottled, >= 0 */
	double max_fraction; /* ceiling as a share of capacity, 0..1 */
	double min_fraction; /* guaranteed share of capacity, 0..1 */
	/* A soft ceiling (MPAM's MBW_MAX with HARDLIM clear): beyond max_fraction the partition still
	 * gets capacity that nobody within their ceiling wants, up to soft_ceiling_fraction (the
	 * ceiling its other controls set; 1: none). false: max_fraction is a hard limit. */
	bool soft;
	double soft_ceiling_fraction;
};

/* A request made sane (traffic.c): what it demands, what it can use at most, its min share; `base`
 * is what it was served before a share of the idle capacity (soft ceilings). */
struct traffic_share {
	double demand, cap, min, base;
};

/* Served bandwidth of each request, into served_mbps[n], with `work` room for n shares:
 *  - nobody gets more than its demand or its max_fraction of capacity;
 *  - when the capped demands fit, each is served in full;
 *  - otherwise min shares are served first (scaled down together if they alone exceed capacity),
 *    and the rest of the capacity is shared in proportion to demand, water-filling so that no one
 *    exceeds its cap and no capacity is left over while someone still wants more;
 *  - capacity left over once every capped demand is served goes to the soft requests that want
 *    more than their max_fraction, shared the same way (in proportion to demand, water-filling up
 *    to their soft_ceiling_fraction): a soft limit holds only while others want the bandwidth. */
void traffic_serve(const struct traffic_request *requests, size_t n, double capacity_mbps, struct traffic_share *work,
		   double *served_mbps);

/* Deterministic pseudo-random numbers (splitmix64) for noise: same seed, same sequence. */
struct traffic_rng {
	uint64_t state;
};

void traffic_rng_seed(struct traffic_rng *rng, uint64_t seed);
uint64_t traffic_rng_next(struct traffic_rng *rng);
/* Uniform in [-1, 1). */
double traffic_rng_symmetric(struct traffic_rng *rng);

/* 1 + noise_pct/100 * u, u uniform in [-1, 1): the factor of a noisy value (one number drawn). */
double traffic_noise_factor(unsigned noise_pct, struct traffic_rng *rng);

/* demand * traffic_noise_factor(noise_pct), never below 0. */
double traffic_noisy_demand(double demand_mbps, unsigned noise_pct, struct traffic_rng *rng);

/* The seed of the measurement noise's own sequence, from the run's seed: measuring with noise leaves
 * the demand's sequence (and so every noiseless measurement) as it was. */
uint64_t traffic_measure_seed(uint64_t seed);

#endif
