/* The target controller on plants as real hardware makes them (issue: "a controller that holds on real
 * plants"), on the bench's host double (bench/plant.c), against the kernel's mba_MBps rule and against
 * the best static limit for each plant (the oracle: every rung tried, the one with the smallest p90
 * error kept, chosen knowing the plant):
 *
 *   bench_real_plants [--csv]
 *
 * Plants: a concave MPAM curve (BWA_WD 8) with 0, 1 and 2 ticks of actuation delay; Intel's 10% steps
 * on a flat-topped curve with a target that is exactly a step, with 2 ticks of delay, and with 5% and
 * 10% measurement noise; a steep BWA_WD 8 curve; the man page's banded curve; AMD's absolute units
 * (1/8 GB/s). One partition on a 40000 MB/s domain, demand 40000 MB/s with two drops to 6000 (steps
 * down and back up), fixed seeds, 2% noise where not said.
 *
 * Columns: ticks to the band from the start (a new target on an unthrottled partition: the delay is
 * not known yet) and the worst after a step up of demand (the two returns from 6000; -1: never; the
 * band is +-5% of the target or the oracle's neighbouring rungs' p90 error, whichever is larger),
 * p90 steady error (|true rate - target| / target over the high-demand ticks after the band
 * is reached), limit changes per 100 of those ticks, and whether the bar is met (p90 within the
 * band, at most 3 changes per 100, the band within 5 + 2 x delay ticks). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/mba_mbps.h"
#include "bench/plant.h"
#include "policies/policy.h"

#define N_OF(a)	    (sizeof(a) / sizeof((a)[0]))
#define CAPACITY    40000.0
#define HIGH	    40000.0
#define LOW	    6000.0
#define PHASE_HIGH  200
#define PHASE_LOW   50
#define PHASES	    3 /* high, low, high, low, high */
#define TOTAL_TICKS (PHASES * PHASE_HIGH + (PHASES - 1) * PHASE_LOW)
#define MAX_CHANGES 3.0

static bool csv;

static const struct mb_curve steep = { .count = 3, .points = { { 5, 0.2 }, { 15, 0.6 }, { 30, 0.9 } } };
static const struct mb_curve banded = {
	.count = 8,
	.points = { { 24.9, 0 },
		    { 25, 0.25 },
		    { 49.9, 0.25 },
		    { 50, 0.5 },
		    { 74.9, 0.5 },
		    { 75, 0.75 },
		    { 99.9, 0.75 },
		    { 100, 1 } },
};
/* Intel-like: nothing changes above 70%, steep below 30% */
static const struct mb_curve flat_top = { .count = 4,
					  .points = { { 10, 0.12 }, { 20, 0.3 }, { 30, 0.55 }, { 70, 1 } } };

struct real_plant {
	const char *name;
	const struct mb_curve *curve;
	unsigned bwa_wd, gran_pct, min_pct, delay;
	uint32_t units_max;
	double noise, target;
};

static const struct real_plant plants[] = {
	{ "concave MPAM, delay 0", &plant_concave, 8, 0, 0, 0, 0, 0.02, 12000 },
	{ "concave MPAM, delay 1", &plant_concave, 8, 0, 0, 1, 0, 0.02, 12000 },
	{ "concave MPAM, delay 2", &plant_concave, 8, 0, 0, 2, 0, 0.02, 12000 },
	{ "Intel 10% steps, delay 2", &flat_top, 0, 10, 10, 2, 0, 0.02, 22000 },
	{ "Intel 10% steps, noise 5%", &flat_top, 0, 10, 10, 0, 0, 0.05, 22000 },
	{ "Intel 10% steps, noise 10%", &flat_top, 0, 10, 10, 0, 0, 0.10, 22000 },
	{ "Intel steps, between, 5%", &flat_top, 0, 10, 10, 0, 0, 0.05, 25000 },
	{ "Intel steps, between, 10%", &flat_top, 0, 10, 10, 0, 0, 0.10, 25000 },
	{ "steep BWA_WD 8", &steep, 8, 0, 0, 0, 0, 0.02, 9000 },
	{ "banded (man page)", &banded, 8, 0, 0, 0, 0, 0.02, 22000 },
	{ "AMD units, delay 1", &plant_linear, 0, 0, 0, 1, 2048, 0.02, 12000 },
};

