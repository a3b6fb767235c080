/* mpamctl check-config and the help texts, run as the user runs them: as programs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "tests/util/testutil.h"

#define FIXTURES MPAMD_SOURCE_DIR "/tests/fixtures/config"

static struct run_result run(const char *a0, const char *a1, const char *a2, const char *a3)
{
	char *argv[] = { (char *)a0, (char *)a1, (char *)a2, (char *)a3, NULL };
	struct run_result r;

	assert_int_equal(run_command(argv, &r), 0);
	return r;
}

static void test_valid_file_prints_summary(void **state)
{
	struct run_result r = run(MPAMCTL, "check-config", FIXTURES "/valid/full.ini", NULL);

	(void)state;
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "global: backend=sim monitor=auto interval_ms=50"));
	assert_non_null(strstr(r.out, "partition web: partid=1 class=latency-critical mb_min=20 mb_max=100 "
				      "guarantee_mbps=6000 target_mbps=none weight=100 ipc_guard=none l3_cbm=0xff0"));
	assert_non_null(strstr(r.out, "partition batch: partid=2(auto) class=best-effort"));
	assert_non_null(strstr(r.out, "max_lim=hard mbw_prop=true mbw_pbm_bits=16 partid_nrw=64 "
				      "preload_mbw_prop=1:25 3:50 preload_mbw_pbm=2:0xf0"));
	run_result_fini(&r);
}

static void test_invalid_file_lists_every_error(void **state)
{
	const char *path = FIXTURES "/invalid/multiple-errors.ini";
	struct run_result r = run(MPAMCTL, "check-config", path, NULL);
	char where[512];

	(void)state;
	assert_int_equal(r.exit_code, 1);
	assert_string_equal(r.out, "");
	static const unsigned lines[] = { 3, 6, 7, 10 };
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		snprintf(where, sizeof(where), "%s:%u: error:", path, lines[i]);
		if (!strstr(r.err, where))
			fail_msg("stderr lacks '%s':\n%s", where, r.err);
	}
	run_result_fini(&r);
}

static void test_json_valid_and_invalid(void **state)
{
	struct run_result r = run(MPAMCTL, "--json", "check-config", FIXTURES "/valid/full.ini");
	json_error_t error;

	(void)state;
	assert_int_equal(r.exit_code, 0);
	json_t *root = json_loads(r.out, 0, &error);
	assert_non_null(root);
	assert_true(json_is_true(json_object_get(root, "valid")));
	json_t *partitions = json_object_get(json_object_get(root, "config"), "partitions");
	assert_int_equal(json_array_size(partitions), 2);
	json_t *web = json_array_get(partitions, 0);
	assert_string_equal(json_string_value(json_object_get(web, "name")), "web");
	assert_int_equal(json_integer_value(json_object_get(web, "guarantee_mbps")), 6000);
	assert_true(json_is_null(json_object_get(web, "target_mbps")));
	json_decref(root);
	run_result_fini(&r);

	r = run(MPAMCTL, "check-config", "--json", FIXTURES "/invalid/multiple-errors.ini");
	assert_int_equal(r.exit_code, 1);
	root = json_loads(r.out, 0, &error);
	assert_non_null(root);
	assert_true(json_is_false(json_object_get(root, "valid")));
	assert_true(json_is_null(json_object_get(root, "config")));
	assert_int_equal(json_array_size(json_object_get(root, "errors")), 4);
	assert_int_equal(
		json_integer_value(json_object_get(json_array_get(json_object_get(root, "errors"), 0), "line")), 3);
	json_decref(root);
	run_result_fini(&r);
}

/* One line "k<byte> = 1" for every byte value but the newline: each is an error, and --json lists
 * every one, a byte that is not UTF-8 written as \xHH (jansson refuses such a string, and the errors
 * went missing: "errors": []). */
