/* The record file reader: columns by name, RFC 4180 quoting, and an error naming FILE:LINE for
 * every way a file can be wrong. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

#include "core/report/record.h"
#include "core/report/record_read.h"

#define HEADER "t_ms,partition,mbps,mb_max,mb_min,valid,estimated,event\n"

static int read_text(const char *text, struct record_file **ret, struct err *err)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(in);
	int r = record_file_new_from_stream(in, "run.csv", ret, err);
	fclose(in);
	return r;
}

/* The text must fail with exactly `message`. */
static void expect_error(const char *text, const char *message)
{
	struct record_file *file = NULL;
	struct err err = { "" };

	int r = read_text(text, &file, &err);
	if (r >= 0)
		fail_msg("accepted:\n%s", text);
	assert_null(file);
	assert_string_equal(err.text, message);
}

static void test_good_file(void **state)
{
	struct record_file *file;
	struct err err;

	(void)state;
	assert_int_equal(read_text("t_ms,partition,mbps,mb_max,mb_min,valid,estimated,event,sim_mbps\n"
				   "0,web,1234.5,100,20,1,0,,1230.0\n"
				   "0,batch,,40,0,0,0,\"throttle: victim \"\"web\"\", squeezed, 2 steps\",0.0\n"
				   "100,web,1e3,100,20,1,1,guard,1000\n",
				   &file, &err),
			 0);
	assert_int_equal(file->sample_count, 3);
	assert_int_equal(file->partition_count, 2);
	assert_string_equal(file->partitions[0], "web");
	assert_string_equal(file->partitions[1], "batch");
	assert_true(file->columns & RECORD_HAS_SIM);
	assert_false(file->columns & (RECORD_HAS_DOMAIN | RECORD_HAS_GUARANTEE | RECORD_HAS_TARGET));

	const struct record_sample *s = file->samples;
	assert_int_equal(s[0].t_ms, 0);
	assert_int_equal(s[0].partition, 0);
	assert_int_equal(s[0].flags, RECORD_MBPS | RECORD_VALID | RECORD_SIM);
	assert_true(s[0].mbps == 1234.5 && s[0].mb_max == 100 && s[0].mb_min == 20 && s[0].sim_mbps == 1230);
	assert_null(s[0].event);

	assert_int_equal(s[1].partition, 1);
	assert_int_equal(s[1].flags, RECORD_SIM); /* empty mbps: not measured, not 0 */
	assert_string_equal(s[1].event, "throttle: victim \"web\", squeezed, 2 steps");
	assert_true(s[1].mb_max == 40);

	assert_int_equal(s[2].t_ms, 100);
	assert_true(s[2].mbps == 1000);
	assert_true(s[2].flags & RECORD_ESTIMATED);
	assert_string_equal(s[2].event, "guard");
	assert_int_equal(record_file_find_partition(file, "batch"), 1);
	assert_int_equal(record_file_find_partition(file, "nope"), -1);
	record_file_free(file);
}

/* What core/report/record.c writes reads back the same. */
static void test_reads_what_the_writer_writes(void **state)
{
	char path[] = "/tmp/mpamd-record-read-XXXXXX";
	struct record *rec;
	struct record_file *file;
	struct err err;

	(void)state;
	close(mkstemp(path));
	assert_int_equal(record_new(path, &(struct record_options){ 0 }, &rec, &err), 0);
	struct record_row row = { .t_ms = 5,
				  .time_ms = 1796292942123,
				  .partition = "web",
				  .valid = true,
				  .mbps = 42.5,
				  .mb_max = 80,
				  .guarantee_mbps = 6000,
				  .target_mbps = 2500 };
	record_write(rec, &row);
	row = (struct record_row){
		.t_ms = 10, .time_ms = 1796292942128, .partition = "web", .mb_max = 70, .event = "a,b\n\"c\""
	};
	record_write(rec, &row);
	row = (struct record_row){ .t_ms = 15, .time_ms = 1796292942133, .partition = "web", .no_limits = true };
	record_write(rec, &row); /* a failed partition: no limit in force, which is not 0% */
	row = (struct record_row){
		.t_ms = 15, .time_ms = 1796292942133, .partition = "web", .domain = "1", .no_limits = true
	};
	record_write(rec, &row); /* and on its domain 1 */
	assert_int_equal(record_free(rec, &err), 0);
	char *text = read_text_file(path);
	assert_non_null(strstr(text, ",web,*,42.5,80,0,,6000.0,2500.0,1,0,"));
	assert_non_null(strstr(text, ",web,*,,,,,,,0,0,")); /* no goals: empty, never 0 */
	assert_non_null(strstr(text, ",web,1,,,,,,,0,0,"));
	free(text);

	assert_int_equal(record_file_new(path, &file, &err), 0);
	assert_int_equal(file->sample_count, 4);
	assert_int_equal(file->samples[2].flags, RECORD_NO_LIMITS);
	assert_int_equal(file->samples[2].domain, 0); /* "*": the total */
	assert_string_equal(file->domains[file->samples[3].domain], "1");
	assert_true(file->samples[0].mbps == 42.5);
	assert_int_equal(file->samples[0].flags, RECORD_MBPS | RECORD_VALID | RECORD_GUARANTEE | RECORD_TARGET);
	assert_true(file->samples[0].guarantee_mbps == 6000 && file->samples[0].target_mbps == 2500);
	assert_int_equal(file->samples[1].flags, 0);
	assert_string_equal(file->samples[1].event, "a,b\n\"c\"");
	assert_true(file->columns & RECORD_HAS_TIME);
	assert_true(file->samples[0].time_ms == 1796292942123 && file->samples[1].time_ms == 1796292942128);
	record_file_free(file);
	unlink(path);
}

