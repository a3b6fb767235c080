/* resctrl's file formats, MB rounding and mask rules, and probing static copies of real hosts. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/resctrl/resctrl.h"
#include "tests/util/log_capture.h"

#define FIXTURES MPAMD_SOURCE_DIR "/tests/fixtures/resctrl"

static void test_schemata(void **state)
{
	struct schemata s;
	struct err err = { "" };
	uint64_t v;

	(void)state;
	assert_int_equal(resctrl_parse_schemata("    MB:0=100;1= 50\n    L3:0=7ff;1=0f0\nL3CODE:0=3\n", &s, &err), 0);
	assert_int_equal(s.count, 3);
	assert_true(schemata_value(schemata_find(&s, "MB"), 1, &v) && v == 50);
	assert_true(schemata_value(schemata_find(&s, "L3"), 0, &v) && v == 0x7ff);
	assert_true(schemata_value(schemata_find(&s, "L3"), 1, &v) && v == 0xf0);
	assert_false(schemata_value(schemata_find(&s, "L3"), 2, &v));
	assert_null(schemata_find(&s, "L2"));
	assert_int_equal(resctrl_parse_schemata("MB 0=100\n", &s, &err), -EINVAL);
	assert_non_null(strstr(err.text, "no ':'"));
	assert_int_equal(resctrl_parse_schemata("MB:0=ten\n", &s, &err), -EINVAL);
	assert_non_null(strstr(err.text, "MB"));
	assert_int_equal(resctrl_parse_schemata("L3:0\n", &s, &err), -EINVAL);
}

static void test_counter_states(void **state)
{
	const char *reason = NULL;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(resctrl_parse_counter("5871234816\n", &v, &reason), 0);
	assert_true(v == 5871234816ull);
	assert_int_equal(resctrl_parse_counter("Unavailable\n", &v, &reason), -ENODATA);
	assert_non_null(strstr(reason, "Unavailable"));
	assert_int_equal(resctrl_parse_counter("Unassigned\n", &v, &reason), -ENOENT);
	assert_non_null(strstr(reason, "mbm_event"));
	assert_int_equal(resctrl_parse_counter("Error\n", &v, &reason), -ENODATA);
	assert_non_null(strstr(reason, "Error"));
	assert_int_equal(resctrl_parse_counter("12x\n", &v, &reason), -EINVAL);
	assert_int_equal(resctrl_parse_counter("", &v, &reason), -EINVAL);
}

static void test_id_values_and_assign_mode(void **state)
{
	struct schemata_domain d[4];
	unsigned n;
	char mode[32];

	(void)state;
	assert_int_equal(resctrl_parse_id_values("0=32;1=30\n", d, 4, &n), 0);
	assert_int_equal(n, 2);
	assert_true(d[1].id == 1 && d[1].value == 30);
	assert_int_equal(resctrl_parse_assign_mode("[mbm_event]\ndefault\n", mode, sizeof(mode)), 0);
	assert_string_equal(mode, "mbm_event");
	assert_int_equal(resctrl_parse_assign_mode("mbm_event\n[default]\n", mode, sizeof(mode)), 0);
	assert_string_equal(mode, "default");
	assert_int_equal(resctrl_parse_assign_mode("mbm_event\n", mode, sizeof(mode)), -EINVAL);
}

static void test_mb_rounding(void **state)
{
	struct resctrl_info intel = { .mb_units = MB_PERCENT, .bandwidth_gran = 10, .min_bandwidth = 10 };
	struct resctrl_info mpam = { .mb_units = MB_PERCENT, .bandwidth_gran = 4, .min_bandwidth = 3 };
	struct resctrl_info amd = { .mb_units = MB_ABSOLUTE, .mb_max_value = 2048, .min_bandwidth = 0 };

	(void)state;
	/* A limit rounds down to a step (never above what was asked), but not below the floor. */
	assert_int_equal(resctrl_mb_value(&intel, 55), 50);
	assert_int_equal(resctrl_mb_value(&intel, 100), 100);
	assert_int_equal(resctrl_mb_value(&intel, 5), 10);
	assert_int_equal(resctrl_mb_value(&mpam, 61), 60);
	assert_int_equal(resctrl_mb_value(&mpam, 1), 4);
	assert_int_equal(resctrl_mb_value(&amd, 50), 1024);
	assert_int_equal(resctrl_mb_value(&amd, 1), 20);
	assert_int_equal(resctrl_mb_percent(&amd, 1024), 50);
	assert_int_equal(resctrl_mb_percent(&intel, 70), 70);
}

