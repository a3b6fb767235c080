/* The kernel lane's scenario on resctrl-emu (both profiles the lane compares with the kernel, with the
 * lane's options): it runs to the end, and two runs on fresh emulators give the same transcript, so
 * a difference the lane reports comes from the file system, not from the transcript's own noise
 * (pids, order). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "scenario.h"
#include "transcript.h"
#include "transcript_compare.h"
#include "tests/util/emu_runner.h"

#define SCENARIO MPAMD_SOURCE_DIR "/tests/kernel/scenarios/resctrl-ops.scn"

/* tests/kernel/lane.conf's EMU_OPTIONS: the guest's 2 CPUs and QEMU's 16 MiB L3. */
static const char *const lane_args[] = { "--cpus", "2", "--l3-bytes", "16777216", NULL };

static void run_once(const char *profile, struct transcript *t)
{
	const char *const *args = lane_args;
	struct emu *emu;
	FILE *in = fopen(SCENARIO, "r");

	assert_non_null(in);
	assert_int_equal(emu_start(profile, NULL, args, &emu), 0);
	transcript_init(t);
	assert_int_equal(scenario_run(in, SCENARIO, emu_root(emu), profile, SCENARIO_NO_SLEEP, t, stderr), 0);
	fclose(in);
	assert_int_equal(emu_stop(emu), 0);
}

/* The first line whose key ends with `op` (" read size": the step number left out). */
static const struct transcript_line *find_op(const struct transcript *t, const char *op)
{
	size_t n = strlen(op);

	for (size_t i = 0; i < t->count; i++) {
		size_t k = strlen(t->lines[i].key);
		if (k >= n && strcmp(t->lines[i].key + k - n, op) == 0)
			return &t->lines[i];
	}
	return NULL;
}

static void check_profile(const char *profile)
{
	struct transcript a, b;
	struct known_list none = { 0 };
	struct compare_counts c;

	run_once(profile, &a);
	run_once(profile, &b);
	assert_true(a.count > 100);
	transcript_compare(&a, &b, &none, profile, stderr, &c);
	assert_int_equal(c.unexpected, 0);
	assert_int_equal(c.same, a.count);
	/* The scenario reaches its end: the CLOSIDs ran out where it expects. */
	const struct transcript_line *l = find_op(&a, " mkdir c16");
	assert_non_null(l);
	assert_string_equal(l->value, "!ENOSPC");
	/* --l3-bytes: the size file gives each of the 11 or 16 bits 1/N of 16 MiB, rounded down as the
	 * kernel's rdtgroup_cbm_to_size() does (16 MiB / 11 = 1525201). */
	const struct transcript_line *size = find_op(&a, " read size");
	assert_non_null(size);
	assert_non_null(strstr(size->value, strcmp(profile, "intel") == 0 ? "L3:0=16777211;1=16777211"
									  : "L3:0=16777216;1=16777216"));
	transcript_fini(&a);
	transcript_fini(&b);
}

static void test_intel(void **state)
{
	(void)state;
	check_profile("intel");
}

static void test_amd(void **state)
{
	(void)state;
	check_profile("amd");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel),
		cmocka_unit_test(test_amd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
