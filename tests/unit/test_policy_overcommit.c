/* Goals a domain cannot all hold (policies/overcommit.c): the guard fits the minimums of a domain
 * within 100% of it (latency-critical first, in proportion to what each asks) and says once that the
 * guarantees or minimums are over; the target controller shares a domain its targets and guarantees
 * sum over (guarantees first, then by weight, each up to its target) and says so once. Once means: not
 * again on the next ticks, again after it ended and came back (and, for targets, when the shares
 * change). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tests/util/policy_rig.h"

#define DOMAIN_MBPS 20000.0

/* One tick of `fn` on a host of one DOMAIN_MBPS domain, its minimums then in force (as the apply
 * leaves them); returns how many decisions carry an overcommit event, and the first in *text. */
static int tick(policy_fn fn, const struct policy_host *h, struct policy_partition *p, size_t n,
		struct policy_decision *d, const char **text)
{
	int events = 0;

	rig_decide(fn, h, p, n, d);
	*text = NULL;
	for (size_t i = 0; i < n; i++) {
		p[i].mb_min = d[i].mb_min;
		p[i].mb_max = d[i].mb_max;
		if (strstr(policy_decision_event(&d[i]), "overcommit:")) {
			events++;
			*text = *text ? *text : strstr(policy_decision_event(&d[i]), "overcommit:");
		}
	}
	return events;
}

static struct policy_host host_of(unsigned wd, bool has_min)
{
	struct policy_host h = rig_host(wd);

	h.capacity_mbps = DOMAIN_MBPS;
	h.has_mb_min = has_min;
	return h;
}

static struct policy_partition guaranteed(const char *name, uint32_t guarantee, double mbps)
{
	struct policy_partition p = rig_part(name, CLASS_LATENCY_CRITICAL, mbps);

	rig_goals(&p)->guarantee_mbps = guarantee;
	return p;
}

/* Two domains of DOMAIN_MBPS under partitions p[0] and p[1], p[i] measuring mbps[i][k] on domain k,
 * configured and in force at 100% / 0% there. */
struct two_domains {
	struct policy_host_domain hd[2];
	struct policy_domain dom[2][2];
	double max_at[2][2], min_at[2][2];
};

/* Two partitions, their host (of one domain, or of two laid out in t), their decisions and what one
 * tick said. */
struct two_parts {
	struct policy_host h;
	struct policy_partition p[2];
	struct two_domains t;
	struct policy_decision d[2];
	const char *text;
};

/* a and b on a host of one DOMAIN_MBPS domain. */
static void two_on_one(struct two_parts *f, unsigned wd, bool has_min, struct policy_partition a,
		       struct policy_partition b)
{
	*f = (struct two_parts){ .h = host_of(wd, has_min) };
	f->p[0] = a;
	f->p[1] = b;
}

/* One tick of fn on both (tick). */
static int tick2(policy_fn fn, struct two_parts *f)
{
	return tick(fn, &f->h, f->p, 2, f->d, &f->text);
}

/* 12000 + 10000 MB/s on 20000: 60% + 50% asked, never more than 100% programmed, shared in proportion
 * to the guarantees; said once, again after it went away and came back. */
static void test_guarantees_over_capacity(void **state)
{
	struct two_parts f;

	(void)state;
	two_on_one(&f, 8, true, guaranteed("db", 12000, 11000), guaranteed("web", 10000, 9000));
	f.h.total_mbps = 20000;
	assert_int_equal(tick2(policy_guard, &f), 1);
	assert_true(f.d[0].mb_min + f.d[1].mb_min <= 100);
	assert_true(f.d[0].mb_min + f.d[1].mb_min > 98); /* rounded down to 1/256 steps, not given away */
	assert_true(f.d[0].mb_min > f.d[1].mb_min);
	assert_true(fabs(f.d[0].mb_min / f.d[1].mb_min - 1.2) < 0.02);
	assert_non_null(strstr(f.text, "guarantees ask 22000 of 20000 MB/s (db 12000, web 10000)"));
	/* 60.16% (the MBW_MIN step at or above 60%) and 50% asked */
	assert_non_null(strstr(f.text, "in proportion to guarantee: db 54.2969%, web 45.3125% (of 110.156% asked)"));
	assert_non_null(strstr(policy_decision_event(&f.d[0]), "overcommit:")); /* on the larger one */
	for (int t = 0; t < 5; t++) {
		assert_int_equal(tick2(policy_guard, &f), 0);
		assert_true(f.d[0].mb_min + f.d[1].mb_min <= 100);
		assert_false(
			strstr(policy_decision_event(&f.d[0]), "guarantee: mb_min")); /* in force: nothing raised */
	}
	rig_goals(&f.p[1])->guarantee_mbps = 5000; /* fits: over */
	assert_int_equal(tick2(policy_guard, &f), 0);
	assert_true(f.d[0].mb_min == 154.0 / 256 * 100 && f.d[1].mb_min == 25); /* the steps at or above 60% and 25% */
	rig_goals(&f.p[1])->guarantee_mbps = 10000;				/* and back */
	assert_int_equal(tick2(policy_guard, &f), 1);
	assert_true(f.d[0].mb_min + f.d[1].mb_min <= 100);
	rig_clear(f.d, N_OF(f.d));
}

