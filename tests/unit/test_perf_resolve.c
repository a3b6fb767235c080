/* The perf event resolver against the fixture PMU trees, format fields, deltas and errno advice. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/perf/perf_event.h"
#include "tests/util/engine_util.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

#define FIXTURE MPAMD_SOURCE_DIR "/tests/fixtures/sysfs/devices"

static int setup(void **state)
{
	struct perf_sysfs *s;
	struct err err;

	if (perf_sysfs_new(FIXTURE, &s, &err) < 0) {
		fprintf(stderr, "%s\n", err.text);
		return -1;
	}
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	perf_sysfs_free(*state);
	return 0;
}

struct encode_case {
	const char *text;
	uint32_t type;
	uint64_t config, config1, config2, config3;
};

static void test_encodes(void **state)
{
	static const struct encode_case cases[] = {
		{ "armv8_pmuv3_0/cpu_cycles/", 10, 0x11, 0, 0, 0 },
		{ "armv8_pmuv3_0/inst_retired/", 10, 0x08, 0, 0, 0 },
		{ "armv8_pmuv3_0/stall_backend/", 10, 0x24, 0, 0, 0 },
		{ "armv8_pmuv3_0/event=0x11/", 10, 0x11, 0, 0, 0 },
		{ "armv8_pmuv3_0/event=17/", 10, 0x11, 0, 0, 0 },
		{ "armv8_pmuv3_0/event=0x4004,long/", 10, 0x4004, 1, 0, 0 },
		{ "armv8_pmuv3_0/event=0xffff,long=1,rdpmc/", 10, 0xffff, 3, 0, 0 },
		{ "inst_retired", 10, 0x08, 0, 0, 0 },
		{ "starfive_starlink_pmu/read_request/", 11, 0x04000701, 0, 0, 0 },
		{ "starfive_starlink_pmu/cycles/", 11, 0x58, 0, 0, 0 },
		{ "starfive_starlink_pmu/event=0x901202/", 11, 0x00901202, 0, 0, 0 },
		{ "starfive_starlink_pmu/event=0xffffffff/", 11, 0xffffffff, 0, 0, 0 },
		{ "writeback", 11, 0x403, 0, 0, 0 },
		/* split and wide fields */
		{ "arm_cmn_0/hnf_mc_reqs/", 12, 0xd0005, 0, 0, 0 },
		{ "arm_cmn_0/hnf_cache_miss,nodeid=0x5/", 12, 0x10005 | UINT64_C(0x5) << 47, 0, 0, 0 },
		{ "arm_cmn_0/hnf_cache_miss,nodeid=0x3fff/", 12, 0x10005 | UINT64_C(0x3fff) << 47, 0, 0, 0 },
		{ "arm_cmn_0/type=0x5,eventid=0xffff,occupid=0xf,bynodeid,nodeid=1/", 12,
		  0xffff0005 | UINT64_C(0xf) << 32 | UINT64_C(1) << 36 | UINT64_C(1) << 47, 0, 0, 0 },
		/* wp_chn_sel = config:37-39,61-63: value bits 0-2 to 37-39, bits 3-5 to 61-63 */
		{ "arm_cmn_0/wp_chn_sel=0x7/", 12, UINT64_C(0x7) << 37, 0, 0, 0 },
		{ "arm_cmn_0/wp_chn_sel=0x8/", 12, UINT64_C(1) << 61, 0, 0, 0 },
		{ "arm_cmn_0/wp_chn_sel=0x29/", 12, UINT64_C(1) << 37 | UINT64_C(1) << 61 | UINT64_C(1) << 63, 0, 0,
		  0 },
		{ "arm_cmn_0/watchpoint_up,wp_val=0xffffffffffffffff,wp_mask=0x10/", 12, 0x7770, UINT64_MAX, 0x10, 0 },
		{ "arm_cmn_0/ext=0xff/", 12, 0, 0, 0, 0xff },
		/* hardcoded terms assign whole words; format terms are ORed in after them */
		{ "arm_cmn_0/config=0x100,type=0x3/", 12, 0x103, 0, 0, 0 },
		{ "arm_cmn_0/type=0x3,config=0x100/", 12, 0x103, 0, 0, 0 },
		{ "arm_cmn_0/config1=0x5,config2=0x6,config3=0x7/", 12, 0, 5, 6, 7 },
		/* generic events */
		{ "cycles", 0, 0, 0, 0, 0 },
		{ "instructions", 0, 1, 0, 0, 0 },
		{ "cache-references", 0, 2, 0, 0, 0 },
		{ "cache-misses", 0, 3, 0, 0, 0 },
		{ "branches", 0, 4, 0, 0, 0 },
		{ "branch-misses", 0, 5, 0, 0, 0 },
		{ "ref-cycles", 0, 9, 0, 0, 0 },
		{ "cpu-clock", 1, 0, 0, 0, 0 },
		{ "task-clock", 1, 1, 0, 0, 0 },
		{ "page-faults", 1, 2, 0, 0, 0 },
		{ "context-switches", 1, 3, 0, 0, 0 },
		{ "cs", 1, 3, 0, 0, 0 },
		{ "cpu-migrations", 1, 4, 0, 0, 0 },
		{ "major-faults", 1, 6, 0, 0, 0 },
		{ "r11", 4, 0x11, 0, 0, 0 },
		{ "r1B", 4, 0x1b, 0, 0, 0 },
	};
	struct perf_sysfs *s = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct encode_case *c = &cases[i];
		struct perf_event_desc d;
		struct err err = { "" };
		if (perf_resolve(s, c->text, &d, &err) < 0)
			fail_msg("%s: %s", c->text, err.text);
		if (d.type != c->type || d.config != c->config || d.config1 != c->config1 || d.config2 != c->config2 ||
		    d.config3 != c->config3)
			fail_msg("%s: type %u config 0x%llx 0x%llx 0x%llx 0x%llx", c->text, d.type,
				 (unsigned long long)d.config, (unsigned long long)d.config1,
				 (unsigned long long)d.config2, (unsigned long long)d.config3);
		perf_event_desc_clear(&d);
	}
}

