/* mpamd and mpamctl discover, run as programs. */
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

#include "core/config/config.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

#define ETC MPAMD_SOURCE_DIR "/etc"

static struct run_result run(char *const argv[])
{
	struct run_result r;

	assert_int_equal(run_command(argv, &r), 0);
	return r;
}

static size_t count_lines(const char *text)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

static void test_demo_runs_and_records(void **state)
{
	char path[] = "/tmp/mpamd-cli-record-XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	close(fd);
	struct run_result r =
		run((char *[]){ MPAMD, "-c", ETC "/demo.ini", "--foreground", "--no-socket", "--sim-clock", "--ticks",
				"20", "--print-every", "10", "--record", path, NULL });
	assert_int_equal(r.exit_code, 0);
	assert_non_null(strstr(r.out, "t=1.0s partition"));
	assert_non_null(strstr(r.out, "t=2.0s partition"));
	assert_non_null(strstr(r.out, "       web "));
	assert_non_null(strstr(r.err, "stopped after 20 tick(s)"));
	char *csv = read_text_file(path);
	assert_non_null(csv);
	assert_int_equal(count_lines(csv), 1 + 20 * 3 * 3); /* each partition: its total and its 2 domains */
	assert_non_null(strstr(csv, "time,t_ms,partition,domain,mbps,mb_max,mb_min,mb_max_mbps,guarantee_mbps,target_"
				    "mbps,valid,estimated,event,sim_mbps,ipc\n"));
	free(csv);
	unlink(path);
	run_result_fini(&r);
}

static void test_usage_errors(void **state)
{
	static const struct {
		const char *args[6];
		const char *words;
	} cases[] = {
		{ { "-c", ETC "/demo.ini", "--backend", "xen", NULL }, "--backend xen: expected one of" },
		{ { "-c", ETC "/demo.ini", "--ticks", "0", NULL }, "--ticks 0: out of range" },
		{ { "-c", ETC "/demo.ini", "--ticks", "ten", NULL }, "--ticks ten: unexpected character" },
		{ { "-c", ETC "/demo.ini", "--log-level", "loud", NULL }, "--log-level loud" },
		{ { "-c", ETC "/demo.ini", "extra", NULL }, "unexpected argument 'extra'" },
		{ { "-c", ETC "/resctrl.ini", "--sim-clock", "-f", NULL }, "--sim-clock needs backend = sim" },
		{ { "-c", ETC "/demo.ini", "--backend", "mmio", NULL }, "--backend mmio needs at least one [msc" },
		{ { "-c", "/nonexistent.ini", NULL }, "/nonexistent.ini: error: cannot open" },
		{ { "-c", ETC "/demo.ini", "--socket", "relative.sock", NULL },
		  "--socket relative.sock: must be an absolute" },
		{ { "-c", ETC "/demo.ini", "--pid-file", NULL }, "requires an argument" },
		{ { "-c", ETC "/demo.ini", "--on-stop", "never", NULL }, "--on-stop never: expected one of" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[8] = { MPAMD };
		for (size_t a = 0; cases[i].args[a]; a++)
			argv[a + 1] = (char *)cases[i].args[a];
		struct run_result r = run(argv);
		if (r.exit_code != 2 || !strstr(r.err, cases[i].words))
			fail_msg("case %zu: exit %d, stderr:\n%s", i, r.exit_code, r.err);
		run_result_fini(&r);
	}
}

/* Without -c the installed default is read; when it is not installed, the error says what to do. */
static void test_default_config_missing(void **state)
{
	(void)state;
	if (access(DEFAULT_CONFIG_PATH, F_OK) == 0)
		skip(); /* this host has one installed: mpamd would start with it */
	struct run_result r = run((char *[]){ MPAMD, NULL });
	if (r.exit_code != 2 || !strstr(r.err, DEFAULT_CONFIG_PATH " does not exist") || !strstr(r.err, "-c FILE"))
		fail_msg("exit %d, stderr:\n%s", r.exit_code, r.err);
	run_result_fini(&r);
}

static void test_help_lists_every_option(void **state)
{
	static const char *const options[] = {
		"--config",    "--backend",	  "--foreground", "--ticks",  "--record",
		"--sim-clock", "--print-every",	  "--log-level",  "--socket", "--no-socket",
		"--pid-file",  "--reset-on-exit", "--version",
	};
	struct run_result r = run((char *[]){ MPAMD, "--help", NULL });

	(void)state;
	assert_int_equal(r.exit_code, 0);
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		if (!strstr(r.out, options[i]))
			fail_msg("--help lacks %s", options[i]);
	run_result_fini(&r);
}

static void test_discover_sim(void **state)
{
	struct run_result r = run((char *[]){ MPAMCTL, "discover", "-c", ETC "/demo.ini", "--json", NULL });
	json_error_t error;

	(void)state;
	assert_int_equal(r.exit_code, 0);
	json_t *d = json_loads(r.out, 0, &error);
	assert_non_null(d);
	assert_string_equal(json_string_value(json_object_get(d, "backend")), "sim");
	assert_int_equal(json_integer_value(json_object_get(d, "partids")), 64);
	json_t *mscs = json_object_get(d, "mscs");
	assert_int_equal(json_array_size(mscs), 2);
	json_t *ris0 = json_array_get(json_object_get(json_array_get(mscs, 0), "ris"), 0);
	assert_int_equal(json_integer_value(json_object_get(ris0, "monitors")), 4);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(ris0, "counter"), "bits")), 31);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(ris0, "bandwidth"), "bwa_wd")), 8);
	/* Each domain's capacity, as the simulated MSCs tell it, and the setting that says it. */
	json_t *capacity = json_object_get(d, "capacity");
	assert_string_equal(json_string_value(json_object_get(capacity, "suggestion")), "capacity_mbps = 10000");
	assert_int_equal(json_array_size(json_object_get(capacity, "domains")), 2);
	json_decref(d);
	run_result_fini(&r);

	expect_run(ARGV(MPAMCTL, "discover", "-c", ETC "/sim.ini"), 0, "backend sim: 64 PARTIDs, 2 PMGs, 1 MSCs",
		   "44-bit counters", "domain 0 (msc sim0): 20000 MB/s (the hardware's figure)\n",
		   "suggested: capacity_mbps = 20000\n");

	/* A record needs the configuration that names the domains; one that cannot be read says so. */
	r = run((char *[]){ MPAMCTL, "discover", "--resctrl-root", "/tmp", "--record", "x.csv", NULL });
	assert_int_equal(r.exit_code, 2);
	run_result_fini(&r);
	expect_run(ARGV(MPAMCTL, "discover", "-c", ETC "/sim.ini", "--record", "/nonexistent/run.csv"), 1,
		   "/nonexistent/run.csv");
}

