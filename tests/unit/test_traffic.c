/* The traffic model: who gets how much of a component's capacity, and the seeded noise source. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#include "backends/sim/traffic.h"
#include "tests/util/test_main.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* |a - b| within rel of the larger magnitude (or absolutely, near zero). */
static void expect_close(double a, double b, double rel, const char *what)
{
	double scale = fmax(fmax(fabs(a), fabs(b)), 1.0);

	if (!(fabs(a - b) <= rel * scale))
		fail_msg("%s: %.17g != %.17g", what, a, b);
}

static double sum(const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s;
}

/* traffic_serve with room for up to 1000 requests, as many as any test here has. */
static void serve(const struct traffic_request *r, size_t n, double capacity, double *served)
{
	static struct traffic_share work[1000];

	assert_true(n <= N_OF(work));
	traffic_serve(r, n, capacity, work, served);
}

static struct traffic_request req(double demand, double max, double min)
{
	return (struct traffic_request){ .demand_mbps = demand, .max_fraction = max, .min_fraction = min };
}

/* Serves `n` requests on `capacity` and checks each is served what `want` says: exactly when it says
 * 0, else to 1e-12. Returns the total served. */
static double expect_served(const char *what, const struct traffic_request *r, size_t n, double capacity,
			    const double *want)
{
	double served[8] = { NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN }; /* what serve does not write fails */

	if (n > N_OF(served))
		fail_msg("%s: %zu requests, room for %zu", what, n, N_OF(served));
	serve(r, n, capacity, served);
	for (size_t i = 0; i < n; i++) {
		char label[96];

		snprintf(label, sizeof(label), "%s: p%zu", what, i);
		expect_close(served[i], want[i], want[i] == 0 ? 0 : 1e-12, label);
	}
	return sum(served, n);
}

static void test_fits_served_fully(void **state)
{
	struct traffic_request r[] = { req(100, 1, 0), req(250, 1, 0.5), req(0.5, 0.1, 0) };

	(void)state;
	expect_served("fits", r, 3, 1000, (const double[]){ 100, 250, 0.5 });
	r[2] = req(650, 1, 0); /* exactly full is still "fits" */
	expect_served("exactly full", r, 3, 1000, (const double[]){ 100, 250, 650 });
}

static void test_max_caps(void **state)
{
	/* Plenty of capacity, but each is held to its ceiling: 25%, 50%, and one under its cap. */
	struct traffic_request r[] = { req(800, 0.25, 0), req(800, 0.5, 0), req(100, 0.5, 0) };

	(void)state;
	expect_served("capped", r, 3, 1000, (const double[]){ 250, 500, 100 });
	r[0] = req(800, 0, 0.5); /* max 0 means nothing at all */
	expect_served("max 0", r, 3, 1000, (const double[]){ 0, 500, 100 });
}

static struct traffic_request soft(double demand, double max, double ceiling)
{
	return (struct traffic_request){
		.demand_mbps = demand, .max_fraction = max, .soft = true, .soft_ceiling_fraction = ceiling
	};
}

/* A soft ceiling (MBW_MAX with HARDLIM clear) holds only while others want the bandwidth: what nobody
 * within their ceiling wants goes to the soft partitions over theirs, by demand, up to their other
 * controls' ceiling. A hard one holds whatever is idle. */
