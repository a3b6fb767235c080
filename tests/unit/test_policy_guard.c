/* The guard (policies/guard.c): on a saturated host it cuts every best-effort partition by one share
 * of its use (at most half) until the latency-critical ones have their guarantees; it gives back after
 * a dwell, learns when a victim simply wants less, decides on measured rates rather than estimates,
 * says when it cannot protect, and programs guarantees as hardware minimums.
 *
 * Most scenarios are rows of one table, each run by run_scenario: partitions, then steps of ticks
 * with the rates measured (and the host total) and what the guard must have decided after them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "policies/domains.h"
#include "tests/util/policy_rig.h"

/* ---- the table ---- */

#define GUARD_MAX_PARTS 4

/* A partition of a scenario, before its first step. */
struct scene_part {
	const char *name;
	enum partition_class class;
	uint32_t guarantee_mbps;
	unsigned mb_min;		   /* configured */
	unsigned mb_min_in_force;	   /* what an earlier apply left */
	struct guard_domain_memory memory; /* the guard's, from earlier ticks */
};

/* What a step changes on the host, from the rig's (capacity known, MBW_MIN, a valid total). */
enum host_change {
	NO_MB_MIN = 1 << 0,
	CAPACITY_UNKNOWN = 1 << 1,
	CAPACITY_LEARNED = 1 << 2,
	TOTAL_INVALID = 1 << 3,
};

enum check_kind {
	MB_MAX_IS,
	MB_MAX_IN,   /* [value, value2) */
	MB_MAX_HELD, /* as it was after the step before */
	MB_MIN_IS,
	IS_THROTTLED,
	NOT_THROTTLED,
	WANTS_MBPS,   /* the guard's wish for it, to 1e-6 MB/s */
	DEMAND_LEVEL, /* the rate the guard learned it wants */
	CALM_TICKS,   /* its consecutive ticks without pressure */
	EVENT_IS,     /* its decision's whole event */
	EVENT_HAS,    /* a part of it */
	NO_EVENT_HAS, /* on no tick of the step */
	FOLDED_IS,    /* events folded over the step's ticks */
};

struct check {
	enum check_kind kind;
	size_t part;
	double value, value2;
	const char *text;
};

/* The checks, as a row writes them (clang-format would lay them out as blocks). */
/* clang-format off */
#define MB_MAX(i, pct)		     { MB_MAX_IS, i, pct, 0, NULL }
#define MB_MAX_FROM_BELOW(i, lo, hi) { MB_MAX_IN, i, lo, hi, NULL }
#define HELD(i)			     { MB_MAX_HELD, i, 0, 0, NULL }
#define MB_MIN(i, pct)		     { MB_MIN_IS, i, pct, 0, NULL }
#define THROTTLED(i)		     { IS_THROTTLED, i, 0, 0, NULL }
#define FREE(i)			     { NOT_THROTTLED, i, 0, 0, NULL }
#define WANTS(i, mbps)		     { WANTS_MBPS, i, mbps, 0, NULL }
#define LEVEL(i, mbps)		     { DEMAND_LEVEL, i, mbps, 0, NULL }
#define CALM(i, n)		     { CALM_TICKS, i, n, 0, NULL }
#define EVENT(i, s)		     { EVENT_IS, i, 0, 0, s }
#define SAYS(i, s)		     { EVENT_HAS, i, 0, 0, s }
#define NEVER_SAYS(i, s)	     { NO_EVENT_HAS, i, 0, 0, s }
#define FOLDED(i, n)		     { FOLDED_IS, i, n, 0, NULL }
/* clang-format on */

struct step {
	unsigned ticks; /* guard calls with these inputs */
	bool each;	/* the checks hold after every tick, not only the last */
	bool applied;	/* the step before's decisions are in force (as the engine applies them) */
	double mbps[GUARD_MAX_PARTS];
	double total_mbps;
	unsigned host;			  /* enum host_change */
	unsigned estimated;		  /* bit i: partition i's sample is estimated (counters rotate) */
	unsigned mb_max[GUARD_MAX_PARTS]; /* configured this step; 0: 100 */
	const struct check *checks;
	size_t n_checks;
};

struct scenario {
	const char *name;
	unsigned host; /* enum host_change, on every step */
	const struct scene_part *parts;
	size_t n_parts;
	const struct step *steps;
	size_t n_steps;
};

#define LIST(type, ...) (const type[]){ __VA_ARGS__ }, N_OF(((const type[]){ __VA_ARGS__ }))
#define PARTS(...)	.parts = LIST(struct scene_part, __VA_ARGS__)
#define STEPS(...)	.steps = LIST(struct step, __VA_ARGS__)
#define CHECKS(...)	.checks = LIST(struct check, __VA_ARGS__)

