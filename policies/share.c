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
 * Targets that sum over a domain's capacity cannot all be met, and no weight applies to them: each
 * controller raises its ceiling toward its target, up to its mb_max, and the hardware's arbitration
 * shares the domain among them. share says so, once (policies/overcommit.c). */
#include <stdio.h>

#include "policies/domains.h"
#include "policies/overcommit.h"
#include "policies/policy.h"
#include "policies/steps.h"

static bool shares(const struct policy_partition *p, unsigned d)
{
	return p->open && p->goals.class == CLASS_BEST_EFFORT && pol_cdom(p, d)->guard.throttled &&
	       p->goals.target_mbps == 0;
}

static double weight_of(const struct policy_partition *p)
{
	return p->goals.weight ? p->goals.weight : 1;
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
			     next < dom->mb_max ? "throttle" : "restore", p->goals.weight, allowance, dom->mb_max, next,
			     at);
	}
	*dec_max(dec, d) = next;
	if (*dec_min(dec, d) > next)
		*dec_min(dec, d) = next;
}

static void share_domain(const struct policy_host *host, struct policy_partition *parts, size_t count, unsigned d,
			 struct policy_decision *decisions)
{
	double allowance = 0;
	size_t sharing = 0;

	for (size_t i = 0; i < count; i++) {
		if (!shares(&parts[i], d))
			continue;
		allowance += *dec_max(&decisions[i], d);
		sharing++;
	}
	if (sharing < 2)
		return; /* one partition's allowance is its own */
	double level = water_level(parts, count, d, allowance);
	for (size_t i = 0; i < count; i++)
		if (shares(&parts[i], d))
			apply_part(host, &parts[i], d, &decisions[i], level * weight_of(&parts[i]), allowance);
}

/* What a partition's target asks of domain d, MB/s: its share of the target where its traffic goes
 * (unmeasured or idle: the domain's share of the host's capacity); 0 where a capacity is not known. */
static double target_ask(const struct policy_host *h, const struct policy_partition *p, unsigned d,
			 const struct policy_decision *dec)
{
	const struct policy_domain *dom = pol_cdom(p, d);
	double total = 0;

	(void)dec;
	if (!p->goals.target_mbps)
		return 0;
	if (pol_domains(h) == 1)
		return p->goals.target_mbps;
	if (p->valid && p->mbps > 0)
		return dom->valid ? p->goals.target_mbps * dom->mbps / p->mbps : 0;
	for (unsigned k = 0; k < pol_domains(h); k++)
		total += host_dom(h, k).capacity_mbps;
	return total > 0 ? p->goals.target_mbps * host_dom(h, d).capacity_mbps / total : 0;
}

static void say_targets(const struct policy_host *h, struct policy_partition *parts, size_t count, unsigned d,
			struct policy_decision *decisions)
{
	struct policy_host_domain hd = host_dom(h, d);
	char where[32], who[160];

	if (!(hd.capacity_mbps > 0) || hd.capacity_learned)
		return; /* a learned capacity is the most seen so far, not what the domain has */
	double asked = overcommit_sum(h, parts, count, d, decisions, target_ask);
	bool over = asked > hd.capacity_mbps * (1 + STEP_SLACK);
	bool clear = asked <= hd.capacity_mbps * OVERCOMMIT_CLEAR_FRACTION;
	if (!overcommit_news(h, parts, count, d, decisions, target_ask, OVERCOMMIT_TARGETS, over, clear))
		return;
	pol_where(pol_domains(h), d, where, sizeof(where));
	overcommit_list(who, sizeof(who), h, parts, count, d, decisions, target_ask, target_ask, false);
	policy_event(&decisions[overcommit_largest(h, parts, count, d, decisions, target_ask)],
		     "overcommit: targets ask %.0f of %.0f MB/s%s (%s): not all can be met; each ceiling rises toward "
		     "its target up to mb_max, and they share the domain as the hardware arbitrates",
		     asked, hd.capacity_mbps, where, who);
}

void policy_share(const struct policy_host *host, struct policy_partition *parts, size_t count,
		  struct policy_decision *decisions)
{
	policy_domains_prepare(host, parts, count);
	for (unsigned d = 0; d < pol_domains(host); d++) {
		share_domain(host, parts, count, d, decisions);
		say_targets(host, parts, count, d, decisions);
	}
}
