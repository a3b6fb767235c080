/* The guard's victims (guard.c): which guaranteed partitions are squeezed, on which domains and by
 * how much, with the evidence a learned capacity needs, and, a few ticks after a cut, whether it
 * helped.
 *
 * A guaranteed partition using under 5% of its guarantee is taken as idle, not squeezed: a cut would
 * not help it, and it must not keep its neighbours throttled. Nor is it judged to want less: an
 * idle partition is no news, and saying so every few ticks would bury the events that are.
 *
 * Below its guarantee is not always squeezed: a partition may simply want less. Two signs tell:
 *  - its hardware minimum (MBW_MIN) in force covers the guarantee: the memory system serves
 *    minimums first, so whatever it gets below that is all it asks for;
 *  - without a minimum: it stays below its guarantee for GUARD_CALM_TICKS while the host has spare
 *    capacity it could take, or a cut made for it does not raise its rate (judged GUARD_JUDGE_TICKS
 *    later). Its rate is then taken as its demand level: within GUARD_DEMAND_BAND below it, it is
 *    not squeezed and its neighbours get their bandwidth back; further below, it is squeezed and a
 *    cut aims at that level, not at the whole guarantee; above the band it wants more and the
 *    level is forgotten. The verdict is said once (a release event): judged again with nothing
 *    between that said otherwise (a cut for it, its guarantee reached), it is folded, not logged.
 * A cut is judged only when it freed bandwidth (the best-effort partitions on the victim's domains
 * use less than before it): a ceiling that did not bind yet says nothing about the victim.
 *
 * Evidence before a cut (no false alarms). Saturation is judged against the capacity. A known one
 * (the backend's, or [global] capacity_mbps) is evidence at once. A learned one (the highest total
 * seen) is the total itself at first, which makes every host look saturated and every partition below
 * its guarantee look squeezed, although it may simply want less and get it. So a learned capacity is
 * evidence for a partition on a domain only after GUARD_WARMUP_TICKS ticks and once the partition has
 * shown a saturation sign there within the last GUARD_RECENT_TICKS: its rate on that domain fell by
 * more than GUARD_DEMAND_BAND from one tick to the next while the domain's total stayed at that peak
 * (its neighbours took what it lost: the total is held by a limit, not by demand). A victim squeezed from the very first tick of
 * a host whose capacity is not known gives no such sign: configure capacity_mbps there. The event of
 * a cut says which evidence it had ("capacity known", or "capacity learned over N ticks, it lost
 * bandwidth at that peak").
 *
 * Estimated rates (counters rotate among more partitions than there are monitors) are the partition's
 * last measured rate repeated: no news, weaker evidence. A victim's measured shortfall asks for a cut
 * once: a cut answers it (answered), and the estimates that repeat it until its next measurement ask
 * for no other (they may still ask for the first, once the domain's total shows the saturation). An
 * estimate neither counts toward wanting less (spare ticks), nor judges a cut (the judgement waits for
 * a measurement), nor shows headroom; while a guaranteed partition's rate on a domain is estimated,
 * nothing is given back there (the domain is not fresh). The domain's total, partly estimates, still
 * says whether it is saturated: it alone never cuts. Two more rules for the neighbours' estimates
 * (guard_estimates.c): spare capacity counts toward wanting less only once every rate in the total
 * was measured since the partition fell short, and for a partition measured short this tick the rise
 * of the neighbours not measured yet counts toward the saturation. */
#include <stdio.h>

#include "policies/domains.h"
#include "policies/guard_internal.h"
#include "policies/guard_ipc.h"
#include "policies/policy.h"
#include "policies/steps.h"

/* The hardware minimum in force covers the guarantee (see the file comment): the minimums of the
 * domains whose capacity is known, together. */
static bool minimum_covers(const struct policy_host *h, const struct policy_partition *p)
{
	double reserved = 0;

	if (!h->has_mb_min)
		return false;
	for (unsigned d = 0; d < pol_domains(h); d++) {
		struct policy_host_domain hd = host_dom(h, d);
		double min = pol_cdom(p, d)->mb_min;
		if (hd.capacity_mbps > 0 && !hd.capacity_learned && min > 0)
			reserved += dom_mbps_of_pct(hd.capacity_mbps, min);
	}
	return reserved > 0 && reserved >= p->goals->guarantee_mbps * GUARD_SHORT_FRACTION;
}

