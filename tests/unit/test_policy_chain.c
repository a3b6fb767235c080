/* The chains of policies the engine runs, and the event text every decision carries (policies/chain.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "policies/policy.h"

static void test_event_text_joined_and_truncated(void **state)
{
	struct policy_decision d = { 0 };

	(void)state;
	policy_event(&d, "throttle: %s", "over target");
	policy_event(&d, "restore: %d%%", 25);
	assert_string_equal(policy_decision_event(&d), "throttle: over target; restore: 25%");
	policy_decision_clear(&d);
	policy_event(&d, "throttle: %0*d", POLICY_EVENT_MAX + 100, 7);
	assert_int_equal(strlen(policy_decision_event(&d)), POLICY_EVENT_MAX - 1);
	assert_string_equal(policy_decision_event(&d) + POLICY_EVENT_MAX - 4, "...");
	policy_event(&d, "restore: more"); /* a full event stays as it is */
	assert_int_equal(strlen(policy_decision_event(&d)), POLICY_EVENT_MAX - 1);
	policy_decision_clear(&d);
}

/* A decision holds no text until a policy speaks, and none once cleared (the engine clears every
 * decision after noting its event: texts are not kept per partition). */
static void test_event_text_only_while_there_is_one(void **state)
{
	struct policy_decision d = { 0 };

	(void)state;
	assert_null(d.event);
	assert_string_equal(policy_decision_event(&d), "");
	policy_event(&d, "restore: %s", "pressure ended");
	assert_non_null(d.event);
	policy_decision_clear(&d);
	assert_null(d.event);
	assert_string_equal(policy_decision_event(&d), "");
	policy_event(&d, "throttle: again"); /* a fresh text, not appended to the one cleared */
	assert_string_equal(policy_decision_event(&d), "throttle: again");
	policy_decision_clear(&d);
	policy_decision_clear(&d); /* twice is harmless */
	assert_null(d.event);
}

static void test_chains(void **state)
{
	(void)state;
	assert_int_equal(policy_chain_default.count, 5);
	assert_ptr_equal(policy_chain_default.fns[0], policy_static);
	assert_ptr_equal(policy_chain_default.fns[1], policy_target);
	assert_ptr_equal(policy_chain_default.fns[2], policy_guard);
	assert_ptr_equal(policy_chain_default.fns[3], policy_share);
	assert_ptr_equal(policy_chain_default.fns[4], policy_escalate);
	assert_int_equal(policy_chain_static.count, 1);
	assert_ptr_equal(policy_chain_static.fns[0], policy_static);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_text_joined_and_truncated),
		cmocka_unit_test(test_event_text_only_while_there_is_one),
		cmocka_unit_test(test_chains),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
