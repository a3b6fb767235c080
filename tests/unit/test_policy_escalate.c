/* The escalation actuator (policies/escalate.c): a best-effort partition over its budget at the MB
 * floor gets a CPU quota, in steps, when it may; the quota goes when the pressure ends. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "tests/util/policy_rig.h"

/* batch (best-effort) at 4000 MB/s on a host whose MB floor is 10%, and the actuator's last decision. */
struct scene {
	struct policy_host h;
	struct policy_partition p;
	struct policy_decision d;
};

static void scene_init(struct scene *s)
{
	s->h = rig_host(RIG_WHOLE_PERCENTS);
	s->h.max_ladder = rig_floor_ladder(10); /* an Intel-like floor */
	s->p = rig_part("batch", CLASS_BEST_EFFORT, 4000);
}

/* `n` ticks with batch's ceiling decided at `mb_max` by the policies before. */
static void ticks(struct scene *s, int n, unsigned mb_max)
{
	for (int t = 0; t < n; t++) {
		policy_decision_clear(&s->d);
		s->d = (struct policy_decision){ .mb_max = mb_max };
		policy_escalate(&s->h, &s->p, 1, &s->d);
		s->p.cpu_quota_pct = s->d.cpu_quota_pct; /* the actuator did it */
	}
}

/* The CPU quota decided after `n` such ticks. */
static unsigned quota_after(struct scene *s, int n, unsigned mb_max)
{
	ticks(s, n, mb_max);
	return s->d.cpu_quota_pct;
}

static void test_escalate_thresholds_and_restore(void **state)
{
	struct scene s = { 0 };

	(void)state;
	scene_init(&s);
	rig_goals(&s.p)->target_mbps = 2000;
	s.p.escalation_allowed = true;
	/* Over budget but not at the floor: the MB limit can still act. */
	assert_int_equal(quota_after(&s, 10, 20), 0);
	/* At the floor: two ticks are not enough, the third escalates in proportion (at most halving). */
	assert_int_equal(quota_after(&s, 2, 10), 0);
	assert_int_equal(quota_after(&s, 1, 10), 800);
	assert_string_equal(
		policy_decision_event(&s.d),
		"escalate: 4000 MB/s over its 2000 MB/s budget at the MB floor: CPU quota unlimited -> 800%");
	/* Held between steps; the next step waits three more ticks. */
	assert_int_equal(quota_after(&s, 2, 10), 800);
	assert_int_equal(quota_after(&s, 1, 10), 400);
	/* The pressure ends (the ceiling leaves the floor): restored after ten ticks, not before. */
	assert_int_equal(quota_after(&s, 9, 30), 400);
	assert_int_equal(quota_after(&s, 1, 30), 0);
	assert_string_equal(policy_decision_event(&s.d), "restore: pressure ended: CPU quota 400% -> unlimited");
	rig_clear(&s.d, 1);
}

static void test_escalate_respects_permission_and_guard_budget(void **state)
{
	struct scene s = { 0 };

	(void)state;
	scene_init(&s);
	/* The guard's wish is the budget. */
	s.p.guard = (struct guard_memory){ .throttled = true, .want_mbps = 1000 };
	assert_int_equal(quota_after(&s, 3, 10), 0);
	assert_string_equal(policy_decision_event(&s.d),
			    "escalate: 4000 MB/s over its 1000 MB/s budget at the MB floor but escalation is off");
	ticks(&s, 1, 10);
	assert_string_equal(policy_decision_event(&s.d), ""); /* said once per episode */
	s.p.escalation_allowed = true;
	assert_int_equal(quota_after(&s, 3, 10), 800);
	/* Permission withdrawn: the quota goes at once. */
	s.p.escalation_allowed = false;
	assert_int_equal(quota_after(&s, 1, 10), 0);
	assert_string_equal(policy_decision_event(&s.d), "restore: escalation is off: CPU quota 800% -> unlimited");
	/* Not best-effort: never escalated. */
	rig_goals(&s.p)->class = CLASS_DEFAULT;
	s.p.escalation_allowed = true;
	assert_int_equal(quota_after(&s, 5, 10), 0);
}

/* On the rig, with demand proportional to the CPU quota: the quota brings the partition under its
 * budget, and comes back in proportion while the pressure lasts. */
static void test_escalate_closed_loop(void **state)
{
	static const policy_fn chain[] = { policy_static, policy_target, policy_guard, policy_share, policy_escalate };
	struct policy_rig rig;

	(void)state;
	rig_init(&rig, RIG_WHOLE_PERCENTS, chain, N_OF(chain));
	rig.host.max_ladder = rig_floor_ladder(10);
	rig.quota_scales_demand = true;
	struct policy_partition *p = rig_add(&rig, "batch", CLASS_BEST_EFFORT, 30000);
	rig_goals(p)->target_mbps = 2000;
	p->escalation_allowed = true;
	int under = 0;
	for (int t = 1; t <= 40 && !under; t++) {
		rig_tick(&rig);
		if (p->mbps <= 2000 * 1.05 && p->cpu_quota_pct)
			under = t;
	}
	printf("escalation: under budget after %d ticks at CPU quota %u%%\n", under, p->cpu_quota_pct);
	assert_true(under > 0);
	assert_int_equal(rig.dec[0].mb_max, 10);
	unsigned quota = p->cpu_quota_pct;
	for (int t = 0; t < 30; t++)
		rig_tick(&rig);
	assert_true(p->mbps <= 2000 * 1.05);
	assert_true(p->cpu_quota_pct >= quota);
	/* The target is lifted: the pressure is gone, the quota goes after ten ticks. */
	rig_goals(p)->target_mbps = 0;
	for (int t = 0; t < 12; t++)
		rig_tick(&rig);
	assert_int_equal(p->cpu_quota_pct, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escalate_thresholds_and_restore),
		cmocka_unit_test(test_escalate_respects_permission_and_guard_budget),
		cmocka_unit_test(test_escalate_closed_loop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
