/* The guard's cuts and give-backs (guard.c): on a domain under pressure, every best-effort partition
 * there is cut by one multiplicative decrease of its use, sized from what the victims lack there; on a
 * calm domain they are given back to additively. When none can go lower and a victim is still short,
 * the event says the hardware cannot protect it (once, on the victim).
 *
 * Giving back to a partition stops one step below the ceiling at which it last squeezed a victim
 * (for GUARD_SQUEEZE_TICKS, or until no guaranteed partition that uses the domain is below its
 * guarantee): without that memory the guard would give back, squeeze, cut and give back again every
 * few ticks. (An aggressor that bursts, idle between its bursts, is given everything back while the
 * victim has headroom, and squeezes it again for the tick or two a cut takes at each burst: only a
 * hardware minimum, MBW_MIN, prevents that; see bench/README.md.)
 *
 * The plant is not known (policies/target.c): a ceiling may let through more than its share of the
 * capacity (a concave curve), so a cut lowers the ceiling by the cut's factor too, not only to the
 * setting the partition's reduced rate would take on a linear plant; whichever is lower. */
#include <math.h>

#include "policies/domains.h"
#include "policies/guard_internal.h"
#include "policies/guard_ipc.h"
#include "policies/policy.h"
#include "policies/steps.h"

/* The ceiling the guard holds a best-effort partition to on domain d now (or its decision so far). */
static double current_ceiling(struct policy_partition *p, struct policy_decision *dec, unsigned d)
{
	const struct guard_domain_memory *m = &pol_dom(p, d)->guard;

	return m->throttled && m->cut_pct < *dec_max(dec, d) ? m->cut_pct : *dec_max(dec, d);
}

/* The event of a cut names the signal it answers. */
static void cut_event(struct policy_decision *dec, const struct guard_view *v, unsigned d, double cur, double next)
{
	const struct guard_domain_view *dv = &v->dom[d];
	const struct policy_partition *p = v->ipc.victim;
	char at[32];

	pol_where(v->domains, d, at, sizeof(at));
	if (dv->for_bandwidth) {
		policy_event(dec, "throttle: %s short of guarantee (%.0f < %u MB/s; %s): mb_max %g%% -> %g%%%s",
			     dv->victim->name, dv->victim->mbps, dv->victim->goals->guarantee_mbps, dv->capacity_why,
			     cur, next, at);
		return;
	}
	policy_event(dec, "throttle: %s's IPC %.2f is %.0f%% below its baseline %.2f: mb_max %g%% -> %g%%%s", p->name,
		     p->ipc, 100 * v->ipc.drop, p->guard_ipc.baseline, cur, next, at);
}

/* Cuts one best-effort partition on domain d by `factor` of its use (see guard_cut); returns the
 * bandwidth it frees there. Where the factor rounds to its ceiling in force it is left as it is,
 * unless `force`: then one step lower. */
static double cut_one(const struct policy_host *h, unsigned d, struct policy_partition *p, struct policy_decision *dec,
		      double factor, bool force, const struct guard_view *v)
{
	struct policy_domain *dom = pol_dom(p, d);
	struct guard_domain_memory *m = &dom->guard;
	double cap = host_dom(h, d).capacity_mbps, use = guard_use(&v->est, dom, d), want = use * factor;
	const struct ladder *l = pol_ladder(h, d);
	double floor_pct = step_floor(l), cur = current_ceiling(p, dec, d);

	double next = step_down(l, dom_pct_of_mbps(cap, want)), by_factor = step_down(l, cur * factor);
	if (by_factor < next) /* the plant gives more than its linear share here (see the file comment) */
		next = by_factor;
	if (next >= cur && !force && cur > floor_pct)
		return 0; /* its share of the cut is less than a step: the larger users take it */
	if (next >= cur)  /* already held at about its use: one step lower at least */
		next = step_below(l, cur);
	if (next < floor_pct)
		next = floor_pct;
	/* At the lowest rung the ceiling cannot follow: what it should use is the escalation's budget. */
	m->want_mbps = m->throttled && m->want_mbps > 0 && m->want_mbps < want ? m->want_mbps * factor : want;
	if (next < cur)
		cut_event(dec, v, d, cur, next);
	m->throttled = true;
	m->cut_pct = next < cur ? next : cur;
	m->dwell = 0;
	m->calm = 0;
	/* The victim was squeezed with it at this ceiling: the one in force, where share (policies/share.c)
	 * split the best-effort allowance lower than the guard's own ceiling for it. */
	m->squeeze_pct = dom->mb_max > 0 && dom->mb_max < cur ? dom->mb_max : cur;
	m->squeeze_age = 0;
	m->for_guarantee |= v->dom[d].for_bandwidth;
	double allowed = dom_mbps_of_pct(cap, m->cut_pct);
	return use > allowed ? use - allowed : 0;
}

