/* The engine on the simulated host, end to end: MMIO driver, register model and traffic model
 * together, checked through the record file against the simulator's ground truth. */
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
#include "core/base/clock.h"
#include "core/base/ladder.h"
#include "policies/policy.h"
#include "tests/util/record_reader.h"
#include "tests/util/log_capture.h"
#include "tests/util/engine_util.h"

struct run {
	struct record_line *rows;
	size_t count;
	char header[256];
};

/* Runs `ticks` ticks of `text` on the simulated clock and reads the record back (with `domains`, the
 * rows of each domain too). */
static struct run run_rows(const char *text, uint64_t ticks, bool domains)
{
	char path[] = "/tmp/mpamd-test-record-XXXXXX";
	int fd = mkstemp(path);
	struct config *config = load_config_text(text);
	/* Measurement only: the policies stay out of these runs (they are tested in test_policy_loop). */
	struct engine_options opts = {
		.ticks = ticks, .record_path = path, .sim_clock = true, .policies = &policy_chain_static
	};
	struct run run = { 0 };

	assert_true(fd >= 0);
	close(fd);
	struct engine *engine = engine_new_or_fail(config, &opts);
	/* Nothing went wrong on the way: no MSC error, no refused access, no failed read. */
	engine_run_clean(engine, ticks);
	engine_free(engine);

	long count = (domains ? record_read_all : record_read)(path, run.header, sizeof(run.header), &run.rows);
	assert_true(count >= 0);
	run.count = (size_t)count;
	unlink(path);
	return run;
}

static struct run run_scenario(const char *text, uint64_t ticks)
{
	return run_rows(text, ticks, false);
}

/* Largest relative error of valid rows from `after_ms` on; counts rows by kind. */
static double worst_error(const struct run *run, unsigned long long after_ms, size_t *valid, size_t *estimated,
			  size_t *invalid)
{
	double worst = 0;

	*valid = *estimated = *invalid = 0;
	for (size_t i = 0; i < run->count; i++) {
		const struct record_line *r = &run->rows[i];
		if (!r->valid) {
			/* Never a silent zero: an invalid sample has no value at all. */
			assert_false(r->has_mbps);
			(*invalid)++;
			continue;
		}
		assert_true(r->has_mbps);
		if (r->t_ms < after_ms || r->sim_mbps < 1.0)
			continue;
		(*valid)++;
		*estimated += r->estimated;
		double e = fabs(r->mbps - r->sim_mbps) / r->sim_mbps;
		if (e > worst)
			worst = e;
	}
	return worst;
}

static void test_continuous_monitoring_within_1_percent(void **state)
{
	(void)state;
	struct run run =
		run_scenario("[global]\nbackend = sim\ninterval_ms = 100\n"
			     "[sim]\nmscs = 2\ncapacity_mbps = 10000\nmonitors = 4\ncounter_bits = 31\n"
			     "noise_pct = 5\nseed = 7\n"
			     "[partition \"web\"]\nclass = latency-critical\nmb_min = 20\nguarantee_mbps = 4000\n"
			     "sim_demand = 3000@0 6000@100 3000@200\n"
			     "[partition \"batch\"]\nclass = best-effort\nmb_max = 60\nsim_demand = 18000\n"
			     "[partition \"tenant\"]\nsim_demand = 2500\n",
			     300);
	size_t valid, estimated, invalid;

	assert_string_equal(run.header, "time,t_ms,partition,domain,mbps,mb_max,mb_min,mb_max_mbps,guarantee_mbps,"
					"target_mbps,valid,estimated,event,sim_mbps,ipc");
	assert_int_equal(run.count, 900);
	double worst = worst_error(&run, 500, &valid, &estimated, &invalid);
	printf("continuous: worst error %.4f%% over %zu rows\n", worst * 100, valid);
	assert_true(worst < 0.01);
	assert_int_equal(estimated, 0);
	assert_true(invalid <= 3); /* only the first tick, while the monitors settle */
	/* The limits in force are in the record: 60% with BWA_WD 8 is 153/256 = 59.8%, shown as 60. */
	assert_int_equal(run.rows[1].mb_max, 60);
	assert_int_equal(run.rows[0].mb_min, 20);
	free(run.rows);
}

