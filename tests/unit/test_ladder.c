/* Ladders (core/base/ladder.c): the settings each kind of bandwidth control holds, Linux's MPAM
 * conversions against the kernel's own output (tests/fixtures/kernel-golden), and snapping. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/base/ladder.h"
#include "tests/util/test_main.h"

#define GOLDEN	 MPAMD_SOURCE_DIR "/tests/fixtures/kernel-golden/mpam-percent-7.2.13.txt"
#define WD_COUNT 16u

/* ---- the kernel's own table ---- */

static void check_golden_line(const char *line, unsigned *grans, unsigned *p2ms)
{
	unsigned wd, pc, val, back, gran, min;

	if (sscanf(line, "p2m wd=%u pc=%u val=0x%x back=%u", &wd, &pc, &val, &back) == 4) {
		uint16_t got = ladder_kernel_percent_to_mbw_max(pc, wd);
		if (got != val)
			fail_msg("wd %u pc %u: field 0x%04x, the kernel's 0x%04x", wd, pc, got, val);
		if (ladder_kernel_mbw_max_to_percent((uint16_t)val, wd) != back)
			fail_msg("wd %u field 0x%04x: shown %u, the kernel's %u", wd, val,
				 ladder_kernel_mbw_max_to_percent((uint16_t)val, wd), back);
		(*p2ms)++;
	} else if (sscanf(line, "gran wd=%u gran=%u min=%u", &wd, &gran, &min) == 3) {
		assert_int_equal(ladder_kernel_mpam_gran(wd), gran);
		assert_int_equal(ladder_kernel_mpam_min(wd), min);
		(*grans)++;
	} else {
		fail_msg("unexpected line in the golden table: %s", line);
	}
}

static void test_kernel_conversions_equal_the_kernels_table(void **state)
{
	FILE *f = fopen(GOLDEN, "r");
	char line[256];
	unsigned grans = 0, p2ms = 0;

	(void)state;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		check_golden_line(line, &grans, &p2ms);
	fclose(f);
	/* Every BWA_WD 1..16, every percent 0..100: a truncated table must not pass. */
	assert_int_equal(grans, WD_COUNT);
	assert_int_equal(p2ms, WD_COUNT * 101);
}

/* ---- resctrl on MPAM ---- */

/* What the kernel does with a percent written to the schemata: the field it programs. */
static uint16_t kernel_field(unsigned wd, uint32_t pct)
{
	uint32_t gran = ladder_kernel_mpam_gran(wd);

	return ladder_kernel_percent_to_mbw_max((pct + gran - 1) / gran * gran, wd);
}

static void check_resctrl_mpam_ladder(unsigned wd)
{
	struct ladder l;

	assert_int_equal(ladder_resctrl_mpam(wd, &l), 0);
	assert_true(l.count >= 2);
	for (uint32_t r = 0; r < l.count; r++) {
		uint16_t field = kernel_field(wd, ladder_value(&l, r));
		double top = (double)((field >> (16 - wd)) + 1) * 100.0 / (double)(1u << wd);
		assert_true(ladder_pct(&l, r) == top);
		assert_int_equal(ladder_shown(&l, r), ladder_kernel_mbw_max_to_percent(field, wd));
		if (r)
			assert_true(ladder_pct(&l, r) > ladder_pct(&l, r - 1));
		uint32_t back;
		assert_int_equal(ladder_of_shown(&l, ladder_shown(&l, r), &back), 0);
		assert_int_equal(back, r);
	}
	/* The top rung is the whole bandwidth, reached without the wrapping values. */
	assert_true(ladder_pct(&l, ladder_top(&l)) == 100.0);
}

static void test_resctrl_mpam_rungs_are_what_the_kernel_programs(void **state)
{
	(void)state;
	for (unsigned wd = 1; wd <= WD_COUNT; wd++)
		check_resctrl_mpam_ladder(wd);
}

static void test_resctrl_mpam_34_at_wd7_is_34_375(void **state)
{
	struct ladder l;

	(void)state;
	assert_int_equal(ladder_resctrl_mpam(7, &l), 0);
	uint32_t r = ladder_snap(&l, 34, LADDER_NEAREST);
	assert_int_equal(ladder_value(&l, r), 34);
	assert_true(ladder_pct(&l, r) == 34.375);
	assert_int_equal(ladder_shown(&l, r), 34);
}

static void test_resctrl_mpam_wd4_never_writes_a_wrapping_percent(void **state)
{
	struct ladder l;

	(void)state;
	/* bandwidth_gran 7: the kernel rounds 99 and 100 up to 105, whose band wraps the u16 field to 0
	 * (6.25%). The top band must be written as a percent that does not wrap. */
	assert_int_equal(kernel_field(4, 100), 0);
	assert_int_equal(ladder_resctrl_mpam(4, &l), 0);
	/* Percents written in 7% steps reach 14 of the 16 bands: 35% lands on band 5 (37.5%) past
	 * band 4, 91% on band 14 past band 13. */
	assert_int_equal(l.count, 14);
	assert_true(ladder_pct(&l, 4) == 37.5);
	for (uint32_t r = 0; r < l.count; r++)
		assert_true(ladder_value(&l, r) < 99);
	assert_int_equal(kernel_field(4, ladder_value(&l, ladder_top(&l))), 0xf000);
}