static void test_soft_ceilings_use_idle_capacity(void **state)
{
	struct traffic_request r[] = { soft(800, 0.25, 1), req(100, 1, 0), req(800, 0.25, 0) };
	double served[3];

	(void)state;
	/* 250 + 100 + 250 leave 400 idle: the soft one takes all it wants of it, the hard one none. */
	serve(r, 3, 1000, served);
	expect_close(served[0], 650, 1e-9, "soft over its max");
	expect_close(served[1], 100, 1e-9, "under no max");
	expect_close(served[2], 250, 1e-9, "hard at its max");
	/* Two soft partitions share the idle 400 (200 + 200 + 200 served) by demand (900:300), each up to
	 * its demand. */
	r[0] = soft(900, 0.2, 1);
	r[1] = req(200, 1, 0);
	r[2] = soft(300, 0.2, 1);
	serve(r, 3, 1000, served);
	expect_close(served[0], 200 + 300, 1e-9, "soft, larger demand");
	expect_close(served[2], 200 + 100, 1e-9, "soft, smaller demand");
	expect_close(sum(served, 3), 1000, 1e-9, "nothing idle");
	/* Its other controls (MBW_PROP, MBW_PBM) still hold it. */
	r[2] = req(0, 1, 0);
	r[0] = soft(800, 0.25, 0.4);
	serve(r, 3, 1000, served);
	expect_close(served[0], 400, 1e-9, "soft up to its other ceiling");
	/* Saturated by partitions within their ceilings: a soft ceiling holds. */
	r[0] = soft(800, 0.25, 1);
	r[1] = req(2000, 1, 0);
	serve(r, 3, 1000, served);
	expect_close(served[0], 250, 1e-9, "soft, contended");
	expect_close(served[1], 750, 1e-9, "the contender");
}

static void test_mins_first(void **state)
{
	/* Saturated: p0 has a 60% min; the remaining 400 is shared by demand (1000:1000), so p0 gets
	 * 600 + 200 and p1 gets 200. */
	struct traffic_request r[] = { req(1000, 1, 0.6), req(1000, 1, 0) };

	(void)state;
	expect_served("min holder, other", r, 2, 1000, (const double[]){ 800, 200 });
	/* A min larger than the demand only guarantees the demand. */
	r[0] = req(100, 1, 0.6);
	r[1] = req(2000, 1, 0);
	expect_served("min above demand, rest", r, 2, 1000, (const double[]){ 100, 900 });
	/* A min above the max is held to the max. */
	r[0] = req(1000, 0.3, 0.6);
	expect_served("min above max, rest", r, 2, 1000, (const double[]){ 300, 700 });
}

static void test_overcommitted_mins_scaled(void **state)
{
	/* Mins of 60% + 90% = 150%: each gets its min scaled by 1/1.5; p2 (no min) gets nothing. */
	struct traffic_request r[] = { req(1000, 1, 0.6), req(1000, 1, 0.9), req(1000, 1, 0) };

	(void)state;
	expect_close(expect_served("scaled", r, 3, 1000, (const double[]){ 400, 600, 0 }), 1000, 1e-12, "total");
}

static void test_proportional_share(void **state)
{
	/* 300 + 600 + 900 of demand on 900: shared 1:2:3. */
	struct traffic_request r[] = { req(300, 1, 0), req(600, 1, 0), req(900, 1, 0) };

	(void)state;
	expect_served("1:2:3", r, 3, 900, (const double[]){ 150, 300, 450 });
}

static void test_water_filling(void **state)
{
	/* Proportional shares of 1000 would be 500/250/250, but p0 is capped at 10% (100): its leftover 400
	 * goes to the others in proportion to their demand (1:1), giving 450 each. */
	struct traffic_request r[] = { req(2000, 0.1, 0), req(1000, 1, 0), req(1000, 1, 0) };

	(void)state;
	expect_served("capped p0", r, 3, 1000, (const double[]){ 100, 450, 450 });
	/* A cascade: p1's new share then exceeds its own cap of 30%, so p2 takes the rest. */
	r[1] = req(1000, 0.3, 0);
	expect_close(expect_served("cascade", r, 3, 1000, (const double[]){ 100, 300, 600 }), 1000, 1e-9,
		     "work conserving");
	/* Mins plus water-filling: p0 has a 20% min and a 25% cap. Level L: 200 + 2000L hits 250 at
	 * L=0.025; rest 750 shared 1:3 -> 187.5, 562.5. */
	r[0] = req(2000, 0.25, 0.2);
	r[1] = req(1000, 1, 0);
	r[2] = req(3000, 1, 0);
	expect_served("min+cap", r, 3, 1000, (const double[]){ 250, 187.5, 562.5 });
}

