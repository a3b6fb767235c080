/* The policies on a host of two domains (bench/plant.c with per-domain figures, as the engine gives
 * them): the guard protects a victim where it is squeezed and cuts its neighbours there only, raises
 * no false alarm on either domain, the target controller holds a pinned partition's total by moving
 * the domain it uses, and share splits each domain on its own. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bench/plant.h"
#include "policies/policy.h"

#define CAPACITY 10000.0 /* per domain */

static void host_init(struct plant *pl, const struct policy_chain *chain, bool per_domain, bool capacity_known)
{
	struct plant_setup setup = { .domains = 2,
				     .capacity_mbps = CAPACITY,
				     .gran_pct = 1,
				     .min_pct = 1,
				     .noise = 0.02,
				     .seed = 17,
				     .capacity_known = capacity_known,
				     .per_domain = per_domain };

	assert_int_equal(plant_init(pl, &setup, chain, 8), 0);
}

static unsigned throttles(const struct plant *pl, size_t i)
{
	return strstr(policy_decision_event(&pl->dec[i]), "throttle") != NULL;
}

/* A victim and an aggressor on domain 0, a bystander alone on domain 1, no MBW_MIN. The victim is
 * short from the first tick; the guard, deciding per domain, restores it within 3 ticks by cutting
 * the aggressor alone, and the bystander keeps what it asks for. Deciding on the host's totals
 * (19800 of 20000 MB/s: saturated), the bystander, the largest user, is cut for a contention it has
 * no part in. */
static void test_guard_cuts_where_the_victim_is_squeezed(void **state)
{
	(void)state;
	for (int per_domain = 1; per_domain >= 0; per_domain--) {
		struct plant pl;
		host_init(&pl, &plant_guard_chain, per_domain, true);
		size_t web =
			plant_add(&pl, "web", CLASS_LATENCY_CRITICAL, 0, (struct plant_demand){ .base_mbps = 8000 });
		size_t agg = plant_add(&pl, "agg", CLASS_BEST_EFFORT, 0, (struct plant_demand){ .base_mbps = 30000 });
		size_t by = plant_add(&pl, "by", CLASS_BEST_EFFORT, 1, (struct plant_demand){ .base_mbps = 9800 });
		pl.goals[web].guarantee_mbps = 6000;
		int first_short = 0, restored = 0, by_cuts = 0;
		double by_worst = INFINITY;
		for (int t = 1; t <= 200; t++) {
			plant_tick(&pl);
			bool short_now = pl.truth[web] < 0.95 * 6000;
			if (short_now && !first_short)
				first_short = t;
			if (!short_now && first_short && !restored)
				restored = t;
			if (short_now && restored)
				restored = 0; /* not for good */
			by_cuts += throttles(&pl, by);
			by_worst = fmin(by_worst, pl.truth[by]);
		}
		printf("  %s: victim short at tick %d, back for good at tick %d; bystander cut %d times, its worst "
		       "%.0f of 9800 MB/s; aggressor on domain 0 at %g%%\n",
		       per_domain ? "per domain" : "host totals", first_short, restored, by_cuts, by_worst,
		       plant_max_at(&pl, agg, 0));
		if (per_domain) {
			assert_int_equal(first_short, 1);
			assert_true(restored > 0 && restored - first_short <= 3);
			assert_int_equal(by_cuts, 0);
			assert_true(by_worst >= 0.9 * 9800);
			assert_int_equal(plant_max_at(&pl, by, 1), 100);
			assert_int_equal(plant_max_at(&pl, agg, 1), 100); /* nothing to cut where it does not run */
			assert_true(plant_max_at(&pl, agg, 0) < 100);
		} else {
			assert_true(by_cuts > 0); /* what deciding on totals did */
		}
		plant_free(&pl);
	}
}

/* The cut's event says where. */
static void test_guard_event_names_the_domain(void **state)
{
	struct plant pl;

	(void)state;
	host_init(&pl, &plant_guard_chain, true, true);
	size_t web = plant_add(&pl, "web", CLASS_LATENCY_CRITICAL, 1, (struct plant_demand){ .base_mbps = 8000 });
	size_t agg = plant_add(&pl, "agg", CLASS_BEST_EFFORT, 1, (struct plant_demand){ .base_mbps = 30000 });
	pl.goals[web].guarantee_mbps = 6000;
	plant_tick(&pl);
	assert_non_null(strstr(policy_decision_event(&pl.dec[agg]), "throttle: web short of guarantee"));
	assert_non_null(strstr(policy_decision_event(&pl.dec[agg]), " on domain 1"));
	assert_int_equal(plant_decided_max_at(&pl, agg, 0), 100);
	plant_free(&pl);
}

