/* The MB curve: parsing and its checks, interpolation, the implicit end points, clamps, and the
 * text written back. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backends/sim/mb_curve.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

static struct mb_curve parsed(const char *text)
{
	struct mb_curve c;
	struct err err = { "" };

	if (mb_curve_parse(text, &c, &err) < 0)
		fail_msg("'%s': %s", text, err.text);
	return c;
}

static void expect_fraction(const struct mb_curve *c, double pct, double want)
{
	double got = mb_curve_fraction(c, pct);

	if (fabs(got - want) > 1e-12)
		fail_msg("at %g%%: %.17g, expected %.17g", pct, got, want);
}

static void test_no_points_is_linear(void **state)
{
	struct mb_curve linear = { 0 };

	(void)state;
	for (double pct = 0; pct <= 100; pct += 0.5)
		expect_fraction(&linear, pct, pct / 100);
	expect_fraction(NULL, 37, 0.37);
}

/* The concave example of the man page: between points it is the straight line through them. */
static void test_concave_interpolates_between_points(void **state)
{
	struct mb_curve c = parsed("10:0.35 30:0.75 50:0.9 100:1");

	(void)state;
	expect_fraction(&c, 10, 0.35);
	expect_fraction(&c, 30, 0.75);
	expect_fraction(&c, 20, (0.35 + 0.75) / 2);
	expect_fraction(&c, 40, 0.825);
	expect_fraction(&c, 75, 0.95);
	expect_fraction(&c, 100, 1);
	/* Before the first point, the line from 0:0. */
	expect_fraction(&c, 5, 0.175);
	expect_fraction(&c, 0, 0);
}

static void test_end_points_are_implicit_unless_given(void **state)
{
	struct mb_curve to_full = parsed("50:0.8");
	struct mb_curve capped = parsed("0:0.1 100:0.9");

	(void)state;
	/* After the last point, the line to 100:1. */
	expect_fraction(&to_full, 75, 0.9);
	expect_fraction(&to_full, 100, 1);
	expect_fraction(&to_full, 25, 0.4);
	/* A curve with its own ends keeps them: hardware that never reaches the whole capacity. */
	expect_fraction(&capped, 0, 0.1);
	expect_fraction(&capped, 50, 0.5);
	expect_fraction(&capped, 100, 0.9);
}

static void test_banded_steps(void **state)
{
	struct mb_curve c = parsed("24.9:0 25:0.25 49.9:0.25 50:0.5 74.9:0.5 75:0.75 99.9:0.75 100:1");

	(void)state;
	expect_fraction(&c, 10, 0);
	expect_fraction(&c, 25, 0.25);
	expect_fraction(&c, 30, 0.25);
	expect_fraction(&c, 49, 0.25);
	expect_fraction(&c, 60, 0.5);
	expect_fraction(&c, 99, 0.75);
	expect_fraction(&c, 100, 1);
}

static void test_out_of_range_settings_clamp(void **state)
{
	struct mb_curve c = parsed("10:0.35 30:0.75 50:0.9 100:1");

	(void)state;
	expect_fraction(&c, -5, 0);
	expect_fraction(&c, 140, 1);
	expect_fraction(&c, NAN, 0);
}

static void expect_refused(const char *text, const char *words)
{
	struct mb_curve c = parsed("50:0.5");
	struct err err = { "" };

	assert_int_equal(mb_curve_parse(text, &c, &err), -EINVAL);
	if (!contains_nocase(err.text, words))
		fail_msg("'%s': '%s' does not say '%s'", text, err.text, words);
	expect_fraction(&c, 50, 0.5); /* left as it was */
}

static void test_bad_curves_refused(void **state)
{
	(void)state;
	expect_refused("", "expected PCT:FRACTION");
	expect_refused("30:0.5 30:0.6", "point 2 '30:0.6': PCT must increase");
	expect_refused("30:0.5 20:0.6", "PCT must increase");
	expect_refused("30:0.6 40:0.5", "FRACTION must not decrease");
	expect_refused("101:1", "PCT: out of range 0..100");
	expect_refused("50:1.01", "FRACTION: out of range 0..1");
	expect_refused("50:-0.1", "FRACTION");
	expect_refused("50", "expected PCT:FRACTION");
	expect_refused("1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 11:0 12:0 13:0 14:0 15:0 16:0 17:0 18:0 19:0 20:0 "
		       "21:0 22:0 23:0 24:0 25:0 26:0 27:0 28:0 29:0 30:0 31:0 32:0 33:0",
		       "at most 32 points");
}

/* Flat parts are allowed (a band), and the written text reads back as the same curve. */
static void test_format_round_trips(void **state)
{
	const char *texts[] = { "10:0.35 30:0.75 50:0.9 100:1", "0:0.1, 33.3:0.1, 66.7:0.123456789", "100:1" };
	char buf[512];

	(void)state;
	assert_false(mb_curve_format(&(struct mb_curve){ 0 }, buf, sizeof(buf)));
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct mb_curve a = parsed(texts[i]);
		assert_true(mb_curve_format(&a, buf, sizeof(buf)));
		struct mb_curve b = parsed(buf);
		assert_int_equal(a.count, b.count);
		for (size_t p = 0; p < a.count; p++) {
			assert_true(a.points[p].pct == b.points[p].pct);
			assert_true(a.points[p].fraction == b.points[p].fraction);
		}
	}
	struct mb_curve c = parsed("10:0.35 30:0.75");
	mb_curve_format(&c, buf, sizeof(buf));
	assert_string_equal(buf, "10:0.35 30:0.75");
}

TEST_MAIN({
	cmocka_unit_test(test_no_points_is_linear),
	cmocka_unit_test(test_concave_interpolates_between_points),
	cmocka_unit_test(test_end_points_are_implicit_unless_given),
	cmocka_unit_test(test_banded_steps),
	cmocka_unit_test(test_out_of_range_settings_clamp),
	cmocka_unit_test(test_bad_curves_refused),
	cmocka_unit_test(test_format_round_trips),
})
