/* The guarantee as a hardware minimum (MPAM MBW_MIN), programmed by the guard (guard.c) for each
 * guaranteed partition: on each domain, for the share of its traffic there, and only from a capacity
 * that is known. */
#include <math.h>
#include <stdio.h>

#include "policies/domains.h"
#include "policies/guard_internal.h"
#include "policies/policy.h"
#include "policies/steps.h"

/* The share of its guarantee programmed as domain d's minimum, in eighths (see GUARD_MIN_SHARE_STEPS):
 * its traffic's share there; while that is not known (idle, not measured), the share the minimum the
 * guard last programmed stands for, else the domain's share of the capacity. */
static double minimum_share(const struct policy_host *h, const struct policy_partition *p, unsigned d,
			    double total_capacity)
{
	struct policy_host_domain hd = host_dom(h, d);
	double g = p->goals.guarantee_mbps;

	if (pol_domains(h) == 1)
		return 1;
	if (p->valid && p->mbps >= GUARD_IDLE_FRACTION * g) {
		/* the nearest eighth, so that the shares still add up to about the whole guarantee; at least
		 * an eighth where it runs */
		double share = share_on(h, p, d), q = round(share * GUARD_MIN_SHARE_STEPS) / GUARD_MIN_SHARE_STEPS;
		return share >= GUARD_DOMAIN_SHARE && q < 1.0 / GUARD_MIN_SHARE_STEPS ? 1.0 / GUARD_MIN_SHARE_STEPS : q;
	}
	if (pol_cdom(p, d)->guard.min_pct)
		return dom_mbps_of_pct(hd.capacity_mbps, pol_cdom(p, d)->guard.min_pct) / g;
	return hd.capacity_mbps / total_capacity;
}

/* The minimum programmed for the guarantee on domain d now (before the decision's bounds). */
static double minimum_pct(const struct policy_host *h, struct policy_partition *p, unsigned d, double total,
			  double *ret_mbps)
{
	struct policy_domain *dom = pol_dom(p, d);
	const struct ladder *l = pol_min_ladder(h, d);
	double cap = host_dom(h, d).capacity_mbps, share = minimum_share(h, p, d, total);
	double exact = dom_pct_of_mbps(cap, p->goals.guarantee_mbps * share);
	/* The rung at or above it (a minimum is never short); whole percents where no ladder is given. */
	double pct = l ? step_up(l, exact) : ceil(exact - STEP_SLACK);
	double step = dom_pct_of_mbps(cap, p->goals.guarantee_mbps) / GUARD_MIN_SHARE_STEPS;

	/* Down only by more than an eighth of the guarantee: the share jitters. */
	if (dom->guard.min_pct > pct && dom->guard.min_pct <= pct + step)
		pct = dom->guard.min_pct;
	dom->guard.min_pct = pct;
	*ret_mbps = p->goals.guarantee_mbps * share;
	return pct;
}

/* One event for the minimums raised: per domain, or once when every domain went alike. */
struct minimum_events {
	unsigned raised;
	double from, to;
	bool alike;
	double mbps, capacity;
};

static void note_minimum(struct minimum_events *ev, const struct policy_host *h, struct policy_decision *dec,
			 unsigned d, double from, double to, double mbps)
{
	double cap = host_dom(h, d).capacity_mbps;

	ev->alike = ev->raised ? ev->alike && from == ev->from && to == ev->to : true;
	ev->from = from;
	ev->to = to;
	ev->mbps += mbps;
	ev->capacity += cap;
	ev->raised++;
	if (pol_domains(h) > 1)
		policy_event(dec, "guarantee: mb_min %g%% -> %g%% on domain %u (%.0f of %.0f MB/s)", from, to, d, mbps,
			     cap);
}

/* MPAM MBW_MIN: the guarantee as a hardware minimum. The whole percentage at or above it, not a step
 * of gran_pct: MBW_MIN rounds a percentage up to its band by itself (a minimum is never short), so
 * rounding up to the step grid first would reserve up to a band more than the guarantee. */
void guard_program_minimum(const struct policy_host *h, struct policy_partition *p, struct policy_decision *dec)
{
	char before[POLICY_EVENT_MAX];
	struct minimum_events ev = { 0 };
	double total = 0, mbps;
	bool several = pol_domains(h) > 1; /* only then does note_minimum write per-domain events */

	for (unsigned d = 0; d < pol_domains(h); d++) {
		struct policy_host_domain hd = host_dom(h, d);
		if (!(hd.capacity_mbps > 0) || hd.capacity_learned)
			return; /* only from a known capacity: a learned one is too low at first */
		total += hd.capacity_mbps;
	}
	if (!h->has_mb_min)
		return;
	if (several)
		snprintf(before, sizeof(before), "%s", dec->event);
	for (unsigned d = 0; d < pol_domains(h); d++) {
		double pct = minimum_pct(h, p, d, total, &mbps), in_force = pol_cdom(p, d)->mb_min;
		if (pct > *dec_max(dec, d))
			pct = *dec_max(dec, d);
		if (pct <= *dec_min(dec, d))
			continue;
		if (in_force < pct) /* MBW_MIN reads back at or above what was asked: below it, not yet in force */
			note_minimum(&ev, h, dec, d, in_force, pct, mbps);
		*dec_min(dec, d) = pct;
	}
	/* Every domain alike (or a host of one): one event for all of them, as for one domain. */
	if (ev.raised && ev.alike && ev.raised == pol_domains(h)) {
		if (several) /* the per-domain events give way to one */
			snprintf(dec->event, sizeof(dec->event), "%s", before);
		policy_event(dec, "guarantee: mb_min %g%% -> %g%% (%.0f of %.0f MB/s)", ev.from, ev.to, ev.mbps,
			     ev.capacity);
	}
}