/* What a cut on domain d can take from: the use there of the candidates in `hp` whose ceiling is
 * above the lowest rung, together, and the largest of them. */
static double cuttable_use(const struct policy_host *h, unsigned d, struct policy_partition *parts,
			   struct policy_decision *decisions, const struct guard_heap *hp, double *largest)
{
	double floor_pct = step_floor(pol_ladder(h, d)), sum = 0;

	*largest = 0;
	for (size_t k = 0; k < hp->n; k++) {
		size_t i = hp->at[k];
		double use = guard_use(hp->est, pol_cdom(&parts[i], d), d);
		if (current_ceiling(&parts[i], &decisions[i], d) <= floor_pct)
			continue;
		sum += use;
		*largest = use > *largest ? use : *largest;
	}
	return sum;
}

/* Said once while it lasts (guard_note_verdicts forgets it when the victim has its guarantee): no
 * ceiling on the domain can go lower, and the victim is still short. */
static void say_unprotectable(const struct guard_view *v, unsigned d, struct policy_partition *parts,
			      struct policy_decision *decisions)
{
	const struct policy_partition *victim = v->dom[d].victim;
	size_t i = (size_t)(victim - parts);
	struct guard_domain_memory *m = &pol_dom(&parts[i], d)->guard;
	char at[32];

	if (m->told_unprotectable) {
		decisions[i].folded++;
		return;
	}
	m->told_unprotectable = true;
	pol_where(v->domains, d, at, sizeof(at));
	policy_event(&decisions[i],
		     "cannot protect: %s short of guarantee by %.0f MB/s (%.0f < %u MB/s)%s: every best-effort "
		     "partition there is at its lowest mb_max",
		     victim->name, victim->goals->guarantee_mbps - victim->mbps, victim->mbps,
		     victim->goals->guarantee_mbps, at[0] ? at : " on its domain");
}

/* Cuts on domain d every best-effort partition that uses it, by one factor of its use: a crowd of
 * small neighbours gives together what one large aggressor would, in one tick. The factor is what
 * the victims lack there over what the partitions above the lowest rung use (a bounded
 * multiplicative decrease: at most halved, and at least GUARD_MD_MAX_FACTOR's 10% of the largest
 * use unless the cut is gentle). Where a partition's share rounds to its ceiling, the largest users
 * take a step each until what was freed covers the need. */
void guard_cut(const struct policy_host *h, unsigned d, struct policy_partition *parts, size_t count,
	       struct policy_decision *decisions, const struct guard_view *v, size_t *work)
{
	const struct guard_domain_view *dv = &v->dom[d];
	double need = dv->for_bandwidth ? dv->need_mbps : 0, largest;
	struct guard_heap hp = { .at = work, .est = &v->est };

	if (dv->ipc_need_mbps > need)
		need = dv->ipc_need_mbps;
	guard_heap_build(&hp, parts, count, d);
	double use = cuttable_use(h, d, parts, decisions, &hp, &largest);
	if (!(use > 0) && hp.n > 0 && dv->for_bandwidth && dv->victim)
		say_unprotectable(v, d, parts, decisions);
	double sized =
		!v->gentle && need < (1 - GUARD_MD_MAX_FACTOR) * largest ? (1 - GUARD_MD_MAX_FACTOR) * largest : need;
	double factor = use > 0 ? 1 - sized / use : GUARD_MD_MIN_FACTOR;
	factor = factor < GUARD_MD_MIN_FACTOR ? GUARD_MD_MIN_FACTOR : (factor > 1 ? 1 : factor);
	while (hp.n > 0) {
		size_t i = guard_heap_pop(&hp);
		need -= cut_one(h, d, &parts[i], &decisions[i], factor, need > 0, v);
	}
}

/* Its ceiling back to the decision's; where the cut already is no lower (the configuration came down
 * to it), nothing changes that an event could tell. */
static void release(struct guard_domain_memory *m, struct policy_decision *dec, double to, const char *why,
		    const char *at)
{
	if (m->cut_pct < to)
		policy_event(dec, "restore: %s: mb_max %g%% -> %g%%%s", why, m->cut_pct, to, at);
	else
		dec->folded++;
	*m = (struct guard_domain_memory){ 0 };
}

/* What the guard may still promise the partitions it holds back on domain d, MB/s, while share
 * (policies/share.c) splits their ceilings among them (two or more held there) and one of them is
 * held for a guarantee still wanted (for_guarantee). A give-back to one is then a give-back to all, and
 * a crowd given back to one step at a time would rise a rung together, past every partition's own
 * squeeze ceiling. So the ceilings together stay within the saturation point, less the guaranteed
 * partitions' goals there and what everyone else uses: a victim's bandwidth is not promised away
 * (on a known capacity).
 * (On a concave plant a ceiling lets through more than its share; the squeeze ceilings hold there.) */
