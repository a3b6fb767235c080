/* The simulated host's plant as real hardware has it: a limit that acts [sim] delay_ticks after it is
 * written while its register reads back the new value at once, and [sim] measure_noise_pct on what the
 * MBWU monitors count, also while a limit binds. Driven by hand through the MSC's registers, one
 * sample per tick, as the MMIO driver would. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "backends/mpam/mpam_regs.h"
#include "backends/sim/sim_host.h"
#include "core/config/config.h"
#include "tests/util/msc_io.h"
#include "tests/util/record_reader.h"
#include "tests/util/test_main.h"

#define INTERVAL_NS 100000000ull
#define CAPACITY    20000.0
#define DEMAND	    16000.0
#define HALF	    0x7F00u /* MBW_MAX with BWA_WD 8: the band whose top is 128/256 = 50% */
#define CEILING	    (CAPACITY / 2)
#define SAMPLES	    60
#define PARTID	    1 /* the only partition's, given by the simulator */

struct plant {
	struct config *config;
	struct sim_host *host;
	struct msc_model *msc;
	uint64_t tick;	/* ticks run so far */
	uint64_t count; /* the monitor's count at the last sample */
};

static void plant_start(struct plant *p, unsigned delay_ticks, unsigned measure_noise_pct, unsigned noise_pct,
			unsigned seed)
{
	char text[512];
	struct err err = { "" };
	struct msmon_mbwu_flt flt = { .partid = PARTID };
	struct msmon_mbwu_ctl ctl = { .match_partid = true, .en = true };

	snprintf(text, sizeof(text),
		 "[global]\nbackend = sim\ninterval_ms = 100\n"
		 "[sim]\nmscs = 1\ncapacity_mbps = %.0f\nnrdy_ticks = 0\nseed = %u\nnoise_pct = %u\n"
		 "delay_ticks = %u\nmeasure_noise_pct = %u\n"
		 "[partition \"hog\"]\nsim_demand = %.0f\n",
		 CAPACITY, seed, noise_pct, delay_ticks, measure_noise_pct, DEMAND);
	*p = (struct plant){ .config = load_config_text(text) };
	assert_non_null(p->config);
	assert_int_equal(p->config->partitions[0].partid, PARTID);
	assert_int_equal(sim_host_new(p->config, 0, &p->host, &err), 0);
	p->msc = sim_host_msc(p->host, 0);
	model_wr32(p->msc, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, 0));
	model_wr32(p->msc, MSMON_CFG_MBWU_FLT, msmon_mbwu_flt_encode(&flt));
	model_wr32(p->msc, MSMON_CFG_MBWU_CTL, msmon_mbwu_ctl_encode(&ctl));
}

static void plant_stop(struct plant *p)
{
	sim_host_free(p->host);
	config_free(p->config);
}

/* A hard limit: a soft one would let the partition take the capacity nobody else wants. */
static void write_mbw_max(struct plant *p, uint32_t value)
{
	model_wr32(p->msc, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, PARTID));
	model_wr32(p->msc, MPAMCFG_MBW_MAX, value | (uint32_t)MPAMCFG_MBW_MAX_HARDLIM);
}

static uint32_t read_mbw_max(struct plant *p)
{
	model_wr32(p->msc, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, PARTID));
	return model_rd32(p->msc, MPAMCFG_MBW_MAX) & ~(uint32_t)MPAMCFG_MBW_MAX_HARDLIM;
}

/* One tick of traffic, then what the monitor counted in it, in MB/s. */
static double sample(struct plant *p)
{
	sim_host_advance(p->host, ++p->tick * INTERVAL_NS);
	model_wr32(p->msc, MSMON_CFG_MON_SEL, msmon_cfg_mon_sel(0, 0));
	uint64_t count = model_rd64(p->msc, MSMON_MBWU_L) & MSMON_MBWU_L_VALUE_44;
	double mbps = (double)(count - p->count) / 1e6 / ((double)INTERVAL_NS / 1e9);

	p->count = count;
	return mbps;
}

/* A lower limit written between two ticks: the register says so at once, the traffic N ticks later
 * (exactly: the old rate for N samples, then the new one). */
static void check_delay(unsigned n)
{
	struct plant p;

	plant_start(&p, n, 0, 0, 1);
	for (int i = 0; i < 3; i++)
		assert_true(sample(&p) == DEMAND);
	write_mbw_max(&p, HALF);
	assert_int_equal(read_mbw_max(&p), HALF);
	for (unsigned i = 0; i < n; i++) {
		double mbps = sample(&p);
		printf("delay %u: tick %u after the write: %.0f MB/s\n", n, i, mbps);
		assert_true(mbps == DEMAND);
		assert_int_equal(read_mbw_max(&p), HALF);
	}
	for (int i = 0; i < 3; i++)
		assert_true(sample(&p) == CEILING);
	/* Raising it again takes as long. */
	write_mbw_max(&p, 0xFF00);
	for (unsigned i = 0; i < n; i++)
		assert_true(sample(&p) == CEILING);
	assert_true(sample(&p) == DEMAND);
	plant_stop(&p);
}