static void test_json_errors_with_every_byte(void **state)
{
	char path[] = "/tmp/mpamd-check-bytes-XXXXXX", want[64];
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	json_error_t error;

	(void)state;
	assert_non_null(f);
	fputs("[global]\nbackend = sim\n", f);
	for (unsigned b = 1; b < 256; b++)
		if (b != '\n')
			fprintf(f, "k%c = 1\n", (char)b);
	fputs("[partition \"web\"]\n", f);
	fclose(f);
	struct run_result r = run(MPAMCTL, "check-config", "--json", path);
	assert_int_equal(r.exit_code, 1);
	json_t *root = json_loads(r.out, 0, &error);
	if (!root)
		fail_msg("not JSON: %s", error.text);
	size_t printed = 0;
	for (const char *p = r.err; (p = strstr(p, ": error: ")); p++)
		printed++;
	json_t *errors = json_object_get(root, "errors");
	assert_true(printed >= 200);
	assert_int_equal(json_array_size(errors), printed);
	char *dump = json_dumps(errors, 0);
	for (unsigned b = 0x80; b < 256; b++) {
		snprintf(want, sizeof(want), "unknown key 'k\\\\x%02X' in [global]", b);
		if (!strstr(dump, want))
			fail_msg("no error says %s", want);
	}
	free(dump);
	json_decref(root);
	run_result_fini(&r);

	/* A valid file: its values keep such bytes too (before, the cgroup was null). */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("[global]\nbackend = sim\n[partition \"web\"]\ncgroup = machine.slice/vm\xff\xfe.scope\n", f);
	fclose(f);
	r = run(MPAMCTL, "check-config", "--json", path);
	assert_int_equal(r.exit_code, 0);
	if (!(root = json_loads(r.out, 0, &error)))
		fail_msg("not JSON: %s", error.text);
	json_t *web = json_array_get(json_object_get(json_object_get(root, "config"), "partitions"), 0);
	const char *cgroup = json_string_value(json_object_get(web, "cgroup"));
	assert_non_null(cgroup);
	assert_string_equal(cgroup, "machine.slice/vm\\xFF\\xFE.scope");
	json_decref(root);
	run_result_fini(&r);
	unlink(path);
}

/* check-config --host holds the record file and the textfile to this host and to the shipped systemd
 * unit: a path under a directory that is missing here, and one outside the directories the unit lets
 * mpamd write, are each a warning saying what to do; a path in the unit's own state directory is fine
 * even before the unit has made it. Without --host (a file checked anywhere) neither is said. */
static void test_host_checks_where_files_go(void **state)
{
	char path[] = "/tmp/mpamd-check-outputs-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	(void)state;
	assert_non_null(f);
	fputs("[global]\nbackend = sim\nrecord = /nonexistent-mpamd-dir/run.csv\n"
	      "metrics_textfile = /var/lib/mpamd/mpamd.prom\n[partition \"web\"]\n",
	      f);
	fclose(f);
	struct run_result r = run(MPAMCTL, "check-config", "--host", path);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(strstr(r.err, "warning: record = /nonexistent-mpamd-dir/run.csv: mpamd cannot write it on "
				      "this host: directory /nonexistent-mpamd-dir does not exist"));
	assert_non_null(strstr(r.err, "warning: record = /nonexistent-mpamd-dir/run.csv: outside the directories the "
				      "shipped systemd unit lets mpamd write (/var/lib/mpamd, /run/mpamd, "
				      "/var/lib/prometheus/node-exporter, /var/lib/node_exporter/textfile_collector): "
				      "under it, add ReadWritePaths= for its directory (systemctl edit mpamd)"));
	assert_null(strstr(r.err, "metrics_textfile"));
	run_result_fini(&r);

	r = run(MPAMCTL, "check-config", path, NULL);
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(r.err, "");
	run_result_fini(&r);
	unlink(path);
}

/* A config in a temporary file, checked with `flag` (NULL: none); the run's result. */
static struct run_result check_text(const char *text, const char *flag)
{
	char path[] = "/tmp/mpamd-check-overcommit-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	struct run_result r =
		flag ? run(MPAMCTL, "check-config", flag, path) : run(MPAMCTL, "check-config", path, NULL);
	unlink(path);
	return r;
}

#define SIM_20000	     "[global]\nbackend = sim\n[sim]\nmscs = 1\ncapacity_mbps = 20000\n"
#define LC(name, key, value) "[partition \"" name "\"]\nclass = latency-critical\n" key " = " value "\n"

