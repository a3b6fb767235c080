/* target: holds a partition's target_mbps by moving its MB ceiling (mb_max).
 *
 * The plant. While the ceiling binds, the partition's bandwidth is y = f(u) for a ceiling of u
 * percent; below the ceiling the partition's own demand (or contention with others) sets y and the
 * ceiling does nothing. f is unknown and need not be linear or smooth: Intel's MBA is concave and
 * depends on the workload (10% may let 35% of capacity through, 50% already 90%, nothing changes above
 * 70%), MPAM's MBW_MAX is banded, AMD's units are 1/8 GB/s. The controller assumes only that f does
 * not fall as u rises. A ceiling can hold only the rungs of the domain's ladder (policies/steps.h); a
 * ceiling decided at tick t shows in the measurement of tick t+1+D, D the hardware's actuation delay
 * (0 on most hosts, learned); every sample carries measurement noise (filtered).
 *
 * 1. First move. On a new target the controller jumps to the lowest rung the average gain says lets
 *    the target through: u = T / g, g learned from samples in which the ceiling binds (y / u close to
 *    the model; it starts as capacity / 100), less a quarter of a step (read-back percentages are
 *    whole numbers and bands are not exactly proportional to them).
 * 2. The search (policies/target_search.c). From there it measures rungs, each once its move has
 *    shown, on the mean of its samples, and keeps the two that bracket the target, moving by
 *    interpolation, secant or chord until they are neighbours; then it takes the rung at or below the
 *    target unless the one above is within 5% over it and nearer (a budget is a ceiling), says once
 *    when no rung is within 5%, and holds. Holding, a rise of the rate at the same rung starts the
 *    search again (from the rate measured there, never from a sample taken under an older limit); a
 *    fall is the partition's own demand or contention, which a higher ceiling would not cure: it is
 *    said once and the ceiling holds.
 * 3. Bounds. The controller's rungs lie between the configured mb_min (or the hardware floor) and the
 *    configured mb_max. A partition that uses less than its target gains nothing from a higher
 *    ceiling: a raise that changes nothing ends the search where it is.
 * 4. Escalation first. When the partition's CPU quota is lowered (escalation) and the ceiling is at its
 *    lower bound, the controller does not raise it: the escalation is unwound first.
 * 5. Domains. The target is the partition's total, held by one setting on the domains it uses: those
 *    on which it was seen with at least TARGET_DOMAIN_SHARE of its traffic since the target was set
 *    (all of them until it has been seen at all). The plant is then the sum over those domains, and
 *    the capacity line is theirs together; the others keep their configured ceiling (a VM pinned to
 *    one socket is not throttled on the other). The bounds are the tightest configured on the domains
 *    it uses. */
#include "policies/domains.h"
#include "policies/policy.h"
#include "policies/steps.h"
#include "policies/target_internal.h"

/* The gain comes from read-back percentages, rounded to whole numbers, and MBW_MAX bands are not
 * exactly proportional to them: T / g can land a little above the step that in fact delivers T. A
 * quarter of a step is forgiven, or the first move would sit one step high. */
#define TARGET_MODEL_SLACK_STEPS 0.25
/* A sample within 10% of the modelled MB/s per percent comes from a partition its ceiling holds. */
#define TARGET_BINDING_FRACTION 0.9
/* A domain carrying 5% of the partition's traffic is one it uses: below that, a ceiling there moves
 * the total by less than the noise. */
#define TARGET_DOMAIN_SHARE 0.05

/* The ladder its decisions are rungs of (view_of sets it to the domains it uses). */
static const struct ladder *target_ladder(const struct policy_host *h)
{
	return step_ladder_or_default(h->max_ladder);
}

/* The domains the controller moves (see 7 above). */
static uint64_t domains_used(const struct policy_host *h, const struct policy_partition *p)
{
	unsigned n = pol_domains(h);
	uint64_t all = n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;

	return p->target->domains & all ? p->target->domains & all : all;
}

static bool uses(uint64_t domains, unsigned d)
{
	return d < 64 && (domains >> d) & 1;
}

/* Adds the domains this tick's sample shows traffic on. */
static void note_domains(const struct policy_host *h, struct policy_partition *p)
{
	for (unsigned d = 0; d < pol_domains(h) && d < 64; d++) {
		const struct policy_domain *dom = pol_cdom(p, d);
		if (dom->valid && dom->mbps > 0 && dom->mbps >= TARGET_DOMAIN_SHARE * p->mbps)
			p->target->domains |= UINT64_C(1) << d;
	}
}

