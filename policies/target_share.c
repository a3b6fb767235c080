/* Targets and guarantees that together sum over a domain's capacity: they cannot all be met, and
 * mpamd shares the domain by a rule of its own (mpamd.ini(5), OVERCOMMIT).
 *
 * Guarantees are served first (the guard protects them, policies/guard.c); what they leave of the
 * domain is shared among the targets in proportion to their weight, each up to its own target
 * (water-filling: a target its part would exceed keeps its target, and the rest goes to the others).
 * What a goal asks of a domain is its share of the goal there, where the partition's traffic goes.
 * A target's cut on each domain comes off its whole target: the controller holds what is left, its
 * budget, instead of the target (policies/target.c), and holds the target again once they fit.
 *
 * On several domains the asks follow the traffic's split, which jitters with the samples: a budget
 * moves only by more than TARGET_SHARE_JITTER of the target there (each move restarts a search). One
 * event says which goals cannot all be met, the capacity and the budgets: when it starts, and again
 * when a budget moves while it lasts (policies/overcommit.c keeps what was said). Only from a
 * capacity that is known: a learned one is the most seen so far, not what the domain has. */
#include <math.h>

#include "policies/domains.h"
#include "policies/overcommit.h"
#include "policies/steps.h"
#include "policies/target_internal.h"

#define TARGET_SHARE_JITTER 0.02

/* What a goal of `goal` MB/s of partition p asks of domain d: its share where its traffic goes
 * (unmeasured or idle: the domain's share of the host's capacity); 0 where a capacity is not known. */
static double goal_on(const struct policy_host *h, const struct policy_partition *p, unsigned d, double goal)
{
	double total = 0;

	if (pol_domains(h) == 1)
		return goal;
	if (p->valid && p->mbps > 0)
		return pol_cdom(p, d)->valid ? goal * pol_cdom(p, d)->mbps / p->mbps : 0;
	for (unsigned k = 0; k < pol_domains(h); k++)
		total += host_dom(h, k).capacity_mbps;
	return total > 0 ? goal * host_dom(h, d).capacity_mbps / total : 0;
}

static double target_ask(const struct policy_host *h, const struct policy_partition *p, unsigned d,
			 const struct policy_decision *dec)
{
	(void)dec;
	return p->goals->target_mbps ? goal_on(h, p, d, p->goals->target_mbps) : 0;
}

/* A guarantee counts as the guard counts it: on a latency-critical partition. */
static double guarantee_ask(const struct policy_host *h, const struct policy_partition *p, unsigned d,
			    const struct policy_decision *dec)
{
	(void)dec;
	if (p->goals->class != CLASS_LATENCY_CRITICAL || !p->goals->guarantee_mbps)
		return 0;
	return goal_on(h, p, d, p->goals->guarantee_mbps);
}

static bool asks_target(const struct policy_partition *p)
{
	return p->goals->target_mbps;
}

static bool asks_guarantee(const struct policy_partition *p)
{
	return p->goals->class == CLASS_LATENCY_CRITICAL && p->goals->guarantee_mbps;
}

/* Either: the partitions the event concerns. */
static double goal_ask(const struct policy_host *h, const struct policy_partition *p, unsigned d,
		       const struct policy_decision *dec)
{
	return target_ask(h, p, d, dec) + guarantee_ask(h, p, d, dec);
}

/* What the controller holds (for the event's list). */
static double goal_held(const struct policy_host *h, const struct policy_partition *p, unsigned d,
			const struct policy_decision *dec)
{
	(void)h;
	(void)d;
	(void)dec;
	return target_goal(p);
}

static double weight_of(const struct policy_partition *p)
{
	return p->goals->weight ? p->goals->weight : 1;
}

/* The level at which the targets' parts of `room` on domain d add up to it, target i getting
 * min(ask_i, level * weight_i); INFINITY when every ask fits. Each round the targets whose ask the
 * level reaches keep their ask, which only raises the level for the others: at most `count` rounds. */
static double share_level(const struct policy_host *h, const struct policy_partition *parts, size_t count, unsigned d,
			  const struct policy_decision *decisions, double room)
{
	double level = 0;
	size_t capped = 0;

	for (;;) {
		double left = room, weights = 0;
		size_t now_capped = 0;
		for (size_t i = 0; i < count; i++) {
			double a = parts[i].open ? target_ask(h, &parts[i], d, &decisions[i]) : 0;
			if (!(a > 0))
				continue;
			if (a <= level * weight_of(&parts[i])) {
				left -= a;
				now_capped++;
			} else {
				weights += weight_of(&parts[i]);
			}
		}
		if (!(weights > 0))
			return INFINITY;
		if (level > 0 && now_capped == capped)
			return level;
		capped = now_capped;
		level = fmax(left, 0) / weights;
	}
}

/* What the goals ask of each domain this tick, MB/s (summed once: the asks follow the samples, which
 * hold still for the tick). */
struct goal_sums {
	double targets[POLICY_MAX_DOMAINS], guarantees[POLICY_MAX_DOMAINS];
};

/* The capacity of domain d left to targets once its guarantees are served; -1 where its capacity is
 * not known. */
static double room_for_targets(const struct policy_host *h, unsigned d, const struct goal_sums *sums)
{
	struct policy_host_domain hd = host_dom(h, d);

	if (!(hd.capacity_mbps > 0) || hd.capacity_learned)
		return -1;
	return fmax(hd.capacity_mbps - sums->guarantees[d], 0);
}

