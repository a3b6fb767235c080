/* The guard's cuts and give-backs (guard.c): on a domain under pressure, best-effort partitions are
 * cut, largest users first, each by a multiplicative decrease sized from what the victims lack there;
 * on a calm domain they are given back to additively.
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
			     dv->victim->name, dv->victim->mbps, dv->victim->goals.guarantee_mbps, dv->capacity_why,
			     cur, next, at);
		return;
	}
	policy_event(dec, "throttle: %s's IPC %.2f is %.0f%% below its baseline %.2f: mb_max %g%% -> %g%%%s", p->name,
		     p->ipc, 100 * v->ipc.drop, p->guard_ipc.baseline, cur, next, at);
}

/* Cuts one best-effort partition on domain d by a multiplicative decrease; returns the bandwidth it
 * frees there. */
static double cut_one(const struct policy_host *h, unsigned d, struct policy_partition *p, struct policy_decision *dec,
		      double need, const struct guard_view *v)
{
	struct policy_domain *dom = pol_dom(p, d);
	struct guard_domain_memory *m = &dom->guard;
	double cap = host_dom(h, d).capacity_mbps, factor = 1 - need / dom->mbps;
	const struct ladder *l = pol_ladder(h, d);
	double floor_pct = step_floor(l), cur = current_ceiling(p, dec, d);

	/* Near a victim's known demand level the shortfall is real and small: cut just that (the step
	 * rounding below takes at least one step); otherwise a bounded multiplicative decrease. */
	double max_factor = v->gentle ? 1.0 : GUARD_MD_MAX_FACTOR;
	factor = factor < GUARD_MD_MIN_FACTOR ? GUARD_MD_MIN_FACTOR : (factor > max_factor ? max_factor : factor);
	double want = dom->mbps * factor;
	double next = step_down(l, dom_pct_of_mbps(cap, want)), by_factor = step_down(l, cur * factor);
	if (by_factor < next) /* the plant gives more than its linear share here (see the file comment) */
		next = by_factor;
	if (next >= cur) /* already held at about its use: one step lower at least */
		next = step_below(l, cur);
	if (next < floor_pct)
		next = floor_pct;
	m->want_mbps = m->throttled && m->want_mbps > 0 && m->want_mbps < want ? m->want_mbps * factor : want;
	if (next < cur)
		cut_event(dec, v, d, cur, next);
	m->throttled = true;
	m->cut_pct = next < cur ? next : cur;
	m->dwell = 0;
	m->calm = 0;
	m->squeeze_pct = cur; /* the victim was squeezed with it at this ceiling */
	m->squeeze_age = 0;
	double allowed = dom_mbps_of_pct(cap, m->cut_pct);
	return dom->mbps > allowed ? dom->mbps - allowed : 0;
}

/* Cuts on domain d, largest users first, until what was freed covers what is needed there. */
void guard_cut(const struct policy_host *h, unsigned d, struct policy_partition *parts, size_t count,
	       struct policy_decision *decisions, const struct guard_view *v, size_t *work)
{
	const struct guard_domain_view *dv = &v->dom[d];
	double need = dv->for_bandwidth ? dv->need_mbps : 0;
	struct guard_heap hp = { .at = work };

	if (dv->ipc_need_mbps > need)
		need = dv->ipc_need_mbps;
	guard_heap_build(&hp, parts, count, d);
	while (need > 0 && hp.n > 0) {
		size_t i = guard_heap_pop(&hp);
		need -= cut_one(h, d, &parts[i], &decisions[i], need, v);
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

/* Additive increase for one throttled partition on domain d; returns the bandwidth it was given. */
static double give_back_one(const struct policy_host *h, unsigned d, struct policy_partition *p,
			    struct policy_decision *dec, const struct guard_view *v, double room)
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
	double room = dv->saturated ? 0 : dv->room_mbps;

	for (size_t i = 0; i < count; i++) {
		struct guard_domain_memory *m = &pol_dom(&parts[i], d)->guard;
		if (!m->throttled)
			continue;
		m->calm = dv->known ? m->calm + 1 : 0;
		if (m->calm < GUARD_CALM_TICKS || m->dwell < GUARD_DWELL_TICKS)
			continue;
		room -= give_back_one(h, d, &parts[i], &decisions[i], v, room);
	}
}
