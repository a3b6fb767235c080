/* target: holds a partition's target_mbps by moving its MB ceiling (mb_max).
 *
 * The plant. A ceiling of u percent lets through u/100 of the host's capacity, so while the ceiling
 * binds the partition's bandwidth is y = g * u, with g the MB/s per percent; below the ceiling the
 * partition's own demand (or contention with others) sets y and the ceiling does nothing. A ceiling
 * decided at tick t shows in the measurement of tick t+1 (each sample covers the interval before it).
 *
 * 1. The gain. g starts as capacity / 100 and is learned as y / u from every sample in which the
 *    ceiling binds (y / u close to the model). Samples where the partition uses less than its ceiling
 *    allows say nothing about g and are ignored.
 * 2. First move. On a new target, or when the partition is far above its target (a step in demand),
 *    the controller jumps straight to the lowest step the model says lets the target through:
 *    u = step_up(T / g). MBW_MAX rounds a percentage down to its band, so rounding up is what lets T
 *    through.
 * 3. PI correction. Then u = I + KP * e / g with I += KI * e / g and e = T - y, rounded to the nearest
 *    step. Anti-windup: the integrator is clamped to [lower bound, ceiling], where the lower bound is
 *    the configured mb_min and the hardware floor, and the ceiling is the first-move setting (bounded
 *    by the configured mb_max): a partition that uses less than its target (idle, or held by others)
 *    gains nothing from a higher ceiling, and a wound-up ceiling would let the next burst overshoot.
 * 4. Deadband and reversal. The PI works on the mean of the samples taken since the output last
 *    changed (up to TARGET_MEAN_WINDOW), so measurement noise averages out while the output holds.
 *    Inside half a step of error no step could do better, so the output holds. Undoing the last
 *    one-step move needs an error of a whole step over at least TARGET_REVERSAL_SAMPLES samples:
 *    between two adjacent steps the controller stays on the one it reached instead of oscillating.
 * 5. Escalation first. When the partition's CPU quota is lowered (escalation) and the ceiling is at its
 *    lower bound, the controller does not raise it: the escalation is unwound first. */
#include "policies/policy.h"
#include "policies/steps.h"

/* With y = g * u and a one-tick delay, an integral gain of 1 and an exact model reach the target in
 * one tick; 0.8 leaves margin for a model gain off by up to a factor of 2 (the loop is stable while
 * KI * actual/model gain stays under 2). */
#define TARGET_KI 0.8
/* For this plant, proportional action adds a second pole at -KP (an alternating mode); a little of
 * it (0.1) shortens the correction after a move without visible ringing. */
#define TARGET_KP 0.1
/* Within half a step the step in force is the nearest one: no move can reduce the error. */
#define TARGET_DEADBAND_STEPS 0.5
/* Undoing a one-step move needs an error of one whole step (see 4 above). */
#define TARGET_REVERSAL_STEPS 1.0
/* Noise that swings a single sample by more than a step must not undo a move: a reversal needs the
 * mean of 3 samples (alternating noise cancels, random noise shrinks by sqrt(3)). */
#define TARGET_REVERSAL_SAMPLES 3
/* The mean covers at most the last 8 samples, so a slow drift still shows within a second. */
#define TARGET_MEAN_WINDOW 8
/* The gain comes from read-back percentages, rounded to whole numbers, and MBW_MAX bands are not
 * exactly proportional to them: T / g can land a little above the step that in fact delivers T. A
 * quarter of a step is forgiven (half the deadband), or the controller would sit one step high. */
#define TARGET_MODEL_SLACK_STEPS 0.25
/* More than 20% over target is a change of regime (demand stepped up), not drift to integrate away. */
#define TARGET_RESEED_FRACTION 0.2
/* A sample within 10% of the modelled MB/s per percent comes from a partition its ceiling holds. */
#define TARGET_BINDING_FRACTION 0.9

static double model_gain(const struct policy_host *h, const struct policy_partition *p)
{
	if (p->target.mbps_per_pct > 0)
		return p->target.mbps_per_pct;
	if (h->capacity_mbps > 0)
		return h->capacity_mbps / PCT_FULL;
	return p->mb_max > 0 ? p->mbps / p->mb_max : 0; /* nothing better: a lower bound of the gain */
}

static void learn_gain(const struct policy_host *h, struct policy_partition *p)
{
	if (p->mb_max == 0 || !(p->mbps > 0))
		return;
	double sample = p->mbps / p->mb_max;
	double model = model_gain(h, p);
	if (model <= 0 || sample >= TARGET_BINDING_FRACTION * model)
		p->target.mbps_per_pct = sample;
}

static unsigned upper_bound(const struct policy_partition *p)
{
	return p->goals.mb_max;
}

static unsigned lower_bound(const struct policy_host *h, const struct policy_partition *p)
{
	unsigned lo = policy_floor_pct(h);

	if (p->goals.mb_min > lo)
		lo = step_up(h, p->goals.mb_min);
	return lo < upper_bound(p) ? lo : upper_bound(p);
}

