/* Hardware steps and capacity arithmetic shared by the policies (internal to policies/).
 *
 * MB limits take effect in steps of host->gran_pct percent, from the hardware's floor (host->min_pct)
 * up to 100. The engine rounds every decision to those steps; the policies reason in the same steps
 * (multiples of gran_pct, and 100 itself) so that what they decide is what gets applied, and so that
 * their deadbands and hysteresis are sized in steps the hardware can actually take. What a ceiling
 * lets through is per domain (policies/domains.h). */
#ifndef MPAMD_POLICIES_STEPS_H
#define MPAMD_POLICIES_STEPS_H

#include <math.h>

#include "policies/policy.h"

#define PCT_FULL 100u
/* 25.000000001% is 25%: floating-point noise in a computed share must not cost a whole step. */
#define STEP_SLACK 1e-6

static inline unsigned policy_gran(const struct policy_host *h)
{
	return h->gran_pct ? h->gran_pct : 1;
}

static inline unsigned step_of(const struct policy_host *h, double k)
{
	double v = k * policy_gran(h);

	if (v >= PCT_FULL)
		return PCT_FULL;
	return v < policy_gran(h) ? policy_gran(h) : (unsigned)v;
}

/* The smallest step at or above pct. */
static inline unsigned step_up(const struct policy_host *h, double pct)
{
	return step_of(h, ceil(pct / policy_gran(h) - STEP_SLACK));
}

/* The largest step at or below pct (the smallest step when pct is below it). */
static inline unsigned step_down(const struct policy_host *h, double pct)
{
	if (pct >= PCT_FULL - STEP_SLACK)
		return PCT_FULL;
	return step_of(h, floor(pct / policy_gran(h) + STEP_SLACK));
}

/* The step nearest pct; a tie goes to the lower one. */
static inline unsigned step_nearest(const struct policy_host *h, double pct)
{
	unsigned lo = step_down(h, pct), hi = step_up(h, pct);

	return hi - pct < pct - lo ? hi : lo;
}

/* The lowest MB ceiling the hardware takes, as a step. */
static inline unsigned policy_floor_pct(const struct policy_host *h)
{
	return step_up(h, h->min_pct > 1 ? h->min_pct : 1);
}

static inline unsigned clamp_pct(unsigned v, unsigned lo, unsigned hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

/* Two percentages name different hardware settings: the read-back value of a limit can differ from
 * the requested one by less than a step (the hardware rounds), never by a whole step. */
static inline bool pct_differs(const struct policy_host *h, unsigned a, unsigned b)
{
	return (a > b ? a - b : b - a) >= policy_gran(h);
}

#endif
