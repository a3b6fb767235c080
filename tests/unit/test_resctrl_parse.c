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

/* A counter file's text as read: its length, not a NUL, ends it. */
static int parse_counter(const char *text, uint64_t *v, const char **reason)
{
	return resctrl_parse_counter(text, strlen(text), v, reason);
}

static void test_counter_states(void **state)
{
	const char *reason = NULL;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(parse_counter("5871234816\n", &v, &reason), 0);
	assert_true(v == 5871234816ull);
	assert_int_equal(parse_counter("Unavailable\n", &v, &reason), -ENODATA);
	assert_non_null(strstr(reason, "Unavailable"));
	assert_int_equal(parse_counter("Unassigned\n", &v, &reason), -ENOENT);
	assert_non_null(strstr(reason, "mbm_event"));
	assert_int_equal(parse_counter("Error\n", &v, &reason), -ENODATA);
	assert_non_null(strstr(reason, "Error"));
}

/* The counts the kernel can write ("%llu\n"), a missing newline too, the largest and the smallest. */
static void test_counter_values(void **state)
{
	const char *reason = NULL;
	uint64_t v = 1;

	(void)state;
	assert_int_equal(parse_counter("0\n", &v, &reason), 0);
	assert_true(v == 0);
	assert_int_equal(parse_counter("18446744073709551615\n", &v, &reason), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(parse_counter("18446744073709551614", &v, &reason), 0);
	assert_true(v == UINT64_MAX - 1);
	assert_int_equal(parse_counter("10000000000000000000\n", &v, &reason), 0);
	assert_true(v == 10000000000000000000ull);
	assert_int_equal(parse_counter("42", &v, &reason), 0);
	assert_true(v == 42);
	assert_null(reason);
}

/* Everything else is refused with its reason, and the value is left as it was: a bad counter never
 * becomes a count, least of all a silent 0. */
static void test_counter_rejections(void **state)
{
	static const struct {
		const char *text;
		int err;
		const char *reason;
	} bad[] = {
		{ "", -EINVAL, "empty" },
		{ "\n", -EINVAL, "empty" },
		{ "12x\n", -EINVAL, "after its number" },
		{ "12 \n", -EINVAL, "after its number" },
		{ "12\n\n", -EINVAL, "after its number" },
		{ "12\n13\n", -EINVAL, "after its number" },
		{ "0x10\n", -EINVAL, "after its number" }, /* the kernel writes decimal only */
		{ "0X1f\n", -EINVAL, "after its number" },
		{ "1e3\n", -EINVAL, "after its number" },
		{ "-1\n", -EINVAL, "neither a number nor a state" },
		{ "+5\n", -EINVAL, "neither a number nor a state" },
		{ " 5\n", -EINVAL, "neither a number nor a state" },
		{ "x\n", -EINVAL, "neither a number nor a state" },
		{ "unavailable\n", -EINVAL, "neither a number nor a state" },
		{ "Unavail\n", -EINVAL, "neither a number nor a state" },
		{ "Unavailable \n", -EINVAL, "neither a number nor a state" },
		{ "Error\nError\n", -EINVAL, "neither a number nor a state" },
		{ "18446744073709551616\n", -ERANGE, "above 2^64 - 1" },
		{ "99999999999999999999\n", -ERANGE, "above 2^64 - 1" },
		{ "100000000000000000000\n", -ERANGE, "more than 20 digits" },
		/* a file longer than mpamd's read, read cut, even of a small number */
		{ "00000000000000000000000000000001", -ERANGE, "more than 20 digits" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *reason = NULL;
		uint64_t v = 7;
		int r = parse_counter(bad[i].text, &v, &reason);
		if (r != bad[i].err || !reason || !strstr(reason, bad[i].reason) || v != 7)
			fail_msg("'%s': %d (%s), value %llu; want %d (%s), value untouched", bad[i].text, r,
				 reason ? reason : "no reason", (unsigned long long)v, bad[i].err, bad[i].reason);
	}
}

/* The length read ends the text: a NUL inside is a byte like any other, not the end of a number. */
static void test_counter_nul_inside(void **state)
{
	const char *reason = NULL;
	uint64_t v = 7;

	(void)state;
	assert_int_equal(resctrl_parse_counter("12\0"
					       "34\n",
					       6, &v, &reason),
			 -EINVAL);
	assert_non_null(strstr(reason, "after its number"));
	assert_int_equal(resctrl_parse_counter("Error\0\n", 7, &v, &reason), -EINVAL);
	assert_true(v == 7);
	assert_int_equal(resctrl_parse_counter("1234\n", 3, &v, &reason), 0);
	assert_true(v == 123);
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

/* An MB resource as probe_mb finds it, with its ladder (mb_ladder.c); no kernel asked,
 * so AMD's maximum is the default group's value. */
static struct resctrl_info mb_info(enum mb_units units, unsigned gran, unsigned min, const char *throttle_mode,
				   uint64_t root_value)
{
	struct resctrl_info info = {
		.mb_present = true, .mb_units = units, .bandwidth_gran = gran, .min_bandwidth = min
	};

	snprintf(info.thread_throttle_mode, sizeof(info.thread_throttle_mode), "%s", throttle_mode);
	resctrl_mb_ladder_probe(root_value, &info);
	return info;
}

static void test_mb_rungs(void **state)
{
	struct resctrl_info intel = mb_info(MB_PERCENT, 10, 10, "max", 100);
	struct resctrl_info mpam = mb_info(MB_PERCENT, 4, 3, "", 100);
	struct resctrl_info mpam_fine = mb_info(MB_PERCENT, 1, 0, "", 100);
	struct resctrl_info amd = mb_info(MB_ABSOLUTE, 1, 0, "", 2048);

	(void)state;
	/* Intel: the nearest 10% step (a tie goes down), never below the floor. */
	assert_int_equal(intel.mb_ladder.kind, LADDER_PERCENT);
	assert_int_equal(resctrl_mb_value(&intel, 55), 50);
	assert_int_equal(resctrl_mb_value(&intel, 56), 60);
	assert_int_equal(resctrl_mb_value(&intel, 100), 100);
	assert_int_equal(resctrl_mb_value(&intel, 5), 10);
	assert_true(resctrl_mb_percent(&intel, 70) == 70);
	/* MPAM: bandwidth_gran 4 and min_bandwidth 3 are BWA_WD 5; 61% is the band whose top is 62.5%,
	 * written as 62 (of 61..64, which the kernel all puts there, the nearest to its top) and shown
	 * as 63. */
	assert_int_equal(mpam.mb_ladder.kind, LADDER_RESCTRL_MPAM);
	assert_int_equal(mpam.mb_bwa_wd, 5);
	assert_true(mpam.mb_bwa_wd_exact);
	assert_int_equal(resctrl_mb_value(&mpam, 61), 62);
	assert_true(resctrl_mb_percent(&mpam, 63) == 62.5);
	assert_int_equal(resctrl_mb_value(&mpam, 1), 3);
	/* BWA_WD 8 or more look alike: assumed 16, and said to be a guess. */
	assert_int_equal(mpam_fine.mb_bwa_wd, 16);
	assert_false(mpam_fine.mb_bwa_wd_exact);
	/* AMD: units of the maximum, never 0 units. */
	assert_int_equal(amd.mb_ladder.kind, LADDER_UNITS);
	assert_int_equal(resctrl_mb_value(&amd, 50), 1024);
	assert_int_equal(resctrl_mb_value(&amd, 1), 20);
	assert_int_equal(resctrl_mb_value(&amd, 0), 1);
	assert_true(resctrl_mb_percent(&amd, 1024) == 50);
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
		cmocka_unit_test(test_counter_values),
		cmocka_unit_test(test_counter_rejections),
		cmocka_unit_test(test_counter_nul_inside),
		cmocka_unit_test(test_id_values_and_assign_mode),
		cmocka_unit_test(test_mb_rungs),
		cmocka_unit_test(test_cbm_rules),
		cmocka_unit_test(test_probe_intel_copy),
		cmocka_unit_test(test_probe_amd_copy),
		cmocka_unit_test(test_probe_mpam_copy),
		cmocka_unit_test(test_probe_refuses_non_resctrl_default_root),
	};
	return cmocka_run_group_tests(tests, log_errors_only, NULL);
}