/* The lowest setting the model says lets the target through: the first move and the anti-windup
 * ceiling. */
static unsigned model_setting(const struct policy_host *h, const struct policy_partition *p, double g)
{
	double pct = p->goals.target_mbps / g - TARGET_MODEL_SLACK_STEPS * policy_gran(h);

	return clamp_pct(step_up(h, pct), lower_bound(h, p), upper_bound(p));
}

static double clamp_d(double v, double lo, double hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

static void set_output(struct target_memory *m, unsigned next, bool one_step)
{
	m->last_step = one_step ? (next > m->out_pct ? 1 : -1) : 0;
	m->out_pct = next;
	m->hold = 0;
	m->mean_mbps = 0;
}

static void first_move(const struct policy_host *h, struct policy_partition *p, struct policy_decision *d, double g,
		       const char *why)
{
	struct target_memory *m = &p->target;
	unsigned from = m->out_pct ? m->out_pct : p->mb_max;
	unsigned next = model_setting(h, p, g);

	m->integral = next;
	m->last_target = p->goals.target_mbps;
	set_output(m, next, false);
	if (next != from)
		policy_event(d, "%s: %s %u MB/s at %.0f MB/s per %%: mb_max %u%% -> %u%%",
			     next < from ? "throttle" : "restore", why, p->goals.target_mbps, g, from, next);
}

static bool is_one_step(const struct policy_host *h, unsigned a, unsigned b)
{
	return (a > b ? a - b : b - a) <= policy_gran(h);
}

static void pi_move(const struct policy_host *h, struct policy_partition *p, struct policy_decision *d, double g)
{
	struct target_memory *m = &p->target;
	double step_mbps = g * policy_gran(h);
	double lo = lower_bound(h, p), ceiling = model_setting(h, p, g);

	m->hold++;
	m->mean_mbps += (p->mbps - m->mean_mbps) / (m->hold < TARGET_MEAN_WINDOW ? m->hold : TARGET_MEAN_WINDOW);
	double e = (double)p->goals.target_mbps - m->mean_mbps;
	if (fabs(e) <= TARGET_DEADBAND_STEPS * step_mbps)
		return;
	m->integral = clamp_d(m->integral + TARGET_KI * e / g, lo, ceiling);
	unsigned next = clamp_pct(step_nearest(h, m->integral + TARGET_KP * e / g), (unsigned)lo, (unsigned)ceiling);
	if (next == m->out_pct)
		return;
	bool one_step = is_one_step(h, next, m->out_pct);
	int dir = next > m->out_pct ? 1 : -1;
	bool reversal = one_step && dir == -m->last_step &&
			(fabs(e) < TARGET_REVERSAL_STEPS * step_mbps || m->hold < TARGET_REVERSAL_SAMPLES);
	bool escalated = dir > 0 && p->cpu_quota_pct > 0 && m->out_pct <= lo;
	if (reversal || escalated) {
		m->integral = m->out_pct; /* hold, and do not wind up against the hold */
		return;
	}
	policy_event(d, "%s: %.0f MB/s %s target %u: mb_max %u%% -> %u%%", dir < 0 ? "throttle" : "restore",
		     m->mean_mbps, dir < 0 ? "over" : "under", p->goals.target_mbps, m->out_pct, next);
	set_output(m, next, one_step);
}

static void disengage(struct policy_partition *p, struct policy_decision *d)
{
	if (p->target.out_pct && p->open && p->target.out_pct != d->mb_max)
		policy_event(d, "restore: no target_mbps any more: mb_max %u%% -> %u%%", p->target.out_pct, d->mb_max);
	p->target = (struct target_memory){ 0 };
}

static void target_one(const struct policy_host *h, struct policy_partition *p, struct policy_decision *d)
{
	struct target_memory *m = &p->target;

	if (!p->open || p->goals.target_mbps == 0) {
		disengage(p, d);
		return;
	}
	if (p->valid) {
		learn_gain(h, p);
		double g = model_gain(h, p);
		if (g > 0) {
			double over = p->mbps - p->goals.target_mbps;
			if (!m->out_pct || m->last_target != p->goals.target_mbps)
				first_move(h, p, d, g, "new target");
			else if (over > TARGET_RESEED_FRACTION * p->goals.target_mbps)
				first_move(h, p, d, g, "far over target");
			else
				pi_move(h, p, d, g);
		}
		m->last_mbps = p->mbps;
	}
	/* Without a valid sample (or a model) the output holds. */
	if (m->out_pct && m->out_pct < d->mb_max)
		d->mb_max = m->out_pct;
}

void policy_target(const struct policy_host *host, struct policy_partition *parts, size_t count,
		   struct policy_decision *decisions)
{
	for (size_t i = 0; i < count; i++)
		target_one(host, &parts[i], &decisions[i]);
}