/* At its demand level (within the band below it): what it gets is what it wants. */
static bool demand_limited(const struct policy_partition *p)
{
	double level = p->guard.demand_level_mbps;

	return level > 0 && p->mbps >= level * (1 - GUARD_DEMAND_BAND);
}

/* The capacity saturation is judged against on domain d can be trusted for this partition. */
static bool capacity_evidence(const struct policy_host *h, const struct policy_partition *p, unsigned d)
{
	const struct guard_domain_memory *m = &pol_cdom(p, d)->guard;

	return !host_dom(h, d).capacity_learned ||
	       (h->tick >= GUARD_WARMUP_TICKS && m->dropped_at_peak && m->since_drop <= GUARD_RECENT_TICKS);
}

static void describe_capacity(const struct policy_host *h, const struct guard_view *v, unsigned d, char *buf,
			      size_t size)
{
	int n;

	if (!host_dom(h, d).capacity_learned)
		n = snprintf(buf, size, "capacity known");
	else
		n = snprintf(buf, size, "capacity learned over %llu ticks, it lost bandwidth at that peak",
			     (unsigned long long)h->tick);
	if (!v->dom[d].saturated && n > 0 && (size_t)n < size) /* saturated with the unseen rise only */
		snprintf(buf + n, size - (size_t)n, ", with the unseen rise of %u partitions not measured this tick",
			 v->est.estimated[d]);
}

/* Below its guarantee, and not because it wants less (as far as the guard can tell). */
static bool short_of_guarantee(const struct policy_host *h, const struct policy_partition *p)
{
	double g = p->goals->guarantee_mbps;

	return p->valid && p->mbps >= GUARD_IDLE_FRACTION * g && p->mbps < GUARD_SHORT_FRACTION * g &&
	       !minimum_covers(h, p) && !demand_limited(p);
}

/* Short, on evidence that still asks for a cut: measured, or an estimate that repeats a measurement
 * no cut answered yet (see the file comment). */
static bool asks_cut(const struct policy_host *h, const struct policy_partition *p)
{
	return short_of_guarantee(h, p) && !(p->estimated && p->guard.answered);
}

/* Short, and held back on domain d: a saturated domain it uses, with the evidence a learned capacity
 * needs. Measured short this tick, the rise its rotating neighbours are taken to have made unseen
 * counts toward the saturation (guard_estimates.c). */
static bool squeezed_on(const struct policy_host *h, const struct policy_partition *p, const struct guard_view *v,
			unsigned d)
{
	const struct guard_domain_view *dv = &v->dom[d];

	return dv->known && (dv->saturated || (dv->saturated_unseen && measured(p))) && uses_domain(h, p, d) &&
	       capacity_evidence(h, p, d);
}

/* Squeezed somewhere (for judging a cut later). */
static bool squeezed(const struct policy_host *h, const struct policy_partition *p, const struct guard_view *v)
{
	if (!asks_cut(h, p))
		return false;
	for (unsigned d = 0; d < v->domains; d++)
		if (squeezed_on(h, p, v, d))
			return true;
	return false;
}

/* What it lacks goes to the domains where it is squeezed, in proportion to its traffic there. */
static void add_need(const struct policy_host *h, const struct policy_partition *p, struct guard_view *v)
{
	double g = p->goals->guarantee_mbps, lacks = guard_goal(p) * (1 + GUARD_CUT_MARGIN) - p->mbps, there = 0;

	for (unsigned d = 0; d < v->domains; d++)
		there += squeezed_on(h, p, v, d) ? share_on(h, p, d) : 0;
	if (!(there > 0))
		return;
	v->gentle = v->gentle && p->guard.demand_level_mbps > 0;
	for (unsigned d = 0; d < v->domains; d++) {
		struct guard_domain_view *dv = &v->dom[d];
		if (!squeezed_on(h, p, v, d))
			continue;
		dv->need_mbps += lacks * share_on(h, p, d) / there;
		if (!dv->victim || p->mbps / g < dv->victim->mbps / dv->victim->goals->guarantee_mbps) {
			dv->victim = p;
			describe_capacity(h, v, d, dv->capacity_why, sizeof(dv->capacity_why));
		}
	}
}

