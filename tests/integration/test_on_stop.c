/* What stays in force when mpamd stops (the on_stop key, --on-stop): on the simulated host, the guard
 * cuts a best-effort neighbour for a starved guaranteed VM; after the stop the cut is still in force
 * with keep (the default), the configured ceiling with configured, no ceiling at all with reset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "core/config/config.h"
#include "core/engine/engine.h"
#include "policies/policy.h"
#include "tests/util/engine_util.h"
#include "tests/util/log_capture.h"

#define TICKS 40

/* batch's ceiling in force after `TICKS` ticks and the stop, and the lowest it had while running. */
struct after_stop {
	double running_min, after;
};

static void on_tick(void *ctx, struct engine *engine)
{
	struct after_stop *a = ctx;
	size_t slot;
	const struct partition_status *st = engine_find(engine, "batch", &slot);

	if (st && st->mb_max < a->running_min)
		a->running_min = st->mb_max;
}

static struct after_stop run(const char *on_stop_key, bool given, unsigned mode)
{
	char text[1024];
	snprintf(text, sizeof(text),
		 "[global]\nbackend = sim\ninterval_ms = 100\nmb_max_mode = hard\n%s\n"
		 "[sim]\nmscs = 1\ncapacity_mbps = 10000\n"
		 "[partition \"web\"]\nclass = latency-critical\nguarantee_mbps = 6000\nsim_demand = 8000\n"
		 "[partition \"batch\"]\nclass = best-effort\nmb_max = 80\nsim_demand = 30000\n",
		 on_stop_key);
	struct after_stop a = { .running_min = 100 };
	struct engine_options opts = { .ticks = TICKS,
				       .sim_clock = true,
				       .policies = &policy_chain_without_min,
				       .on_stop_given = given,
				       .on_stop = mode,
				       .on_tick = on_tick,
				       .on_tick_ctx = &a };
	struct engine *engine = NULL;
	struct err err = { "" };

	if (engine_new(config_from_text(text), &opts, &engine, &err) < 0)
		fail_msg("engine: %s", err.text);
	engine_run_clean(engine, TICKS);
	size_t slot;
	a.after = engine_find(engine, "batch", &slot)->mb_max;
	engine_free(engine);
	return a;
}

static void test_keep_leaves_the_guards_cut(void **state)
{
	(void)state;
	struct after_stop a = run("", false, 0); /* the default */
	assert_true(a.running_min < 80);	 /* the guard did cut */
	assert_true(a.after < 80);
}

static void test_configured_releases_the_cut_to_the_configured_ceiling(void **state)
{
	(void)state;
	struct after_stop a = run("on_stop = configured", false, 0);
	assert_true(a.running_min < 80);
	assert_true(a.after > 79 && a.after < 81); /* 80%, in the hardware's 1/256 steps */
}

/* --on-stop replaces the key; --reset-on-exit is --on-stop reset. */
static void test_the_option_replaces_the_key(void **state)
{
	(void)state;
	struct after_stop a = run("on_stop = keep", true, STOP_RESET);
	assert_true(a.running_min < 80);
	assert_true(a.after == 100);
	a = run("on_stop = reset", true, STOP_CONFIGURED);
	assert_true(a.after > 79 && a.after < 81); /* 80%, in the hardware's 1/256 steps */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keep_leaves_the_guards_cut),
		cmocka_unit_test(test_configured_releases_the_cut_to_the_configured_ceiling),
		cmocka_unit_test(test_the_option_replaces_the_key),
	};
	return cmocka_run_group_tests(tests, log_errors_only, NULL);
}
