/* The target policy (policies/target.c) on the rig's closed loop: a PI controller with a learned
 * plant gain that moves a partition's MBW_MAX until its measured rate is at target_mbps, without
 * overshoot, oscillation between two hardware levels or integrator wind-up. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tests/util/policy_rig.h"

static const policy_fn chain_target[] = { policy_static, policy_target };

/* The rig at BWA_WD `wd` running static and target, and on it partition "t" wanting `demand` MB/s
 * with a target. */
static struct policy_partition *target_rig(struct policy_rig *rig, unsigned wd, enum partition_class class,
					   double demand, uint32_t target_mbps)
{
	rig_init(rig, wd, chain_target, N_OF(chain_target));
	struct policy_partition *p = rig_add(rig, "t", class, demand);
	rig_goals(p)->target_mbps = target_mbps;
	return p;
}

/* Runs until `ticks` have passed; returns the number of ticks until the measured rate first entered
 * +-5% of target and stayed, and the overshoot (worst rate above target, relative). */
struct step_result {
	int settle;
	double overshoot;
	unsigned changes_after_settle;
	unsigned spread_steps; /* of mb_max after settling */
};

static struct step_result run_step(struct policy_rig *rig, size_t i, int ticks, double noise)
{
	struct step_result r = { .settle = -1 };
	double target = rig->parts[i].goals->target_mbps;
	double lo = 100, hi = 0, last = 0;

	for (int t = 1; t <= ticks; t++) {
		rig->bias[i] = t % 2 ? noise : -noise; /* deterministic alternating measurement noise */
		rig_tick(rig);
		double y = rig->parts[i].mbps, err = fabs(y - target) / target;
		/* The first sample after a step was measured under the limit decided before it. */
		if (t > 1)
			r.overshoot = fmax(r.overshoot, (y - target) / target);
		if (err > 0.05)
			r.settle = -1;
		else if (r.settle < 0)
			r.settle = t;
		if (r.settle >= 0 && t > r.settle) {
			double m = rig->dec[i].mb_max;
			r.changes_after_settle += last > 0 && m != last;
			lo = m < lo ? m : lo;
			hi = m > hi ? m : hi;
		}
		last = rig->dec[i].mb_max;
	}
	const struct ladder *l = rig->host.max_ladder;
	r.spread_steps = hi >= lo ? ladder_snap(l, hi, LADDER_NEAREST) - ladder_snap(l, lo, LADDER_NEAREST) : 0;
	return r;
}

static void test_target_first_move_is_model_based(void **state)
{
	struct policy_rig rig;

	(void)state;
	struct policy_partition *p = target_rig(&rig, RIG_WHOLE_PERCENTS, CLASS_DEFAULT, 30000, 10000);
	rig_tick(&rig); /* measured at 100%: 30000 MB/s, demand-limited, so the model is capacity/100 */
	assert_int_equal(rig.dec[0].mb_max, 25);
	assert_string_equal(policy_decision_event(&rig.dec[0]),
			    "throttle: new target 10000 MB/s at 400 MB/s per %: mb_max 100% -> 25%");
	rig_tick(&rig);
	assert_true(fabs(p->mbps - 10000) < 1);
	assert_string_equal(policy_decision_event(&rig.dec[0]), "");
}

static void check_step(unsigned wd, double noise, uint32_t from, uint32_t to)
{
	struct policy_rig rig;

	struct policy_partition *p = target_rig(&rig, wd, CLASS_DEFAULT, 30000, from);
	run_step(&rig, 0, 30, noise);
	rig_goals(p)->target_mbps = to;
	struct step_result r = run_step(&rig, 0, 60, noise);
	printf("target step %u -> %u (BWA_WD %u, noise %.0f%%): settled in %d ticks, overshoot %.1f%%, %u changes "
	       "after\n",
	       from, to, wd, noise * 100, r.settle, r.overshoot * 100, r.changes_after_settle);
	assert_true(r.settle >= 1 && r.settle <= 5);
	assert_true(r.overshoot <= 0.10 + noise);
	/* A last probe may go two rungs (the chord's nearest) before the search settles. */
	assert_true(r.spread_steps <= 2);
}

