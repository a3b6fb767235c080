/* target: holds a partition's target_mbps by moving its MB ceiling (mb_max).
 *
 * The plant. While the ceiling binds, the partition's bandwidth is y = f(u) for a ceiling of u
 * percent; below the ceiling the partition's own demand (or contention with others) sets y and the
 * ceiling does nothing. f is unknown and need not be linear: Intel's MBA is concave and depends on
 * the workload (10% may let 35% of capacity through, 50% already 90%), MPAM's MBW_MAX is banded (a
 * percentage is rounded down to one of 2^BWA_WD levels). The controller assumes only that f rises
 * with u, passes near the origin, and lies on or above the line from the origin to the host's
 * capacity at 100% (true of linear and concave curves, and of bands rounded down from such a line
 * within a band). A ceiling decided at tick t shows in the measurement of tick t+1.
 *
 * 1. Two gains. The average gain g = y / u (a chord from the origin) is learned from every sample in
 *    which the ceiling binds (y / u close to the model; it starts as capacity / 100). The local gain
 *    s = dy / du is the slope between the last two settings, each measured as the mean of its samples
 *    (the secant). s is what a move of the ceiling changes now; on a concave curve it is well below g
 *    near the top and a global gain would make the PI slow there (or unstable where s > g).
 *    Bounds: s lies within [g / TARGET_LOCAL_MIN_DIV, g * TARGET_LOCAL_MAX_MULT] of the chord at the
 *    current point; a secant that is not positive, or whose two means differ by less than the noise,
 *    teaches nothing (the partition was not held by its ceiling, or the move was lost in noise) and
 *    the last one stays; with none learned, s = g (the safe default: on a concave curve g >= s, so
 *    moves are too small rather than too large).
 * 2. First move. On a new target, or when the partition is far above its target (a step in demand,
 *    or a first move that landed high on a concave curve), the controller jumps to the lowest step the
 *    average gain says lets the target through: u = step_up(T / g). MBW_MAX rounds a percentage down to
 *    its band, so rounding up is what lets T through. Going down a concave curve this lands at or above
 *    the target, each jump with the chord of the point it came from, so it converges from above.
 * 3. PI correction on the local gain. Then u = I + KP * e / s with I += KI * e / s and e = T - y,
 *    rounded to the nearest step. Anti-windup: the integrator is clamped to [lower bound, ceiling],
 *    where the lower bound is the configured mb_min and the hardware floor, and the ceiling is the
 *    setting the capacity line gives for the target (an upper bound of what a concave or linear
 *    plant needs), bounded by the configured mb_max: a partition that uses less than its target (idle,
 *    or held by others) gains nothing from a higher ceiling, and a wound-up ceiling would let the next
 *    burst overshoot.
 * 4. Dead band, matched to the step and the noise. The PI works on the mean of the samples taken since
 *    the output last changed (up to TARGET_MEAN_WINDOW). It holds while the error is within half of
 *    what one hardware step changes here (s * gran_pct / 2: no step could do better), or within
 *    TARGET_NOISE_Z times the noise of that mean (the samples' own spread, learned while holding, over
 *    the square root of their number; at most TARGET_NOISE_BAND_MAX of the target, so the band never
 *    hides a 5% error).
 * 5. Bands: settling where no step hits the target. Undoing the last one-step move needs an error of
 *    one whole local step over at least TARGET_REVERSAL_SAMPLES samples. When the target lies between
 *    two adjacent levels the controller therefore stays on the first of them it reaches that is within
 *    half a step, or, from the other side, on the level it stepped to: the error there is at most one
 *    step minus the error it left, never a whole step, so it does not go back. It moves again only
 *    when the target, or the partition's rate at that level, changes by more than a step.
 * 6. Escalation first. When the partition's CPU quota is lowered (escalation) and the ceiling is at its
 *    lower bound, the controller does not raise it: the escalation is unwound first.
 * 7. Domains. The target is the partition's total, held by one setting on the domains it uses: those
 *    on which it was seen with at least TARGET_DOMAIN_SHARE of its traffic since the target was set
 *    (all of them until it has been seen at all). The plant is then the sum over those domains, and
 *    the capacity line is theirs together; the others keep their configured ceiling (a VM pinned to
 *    one socket is not throttled on the other). The bounds are the tightest configured on the domains
 *    it uses. */