/* Guarantees that fit keep their minimums and say nothing of an overcommit. */
static void test_guarantees_that_fit(void **state)
{
	struct two_parts f;

	(void)state;
	two_on_one(&f, RIG_WHOLE_PERCENTS, true, guaranteed("db", 8000, 7000), guaranteed("web", 10000, 9000));
	assert_int_equal(tick2(policy_guard, &f), 0);
	assert_int_equal(f.d[0].mb_min, 40);
	assert_int_equal(f.d[1].mb_min, 50);
	assert_non_null(strstr(policy_decision_event(&f.d[0]), "guarantee: mb_min 0% -> 40%"));
	rig_clear(f.d, N_OF(f.d));
}

/* Latency-critical minimums first: a best-effort mb_min gets what they leave. */
static void test_latency_critical_first(void **state)
{
	struct two_parts f;

	(void)state;
	two_on_one(&f, RIG_WHOLE_PERCENTS, true, guaranteed("db", 15000, 14000),
		   rig_part("batch", CLASS_BEST_EFFORT, 5000));
	rig_goals(&f.p[1])->mb_min = 40;
	assert_int_equal(tick2(policy_guard, &f), 1);
	assert_int_equal(f.d[0].mb_min, 75);
	assert_int_equal(f.d[1].mb_min, 25);
	assert_non_null(strstr(f.text, "overcommit: minimums ask 115%: not all can be met"));
	assert_non_null(strstr(policy_decision_event(&f.d[0]), "overcommit:"));
	rig_clear(f.d, N_OF(f.d));
}

/* Without a hardware minimum nothing is programmed, and the event says how they are shared then. */
static void test_guarantees_without_minimum(void **state)
{
	struct two_parts f;

	(void)state;
	two_on_one(&f, RIG_WHOLE_PERCENTS, false, guaranteed("db", 12000, 11000), guaranteed("web", 10000, 9000));
	assert_int_equal(tick2(policy_guard, &f), 1);
	assert_int_equal(f.d[0].mb_min + f.d[1].mb_min, 0);
	assert_non_null(strstr(f.text, "no hardware minimum"));
	assert_int_equal(tick2(policy_guard, &f), 0);
	rig_clear(f.d, N_OF(f.d));
}

/* A capacity only learned is no ground for the claim: nothing is said. */
static void test_learned_capacity_says_nothing(void **state)
{
	struct two_parts f;

	(void)state;
	two_on_one(&f, RIG_WHOLE_PERCENTS, true, guaranteed("db", 12000, 11000), guaranteed("web", 10000, 9000));
	f.h.capacity_learned = true;
	assert_int_equal(tick2(policy_guard, &f), 0);
	assert_int_equal(tick2(policy_share, &f), 0);
	rig_clear(f.d, N_OF(f.d));
}

static void on_two_domains(struct two_domains *t, struct policy_host *h, struct policy_partition *p,
			   struct policy_decision *d, const double mbps[2][2])
{
	for (int k = 0; k < 2; k++)
		t->hd[k] = (struct policy_host_domain){ .capacity_mbps = DOMAIN_MBPS,
							.total_mbps = mbps[0][k] + mbps[1][k],
							.total_valid = true };
	h->domain_count = 2;
	h->domains = t->hd;
	for (int i = 0; i < 2; i++) {
		p[i].domains = t->dom[i];
		policy_decision_clear(&d[i]);
		d[i] = (struct policy_decision){ .mb_max = 100, .mb_max_at = t->max_at[i], .mb_min_at = t->min_at[i] };
		for (int k = 0; k < 2; k++) {
			t->dom[i][k] = (struct policy_domain){
				.cfg_max = 100, .valid = true, .mbps = mbps[i][k], .mb_max = 100
			};
			t->max_at[i][k] = 100;
			t->min_at[i][k] = 0;
		}
	}
}

