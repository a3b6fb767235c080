/* AMD's absolute MB units on the resctrl emulator's amd profile (issue: limits in the hardware's
 * steps): a target between whole percents of the maximum is held within 5%, the maximum is the one
 * CPUID gives (--mb-max) even when the default group was left lower (--root-mb), and a percent
 * ceiling above what a domain carries is reported as no throttling.
 *
 * The emulator's plant: a domain carries [sim] capacity_mbps; a group's ceiling of U units lets
 * through U x 125 MB/s of it (emu_mb_fraction). */
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
#include <jansson.h>

#include "core/base/error.h"
#include "core/engine/engine.h"
#include "tests/util/emu_in_step.h"
#include "tests/util/emu_runner.h"
#include "tests/util/engine_util.h"
#include "tests/util/settled_mean.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

#define TICKS	    60
#define INTERVAL_MS 50 /* the interval_ms of both files */
#define SETTLED	    30

struct run {
	char dir[64], traffic[96], config[96];
	struct emu *emu;
	struct settled_mean mean;
};

/* The emulator's amd profile, one domain of 40000 MB/s, one partition "vm" of `body` wanting 30000. */
static void run_start(struct run *run, const char *const *emu_args, const char *body)
{
	*run = (struct run){ .mean = { .partition = "vm", .settled = SETTLED } };
	make_test_dir(run->dir, sizeof(run->dir), "amd");
	snprintf(run->traffic, sizeof(run->traffic), "%s/traffic.ini", run->dir);
	snprintf(run->config, sizeof(run->config), "%s/mpamd.ini", run->dir);
	const char *sim = "[sim]\ncapacity_mbps = 40000\nnoise_pct = 0\n";
	write_file(run->traffic, "[global]\ninterval_ms = 50\n%s[partition \"vm\"]\nsim_demand = 30000\n", sim);
	assert_int_equal(emu_start("amd", run->traffic, emu_args, &run->emu), 0);
	assert_int_equal(emu_ctl(run->emu, "clock manual"), 0);
	write_file(run->config,
		   "[global]\nbackend = resctrl\ninterval_ms = 50\nresctrl_root = %s\n[partition \"vm\"]\n%s\n",
		   emu_root(run->emu), body);
}

static void run_stop(struct run *run)
{
	assert_int_equal(emu_stop(run->emu), 0);
	unlink(run->traffic);
	unlink(run->config);
	rmdir(run->dir);
}

/* What list says the partition's ceiling lets through on its first domain, in MB/s (-1: null). */
static double listed_ceiling_mbps(struct engine *engine)
{
	json_t *row = engine_list_row(engine, "vm");
	json_t *v = json_object_get(json_array_get(json_object_get(row, "domains"), 0), "mb_max_mbps");
	double mbps = json_is_number(v) ? json_number_value(v) : -1;

	json_decref(row);
	return mbps;
}

/* After each tick the emulator's time moves on by the interval: the engine runs on simulated time in
 * step with it, so the plant is measured exactly, however loaded the machine. */
static void tick_in_step(void *ctx, struct engine *e)
{
	struct run *run = ctx;

	settled_mean_on_tick(&run->mean, e);
	assert_int_equal(emu_advance(run->emu, INTERVAL_MS), 0);
}

static double run_engine(struct run *run, double *ret_listed)
{
	struct engine_options opts = in_step_options(run->config, TICKS, tick_in_step, run);
	struct err err = { "" };

	struct engine *engine = engine_new_in_step(&opts, run->emu, INTERVAL_MS);
	assert_int_equal(engine_run(engine, &err), 0);
	if (ret_listed)
		*ret_listed = listed_ceiling_mbps(engine);
	engine_free(engine);
	return settled_mean_mbps(&run->mean);
}

/* 6000 MB/s is 48 units: 2.34% of 2048, between the 1% steps (2500 MB/s each) a percent controller has.
 * The rule (mpamd.ini(5), target_mbps) holds the rung at or below a budget, or the one above when it
 * is within 5% and nearer: on the two domains here 24 units each, 6000 MB/s. */
static void test_target_between_percents(void **state)
{
	struct run run;
	const char *const args[] = { "--counters", "8", NULL };

	(void)state;
	run_start(&run, args, "class = best-effort\ntarget_mbps = 6000");
	double got = run_engine(&run, NULL);
	printf("amd: target 6000 MB/s held at %.0f MB/s (%+.1f%%)\n", got, 100 * (got - 6000) / 6000);
	assert_true(fabs(got - 6000) <= 0.05 * 6000);
	run_stop(&run);
}

/* A default group left at 512 units does not shrink the scale: 6000MB/s is still 48 units. */
static void test_maximum_not_taken_from_the_default_group(void **state)
{
	struct run run;
	/* one domain: a limit in MB/s holds on each domain, the rate is the partition's total */
	const char *const args[] = { "--counters", "8", "--domains", "1", "--mb-max", "4096", "--root-mb", "512", NULL };

	(void)state;
	run_start(&run, args, "mb_max = 6000MB/s");
	double listed;
	double got = run_engine(&run, &listed);
	printf("amd (max 4096, root at 512): mb_max = 6000MB/s lets %.0f MB/s through, list says %.0f\n", got, listed);
	assert_true(listed == 6000); /* 48 units of 125 MB/s, in both units */
	assert_true(emu_group_file_has(run.emu, "mpamd-vm", "schemata", "MB:0=48"));
	assert_true(fabs(got - 6000) <= 0.05 * 6000);
	run_stop(&run);
}

/* mb_max = 50 is 1024 units, 128000 MB/s: more than the domain's 40000. check-config --host says so. */
static void test_half_of_the_maximum_does_not_throttle(void **state)
{
	struct run run;
	const char *const args[] = { "--counters", "8", NULL };
	(void)state;
	run_start(&run, args, "mb_max = 50");
	/* the capacity the operator knows: [global] capacity_mbps */
	write_file(run.config,
		   "[global]\nbackend = resctrl\nresctrl_root = %s\ncapacity_mbps = 40000\n"
		   "[partition \"vm\"]\nmb_max = 50\n",
		   emu_root(run.emu));
	expect_run(ARGV(MPAMCTL, "check-config", "--host", run.config), 0,
		   "mb_max 50% = 1024 units = 128000 MB/s a domain: no throttling expected on this host (a domain "
		   "carries 40000 MB/s)");
	run_stop(&run);
}

TEST_MAIN({
	cmocka_unit_test(test_target_between_percents),
	cmocka_unit_test(test_maximum_not_taken_from_the_default_group),
	cmocka_unit_test(test_half_of_the_maximum_does_not_throttle),
})
