/* What counter rotation leaves unseen, for the guard (guard.c).
 *
 * Where counters rotate among more partitions than there are monitors, a partition without a counter
 * this tick has its last measured rate repeated (an estimate), and a domain's total holds those old
 * rates. Two things follow from how old they are:
 *  - Spare capacity seen in such a total is not evidence that a guaranteed partition wants less: its
 *    neighbours may have risen already, unseen. A tick with spare capacity counts toward that verdict
 *    only once every rate in the total was measured after the partition fell short (guard_victims.c
 *    asks `oldest`).
 *  - A crowd that rises together is seen a few partitions a tick. The partitions measured this tick
 *    after a run of estimates say how much their rates moved while unseen (a rise beyond the
 *    measurement's jitter, GUARD_DEMAND_BAND together); the guard takes the others to have moved
 *    alike (guard_unseen_rise: each domain's estimated partitions times the mean rise of those just
 *    measured) to judge that a domain is saturated, for a guaranteed partition measured
 *    short this tick only, and to size each one's share of a cut (guard_use: a neighbour quiet when
 *    last measured is cut with the others). It is an inference from measured rates, never a rate
 *    anyone is shown: the cut it allows is judged a few ticks later like any other (a cut that frees
 *    bandwidth and does not raise the partition makes it "not held back").
 *
 * Per partition and domain it keeps how many ticks in a row its rate there was estimated, and, while
 * it is, the estimated rate (last_mbps, which the guard also keeps for a guaranteed partition's
 * saturation evidence: both are its rate there last tick). A partition measured now and last tick
 * costs one test. */
#include "policies/domains.h"
#include "policies/guard_internal.h"
#include "policies/policy.h"

/* On one domain, the partitions measured this tick after a run of estimates: how many, and their
 * rates together as last estimated and as measured now. */
struct seen_again {
	unsigned n;
	double before_mbps, now_mbps;
};

/* One partition's estimates on each domain: their age, and, when measured again after a run of them,
 * how far its rate moved while unseen. */
static void age_partition(const struct policy_host *h, struct policy_partition *p, struct guard_estimates *est,
			  struct seen_again *seen)
{
	struct policy_domain *doms = pol_doms(p);

	p->guard.estimate_aged = false;
	for (unsigned d = 0; d < pol_domains(h); d++) {
		struct guard_domain_memory *m = &doms[d].guard;
		bool estimated = doms[d].valid && doms[d].estimated;
		if (estimated) {
			m->estimate_ticks += m->estimate_ticks < UINT16_MAX;
			m->last_mbps = doms[d].mbps;
			est->estimated[d]++;
		} else if (m->estimate_ticks > 0 && doms[d].valid) {
			seen[d].n++;
			seen[d].before_mbps += m->last_mbps;
			seen[d].now_mbps += doms[d].mbps;
		}
		if (!estimated)
			m->estimate_ticks = 0;
		p->guard.estimate_aged |= m->estimate_ticks > 0;
		if (m->estimate_ticks > est->oldest[d])
			est->oldest[d] = m->estimate_ticks;
	}
}

/* The mean rise of those measured again, when they rose together by more than the measurement's
 * jitter (GUARD_DEMAND_BAND of what they were estimated at): noise is no rise. */
static double mean_rise(const struct seen_again *seen)
{
	double rise = seen->now_mbps - seen->before_mbps;

	return seen->n && rise > GUARD_DEMAND_BAND * seen->before_mbps ? rise / seen->n : 0;
}

void guard_note_estimates(const struct policy_host *h, struct policy_partition *parts, size_t count,
			  struct guard_estimates *est)
{
	unsigned domains = pol_domains(h);
	struct seen_again seen[POLICY_MAX_DOMAINS] = { 0 };

	*est = (struct guard_estimates){ 0 };
	for (size_t i = 0; i < count; i++)
		if (parts[i].estimated || parts[i].guard.estimate_aged)
			age_partition(h, &parts[i], est, seen);
	for (unsigned d = 0; d < domains; d++)
		est->mean_rise_mbps[d] = mean_rise(&seen[d]);
}
