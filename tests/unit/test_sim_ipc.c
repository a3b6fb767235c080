/* The simulator's IPC model and its PMU sampler: a partition's IPC falls with the share of its demand
 * it is not served, the sampler's counts say the same, and the engine composes that sampler beside
 * the simulated control. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/sim/sim_config.h"
#include "backends/sim/sim_host.h"
#include "backends/sim/sim_ops.h"
#include "core/config/config.h"
#include "core/engine/engine.h"
#include "core/engine/registry.h"
#include "policies/policy.h"
#include "tests/util/record_reader.h"
#include "tests/util/test_main.h"

#define BASE_IPC    2.0
#define SENSITIVITY 0.5
#define CAPACITY    10000
#define INTERVAL_NS 100000000ull

/* "squeezed" demands twice the capacity (it gets half); "idle" demands nothing; "fed" gets all it
 * demands once "squeezed" is capped below what is left. */
static const char squeeze_ini[] =
	"[global]\nbackend = sim\ninterval_ms = 100\n"
	"[sim]\nmscs = 1\ncapacity_mbps = 10000\n"
	"[partition \"squeezed\"]\nsim_demand = 20000\nsim_ipc = 2.0\nsim_ipc_sensitivity = 0.5\n"
	"[partition \"idle\"]\nsim_ipc = 2.0\n";

/* What the model predicts for a partition served `served` of its `demanded`. */
static double model(double served, double demanded)
{
	double shortfall = 1 - served / demanded;

	return BASE_IPC * (1 - SENSITIVITY * shortfall);
}

static void test_ipc_follows_the_shortfall(void **state)
{
	struct config *c = load_config_text(squeeze_ini);
	struct sim_host *h = NULL;
	struct err err = { "" };

	(void)state;
	assert_non_null(c);
	assert_int_equal(sim_host_new(c, 0, &h, &err), 0);
	assert_true(fabs(sim_host_ipc(h, 0) - BASE_IPC) < 1e-9); /* before any traffic: its base */
	sim_host_advance(h, INTERVAL_NS);
	double served = sim_host_truth_mbps(h, 0);
	printf("squeezed: served %.0f of 20000 MB/s, IPC %.4f\n", served, sim_host_ipc(h, 0));
	assert_true(fabs(served - CAPACITY) < 1); /* half its demand */
	assert_true(fabs(sim_host_ipc(h, 0) - model(served, 20000)) < 1e-6);
	assert_true(fabs(sim_host_ipc(h, 0) - BASE_IPC * (1 - 0.5 * SENSITIVITY)) < 1e-3);
	assert_true(fabs(sim_host_ipc(h, 1) - BASE_IPC) < 1e-9); /* idle: waits for no memory */
	sim_host_free(h);
	config_free(c);
}

static void test_defaults_and_bad_keys(void **state)
{
	static const char *const bad[] = { "sim_ipc = 0",
					   "sim_ipc = -1",
					   "sim_ipc = 17",
					   "sim_ipc = 1.5x",
					   "sim_ipc = .",
					   "sim_ipc_sensitivity = 1.5",
					   "sim_ipc_sensitivity = 1e-1" };
	struct config *c = load_config_text("[global]\nbackend = sim\n[partition \"p\"]\nsim_demand = 100\n");
	char text[256];

	(void)state;
	assert_non_null(c);
	const struct sim_partition_config *sp = sim_partition_of(c, &c->partitions[0]);
	assert_true(sp->ipc == SIM_IPC_DEFAULT && sp->ipc_sensitivity == SIM_IPC_SENSITIVITY_DEFAULT);
	config_free(c);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct diag_list diags;
		struct config *bad_config = NULL;
		snprintf(text, sizeof(text), "[global]\nbackend = sim\n[partition \"p\"]\n%s\n", bad[i]);
		diag_list_init(&diags, "bad.ini");
		int r = config_load_string(text, engine_default_schema(), NULL, &bad_config, &diags);
		printf("%s: %s\n", bad[i], diags.count ? diags.items[0].message : "(accepted)");
		assert_int_equal(r, -EINVAL);
		assert_non_null(strstr(diags.items[0].message, "sim_ipc")); /* names the key */
		diag_list_fini(&diags);
	}
}