static void assess_one(const struct policy_host *h, const struct policy_partition *p, struct guard_view *v)
{
	double g = p->goals->guarantee_mbps;
	bool settled; /* below its guarantee because it wants less: it spoils no headroom */

	for (unsigned d = 0; d < v->domains; d++)
		v->dom[d].fresh &= !(p->valid && p->estimated) || !uses_domain(h, p, d);
	if (!p->valid) {
		for (unsigned d = 0; d < v->domains; d++)
			v->dom[d].headroom &=
				!v->dom[d].known; /* unknown: neither cut for it nor give its share away */
		return;
	}
	if (p->mbps < GUARD_IDLE_FRACTION * g)
		return;
	settled = minimum_covers(h, p) || demand_limited(p);
	for (unsigned d = 0; d < v->domains; d++)
		v->dom[d].any_active |= v->dom[d].known && uses_domain(h, p, d);
	for (unsigned d = 0; d < v->domains; d++) {
		if (!v->dom[d].known || !uses_domain(h, p, d))
			continue; /* a domain it cannot judge keeps no memory of it */
		v->dom[d].any_below |= p->mbps < GUARD_SHORT_FRACTION * g;
		v->dom[d].headroom &= settled || (p->mbps >= GUARD_HEADROOM_FRACTION * g && measured(p));
	}
	if (asks_cut(h, p))
		add_need(h, p, v);
}

void guard_assess(const struct policy_host *h, const struct policy_partition *parts, size_t count, struct guard_view *v)
{
	v->domains = pol_domains(h);
	v->gentle = true;
	for (unsigned d = 0; d < v->domains; d++) {
		struct policy_host_domain hd = host_dom(h, d);
		struct guard_domain_view *dv = &v->dom[d];
		*dv = (struct guard_domain_view){ .headroom = true, .fresh = true };
		dv->known = hd.capacity_mbps > 0 && hd.total_valid;
		if (!dv->known)
			continue;
		dv->saturated = hd.total_mbps >= GUARD_SATURATED_FRACTION * hd.capacity_mbps;
		dv->saturated_unseen =
			hd.total_mbps + guard_unseen_rise(&v->est, d) >= GUARD_SATURATED_FRACTION * hd.capacity_mbps;
		dv->room_mbps = GUARD_SATURATED_FRACTION * hd.capacity_mbps - hd.total_mbps;
		v->any_saturated |= dv->saturated;
	}
	for (size_t i = 0; i < count; i++)
		if (guaranteed(&parts[i]))
			assess_one(h, &parts[i], v);
}

/* The IPC victim's cut: the share of IPC it lost, of the best-effort use on the domains it uses. */
void guard_assess_ipc(const struct policy_host *h, const struct policy_partition *parts, size_t count,
		      struct guard_view *v)
{
	const struct policy_partition *victim = v->ipc.victim;

	if (!victim)
		return;
	for (size_t i = 0; i < count; i++) {
		const struct policy_partition *p = &parts[i];
		if (!best_effort(p) || !p->valid)
			continue;
		for (unsigned d = 0; d < v->domains; d++)
			if (uses_domain(h, victim, d) && pol_cdom(p, d)->valid)
				v->dom[d].ipc_need_mbps += v->ipc.drop * pol_cdom(p, d)->mbps;
	}
}

static void forget_squeezes(const struct policy_host *h, struct policy_partition *parts, size_t count)
{
	for (size_t i = 0; i < count; i++)
		for (unsigned d = 0; d < pol_domains(h); d++) {
			pol_dom(&parts[i], d)->guard.squeeze_pct = 0;
			pol_dom(&parts[i], d)->guard.for_guarantee = false;
		}
}

