/* The record file as a history, with mpamd run as the operator runs it: runs appended under one
 * header. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/util/record_reader.h"
#include "tests/util/testutil.h"

#define HEADER "t_ms,time,partition,mbps,mb_max,mb_min,valid,estimated,event,sim_mbps"

struct files {
	char dir[64];
	char config[96], record[96], log[96];
};

static void make_files(struct files *f)
{
	snprintf(f->dir, sizeof(f->dir), "/tmp/mpamd-history-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->config, sizeof(f->config), "%s/mpamd.ini", f->dir);
	snprintf(f->record, sizeof(f->record), "%s/run.csv", f->dir);
	snprintf(f->log, sizeof(f->log), "%s/mpamd.log", f->dir);
}

/* Everything the test and mpamd left in the directory, then the directory. */
static void remove_files(struct files *f)
{
	size_t count = 0;
	char **files = list_files(f->dir, "", &count);

	for (size_t i = 0; i < count; i++)
		unlink(files[i]);
	free_file_list(files, count);
	assert_int_equal(rmdir(f->dir), 0);
}

static size_t count_text(const char *text, const char *what)
{
	size_t n = 0;

	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

static void run_sim(const struct files *f, const char *ticks)
{
	struct run_result r;
	char *argv[] = { MPAMD,
			 "-c",
			 MPAMD_SOURCE_DIR "/etc/demo.ini",
			 "--foreground",
			 "--no-socket",
			 "--sim-clock",
			 "--ticks",
			 (char *)ticks,
			 "--record",
			 (char *)f->record,
			 NULL };

	assert_int_equal(run_command(argv, &r), 0);
	if (r.exit_code != 0)
		fail_msg("mpamd exited %d:\n%s", r.exit_code, r.err);
	run_result_fini(&r);
}

/* Within one run: t_ms one interval (100 ms) per tick of three partitions, the time in step with it. */
static void check_run(const struct record_line *rows, size_t count)
{
	int64_t start = rows[0].time_ms - (int64_t)rows[0].t_ms;

	for (size_t i = 0; i < count; i++) {
		assert_true(rows[i].has_time);
		assert_int_equal(rows[i].t_ms, (i / 3 + 1) * 100);
		assert_true(rows[i].time_ms - (int64_t)rows[i].t_ms == start);
	}
}

/* Two simulated runs on one file: both runs' rows, in order, under one header. */
static void test_two_runs_append(void **state)
{
	struct files f;
	struct record_line *rows = NULL;
	char header[256];

	(void)state;
	make_files(&f);
	run_sim(&f, "20");
	run_sim(&f, "30");
	char *text = read_text_file(f.record);
	assert_non_null(text);
	assert_int_equal(count_text(text, "t_ms,"), 1);
	free(text);
	assert_int_equal(record_read(f.record, header, sizeof(header), &rows), (20 + 30) * 3);
	assert_string_equal(header, HEADER);
	check_run(rows, 20 * 3);
	check_run(rows + 20 * 3, 30 * 3);
	/* the second run started after the first one did */
	assert_true(rows[60].time_ms - (int64_t)rows[60].t_ms >= rows[0].time_ms - (int64_t)rows[0].t_ms);
	free(rows);
	remove_files(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_runs_append),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
