/* The capacity of resctrl's MB domains from ACPI HMAT (a fixture sysfs tree beside the resctrl
 * emulator): with guarantees and no capacity_mbps, the guarantees are enforced from the start, and
 * status (and the metrics, from the same snapshot) say where each domain's capacity came from. capacity_mbps is trusted first,
 * HMAT next; a malformed figure is named in the log and ignored, leaving that domain to learn. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/config/config.h"
#include "core/engine/engine.h"
#include "core/engine/engine_snapshot.h"
#include "tests/util/emu_runner.h"
#include "tests/util/engine_util.h"
#include "tests/util/log_capture.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

static const char *const partitions = "[partition \"web\"]\nclass = latency-critical\nguarantee_mbps = 6000\n"
				      "sim_demand = 4000\n"
				      "[partition \"batch\"]\nclass = best-effort\nsim_demand = 15000\n";

struct rig {
	char dir[64], sysfs[96];
	struct emu *emu;
	struct engine *engine;
	struct log_capture log;
};

static int teardown(void **state)
{
	struct rig *rig = *state;

	engine_free(rig->engine);
	log_capture_free(&rig->log);
	int r = emu_stop(rig->emu);
	return remove_tree(rig->dir) | r;
}

/* The file `rel` of the fixture sysfs tree, holding the line `value`. */
static void put(struct rig *rig, const char *rel, const char *value)
{
	char line[64];

	snprintf(line, sizeof(line), "%s\n", value);
	write_file_below(rig->sysfs, rel, line);
}

#define NODE1_BANDWIDTH "devices/system/node/node1/access0/initiators/read_bandwidth"

/* The emulator's two MB domains (L3 0 and 1), a node each, HMAT giving node 0 30000 MB/s and node 1
 * 40000 (a test may spoil node 1's figure). */
static void hmat_tree(struct rig *rig)
{
	put(rig, "devices/system/cpu/cpu0/cache/index3/id", "0");
	put(rig, "devices/system/cpu/cpu1/cache/index3/id", "1");
	put(rig, "devices/system/node/node0/cpulist", "0");
	put(rig, "devices/system/node/node1/cpulist", "1");
	put(rig, "devices/system/node/node0/access0/initiators/read_bandwidth", "30000");
	put(rig, NODE1_BANDWIDTH, "40000");
}

/* The emulator running and its HMAT tree beside it (read only where a test names rig->sysfs). */
static int setup(void **state)
{
	static struct rig rig;
	char sim[128];

	memset(&rig, 0, sizeof(rig));
	make_test_dir(rig.dir, sizeof(rig.dir), "hmat-engine");
	snprintf(rig.sysfs, sizeof(rig.sysfs), "%s/sys", rig.dir);
	assert_int_equal(mkdir(rig.sysfs, 0755), 0);
	snprintf(sim, sizeof(sim), "%s/sim.ini", rig.dir);
	write_file(sim, "[global]\ninterval_ms = 20\n[sim]\ncapacity_mbps = 20000\n%s", partitions);
	hmat_tree(&rig);
	assert_int_equal(emu_start("intel", sim, NULL, &rig.emu), 0);
	*state = &rig;
	return 0;
}

static void open_engine(struct rig *rig, const char *global, const char *sysfs_root)
{
	char text[1024];
	struct engine_options opts = { .ticks = 1, .sysfs_root = sysfs_root };
	struct err err = { "" };

	snprintf(text, sizeof(text), "[global]\nbackend = resctrl\nresctrl_root = %s\ninterval_ms = 20\n%s\n%s",
		 emu_root(rig->emu), global, partitions);
	log_capture_begin(&rig->log);
	int r = engine_new(config_from_text(text), &opts, &rig->engine, &err);
	log_capture_end(&rig->log);
	if (r < 0)
		fail_msg("engine_new: %s", err.text);
}

/* Domain d's capacity, whether learned, and its source in status. */
static void expect_domain(struct rig *rig, unsigned d, double mbps, const char *source)
{
	bool learned;

	assert_true(engine_domain_capacity(rig->engine, d, &learned) == mbps);
	assert_int_equal(learned, !strcmp(source, "learned") || !strcmp(source, "none"));
	assert_string_equal(engine_domain_capacity_source(rig->engine, d), source);
	json_t *status = engine_snapshot_status(rig->engine);
	json_t *dom = json_array_get(json_object_get(status, "domains"), d);
	assert_string_equal(json_string_value(json_object_get(dom, "capacity_source")), source);
	json_decref(status);
}

