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
 * Host, not domain: in this version a partition's limits are one percentage applied on every domain
 * alike, so the guard cannot protect one domain without throttling the others. It works on the host
 * total (host->capacity_mbps is all measuring domains together, rates are summed over them); traffic
 * spread unevenly over the domains can leave one domain saturated while the total looks fine.
 *
 * Saturation needs the capacity: from the backend, else [global] capacity_mbps, else learned as the
 * highest total ever measured (the engine fills host->capacity_mbps and capacity_learned). Only
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
 * Giving back to a partition stops one step below the ceiling at which it last squeezed a victim
 * (for GUARD_SQUEEZE_TICKS, or until no guaranteed partition is below its guarantee): without that
 * memory the guard would give back, squeeze, cut and give back again every few ticks.
 *
 * Evidence before a cut (no false alarms). Saturation is judged against the capacity. A known one
 * (the backend's, or [global] capacity_mbps) is evidence at once. A learned one (the highest total
 * seen) is the total itself at first, which makes every host look saturated and every partition below
 * its guarantee look squeezed, although it may simply want less and get it. So a learned capacity is
 * evidence for a partition only after GUARD_WARMUP_TICKS ticks and once the partition has shown a
 * saturation sign within the last GUARD_RECENT_TICKS: its rate fell by more than GUARD_DEMAND_BAND
 * from one tick to the next while the host's total stayed at that peak (its neighbours took what it
 * lost: the total is held by a limit, not by demand). A victim squeezed from the very first tick of
 * a host whose capacity is not known gives no such sign: configure capacity_mbps there. The event of
 * a cut says which evidence it had ("capacity known", or "capacity learned over N ticks, it lost
 * bandwidth at that peak").
 *
 * IPC, not only bandwidth: a latency-critical partition with ipc_guard is also a victim when its IPC
 * stays that fraction below its own baseline while best-effort partitions use bandwidth (see
 * policies/guard_ipc.c), with a guarantee or without, saturated host or not. The guard then cuts
 * the best-effort partitions by the share of IPC it lost, and gives nothing back while its IPC is
 * low. */
#include <stdio.h>

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

struct guard_view {
	bool known;	  /* capacity known and every partition measured: the guard can judge the host */
	bool saturated;	  /* the partitions use GUARD_SATURATED_FRACTION of capacity or more */
	bool headroom;	  /* every guaranteed partition is idle or at GUARD_HEADROOM_FRACTION or more */
	double need_mbps; /* what short guaranteed partitions lack (with the cut margin) */
	double room_mbps; /* capacity left before the host counts as saturated */
	bool any_below;	  /* some guaranteed partition is below its guarantee, for whatever reason */
	bool gentle;	  /* every squeezed partition has a known demand level: cut just what it lacks */
	const struct policy_partition *victim; /* the shortest guaranteed partition, for events */
	char capacity_why[80];		       /* the evidence for the capacity, for events */
	bool for_bandwidth;		       /* this tick's cut is for a guarantee (else for an IPC victim) */
	struct guard_ipc_view ipc;	       /* the IPC signal */
};

static bool guaranteed(const struct policy_partition *p)
{
	return p->open && p->goals.class == CLASS_LATENCY_CRITICAL && p->goals.guarantee_mbps > 0;
}

static bool best_effort(const struct policy_partition *p)
{
	return p->open && p->goals.class == CLASS_BEST_EFFORT;
}

/* The hardware minimum in force covers the guarantee (see the file comment). */
static bool minimum_covers(const struct policy_host *h, const struct policy_partition *p)
{
	return h->has_mb_min && h->capacity_mbps > 0 && !h->capacity_learned && p->mb_min > 0 &&
	       mbps_of_pct(h, p->mb_min) >= p->goals.guarantee_mbps * GUARD_SHORT_FRACTION;
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

/* The capacity saturation is judged against can be trusted for this partition. */
static bool capacity_evidence(const struct policy_host *h, const struct policy_partition *p)
{
	return !h->capacity_learned ||
	       (h->tick >= GUARD_WARMUP_TICKS && p->guard.dropped_at_peak && p->guard.since_drop <= GUARD_RECENT_TICKS);
}

static void describe_capacity(const struct policy_host *h, char *buf, size_t size)
{
	if (!h->capacity_learned)
		snprintf(buf, size, "capacity known");
	else
		snprintf(buf, size, "capacity learned over %llu ticks, it lost bandwidth at that peak",
			 (unsigned long long)h->tick);
}

/* Below its guarantee because of its neighbours (as far as the guard can tell). */
static bool squeezed(const struct policy_host *h, const struct policy_partition *p)
{
	double g = p->goals.guarantee_mbps;

	return p->valid && p->mbps >= GUARD_IDLE_FRACTION * g && p->mbps < GUARD_SHORT_FRACTION * g &&
	       !minimum_covers(h, p) && !demand_limited(p) && capacity_evidence(h, p);
}

static void assess_one(const struct policy_host *h, const struct policy_partition *p, struct guard_view *v)
{
	double g = p->goals.guarantee_mbps;

	if (!p->valid) {
		v->headroom = false; /* unknown: neither cut for it nor give its share away */
		return;
	}
	if (p->mbps < GUARD_IDLE_FRACTION * g)
		return;
	if (p->mbps < GUARD_SHORT_FRACTION * g)
		v->any_below = true;
	if (minimum_covers(h, p) || demand_limited(p))
		return;
	if (squeezed(h, p)) {
		v->need_mbps += guard_goal(p) * (1 + GUARD_CUT_MARGIN) - p->mbps;
		v->gentle = v->gentle && p->guard.demand_level_mbps > 0;
		if (!v->victim || p->mbps / g < v->victim->mbps / v->victim->goals.guarantee_mbps) {
			v->victim = p;
			describe_capacity(h, v->capacity_why, sizeof(v->capacity_why));
		}
	}
	if (p->mbps < GUARD_HEADROOM_FRACTION * g)
		v->headroom = false;
}

static struct guard_view assess(const struct policy_host *h, const struct policy_partition *parts, size_t count)
{
	struct guard_view v = { .headroom = true, .gentle = true };

	v.known = h->capacity_mbps > 0 && h->total_valid;
	if (!v.known)
		return v;
	v.saturated = h->total_mbps >= GUARD_SATURATED_FRACTION * h->capacity_mbps;
	v.room_mbps = GUARD_SATURATED_FRACTION * h->capacity_mbps - h->total_mbps;
	for (size_t i = 0; i < count; i++)
		if (guaranteed(&parts[i]))
			assess_one(h, &parts[i], &v);
	return v;
}

/* MPAM MBW_MIN: the guarantee as a hardware minimum. The whole percentage at or above it, not a step
 * of gran_pct: MBW_MIN rounds a percentage up to its band by itself (a minimum is never short), so
 * rounding up to the step grid first would reserve up to a band more than the guarantee. */
static void program_minimum(const struct policy_host *h, const struct policy_partition *p, struct policy_decision *d)
{
	if (!h->has_mb_min || h->capacity_mbps <= 0 || h->capacity_learned)
		return;
	unsigned pct = (unsigned)ceil(pct_of_mbps(h, p->goals.guarantee_mbps) - STEP_SLACK);
	if (pct > d->mb_max)
		pct = d->mb_max;
	if (pct <= d->mb_min)
		return;
	if (p->mb_min < pct) /* MBW_MIN reads back at or above what was asked: below it, not yet in force */
		policy_event(d, "guarantee: mb_min %u%% -> %u%% (%u of %.0f MB/s)", p->mb_min, pct,
			     p->goals.guarantee_mbps, h->capacity_mbps);
	d->mb_min = pct;
}

/* The ceiling the guard holds a best-effort partition to now (or its decision so far). */
static unsigned current_ceiling(const struct policy_partition *p, const struct policy_decision *d)
{
	return p->guard.throttled && p->guard.cut_pct < d->mb_max ? p->guard.cut_pct : d->mb_max;
}

/* The largest best-effort user ranked after (prev_mbps, prev_index); SIZE_MAX when none is left.
 * Ties go to the lower index so the order is total and deterministic. */
static size_t next_largest(const struct policy_partition *parts, size_t count, double prev_mbps, size_t prev_index)
{
	size_t best = SIZE_MAX;

	for (size_t i = 0; i < count; i++) {
		const struct policy_partition *p = &parts[i];
		if (!best_effort(p) || !p->valid || !(p->mbps > 0))
			continue;
		bool after = p->mbps < prev_mbps || (p->mbps == prev_mbps && i > prev_index);
		if (after && (best == SIZE_MAX || p->mbps > parts[best].mbps))
			best = i;
	}
	return best;
}

/* The event of a cut names the signal it answers. */
static void cut_event(struct policy_decision *d, const struct guard_view *v, unsigned cur, unsigned next)
{
	const struct policy_partition *p = v->ipc.victim;

	if (v->for_bandwidth) {
		policy_event(d, "throttle: %s short of guarantee (%.0f < %u MB/s; %s): mb_max %u%% -> %u%%",
			     v->victim->name, v->victim->mbps, v->victim->goals.guarantee_mbps, v->capacity_why, cur,
			     next);
		return;
	}
	policy_event(d, "throttle: %s's IPC %.2f is %.0f%% below its baseline %.2f: mb_max %u%% -> %u%%", p->name,
		     p->ipc, 100 * v->ipc.drop, p->guard_ipc.baseline, cur, next);
}

/* Cuts one best-effort partition by a multiplicative decrease; returns the bandwidth it frees. */
static double cut_one(const struct policy_host *h, struct policy_partition *p, struct policy_decision *d, double need,
		      const struct guard_view *v)
{
	struct guard_memory *m = &p->guard;
	double factor = 1 - need / p->mbps;
	unsigned floor_pct = policy_floor_pct(h), cur = current_ceiling(p, d);

	/* Near a victim's known demand level the shortfall is real and small: cut just that (the step
	 * rounding below takes at least one step); otherwise a bounded multiplicative decrease. */
	double max_factor = v->gentle ? 1.0 : GUARD_MD_MAX_FACTOR;
	factor = factor < GUARD_MD_MIN_FACTOR ? GUARD_MD_MIN_FACTOR : (factor > max_factor ? max_factor : factor);
	double want = p->mbps * factor;
	unsigned next = step_down(h, pct_of_mbps(h, want));
	if (next >= cur) /* already held at about its use: one step lower at least */
		next = cur > policy_gran(h) ? step_down(h, cur - policy_gran(h)) : cur;
	if (next < floor_pct)
		next = floor_pct;
	m->want_mbps = m->throttled && m->want_mbps > 0 && m->want_mbps < want ? m->want_mbps * factor : want;
	if (next < cur)
		cut_event(d, v, cur, next);
	m->throttled = true;
	m->cut_pct = next < cur ? next : cur;
	m->dwell = 0;
	m->calm = 0;
	m->squeeze_pct = cur; /* the victim was squeezed with it at this ceiling */
	m->squeeze_age = 0;
	double allowed = mbps_of_pct(h, m->cut_pct);
	return p->mbps > allowed ? p->mbps - allowed : 0;
}

static void forget_squeezes(struct policy_partition *parts, size_t count)
{
	for (size_t i = 0; i < count; i++)
		parts[i].guard.squeeze_pct = 0;
}

static void mark_demand_limited(struct policy_partition *p, struct policy_decision *d, const char *why)
{
	p->guard.demand_level_mbps = p->mbps;
	p->guard.before_cut_mbps = 0;
	p->guard.spare_ticks = 0;
	policy_event(d, "release: %s uses %.0f MB/s although %s: it is not held back", p->name, p->mbps, why);
}

/* Keeps the saturation sign a learned capacity needs (see the file comment). */
static void note_evidence(const struct policy_host *h, struct policy_partition *p)
{
	struct guard_memory *m = &p->guard;
	bool at_peak =
		h->capacity_mbps > 0 && h->total_valid && h->total_mbps >= GUARD_PEAK_FRACTION * h->capacity_mbps;

	if (at_peak && m->last_mbps > 0 && p->mbps < (1 - GUARD_DEMAND_BAND) * m->last_mbps) {
		m->dropped_at_peak = true;
		m->since_drop = 0;
	} else if (m->dropped_at_peak && m->since_drop < UINT32_MAX) {
		m->since_drop++;
	}
	m->last_mbps = p->mbps;
}

/* Judges, for each guaranteed partition below its guarantee, whether it is held back at all (see the
 * file comment), and forgets a demand-limited level the partition has left. */
static void judge_victims(const struct policy_host *h, struct policy_partition *parts, size_t count,
			  struct policy_decision *decisions)
{
	bool spare =
		h->capacity_mbps > 0 && h->total_valid && h->total_mbps < GUARD_SATURATED_FRACTION * h->capacity_mbps;

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
		m->spare_ticks = below && spare ? m->spare_ticks + 1 : 0;
		if (m->spare_ticks >= GUARD_CALM_TICKS) {
			mark_demand_limited(p, &decisions[i], "the host has spare capacity");
			continue;
		}
		if (m->before_cut_mbps <= 0 || ++m->since_cut < GUARD_JUDGE_TICKS)
			continue;
		if (below && p->mbps < m->before_cut_mbps + GUARD_HELP_FRACTION * p->goals.guarantee_mbps) {
			mark_demand_limited(p, &decisions[i], "neighbours were cut");
			forget_squeezes(parts, count); /* the cut did not help: it taught nothing */
		}
		m->before_cut_mbps = 0;
	}
}

/* Remembers the victims' rates at a cut, to judge it later. */
static void note_cut(const struct policy_host *h, struct policy_partition *parts, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		struct guard_memory *m = &parts[i].guard;
		if (guaranteed(&parts[i]) && m->before_cut_mbps <= 0 && squeezed(h, &parts[i])) {
			m->before_cut_mbps = parts[i].mbps > 0 ? parts[i].mbps : 1;
			m->since_cut = 0;
		}
	}
}

