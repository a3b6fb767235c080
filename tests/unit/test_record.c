/* The record file: header, rows, empty rate for invalid samples, quoting of events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/engine/record.h"
#include "tests/util/record_reader.h"
#include "tests/util/testutil.h"

static void test_rows_and_quoting(void **state)
{
	char path[] = "/tmp/mpamd-record-XXXXXX";
	struct record *rec;
	struct err err;

	(void)state;
	close(mkstemp(path));
	assert_int_equal(record_new(path, &(struct record_options){ .with_truth = true }, &rec, &err), 0);
	struct record_row row = { .t_ms = 100,
				  .time_ms = 1796292942123, /* 2026-12-03T10:15:42.123Z */
				  .partition = "web",
				  .valid = true,
				  .mbps = 1234.56,
				  .mb_max = 80,
				  .has_truth = true,
				  .truth_mbps = 1230 };
	record_write(rec, &row);
	row = (struct record_row){ .t_ms = 200,
				   .time_ms = 1796292942223,
				   .partition = "batch",
				   .valid = false,
				   .mb_max = 40,
				   .mb_min = 5,
				   .event = "throttle: victim \"web\" below 6000, squeezed",
				   .has_truth = true };
	record_write(rec, &row);
	assert_int_equal(record_free(rec, &err), 0);
	char *text = read_text_file(path);
	assert_string_equal(text, "t_ms,time,partition,mbps,mb_max,mb_min,valid,estimated,event,sim_mbps\n"
				  "100,2026-12-03T10:15:42.123Z,web,1234.6,80,0,1,0,,1230.0\n"
				  "200,2026-12-03T10:15:42.223Z,batch,,40,5,0,0,"
				  "\"throttle: victim \"\"web\"\" below 6000, squeezed\",0.0\n");
	free(text);
	/* And what the tests' reader makes of it: the quoted event whole, the empty rate kept apart. */
	struct record_line *rows;
	char header[128];
	assert_int_equal(record_read(path, header, sizeof(header), &rows), 2);
	assert_string_equal(rows[1].event, "throttle: victim \"web\" below 6000, squeezed");
	assert_true(rows[0].has_mbps && !rows[1].has_mbps);
	assert_true(rows[1].sim_mbps == 0.0 && rows[0].sim_mbps == 1230.0);
	assert_true(rows[0].has_time && rows[0].time_ms == 1796292942123 && rows[1].time_ms == 1796292942223);
	free(rows);
	unlink(path);
}

/* The tests' reader checks the time column too, and still reads a file without one. */
static void test_tests_reader_checks_time(void **state)
{
	char path[] = "/tmp/mpamd-record-XXXXXX";
	struct record_line *rows = NULL;
	char header[128];
	FILE *out = fdopen(mkstemp(path), "w");

	(void)state;
	assert_non_null(out);
	fputs("t_ms,time,partition,mbps,mb_max,mb_min,valid,estimated,event\n"
	      "100,2026-12-03T10:15:42.123Z,web,1.0,100,0,1,0,\n"
	      "200,2026-12-03 10:15:42.223Z,web,1.0,100,0,1,0,\n",
	      out);
	fclose(out);
	assert_int_equal(record_read(path, header, sizeof(header), &rows), -1);
	out = fopen(path, "w");
	fputs("t_ms,partition,mbps,mb_max,mb_min,valid,estimated,event\n100,web,1.0,100,0,1,0,\n", out);
	fclose(out);
	assert_int_equal(record_read(path, header, sizeof(header), &rows), 1);
	assert_false(rows[0].has_time);
	assert_int_equal(rows[0].t_ms, 100);
	free(rows);
	unlink(path);
}

static void test_unwritable_path(void **state)
{
	struct record *rec;
	struct err err = { "" };

	(void)state;
	assert_true(record_new("/nonexistent/dir/run.csv", &(struct record_options){ 0 }, &rec, &err) < 0);
	assert_non_null(strstr(err.text, "cannot create record file /nonexistent/dir/run.csv"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_and_quoting),
		cmocka_unit_test(test_tests_reader_checks_time),
		cmocka_unit_test(test_unwritable_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