/* On the simulated clock the record's wall-clock times are the real start plus the simulated
 * time: one interval apart per tick, however fast the ticks ran. */
static void test_record_times_follow_the_simulated_clock(void **state)
{
	(void)state;
	uint64_t before = clock_wall_ms();
	struct run run =
		run_scenario("[global]\nbackend = sim\ninterval_ms = 100\n[sim]\ncapacity_mbps = 10000\n"
			     "[partition \"web\"]\nsim_demand = 3000\n[partition \"batch\"]\nsim_demand = 9000\n",
			     50);
	uint64_t after = clock_wall_ms();

	assert_int_equal(run.count, 100);
	int64_t start = run.rows[0].time_ms - (int64_t)run.rows[0].t_ms;
	assert_true(start >= (int64_t)before && start <= (int64_t)after);
	for (size_t i = 0; i < run.count; i++) {
		assert_true(run.rows[i].has_time);
		assert_true(run.rows[i].time_ms - (int64_t)run.rows[i].t_ms == start);
		if (i >= 2) /* two partitions per tick: each tick one interval after the one before */
			assert_true(run.rows[i].time_ms == run.rows[i - 2].time_ms + 100);
	}
	free(run.rows);
}

/* Whoever clears NRDY (the MSC itself after its settling time, or only software writing the counter),
 * every measured rate is within 1% of what the simulator served. */
static void run_nrdy_mode(const char *mode, unsigned bits)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "[global]\nbackend = sim\ninterval_ms = 50\n"
		 "[sim]\nmscs = 2\ncapacity_mbps = 12000\nmonitors = 4\ncounter_bits = %u\nnrdy = %s\n"
		 "nrdy_ticks = 2\nnoise_pct = 5\nseed = 3\n"
		 "[partition \"web\"]\nsim_demand = 3000@0 7000@100 3000@200\n"
		 "[partition \"batch\"]\nmb_max = 50\nsim_demand = 15000\n",
		 bits, mode);
	struct run run = run_scenario(text, 300);
	size_t valid, estimated, invalid;
	double worst = worst_error(&run, 500, &valid, &estimated, &invalid);

	printf("nrdy = %s, %u-bit: worst error %.4f%% over %zu rows, %zu invalid\n", mode, bits, worst * 100, valid,
	       invalid);
	assert_true(worst < 0.01);
	assert_true(valid >= 2 * 280);
	assert_true(invalid <= 6); /* the first ticks, while the monitors settle */
	free(run.rows);
}

static void test_nrdy_hardware_within_1_percent(void **state)
{
	(void)state;
	run_nrdy_mode("hardware", 31);
	run_nrdy_mode("hardware", 44);
}

static void test_nrdy_software_within_1_percent(void **state)
{
	(void)state;
	run_nrdy_mode("software", 31);
	run_nrdy_mode("software", 44);
}

/* A simulated NVIDIA T241: its monitors count 64-byte units (T241-MPAM-6), which mpamd multiplies
 * back, and its MBW_MIN is the erratum's floor (T241-MPAM-4), never mpamd's minimum. 31-bit counters
 * of 64-byte units last 64 times longer, so 30 GB/s at 100 ms ticks is fine (it is not for bytes). */
static void test_t241_within_1_percent(void **state)
{
	(void)state;
	struct run run = run_scenario("[global]\nbackend = sim\ninterval_ms = 100\n"
				      "[sim]\nmscs = 2\ncapacity_mbps = 30000\nmonitors = 4\ncounter_bits = 31\n"
				      "bwa_wd = 7\niidr = 0x2410036b\nnoise_pct = 5\nseed = 11\n"
				      "[partition \"web\"]\nsim_demand = 9000@0 21000@100 9000@200\n"
				      "[partition \"batch\"]\nmb_max = 40\nsim_demand = 50000\n"
				      "[partition \"tenant\"]\nsim_demand = 3333\n",
				      300);
	size_t valid, estimated, invalid;
	double worst = worst_error(&run, 500, &valid, &estimated, &invalid);

	printf("T241: worst error %.4f%% over %zu rows\n", worst * 100, valid);
	assert_true(worst < 0.01);
	assert_true(valid >= 3 * 290);
	assert_true(invalid <= 6);
	for (size_t i = 0; i < run.count; i++)
		assert_int_equal(run.rows[i].mb_min, 0); /* MBW_MIN is the erratum's, not a minimum in force */
	free(run.rows);
}