static void test_limit_acts_at_once_without_delay(void **state)
{
	(void)state;
	check_delay(0);
}

static void test_limit_acts_delay_ticks_later(void **state)
{
	(void)state;
	check_delay(1);
	check_delay(3);
	check_delay(16);
}

/* Writes within one tick act together, as the last one; writes in successive ticks each act in turn. */
static void test_delayed_writes_keep_their_order(void **state)
{
	struct plant p;

	(void)state;
	plant_start(&p, 2, 0, 0, 1);
	write_mbw_max(&p, 0x1F00); /* 12.5%: never in force, the next write of the tick replaces it */
	write_mbw_max(&p, HALF);
	assert_true(sample(&p) == DEMAND);
	write_mbw_max(&p, 0x3F00); /* 25% */
	assert_true(sample(&p) == DEMAND);
	assert_true(sample(&p) == CEILING);
	assert_true(sample(&p) == CAPACITY / 4);
	plant_stop(&p);
}

struct stats {
	double mean, stddev, min, max;
};

static struct stats stats_of(const double *v, size_t n)
{
	struct stats s = { 0, 0, v[0], v[0] };

	for (size_t i = 0; i < n; i++) {
		s.mean += v[i] / (double)n;
		s.min = v[i] < s.min ? v[i] : s.min;
		s.max = v[i] > s.max ? v[i] : s.max;
	}
	for (size_t i = 0; i < n; i++)
		s.stddev += (v[i] - s.mean) * (v[i] - s.mean) / (double)(n - 1);
	s.stddev = sqrt(s.stddev);
	return s;
}

/* SAMPLES samples of the partition bound at half the MSC, and the truth of each. */
static void bound_samples(unsigned measure_noise_pct, unsigned noise_pct, unsigned seed, double *samples, double *truth)
{
	struct plant p;

	plant_start(&p, 0, measure_noise_pct, noise_pct, seed);
	write_mbw_max(&p, HALF);
	for (size_t i = 0; i < SAMPLES; i++) {
		samples[i] = sample(&p);
		truth[i] = sim_host_truth_mbps(p.host, 0);
	}
	plant_stop(&p);
}

static void test_measure_noise_on_a_bound_partition(void **state)
{
	double exact[SAMPLES], noisy[SAMPLES], truth[SAMPLES];

	(void)state;
	bound_samples(0, 0, 1, exact, truth);
	for (size_t i = 0; i < SAMPLES; i++)
		assert_true(exact[i] == CEILING);
	bound_samples(10, 0, 1, noisy, truth);
	struct stats s = stats_of(noisy, SAMPLES);
	printf("measure_noise_pct 10 at a %.0f MB/s ceiling: mean %.1f, stddev %.1f, %.1f..%.1f\n", CEILING, s.mean,
	       s.stddev, s.min, s.max);
	assert_true(s.stddev > 0.02 * CEILING); /* uniform within 10%: about 5.8% */
	assert_true(fabs(s.mean - CEILING) < 0.03 * CEILING);
	assert_true(s.min >= 0.9 * CEILING - 1 && s.max <= 1.1 * CEILING + 1);
	for (size_t i = 0; i < SAMPLES; i++)
		assert_true(truth[i] == CEILING); /* what was served is the truth: no noise */
}

/* Same seed, same samples; another seed, others. Measurement noise has its own sequence: turning it on
 * changes no demand (the truth of a run with demand noise stays as it was). */
static void test_noise_is_deterministic(void **state)
{
	double a[SAMPLES], b[SAMPLES], c[SAMPLES], truth_a[SAMPLES], truth_b[SAMPLES], truth_c[SAMPLES];
	size_t same = 0;

	(void)state;
	bound_samples(10, 0, 7, a, truth_a);
	bound_samples(10, 0, 7, b, truth_b);
	bound_samples(10, 0, 8, c, truth_c);
	for (size_t i = 0; i < SAMPLES; i++) {
		assert_true(a[i] == b[i]);
		same += a[i] == c[i];
	}
	assert_true(same < SAMPLES / 10);

	struct plant quiet, measured;
	plant_start(&quiet, 0, 0, 20, 5);
	plant_start(&measured, 0, 10, 20, 5);
	size_t differ = 0;
	for (size_t i = 0; i < SAMPLES; i++) {
		double q = sample(&quiet), m = sample(&measured);
		assert_true(sim_host_truth_mbps(quiet.host, 0) == sim_host_truth_mbps(measured.host, 0));
		assert_true(fabs(q - sim_host_truth_mbps(quiet.host, 0)) < 1e-6 * q); /* whole bytes both */
		differ += m != q;
	}
	assert_true(differ > SAMPLES / 2);
	plant_stop(&quiet);
	plant_stop(&measured);
}

TEST_MAIN({
	cmocka_unit_test(test_limit_acts_at_once_without_delay),
	cmocka_unit_test(test_limit_acts_delay_ticks_later),
	cmocka_unit_test(test_delayed_writes_keep_their_order),
	cmocka_unit_test(test_measure_noise_on_a_bound_partition),
	cmocka_unit_test(test_noise_is_deterministic),
})