/* clang-format off */
#define LC(name, guarantee) { name, CLASS_LATENCY_CRITICAL, guarantee, 0, 0, { 0 } }
#define BE(name)	    { name, CLASS_BEST_EFFORT, 0, 0, 0, { 0 } }
/* A best-effort partition the guard cut to `pct` long ago, wanting it at `want` MB/s at most. */
#define BE_CUT(name, pct, want) \
	{ name, CLASS_BEST_EFFORT, 0, 0, 0, { .throttled = true, .cut_pct = pct, .want_mbps = want, .dwell = 100 } }
/* clang-format on */

static const struct scenario scenarios[] = {
	{
		.name = "test_guard_cuts_every_neighbour_in_proportion",
		.host = NO_MB_MIN,
		PARTS(LC("web", 12000), BE("mid"), BE("big"), BE("small")),
		/* need = 12000 * 1.05 - 7000 = 5600 of the 33000 they use: each keeps 1 - 5600/33000 of its use,
		 * mid 7473 (18%), big 16606 (41%), small 3321 (8%), all in the same tick */
		STEPS({ 1, .mbps = { 7000, 9000, 20000, 4000 }, .total_mbps = 40000,
			CHECKS(MB_MAX(1, 18), MB_MAX(2, 41), MB_MAX(3, 8), THROTTLED(1), THROTTLED(3),
			       WANTS(2, 20000 * (1 - 5600.0 / 33000)),
			       EVENT(2, "throttle: web short of guarantee (7000 < 12000 MB/s; capacity known): mb_max "
					"100% -> 41%"),
			       EVENT(0, "")) }),
	},
	{
		/* Below its guarantee because it wants less: the cut does not raise it, so the guard says so
		 * and stops holding its neighbours back; when it wants more again the question is new. */
		.name = "test_guard_learns_a_victim_wants_less",
		.host = NO_MB_MIN,
		PARTS(LC("web", 12000), BE("big")),
		STEPS({ 1, .mbps = { 5000, 35000 }, .total_mbps = 40000, CHECKS(THROTTLED(1)) }, /* it cannot tell yet */
		      /* The cut freed bandwidth, but web stays at 5000: it is not held back. */
		      { 1, .mbps = { 5000, 20000 }, .total_mbps = 25000, CHECKS(EVENT(0, "")) },
		      { 1, .mbps = { 5000, 20000 }, .total_mbps = 25000,
			CHECKS(EVENT(0,
				     "release: web uses 5000 MB/s although neighbours were cut: it is not held back"),
			       LEVEL(0, 5000)) },
		      /* No more cuts while web stays at its level, even on a saturated host; big gets it all back. */
		      { 20, .mbps = { 5000, 35000 }, .total_mbps = 40000,
			CHECKS(NEVER_SAYS(1, "throttle"), FREE(1), MB_MAX(1, 100)) },
		      /* web now wants more and is squeezed at 8000: a cut again. */
		      { 1, .mbps = { 8000, 35000 }, .total_mbps = 40000,
			CHECKS(LEVEL(0, 0),
			       SAYS(1, "throttle: web short of guarantee (8000 < 12000 MB/s; capacity known)")) }),
	},
	{
		/* With a hardware minimum in force that covers the guarantee, being below it means wanting less. */
		.name = "test_guard_trusts_a_hardware_minimum",
		PARTS({ "web", CLASS_LATENCY_CRITICAL, 12000, 0, 30, { 0 } }, /* 30% of 40000 MB/s = 12000 */
		      BE("big")),
		STEPS({ 1, .mbps = { 5000, 35000 }, .total_mbps = 40000, CHECKS(FREE(1), MB_MAX(1, 100)) }),
	},
	{
		.name = "test_guard_multiplicative_decrease_is_bounded",
		.host = NO_MB_MIN,
		PARTS(LC("web", 20000), BE("mid"), BE("big"), BE("small")),
		/* need 19000: each cut at most halves, largest first: big 50% of 20000 (25%), mid 50% of 9000
		 * (11%), small 50% of 4000 (5%). */
		STEPS({ 1, .mbps = { 2000, 9000, 20000, 4000 }, .total_mbps = 40000,
			CHECKS(MB_MAX(2, 25), MB_MAX(1, 11), MB_MAX(3, 5)) },
		      /* Cut again next tick while still short: from use, halved again at most. */
		      { 1, .applied = true, .mbps = { 6000, 4400, 10000, 2000 }, .total_mbps = 40000,
			CHECKS(MB_MAX(2, 12) /* 5000 MB/s */, MB_MAX_FROM_BELOW(1, 5, 11)) }),
	},
	{
		.name = "test_guard_needs_saturation_and_ignores_idle",
		.host = NO_MB_MIN,
		PARTS(LC("web", 12000), BE("batch")),
		STEPS({ 1, .mbps = { 7000, 25000 }, .total_mbps = 32000,
			CHECKS(MB_MAX(1, 100)) }, /* 80%: web wants 7000 */
		      { 1, .mbps = { 300, 39700 }, .total_mbps = 40000, CHECKS(MB_MAX(1, 100)) }, /* idle, saturated */
		      /* Unknown capacity, or a partition without a sample: the guard cannot judge and holds. */
		      { 1, .mbps = { 7000, 33000 }, .total_mbps = 40000, .host = CAPACITY_UNKNOWN,
			CHECKS(MB_MAX(1, 100)) },
		      { 1, .mbps = { 7000, 33000 }, .total_mbps = 40000, .host = TOTAL_INVALID,
			CHECKS(MB_MAX(1, 100)) }),
	},
	{
		.name = "test_guard_hysteresis_band_holds",
		.host = NO_MB_MIN,
		PARTS(LC("web", 12000), BE_CUT("batch", 60, 24000)),
		/* 104% of the guarantee on a saturated host: neither short (< 98%) nor with headroom (>= 115%). */
		STEPS({ 20, .each = true, .mbps = { 12500, 27500 }, .total_mbps = 40000,
			CHECKS(MB_MAX(1, 60), EVENT(1, "")) },
		      /* Calm needs consecutive ticks: one tick of pressure resets it. */
		      { 2, .mbps = { 15000, 27500 }, .total_mbps = 40000 },
		      { 1, .mbps = { 11000, 29000 }, .total_mbps = 40000, CHECKS(CALM(1, 0)) },
		      { 2, .mbps = { 15000, 25000 }, .total_mbps = 40000, CHECKS(HELD(1)) },
		      { 1, .mbps = { 15000, 25000 }, .total_mbps = 40000,
			CHECKS(HELD(1)) }), /* dwell: cut 3 ticks ago */
	},
	{
		.name = "test_guard_gives_spare_capacity_back",
		.host = NO_MB_MIN,
		PARTS(LC("web", 12000), /* it stays below its guarantee although the host has room */
		      BE_CUT("batch", 30, 12000)),
		STEPS({ 2, .mbps = { 10000, 12000 }, .total_mbps = 22000,
			CHECKS(MB_MAX(1, 30)) }, /* two calm ticks are not enough to judge */
		      /* Three ticks with room it does not take: web wants less, and batch gets the room at once. */
		      { 1, .mbps = { 10000, 12000 }, .total_mbps = 22000,
			CHECKS(EVENT(0, "release: web uses 10000 MB/s although the host has spare capacity: it is not "
					"held back"),
			       MB_MAX(1, 70), /* 30% + the 16000 MB/s left below 95% of 40000 */
			       EVENT(1, "restore: guarantees have headroom: mb_max 30% -> 70%")) }),
	},
	{
		/* Idle: never squeezed, so never judged to want less either; nothing to say. */
		.name = "test_guard_says_nothing_of_an_idle_victim",
		.host = NO_MB_MIN,
		PARTS(LC("web", 12000), BE("batch")),
		STEPS({ 600, .mbps = { 0, 12000 }, .total_mbps = 12000,
			CHECKS(NEVER_SAYS(0, "release"), FOLDED(0, 0), LEVEL(0, 0)) },
		      { 600, .mbps = { 300, 12000 }, .total_mbps = 12300, CHECKS(NEVER_SAYS(0, "release")) }),
	},
	{
		/* Wanting less is said once: leaving its level by jitter and finding it again is no news
		 * (folded); reaching its guarantee, or a cut made for it, makes the next verdict news again. */
		.name = "test_guard_says_a_victim_wants_less_once",
		.host = NO_MB_MIN,
		PARTS(LC("web", 12000), BE("batch")),
		STEPS({ 3, .mbps = { 5000, 12000 }, .total_mbps = 17000, CHECKS(SAYS(0, "release: web uses 5000")) },
		      { 1, .mbps = { 6000, 12000 }, .total_mbps = 18000, CHECKS(LEVEL(0, 0)) }, /* above the band */
		      { 3, .mbps = { 5000, 12000 }, .total_mbps = 17000,
			CHECKS(LEVEL(0, 5000), NEVER_SAYS(0, "release"), FOLDED(0, 1)) },
		      { 1, .mbps = { 6000, 12000 }, .total_mbps = 18000 },
		      { 3, .mbps = { 5000, 12000 }, .total_mbps = 17000,
			CHECKS(NEVER_SAYS(0, "release"), FOLDED(0, 1)) },
		      /* Its guarantee reached, then less again: news. */
		      { 1, .mbps = { 12000, 12000 }, .total_mbps = 24000 },
		      { 3, .mbps = { 5000, 12000 }, .total_mbps = 17000,
			CHECKS(SAYS(0, "release: web uses 5000"), FOLDED(0, 0)) }),
	},
	{
		/* Counters rotate: an estimate is the victim's last measured rate repeated. A cut answers a
		 * measurement once; the estimates after it ask for no other, a new measurement may. */
		.name = "test_guard_an_estimate_asks_no_second_cut",
		.host = NO_MB_MIN,
		PARTS(LC("web", 12000), BE("big")),
		STEPS({ 1, .mbps = { 7000, 33000 }, .total_mbps = 40000, CHECKS(SAYS(1, "throttle: web short")) },
		      { 3, .mbps = { 7000, 33000 }, .total_mbps = 40000, .estimated = 3,
			CHECKS(NEVER_SAYS(1, "throttle"), HELD(1)) },
		      { 1, .mbps = { 7000, 33000 }, .total_mbps = 40000, CHECKS(SAYS(1, "throttle: web short")) }),
	},
	{
		/* Nor does it count as a sign that the victim wants less (spare capacity where it runs), or
		 * that a cut did not help: only measured ticks do. */
		.name = "test_guard_an_estimate_is_no_sign_of_wanting_less",
		.host = NO_MB_MIN,
		PARTS(LC("web", 12000), BE("batch")),
		STEPS({ 6, .mbps = { 5000, 20000 }, .total_mbps = 25000, .estimated = 1,
			CHECKS(NEVER_SAYS(0, "release"), LEVEL(0, 0)) },
		      { 3, .mbps = { 5000, 20000 }, .total_mbps = 25000,
			CHECKS(SAYS(0, "release: web uses 5000 MB/s although the host has spare capacity"),
			       LEVEL(0, 5000)) }),
	},
	{
		/* Spare capacity in a total of old estimates is no sign either: the neighbours may have
		 * risen unseen. It counts once every rate in the total was measured since web fell short. */
		.name = "test_guard_spare_in_old_estimates_is_no_sign_of_wanting_less",
		.host = NO_MB_MIN,
		PARTS(LC("web", 12000), BE("a"), BE("b")),
		STEPS({ 1, .mbps = { 12500, 3000, 3000 }, .total_mbps = 18500 },
		      { 3, .mbps = { 5000, 3000, 3000 }, .total_mbps = 11000, .estimated = 6,
			CHECKS(NEVER_SAYS(0, "release"), LEVEL(0, 0)) },
		      { 1, .mbps = { 5000, 3000, 3000 }, .total_mbps = 11000,
			CHECKS(SAYS(0, "release: web uses 5000 MB/s although the host has spare capacity")) }),
	},
	{
		/* A crowd rising together is seen a few at a time: the one measured this tick rose by 9000
		 * MB/s, the two estimated are taken to have risen alike (11000 + 18000 of 40000), and web,
		 * measured short, has every neighbour cut at once. */
		.name = "test_guard_counts_the_unseen_rise_of_a_rotating_crowd",
		.host = NO_MB_MIN,
		PARTS(LC("web", 12000), BE("a"), BE("b"), BE("c")),
		STEPS({ 1, .mbps = { 13000, 1000, 1000, 1000 }, .total_mbps = 16000 },
		      { 1, .mbps = { 13000, 1000, 1000, 1000 }, .total_mbps = 16000, .estimated = 14 },
		      { 1, .mbps = { 8000, 10000, 1000, 1000 }, .total_mbps = 20000, .estimated = 12,
			CHECKS(THROTTLED(1), THROTTLED(2), THROTTLED(3),
			       SAYS(1,
				    "capacity known, with the unseen rise of 2 partitions not measured this tick")) }),
	},
	{
		/* A neighbour measured again 9% above its estimate is jitter, not a rise: the two still
		 * estimated are not taken to have risen (37800 of 40000, not saturated), and nobody is cut. */
		.name = "test_guard_infers_no_rise_from_jitter",
		.host = NO_MB_MIN,
		PARTS(LC("web", 12000), BE("a"), BE("b"), BE("c")),
		STEPS({ 1, .mbps = { 13000, 9000, 9000, 9000 }, .total_mbps = 40000 },
		      { 1, .mbps = { 13000, 9000, 9000, 9000 }, .total_mbps = 40000, .estimated = 14 },
		      { 1, .mbps = { 10000, 9800, 9000, 9000 }, .total_mbps = 37800, .estimated = 12,
			CHECKS(FREE(1), FREE(2), FREE(3)) }),
	},
	{
		/* The same rise, with web not measured this tick: nothing is inferred for an estimate. */
		.name = "test_guard_infers_no_rise_for_an_estimated_victim",
		.host = NO_MB_MIN,
		PARTS(LC("web", 12000), BE("a"), BE("b"), BE("c")),
		STEPS({ 1, .mbps = { 13000, 1000, 1000, 1000 }, .total_mbps = 16000 },
		      { 1, .mbps = { 13000, 1000, 1000, 1000 }, .total_mbps = 16000, .estimated = 14 },
		      { 1, .mbps = { 8000, 10000, 1000, 1000 }, .total_mbps = 20000, .estimated = 13,
			CHECKS(FREE(1), FREE(2), FREE(3)) }),
	},
	{
		/* A release waits for the guaranteed partitions' measured rates: web's estimate says it has
		 * headroom, its measurements must say so for three calm ticks. */
		.name = "test_guard_gives_back_on_measured_rates_only",
		.host = NO_MB_MIN,
		PARTS(LC("web", 12000), BE_CUT("batch", 40, 16000)),
		STEPS({ 5, .mbps = { 15000, 16000 }, .total_mbps = 31000, .estimated = 1,
			CHECKS(NEVER_SAYS(1, "restore"), MB_MAX(1, 40), CALM(1, 0)) },
		      { 3, .mbps = { 15000, 16000 }, .total_mbps = 31000, CHECKS(SAYS(1, "restore: guarantees have")) }),
	},
	{
		/* Every best-effort partition at its lowest ceiling and the victim still short: the hardware
		 * cannot protect it. Said once, on the victim, naming the shortfall; again once it had its
		 * guarantee and lost it. */
		.name = "test_guard_says_when_it_cannot_protect",
		.host = NO_MB_MIN,
		PARTS(LC("web", 12000), BE_CUT("a", 1, 400), BE_CUT("b", 1, 400)),
		STEPS({ 1, .mbps = { 7000, 16500, 16500 }, .total_mbps = 40000,
			CHECKS(EVENT(0,
				     "cannot protect: web short of guarantee by 5000 MB/s (7000 < 12000 MB/s) on its "
				     "domain: every best-effort partition there is at its lowest mb_max"),
			       MB_MAX(1, 1), MB_MAX(2, 1)) },
		      { 3, .mbps = { 7000, 16500, 16500 }, .total_mbps = 40000,
			CHECKS(NEVER_SAYS(0, "cannot protect"), FOLDED(0, 3)) },
		      { 1, .mbps = { 12500, 13000, 13000 }, .total_mbps = 38500, CHECKS(EVENT(0, "")) },
		      { 1, .mbps = { 7000, 16500, 16500 }, .total_mbps = 40000,
			CHECKS(SAYS(0, "cannot protect: web")) }),
	},
	{
		/* Given back up to a configured ceiling it was already held at (the configuration came down
		 * to the cut): the guard lets go of it, and no "restore" claims a change. */
		.name = "test_guard_lets_go_silently_where_nothing_changes",
		.host = NO_MB_MIN,
		PARTS(LC("web", 12000), BE_CUT("batch", 40, 16000)),
		STEPS({ 3, .mbps = { 15000, 12000 }, .total_mbps = 27000, .mb_max = { 0, 40 },
			CHECKS(FREE(1), MB_MAX(1, 40), NEVER_SAYS(1, "restore"), FOLDED(1, 1)) }),
	},
	{
		.name = "test_guard_programs_hardware_minimum",
		PARTS({ "web", CLASS_LATENCY_CRITICAL, 12000, 10, 0, { 0 } },
		      { "tenant", CLASS_DEFAULT, 0, 0, 0, { 0 } }),
		STEPS({ 1, .mbps = { 12000, 1000 }, .total_mbps = 13000,
			CHECKS(MB_MIN(0, 30), EVENT(0, "guarantee: mb_min 0% -> 30% (12000 of 40000 MB/s)"),
			       MB_MIN(1, 0)) },
		      /* In force: no event again, the decision stays. */
		      { 1, .applied = true, .mbps = { 12000, 1000 }, .total_mbps = 13000,
			CHECKS(MB_MIN(0, 30), EVENT(0, "")) },
		      /* Never above the ceiling. */
		      { 1, .mbps = { 12000, 1000 }, .total_mbps = 13000, .mb_max = { 25 }, CHECKS(MB_MIN(0, 25)) },
		      /* Without MBW_MIN, or from a learned capacity: the configured minimum only. */
		      { 1, .mbps = { 12000, 1000 }, .total_mbps = 13000, .host = NO_MB_MIN, CHECKS(MB_MIN(0, 10)) },
		      { 1, .mbps = { 12000, 1000 }, .total_mbps = 13000, .host = CAPACITY_LEARNED,
			CHECKS(MB_MIN(0, 10)) }),
	},
};

