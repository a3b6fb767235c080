/* The policies in closed loop on the simulated host, through the engine: the Done-when criteria of the
 * target controller and the guard, measured on the simulator's ground truth (the record file's
 * sim_mbps column) with deterministic seeds, for fine (BWA_WD 8) and coarse (BWA_WD 4) hardware steps,
 * without and with demand noise.
 *
 * Counting ticks: a step (engine_set, or a change in sim_demand) happens between two ticks; tick 1 is
 * the first sample after it. That sample was measured under the limits decided before the step, so a
 * target step's overshoot is counted from tick 2 on; a demand step's from tick 1 (a wound-up ceiling
 * would show there).
 *
 * The runs ask for hard limits (mb_max_mode = hard): a soft MBW_MAX lets a partition use what nobody
 * else wants, so no controller can hold a partition below its demand on a host with bandwidth to spare. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/config/config.h"
#include "core/engine/engine.h"
#include "policies/policy.h"
#include "tests/util/record_reader.h"
#include "tests/util/log_capture.h"
#include "tests/util/engine_util.h"

#define INTERVAL_MS 100
#define MAXP	    64
#define MAXSETS	    4

/* The run, indexed by tick (1-based) and partition (in config order). */
struct trace {
	size_t parts;
	uint64_t ticks;
	char names[MAXP][65];
	struct record_line *rows; /* [(tick - 1) * parts + part] */
};

struct scheduled_set {
	uint64_t after_tick; /* applied after this tick, so tick after_tick + 1 is the first sample */
	const char *partition;
	const char *setting;
};

struct hook {
	struct scheduled_set sets[MAXSETS];
	size_t count;
};

static const struct record_line *at(const struct trace *t, uint64_t tick, size_t part)
{
	assert_true(tick >= 1 && tick <= t->ticks && part < t->parts);
	return &t->rows[(tick - 1) * t->parts + part];
}

static size_t part_index(const struct trace *t, const char *name)
{
	for (size_t i = 0; i < t->parts; i++)
		if (!strcmp(t->names[i], name))
			return i;
	fail_msg("no partition %s in the record", name);
	return 0;
}

static void on_tick(void *ctx, struct engine *engine)
{
	struct hook *hook = ctx;
	uint64_t done = engine_ticks_done(engine);

	for (size_t i = 0; i < hook->count; i++) {
		if (hook->sets[i].after_tick != done)
			continue;
		struct err err = { "" };
		const char *settings[] = { hook->sets[i].setting };
		if (engine_set(engine, hook->sets[i].partition, settings, 1, NULL, NULL, &err) < 0)
			fail_msg("set %s %s: %s", hook->sets[i].partition, hook->sets[i].setting, err.text);
	}
}

/* Runs `text` for `ticks` ticks on simulated time with `chain` (NULL: mpamd's own) and reads the
 * record back. */
static struct trace run(const char *text, uint64_t ticks, const struct policy_chain *chain, struct hook *hook)
{
	char path[] = "/tmp/mpamd-policy-loop-XXXXXX";
	int fd = mkstemp(path);
	struct engine_options opts = { .ticks = ticks,
				       .record_path = path,
				       .sim_clock = true,
				       .policies = chain,
				       .on_tick = hook ? on_tick : NULL,
				       .on_tick_ctx = hook };
	struct trace t = { 0 };

	assert_true(fd >= 0);
	close(fd);
	struct config *config = load_config_text(text);
	struct engine *engine = engine_new_or_fail(config, &opts);
	engine_run_clean(engine, ticks);
	t.parts = engine_partition_count(engine);
	assert_true(t.parts <= MAXP);
	for (size_t i = 0; i < t.parts; i++)
		snprintf(t.names[i], sizeof(t.names[i]), "%s", engine_partition(engine, i)->name);
	engine_free(engine);

	char header[256];
	long count = record_read(path, header, sizeof(header), &t.rows);
	unlink(path);
	assert_string_equal(header, "time,t_ms,partition,domain,mbps,mb_max,mb_min,mb_max_mbps,guarantee_mbps,target_"
				    "mbps,valid,estimated,event,sim_mbps,ipc");
	assert_int_equal(count, (long)(ticks * t.parts));
	t.ticks = ticks;
	return t;
}

/* ---- the target controller ---- */

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