static void test_target_step_converges(void **state)
{
	(void)state;
	check_step(8, 0, 10000, 15000);
	check_step(8, 0, 15000, 6000);
	check_step(8, 0.02, 10000, 15000);
	check_step(4, 0, 10000, 15000); /* 16 bands of 2500 MB/s: both targets are band edges */
	check_step(4, 0, 15000, 5000);
	check_step(4, 0.02, 15000, 5000);
}

/* A target midway between two hardware levels, measured with alternating noise: the controller must
 * settle on one level, not alternate between the two. Measuring the two (a probe of the one above
 * and back, at most) is the search; after it, nothing moves. */
static void check_no_two_step_oscillation(unsigned wd, double target, double noise)
{
	struct policy_rig rig;
	double history[120];

	target_rig(&rig, wd, CLASS_DEFAULT, 30000, (uint32_t)target);
	for (int t = 0; t < 120; t++) {
		rig.bias[0] = t % 2 ? noise : -noise;
		rig_tick(&rig);
		history[t] = rig.dec[0].mb_max;
	}
	unsigned changes = 0, aba = 0;
	int last_change = 0;
	for (int t = 6; t < 120; t++) {
		changes += history[t] != history[t - 1];
		last_change = history[t] != history[t - 1] ? t : last_change;
		aba += history[t] == history[t - 2] && history[t] != history[t - 1];
	}
	printf("target %.0f between steps (BWA_WD %u, noise %.1f%%): settled at %g%%, %u changes after tick 5, "
	       "the last at %d\n",
	       target, wd, noise * 100, history[119], changes, last_change);
	assert_true(aba <= 1);
	assert_true(changes <= 2);
	assert_true(last_change <= 20);
	/* It settled on one of the two levels around the target: within a step of it. */
	double step_mbps = RIG_CAPACITY / 100 * (100.0 / (1u << wd));
	assert_true(fabs(rig_next_mbps(&rig, 0) - target) <= step_mbps);
}

static void test_target_no_two_step_oscillation(void **state)
{
	(void)state;
	check_no_two_step_oscillation(4, 11250, 0.03); /* midway between 10000 and 12500 */
	check_no_two_step_oscillation(8, 10150, 0.02); /* between 25% and 26% */
}

/* Holding a rung, the controller ignores what is within 5% of the target or noise, says once when the
 * rate falls (its ceiling does not hold it), and searches again when the rate rises over the target. */
static void test_target_holds_within_band(void **state)
{
	struct policy_rig rig;

	(void)state;
	target_rig(&rig, RIG_WHOLE_PERCENTS, CLASS_DEFAULT, 30000, 10000);
	rig_tick(&rig);
	assert_int_equal(rig.dec[0].mb_max, 25);
	/* Measurements 1.5%, then 4% low: within the band, no move, no event. */
	for (int k = 0; k < 2; k++) {
		rig.bias[0] = k ? -0.04 : -0.015;
		for (int t = 0; t < 40; t++) {
			rig_tick(&rig);
			assert_int_equal(rig.dec[0].mb_max, 25);
			assert_string_equal(policy_decision_event(&rig.dec[0]), "");
		}
	}
	/* 20% low: a fall, said once, and no move (a higher ceiling would not cure demand). */
	rig.bias[0] = -0.2;
	unsigned said = 0;
	for (int t = 0; t < 20; t++) {
		rig_tick(&rig);
		assert_int_equal(rig.dec[0].mb_max, 25);
		said += strstr(policy_decision_event(&rig.dec[0]), "the ceiling does not hold it") != NULL;
	}
	assert_int_equal(said, 1);
	/* 10% high: over the target by more than the band: a new search, down. */
	rig.bias[0] = 0.1;
	int moved = 0;
	for (int t = 0; t < 10 && !moved; t++) {
		rig_tick(&rig);
		moved = rig.dec[0].mb_max < 25;
	}
	assert_true(moved);
	assert_non_null(strstr(policy_decision_event(&rig.dec[0]), "throttle: "));
	assert_non_null(strstr(policy_decision_event(&rig.dec[0]), "over target 10000"));
	rig_fini(&rig);
}