/* ---- the runner ---- */

struct scene {
	const struct scenario *s;
	size_t step;
	struct policy_host h;
	struct policy_partition p[GUARD_MAX_PARTS];
	struct policy_decision d[GUARD_MAX_PARTS];
	double before_max[GUARD_MAX_PARTS]; /* the decisions after the step before */
	unsigned said[GUARD_MAX_PARTS];	    /* ticks of this step whose event had a NO_EVENT_HAS text */
	unsigned folded[GUARD_MAX_PARTS];   /* events folded over this step's ticks */
};

/* Says which scenario, step, partition and check is about to fail. */
static void context(const struct scene *sc, const struct check *c, bool ok)
{
	static const char *const what[] = {
		[MB_MAX_IS] = "mb_max",	       [MB_MAX_IN] = "mb_max in range", [MB_MAX_HELD] = "mb_max held",
		[MB_MIN_IS] = "mb_min",	       [IS_THROTTLED] = "throttled",	[NOT_THROTTLED] = "not throttled",
		[WANTS_MBPS] = "want_mbps",    [DEMAND_LEVEL] = "demand level", [CALM_TICKS] = "calm ticks",
		[EVENT_IS] = "event",	       [EVENT_HAS] = "event has",	[NO_EVENT_HAS] = "no event has",
		[FOLDED_IS] = "events folded",
	};

	if (!ok)
		print_error("%s, step %zu, %s: %s\n", sc->s->name, sc->step + 1, sc->p[c->part].name, what[c->kind]);
}

