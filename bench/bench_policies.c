/* mpamd's feedback policies against the kernel's mba_MBps rule and against no control, on the same
 * simulated scenarios, in one run:
 *
 *   bench_policies [--csv]
 *
 * Every scenario runs through the engine on simulated time (deterministic seeds) once per chain:
 *   mpamd            the default chain (static, target, guard, share, escalate)
 *   mpamd, no MIN    the same with the guard told the hardware has no MBW_MIN (x86/resctrl-like)
 *   mba_MBps         the kernel's software controller (bench/mba_mbps.c)
 *   static           configured limits only: no control
 * and prints, per step of each scenario: ticks to converge (within +-5% of the target for good),
 * overshoot, steady-state error (mean over the last quarter), the victim's ticks below 95% of its
 * guarantee, host utilisation (served / capacity, mean over the scenario) and, for the guard, the
 * ticks until the aggressor has 90% of the victim's freed bandwidth. Rates are the simulator's ground
 * truth. The scenarios ask for hard MBW_MAX limits (mb_max_mode = hard): a soft one lets a partition use
 * what nobody else wants, which no controller can hold on a host with bandwidth to spare. See
 * bench/README.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine/registry.h"
#include "bench/mba_mbps.h"
#include "core/config/config.h"
#include "core/engine/engine.h"
#include "core/base/log.h"
#include "policies/policy.h"

#define INTERVAL_MS	   100
#define CAPACITY_MBPS	   40000.0 /* 2 MSCs of 20000 */
#define MAXP		   4
#define MAXSETS		   4
#define SETTLE_BAND	   0.05 /* "converged": within 5% of target */
#define GUARANTEE_FRACTION 0.95 /* a victim below 95% of its guarantee counts as short */
#define RECOVERY_FRACTION  0.90 /* the aggressor has 90% of the freed bandwidth back */

struct scheduled_set {
	uint64_t after_tick;
	const char *partition;
	const char *setting;
};

struct trace {
	size_t parts;
	uint64_t ticks;
	char names[MAXP][65];
	double *truth;	/* [(tick - 1) * parts + part] */
	double *mb_max; /* same layout */
	bool *valid;
	const struct scheduled_set *sets;
	size_t set_count;
};

static void on_tick(void *ctx, struct engine *engine)
{
	struct trace *t = ctx;
	uint64_t done = engine_ticks_done(engine);

	for (size_t i = 0; i < t->parts && done <= t->ticks; i++) {
		const struct partition_status *st = engine_partition(engine, i);
		size_t at = (done - 1) * t->parts + i;
		t->truth[at] = st->truth_mbps;
		t->mb_max[at] = st->mb_max;
		t->valid[at] = st->valid;
	}
	for (size_t s = 0; s < t->set_count; s++) {
		if (t->sets[s].after_tick != done)
			continue;
		struct err err = { "" };
		const char *settings[] = { t->sets[s].setting };
		if (engine_set(engine, t->sets[s].partition, settings, 1, NULL, NULL, &err) < 0)
			fprintf(stderr, "bench: set %s: %s\n", t->sets[s].setting, err.text);
	}
}

static struct config *load(const char *text)
{
	struct diag_list diags;
	struct config *config = NULL;

	diag_list_init(&diags, "scenario.ini");
	int r = config_load_string(text, engine_default_schema(), NULL, &config, &diags);
	diag_print(&diags, stderr);
	diag_list_fini(&diags);
	if (r < 0) {
		fprintf(stderr, "bench: scenario does not load\n");
		exit(1);
	}
	return config;
}

static void trace_free(struct trace *t)
{
	free(t->truth);
	free(t->mb_max);
	free(t->valid);
}

static struct trace run(const char *text, uint64_t ticks, const struct policy_chain *chain,
			const struct scheduled_set *sets, size_t set_count)
{
	struct trace t = { .ticks = ticks, .sets = sets, .set_count = set_count };
	struct config *config = load(text);
	struct engine *engine = NULL;
	struct err err = { "" };

	t.parts = config->partition_count;
	for (size_t i = 0; i < t.parts && i < MAXP; i++)
		snprintf(t.names[i], sizeof(t.names[i]), "%s", config->partitions[i].name);
	t.truth = calloc(ticks * t.parts, sizeof(*t.truth));
	t.mb_max = calloc(ticks * t.parts, sizeof(*t.mb_max));
	t.valid = calloc(ticks * t.parts, sizeof(*t.valid));
	struct engine_options opts = {
		.ticks = ticks, .sim_clock = true, .policies = chain, .on_tick = on_tick, .on_tick_ctx = &t
	};
	if (!t.truth || !t.mb_max || !t.valid || t.parts > MAXP || engine_new(config, &opts, &engine, &err) < 0 ||
	    engine_run(engine, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err.text[0] ? err.text : "out of memory");
		exit(1);
	}
	engine_free(engine);
	return t;
}