/* The sampler counts what the model says: IPC from instructions / cycles, stalls the lost share. */
static void test_sampler_counts_the_model(void **state)
{
	struct config *c = load_config_text(squeeze_ini);
	struct control_shared shared = { 0 };
	struct pmu_sampler *s = NULL;
	struct pmu_sample out[2];
	struct partition_ref ref = { .group_dirfd = -1, .hw_id = -1 };
	struct err err = { "" };
	double ipc = NAN, stalls = NAN;

	(void)state;
	assert_non_null(c);
	assert_int_equal(sim_host_new(c, 0, &shared.sim, &err), 0);
	assert_int_equal(pmu_sampler_sim_ops.open(c, &shared, &s, &err), 0);
	assert_int_equal(pmu_sampler_sim_ops.add(s, 0, &ref, &err), 0); /* "idle" is not added */
	assert_int_equal(pmu_sampler_sim_ops.read(s, 0, out, 2, &err), 0);
	assert_true(out[0].open && !out[0].counts[PMU_ROLE_CYCLES].counted); /* the baseline counts nothing */
	assert_false(out[1].open);
	assert_int_equal(pmu_sampler_sim_ops.read(s, INTERVAL_NS, out, 2, &err), 0);
	assert_true(pmu_sample_ipc(&out[0], &ipc));
	assert_true(pmu_sample_stall_ratio(&out[0], &stalls));
	printf("sampler: cycles %.0f instructions %.0f IPC %.4f stall ratio %.4f\n",
	       out[0].counts[PMU_ROLE_CYCLES].value, out[0].counts[PMU_ROLE_INSTRUCTIONS].value, ipc, stalls);
	assert_true(out[0].counts[PMU_ROLE_CYCLES].value > 0);
	assert_true(fabs(ipc - sim_host_ipc(shared.sim, 0)) < 1e-9);
	assert_true(fabs(ipc - BASE_IPC * (1 - 0.5 * SENSITIVITY)) < 1e-3);
	assert_true(fabs(stalls - 0.5 * SENSITIVITY) < 1e-3);
	assert_false(pmu_sample_ipc(&out[1], &ipc));
	pmu_sampler_sim_ops.free(s);
	sim_host_free(shared.sim);
	config_free(c);
}

/* The default registry composes the simulator's sampler with the simulated control. */
static void test_engine_counts_simulated_ipc(void **state)
{
	struct config *c = load_config_text(squeeze_ini);
	struct engine *e = NULL;
	struct err err = { "" };
	struct engine_options opts = { .ticks = 5, .sim_clock = true, .policies = &policy_chain_static };

	(void)state;
	assert_ptr_equal(engine_registry_sampler(&engine_registry_default, true), &pmu_sampler_sim_ops);
	assert_non_null(c);
	if (engine_new(c, &opts, &e, &err) < 0)
		fail_msg("engine: %s", err.text);
	assert_int_equal(engine_run(e, &err), 0);
	const struct partition_status *sq = engine_partition(e, 0), *idle = engine_partition(e, 1);
	printf("engine: squeezed IPC %.4f (%s), idle IPC %.4f\n", sq->ipc, sq->ipc_valid ? "counted" : "not counted",
	       idle->ipc);
	assert_true(sq->ipc_valid && idle->ipc_valid);
	assert_true(fabs(sq->ipc - BASE_IPC * (1 - 0.5 * SENSITIVITY)) < 1e-2);
	assert_true(fabs(idle->ipc - BASE_IPC) < 1e-9);
	engine_free(e);
}

TEST_MAIN({
	cmocka_unit_test(test_ipc_follows_the_shortfall),
	cmocka_unit_test(test_defaults_and_bad_keys),
	cmocka_unit_test(test_sampler_counts_the_model),
	cmocka_unit_test(test_engine_counts_simulated_ipc),
})