static double promise_left(const struct policy_host *h, unsigned d, const struct policy_partition *parts, size_t count,
			   const struct guard_view *v)
{
	double cap = host_dom(h, d).capacity_mbps, left = GUARD_SATURATED_FRACTION * cap;
	unsigned held = 0;
	bool for_guarantee = false;

	for (size_t i = 0; i < count; i++) {
		const struct policy_partition *p = &parts[i];
		const struct policy_domain *dom = pol_cdom(p, d);
		bool holds = best_effort(p) && dom->guard.throttled;
		held += holds;
		for_guarantee |= holds && dom->guard.for_guarantee;
		if (holds)
			left -= dom_mbps_of_pct(cap, dom->guard.cut_pct);
		else if (guaranteed(p) && uses_domain(h, p, d))
			left -= guard_goal(p) * share_on(h, p, d);
		else
			left -= dom->valid ? dom->mbps : 0;
	}
	/* A learned capacity is the most seen so far: too low a figure to hold anyone to. */
	return held >= 2 && for_guarantee && v->dom[d].any_active && !host_dom(h, d).capacity_learned ? left : INFINITY;
}

/* Additive increase for one throttled partition on domain d; returns the bandwidth it was given. */
static double give_back_one(const struct policy_host *h, unsigned d, struct policy_partition *p,
			    struct policy_decision *dec, const struct guard_view *v, double room, double *promise)
{
	const struct guard_domain_view *dv = &v->dom[d];
	struct guard_domain_memory *m = &pol_dom(p, d)->guard;
	double cap = host_dom(h, d).capacity_mbps, add = dom_mbps_of_pct(cap, GUARD_ADD_STEP_PCT);
	const char *why = dv->headroom ? "guarantees have headroom" : "spare capacity";
	char at[32];

	if (!dv->headroom && room < add)
		return 0;
	double grant = dv->headroom && room > add ? room : add;
	m->want_mbps += grant;
	if (p->cpu_quota_pct > 0)
		return grant; /* escalated: the CPU quota is unwound before the MB ceiling rises */
	const struct ladder *l = pol_ladder(h, d);
	double next = step_up(l, m->cut_pct + dom_pct_of_mbps(cap, grant));
	if (m->squeeze_pct > 0 && next >= m->squeeze_pct) {
		/* Not back to where it squeezed a victim: a step or GUARD_BACKOFF_PCT below, and hold there. */
		double top = step_below(l, m->squeeze_pct);
		if (m->squeeze_pct - top < GUARD_BACKOFF_PCT)
			top = step_down(l, m->squeeze_pct - GUARD_BACKOFF_PCT);
		if (top <= m->cut_pct)
			return 0;
		next = top;
	}
	if (dom_mbps_of_pct(cap, next - m->cut_pct) > *promise) {
		next = step_down(l, m->cut_pct + dom_pct_of_mbps(cap, *promise));
		if (next <= m->cut_pct)
			return 0;
	}
	*promise -= dom_mbps_of_pct(cap, next - m->cut_pct);
	pol_where(v->domains, d, at, sizeof(at));
	if (next >= *dec_max(dec, d)) {
		release(m, dec, *dec_max(dec, d), why, at);
		return grant;
	}
	policy_event(dec, "restore: %s: mb_max %g%% -> %g%%%s", why, m->cut_pct, next, at);
	m->cut_pct = next;
	return grant;
}

void guard_give_back(const struct policy_host *h, unsigned d, struct policy_partition *parts, size_t count,
		     struct policy_decision *decisions, const struct guard_view *v)
{
	const struct guard_domain_view *dv = &v->dom[d];
	double room = dv->saturated ? 0 : dv->room_mbps, promise = 0;
	bool promised = false; /* promise_left is a pass over the partitions: only for a give-back */

	if (!dv->fresh)
		return; /* a release waits for the guaranteed partitions' measured rates */
	for (size_t i = 0; i < count; i++) {
		struct guard_domain_memory *m = &pol_dom(&parts[i], d)->guard;
		if (!m->throttled)
			continue;
		m->calm = dv->known ? m->calm + 1 : 0;
		if (m->calm < GUARD_CALM_TICKS || m->dwell < GUARD_DWELL_TICKS)
			continue;
		if (!promised) /* before the first give-back changes a ceiling it counts */
			promise = promise_left(h, d, parts, count, v);
		promised = true;
		room -= give_back_one(h, d, &parts[i], &decisions[i], v, room, &promise);
	}
}
