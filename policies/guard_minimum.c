/* The guarantee as a hardware minimum (MPAM MBW_MIN), programmed by the guard (guard.c) for each
 * guaranteed partition: on each domain, for the share of its traffic there, and only from a capacity
 * that is known. */
#include <math.h>
#include <stdio.h>

#include "policies/domains.h"
#include "policies/guard_internal.h"
#include "policies/overcommit.h"
#include "policies/policy.h"
#include "policies/steps.h"

/* The share of its guarantee programmed as domain d's minimum, in eighths (see GUARD_MIN_SHARE_STEPS):
 * its traffic's share there; while that is not known (idle, not measured), the share the minimum the
 * guard last programmed stands for, else the domain's share of the capacity. */
static double minimum_share(const struct policy_host *h, const struct policy_partition *p, unsigned d,
			    double total_capacity)
{
	struct policy_host_domain hd = host_dom(h, d);
	double g = p->goals->guarantee_mbps;

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
	double exact = dom_pct_of_mbps(cap, p->goals->guarantee_mbps * share);
	/* The rung at or above it (a minimum is never short); whole percents where no ladder is given. */
	double pct = l ? step_up(l, exact) : ceil(exact - STEP_SLACK);
	double step = dom_pct_of_mbps(cap, p->goals->guarantee_mbps) / GUARD_MIN_SHARE_STEPS;

	/* Down only by more than an eighth of the guarantee: the share jitters. */
	if (dom->guard.min_pct > pct && dom->guard.min_pct <= pct + step)
		pct = dom->guard.min_pct;
	dom->guard.min_pct = pct;
	*ret_mbps = p->goals->guarantee_mbps * share;
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

/* Every domain's capacity is known (not learned); their sum into *total. */
static bool capacities_known(const struct policy_host *h, double *total)
{
	*total = 0;
	for (unsigned d = 0; d < pol_domains(h); d++) {
		struct policy_host_domain hd = host_dom(h, d);
		if (!(hd.capacity_mbps > 0) || hd.capacity_learned)
			return false; /* only from a known capacity: a learned one is too low at first */
		*total += hd.capacity_mbps;
	}
	return true;
}

/* MPAM MBW_MIN: the guarantee as a hardware minimum. The whole percentage at or above it, not a step
 * of gran_pct: MBW_MIN rounds a percentage up to its band by itself (a minimum is never short), so
 * rounding up to the step grid first would reserve up to a band more than the guarantee. Said once
 * guard_fit_minimums has fitted every partition's minimum into its domains. */
void guard_program_minimum(const struct policy_host *h, struct policy_partition *p, struct policy_decision *dec)
{
	double total, mbps;

	if (!capacities_known(h, &total) || !h->has_mb_min)
		return;
	for (unsigned d = 0; d < pol_domains(h); d++) {
		double pct = minimum_pct(h, p, d, total, &mbps);
		if (pct > *dec_max(dec, d))
			pct = *dec_max(dec, d);
		if (pct > *dec_min(dec, d))
			*dec_min(dec, d) = pct;
	}
}

/* ---- several minimums on one domain ---- */

/* What a guaranteed partition's guarantee asks of domain d, MB/s (the share guard_program_minimum
 * reserves there); 0 where the domain's capacity is not known. */
static double guarantee_ask(const struct policy_host *h, const struct policy_partition *p, unsigned d,
			    const struct policy_decision *dec)
{
	double total;

	(void)dec;
	if (!guaranteed(p) || !capacities_known(h, &total))
		return 0;
	return p->goals->guarantee_mbps * minimum_share(h, p, d, total);
}

/* The minimum a partition's decision holds on domain d, percent. */
static double minimum_ask(const struct policy_host *h, const struct policy_partition *p, unsigned d,
			  const struct policy_decision *dec)
{
	(void)h;
	(void)p;
	return dec_min_of(dec, d);
}

/* Either of the two: the partitions an overcommit event concerns. */
static double any_ask(const struct policy_host *h, const struct policy_partition *p, unsigned d,
		      const struct policy_decision *dec)
{
	return guarantee_ask(h, p, d, dec) + minimum_ask(h, p, d, dec);
}

/* The rung at or below `pct` a minimum can hold on domain d; 0 (no minimum) below the lowest. */
static double minimum_down(const struct policy_host *h, unsigned d, double pct)
{
	const struct ladder *l = pol_min_ladder(h, d);
	double rung = l ? step_down(l, pct) : floor(pct + STEP_SLACK);

	return rung > pct + STEP_SLACK ? 0 : rung;
}

/* What the minimums ask of one domain before they are fitted: all of them, each tier's (tier[1] the
 * latency-critical partitions'), and the guarantees (MB/s, what guarantee_ask counts). */
struct minimum_asks {
	double all, tier[2], guarantees;
};

static bool asks_guarantee(const struct policy_partition *p)
{
	return guaranteed(p);
}

/* Every domain's minimum_asks, in one pass over the partitions (each domain's sums still add the
 * partitions in order: the figures are those of a pass per domain). */
static void sum_minimums(const struct policy_host *h, const struct policy_partition *parts, size_t count,
			 const struct policy_decision *decisions, struct minimum_asks *asks)
{
	double guarantees[POLICY_MAX_DOMAINS];
	unsigned domains = pol_domains(h);

	overcommit_sums(h, parts, count, decisions, guarantee_ask, asks_guarantee, guarantees);
	for (unsigned d = 0; d < domains; d++)
		asks[d] = (struct minimum_asks){ .guarantees = guarantees[d] };
	for (size_t i = 0; i < count; i++) {
		if (!parts[i].open)
			continue;
		int lc = parts[i].goals->class == CLASS_LATENCY_CRITICAL;
		const double *mins = dec_min_row_of(&decisions[i]);
		for (unsigned d = 0; d < domains; d++) {
			asks[d].all += mins[d];
			asks[d].tier[lc] += mins[d];
		}
	}
}

/* Latency-critical partitions' minimums first, then the others': a tier that fits keeps what it asks,
 * the first that does not has what is left shared in proportion to what each asks (a guarantee's
 * minimum is its share of the guarantee), each rounded down to a rung so that the sum stays within
 * the domain; the tiers after it get no minimum. */
static void fit_domain(const struct policy_host *h, const struct policy_partition *parts, size_t count, unsigned d,
		       struct policy_decision *decisions, const struct minimum_asks *asks)
{
	double left = PCT_FULL;

	for (int lc = 1; lc >= 0; lc--) {
		double asked = asks->tier[lc], got = 0;
		if (asked <= left + STEP_SLACK) {
			left -= asked;
			continue;
		}
		for (size_t i = 0; i < count; i++) {
			if (!parts[i].open || (parts[i].goals->class == CLASS_LATENCY_CRITICAL) != lc)
				continue;
			double *min = dec_min(&decisions[i], d);
			*min = minimum_down(h, d, *min * (left > 0 ? left : 0) / asked);
			got += *min;
		}
		left -= got;
	}
}

/* The overcommit of domain d, in an event on the partition that asks most there (see overcommit.c):
 * guarantees that sum over its capacity, minimums that sum over 100% of it, and how they are shared.
 * `asks` are the sums before fitting; a domain whose overcommit ended is added to `cleared`. */
static void say_overcommit(const struct policy_host *h, struct policy_partition *parts, size_t count, unsigned d,
			   struct policy_decision *decisions, const struct minimum_asks *asks, uint64_t *cleared)
{
	double cap = host_dom(h, d).capacity_mbps, asked = asks->all, guaranteed_mbps = asks->guarantees;
	bool over_guarantees = cap > 0 && guaranteed_mbps > cap * (1 + STEP_SLACK);
	bool over = over_guarantees || asked > PCT_FULL + STEP_SLACK;
	bool clear = !(guaranteed_mbps > cap * OVERCOMMIT_CLEAR_FRACTION) && !(asked > PCT_FULL + STEP_SLACK);
	char where[32], who[160], got[160];

	if (clear)
		*cleared |= UINT64_C(1) << d;
	if (clear || !overcommit_news(h, parts, count, d, decisions, any_ask, OVERCOMMIT_MINIMUMS, over))
		return;
	pol_where(pol_domains(h), d, where, sizeof(where));
	struct policy_decision *dec =
		&decisions[overcommit_largest(h, parts, count, d, decisions, over_guarantees ? guarantee_ask : any_ask)];
	overcommit_list(got, sizeof(got), h, parts, count, d, decisions, minimum_ask, minimum_ask, true);
	if (over_guarantees) {
		overcommit_list(who, sizeof(who), h, parts, count, d, decisions, guarantee_ask, guarantee_ask, false);
		policy_event(dec, "overcommit: guarantees ask %.0f of %.0f MB/s%s (%s): not all can be met",
			     guaranteed_mbps, cap, where, who);
	} else {
		policy_event(dec, "overcommit: minimums ask %g%%%s: not all can be met", asked, where);
	}
	if (got[0])
		policy_event(dec,
			     "mb_min shared latency-critical first, in proportion to guarantee: %s (of %g%% asked)",
			     got, asked);
	else
		policy_event(dec, "no hardware minimum: the guard cuts best-effort partitions for each, and the "
				  "latency-critical ones share the rest as the hardware arbitrates");
}

/* The minimums raised for partition p, once they are fitted: per domain, or one event for all. */
static void say_minimums(const struct policy_host *h, struct policy_partition *p, struct policy_decision *dec)
{
	char before[POLICY_EVENT_MAX];
	struct minimum_events ev = { 0 };
	double total;
	bool several = pol_domains(h) > 1; /* only then does note_minimum write per-domain events */

	if (!capacities_known(h, &total))
		return;
	if (several)
		snprintf(before, sizeof(before), "%s", policy_decision_event(dec));
	for (unsigned d = 0; d < pol_domains(h); d++) {
		double pct = dec_min_of(dec, d), in_force = pol_cdom(p, d)->mb_min;
		/* MBW_MIN reads back at or above what was asked: below it, not yet in force */
		if (pct > pol_cdom(p, d)->cfg_min && in_force < pct)
			note_minimum(&ev, h, dec, d, in_force, pct,
				     p->goals->guarantee_mbps * minimum_share(h, p, d, total));
	}
	/* Every domain alike (or a host of one): one event for all of them, as for one domain. */
	if (ev.raised && ev.alike && ev.raised == pol_domains(h)) {
		if (several) { /* the per-domain events give way to one */
			policy_decision_clear(dec);
			if (before[0])
				policy_event(dec, "%s", before);
		}
		policy_event(dec, "guarantee: mb_min %g%% -> %g%% (%.0f of %.0f MB/s)", ev.from, ev.to, ev.mbps,
			     ev.capacity);
	}
}

void guard_fit_minimums(const struct policy_host *h, struct policy_partition *parts, size_t count,
			struct policy_decision *decisions)
{
	struct minimum_asks asks[POLICY_MAX_DOMAINS];
	uint64_t cleared = 0;

	sum_minimums(h, parts, count, decisions, asks);
	for (unsigned d = 0; d < pol_domains(h); d++) {
		fit_domain(h, parts, count, d, decisions, &asks[d]);
		say_overcommit(h, parts, count, d, decisions, &asks[d], &cleared);
	}
	overcommit_forget(parts, count, OVERCOMMIT_MINIMUMS, cleared);
	for (size_t i = 0; i < count; i++)
		if (guaranteed(&parts[i]) && h->has_mb_min)
			say_minimums(h, &parts[i], &decisions[i]);
}