static void cut(const struct policy_host *h, struct policy_partition *parts, size_t count,
		struct policy_decision *decisions, const struct guard_view *v)
{
	double need = v->for_bandwidth ? v->need_mbps : 0, prev_mbps = INFINITY;
	size_t prev_index = 0;

	if (v->ipc.need_mbps > need)
		need = v->ipc.need_mbps;
	while (need > 0) {
		size_t i = next_largest(parts, count, prev_mbps, prev_index);
		if (i == SIZE_MAX)
			break;
		need -= cut_one(h, &parts[i], &decisions[i], need, v);
		prev_mbps = parts[i].mbps;
		prev_index = i;
	}
}

static void release(struct policy_partition *p, struct policy_decision *d, const char *why)
{
	policy_event(d, "restore: %s: mb_max %u%% -> %u%%", why, p->guard.cut_pct, d->mb_max);
	p->guard = (struct guard_memory){ 0 };
}

/* Additive increase for one throttled partition; returns the bandwidth it was given. */
static double give_back_one(const struct policy_host *h, struct policy_partition *p, struct policy_decision *d,
			    const struct guard_view *v, double room)
{
	struct guard_memory *m = &p->guard;
	double add = mbps_of_pct(h, GUARD_ADD_STEP_PCT);
	const char *why = v->headroom ? "guarantees have headroom" : "spare capacity";

	if (!v->headroom && room < add)
		return 0;
	double grant = v->headroom && room > add ? room : add;
	m->want_mbps += grant;
	if (p->cpu_quota_pct > 0)
		return grant; /* escalated: the CPU quota is unwound before the MB ceiling rises */
	unsigned next = step_up(h, m->cut_pct + pct_of_mbps(h, grant));
	if (m->squeeze_pct && next >= m->squeeze_pct) {
		/* Not back to where it squeezed a victim: one step below that, and hold there. */
		unsigned cap = m->squeeze_pct > policy_gran(h) ? step_down(h, m->squeeze_pct - policy_gran(h)) : 0;
		if (cap <= m->cut_pct)
			return 0;
		next = cap;
	}
	if (next >= d->mb_max) {
		release(p, d, why);
		return grant;
	}
	policy_event(d, "restore: %s: mb_max %u%% -> %u%%", why, m->cut_pct, next);
	m->cut_pct = next;
	return grant;
}

