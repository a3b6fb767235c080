/* The record's columns declared once (core/report/record_columns.c): the writer's header is the
 * table's names of the columns its options ask for, in the table's order; every field reads back as
 * it was written; an empty field is what its column says or refused; a header's columns are found by
 * name, twice or missing refused; and a rate of any size is written whole. */
#include <errno.h>
#include <float.h>
#include <limits.h>
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

#include "core/report/record_read.h"
#include "core/base/decimal_text.h"
#include "core/report/record.h"
#include "core/report/record_columns.h"
#include "tests/util/record_reader.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

/* A new record file at `path` (a mkstemp template) holding `rows` as one tick. */
static void write_file(char *path, const struct record_options *opts, const struct record_row *rows, size_t n)
{
	struct record *rec;
	struct err err;

	close(mkstemp(path));
	assert_int_equal(record_new(path, opts, &rec, &err), 0);
	for (size_t i = 0; i < n; i++)
		record_write(rec, &rows[i]);
	assert_int_equal(record_free(rec, &err), 0);
}

/* The first line of a record file written with `opts`. */
static void written_header(const struct record_options *opts, char *buf, size_t len)
{
	char path[] = "/tmp/mpamd-record-columns-XXXXXX";

	write_file(path, opts, NULL, 0);
	char *text = read_text_file(path);
	snprintf(buf, len, "%.*s", (int)strcspn(text, "\n"), text);
	free(text);
	unlink(path);
}

static void test_the_header_is_the_tables(void **state)
{
	(void)state;
	for (unsigned o = 0; o < 8; o++) {
		struct record_options opts = { .with_truth = o & 1, .with_ipc = o & 2, .with_classes = o & 4 };
		char header[256], want[256] = "";
		written_header(&opts, header, sizeof(header));
		for (int c = 0; c < RECORD_COL_COUNT; c++) {
			enum record_written w = record_columns[c].written;
			if (w == RECORD_WRITTEN_ALWAYS || (w == RECORD_WRITTEN_WITH_TRUTH && opts.with_truth) ||
			    (w == RECORD_WRITTEN_WITH_IPC && opts.with_ipc) ||
			    (w == RECORD_WRITTEN_WITH_CLASSES && opts.with_classes))
				snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s", want[0] ? "," : "",
					 record_columns[c].name);
		}
		assert_string_equal(header, want);
	}
	/* and what that is, as mpamd(8) and every file written so far have it */
	char header[256];
	written_header(&(struct record_options){ .with_truth = true, .with_ipc = true }, header, sizeof(header));
	assert_string_equal(
		header, "time,t_ms,partition,domain,mbps,mb_max,mb_min,mb_max_mbps,guarantee_mbps,target_mbps,valid,"
			"estimated,event,sim_mbps,ipc");
	/* and with shared classes, the class and the ceiling asked beside the limits in force */
	written_header(&(struct record_options){ .with_classes = true }, header, sizeof(header));
	assert_string_equal(header, "time,t_ms,partition,domain,mbps,mb_max,mb_min,mb_max_mbps,hw_class,mb_max_asked,"
				    "guarantee_mbps,target_mbps,valid,estimated,event");
}

/* Field text of `v` in column `col`, then read back. */
static struct record_value round_trip(enum record_col col, struct record_value v, char *text, size_t len)
{
	struct record_value back;
	struct err err = { "" };

	size_t n = record_field_format(col, &v, text, len);
	assert_true(n < len);
	assert_int_equal(strlen(text), n);
	if (record_field_parse(col, text, &back, &err) < 0)
		fail_msg("column %s: '%s' does not read back: %s", record_columns[col].name, text, err.text);
	return back;
}