/* The ladder of the domains it uses (the first of them: one setting holds on all of them). */
static const struct ladder *ladder_of_used(const struct policy_host *h, uint64_t used)
{
	for (unsigned d = 0; d < pol_domains(h); d++)
		if (uses(used, d))
			return pol_ladder(h, d);
	return pol_ladder(h, 0);
}

/* The host as the controller of this partition sees it: the capacity of the domains it uses, and
 * their ladder. */
static struct policy_host view_of(const struct policy_host *h, const struct policy_partition *p)
{
	struct policy_host v = *h;
	uint64_t used = domains_used(h, p);

	v.max_ladder = ladder_of_used(h, used);
	if (pol_domains(h) == 1)
		return v;
	v.capacity_mbps = 0;
	v.capacity_learned = false;
	for (unsigned d = 0; d < pol_domains(h); d++) {
		if (!uses(used, d))
			continue;
		struct policy_host_domain hd = host_dom(h, d);
		if (!(hd.capacity_mbps > 0)) {
			v.capacity_mbps = 0; /* one unknown: the line is unknown */
			break;
		}
		v.capacity_mbps += hd.capacity_mbps;
		v.capacity_learned |= hd.capacity_learned;
	}
	return v;
}

/* The ceiling in force on the domains it uses (the highest: they all hold the controller's setting). */
static double in_force(const struct policy_host *h, const struct policy_partition *p)
{
	uint64_t used = domains_used(h, p);
	double pct = 0;

	for (unsigned d = 0; d < pol_domains(h); d++)
		if (uses(used, d) && pol_cdom(p, d)->mb_max > pct)
			pct = pol_cdom(p, d)->mb_max;
	return pct;
}

static double model_gain(const struct policy_host *h, const struct policy_partition *p)
{
	if (p->target->mbps_per_pct > 0)
		return p->target->mbps_per_pct;
	if (h->capacity_mbps > 0)
		return h->capacity_mbps / PCT_FULL;
	double u = in_force(h, p);
	return u > 0 ? p->mbps / u : 0; /* nothing better: a lower bound of the gain */
}

/* Only from a sample taken under the limit in force: before the controller engages, or once its last
 * move has shown (with actuation delay the read-back is ahead of what the traffic obeys). */
static void learn_gain(const struct policy_host *h, struct policy_partition *p)
{
	double u = in_force(h, p);

	if (p->target->out_pct > 0 && (p->target->settling || p->target->awaiting))
		return;

	if (!(u > 0) || !(p->mbps > 0))
		return;
	double sample = p->mbps / u;
	double model = model_gain(h, p);
	if (model <= 0 || sample >= TARGET_BINDING_FRACTION * model)
		p->target->mbps_per_pct = sample;
}

/* The lowest configured mb_max of the domains it uses. */
static double upper_bound(const struct policy_host *h, const struct policy_partition *p)
{
	uint64_t used = domains_used(h, p);
	double hi = PCT_FULL;

	for (unsigned d = 0; d < pol_domains(h); d++)
		if (uses(used, d) && pol_cdom(p, d)->cfg_max < hi)
			hi = pol_cdom(p, d)->cfg_max;
	return hi;
}

/* The hardware floor, or the highest configured mb_min of the domains it uses. */
static double lower_bound(const struct policy_host *h, const struct policy_partition *p)
{
	uint64_t used = domains_used(h, p);
	double lo = step_floor(target_ladder(h)), hi = upper_bound(h, p);

	for (unsigned d = 0; d < pol_domains(h); d++)
		if (uses(used, d) && pol_cdom(p, d)->cfg_min > lo)
			lo = step_up(target_ladder(h), pol_cdom(p, d)->cfg_min);
	return lo < hi ? lo : hi;
}

/* The lowest setting a gain of g says lets the target through: the first move (with the average
 * gain) and the anti-windup ceiling (with the capacity line's). */
static double model_setting(const struct policy_host *h, const struct policy_partition *p, double g)
{
	const struct ladder *l = target_ladder(h);
	double exact = target_goal(p) / g, pct = exact - TARGET_MODEL_SLACK_STEPS * step_width(l, exact);

	return clamp_pct(step_up(l, pct), lower_bound(h, p), upper_bound(h, p));
}