static void give_back(const struct policy_host *h, struct policy_partition *parts, size_t count,
		      struct policy_decision *decisions, const struct guard_view *v)
{
	double room = v->saturated ? 0 : v->room_mbps;

	for (size_t i = 0; i < count; i++) {
		struct guard_memory *m = &parts[i].guard;
		if (!m->throttled)
			continue;
		m->calm = v->known ? m->calm + 1 : 0;
		if (m->calm < GUARD_CALM_TICKS || m->dwell < GUARD_DWELL_TICKS)
			continue;
		room -= give_back_one(h, &parts[i], &decisions[i], v, room);
	}
}

void policy_guard(const struct policy_host *host, struct policy_partition *parts, size_t count,
		  struct policy_decision *decisions)
{
	judge_victims(host, parts, count, decisions);
	struct guard_view v = assess(host, parts, count);
	guard_ipc_watch(parts, count, v.known && v.saturated, decisions);
	v.ipc = guard_ipc_assess(parts, count);
	v.for_bandwidth = v.known && v.saturated && v.need_mbps > 0;
	bool pressure = v.for_bandwidth || (v.known && v.ipc.victim);

	if (v.ipc.victim)
		v.gentle = false; /* an IPC drop says how much, not down to which rate: a bounded decrease */

	for (size_t i = 0; i < count; i++) {
		struct policy_partition *p = &parts[i];
		if (guaranteed(p))
			program_minimum(host, p, &decisions[i]);
		if (!best_effort(p) && p->guard.throttled)
			p->guard = (struct guard_memory){ 0 }; /* no longer best-effort (or closed) */
		else if (p->guard.throttled && p->guard.dwell < UINT32_MAX)
			p->guard.dwell++;
		bool could_squeeze = v.any_below || v.ipc.watching;
		if (p->guard.squeeze_pct && (!could_squeeze || ++p->guard.squeeze_age > GUARD_SQUEEZE_TICKS))
			p->guard.squeeze_pct = 0; /* nobody left to squeeze, or time to probe above it again */
	}
	if (pressure) {
		cut(host, parts, count, decisions, &v);
		note_cut(host, parts, count);
		if (v.known && v.ipc.victim)
			guard_ipc_note_cut(parts, count);
	} else if (!v.ipc.low) {
		give_back(host, parts, count, decisions, &v); /* not while a guarded IPC is low */
	}
	for (size_t i = 0; i < count; i++) {
		struct guard_memory *m = &parts[i].guard;
		if (pressure)
			m->calm = 0;
		if (m->throttled && m->cut_pct < decisions[i].mb_max)
			decisions[i].mb_max = m->cut_pct;
	}
}
