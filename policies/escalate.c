/* escalate: the CPU quota as a second actuator, when the MB floor is not low enough.
 *
 * The lowest MB setting the hardware takes (the min_bandwidth floor) can still let a best-effort
 * partition through far above what the other policies want for it. Its budget is its target_mbps, or
 * what the guard wants it to use (guard.want_mbps), whichever is lower. When it stays over that budget
 * for ESCALATE_TICKS ticks with its MB ceiling at the floor, this policy lowers its CPU quota in
 * proportion (budget / use, at most halving per step, never below ESCALATE_MIN_QUOTA_PCT). When the
 * pressure ends (the ceiling is off the floor or there is no budget any more) for
 * ESCALATE_RESTORE_TICKS ticks, the quota is lifted; while the pressure lasts but the partition is
 * well under its budget, the quota is raised in proportion. The target controller and the guard do
 * not raise an escalated partition's MB ceiling: the quota is unwound first.
 *
 * The policy only decides decisions[i].cpu_quota_pct; the engine writes the cgroup. It acts only where
 * escalation_allowed ([global] escalate = true and a cgroup); otherwise it says once per episode that
 * it would have. Off by default, and every change is an event. */
#include <stdio.h>

#include "policies/domains.h"
#include "policies/policy.h"
#include "policies/steps.h"

/* Over budget by more than 5%: less than that is measurement noise. */
#define ESCALATE_OVER_MARGIN 0.05
/* 10% under budget before the quota is raised while the pressure lasts: room for the raise. */
#define ESCALATE_UNDER_MARGIN 0.10
/* Three ticks in a row over budget at the floor before the quota is lowered, and three more before it
 * is lowered again: a new quota shows in the next sample, and MB limits get their chance first. */
#define ESCALATE_TICKS 3
/* Ten calm ticks before the quota is raised: a CPU quota slows every thread of the partition, so it
 * is unwound more carefully than it is tightened, or it would flap with the pressure. */
#define ESCALATE_RESTORE_TICKS 10
/* One step at most halves the quota (the same multiplicative bound as the guard's cuts). */
#define ESCALATE_MIN_FACTOR 0.5
/* Never below a tenth of one CPU: the partition keeps making progress and can still exit. */
#define ESCALATE_MIN_QUOTA_PCT 10
/* While the pressure lasts, one raise at most doubles the quota. */
#define ESCALATE_MAX_RAISE 2.0

/* Its MB ceiling is at the floor on every domain it uses (with traffic there): the MB limit can do no
 * more. */
static bool at_floor(const struct policy_host *h, const struct policy_partition *p, const struct policy_decision *d)
{
	bool any = false;

	for (unsigned dom = 0; dom < pol_domains(h); dom++) {
		const struct policy_domain *pd = pol_cdom(p, dom);
		if (pol_domains(h) > 1 && !(pd->valid && pd->mbps > 0))
			continue;
		if (dec_max_of(d, dom) > step_floor(pol_ladder(h, dom)))
			return false;
		any = true;
	}
	return any;
}

static double budget_of(const struct policy_partition *p)
{
	double budget = p->goals->target_mbps;

	if (p->guard.throttled && p->guard.want_mbps > 0 && (budget == 0 || p->guard.want_mbps < budget))
		budget = p->guard.want_mbps;
	return budget;
}

/* The whole host's CPUs: a quota at or above it limits nothing. */
static unsigned full_quota(const struct policy_host *h)
{
	return (h->cpus ? h->cpus : 1) * 100u;
}

static void describe_quota(unsigned quota, char *buf, size_t len)
{
	if (quota)
		snprintf(buf, len, "%u%%", quota);
	else
		snprintf(buf, len, "unlimited");
}

static void lower(const struct policy_host *h, struct policy_partition *p, struct policy_decision *d, double budget)
{
	struct escalate_memory *m = &p->escalate;
	unsigned base = p->cpu_quota_pct ? p->cpu_quota_pct : full_quota(h);
	double factor = budget / p->mbps;
	char from[16];

	if (!p->escalation_allowed) {
		if (m->over_ticks == ESCALATE_TICKS) /* once per episode */
			policy_event(
				d,
				"escalate: %.0f MB/s over its %.0f MB/s budget at the MB floor but escalation is off",
				p->mbps, budget);
		return;
	}
	factor = factor < ESCALATE_MIN_FACTOR ? ESCALATE_MIN_FACTOR : factor;
	unsigned next = (unsigned)(base * factor);
	next = next < ESCALATE_MIN_QUOTA_PCT ? ESCALATE_MIN_QUOTA_PCT : next;
	m->over_ticks = 0;
	if (next >= base)
		return;
	describe_quota(p->cpu_quota_pct, from, sizeof(from));
	policy_event(d, "escalate: %.0f MB/s over its %.0f MB/s budget at the MB floor: CPU quota %s -> %u%%", p->mbps,
		     budget, from, next);
	d->cpu_quota_pct = next;
}

static void raise_quota(const struct policy_host *h, struct policy_partition *p, struct policy_decision *d,
			double budget, bool pressure)
{
	unsigned next = 0; /* unlimited */

	if (pressure) {
		double factor = p->mbps > 0 ? budget / p->mbps : ESCALATE_MAX_RAISE;
		factor = factor > ESCALATE_MAX_RAISE ? ESCALATE_MAX_RAISE : factor;
		next = (unsigned)(p->cpu_quota_pct * factor);
		if (next >= full_quota(h))
			next = 0;
	}
	char to[16];
	describe_quota(next, to, sizeof(to));
	policy_event(d, "restore: %s: CPU quota %u%% -> %s", pressure ? "well under budget" : "pressure ended",
		     p->cpu_quota_pct, to);
	d->cpu_quota_pct = next;
	p->escalate.under_ticks = 0;
}

static void release_all(struct policy_partition *p, struct policy_decision *d, const char *why)
{
	if (p->cpu_quota_pct)
		policy_event(d, "restore: %s: CPU quota %u%% -> unlimited", why, p->cpu_quota_pct);
	d->cpu_quota_pct = 0;
	p->escalate = (struct escalate_memory){ 0 };
}

static void escalate_one(const struct policy_host *h, struct policy_partition *p, struct policy_decision *d)
{
	struct escalate_memory *m = &p->escalate;

	if (!p->open || p->goals->class != CLASS_BEST_EFFORT) {
		release_all(p, d, "not best-effort");
		return;
	}
	if (p->cpu_quota_pct && !p->escalation_allowed) {
		release_all(p, d, "escalation is off");
		return;
	}
	d->cpu_quota_pct = p->cpu_quota_pct; /* holds unless decided otherwise below */
	double budget = budget_of(p);
	bool pressure = at_floor(h, p, d) && budget > 0;
	bool over = pressure && p->valid && p->mbps > budget * (1 + ESCALATE_OVER_MARGIN);
	bool under = p->valid && p->mbps < budget * (1 - ESCALATE_UNDER_MARGIN);

	m->over_ticks = over ? m->over_ticks + 1 : 0;
	m->under_ticks = p->cpu_quota_pct && (!pressure || under) ? m->under_ticks + 1 : 0;
	if (m->over_ticks >= ESCALATE_TICKS)
		lower(h, p, d, budget);
	else if (m->under_ticks >= ESCALATE_RESTORE_TICKS)
		raise_quota(h, p, d, budget, pressure);
}

void policy_escalate(const struct policy_host *host, struct policy_partition *parts, size_t count,
		     struct policy_decision *decisions)
{
	policy_domains_prepare(host, parts, count);
	for (size_t i = 0; i < count; i++)
		escalate_one(host, &parts[i], &decisions[i]);
}