/* Columns in another order, unknown columns, a domain column, guarantee and target, CRLF. */
static void test_columns_by_name(void **state)
{
	struct record_file *file;
	struct err err;

	(void)state;
	assert_int_equal(read_text("time,domain,partition,t_ms,mb_min,mb_max,mbps,ipc,guarantee_mbps,target_mbps\r\n"
				   "2026-01-01T00:00:00.100Z,*,web,100,10,90,500,1.2,6000,\r\n"
				   "2026-01-01T00:00:00.100Z,0,web,100,10,90,250,1.2,6000,\r\n"
				   "2026-01-01T00:00:00.100Z,1,web,100,10,90,250,1.2,6000,\r\n"
				   "2026-01-01T00:00:00.100Z,,batch,100,0,50,300,0.8,,2500\r\n"
				   "2026-01-01T00:00:00.100Z,1,batch,100,0,50,300,0.8,,2500\r\n",
				   &file, &err),
			 0);
	assert_int_equal(file->sample_count, 5);
	assert_true(file->columns & RECORD_HAS_DOMAIN);
	assert_true(file->columns & RECORD_HAS_GUARANTEE);
	assert_true(file->columns & RECORD_HAS_TARGET);
	assert_false(file->columns & (RECORD_HAS_VALID | RECORD_HAS_EVENT));
	assert_int_equal(file->domain_count, 3);
	assert_string_equal(file->domains[1], "0");
	assert_string_equal(file->domains[2], "1");
	const struct record_sample *s = file->samples;
	assert_int_equal(s[0].domain, 0);
	assert_int_equal(s[1].domain, 1);
	assert_int_equal(s[2].domain, 2);
	assert_int_equal(s[3].domain, 0);
	assert_int_equal(s[4].domain, 2);
	/* no valid column: a sample with a rate is valid */
	assert_int_equal(s[0].flags, RECORD_MBPS | RECORD_VALID | RECORD_GUARANTEE);
	assert_true(s[0].t_ms == 100 && s[0].mb_min == 10 && s[0].mb_max == 90 && s[0].guarantee_mbps == 6000);
	assert_int_equal(s[3].flags, RECORD_MBPS | RECORD_VALID | RECORD_TARGET);
	assert_true(s[3].target_mbps == 2500);
	/* the time column: RFC 3339, checked */
	assert_true(file->columns & RECORD_HAS_TIME);
	assert_true(s[0].time_ms == 1767225600100 && s[4].time_ms == s[0].time_ms);
	record_file_free(file);
}

static void test_empty_lines_and_header_only(void **state)
{
	struct record_file *file;
	struct err err;

	(void)state;
	assert_int_equal(read_text(HEADER "\n0,web,1,100,0,1,0,\n\n", &file, &err), 0);
	assert_int_equal(file->sample_count, 1);
	record_file_free(file);
	assert_int_equal(read_text(HEADER, &file, &err), 0);
	assert_int_equal(file->sample_count, 0);
	assert_int_equal(file->partition_count, 0);
	record_file_free(file);
	/* no newline at the end of the last line */
	assert_int_equal(read_text(HEADER "0,web,1,100,0,1,0,\"x\"", &file, &err), 0);
	assert_string_equal(file->samples[0].event, "x");
	record_file_free(file);
}