static void test_pmu_kinds_and_cpus(void **state)
{
	struct perf_sysfs *s = *state;
	struct perf_event_desc d;
	struct err err;

	assert_int_equal(perf_resolve(s, "armv8_pmuv3_0/cpu_cycles/", &d, &err), 0);
	assert_int_equal(d.kind, PERF_PMU_CORE);
	assert_false(d.uncore);
	assert_int_equal(d.ncpus, 4);
	assert_int_equal(d.cpus[3], 3);
	assert_string_equal(d.pmu, "armv8_pmuv3_0");
	perf_event_desc_clear(&d);

	assert_int_equal(perf_resolve(s, "starfive_starlink_pmu/read_hit/", &d, &err), 0);
	assert_int_equal(d.kind, PERF_PMU_UNCORE);
	assert_true(d.uncore);
	assert_int_equal(d.ncpus, 1);
	assert_int_equal(d.cpus[0], 0);
	perf_event_desc_clear(&d);

	assert_int_equal(perf_resolve(s, "arm_cmn_0/hnf_mc_reqs/", &d, &err), 0);
	assert_true(d.uncore);
	assert_int_equal(d.cpus[0], 2);
	assert_true(d.scale == 64.0);
	assert_string_equal(d.unit, "Bytes");
	perf_event_desc_clear(&d);

	assert_int_equal(perf_resolve(s, "task-clock", &d, &err), 0);
	assert_false(d.uncore);
	assert_null(d.cpus);
	assert_string_equal(d.unit, "msec");
	perf_event_desc_clear(&d);

	assert_int_equal(perf_resolve(s, "armv8_pmuv3_0/event=0x8,name=insts/", &d, &err), 0);
	assert_string_equal(d.name, "insts");
	perf_event_desc_clear(&d);

	const struct perf_pmu *p;
	assert_int_equal(perf_sysfs_pmu(s, "armv8_pmuv3_0", &p, &err), 0);
	assert_int_equal(p->nformats, 3);
	assert_int_equal(p->naliases, 5);
	assert_int_equal(perf_sysfs_pmu(s, "arm_cmn_0", &p, &err), 0);
	assert_int_equal(p->naliases, 4); /* the .scale and .unit sidecars are not events */
	assert_int_equal(perf_sysfs_count(s), 5);
}