static void test_every_kind_reads_back(void **state)
{
	char text[64];
	struct record_value v;

	(void)state;
	v = round_trip(RECORD_COL_TIME, (struct record_value){ .time_ms = 1796292942123 }, text, sizeof(text));
	assert_string_equal(text, "2026-12-03T10:15:42.123Z");
	assert_true(v.time_ms == 1796292942123);
	v = round_trip(RECORD_COL_T_MS, (struct record_value){ .ms = UINT64_MAX }, text, sizeof(text));
	assert_string_equal(text, "18446744073709551615");
	assert_true(v.ms == UINT64_MAX);
	v = round_trip(RECORD_COL_EVENT, (struct record_value){ .text = "plain" }, text, sizeof(text));
	assert_string_equal(v.text, "plain");
	v = round_trip(RECORD_COL_MBPS, (struct record_value){ .number = 1234.56 }, text, sizeof(text));
	assert_string_equal(text, "1234.6");
	assert_true(v.number == 1234.6 && !v.empty);
	v = round_trip(RECORD_COL_MB_MAX, (struct record_value){ .number = 100 }, text, sizeof(text));
	assert_string_equal(text, "100");
	assert_true(v.number == 100);
	v = round_trip(RECORD_COL_MB_MIN, (struct record_value){ .number = 0 }, text, sizeof(text));
	assert_string_equal(text, "0");
	v = round_trip(RECORD_COL_VALID, (struct record_value){ .number = 1 }, text, sizeof(text));
	assert_string_equal(text, "1");
	assert_true(v.number == 1);
	v = round_trip(RECORD_COL_IPC, (struct record_value){ .number = 1.23456 }, text, sizeof(text));
	assert_string_equal(text, "1.235");
	assert_true(v.number == 1.235);
	v = round_trip(RECORD_COL_HW_CLASS, (struct record_value){ .class_id = 3 }, text, sizeof(text));
	assert_string_equal(text, "c3");
	assert_true(v.class_id == 3 && !v.empty);
	v = round_trip(RECORD_COL_HW_CLASS, (struct record_value){ .class_id = UINT_MAX }, text, sizeof(text));
	assert_string_equal(text, "c4294967295");
	assert_true(v.class_id == UINT_MAX);
	v = round_trip(RECORD_COL_MB_MAX_ASKED, (struct record_value){ .number = 34.375 }, text, sizeof(text));
	assert_string_equal(text, "34.375");
	assert_true(v.number == 34.375);
	/* empty: not measured, no limit, not counted, no event; never a 0 */
	static const enum record_col may_be_empty[] = { RECORD_COL_MBPS,	RECORD_COL_MB_MAX,
							RECORD_COL_IPC,		RECORD_COL_EVENT,
							RECORD_COL_DOMAIN,	RECORD_COL_GUARANTEE_MBPS,
							RECORD_COL_TARGET_MBPS, RECORD_COL_HW_CLASS,
							RECORD_COL_MB_MAX_ASKED };
	for (size_t i = 0; i < sizeof(may_be_empty) / sizeof(may_be_empty[0]); i++) {
		v = round_trip(may_be_empty[i], (struct record_value){ .empty = true, .number = 5 }, text,
			       sizeof(text));
		assert_string_equal(text, "");
		assert_true(v.empty);
	}
}

/* MB/s and IPC are written by hand, not by printf: every figure must still be printf's to the digit,
 * ties (0.25, 0.0625), values just either side of them, tiny, huge, negative and special ones included. */
static void expect_like_printf(enum record_col col, int places, double x)
{
	struct record_value v = { .number = x };
	char got[400], want[400];

	size_t n = record_field_format(col, &v, got, sizeof(got));
	snprintf(want, sizeof(want), "%.*f", places, x);
	if (strcmp(got, want) || n != strlen(want))
		fail_msg("column %s: %a written '%s', printf writes '%s'", record_columns[col].name, x, got, want);
}

static void test_numbers_are_written_as_printf_writes_them(void **state)
{
	static const double special[] = {
		0,	-0.0,	    0.05,   0.15,   0.25,  0.35,   0.45,    0.0625,
		0.0005, 0.0015,	    0.0025, 0.9995, 9.95,  99.95,  1234.55, 4503599627370495.5,
		0x1p52, 0x1p53 - 1, 0x1p53, 1e300,  -1.25, 5e-324, 0x1p-11, 0x1p-12,
		1.0 / 3
	};
	uint64_t seed = 0x9e3779b97f4a7c15u;

	(void)state;
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		for (int d = -2; d <= 2; d++) {
			double x = special[i];
			for (int k = 0; k < (d < 0 ? -d : d); k++)
				x = nextafter(x, d < 0 ? -INFINITY : INFINITY);
			expect_like_printf(RECORD_COL_MBPS, 1, x);
			expect_like_printf(RECORD_COL_IPC, 3, x);
		}
	for (int i = 0; i < 200000; i++) { /* any bit pattern of a finite double from 2^-20 to 2^60 */
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		double x = ldexp((double)(seed >> 11), (int)(seed % 80) - 73);
		expect_like_printf(RECORD_COL_MBPS, 1, x);
		expect_like_printf(RECORD_COL_IPC, 3, x);
		expect_like_printf(RECORD_COL_MBPS, 1, (double)(seed % 10000000) / 20); /* ties at .x5 */
		expect_like_printf(RECORD_COL_IPC, 3, (double)(seed % 10000000) / 2000);
	}
	expect_like_printf(RECORD_COL_MBPS, 1, INFINITY);
	expect_like_printf(RECORD_COL_MBPS, 1, NAN);
}

/* A limit that is not a whole percent reads back exactly, as decimal_text writes it: rungs that are
 * multiples of 1/1024 are written by hand (every one up to 100%, and in too small a buffer), others
 * by decimal_text itself. */
