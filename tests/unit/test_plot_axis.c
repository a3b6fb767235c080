/* Axis ticks: 1-2-5 steps, ranges widened to whole steps, labels without rounding noise. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli/plot_axis.h"
#include "tests/util/test_main.h"

static void assert_close(double a, double b)
{
	if (fabs(a - b) > 1e-9 * fmax(1, fabs(b)))
		fail_msg("%.17g != %.17g", a, b);
}

static void test_nice_step(void **state)
{
	(void)state;
	assert_close(axis_nice_step(10, 10), 1);
	assert_close(axis_nice_step(10, 5), 2);
	assert_close(axis_nice_step(10, 4), 5); /* 2.5 rounds up to 5 */
	assert_close(axis_nice_step(10, 3), 5);
	assert_close(axis_nice_step(10, 2), 5);
	assert_close(axis_nice_step(60, 10), 10); /* 6 rounds up to 10 */
	assert_close(axis_nice_step(0.3, 10), 0.05);
	assert_close(axis_nice_step(20000, 6), 5000);
	assert_close(axis_nice_step(1e-6, 5), 2e-7);
	assert_close(axis_nice_step(0, 5), 0);
	assert_close(axis_nice_step(-1, 5), 0);
	assert_close(axis_nice_step(INFINITY, 5), 0);
	assert_close(axis_nice_step(NAN, 5), 0);
	assert_close(axis_nice_step(10, 0), 0);
}

static void test_ticks_cover_the_range(void **state)
{
	static const struct {
		double min, max;
		unsigned target;
		double step, lo, hi;
		unsigned count, decimals;
	} cases[] = {
		{ 0, 9400, 6, 2000, 0, 10000, 6, 0 }, { 0.05, 0.3, 10, 0.05, 0.05, 0.3, 6, 2 },
		{ 3.2, 17.9, 5, 5, 0, 20, 5, 0 },     { -12, 7, 4, 5, -15, 10, 6, 0 },
		{ 0, 100, 5, 20, 0, 100, 6, 0 },
	};
	struct axis_ticks t;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(axis_ticks(cases[i].min, cases[i].max, cases[i].target, &t), 0);
		assert_close(t.step, cases[i].step);
		assert_close(t.lo, cases[i].lo);
		assert_close(t.hi, cases[i].hi);
		assert_int_equal(t.count, cases[i].count);
		assert_int_equal(t.decimals, cases[i].decimals);
	}
	for (unsigned i = 0; i < t.count; i++) /* the last case's ticks, 0 to 100 */
		assert_close(axis_tick(&t, i), 20.0 * i);
}

static void test_empty_range_is_widened(void **state)
{
	struct axis_ticks t;

	(void)state;
	assert_int_equal(axis_ticks(0, 0, 5, &t), 0);
	assert_close(t.lo, 0);
	assert_true(t.hi > 0);
	assert_int_equal(axis_ticks(50, 50, 5, &t), 0);
	assert_true(t.lo < 50 && t.hi > 50);
	assert_int_equal(axis_ticks(-3, -3, 5, &t), 0);
	assert_true(t.lo < -3 && t.hi > -3);
}

static void test_bad_arguments(void **state)
{
	struct axis_ticks t;

	(void)state;
	assert_int_equal(axis_ticks(1, 0, 5, &t), -EINVAL);
	assert_int_equal(axis_ticks(NAN, 1, 5, &t), -EINVAL);
	assert_int_equal(axis_ticks(0, INFINITY, 5, &t), -EINVAL);
	assert_int_equal(axis_ticks(0, 1, 1, &t), -EINVAL);
	assert_int_equal(axis_ticks(0, 1, AXIS_MAX_TICKS, &t), -EINVAL);
	assert_int_equal(axis_ticks(-1e308, 1e308, 5, &t), -EINVAL); /* the range overflows */
}

/* Never more ticks than AXIS_MAX_TICKS, whatever the range. */
static void test_tick_count_bounded(void **state)
{
	struct axis_ticks t;

	(void)state;
	for (double range = 1e-9; range < 1e15; range *= 1.7) {
		for (unsigned target = 2; target < AXIS_MAX_TICKS; target += 7) {
			assert_int_equal(axis_ticks(range * 0.37, range * 1.37, target, &t), 0);
			assert_true(t.count >= 2 && t.count <= AXIS_MAX_TICKS);
			assert_true(t.lo <= range * 0.37 * (1 + 1e-9) && t.hi >= range * 1.37 * (1 - 1e-9));
		}
	}
}

