/* The target controller's search over rungs (see policies/target.c for the plant and the rule).
 *
 * A ceiling can hold only the ladder's rungs, and what a rung lets through is known only by measuring
 * it: the search measures rungs and keeps the two that bracket the target (the highest measured at or
 * below it, the lowest above it), moving to the rung that interpolation between them, a secant or
 * the chord from the origin says lets the target through, until the bracket is two neighbouring
 * rungs. Then it chooses between them and holds. Whether a move has shown yet, the noise and the mean
 * of a rung's samples are policies/target_evidence.c's.
 *
 * - Noise is filtered: a rung is judged on the mean of at least TARGET_MIN_SAMPLES samples, and more
 *   (up to TARGET_MEAN_WINDOW) while that mean is within two standard errors of the target (a whole
 *   window within them: the rung gives the target, and the search ends there); one sample
 *   is enough when it is more than TARGET_FAR_SHARE (10%) and four standard deviations from the target
 *   (the side is certain, and the next rung is a guess anyway).
 * - A budget is a ceiling. Between the two neighbouring rungs around the target the controller takes
 *   the one at or below it, unless the one above is within TARGET_ACCEPT_OVER (5%) over the target and
 *   closer to it than the one below. When neither is within 5% it says so once, naming both. A rung at
 *   or below the target ends the search without measuring the one above when it is within
 *   TARGET_CLOSE_ENOUGH (2%) of the target (the one above could only be better by less than that), or
 *   when interpolating toward the bracket above puts the one above more than 5% over; a rung over the
 *   target by less than 2% ends it when the chord puts the rung below further under.
 * - Holding, it watches the rung's recent mean: a rise of more than TARGET_DRIFT of the target (or three
 *   standard errors) means the plant changed (demand rose into the ceiling, a neighbour left) and the
 *   search starts again from there; a single sample more than TARGET_FAR_OVER over the target starts
 *   it at once. A fall means the ceiling does not hold the partition (its own demand, or contention):
 *   raising it would change nothing now and overshoot later, so it holds and says so once. */
#include <math.h>

#include "policies/steps.h"
#include "policies/target_internal.h"

#define TARGET_ACCEPT_OVER  0.05
#define TARGET_CLOSE_ENOUGH 0.02
#define TARGET_MIN_SAMPLES  2
/* Two standard errors: a rung is misjudged by noise about once in 20. */
#define TARGET_NOISE_Z	 2.0
#define TARGET_DRIFT	 0.05
#define TARGET_FAR_OVER	 0.2
#define TARGET_FAR_SHARE 0.1
/* A move up extrapolates at most to twice the ceiling: a slope is local. */
#define TARGET_UP_TRUST 2.0
/* From above, a chord that left the rate more than 5% over twice in a row is crawling down a flat top. */
#define TARGET_CRAWL 0.05

static void move_to(struct target_memory *m, double next, double from_mbps)
{
	if (m->n > 0)
		m->prev = (struct target_point){ m->out_pct, m->mean_mbps };
	m->from_pct = m->out_pct;
	m->from_mbps = from_mbps;
	m->out_pct = next;
	m->since_move = 0;
	m->settling = true;
	m->awaiting = false;
	m->moved_flat = false;
	m->n = 0;
	m->mean_mbps = 0;
	m->said_unheld = false;
}

/* Keeps (pct, mbps) as the bracket on its side of the target; a bracket it contradicts (measured
 * before the plant changed) goes. */
static void record(struct target_memory *m, double pct, double mbps, double target)
{
	struct target_point pt = { pct, mbps };
	int side = mbps <= target ? -1 : 1;

	m->same_side = side == m->last_side ? m->same_side + 1 : 1;
	m->last_side = side;
	if (mbps <= target) {
		if (!(m->lo.pct > 0) || pct >= m->lo.pct)
			m->lo = pt;
		if (m->hi.pct > 0 && m->hi.pct <= pct)
			m->hi = (struct target_point){ 0 };
	} else {
		if (!(m->hi.pct > 0) || pct <= m->hi.pct)
			m->hi = pt;
		if (m->lo.pct > 0 && m->lo.pct >= pct)
			m->lo = (struct target_point){ 0 };
	}
}

