/* One opening partition placed between two class steps (class_assign.h has the rule): a linear look
 * over the class ids, so that opening n partitions costs O(n x classes) and moves nobody. */
#include <math.h>

#include "policies/class_assign.h"

/* |held - want| summed over the domains, in percentage points: class_assign's deviation. */
static double deviation(const double *want, const double *held, unsigned domains)
{
	double sum = 0;

	for (unsigned d = 0; d < domains; d++)
		sum += fabs(held[d] - want[d]);
	return sum;
}

/* The known class of least deviation among those `fits` accepts (a tie goes to the lowest id), or -1. */
static int least_deviation(const struct class_want *want, unsigned domains, unsigned classes, const double *held,
			   const bool *known, double band,
			   bool (*fits)(const struct class_want *, const double *, unsigned, double))
{
	int best = -1;
	double best_cost = INFINITY;

	for (unsigned c = 0; c < classes; c++) {
		const double *at = &held[(size_t)c * domains];
		if (!known[c] || !fits(want, at, domains, band))
			continue;
		double cost = deviation(want->mb_max_at, at, domains);
		if (cost < best_cost) {
			best = (int)c;
			best_cost = cost;
		}
	}
	return best;
}

static bool holds_its_want(const struct class_want *want, const double *at, unsigned domains, double band)
{
	return class_within_band(want->mb_max_at, at, domains, want->protected_, band);
}

/* On the side its kind allows, however far. */
static bool on_its_side(const struct class_want *want, const double *at, unsigned domains, double band)
{
	(void)band;
	return class_within_band(want->mb_max_at, at, domains, want->protected_, INFINITY);
}

static bool any(const struct class_want *want, const double *at, unsigned domains, double band)
{
	(void)want, (void)at, (void)domains, (void)band;
	return true;
}

int class_place(const struct class_want *want, unsigned domains, unsigned classes, const double *held,
		const bool *known, double band)
{
	int c = least_deviation(want, domains, classes, held, known, band, holds_its_want);

	for (unsigned k = 0; c < 0 && k < classes; k++)
		if (!known[k])
			c = (int)k;
	if (c < 0)
		c = least_deviation(want, domains, classes, held, known, band, on_its_side);
	if (c < 0)
		c = least_deviation(want, domains, classes, held, known, band, any);
	return c;
}