static void expect_pct(const struct scene *sc, const struct check *c, double got, double want)
{
	context(sc, c, got == want);
	if (got != want)
		fail_msg("%g%%, not %g%%", got, want);
}

static void expect_true(const struct scene *sc, const struct check *c, bool holds)
{
	context(sc, c, holds);
	assert_true(holds);
}

static void check(const struct scene *sc, const struct check *c)
{
	const struct policy_partition *p = &sc->p[c->part];
	const struct policy_decision *d = &sc->d[c->part];

	switch (c->kind) {
	case MB_MAX_IS:
		expect_pct(sc, c, d->mb_max, c->value);
		break;
	case MB_MAX_IN:
		expect_true(sc, c, d->mb_max < c->value2 && d->mb_max >= c->value);
		break;
	case MB_MAX_HELD:
		expect_pct(sc, c, d->mb_max, sc->before_max[c->part]);
		break;
	case MB_MIN_IS:
		expect_pct(sc, c, d->mb_min, c->value);
		break;
	case IS_THROTTLED:
		expect_true(sc, c, p->guard.throttled);
		break;
	case NOT_THROTTLED:
		expect_true(sc, c, !p->guard.throttled);
		break;
	case WANTS_MBPS:
		expect_true(sc, c, fabs(p->guard.want_mbps - c->value) < 1e-6);
		break;
	case DEMAND_LEVEL:
		expect_true(sc, c, p->guard.demand_level_mbps == c->value);
		break;
	case CALM_TICKS:
		expect_true(sc, c, p->domains[0].guard.calm == (unsigned)c->value);
		break;
	case EVENT_IS:
		context(sc, c, strcmp(policy_decision_event(d), c->text) == 0);
		assert_string_equal(policy_decision_event(d), c->text);
		break;
	case EVENT_HAS:
		expect_true(sc, c, strstr(policy_decision_event(d), c->text) != NULL);
		break;
	case NO_EVENT_HAS:
		expect_true(sc, c, sc->said[c->part] == 0);
		break;
	case FOLDED_IS:
		expect_true(sc, c, sc->folded[c->part] == (unsigned)c->value);
		break;
	}
}