void target_search_start(struct target_memory *m, const struct target_search *s, double next, double from_mbps)
{
	m->lo = m->hi = m->prev = (struct target_point){ 0 };
	m->last_side = 0;
	m->settled = false;
	m->said_gap = false;
	m->n = 0;
	if (m->out_pct > 0 && from_mbps > 0) {
		record(m, m->out_pct, from_mbps, s->target);
		m->prev = (struct target_point){ m->out_pct, from_mbps };
		m->last_side = 0; /* measured before the search: not a probe of it */
	}
	move_to(m, next, from_mbps);
}

static void say_move(struct target_memory *m, const struct target_search *s, struct policy_decision *d, double next,
		     const char *why)
{
	bool down = next < m->out_pct;

	policy_event(d, "%s: %.0f MB/s %s target %.0f%s: mb_max %g%% -> %g%%", down ? "throttle" : "restore",
		     m->mean_mbps, m->mean_mbps > s->target ? "over" : "under", s->target, why, m->out_pct, next);
}

/* Ends the search on `pt` (moving there if it is not the rung in force). */
static void settle_on(struct target_memory *m, const struct target_search *s, struct policy_decision *d,
		      struct target_point pt)
{
	if (pt.pct != m->out_pct) {
		say_move(m, s, d, pt.pct, ", the nearer of the two rungs around it");
		move_to(m, pt.pct, m->mean_mbps);
	}
	m->settled = true;
	m->settled_mbps = pt.mbps;
}

/* The bracket is two neighbouring rungs: the rule of the file comment. */
static void choose(struct target_memory *m, const struct target_search *s, struct policy_decision *d)
{
	double below = s->target - m->lo.mbps, over = m->hi.mbps - s->target;
	double band = TARGET_ACCEPT_OVER * s->target;
	struct target_point pick = over <= band && over < below ? m->hi : m->lo;

	if (below > band && over > band && !m->said_gap) {
		policy_event(d,
			     "hold: no rung within 5%% of target %.0f MB/s: mb_max %g%% gives %.0f MB/s, %g%% gives "
			     "%.0f MB/s; holding %g%%",
			     s->target, m->lo.pct, m->lo.mbps, m->hi.pct, m->hi.mbps, pick.pct);
		m->said_gap = true;
	}
	settle_on(m, s, d, pick);
}

/* Where the line through (a) and (b) reaches the target; 0 when it does not rise. */
static double secant_at(struct target_point a, struct target_point b, double t)
{
	double slope = (a.mbps - b.mbps) / (a.pct - b.pct);

	return a.pct != b.pct && slope > 0 ? a.pct + (t - a.mbps) / slope : 0;
}

/* Between the brackets: interpolation. When the same bracket moved twice in a row (interpolation
 * crawling along a curved plant from one side) the probe is kept within the middle half of the
 * bracket (in rungs), so that it shrinks by a quarter at least. */
static double between_brackets(const struct target_memory *m, const struct target_search *s)
{
	const struct ladder *l = s->ladder;
	uint32_t a = ladder_snap(l, m->lo.pct, LADDER_NEAREST), b = ladder_snap(l, m->hi.pct, LADDER_NEAREST);
	uint32_t margin = m->same_side >= 2 && (b - a) / 4 ? (b - a) / 4 : 1;

	return clamp_pct(step_nearest(l, secant_at(m->lo, m->hi, s->target)), ladder_pct(l, a + margin),
			 ladder_pct(l, b - margin));
}

