/* guard: protects latency-critical guarantees from best-effort neighbours.
 *
 * When a latency-critical partition gets less than its guarantee_mbps while the host is saturated,
 * the guard cuts best-effort partitions, largest users first, each by a multiplicative decrease sized
 * from the shortfall, until the predicted freed bandwidth covers it. When the guarantees have
 * headroom (or the host has spare capacity) it gives bandwidth back additively, GUARD_ADD_STEP_PCT of
 * capacity a tick, or the whole spare capacity at once while the guarantees have headroom, so the
 * host stays work-conserving. Hysteresis (a band between "short" and "headroom", and calm ticks before giving
 * back) and a minimum dwell after a cut keep it from flapping. Where the hardware has a minimum
 * (MPAM MBW_MIN), the guarantee is also programmed as the partition's mb_min.
 *
 * Per domain. Limits are set and rates measured per domain (policy.h), and contention is where a
 * domain is saturated: a victim pinned to socket 0 is protected there, and its neighbours are cut
 * there only. Whether a guaranteed partition is short (of its guarantee, its demand level) is judged
 * on its total; what it lacks is asked of the saturated domains it uses (those that carry at least
 * GUARD_DOMAIN_SHARE of its traffic), in proportion to its traffic on each, and each such domain cuts
 * its own best-effort partitions, largest users there first. A domain is saturated, has room and is
 * given back to on its own figures; the guarantee is programmed as MBW_MIN on each domain for the
 * share of its traffic there. On a host of one domain this is the guard on the host's totals.
 *
 * Saturation needs the capacity: from the backend, else [global] capacity_mbps, else learned as the
 * highest total ever measured (the engine fills each domain's capacity and whether it is learned). Only
 * traffic of configured partitions is counted. A guarantee is programmed in hardware only from a
 * capacity that is known, not learned: a learned figure is too low at first and would overstate it.
 *
 * A guaranteed partition using under 5% of its guarantee is taken as idle, not squeezed: a cut would
 * not help it, and it must not keep its neighbours throttled.
 *
 * Below its guarantee is not always squeezed: a partition may simply want less. Two signs tell:
 *  - its hardware minimum (MBW_MIN) in force covers the guarantee: the memory system serves
 *    minimums first, so whatever it gets below that is all it asks for;
 *  - without a minimum: it stays below its guarantee for GUARD_CALM_TICKS while the host has spare
 *    capacity it could take, or a cut made for it does not raise its rate (judged GUARD_JUDGE_TICKS
 *    later). Its rate is then taken as its demand level: within GUARD_DEMAND_BAND below it, it is
 *    not squeezed and its neighbours get their bandwidth back; further below, it is squeezed and a
 *    cut aims at that level, not at the whole guarantee; above the band it wants more and the
 *    level is forgotten.
 * A cut is judged only when it freed bandwidth (the best-effort partitions on the victim's domains
 * use less than before it): a ceiling that did not bind yet says nothing about the victim.
 * Giving back to a partition stops one step below the ceiling at which it last squeezed a victim
 * (for GUARD_SQUEEZE_TICKS, or until no guaranteed partition that uses the domain is below its
 * guarantee): without that memory the guard would give back, squeeze, cut and give back again every
 * few ticks. (An aggressor that bursts, idle between its bursts, is given everything back while the
 * victim has headroom, and squeezes it again for the tick or two a cut takes at each burst: only a
 * hardware minimum, MBW_MIN, prevents that; see bench/README.md.)
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
 * IPC, not only bandwidth: a latency-critical partition with ipc_guard is also a victim when its IPC
 * stays that fraction below its own baseline while best-effort partitions use bandwidth (see
 * policies/guard_ipc.c), with a guarantee or without, saturated host or not. The guard then cuts
 * the best-effort partitions on the domains it uses by the share of IPC it lost, and gives nothing
 * back while its IPC is low.
 *
 * The plant is not known (policies/target.c): a ceiling may let through more than its share of the
 * capacity (a concave curve), so a cut lowers the ceiling by the cut's factor too, not only to the
 * setting the partition's reduced rate would take on a linear plant; whichever is lower.
 *
 * Cost: the candidates of a domain are put in a heap once per tick (linear) and taken largest first,
 * so a cut that goes down k of n partitions costs O(n + k log n), not a scan of all n per cut. */
