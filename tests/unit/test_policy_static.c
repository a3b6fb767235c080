/* The static policy (policies/static.c): it re-applies the configuration when the limits in force
 * drifted from it, and leaves alone what the hardware rounded or another policy decided. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backends/mpam/mpam_regs.h"
#include "tests/util/policy_rig.h"

static void test_static_reapplies_configuration(void **state)
{
	struct policy_host h = rig_host(RIG_WHOLE_PERCENTS);
	struct policy_partition p[4] = {
		rig_part("tenant", CLASS_DEFAULT, 1000),
		rig_part("batch", CLASS_BEST_EFFORT, 1000),
		rig_part("web", CLASS_LATENCY_CRITICAL, 1000),
		rig_part("closed", CLASS_DEFAULT, 0),
	};
	struct policy_decision d[4] = { { .mb_max = 5 }, { .mb_max = 5 }, { .mb_max = 5 }, { .mb_max = 5 } };

	(void)state;
	rig_goals(&p[0])->mb_max = 60;
	p[0].mb_max = 30; /* someone else wrote 30% */
	rig_goals(&p[1])->mb_max = 60;
	p[1].mb_max = 30; /* the guard may have done this */
	rig_goals(&p[2])->mb_min = 20;
	p[2].mb_min = 30; /* the guard programs guarantees as minimums */
	rig_goals(&p[2])->guarantee_mbps = 12000;
	p[3].open = false;
	for (size_t i = 0; i < 4; i++)
		rig_snap_goals(&h, &p[i]);
	policy_static(&h, p, 4, d);
	assert_int_equal(d[0].mb_max, 60);
	assert_string_equal(policy_decision_event(&d[0]),
			    "restore: mb_max 30% in force but 60% configured (changed outside mpamd)");
	assert_int_equal(d[1].mb_max, 60);
	assert_string_equal(policy_decision_event(&d[1]), "");
	assert_int_equal(d[2].mb_min, 20);
	assert_string_equal(policy_decision_event(&d[2]), "");
	assert_int_equal(d[3].mb_max, 5); /* not open: left alone */

	/* A ceiling above the configuration is never mpamd's; nor is a minimum without a hardware min. */
	rig_clear(d, N_OF(d)); /* and the texts go */
	memset(d, 0, sizeof(d));
	p[1].mb_max = 80;
	h.has_mb_min = false;
	for (size_t i = 0; i < 3; i++)
		rig_snap_goals(&h, &p[i]);
	policy_static(&h, p, 3, d);
	assert_string_equal(policy_decision_event(&d[1]),
			    "restore: mb_max 80% in force but 60% configured (changed outside mpamd)");
	assert_string_equal(policy_decision_event(&d[2]),
			    "restore: mb_min 30% in force but 20% configured (changed outside mpamd)");
	rig_clear(d, N_OF(d));
}

/* A limit is in force as a rung (60% at BWA_WD 4 is the band whose top is 62.5%): the configured
 * value on its rung is not a change; the rung below is. */
static void test_static_judges_rungs(void **state)
{
	struct policy_host h = rig_host(4); /* 16 bands of 6.25% */
	struct policy_partition p = rig_part("tenant", CLASS_DEFAULT, 1000);
	struct policy_decision d = { 0 };

	(void)state;
	rig_goals(&p)->mb_max = 60;
	rig_snap_goals(&h, &p);
	assert_true(p.cfg_max == 62.5);
	p.mb_max = 62.5;
	policy_static(&h, &p, 1, &d);
	assert_string_equal(policy_decision_event(&d), "");
	p.mb_max = 56.25;
	policy_static(&h, &p, 1, &d);
	assert_string_equal(policy_decision_event(&d),
			    "restore: mb_max 56.25% in force but 62.5% configured (changed outside mpamd)");
	rig_clear(&d, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_static_reapplies_configuration),
		cmocka_unit_test(test_static_judges_rungs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
