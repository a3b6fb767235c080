/* static: the configured limits, re-applied if something else changed them.
 *
 * Every open partition's decision is set to its configured mb_max and mb_min. The engine applies a
 * decision that differs from what is in force, so a limit changed behind mpamd's back (another tool
 * writing the schemata or the MSC) is put back on the next tick; this policy says so in an event.
 *
 * The policy has no memory, so it reports a limit as changed from outside only when no mpamd policy
 * could have set it: an mb_max above the configured one (no policy ever raises a ceiling past the
 * configuration), an mb_max below it on a partition no feedback policy lowers (no target_mbps and not
 * best-effort), an mb_min below the configured one, or an mb_min above it that the guard did not
 * program. Read-back values differ from requested ones by less than a hardware step (the hardware
 * rounds), so only a difference of a whole step counts.
 *
 * Per domain: each domain gets its configured limits (the partition's per-domain values, else its
 * mb_max and mb_min), and each domain's limits in force are checked against them. */
#include <stdio.h>

#include "policies/domains.h"
#include "policies/policy.h"
#include "policies/steps.h"

/* The target controller, the guard, share and escalation may lower these partitions' ceilings. */
static bool max_may_be_lowered(const struct policy_partition *p)
{
	return p->goals->target_mbps > 0 || p->goals->class == CLASS_BEST_EFFORT;
}

/* The guard programs a latency-critical guarantee as a hardware minimum when there is one. */
static bool min_may_be_raised(const struct policy_host *h, const struct policy_partition *p)
{
	return h->has_mb_min && p->goals->class == CLASS_LATENCY_CRITICAL && p->goals->guarantee_mbps > 0;
}

/* What may have moved a partition's limits without anyone outside mpamd: worked out once per
 * partition, not per domain. */
struct static_may {
	bool lower_max, raise_min;
};

static bool max_changed_outside(const struct policy_host *h, struct static_may may, const struct policy_domain *dom,
				unsigned d)
{
	/* The cheap test first: a ceiling a policy may have lowered needs no look-up in the ladder. */
	if (dom->mb_max <= dom->cfg_max && may.lower_max)
		return false;
	return pct_differs(pol_ladder(h, d), dom->mb_max, dom->cfg_max);
}

static bool min_changed_outside(const struct policy_host *h, struct static_may may, const struct policy_domain *dom,
				unsigned d)
{
	if (dom->mb_min == dom->cfg_min || (dom->mb_min >= dom->cfg_min && may.raise_min))
		return false; /* equal: the same setting on every ladder */
	const struct ladder *l = pol_min_ladder(h, d);
	return l ? pct_differs(l, dom->mb_min, dom->cfg_min) : true;
}

static void static_domain(const struct policy_host *host, const struct policy_domain *dom, struct static_may may,
			  unsigned d, double *max, double *min, struct policy_decision *dec)
{
	char where[32];

	*max = dom->cfg_max;
	*min = dom->cfg_min <= dom->cfg_max ? dom->cfg_min : dom->cfg_max;
	if (dom->mb_max == dom->cfg_max && dom->mb_min == dom->cfg_min)
		return; /* the usual tick, as configured: nothing moved, no ladder to ask */
	bool max_moved = max_changed_outside(host, may, dom, d), min_moved = min_changed_outside(host, may, dom, d);
	if (!max_moved && !min_moved)
		return; /* no text to build */
	pol_where(pol_domains(host), d, where, sizeof(where));
	if (max_moved)
		policy_event(dec, "restore: mb_max %g%% in force but %g%% configured%s (changed outside mpamd)",
			     dom->mb_max, dom->cfg_max, where);
	if (min_moved)
		policy_event(dec, "restore: mb_min %g%% in force but %g%% configured%s (changed outside mpamd)",
			     dom->mb_min, dom->cfg_min, where);
}

void policy_static(const struct policy_host *host, struct policy_partition *parts, size_t count,
		   struct policy_decision *decisions)
{
	unsigned domains = pol_domains(host);

	policy_domains_prepare(host, parts, count);
	for (size_t i = 0; i < count; i++) {
		struct policy_partition *p = &parts[i];
		struct policy_decision *d = &decisions[i];

		if (!p->open)
			continue;
		d->mb_max = p->cfg_max;
		d->mb_min = p->cfg_min <= p->cfg_max ? p->cfg_min : p->cfg_max;
		struct static_may may = { .lower_max = max_may_be_lowered(p), .raise_min = min_may_be_raised(host, p) };
		const struct policy_domain *doms = pol_doms(p);
		double *max = dec_max_row(d), *min = dec_min_row(d);
		for (unsigned dom = 0; dom < domains; dom++)
			static_domain(host, &doms[dom], may, dom, &max[dom], &min[dom], d);
	}
}
