/* One opening partition placed between class steps (policies/class_place.c): the class that holds its
 * want (within the band, on its kind's side), else a free class id, else the nearest class on its
 * kind's side, else the nearest; a protected partition never below its want while a class at or above
 * it exists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "policies/class_assign.h"

/* Four class ids of two domains: c0 holds 30/30, c1 50/50, c2 is free, c3 holds 70/70. */
static const double held4[] = { 30, 30, 50, 50, 0, 0, 70, 70 };

/* Where a partition wanting d0/d1 goes among the four class ids `held` describes. */
static int place_in(const double *held, double d0, double d1, bool protected_, const bool *known, double band)
{
	const double want[] = { d0, d1 };
	const struct class_want w = { .mb_max_at = want, .protected_ = protected_, .previous = -1 };

	return class_place(&w, 2, held ? 4 : 0, held, known, band);
}

static int place(double d0, double d1, bool protected_, const bool *known, double band)
{
	return place_in(held4, d0, d1, protected_, known, band);
}

static void test_joins_the_class_that_holds_its_want(void **state)
{
	const bool known[] = { true, true, false, true };

	(void)state;
	assert_int_equal(place(50, 50, false, known, 0), 1);
	assert_int_equal(place(70, 70, true, known, 0), 3);
	/* within the band on its side: best-effort at or below its want, protected at or above */
	assert_int_equal(place(52, 53, false, known, 5), 1);
	assert_int_equal(place(48, 49, true, known, 5), 1);
	/* within the band on the wrong side: a class of its own instead */
	assert_int_equal(place(48, 49, false, known, 5), 2);
	assert_int_equal(place(52, 53, true, known, 5), 2);
}

static void test_takes_a_free_class_for_a_new_want(void **state)
{
	const bool known[] = { true, true, false, true };
	const bool first_free[] = { false, true, false, true };

	(void)state;
	assert_int_equal(place(40, 60, false, known, 5), 2);
	assert_int_equal(place(40, 60, false, first_free, 5), 0);
}

static void test_nearest_on_its_side_when_none_is_free(void **state)
{
	const bool known[] = { true, true, true, true };

	(void)state;
	/* c2 holds 0/0 here. 62/62: nearest is c3 (70, 16 points) but a best-effort partition is held
	 * at or below its want while such a class exists: c1 (50, 24 points). */
	assert_int_equal(place(62, 62, false, known, 5), 1);
	/* A protected 55/55 is held at or above: c3, not the nearer c1. */
	assert_int_equal(place(55, 55, true, known, 5), 3);
	/* A protected 90/90: no class at or above it, so the nearest (c3). */
	assert_int_equal(place(90, 90, true, known, 5), 3);
	/* Mixed sides (above on one domain, below on the other): the nearest overall, c1. */
	const double mixed[] = { 30, 60, 50, 50, 70, 40, 90, 90 };
	assert_int_equal(place_in(mixed, 45, 56, false, known, 5), 1);
}

static void test_no_class(void **state)
{
	(void)state;
	assert_int_equal(place_in(NULL, 50, 50, false, NULL, 5), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_joins_the_class_that_holds_its_want),
		cmocka_unit_test(test_takes_a_free_class_for_a_new_want),
		cmocka_unit_test(test_nearest_on_its_side_when_none_is_free),
		cmocka_unit_test(test_no_class),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
