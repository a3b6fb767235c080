/* The feedback policies on synthetic histories: each policy alone on hand-built ticks, and in a
 * small closed loop whose plant is the simulator's own traffic model (traffic_serve) behind MPAM's
 * MBW_MAX/MBW_MIN rounding, with a one-tick delay between a decision and its measurement. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/sim/traffic.h"
#include "backends/mpam/mpam_regs.h"
#include "policies/policy.h"

#define N_OF(a)	 (sizeof(a) / sizeof((a)[0]))
#define MAXP	 6
#define CAPACITY 40000.0
#define CPUS	 16

/* ---- the plant ---- */

struct plant {
	struct policy_host host;
	unsigned wd;
	size_t n;
	double demand[MAXP];
	double bias[MAXP]; /* relative error of this tick's measurement */
	uint16_t max_field[MAXP], min_field[MAXP];
	struct policy_partition parts[MAXP];
	struct policy_decision dec[MAXP];
	const policy_fn *fns;
	size_t nfns;
	bool quota_scales_demand; /* demand shrinks with the CPU quota (escalation tests) */
};

static struct policy_host host_of(unsigned wd)
{
	unsigned floor_pct = mpam_min_bandwidth_percent(wd);

	return (struct policy_host){
		.interval_ms = 100,
		.capacity_mbps = CAPACITY,
		.gran_pct = mpam_bandwidth_gran_percent(wd),
		.min_pct = floor_pct ? floor_pct : 1,
		.has_mb_min = true,
		.cpus = CPUS,
		.total_valid = true,
	};
}

static void plant_init(struct plant *pl, unsigned wd, const policy_fn *fns, size_t nfns)
{
	memset(pl, 0, sizeof(*pl));
	pl->wd = wd;
	pl->host = host_of(wd);
	pl->fns = fns;
	pl->nfns = nfns;
}

static void plant_apply(struct plant *pl, size_t i, unsigned mb_max, unsigned mb_min)
{
	struct policy_partition *p = &pl->parts[i];

	pl->max_field[i] = mpam_mbw_max_from_percent(mb_max, pl->wd);
	p->mb_max = mpam_mbw_max_to_percent(pl->max_field[i], pl->wd);
	pl->min_field[i] = mb_min ? mpam_mbw_min_from_percent(mb_min, pl->wd) : 0;
	p->mb_min = mb_min ? mpam_mbw_min_to_percent(pl->min_field[i], pl->wd) : 0;
}

static struct policy_partition *plant_add(struct plant *pl, const char *name, enum partition_class class, double demand)
{
	size_t i = pl->n++;
	struct policy_partition *p = &pl->parts[i];

	*p = (struct policy_partition){
		.name = name, .goals.class = class, .goals.mb_max = 100, .goals.weight = 100, .open = true
	};
	pl->demand[i] = demand;
	plant_apply(pl, i, 100, 0);
	return p;
}

/* Sets a partition's configured limits and applies them, as the engine does when it opens it. */
static void plant_configure(struct plant *pl, struct policy_partition *p, unsigned mb_min, unsigned mb_max)
{
	p->goals.mb_min = mb_min;
	p->goals.mb_max = mb_max;
	plant_apply(pl, (size_t)(p - pl->parts), mb_max, mb_min);
}

static double effective_demand(const struct plant *pl, size_t i)
{
	unsigned quota = pl->parts[i].cpu_quota_pct;

	if (!pl->quota_scales_demand || !quota)
		return pl->demand[i];
	return pl->demand[i] * quota / (CPUS * 100.0);
}

/* One tick: traffic flows under the limits in force, is measured, the policies decide, the decisions
 * are applied (rounded by MBW_MAX/MBW_MIN) and show in the next tick's traffic. */
static void plant_tick(struct plant *pl)
{
	struct traffic_request req[MAXP];
	struct traffic_share work[MAXP];
	double served[MAXP];

	for (size_t i = 0; i < pl->n; i++)
		req[i] = (struct traffic_request){
			.demand_mbps = effective_demand(pl, i),
			.max_fraction = mpam_mbw_max_fraction(pl->max_field[i], pl->wd),
			.min_fraction = pl->min_field[i] ? mpam_mbw_min_fraction(pl->min_field[i], pl->wd) : 0,
		};
	traffic_serve(req, pl->n, CAPACITY, work, served);
	pl->host.tick++;
	pl->host.total_mbps = 0;
	for (size_t i = 0; i < pl->n; i++) {
		struct policy_partition *p = &pl->parts[i];
		p->valid = true;
		p->mbps = served[i] * (1 + pl->bias[i]);
		p->smoothed_mbps = p->mbps;
		pl->host.total_mbps += p->mbps;
		pl->dec[i] = (struct policy_decision){ .mb_max = p->goals.mb_max, .mb_min = p->goals.mb_min };
	}
	for (size_t f = 0; f < pl->nfns; f++)
		pl->fns[f](&pl->host, pl->parts, pl->n, pl->dec);
	for (size_t i = 0; i < pl->n; i++) {
		plant_apply(pl, i, pl->dec[i].mb_max, pl->host.has_mb_min ? pl->dec[i].mb_min : 0);
		pl->parts[i].cpu_quota_pct = pl->dec[i].cpu_quota_pct;
	}
}

/* Served bandwidth of partition i under the limits now in force (what the next tick will measure). */
static double plant_next_mbps(struct plant *pl, size_t i)
{
	struct plant copy = *pl;

	copy.nfns = 0;
	copy.bias[i] = 0;
	plant_tick(&copy);
	return copy.parts[i].mbps;
}

static const policy_fn chain_target[] = { policy_static, policy_target };

/* A single policy call on hand-built state. */
static void decide(policy_fn fn, const struct policy_host *h, struct policy_partition *parts, size_t n,
		   struct policy_decision *dec)
{
	for (size_t i = 0; i < n; i++)
		dec[i] = (struct policy_decision){ .mb_max = parts[i].goals.mb_max, .mb_min = parts[i].goals.mb_min };
	fn(h, parts, n, dec);
}

static struct policy_partition part_of(const char *name, enum partition_class class, double mbps)
{
	return (struct policy_partition){ .name = name,
					  .goals.class = class,
					  .goals.mb_max = 100,
					  .mb_max = 100,
					  .goals.weight = 100,
					  .open = true,
					  .valid = true,
					  .mbps = mbps,
					  .smoothed_mbps = mbps };
}

static double total_of(const struct policy_partition *parts, size_t n)
{
	double t = 0;

	for (size_t i = 0; i < n; i++)
		t += parts[i].mbps;
	return t;
}

/* ---- the guard's IPC signal ---- */

#define IPC_BASE 1.5

/* web (latency-critical, no guarantee, ipc_guard 0.2) beside batch (best-effort) on a host that is
 * not saturated: bandwidth alone never makes web a victim. */
static void ipc_scene(struct policy_host *h, struct policy_partition p[2], double ipc_guard)
{
	*h = host_of(8);
	h->has_mb_min = false;
	p[0] = part_of("web", CLASS_LATENCY_CRITICAL, 5000);
	p[1] = part_of("batch", CLASS_BEST_EFFORT, 30000);
	p[0].goals.ipc_guard = ipc_guard;
	h->total_mbps = total_of(p, 2); /* 35000 of 40000: below GUARD_SATURATED_FRACTION */
}

