/* Hardware steps shared by the policies (internal to policies/).
 *
 * A ceiling or a minimum can hold only the rungs of its domain's ladder (core/base/ladder.h): Intel's
 * 10% steps, MPAM's 2^BWA_WD bands, AMD's 1/8 GB/s units. The policies decide rungs, through these
 * functions and no rounding of their own, so that what they decide is what gets applied and their
 * dead bands and hysteresis are sized in steps the hardware can take. A host given no ladder (a
 * test's) has whole percents from 1. What a ceiling lets through is per domain (policies/domains.h). */
#ifndef MPAMD_POLICIES_STEPS_H
#define MPAMD_POLICIES_STEPS_H

#include <math.h>

#include "core/base/ladder.h"
#include "policies/policy.h"

#define PCT_FULL 100.0
/* 25.000000001% is 25%: floating-point noise in a computed share must not cost a whole step. */
#define STEP_SLACK 1e-6

const struct ladder *policy_whole_percents(void);

static inline const struct ladder *step_ladder_or_default(const struct ladder *l)
{
	return ladder_exists(l) ? l : policy_whole_percents();
}

/* The ceiling ladder of domain d (the host's on a host without domain arrays). */
static inline const struct ladder *pol_ladder(const struct policy_host *h, unsigned d)
{
	if (h->domain_count && h->domains)
		return step_ladder_or_default(h->domains[d].max_ladder);
	return step_ladder_or_default(h->max_ladder);
}

/* The minimum ladder of domain d; NULL where no minimum can be programmed. */
static inline const struct ladder *pol_min_ladder(const struct policy_host *h, unsigned d)
{
	const struct ladder *l = h->domain_count && h->domains ? h->domains[d].min_ladder : h->min_ladder;

	return ladder_exists(l) ? l : NULL;
}

/* The lowest rung at or above pct (the top rung above every one). */
static inline double step_up(const struct ladder *l, double pct)
{
	return ladder_pct(l, ladder_snap(l, pct - STEP_SLACK, LADDER_UP));
}

/* The highest rung at or below pct (the lowest rung below every one). */
static inline double step_down(const struct ladder *l, double pct)
{
	return ladder_pct(l, ladder_snap(l, pct + STEP_SLACK, LADDER_DOWN));
}

/* The rung nearest pct; a tie goes to the lower one. */
static inline double step_nearest(const struct ladder *l, double pct)
{
	return ladder_pct(l, ladder_snap(l, pct, LADDER_NEAREST));
}

/* The lowest ceiling the hardware takes. */
static inline double step_floor(const struct ladder *l)
{
	return ladder_pct(l, 0);
}

/* The rung one below (above) the rung nearest pct; the floor (top) stays where it is. */
static inline double step_below(const struct ladder *l, double pct)
{
	uint32_t r = ladder_snap(l, pct, LADDER_NEAREST);

	return ladder_pct(l, r ? r - 1 : 0);
}

static inline double step_above(const struct ladder *l, double pct)
{
	return ladder_pct(l, ladder_snap(l, pct, LADDER_NEAREST) + 1);
}

/* The width of the step at pct: what moving one rung from there changes, in percent (the step
 * above, or below at the top). */
static inline double step_width(const struct ladder *l, double pct)
{
	double here = step_nearest(l, pct), up = step_above(l, pct);

	return up > here ? up - here : here - step_below(l, pct);
}

static inline double clamp_pct(double v, double lo, double hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

/* Two percentages name different hardware settings. Equal ones name the same without a look-up (the
 * usual case on every tick: a limit in force as it was decided). */
static inline bool pct_differs(const struct ladder *l, double a, double b)
{
	return a != b && ladder_snap(l, a, LADDER_NEAREST) != ladder_snap(l, b, LADDER_NEAREST);
}

#endif