static void disengage(const struct policy_host *h, struct policy_partition *p, struct policy_decision *d)
{
	if (!p->target) /* never had a target: nothing to leave or forget */
		return;
	if (p->target->out_pct > 0 && p->open) { /* it was engaged: the ceiling it leaves */
		double to = dec_max_of(d, 0);
		for (unsigned dom = 1; dom < pol_domains(h); dom++)
			to = dec_max_of(d, dom) > to ? dec_max_of(d, dom) : to;
		if (p->target->out_pct != to)
			policy_event(d, "restore: no target_mbps any more: mb_max %g%% -> %g%%", p->target->out_pct,
				     to);
	}
	*p->target = (struct target_memory){ 0 };
}

/* The controller's setting on the domains it uses. */
static void hold_output(const struct policy_host *h, const struct policy_partition *p, struct policy_decision *d)
{
	uint64_t used = domains_used(h, p);

	for (unsigned dom = 0; dom < pol_domains(h); dom++)
		if (uses(used, dom) && p->target->out_pct < *dec_max(d, dom))
			*dec_max(d, dom) = p->target->out_pct;
}

/* The search's view of this partition this tick. */
static struct target_search search_of(const struct policy_host *h, const struct policy_partition *p)
{
	double lo = lower_bound(h, p);

	return (struct target_search){ .ladder = target_ladder(h),
				       .target = target_goal(p),
				       .lo = lo,
				       .hi = upper_bound(h, p),
				       .hold_up = p->cpu_quota_pct > 0 && p->target->out_pct <= lo };
}

/* The first move's event: a new target, a budget (policies/target_share.c), or the target `again`
 * after a budget. */
static void say_first_move(const struct policy_partition *p, struct policy_decision *d, bool again, double g,
			   double from, double next)
{
	const char *verb = next < from ? "throttle" : "restore";
	uint32_t target = p->goals->target_mbps;

	if (next == from)
		return;
	if (p->target->budget)
		policy_event(
			d,
			"%s: budget %u MB/s, its share of target %u on an overcommitted domain, at %.0f MB/s per %%: "
			"mb_max %g%% -> %g%%",
			verb, p->target->budget, target, g, from, next);
	else if (again)
		policy_event(d, "%s: target %u MB/s again, its domains no longer overcommitted: mb_max %g%% -> %g%%",
			     verb, target, from, next);
	else
		policy_event(d, "%s: new target %u MB/s at %.0f MB/s per %%: mb_max %g%% -> %g%%", verb, target, g,
			     from, next);
}

static void first_move(const struct policy_host *h, struct policy_partition *p, struct policy_decision *d, double g)
{
	struct target_memory *m = p->target;
	struct target_search s = search_of(h, p);
	double from = m->out_pct > 0 ? m->out_pct : in_force(h, p);
	double next = model_setting(h, p, g);
	bool again = !m->budget && m->last_target == p->goals->target_mbps && m->last_goal != m->last_target;

	m->last_target = p->goals->target_mbps;
	m->last_goal = target_goal(p);
	m->out_pct = from; /* measured there: the search's first point */
	target_search_start(m, &s, next, p->mbps);
	say_first_move(p, d, again, g, from, next);
}

static void target_one(const struct policy_host *host, struct policy_partition *p, struct policy_decision *d)
{
	struct target_memory *m = p->target;

	/* Without its memory (the owner of the partitions gives it to each one with a target) the
	 * controller cannot hold a target: it leaves the partition to the other policies. */
	if (!p->open || p->goals->target_mbps == 0 || !m) {
		disengage(host, p, d);
		return;
	}
	if (m->last_target != p->goals->target_mbps)
		m->domains = 0; /* a new target: where it runs is learned again */
	if (p->valid)
		note_domains(host, p);
	struct policy_host view = view_of(host, p);
	const struct policy_host *h = &view;
	if (p->valid) {
		learn_gain(h, p);
		double g = model_gain(h, p);
		if (g > 0 &&
		    (!(m->out_pct > 0) || m->last_target != p->goals->target_mbps || m->last_goal != target_goal(p))) {
			first_move(h, p, d, g);
		} else if (g > 0) {
			struct target_search s = search_of(h, p);
			target_search_sample(m, &s, p->mbps, d);
		}
	}
	/* Without a valid sample (or a model) the output holds. */
	if (m->out_pct > 0)
		hold_output(h, p, d);
}

void policy_target(const struct policy_host *host, struct policy_partition *parts, size_t count,
		   struct policy_decision *decisions)
{
	policy_domains_prepare(host, parts, count);
	target_share(host, parts, count, decisions);
	for (size_t i = 0; i < count; i++)
		target_one(host, &parts[i], &decisions[i]);
}
