/* The kernel lane's transcript tool: scenarios run on a plain directory tree (what each operation
 * records, pids by name), and the comparison that holds resctrl-emu to the kernel (what a
 * known-differences entry excuses and what it does not). */
#include <errno.h>
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

#include "scenario.h"
#include "transcript.h"
#include "transcript_compare.h"
#include "tests/util/testutil.h"

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char *value_of(const struct transcript *t, const char *key)
{
	const struct transcript_line *l = transcript_find(t, key);

	return l ? l->value : "(absent)";
}

/* Runs `scenario` on `root` for profile intel; returns scenario_run's result. */
static int run_text(const char *root, const char *scenario, struct transcript *t, char *errors, size_t len)
{
	FILE *in = fmemopen((void *)scenario, strlen(scenario), "r");
	FILE *err = fmemopen(errors, len, "w");

	assert_non_null(in);
	assert_non_null(err);
	transcript_init(t);
	int r = scenario_run(in, "test.scn", root, "intel", 0, t, err);
	fclose(in);
	fclose(err);
	return r;
}

static void make_tree(char *dir)
{
	char path[128];

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/info", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/info/last_cmd_status", dir);
	write_file(path, "ok\n");
	snprintf(path, sizeof(path), "%s/schemata", dir);
	write_file(path, "L3:0=7ff\n\tMB:0=100\n");
	snprintf(path, sizeof(path), "%s/size", dir);
	write_file(path, "MB:0=2\nL3:0=1\n");
}

static void test_scenario_records_each_operation(void **state)
{
	char dir[] = "/tmp/transcript-test-XXXXXX", errors[512] = "";
	struct transcript t;

	(void)state;
	make_tree(dir);
	const char *scenario = "# a comment\n"
			       "read schemata\n"
			       "read missing\n"
			       "[amd] read schemata\n"
			       "[intel,amd] ls .\n"
			       "mkdir g1\n"
			       "mkdir g1\n"
			       "write schemata \"L3:0=f\\n\"\n"
			       "readall info\n"
			       "sleep 1\n"
			       "rename g1 g2\n"
			       "rename g1 g3\n"
			       "rmdir g2\n"
			       "sorted size\n";
	assert_int_equal(run_text(dir, scenario, &t, errors, sizeof(errors)), 0);
	assert_string_equal(value_of(&t, "2 read schemata"), "L3:0=7ff\\n\\tMB:0=100\\n");
	assert_string_equal(value_of(&t, "3 read missing"), "!ENOENT");
	assert_string_equal(value_of(&t, "4 read schemata"), "(absent)"); /* another profile's line */
	assert_string_equal(value_of(&t, "5 ls ."), "info/ schemata size");
	assert_string_equal(value_of(&t, "6 mkdir g1"), "ok");
	assert_string_equal(value_of(&t, "6 status g1 (mkdir)"), "ok\\n");
	assert_string_equal(value_of(&t, "7 mkdir g1"), "!EEXIST");
	assert_string_equal(value_of(&t, "8 write schemata \"L3:0=f\\n\""), "ok");
	assert_string_equal(value_of(&t, "8 status schemata \"L3:0=f\\n\""), "ok\\n");
	assert_string_equal(value_of(&t, "9 ls info"), "last_cmd_status");
	assert_string_equal(value_of(&t, "9 read info/last_cmd_status"), "ok\\n");
	assert_string_equal(value_of(&t, "11 rename g1 g2"), "ok");
	assert_string_equal(value_of(&t, "11 status g1 g2"), "ok\\n");
	assert_string_equal(value_of(&t, "12 rename g1 g3"), "!ENOENT"); /* g1 is g2 now */
	assert_string_equal(value_of(&t, "13 rmdir g2"), "ok");
	assert_string_equal(value_of(&t, "14 sorted size"), "L3:0=1\\nMB:0=2\\n");
	transcript_fini(&t);
	remove_tree(dir);
}