/* Said once: judged again with nothing between that said otherwise (its rate jittered out of the
 * band and back), the same verdict is folded. */
static void mark_demand_limited(struct policy_partition *p, struct policy_decision *d, const char *why)
{
	p->guard.demand_level_mbps = p->mbps;
	p->guard.before_cut_mbps = 0;
	p->guard.spare_ticks = 0;
	if (p->guard.told_wants_less) {
		d->folded++;
		return;
	}
	p->guard.told_wants_less = true;
	policy_event(d, "release: %s uses %.0f MB/s although %s: it is not held back", p->name, p->mbps, why);
}

/* Keeps the saturation sign a learned capacity needs on each domain (see the file comment). */
static void note_evidence(const struct policy_host *h, struct policy_partition *p)
{
	for (unsigned d = 0; d < pol_domains(h); d++) {
		struct policy_host_domain hd = host_dom(h, d);
		struct policy_domain *dom = pol_dom(p, d);
		struct guard_domain_memory *m = &dom->guard;
		bool at_peak = hd.capacity_mbps > 0 && hd.total_valid &&
			       hd.total_mbps >= GUARD_PEAK_FRACTION * hd.capacity_mbps;
		double mbps = dom->valid ? dom->mbps : 0;

		if (at_peak && m->last_mbps > 0 && mbps < (1 - GUARD_DEMAND_BAND) * m->last_mbps) {
			m->dropped_at_peak = true;
			m->since_drop = 0;
		} else if (m->dropped_at_peak && m->since_drop < UINT32_MAX) {
			m->since_drop++;
		}
		m->last_mbps = mbps;
	}
}

/* Every domain it uses has capacity to spare: it could take more, were it held back. */
static bool spare_where_it_runs(const struct policy_host *h, const struct policy_partition *p)
{
	for (unsigned d = 0; d < pol_domains(h); d++) {
		struct policy_host_domain hd = host_dom(h, d);
		if (!uses_domain(h, p, d))
			continue;
		if (!(hd.capacity_mbps > 0) || !hd.total_valid ||
		    hd.total_mbps >= GUARD_SATURATED_FRACTION * hd.capacity_mbps)
			return false;
	}
	return true;
}

/* Every rate in the totals of the domains it uses was measured within the last `ticks` ticks: a
 * spare capacity seen over that long is not the estimates of neighbours whose rise is still unseen. */
static bool totals_measured_within(const struct policy_host *h, const struct policy_partition *p,
				   const struct guard_estimates *est, unsigned ticks)
{
	for (unsigned d = 0; d < pol_domains(h); d++)
		if (uses_domain(h, p, d) && est->oldest[d] >= ticks)
			return false;
	return true;
}

/* What the best-effort partitions use on the domains `victim` uses. */
static double best_effort_mbps(const struct policy_host *h, const struct policy_partition *parts, size_t count,
			       const struct policy_partition *victim)
{
	double sum = 0;

	for (size_t i = 0; i < count; i++)
		for (unsigned d = 0; best_effort(&parts[i]) && d < pol_domains(h); d++)
			if (uses_domain(h, victim, d) && pol_cdom(&parts[i], d)->valid)
				sum += pol_cdom(&parts[i], d)->mbps;
	return sum;
}

/* Judges, for each guaranteed partition below its guarantee, whether it is held back at all (see the
 * file comment), and forgets a demand-limited level the partition has left. */