/* Guarantees, targets and mb_min over a domain are each a warning naming the partitions, the sum and
 * the capacity, from the file alone and with --host, in the JSON warnings too; ones that fit say
 * nothing. The exit code stays 0: the file is valid. */
static void test_overcommit_is_a_warning(void **state)
{
	static const char over[] = SIM_20000 LC("db", "guarantee_mbps", "12000")
		LC("web", "guarantee_mbps",
		   "10000") "[partition \"a\"]\ntarget_mbps = 15000\nmb_min = 60\n[partition \"b\"]\ntarget_mbps = "
			    "9000\nmb_min = 50\n";
	static const char fits[] = SIM_20000 LC("db", "guarantee_mbps", "8000")
		LC("web", "guarantee_mbps", "10000") "[partition \"a\"]\ntarget_mbps = 1000\nmb_min = 40\n";
	static const char *const said[] = {
		"warning: guarantee_mbps of db 12000, web 10000 sum to 22000 MB/s on domain 0, over its capacity of "
		"20000 MB/s ([sim] capacity_mbps): not all can be met",
		"warning: target_mbps of a 15000, b 9000 sum to 24000 MB/s on domain 0, over its capacity of 20000 "
		"MB/s",
		"warning: mb_min of a 60%, b 50% sum to 110% on domain 0, over 100%",
	};

	(void)state;
	for (int host = 0; host < 2; host++) {
		struct run_result r = check_text(over, host ? "--host" : NULL);
		assert_int_equal(r.exit_code, 0);
		for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++)
			if (!strstr(r.err, said[i]))
				fail_msg("%s lacks '%s':\n%s", host ? "--host" : "plain", said[i], r.err);
		run_result_fini(&r);
		r = check_text(fits, host ? "--host" : NULL);
		assert_int_equal(r.exit_code, 0);
		assert_null(strstr(r.err, "warning"));
		run_result_fini(&r);
	}
	struct run_result r = check_text(over, "--json");
	json_t *root = json_loads(r.out, 0, NULL);
	assert_non_null(root);
	assert_int_equal(json_array_size(json_object_get(root, "warnings")), 3);
	assert_non_null(strstr(
		json_string_value(json_object_get(json_array_get(json_object_get(root, "warnings"), 1), "message")),
		"guarantee_mbps of db 12000, web 10000 sum to 22000 MB/s"));
	json_decref(root);
	run_result_fini(&r);
}

/* Guarantees and targets that each fit alone but not together are one warning naming both; guarantees
 * or targets over alone are warned of as such, and not again together. */
static void test_guarantees_with_targets_over(void **state)
{
	static const char over[] =
		SIM_20000 LC("db", "guarantee_mbps", "6000") "[partition \"a\"]\ntarget_mbps = "
							     "10000\n[partition \"b\"]\ntarget_mbps = 5000\n";

	(void)state;
	for (int host = 0; host < 2; host++) {
		struct run_result r = check_text(over, host ? "--host" : NULL);
		const char *said = strstr(r.err, "warning: guarantee_mbps and target_mbps of db 6000, a 10000, b 5000 "
						 "sum to 21000 MB/s on domain 0, over its capacity of 20000 MB/s");
		assert_int_equal(r.exit_code, 0);
		if (!said)
			fail_msg("%s: no warning of guarantees with targets:\n%s", host ? "--host" : "plain", r.err);
		assert_null(strstr(said + 1, "warning"));
		assert_null(strstr(r.err, "warning: guarantee_mbps of"));
		assert_null(strstr(r.err, "warning: target_mbps of"));
		assert_non_null(strstr(said, "serves the guarantees first"));
		run_result_fini(&r);
	}
}

/* Partitions on different simulated MSCs do not add up; on one they do. Away from the simulator, the
 * file alone tells one domain's capacity: partitions sharing one domain is what it can check. */
