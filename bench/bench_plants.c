/* The target controller and the guard on plants the simulator does not have, against the kernel's
 * mba_MBps rule and against no control, on the bench's host double (bench/plant.c):
 *
 *   bench_plants [--csv]
 *
 * Plants: a linear curve with 1% steps, MPAM's bands (BWA_WD 4: 7% steps from 6%), a concave
 * (Intel MBA-like) curve with 1% steps and with Intel's 10% steps; 2% measurement noise; fixed seeds.
 *
 * target: one partition with 40000 MB/s of demand (steady, or bursty: 30 ticks at 40000, 30 at 6000)
 * and a target_mbps on a 40000 MB/s host. Columns: ticks to +-5% (from unthrottled; with bursts the
 * mean over the bursts of the ticks from the burst's start, ">N" when some burst never got there),
 * steady-state error (mean |error| over the ticks within the band after settling: a burst's on-phase
 * only) and limit changes per 100 of those ticks.
 *
 * guard: two domains of 10000 MB/s without MBW_MIN; on domain 0 a latency-critical victim
 * (guarantee 6000, demand 8000) and a best-effort aggressor (30000, steady or bursty), on domain 1 a
 * best-effort bystander (9000). Columns: the victim's ticks below 95% of its guarantee in 300, the
 * ticks until it is back for good, the bystander's mean and worst throughput as a share of its
 * demand, and the aggressor's limit changes per 100 ticks once the victim is back. Chains: mpamd
 * deciding per domain, mpamd on the host's totals (what it did before it decided per domain, and what
 * it does where counters and controls cannot be matched), mba_MBps (no guarantees: the aggressor
 * gets the cap an operator would give it, 4000 MB/s) and no control. See bench/README.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/mba_mbps.h"
#include "bench/plant.h"
#include "policies/policy.h"

#define N_OF(a)	     (sizeof(a) / sizeof((a)[0]))
#define SETTLE_BAND  0.05
#define SHORT_BAND   0.95
#define TARGET_CAP   40000.0
#define DOMAIN_CAP   10000.0
#define STEADY_TICKS 1000
#define BURST_ON     30
#define BURSTS	     10
#define GUARD_TICKS  300

static bool csv;

struct curve_case {
	const char *name;
	const struct mb_curve *curve;
	unsigned bwa_wd, gran_pct, min_pct;
	double target; /* a figure some hardware level gives within 5% */
};

static const struct curve_case curves[] = {
	{ "linear, 1% steps", &plant_linear, 0, 1, 1, 15000 },
	{ "banded, BWA_WD 4", &plant_linear, 4, 7, 6, 15000 },
	{ "concave, 1% steps", &plant_concave, 0, 1, 1, 20000 },
	{ "concave, 10% steps", &plant_concave, 0, 10, 10, 30000 },
};

struct chain_case {
	const char *label;
	const struct policy_chain *chain;
	bool per_domain; /* the policies see each domain */
	bool mba;	 /* give the aggressor the cap an operator would give mba_MBps */
};

static const struct chain_case target_chains[] = {
	{ "mpamd", &policy_chain_default, true, false },
	{ "mba_MBps", &policy_chain_mba_mbps, true, true },
	{ "static", &policy_chain_static, true, false },
};

static const struct chain_case guard_chains[] = {
	{ "mpamd, per domain", &policy_chain_default, true, false },
	{ "mpamd, host totals", &policy_chain_default, false, false },
	{ "mba_MBps", &policy_chain_mba_mbps, true, true },
	{ "static", &policy_chain_static, true, false },
};

static struct plant_setup setup_of(const struct curve_case *c, unsigned domains, double capacity, bool per_domain)
{
	return (struct plant_setup){ .domains = domains,
				     .capacity_mbps = capacity,
				     .gran_pct = c->gran_pct,
				     .min_pct = c->min_pct,
				     .bwa_wd = c->bwa_wd,
				     .curve = c->curve,
				     .noise = 0.02,
				     .seed = 23,
				     .capacity_known = true,
				     .per_domain = per_domain };
}

/* ---- target ---- */