/* A row cut short (mpamd stopped while writing it) is skipped and counted, wherever it is. */
static void test_cut_rows_skipped(void **state)
{
	struct record_file *file;
	struct err err;

	(void)state;
	assert_int_equal(read_text(HEADER "0,web,1,100,0,1,0,\n0,web,1,100\n5,web,2,100,0,1,0,\n100\n", &file, &err),
			 0);
	assert_int_equal(file->sample_count, 2);
	assert_true(file->samples[1].mbps == 2);
	assert_int_equal(file->cut_rows, 2);
	assert_int_equal(file->first_cut_line, 3);
	record_file_free(file);
	/* the last row of a file being written, or of one that was never restarted */
	assert_int_equal(read_text(HEADER "0,web,1,100,0,1,0,\n0,web,1,1", &file, &err), 0);
	assert_int_equal(file->sample_count, 1);
	assert_int_equal(file->cut_rows, 1);
	assert_int_equal(file->first_cut_line, 3);
	record_file_free(file);
	assert_int_equal(read_text(HEADER "0,web,1,100,0,1,0,\n", &file, &err), 0);
	assert_int_equal(file->cut_rows, 0);
	record_file_free(file);
}

/* Runs appended in one file: a new run where t_ms goes back, and a time line by the wall clock
 * that keeps them apart (or t_ms without a time column). */
static void test_runs_and_time_line(void **state)
{
	struct record_file *file;
	struct err err;

	(void)state;
	assert_int_equal(read_text("t_ms,time,partition,mbps,mb_max,mb_min\n"
				   "100,2026-12-03T10:00:00.100Z,web,1,100,0\n"
				   "100,2026-12-03T10:00:00.100Z,batch,1,100,0\n"
				   "200,2026-12-03T10:00:00.200Z,web,1,100,0\n"
				   "100,2026-12-03T10:05:00.100Z,web,1,100,0\n"
				   "300,2026-12-03T10:05:00.300Z,web,1,100,0\n",
				   &file, &err),
			 0);
	assert_int_equal(file->run_count, 2);
	unsigned runs[] = { 0, 0, 0, 1, 1 };
	double seconds[] = { 0.1, 0.1, 0.2, 300.1, 300.3 };
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(file->samples[i].run, runs[i]);
		assert_true(fabs(record_file_seconds(file, &file->samples[i]) - seconds[i]) < 1e-9);
	}
	record_file_free(file);

	/* a t_ms beyond any run, in a damaged file, reads without overflowing the time line */
	assert_int_equal(read_text("t_ms,time,partition,mbps,mb_max,mb_min\n"
				   "18446744073709551615,2026-12-03T10:00:00.100Z,web,1,100,0\n",
				   &file, &err),
			 0);
	assert_true(record_file_seconds(file, &file->samples[0]) == 0);
	record_file_free(file);

	assert_int_equal(read_text(HEADER "100,web,1,100,0,1,0,\n50,web,1,100,0,1,0,\n", &file, &err), 0);
	assert_int_equal(file->run_count, 2);
	assert_true(record_file_seconds(file, &file->samples[1]) == 0.05);
	record_file_free(file);
}

static void test_structure_errors(void **state)
{
	(void)state;
	expect_error("\n\n", "run.csv: empty file: no header line");
	expect_error("t_ms,partition,mbps,valid\n", "run.csv:1: missing required columns 'mb_max', 'mb_min'");
	expect_error("t_ms,partition,mbps,mb_max,valid\n", "run.csv:1: missing required column 'mb_min'");
	expect_error("t_ms,partition,mbps,mb_max,mb_min,mbps\n", "run.csv:1: column 'mbps' appears twice");
	expect_error(HEADER "0,web,1,100,0,1,0,,extra\n", "run.csv:2: too many fields: 9 where the header has 8");
	expect_error(HEADER "0,web,1,100,0,1,0,\"never closed\n1,web,1,100,0,1,0,\n",
		     "run.csv:2: unterminated quoted field");
	expect_error(HEADER "0,web,1,100,0,1,0,ab\"c\n", "run.csv:2: quote inside an unquoted field");
	expect_error(HEADER "0,web,1,100,0,1,0,\"ab\"c\n", "run.csv:2: unexpected character after a closing quote");
	expect_error(HEADER "0,web,1,100,0,1,0,\rx\n", "run.csv:2: carriage return not followed by a line feed");
	/* a line number counts the line breaks inside quotes */
	expect_error(HEADER "0,web,1,100,0,1,0,\"two\nlines\"\n0,web,x,100,0,1,0,\n",
		     "run.csv:4: bad value in column mbps: 'x' (want MB/s, a number >= 0)");
}