/* Two domains: db pinned to domain 1 with 16000 of its 20000, web spread 8000 + 8000: domain 1 is
 * over (24000), domain 0 is not, and only domain 1's minimums are fitted. */
static void test_one_domain_of_two(void **state)
{
	struct policy_host h = host_of(RIG_WHOLE_PERCENTS, true);
	struct policy_partition p[2] = { guaranteed("db", 16000, 15000), guaranteed("web", 16000, 16000) };
	static const double mbps[2][2] = { { 0, 15000 }, { 8000, 8000 } };
	struct two_domains t;
	struct policy_decision d[2] = { 0 };

	(void)state;
	on_two_domains(&t, &h, p, d, mbps);
	policy_guard(&h, p, 2, d);
	assert_int_equal(t.min_at[0][0], 0);
	assert_int_equal(t.min_at[1][0], 40);		     /* domain 0: web's half, 8000 of 20000 */
	assert_true(t.min_at[0][1] + t.min_at[1][1] <= 100); /* domain 1: 80% + 40% asked */
	assert_true(t.min_at[0][1] > t.min_at[1][1]);
	assert_non_null(
		strstr(policy_decision_event(&d[0]), "overcommit: guarantees ask 24000 of 20000 MB/s on domain 1"));
	assert_null(strstr(policy_decision_event(&d[1]), "overcommit:"));
	rig_clear(d, N_OF(d));
}

/* A partition with a target, and the controller's memory the engine gives it (zeroed: from a ring
 * that outlives a test's few partitions). */
static struct policy_partition targeted(const char *name, uint32_t target, double mbps)
{
	static struct target_memory memory[16];
	static size_t next;
	struct policy_partition p = rig_part(name, CLASS_BEST_EFFORT, mbps);

	rig_goals(&p)->target_mbps = target;
	p.target = &memory[next++ % N_OF(memory)];
	*p.target = (struct target_memory){ 0 };
	return p;
}

/* Targets over the capacity: said once by the target controller, not on the next ticks, nor while the
 * sum stays within 2% below the whole; again when the budgets changed and it came back over. */
static void test_targets_over_capacity(void **state)
{
	struct policy_host h = host_of(RIG_WHOLE_PERCENTS, true);
	struct policy_partition p[3] = { targeted("a", 15000, 10000), targeted("b", 9000, 9000),
					 rig_part("c", CLASS_BEST_EFFORT, 1000) };
	struct policy_decision d[3] = { 0 };
	const char *text;

	(void)state;
	assert_int_equal(tick(policy_target, &h, p, 3, d, &text), 1);
	assert_non_null(strstr(text, "overcommit: targets ask 24000 of 20000 MB/s (a 15000, b 9000)"));
	assert_non_null(strstr(policy_decision_event(&d[0]), "overcommit:"));
	assert_int_equal(tick(policy_target, &h, p, 3, d, &text), 0);
	assert_int_equal(tick(policy_share, &h, p, 3, d, &text), 0); /* share says nothing of targets */
	rig_goals(&p[0])->target_mbps = 10700; /* 19700: fits, within the 2% below the whole: not said */
	assert_int_equal(tick(policy_target, &h, p, 3, d, &text), 0);
	assert_int_equal(p[0].target->budget, 0);
	rig_goals(&p[0])->target_mbps = 5000; /* fits */
	assert_int_equal(tick(policy_target, &h, p, 3, d, &text), 0);
	rig_goals(&p[0])->target_mbps = 15000;
	assert_int_equal(tick(policy_target, &h, p, 3, d, &text), 1);
	rig_clear(d, N_OF(d));
}

/* Two targets on one domain of 20000 MB/s, measured under no ceiling (the gain is then the capacity
 * line's, 200 MB/s per %): each controller's first move is to its budget. */
