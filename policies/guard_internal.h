/* Shared by the guard's parts (policies/: guard.c, guard_victims.c, guard_cut.c, guard_heap.c,
 * guard_minimum.c): its tuning, the view of each domain it builds every tick, and the calls from one
 * part to another. See guard.c for what the guard does. */
#ifndef MPAMD_POLICIES_GUARD_INTERNAL_H
#define MPAMD_POLICIES_GUARD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "policies/domains.h"
#include "policies/guard_ipc.h"
#include "policies/policy.h"

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
/* One cut at most halves a partition's use (TCP's multiplicative decrease) and takes at least 10% of
 * the largest user's (smaller cuts drown in measurement noise and cost ticks). */
#define GUARD_MD_MIN_FACTOR 0.5
#define GUARD_MD_MAX_FACTOR 0.9
/* Give back 5% of capacity per tick: from a 50% cut, full use returns in about 10 ticks, and one step
 * is small enough not to push a guarantee from headroom straight to short. */
#define GUARD_ADD_STEP_PCT 5
/* Giving back stops at least this far below the ceiling that squeezed a victim (or one step, where
 * steps are wider): on fine MPAM bands one step below is the squeeze point itself to within noise. */
#define GUARD_BACKOFF_PCT 1.0
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
	bool known;	       /* capacity known and every partition measured there: the guard can judge it */
	bool saturated;	       /* the partitions use GUARD_SATURATED_FRACTION of its capacity or more */
	bool saturated_unseen; /* ... counting the rise rotation leaves unseen (guard_estimates.c) */
	bool headroom;	       /* every guaranteed partition that uses it is idle or at GUARD_HEADROOM_FRACTION */
	double need_mbps;      /* what short guaranteed partitions lack here (with the cut margin) */
	double ipc_need_mbps;  /* what the IPC victim wants taken from best-effort partitions here */
	double room_mbps;      /* capacity left before the domain counts as saturated */
	bool any_below;	       /* some guaranteed partition that uses it is below its guarantee */
	bool any_active;       /* some guaranteed partition uses it and is not idle (a squeeze can come back) */
	bool fresh;	       /* every guaranteed partition that uses it was measured, none estimated */
	bool for_bandwidth;    /* this tick's cut here is for a guarantee */
	bool pressure;	       /* cut here this tick */
	size_t held;	       /* best-effort partitions it holds back here, once their memory aged */
	const struct policy_partition *victim; /* the shortest guaranteed partition squeezed here */
	char capacity_why[160];		       /* the evidence for the capacity, for events */
};

/* What counter rotation leaves unseen on each domain this tick (guard_estimates.c). */
struct guard_estimates {
	unsigned oldest[POLICY_MAX_DOMAINS];	   /* ticks since the oldest estimated rate there was measured */
	unsigned estimated[POLICY_MAX_DOMAINS];	   /* partitions with an estimated rate there */
	double mean_rise_mbps[POLICY_MAX_DOMAINS]; /* what each is taken to have risen by, unseen (>= 0) */
};

/* What the partitions estimated on domain d are taken to have risen by together, unseen. */
static inline double guard_unseen_rise(const struct guard_estimates *est, unsigned d)
{
	return est->mean_rise_mbps[d] * est->estimated[d];
}

struct guard_view {
	unsigned domains;
	struct guard_estimates est;
	bool gentle;		   /* every squeezed partition has a known demand level: cut just what it lacks */
	bool any_saturated;	   /* some domain is known and saturated */
	bool any_pressure;	   /* some domain cuts this tick */
	struct guard_ipc_view ipc; /* the IPC signal */
	struct guard_domain_view dom[POLICY_MAX_DOMAINS];
};

/* ---- what every part asks of a partition ---- */

static inline bool guaranteed(const struct policy_partition *p)
{
	return p->open && p->goals->class == CLASS_LATENCY_CRITICAL && p->goals->guarantee_mbps > 0;
}

static inline bool best_effort(const struct policy_partition *p)
{
	return p->open && p->goals->class == CLASS_BEST_EFFORT;
}

/* What a guaranteed partition should get: its guarantee, or less when it wants less. */
static inline double guard_goal(const struct policy_partition *p)
{
	double level = p->guard.demand_level_mbps;

	return level > 0 && level < p->goals->guarantee_mbps ? level : p->goals->guarantee_mbps;
}

/* Its rate this tick was measured: not estimated (its last measured rate repeated while counters
 * rotate), which is weaker evidence (see guard_victims.c). */
