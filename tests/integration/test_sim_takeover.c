/* The engine on simulated MSCs that narrow PARTIDs, that hold what an earlier owner left, and whose
 * MBW_MAX limits are soft or hard: the MMIO driver and the register and traffic models together. The
 * simulated host is found through the simulator's control (sim_spy_registry). */
#include <math.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "backends/mpam/mpam_regs.h"
#include "backends/sim/msc_model.h"
#include "backends/sim/sim_host.h"
#include "core/base/log.h"
#include "core/config/config.h"
#include "core/engine/engine.h"
#include "core/engine/registry.h"
#include "policies/policy.h"
#include "tests/util/engine_util.h"
#include "tests/util/log_capture.h"
#include "tests/util/record_reader.h"

static struct sim_host *host; /* the simulated host of the running engine (sim_spy_registry) */
static const struct engine_registry *spy_registry;

/* ---- runs ---- */

struct watch {
	uint64_t ticks_seen;
	uint64_t esr_seen; /* the first non-zero MPAMF_ESR any MSC showed, read as software reads it */
};

static void check_esr(void *ctx, struct engine *e)
{
	struct watch *w = ctx;

	(void)e;
	w->ticks_seen++;
	for (size_t m = 0; m < sim_host_msc_count(host); m++) {
		uint64_t esr = 0;
		assert_int_equal(msc_model_read64(sim_host_msc(host, m), MPAMF_ESR, &esr), 0);
		if (esr && !w->esr_seen)
			w->esr_seen = esr;
	}
}

/* Runs `ticks` ticks of `text` with the static policies (the limits stay as configured); the engine
 * is left for the caller to inspect and free, its log in `log`. */
static struct engine *run(const char *text, uint64_t ticks, struct watch *w, struct log_capture *log)
{
	struct engine *engine = NULL;
	struct err err = { "" };
	struct engine_options opts = { .ticks = ticks,
				       .sim_clock = true,
				       .policies = &policy_chain_static,
				       .registry = spy_registry,
				       .on_tick = check_esr,
				       .on_tick_ctx = w };

	log_capture_begin(log);
	int r = engine_new(load_config_text(text), &opts, &engine, &err);
	if (r == 0)
		r = engine_run(engine, &err);
	log_capture_end(log);
	if (r < 0)
		fail_msg("engine: %s", err.text);
	assert_int_equal(engine_ticks_done(engine), ticks);
	return engine;
}

static double truth_of(struct engine *e, const char *name)
{
	return engine_find(e, name, NULL)->truth_mbps;
}

/* ---- PARTID narrowing ---- */

/* Two MSCs narrowing 64 PARTIDs to 8: 100 ticks with MPAMF_ESR at 0 on both, every limit in force
 * through its intPARTID (hard limits, so that they show in the traffic). */
static void test_narrowing_msc_runs_100_ticks_without_an_error(void **state)
{
	struct watch w = { 0 };
	struct log_capture log = { .saved_stderr = -1 };
	const char *text = "[global]\nbackend = sim\ninterval_ms = 100\nmb_max_mode = hard\n"
			   "[sim]\nmscs = 2\ncapacity_mbps = 10000\npartid_max = 63\npartid_nrw = 8\nseed = 5\n"
			   "[partition \"a\"]\npartid = 7\nmb_max = 30\nmb_min = 10\nl3_cbm = 0xff\nsim_demand = 8000\n"
			   "[partition \"b\"]\npartid = 2\nmb_max = 50\nsim_demand = 2000\n";

	(void)state;
	struct engine *e = run(text, 100, &w, &log);
	assert_int_equal(w.ticks_seen, 100);
	if (w.esr_seen) {
		char buf[160];
		snprintf(buf, sizeof(buf), "ESR 0x%llx", (unsigned long long)w.esr_seen);
		fail_msg("%s", buf);
	}
	for (size_t m = 0; m < 2; m++) {
		struct msc_model *model = sim_host_msc(host, m);
		assert_true(msc_model_error_count(model) == 0);
		assert_true(msc_model_bad_accesses(model) == 0);
		assert_int_equal(msc_model_mbw_max(model, 0, 7), mpam_mbw_max_from_percent(30, 8));
	}
	/* a's 30% of each MSC's 10000 MB/s holds: the MSCs apply what mpamd programmed. */
	assert_true(fabs(truth_of(e, "a") - 2 * 0.30 * 10000) < 120);
	assert_true(fabs(truth_of(e, "b") - 2000) < 40);
	const char *const errors[] = { "error", NULL };
	assert_int_equal(log_capture_count(&log, errors), 0);
	engine_free(e);
	log_capture_free(&log);
}

/* A PARTID above the last intPARTID is refused by the config check, naming partid_nrw. */
static void test_partid_beyond_the_intpartids_is_refused(void **state)
{
	struct diag_list diags;
	struct config *config = NULL;

	(void)state;
	diag_list_init(&diags, "test.ini");
	assert_true(config_load_string("[global]\nbackend = sim\n[sim]\npartid_nrw = 4\n"
				       "[partition \"a\"]\npartid = 4\nsim_demand = 10\n",
				       engine_default_schema(), NULL, &config, &diags) < 0);
	bool said = false;
	for (size_t i = 0; i < diags.count; i++)
		said |= strstr(diags.items[i].message,
			       "partid 4 is above the simulated last intPARTID (partid_nrw) 3") != NULL;
	assert_true(said);
	diag_list_fini(&diags);
	config_free(config);
}