static void check_shared(uint32_t weight_a, uint32_t weight_b, uint32_t budget_a, uint32_t budget_b, const char *said)
{
	struct policy_host h = host_of(RIG_WHOLE_PERCENTS, false);
	struct policy_partition p[2] = { targeted("a", 12000, 11000), targeted("b", 10000, 9000) };
	struct policy_decision d[2] = { 0 };
	const char *text;

	rig_goals(&p[0])->weight = weight_a;
	rig_goals(&p[1])->weight = weight_b;
	assert_int_equal(tick(policy_target, &h, p, 2, d, &text), 1);
	assert_non_null(strstr(text, said));
	assert_non_null(strstr(policy_decision_event(&d[0]), "overcommit:")); /* on the larger */
	/* a budget of 0: the target itself */
	assert_int_equal(p[0].target->budget ? p[0].target->budget : 12000, budget_a);
	assert_int_equal(p[1].target->budget ? p[1].target->budget : 10000, budget_b);
	assert_int_equal(d[0].mb_max, budget_a / 200);
	assert_int_equal(d[1].mb_max, budget_b / 200);
	assert_int_equal(tick(policy_target, &h, p, 2, d, &text), 0); /* once */
	rig_clear(d, N_OF(d));
}

/* 12000 + 10000 on 20000, weights 1:1: 10000 each. */
static void test_targets_shared_equally(void **state)
{
	(void)state;
	check_shared(100, 100, 10000, 10000,
		     "overcommit: targets ask 22000 of 20000 MB/s (a 12000, b 10000): not all can be met; shared by "
		     "weight, each up to its target: a 10000, b 10000");
}

/* Weights 3:1: a's part (15000) is over its target, so a keeps 12000 and b has the 8000 left. */
static void test_targets_shared_by_weight(void **state)
{
	(void)state;
	check_shared(300, 100, 12000, 8000, "each up to its target: a 12000, b 8000");
}

/* A guarantee is served first: 6000 of 20000 guaranteed leaves 14000 to targets of 10000 and 5000,
 * which alone would fit; b keeps its 5000, a has the 9000 left. Said again when the shares change, and
 * once the goals fit again the targets are held again. */
static void test_guarantee_then_targets(void **state)
{
	struct policy_host h = host_of(RIG_WHOLE_PERCENTS, false);
	struct policy_partition p[3] = { guaranteed("db", 6000, 5000), targeted("a", 10000, 9000),
					 targeted("b", 5000, 4000) };
	struct policy_decision d[3] = { 0 };
	const char *text;

	(void)state;
	assert_int_equal(tick(policy_target, &h, p, 3, d, &text), 1);
	assert_non_null(strstr(text, "overcommit: guarantees and targets ask 21000 of 20000 MB/s (guarantees db 6000; "
				     "targets a 10000, b 5000): not all can be met; guarantees first, the 14000 MB/s "
				     "left shared by weight, each up to its target: a 9000, b 5000"));
	assert_non_null(strstr(policy_decision_event(&d[1]), "overcommit:")); /* the largest ask */
	assert_int_equal(p[1].target->budget, 9000);
	assert_int_equal(p[2].target->budget, 0); /* its target */
	assert_int_equal(d[1].mb_max, 45);
	assert_int_equal(d[2].mb_max, 25);
	assert_int_equal(tick(policy_target, &h, p, 3, d, &text), 0);
	rig_goals(&p[0])->guarantee_mbps = 8000; /* 12000 left: a 7000 */
	assert_int_equal(tick(policy_target, &h, p, 3, d, &text), 1);
	assert_non_null(strstr(text, "the 12000 MB/s left shared by weight, each up to its target: a 7000, b 5000"));
	assert_int_equal(p[1].target->budget, 7000);
	rig_goals(&p[0])->guarantee_mbps = 4000; /* 19000: they fit */
	assert_int_equal(tick(policy_target, &h, p, 3, d, &text), 0);
	assert_int_equal(p[1].target->budget, 0);
	assert_non_null(strstr(policy_decision_event(&d[1]), "target 10000 MB/s again"));
	rig_clear(d, N_OF(d));
}

