/* The share policy (policies/share.c): the best-effort partitions the guard holds back split what it
 * allows them by weight. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/util/policy_rig.h"

/* Calls share on the decisions as they are, with the goals snapped as the engine gives them. */
static void share(const struct policy_host *h, struct policy_partition p[4], struct policy_decision d[4])
{
	for (int i = 0; i < 4; i++)
		rig_snap_goals(h, &p[i]);
	policy_share(h, p, 4, d);
}

/* The decisions the guard left: light and heavy cut to 30%, the others at their configuration. */
static void guard_cut_light_and_heavy(struct policy_decision d[4])
{
	for (int i = 0; i < 4; i++) {
		policy_decision_clear(&d[i]);
		d[i] = (struct policy_decision){ .mb_max = i < 2 ? 30 : 100 };
	}
}

static void test_share_splits_allowance_by_weight(void **state)
{
	/* light and heavy held back by the guard, free not; web is not best-effort */
	struct policy_partition p[4] = {
		rig_part("light", CLASS_BEST_EFFORT, 12000),
		rig_part("heavy", CLASS_BEST_EFFORT, 12000),
		rig_part("free", CLASS_BEST_EFFORT, 3000),
		rig_part("web", CLASS_LATENCY_CRITICAL, 13000),
	};
	struct policy_host h = rig_host(RIG_WHOLE_PERCENTS);
	struct policy_decision d[4] = { 0 };

	(void)state;
	rig_goals(&p[1])->weight = 300;
	p[0].domains[0].guard = (struct guard_domain_memory){ .throttled = true, .cut_pct = 30 };
	p[1].domains[0].guard = (struct guard_domain_memory){ .throttled = true, .cut_pct = 30 };
	p[0].mb_max = p[1].mb_max = 30;
	guard_cut_light_and_heavy(d);
	share(&h, p, d);
	assert_int_equal(d[0].mb_max, 15);
	assert_int_equal(d[1].mb_max, 45);
	assert_int_equal(d[2].mb_max, 100); /* not held back by the guard: not contended */
	assert_int_equal(d[3].mb_max, 100);
	assert_string_equal(policy_decision_event(&d[0]),
			    "throttle: weight 100 of a 60% best-effort allowance: mb_max 30% -> 15%");
	assert_string_equal(policy_decision_event(&d[1]),
			    "restore: weight 300 of a 60% best-effort allowance: mb_max 30% -> 45%");
	/* Water-filling: a part above the configured ceiling goes to the others. */
	rig_goals(&p[1])->mb_max = 40;
	guard_cut_light_and_heavy(d);
	share(&h, p, d);
	assert_int_equal(d[0].mb_max, 20);
	assert_int_equal(d[1].mb_max, 40);
	/* One partition's allowance is its own; target-controlled ones are not shared. */
	rig_goals(&p[1])->target_mbps = 5000;
	policy_decision_clear(&d[0]);
	d[0] = (struct policy_decision){ .mb_max = 30 };
	policy_decision_clear(&d[1]);
	d[1] = (struct policy_decision){ .mb_max = 30 };
	share(&h, p, d);
	assert_int_equal(d[0].mb_max, 30);
	assert_int_equal(d[1].mb_max, 30);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_share_splits_allowance_by_weight),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