static void ipc_tick(struct policy_host *h, struct policy_partition p[2], struct policy_decision d[2], bool valid,
		     double ipc)
{
	p[0].ipc_valid = valid;
	p[0].ipc = ipc;
	h->tick++;
	decide(policy_guard, h, p, 2, d);
	if (p[1].guard.throttled) /* the ceiling in force next tick, as the engine applies it */
		p[1].mb_max = d[1].mb_max;
}

static void test_guard_ipc_baseline_is_an_ewma_of_unsqueezed_ticks(void **state)
{
	struct policy_host h;
	struct policy_partition p[2];
	struct policy_decision d[2];

	(void)state;
	ipc_scene(&h, p, 0.2);
	ipc_tick(&h, p, d, true, IPC_BASE);
	assert_true(p[0].guard_ipc.baseline == IPC_BASE); /* the first counted tick sets it */
	ipc_tick(&h, p, d, true, IPC_BASE + 0.5);
	double moved = p[0].guard_ipc.baseline;
	printf("baseline after %.2f: %.4f\n", IPC_BASE + 0.5, moved);
	assert_true(moved > IPC_BASE && moved < IPC_BASE + 0.25); /* toward the sample, smoothed */
	for (int t = 0; t < 200; t++)
		ipc_tick(&h, p, d, true, 1.3);
	assert_true(fabs(p[0].guard_ipc.baseline - 1.3) < 1e-3); /* it follows a lasting change */
	double before = p[0].guard_ipc.baseline;
	h.total_mbps = CAPACITY; /* saturated while batch uses bandwidth: not learned */
	ipc_tick(&h, p, d, true, 1.2);
	assert_true(p[0].guard_ipc.baseline == before);
	assert_int_equal(p[0].guard_ipc.low_ticks, 0);
	h.total_mbps = total_of(p, 2);
	ipc_tick(&h, p, d, true, 0.5); /* low: not learned */
	assert_true(p[0].guard_ipc.baseline == before);
	assert_int_equal(p[0].guard_ipc.low_ticks, 1);
	assert_false(p[1].guard.throttled);
	assert_string_equal(d[1].event, "");
}

/* GUARD_IPC_LOW_TICKS low ticks in a row make web a victim; a tick back within the fraction starts
 * the count again; without best-effort traffic a low IPC is nobody's fault. */
static void test_guard_ipc_needs_consecutive_low_ticks(void **state)
{
	struct policy_host h;
	struct policy_partition p[2];
	struct policy_decision d[2];
	char want[128];

	(void)state;
	ipc_scene(&h, p, 0.2);
	for (int t = 0; t < 5; t++)
		ipc_tick(&h, p, d, true, IPC_BASE);
	for (int round = 0; round < 3; round++) {
		ipc_tick(&h, p, d, true, 1.0);
		ipc_tick(&h, p, d, true, 1.0);
		ipc_tick(&h, p, d, true, IPC_BASE * 0.85); /* 15% below: within 20%, not low */
		assert_false(p[1].guard.throttled);
	}
	p[1].mbps = 0; /* batch idle */
	for (int t = 0; t < 5; t++)
		ipc_tick(&h, p, d, true, 1.0);
	assert_false(p[1].guard.throttled);
	assert_int_equal(p[0].guard_ipc.low_ticks, 0);
	p[1].mbps = 30000;
	ipc_tick(&h, p, d, true, 1.0);
	ipc_tick(&h, p, d, true, 1.0);
	assert_false(p[1].guard.throttled);
	ipc_tick(&h, p, d, true, 1.0);
	assert_true(p[1].guard.throttled);
	double drop = 1 - 1.0 / p[0].guard_ipc.baseline;
	printf("cut: %s\n", d[1].event);
	snprintf(want, sizeof(want), "throttle: web's IPC 1.00 is %.0f%% below its baseline %.2f: mb_max 100%% -> ",
		 100 * drop, p[0].guard_ipc.baseline);
	assert_non_null(strstr(d[1].event, want));
	/* It takes the share of IPC lost from batch's use (a bounded multiplicative decrease). */
	double share = d[1].mb_max * CAPACITY / 100 / 30000;
	assert_true(share <= 1 - drop + 0.01 && share >= 0.5 - 0.01);
}

/* A tick whose IPC was not counted changes neither the signal nor the baseline. */
static void test_guard_ipc_ignores_ticks_not_counted(void **state)
{
	struct policy_host h;
	struct policy_partition p[2];
	struct policy_decision d[2];

	(void)state;
	ipc_scene(&h, p, 0.2);
	ipc_tick(&h, p, d, false, 0.1); /* not counted before any baseline: none is made */
	assert_true(p[0].guard_ipc.baseline == 0);
	for (int t = 0; t < 5; t++)
		ipc_tick(&h, p, d, true, IPC_BASE);
	double baseline = p[0].guard_ipc.baseline;
	ipc_tick(&h, p, d, false, 9.0);
	assert_true(p[0].guard_ipc.baseline == baseline);
	ipc_tick(&h, p, d, true, 1.0);
	ipc_tick(&h, p, d, true, 1.0);
	for (int t = 0; t < 5; t++) {
		ipc_tick(&h, p, d, false, 0.0);
		assert_int_equal(p[0].guard_ipc.low_ticks, 2);
		assert_true(p[0].guard_ipc.baseline == baseline);
		assert_false(p[1].guard.throttled);
	}
	ipc_tick(&h, p, d, true, 1.0); /* the third counted low tick */
	assert_true(p[1].guard.throttled);
}

/* While web's IPC is low nothing is given back; once it recovers the guard gives back after its
 * dwell. With ipc_guard off the same drop changes nothing. */
static void test_guard_ipc_restores_when_recovered_and_is_off_by_default(void **state)
{
	struct policy_host h;
	struct policy_partition p[2];
	struct policy_decision d[2];

	(void)state;
	ipc_scene(&h, p, 0.2);
	for (int t = 0; t < 5; t++)
		ipc_tick(&h, p, d, true, IPC_BASE);
	for (int t = 0; t < 3; t++)
		ipc_tick(&h, p, d, true, 1.0);
	unsigned cut = d[1].mb_max;
	assert_true(p[1].guard.throttled && cut < 100);
	p[1].mbps = cut * CAPACITY / 100;
	h.total_mbps = total_of(p, 2);
	for (int t = 0; t < 2; t++) { /* still low, not yet a victim again: held */
		ipc_tick(&h, p, d, true, 1.2);
		assert_int_equal(d[1].mb_max, cut);
	}
	int raised_at = 0;
	for (int t = 1; t <= 20 && !raised_at; t++) {
		ipc_tick(&h, p, d, true, IPC_BASE);
		if (d[1].mb_max > cut)
			raised_at = t;
	}
	printf("raised after %d recovered ticks: %s\n", raised_at, d[1].event);
	assert_true(raised_at > 0);
	assert_non_null(strstr(d[1].event, "restore: "));

	ipc_scene(&h, p, 0);
	for (int t = 0; t < 5; t++)
		ipc_tick(&h, p, d, true, IPC_BASE);
	for (int t = 0; t < 10; t++)
		ipc_tick(&h, p, d, true, 0.5);
	assert_false(p[1].guard.throttled);
	assert_true(p[0].guard_ipc.baseline == 0);
}