static void test_cbm_rules(void **state)
{
	struct resctrl_cache_res intel = { .cbm_mask = 0x7ff, .min_cbm_bits = 1, .sparse_masks = false };
	struct resctrl_cache_res mpam = { .cbm_mask = 0xffff, .min_cbm_bits = 2, .sparse_masks = true };
	struct err err;

	(void)state;
	assert_int_equal(resctrl_check_cbm(&intel, 0x0f0, &err), 0);
	assert_int_equal(resctrl_check_cbm(&intel, 0x800, &err), -ERANGE);
	assert_non_null(strstr(err.text, "outside cbm_mask 0x7ff"));
	assert_int_equal(resctrl_check_cbm(&intel, 0x505, &err), -EINVAL);
	assert_non_null(strstr(err.text, "not contiguous"));
	assert_int_equal(resctrl_check_cbm(&mpam, 0x505, &err), 0);
	assert_int_equal(resctrl_check_cbm(&mpam, 0x100, &err), -EINVAL);
	assert_non_null(strstr(err.text, "min_cbm_bits = 2"));
}

static struct resctrl_info probe_fixture(const char *name)
{
	char path[512];
	struct resctrl_info info;
	struct err err = { "" };

	snprintf(path, sizeof(path), "%s/%s", FIXTURES, name);
	int fd = open(path, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	if (resctrl_probe(fd, path, true, &info, &err) < 0)
		fail_msg("%s: %s", name, err.text);
	close(fd);
	return info;
}

static void test_probe_intel_copy(void **state)
{
	struct resctrl_info i = probe_fixture("intel-skx-2s");

	(void)state;
	assert_false(i.is_resctrl_mount);
	assert_true(i.l3.present && !i.cdp_l3);
	assert_int_equal(i.l3.cbm_bits, 11);
	assert_int_equal(i.l3.domain_count, 2);
	assert_false(i.l3.sparse_masks);
	assert_true(i.mb_present);
	assert_int_equal(i.mb_units, MB_PERCENT);
	assert_int_equal(i.bandwidth_gran, 10);
	assert_int_equal(i.min_bandwidth, 10);
	assert_string_equal(i.thread_throttle_mode, "max");
	assert_int_equal(i.num_closids, 8); /* MB has fewer CLOSIDs than L3 */
	assert_true(i.mbm_total && i.mbm_local && i.llc_occupancy);
	assert_int_equal(i.num_rmids, 176);
	assert_int_equal(i.mon_domain_count, 2);
	assert_false(i.assign_supported);
	assert_false(i.debug);
	assert_false(i.l2.present);
}

static void test_probe_amd_copy(void **state)
{
	struct resctrl_info i = probe_fixture("amd-genoa-abmc");

	(void)state;
	assert_int_equal(i.mb_units, MB_ABSOLUTE);
	assert_true(i.mb_max_value == 2048);
	assert_true(i.assign_supported);
	assert_string_equal(i.assign_mode, "mbm_event");
	assert_true(i.assign_on_mkdir);
	assert_int_equal(i.num_mbm_cntrs_count, 2);
	assert_true(i.num_mbm_cntrs[0].value == 32);
}

static void test_probe_mpam_copy(void **state)
{
	struct resctrl_info i = probe_fixture("arm-mpam-7.1");

	(void)state;
	assert_true(i.debug);
	assert_false(i.mbm_total || i.mbm_local);
	assert_true(i.llc_occupancy);
	assert_int_equal(i.bandwidth_gran, 4);
	assert_int_equal(i.min_bandwidth, 3);
	assert_true(i.l3.sparse_masks);
	assert_int_equal(i.num_closids, 32);
}

static void test_probe_refuses_non_resctrl_default_root(void **state)
{
	struct resctrl_info info;
	struct err err = { "" };
	int fd = open("/tmp", O_RDONLY | O_DIRECTORY);

	(void)state;
	/* The default root is checked to be a real mount, and the message says how to mount one. */
	assert_int_equal(resctrl_probe(fd, "/tmp", false, &info, &err), -ENODEV);
	assert_non_null(strstr(err.text, "mount -t resctrl resctrl /tmp"));
	assert_int_equal(resctrl_probe(fd, "/tmp", true, &info, &err), -ENOENT);
	assert_non_null(strstr(err.text, "no info/ directory"));
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schemata),
		cmocka_unit_test(test_counter_states),
		cmocka_unit_test(test_id_values_and_assign_mode),
		cmocka_unit_test(test_mb_rounding),
		cmocka_unit_test(test_cbm_rules),
		cmocka_unit_test(test_probe_intel_copy),
		cmocka_unit_test(test_probe_amd_copy),
		cmocka_unit_test(test_probe_mpam_copy),
		cmocka_unit_test(test_probe_refuses_non_resctrl_default_root),
	};
	return cmocka_run_group_tests(tests, log_errors_only, NULL);
}
