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
 * and does not jitter with noise. Partitions with a target_mbps are left to the target controller.
 *
 * Each domain is split on its own: the partitions the guard holds back there share what it leaves
 * them there, each up to its configured ceiling on that domain.
 *
 * Targets (with the guarantees) that sum over a domain's capacity are shared by the target controller
 * (policies/target_share.c): guarantees first, then by weight too. */
#include <stdio.h>

#include "policies/domains.h"
#include "policies/policy.h"
#include "policies/steps.h"

/* A best-effort partition without a target: share may split its ceilings (where the guard holds it). */
static bool may_share(const struct policy_partition *p)
{
	return p->open && p->goals->class == CLASS_BEST_EFFORT && p->goals->target_mbps == 0;
}

static bool shares(const struct policy_partition *p, unsigned d)
{
	return may_share(p) && pol_cdom(p, d)->guard.throttled;
}

static double weight_of(const struct policy_partition *p)
{
	return p->goals->weight ? p->goals->weight : 1;
}

/* Water-filling: partition i gets min(cfg_mb_max, level * weight), with the level at which the parts
 * add up to the allowance. Capping one partition raises the level for the others, so the capped set
 * only grows and the loop ends within `count` rounds. */
static double water_level(const struct policy_partition *parts, size_t count, unsigned d, double allowance)
{
	double level = 0;

	for (bool grew = true; grew;) {
		double left = allowance, weights = 0;
		for (size_t i = 0; i < count; i++) {
			if (!shares(&parts[i], d))
				continue;
			double cap = pol_cdom(&parts[i], d)->cfg_max;
			if (level > 0 && level * weight_of(&parts[i]) >= cap)
				left -= cap;
			else
				weights += weight_of(&parts[i]);
		}
		if (weights <= 0)
			return INFINITY; /* everyone gets its configured ceiling */
		double next = left / weights;
		grew = false;
		for (size_t i = 0; i < count; i++) {
			double cap = pol_cdom(&parts[i], d)->cfg_max, w = weight_of(&parts[i]);
			if (shares(&parts[i], d) && next * w >= cap && !(level > 0 && level * w >= cap))
				grew = true;
		}
		level = next;
	}
	return level;
}

static void apply_part(const struct policy_host *h, const struct policy_partition *p, unsigned d,
		       struct policy_decision *dec, double part, double allowance)
{
	const struct policy_domain *dom = pol_cdom(p, d);
	const struct ladder *l = pol_ladder(h, d);
	double next = step_down(l, part);
	double floor_pct = step_floor(l);
	char at[32];

	if (next < floor_pct)
		next = floor_pct;
	if (next > dom->cfg_max)
		next = dom->cfg_max;
	if (next == *dec_max(dec, d))
		return;
	if (pct_differs(l, next, dom->mb_max)) {
		pol_where(pol_domains(h), d, at, sizeof(at));
		policy_event(dec, "%s: weight %u of a %.0f%% best-effort allowance: mb_max %g%% -> %g%%%s",
			     next < dom->mb_max ? "throttle" : "restore", p->goals->weight, allowance, dom->mb_max,
			     next, at);
	}
	*dec_max(dec, d) = next;
	if (*dec_min(dec, d) > next)
		*dec_min(dec, d) = next;
}

static void share_domain(const struct policy_host *host, struct policy_partition *parts, size_t count, unsigned d,
			 struct policy_decision *decisions, double allowance)
{
	double level = water_level(parts, count, d, allowance);
	for (size_t i = 0; i < count; i++)
		if (shares(&parts[i], d))
			apply_part(host, &parts[i], d, &decisions[i], level * weight_of(&parts[i]), allowance);
}

void policy_share(const struct policy_host *host, struct policy_partition *parts, size_t count,
		  struct policy_decision *decisions)
{
	double allowance[POLICY_MAX_DOMAINS];
	size_t sharing[POLICY_MAX_DOMAINS];

	policy_domains_prepare(host, parts, count);
	for (unsigned d = 0; d < pol_domains(host); d++) {
		allowance[d] = 0;
		sharing[d] = 0;
	}
	/* Each domain's allowance, in one pass over the partitions (and in their order on each domain). */
	for (size_t i = 0; i < count; i++) {
		if (!may_share(&parts[i]))
			continue;
		const struct policy_domain *doms = pol_doms(&parts[i]);
		const double *max = dec_max_row(&decisions[i]);
		for (unsigned d = 0; d < pol_domains(host); d++) {
			if (!doms[d].guard.throttled)
				continue;
			allowance[d] += max[d];
			sharing[d]++;
		}
	}
	for (unsigned d = 0; d < pol_domains(host); d++)
		if (sharing[d] >= 2) /* one partition's allowance is its own */
			share_domain(host, parts, count, d, decisions, allowance[d]);
}
