/* Quiet logs, on the simulated host and clock: an event is logged when something changes, a repeated
 * no-op is not. A guaranteed VM that sits idle, or wants less than its guarantee and jitters around
 * that level, is judged again and again; 60 s of ticks log the verdict once at most, and status and
 * the event log count the rest as folded. Monitoring sees the idle VM judged, and not short of its
 * guarantee. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/config/config.h"
#include "core/engine/engine.h"
#include "core/engine/engine_snapshot.h"
#include "core/report/events.h"
#include "policies/policy.h"
#include "tests/util/engine_util.h"
#include "tests/util/log_capture.h"

/* 60 s at the interval below. */
#define TICKS_60_S 600

/* A guaranteed VM of `demand` MB/s (noise_pct of jitter) beside a best-effort neighbour, on a host
 * with room to spare. */
static const char *host_text(char *buf, size_t size, unsigned demand, unsigned noise_pct)
{
	snprintf(buf, size,
		 "[global]\nbackend = sim\ninterval_ms = 100\n"
		 "[sim]\nmscs = 2\ncapacity_mbps = 10000\nnoise_pct = %u\nseed = 3\n"
		 "[partition \"vm\"]\nclass = latency-critical\nguarantee_mbps = 4000\nsim_demand = %u\n"
		 "[partition \"batch\"]\nclass = best-effort\nsim_demand = 3000\n",
		 noise_pct, demand);
	return buf;
}

struct quiet_run {
	unsigned vm_events;			/* events of partition vm in the log */
	unsigned vm_releases;			/* of which "release" */
	uint64_t total, folded;			/* the log's counters */
	json_int_t status_folded;		/* what status says */
	unsigned judged_domains, short_domains; /* the guard's verdict on vm, as monitoring reads it */
};

static struct quiet_run run_quiet(unsigned demand, unsigned noise_pct, const struct policy_chain *chain)
{
	char text[1024];
	struct config *config = config_from_text(host_text(text, sizeof(text), demand, noise_pct));
	struct engine_options opts = { .ticks = TICKS_60_S, .sim_clock = true, .policies = chain };
	struct quiet_run q = { 0 };

	struct engine *engine = engine_new_or_fail(config, &opts);
	engine_run_clean(engine, TICKS_60_S);
	const struct event_log *log = engine_events(engine);
	assert_true(log->total <= EVENTS_KEPT); /* every event is still in the log to be looked at */
	for (size_t i = 0; i < log->count; i++) {
		const struct event *ev = &log->items[i];
		if (strcmp(ev->partition, "vm"))
			continue;
		q.vm_events++;
		q.vm_releases += strncmp(ev->text, "release:", 8) == 0;
		if (chain == &policy_chain_default) /* on MBW_MIN hardware: the guarantee programmed once */
			assert_true(ev->tick == 0 && !strncmp(ev->text, "guarantee:", 10));
	}
	size_t slot;
	assert_non_null(engine_find(engine, "vm", &slot));
	for (unsigned d = 0; d < engine_domain_count(engine); d++) {
		const struct domain_status *ds = engine_partition_domain(engine, slot, d);
		q.judged_domains += ds->guard_judged;
		q.short_domains += ds->guard_short;
	}
	q.total = log->total;
	q.folded = log->folded;
	json_t *status = engine_snapshot_status(engine);
	q.status_folded = json_integer_value(json_object_get(status, "events_folded"));
	assert_true(json_is_integer(json_object_get(status, "events_folded")));
	/* The simulator knows its capacity: vm's guarantee is enforced. */
	assert_string_equal(json_string_value(json_object_get(status, "guarantees")), "enforced");
	json_decref(status);
	engine_free(engine);
	return q;
}

/* Idle: nothing to say about it at all, with a hardware minimum or without one. */
static void test_idle_guaranteed_vm_logs_nothing_in_60_s(void **state)
{
	(void)state;
	struct quiet_run without_min = run_quiet(0, 5, &policy_chain_without_min);
	assert_int_equal(without_min.vm_events, 0);
	assert_int_equal(without_min.total, 0);
	/* Monitoring sees it judged and not short (mpamd_partition_domain_guarantee_short 0). */
	assert_int_equal(without_min.judged_domains, 2);
	assert_int_equal(without_min.short_domains, 0);

	struct quiet_run with_min = run_quiet(0, 5, &policy_chain_default);
	assert_int_equal(with_min.vm_events, 1); /* guarantee: its minimum, programmed at the first tick (tick 0) */
	assert_int_equal(with_min.vm_releases, 0);
}

/* Wanting a quarter of its guarantee and jittering by 30%: its level is left and found again many
 * times; the operator hears it once, and the counters say how often it was not repeated. */
static void test_jittering_vm_below_its_guarantee_is_told_once(void **state)
{
	(void)state;
	struct quiet_run q = run_quiet(1000, 30, &policy_chain_without_min);

	assert_int_equal(q.vm_releases, 1);
	assert_int_equal(q.vm_events, 1);
	assert_true(q.folded >= 10);
	assert_int_equal(q.status_folded, (json_int_t)q.folded);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_guaranteed_vm_logs_nothing_in_60_s),
		cmocka_unit_test(test_jittering_vm_below_its_guarantee_is_told_once),
	};
	return cmocka_run_group_tests(tests, log_errors_only, NULL);
}