/* Measured rows of partition `name` in the run. */
static size_t measured_rows(const struct run *run, const char *name)
{
	size_t measured = 0;

	for (size_t r = 0; r < run->count; r++)
		measured += !strcmp(run->rows[r].partition, name) && run->rows[r].valid && !run->rows[r].estimated;
	return measured;
}

static void test_rotation_within_5_percent(void **state)
{
	char text[4096];
	int used = snprintf(text, sizeof(text),
			    "[global]\nbackend = sim\ninterval_ms = 100\n"
			    "[sim]\nmscs = 2\ncapacity_mbps = 40000\nmonitors = 4\ncounter_bits = 44\nnoise_pct = 2\n");

	(void)state;
	for (int i = 0; i < 16; i++)
		used += snprintf(text + used, sizeof(text) - (size_t)used, "[partition \"p%d\"]\nsim_demand = %d\n", i,
				 500 + 250 * i);
	struct run run = run_scenario(text, 400);
	size_t valid, estimated, invalid;
	double worst = worst_error(&run, 5000, &valid, &estimated, &invalid);
	printf("rotation: worst error %.4f%% over %zu rows (%zu estimated)\n", worst * 100, valid, estimated);
	assert_true(worst < 0.05);
	assert_true(estimated > valid / 2); /* most samples are extrapolations */
	assert_true(estimated < valid);	    /* but every partition is measured too */
	/* Every partition is measured regularly, not only extrapolated. */
	for (int i = 0; i < 16; i++) {
		char name[8];
		snprintf(name, sizeof(name), "p%d", i);
		size_t measured = measured_rows(&run, name);
		if (measured < 20)
			fail_msg("%s measured only %zu times in 400 ticks", name, measured);
	}
	free(run.rows);
}

/* A partition with a guarantee keeps its counter while the others go round: the guard judges it on
 * a measurement every tick (policies/guard_estimates.c); the others still share the rest. */
static void test_guarantee_holder_keeps_its_counter(void **state)
{
	char text[4096];
	int used = snprintf(text, sizeof(text),
			    "[global]\nbackend = sim\ninterval_ms = 100\n"
			    "[sim]\nmscs = 2\ncapacity_mbps = 40000\nmonitors = 4\ncounter_bits = 44\n");

	(void)state;
	for (int i = 0; i < 16; i++)
		used += snprintf(text + used, sizeof(text) - (size_t)used, "[partition \"p%d\"]\nsim_demand = %d\n%s",
				 i, 500 + 250 * i, i == 9 ? "class = latency-critical\nguarantee_mbps = 2000\n" : "");
	struct run run = run_scenario(text, 200);
	size_t held = measured_rows(&run, "p9");
	if (held < 195) /* all but its first turn's wait */
		fail_msg("p9 (guarantee) measured %zu times in 200 ticks", held);
	for (int i = 0; i < 16; i++) {
		char name[8];
		snprintf(name, sizeof(name), "p%d", i);
		if (i != 9 && measured_rows(&run, name) < 10) /* as in test_rotation_within_5_percent */
			fail_msg("%s measured only %zu times in 200 ticks", name, measured_rows(&run, name));
	}
	free(run.rows);
}

/* After tick 50, p9 is given a guarantee. */
static void give_p9_a_guarantee(void *ctx, struct engine *e)
{
	static const char *const settings[] = { "class=latency-critical", "guarantee_mbps=2000" };
	struct err err = { "" };

	(void)ctx;
	if (engine_ticks_done(e) == 50 && engine_set(e, "p9", settings, 2, NULL, NULL, &err) < 0)
		fail_msg("set p9: %s", err.text);
}

