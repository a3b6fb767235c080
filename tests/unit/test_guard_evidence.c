/* The guard cuts only on evidence: a capacity it knows, or a learned one backed by a saturation sign
 * (see policies/guard.c), on the bench's host double (bench/plant.c: demand-proportional sharing of a
 * saturated domain, no MBW_MIN). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bench/plant.h"
#include "policies/policy.h"

struct scene {
	struct plant pl;
	size_t web, batch;
};

static void scene_init(struct scene *s, bool capacity_known, double web_demand, double batch_demand)
{
	struct plant_setup setup = { .domains = 1,
				     .capacity_mbps = 40000,
				     .gran_pct = 1,
				     .min_pct = 1,
				     .noise = 0.02,
				     .seed = 9,
				     .capacity_known = capacity_known };

	assert_int_equal(plant_init(&s->pl, &setup, &plant_guard_chain, 2), 0);
	s->web = plant_add(&s->pl, "web", CLASS_LATENCY_CRITICAL, 0, (struct plant_demand){ .base_mbps = web_demand });
	s->batch = plant_add(&s->pl, "batch", CLASS_BEST_EFFORT, 0, (struct plant_demand){ .base_mbps = batch_demand });
	s->pl.goals[s->web].guarantee_mbps = 6000;
}

/* Runs `ticks` ticks; returns how many carried a throttle event on batch, and the first one's text. */
static unsigned run_counting_cuts(struct scene *s, int ticks, char *first, size_t size)
{
	unsigned cuts = 0;

	for (int k = 0; k < ticks; k++) {
		plant_tick(&s->pl);
		if (strstr(policy_decision_event(&s->pl.dec[s->batch]), "throttle")) {
			if (!cuts++ && first)
				snprintf(first, size, "%s", policy_decision_event(&s->pl.dec[s->batch]));
		}
	}
	return cuts;
}

/* web wants 5000 of its 6000 and gets it on a host that is not saturated: whether or not the guard
 * knows the capacity, nobody is throttled (with a learned capacity the host's total is its peak from
 * the first tick, which used to look like saturation). */
static void test_no_throttle_for_a_victim_that_wants_less(void **state)
{
	(void)state;
	for (int known = 0; known <= 1; known++) {
		struct scene s;
		scene_init(&s, known, 5000, 20000);
		unsigned cuts = run_counting_cuts(&s, 300, NULL, 0);
		printf("  web wants 5000 of 6000, capacity %s: %u throttle events in 300 ticks, web at %.0f MB/s\n",
		       known ? "known" : "learned", cuts, s.pl.truth[s.web]);
		assert_int_equal(cuts, 0);
		assert_true(s.pl.truth[s.web] >= 4990);
		plant_free(&s.pl);
	}
}

/* The same with bursty demand: the victim's own bursts are not a squeeze. */
static void test_no_throttle_for_a_bursty_victim(void **state)
{
	(void)state;
	for (int known = 0; known <= 1; known++) {
		struct scene s;
		scene_init(&s, known, 5000, 30000);
		s.pl.demand[s.web] =
			(struct plant_demand){ .base_mbps = 5000, .period = 20, .duty = 0.5, .low_mbps = 1000 };
		unsigned cuts = run_counting_cuts(&s, 300, NULL, 0);
		printf("  bursty web (5000/1000), capacity %s: %u throttle events\n", known ? "known" : "learned",
		       cuts);
		assert_int_equal(cuts, 0);
		plant_free(&s.pl);
	}
}

/* A real squeeze with the capacity unknown: an aggressor arrives and takes web's bandwidth at the
 * host's new peak. That fall is the saturation sign: the guard cuts, says why, and web is back. */
static void test_learned_capacity_needs_a_saturation_sign(void **state)
{
	struct scene s;
	char first[POLICY_EVENT_MAX] = "";

	(void)state;
	scene_init(&s, false, 8000, 0);
	assert_int_equal(run_counting_cuts(&s, 30, NULL, 0), 0);
	s.pl.demand[s.batch].base_mbps = 80000; /* the host saturates: web falls to about 3600 */
	unsigned cuts = run_counting_cuts(&s, 1, first, sizeof(first));
	assert_true(s.pl.truth[s.web] < 0.95 * 6000); /* measured before any decision could follow */
	cuts += run_counting_cuts(&s, 4, cuts ? NULL : first, sizeof(first));
	printf("  aggressor after tick 30, capacity learned: first cut \"%s\", web at %.0f MB/s 4 ticks later\n", first,
	       s.pl.truth[s.web]);
	assert_true(cuts >= 1);
	assert_non_null(strstr(first, "capacity learned over 31 ticks, it lost bandwidth at that peak"));
	assert_true(s.pl.truth[s.web] >= 0.95 * 6000);
	plant_free(&s.pl);
}

/* Without the sign (squeezed from the first tick, capacity unknown), the guard waits: it has no
 * evidence the total is a limit. The warm-up alone is not evidence either. */
static void test_no_cut_without_evidence(void **state)
{
	struct scene s;

	(void)state;
	scene_init(&s, false, 8000, 80000);
	unsigned cuts = run_counting_cuts(&s, 100, NULL, 0);
	printf("  squeezed from tick 1, capacity learned: %u throttle events in 100 ticks\n", cuts);
	assert_int_equal(cuts, 0);
	plant_free(&s.pl);
	scene_init(&s, true, 8000, 80000); /* known: cut at once */
	assert_true(run_counting_cuts(&s, 1, NULL, 0) == 1);
	plant_free(&s.pl);
}

/* A plant the guard does not know: on a concave curve (a ceiling of 39% still lets through 82% of
 * the capacity) a cut sized on a linear plant does not bind. The guard takes the ceiling down by the
 * cut's factor too, and does not take the victim's unchanged rate after a cut that freed nothing for
 * a sign that it wants less: the victim is back within a few ticks, and stays. */
static void test_concave_plant(void **state)
{
	struct scene s;
	struct plant_setup setup = { .domains = 1,
				     .capacity_mbps = 10000,
				     .gran_pct = 1,
				     .min_pct = 1,
				     .curve = &plant_concave,
				     .noise = 0.02,
				     .seed = 9,
				     .capacity_known = true };

	(void)state;
	assert_int_equal(plant_init(&s.pl, &setup, &plant_guard_chain, 2), 0);
	s.web = plant_add(&s.pl, "web", CLASS_LATENCY_CRITICAL, 0, (struct plant_demand){ .base_mbps = 8000 });
	s.batch = plant_add(&s.pl, "batch", CLASS_BEST_EFFORT, 0, (struct plant_demand){ .base_mbps = 30000 });
	s.pl.goals[s.web].guarantee_mbps = 6000;
	int back = 0;
	for (int t = 1; t <= 100; t++) {
		plant_tick(&s.pl);
		assert_null(strstr(policy_decision_event(&s.pl.dec[s.web]), "release:"));
		bool low = s.pl.truth[s.web] < 0.95 * 6000;
		if (!low && !back)
			back = t;
		if (low && back)
			fail_msg("web short again at tick %d: %.0f MB/s", t, s.pl.truth[s.web]);
	}
	printf("  concave plant: web back at tick %d, batch at %g%%\n", back, plant_max_at(&s.pl, s.batch, 0));
	assert_true(back > 0 && back <= 5);
	plant_free(&s.pl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_throttle_for_a_victim_that_wants_less),
		cmocka_unit_test(test_no_throttle_for_a_bursty_victim),
		cmocka_unit_test(test_learned_capacity_needs_a_saturation_sign),
		cmocka_unit_test(test_no_cut_without_evidence),
		cmocka_unit_test(test_concave_plant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