static void test_scenario_names_pids(void **state)
{
	char dir[] = "/tmp/transcript-test-XXXXXX", errors[512] = "", path[128];
	struct transcript t;

	(void)state;
	make_tree(dir);
	snprintf(path, sizeof(path), "%s/tasks", dir);
	write_file(path, "");
	/* A plain file keeps only the last write: the tasks file then holds a's pid alone, and the
	 * status file (written by the scenario) holds a kernel-style message naming b. */
	const char *scenario = "spawn a\n"
			       "spawn b\n"
			       "write tasks \"$b\"\n"
			       "write info/last_cmd_status \"No task $b\\nInvalid pid 7\\n\"\n"
			       "write tasks \"$a\\n1\\n\"\n"
			       "read tasks\n"
			       "reap b\n";
	assert_int_equal(run_text(dir, scenario, &t, errors, sizeof(errors)), 0);
	assert_string_equal(value_of(&t, "4 status info/last_cmd_status \"No task $b\\nInvalid pid 7\\n\""),
			    "No task $b\\nInvalid pid 7\\n");
	assert_string_equal(value_of(&t, "6 read tasks"), "$a\\n$other\\n");
	transcript_fini(&t);
	remove_tree(dir);
}

static void test_scenario_rejects_what_it_cannot_run(void **state)
{
	static const char *const bad[] = { "frobnicate x\n",
					   "write schemata unquoted\n",
					   "write tasks \"$nobody\"\n",
					   "[intel read schemata\n",
					   "read\n",
					   "rename g1\n",
					   "rename g1 g2 g3\n",
					   "sleep soon\n",
					   "sleep 60001\n" };
	char dir[] = "/tmp/transcript-test-XXXXXX", errors[512];
	struct transcript t;

	(void)state;
	make_tree(dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errors[0] = '\0';
		assert_int_equal(run_text(dir, bad[i], &t, errors, sizeof(errors)), -EINVAL);
		assert_non_null(strstr(errors, "test.scn:1: cannot run"));
		transcript_fini(&t);
	}
	remove_tree(dir);
}

/* -------- comparison -------- */

static void add_lines(struct transcript *t, const char *const *lines)
{
	transcript_init(t);
	for (size_t i = 0; lines[i]; i += 2)
		assert_int_equal(transcript_add(t, lines[i], lines[i + 1]), 0);
}

static void read_known(const char *text, struct known_list *k)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	assert_int_equal(known_list_read(in, "known", k, stderr), 0);
	fclose(in);
}

/* Compares and returns the counts; the report in out. */
static struct compare_counts compare(const char *const *kernel_lines, const char *const *emu_lines, const char *known,
				     const char *scope, char *out, size_t len)
{
	struct transcript kernel, emu;
	struct known_list k;
	struct compare_counts c;
	FILE *f = fmemopen(out, len, "w");

	add_lines(&kernel, kernel_lines);
	add_lines(&emu, emu_lines);
	read_known(known, &k);
	transcript_compare(&kernel, &emu, &k, scope, f, &c);
	fclose(f);
	transcript_fini(&kernel);
	transcript_fini(&emu);
	known_list_fini(&k);
	return c;
}

static const char *const kernel_side[] = { "1 read info/L3/cbm_mask",
					   "7ff\\n",
					   "2 read mon_data/mon_L3_00/mbm_total_bytes",
					   "0\\n",
					   "3 write g1/schemata \"L3:0=5\\n\"",
					   "!EINVAL",
					   "3 status g1/schemata \"L3:0=5\\n\"",
					   "The mask 5 has non-consecutive 1-bits\\n",
					   "4 ls info/L3_MON",
					   "event_configs/ num_rmids",
					   NULL };

static void test_compare_same(void **state)
{
	char out[1024] = "";

	(void)state;
	struct compare_counts c = compare(kernel_side, kernel_side, "", "7.2.13/intel", out, sizeof(out));
	assert_int_equal(c.same, 5);
	assert_int_equal(c.known + c.unexpected + c.stale, 0);
	assert_string_equal(out, "");
}

static const char *const emu_side[] = { "1 read info/L3/cbm_mask",
					"7ff\\n",
					"2 read mon_data/mon_L3_00/mbm_total_bytes",
					"123456\\n",
					"3 write g1/schemata \"L3:0=5\\n\"",
					"ok",
					"3 status g1/schemata \"L3:0=5\\n\"",
					"ok\\n",
					"5 read info/L3_MON/extra",
					"1\\n",
					NULL };