struct step_metrics {
	int settle;	       /* ticks until within +-5% of target for good; -1: never */
	double overshoot;      /* worst rate above target, relative */
	double steady_error;   /* mean |error| over the last half of the window, relative */
	double mb_spread;      /* largest minus smallest mb_max in force after settling */
	unsigned mb_distinct;  /* distinct mb_max values in force after settling */
	bool events_on_change; /* every change of mb_max after the step came with an event */
};

/* Metrics of partition `part` for the `window` ticks after `step_tick` (the first sample is
 * step_tick + 1). The first `skip` samples (taken under the limits decided before the step: one, and
 * one more per tick of actuation delay) are left out of the overshoot. */
static struct step_metrics measure_step(const struct trace *t, size_t part, uint64_t step_tick, uint64_t window,
					double target, unsigned skip)
{
	struct step_metrics m = { .settle = -1, .events_on_change = true };
	double lo = 100, hi = 0, seen[8];
	double err_sum = 0;
	unsigned err_n = 0;

	for (uint64_t k = 1; k <= window; k++) {
		const struct record_line *r = at(t, step_tick + k, part);
		double rel = (r->sim_mbps - target) / target;
		if (k > skip)
			m.overshoot = fmax(m.overshoot, rel);
		if (fabs(rel) > 0.05)
			m.settle = -1;
		else if (m.settle < 0)
			m.settle = (int)k;
		if (k > window / 2) {
			err_sum += fabs(rel);
			err_n++;
		}
		/* the change decided at tick k, with its event */
		if (k > 1 && r->mb_max != at(t, step_tick + k - 1, part)->mb_max && !r->event[0])
			m.events_on_change = false;
	}
	for (uint64_t k = (uint64_t)(m.settle > 0 ? m.settle : (int)window) + 1; k <= window; k++) {
		double mb = at(t, step_tick + k, part)->mb_max;
		lo = mb < lo ? mb : lo;
		hi = mb > hi ? mb : hi;
		bool known = false;
		for (unsigned j = 0; j < m.mb_distinct; j++)
			known |= seen[j] == mb;
		if (!known && m.mb_distinct < N_OF(seen))
			seen[m.mb_distinct++] = mb;
	}
	m.mb_spread = hi >= lo ? hi - lo : 0;
	m.steady_error = err_n ? err_sum / err_n : 0;
	return m;
}

/* Ticks a step may take to converge with `delay` ticks of actuation delay: 5, and two more for each
 * tick of delay (each move waits for its effect to show). */
static int max_settle(unsigned delay)
{
	return 5 + 2 * (int)delay;
}

static void check_step_delayed(const char *what, const struct step_metrics *m, unsigned gran, unsigned delay)
{
	printf("  %-34s converge %2d ticks  overshoot %5.1f%%  steady error %4.1f%%  mb_max spread %g%% (%u values)\n",
	       what, m->settle, m->overshoot * 100, m->steady_error * 100, m->mb_spread, m->mb_distinct);
	if (m->settle < 1 || m->settle > max_settle(delay))
		fail_msg("%s: converged in %d ticks, want 1..%d", what, m->settle, max_settle(delay));
	if (m->overshoot > 0.10)
		fail_msg("%s: overshoot %.1f%%, want <= 10%%", what, m->overshoot * 100);
	/* Then it stays within one granularity step. */
	if (m->mb_distinct > 2 || m->mb_spread > gran)
		fail_msg("%s: mb_max moved over %g%% (%u values) after settling", what, m->mb_spread, m->mb_distinct);
	assert_true(m->events_on_change);
}

struct target_case {
	unsigned bwa_wd, noise_pct, gran;
	unsigned delay_ticks, measure_noise_pct; /* the plant's actuation delay and measurement noise */
	uint32_t t1, t2, t3; /* initial target, then two steps (on the hardware's levels within 5%) */
};