static void test_modifiers(void **state)
{
	static const struct {
		const char *text;
		bool user, kernel, hv; /* exclude_* */
	} cases[] = {
		{ "cycles", false, false, false },
		{ "cycles:u", false, true, true },
		{ "cycles:k", true, false, true },
		{ "cycles:uk", false, false, true },
		{ "cycles:h", true, true, false },
		{ "armv8_pmuv3_0/cpu_cycles/u", false, true, true },
		{ "armv8_pmuv3_0/cpu_cycles/:k", true, false, true },
		{ "inst_retired:u", false, true, true },
	};
	struct perf_sysfs *s = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct perf_event_desc d;
		struct err err;
		if (perf_resolve(s, cases[i].text, &d, &err) < 0)
			fail_msg("%s: %s", cases[i].text, err.text);
		if (d.exclude_user != cases[i].user || d.exclude_kernel != cases[i].kernel ||
		    d.exclude_hv != cases[i].hv)
			fail_msg("%s: exclude user %d kernel %d hv %d", cases[i].text, d.exclude_user, d.exclude_kernel,
				 d.exclude_hv);
		perf_event_desc_clear(&d);
	}
}

static void test_errors(void **state)
{
	static const struct {
		const char *text;
		int code;
		const char *words[3];
	} cases[] = {
		{ "cpu/event=0x11/", -ENOENT, { "unknown PMU 'cpu'", "arm_cmn_0, arm_cmn_1, armv8_pmuv3_0", NULL } },
		{ "armv8_pmuv3_0/foo=1/",
		  -EINVAL,
		  { "unknown term 'foo' for PMU 'armv8_pmuv3_0'", "valid terms: event, long, rdpmc, config",
		    "events: bus_access, cpu_cycles" } },
		{ "armv8_pmuv3_0/event=0x10000/",
		  -ERANGE,
		  { "too big for term 'event' of PMU 'armv8_pmuv3_0'", "maximum is 65535", "config:0-15" } },
		{ "starfive_starlink_pmu/event=0x100000000/", -ERANGE, { "maximum is 4294967295", NULL, NULL } },
		{ "arm_cmn_0/occupid=16/", -ERANGE, { "maximum is 15", "arm_cmn_0", NULL } },
		{ "arm_cmn_0/wp_chn_sel=64/", -ERANGE, { "maximum is 63", "config:37-39,61-63", NULL } },
		{ "arm_cmn_0/nodeid/",
		  -EINVAL,
		  { "term 'nodeid' needs a value: it is 14 bits wide", "PMU 'arm_cmn_0'", "valid terms: bynodeid" } },
		{ "armv8_pmuv3_0/event/", -EINVAL, { "16 bits wide", "only 1-bit terms", NULL } },
		{ "arm_cmn_0/config/", -EINVAL, { "term 'config' needs a value", NULL, NULL } },
		{ "arm_cmn_0/hnf_cache_miss/",
		  -EINVAL,
		  { "event 'hnf_cache_miss' of PMU 'arm_cmn_0' needs a value for parameter 'nodeid'",
		    "arm_cmn_0/hnf_cache_miss,nodeid=VALUE/", NULL } },
		{ "arm_cmn_0/watchpoint_up,wp_val=1/", -EINVAL, { "parameter 'wp_mask'", NULL, NULL } },
		{ "arm_cmn_0/nodeid=?/", -EINVAL, { "needs a number, not '?'", NULL, NULL } },
		{ "arm_cmn_0/nodeid=zz/", -EINVAL, { "'zz' of term 'nodeid' is not a number", NULL, NULL } },
		{ "arm_cmn_0/wp_val=0x1ffffffffffffffff/", -ERANGE, { "does not fit in 64 bits", NULL, NULL } },
		{ "arm_cmn_0/hnf_mc_reqs=1/", -EINVAL, { "event 'hnf_mc_reqs' takes no value", NULL, NULL } },
		{ "arm_cmn_0//", -EINVAL, { "empty term list", "valid terms", NULL } },
		{ "arm_cmn_0/type=1,,eventid=1/", -EINVAL, { "empty term", NULL, NULL } },
		{ "arm_cmn_0/type=/", -EINVAL, { "has '=' but no value", NULL, NULL } },
		{ "arm_cmn_0/type=1", -EINVAL, { "missing closing '/'", NULL, NULL } },
		{ "/arm_cmn_0/type=1/", -EINVAL, { "no PMU name", NULL, NULL } },
		{ "cycles:x", -EINVAL, { "unknown modifier 'x'", "u (user only)", NULL } },
		{ "armv8_pmuv3_0/cpu_cycles/p", -EINVAL, { "unknown modifier 'p'", NULL, NULL } },
		{ "no-such-event", -ENOENT, { "unknown event 'no-such-event'", "PMUs present: arm_cmn_0", NULL } },
		{ "dtc_cycles", -EINVAL, { "several PMUs (arm_cmn_0, arm_cmn_1)", NULL, NULL } },
		{ "", -EINVAL, { "empty event", NULL, NULL } },
		{ ":u", -EINVAL, { "no event name", NULL, NULL } },
	};
	struct perf_sysfs *s = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct perf_event_desc d;
		struct err err = { "" };
		int r = perf_resolve(s, cases[i].text, &d, &err);
		if (r != cases[i].code)
			fail_msg("'%s': returned %d, expected %d (%s)", cases[i].text, r, cases[i].code, err.text);
		assert_null(d.cpus);
		for (int w = 0; w < 3 && cases[i].words[w]; w++)
			if (!strstr(err.text, cases[i].words[w]))
				fail_msg("'%s': message '%s' lacks '%s'", cases[i].text, err.text, cases[i].words[w]);
	}
}