#include <stdio.h>
#include <stdlib.h>

#include "policies/domains.h"
#include "policies/guard_ipc.h"
#include "policies/policy.h"
#include "policies/steps.h"

/* Saturated at 95% of capacity: a saturated domain's measured total sits just under its nominal
 * capacity, and latency rises before the last few percent are used. */
#define GUARD_SATURATED_FRACTION 0.95
/* Short below 98% of the guarantee: samples jitter by a percent or two; a bigger gap is real. */
#define GUARD_SHORT_FRACTION 0.98
/* Under 5% of its guarantee a partition is idle: contention does not push a partition that low. */
#define GUARD_IDLE_FRACTION 0.05
/* Give back only from 115% of the guarantee: with cuts aiming at 105%, the band between 98% and 115%
 * is the hysteresis in which the guard holds. */
#define GUARD_HEADROOM_FRACTION 1.15
/* A cut aims at 105% of the guarantee: freed bandwidth is shared with other uncapped partitions, so
 * aiming exactly at the guarantee would take one more cut. */
#define GUARD_CUT_MARGIN 0.05
/* One cut at most halves a partition's use (TCP's multiplicative decrease) and takes at least 10%
 * (smaller cuts drown in measurement noise and cost ticks). */
#define GUARD_MD_MIN_FACTOR 0.5
#define GUARD_MD_MAX_FACTOR 0.9
/* Give back 5% of capacity per tick: from a 50% cut, full use returns in about 10 ticks, and one step
 * is small enough not to push a guarantee from headroom straight to short. */
#define GUARD_ADD_STEP_PCT 5
/* Three calm ticks before giving back: one tick without pressure can be noise. */
#define GUARD_CALM_TICKS 3
/* A cut shows in the sample after the next apply: two ticks later the victim's rate says whether it
 * helped. It helped if the victim gained at least GUARD_HELP_FRACTION of its guarantee. */
#define GUARD_JUDGE_TICKS   2
#define GUARD_HELP_FRACTION 0.02
/* A demand-limited victim is taken to stay at its level within +-10% (sample noise and small
 * changes in its demand); beyond that the judgement no longer holds. */
#define GUARD_DEMAND_BAND 0.10
/* How long a squeeze ceiling is remembered before the guard probes above it again: 30 s at the
 * default interval, long enough not to flap, short enough to follow a slow change in demand. */
#define GUARD_SQUEEZE_TICKS 300
/* A learned capacity is evidence after 1 s of measurements (at the default interval) and a
 * saturation sign no older than 5 s. */
#define GUARD_WARMUP_TICKS 10
#define GUARD_RECENT_TICKS 50
/* At the peak: the total within 2% of the learned capacity (sample jitter). */
#define GUARD_PEAK_FRACTION 0.98
/* Five ticks after a cut before giving back to that partition: a cut shows in the next sample, and
 * a few more let the rest of the host settle around it (as PARTIES rests after a downsize). */
#define GUARD_DWELL_TICKS 5
/* A guaranteed partition uses a domain that carries 5% of its traffic: less is too little to be
 * squeezed there, or to reserve a minimum for. */
#define GUARD_DOMAIN_SHARE 0.05
/* The share of a guarantee programmed as a domain's minimum moves in eighths of it, and comes down
 * only when the traffic's share there fell by a whole eighth: the share jitters with the samples,
 * and every change of a minimum is a write to the hardware. */
#define GUARD_MIN_SHARE_STEPS 8
/* Without room of its own (host->work), the guard orders this many candidates on the stack. */
#define GUARD_STACK_WORK 64