static void test_target_anti_windup_at_model_ceiling(void **state)
{
	struct policy_rig rig;

	(void)state;
	struct policy_partition *p = target_rig(&rig, RIG_WHOLE_PERCENTS, CLASS_DEFAULT, 4000, 10000);
	for (int t = 0; t < 50; t++)
		rig_tick(&rig); /* demand-limited far below target: the error pushes up for 50 ticks */
	assert_int_equal(rig.dec[0].mb_max, 25);
	/* Demand comes back: the ceiling was not wound up, so there is no burst over target. */
	rig.demand[0] = 30000;
	rig_tick(&rig);
	assert_true(p->mbps <= 10000 * 1.05);
	assert_true(p->mbps >= 10000 * 0.95);
}

static void test_target_anti_windup_at_configured_bounds(void **state)
{
	struct policy_rig rig;

	(void)state;
	rig_init(&rig, RIG_WHOLE_PERCENTS, chain_target, N_OF(chain_target));
	struct policy_partition *hi = rig_add(&rig, "hi", CLASS_DEFAULT, 30000);
	struct policy_partition *lo = rig_add(&rig, "lo", CLASS_DEFAULT, 30000);
	rig_configure(&rig, hi, 0, 20);
	rig_configure(&rig, lo, 30, 100);
	rig_goals(hi)->target_mbps = 12000; /* needs 30%, mb_max = 20 */
	rig_goals(lo)->target_mbps = 4000;  /* needs 10%, mb_min = 30 */
	rig.demand[1] = 30000;
	for (int t = 0; t < 50; t++)
		rig_tick(&rig);
	assert_int_equal(rig.dec[0].mb_max, 20);
	assert_int_equal(rig.dec[1].mb_max, 30);
	/* Released from the bound, the output moves on the first tick. */
	rig_goals(hi)->mb_max = 100;
	rig_tick(&rig);
	assert_true(rig.dec[0].mb_max > 20);
	rig_tick(&rig);
	rig_tick(&rig);
	assert_true(fabs(hi->mbps - 12000) <= 0.05 * 12000);
}

static void test_target_anti_windup_at_hardware_floor(void **state)
{
	struct policy_rig rig;

	(void)state;
	struct policy_partition *p =
		target_rig(&rig, RIG_WHOLE_PERCENTS, CLASS_BEST_EFFORT, 30000, 2000); /* needs 5% */
	rig.host.max_ladder = rig_floor_ladder(10);
	for (int t = 0; t < 50; t++)
		rig_tick(&rig);
	assert_int_equal(rig.dec[0].mb_max, 10);
	assert_true(p->mbps > 2000 * 1.5); /* the floor lets it through: escalation's case */
	/* Demand falls below the target: nothing to undo, the ceiling stays at the floor's step. */
	rig.demand[0] = 1500;
	for (int t = 0; t < 3; t++)
		rig_tick(&rig);
	assert_int_equal(rig.dec[0].mb_max, 10);
	rig_fini(&rig);
}

static void test_target_reseeds_on_wrong_model(void **state)
{
	struct policy_rig rig;

	(void)state;
	struct policy_partition *p = target_rig(&rig, RIG_WHOLE_PERCENTS, CLASS_DEFAULT, 30000, 10000);
	rig.host.capacity_mbps = RIG_CAPACITY / 2; /* learned too low: the first move is twice too high */
	rig.host.capacity_learned = true;
	/* 30000 MB/s at 100% beats the model's 200 MB/s per %: 300 is a better (lower) bound. */
	rig_tick(&rig);
	assert_int_equal(rig.dec[0].mb_max, 34);
	rig_tick(&rig); /* 13600 at 34%: 36% over target, one sample is enough: along the chord */
	assert_int_equal(rig.dec[0].mb_max, 25);
	assert_string_equal(policy_decision_event(&rig.dec[0]),
			    "throttle: 13600 MB/s over target 10000: mb_max 34% -> 25%");
	rig_tick(&rig);
	assert_true(fabs(p->mbps - 10000) <= 500);
}