static void check_step(struct scene *sc, const struct step *st)
{
	for (size_t i = 0; i < st->n_checks; i++)
		check(sc, &st->checks[i]);
}

static void set_up(struct scene *sc, const struct scenario *s)
{
	memset(sc, 0, sizeof(*sc));
	sc->s = s;
	for (size_t i = 0; i < s->n_parts; i++) {
		const struct scene_part *sp = &s->parts[i];
		struct policy_partition *p = &sc->p[i];

		*p = rig_part(sp->name, sp->class, s->steps[0].mbps[i]);
		rig_goals(p)->guarantee_mbps = sp->guarantee_mbps;
		rig_goals(p)->mb_min = sp->mb_min;
		p->mb_min = sp->mb_min_in_force;
		p->domains[0].guard = sp->memory;
	}
}

/* The host and the partitions as the step has them. */
static void enter_step(struct scene *sc, const struct step *st)
{
	unsigned host = sc->s->host | st->host;

	for (size_t i = 0; i < sc->s->n_parts; i++) {
		struct policy_partition *p = &sc->p[i];

		if (st->applied) {
			p->mb_max = sc->d[i].mb_max;
			p->mb_min = sc->d[i].mb_min;
		}
		p->mbps = st->mbps[i];
		p->estimated = st->estimated & (1u << i);
		rig_goals(p)->mb_max = st->mb_max[i] ? st->mb_max[i] : 100;
		sc->before_max[i] = sc->d[i].mb_max;
		sc->said[i] = 0;
		sc->folded[i] = 0;
	}
	sc->h = rig_host(RIG_WHOLE_PERCENTS);
	sc->h.has_mb_min = !(host & NO_MB_MIN);
	sc->h.capacity_mbps = host & CAPACITY_UNKNOWN ? 0 : RIG_CAPACITY;
	sc->h.capacity_learned = host & CAPACITY_LEARNED;
	sc->h.total_valid = !(host & TOTAL_INVALID);
	sc->h.total_mbps = st->total_mbps;
}