/* The verdict monitoring shows (mpamd_partition_domain_guarantee_short): a victim squeezed on
 * domain 0 is short there and not on domain 1; an idle guaranteed partition is judged and not short
 * anywhere; a partition without a guarantee is not judged. Once the cut has restored the victim, it
 * is short nowhere. */
static void test_guard_verdict_per_domain(void **state)
{
	struct plant pl;

	(void)state;
	host_init(&pl, &plant_guard_chain, true, true);
	size_t web = plant_add(&pl, "web", CLASS_LATENCY_CRITICAL, 0, (struct plant_demand){ .base_mbps = 8000 });
	size_t idle = plant_add(&pl, "idle", CLASS_LATENCY_CRITICAL, 1, (struct plant_demand){ .base_mbps = 0 });
	size_t agg = plant_add(&pl, "agg", CLASS_BEST_EFFORT, 0, (struct plant_demand){ .base_mbps = 30000 });
	pl.goals[web].guarantee_mbps = 6000;
	pl.goals[idle].guarantee_mbps = 6000;
	plant_tick(&pl);
	const struct guard_domain_memory *w0 = &pl.parts[web].domains[0].guard, *w1 = &pl.parts[web].domains[1].guard;
	assert_true(w0->judged && w0->short_here);
	assert_true(w1->judged && !w1->short_here);
	for (unsigned d = 0; d < 2; d++) {
		assert_true(pl.parts[idle].domains[d].guard.judged);
		assert_false(pl.parts[idle].domains[d].guard.short_here);
		assert_false(pl.parts[agg].domains[d].guard.judged);
	}
	for (int t = 0; t < 10; t++)
		plant_tick(&pl);
	assert_true(pl.truth[web] >= 6000);
	assert_true(w0->judged && !w0->short_here);
	plant_free(&pl);
}

/* With MBW_MIN: the guarantee is reserved where the victim's traffic is, as a share of that domain
 * (a pinned victim: all of it on its domain, none on the other; a spread one: half on each). */
static void test_guard_minimum_where_the_traffic_is(void **state)
{
	struct plant pl;

	(void)state;
	host_init(&pl, &plant_guard_chain, true, true);
	pl.setup.has_mb_min = pl.host.has_mb_min = true;
	size_t pinned = plant_add(&pl, "pinned", CLASS_LATENCY_CRITICAL, 1, (struct plant_demand){ .base_mbps = 5000 });
	size_t spread = plant_add(&pl, "spread", CLASS_LATENCY_CRITICAL, PLANT_ALL_DOMAINS,
				  (struct plant_demand){ .base_mbps = 4000 });
	pl.goals[pinned].guarantee_mbps = 6000;
	pl.goals[spread].guarantee_mbps = 4000;
	for (int t = 0; t < 5; t++)
		plant_tick(&pl);
	assert_int_equal(pl.dec_min[pinned * 2 + 1], 60);
	assert_int_equal(pl.dec_min[pinned * 2 + 0], 0);
	assert_int_equal(pl.dec_min[spread * 2 + 0], 20);
	assert_int_equal(pl.dec_min[spread * 2 + 1], 20);
	plant_free(&pl);
}

/* No false alarms on either domain: a victim that wants 5000 of its 6000 on domain 0 beside a
 * best-effort neighbour, a best-effort partition saturating domain 1 on its own; with the capacity
 * known or learned, steady or bursty, nobody is throttled. */
static void test_guard_no_false_alarm_per_domain(void **state)
{
	(void)state;
	for (int known = 0; known <= 1; known++) {
		for (int bursty = 0; bursty <= 1; bursty++) {
			struct plant pl;
			host_init(&pl, &plant_guard_chain, true, known);
			size_t web = plant_add(&pl, "web", CLASS_LATENCY_CRITICAL, 0,
					       (struct plant_demand){ .base_mbps = 5000 });
			size_t be =
				plant_add(&pl, "be", CLASS_BEST_EFFORT, 0, (struct plant_demand){ .base_mbps = 3000 });
			size_t hog = plant_add(&pl, "hog", CLASS_BEST_EFFORT, 1,
					       (struct plant_demand){ .base_mbps = 20000 });
			pl.goals[web].guarantee_mbps = 6000;
			if (bursty)
				pl.demand[web] = (struct plant_demand){
					.base_mbps = 5000, .period = 20, .duty = 0.5, .low_mbps = 1000
				};
			unsigned cuts = 0;
			for (int t = 0; t < 300; t++) {
				plant_tick(&pl);
				cuts += throttles(&pl, be) + throttles(&pl, hog);
			}
			printf("  capacity %s, %s victim: %u throttle events\n", known ? "known" : "learned",
			       bursty ? "bursty" : "steady", cuts);
			assert_int_equal(cuts, 0);
			plant_free(&pl);
		}
	}
}