/* ---- Intel's percent steps ---- */

static void test_intel_steps(void **state)
{
	struct ladder l;
	uint32_t r;

	(void)state;
	assert_int_equal(ladder_percent(10, 10, &l), 0);
	assert_int_equal(l.count, 10);
	assert_true(ladder_pct(&l, 0) == 10 && ladder_pct(&l, 9) == 100);
	assert_int_equal(ladder_value(&l, ladder_snap(&l, 25, LADDER_UP)), 30); /* as the kernel rounds */
	assert_int_equal(ladder_value(&l, ladder_snap(&l, 25, LADDER_DOWN)), 20);
	assert_int_equal(ladder_value(&l, ladder_snap(&l, 25, LADDER_NEAREST)), 20); /* a tie goes down */
	assert_int_equal(ladder_value(&l, ladder_snap(&l, 26, LADDER_NEAREST)), 30);
	assert_int_equal(ladder_value(&l, ladder_snap(&l, 99, LADDER_NEAREST)), 100);
	assert_int_equal(ladder_value(&l, ladder_snap(&l, 5, LADDER_DOWN)), 10); /* the floor */
	assert_int_equal(ladder_value(&l, ladder_snap(&l, 150, LADDER_UP)), 100);
	assert_int_equal(ladder_of_shown(&l, 30, &r), 0);
	assert_int_equal(r, 2);
	assert_int_equal(ladder_of_shown(&l, 35, &r), -ERANGE);
	assert_int_equal(r, 2);
}

static void test_percent_gran_not_dividing_100(void **state)
{
	struct ladder l;

	(void)state;
	assert_int_equal(ladder_percent(15, 15, &l), 0);
	/* 15, 30 ... 90, and 100 written for the top, which the kernel stores as 105. */
	assert_int_equal(l.count, 7);
	assert_int_equal(ladder_value(&l, 6), 100);
	assert_int_equal(ladder_shown(&l, 6), 105);
	assert_true(ladder_pct(&l, 6) == 100);
}

/* ---- MPAM over MMIO ---- */

static void test_mpam_max_fields(void **state)
{
	struct ladder l;
	uint32_t r;

	(void)state;
	assert_int_equal(ladder_mpam_max(8, &l), 0);
	assert_int_equal(l.count, 256);
	assert_true(ladder_pct(&l, 0) == 100.0 / 256);
	assert_true(ladder_pct(&l, 255) == 100);
	assert_int_equal(ladder_value(&l, 255), 0xff00);
	/* 30%: band tops 76/256 = 29.6875% and 77/256 = 30.078%; the nearer is field 76. */
	r = ladder_snap(&l, 30, LADDER_NEAREST);
	assert_int_equal(r, 76);
	assert_int_equal(ladder_snap(&l, 30, LADDER_DOWN), 75);
	assert_int_equal(ladder_of_shown(&l, 0x4c00, &r), 0);
	assert_int_equal(r, 76);
	assert_int_equal(ladder_of_shown(&l, 0x4c01, &r), -ERANGE); /* bits below BWA_WD */
	assert_int_equal(r, 76);
	assert_int_equal(ladder_mpam_max(16, &l), 0);
	assert_int_equal(l.count, 65536);
	assert_int_equal(ladder_value(&l, 65535), 0xffff);
}

static void test_mpam_min_is_the_bottom_of_a_band(void **state)
{
	struct ladder l;

	(void)state;
	assert_int_equal(ladder_mpam_min(4, &l), 0);
	assert_true(ladder_pct(&l, 0) == 0);
	assert_true(ladder_pct(&l, 15) == 93.75);
	/* A minimum is never short: 30% needs the band starting at 31.25%. */
	assert_true(ladder_pct(&l, ladder_snap(&l, 30, LADDER_UP)) == 31.25);
}

/* ---- AMD's absolute units ---- */

static void test_amd_units(void **state)
{
	struct ladder l;
	double pct;

	(void)state;
	assert_int_equal(ladder_units(0, 2048, 125, &l), 0);
	assert_int_equal(l.count, 2049);
	assert_true(ladder_absolute(&l));
	assert_int_equal(ladder_pct_of_mbps(&l, 6000, 0, &pct), 0); /* no capacity needed */
	uint32_t r = ladder_snap(&l, pct, LADDER_NEAREST);
	assert_int_equal(ladder_value(&l, r), 48);
	assert_true(ladder_mbps(&l, r, 0) == 6000);
	/* 50% of the hardware's maximum is 1024 units: 128000 MB/s, whatever the domain can use. */
	assert_true(ladder_mbps(&l, ladder_snap(&l, 50, LADDER_NEAREST), 40000) == 128000);
}