static void test_value_errors(void **state)
{
	(void)state;
	expect_error(HEADER "-1,web,1,100,0,1,0,\n",
		     "run.csv:2: bad value in column t_ms: '-1' (want milliseconds, a whole number)");
	expect_error(HEADER "1.5,web,1,100,0,1,0,\n",
		     "run.csv:2: bad value in column t_ms: '1.5' (want milliseconds, a whole number)");
	expect_error(HEADER "99999999999999999999,web,1,100,0,1,0,\n",
		     "run.csv:2: bad value in column t_ms: '99999999999999999999' (want milliseconds, a whole number)");
	expect_error(HEADER "0,,1,100,0,1,0,\n", "run.csv:2: empty partition name");
	expect_error(HEADER "0,web, 1,100,0,1,0,\n",
		     "run.csv:2: bad value in column mbps: ' 1' (want MB/s, a number >= 0)");
	expect_error(HEADER "0,web,nan,100,0,1,0,\n",
		     "run.csv:2: bad value in column mbps: 'nan' (want MB/s, a number >= 0)");
	expect_error(HEADER "0,web,-5,100,0,1,0,\n",
		     "run.csv:2: bad value in column mbps: '-5' (want MB/s, a number >= 0)");
	expect_error(HEADER "0,web,1,150,0,1,0,\n",
		     "run.csv:2: bad value in column mb_max: '150' (want a percentage 0..100)");
	expect_error(HEADER "0,web,1,100,,1,0,\n",
		     "run.csv:2: bad value in column mb_min: '' (want a percentage 0..100)");
	expect_error("t_ms,time,partition,mbps,mb_max,mb_min\n0,2026-12-03T10:15:42.123,web,1,100,0\n",
		     "run.csv:2: bad value in column time: '2026-12-03T10:15:42.123' (want an RFC 3339 time such as "
		     "2026-12-03T10:15:42.123Z)");
	expect_error(
		"t_ms,time,partition,mbps,mb_max,mb_min\n0,2026-12-03T10:15:42.123Z,web,1,100,0\n"
		"100,,web,1,100,0\n",
		"run.csv:3: bad value in column time: '' (want an RFC 3339 time such as 2026-12-03T10:15:42.123Z)");
	expect_error("t_ms,time,partition,mbps,mb_max,mb_min\n0,2026-02-30T10:15:42.123Z,web,1,100,0\n",
		     "run.csv:2: bad value in column time: '2026-02-30T10:15:42.123Z' (want an RFC 3339 time such as "
		     "2026-12-03T10:15:42.123Z)");
	expect_error(HEADER "0,web,1,100,0,yes,0,\n", "run.csv:2: bad value in column valid: 'yes' (want 0 or 1)");
	expect_error(HEADER "0,web,1,100,0,1,2,\n", "run.csv:2: bad value in column estimated: '2' (want 0 or 1)");
	expect_error(HEADER "0,web,1,100,0,1,0,\n0,web,"
			    "12345678901234567890123456789012345678901234567890x,100,0,1,0,\n",
		     "run.csv:3: bad value in column mbps: '1234567890123456789012345678901234567890'... "
		     "(want MB/s, a number >= 0)");
}

static void test_file_errors(void **state)
{
	struct record_file *file = NULL;
	struct err err;

	(void)state;
	assert_int_equal(record_file_new("/nonexistent/run.csv", &file, &err), -ENOENT);
	assert_string_equal(err.text, "cannot open /nonexistent/run.csv: No such file or directory");
	assert_null(file);
}

/* A long run: arrays grow, every row is kept. */
static void test_large_file(void **state)
{
	char path[] = "/tmp/mpamd-record-read-XXXXXX";
	struct record_file *file;
	struct err err;
	enum {
		ROWS = 200000
	};

	(void)state;
	int fd = mkstemp(path);
	FILE *out = fdopen(fd, "w");
	assert_non_null(out);
	fputs(HEADER, out);
	for (unsigned i = 0; i < ROWS; i++)
		fprintf(out, "%u,p%u,%u.5,100,0,1,0,%s\n", i / 10 * 100, i % 10, i, i % 1000 ? "" : "\"e, e\"");
	fclose(out);
	assert_int_equal(record_file_new(path, &file, &err), 0);
	assert_int_equal(file->sample_count, ROWS);
	assert_int_equal(file->partition_count, 10);
	assert_true(file->samples[ROWS - 1].mbps == ROWS - 1 + 0.5);
	assert_int_equal(file->samples[ROWS - 1].t_ms, (ROWS - 1) / 10 * 100);
	assert_string_equal(file->samples[1000].event, "e, e");
	record_file_free(file);
	unlink(path);
}

TEST_MAIN({
	cmocka_unit_test(test_good_file),
	cmocka_unit_test(test_reads_what_the_writer_writes),
	cmocka_unit_test(test_columns_by_name),
	cmocka_unit_test(test_empty_lines_and_header_only),
	cmocka_unit_test(test_cut_rows_skipped),
	cmocka_unit_test(test_runs_and_time_line),
	cmocka_unit_test(test_structure_errors),
	cmocka_unit_test(test_value_errors),
	cmocka_unit_test(test_file_errors),
	cmocka_unit_test(test_large_file),
})