static void test_zero_demands(void **state)
{
	struct traffic_request r[] = { req(0, 1, 0.5), req(0, 1, 0), req(0, 0, 0) };
	double served[3] = { -1, -1, -1 };

	(void)state;
	expect_served("zero demand", r, 3, 1000, (const double[]){ 0, 0, 0 });
	/* One zero demand among saturating ones gets nothing and takes nothing. */
	r[1] = req(2000, 1, 0);
	r[2] = req(2000, 1, 0);
	expect_served("zero with min, half, half", r, 3, 1000, (const double[]){ 0, 500, 500 });
	/* No capacity at all. */
	serve(r, 3, 0, served);
	expect_close(sum(served, 3), 0, 0, "no capacity");
}

static void test_garbage_inputs(void **state)
{
	/* A negative and a NaN demand get nothing; a max above 1 means 1, a NaN max means 0. */
	struct traffic_request r[] = { req(-5, 1, 0), req(NAN, 1, 0), req(500, 2.0, -1), req(500, NAN, NAN) };

	(void)state;
	expect_served("garbage", r, 4, 1000, (const double[]){ 0, 0, 500, 0 });
}

static void test_n_zero(void **state)
{
	double sentinel = 42;

	(void)state;
	serve(NULL, 0, 1000, &sentinel);
	expect_close(sentinel, 42, 0, "nothing written");
}

enum regime {
	FITS,
	MINS_SCALED,
	WATER_FILLED
};

/* Checks the model's promises for one random instance; returns which case it exercised. */
static enum regime check_invariants(const struct traffic_request *r, size_t n, double capacity, const double *served)
{
	double total = 0, capped = 0, min_total = 0;

	for (size_t i = 0; i < n; i++) {
		double cap = fmin(r[i].demand_mbps, r[i].max_fraction * capacity);

		if (!(served[i] >= 0) || served[i] > cap * (1 + 1e-12))
			fail_msg("partition %zu: served %.17g outside [0, %.17g]", i, served[i], cap);
		total += served[i];
		capped += cap;
		min_total += fmin(r[i].min_fraction * capacity, cap);
	}
	if (total > capacity * (1 + 1e-9))
		fail_msg("served %.17g of %.17g", total, capacity);
	if (capped <= capacity)
		expect_close(total, capped, 1e-9, "everything fits");
	else
		expect_close(total, capacity, 1e-9, "work conserving");
	/* When mins fit, each partition gets at least its min share. */
	for (size_t i = 0; min_total <= capacity && i < n; i++)
		if (served[i] <
		    fmin(r[i].min_fraction * capacity, fmin(r[i].demand_mbps, r[i].max_fraction * capacity)) *
			    (1 - 1e-9))
			fail_msg("partition %zu: below its min", i);
	if (capped <= capacity)
		return FITS;
	return min_total > capacity ? MINS_SCALED : WATER_FILLED;
}

static double uniform(struct traffic_rng *rng)
{
	return (traffic_rng_symmetric(rng) + 1) / 2;
}

static void random_instance(struct traffic_rng *rng, struct traffic_request *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		/* Some zero demands, some caps, a few mins (small ones, so mins are sometimes overcommitted). */
		double d = uniform(rng) < 0.1 ? 0 : uniform(rng) * 50;
		double max = uniform(rng) < 0.3 ? uniform(rng) * 0.02 : 1;
		double min = uniform(rng) < 0.2 ? uniform(rng) * 0.05 : 0;
		r[i] = req(d, max, min);
	}
}