/* A guarantee given by `set` keeps a counter from then on, as one from the file does. */
static void test_guarantee_set_keeps_a_counter(void **state)
{
	char path[] = "/tmp/mpamd-test-record-XXXXXX";
	int fd = mkstemp(path);
	char text[4096];
	int used = snprintf(text, sizeof(text),
			    "[global]\nbackend = sim\ninterval_ms = 100\n"
			    "[sim]\nmscs = 1\ncapacity_mbps = 40000\nmonitors = 4\ncounter_bits = 44\n");
	struct engine_options opts = { .ticks = 150,
				       .record_path = path,
				       .sim_clock = true,
				       .policies = &policy_chain_static,
				       .on_tick = give_p9_a_guarantee };
	struct run run = { 0 };

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	for (int i = 0; i < 16; i++)
		used += snprintf(text + used, sizeof(text) - (size_t)used, "[partition \"p%d\"]\nsim_demand = %d\n", i,
				 500 + 250 * i);
	struct engine *engine = engine_new_or_fail(load_config_text(text), &opts);
	engine_run_clean(engine, 150);
	engine_free(engine);
	long count = record_read(path, run.header, sizeof(run.header), &run.rows);
	unlink(path);
	assert_true(count > 0);
	unsigned before = 0, after = 0;
	for (long r = 0; r < count; r++) {
		const struct record_line *l = &run.rows[r];
		bool measured = !strcmp(l->partition, "p9") && l->valid && !l->estimated;
		before += measured && l->t_ms <= 5000;
		after += measured && l->t_ms > 6000;
	}
	free(run.rows);
	printf("p9 measured %u of 50 ticks before its guarantee, %u of the last 90 after\n", before, after);
	assert_true(before < 25);
	assert_int_equal(after, 90);
}

static void stop_after_three(void *ctx, struct engine *e)
{
	unsigned *ticks = ctx;

	if (++*ticks == 3)
		engine_stop(e);
}

/* More guarantee holders than counters to keep: all but one of an MSC's monitors are kept, and each
 * partition past that is told of, by name and why, and measured in turn. */
static void test_too_many_guarantee_holders_are_said(void **state)
{
	char path[] = "/tmp/mpamd-test-keep-XXXXXX";
	int fd = mkstemp(path);
	char text[4096];
	int used = snprintf(text, sizeof(text),
			    "[global]\nbackend = sim\ninterval_ms = 100\n"
			    "[sim]\nmscs = 1\ncapacity_mbps = 40000\nmonitors = 4\ncounter_bits = 44\n");
	struct log_capture log;

	(void)state;
	assert_true(fd >= 0);
	for (int i = 0; i < 8; i++)
		used += snprintf(text + used, sizeof(text) - (size_t)used,
				 "[partition \"p%d\"]\nsim_demand = 1000\nclass = latency-critical\nguarantee_mbps = "
				 "500\n",
				 i);
	assert_true(write(fd, text, (size_t)used) == used);
	close(fd);
	struct engine *engine = NULL;
	unsigned ticks = 0;
	engine_run_file_captured(path, stop_after_three, &ticks, &log, &engine);
	engine_free(engine);
	unlink(path);
	static const char *const said[] = { "its counter goes round with the others although it has a guarantee",
					    "all but one of its 4 monitors are kept already", NULL };
	assert_int_equal(log_capture_count(&log, said), 5); /* p3..p7: three of four kept */
	static const char *const p7[] = { "partition p7:", "goes round", NULL };
	assert_int_equal(log_capture_count(&log, p7), 1);
	log_capture_free(&log);
}

/* engine_new refuses the configuration `text` (for one tick on the simulated clock) with -EINVAL,
 * saying each of the NULL-terminated `words`. */
static void expect_refused(const char *text, const char *const words[])
{
	struct config *config = load_config_text(text);
	struct engine *engine = NULL;
	struct err err = { "" };
	struct engine_options opts = { .ticks = 1, .sim_clock = true };

	assert_non_null(config);
	assert_int_equal(engine_new(config, &opts, &engine, &err), -EINVAL);
	for (const char *const *w = words; *w; w++)
		assert_non_null(strstr(err.text, *w));
}

static void test_interval_too_long_for_31bit_counters(void **state)
{
	(void)state;
	expect_refused("[global]\nbackend = sim\ninterval_ms = 100\n"
		       "[sim]\ncapacity_mbps = 30000\ncounter_bits = 31\n[partition \"a\"]\n",
		       (const char *const[]){ "interval_ms = 100 is too long", "use interval_ms <= 35", NULL });
}