/* One side of the target only. From below: a secant through the last two points (on a linear or
 * concave curve it lands at or below the target, and sooner than the chord), else the chord from the
 * origin, at most TARGET_UP_TRUST times the rung. From above: the chord (exact on a linear curve, at
 * or above the target on a concave one); when that left it more than TARGET_CRAWL above twice in a row
 * (the flat top of a concave curve), halfway between the chord and a secant through two points above (which lands below
 * the target on such curves), or half the rung where no secant can be told from the noise, closing in
 * from both sides. */
static double one_side(const struct target_memory *m, const struct target_search *s)
{
	double r = m->out_pct, y = m->mean_mbps, t = s->target;
	struct target_point here = { r, y };
	double chord = y > 0 ? r * t / y : r * TARGET_UP_TRUST;
	bool prev_same_side = m->prev.pct > 0 && (m->prev.mbps > t) == (y > t) &&
			      fabs(y - m->prev.mbps) > 2 * TARGET_NOISE_Z * target_mean_error(m);
	double secant = prev_same_side ? secant_at(here, m->prev, t) : 0;

	if (y < t)
		return fmin(secant > r ? secant : chord, r * TARGET_UP_TRUST);
	if (m->same_side < 2 || y < t * (1 + TARGET_CRAWL))
		return chord;
	return (fmax(secant, r / TARGET_UP_TRUST) + chord) / 2; /* no secant, or one that does not fall */
}

/* The rung to measure next: at least one rung toward the target, within the bounds. */
static double next_probe(const struct target_memory *m, const struct target_search *s)
{
	const struct ladder *l = s->ladder;
	double r = m->out_pct, y = m->mean_mbps, t = s->target;

	if (m->lo.pct > 0 && m->hi.pct > 0)
		return between_brackets(m, s);
	double next = step_nearest(l, one_side(m, s));
	if (y > t && next >= r)
		next = step_below(l, r);
	if (y <= t && next <= r)
		next = step_above(l, r);
	return clamp_pct(next, s->lo, s->hi);
}

/* Under the target here and the bracket above known: the rung above, by interpolation, would be more
 * than 5% over, so it could not be chosen and need not be measured. */
static bool above_is_too_high(const struct target_memory *m, const struct target_search *s)
{
	double r = m->out_pct, up = step_above(s->ladder, r);

	if (!(m->hi.pct > r) || up <= r)
		return false;
	double at_up = m->mean_mbps + (m->hi.mbps - m->mean_mbps) * (up - r) / (m->hi.pct - r);
	return at_up > s->target * (1 + TARGET_ACCEPT_OVER);
}

/* Over the target here by less than TARGET_CLOSE_ENOUGH, and the rung below, along the chord from the
 * origin, further under it than this one is over: the rung below could not be chosen (a rung exactly
 * at the target, measured a little high, is not left to find that out). */
static bool below_is_worse(const struct target_memory *m, const struct target_search *s)
{
	double r = m->out_pct, y = m->mean_mbps, down = step_below(s->ladder, r);

	if (y > s->target * (1 + TARGET_CLOSE_ENOUGH) || !(down < r) || !(r > 0))
		return false;
	return s->target - y * down / r > y - s->target;
}

/* The mean at the rung in force is ready: record it and go on searching or stop. */
static void judge(struct target_memory *m, const struct target_search *s, struct policy_decision *d)
{
	double y = m->mean_mbps, t = s->target, r = m->out_pct;

	record(m, r, y, t);
	if (m->lo.pct > 0 && m->hi.pct > 0 && step_above(s->ladder, m->lo.pct) >= m->hi.pct) {
		choose(m, s, d);
		return;
	}
	bool under = y <= t;
	struct target_point here = { r, y };
	if (!under && below_is_worse(m, s)) {
		settle_on(m, s, d, here);
		return;
	}
	if (under && (y >= t * (1 - TARGET_CLOSE_ENOUGH) || above_is_too_high(m, s))) {
		settle_on(m, s, d, here);
		return;
	}
	if (under && m->moved_flat) {
		policy_event(d,
			     "hold: %.0f MB/s under target %.0f at mb_max %g%%: moving it from %g%% changed nothing "
			     "(the curve is flat here, or its own demand or contention holds it)",
			     y, t, r, m->from_pct);
		m->said_unheld = true;
		settle_on(m, s, d, here);
		return;
	}
	double next = next_probe(m, s);
	if (next == r || (next > r && s->hold_up)) {
		settle_on(m, s, d, here); /* at a bound: nothing better to try */
		return;
	}
	say_move(m, s, d, next, "");
	move_to(m, next, y);
}

