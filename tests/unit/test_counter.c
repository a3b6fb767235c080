/* Counter arithmetic: wrap-aware deltas, rates and wrap times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/base/counter.h"
#include "tests/util/test_main.h"

static void test_delta_table(void **state)
{
	static const struct {
		uint64_t prev, cur;
		unsigned bits;
		bool overflowed;
		uint64_t want;
	} cases[] = {
		{ 10, 25, 31, false, 15 },
		{ 0x7ffffff0, 0x10, 31, false, 0x20 }, /* one wrap, seen as cur < prev */
		{ 0x7ffffff0, 0x10, 31, true, 0x20 },  /* ...and flagged: still one wrap */
		{ 0x10, 0x20, 31, true, 0x80000010 },  /* flagged with cur >= prev: a full range more */
		{ 0x10, 0x10, 31, true, 0x80000000 },  /* exactly one range */
		{ 5, 5, 44, false, 0 },
		{ (1ull << 44) - 1, 0, 44, false, 1 },
		{ (1ull << 63) - 2, 3, 63, false, 5 },
		{ 100, 200, 63, true, (1ull << 63) + 100 },
		{ UINT64_MAX - 1, 2, 64, false, 4 },		       /* 64-bit files: plain modulo */
		{ 7, 9, 64, true, 2 },				       /* no wider range to add at 64 bits */
		{ 0xffffffff80000005ull, 0x3, 31, false, 0x7ffffffe }, /* bits above the width are ignored */
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t got = counter_delta(cases[i].prev, cases[i].cur, cases[i].bits, cases[i].overflowed);
		if (got != cases[i].want)
			fail_msg("case %zu: got 0x%llx, want 0x%llx", i, (unsigned long long)got,
				 (unsigned long long)cases[i].want);
	}
}

static void test_delta_random_single_wraps(void **state)
{
	uint64_t seed = 0x5eed1234;
	const unsigned widths[] = { 31, 44, 63 };

	(void)state;
	printf("seed 0x%llx\n", (unsigned long long)seed);
	for (int i = 0; i < 100000; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		unsigned bits = widths[(seed >> 60) % 3];
		uint64_t range = 1ull << bits;
		uint64_t prev = (seed >> 1) & (range - 1);
		uint64_t bytes = (seed * 2862933555777941757ull) % range; /* under one range */
		uint64_t cur = (prev + bytes) & (range - 1);
		bool wrapped = prev + bytes >= range;
		assert_int_equal(counter_delta(prev, cur, bits, wrapped), bytes);
	}
}

static void test_rates(void **state)
{
	(void)state;
	assert_true(counter_rate_mbps(1000000, 1000000000) == 1.0);	/* 1 MB in 1 s */
	assert_true(counter_rate_mbps(200000000, 100000000) == 2000.0); /* 200 MB in 100 ms */
	assert_true(counter_rate_mbps(123, 0) == 0.0);
	/* 2^31 bytes at 10000 MB/s: 214.7 ms. */
	uint64_t ns = counter_wrap_ns(31, 0, 10000.0);
	assert_true(ns > 214000000 && ns < 215000000);
	assert_true(counter_wrap_ns(31, 4, 10000.0) > 16 * 214000000ull);
	assert_true(counter_wrap_ns(44, 0, 0.0) == UINT64_MAX);
	assert_true(counter_wrap_ns(63, 0, 1.0) == UINT64_MAX); /* centuries do not fit */
}

TEST_MAIN({
	cmocka_unit_test(test_delta_table),
	cmocka_unit_test(test_delta_random_single_wraps),
	cmocka_unit_test(test_rates),
})