/* One domain as the guard judges it this tick. */
struct guard_domain_view {
	bool known;	      /* capacity known and every partition measured there: the guard can judge it */
	bool saturated;	      /* the partitions use GUARD_SATURATED_FRACTION of its capacity or more */
	bool headroom;	      /* every guaranteed partition that uses it is idle or at GUARD_HEADROOM_FRACTION */
	double need_mbps;     /* what short guaranteed partitions lack here (with the cut margin) */
	double ipc_need_mbps; /* what the IPC victim wants taken from best-effort partitions here */
	double room_mbps;     /* capacity left before the domain counts as saturated */
	bool any_below;	      /* some guaranteed partition that uses it is below its guarantee */
	bool for_bandwidth;   /* this tick's cut here is for a guarantee */
	bool pressure;	      /* cut here this tick */
	const struct policy_partition *victim; /* the shortest guaranteed partition squeezed here */
	char capacity_why[80];		       /* the evidence for the capacity, for events */
};

struct guard_view {
	unsigned domains;
	bool gentle;		   /* every squeezed partition has a known demand level: cut just what it lacks */
	bool any_saturated;	   /* some domain is known and saturated */
	bool any_pressure;	   /* some domain cuts this tick */
	struct guard_ipc_view ipc; /* the IPC signal */
	struct guard_domain_view dom[POLICY_MAX_DOMAINS];
};

static bool guaranteed(const struct policy_partition *p)
{
	return p->open && p->goals.class == CLASS_LATENCY_CRITICAL && p->goals.guarantee_mbps > 0;
}

static bool best_effort(const struct policy_partition *p)
{
	return p->open && p->goals.class == CLASS_BEST_EFFORT;
}

/* Its share of traffic on domain d (1 on a host of one domain). */
static double share_on(const struct policy_host *h, const struct policy_partition *p, unsigned d)
{
	const struct policy_domain *dom = pol_cdom(p, d);

	if (pol_domains(h) == 1)
		return 1;
	return dom->valid && p->mbps > 0 ? dom->mbps / p->mbps : 0;
}

/* It uses domain d: enough of its traffic is there (see GUARD_DOMAIN_SHARE). */
static bool uses_domain(const struct policy_host *h, const struct policy_partition *p, unsigned d)
{
	return share_on(h, p, d) >= GUARD_DOMAIN_SHARE; /* share_on is 1 on a one-domain host */
}

/* The hardware minimum in force covers the guarantee (see the file comment): the minimums of the
 * domains whose capacity is known, together. */
static bool minimum_covers(const struct policy_host *h, const struct policy_partition *p)
{
	double reserved = 0;

	if (!h->has_mb_min)
		return false;
	for (unsigned d = 0; d < pol_domains(h); d++) {
		struct policy_host_domain hd = host_dom(h, d);
		unsigned min = pol_cdom(p, d)->mb_min;
		if (hd.capacity_mbps > 0 && !hd.capacity_learned && min > 0)
			reserved += dom_mbps_of_pct(hd.capacity_mbps, min);
	}
	return reserved > 0 && reserved >= p->goals.guarantee_mbps * GUARD_SHORT_FRACTION;
}

/* At its demand level (within the band below it): what it gets is what it wants. */
static bool demand_limited(const struct policy_partition *p)
{
	double level = p->guard.demand_level_mbps;

	return level > 0 && p->mbps >= level * (1 - GUARD_DEMAND_BAND);
}

/* What a squeezed partition should get back to: its guarantee, or less when it wants less. */
static double guard_goal(const struct policy_partition *p)
{
	double level = p->guard.demand_level_mbps;

	return level > 0 && level < p->goals.guarantee_mbps ? level : p->goals.guarantee_mbps;
}

/* The capacity saturation is judged against on domain d can be trusted for this partition. */
static bool capacity_evidence(const struct policy_host *h, const struct policy_partition *p, unsigned d)
{
	const struct guard_domain_memory *m = &pol_cdom(p, d)->guard;

	return !host_dom(h, d).capacity_learned ||
	       (h->tick >= GUARD_WARMUP_TICKS && m->dropped_at_peak && m->since_drop <= GUARD_RECENT_TICKS);
}