/* A cut that does not raise the IPC means its neighbours were not the cause: the drop becomes the
 * baseline and the guard stops cutting for it. */
static void test_guard_ipc_rebaselines_when_a_cut_does_not_help(void **state)
{
	struct policy_host h;
	struct policy_partition p[2];
	struct policy_decision d[2];

	(void)state;
	ipc_scene(&h, p, 0.2);
	for (int t = 0; t < 5; t++)
		ipc_tick(&h, p, d, true, IPC_BASE);
	for (int t = 0; t < 3; t++)
		ipc_tick(&h, p, d, true, 1.0);
	unsigned cut = d[1].mb_max;
	assert_true(cut < 100);
	for (int t = 0; t < 3; t++)
		ipc_tick(&h, p, d, true, 1.0);
	printf("judged: %s\n", d[0].event);
	assert_non_null(strstr(d[0].event, "release: web's IPC 1.00 did not rise when neighbours were cut"));
	assert_int_equal(d[1].mb_max, cut); /* not cut again */
	assert_true(fabs(p[0].guard_ipc.baseline - 1.0) < 1e-9);
}

/* ---- events and chains ---- */

static void test_event_text_joined_and_truncated(void **state)
{
	struct policy_decision d = { 0 };

	(void)state;
	policy_event(&d, "throttle: %s", "over target");
	policy_event(&d, "restore: %d%%", 25);
	assert_string_equal(d.event, "throttle: over target; restore: 25%");
	memset(&d, 0, sizeof(d));
	policy_event(&d, "throttle: %0*d", POLICY_EVENT_MAX + 100, 7);
	assert_int_equal(strlen(d.event), POLICY_EVENT_MAX - 1);
	assert_string_equal(d.event + POLICY_EVENT_MAX - 4, "...");
	policy_event(&d, "restore: more"); /* a full event stays as it is */
	assert_int_equal(strlen(d.event), POLICY_EVENT_MAX - 1);
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

/* ---- static ---- */

static void test_static_reapplies_configuration(void **state)
{
	struct policy_host h = host_of(8);
	struct policy_partition p[4] = {
		part_of("tenant", CLASS_DEFAULT, 1000),
		part_of("batch", CLASS_BEST_EFFORT, 1000),
		part_of("web", CLASS_LATENCY_CRITICAL, 1000),
		part_of("closed", CLASS_DEFAULT, 0),
	};
	struct policy_decision d[4] = { { .mb_max = 5 }, { .mb_max = 5 }, { .mb_max = 5 }, { .mb_max = 5 } };

	(void)state;
	p[0].goals.mb_max = 60;
	p[0].mb_max = 30; /* someone else wrote 30% */
	p[1].goals.mb_max = 60;
	p[1].mb_max = 30; /* the guard may have done this */
	p[2].goals.mb_min = 20;
	p[2].mb_min = 30; /* the guard programs guarantees as minimums */
	p[2].goals.guarantee_mbps = 12000;
	p[3].open = false;
	policy_static(&h, p, 4, d);
	assert_int_equal(d[0].mb_max, 60);
	assert_string_equal(d[0].event, "restore: mb_max 30% in force but 60% configured (changed outside mpamd)");
	assert_int_equal(d[1].mb_max, 60);
	assert_string_equal(d[1].event, "");
	assert_int_equal(d[2].mb_min, 20);
	assert_string_equal(d[2].event, "");
	assert_int_equal(d[3].mb_max, 5); /* not open: left alone */

	/* A ceiling above the configuration is never mpamd's; nor is a minimum without a hardware min. */
	memset(d, 0, sizeof(d));
	p[1].mb_max = 80;
	h.has_mb_min = false;
	policy_static(&h, p, 3, d);
	assert_string_equal(d[1].event, "restore: mb_max 80% in force but 60% configured (changed outside mpamd)");
	assert_string_equal(d[2].event, "restore: mb_min 30% in force but 20% configured (changed outside mpamd)");
}

static void test_static_tolerates_hardware_rounding(void **state)
{
	struct policy_host h = host_of(4); /* 16 bands: 7% steps */
	struct policy_partition p = part_of("tenant", CLASS_DEFAULT, 1000);
	struct policy_decision d = { 0 };

	(void)state;
	p.goals.mb_max = 60;
	p.mb_max = mpam_mbw_max_to_percent(mpam_mbw_max_from_percent(60, 4), 4); /* 56 */
	assert_int_not_equal(p.mb_max, 60);
	policy_static(&h, &p, 1, &d);
	assert_string_equal(d.event, "");
}

/* ---- target ---- */

/* Runs until `ticks` have passed; returns the number of ticks until the measured rate first entered
 * +-5% of target and stayed, and the overshoot (worst rate above target, relative). */
struct step_result {
	int settle;
	double overshoot;
	unsigned changes_after_settle;
	unsigned spread_steps; /* of mb_max after settling */
};

static struct step_result run_step(struct plant *pl, size_t i, int ticks, double noise)
{
	struct step_result r = { .settle = -1 };
	double target = pl->parts[i].goals.target_mbps;
	unsigned lo = 100, hi = 0, last = 0;

	for (int t = 1; t <= ticks; t++) {
		pl->bias[i] = t % 2 ? noise : -noise; /* deterministic alternating measurement noise */
		plant_tick(pl);
		double y = pl->parts[i].mbps, err = fabs(y - target) / target;
		/* The first sample after a step was measured under the limit decided before it. */
		if (t > 1)
			r.overshoot = fmax(r.overshoot, (y - target) / target);
		if (err > 0.05)
			r.settle = -1;
		else if (r.settle < 0)
			r.settle = t;
		if (r.settle >= 0 && t > r.settle) {
			unsigned m = pl->dec[i].mb_max;
			r.changes_after_settle += last && m != last;
			lo = m < lo ? m : lo;
			hi = m > hi ? m : hi;
		}
		last = pl->dec[i].mb_max;
	}
	r.spread_steps = hi >= lo ? (hi - lo) / pl->host.gran_pct : 0;
	return r;
}

static void test_target_first_move_is_model_based(void **state)
{
	struct plant pl;

	(void)state;
	plant_init(&pl, 8, chain_target, N_OF(chain_target));
	struct policy_partition *p = plant_add(&pl, "t", CLASS_DEFAULT, 30000);
	p->goals.target_mbps = 10000;
	plant_tick(&pl); /* measured at 100%: 30000 MB/s, demand-limited, so the model is capacity/100 */
	assert_int_equal(pl.dec[0].mb_max, 25);
	assert_string_equal(pl.dec[0].event, "throttle: new target 10000 MB/s at 400 MB/s per %: mb_max 100% -> 25%");
	plant_tick(&pl);
	assert_true(fabs(p->mbps - 10000) < 1);
	assert_string_equal(pl.dec[0].event, "");
}

static void check_step(unsigned wd, double noise, uint32_t from, uint32_t to)
{
	struct plant pl;

	plant_init(&pl, wd, chain_target, N_OF(chain_target));
	struct policy_partition *p = plant_add(&pl, "t", CLASS_DEFAULT, 30000);
	p->goals.target_mbps = from;
	run_step(&pl, 0, 30, noise);
	p->goals.target_mbps = to;
	struct step_result r = run_step(&pl, 0, 60, noise);
	printf("target step %u -> %u (BWA_WD %u, noise %.0f%%): settled in %d ticks, overshoot %.1f%%, %u changes "
	       "after\n",
	       from, to, wd, noise * 100, r.settle, r.overshoot * 100, r.changes_after_settle);
	assert_true(r.settle >= 1 && r.settle <= 5);
	assert_true(r.overshoot <= 0.10 + noise);
	assert_true(r.spread_steps <= 1);
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
 * settle on one level, not alternate between the two. */
static void check_no_two_step_oscillation(unsigned wd, double target, double noise)
{
	struct plant pl;
	unsigned history[120];

	plant_init(&pl, wd, chain_target, N_OF(chain_target));
	struct policy_partition *p = plant_add(&pl, "t", CLASS_DEFAULT, 30000);
	p->goals.target_mbps = (uint32_t)target;
	for (int t = 0; t < 120; t++) {
		pl.bias[0] = t % 2 ? noise : -noise;
		plant_tick(&pl);
		history[t] = pl.dec[0].mb_max;
	}
	unsigned changes = 0;
	for (int t = 6; t < 120; t++) {
		changes += history[t] != history[t - 1];
		if (t >= 2 && history[t] == history[t - 2] && history[t] != history[t - 1])
			fail_msg("BWA_WD %u: A-B-A at tick %d: %u %u %u", wd, t, history[t - 2], history[t - 1],
				 history[t]);
	}
	printf("target %.0f between steps (BWA_WD %u, noise %.1f%%): settled at %u%%, %u changes after tick 5\n",
	       target, wd, noise * 100, history[119], changes);
	assert_true(changes <= 1);
	/* It settled on one of the two levels around the target: within a step of it. */
	double step_mbps = CAPACITY / 100 * pl.host.gran_pct;
	assert_true(fabs(plant_next_mbps(&pl, 0) - target) <= step_mbps);
}

static void test_target_no_two_step_oscillation(void **state)
{
	(void)state;
	check_no_two_step_oscillation(4, 11250, 0.03); /* midway between 10000 and 12500 */
	check_no_two_step_oscillation(8, 10150, 0.02); /* between 25% and 26% */
}

static void test_target_deadband(void **state)
{
	struct plant pl;

	(void)state;
	plant_init(&pl, 8, chain_target, N_OF(chain_target));
	struct policy_partition *p = plant_add(&pl, "t", CLASS_DEFAULT, 30000);
	p->goals.target_mbps = 10000;
	plant_tick(&pl);
	assert_int_equal(pl.dec[0].mb_max, 25);
	/* A measurement 1.5% low is within half a step (200 MB/s of 400): no move, no event. */
	pl.bias[0] = -0.015;
	for (int t = 0; t < 40; t++) {
		plant_tick(&pl);
		assert_int_equal(pl.dec[0].mb_max, 25);
		assert_string_equal(pl.dec[0].event, "");
	}
	/* 4% low (400 MB/s, a whole step) is not. */
	pl.bias[0] = -0.04;
	int moved = 0;
	for (int t = 0; t < 5 && !moved; t++) {
		plant_tick(&pl);
		moved = pl.dec[0].mb_max == 26;
	}
	assert_true(moved);
	assert_non_null(strstr(pl.dec[0].event, "restore: "));
	assert_non_null(strstr(pl.dec[0].event, "under target 10000: mb_max 25% -> 26%"));
}

static void test_target_anti_windup_at_model_ceiling(void **state)
{
	struct plant pl;

	(void)state;
	plant_init(&pl, 8, chain_target, N_OF(chain_target));
	struct policy_partition *p = plant_add(&pl, "t", CLASS_DEFAULT, 4000);
	p->goals.target_mbps = 10000;
	for (int t = 0; t < 50; t++)
		plant_tick(&pl); /* demand-limited far below target: the error pushes up for 50 ticks */
	assert_int_equal(pl.dec[0].mb_max, 25);
	assert_true(p->target.integral <= 25 + 1e-9);
	/* Demand comes back: the ceiling was not wound up, so there is no burst over target. */
	pl.demand[0] = 30000;
	plant_tick(&pl);
	assert_true(p->mbps <= 10000 * 1.05);
	assert_true(p->mbps >= 10000 * 0.95);
}

static void test_target_anti_windup_at_configured_bounds(void **state)
{
	struct plant pl;

	(void)state;
	plant_init(&pl, 8, chain_target, N_OF(chain_target));
	struct policy_partition *hi = plant_add(&pl, "hi", CLASS_DEFAULT, 30000);
	struct policy_partition *lo = plant_add(&pl, "lo", CLASS_DEFAULT, 30000);
	plant_configure(&pl, hi, 0, 20);
	plant_configure(&pl, lo, 30, 100);
	hi->goals.target_mbps = 12000; /* needs 30%, mb_max = 20 */
	lo->goals.target_mbps = 4000;  /* needs 10%, mb_min = 30 */
	pl.demand[1] = 30000;
	for (int t = 0; t < 50; t++)
		plant_tick(&pl);
	assert_int_equal(pl.dec[0].mb_max, 20);
	assert_true(hi->target.integral <= 20 + 1e-9);
	assert_int_equal(pl.dec[1].mb_max, 30);
	assert_true(lo->target.integral >= 30 - 1e-9);
	/* Released from the bound, the output moves on the first tick, with no integrator to unwind. */
	hi->goals.mb_max = 100;
	plant_tick(&pl);
	assert_true(pl.dec[0].mb_max > 20);
	plant_tick(&pl);
	plant_tick(&pl);
	assert_true(fabs(hi->mbps - 12000) <= 0.05 * 12000);
}

static void test_target_anti_windup_at_hardware_floor(void **state)
{
	struct plant pl;

	(void)state;
	plant_init(&pl, 8, chain_target, N_OF(chain_target));
	pl.host.min_pct = 10; /* an Intel-like floor */
	struct policy_partition *p = plant_add(&pl, "t", CLASS_BEST_EFFORT, 30000);
	p->goals.target_mbps = 2000; /* needs 5% */
	for (int t = 0; t < 50; t++)
		plant_tick(&pl);
	assert_int_equal(pl.dec[0].mb_max, 10);
	assert_true(p->target.integral >= 10 - 1e-9);
	assert_true(p->mbps > 2000 * 1.5); /* the floor lets it through: escalation's case */
	/* Demand falls below the target: nothing to undo, the ceiling stays at the floor's step. */
	pl.demand[0] = 1500;
	for (int t = 0; t < 3; t++)
		plant_tick(&pl);
	assert_int_equal(pl.dec[0].mb_max, 10);
	assert_true(p->target.integral <= 10 + 1e-9);
}

static void test_target_reseeds_on_wrong_model(void **state)
{
	struct plant pl;

	(void)state;
	plant_init(&pl, 8, chain_target, N_OF(chain_target));
	pl.host.capacity_mbps = CAPACITY / 2; /* learned too low: the first move is twice too high */
	pl.host.capacity_learned = true;
	struct policy_partition *p = plant_add(&pl, "t", CLASS_DEFAULT, 30000);
	p->goals.target_mbps = 10000;
	/* 30000 MB/s at 100% beats the model's 200 MB/s per %: 300 is a better (lower) bound. */
	plant_tick(&pl);
	assert_int_equal(pl.dec[0].mb_max, 34);
	plant_tick(&pl); /* 13600 at 34%: the ceiling binds, 400 MB/s per %, 36% over target: re-plan */
	assert_int_equal(pl.dec[0].mb_max, 25);
	assert_non_null(strstr(pl.dec[0].event, "throttle: far over target 10000 MB/s at 400 MB/s per %"));
	plant_tick(&pl);
	assert_true(fabs(p->mbps - 10000) <= 500);
}

static void test_target_holds_without_sample_and_waits_for_escalation(void **state)
{
	struct plant pl;

	(void)state;
	plant_init(&pl, 8, chain_target, N_OF(chain_target));
	pl.host.min_pct = 10;
	struct policy_partition *p = plant_add(&pl, "t", CLASS_BEST_EFFORT, 30000);
	p->goals.target_mbps = 10000;
	plant_tick(&pl);
	assert_int_equal(pl.dec[0].mb_max, 25);
	/* An invalid sample: the output holds. */
	p->valid = false;
	policy_target(&pl.host, pl.parts, 1, pl.dec);
	assert_int_equal(pl.dec[0].mb_max, 25);
	/* Escalated and at the floor: a low measurement does not raise the ceiling. */
	p->goals.target_mbps = 2000;
	plant_tick(&pl);
	assert_int_equal(pl.dec[0].mb_max, 10);
	p->cpu_quota_pct = 400;
	pl.demand[0] = 1000;
	for (int t = 0; t < 10; t++) {
		plant_tick(&pl);
		p->cpu_quota_pct = 400;
		assert_int_equal(pl.dec[0].mb_max, 10);
	}
	/* The target is removed: back to the configuration, said once. */
	p->goals.target_mbps = 0;
	plant_tick(&pl);
	assert_int_equal(pl.dec[0].mb_max, 100);
	assert_string_equal(pl.dec[0].event, "restore: no target_mbps any more: mb_max 10% -> 100%");
}

/* ---- guard ---- */

static void test_guard_cuts_largest_first_by_shortfall(void **state)
{
	struct policy_host h = host_of(8);
	struct policy_partition p[4] = {
		part_of("web", CLASS_LATENCY_CRITICAL, 7000),
		part_of("mid", CLASS_BEST_EFFORT, 9000),
		part_of("big", CLASS_BEST_EFFORT, 20000),
		part_of("small", CLASS_BEST_EFFORT, 4000),
	};
	struct policy_decision d[4];

	(void)state;
	h.has_mb_min = false;
	p[0].goals.guarantee_mbps = 12000;
	h.total_mbps = total_of(p, 4); /* 40000: saturated */
	decide(policy_guard, &h, p, 4, d);
	/* need = 12000 * 1.05 - 7000 = 5600; big alone covers it: 20000 * (1 - 5600/20000) = 14400 = 36% */
	assert_int_equal(d[2].mb_max, 36);
	assert_true(p[2].guard.throttled);
	assert_true(fabs(p[2].guard.want_mbps - 14400) < 1e-6);
	assert_string_equal(d[2].event,
			    "throttle: web short of guarantee (7000 < 12000 MB/s; capacity known): mb_max 100% -> 36%");
	assert_int_equal(d[1].mb_max, 100);
	assert_int_equal(d[3].mb_max, 100);
	assert_false(p[1].guard.throttled);
	assert_string_equal(d[0].event, "");
}

/* Below its guarantee because it wants less: the cut does not raise it, so the guard says so and
 * stops holding its neighbours back; when the partition wants more again the question is new. */
static void test_guard_learns_a_victim_wants_less(void **state)
{
	struct policy_host h = host_of(8);
	struct policy_partition p[2] = {
		part_of("web", CLASS_LATENCY_CRITICAL, 5000),
		part_of("big", CLASS_BEST_EFFORT, 35000),
	};
	struct policy_decision d[2];

	(void)state;
	h.has_mb_min = false;
	p[0].goals.guarantee_mbps = 12000;
	h.total_mbps = total_of(p, 2); /* saturated */
	decide(policy_guard, &h, p, 2, d);
	assert_true(p[1].guard.throttled); /* it cannot tell yet */
	/* The cut freed bandwidth, but web stays at 5000: it is not held back. */
	p[1].mbps = 20000;
	h.total_mbps = total_of(p, 2);
	decide(policy_guard, &h, p, 2, d);
	assert_string_equal(d[0].event, "");
	decide(policy_guard, &h, p, 2, d);
	assert_string_equal(d[0].event,
			    "release: web uses 5000 MB/s although neighbours were cut: it is not held back");
	assert_true(p[0].guard.demand_level_mbps == 5000);
	/* No more cuts while web stays at its level, even on a saturated host; big gets it all back. */
	p[1].mbps = 35000;
	h.total_mbps = total_of(p, 2);
	unsigned cuts = 0;
	for (int t = 0; t < 20; t++) {
		decide(policy_guard, &h, p, 2, d);
		cuts += strstr(d[1].event, "throttle") != NULL;
	}
	assert_int_equal(cuts, 0);
	assert_false(p[1].guard.throttled);
	assert_int_equal(d[1].mb_max, 100);
	/* web now wants more and is squeezed at 8000: a cut again. */
	p[0].mbps = 8000;
	decide(policy_guard, &h, p, 2, d);
	assert_true(p[0].guard.demand_level_mbps == 0);
	assert_non_null(strstr(d[1].event, "throttle: web short of guarantee (8000 < 12000 MB/s; capacity known)"));
}

/* With a hardware minimum in force that covers the guarantee, being below it means wanting less. */
static void test_guard_trusts_a_hardware_minimum(void **state)
{
	struct policy_host h = host_of(8);
	struct policy_partition p[2] = {
		part_of("web", CLASS_LATENCY_CRITICAL, 5000),
		part_of("big", CLASS_BEST_EFFORT, 35000),
	};
	struct policy_decision d[2];

	(void)state;
	p[0].goals.guarantee_mbps = 12000;
	p[0].mb_min = 30; /* 30% of 40000 MB/s = 12000, in force */
	h.total_mbps = total_of(p, 2);
	decide(policy_guard, &h, p, 2, d);
	assert_false(p[1].guard.throttled);
	assert_int_equal(d[1].mb_max, 100);
}

static void test_guard_multiplicative_decrease_is_bounded(void **state)
{
	struct policy_host h = host_of(8);
	struct policy_partition p[4] = {
		part_of("web", CLASS_LATENCY_CRITICAL, 2000),
		part_of("mid", CLASS_BEST_EFFORT, 9000),
		part_of("big", CLASS_BEST_EFFORT, 20000),
		part_of("small", CLASS_BEST_EFFORT, 4000),
	};
	struct policy_decision d[4];

	(void)state;
	h.has_mb_min = false;
	p[0].goals.guarantee_mbps = 20000;
	h.total_mbps = 40000;
	decide(policy_guard, &h, p, 4, d);
	/* need 19000: each cut at most halves, largest first: big 50% of 20000 (25%), mid 50% of 9000
	 * (11%), small 50% of 4000 (5%). */
	assert_int_equal(d[2].mb_max, 25);
	assert_int_equal(d[1].mb_max, 11);
	assert_int_equal(d[3].mb_max, 5);
	/* Cut again next tick while still short: from use, halved again at most. */
	p[2].mbps = 10000;
	p[1].mbps = 4400;
	p[3].mbps = 2000;
	p[0].mbps = 6000;
	h.total_mbps = 40000;
	for (int i = 1; i < 4; i++)
		p[i].mb_max = d[i].mb_max;
	decide(policy_guard, &h, p, 4, d);
	assert_int_equal(d[2].mb_max, 12); /* 5000 MB/s */
	assert_true(d[1].mb_max < 11 && d[1].mb_max >= 5);
}

static void test_guard_needs_saturation_and_ignores_idle(void **state)
{
	struct policy_host h = host_of(8);
	struct policy_partition p[2] = { part_of("web", CLASS_LATENCY_CRITICAL, 7000),
					 part_of("batch", CLASS_BEST_EFFORT, 25000) };
	struct policy_decision d[2];

	(void)state;
	p[0].goals.guarantee_mbps = 12000;
	h.has_mb_min = false;
	h.total_mbps = 32000; /* 80%: web wants only 7000 */
	decide(policy_guard, &h, p, 2, d);
	assert_int_equal(d[1].mb_max, 100);
	p[0].mbps = 300; /* idle, on a saturated host */
	p[1].mbps = 39700;
	h.total_mbps = 40000;
	decide(policy_guard, &h, p, 2, d);
	assert_int_equal(d[1].mb_max, 100);
	/* Unknown capacity, or a partition without a sample: the guard cannot judge and holds. */
	p[0].mbps = 7000;
	p[1].mbps = 33000;
	h.capacity_mbps = 0;
	decide(policy_guard, &h, p, 2, d);
	assert_int_equal(d[1].mb_max, 100);
	h.capacity_mbps = CAPACITY;
	h.total_valid = false;
	decide(policy_guard, &h, p, 2, d);
	assert_int_equal(d[1].mb_max, 100);
}

/* Cut, then guarantees with headroom: nothing for the dwell time, then +5% a tick up to the
 * configuration, where the partition is released. */
static void test_guard_dwell_then_additive_increase(void **state)
{
	struct policy_host h = host_of(8);
	struct policy_partition p[2] = { part_of("web", CLASS_LATENCY_CRITICAL, 7000),
					 part_of("batch", CLASS_BEST_EFFORT, 33000) };
	struct policy_decision d[2];

	(void)state;
	h.has_mb_min = false;
	p[0].goals.guarantee_mbps = 12000;
	h.total_mbps = 40000;
	decide(policy_guard, &h, p, 2, d);
	unsigned cut = d[1].mb_max;
	assert_true(cut < 100);
	/* From now on web has plenty (125% of its guarantee) on a saturated host. */
	p[0].mbps = 15000;
	p[1].mbps = 25000;
	unsigned last = cut;
	int first_raise = 0;
	for (int t = 1; t <= 40 && p[1].guard.throttled; t++) {
		decide(policy_guard, &h, p, 2, d);
		if (d[1].mb_max != last && !first_raise)
			first_raise = t;
		if (p[1].guard.throttled && d[1].mb_max != last)
			assert_int_equal(d[1].mb_max, last + 5);
		last = d[1].mb_max;
	}
	assert_int_equal(first_raise, 5); /* dwell 5 ticks after the cut (calm 3 is shorter) */
	assert_false(p[1].guard.throttled);
	assert_int_equal(d[1].mb_max, 100);
	assert_non_null(strstr(d[1].event, "restore: guarantees have headroom: mb_max "));
	assert_non_null(strstr(d[1].event, "% -> 100%"));
}

static void test_guard_hysteresis_band_holds(void **state)
{
	struct policy_host h = host_of(8);
	struct policy_partition p[2] = { part_of("web", CLASS_LATENCY_CRITICAL, 12500),
					 part_of("batch", CLASS_BEST_EFFORT, 27500) };
	struct policy_decision d[2];

	(void)state;
	h.has_mb_min = false;
	p[0].goals.guarantee_mbps = 12000;
	p[1].one.guard =
		(struct guard_domain_memory){ .throttled = true, .cut_pct = 60, .want_mbps = 24000, .dwell = 100 };
	h.total_mbps = 40000;
	/* 104% of the guarantee on a saturated host: neither short (< 98%) nor with headroom (>= 115%). */
	for (int t = 0; t < 20; t++) {
		decide(policy_guard, &h, p, 2, d);
		assert_int_equal(d[1].mb_max, 60);
		assert_string_equal(d[1].event, "");
	}
	/* Calm needs consecutive ticks: one tick of pressure resets it. */
	p[0].mbps = 15000;
	decide(policy_guard, &h, p, 2, d);
	decide(policy_guard, &h, p, 2, d);
	p[0].mbps = 11000;
	p[1].mbps = 29000;
	decide(policy_guard, &h, p, 2, d);
	assert_int_equal(p[1].one.guard.calm, 0);
	p[0].mbps = 15000;
	p[1].mbps = 25000;
	unsigned cut = d[1].mb_max;
	decide(policy_guard, &h, p, 2, d);
	decide(policy_guard, &h, p, 2, d);
	assert_int_equal(d[1].mb_max, cut);
	decide(policy_guard, &h, p, 2, d);
	assert_int_equal(d[1].mb_max, cut); /* dwell: the cut was 3 ticks ago */
}

static void test_guard_gives_spare_capacity_back(void **state)
{
	struct policy_host h = host_of(8);
	struct policy_partition p[2] = { part_of("web", CLASS_LATENCY_CRITICAL, 10000),
					 part_of("batch", CLASS_BEST_EFFORT, 12000) };
	struct policy_decision d[2];

	(void)state;
	h.has_mb_min = false;
	p[0].goals.guarantee_mbps = 12000; /* web stays below its guarantee although the host has room */
	p[1].one.guard =
		(struct guard_domain_memory){ .throttled = true, .cut_pct = 30, .want_mbps = 12000, .dwell = 100 };
	h.total_mbps = 22000;
	decide(policy_guard, &h, p, 2, d);
	decide(policy_guard, &h, p, 2, d);
	assert_int_equal(d[1].mb_max, 30); /* two calm ticks are not enough to judge */
	decide(policy_guard, &h, p, 2, d);
	/* Three ticks with room it does not take: web wants less, and batch gets the room at once. */
	assert_string_equal(d[0].event,
			    "release: web uses 10000 MB/s although the host has spare capacity: it is not held back");
	assert_int_equal(d[1].mb_max, 70); /* 30% + the 16000 MB/s left below 95% of 40000 */
	assert_string_equal(d[1].event, "restore: guarantees have headroom: mb_max 30% -> 70%");
}

static void test_guard_programs_hardware_minimum(void **state)
{
	struct policy_host h = host_of(8);
	struct policy_partition p[2] = { part_of("web", CLASS_LATENCY_CRITICAL, 12000),
					 part_of("tenant", CLASS_DEFAULT, 1000) };
	struct policy_decision d[2];

	(void)state;
	p[0].goals.guarantee_mbps = 12000;
	p[0].goals.mb_min = 10;
	h.total_mbps = 13000;
	decide(policy_guard, &h, p, 2, d);
	assert_int_equal(d[0].mb_min, 30);
	assert_string_equal(d[0].event, "guarantee: mb_min 0% -> 30% (12000 of 40000 MB/s)");
	assert_int_equal(d[1].mb_min, 0);
	p[0].mb_min = 30; /* in force: no event again, the decision stays */
	decide(policy_guard, &h, p, 2, d);
	assert_int_equal(d[0].mb_min, 30);
	assert_string_equal(d[0].event, "");
	/* Never above the ceiling. */
	p[0].goals.mb_max = 25;
	decide(policy_guard, &h, p, 2, d);
	assert_int_equal(d[0].mb_min, 25);
	p[0].goals.mb_max = 100;
	/* Without MBW_MIN, or from a learned capacity: the configured minimum only. */
	h.has_mb_min = false;
	decide(policy_guard, &h, p, 2, d);
	assert_int_equal(d[0].mb_min, 10);
	h.has_mb_min = true;
	h.capacity_learned = true;
	decide(policy_guard, &h, p, 2, d);
	assert_int_equal(d[0].mb_min, 10);
}

/* The guard on the plant, without a hardware minimum: the Done-when criterion at unit level. */
static void check_guard_loop(unsigned wd, bool has_min)
{
	static const policy_fn chain[] = { policy_static, policy_guard, policy_share };
	struct plant pl;

	plant_init(&pl, wd, chain, N_OF(chain));
	pl.host.has_mb_min = has_min;
	struct policy_partition *web = plant_add(&pl, "web", CLASS_LATENCY_CRITICAL, 14000);
	plant_add(&pl, "big", CLASS_BEST_EFFORT, 60000);
	plant_add(&pl, "small", CLASS_BEST_EFFORT, 8000);
	web->goals.guarantee_mbps = 12000;
	plant_tick(&pl);
	assert_true(web->mbps < 0.95 * 12000); /* the aggressors squeeze it at first */
	int back = 0;
	for (int t = 2; t <= 60; t++) {
		plant_tick(&pl);
		if (!back && web->mbps >= 0.95 * 12000)
			back = t - 1;
		if (back && t > back + 1)
			assert_true(web->mbps >= 0.95 * 12000);
	}
	assert_true(back >= 1 && back <= 3);
	double before = pl.parts[1].mbps + pl.parts[2].mbps, freed = web->mbps;
	pl.demand[0] = 0; /* the victim goes idle */
	int got = 0;
	for (int t = 1; t <= 30; t++) {
		plant_tick(&pl);
		if (!got && pl.parts[1].mbps + pl.parts[2].mbps - before >= 0.9 * freed)
			got = t;
	}
	printf("guard (BWA_WD %u, MBW_MIN %s): victim back in %d ticks, aggressors got 90%% of %.0f MB/s in %d\n", wd,
	       has_min ? "yes" : "no", back, freed, got);
	assert_true(got >= 1 && got <= 20);
}

static void test_guard_closed_loop(void **state)
{
	(void)state;
	check_guard_loop(8, false);
	check_guard_loop(4, false);
	check_guard_loop(8, true);
}

/* ---- share ---- */

static void test_share_splits_allowance_by_weight(void **state)
{
	struct policy_host h = host_of(8);
	struct policy_partition p[4] = {
		part_of("light", CLASS_BEST_EFFORT, 12000),
		part_of("heavy", CLASS_BEST_EFFORT, 12000),
		part_of("free", CLASS_BEST_EFFORT, 3000),
		part_of("web", CLASS_LATENCY_CRITICAL, 13000),
	};
	struct policy_decision d[4];

	(void)state;
	p[1].goals.weight = 300;
	p[0].one.guard = (struct guard_domain_memory){ .throttled = true, .cut_pct = 30 };
	p[1].one.guard = (struct guard_domain_memory){ .throttled = true, .cut_pct = 30 };
	p[0].mb_max = p[1].mb_max = 30;
	for (int i = 0; i < 4; i++)
		d[i] = (struct policy_decision){ .mb_max = i < 2 ? 30 : 100 };
	policy_share(&h, p, 4, d);
	assert_int_equal(d[0].mb_max, 15);
	assert_int_equal(d[1].mb_max, 45);
	assert_int_equal(d[2].mb_max, 100); /* not held back by the guard: not contended */
	assert_int_equal(d[3].mb_max, 100);
	assert_string_equal(d[0].event, "throttle: weight 100 of a 60% best-effort allowance: mb_max 30% -> 15%");
	assert_string_equal(d[1].event, "restore: weight 300 of a 60% best-effort allowance: mb_max 30% -> 45%");
	/* Water-filling: a part above the configured ceiling goes to the others. */
	p[1].goals.mb_max = 40;
	for (int i = 0; i < 4; i++)
		d[i] = (struct policy_decision){ .mb_max = i < 2 ? 30 : 100 };
	policy_share(&h, p, 4, d);
	assert_int_equal(d[0].mb_max, 20);
	assert_int_equal(d[1].mb_max, 40);
	/* One partition's allowance is its own; target-controlled ones are not shared. */
	p[1].goals.target_mbps = 5000;
	d[0] = (struct policy_decision){ .mb_max = 30 };
	d[1] = (struct policy_decision){ .mb_max = 30 };
	policy_share(&h, p, 4, d);
	assert_int_equal(d[0].mb_max, 30);
	assert_int_equal(d[1].mb_max, 30);
}

/* ---- escalate ---- */

static void escalate_tick(struct policy_host *h, struct policy_partition *p, struct policy_decision *d, unsigned mb_max)
{
	*d = (struct policy_decision){ .mb_max = mb_max };
	policy_escalate(h, p, 1, d);
	p->cpu_quota_pct = d->cpu_quota_pct; /* the actuator did it */
}

static void test_escalate_thresholds_and_restore(void **state)
{
	struct policy_host h = host_of(8);
	struct policy_partition p = part_of("batch", CLASS_BEST_EFFORT, 4000);
	struct policy_decision d;

	(void)state;
	h.min_pct = 10;
	p.goals.target_mbps = 2000;
	p.escalation_allowed = true;
	/* Over budget but not at the floor: the MB limit can still act. */
	for (int t = 0; t < 10; t++)
		escalate_tick(&h, &p, &d, 20);
	assert_int_equal(d.cpu_quota_pct, 0);
	/* At the floor: two ticks are not enough, the third escalates in proportion (at most halving). */
	escalate_tick(&h, &p, &d, 10);
	escalate_tick(&h, &p, &d, 10);
	assert_int_equal(d.cpu_quota_pct, 0);
	escalate_tick(&h, &p, &d, 10);
	assert_int_equal(d.cpu_quota_pct, 800);
	assert_string_equal(
		d.event, "escalate: 4000 MB/s over its 2000 MB/s budget at the MB floor: CPU quota unlimited -> 800%");
	/* Held between steps; the next step waits three more ticks. */
	escalate_tick(&h, &p, &d, 10);
	escalate_tick(&h, &p, &d, 10);
	assert_int_equal(d.cpu_quota_pct, 800);
	escalate_tick(&h, &p, &d, 10);
	assert_int_equal(d.cpu_quota_pct, 400);
	/* The pressure ends (the ceiling leaves the floor): restored after ten ticks, not before. */
	for (int t = 0; t < 9; t++)
		escalate_tick(&h, &p, &d, 30);
	assert_int_equal(d.cpu_quota_pct, 400);
	escalate_tick(&h, &p, &d, 30);
	assert_int_equal(d.cpu_quota_pct, 0);
	assert_string_equal(d.event, "restore: pressure ended: CPU quota 400% -> unlimited");
}

static void test_escalate_respects_permission_and_guard_budget(void **state)
{
	struct policy_host h = host_of(8);
	struct policy_partition p = part_of("batch", CLASS_BEST_EFFORT, 4000);
	struct policy_decision d;

	(void)state;
	h.min_pct = 10;
	/* The guard's wish is the budget. */
	p.guard = (struct guard_memory){ .throttled = true, .want_mbps = 1000 };
	for (int t = 0; t < 3; t++)
		escalate_tick(&h, &p, &d, 10);
	assert_int_equal(d.cpu_quota_pct, 0);
	assert_string_equal(d.event,
			    "escalate: 4000 MB/s over its 1000 MB/s budget at the MB floor but escalation is off");
	escalate_tick(&h, &p, &d, 10);
	assert_string_equal(d.event, ""); /* said once per episode */
	p.escalation_allowed = true;
	for (int t = 0; t < 3; t++)
		escalate_tick(&h, &p, &d, 10);
	assert_int_equal(d.cpu_quota_pct, 800);
	/* Permission withdrawn: the quota goes at once. */
	p.escalation_allowed = false;
	escalate_tick(&h, &p, &d, 10);
	assert_int_equal(d.cpu_quota_pct, 0);
	assert_string_equal(d.event, "restore: escalation is off: CPU quota 800% -> unlimited");
	/* Not best-effort: never escalated. */
	p.goals.class = CLASS_DEFAULT;
	p.escalation_allowed = true;
	for (int t = 0; t < 5; t++)
		escalate_tick(&h, &p, &d, 10);
	assert_int_equal(d.cpu_quota_pct, 0);
}

/* On the plant, with demand proportional to the CPU quota: the quota brings the partition under its
 * budget, and comes back in proportion while the pressure lasts. */
static void test_escalate_closed_loop(void **state)
{
	static const policy_fn chain[] = { policy_static, policy_target, policy_guard, policy_share, policy_escalate };
	struct plant pl;

	(void)state;
	plant_init(&pl, 8, chain, N_OF(chain));
	pl.host.min_pct = 10;
	pl.quota_scales_demand = true;
	struct policy_partition *p = plant_add(&pl, "batch", CLASS_BEST_EFFORT, 30000);
	p->goals.target_mbps = 2000;
	p->escalation_allowed = true;
	int under = 0;
	for (int t = 1; t <= 40 && !under; t++) {
		plant_tick(&pl);
		if (p->mbps <= 2000 * 1.05 && p->cpu_quota_pct)
			under = t;
	}
	printf("escalation: under budget after %d ticks at CPU quota %u%%\n", under, p->cpu_quota_pct);
	assert_true(under > 0);
	assert_int_equal(pl.dec[0].mb_max, 10);
	unsigned quota = p->cpu_quota_pct;
	for (int t = 0; t < 30; t++)
		plant_tick(&pl);
	assert_true(p->mbps <= 2000 * 1.05);
	assert_true(p->cpu_quota_pct >= quota);
	/* The target is lifted: the pressure is gone, the quota goes after ten ticks. */
	p->goals.target_mbps = 0;
	for (int t = 0; t < 12; t++)
		plant_tick(&pl);
	assert_int_equal(p->cpu_quota_pct, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_text_joined_and_truncated),
		cmocka_unit_test(test_chains),
		cmocka_unit_test(test_static_reapplies_configuration),
		cmocka_unit_test(test_static_tolerates_hardware_rounding),
		cmocka_unit_test(test_target_first_move_is_model_based),
		cmocka_unit_test(test_target_step_converges),
		cmocka_unit_test(test_target_no_two_step_oscillation),
		cmocka_unit_test(test_target_deadband),
		cmocka_unit_test(test_target_anti_windup_at_model_ceiling),
		cmocka_unit_test(test_target_anti_windup_at_configured_bounds),
		cmocka_unit_test(test_target_anti_windup_at_hardware_floor),
		cmocka_unit_test(test_target_reseeds_on_wrong_model),
		cmocka_unit_test(test_target_holds_without_sample_and_waits_for_escalation),
		cmocka_unit_test(test_guard_cuts_largest_first_by_shortfall),
		cmocka_unit_test(test_guard_learns_a_victim_wants_less),
		cmocka_unit_test(test_guard_trusts_a_hardware_minimum),
		cmocka_unit_test(test_guard_multiplicative_decrease_is_bounded),
		cmocka_unit_test(test_guard_needs_saturation_and_ignores_idle),
		cmocka_unit_test(test_guard_dwell_then_additive_increase),
		cmocka_unit_test(test_guard_hysteresis_band_holds),
		cmocka_unit_test(test_guard_gives_spare_capacity_back),
		cmocka_unit_test(test_guard_programs_hardware_minimum),
		cmocka_unit_test(test_guard_closed_loop),
		cmocka_unit_test(test_guard_ipc_baseline_is_an_ewma_of_unsqueezed_ticks),
		cmocka_unit_test(test_guard_ipc_needs_consecutive_low_ticks),
		cmocka_unit_test(test_guard_ipc_ignores_ticks_not_counted),
		cmocka_unit_test(test_guard_ipc_restores_when_recovered_and_is_off_by_default),
		cmocka_unit_test(test_guard_ipc_rebaselines_when_a_cut_does_not_help),
		cmocka_unit_test(test_share_splits_allowance_by_weight),
		cmocka_unit_test(test_escalate_thresholds_and_restore),
		cmocka_unit_test(test_escalate_respects_permission_and_guard_budget),
		cmocka_unit_test(test_escalate_closed_loop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