/* Each domain's share level (INFINITY where the targets fit). */
static void share_levels(const struct policy_host *h, const struct policy_partition *parts, size_t count,
			 const struct policy_decision *decisions, const struct goal_sums *sums, double *levels)
{
	for (unsigned d = 0; d < pol_domains(h); d++) {
		double room = room_for_targets(h, d, sums);
		levels[d] = room >= 0 && sums->targets[d] > room * (1 + STEP_SLACK)
				    ? share_level(h, parts, count, d, decisions, room)
				    : INFINITY;
	}
}

/* Partition p's target less its cut on every domain. */
static double share_of(const struct policy_host *h, const struct policy_partition *p, const struct policy_decision *dec,
		       const double *levels)
{
	double cut = 0;

	for (unsigned d = 0; d < pol_domains(h); d++)
		if (!isinf(levels[d]))
			cut += fmax(target_ask(h, p, d, dec) - levels[d] * weight_of(p), 0);
	return p->goals->target_mbps - cut;
}

/* The budget follows the share (see the file comment for the jitter); at least 1 MB/s: what
 * guarantees leave nothing of is held at the controller's lowest rung. */
static void hold_budget(const struct policy_host *h, struct policy_partition *p, double share)
{
	struct target_memory *m = p->target;
	double target = p->goals->target_mbps;
	double jitter = pol_domains(h) > 1 ? TARGET_SHARE_JITTER * target : 0;
	uint32_t next = share > target - 0.5 ? 0 : (uint32_t)fmax(1, lround(share));

	if (next == m->budget || (next && fabs(share - target_goal(p)) <= jitter))
		return;
	m->budget = next;
	m->budget_moved = true;
}

static bool budget_moved_on(const struct policy_host *h, const struct policy_partition *parts, size_t count, unsigned d,
			    const struct policy_decision *decisions)
{
	for (size_t i = 0; i < count; i++)
		if (parts[i].open && parts[i].target && parts[i].target->budget_moved &&
		    target_ask(h, &parts[i], d, &decisions[i]) > 0)
			return true;
	return false;
}

/* Domain d's overcommit, in an event on the partition that asks most there: when it starts, and when
 * a budget there moved while it lasts. A domain whose overcommit ended is added to `cleared`. */
static void say_overcommit(const struct policy_host *h, struct policy_partition *parts, size_t count, unsigned d,
			   struct policy_decision *decisions, const struct goal_sums *sums, uint64_t *cleared)
{
	double room = room_for_targets(h, d, sums), cap = host_dom(h, d).capacity_mbps;
	double targets = sums->targets[d], guarantees = sums->guarantees[d];
	bool over = room >= 0 && targets > room * (1 + STEP_SLACK);
	bool clear = !(targets > 0) || (room >= 0 && targets + guarantees <= cap * OVERCOMMIT_CLEAR_FRACTION);
	char where[32], asks[160], kept[160], held[160];

	if (clear)
		*cleared |= UINT64_C(1) << d;
	if (clear || (!overcommit_news(h, parts, count, d, decisions, goal_ask, OVERCOMMIT_TARGETS, over) &&
		      !(over && budget_moved_on(h, parts, count, d, decisions))))
		return;
	pol_where(pol_domains(h), d, where, sizeof(where));
	overcommit_list(asks, sizeof(asks), h, parts, count, d, decisions, target_ask, target_ask, false);
	overcommit_list(held, sizeof(held), h, parts, count, d, decisions, target_ask, goal_held, false);
	struct policy_decision *dec = &decisions[overcommit_largest(h, parts, count, d, decisions, goal_ask)];
	if (!(guarantees > 0)) {
		policy_event(dec,
			     "overcommit: targets ask %.0f of %.0f MB/s%s (%s): not all can be met; shared by weight, "
			     "each up to its target: %s",
			     targets, cap, where, asks, held);
		return;
	}
	overcommit_list(kept, sizeof(kept), h, parts, count, d, decisions, guarantee_ask, guarantee_ask, false);
	policy_event(dec,
		     "overcommit: guarantees and targets ask %.0f of %.0f MB/s%s (guarantees %s; targets %s): not all "
		     "can be met; guarantees first, the %.0f MB/s left shared by weight, each up to its target: %s",
		     guarantees + targets, cap, where, kept, asks, room, held);
}

void target_share(const struct policy_host *h, struct policy_partition *parts, size_t count,
		  struct policy_decision *decisions)
{
	double levels[POLICY_MAX_DOMAINS];
	struct goal_sums sums;
	uint64_t cleared = 0;

	overcommit_sums(h, parts, count, decisions, target_ask, asks_target, sums.targets);
	overcommit_sums(h, parts, count, decisions, guarantee_ask, asks_guarantee, sums.guarantees);
	share_levels(h, parts, count, decisions, &sums, levels);
	for (size_t i = 0; i < count; i++) {
		if (parts[i].target)
			parts[i].target->budget_moved = false;
		if (parts[i].open && parts[i].goals->target_mbps && parts[i].target)
			hold_budget(h, &parts[i], share_of(h, &parts[i], &decisions[i], levels));
	}
	for (unsigned d = 0; d < pol_domains(h); d++)
		say_overcommit(h, parts, count, d, decisions, &sums, &cleared);
	overcommit_forget(parts, count, OVERCOMMIT_TARGETS, cleared);
}
