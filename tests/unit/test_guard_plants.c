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
	pl.goals[v].guarantee_mbps = (uint32_t)GUARANTEE;
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

/* A crowd: 60 best-effort neighbours of `loud` MB/s each (50 when quiet) beside a victim (8000 of its
 * 9000) on a 30000 MB/s domain in 1% steps, no MBW_MIN, counters rotating among `monitors` (0: one
 * each). Three squeezes: quiet for 50 ticks, loud for 150. */
struct crowd_run {
	unsigned worst;	 /* the victim's short ticks in one squeeze, at most */
	unsigned steady; /* neighbours' limit changes in the loud ticks after the first 20 of a squeeze */
	unsigned moves;	 /* neighbours' limit changes in the whole run */
};

#define CROWD	    60
#define CROWD_QUIET 50
#define CROWD_LOUD  150

static struct crowd_run run_crowd(unsigned monitors, double loud)
{
	struct plant_setup setup = { .domains = 1,
				     .capacity_mbps = 30000,
				     .gran_pct = 1,
				     .min_pct = 1,
				     .noise = 0.02,
				     .seed = 5,
				     .capacity_known = true,
				     .per_domain = true,
				     .monitors = monitors };
	struct plant pl;
	struct crowd_run r = { 0 };
	unsigned in_squeeze = 0;

	assert_int_equal(plant_init(&pl, &setup, &plant_guard_chain, CROWD + 1), 0);
	size_t v = plant_add(&pl, "victim", CLASS_LATENCY_CRITICAL, 0, (struct plant_demand){ .base_mbps = 9000 });
	pl.goals[v].guarantee_mbps = 8000;
	for (unsigned k = 0; k < CROWD; k++)
		plant_add(&pl, "be", CLASS_BEST_EFFORT, 0, (struct plant_demand){ 0 });
	for (int t = 0; t < 3 * (CROWD_QUIET + CROWD_LOUD); t++) {
		int phase = t % (CROWD_QUIET + CROWD_LOUD);
		double before[CROWD];
		for (unsigned k = 0; k < CROWD; k++) {
			pl.demand[1 + k].base_mbps = phase >= CROWD_QUIET ? loud : 50;
			before[k] = plant_max_at(&pl, 1 + k, 0);
		}
		in_squeeze = phase == 0 ? 0 : in_squeeze;
		plant_tick(&pl);
		in_squeeze += pl.truth[v] < SHORT_BAND * 8000;
		r.worst = in_squeeze > r.worst ? in_squeeze : r.worst;
		for (unsigned k = 0; k < CROWD; k++) {
			bool moved = plant_max_at(&pl, 1 + k, 0) != before[k];
			r.moves += moved;
			r.steady += moved && phase >= CROWD_QUIET + 20;
		}
	}
	plant_free(&pl);
	return r;
}

/* The crowd is cut together, in one tick, and held there while the victim is active: giving back to
 * one of them would, through share's split, raise them all a rung and squeeze the victim again. With
 * every partition measured (no rotation: 61 partitions, 64 counters) the victim is short for the tick
 * the cut takes; with 16 counters the victim is measured every fourth tick, and its shortness is news
 * only then (an estimate of it asks for no cut). A crowd that never squeezes it is never cut. */
static void test_guard_cuts_a_crowd_together(void **state)
{
	(void)state;
	struct crowd_run all = run_crowd(0, 600), many = run_crowd(64, 600), few = run_crowd(16, 600);
	struct crowd_run calm = run_crowd(16, 300);
	printf("crowd of 60: victim short at most %u/%u/%u ticks a squeeze (measured/64/16 counters), %u/%u/%u "
	       "steady limit changes; a crowd that never squeezes: %u moves\n",
	       all.worst, many.worst, few.worst, all.steady, many.steady, few.steady, calm.moves);
	assert_true(all.worst <= MAX_SQUEEZE && many.worst <= MAX_SQUEEZE);
	assert_true(few.worst <= (CROWD + 1 + 15) / 16 + 1); /* the rotation's period, and the tick a cut takes */
	assert_true(all.steady == 0 && many.steady == 0 && few.steady == 0);
	assert_int_equal(calm.moves, 0);
}

TEST_MAIN({
	cmocka_unit_test(test_guard_keeps_the_squeeze_point_on_a_flat_top),
	cmocka_unit_test(test_guard_cuts_a_crowd_together),
})