/* A partition pinned to domain 1 with a target: the controller moves domain 1 only, within 5% in a
 * few ticks, and leaves domain 0 (where it has no traffic) at its configured ceiling. */
static void test_target_moves_the_domain_it_uses(void **state)
{
	struct plant pl;

	(void)state;
	host_init(&pl, &plant_target_chain, true, true);
	size_t t = plant_add(&pl, "t", CLASS_DEFAULT, 1, (struct plant_demand){ .base_mbps = 9000 });
	plant_add(&pl, "other", CLASS_DEFAULT, 0, (struct plant_demand){ .base_mbps = 4000 });
	pl.goals[t].target_mbps = 4000;
	int settled = 0;
	for (int k = 1; k <= 60; k++) {
		plant_tick(&pl);
		bool within = fabs(pl.truth[t] - 4000) <= 0.05 * 4000;
		if (within && !settled)
			settled = k;
		if (!within)
			settled = 0;
	}
	printf("  pinned target: within 5%% from tick %d, domain 1 at %g%%, domain 0 at %g%%\n", settled,
	       plant_max_at(&pl, t, 1), plant_max_at(&pl, t, 0));
	assert_true(settled > 0 && settled <= 5);
	assert_int_equal(plant_max_at(&pl, t, 0), 100);
	assert_true(plant_max_at(&pl, t, 1) < 50);
	plant_free(&pl);
}

/* A partition spread over both domains: its total is held by the same setting on both. */
static void test_target_holds_a_spread_total(void **state)
{
	struct plant pl;

	(void)state;
	host_init(&pl, &plant_target_chain, true, true);
	size_t t = plant_add(&pl, "t", CLASS_DEFAULT, PLANT_ALL_DOMAINS, (struct plant_demand){ .base_mbps = 16000 });
	pl.goals[t].target_mbps = 6000;
	for (int k = 0; k < 30; k++)
		plant_tick(&pl);
	printf("  spread target: %.0f MB/s, domains at %g%% and %g%%\n", pl.truth[t], plant_max_at(&pl, t, 0),
	       plant_max_at(&pl, t, 1));
	assert_true(fabs(pl.truth[t] - 6000) <= 0.05 * 6000);
	assert_int_equal(plant_max_at(&pl, t, 0), plant_max_at(&pl, t, 1));
	plant_free(&pl);
}

/* Share on each domain alone: two best-effort partitions the guard holds back on domain 0 split what
 * it leaves them by weight; the one on domain 1, not held back, keeps its ceiling. */
static void test_share_splits_each_domain(void **state)
{
	struct plant pl;

	(void)state;
	host_init(&pl, &plant_guard_chain, true, true);
	size_t a = plant_add(&pl, "a", CLASS_BEST_EFFORT, 0, (struct plant_demand){ .base_mbps = 9000 });
	size_t b = plant_add(&pl, "b", CLASS_BEST_EFFORT, 0, (struct plant_demand){ .base_mbps = 9000 });
	size_t c = plant_add(&pl, "c", CLASS_BEST_EFFORT, 1, (struct plant_demand){ .base_mbps = 9000 });
	pl.goals[b].weight = 300;
	pl.pdom[a * 2].guard = (struct guard_domain_memory){ .throttled = true, .cut_pct = 40, .dwell = 1 };
	pl.pdom[b * 2].guard = (struct guard_domain_memory){ .throttled = true, .cut_pct = 40, .dwell = 1 };
	plant_tick(&pl);
	/* 80% between them, 1:3 */
	assert_int_equal(plant_decided_max_at(&pl, a, 0), 20);
	assert_int_equal(plant_decided_max_at(&pl, b, 0), 60);
	assert_int_equal(plant_decided_max_at(&pl, a, 1), 100);
	assert_int_equal(plant_decided_max_at(&pl, c, 1), 100);
	assert_non_null(strstr(policy_decision_event(&pl.dec[a]), "on domain 0"));
	plant_free(&pl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guard_cuts_where_the_victim_is_squeezed),
		cmocka_unit_test(test_guard_event_names_the_domain),
		cmocka_unit_test(test_guard_verdict_per_domain),
		cmocka_unit_test(test_guard_minimum_where_the_traffic_is),
		cmocka_unit_test(test_guard_no_false_alarm_per_domain),
		cmocka_unit_test(test_target_moves_the_domain_it_uses),
		cmocka_unit_test(test_target_holds_a_spread_total),
		cmocka_unit_test(test_share_splits_each_domain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