static void test_overcommit_by_domain(void **state)
{
	static const char apart[] = "[global]\nbackend = sim\n[sim]\nmscs = 2\ncapacity_mbps = 20000\n" LC(
		"db", "guarantee_mbps", "12000") "sim_domains = 0\n" LC("web", "guarantee_mbps",
									"10000") "sim_domains = 1\n";
	static const char together[] = "[global]\nbackend = sim\n[sim]\nmscs = 2\ncapacity_mbps = 20000\n" LC(
		"db", "guarantee_mbps", "12000") "sim_domains = 1\n" LC("web", "guarantee_mbps",
									"10000") "sim_domains = 1\n";
	static const char resctrl[] =
		"[global]\nbackend = resctrl\ncapacity_mbps = 20000\n" LC("db", "guarantee_mbps", "12000")
			LC("web", "guarantee_mbps", "10000") "[partition \"x\"]\nmb_min = "
							     "70,3=10\n[partition \"y\"]\nmb_min = 50\n";

	(void)state;
	struct run_result r = check_text(apart, NULL);
	assert_null(strstr(r.err, "warning"));
	run_result_fini(&r);
	r = check_text(together, NULL);
	assert_non_null(strstr(r.err, "sum to 22000 MB/s on domain 1, over its capacity of 20000 MB/s"));
	run_result_fini(&r);
	r = check_text(resctrl, NULL);
	assert_non_null(
		strstr(r.err, "warning: guarantee_mbps of db 12000, web 10000 sum to 22000 MB/s, over "
			      "capacity_mbps = 20000 (MB/s a domain): where they share one domain not all can be met"));
	assert_non_null(strstr(r.err, "warning: mb_min of x 70%, y 50% sum to 120% on every domain no mb_min names"));
	assert_null(strstr(r.err, "on domain 3")); /* 10% + 50% there */
	run_result_fini(&r);
}

static void test_missing_file_and_usage_errors(void **state)
{
	(void)state;
	expect_run(ARGV(MPAMCTL, "check-config", "/nonexistent/mpamd.ini"), 1,
		   "/nonexistent/mpamd.ini: error: cannot open: No such file or directory");
	expect_run(ARGV(MPAMCTL, "check-config"), 2, "expected exactly one FILE");
	expect_run(ARGV(MPAMCTL, "check-config", "--bogus", "x.ini"), 2, NULL);
	expect_run(ARGV(MPAMCTL, "frobnicate"), 2, "unknown command 'frobnicate'");
	expect_run(ARGV(MPAMCTL), 2, NULL);
}

static void test_help_texts(void **state)
{
	(void)state;
	expect_run(ARGV(MPAMCTL, "--help"), 0, "check-config");
	expect_run(ARGV(MPAMCTL, "check-config", "--help"), 0, "Usage: mpamctl check-config [--host] [--json] FILE");
	expect_run(ARGV(MPAMD, "--help"), 0, "Usage: mpamd");
}

static void test_every_example_config_passes(void **state)
{
	size_t count = 0;
	char **files = list_files(MPAMD_SOURCE_DIR "/etc", ".ini", &count);

	(void)state;
	assert_true(count >= 4); /* one per backend and the demo */
	for (size_t i = 0; i < count; i++) {
		struct run_result r = run(MPAMCTL, "check-config", files[i], NULL);
		/* The installed default manages nothing until partitions are added, and says so. */
		bool is_default = strstr(files[i], "/etc/mpamd.ini") != NULL;
		const char *warning = strstr(r.err, "warning");
		bool expected = is_default
					? warning && strstr(r.err, "no [partition") && !strstr(warning + 1, "warning")
					: !warning;
		if (r.exit_code != 0 || !expected)
			fail_msg("%s: exit %d\n%s", files[i], r.exit_code, r.err);
		run_result_fini(&r);
	}
	free_file_list(files, count);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_file_prints_summary),
		cmocka_unit_test(test_invalid_file_lists_every_error),
		cmocka_unit_test(test_json_valid_and_invalid),
		cmocka_unit_test(test_json_errors_with_every_byte),
		cmocka_unit_test(test_host_checks_where_files_go),
		cmocka_unit_test(test_overcommit_is_a_warning),
		cmocka_unit_test(test_guarantees_with_targets_over),
		cmocka_unit_test(test_overcommit_by_domain),
		cmocka_unit_test(test_missing_file_and_usage_errors),
		cmocka_unit_test(test_help_texts),
		cmocka_unit_test(test_every_example_config_passes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