static void test_compare_reports_every_unlisted_difference(void **state)
{
	char out[2048] = "";

	(void)state;
	struct compare_counts c = compare(kernel_side, emu_side, "", "7.2.13/intel", out, sizeof(out));
	assert_int_equal(c.same, 1);
	assert_int_equal(c.unexpected, 5); /* counter, write, status, and a line only on each side */
	assert_non_null(strstr(out, "DIFF 3 write g1/schemata \"L3:0=5\\n\"\n  kernel:   !EINVAL\n  emulator: ok\n"));
	assert_non_null(
		strstr(out, "DIFF 4 ls info/L3_MON\n  kernel:   event_configs/ num_rmids\n  emulator: (absent)"));
	assert_non_null(strstr(out, "DIFF 5 read info/L3_MON/extra\n  kernel:   (absent)\n  emulator: 1\\n"));
}

static void test_compare_excuses_only_listed_differences(void **state)
{
	const char *known = "# scope op path reason\n"
			    "*  read  *mon_data/*  counters: TCG reads 0\n"
			    "*/intel  *  g1/schemata*  emulator: the kernel refuses non-consecutive masks\n"
			    "*  *  info/L3_MON  a path without a glob is that path alone\n"
			    "7.3*/*  ls  info/L3_MON  only on 7.3\n"
			    "*/amd  read  info/L3_MON/extra  amd only\n";
	char out[2048] = "";

	(void)state;
	struct compare_counts c = compare(kernel_side, emu_side, known, "7.2.13/intel", out, sizeof(out));
	assert_int_equal(c.known, 4);	   /* the counter, the write, its status, the ls */
	assert_int_equal(c.unexpected, 1); /* info/L3_MON/extra: "info/L3_MON" is that path alone */
	assert_int_equal(c.stale, 0);	   /* the other entries are for other scopes */
	assert_non_null(strstr(out, "known (1) read *mon_data/*: counters: TCG reads 0\n"));
	assert_non_null(strstr(out, "known (2) * g1/schemata*: emulator: the kernel refuses non-consecutive masks\n"));
	assert_null(strstr(out, "DIFF 3"));
	assert_non_null(strstr(out, "DIFF 5 read info/L3_MON/extra"));

	c = compare(kernel_side, kernel_side, known, "7.3-rc7/amd", out, sizeof(out));
	assert_int_equal(c.unexpected, 0);
	assert_int_equal(c.stale, 4); /* listed for this scope, did not differ */
	assert_non_null(strstr(out, "note: known difference at line 5 (ls info/L3_MON) did not occur for 7.3-rc7/amd"));
}

static void test_known_list_rejects_incomplete_entries(void **state)
{
	static const char *const bad[] = { "* read info/x\n", "* chmod info/x reason\n", "*\n" };
	char errors[256];
	struct known_list k;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *in = fmemopen((void *)bad[i], strlen(bad[i]), "r");
		FILE *err = fmemopen(errors, sizeof(errors), "w");
		assert_int_equal(known_list_read(in, "kd", &k, err), -EINVAL);
		fclose(err);
		fclose(in);
		assert_non_null(strstr(errors, "kd:1: expected SCOPE OP PATH REASON"));
	}
}

static void test_transcript_round_trip(void **state)
{
	char buf[512];
	struct transcript t, back;

	(void)state;
	add_lines(&t, kernel_side);
	FILE *out = fmemopen(buf, sizeof(buf), "w");
	transcript_write(&t, out);
	fclose(out);
	FILE *in = fmemopen(buf, strlen(buf), "r");
	transcript_init(&back);
	assert_int_equal(transcript_read(in, &back), 0);
	fclose(in);
	assert_int_equal(back.count, t.count);
	for (size_t i = 0; i < t.count; i++) {
		assert_string_equal(back.lines[i].key, t.lines[i].key);
		assert_string_equal(back.lines[i].value, t.lines[i].value);
	}
	char *escaped = transcript_escape("a\tb\\c\n\x01", 7);
	assert_string_equal(escaped, "a\\tb\\\\c\\n\\x01");
	free(escaped);
	transcript_fini(&t);
	transcript_fini(&back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario_records_each_operation),
		cmocka_unit_test(test_scenario_names_pids),
		cmocka_unit_test(test_scenario_rejects_what_it_cannot_run),
		cmocka_unit_test(test_compare_same),
		cmocka_unit_test(test_compare_reports_every_unlisted_difference),
		cmocka_unit_test(test_compare_excuses_only_listed_differences),
		cmocka_unit_test(test_known_list_rejects_incomplete_entries),
		cmocka_unit_test(test_transcript_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