static void expect_percent_like_decimal_text(double x)
{
	struct record_value v = { .number = x };
	char got[64], want[64], small[5];

	size_t n = record_field_format(RECORD_COL_MB_MAX, &v, got, sizeof(got));
	decimal_text(x, want, sizeof(want));
	if (strcmp(got, want) || n != strlen(want))
		fail_msg("%a written '%s', decimal_text writes '%s'", x, got, want);
	assert_int_equal(record_field_format(RECORD_COL_MB_MAX, &v, small, sizeof(small)), n);
	assert_int_equal(strncmp(small, want, sizeof(small) - 1), 0);
}

static void test_percents_are_written_as_decimal_text_writes_them(void **state)
{
	static const double others[] = { 1.0 / 3, 12.3, 0.1, 0x1p-11, 99.9999, 0x1p-30 };

	(void)state;
	for (unsigned n = 1; n <= 100 * 1024; n++)
		if (n % 1024)
			expect_percent_like_decimal_text(n / 1024.0);
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		expect_percent_like_decimal_text(others[i]);
}

/* A quoted field: its quotes counted in the length, and snprintf's contract when it does not fit. */
static void test_text_is_quoted_when_it_must_be(void **state)
{
	struct record_value v = { .text = "a,\"b\"" };
	char text[32], small[4];

	(void)state;
	assert_int_equal(record_field_format(RECORD_COL_EVENT, &v, text, sizeof(text)), 9);
	assert_string_equal(text, "\"a,\"\"b\"\"\"");
	assert_int_equal(record_field_format(RECORD_COL_EVENT, &v, small, sizeof(small)), 9);
	assert_int_equal(strlen(small), 0);
	v.text = "plain text";
	assert_int_equal(record_field_format(RECORD_COL_EVENT, &v, small, sizeof(small)), 10);
	assert_string_equal(small, "pla");
	assert_true(record_domain_is_total("") && record_domain_is_total(RECORD_DOMAIN_TOTAL));
	assert_false(record_domain_is_total("0"));
}

static void expect_refused(enum record_col col, const char *s, const char *message)
{
	struct record_value v;
	struct err err = { "" };

	assert_int_equal(record_field_parse(col, s, &v, &err), -EINVAL);
	assert_string_equal(err.text, message);
}

static void test_fields_a_column_does_not_take(void **state)
{
	(void)state;
	expect_refused(RECORD_COL_T_MS, "", "bad value in column t_ms: '' (want milliseconds, a whole number)");
	expect_refused(RECORD_COL_T_MS, "0x10", "bad value in column t_ms: '0x10' (want milliseconds, a whole number)");
	expect_refused(RECORD_COL_PARTITION, "", "empty partition name");
	expect_refused(RECORD_COL_MB_MAX, "100.5", "bad value in column mb_max: '100.5' (want a percentage 0..100)");
	expect_refused(RECORD_COL_VALID, "", "bad value in column valid: '' (want 0 or 1)");
	expect_refused(RECORD_COL_ESTIMATED, "2", "bad value in column estimated: '2' (want 0 or 1)");
	expect_refused(RECORD_COL_IPC, "-1", "bad value in column ipc: '-1' (want a number >= 0)");
	expect_refused(RECORD_COL_HW_CLASS, "3", "bad value in column hw_class: '3' (want a class such as c3)");
	expect_refused(RECORD_COL_HW_CLASS, "c", "bad value in column hw_class: 'c' (want a class such as c3)");
	expect_refused(RECORD_COL_HW_CLASS, "C3", "bad value in column hw_class: 'C3' (want a class such as c3)");
	expect_refused(RECORD_COL_HW_CLASS, "c-1", "bad value in column hw_class: 'c-1' (want a class such as c3)");
	expect_refused(RECORD_COL_HW_CLASS, "c4294967296",
		       "bad value in column hw_class: 'c4294967296' (want a class such as c3)");
	expect_refused(RECORD_COL_MB_MAX_ASKED, "101",
		       "bad value in column mb_max_asked: '101' (want a percentage 0..100)");
	expect_refused(RECORD_COL_TIME, "2026-12-03 10:15:42Z",
		       "bad value in column time: '2026-12-03 10:15:42Z' (want an RFC 3339 time such as "
		       "2026-12-03T10:15:42.123Z)");
}

static void layout_of(const char *const *names, size_t count, unsigned also, int want_r, const char *message,
		      struct record_layout *l)
{
	struct err err = { "" };

	assert_int_equal(record_layout_read(l, names, count, also, &err), want_r);
	if (message)
		assert_string_equal(err.text, message);
}