static void test_hmat_gives_the_capacity_and_the_guarantees_are_enforced(void **state)
{
	struct rig *rig = *state;

	open_engine(rig, "", rig->sysfs);
	expect_domain(rig, 0, 30000, "hmat");
	expect_domain(rig, 1, 40000, "hmat");
	assert_null(engine_guarantees_pending(rig->engine));
	assert_int_equal(
		log_capture_count(&rig->log, (const char *const[]){ "domain 0", "30000 MB/s", "ACPI HMAT", NULL }), 1);
}

/* Without HMAT (no tree given, as before HMAT was read): nothing known, guarantees pending. */
static void test_without_hmat_the_capacity_is_learned(void **state)
{
	struct rig *rig = *state;

	open_engine(rig, "", NULL);
	expect_domain(rig, 0, 0, "none");
	assert_non_null(engine_guarantees_pending(rig->engine));
}

/* capacity_mbps is trusted before HMAT: on the domain it names, and everywhere when it names none. */
static void test_capacity_mbps_comes_first(void **state)
{
	struct rig *rig = *state;

	open_engine(rig, "capacity_mbps = 0=25000", rig->sysfs);
	expect_domain(rig, 0, 25000, "configured");
	expect_domain(rig, 1, 40000, "hmat");
}

static void test_a_malformed_figure_is_named_and_ignored(void **state)
{
	struct rig *rig = *state;

	put(rig, NODE1_BANDWIDTH, "4O000");
	open_engine(rig, "", rig->sysfs);
	expect_domain(rig, 0, 30000, "hmat");
	expect_domain(rig, 1, 0, "none"); /* never 0 MB/s taken as a capacity */
	assert_int_equal(
		log_capture_count(&rig->log, (const char *const[]){ "warning", "ACPI HMAT",
								    "node1: read_bandwidth '4O000'", "ignored", NULL }),
		1);
	assert_non_null(engine_guarantees_pending(rig->engine));
}

/* check-config --host says each domain's capacity and where it came from, and a guarantee is noted
 * as not enforced at first only where a capacity is not known. */
static void test_check_config_names_the_source(void **state)
{
	struct rig *rig = *state;
	char config[128], empty[128];
	struct run_result r;

	put(rig, NODE1_BANDWIDTH, "4O000");
	snprintf(config, sizeof(config), "%s/mpamd.ini", rig->dir);
	snprintf(empty, sizeof(empty), "%s/empty", rig->dir);
	mkdir(empty, 0755);
	write_file(config, "[global]\nbackend = resctrl\nresctrl_root = %s\ncapacity_mbps = 1=25000\n%s",
		   emu_root(rig->emu), partitions);
	assert_int_equal(run_command(ARGV(MPAMCTL, "check-config", "--host", "--sysfs-root", rig->sysfs, config), &r),
			 0);
	if (!strstr(r.out, "capacity: domain 0 30000 MB/s (ACPI HMAT), domain 1 25000 MB/s (capacity_mbps)"))
		fail_msg("%s", r.out);
	assert_null(strstr(r.out, "guarantee not enforced at first"));
	assert_non_null(strstr(r.err, "warning: ACPI HMAT: node1: read_bandwidth '4O000'"));
	run_result_fini(&r);
	assert_int_equal(run_command(ARGV(MPAMCTL, "check-config", "--host", "--sysfs-root", empty, config), &r), 0);
	assert_non_null(
		strstr(r.out, "capacity: domain 0 unknown (learned from the totals seen), domain 1 25000 MB/s"));
	assert_non_null(strstr(r.out, "guarantee not enforced at first"));
	run_result_fini(&r);
}

#define hmat_test(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

TEST_MAIN({
	hmat_test(test_hmat_gives_the_capacity_and_the_guarantees_are_enforced),
	hmat_test(test_without_hmat_the_capacity_is_learned),
	hmat_test(test_capacity_mbps_comes_first),
	hmat_test(test_a_malformed_figure_is_named_and_ignored),
	hmat_test(test_check_config_names_the_source),
})