/* Counts the ticks on which a NO_EVENT_HAS check's text was said, and the events folded. */
static void note_events(struct scene *sc, const struct step *st)
{
	for (size_t i = 0; i < sc->s->n_parts; i++)
		sc->folded[i] += sc->d[i].folded;
	for (size_t i = 0; i < st->n_checks; i++) {
		const struct check *c = &st->checks[i];

		if (c->kind == NO_EVENT_HAS)
			sc->said[c->part] += strstr(policy_decision_event(&sc->d[c->part]), c->text) != NULL;
	}
}

static void run_scenario(void **state)
{
	const struct scenario *s = *state;
	struct scene sc = { 0 };

	set_up(&sc, s);
	for (sc.step = 0; sc.step < s->n_steps; sc.step++) {
		const struct step *st = &s->steps[sc.step];

		enter_step(&sc, st);
		for (unsigned t = 0; t < st->ticks; t++) {
			rig_decide(policy_guard, &sc.h, sc.p, s->n_parts, sc.d);
			note_events(&sc, st);
			if (st->each)
				check_step(&sc, st);
		}
		if (!st->each)
			check_step(&sc, st);
	}
	rig_clear(sc.d, N_OF(sc.d));
}

/* ---- scenarios with a loop of their own ---- */

/* Cut, then guarantees with headroom: nothing for the dwell time, then +5% a tick up to just below
 * the ceiling that squeezed the victim (a squeeze comes back there while the victim is active, as on
 * a flat-topped curve where the cut did nothing until a step below it), and up to the configuration,
 * where the partition is released, once the victim is idle. */