#include "policies/domains.h"
#include "policies/policy.h"
#include "policies/steps.h"

/* With y = s * u locally and a one-tick delay, an integral gain of 1 and an exact slope reach the
 * target in one tick; 0.8 leaves margin for a slope off by up to a factor of 2 (the loop is stable
 * while KI * actual/model slope stays under 2). */
#define TARGET_KI 0.8
/* For this plant, proportional action adds a second pole at -KP (an alternating mode); a little of
 * it (0.1) shortens the correction after a move without visible ringing. */
#define TARGET_KP 0.1
/* Within half a step the step in force is the nearest one: no move can reduce the error. */
#define TARGET_DEADBAND_STEPS 0.5
/* Undoing a one-step move needs an error of one whole step (see 5 above). */
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
/* The local slope of a concave curve falls to a tenth of its chord near the top (MBA: 50% of the
 * setting already gives 90% of the bandwidth); a secant below that is noise or a partition its
 * ceiling did not hold. Bands can make a secant between neighbouring settings twice the chord. */
#define TARGET_LOCAL_MIN_DIV  10.0
#define TARGET_LOCAL_MAX_MULT 2.0
/* A PI move at most halves or doubles the setting: the slope was measured between two settings, and
 * extrapolating it far beyond them (down from the flat top of a concave curve, say) would leave the
 * segment it describes. */
#define TARGET_TRUST_FACTOR 2.0
/* A secant needs its two means apart by more than twice the noise of one sample. */
#define TARGET_SECANT_NOISE 2.0
/* Two standard errors of the mean: a hold is broken by noise about once in 20 tests. The mean
 * absolute deviation times 1.25 estimates the standard deviation of normal noise. */
#define TARGET_NOISE_Z	      2.0
#define TARGET_MAD_TO_SIGMA   1.25
#define TARGET_NOISE_BAND_MAX 0.03
/* The noise estimate follows the last 16 or so deviations. */
#define TARGET_NOISE_WEIGHT 0.0625
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

	return p->target.domains & all ? p->target.domains & all : all;
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
			p->target.domains |= UINT64_C(1) << d;
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
	if (p->target.mbps_per_pct > 0)
		return p->target.mbps_per_pct;
	if (h->capacity_mbps > 0)
		return h->capacity_mbps / PCT_FULL;
	double u = in_force(h, p);
	return u > 0 ? p->mbps / u : 0; /* nothing better: a lower bound of the gain */
}

/* The lower of the learned average gain and the capacity line's: the line from the origin to the
 * capacity is the lowest average gain a linear or concave plant has, so the setting it gives is the
 * most any target can need there (the anti-windup ceiling); the learned gain can be lower still when
 * the capacity figure is (a learned capacity, or measurements that read low). */
static double ceiling_gain(const struct policy_host *h, const struct policy_partition *p)
{
	double g = model_gain(h, p);

	return h->capacity_mbps > 0 && h->capacity_mbps / PCT_FULL < g ? h->capacity_mbps / PCT_FULL : g;
}

static void learn_gain(const struct policy_host *h, struct policy_partition *p)
{
	double u = in_force(h, p);

	if (!(u > 0) || !(p->mbps > 0))
		return;
	double sample = p->mbps / u;
	double model = model_gain(h, p);
	if (model <= 0 || sample >= TARGET_BINDING_FRACTION * model)
		p->target.mbps_per_pct = sample;
}