static void test_many_random(void **state)
{
	enum {
		N = 1000,
		ROUNDS = 200
	};
	static struct traffic_request r[N];
	static double served[N];
	uint64_t seed = getenv("TRAFFIC_SEED") ? strtoull(getenv("TRAFFIC_SEED"), NULL, 0) : (uint64_t)time(NULL);
	struct traffic_rng rng;
	int seen[3] = { 0 };

	(void)state;
	printf("test_many_random: seed %llu (rerun with TRAFFIC_SEED=%llu)\n", (unsigned long long)seed,
	       (unsigned long long)seed);
	traffic_rng_seed(&rng, seed);
	for (int round = 0; round < ROUNDS; round++) {
		size_t n = 1 + traffic_rng_next(&rng) % N;
		/* From far below to far above the total demand (about 25 per partition). */
		double capacity = uniform(&rng) * 50 * (double)n;

		random_instance(&rng, r, n);
		serve(r, n, capacity, served);
		seen[check_invariants(r, n, capacity, served)]++;
	}
	/* The random mix must reach every case, or the invariants prove little. */
	printf("test_many_random: %d fit, %d scaled mins, %d water-filled\n", seen[FITS], seen[MINS_SCALED],
	       seen[WATER_FILLED]);
	assert_true(seen[FITS] > 0 && seen[MINS_SCALED] > 0 && seen[WATER_FILLED] > 0);
}

static void test_rng_determinism(void **state)
{
	struct traffic_rng a, b, c;
	int differ = 0;

	(void)state;
	traffic_rng_seed(&a, 12345);
	traffic_rng_seed(&b, 12345);
	traffic_rng_seed(&c, 12346);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = traffic_rng_next(&a);

		assert_true(x == traffic_rng_next(&b));
		differ |= x != traffic_rng_next(&c);
	}
	assert_true(differ);
	/* splitmix64's published first output for seed 0. */
	traffic_rng_seed(&a, 0);
	assert_true(traffic_rng_next(&a) == UINT64_C(0xE220A8397B1DCDAF));
}

static void test_rng_symmetric_range(void **state)
{
	struct traffic_rng rng;
	double lo = 1, hi = -1, mean = 0;
	enum {
		N = 100000
	};

	(void)state;
	traffic_rng_seed(&rng, 7);
	for (int i = 0; i < N; i++) {
		double u = traffic_rng_symmetric(&rng);

		if (!(u >= -1 && u < 1))
			fail_msg("symmetric() gave %.17g", u);
		lo = fmin(lo, u);
		hi = fmax(hi, u);
		mean += u / N;
	}
	/* It covers the range and is centred. */
	assert_true(lo < -0.99 && hi > 0.99);
	assert_true(fabs(mean) < 0.01);
}

static void test_noisy_demand(void **state)
{
	struct traffic_rng rng, twin;

	(void)state;
	traffic_rng_seed(&rng, 99);
	for (int i = 0; i < 10000; i++) {
		double v = traffic_noisy_demand(1000, 20, &rng);

		if (!(v >= 800 && v < 1200))
			fail_msg("noisy 20%% of 1000 gave %.17g", v);
	}
	/* Noise above 100% would go negative: it is clamped to 0, never below. */
	for (int i = 0; i < 10000; i++)
		assert_true(traffic_noisy_demand(100, 300, &rng) >= 0);
	assert_true(traffic_noisy_demand(-5, 10, &rng) == 0);
	/* No noise: the demand itself, and one number is still drawn so sequences stay aligned. */
	traffic_rng_seed(&rng, 5);
	traffic_rng_seed(&twin, 5);
	assert_true(traffic_noisy_demand(321, 0, &rng) == 321);
	traffic_rng_next(&twin);
	assert_true(traffic_rng_next(&rng) == traffic_rng_next(&twin));
}

TEST_MAIN({
	cmocka_unit_test(test_fits_served_fully),
	cmocka_unit_test(test_max_caps),
	cmocka_unit_test(test_soft_ceilings_use_idle_capacity),
	cmocka_unit_test(test_mins_first),
	cmocka_unit_test(test_overcommitted_mins_scaled),
	cmocka_unit_test(test_proportional_share),
	cmocka_unit_test(test_water_filling),
	cmocka_unit_test(test_zero_demands),
	cmocka_unit_test(test_garbage_inputs),
	cmocka_unit_test(test_n_zero),
	cmocka_unit_test(test_many_random),
	cmocka_unit_test(test_rng_determinism),
	cmocka_unit_test(test_rng_symmetric_range),
	cmocka_unit_test(test_noisy_demand),
})