static void test_guard_dwell_then_additive_increase(void **state)
{
	struct policy_host h = rig_host(RIG_WHOLE_PERCENTS);
	struct policy_partition p[2] = { rig_part("web", CLASS_LATENCY_CRITICAL, 7000),
					 rig_part("batch", CLASS_BEST_EFFORT, 33000) };
	struct policy_decision d[2] = { 0 };

	(void)state;
	h.has_mb_min = false;
	rig_goals(&p[0])->guarantee_mbps = 12000;
	h.total_mbps = 40000;
	rig_decide(policy_guard, &h, p, 2, d);
	double cut = d[1].mb_max;
	assert_true(cut < 100);
	/* From now on web has plenty (125% of its guarantee) on a saturated host. */
	p[0].mbps = 15000;
	p[1].mbps = 25000;
	double last = cut;
	int first_raise = 0;
	for (int t = 1; t <= 40 && p[1].guard.throttled; t++) {
		rig_decide(policy_guard, &h, p, 2, d);
		if (d[1].mb_max != last && !first_raise)
			first_raise = t;
		if (p[1].guard.throttled && d[1].mb_max != last) /* +5 a tick, the last step to 99 */
			assert_true(d[1].mb_max == last + 5 || (d[1].mb_max == 99 && last + 5 > 99));
		last = d[1].mb_max;
	}
	assert_int_equal(first_raise, 5); /* dwell 5 ticks after the cut (calm 3 is shorter) */
	assert_true(p[1].guard.throttled);
	assert_int_equal(d[1].mb_max, 99); /* the squeeze was at 100%: one backoff below it */
	/* web goes idle: nobody to squeeze any more, the rest is given back */
	p[0].mbps = 100;
	p[1].mbps = 39000;
	for (int t = 0; t < 10 && p[1].guard.throttled; t++)
		rig_decide(policy_guard, &h, p, 2, d);
	assert_false(p[1].guard.throttled);
	assert_int_equal(d[1].mb_max, 100);
	assert_non_null(strstr(policy_decision_event(&d[1]), "restore: "));
	assert_non_null(strstr(policy_decision_event(&d[1]), "% -> 100%"));
	rig_clear(d, N_OF(d));
}