static void test_sim_clock_needs_sim_backend(void **state)
{
	(void)state;
	expect_refused(
		"[global]\nbackend = mmio\n[msc \"m\"]\nbase = 0x1000\nsize = 0x1000\n[partition \"a\"]\npartid = 1\n",
		(const char *const[]){ "--sim-clock needs backend = sim", NULL });
}

/* The rows of partition `name` at t_ms: its total ("*") and its domains "0" and "1". */
static void rows_at(const struct run *run, unsigned long long t_ms, const char *name, const struct record_line **ret)
{
	static const char *const domains[] = { "*", "0", "1" };

	for (size_t d = 0; d < 3; d++) {
		ret[d] = NULL;
		for (size_t i = 0; i < run->count && !ret[d]; i++)
			if (run->rows[i].t_ms == t_ms && !strcmp(run->rows[i].partition, name) &&
			    !strcmp(run->rows[i].domain, domains[d]))
				ret[d] = &run->rows[i];
		assert_non_null(ret[d]);
	}
}

/* Two simulated MSCs are domains 0 and 1: each partition's rows on them add up to its total row (rate
 * and truth), a partition pinned to domain 0 has nothing on domain 1, and a ceiling configured for
 * domain 0 alone holds there while domain 1 stays at the partition's own (hard limits: a soft one
 * would let the pinned partition use what domain 0 has left). */
/* The MBW_MAX rung nearest pct on the simulator's MSCs (BWA_WD 8 by default). */
static double sim_rung(double pct)
{
	struct ladder l;

	ladder_mpam_max(8, &l);
	return ladder_pct(&l, ladder_snap(&l, pct, LADDER_NEAREST));
}

static void test_domain_rows_add_up_to_totals(void **state)
{
	(void)state;
	struct run run = run_rows("[global]\nbackend = sim\ninterval_ms = 100\nmb_max_mode = hard\n"
				  "[sim]\nmscs = 2\ncapacity_mbps = 10000\nnoise_pct = 3\nseed = 3\n"
				  "[partition \"pinned\"]\nmb_max = 0=30\nsim_domains = 0\nsim_demand = 8000\n"
				  "[partition \"spread\"]\nmb_max = 50,1=20\nsim_demand = 12000\n"
				  "[partition \"idle\"]\nsim_demand = 0\n",
				  40, true);
	const struct record_line *r[3];

	assert_int_equal(run.count, 40 * 3 * 3);
	for (unsigned long long t = 200; t <= 4000; t += 100) {
		for (int p = 0; p < 3; p++) {
			rows_at(&run, t, (const char *[]){ "pinned", "spread", "idle" }[p], r);
			assert_true(r[0]->valid && r[1]->valid && r[2]->valid);
			/* each figure is printed with one decimal */
			assert_true(fabs(r[1]->mbps + r[2]->mbps - r[0]->mbps) <= 0.15);
			assert_true(fabs(r[1]->sim_mbps + r[2]->sim_mbps - r[0]->sim_mbps) <= 0.15);
			assert_string_equal(r[1]->event, "");
		}
		rows_at(&run, t, "pinned", r);
		assert_true(r[1]->mb_max == sim_rung(30)); /* 30.078125%: MBW_MAX band 77 of 256 */
		assert_true(r[2]->mb_max == 100);
		assert_true(r[0]->mb_max == 100); /* the total's: the highest of its domains' */
		assert_true(r[2]->mbps < 1);
		assert_true(fabs(r[0]->sim_mbps - 3000) < 60); /* 30% of domain 0's 10000 MB/s */
		rows_at(&run, t, "spread", r);
		assert_true(r[1]->mb_max == 50);
		assert_true(r[2]->mb_max == sim_rung(20)); /* 19.921875% */
		assert_true(fabs(r[2]->sim_mbps - 2000) < 40);
	}
	free(run.rows);
}