static size_t part_of(const struct trace *t, const char *name)
{
	for (size_t i = 0; i < t->parts; i++)
		if (!strcmp(t->names[i], name))
			return i;
	fprintf(stderr, "bench: no partition %s\n", name);
	exit(1);
}

static double truth_at(const struct trace *t, uint64_t tick, size_t part)
{
	return t->truth[(tick - 1) * t->parts + part];
}

static double utilisation(const struct trace *t)
{
	double sum = 0;

	for (uint64_t k = 1; k <= t->ticks; k++)
		for (size_t i = 0; i < t->parts; i++)
			sum += truth_at(t, k, i);
	return 100.0 * sum / (double)t->ticks / CAPACITY_MBPS;
}

/* ---- metrics ---- */

struct metrics {
	int converge;	     /* ticks; -1: not within the window */
	double overshoot;    /* percent; NAN: not applicable */
	double steady_error; /* percent */
	int victim_short;    /* ticks; -2: not applicable */
	int recovery;	     /* ticks; -1: never; -2: not applicable */
	double util;	     /* percent */
};

static struct metrics na(const struct trace *t)
{
	return (struct metrics){ .converge = -2,
				 .overshoot = NAN,
				 .steady_error = NAN,
				 .victim_short = -2,
				 .recovery = -2,
				 .util = utilisation(t) };
}

/* The window of `len` ticks after `after` (first sample: after + 1). A target step's first sample was
 * measured before any decision could follow it, so its overshoot counts from the second. */
static struct metrics step_metrics(const struct trace *t, size_t part, uint64_t after, uint64_t len, double target,
				   bool target_step)
{
	struct metrics m = na(t);
	double err_sum = 0;
	unsigned err_n = 0;

	m.converge = -1;
	m.overshoot = 0;
	for (uint64_t k = 1; k <= len; k++) {
		double rel = (truth_at(t, after + k, part) - target) / target;
		if (k > 1 || !target_step)
			m.overshoot = fmax(m.overshoot, 100 * rel);
		if (fabs(rel) > SETTLE_BAND)
			m.converge = -1;
		else if (m.converge < 0)
			m.converge = (int)k;
		if (k > len - len / 4) {
			err_sum += fabs(rel);
			err_n++;
		}
	}
	m.steady_error = 100 * err_sum / err_n;
	return m;
}

static struct metrics guard_metrics(const struct trace *t, size_t victim, size_t aggressor, double guarantee,
				    uint64_t idle_after)
{
	struct metrics m = na(t);
	uint64_t first_short = 0;
	double freed = 0, before = 0;

	m.victim_short = 0;
	m.converge = -1;
	for (uint64_t k = 1; k <= idle_after; k++) {
		bool low = truth_at(t, k, victim) < GUARANTEE_FRACTION * guarantee;
		m.victim_short += low;
		first_short = low && !first_short ? k : first_short;
		if (low)
			m.converge = -1;
		else if (first_short && m.converge < 0)
			m.converge = (int)(k - first_short);
	}
	for (uint64_t k = idle_after - 9; k <= idle_after; k++) {
		freed += truth_at(t, k, victim) / 10;
		before += truth_at(t, k, aggressor) / 10;
	}
	m.recovery = -1;
	for (uint64_t k = idle_after + 1; k <= t->ticks && m.recovery < 0; k++)
		if (truth_at(t, k, aggressor) >= before + RECOVERY_FRACTION * freed)
			m.recovery = (int)(k - idle_after);
	return m;
}

/* ---- output ---- */

static bool csv;

static void cell_int(int v, int window)
{
	char buf[16];

	if (v == -2)
		snprintf(buf, sizeof(buf), "-");
	else if (v < 0)
		snprintf(buf, sizeof(buf), csv ? "never" : ">%d", window);
	else
		snprintf(buf, sizeof(buf), "%d", v);
	printf(csv ? ",%s" : " %9s", buf);
}

static void cell_pct(double v)
{
	char buf[16];

	if (isnan(v))
		snprintf(buf, sizeof(buf), "-");
	else
		snprintf(buf, sizeof(buf), "%.1f", v);
	printf(csv ? ",%s" : " %9s", buf);
}

