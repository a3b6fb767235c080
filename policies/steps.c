/* The ladder of a host given none (policies/steps.h): whole percents from 1, as ladder_percent(1, 1)
 * makes it (test_policy_steps checks the two agree). */
#include "policies/steps.h"

static const struct ladder whole_percents = { .kind = LADDER_PERCENT, .count = 100, .gran = 1, .min = 1 };

const struct ladder *policy_whole_percents(void)
{
	return &whole_percents;
}
