/* Learning a domain's capacity (core/engine/capacity_learner.c): the highest total is only a lower
 * bound until the domain shows saturation, by a shift of bandwidth at the peak or by a guarantee short
 * beside best-effort traffic there for a few ticks after the warm-up. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/engine/capacity_learner.h"

static bool feed(struct capacity_learner *l, unsigned ticks, double guaranteed, double best_effort, bool short_now)
{
	bool first = false;

	for (unsigned i = 0; i < ticks; i++)
		first |= capacity_learn(l, &(struct capacity_tick){ .valid = true,
								    .total_mbps = guaranteed + best_effort,
								    .guarantee_mbps = guaranteed,
								    .best_effort_mbps = best_effort,
								    .guarantee_short = short_now });
	return first;
}

/* A host below capacity, its guarantee met: the peak is a lower bound for ever. */
static void test_the_peak_alone_is_a_lower_bound(void **state)
{
	struct capacity_learner l = { 0 };

	(void)state;
	feed(&l, 200, 8000, 5000, false);
	assert_false(capacity_established(&l));
	assert_true(l.peak_mbps > 12999 && l.peak_mbps < 13001);
}

/* A neighbour starts: the guaranteed partition loses what it gains at the new peak. */
static void test_a_shift_at_the_peak_is_saturation(void **state)
{
	struct capacity_learner l = { 0 };

	(void)state;
	feed(&l, 5, 8000, 0, false);
	assert_true(feed(&l, 1, 5700, 14300, true));
	assert_int_equal(l.evidence, CAPACITY_SHIFT);
	assert_true(l.evidence_mbps > 19999 && l.evidence_mbps < 20001);
}

/* Both moving the same way is more demand, not a full domain. */
static void test_both_rising_is_no_shift(void **state)
{
	struct capacity_learner l = { 0 };

	(void)state;
	feed(&l, 5, 4000, 4000, false);
	feed(&l, 1, 6000, 9000, false);
	assert_false(capacity_established(&l));
}

/* Squeezed from the first tick: established after the warm-up and 3 contended ticks, not before. */
static void test_contention_after_the_warm_up(void **state)
{
	struct capacity_learner l = { 0 };

	(void)state;
	assert_false(feed(&l, 11, 5700, 14300, true));
	assert_false(capacity_established(&l));
	assert_true(feed(&l, 1, 5700, 14300, true));
	assert_int_equal(l.evidence, CAPACITY_CONTENDED);
}

/* An invalid tick breaks the streak; no best-effort traffic is no contention. */
static void test_streaks_need_valid_ticks_and_a_neighbour(void **state)
{
	struct capacity_learner l = { 0 };

	(void)state;
	feed(&l, 11, 5700, 14300, true);
	capacity_learn(&l, &(struct capacity_tick){ .valid = false });
	feed(&l, 2, 5700, 14300, true);
	assert_false(capacity_established(&l));
	struct capacity_learner alone = { 0 };
	feed(&alone, 30, 5700, 0, true);
	assert_false(capacity_established(&alone));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_peak_alone_is_a_lower_bound),
		cmocka_unit_test(test_a_shift_at_the_peak_is_saturation),
		cmocka_unit_test(test_both_rising_is_no_shift),
		cmocka_unit_test(test_contention_after_the_warm_up),
		cmocka_unit_test(test_streaks_need_valid_ticks_and_a_neighbour),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
