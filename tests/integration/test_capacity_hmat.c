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
#include "tests/util/capacity_rig.h"
#include "tests/util/emu_runner.h"
#include "tests/util/engine_util.h"
#include "tests/util/log_capture.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

static const char *const partitions = "[partition \"web\"]\nclass = latency-critical\nguarantee_mbps = 6000\n"
				      "sim_demand = 4000\n"
				      "[partition \"batch\"]\nclass = best-effort\nsim_demand = 15000\n";

static int setup(void **state)
{
	return capacity_rig_setup(state, RESCTRL_EMU, "hmat-engine", partitions);
}

static void put(struct capacity_rig *rig, const char *rel, const char *value)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", rig->sysfs, rel);
	for (char *p = path + strlen(rig->dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	write_file(path, "%s\n", value);
}

/* The emulator's two MB domains (L3 0 and 1), a node each, with these read_bandwidth values. */
static void hmat_tree(struct capacity_rig *rig, const char *node0, const char *node1)
{
	put(rig, "devices/system/cpu/cpu0/cache/index3/id", "0");
	put(rig, "devices/system/cpu/cpu1/cache/index3/id", "1");
	put(rig, "devices/system/node/node0/cpulist", "0");
	put(rig, "devices/system/node/node1/cpulist", "1");
	put(rig, "devices/system/node/node0/access0/initiators/read_bandwidth", node0);
	put(rig, "devices/system/node/node1/access0/initiators/read_bandwidth", node1);
}

/* The HMAT tree laid (hmat_tree), an engine opened on it with `global` among [global]'s keys, sysfs
 * read from sysfs_root (NULL: the tree is not read, as before HMAT was). */
static void open_engine(struct capacity_rig *rig, const char *node0, const char *node1, const char *global,
			const char *sysfs_root)
{
	char text[1024];
	struct engine_options opts = { .ticks = 1, .sysfs_root = sysfs_root };
	struct err err = { "" };

	hmat_tree(rig, node0, node1);
	snprintf(text, sizeof(text), "[global]\nbackend = resctrl\nresctrl_root = %s\ninterval_ms = 20\n%s\n%s",
		 emu_root(rig->emu), global, partitions);
	log_capture_begin(&rig->log);
	int r = engine_new(config_from_text(text), &opts, &rig->engine, &err);
	log_capture_end(&rig->log);
	if (r < 0)
		fail_msg("engine_new: %s", err.text);
}

/* Domain d's capacity, whether learned, and its source in status. */
static void expect_domain(struct capacity_rig *rig, unsigned d, double mbps, const char *source)
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
	struct capacity_rig *rig = *state;

	open_engine(rig, "30000", "40000", "", rig->sysfs);
	expect_domain(rig, 0, 30000, "hmat");
	expect_domain(rig, 1, 40000, "hmat");
	assert_null(engine_guarantees_pending(rig->engine));
	assert_int_equal(
		log_capture_count(&rig->log, (const char *const[]){ "domain 0", "30000 MB/s", "ACPI HMAT", NULL }), 1);
}

/* Without HMAT (no tree given, as before HMAT was read): nothing known, guarantees pending. */
static void test_without_hmat_the_capacity_is_learned(void **state)
{
	struct capacity_rig *rig = *state;

	open_engine(rig, "30000", "40000", "", NULL);
	expect_domain(rig, 0, 0, "none");
	assert_non_null(engine_guarantees_pending(rig->engine));
}

/* capacity_mbps is trusted before HMAT: on the domain it names, and everywhere when it names none. */
static void test_capacity_mbps_comes_first(void **state)
{
	struct capacity_rig *rig = *state;

	open_engine(rig, "30000", "40000", "capacity_mbps = 0=25000", rig->sysfs);
	expect_domain(rig, 0, 25000, "configured");
	expect_domain(rig, 1, 40000, "hmat");
}

static void test_a_malformed_figure_is_named_and_ignored(void **state)
{
	struct capacity_rig *rig = *state;

	open_engine(rig, "30000", "4O000", "", rig->sysfs);
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
	struct capacity_rig *rig = *state;
	char config[128], empty[128];
	struct run_result r;

	hmat_tree(rig, "30000", "4O000");
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

#define hmat_test(f) cmocka_unit_test_setup_teardown(f, setup, capacity_rig_teardown)

TEST_MAIN({
	hmat_test(test_hmat_gives_the_capacity_and_the_guarantees_are_enforced),
	hmat_test(test_without_hmat_the_capacity_is_learned),
	hmat_test(test_capacity_mbps_comes_first),
	hmat_test(test_a_malformed_figure_is_named_and_ignored),
	hmat_test(test_check_config_names_the_source),
})