/* Holding: the plant may have changed (see the file comment). */
static void watch(struct target_memory *m, const struct target_search *s, struct policy_decision *d)
{
	double drift = m->recent_mbps - m->settled_mbps;
	double band =
		fmax(TARGET_DRIFT * s->target, 3 * target_sample_sigma(m, m->recent_mbps) / sqrt(TARGET_RECENT_SPAN));

	if (drift > band && m->recent_mbps > s->target) {
		target_search_start(m, s, m->out_pct, 0);
		m->settling = false;
		return;
	}
	if (drift < -band && !m->said_unheld && m->recent_mbps < s->target * (1 - TARGET_ACCEPT_OVER)) {
		policy_event(d,
			     "hold: %.0f MB/s under target %.0f at mb_max %g%%, which gave %.0f: the ceiling does not "
			     "hold it (its own demand, or contention)",
			     m->recent_mbps, s->target, m->out_pct, m->settled_mbps);
		m->said_unheld = true;
	}
}

/* A sample far over the target while holding: demand stepped up into a ceiling that did not hold it. */
static bool far_over(const struct target_memory *m, const struct target_search *s, double y)
{
	return m->settled && y > s->target * (1 + TARGET_FAR_OVER) &&
	       y > m->settled_mbps + 4 * target_sample_sigma(m, m->settled_mbps);
}

/* The configured bounds changed (a reload, a set): the rung in force is brought within them and the
 * search goes on from what it knows (the brackets are facts about the plant, not about the bounds). */
static void rebound(struct target_memory *m, const struct target_search *s)
{
	bool first = !(m->bound_hi > 0);

	m->bound_lo = s->lo;
	m->bound_hi = s->hi;
	if (first)
		return;
	m->settled = false;
	double in = clamp_pct(m->out_pct, s->lo, s->hi);
	if (in != m->out_pct)
		move_to(m, in, m->mean_mbps);
}

/* A single sample decides when it is this far from the target: noise does not put it on the wrong
 * side, and the next rung is a guess anyway. */
static bool far_from_target(const struct target_memory *m, const struct target_search *s)
{
	double off = fabs(m->mean_mbps - s->target);

	return off > TARGET_FAR_SHARE * s->target && off > 4 * target_sample_sigma(m, m->mean_mbps);
}

void target_search_sample(struct target_memory *m, const struct target_search *s, double y, struct policy_decision *d)
{
	if (m->bound_lo != s->lo || m->bound_hi != s->hi)
		rebound(m, s);
	if (m->settling && !target_move_shown(m, y))
		return;
	if (m->awaiting)
		target_late_show(m, y);
	if (far_over(m, s, y)) {
		target_search_start(m, s, m->out_pct, 0);
		m->settling = false;
		target_note_sample(m, y);
		judge(m, s, d);
		return;
	}
	target_note_sample(m, y);
	if (m->n < TARGET_MIN_SAMPLES && (m->settled || !far_from_target(m, s)))
		return;
	if (m->settled) {
		watch(m, s, d);
		return;
	}
	if (fabs(m->mean_mbps - s->target) < TARGET_NOISE_Z * target_mean_error(m)) {
		if (m->n >= TARGET_MEAN_WINDOW) /* a whole window within the noise of it: this rung gives it */
			settle_on(m, s, d, (struct target_point){ m->out_pct, m->mean_mbps });
		return; /* too close to the target to tell the side yet */
	}
	judge(m, s, d);
}