struct target_result {
	double settle;	   /* ticks; mean over bursts */
	bool never;	   /* some window never got within the band */
	double steady_err; /* percent */
	double changes;	   /* per 100 steady ticks */
};

/* Follows `len` ticks from a step: the first tick from which the rate stays within the band to the
 * end of the window, and, after it, the error and the limit changes. */
struct window {
	int settle;
	double err_sum;
	unsigned changes, steady;
};

static struct window follow(struct plant *pl, size_t t, double target, int len)
{
	struct window w = { .settle = -1 };
	double last = plant_max_at(pl, t, 0);

	for (int k = 1; k <= len; k++) {
		plant_tick(pl);
		double rel = (pl->truth[t] - target) / target;
		double now = plant_max_at(pl, t, 0);
		if (fabs(rel) > SETTLE_BAND) {
			w = (struct window){ .settle = -1 };
		} else if (w.settle < 0) {
			w.settle = k;
		} else {
			w.err_sum += fabs(rel);
			w.changes += now != last;
			w.steady++;
		}
		last = now;
	}
	return w;
}

static struct target_result run_target(const struct curve_case *c, const struct chain_case *ch, bool bursty)
{
	struct plant_setup setup = setup_of(c, 1, TARGET_CAP, ch->per_domain);
	struct target_result r = { 0 };
	struct plant pl;
	double err = 0;
	unsigned changes = 0, steady = 0, windows = bursty ? BURSTS : 1;

	if (plant_init(&pl, &setup, ch->chain, 1) < 0)
		exit(1);
	size_t t = plant_add(&pl, "t", CLASS_DEFAULT, 0, (struct plant_demand){ .base_mbps = TARGET_CAP });
	pl.goals[t].target_mbps = (uint32_t)c->target;
	plant_tick(&pl); /* the monitors' first interval */
	for (unsigned b = 0; b < windows; b++) {
		struct window w = follow(&pl, t, c->target, bursty ? BURST_ON : STEADY_TICKS);
		r.never |= w.settle < 0;
		r.settle += w.settle < 0 ? (bursty ? BURST_ON : STEADY_TICKS) : w.settle;
		err += w.err_sum;
		changes += w.changes;
		steady += w.steady;
		if (!bursty)
			break;
		pl.demand[t].base_mbps = 6000; /* the off-phase: demand below the target */
		for (int k = 0; k < BURST_ON; k++)
			plant_tick(&pl);
		pl.demand[t].base_mbps = TARGET_CAP;
	}
	r.settle /= windows;
	r.steady_err = steady ? 100 * err / steady : NAN;
	r.changes = steady ? 100.0 * changes / steady : NAN;
	plant_free(&pl);
	return r;
}

/* ---- guard ---- */

struct guard_result {
	int short_ticks, back; /* back: ticks until the victim is at 95% for good; -1: never */
	double by_mean, by_worst;
	double changes; /* the aggressor's, per 100 ticks after the victim is back */
};

static struct guard_result run_guard(const struct curve_case *c, const struct chain_case *ch, bool bursty)
{
	struct plant_setup setup = setup_of(c, 2, DOMAIN_CAP, ch->per_domain);
	struct guard_result r = { .back = -1, .by_worst = INFINITY };
	struct plant pl;
	struct plant_demand agg_demand = { .base_mbps = 30000 };

