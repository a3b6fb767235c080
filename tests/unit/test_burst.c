/* The burst schedule: on for DUTY of every period from its phase, off for the rest, and the edges
 * the simulator splits its segments at. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backends/sim/burst.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

#define MS 1000000ull

static struct burst parsed(const char *text)
{
	struct burst b = { 0 };
	struct err err = { "" };

	if (burst_parse(text, &b, &err) < 0)
		fail_msg("'%s': %s", text, err.text);
	return b;
}

/* Summing burst_on over every millisecond of many periods gives DUTY of the time, on in one block. */
static void test_on_for_duty_of_each_period(void **state)
{
	struct burst b = parsed("100:0.3");

	(void)state;
	for (uint64_t period = 0; period < 5; period++) {
		unsigned on = 0;
		for (uint64_t ms = 0; ms < 100; ms++) {
			bool is_on = burst_on(&b, (period * 100 + ms) * MS);
			assert_int_equal(is_on, ms < 30); /* aligned to time 0: on first */
			on += is_on;
		}
		assert_int_equal(on, 30);
	}
	assert_true(burst_on(&b, 30 * MS - 1));
	assert_false(burst_on(&b, 30 * MS));
}

static void test_phase_shifts_the_on_part(void **state)
{
	struct burst b = parsed("100:0.3:80"); /* on from 80 ms to 110 ms: wraps into the next period */

	(void)state;
	assert_true(burst_on(&b, 0));
	assert_true(burst_on(&b, 9 * MS));
	assert_false(burst_on(&b, 10 * MS));
	assert_false(burst_on(&b, 79 * MS));
	assert_true(burst_on(&b, 80 * MS));
	assert_true(burst_on(&b, 109 * MS));
	assert_false(burst_on(&b, 110 * MS));
	assert_int_equal(burst_next_edge(&b, 50 * MS), 80 * MS);
	assert_int_equal(burst_next_edge(&b, 95 * MS), 110 * MS);
}

static void test_edges(void **state)
{
	struct burst b = parsed("200:0.25");

	(void)state;
	assert_int_equal(burst_next_edge(&b, 0), 50 * MS);
	assert_int_equal(burst_next_edge(&b, 49 * MS), 50 * MS);
	assert_int_equal(burst_next_edge(&b, 50 * MS), 200 * MS);
	assert_int_equal(burst_next_edge(&b, 199 * MS), 200 * MS);
	assert_int_equal(burst_next_edge(&b, 200 * MS), 250 * MS);
	/* An edge is where burst_on changes, and it does not change before. */
	for (uint64_t t = 0; t < 1000 * MS; t = burst_next_edge(&b, t)) {
		uint64_t edge = burst_next_edge(&b, t);
		assert_int_equal(burst_on(&b, edge - 1), burst_on(&b, t));
		assert_int_not_equal(burst_on(&b, edge), burst_on(&b, t));
	}
}

static void test_without_edges(void **state)
{
	struct burst none = { 0 }, never = parsed("100:0"), always = parsed("100:1");

	(void)state;
	assert_true(burst_on(&none, 12345 * MS));
	assert_false(burst_on(&never, 0));
	assert_false(burst_on(&never, 50 * MS));
	assert_true(burst_on(&always, 99 * MS));
	assert_true(burst_next_edge(&none, 0) == UINT64_MAX);
	assert_true(burst_next_edge(&never, 0) == UINT64_MAX);
	assert_true(burst_next_edge(&always, 0) == UINT64_MAX);
}

static void test_parse_and_format(void **state)
{
	struct burst b = parsed("250:0.3:40");
	char buf[64];

	(void)state;
	assert_int_equal(b.period_ms, 250);
	assert_int_equal(b.phase_ms, 40);
	assert_true(burst_format(&b, buf, sizeof(buf)));
	assert_string_equal(buf, "250:0.3:40");
	b = parsed("500:0.125");
	assert_true(burst_format(&b, buf, sizeof(buf)));
	assert_string_equal(buf, "500:0.125");
	assert_false(burst_format(&(struct burst){ 0 }, buf, sizeof(buf)));

	const char *bad[][2] = {
		{ "100", "PERIOD_MS:DUTY" }, { "0:0.5", "PERIOD_MS" },	    { "100:1.5", "DUTY" },
		{ "100:x", "DUTY" },	     { "100:0.5:100", "PHASE_MS" }, { "3600001:0.5", "PERIOD_MS" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct err err = { "" };
		struct burst kept = b;
		assert_int_equal(burst_parse(bad[i][0], &kept, &err), -EINVAL);
		if (!contains_nocase(err.text, bad[i][1]))
			fail_msg("'%s': '%s' does not name %s", bad[i][0], err.text, bad[i][1]);
		assert_int_equal(kept.period_ms, 500);
	}
}

TEST_MAIN({
	cmocka_unit_test(test_on_for_duty_of_each_period),
	cmocka_unit_test(test_phase_shifts_the_on_part),
	cmocka_unit_test(test_edges),
	cmocka_unit_test(test_without_edges),
	cmocka_unit_test(test_parse_and_format),
})