static void describe_capacity(const struct policy_host *h, unsigned d, char *buf, size_t size)
{
	if (!host_dom(h, d).capacity_learned)
		snprintf(buf, size, "capacity known");
	else
		snprintf(buf, size, "capacity learned over %llu ticks, it lost bandwidth at that peak",
			 (unsigned long long)h->tick);
}

/* Below its guarantee, and not because it wants less (as far as the guard can tell). */
static bool short_of_guarantee(const struct policy_host *h, const struct policy_partition *p)
{
	double g = p->goals.guarantee_mbps;

	return p->valid && p->mbps >= GUARD_IDLE_FRACTION * g && p->mbps < GUARD_SHORT_FRACTION * g &&
	       !minimum_covers(h, p) && !demand_limited(p);
}

/* Short, and held back on domain d: a saturated domain it uses, with the evidence a learned capacity
 * needs. */
static bool squeezed_on(const struct policy_host *h, const struct policy_partition *p, const struct guard_view *v,
			unsigned d)
{
	return v->dom[d].known && v->dom[d].saturated && uses_domain(h, p, d) && capacity_evidence(h, p, d);
}

/* Squeezed somewhere (for judging a cut later). */
static bool squeezed(const struct policy_host *h, const struct policy_partition *p, const struct guard_view *v)
{
	if (!short_of_guarantee(h, p))
		return false;
	for (unsigned d = 0; d < v->domains; d++)
		if (squeezed_on(h, p, v, d))
			return true;
	return false;
}

/* What it lacks goes to the domains where it is squeezed, in proportion to its traffic there. */
static void add_need(const struct policy_host *h, const struct policy_partition *p, struct guard_view *v)
{
	double g = p->goals.guarantee_mbps, lacks = guard_goal(p) * (1 + GUARD_CUT_MARGIN) - p->mbps, there = 0;

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
		if (!dv->victim || p->mbps / g < dv->victim->mbps / dv->victim->goals.guarantee_mbps) {
			dv->victim = p;
			describe_capacity(h, d, dv->capacity_why, sizeof(dv->capacity_why));
		}
	}
}

static void assess_one(const struct policy_host *h, const struct policy_partition *p, struct guard_view *v)
{
	double g = p->goals.guarantee_mbps;
	bool settled; /* below its guarantee because it wants less: it spoils no headroom */

	if (!p->valid) {
		for (unsigned d = 0; d < v->domains; d++)
			v->dom[d].headroom &=
				!v->dom[d].known; /* unknown: neither cut for it nor give its share away */
		return;
	}
	if (p->mbps < GUARD_IDLE_FRACTION * g)
		return;
	settled = minimum_covers(h, p) || demand_limited(p);
	for (unsigned d = 0; d < v->domains; d++) {
		if (!v->dom[d].known || !uses_domain(h, p, d))
			continue; /* a domain it cannot judge keeps no memory of it */
		v->dom[d].any_below |= p->mbps < GUARD_SHORT_FRACTION * g;
		v->dom[d].headroom &= settled || p->mbps >= GUARD_HEADROOM_FRACTION * g;
	}
	if (short_of_guarantee(h, p))
		add_need(h, p, v);
}

static void assess(const struct policy_host *h, const struct policy_partition *parts, size_t count,
		   struct guard_view *v)
{
	v->domains = pol_domains(h);
	v->gentle = true;
	for (unsigned d = 0; d < v->domains; d++) {
		struct policy_host_domain hd = host_dom(h, d);
		struct guard_domain_view *dv = &v->dom[d];
		*dv = (struct guard_domain_view){ .headroom = true };
		dv->known = hd.capacity_mbps > 0 && hd.total_valid;
		if (!dv->known)
			continue;
		dv->saturated = hd.total_mbps >= GUARD_SATURATED_FRACTION * hd.capacity_mbps;
		dv->room_mbps = GUARD_SATURATED_FRACTION * hd.capacity_mbps - hd.total_mbps;
		v->any_saturated |= dv->saturated;
	}
	for (size_t i = 0; i < count; i++)
		if (guaranteed(&parts[i]))
			assess_one(h, &parts[i], v);
}