struct run_result {
	int start;	  /* ticks to the band from the start (a new target, unthrottled); -1: never */
	int settle_worst; /* the worst over the steps up of demand after it; -1: some never did */
	double p90;	  /* relative */
	double changes;	  /* per 100 steady ticks */
};

static struct plant_setup setup_of(const struct real_plant *p)
{
	return (struct plant_setup){ .domains = 1,
				     .capacity_mbps = CAPACITY,
				     .gran_pct = p->gran_pct ? p->gran_pct : 1,
				     .min_pct = p->min_pct ? p->min_pct : 1,
				     .bwa_wd = p->bwa_wd,
				     .curve = p->curve,
				     .noise = p->noise,
				     .delay = p->delay,
				     .units_max = p->units_max,
				     .mbps_per_unit = 125,
				     .seed = 11,
				     .capacity_known = true,
				     .per_domain = true };
}

static bool high_phase(int k)
{
	return k % (PHASE_HIGH + PHASE_LOW) < PHASE_HIGH;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Runs the plant under `chain` (a static limit of `static_pct` when that is not 0) and measures it
 * against `band`. */
static struct run_result run(const struct real_plant *rp, const struct policy_chain *chain, double static_pct,
			     double band)
{
	struct plant_setup setup = setup_of(rp);
	struct plant pl;
	static double errs[TOTAL_TICKS];
	struct run_result r = { .settle_worst = 0 };
	size_t n_err = 0;
	unsigned changes = 0, steps = 0;
	int since_step = 0, settle = -1;
	double last = 100;

	if (plant_init(&pl, &setup, chain, 1) < 0)
		exit(1);
	size_t t = plant_add(&pl, "t", CLASS_DEFAULT, 0, (struct plant_demand){ .base_mbps = HIGH });
	if (static_pct > 0)
		pl.goals[t].mb_max = static_pct;
	else
		pl.goals[t].target_mbps = (uint32_t)rp->target;
	for (int k = 0; k < TOTAL_TICKS; k++) {
		bool high = high_phase(k);
		if (high && (k == 0 || !high_phase(k - 1))) { /* a step up: count from here */
			since_step = 0;
			settle = -1;
		}
		pl.demand[t].base_mbps = high ? HIGH : LOW;
		plant_tick(&pl);
		since_step++;
		double err = fabs(pl.truth[t] - rp->target) / rp->target, now = plant_max_at(&pl, t, 0);
		if (high) {
			if (err > band)
				settle = -1;
			else if (settle < 0)
				settle = since_step;
		}
		bool end_of_high = high && (k + 1 == TOTAL_TICKS || !high_phase(k + 1));
		if (end_of_high && steps++ == 0)
			r.start = settle;
		else if (end_of_high)
			r.settle_worst = settle < 0 || r.settle_worst < 0
						 ? -1
						 : (settle > r.settle_worst ? settle : r.settle_worst);
		if (high && settle > 0 && since_step > settle) {
			errs[n_err++] = err;
			changes += now != last;
		}
		last = now;
	}
	plant_free(&pl);
	qsort(errs, n_err, sizeof(errs[0]), cmp_double);
	r.p90 = n_err ? errs[(size_t)(0.9 * (n_err - 1))] : NAN;
	r.changes = n_err ? 100.0 * changes / n_err : NAN;
	return r;
}

/* The oracle: every rung tried as a static limit; the best p90 error, and the band (the worst p90 of
 * it and its neighbouring rungs, at least 5%). */
static double oracle(const struct real_plant *rp, double *best_pct, double *band)
{
	struct plant_setup setup = setup_of(rp);
	struct plant pl;

	if (plant_init(&pl, &setup, &policy_chain_static, 1) < 0)
		exit(1);
	const struct ladder *l = &pl.max_ladder;
	uint32_t count = l->count, best = 0;
	double *p90 = calloc(count, sizeof(*p90));
	for (uint32_t rung = 0; rung < count; rung++) {
		struct run_result r = run(rp, &policy_chain_static, ladder_pct(l, rung), INFINITY);
		p90[rung] = r.p90;
		if (p90[rung] < p90[best])
			best = rung;
	}
	*best_pct = ladder_pct(l, best);
	*band = 0.05;
	for (uint32_t rung = best ? best - 1 : 0; rung <= best + 1 && rung < count; rung++)
		*band = fmax(*band, p90[rung]);
	double b = p90[best];
	free(p90);
	plant_free(&pl);
	return b;
}

static void print_row(const char *plant, const char *chain, const struct run_result *r, double band, unsigned delay)
{
	char settle[24];

	snprintf(settle, sizeof(settle), "%d/%d", r->start, r->settle_worst);
	bool ok = r->start >= 0 && r->settle_worst >= 0 && r->settle_worst <= (int)(5 + 2 * delay) &&
		  r->p90 <= band + 1e-9 && r->changes <= MAX_CHANGES;
	printf(csv ? "%s,%s,%s,%.1f,%.1f,%s\n" : "%-28s %-14s %10s %8.1f %8.1f %6s\n", plant, chain, settle,
	       100 * r->p90, r->changes, ok ? "yes" : "no");
}

/* ---- the guard: a flat-topped curve, and a crowd ---- */

/* Three squeezes: the neighbours quiet for GUARD_QUIET ticks (the victim has its demand), then loud
 * for GUARD_LOUD. The first GUARD_RESPONSE ticks of a loud phase are the squeeze and the guard's
 * answer; the rest are steady. */
#define GUARD_QUIET    50
#define GUARD_LOUD     150
#define GUARD_CYCLES   3
#define GUARD_TICKS    (GUARD_CYCLES * (GUARD_QUIET + GUARD_LOUD))
#define GUARD_RESPONSE 20
#define GUARD_MAX_BE   128
#define GUARD_BAR      3 /* short ticks per squeeze (1 with MBW_MIN) */

struct guard_plant {
	const char *name;
	const struct mb_curve *curve;
	unsigned gran_pct, delay, crowd; /* crowd: best-effort neighbours (1: one aggressor) */
	unsigned monitors;		 /* rate counters (0: one each, every partition measured) */
	bool has_mb_min;
	double capacity, guarantee, victim_demand, neighbour_demand, quiet_demand;
};

static const struct guard_plant guard_plants[] = {
	{ "flat-topped, 1 aggressor", &flat_top, 10, 0, 1, 0, false, 20000, 12000, 14000, 40000, 2000 },
	{ "flat-topped, delay 1", &flat_top, 10, 1, 1, 0, false, 20000, 12000, 14000, 40000, 2000 },
	{ "flat-topped, MBW_MIN", &flat_top, 10, 0, 1, 0, true, 20000, 12000, 14000, 40000, 2000 },
	{ "crowd 60 x 600, measured", &plant_linear, 1, 0, 60, 0, false, 30000, 8000, 9000, 600, 50 },
	{ "crowd 60 x 600, 16 monitors", &plant_linear, 1, 0, 60, 16, false, 30000, 8000, 9000, 600, 50 },
	{ "crowd 60 x 600, 64 monitors", &plant_linear, 1, 0, 60, 64, false, 30000, 8000, 9000, 600, 50 },
	{ "crowd 70 x 500, 64 monitors", &plant_linear, 1, 0, 70, 64, false, 30000, 8000, 9000, 500, 40 },
	{ "crowd 60 x 600, 16 mon., MIN", &plant_linear, 1, 0, 60, 16, true, 30000, 8000, 9000, 600, 50 },
	{ "crowd 60 x 300, 16 (no squeeze)", &plant_linear, 1, 0, 60, 16, false, 30000, 8000, 9000, 300, 50 },
	{ "crowd 60 x 600, 16 mon., delay 1", &plant_linear, 1, 1, 60, 16, false, 30000, 8000, 9000, 600, 50 },
	{ "crowd 120 x 150, 16 (no squeeze)", &plant_linear, 1, 0, 120, 16, false, 30000, 8000, 9000, 150, 50 },
	{ "crowd 60 x 600, 4 monitors", &plant_linear, 1, 0, 60, 4, false, 30000, 8000, 9000, 600, 50 },
	{ "crowd 60 x 600 from 0, 16 mon.", &plant_linear, 1, 0, 60, 16, false, 30000, 8000, 9000, 600, 0 },
	{ "crowd 60 x 350, web wants 6000", &plant_linear, 1, 0, 60, 16, false, 30000, 8000, 6000, 350, 50 },
};

struct guard_run {
	unsigned short_ticks; /* the victim below 95% of its guarantee (or of its demand, when less) */
	unsigned worst;	      /* the most of them in one cycle (one squeeze) */
	double changes;	      /* neighbours' limit changes per 100 steady ticks (all of them together) */
	unsigned moves;	      /* neighbours' limit changes in the whole run */
};

static bool guard_loud(int t)
{
	return t % (GUARD_QUIET + GUARD_LOUD) >= GUARD_QUIET;
}

/* Steady: in a loud phase, after the squeeze and the guard's answer to it. */
static bool guard_steady(int t)
{
	return t % (GUARD_QUIET + GUARD_LOUD) >= GUARD_QUIET + GUARD_RESPONSE;
}

/* The victim and its neighbours under `chain`; with cap_pct > 0 every neighbour has that static mb_max. */
static struct guard_run run_guard(const struct guard_plant *g, const struct policy_chain *chain, double cap_pct)
{
	struct plant_setup setup = { .domains = 1,
				     .capacity_mbps = g->capacity,
				     .gran_pct = g->gran_pct,
				     .min_pct = g->gran_pct,
				     .curve = g->curve,
				     .noise = 0.02,
				     .delay = g->delay,
				     .seed = 5,
				     .capacity_known = true,
				     .per_domain = true,
				     .has_mb_min = g->has_mb_min,
				     .monitors = g->monitors };
	struct plant pl;
	struct guard_run r = { 0 };
	unsigned changes = 0, steady = 0, in_cycle = 0;
	double before[GUARD_MAX_BE];

	if (g->crowd > GUARD_MAX_BE || plant_init(&pl, &setup, chain, g->crowd + 1) < 0)
		exit(1);
	size_t v = plant_add(&pl, "victim", CLASS_LATENCY_CRITICAL, 0,
			     (struct plant_demand){ .base_mbps = g->victim_demand });
	pl.goals[v].guarantee_mbps = (uint32_t)g->guarantee;
	for (unsigned k = 0; k < g->crowd; k++) {
		size_t n = plant_add(&pl, "be", CLASS_BEST_EFFORT, 0, (struct plant_demand){ 0 });
		if (cap_pct > 0)
			pl.goals[n].mb_max = cap_pct;
	}
	double due = fmin(g->guarantee, g->victim_demand);
	for (int t = 0; t < GUARD_TICKS; t++) {
		for (unsigned k = 0; k < g->crowd; k++) {
			pl.demand[1 + k].base_mbps = guard_loud(t) ? g->neighbour_demand : g->quiet_demand;
			before[k] = plant_max_at(&pl, 1 + k, 0);
		}
		if (t % (GUARD_QUIET + GUARD_LOUD) == 0)
			in_cycle = 0;
		plant_tick(&pl);
		bool is_short = t > 0 && pl.truth[v] < 0.95 * due;
		r.short_ticks += is_short;
		in_cycle += is_short;
		r.worst = in_cycle > r.worst ? in_cycle : r.worst;
		unsigned moved = 0;
		for (unsigned k = 0; t > 0 && k < g->crowd; k++) /* tick 0: a static cap applied */
			moved += plant_max_at(&pl, 1 + k, 0) != before[k];
		r.moves += moved;
		steady += guard_steady(t);
		changes += guard_steady(t) ? moved : 0;
	}
	r.changes = 100.0 * changes / steady;
	plant_free(&pl);
	return r;
}

/* The oracle: the highest static cap on every neighbour with which the victim is short least. */
static double guard_oracle(const struct guard_plant *g, struct guard_run *best)
{
	double best_pct = 100;

	*best = run_guard(g, &policy_chain_static, 100);
	for (double pct = 100; pct >= g->gran_pct; pct -= g->gran_pct) {
		struct guard_run r = run_guard(g, &policy_chain_static, pct);
		if (r.short_ticks < best->short_ticks) {
			*best = r;
			best_pct = pct;
		}
	}
	return best_pct;
}

/* The bar: at most GUARD_BAR short ticks per squeeze (1 with MBW_MIN), at most MAX_CHANGES
 * limit changes per 100 steady ticks, and where the victim is never short, no limit moved at all. */
static bool guard_bar(const struct guard_plant *g, const struct guard_run *r)
{
	if (r->short_ticks == 0 && r->moves == 0)
		return true;
	return r->short_ticks > 0 && r->worst <= (g->has_mb_min ? 1u : GUARD_BAR) && r->changes <= MAX_CHANGES;
}

static void guard_row(const struct guard_plant *g, const char *chain, const struct guard_run *r, bool bar)
{
	printf(csv ? "%s,%s,%u,%u,%.1f,%u,%s\n" : "%-31s %-11s %6u %6u %8.1f %6u %4s\n", g->name, chain, r->worst,
	       r->short_ticks, r->changes, r->moves, bar ? (guard_bar(g, r) ? "yes" : "no") : "-");
}

static void guard_table(void)
{
	printf(csv ? "\nguard_plant,chain,worst_short_per_squeeze,short_ticks,steady_changes_per_100,moves,meets_bar\n"
		   : "\n%-31s %-11s %6s %6s %8s %6s %4s\n",
	       "guard plant (3 squeezes, 600 t)", "chain", "worst", "short", "chg/100", "moves", "bar");
	for (size_t i = 0; i < N_OF(guard_plants); i++) {
		const struct guard_plant *g = &guard_plants[i];
		struct guard_run ours = run_guard(g, &plant_guard_chain, 0), best;
		double pct = guard_oracle(g, &best);
		char label[40];
		snprintf(label, sizeof(label), "oracle %g%%", pct);
		guard_row(g, "mpamd", &ours, true);
		guard_row(g, label, &best, false);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--csv")) {
		fprintf(stderr, "usage: bench_real_plants [--csv]\n");
		return 2;
	}
	csv = argc > 1;
	printf(csv ? "plant,chain,ticks_to_band_start_worst_step,p90_error_pct,changes_per_100,meets_bar\n"
		   : "%-28s %-14s %10s %8s %8s %6s\n",
	       "plant", "chain", "start/step", "p90 %", "chg/100", "bar");
	for (size_t i = 0; i < N_OF(plants); i++) {
		const struct real_plant *p = &plants[i];
		double best_pct, band;
		double best = oracle(p, &best_pct, &band);
		struct run_result ours = run(p, &plant_target_chain, 0, band);
		struct run_result mba = run(p, &policy_chain_mba_mbps, 0, band);
		struct run_result stat = run(p, &policy_chain_static, best_pct, band);
		char label[40];
		snprintf(label, sizeof(label), "oracle %g%%", best_pct);
		print_row(p->name, "mpamd", &ours, band, p->delay);
		print_row(p->name, "mba_MBps", &mba, band, p->delay);
		print_row(p->name, label, &stat, band, p->delay);
		if (!csv)
			printf("%-28s band %.1f%% (oracle p90 %.1f%%)\n", "", 100 * band, 100 * best);
	}
	guard_table();
	return 0;
}