/* Two domains of 20000: a (target 24000) on domain 1 only, b (20000) half on each. */
static void a_and_b_on_two_domains(struct two_parts *f)
{
	static const double mbps[2][2] = { { 0, 12000 }, { 10000, 10000 } };

	*f = (struct two_parts){ .h = host_of(RIG_WHOLE_PERCENTS, false) };
	f->p[0] = targeted("a", 24000, 12000);
	f->p[1] = targeted("b", 20000, 20000);
	on_two_domains(&f->t, &f->h, f->p, f->d, mbps);
}

/* Two domains of 20000: a (target 24000) runs on domain 1 only, b (20000) half on each. Domain 1 is
 * over (a 24000 + b 10000): 10000 each there, so a holds 10000 and b its whole target (its 10000 there
 * fits its part). The traffic's split jitters: b's ask there moving by 1% of its target moves no
 * budget and says nothing; by 10%, b holds 18000 and it is said again. */
static void test_targets_on_two_domains(void **state)
{
	struct two_parts f;

	(void)state;
	a_and_b_on_two_domains(&f);
	assert_int_equal(tick2(policy_target, &f), 1);
	assert_non_null(strstr(f.text,
			       "overcommit: targets ask 34000 of 20000 MB/s on domain 1 (a 24000, b 10000): not "
			       "all can be met; shared by weight, each up to its target: a 10000, b 20000"));
	assert_int_equal(f.p[0].target->budget, 10000);
	assert_int_equal(f.p[1].target->budget, 0);
	f.t.dom[1][0].mbps = 9800; /* b's ask on domain 1: 10200, a cut of 200 */
	f.t.dom[1][1].mbps = 10200;
	assert_int_equal(tick2(policy_target, &f), 0);
	assert_int_equal(f.p[1].target->budget, 0);
	f.t.dom[1][0].mbps = 8000; /* 12000: a cut of 2000 */
	f.t.dom[1][1].mbps = 12000;
	assert_int_equal(tick2(policy_target, &f), 1);
	assert_non_null(strstr(f.text, "each up to its target: a 10000, b 18000"));
	assert_int_equal(f.p[1].target->budget, 18000);
	rig_clear(f.d, N_OF(f.d));
}

/* What was said is forgotten per domain: domain 0's overcommit (told before) ended while domain 1's is
 * said, on the same tick; domain 0 is forgotten on both partitions, domain 1 kept, so the next tick
 * says nothing again. The guard's minimums likewise: domain 0 fits, domain 1 does not. */
static void test_forgotten_per_domain(void **state)
{
	struct two_parts f;

	(void)state;
	a_and_b_on_two_domains(&f);
	f.p[0].overcommit.told_targets = f.p[1].overcommit.told_targets = 1; /* domain 0 was over */
	assert_int_equal(tick2(policy_target, &f), 1);
	assert_non_null(strstr(f.text, "on domain 1"));
	assert_int_equal(f.p[0].overcommit.told_targets, 2);
	assert_int_equal(f.p[1].overcommit.told_targets, 2);
	assert_int_equal(tick2(policy_target, &f), 0);

	struct policy_host hm = host_of(RIG_WHOLE_PERCENTS, true);
	struct policy_partition g[2] = { guaranteed("db", 16000, 15000), guaranteed("web", 16000, 16000) };
	static const double gm[2][2] = { { 0, 15000 }, { 8000, 8000 } };
	on_two_domains(&f.t, &hm, g, f.d, gm);
	g[0].overcommit.told_minimums = g[1].overcommit.told_minimums = 1;
	policy_guard(&hm, g, 2, f.d);
	assert_non_null(strstr(policy_decision_event(&f.d[0]), "on domain 1"));
	assert_int_equal(g[0].overcommit.told_minimums, 2);
	assert_int_equal(g[1].overcommit.told_minimums, 2);
	rig_clear(f.d, N_OF(f.d));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guarantees_over_capacity),      cmocka_unit_test(test_guarantees_that_fit),
		cmocka_unit_test(test_latency_critical_first),	      cmocka_unit_test(test_guarantees_without_minimum),
		cmocka_unit_test(test_learned_capacity_says_nothing), cmocka_unit_test(test_one_domain_of_two),
		cmocka_unit_test(test_targets_over_capacity),	      cmocka_unit_test(test_targets_shared_equally),
		cmocka_unit_test(test_targets_shared_by_weight),      cmocka_unit_test(test_guarantee_then_targets),
		cmocka_unit_test(test_targets_on_two_domains),	      cmocka_unit_test(test_forgotten_per_domain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