static void test_target_holds_without_sample_and_waits_for_escalation(void **state)
{
	struct policy_rig rig;

	(void)state;
	struct policy_partition *p = target_rig(&rig, RIG_WHOLE_PERCENTS, CLASS_BEST_EFFORT, 30000, 10000);
	rig.host.max_ladder = rig_floor_ladder(10);
	rig_tick(&rig);
	assert_int_equal(rig.dec[0].mb_max, 25);
	/* An invalid sample: the output holds. */
	p->valid = false;
	policy_target(&rig.host, rig.parts, 1, rig.dec);
	assert_int_equal(rig.dec[0].mb_max, 25);
	/* Escalated and at the floor: a low measurement does not raise the ceiling. */
	rig_goals(p)->target_mbps = 2000;
	rig_tick(&rig);
	assert_int_equal(rig.dec[0].mb_max, 10);
	p->cpu_quota_pct = 400;
	rig.demand[0] = 1000;
	for (int t = 0; t < 10; t++) {
		rig_tick(&rig);
		p->cpu_quota_pct = 400;
		assert_int_equal(rig.dec[0].mb_max, 10);
	}
	/* The target is removed: back to the configuration, said once. */
	rig_goals(p)->target_mbps = 0;
	rig_tick(&rig);
	assert_int_equal(rig.dec[0].mb_max, 100);
	assert_string_equal(policy_decision_event(&rig.dec[0]), "restore: no target_mbps any more: mb_max 10% -> 100%");
	rig_fini(&rig);
}

/* The controller's memory is its owner's to give (the engine gives it to a partition with a target):
 * without it a target is left alone, no move and nothing said; given, the next tick moves. */
static void test_target_without_its_memory_is_left_alone(void **state)
{
	struct policy_rig rig;

	(void)state;
	struct policy_partition *p = target_rig(&rig, RIG_WHOLE_PERCENTS, CLASS_BEST_EFFORT, 30000, 10000);
	rig.host.max_ladder = rig_floor_ladder(10);
	p->target = NULL;
	rig_tick(&rig);
	assert_int_equal(rig.dec[0].mb_max, 100);
	assert_string_equal(policy_decision_event(&rig.dec[0]), "");
	p->target = &rig.targets[0];
	rig_tick(&rig);
	assert_int_equal(rig.dec[0].mb_max, 25);
	rig_fini(&rig);
}

/* Targets over the domain, closed loop: 24000 + 20000 MB/s on the rig's 40000 with weights 3:1 (a's
 * part, 30000, is over its target: a keeps 24000 and b has the 16000 left). Each settles at its share,
 * and the overcommit is said once. */
static void test_target_overcommit_shared_by_weight(void **state)
{
	struct policy_rig rig;
	unsigned said = 0;

	(void)state;
	struct policy_partition *a = target_rig(&rig, RIG_WHOLE_PERCENTS, CLASS_DEFAULT, 30000, 24000);
	struct policy_partition *b = rig_add(&rig, "b", CLASS_DEFAULT, 30000);
	rig_goals(a)->weight = 300;
	rig_goals(b)->target_mbps = 20000;
	for (int t = 0; t < 100; t++) {
		rig_tick(&rig);
		for (size_t i = 0; i < 2; i++)
			said += strstr(policy_decision_event(&rig.dec[i]),
				       "overcommit: targets ask 44000 of 40000 MB/s") != NULL;
	}
	assert_int_equal(said, 1);
	assert_true(fabs(a->mbps - 24000) <= 0.05 * 24000);
	assert_true(fabs(b->mbps - 16000) <= 0.05 * 16000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_first_move_is_model_based),
		cmocka_unit_test(test_target_without_its_memory_is_left_alone),
		cmocka_unit_test(test_target_step_converges),
		cmocka_unit_test(test_target_no_two_step_oscillation),
		cmocka_unit_test(test_target_holds_within_band),
		cmocka_unit_test(test_target_anti_windup_at_model_ceiling),
		cmocka_unit_test(test_target_anti_windup_at_configured_bounds),
		cmocka_unit_test(test_target_anti_windup_at_hardware_floor),
		cmocka_unit_test(test_target_reseeds_on_wrong_model),
		cmocka_unit_test(test_target_holds_without_sample_and_waits_for_escalation),
		cmocka_unit_test(test_target_overcommit_shared_by_weight),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