static void run_target_case(const struct target_case *c)
{
	char text[2048], t2[32], t3[32];
	/* Targets change after ticks 60 and 120; demand drops below the target after tick 180 and comes
	 * back after tick 240 (sim_demand ticks count from 0, so point N is first seen by tick N + 1). */
	snprintf(text, sizeof(text),
		 "[global]\nbackend = sim\ninterval_ms = %d\nmb_max_mode = hard\n"
		 "[sim]\nmscs = 2\ncapacity_mbps = 20000\nbwa_wd = %u\nnoise_pct = %u\nseed = 11\n"
		 "delay_ticks = %u\nmeasure_noise_pct = %u\n"
		 "[partition \"t\"]\ntarget_mbps = %u\nsim_demand = 30000@0 2000@180 30000@240\n"
		 "[partition \"other\"]\nsim_demand = 6000\n",
		 INTERVAL_MS, c->bwa_wd, c->noise_pct, c->delay_ticks, c->measure_noise_pct, c->t1);
	snprintf(t2, sizeof(t2), "target_mbps=%u", c->t2);
	snprintf(t3, sizeof(t3), "target_mbps=%u", c->t3);
	struct hook hook = { .sets = { { 60, "t", t2 }, { 120, "t", t3 } }, .count = 2 };
	struct trace t = run(text, 300, NULL, &hook);
	size_t p = part_index(&t, "t");
	char what[64];

	printf("target controller, BWA_WD %u (%u%% steps), noise %u%%, delay %u, measurement noise %u%%:\n", c->bwa_wd,
	       c->gran, c->noise_pct, c->delay_ticks, c->measure_noise_pct);
	/* The start counts from the first valid sample (the monitors settle during the first tick). */
	uint64_t first = 1;
	while (!at(&t, first, p)->valid)
		first++;
	assert_true(first <= 3);
	struct step_metrics m = measure_step(&t, p, first - 1, 60 - (first - 1), c->t1, 1 + c->delay_ticks);
	snprintf(what, sizeof(what), "start: unlimited -> %u MB/s", c->t1);
	check_step_delayed(what, &m, c->gran, c->delay_ticks);
	m = measure_step(&t, p, 60, 60, c->t2, 1 + c->delay_ticks);
	snprintf(what, sizeof(what), "target step %u -> %u MB/s", c->t1, c->t2);
	check_step_delayed(what, &m, c->gran, c->delay_ticks);
	m = measure_step(&t, p, 120, 60, c->t3, 1 + c->delay_ticks);
	snprintf(what, sizeof(what), "target step %u -> %u MB/s", c->t2, c->t3);
	check_step_delayed(what, &m, c->gran, c->delay_ticks);
	/* Demand below the target: the ceiling must not wind up past what the target needs. */
	double before = at(&t, 180, p)->mb_max;
	for (uint64_t k = 185; k <= 240; k++)
		assert_true(at(&t, k, p)->mb_max <= before + c->gran);
	m = measure_step(&t, p, 240, 60, c->t3, c->delay_ticks);
	snprintf(what, sizeof(what), "demand step 2000 -> 30000 MB/s");
	check_step_delayed(what, &m, c->gran, c->delay_ticks);
	/* The decisions are in the record's event column. */
	assert_non_null(strstr(at(&t, first, p)->event, "throttle: new target"));
	free(t.rows);
}