static void test_labels(void **state)
{
	struct axis_ticks t;
	char buf[32];

	(void)state;
	assert_int_equal(axis_ticks(0, 0.3, 3, &t), 0);
	assert_close(t.step, 0.1);
	axis_format(&t, axis_tick(&t, 3), buf, sizeof(buf));
	assert_string_equal(buf, "0.3"); /* not 0.30000000000000004 */
	axis_format(&t, -1e-17, buf, sizeof(buf));
	assert_string_equal(buf, "0.0"); /* not -0.0 */
	assert_int_equal(axis_ticks(-1, 1, 4, &t), 0);
	axis_format(&t, -0.5, buf, sizeof(buf));
	assert_string_equal(buf, "-0.5");
	axis_format(&t, 0, buf, sizeof(buf));
	assert_string_equal(buf, "0.0");
	assert_int_equal(axis_ticks(0, 20000, 6, &t), 0);
	axis_format(&t, 15000, buf, sizeof(buf));
	assert_string_equal(buf, "15000");
}

/* 2026-12-03T10:15:42.123Z */
#define ORIGIN_MS INT64_C(1796292942123)

static void expect_label(const struct axis_ticks *t, unsigned i, const char *time, const char *date)
{
	char tb[32], db[32];

	axis_time_format(t, ORIGIN_MS + (int64_t)llround(axis_tick(t, i) * 1000), tb, db, sizeof(tb));
	assert_string_equal(tb, time);
	assert_string_equal(db, date);
}

/* Wall-clock ticks fall on whole steps of UTC, whatever second the run began at. */
static void test_time_ticks_on_the_wall_clock(void **state)
{
	struct axis_ticks t;

	(void)state;
	/* five minutes: a minute apart, from 10:15:00 */
	assert_int_equal(axis_time_ticks(0, 300, ORIGIN_MS, 7, &t), 0);
	assert_close(t.step, 60);
	assert_int_equal(t.count, 7);
	assert_int_equal(t.decimals, 0);
	expect_label(&t, 0, "10:15:00", "2026-12-03");
	expect_label(&t, 6, "10:21:00", "2026-12-03");
	assert_true(t.lo <= 0 && t.hi >= 300);
	/* five seconds of a simulated run: a second apart */
	assert_int_equal(axis_time_ticks(0.1, 5, ORIGIN_MS, 7, &t), 0);
	assert_close(t.step, 1);
	expect_label(&t, 0, "10:15:42", "2026-12-03");
	/* half a second: tenths of a second labelled */
	assert_int_equal(axis_time_ticks(0, 0.5, ORIGIN_MS, 7, &t), 0);
	assert_close(t.step, 0.1);
	assert_int_equal(t.decimals, 1);
	expect_label(&t, 1, "10:15:42.2", "2026-12-03");
	/* two days: the step is hours, the date changes at midnight */
	assert_int_equal(axis_time_ticks(0, 2 * 86400, ORIGIN_MS, 7, &t), 0);
	assert_close(t.step, 12 * 3600);
	expect_label(&t, 0, "00:00:00", "2026-12-03");
	expect_label(&t, 2, "00:00:00", "2026-12-04");
	/* a month: whole days, labelled by the date alone */
	assert_int_equal(axis_time_ticks(0, 30 * 86400, ORIGIN_MS, 7, &t), 0);
	assert_close(t.step, 5 * 86400);
	expect_label(&t, 0, "", "2026-12-03"); /* day 20790 since the epoch: a whole step of 5 days */
	expect_label(&t, 1, "", "2026-12-08");
	assert_int_equal(axis_time_ticks(NAN, 1, ORIGIN_MS, 7, &t), -EINVAL);
	assert_int_equal(axis_time_ticks(2, 1, ORIGIN_MS, 7, &t), -EINVAL);
}

TEST_MAIN({
	cmocka_unit_test(test_nice_step),
	cmocka_unit_test(test_ticks_cover_the_range),
	cmocka_unit_test(test_empty_range_is_widened),
	cmocka_unit_test(test_bad_arguments),
	cmocka_unit_test(test_tick_count_bounded),
	cmocka_unit_test(test_labels),
	cmocka_unit_test(test_time_ticks_on_the_wall_clock),
})