static void test_format_parse(void **state)
{
	struct perf_format f;
	struct err err;
	char buf[128];

	(void)state;
	assert_int_equal(perf_format_parse("config:0-7,32-35\n", &f, &err), 0);
	assert_true(f.mask[0] == (UINT64_C(0xf) << 32 | 0xff));
	assert_int_equal(f.width, 12);
	uint64_t cfg[4] = { 0 };
	assert_int_equal(perf_format_place(&f, 0xabc, cfg), 0);
	assert_true(cfg[0] == (UINT64_C(0xa) << 32 | 0xbc));
	assert_int_equal(perf_format_place(&f, 0x1000, cfg), -ERANGE);
	perf_format_describe(&f, buf, sizeof(buf));
	assert_string_equal(buf, "config:0-7,32-35");

	assert_int_equal(perf_format_parse("config1:1,6-10,44", &f, &err), 0);
	assert_true(f.mask[1] == (UINT64_C(1) << 44 | 0x7c2));
	assert_int_equal(f.width, 7);
	assert_int_equal(perf_format_parse("config2:0-63", &f, &err), 0);
	assert_true(perf_format_max(&f) == UINT64_MAX);
	assert_int_equal(perf_format_parse("config:0-3,config1:0-3", &f, &err), 0);
	assert_int_equal(f.width, 8);
	memset(cfg, 0, sizeof(cfg));
	assert_int_equal(perf_format_place(&f, 0xa5, cfg), 0);
	assert_true(cfg[0] == 0x5 && cfg[1] == 0xa);
	perf_format_describe(&f, buf, sizeof(buf));
	assert_string_equal(buf, "config:0-3,config1:0-3");
	assert_int_equal(perf_format_parse("config3:63", &f, &err), 0);
	assert_true(f.mask[3] == UINT64_C(1) << 63);

	static const char *const bad[] = { "",		"config", "config:",   "config:64", "config:7-3",
					   "config4:0", "foo:1",  "config:1x", "config:0-" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (perf_format_parse(bad[i], &f, &err) != -EINVAL)
			fail_msg("format '%s' accepted", bad[i]);
}

static void test_cpulist(void **state)
{
	int *cpus;
	size_t n;
	struct err err;

	(void)state;
	assert_int_equal(perf_cpulist_parse("0-2,8,10-11", &cpus, &n, &err), 0);
	assert_int_equal(n, 6);
	assert_int_equal(cpus[3], 8);
	assert_int_equal(cpus[5], 11);
	free(cpus);
	assert_true(perf_cpulist_parse("3-1", &cpus, &n, &err) < 0);
}

static void test_read_decode_and_delta(void **state)
{
	/* nr=2, enabled, running, {value, id} x 2, ids out of order */
	uint64_t buf[7] = { 2, 1000, 500, 40, 77, 10, 55 };
	uint64_t ids[2] = { 55, 77 };
	struct perf_count c[2], before[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	struct err err;

	(void)state;
	assert_int_equal(perf_read_decode(buf, sizeof(buf), ids, 2, c, &err), 0);
	assert_int_equal(c[0].value, 10);
	assert_int_equal(c[1].value, 40);
	assert_int_equal(c[1].enabled, 1000);
	assert_int_equal(c[1].running, 500);
	struct perf_delta d = perf_delta_compute(&before[1], &c[1]);
	assert_true(d.counted);
	assert_int_equal(d.raw, 40);
	assert_true(d.value == 80.0); /* ran half the time: scaled x2 */
	assert_true(d.running_pct == 50.0);

	assert_int_equal(perf_read_decode(buf, 40, ids, 2, c, &err), -EPROTO);
	assert_int_equal(perf_read_decode(buf, sizeof(buf), ids, 3, c, &err), -EPROTO);
	uint64_t wrong[2] = { 55, 99 };
	assert_int_equal(perf_read_decode(buf, sizeof(buf), wrong, 2, c, &err), -EPROTO);
	assert_non_null(strstr(err.text, "unknown event id 77"));

	/* running did not advance: not counted, never a 0 */
	struct perf_count a = { 100, 1000, 300 }, b = { 150, 2000, 300 };
	d = perf_delta_compute(&a, &b);
	assert_false(d.counted);
	/* full running: no scaling */
	struct perf_count e = { 200, 3000, 1300 };
	d = perf_delta_compute(&b, &e);
	assert_true(d.counted && d.value == 50.0);
	/* counter wrap is modular */
	struct perf_count w0 = { UINT64_MAX - 4, 0, 0 }, w1 = { 5, 10, 10 };
	d = perf_delta_compute(&w0, &w1);
	assert_int_equal(d.raw, 10);

	/* two CPUs x one event: cpu 0 ran a quarter of the time, cpu 1 never */
	struct perf_count b2[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	struct perf_count a2[2] = { { 10, 400, 100 }, { 0, 400, 0 } };
	d = perf_delta_sum(b2, a2, 2, 1, 0);
	assert_true(d.counted);
	assert_true(d.value == 40.0);
	a2[0].running = 0;
	d = perf_delta_sum(b2, a2, 2, 1, 0);
	assert_false(d.counted);
}

static void test_advice(void **state)
{
	char path[] = "/tmp/test_perf_paranoid_XXXXXX";
	char buf[512];
	struct perf_event_desc ev;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	memset(&ev, 0, sizeof(ev));
	snprintf(ev.name, sizeof(ev.name), "cycles");

	write_file(path, "2\n");
	perf_advice(EACCES, &ev, PERF_TARGET_CGROUP, path, buf, sizeof(buf));
	assert_non_null(strstr(buf, "perf_event_paranoid=2"));
	assert_non_null(strstr(buf, "cgroup events need 0 or lower"));
	assert_non_null(strstr(buf, "kernel.perf_event_paranoid=0"));
	perf_advice(EACCES, &ev, PERF_TARGET_PID, path, buf, sizeof(buf));
	assert_non_null(strstr(buf, "need 1 or lower"));
	assert_non_null(strstr(buf, ":u"));
	ev.exclude_kernel = true;
	perf_advice(EPERM, &ev, PERF_TARGET_PID, path, buf, sizeof(buf));
	assert_non_null(strstr(buf, "although perf_event_paranoid=2"));
	ev.exclude_kernel = false;

	write_file(path, "-1\n");
	perf_advice(EACCES, &ev, PERF_TARGET_CPUS, path, buf, sizeof(buf));
	assert_non_null(strstr(buf, "although perf_event_paranoid=-1"));
	unlink(path);
	perf_advice(EACCES, &ev, PERF_TARGET_CPUS, path, buf, sizeof(buf));
	assert_non_null(strstr(buf, "could not be read"));

	perf_advice(ENOENT, &ev, PERF_TARGET_PID, path, buf, sizeof(buf));
	assert_non_null(strstr(buf, "no PMU on this machine counts cycles"));
	snprintf(ev.pmu, sizeof(ev.pmu), "starfive_starlink_pmu");
	ev.uncore = true;
	perf_advice(ENODEV, &ev, PERF_TARGET_CPUS, path, buf, sizeof(buf));
	assert_non_null(strstr(buf, "cpumask"));
	perf_advice(EOPNOTSUPP, &ev, PERF_TARGET_PID, path, buf, sizeof(buf));
	assert_non_null(strstr(buf, "system-wide only"));
	perf_advice(EINVAL, &ev, PERF_TARGET_CGROUP, path, buf, sizeof(buf));
	assert_non_null(strstr(buf, "refuses per-task and cgroup events"));
	ev.uncore = false;
	ev.exclude_kernel = true;
	perf_advice(EINVAL, &ev, PERF_TARGET_PID, path, buf, sizeof(buf));
	assert_non_null(strstr(buf, ":u/:k"));
	perf_advice(ESRCH, &ev, PERF_TARGET_PID, path, buf, sizeof(buf));
	assert_string_equal(buf, "no such process");
}

TEST_MAIN({
	fixture_test(test_encodes),
	fixture_test(test_pmu_kinds_and_cpus),
	fixture_test(test_modifiers),
	fixture_test(test_errors),
	cmocka_unit_test(test_format_parse),
	cmocka_unit_test(test_cpulist),
	cmocka_unit_test(test_read_decode_and_delta),
	cmocka_unit_test(test_advice),
})