void guard_judge_victims(const struct policy_host *h, struct policy_partition *parts, size_t count,
			 const struct guard_estimates *est, struct policy_decision *decisions)
{
	for (size_t i = 0; i < count; i++) {
		struct policy_partition *p = &parts[i];
		struct guard_memory *m = &p->guard;
		if (!guaranteed(p) || !p->valid)
			continue;
		if (m->demand_level_mbps > 0 && (p->mbps > m->demand_level_mbps * (1 + GUARD_DEMAND_BAND) ||
						 p->mbps >= p->goals->guarantee_mbps * GUARD_SHORT_FRACTION))
			m->demand_level_mbps = 0; /* it wants more now, or has its guarantee */
		if (p->mbps >= p->goals->guarantee_mbps * GUARD_SHORT_FRACTION)
			m->told_wants_less = false; /* it has its guarantee: wanting less later is news */
		bool below = p->mbps < p->goals->guarantee_mbps * GUARD_SHORT_FRACTION && !demand_limited(p);
		bool idle =
			p->mbps < p->goals->guarantee_mbps * GUARD_IDLE_FRACTION; /* never squeezed: nothing to judge */
		note_evidence(h, p);
		if (m->before_cut_mbps > 0 && m->since_cut < UINT32_MAX)
			m->since_cut++;
		if (!measured(p))
			continue;    /* an estimate is no news: neither a sign that it wants less nor a cut's result */
		m->answered = false; /* a new measurement: a cut may answer it */
		m->spare_ticks = below && !idle && spare_where_it_runs(h, p) ? m->spare_ticks + 1 : 0;
		if (m->spare_ticks >= GUARD_CALM_TICKS && totals_measured_within(h, p, est, m->spare_ticks)) {
			mark_demand_limited(p, &decisions[i], "the host has spare capacity");
			continue;
		}
		if (m->before_cut_mbps <= 0 || m->since_cut < GUARD_JUDGE_TICKS)
			continue;
		if (best_effort_mbps(h, parts, count, p) >
		    m->before_cut_be_mbps - GUARD_HELP_FRACTION * p->goals->guarantee_mbps) {
			m->before_cut_mbps = 0; /* nothing freed yet: the next cut is judged instead */
			continue;
		}
		if (below && p->mbps < m->before_cut_mbps + GUARD_HELP_FRACTION * p->goals->guarantee_mbps) {
			mark_demand_limited(p, &decisions[i], "neighbours were cut");
			forget_squeezes(h, parts, count); /* the cut did not help: it taught nothing */
		}
		m->before_cut_mbps = 0;
	}
}

/* The verdict monitoring shows: short of its guarantee on a domain where it is held back, as this
 * tick's cuts answer it (an idle partition, or one that wants less, is judged not short). */
void guard_note_verdicts(const struct policy_host *h, struct policy_partition *parts, size_t count,
			 const struct guard_view *v)
{
	for (size_t i = 0; i < count; i++) {
		struct policy_partition *p = &parts[i];
		bool judged = guaranteed(p) && p->valid, is_short = guaranteed(p) && short_of_guarantee(h, p);
		bool has_it = measured(p) && !is_short; /* it has its guarantee: short again is news */
		struct policy_domain *doms = pol_doms(p);
		for (unsigned d = 0; !judged && d < v->domains; d++) { /* no guarantee (or no sample): no verdict */
			struct guard_domain_memory *m = &doms[d].guard;
			m->judged = m->short_here = false;
			if (has_it)
				m->told_unprotectable = false;
		}
		for (unsigned d = 0; judged && d < v->domains; d++) {
			struct guard_domain_memory *m = &doms[d].guard;
			m->judged = v->dom[d].known;
			m->short_here = m->judged && is_short && squeezed_on(h, p, v, d);
			if (has_it)
				m->told_unprotectable = false;
		}
	}
}

/* Remembers the victims' rates at a cut, to judge it later. */
void guard_note_cut(const struct policy_host *h, struct policy_partition *parts, size_t count,
		    const struct guard_view *v)
{
	for (size_t i = 0; i < count; i++) {
		struct guard_memory *m = &parts[i].guard;
		if (!guaranteed(&parts[i]) || !squeezed(h, &parts[i], v))
			continue;
		m->answered = true; /* its estimates until its next measurement repeat what this cut answers */
		if (m->before_cut_mbps <= 0) {
			m->before_cut_mbps = parts[i].mbps > 0 ? parts[i].mbps : 1;
			m->told_wants_less = false; /* cut for: whether it wants less is a new question */
			m->before_cut_be_mbps = best_effort_mbps(h, parts, count, &parts[i]);
			m->since_cut = 0;
		}
	}
}