/* A simulated NVIDIA T241: discover names the quirks it applies, in JSON and in text. */
static void test_discover_names_the_quirks(void **state)
{
	char path[] = "/tmp/mpamd-t241-XXXXXX";
	int fd = mkstemp(path);
	json_error_t error;

	(void)state;
	assert_true(fd >= 0);
	dprintf(fd, "[global]\nbackend = sim\n[sim]\niidr = 0x2410036b\nbwa_wd = 7\n[partition \"a\"]\n");
	close(fd);
	struct run_result r = run((char *[]){ MPAMCTL, "discover", "-c", path, "--json", NULL });
	assert_int_equal(r.exit_code, 0);
	json_t *d = json_loads(r.out, 0, &error);
	assert_non_null(d);
	json_t *msc = json_array_get(json_object_get(d, "mscs"), 0);
	assert_string_equal(json_string_value(json_object_get(msc, "iidr")), "0x2410036b");
	assert_string_equal(json_string_value(json_object_get(msc, "soc_id")), "none");
	json_t *quirks = json_object_get(msc, "quirks");
	assert_int_equal(json_array_size(quirks), 3);
	const char *names[] = { "T241-MPAM-1", "T241-MPAM-4", "T241-MPAM-6" };
	for (size_t i = 0; i < 3; i++) {
		json_t *q = json_array_get(quirks, i);
		assert_string_equal(json_string_value(json_object_get(q, "name")), names[i]);
		/* No SoC id on the simulated host: the shadow-register scrub is not needed, as in Linux. */
		assert_int_equal(json_is_true(json_object_get(q, "applied")), i > 0);
	}
	json_decref(d);
	run_result_fini(&r);

	r = run((char *[]){ MPAMCTL, "discover", "-c", path, NULL });
	assert_int_equal(r.exit_code, 0);
	assert_non_null(strstr(r.out, "IIDR 0x2410036b"));
	assert_non_null(strstr(r.out, "quirk T241-MPAM-6 (MBWU counters count 64-byte units): values and overflows "
				      "are multiplied by 64"));
	assert_non_null(strstr(r.out, "quirk T241-MPAM-4 ("));
	assert_non_null(strstr(r.out, "quirk T241-MPAM-1 (") && strstr(r.out, "not applied, the SoC is not"));
	run_result_fini(&r);
	unlink(path);
}