/* The IPC victim's cut: the share of IPC it lost, of the best-effort use on the domains it uses. */
static void assess_ipc(const struct policy_host *h, const struct policy_partition *parts, size_t count,
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
static unsigned minimum_pct(const struct policy_host *h, struct policy_partition *p, unsigned d, double total,
			    double *ret_mbps)
{
	struct policy_domain *dom = pol_dom(p, d);
	double cap = host_dom(h, d).capacity_mbps, share = minimum_share(h, p, d, total);
	unsigned pct = (unsigned)ceil(dom_pct_of_mbps(cap, p->goals.guarantee_mbps * share) - STEP_SLACK);
	unsigned step = (unsigned)ceil(dom_pct_of_mbps(cap, p->goals.guarantee_mbps) / GUARD_MIN_SHARE_STEPS);

	/* Down only by more than an eighth of the guarantee: the share jitters. */
	if (dom->guard.min_pct > pct && dom->guard.min_pct <= pct + step)
		pct = dom->guard.min_pct;
	dom->guard.min_pct = pct;
	*ret_mbps = p->goals.guarantee_mbps * share;
	return pct;
}

/* One event for the minimums raised: per domain, or once when every domain went alike. */
struct minimum_events {
	unsigned raised, from, to;
	bool alike;
	double mbps, capacity;
};

static void note_minimum(struct minimum_events *ev, const struct policy_host *h, struct policy_decision *dec,
			 unsigned d, unsigned from, unsigned to, double mbps)
{
	double cap = host_dom(h, d).capacity_mbps;

	ev->alike = ev->raised ? ev->alike && from == ev->from && to == ev->to : true;
	ev->from = from;
	ev->to = to;
	ev->mbps += mbps;
	ev->capacity += cap;
	ev->raised++;
	if (pol_domains(h) > 1)
		policy_event(dec, "guarantee: mb_min %u%% -> %u%% on domain %u (%.0f of %.0f MB/s)", from, to, d, mbps,
			     cap);
}

/* MPAM MBW_MIN: the guarantee as a hardware minimum. The whole percentage at or above it, not a step
 * of gran_pct: MBW_MIN rounds a percentage up to its band by itself (a minimum is never short), so
 * rounding up to the step grid first would reserve up to a band more than the guarantee. */
static void program_minimum(const struct policy_host *h, struct policy_partition *p, struct policy_decision *dec)
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
		unsigned pct = minimum_pct(h, p, d, total, &mbps), in_force = pol_cdom(p, d)->mb_min;
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
		policy_event(dec, "guarantee: mb_min %u%% -> %u%% (%.0f of %.0f MB/s)", ev.from, ev.to, ev.mbps,
			     ev.capacity);
	}
}

/* The ceiling the guard holds a best-effort partition to on domain d now (or its decision so far). */
static unsigned current_ceiling(struct policy_partition *p, struct policy_decision *dec, unsigned d)
{
	const struct guard_domain_memory *m = &pol_dom(p, d)->guard;

	return m->throttled && m->cut_pct < *dec_max(dec, d) ? m->cut_pct : *dec_max(dec, d);
}

