/* share: best-effort partitions split what is left in proportion to their weight.
 *
 * What is left to best-effort partitions is what the guard leaves them once the latency-critical
 * guarantees are protected: while the guard holds best-effort partitions back, the sum of their
 * ceilings is their allowance, and share re-splits it in proportion to each one's weight (water-
 * filling: a partition whose part would exceed its configured mb_max keeps that, and the rest goes to
 * the others). The guard decides how much best-effort partitions get together (and cuts the largest
 * users first, because cutting a partition that uses little frees little); share decides who gets
 * it. When the guard holds nobody back, the host is not contended, share does nothing and every
 * best-effort partition may use what it wants up to its configured ceiling (work-conserving).
 *
 * The inputs are the guard's ceilings and the configuration, not measurements, so the split is exact
 * and does not jitter with noise. Partitions with a target_mbps are left to the target controller. */
#include "policies/policy.h"
#include "policies/steps.h"

static bool shares(const struct policy_partition *p)
{
	return p->open && p->goals.class == CLASS_BEST_EFFORT && p->guard.throttled && p->goals.target_mbps == 0;
}

static double weight_of(const struct policy_partition *p)
{
	return p->goals.weight ? p->goals.weight : 1;
}

/* Water-filling: partition i gets min(cfg_mb_max, level * weight), with the level at which the parts
 * add up to the allowance. Capping one partition raises the level for the others, so the capped set
 * only grows and the loop ends within `count` rounds. */
static double water_level(const struct policy_partition *parts, size_t count, double allowance)
{
	double level = 0;

	for (bool grew = true; grew;) {
		double left = allowance, weights = 0;
		for (size_t i = 0; i < count; i++) {
			if (!shares(&parts[i]))
				continue;
			if (level > 0 && level * weight_of(&parts[i]) >= parts[i].goals.mb_max)
				left -= parts[i].goals.mb_max;
			else
				weights += weight_of(&parts[i]);
		}
		if (weights <= 0)
			return INFINITY; /* everyone gets its configured ceiling */
		double next = left / weights;
		grew = false;
		for (size_t i = 0; i < count; i++) {
			double cap = parts[i].goals.mb_max, w = weight_of(&parts[i]);
			if (shares(&parts[i]) && next * w >= cap && !(level > 0 && level * w >= cap))
				grew = true;
		}
		level = next;
	}
	return level;
}

static void apply_part(const struct policy_host *h, const struct policy_partition *p, struct policy_decision *d,
		       double part, double allowance)
{
	unsigned next = step_down(h, part);
	unsigned floor_pct = policy_floor_pct(h);

	if (next < floor_pct)
		next = floor_pct;
	if (next > p->goals.mb_max)
		next = p->goals.mb_max;
	if (next == d->mb_max)
		return;
	if (pct_differs(h, next, p->mb_max))
		policy_event(d, "%s: weight %u of a %.0f%% best-effort allowance: mb_max %u%% -> %u%%",
			     next < p->mb_max ? "throttle" : "restore", p->goals.weight, allowance, p->mb_max, next);
	d->mb_max = next;
	if (d->mb_min > next)
		d->mb_min = next;
}

void policy_share(const struct policy_host *host, struct policy_partition *parts, size_t count,
		  struct policy_decision *decisions)
{
	double allowance = 0;
	size_t sharing = 0;

	for (size_t i = 0; i < count; i++) {
		if (!shares(&parts[i]))
			continue;
		allowance += decisions[i].mb_max;
		sharing++;
	}
	if (sharing < 2)
		return; /* one partition's allowance is its own */
	double level = water_level(parts, count, allowance);
	for (size_t i = 0; i < count; i++)
		if (shares(&parts[i]))
			apply_part(host, &parts[i], &decisions[i], level * weight_of(&parts[i]), allowance);
}