static void header(void)
{
	if (csv) {
		printf("scenario,chain,converge_ticks,overshoot_pct,steady_error_pct,victim_short_ticks,host_util_pct,"
		       "be_recovery_ticks\n");
		return;
	}
	printf("%-38s %-15s %9s %9s %9s %9s %9s %9s\n", "scenario (step)", "chain", "converge", "overshoot", "ss error",
	       "victim<G", "util %", "BE back");
	printf("%-38s %-15s %9s %9s %9s %9s %9s %9s\n", "", "", "ticks", "%", "%", "ticks", "", "ticks");
}

static void row(const char *scenario, const char *chain, const struct metrics *m, int window)
{
	printf(csv ? "%s,%s" : "%-38s %-15s", scenario, chain);
	cell_int(m->converge, window);
	cell_pct(m->overshoot);
	cell_pct(m->steady_error);
	cell_int(m->victim_short, 0);
	cell_pct(m->util);
	cell_int(m->recovery, window);
	printf("\n");
}

/* ---- chains ---- */

struct chain_case {
	const char *label;
	const struct policy_chain *chain; /* NULL: mpamd's default */
	bool guard_only;		  /* only meaningful where a guarantee is at stake */
};

static const struct chain_case chains[] = {
	{ "mpamd", NULL, false },
	{ "mpamd, no MIN", &policy_chain_without_min, true },
	{ "mba_MBps", &policy_chain_mba_mbps, false },
	{ "static", &policy_chain_static, false },
};

/* ---- scenarios ---- */

/* Ticks per step: 100 s, so that mba_MBps (one 1% step a second) converges before the next step. */
#define SEGMENT 1000

static void target_steps(unsigned bwa_wd, uint32_t t3)
{
	char text[1024], set3[32], name[3][64];
	static const struct scheduled_set sets_template[] = { { SEGMENT, "t", "target_mbps=15000" } };
	struct scheduled_set sets[2] = { sets_template[0], { 2 * SEGMENT, "t", set3 } };

	snprintf(text, sizeof(text),
		 "[global]\nbackend = sim\ninterval_ms = %d\nmb_max_mode = hard\n"
		 "[sim]\nmscs = 2\ncapacity_mbps = 20000\nbwa_wd = %u\nnoise_pct = 2\nseed = 11\n"
		 "[partition \"t\"]\ntarget_mbps = 10000\nsim_demand = 30000\n"
		 "[partition \"other\"]\nsim_demand = 6000\n",
		 INTERVAL_MS, bwa_wd);
	snprintf(set3, sizeof(set3), "target_mbps=%u", t3);
	snprintf(name[0], sizeof(name[0]), "target, BWA_WD %u: start -> 10000", bwa_wd);
	snprintf(name[1], sizeof(name[1]), "target, BWA_WD %u: 10000 -> 15000", bwa_wd);
	snprintf(name[2], sizeof(name[2]), "target, BWA_WD %u: 15000 -> %u", bwa_wd, t3);
	for (size_t c = 0; c < sizeof(chains) / sizeof(chains[0]); c++) {
		if (chains[c].guard_only)
			continue;
		struct trace t = run(text, 3 * SEGMENT, chains[c].chain, sets, 2);
		size_t p = part_of(&t, "t");
		struct metrics m = step_metrics(&t, p, 1, SEGMENT - 1, 10000, true); /* tick 1 settles monitors */
		row(name[0], chains[c].label, &m, SEGMENT - 1);
		m = step_metrics(&t, p, SEGMENT, SEGMENT, 15000, true);
		row(name[1], chains[c].label, &m, SEGMENT);
		m = step_metrics(&t, p, 2 * SEGMENT, SEGMENT, t3, true);
		row(name[2], chains[c].label, &m, SEGMENT);
		trace_free(&t);
	}
}

static void demand_step(unsigned bwa_wd)
{
	char text[1024], name[64];

	snprintf(text, sizeof(text),
		 "[global]\nbackend = sim\ninterval_ms = %d\nmb_max_mode = hard\n"
		 "[sim]\nmscs = 2\ncapacity_mbps = 20000\nbwa_wd = %u\nnoise_pct = 2\nseed = 13\n"
		 "[partition \"t\"]\ntarget_mbps = 10000\nsim_demand = 30000@0 2000@%d 30000@%d\n"
		 "[partition \"other\"]\nsim_demand = 6000\n",
		 INTERVAL_MS, bwa_wd, SEGMENT, 2 * SEGMENT);
	snprintf(name, sizeof(name), "demand, BWA_WD %u: 2000 -> 30000", bwa_wd);
	for (size_t c = 0; c < sizeof(chains) / sizeof(chains[0]); c++) {
		if (chains[c].guard_only)
			continue;
		struct trace t = run(text, 3 * SEGMENT, chains[c].chain, NULL, 0);
		/* Demand point N is first seen by tick N + 1. */
		struct metrics m = step_metrics(&t, part_of(&t, "t"), 2 * SEGMENT, SEGMENT, 10000, false);
		row(name, chains[c].label, &m, SEGMENT);
		trace_free(&t);
	}
}