static void test_same_seed_same_run(void **state)
{
	const char *text = "[global]\nbackend = sim\n[sim]\nnoise_pct = 20\nseed = 99\n"
			   "[partition \"a\"]\nsim_demand = 7000\n[partition \"b\"]\nsim_demand = 9000\n";
	struct run one = run_scenario(text, 50), two = run_scenario(text, 50);

	(void)state;
	assert_int_equal(one.count, two.count);
	for (size_t i = 0; i < one.count; i++)
		assert_true(one.rows[i].sim_mbps == two.rows[i].sim_mbps && one.rows[i].mbps == two.rows[i].mbps);
	/* The noise is there: not every tick serves the same. */
	assert_true(one.rows[10].sim_mbps != one.rows[12].sim_mbps);
	free(one.rows);
	free(two.rows);
}

struct ceilings {
	size_t rows, moved; /* domain rows checked; ticks at which some domain's mb_max moved */
	double last[2][2];
};

/* Every tick: what each domain's ceiling lets through is its rung's share of the MSC's 10000 MB/s,
 * also after the ceiling moved (the engine works it out again only then). */
static void check_ceilings(void *ctx, struct engine *e)
{
	struct ceilings *c = ctx;
	bool moved = false;

	for (size_t i = 0; i < engine_partition_count(e); i++) {
		for (unsigned d = 0; d < engine_domain_count(e); d++) {
			const struct domain_status *ds = engine_partition_domain(e, i, d);
			assert_true(fabs(ds->mb_max_mbps - ds->mb_max / 100 * 10000) < 1e-6);
			moved |= engine_ticks_done(e) > 1 && ds->mb_max != c->last[i][d];
			c->last[i][d] = ds->mb_max;
			c->rows++;
		}
	}
	c->moved += moved;
	if (engine_ticks_done(e) == 20) {
		struct err err = { "" };
		assert_int_equal(engine_set(e, "fixed", (const char *[]){ "mb_max=1=35" }, 1, NULL, NULL, &err), 0);
	}
}

static void test_ceiling_mbps_follows_the_limits(void **state)
{
	struct config *config =
		load_config_text("[global]\nbackend = sim\ninterval_ms = 100\n"
				 "[sim]\nmscs = 2\ncapacity_mbps = 10000\nnoise_pct = 2\nseed = 5\n"
				 "[partition \"aimed\"]\nclass = best-effort\ntarget_mbps = 3000\nsim_demand = 9000\n"
				 "[partition \"fixed\"]\nmb_max = 0=30\nsim_demand = 8000\n");
	struct ceilings c = { 0 };
	struct engine_options opts = { .ticks = 40, .sim_clock = true, .on_tick = check_ceilings, .on_tick_ctx = &c };
	struct engine *engine = NULL;
	struct err err = { "" };

	(void)state;
	if (engine_new(config, &opts, &engine, &err) < 0)
		fail_msg("engine: %s", err.text);
	assert_int_equal(engine_partition_count(engine), 2);
	assert_int_equal(engine_domain_count(engine), 2);
	assert_int_equal(engine_run(engine, &err), 0);
	engine_free(engine);
	assert_int_equal(c.rows, 40 * 2 * 2);
	assert_true(c.moved >= 3); /* the target controller moved the ceilings, and so did the set */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_continuous_monitoring_within_1_percent),
		cmocka_unit_test(test_record_times_follow_the_simulated_clock),
		cmocka_unit_test(test_nrdy_hardware_within_1_percent),
		cmocka_unit_test(test_nrdy_software_within_1_percent),
		cmocka_unit_test(test_t241_within_1_percent),
		cmocka_unit_test(test_rotation_within_5_percent),
		cmocka_unit_test(test_guarantee_holder_keeps_its_counter),
		cmocka_unit_test(test_too_many_guarantee_holders_are_said),
		cmocka_unit_test(test_guarantee_set_keeps_a_counter),
		cmocka_unit_test(test_interval_too_long_for_31bit_counters),
		cmocka_unit_test(test_sim_clock_needs_sim_backend),
		cmocka_unit_test(test_same_seed_same_run),
		cmocka_unit_test(test_domain_rows_add_up_to_totals),
		cmocka_unit_test(test_ceiling_mbps_follows_the_limits),
	};
	return cmocka_run_group_tests(tests, log_warnings_too, NULL);
}