/* The event of a cut names the signal it answers. */
static void cut_event(struct policy_decision *dec, const struct guard_view *v, unsigned d, unsigned cur, unsigned next)
{
	const struct guard_domain_view *dv = &v->dom[d];
	const struct policy_partition *p = v->ipc.victim;
	char at[32];

	pol_where(v->domains, d, at, sizeof(at));
	if (dv->for_bandwidth) {
		policy_event(dec, "throttle: %s short of guarantee (%.0f < %u MB/s; %s): mb_max %u%% -> %u%%%s",
			     dv->victim->name, dv->victim->mbps, dv->victim->goals.guarantee_mbps, dv->capacity_why,
			     cur, next, at);
		return;
	}
	policy_event(dec, "throttle: %s's IPC %.2f is %.0f%% below its baseline %.2f: mb_max %u%% -> %u%%%s", p->name,
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
	unsigned floor_pct = policy_floor_pct(h), cur = current_ceiling(p, dec, d);

	/* Near a victim's known demand level the shortfall is real and small: cut just that (the step
	 * rounding below takes at least one step); otherwise a bounded multiplicative decrease. */
	double max_factor = v->gentle ? 1.0 : GUARD_MD_MAX_FACTOR;
	factor = factor < GUARD_MD_MIN_FACTOR ? GUARD_MD_MIN_FACTOR : (factor > max_factor ? max_factor : factor);
	double want = dom->mbps * factor;
	unsigned next = step_down(h, dom_pct_of_mbps(cap, want)), by_factor = step_down(h, cur * factor);
	if (by_factor < next) /* the plant gives more than its linear share here (see the file comment) */
		next = by_factor;
	if (next >= cur) /* already held at about its use: one step lower at least */
		next = cur > policy_gran(h) ? step_down(h, cur - policy_gran(h)) : cur;
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

static void forget_squeezes(const struct policy_host *h, struct policy_partition *parts, size_t count)
{
	for (size_t i = 0; i < count; i++)
		for (unsigned d = 0; d < pol_domains(h); d++)
			pol_dom(&parts[i], d)->guard.squeeze_pct = 0;
}

static void mark_demand_limited(struct policy_partition *p, struct policy_decision *d, const char *why)
{
	p->guard.demand_level_mbps = p->mbps;
	p->guard.before_cut_mbps = 0;
	p->guard.spare_ticks = 0;
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
static void judge_victims(const struct policy_host *h, struct policy_partition *parts, size_t count,
			  struct policy_decision *decisions)
{
	for (size_t i = 0; i < count; i++) {
		struct policy_partition *p = &parts[i];
		struct guard_memory *m = &p->guard;
		if (!guaranteed(p) || !p->valid)
			continue;
		if (m->demand_level_mbps > 0 && (p->mbps > m->demand_level_mbps * (1 + GUARD_DEMAND_BAND) ||
						 p->mbps >= p->goals.guarantee_mbps * GUARD_SHORT_FRACTION))
			m->demand_level_mbps = 0; /* it wants more now, or has its guarantee */
		bool below = p->mbps < p->goals.guarantee_mbps * GUARD_SHORT_FRACTION && !demand_limited(p);
		note_evidence(h, p);
		m->spare_ticks = below && spare_where_it_runs(h, p) ? m->spare_ticks + 1 : 0;
		if (m->spare_ticks >= GUARD_CALM_TICKS) {
			mark_demand_limited(p, &decisions[i], "the host has spare capacity");
			continue;
		}
		if (m->before_cut_mbps <= 0 || ++m->since_cut < GUARD_JUDGE_TICKS)
			continue;
		if (best_effort_mbps(h, parts, count, p) >
		    m->before_cut_be_mbps - GUARD_HELP_FRACTION * p->goals.guarantee_mbps) {
			m->before_cut_mbps = 0; /* nothing freed yet: the next cut is judged instead */
			continue;
		}
		if (below && p->mbps < m->before_cut_mbps + GUARD_HELP_FRACTION * p->goals.guarantee_mbps) {
			mark_demand_limited(p, &decisions[i], "neighbours were cut");
			forget_squeezes(h, parts, count); /* the cut did not help: it taught nothing */
		}
		m->before_cut_mbps = 0;
	}
}

/* Remembers the victims' rates at a cut, to judge it later. */
static void note_cut(const struct policy_host *h, struct policy_partition *parts, size_t count,
		     const struct guard_view *v)
{
	for (size_t i = 0; i < count; i++) {
		struct guard_memory *m = &parts[i].guard;
		if (guaranteed(&parts[i]) && m->before_cut_mbps <= 0 && squeezed(h, &parts[i], v)) {
			m->before_cut_mbps = parts[i].mbps > 0 ? parts[i].mbps : 1;
			m->before_cut_be_mbps = best_effort_mbps(h, parts, count, &parts[i]);
			m->since_cut = 0;
		}
	}
}

/* ---- the candidates of a cut, largest user first: a binary max-heap of partition indices ---- */

struct heap {
	size_t *at;
	size_t n;
	const struct policy_partition *parts;
	unsigned d;
};

/* a ranks before b: it uses more on the domain; ties go to the lower index, so the order is total. */
static bool ranks_before(const struct heap *hp, size_t a, size_t b)
{
	double ma = pol_cdom(&hp->parts[a], hp->d)->mbps, mb = pol_cdom(&hp->parts[b], hp->d)->mbps;

	return ma > mb || (ma == mb && a < b);
}

static void sift_down(struct heap *hp, size_t k)
{
	for (;;) {
		size_t l = 2 * k + 1, r = l + 1, top = k;
		if (l < hp->n && ranks_before(hp, hp->at[l], hp->at[top]))
			top = l;
		if (r < hp->n && ranks_before(hp, hp->at[r], hp->at[top]))
			top = r;
		if (top == k)
			return;
		size_t t = hp->at[k];
		hp->at[k] = hp->at[top];
		hp->at[top] = t;
		k = top;
	}
}

static size_t heap_pop(struct heap *hp)
{
	size_t top = hp->at[0];

	hp->at[0] = hp->at[--hp->n];
	sift_down(hp, 0);
	return top;
}

/* The best-effort partitions that use domain d, in a heap (Floyd's construction: linear). */
static void heap_build(struct heap *hp, struct policy_partition *parts, size_t count, unsigned d)
{
	hp->n = 0;
	hp->parts = parts;
	hp->d = d;
	for (size_t i = 0; i < count; i++) {
		const struct policy_domain *dom = pol_cdom(&parts[i], d);
		if (best_effort(&parts[i]) && parts[i].valid && dom->valid && dom->mbps > 0)
			hp->at[hp->n++] = i;
	}
	for (size_t k = hp->n / 2; k-- > 0;)
		sift_down(hp, k);
}

/* Cuts on domain d, largest users first, until what was freed covers what is needed there. */
static void cut(const struct policy_host *h, unsigned d, struct policy_partition *parts, size_t count,
		struct policy_decision *decisions, const struct guard_view *v, size_t *work)
{
	const struct guard_domain_view *dv = &v->dom[d];
	double need = dv->for_bandwidth ? dv->need_mbps : 0;
	struct heap hp = { .at = work };

	if (dv->ipc_need_mbps > need)
		need = dv->ipc_need_mbps;
	heap_build(&hp, parts, count, d);
	while (need > 0 && hp.n > 0) {
		size_t i = heap_pop(&hp);
		need -= cut_one(h, d, &parts[i], &decisions[i], need, v);
	}
}

static void release(struct guard_domain_memory *m, struct policy_decision *dec, unsigned to, const char *why,
		    const char *at)
{
	policy_event(dec, "restore: %s: mb_max %u%% -> %u%%%s", why, m->cut_pct, to, at);
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
	unsigned next = step_up(h, m->cut_pct + dom_pct_of_mbps(cap, grant));
	if (m->squeeze_pct && next >= m->squeeze_pct) {
		/* Not back to where it squeezed a victim: one step below that, and hold there. */
		unsigned top = m->squeeze_pct > policy_gran(h) ? step_down(h, m->squeeze_pct - policy_gran(h)) : 0;
		if (top <= m->cut_pct)
			return 0;
		next = top;
	}
	pol_where(v->domains, d, at, sizeof(at));
	if (next >= *dec_max(dec, d)) {
		release(m, dec, *dec_max(dec, d), why, at);
		return grant;
	}
	policy_event(dec, "restore: %s: mb_max %u%% -> %u%%%s", why, m->cut_pct, next, at);
	m->cut_pct = next;
	return grant;
}

static void give_back(const struct policy_host *h, unsigned d, struct policy_partition *parts, size_t count,
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

/* Before deciding: minimums, dwell and squeeze memory, and the memory of partitions no longer
 * best-effort. */
static void age_memory(const struct policy_host *h, struct policy_partition *parts, size_t count,
		       struct policy_decision *decisions, const struct guard_view *v)
{
	for (size_t i = 0; i < count; i++) {
		struct policy_partition *p = &parts[i];
		if (guaranteed(p))
			program_minimum(h, p, &decisions[i]);
		for (unsigned d = 0; d < v->domains; d++) {
			struct guard_domain_memory *m = &pol_dom(p, d)->guard;
			if (!best_effort(p) && m->throttled)
				*m = (struct guard_domain_memory){ 0 }; /* no longer best-effort (or closed) */
			else if (m->throttled && m->dwell < UINT32_MAX)
				m->dwell++;
			bool could_squeeze = v->dom[d].any_below || v->ipc.watching;
			if (m->squeeze_pct && (!could_squeeze || ++m->squeeze_age > GUARD_SQUEEZE_TICKS))
				m->squeeze_pct = 0; /* nobody left to squeeze, or time to probe above it again */
		}
	}
}

/* The guard's ceilings into the decisions, and the partition-level summary share and escalation
 * read. */
static void finish(struct policy_partition *parts, size_t count, struct policy_decision *decisions,
		   const struct guard_view *v)
{
	for (size_t i = 0; i < count; i++) {
		struct policy_partition *p = &parts[i];
		double want = 0;
		bool throttled = false;
		for (unsigned d = 0; d < v->domains; d++) {
			struct policy_domain *dom = pol_dom(p, d);
			struct guard_domain_memory *m = &dom->guard;
			if (v->dom[d].pressure)
				m->calm = 0;
			if (m->throttled && m->cut_pct < *dec_max(&decisions[i], d))
				*dec_max(&decisions[i], d) = m->cut_pct;
			throttled |= m->throttled;
			want += m->throttled ? m->want_mbps : (dom->valid ? dom->mbps : 0);
		}
		p->guard.throttled = throttled;
		p->guard.want_mbps = throttled ? want : 0;
	}
}

/* Room to order `count` partitions: the host's, the stack's, or (tests, benchmarks) the heap's. */
static size_t *work_for(const struct policy_host *h, size_t count, size_t *stack, size_t **allocated)
{
	*allocated = NULL;
	if (h->work)
		return h->work;
	if (count <= GUARD_STACK_WORK)
		return stack;
	return *allocated = malloc(count * sizeof(**allocated));
}

void policy_guard(const struct policy_host *host, struct policy_partition *parts, size_t count,
		  struct policy_decision *decisions)
{
	struct guard_view v = { 0 };
	size_t stack[GUARD_STACK_WORK], *allocated = NULL;

	policy_domains_prepare(host, parts, count);
	judge_victims(host, parts, count, decisions);
	assess(host, parts, count, &v);
	guard_ipc_watch(parts, count, v.any_saturated, decisions);
	v.ipc = guard_ipc_assess(parts, count);
	assess_ipc(host, parts, count, &v);
	if (v.ipc.victim)
		v.gentle = false; /* an IPC drop says how much, not down to which rate: a bounded decrease */
	for (unsigned d = 0; d < v.domains; d++) {
		struct guard_domain_view *dv = &v.dom[d];
		dv->for_bandwidth = dv->known && dv->saturated && dv->need_mbps > 0;
		dv->pressure = dv->for_bandwidth || (dv->known && v.ipc.victim && uses_domain(host, v.ipc.victim, d));
		v.any_pressure |= dv->pressure;
	}
	age_memory(host, parts, count, decisions, &v);
	size_t *work = v.any_pressure ? work_for(host, count, stack, &allocated) : NULL;
	for (unsigned d = 0; d < v.domains; d++) {
		if (v.dom[d].pressure && work)
			cut(host, d, parts, count, decisions, &v, work);
		else if (!v.dom[d].pressure && !v.ipc.low)
			give_back(host, d, parts, count, decisions, &v); /* not while a guarded IPC is low */
	}
	if (v.any_pressure) {
		note_cut(host, parts, count, &v);
		if (v.ipc.victim)
			guard_ipc_note_cut(parts, count);
		free(allocated);
	}
	finish(parts, count, decisions, &v);
}
