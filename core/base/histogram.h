/* A cumulative histogram as Prometheus keeps one: fixed upper bounds chosen up front, a count per
 * bucket, the sum and the number of observations. Pure arithmetic, no allocation. */
#ifndef MPAMD_CORE_BASE_HISTOGRAM_H
#define MPAMD_CORE_BASE_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#define HISTOGRAM_MAX_BOUNDS 16

struct histogram {
	double bounds[HISTOGRAM_MAX_BOUNDS]; /* upper bounds, ascending; +Inf is implicit */
	size_t bound_count;
	/* counts[i]: observations <= bounds[i] and above the bound before; counts[bound_count]: the
	 * rest. Kept per bucket so an observation touches one; the exposition sums them up. */
	uint64_t counts[HISTOGRAM_MAX_BOUNDS + 1];
	uint64_t count;
	double sum;
};

/* `bounds` must ascend; at most HISTOGRAM_MAX_BOUNDS are kept. */
void histogram_init(struct histogram *h, const double *bounds, size_t count);
void histogram_observe(struct histogram *h, double value);
/* Observations <= bounds[index] (index == bound_count: all of them, the +Inf bucket). */
uint64_t histogram_cumulative(const struct histogram *h, size_t index);

#endif