static void test_columns_are_found_by_name(void **state)
{
	static const char *const shuffled[] = { "mb_min", "later", "mb_max", "mbps", "partition", "t_ms", "ipc" };
	static const char *const twice[] = { "t_ms", "partition", "mbps", "mb_max", "mb_min", "mbps" };
	static const char *const short_of_two[] = { "t_ms", "partition", "mbps" };
	struct record_layout l;

	(void)state;
	layout_of(shuffled, 7, 0, 0, NULL, &l);
	assert_int_equal(l.fields, 7);
	assert_int_equal(l.at[RECORD_COL_MB_MIN], 0);
	assert_int_equal(l.at[RECORD_COL_T_MS], 5);
	assert_int_equal(l.at[RECORD_COL_IPC], 6);
	assert_int_equal(l.at[RECORD_COL_TIME], -1);
	layout_of(twice, 6, 0, -EINVAL, "column 'mbps' appears twice", &l);
	layout_of(short_of_two, 3, 0, -EINVAL, "missing required columns 'mb_max', 'mb_min'", &l);
	layout_of(shuffled, 7, RECORD_COL_BIT(RECORD_COL_VALID), -EINVAL, "missing required column 'valid'", &l);
}

/* A rate of any size is written whole: it was cut at 31 characters, which read back as another number. */
static void test_a_huge_rate_is_written_whole(void **state)
{
	char path[] = "/tmp/mpamd-record-columns-XXXXXX";
	const struct record_row rows[] = { { .partition = "web", .valid = true, .mbps = 1e40 },
					   { .partition = "web", .valid = true, .mbps = DBL_MAX } };
	struct record_file *file;
	struct err err;

	(void)state;
	write_file(path, &(struct record_options){ 0 }, rows, 2);
	assert_int_equal(record_file_new(path, &file, &err), 0);
	assert_int_equal(file->sample_count, 2);
	assert_true(file->samples[0].mbps == 1e40);
	assert_true(file->samples[1].mbps == DBL_MAX);
	record_file_free(file);
	unlink(path);
}

/* With shared classes: each row's class and the ceiling it asked, empty out of a class; both readers
 * take them, and a file without them (an older one, or classes = own) still reads, in no class. */
static void test_classes_columns_read_back(void **state)
{
	char path[] = "/tmp/mpamd-record-columns-XXXXXX";
	const struct record_row rows[] = {
		{ .partition = "vm1", .mb_max = 50, .in_class = true, .class_id = 3, .mb_max_asked = 60 },
		{ .partition = "vm1", .domain = "1", .mb_max = 50, .in_class = true, .class_id = 3, .mb_max_asked = 55 },
		{ .partition = "vm2", .no_limits = true }, /* failed: in no class */
	};
	char header[256];
	struct record_line *lines;
	struct record_file *file;
	struct err err;

	(void)state;
	for (int classes = 1; classes >= 0; classes--) {
		write_file(path, &(struct record_options){ .with_classes = classes }, rows, 3);
		char *text = read_text_file(path);
		assert_true(!strstr(text, ",vm1,*,,50,0,,c3,60,") == !classes);
		assert_true(!strstr(text, ",vm1,1,,50,0,,c3,55,") == !classes);
		assert_true(!strstr(text, ",vm2,*,,,,,,,,,0,0,") == !classes); /* 8 empty: 2 more than own's */
		assert_true(!strstr(text, "hw_class") == !classes);
		free(text);
		assert_int_equal(record_read_all(path, header, sizeof(header), &lines), 3);
		assert_true(lines[0].in_class == classes && lines[1].in_class == classes);
		assert_true(lines[0].has_mb_max_asked == classes && lines[1].has_mb_max_asked == classes);
		if (classes) {
			assert_int_equal(lines[0].class_id, 3);
			assert_true(lines[0].mb_max_asked == 60 && lines[0].mb_max == 50);
			assert_true(lines[1].mb_max_asked == 55);
		}
		assert_false(lines[2].in_class || lines[2].has_mb_max_asked);
		free(lines);
		assert_int_equal(record_file_new(path, &file, &err), 0);
		assert_int_equal(file->sample_count, 3);
		assert_true(file->samples[0].mb_max == 50);
		record_file_free(file);
		unlink(path);
	}
}

TEST_MAIN({
	cmocka_unit_test(test_the_header_is_the_tables),
	cmocka_unit_test(test_every_kind_reads_back),
	cmocka_unit_test(test_text_is_quoted_when_it_must_be),
	cmocka_unit_test(test_numbers_are_written_as_printf_writes_them),
	cmocka_unit_test(test_percents_are_written_as_decimal_text_writes_them),
	cmocka_unit_test(test_fields_a_column_does_not_take),
	cmocka_unit_test(test_columns_are_found_by_name),
	cmocka_unit_test(test_a_huge_rate_is_written_whole),
	cmocka_unit_test(test_classes_columns_read_back),
})