/* The guard on the rig's closed loop: the victim is back at its guarantee within a few ticks, and
 * what it leaves when idle goes to the aggressors. */
static void check_guard_loop(unsigned wd, bool has_min)
{
	static const policy_fn chain[] = { policy_static, policy_guard, policy_share };
	struct policy_rig rig;

	rig_init(&rig, wd, chain, N_OF(chain));
	rig.host.has_mb_min = has_min;
	struct policy_partition *web = rig_add(&rig, "web", CLASS_LATENCY_CRITICAL, 14000);
	rig_add(&rig, "big", CLASS_BEST_EFFORT, 60000);
	rig_add(&rig, "small", CLASS_BEST_EFFORT, 8000);
	rig_goals(web)->guarantee_mbps = 12000;
	rig_tick(&rig);
	assert_true(web->mbps < 0.95 * 12000); /* the aggressors squeeze it at first */
	int back = 0;
	for (int t = 2; t <= 60; t++) {
		rig_tick(&rig);
		if (!back && web->mbps >= 0.95 * 12000)
			back = t - 1;
		if (back && t > back + 1)
			assert_true(web->mbps >= 0.95 * 12000);
	}
	assert_true(back >= 1 && back <= 3);
	double before = rig.parts[1].mbps + rig.parts[2].mbps, freed = web->mbps;
	rig.demand[0] = 0; /* the victim goes idle */
	int got = 0;
	for (int t = 1; t <= 30; t++) {
		rig_tick(&rig);
		if (!got && rig.parts[1].mbps + rig.parts[2].mbps - before >= 0.9 * freed)
			got = t;
	}
	printf("guard (BWA_WD %u, MBW_MIN %s): victim back in %d ticks, aggressors got 90%% of %.0f MB/s in %d\n", wd,
	       has_min ? "yes" : "no", back, freed, got);
	assert_true(got >= 1 && got <= 20);
}

/* The guard's verdicts on a partition without a guarantee are none (nothing judged, nothing short,
 * whatever an earlier tick left); the tick a guarantee appears (a set, a reload) it is judged, short
 * where it is squeezed, and its neighbour is cut at once; when the guarantee goes, so do the verdicts. */
static void test_guarantee_appearing_is_judged_at_once(void **state)
{
	struct policy_host h = rig_host(RIG_WHOLE_PERCENTS);
	struct policy_partition p[2] = { rig_part("web", CLASS_LATENCY_CRITICAL, 5000),
					 rig_part("batch", CLASS_BEST_EFFORT, 35000) };
	struct policy_decision d[2] = { 0 };
	const struct guard_domain_memory *web = &pol_cdom(&p[0], 0)->guard;

	(void)state;
	h.has_mb_min = false;
	h.total_mbps = 40000;
	pol_doms(&p[0])[0].guard.judged = pol_doms(&p[0])[0].guard.short_here = true; /* stale */
	rig_decide(policy_guard, &h, p, 2, d);
	assert_false(web->judged);
	assert_false(web->short_here);
	assert_true(d[1].mb_max == 100);
	rig_goals(&p[0])->guarantee_mbps = 12000;
	rig_decide(policy_guard, &h, p, 2, d);
	assert_true(web->judged);
	assert_true(web->short_here);
	assert_true(d[1].mb_max < 100);
	rig_goals(&p[0])->guarantee_mbps = 0;
	rig_decide(policy_guard, &h, p, 2, d);
	assert_false(web->judged);
	assert_false(web->short_here);
	rig_clear(d, 2);
}

static void test_guard_closed_loop(void **state)
{
	(void)state;
	check_guard_loop(8, false);
	check_guard_loop(4, false);
	check_guard_loop(8, true);
}

int main(void)
{
	struct CMUnitTest tests[N_OF(scenarios) + 3];
	size_t n = 0;

	for (size_t i = 0; i < N_OF(scenarios); i++)
		tests[n++] = (struct CMUnitTest){ .name = scenarios[i].name,
						  .test_func = run_scenario,
						  .initial_state = (void *)&scenarios[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_guard_dwell_then_additive_increase);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_guard_closed_loop);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_guarantee_appearing_is_judged_at_once);
	return _cmocka_run_group_tests("test_policy_guard", tests, n, NULL, NULL);
}
