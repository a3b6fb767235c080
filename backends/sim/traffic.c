/* The traffic model (traffic.h): min shares first, then water-filling in proportion to demand.
 *
 * With a water level L, an unsaturated partition i is served m_i + L * d_i (its min share plus its
 * demand-weighted part of the rest), and a saturated one its cap c_i. Raising L until the capacity is
 * used up is what "share the rest in proportion to demand, giving a capped partition's leftover to the
 * others" means. We find L by repeated rounds instead of sorting so the function needs no memory of
 * its own and cannot fail; each round saturates at least one partition, and in practice few rounds
 * run. Every request is made sane once (its demand, cap and min share into the caller's `work`), so
 * a round is a few instructions per partition. */
#include <math.h>

#include "backends/sim/traffic.h"

/* Garbage in (negative, NaN, infinite) is treated as nothing: the model must not produce NaN. */
static double sane(double v)
{
	return isfinite(v) && v > 0 ? v : 0;
}

static double clamp01(double v)
{
	return v > 1 ? 1 : sane(v);
}

/* fmin for the sane values here (never NaN, never -0): the same result, without a call into libm. */
static inline double lesser(double a, double b)
{
	return a < b ? a : b;
}

/* What a partition demands, what it can use at most (its demand, limited by its max share), and its
 * min share (never more than it can use). */
static struct traffic_share share_of(const struct traffic_request *r, double capacity)
{
	double demand = sane(r->demand_mbps);
	double cap = lesser(demand, clamp01(r->max_fraction) * capacity);

	return (struct traffic_share){ .demand = demand,
				       .cap = cap,
				       .min = lesser(clamp01(r->min_fraction) * capacity, cap) };
}

/* Returns the sum of the caps, writing each cap into served (the answer when everything fits). */
static double serve_caps(const struct traffic_share *shares, size_t n, double *served)
{
	double total = 0;

	for (size_t i = 0; i < n; i++) {
		served[i] = shares[i].cap;
		total += served[i];
	}
	return total;
}

/* Min shares alone exceed capacity: everyone gets the same fraction of their min. */
static void serve_scaled_mins(const struct traffic_share *shares, size_t n, double capacity, double min_total,
			      double *served)
{
	double scale = capacity / min_total;

	for (size_t i = 0; i < n; i++)
		served[i] = shares[i].min * scale;
}

/* One water-filling round. served[i] holds the cap of saturated partitions and < 0 for active ones.
 * Computes the level the active partitions would reach, saturates every partition that level would
 * overfill, and returns how many it saturated (0 means the level is final and is stored in *level). */
static size_t fill_round(const struct traffic_share *shares, size_t n, double capacity, double *served, double *level)
{
	double fixed = 0, weight = 0;
	size_t saturated = 0;

	for (size_t i = 0; i < n; i++) {
		if (served[i] >= 0) {
			fixed += served[i];
		} else {
			fixed += shares[i].min;
			weight += shares[i].demand;
		}
	}
	/* An active partition has cap > min, hence demand > 0, so weight > 0 while any is active. */
	*level = weight > 0 ? fmax(capacity - fixed, 0) / weight : 0;
	for (size_t i = 0; i < n; i++) {
		const struct traffic_share *s = &shares[i];

		if (served[i] < 0 && s->min + *level * s->demand >= s->cap) {
			served[i] = s->cap;
			saturated++;
		}
	}
	return saturated;
}

static void water_fill(const struct traffic_share *shares, size_t n, double capacity, double *served)
{
	double level = 0;

	/* A partition whose min already reaches its cap takes no part in the sharing. */
	for (size_t i = 0; i < n; i++)
		served[i] = shares[i].min >= shares[i].cap ? shares[i].cap : -1;
	while (fill_round(shares, n, capacity, served, &level) > 0)
		;
	for (size_t i = 0; i < n; i++) {
		const struct traffic_share *s = &shares[i];

		/* lesser guards against the last rounding step pushing a share one ulp past the cap. */
		if (served[i] < 0)
			served[i] = lesser(s->min + level * s->demand, s->cap);
	}
}

/* What a soft request can take of the idle capacity beyond what it was served: up to its demand and
 * its other controls' ceiling, weighted by its demand like every share here. */
static struct traffic_share idle_share_of(const struct traffic_request *r, double capacity, double served)
{
	double demand = sane(r->demand_mbps);
	double ceiling = lesser(demand, clamp01(r->soft_ceiling_fraction) * capacity);
	double room = r->soft && ceiling > served ? ceiling - served : 0;

	return (struct traffic_share){ .demand = room > 0 ? demand : 0, .cap = room, .base = served };
}

/* The capacity every capped demand left idle, shared among the soft requests that want more. */
static void serve_idle(const struct traffic_request *requests, size_t n, double capacity, double idle,
		       struct traffic_share *work, double *served)
{
	for (size_t i = 0; i < n; i++)
		work[i] = idle_share_of(&requests[i], capacity, served[i]);
	if (serve_caps(work, n, served) > idle)
		water_fill(work, n, idle, served);
	for (size_t i = 0; i < n; i++)
		served[i] += work[i].base;
}

void traffic_serve(const struct traffic_request *requests, size_t n, double capacity_mbps, struct traffic_share *work,
		   double *served_mbps)
{
	double capacity = sane(capacity_mbps);
	double min_total = 0, total;

	for (size_t i = 0; i < n; i++)
		work[i] = share_of(&requests[i], capacity);
	if ((total = serve_caps(work, n, served_mbps)) <= capacity) {
		serve_idle(requests, n, capacity, capacity - total, work, served_mbps);
		return;
	}
	for (size_t i = 0; i < n; i++)
		min_total += work[i].min;
	if (min_total > capacity)
		serve_scaled_mins(work, n, capacity, min_total, served_mbps);
	else
		water_fill(work, n, capacity, served_mbps);
}

void traffic_rng_seed(struct traffic_rng *rng, uint64_t seed)
{
	rng->state = seed;
}

/* splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and good enough for noise. */
uint64_t traffic_rng_next(struct traffic_rng *rng)
{
	uint64_t z = (rng->state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

double traffic_rng_symmetric(struct traffic_rng *rng)
{
	/* The top 53 bits give a double in [0, 1) exactly, so the result is in [-1, 1). */
	double unit = (double)(traffic_rng_next(rng) >> 11) * 0x1.0p-53;

	return 2 * unit - 1;
}

/* Always draws exactly one number, even with noise_pct 0, so a seeded run's sequence does not depend
 * on which partitions happen to be noisy. */
double traffic_noise_factor(unsigned noise_pct, struct traffic_rng *rng)
{
	return 1 + (double)noise_pct / 100 * traffic_rng_symmetric(rng);
}

double traffic_noisy_demand(double demand_mbps, unsigned noise_pct, struct traffic_rng *rng)
{
	double v = demand_mbps * traffic_noise_factor(noise_pct, rng);

	return v > 0 ? v : 0; /* also turns NaN into 0 */
}

uint64_t traffic_measure_seed(uint64_t seed)
{
	return seed ^ UINT64_C(0x6d65617375726573); /* "measures": another start in splitmix64's cycle */
}