	if (bursty)
		agg_demand = (struct plant_demand){ .base_mbps = 30000, .period = 40, .duty = 0.5, .low_mbps = 2000 };
	if (plant_init(&pl, &setup, ch->chain, 3) < 0)
		exit(1);
	size_t web = plant_add(&pl, "web", CLASS_LATENCY_CRITICAL, 0, (struct plant_demand){ .base_mbps = 8000 });
	size_t agg = plant_add(&pl, "agg", CLASS_BEST_EFFORT, 0, agg_demand);
	size_t by = plant_add(&pl, "by", CLASS_BEST_EFFORT, 1, (struct plant_demand){ .base_mbps = 9000 });
	pl.goals[web].guarantee_mbps = 6000;
	if (ch->mba)
		pl.goals[agg].target_mbps = 4000; /* capacity less the guarantee */
	unsigned changes = 0, after = 0;
	double last = 100;
	for (int k = 1; k <= GUARD_TICKS; k++) {
		plant_tick(&pl);
		bool low = pl.truth[web] < SHORT_BAND * 6000;
		r.short_ticks += low;
		if (low)
			r.back = -1;
		else if (r.back < 0)
			r.back = k;
		r.by_mean += pl.truth[by] / 9000 / GUARD_TICKS;
		r.by_worst = fmin(r.by_worst, pl.truth[by] / 9000);
		double now = plant_max_at(&pl, agg, 0);
		if (r.back > 0 && k > r.back) {
			changes += now != last;
			after++;
		}
		last = now;
	}
	r.changes = after ? 100.0 * changes / after : NAN;
	plant_free(&pl);
	return r;
}

/* ---- output ---- */

static void cell(const char *text)
{
	printf(csv ? ",%s" : " %10s", text);
}

static void cell_num(double v, const char *fmt)
{
	char buf[32];

	if (isnan(v))
		snprintf(buf, sizeof(buf), "-");
	else
		snprintf(buf, sizeof(buf), fmt, v);
	cell(buf);
}

static void row_start(const char *scenario, const char *chain)
{
	printf(csv ? "%s,%s" : "%-36s %-19s", scenario, chain);
}

static void target_table(void)
{
	if (csv)
		printf("scenario,chain,ticks_to_5pct,steady_error_pct,changes_per_100\n");
	else
		printf("%-36s %-19s %10s %10s %10s\n", "target (plant, demand)", "chain", "to +-5%", "ss error %",
		       "chg/100");
	for (size_t c = 0; c < N_OF(curves); c++) {
		for (int bursty = 0; bursty <= 1; bursty++) {
			char name[64];
			snprintf(name, sizeof(name), "%s, %s %.0f", curves[c].name, bursty ? "bursty" : "steady",
				 curves[c].target);
			for (size_t k = 0; k < N_OF(target_chains); k++) {
				struct target_result r = run_target(&curves[c], &target_chains[k], bursty);
				char settle[16];
				snprintf(settle, sizeof(settle), r.never ? ">%.1f" : "%.1f", r.settle);
				row_start(name, target_chains[k].label);
				cell(settle);
				cell_num(r.steady_err, "%.1f");
				cell_num(r.changes, "%.1f");
				printf("\n");
			}
		}
	}
}

static void guard_table(void)
{
	if (csv)
		printf("scenario,chain,victim_short_ticks,victim_back_tick,bystander_mean_pct,bystander_worst_pct,"
		       "aggressor_changes_per_100\n");
	else
		printf("\n%-36s %-19s %10s %10s %10s %10s %10s\n", "guard, 2 domains (plant, aggressor)", "chain",
		       "victim<G", "back at", "by mean %", "by worst %", "chg/100");
	for (size_t c = 0; c < N_OF(curves); c++) {
		for (int bursty = 0; bursty <= 1; bursty++) {
			char name[64];
			snprintf(name, sizeof(name), "%s, %s", curves[c].name, bursty ? "bursty" : "steady");
			for (size_t k = 0; k < N_OF(guard_chains); k++) {
				struct guard_result r = run_guard(&curves[c], &guard_chains[k], bursty);
				row_start(name, guard_chains[k].label);
				cell_num(r.short_ticks, "%.0f");
				if (r.back < 0)
					cell("never");
				else
					cell_num(r.back, "%.0f");
				cell_num(100 * r.by_mean, "%.1f");
				cell_num(100 * r.by_worst, "%.1f");
				cell_num(r.changes, "%.1f");
				printf("\n");
			}
		}
	}
}

int main(int argc, char **argv)
{
	csv = argc > 1 && !strcmp(argv[1], "--csv");
	if (argc > 1 && !csv) {
		fprintf(stderr, "usage: bench_plants [--csv]\n");
		return 2;
	}
	target_table();
	guard_table();
	return 0;
}