static void guard(unsigned bwa_wd)
{
	char text[1024], name[64];

	snprintf(name, sizeof(name), "guard, BWA_WD %u: victim 12000 MB/s", bwa_wd);
	for (size_t c = 0; c < sizeof(chains) / sizeof(chains[0]); c++) {
		/* mba_MBps has no guarantee: the aggressor gets the MiB/s cap an operator would give it,
		 * capacity minus the guarantee. */
		bool mba = chains[c].chain == &policy_chain_mba_mbps;
		snprintf(text, sizeof(text),
			 "[global]\nbackend = sim\ninterval_ms = %d\nmb_max_mode = hard\n"
			 "[sim]\nmscs = 2\ncapacity_mbps = 20000\nbwa_wd = %u\nnoise_pct = 2\nseed = 5\n"
			 "[partition \"web\"]\nclass = latency-critical\nguarantee_mbps = 12000\n"
			 "sim_demand = 14000@0 0@%d\n"
			 "[partition \"batch\"]\nclass = best-effort\nsim_demand = 60000\n%s",
			 INTERVAL_MS, bwa_wd, 2 * SEGMENT, mba ? "target_mbps = 28000\n" : "");
		struct trace t = run(text, 3 * SEGMENT, chains[c].chain, NULL, 0);
		struct metrics m = guard_metrics(&t, part_of(&t, "web"), part_of(&t, "batch"), 12000, 2 * SEGMENT);
		row(name, chains[c].label, &m, SEGMENT);
		trace_free(&t);
	}
}

/* The guard's cost at scale: one latency-critical victim far short of its guarantee beside n - 1
 * best-effort partitions of about equal use, so that a cut must go down many of them. Run under
 * callgrind (bench/README.md). */
static int guard_scale(size_t n, unsigned ticks)
{
	struct policy_partition *parts = calloc(n, sizeof(*parts));
	struct policy_decision *dec = calloc(n, sizeof(*dec));
	struct policy_domain *one = calloc(n, sizeof(*one)); /* each partition's one domain */
	size_t *work = calloc(n, sizeof(*work));
	/* the engine's room for the guard to order partitions */
	struct policy_host h = { .interval_ms = 100, .capacity_mbps = 40000, .cpus = 16, .work = work };
	static const struct partition_goals victim = { .class = CLASS_LATENCY_CRITICAL,
						       .mb_max = 100,
						       .weight = 100,
						       .guarantee_mbps = 30000 },
					    best_effort = { .class = CLASS_BEST_EFFORT, .mb_max = 100, .weight = 100 };

	if (!parts || !dec || !one || !work || n < 2)
		return 1;
	for (size_t i = 0; i < n; i++)
		parts[i] = (struct policy_partition){ .name = "p",
						      .domains = &one[i],
						      .goals = i ? &best_effort : &victim,
						      .open = true,
						      .valid = true,
						      .mb_max = 100 };
	for (unsigned t = 1; t <= ticks; t++) {
		h.tick = t;
		h.total_mbps = 0;
		h.total_valid = true;
		for (size_t i = 0; i < n; i++) {
			parts[i].mbps = i ? 36000.0 / (double)(n - 1) * (1 + 0.001 * (double)(i % 7)) : 4000;
			h.total_mbps += parts[i].mbps;
			policy_decision_clear(&dec[i]);
			dec[i] = (struct policy_decision){ .mb_max = 100 };
			parts[i].guard = (struct guard_memory){ 0 }; /* every tick a fresh, deep cut */
			one[i].guard = (struct guard_domain_memory){ 0 };
		}
		policy_guard(&h, parts, n, dec);
	}
	free(parts);
	free(one);
	for (size_t i = 0; i < n; i++)
		policy_decision_clear(&dec[i]);
	free(dec);
	free(work);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--guard-scale"))
		return guard_scale(strtoul(argv[2], NULL, 10), 10);
	csv = argc > 1 && !strcmp(argv[1], "--csv");
	if (argc > 1 && !csv) {
		fprintf(stderr, "usage: bench_policies [--csv | --guard-scale N]\n");
		return 2;
	}
	log_setup("bench_policies", LOG_LEVEL_ERROR, false);
	header();
	target_steps(8, 6000);
	target_steps(4, 5000);
	demand_step(8);
	demand_step(4);
	guard(8);
	guard(4);
	return 0;
}
