/* Where mpamd writes its record file and metrics textfile, and what it says when it cannot: a missing
 * directory, one that is a file, and a read-only file system (what a systemd unit's ProtectSystem=strict
 * makes of every path it does not name), which names the ReadWritePaths= fix; the textfile says so as
 * soon as its path is set (at start-up), once, and the record's open failure says it too. Before, a
 * read-only directory was only "Read-only file system", and the textfile's only at its first write. */
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

#include "core/report/output_path.h"
#include "core/report/record.h"
#include "core/report/textfile.h"
#include "tests/util/engine_util.h"
#include "tests/util/log_capture.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

static char dir[64];
static bool read_only;

static int setup(void **state)
{
	(void)state;
	make_test_dir(dir, sizeof(dir), "output");
	read_only = false;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (read_only)
		read_only_end(dir);
	remove_tree(dir);
	return 0;
}

static void make_read_only(void)
{
	int r = read_only_begin(dir);

	if (r < 0) {
		fprintf(stderr, "cannot make %s read-only here (%s): skipped\n", dir, strerror(-r));
		skip();
	}
	read_only = true;
}

static void test_writable_directory(void **state)
{
	char path[128];
	struct err err = { "" };

	(void)state;
	snprintf(path, sizeof(path), "%s/mpamd.prom", dir);
	assert_int_equal(output_path_check(path, &err), 0);
	assert_int_equal(access(path, F_OK), -1); /* nothing made */
}

static void test_missing_or_not_a_directory(void **state)
{
	char path[160], file[128];
	struct err err = { "" };

	(void)state;
	snprintf(path, sizeof(path), "%s/gone/run.csv", dir);
	assert_int_equal(output_path_check(path, &err), -ENOENT);
	char want[160];
	snprintf(want, sizeof(want), "directory %s/gone does not exist", dir);
	assert_string_equal(err.text, want);

	snprintf(file, sizeof(file), "%s/file", dir);
	write_file(file, "x\n");
	snprintf(path, sizeof(path), "%s/run.csv", file);
	assert_int_equal(output_path_check(path, &err), -ENOTDIR);
	assert_non_null(strstr(err.text, "is not a directory"));
}

/* The message names the directory, the sandbox as the likely cause and the line that fixes it. */
static void assert_names_the_fix(const char *text)
{
	char fix[160];

	snprintf(fix, sizeof(fix), "add ReadWritePaths=%s to it (systemctl edit mpamd)", dir);
	if (!strstr(text, "read-only file system") || !strstr(text, "ProtectSystem=strict") || !strstr(text, fix))
		fail_msg("'%s' does not name the read-only file system and '%s'", text, fix);
}

static void test_read_only_names_the_fix(void **state)
{
	char path[128];
	struct err err = { "" };

	(void)state;
	make_read_only();
	snprintf(path, sizeof(path), "%s/mpamd.prom", dir);
	assert_int_equal(output_path_check(path, &err), -EROFS);
	assert_names_the_fix(err.text);
	char buf[ERR_TEXT_MAX];
	assert_names_the_fix(output_path_error(path, -EROFS, buf, sizeof(buf)));
	assert_string_equal(output_path_error(path, -ENOSPC, buf, sizeof(buf)), strerror(ENOSPC));
}

/* The textfile says it when its path is set, before any write, and its failing writes then add
 * nothing: one line in all. */
static void test_textfile_says_it_at_once(void **state)
{
	char path[128];
	struct textfile tf = { .path = NULL };
	struct log_capture log;
	struct err err = { "" };

	(void)state;
	make_read_only();
	snprintf(path, sizeof(path), "%s/mpamd.prom", dir);
	log_capture_begin(&log);
	assert_int_equal(textfile_set_path(&tf, path, &err), 0);
	unsigned at_once = log_capture_count(&log, (const char *const[]){ "ReadWritePaths=", NULL });
	assert_true(textfile_write(&tf, "x 1\n", 4, &err) < 0);
	assert_true(textfile_write(&tf, "x 1\n", 4, &err) < 0);
	log_capture_end(&log);
	assert_int_equal(at_once, 1);
	assert_int_equal(log_capture_count(&log, (const char *const[]){ "metrics textfile", NULL }), 1);
	assert_int_equal(log_capture_count(&log, (const char *const[]){ path, "ReadWritePaths=", NULL }), 1);
	assert_names_the_fix(err.text); /* the write's own error says it too */
	log_capture_free(&log);
	textfile_fini(&tf);
}

static void test_record_open_names_the_fix(void **state)
{
	char path[128];
	struct record *rec = NULL;
	struct err err = { "" };

	(void)state;
	make_read_only();
	snprintf(path, sizeof(path), "%s/run.csv", dir);
	assert_int_equal(record_new(path, &(struct record_options){ 0 }, &rec, &err), -EROFS);
	assert_non_null(strstr(err.text, path));
	assert_names_the_fix(err.text);
}

/* A configuration `name` in `dir` (written before it is made read-only) naming `key` = `file` in it. */
static void write_config(char *config, size_t len, const char *name, const char *key, const char *file)
{
	snprintf(config, len, "%s/%s", dir, name);
	write_file(config,
		   "[global]\nbackend = sim\ninterval_ms = 20\n%s = %s/%s\n[partition \"batch\"]\nsim_demand = 100\n",
		   key, dir, file);
}

/* mpamd at start-up, and check-config --host, say it before any tick: the textfile's path (mpamd runs
 * on and says it once), the record's (mpamd cannot start and says why). */
static void test_start_up_and_check_config_say_it(void **state)
{
	char textfile_config[96], record_config[96];
	struct run_result r;

	(void)state;
	write_config(record_config, sizeof(record_config), "record.ini", "record", "run.csv");
	write_config(textfile_config, sizeof(textfile_config), "textfile.ini", "metrics_textfile", "mpamd.prom");
	make_read_only();

	assert_int_equal(run_command(ARGV(MPAMD, "-c", textfile_config, "-f", "--no-socket", "--ticks", "3"), &r), 0);
	assert_int_equal(r.exit_code, 0);
	const char *said = strstr(r.err, "metrics textfile: ");
	const char *ready = strstr(r.err, "ready:");
	if (!said || !ready || said > ready)
		fail_msg("not said before the first tick:\n%s", r.err);
	assert_names_the_fix(said);
	assert_null(strstr(said + 1, "metrics textfile: ")); /* once */
	run_result_fini(&r);

	assert_int_equal(run_command(ARGV(MPAMD, "-c", record_config, "-f", "--no-socket", "--ticks", "3"), &r), 0);
	assert_int_equal(r.exit_code, 1);
	assert_non_null(strstr(r.err, "cannot open record file"));
	assert_names_the_fix(r.err);
	run_result_fini(&r);

	assert_int_equal(run_command(ARGV(MPAMCTL, "check-config", "--host", textfile_config), &r), 0);
	assert_int_equal(r.exit_code, 0); /* a warning: the file is valid, and may be run elsewhere */
	assert_non_null(strstr(r.err, "warning: metrics_textfile = "));
	assert_names_the_fix(r.err);
	run_result_fini(&r);
}

TEST_MAIN({
	fixture_test(test_writable_directory),
	fixture_test(test_missing_or_not_a_directory),
	fixture_test(test_read_only_names_the_fix),
	fixture_test(test_textfile_says_it_at_once),
	fixture_test(test_record_open_names_the_fix),
	fixture_test(test_start_up_and_check_config_say_it),
})
