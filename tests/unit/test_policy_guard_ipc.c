/* The guard's IPC signal (policies/guard_ipc.c): a latency-critical partition with ipc_guard whose
 * instructions per cycle fall well below their baseline while best-effort partitions use bandwidth
 * is a victim the guard cuts for, as it cuts for a guarantee. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tests/util/policy_rig.h"

#define IPC_BASE 1.5

/* web (latency-critical, no guarantee) beside batch (best-effort), and the guard's last decisions. */
struct scene {
	struct policy_host h;
	struct policy_partition p[2];
	struct policy_decision d[2];
};

/* web with `ipc_guard` beside batch on a host that is not saturated: bandwidth alone never makes web
 * a victim. */
static void scene_init(struct scene *s, double ipc_guard)
{
	s->h = rig_host(RIG_WHOLE_PERCENTS);
	s->h.has_mb_min = false;
	s->p[0] = rig_part("web", CLASS_LATENCY_CRITICAL, 5000);
	s->p[1] = rig_part("batch", CLASS_BEST_EFFORT, 30000);
	rig_goals(&s->p[0])->ipc_guard = ipc_guard;
	s->h.total_mbps = rig_total(s->p, 2); /* 35000 of 40000: below GUARD_SATURATED_FRACTION */
}

/* `n` ticks in which web's IPC is `ipc` (counted when `valid`). */
static void ticks(struct scene *s, int n, bool valid, double ipc)
{
	for (int t = 0; t < n; t++) {
		s->p[0].ipc_valid = valid;
		s->p[0].ipc = ipc;
		s->h.tick++;
		rig_decide(policy_guard, &s->h, s->p, 2, s->d);
		if (s->p[1].guard.throttled) /* the ceiling in force next tick, as the engine applies it */
			s->p[1].mb_max = s->d[1].mb_max;
	}
}

/* web's baseline learned at IPC_BASE, then three ticks at 1.0 (a third below it): batch is cut.
 * Returns batch's new ceiling. */
static double cut_for_low_ipc(struct scene *s)
{
	scene_init(s, 0.2);
	ticks(s, 5, true, IPC_BASE);
	ticks(s, 3, true, 1.0);
	return s->d[1].mb_max;
}

static void test_guard_ipc_baseline_is_an_ewma_of_unsqueezed_ticks(void **state)
{
	struct scene s = { 0 };

	(void)state;
	scene_init(&s, 0.2);
	ticks(&s, 1, true, IPC_BASE);
	assert_true(s.p[0].guard_ipc.baseline == IPC_BASE); /* the first counted tick sets it */
	ticks(&s, 1, true, IPC_BASE + 0.5);
	double moved = s.p[0].guard_ipc.baseline;
	printf("baseline after %.2f: %.4f\n", IPC_BASE + 0.5, moved);
	assert_true(moved > IPC_BASE && moved < IPC_BASE + 0.25); /* toward the sample, smoothed */
	ticks(&s, 200, true, 1.3);
	assert_true(fabs(s.p[0].guard_ipc.baseline - 1.3) < 1e-3); /* it follows a lasting change */
	double before = s.p[0].guard_ipc.baseline;
	s.h.total_mbps = RIG_CAPACITY; /* saturated while batch uses bandwidth: not learned */
	ticks(&s, 1, true, 1.2);
	assert_true(s.p[0].guard_ipc.baseline == before);
	assert_int_equal(s.p[0].guard_ipc.low_ticks, 0);
	s.h.total_mbps = rig_total(s.p, 2);
	ticks(&s, 1, true, 0.5); /* low: not learned */
	assert_true(s.p[0].guard_ipc.baseline == before);
	assert_int_equal(s.p[0].guard_ipc.low_ticks, 1);
	assert_false(s.p[1].guard.throttled);
	assert_string_equal(policy_decision_event(&s.d[1]), "");
}

/* GUARD_IPC_LOW_TICKS low ticks in a row make web a victim; a tick back within the fraction starts
 * the count again; without best-effort traffic a low IPC is nobody's fault. */