static double clamp_d(double v, double lo, double hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

/* The secant between the setting before the last change and the one in force (see 1 above). */
static void learn_local_gain(struct target_memory *m)
{
	if (!(m->prev_pct > 0) || m->prev_pct == m->out_pct || m->hold == 0 || !(m->mean_mbps > 0) ||
	    !(m->prev_mbps > 0))
		return;
	double dy = m->mean_mbps - m->prev_mbps, du = m->out_pct - m->prev_pct;
	double slope = dy / du, chord = m->mean_mbps / m->out_pct;
	if (!(slope > 0) || fabs(dy) <= TARGET_SECANT_NOISE * m->noise_mbps)
		return;
	m->local_gain = clamp_d(slope, chord / TARGET_LOCAL_MIN_DIV, chord * TARGET_LOCAL_MAX_MULT);
}

static double local_gain(const struct target_memory *m, double g)
{
	return m->local_gain > 0 ? m->local_gain : g;
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
	double exact = p->goals.target_mbps / g, pct = exact - TARGET_MODEL_SLACK_STEPS * step_width(l, exact);

	return clamp_pct(step_up(l, pct), lower_bound(h, p), upper_bound(h, p));
}

/* The operating point being left becomes the secant's other end, if it was measured at all. */
static void set_output(struct target_memory *m, double next, bool one_step)
{
	if (m->hold > 0 && m->out_pct > 0 && m->mean_mbps > 0) {
		m->prev_pct = m->out_pct;
		m->prev_mbps = m->mean_mbps;
	}
	m->last_step = one_step ? (next > m->out_pct ? 1 : -1) : 0;
	m->out_pct = next;
	m->hold = 0;
	m->mean_mbps = 0;
}

static void note_sample(struct target_memory *m, double mbps);

static void first_move(const struct policy_host *h, struct policy_partition *p, struct policy_decision *d, double g,
		       const char *why)
{
	struct target_memory *m = &p->target;
	double from = m->out_pct > 0 ? m->out_pct : in_force(h, p);
	double next = model_setting(h, p, g);

	m->integral = next;
	m->last_target = p->goals.target_mbps;
	if (m->out_pct > 0) /* measured at the setting it leaves: the secant's start point */
		note_sample(m, p->mbps);
	m->local_gain = 0; /* far from here: the slope must be learned again */
	set_output(m, next, false);
	if (next != from)
		policy_event(d, "%s: %s %u MB/s at %.0f MB/s per %%: mb_max %g%% -> %g%%",
			     next < from ? "throttle" : "restore", why, p->goals.target_mbps, g, from, next);
}

static bool is_one_step(const struct policy_host *h, double a, double b)
{
	const struct ladder *l = target_ladder(h);
	uint32_t ra = ladder_snap(l, a, LADDER_NEAREST), rb = ladder_snap(l, b, LADDER_NEAREST);

	return (ra > rb ? ra - rb : rb - ra) <= 1;
}

/* Adds this tick's sample to the mean at the setting in force, and its deviation to the noise. */
static void note_sample(struct target_memory *m, double mbps)
{
	if (m->hold > 0) {
		double dev = fabs(mbps - m->mean_mbps);
		m->noise_mbps += TARGET_NOISE_WEIGHT * (dev - m->noise_mbps); /* from 0: no band before evidence */
	}
	m->hold++;
	m->mean_mbps += (mbps - m->mean_mbps) / (m->hold < TARGET_MEAN_WINDOW ? m->hold : TARGET_MEAN_WINDOW);
}

/* Half of what one step changes here, or the noise of the mean, whichever is wider (see 4 above). */
static double dead_band(const struct policy_host *h, const struct policy_partition *p, double s)
{
	const struct target_memory *m = &p->target;
	unsigned n = m->hold < TARGET_MEAN_WINDOW ? m->hold : TARGET_MEAN_WINDOW;
	double noise = TARGET_NOISE_Z * TARGET_MAD_TO_SIGMA * m->noise_mbps / sqrt(n ? n : 1);
	double step = TARGET_DEADBAND_STEPS * s * step_width(target_ladder(h), m->out_pct);

	noise = fmin(noise, TARGET_NOISE_BAND_MAX * p->goals.target_mbps);
	return step > noise ? step : noise;
}

static void pi_move(const struct policy_host *h, struct policy_partition *p, struct policy_decision *d, double g)
{
	struct target_memory *m = &p->target;
	double lo = lower_bound(h, p), ceiling = model_setting(h, p, ceiling_gain(h, p));

	note_sample(m, p->mbps);
	learn_local_gain(m);
	const struct ladder *l = target_ladder(h);
	double s = local_gain(m, g), step_mbps = s * step_width(l, m->out_pct);
	double e = (double)p->goals.target_mbps - m->mean_mbps;
	if (fabs(e) <= dead_band(h, p, s))
		return;
	/* The trust region: a slope is local, so one move at most halves or doubles the setting. */
	lo = fmax(lo, step_up(l, m->out_pct / TARGET_TRUST_FACTOR));
	ceiling = fmax(lo, fmin(ceiling, step_down(l, m->out_pct * TARGET_TRUST_FACTOR)));
	m->integral = clamp_d(m->integral + TARGET_KI * e / s, lo, ceiling);
	double next = clamp_pct(step_nearest(l, m->integral + TARGET_KP * e / s), lo, ceiling);
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
	policy_event(d, "%s: %.0f MB/s %s target %u: mb_max %g%% -> %g%%", dir < 0 ? "throttle" : "restore",
		     m->mean_mbps, dir < 0 ? "over" : "under", p->goals.target_mbps, m->out_pct, next);
	set_output(m, next, one_step);
}

static void disengage(const struct policy_host *h, struct policy_partition *p, struct policy_decision *d)
{
	double to = dec_max_of(d, 0);

	for (unsigned dom = 1; dom < pol_domains(h); dom++)
		to = dec_max_of(d, dom) > to ? dec_max_of(d, dom) : to;
	if (p->target.out_pct > 0 && p->open && p->target.out_pct != to)
		policy_event(d, "restore: no target_mbps any more: mb_max %g%% -> %g%%", p->target.out_pct, to);
	p->target = (struct target_memory){ 0 };
}

/* The controller's setting on the domains it uses. */
static void hold_output(const struct policy_host *h, const struct policy_partition *p, struct policy_decision *d)
{
	uint64_t used = domains_used(h, p);

	for (unsigned dom = 0; dom < pol_domains(h); dom++)
		if (uses(used, dom) && p->target.out_pct < *dec_max(d, dom))
			*dec_max(d, dom) = p->target.out_pct;
}

static void target_one(const struct policy_host *host, struct policy_partition *p, struct policy_decision *d)
{
	struct target_memory *m = &p->target;

	if (!p->open || p->goals.target_mbps == 0) {
		disengage(host, p, d);
		return;
	}
	if (m->last_target != p->goals.target_mbps)
		m->domains = 0; /* a new target: where it runs is learned again */
	if (p->valid)
		note_domains(host, p);
	struct policy_host view = view_of(host, p);
	const struct policy_host *h = &view;
	if (p->valid) {
		learn_gain(h, p);
		double g = model_gain(h, p);
		if (g > 0) {
			double over = p->mbps - p->goals.target_mbps;
			if (!(m->out_pct > 0) || m->last_target != p->goals.target_mbps)
				first_move(h, p, d, g, "new target");
			else if (over > TARGET_RESEED_FRACTION * p->goals.target_mbps)
				first_move(h, p, d, g, "far over target");
			else
				pi_move(h, p, d, g);
		}
		m->last_mbps = p->mbps;
	}
	/* Without a valid sample (or a model) the output holds. */
	if (m->out_pct > 0)
		hold_output(h, p, d);
}

void policy_target(const struct policy_host *host, struct policy_partition *parts, size_t count,
		   struct policy_decision *decisions)
{
	policy_domains_prepare(host, parts, count);
	for (size_t i = 0; i < count; i++)
		target_one(host, &parts[i], &decisions[i]);
}