/* ---- what an earlier owner left ---- */

static const char *const preloaded = "[global]\nbackend = sim\ninterval_ms = 100\n"
				     "[sim]\nmscs = 1\ncapacity_mbps = 10000\nmbw_prop = yes\nmbw_pbm_bits = 8\n"
				     "preload_mbw_prop = 1:25\npreload_mbw_pbm = 2:0x3\n"
				     "[partition \"p\"]\npartid = 1\nsim_demand = 8000\n"
				     "[partition \"q\"]\npartid = 2\nsim_demand = 8000\n";

/* Without mpamd the leftovers hold the traffic: MBW_PROP's stride 4 about a quarter of the MSC, an
 * MBW_PBM of 2 of 8 portions a quarter too. */
static void test_leftovers_limit_the_simulated_traffic(void **state)
{
	struct config *config = load_config_text(preloaded);
	struct sim_host *h;
	struct err err = { "" };

	(void)state;
	assert_int_equal(sim_host_new(config, 0, &h, &err), 0);
	sim_host_advance(h, 1000000000ull);
	assert_true(fabs(sim_host_truth_mbps(h, 0) - 2500) < 1);
	assert_true(fabs(sim_host_truth_mbps(h, 1) - 2500) < 1);
	sim_host_free(h);
	config_free(config);
}

/* mpamd takes both PARTIDs over: the leftovers are gone (read back through the registers), the
 * traffic is what the limits (none) allow, and the log says what was reset. */
static void test_takeover_clears_the_leftovers(void **state)
{
	struct watch w = { 0 };
	struct log_capture log = { .saved_stderr = -1 };

	(void)state;
	struct engine *e = run(preloaded, 20, &w, &log);
	struct msc_model *model = sim_host_msc(host, 0);
	uint32_t prop = 0xDEADBEEF, pbm = 0xDEADBEEF;
	assert_int_equal(msc_model_write32(model, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, 1)), 0);
	assert_int_equal(msc_model_read32(model, MPAMCFG_MBW_PROP, &prop), 0);
	assert_int_equal(msc_model_write32(model, MPAMCFG_PART_SEL, mpamcfg_part_sel(0, 2)), 0);
	assert_int_equal(msc_model_read32(model, MPAMCFG_MBW_PBM(0), &pbm), 0);
	assert_int_equal(prop, 0);
	assert_int_equal(pbm, 0xFF);
	/* 8000 + 8000 on 10000 MB/s, shared by demand. */
	assert_true(fabs(truth_of(e, "p") - 5000) < 1);
	assert_true(fabs(truth_of(e, "q") - 5000) < 1);
	assert_int_equal(w.esr_seen, 0);
	const char *const prop_reset[] = { "PARTID 1 on msc sim0: reset MBW_PROP (was enabled, STRIDEM1 3)", NULL };
	const char *const pbm_reset[] = { "PARTID 2 on msc sim0: reset MBW_PBM0 (was 0x00000003)", NULL };
	assert_int_equal(log_capture_count(&log, prop_reset), 1);
	assert_int_equal(log_capture_count(&log, pbm_reset), 1);
	engine_free(e);
	log_capture_free(&log);
}

/* ---- soft or hard ---- */

/* One partition at mb_max 30 wanting 8000 of an MSC's 10000 MB/s that nobody else wants: a soft limit
 * lets it have them, a hard one holds it at 3000; where MAX_LIM fixes the kind, mb_max_mode cannot
 * change it, and the log says so. */
static void test_soft_and_hard_limits_in_the_traffic(void **state)
{
	static const struct {
		const char *mode, *max_lim;
		double mbps;
		unsigned warnings;
	} cases[] = {
		{ "soft", "either", 8000, 0 }, { "hard", "either", 3000, 0 }, { "soft", "hard", 3000, 1 },
		{ "hard", "soft", 8000, 1 },   { "hard", "hard", 3000, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[512];
		struct watch w = { 0 };
		struct log_capture log = { .saved_stderr = -1 };
		snprintf(text, sizeof(text),
			 "[global]\nbackend = sim\ninterval_ms = 100\nmb_max_mode = %s\n"
			 "[sim]\ncapacity_mbps = 10000\nmax_lim = %s\n"
			 "[partition \"p\"]\nmb_max = 30\nsim_demand = 8000\n",
			 cases[i].mode, cases[i].max_lim);
		struct engine *e = run(text, 10, &w, &log);
		printf("mb_max_mode = %s, max_lim = %s: %.0f MB/s\n", cases[i].mode, cases[i].max_lim,
		       truth_of(e, "p"));
		assert_true(fabs(truth_of(e, "p") - cases[i].mbps) < 40);
		const char *const warned[] = { "mb_max_mode = ", "but its MBW_MAX limits are", NULL };
		assert_int_equal(log_capture_count(&log, warned), cases[i].warnings);
		engine_free(e);
		log_capture_free(&log);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_narrowing_msc_runs_100_ticks_without_an_error),
		cmocka_unit_test(test_partid_beyond_the_intpartids_is_refused),
		cmocka_unit_test(test_leftovers_limit_the_simulated_traffic),
		cmocka_unit_test(test_takeover_clears_the_leftovers),
		cmocka_unit_test(test_soft_and_hard_limits_in_the_traffic),
	};

	spy_registry = sim_spy_registry(&host);
	log_setup("test", LOG_LEVEL_INFO, false);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