static void test_relative_mbps_needs_a_capacity(void **state)
{
	struct ladder l;
	double pct = -1;

	(void)state;
	assert_int_equal(ladder_mpam_max(8, &l), 0);
	assert_int_equal(ladder_pct_of_mbps(&l, 6000, 0, &pct), -ENODATA);
	assert_true(pct == -1);
	assert_true(ladder_mbps(&l, 255, 0) == 0);
	assert_int_equal(ladder_pct_of_mbps(&l, 6000, 20000, &pct), 0);
	assert_true(pct == 30);
}

static void test_refuses_parameters_no_hardware_has(void **state)
{
	struct ladder l;

	(void)state;
	assert_int_equal(ladder_percent(0, 10, &l), -EINVAL);
	assert_int_equal(l.kind, LADDER_NONE);
	assert_int_equal(l.count, 0);
	assert_int_equal(ladder_percent(10, 101, &l), -EINVAL);
	assert_int_equal(ladder_mpam_max(0, &l), -EINVAL);
	assert_int_equal(ladder_mpam_min(17, &l), -EINVAL);
	assert_int_equal(ladder_resctrl_mpam(17, &l), -EINVAL);
	assert_int_equal(ladder_units(10, 5, 125, &l), -EINVAL);
	assert_int_equal(ladder_units(0, 2048, 0, &l), -EINVAL);
	assert_int_equal(ladder_units(0, 2048, NAN, &l), -EINVAL);
}

/* ---- snapping on every kind, random requests ---- */

static void check_snap(const struct ladder *l, double pct)
{
	uint32_t down = ladder_snap(l, pct, LADDER_DOWN), up = ladder_snap(l, pct, LADDER_UP);
	uint32_t nearest = ladder_snap(l, pct, LADDER_NEAREST);

	assert_true(ladder_pct(l, down) <= pct || down == 0);
	assert_true(down == ladder_top(l) || ladder_pct(l, down + 1) > pct);
	assert_true(ladder_pct(l, up) >= pct || up == ladder_top(l));
	assert_true(up == 0 || ladder_pct(l, up - 1) < pct);
	assert_true(nearest == down || nearest == up);
	assert_true(fabs(ladder_pct(l, nearest) - pct) <= fabs(ladder_pct(l, down) - pct));
	assert_true(fabs(ladder_pct(l, nearest) - pct) <= fabs(ladder_pct(l, up) - pct));
}

/* Random requests, and requests exactly on a rung (where "at or below" must take that rung), on every
 * kind: the snap guesses its rung by interpolation, which must never change its answer. */
static void test_snap_random(void **state)
{
	uint64_t seed = 0x1add3e5;
	struct ladder ladders[9];
	const size_t n = sizeof(ladders) / sizeof(ladders[0]);

	(void)state;
	printf("seed 0x%llx\n", (unsigned long long)seed);
	assert_int_equal(ladder_percent(10, 10, &ladders[0]), 0);
	assert_int_equal(ladder_mpam_max(4, &ladders[1]), 0);
	assert_int_equal(ladder_mpam_max(12, &ladders[2]), 0);
	assert_int_equal(ladder_resctrl_mpam(5, &ladders[3]), 0);
	assert_int_equal(ladder_units(0, 2048, 125, &ladders[4]), 0);
	assert_int_equal(ladder_mpam_min(7, &ladders[5]), 0);
	assert_int_equal(ladder_mpam_max(16, &ladders[6]), 0);
	assert_int_equal(ladder_resctrl_mpam(7, &ladders[7]), 0);
	assert_int_equal(ladder_percent(3, 7, &ladders[8]), 0);
	for (int i = 0; i < 60000; i++) {
		const struct ladder *l = &ladders[(size_t)i % n];
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		double pct = (double)(seed >> 11) / (double)(1ull << 53) * 110.0 - 5.0;
		if (i % 3 == 0) /* on a rung */
			pct = ladder_pct(l, (uint32_t)((seed >> 20) % l->count));
		check_snap(l, pct);
	}
}

TEST_MAIN({
	cmocka_unit_test(test_kernel_conversions_equal_the_kernels_table),
	cmocka_unit_test(test_resctrl_mpam_rungs_are_what_the_kernel_programs),
	cmocka_unit_test(test_resctrl_mpam_34_at_wd7_is_34_375),
	cmocka_unit_test(test_resctrl_mpam_wd4_never_writes_a_wrapping_percent),
	cmocka_unit_test(test_intel_steps),
	cmocka_unit_test(test_percent_gran_not_dividing_100),
	cmocka_unit_test(test_mpam_max_fields),
	cmocka_unit_test(test_mpam_min_is_the_bottom_of_a_band),
	cmocka_unit_test(test_amd_units),
	cmocka_unit_test(test_relative_mbps_needs_a_capacity),
	cmocka_unit_test(test_refuses_parameters_no_hardware_has),
	cmocka_unit_test(test_snap_random),
})
