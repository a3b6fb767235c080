/* The guard on a plant as Intel's MBA makes it (bench/plant.c): a flat-topped curve in 10% steps,
 * where cutting a best-effort aggressor from 100% to 70% changes nothing and below 30% changes much.
 * A victim with a guarantee beside one aggressor, no hardware minimum: once the guard found the
 * ceiling that squeezes the victim, it must not give that ceiling back while the victim is active
 * (it did: the victim was short 98 ticks in 600, cut and restored every 6 ticks). */
#include <math.h>
#include <stdio.h>

#include "bench/plant.h"
#include "tests/util/test_main.h"

#define TICKS	    600
#define SHORT_BAND  0.95
#define GUARANTEE   12000.0
#define MAX_SQUEEZE 3 /* short ticks per squeeze: the first, and a probe above the squeeze point later */

static const struct mb_curve flat_top = { .count = 4,
					  .points = { { 10, 0.12 }, { 20, 0.3 }, { 30, 0.55 }, { 70, 1 } } };

static void check_flat_top(unsigned delay)
{
	struct plant_setup setup = { .domains = 1,
				     .capacity_mbps = 20000,
				     .gran_pct = 10,
				     .min_pct = 10,
				     .curve = &flat_top,
				     .noise = 0.02,
				     .delay = delay,
				     .seed = 5,
				     .capacity_known = true,
				     .per_domain = true };
	struct plant pl;
	unsigned short_ticks = 0, changes = 0;

	assert_int_equal(plant_init(&pl, &setup, &plant_guard_chain, 2), 0);
	size_t v = plant_add(&pl, "victim", CLASS_LATENCY_CRITICAL, 0, (struct plant_demand){ .base_mbps = 14000 });
	size_t a = plant_add(&pl, "aggressor", CLASS_BEST_EFFORT, 0, (struct plant_demand){ .base_mbps = 40000 });
	pl.parts[v].goals.guarantee_mbps = (uint32_t)GUARANTEE;
	double last = 100;
	for (int t = 0; t < TICKS; t++) {
		plant_tick(&pl);
		short_ticks += pl.truth[v] < SHORT_BAND * GUARANTEE;
		changes += plant_max_at(&pl, a, 0) != last;
		last = plant_max_at(&pl, a, 0);
	}
	/* the squeeze point is probed again every GUARD_SQUEEZE_TICKS (300): two squeezes in 600 ticks,
	 * each may cost a tick more per tick of delay */
	printf("flat-topped plant, delay %u: victim short %u ticks of %d, aggressor's limit changed %u times\n", delay,
	       short_ticks, TICKS, changes);
	assert_true(short_ticks <= 2 * (MAX_SQUEEZE + delay));
	assert_true(changes <= 3 * TICKS / 100);
	plant_free(&pl);
}

static void test_guard_keeps_the_squeeze_point_on_a_flat_top(void **state)
{
	(void)state;
	check_flat_top(0);
	check_flat_top(1);
}

TEST_MAIN({
	cmocka_unit_test(test_guard_keeps_the_squeeze_point_on_a_flat_top),
})