static void test_discover_mmio_explains_failure(void **state)
{
	struct run_result r = run((char *[]){ MPAMCTL, "discover", "-c", ETC "/mmio.ini", NULL });

	(void)state;
	assert_int_equal(r.exit_code, 1);
	/* This machine has no /dev/mem; a real host may refuse for other reasons: all are named. */
	assert_non_null(strstr(r.err, "msc \"mem0\": cannot map /dev/mem [0x12900000, 0x12904000)"));
	run_result_fini(&r);

	r = run((char *[]){ MPAMCTL, "discover", NULL });
	assert_int_equal(r.exit_code, 2);
	run_result_fini(&r);
}

static void test_discover_static_resctrl_copies(void **state)
{
	json_error_t error;
	struct run_result r = run((char *[]){ MPAMCTL, "discover", "--resctrl-root",
					      MPAMD_SOURCE_DIR "/tests/fixtures/resctrl/intel-skx-2s", NULL });

	(void)state;
	assert_int_equal(r.exit_code, 0);
	assert_non_null(strstr(r.out, "(not a resctrl mount): 8 CLOSIDs"));
	assert_non_null(
		strstr(r.out, "L3: 11-bit CBM (mask 7ff), min 1 bits, shareable 0, sparse masks no, 2 domains"));
	assert_non_null(strstr(r.out, "MB: percent, step 10, minimum 10, max 100"));
	assert_non_null(strstr(r.out, "L3_MON: 176 RMIDs; mbm_total_bytes yes, mbm_local_bytes yes"));
	run_result_fini(&r);

	r = run((char *[]){ MPAMCTL, "--json", "discover", "--resctrl-root",
			    MPAMD_SOURCE_DIR "/tests/fixtures/resctrl/amd-genoa-abmc", NULL });
	assert_int_equal(r.exit_code, 0);
	json_t *d = json_loads(r.out, 0, &error);
	assert_non_null(d);
	json_t *mon = json_object_get(d, "monitoring");
	assert_string_equal(json_string_value(json_object_get(mon, "resource")), "L3");
	assert_string_equal(json_string_value(json_object_get(mon, "mbm_assign_mode")), "mbm_event");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(mon, "num_mbm_cntrs"), "1")), 32);
	assert_string_equal(json_string_value(json_object_get(json_object_get(d, "MB"), "units")), "absolute");
	json_decref(d);
	run_result_fini(&r);

	expect_run(ARGV(MPAMCTL, "discover", "--resctrl-root", MPAMD_SOURCE_DIR "/tests/fixtures/resctrl/arm-mpam-7.1"),
		   0, "32 CLOSIDs, debug (ctrl_hw_id)", "mbm_total_bytes no, mbm_local_bytes no, llc_occupancy yes");

	expect_run(ARGV(MPAMCTL, "discover", "--resctrl-root", "/nonexistent"), 1, "cannot open /nonexistent");

	r = run((char *[]){ MPAMCTL, "discover", "--resctrl-root", "/tmp", "-c", ETC "/demo.ini", NULL });
	assert_int_equal(r.exit_code, 2);
	run_result_fini(&r);
}

TEST_MAIN({
	cmocka_unit_test(test_demo_runs_and_records),
	cmocka_unit_test(test_usage_errors),
	cmocka_unit_test(test_default_config_missing),
	cmocka_unit_test(test_help_lists_every_option),
	cmocka_unit_test(test_discover_sim),
	cmocka_unit_test(test_discover_names_the_quirks),
	cmocka_unit_test(test_discover_mmio_explains_failure),
	cmocka_unit_test(test_discover_static_resctrl_copies),
})