static void test_guard_ipc_needs_consecutive_low_ticks(void **state)
{
	struct scene s = { 0 };
	char want[128];

	(void)state;
	scene_init(&s, 0.2);
	ticks(&s, 5, true, IPC_BASE);
	for (int round = 0; round < 3; round++) {
		ticks(&s, 2, true, 1.0);
		ticks(&s, 1, true, IPC_BASE * 0.85); /* 15% below: within 20%, not low */
		assert_false(s.p[1].guard.throttled);
	}
	s.p[1].mbps = 0; /* batch idle */
	ticks(&s, 5, true, 1.0);
	assert_false(s.p[1].guard.throttled);
	assert_int_equal(s.p[0].guard_ipc.low_ticks, 0);
	s.p[1].mbps = 30000;
	ticks(&s, 2, true, 1.0);
	assert_false(s.p[1].guard.throttled);
	ticks(&s, 1, true, 1.0);
	assert_true(s.p[1].guard.throttled);
	double drop = 1 - 1.0 / s.p[0].guard_ipc.baseline;
	printf("cut: %s\n", policy_decision_event(&s.d[1]));
	snprintf(want, sizeof(want), "throttle: web's IPC 1.00 is %.0f%% below its baseline %.2f: mb_max 100%% -> ",
		 100 * drop, s.p[0].guard_ipc.baseline);
	assert_non_null(strstr(policy_decision_event(&s.d[1]), want));
	/* It takes the share of IPC lost from batch's use (a bounded multiplicative decrease). */
	double share = s.d[1].mb_max * RIG_CAPACITY / 100 / 30000;
	assert_true(share <= 1 - drop + 0.01 && share >= 0.5 - 0.01);
	rig_clear(s.d, N_OF(s.d));
}

/* A tick whose IPC was not counted changes neither the signal nor the baseline. */
static void test_guard_ipc_ignores_ticks_not_counted(void **state)
{
	struct scene s = { 0 };

	(void)state;
	scene_init(&s, 0.2);
	ticks(&s, 1, false, 0.1); /* not counted before any baseline: none is made */
	assert_true(s.p[0].guard_ipc.baseline == 0);
	ticks(&s, 5, true, IPC_BASE);
	double baseline = s.p[0].guard_ipc.baseline;
	ticks(&s, 1, false, 9.0);
	assert_true(s.p[0].guard_ipc.baseline == baseline);
	ticks(&s, 2, true, 1.0);
	for (int t = 0; t < 5; t++) {
		ticks(&s, 1, false, 0.0);
		assert_int_equal(s.p[0].guard_ipc.low_ticks, 2);
		assert_true(s.p[0].guard_ipc.baseline == baseline);
		assert_false(s.p[1].guard.throttled);
	}
	ticks(&s, 1, true, 1.0); /* the third counted low tick */
	assert_true(s.p[1].guard.throttled);
	rig_clear(s.d, N_OF(s.d));
}

/* While web's IPC is low nothing is given back; once it recovers the guard gives back after its
 * dwell. With ipc_guard off the same drop changes nothing. */
static void test_guard_ipc_restores_when_recovered_and_is_off_by_default(void **state)
{
	struct scene s = { 0 };

	(void)state;
	double cut = cut_for_low_ipc(&s);
	assert_true(s.p[1].guard.throttled && cut < 100);
	s.p[1].mbps = cut * RIG_CAPACITY / 100;
	s.h.total_mbps = rig_total(s.p, 2);
	for (int t = 0; t < 2; t++) { /* still low, not yet a victim again: held */
		ticks(&s, 1, true, 1.2);
		assert_int_equal(s.d[1].mb_max, cut);
	}
	int raised_at = 0;
	for (int t = 1; t <= 20 && !raised_at; t++) {
		ticks(&s, 1, true, IPC_BASE);
		if (s.d[1].mb_max > cut)
			raised_at = t;
	}
	printf("raised after %d recovered ticks: %s\n", raised_at, policy_decision_event(&s.d[1]));
	assert_true(raised_at > 0);
	assert_non_null(strstr(policy_decision_event(&s.d[1]), "restore: "));

	scene_init(&s, 0);
	ticks(&s, 5, true, IPC_BASE);
	ticks(&s, 10, true, 0.5);
	assert_false(s.p[1].guard.throttled);
	assert_true(s.p[0].guard_ipc.baseline == 0);
}

/* A cut that does not raise the IPC means its neighbours were not the cause: the drop becomes the
 * baseline and the guard stops cutting for it. */
static void test_guard_ipc_rebaselines_when_a_cut_does_not_help(void **state)
{
	struct scene s = { 0 };

	(void)state;
	double cut = cut_for_low_ipc(&s);
	assert_true(cut < 100);
	ticks(&s, 3, true, 1.0);
	printf("judged: %s\n", policy_decision_event(&s.d[0]));
	assert_non_null(strstr(policy_decision_event(&s.d[0]),
			       "release: web's IPC 1.00 did not rise when neighbours were cut"));
	assert_int_equal(s.d[1].mb_max, cut); /* not cut again */
	assert_true(fabs(s.p[0].guard_ipc.baseline - 1.0) < 1e-9);
	rig_clear(s.d, N_OF(s.d));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guard_ipc_baseline_is_an_ewma_of_unsqueezed_ticks),
		cmocka_unit_test(test_guard_ipc_needs_consecutive_low_ticks),
		cmocka_unit_test(test_guard_ipc_ignores_ticks_not_counted),
		cmocka_unit_test(test_guard_ipc_restores_when_recovered_and_is_off_by_default),
		cmocka_unit_test(test_guard_ipc_rebaselines_when_a_cut_does_not_help),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