static void test_target_fine_steps(void **state)
{
	const struct target_case cases[] = {
		{ .bwa_wd = 8, .noise_pct = 0, .gran = 1, .t1 = 10000, .t2 = 15000, .t3 = 6000 },
		{ .bwa_wd = 8, .noise_pct = 3, .gran = 1, .t1 = 10000, .t2 = 15000, .t3 = 6000 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_target_case(&cases[i]);
}

/* A plant as real hardware makes it: limits that act a tick or two after they are written (read back
 * at once) and noise on every measured sample, also while the ceiling binds. */
static void test_target_delay_and_measurement_noise(void **state)
{
	const struct target_case cases[] = {
		{ .bwa_wd = 8,
		  .gran = 1,
		  .delay_ticks = 1,
		  .measure_noise_pct = 5,
		  .t1 = 10000,
		  .t2 = 15000,
		  .t3 = 6000 },
		{ .bwa_wd = 8,
		  .gran = 1,
		  .delay_ticks = 2,
		  .measure_noise_pct = 5,
		  .t1 = 10000,
		  .t2 = 15000,
		  .t3 = 6000 },
		{ .bwa_wd = 4,
		  .gran = 7,
		  .delay_ticks = 2,
		  .measure_noise_pct = 3,
		  .t1 = 10000,
		  .t2 = 15000,
		  .t3 = 5000 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_target_case(&cases[i]);
}

static void test_target_coarse_steps(void **state)
{
	/* BWA_WD 4: 16 bands of 2500 MB/s on this host; the targets are band levels. */
	const struct target_case cases[] = {
		{ .bwa_wd = 4, .noise_pct = 0, .gran = 7, .t1 = 10000, .t2 = 15000, .t3 = 5000 },
		{ .bwa_wd = 4, .noise_pct = 3, .gran = 7, .t1 = 10000, .t2 = 15000, .t3 = 5000 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_target_case(&cases[i]);
}

/* ---- the guard ---- */

/* The guard without a hardware minimum, to exercise the cuts on a simulator that has MBW_MIN. */

struct guard_metrics {
	uint64_t first_short; /* first tick the victim was below 95% of its guarantee */
	int back;	      /* ticks from then until it was at >= 95% for good (within the active phase) */
	unsigned short_ticks; /* ticks below 95% of the guarantee while active */
	double freed;	      /* what the victim used before going idle */
	int recovered;	      /* ticks after going idle until the aggressor had 90% of that back; -1 never */
};

static double mean_truth(const struct trace *t, size_t part, uint64_t from, uint64_t to)
{
	double s = 0;

	for (uint64_t k = from; k <= to; k++)
		s += at(t, k, part)->sim_mbps;
	return s / (double)(to - from + 1);
}

static struct guard_metrics measure_guard(const struct trace *t, size_t victim, size_t aggressor, double guarantee,
					  uint64_t idle_after)
{
	struct guard_metrics m = { .back = -1, .recovered = -1 };

	for (uint64_t k = 1; k <= idle_after; k++) {
		bool low = at(t, k, victim)->sim_mbps < 0.95 * guarantee;
		m.short_ticks += low;
		if (low && !m.first_short)
			m.first_short = k;
		if (low)
			m.back = -1;
		else if (m.first_short && m.back < 0)
			m.back = (int)(k - m.first_short);
	}
	m.freed = mean_truth(t, victim, idle_after - 9, idle_after);
	double before = mean_truth(t, aggressor, idle_after - 9, idle_after);
	for (uint64_t k = idle_after + 1; k <= t->ticks && m.recovered < 0; k++)
		if (at(t, k, aggressor)->sim_mbps >= before + 0.9 * m.freed)
			m.recovered = (int)(k - idle_after);
	return m;
}

static void check_guard(const char *what, const struct guard_metrics *m)
{
	printf("  %-44s victim short at tick %llu, back >= 95%% in %d ticks (%u ticks short); "
	       "aggressor got 90%% of %.0f MB/s back in %d ticks\n",
	       what, (unsigned long long)m->first_short, m->back, m->short_ticks, m->freed, m->recovered);
	if (m->first_short == 0)
		fail_msg("%s: the aggressor never pushed the victim below its guarantee", what);
	if (m->back < 1 || m->back > 3)
		fail_msg("%s: victim back in %d ticks, want 1..3", what, m->back);
	if (m->recovered < 1 || m->recovered > 20)
		fail_msg("%s: aggressor recovered in %d ticks, want 1..20", what, m->recovered);
}

static void run_guard_case(unsigned bwa_wd, unsigned noise, const struct policy_chain *chain)
{
	char text[2048], what[96];

	snprintf(text, sizeof(text),
		 "[global]\nbackend = sim\ninterval_ms = %d\nmb_max_mode = hard\n"
		 "[sim]\nmscs = 2\ncapacity_mbps = 20000\nbwa_wd = %u\nnoise_pct = %u\nseed = 5\n"
		 "[partition \"web\"]\nclass = latency-critical\nguarantee_mbps = 12000\nsim_demand = 14000@0 0@150\n"
		 "[partition \"batch\"]\nclass = best-effort\nsim_demand = 60000\n",
		 INTERVAL_MS, bwa_wd, noise);
	struct trace t = run(text, 200, chain, NULL);
	snprintf(what, sizeof(what), "BWA_WD %u, noise %u%%, %s:", bwa_wd, noise,
		 chain ? "no MBW_MIN" : "MBW_MIN programmed");
	struct guard_metrics m = measure_guard(&t, part_index(&t, "web"), part_index(&t, "batch"), 12000, 150);
	check_guard(what, &m);
	size_t web = part_index(&t, "web"), batch = part_index(&t, "batch");
	if (!chain) /* the guarantee is programmed as a hardware minimum: 30% of 40000 MB/s, rounded up */
		assert_true(at(&t, 2, web)->mb_min >= 30 && at(&t, 2, web)->mb_min <= 30 + 100 / (1u << bwa_wd) + 1);
	/* No flapping: once settled, the limits hold (a few corrections at most, never every tick). */
	unsigned changes = 0;
	for (uint64_t k = 21; k <= 150; k++)
		changes += at(&t, k, batch)->mb_max != at(&t, k - 1, batch)->mb_max;
	printf("  %-44s aggressor's mb_max changed %u times in ticks 21..150\n", "", changes);
	if (changes > 6)
		fail_msg("%s: the guard flaps: %u changes in 130 ticks", what, changes);
	/* Without a hardware minimum the cut does the work; it is in the record, with its reason. */
	bool cut = false;
	for (uint64_t k = 1; k <= 10; k++)
		cut |= strstr(at(&t, k, batch)->event, "throttle: web short of guarantee") != NULL;
	assert_true(cut || !chain);
	free(t.rows);
}

static void test_guard_protects_and_gives_back(void **state)
{
	(void)state;
	printf("guard, aggressor at full demand from tick 0, victim idle after tick 150:\n");
	run_guard_case(8, 0, NULL);
	run_guard_case(8, 2, NULL);
	run_guard_case(4, 0, NULL);
	run_guard_case(8, 0, &policy_chain_without_min);
	run_guard_case(8, 2, &policy_chain_without_min);
	run_guard_case(4, 0, &policy_chain_without_min);
	run_guard_case(4, 2, &policy_chain_without_min);
}

/* Two best-effort partitions of different sizes: the larger user is cut first, the victim is
 * protected, and both get their bandwidth back when it goes idle. */
static void test_guard_two_best_effort(void **state)
{
	const char *text = "[global]\nbackend = sim\ninterval_ms = 100\nmb_max_mode = hard\n"
			   "[sim]\nmscs = 2\ncapacity_mbps = 20000\nnoise_pct = 2\nseed = 3\n"
			   "[partition \"web\"]\nclass = latency-critical\nguarantee_mbps = 12000\n"
			   "sim_demand = 14000@0 0@150\n"
			   "[partition \"big\"]\nclass = best-effort\nsim_demand = 40000\n"
			   "[partition \"small\"]\nclass = best-effort\nsim_demand = 6000\n";

	(void)state;
	struct trace t = run(text, 200, &policy_chain_without_min, NULL);
	size_t web = part_index(&t, "web"), big = part_index(&t, "big"), small = part_index(&t, "small");
	struct guard_metrics m = measure_guard(&t, web, big, 12000, 150);
	printf("guard with two best-effort partitions (40000 and 6000 MB/s demand):\n");
	check_guard("BWA_WD 8, noise 2%, no MBW_MIN:", &m);
	/* The first cut goes to the larger user; the smaller one is not cut before it. */
	uint64_t first_big = 0, first_small = 0;
	for (uint64_t k = 1; k <= 150; k++) {
		if (!first_big && strstr(at(&t, k, big)->event, "throttle: "))
			first_big = k;
		if (!first_small && strstr(at(&t, k, small)->event, "throttle: "))
			first_small = k;
	}
	printf("  first cut: big at tick %llu, small at tick %llu (0: never)\n", (unsigned long long)first_big,
	       (unsigned long long)first_small);
	assert_true(first_big > 0);
	assert_true(first_small == 0 || first_small >= first_big);
	assert_true(at(&t, 140, big)->mb_max < 100);
	/* Work-conserving again once the victim is idle: both at their configured ceilings. */
	assert_int_equal(at(&t, 200, big)->mb_max, 100);
	assert_int_equal(at(&t, 200, small)->mb_max, 100);
	free(t.rows);
}

/* A crowd of 60 best-effort partitions rising together (50 -> 600 MB/s each, twice) beside a
 * guaranteed one, 16 monitors for 61 partitions, no MBW_MIN: the victim keeps a monitor, the crowd is
 * seen 15 at a time, and is cut whole within 3 ticks of the squeeze (its unseen rise inferred from
 * the part measured); before the first squeeze no limit moves. */
static void test_guard_rotating_crowd(void **state)
{
	char text[8192];
	int used =
		snprintf(text, sizeof(text),
			 "[global]\nbackend = sim\ninterval_ms = 100\n"
			 "[sim]\nmscs = 1\ncapacity_mbps = 30000\nmonitors = 16\nmbw_min = no\nnoise_pct = 2\n"
			 "seed = 5\n"
			 "[partition \"web\"]\nclass = latency-critical\nguarantee_mbps = 8000\nsim_demand = 9000\n");

	(void)state;
	for (int i = 0; i < 60; i++)
		used += snprintf(text + used, sizeof(text) - (size_t)used,
				 "[partition \"be%d\"]\nclass = best-effort\nsim_demand = 0@0 600@50 0@200 600@250\n",
				 i);
	struct trace t = run(text, 300, NULL, NULL);
	size_t web = part_index(&t, "web");
	for (uint64_t squeeze = 50; squeeze <= 250; squeeze += 200) {
		unsigned short_ticks = 0;
		for (uint64_t k = squeeze + 1; k <= squeeze + 20; k++)
			short_ticks += at(&t, k, web)->sim_mbps < 0.95 * 8000;
		printf("  squeeze at tick %llu: web short %u ticks\n", (unsigned long long)squeeze, short_ticks);
		if (short_ticks > 3)
			fail_msg("web short %u ticks after the squeeze at tick %llu", short_ticks,
				 (unsigned long long)squeeze);
	}
	uint64_t first_cut = 0;
	for (uint64_t k = 1; k <= 50; k++)
		for (size_t p = 0; p < t.parts; p++)
			if (p != web && at(&t, k, p)->mb_max < 100)
				fail_msg("%s limited to %g%% at tick %llu, before any squeeze", t.names[p],
					 at(&t, k, p)->mb_max, (unsigned long long)k);
	for (uint64_t k = 51; !first_cut && k <= 70; k++)
		first_cut = strstr(at(&t, k, part_index(&t, "be0"))->event, "throttle: ") ? k : 0;
	for (size_t p = 0; p < t.parts; p++) /* the whole crowd in the one tick */
		if (p != web && !strstr(at(&t, first_cut, p)->event, "throttle: web short"))
			fail_msg("%s not cut with the crowd at tick %llu", t.names[p], (unsigned long long)first_cut);
	free(t.rows);
}

/* Without a hardware minimum: a victim below its guarantee only because it wants less is cut for
 * once, found not to be held back, and its neighbour gets everything back; when the victim later
 * wants its guarantee, it gets it within a few ticks. */
static void test_guard_victim_that_wants_less(void **state)
{
	const char *text = "[global]\nbackend = sim\ninterval_ms = 100\nmb_max_mode = hard\n"
			   "[sim]\nmscs = 2\ncapacity_mbps = 20000\nnoise_pct = 2\nseed = 5\n"
			   "[partition \"web\"]\nclass = latency-critical\nguarantee_mbps = 12000\n"
			   "sim_demand = 5000@0 14000@100\n"
			   "[partition \"big\"]\nclass = best-effort\nsim_demand = 40000\n";

	(void)state;
	struct trace t = run(text, 160, &policy_chain_without_min, NULL);
	size_t web = part_index(&t, "web"), big = part_index(&t, "big");
	uint64_t released = 0;
	for (uint64_t k = 1; k <= 99 && !released; k++)
		if (strstr(at(&t, k, web)->event, "release: web uses"))
			released = k;
	printf("victim wanting less: released at tick %llu, big at %g%% at tick 99\n", (unsigned long long)released,
	       at(&t, 99, big)->mb_max);
	assert_true(released > 0 && released < 10);
	/* Then it settles: big close to what leaves web its 5000 MB/s (40000 - 5000 * 1.05 = 34750,
	 * 86.9%), changed rarely, and web at its demand within the 10% band. */
	unsigned changes = 0, web_short = 0;
	for (uint64_t k = 50; k <= 99; k++) {
		changes += at(&t, k, big)->mb_max != at(&t, k - 1, big)->mb_max;
		web_short += at(&t, k, web)->sim_mbps < 0.9 * 5000;
		assert_true(at(&t, k, big)->mb_max >= 80);
	}
	printf("  ticks 50-99: big's mb_max changed %u times, web under 4500 MB/s %u times\n", changes, web_short);
	assert_true(changes <= 2);
	assert_true(web_short <= 5);
	/* At tick 100 web wants 14000: within 4 ticks it has >= 95% of its 12000 for good. */
	for (uint64_t k = 104; k <= 160; k++)
		if (at(&t, k, web)->sim_mbps < 0.95 * 12000)
			fail_msg("web at %.0f MB/s at tick %llu", at(&t, k, web)->sim_mbps, (unsigned long long)k);
	free(t.rows);
}

/* A 2-domain host without MBW_MIN: web and an aggressor pinned to domain 0 (sim_domains), a
 * bystander alone on domain 1. web is restored within 3 ticks of its first short sample by a cut on
 * domain 0 alone; the bystander keeps at least 90% of its demand all along, its ceilings untouched. */
static void test_guard_per_domain_spares_the_bystander(void **state)
{
	const char *text = "[global]\nbackend = sim\ninterval_ms = 100\nmb_max_mode = hard\n"
			   "[sim]\nmscs = 2\ncapacity_mbps = 10000\nmbw_min = no\nnoise_pct = 2\nseed = 21\n"
			   "[partition \"web\"]\nclass = latency-critical\nguarantee_mbps = 6000\nsim_domains = 0\n"
			   "sim_demand = 8000\n"
			   "[partition \"agg\"]\nclass = best-effort\nsim_domains = 0\nsim_demand = 30000\n"
			   "[partition \"by\"]\nclass = best-effort\nsim_domains = 1\nsim_demand = 9800\n";

	(void)state;
	struct trace t = run(text, 100, NULL, NULL);
	size_t web = part_index(&t, "web"), by = part_index(&t, "by");
	uint64_t first_short = 0, back = 0;
	double by_worst = INFINITY;
	for (uint64_t k = 2; k <= 100; k++) { /* tick 1 settles the monitors */
		bool low = at(&t, k, web)->sim_mbps < 0.95 * 6000;
		first_short = low && !first_short ? k : first_short;
		if (first_short && !low && !back)
			back = k;
		if (back && low)
			fail_msg("web short again at tick %llu: %.0f MB/s", (unsigned long long)k,
				 at(&t, k, web)->sim_mbps);
		by_worst = fmin(by_worst, at(&t, k, by)->sim_mbps);
		assert_null(strstr(at(&t, k, by)->event, "throttle"));
		assert_int_equal(at(&t, k, by)->mb_max, 100);
	}
	printf("per domain: web short at tick %llu, back for good at tick %llu; bystander's worst %.0f of 9800 MB/s\n",
	       (unsigned long long)first_short, (unsigned long long)back, by_worst);
	assert_true(first_short > 0 && back > first_short && back - first_short <= 3);
	assert_true(by_worst >= 0.9 * 9800);
	free(t.rows);
}

/* ---- the guard's IPC signal ---- */

#define IPC_AGGRESSOR_TICK 30 /* batch starts after web's baseline is learned */
#define IPC_TICKS	   150
#define IPC_SETTLED_TICKS  50 /* the guard has found batch's ceiling by then */

struct ipc_metrics {
	double baseline;    /* web's mean IPC before batch starts */
	uint64_t first_low; /* first tick web's IPC was more than 20% below it; 0: never */
	int back;	    /* ticks from then until it was within 5% of it; -1: never */
	unsigned low_ticks; /* ticks more than 20% below it, from batch's start on */
	unsigned late_low;  /* of those, in the last IPC_SETTLED_TICKS */
	uint64_t ipc_cut;   /* first tick with a cut naming web's IPC; 0: never */
	bool bandwidth_cut; /* a cut named web's guarantee */
	double batch_cut;   /* batch's lowest mb_max */
};

static double mean_ipc(const struct trace *t, size_t part, uint64_t from, uint64_t to)
{
	double s = 0;

	for (uint64_t k = from; k <= to; k++) {
		assert_true(at(t, k, part)->has_ipc); /* the simulator counts every tick */
		s += at(t, k, part)->ipc;
	}
	return s / (double)(to - from + 1);
}

static struct ipc_metrics run_ipc_case(const char *web_keys, const char *ipc_guard, const struct policy_chain *chain)
{
	char text[2048];
	struct ipc_metrics m = { .back = -1, .batch_cut = 100 };

	snprintf(text, sizeof(text),
		 "[global]\nbackend = sim\ninterval_ms = %d\nmb_max_mode = hard\n"
		 "[sim]\nmscs = 2\ncapacity_mbps = 20000\nnoise_pct = 2\nseed = 5\n"
		 "[partition \"web\"]\nclass = latency-critical\n%s%ssim_demand = 10000\n"
		 "sim_ipc = 1.5\nsim_ipc_sensitivity = 0.6\n"
		 "[partition \"batch\"]\nclass = best-effort\nsim_demand = 0@0 60000@%d\n",
		 INTERVAL_MS, web_keys, ipc_guard, IPC_AGGRESSOR_TICK);
	struct trace t = run(text, IPC_TICKS, chain, NULL);
	size_t web = part_index(&t, "web"), batch = part_index(&t, "batch");
	m.baseline = mean_ipc(&t, web, 10, IPC_AGGRESSOR_TICK);
	for (uint64_t k = IPC_AGGRESSOR_TICK + 1; k <= IPC_TICKS; k++) {
		double ipc = at(&t, k, web)->ipc;
		bool low = ipc < 0.8 * m.baseline;
		m.low_ticks += low;
		m.late_low += low && k > IPC_TICKS - IPC_SETTLED_TICKS;
		if (low && !m.first_low)
			m.first_low = k;
		if (m.first_low && m.back < 0 && ipc >= 0.95 * m.baseline)
			m.back = (int)(k - m.first_low);
		const char *event = at(&t, k, batch)->event;
		if (!m.ipc_cut && strstr(event, "throttle: web's IPC ") && strstr(event, "below its baseline"))
			m.ipc_cut = k;
		m.bandwidth_cut |= strstr(event, "short of guarantee") != NULL;
		if (at(&t, k, batch)->mb_max < m.batch_cut)
			m.batch_cut = at(&t, k, batch)->mb_max;
	}
	printf("  %-32s %-16s baseline IPC %.3f, low from tick %llu, back within 5%% in %d ticks, %u low ticks "
	       "of %d (%u in the last %d); IPC cut at tick %llu, batch down to %g%%, at %g%% at the end "
	       "(web's IPC %.3f)\n",
	       web_keys[0] ? "guarantee_mbps = 5000, no MIN:" : "no guarantee:",
	       ipc_guard[0] ? "ipc_guard = 0.2" : "off", m.baseline, (unsigned long long)m.first_low, m.back,
	       m.low_ticks, IPC_TICKS - IPC_AGGRESSOR_TICK, m.late_low, IPC_SETTLED_TICKS,
	       (unsigned long long)m.ipc_cut, m.batch_cut, at(&t, IPC_TICKS, batch)->mb_max,
	       at(&t, IPC_TICKS, web)->ipc);
	free(t.rows);
	return m;
}

static void check_ipc_protected(const struct ipc_metrics *m)
{
	assert_true(m->baseline > 1.4); /* web alone is served all it demands */
	assert_int_equal(m->first_low, IPC_AGGRESSOR_TICK + 1);
	assert_true(m->ipc_cut > 0 && m->ipc_cut <= m->first_low + 4); /* three low ticks, then the cut */
	assert_false(m->bandwidth_cut);				       /* bandwidth alone said nothing */
	assert_true(m->back >= 1 && m->back <= 5);
	/* The first three, then a few probes: giving back finds the ceiling at which web's IPC drops
	 * more than 20%, and stops a step lower each time (GUARD_IPC_LOW_TICKS low ticks a probe). */
	assert_true(m->low_ticks <= 5 * 3);
	assert_int_equal(m->late_low, 0);
}

/* batch saturates the host at tick 30: web (10000 MB/s) gets about 5700 and its IPC falls by a
 * quarter. Without a guarantee, or with one it gets, the bandwidth guard does nothing; the IPC
 * signal cuts batch and web's IPC comes back. With ipc_guard off it stays low. */
static void test_guard_protects_ipc(void **state)
{
	(void)state;
	printf("guard's IPC signal, batch saturating the host from tick %d:\n", IPC_AGGRESSOR_TICK);
	struct ipc_metrics on = run_ipc_case("", "ipc_guard = 0.2\n", NULL);
	check_ipc_protected(&on);
	struct ipc_metrics gets =
		run_ipc_case("guarantee_mbps = 5000\n", "ipc_guard = 0.2\n", &policy_chain_without_min);
	check_ipc_protected(&gets);

	struct ipc_metrics off = run_ipc_case("", "", NULL);
	struct ipc_metrics off_gets = run_ipc_case("guarantee_mbps = 5000\n", "", &policy_chain_without_min);
	const struct ipc_metrics *offs[] = { &off, &off_gets };
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(offs[i]->ipc_cut, 0);
		assert_int_equal(offs[i]->batch_cut, 100);
		assert_true(offs[i]->low_ticks >= (IPC_TICKS - IPC_AGGRESSOR_TICK) * 9 / 10);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_fine_steps),
		cmocka_unit_test(test_target_coarse_steps),
		cmocka_unit_test(test_target_delay_and_measurement_noise),
		cmocka_unit_test(test_guard_protects_and_gives_back),
		cmocka_unit_test(test_guard_two_best_effort),
		cmocka_unit_test(test_guard_rotating_crowd),
		cmocka_unit_test(test_guard_victim_that_wants_less),
		cmocka_unit_test(test_guard_per_domain_spares_the_bystander),
		cmocka_unit_test(test_guard_protects_ipc),
	};
	return cmocka_run_group_tests(tests, log_warnings_too, NULL);
}