static inline bool measured(const struct policy_partition *p)
{
	return p->valid && !p->estimated;
}

/* Its share of traffic on domain d (1 on a host of one domain). */
static inline double share_on(const struct policy_host *h, const struct policy_partition *p, unsigned d)
{
	const struct policy_domain *dom = pol_cdom(p, d);

	if (pol_domains(h) == 1)
		return 1;
	return dom->valid && p->mbps > 0 ? dom->mbps / p->mbps : 0;
}

/* It uses domain d: enough of its traffic is there (see GUARD_DOMAIN_SHARE). */
static inline bool uses_domain(const struct policy_host *h, const struct policy_partition *p, unsigned d)
{
	return share_on(h, p, d) >= GUARD_DOMAIN_SHARE; /* share_on is 1 on a one-domain host */
}

/* ---- guard_estimates.c ---- */

/* What the guard takes a partition to use on domain d when it cuts: its rate there, and while that is
 * an estimate, the rise the neighbours measured this tick made unseen (guard_estimates.c): a crowd
 * quiet when last measured is cut with the others, not left out for using nothing. */
static inline double guard_use(const struct guard_estimates *est, const struct policy_domain *dom, unsigned d)
{
	return dom->valid && dom->estimated ? dom->mbps + est->mean_rise_mbps[d] : dom->mbps;
}

/* Each partition's run of estimates, and each domain's oldest and unseen rise, this tick. */
void guard_note_estimates(const struct policy_host *h, struct policy_partition *parts, size_t count,
			  struct guard_estimates *est);

/* ---- guard_victims.c ---- */

/* Judges, for each guaranteed partition below its guarantee, whether it is held back at all, and
 * forgets a demand-limited level the partition has left. */
void guard_judge_victims(const struct policy_host *h, struct policy_partition *parts, size_t count,
			 const struct guard_estimates *est, struct policy_decision *decisions);
/* This tick's view: each domain's saturation, room and headroom, and what the squeezed guaranteed
 * partitions lack there. */
void guard_assess(const struct policy_host *h, const struct policy_partition *parts, size_t count,
		  struct guard_view *v);
/* What the IPC victim (v->ipc) wants taken from the best-effort partitions on each domain it uses. */
void guard_assess_ipc(const struct policy_host *h, const struct policy_partition *parts, size_t count,
		      struct guard_view *v);
/* Each partition's verdict on each domain this tick, into its memory (judged, short_here). */
void guard_note_verdicts(const struct policy_host *h, struct policy_partition *parts, size_t count,
			 const struct guard_view *v);
/* Remembers the victims' rates at a cut, to judge it later. */
void guard_note_cut(const struct policy_host *h, struct policy_partition *parts, size_t count,
		    const struct guard_view *v);

/* ---- guard_minimum.c ---- */

/* The guarantee of `p` as its minimum on each domain, into its decision. */
void guard_program_minimum(const struct policy_host *h, struct policy_partition *p, struct policy_decision *dec);
/* Once every guarantee is programmed: the minimums on each domain brought within 100% of it, the
 * overcommit said once (policies/overcommit.c), and an event for each minimum raised. */
void guard_fit_minimums(const struct policy_host *h, struct policy_partition *parts, size_t count,
			struct policy_decision *decisions);

/* ---- guard_cut.c ---- */

/* Cuts on domain d, largest users first, until what was freed covers what is needed there; `work`
 * has room for `count` partition indices. */
void guard_cut(const struct policy_host *h, unsigned d, struct policy_partition *parts, size_t count,
	       struct policy_decision *decisions, const struct guard_view *v, size_t *work);
/* Gives back to the partitions cut on domain d that have been calm and dwelt long enough. */
void guard_give_back(const struct policy_host *h, unsigned d, struct policy_partition *parts, size_t count,
		     struct policy_decision *decisions, const struct guard_view *v);

/* ---- guard_heap.c ---- */

/* The candidates of a cut on domain d: indices into parts, at[0..n) ordered as a heap. */
struct guard_heap {
	size_t *at;
	size_t n;
	const struct policy_partition *parts;
	unsigned d;
	const struct guard_estimates *est; /* the use it orders by is guard_use's */
};

/* The best-effort partitions that use domain d, in a heap (Floyd's construction: linear), in the
 * room hp->at gives. */
void guard_heap_build(struct guard_heap *hp, struct policy_partition *parts, size_t count, unsigned d);
/* The index of the largest user left; hp->n must be > 0. */
size_t guard_heap_pop(struct guard_heap *hp);

#endif
