/* The record file: header, rows, empty rate for invalid samples, quoting of events, the time column,
 * and its life across restarts: appended to under one header, another program's file moved aside,
 * a row cut short ended before the next one, and the size cap rotating between ticks. */
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

#include "core/report/record_read.h"
#include "core/base/log.h"
#include "core/report/record.h"
#include "tests/util/record_reader.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

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
				  .mb_max_mbps = 8000, /* known: written with one decimal */
				  .guarantee_mbps = 6000,
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
	assert_string_equal(text,
			    "time,t_ms,partition,domain,mbps,mb_max,mb_min,mb_max_mbps,guarantee_mbps,target_mbps,"
			    "valid,estimated,event,sim_mbps\n"
			    "2026-12-03T10:15:42.123Z,100,web,*,1234.6,80,0,8000.0,6000.0,,1,0,,1230.0\n"
			    "2026-12-03T10:15:42.223Z,200,batch,*,,40,5,,,,0,0,"
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
	fputs("time,t_ms,partition,domain,mbps,mb_max,mb_min,mb_max_mbps,valid,estimated,event\n"
	      "2026-12-03T10:15:42.123Z,100,web,*,1.0,100,0,1,0,\n"
	      "2026-12-03 10:15:42.223Z,200,web,*,1.0,100,0,1,0,\n",
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

#define COLUMNS \
	"time,t_ms,partition,domain,mbps,mb_max,mb_min,mb_max_mbps,guarantee_mbps,target_mbps,valid,estimated,event"
#define HEADER	   COLUMNS "\n"
#define HEADER_SIM COLUMNS ",sim_mbps\n"
#define T0	   1796292942123ull /* 2026-12-03T10:15:42.123Z */

/* A private directory, so that every file a test leaves (a file moved aside) can be found. */
struct dir {
	char path[64];
	char record[96];
	char rotated[100]; /* record.1: where a rotation at the cap moves the file */
};

static void dir_make(struct dir *d)
{
	make_test_dir(d->path, sizeof(d->path), "record");
	snprintf(d->record, sizeof(d->record), "%s/run.csv", d->path);
	snprintf(d->rotated, sizeof(d->rotated), "%s.1", d->record);
}

/* Removes what is in the directory and the directory; returns how many files it held. */
static size_t dir_remove(struct dir *d)
{
	size_t count = 0;
	char **files = list_files(d->path, "", &count);

	for (size_t i = 0; i < count; i++)
		unlink(files[i]);
	free_file_list(files, count);
	assert_int_equal(rmdir(d->path), 0);
	return count;
}

static void write_text(const char *path, const char *text)
{
	FILE *out = fopen(path, "w");

	assert_non_null(out);
	fputs(text, out);
	assert_int_equal(fclose(out), 0);
}

/* One tick of `partitions` rows at t_ms, its wall-clock time T0 + t_ms. */
static void write_tick(struct record *rec, uint64_t t_ms, unsigned partitions)
{
	static const char *const names[] = { "web", "batch", "tenant", "build" };

	for (unsigned i = 0; i < partitions; i++) {
		struct record_row row = { .t_ms = t_ms,
					  .time_ms = T0 + t_ms,
					  .partition = names[i % 4],
					  .valid = true,
					  .mbps = 1000.0 + i,
					  .mb_max = 100 };
		record_write(rec, &row);
	}
}

static void open_write_close(const char *path, const struct record_options *opts, uint64_t t_ms)
{
	struct record *rec;
	struct err err = { "" };

	if (record_new(path, opts, &rec, &err) < 0)
		fail_msg("record_new: %s", err.text);
	write_tick(rec, t_ms, 1);
	assert_int_equal(record_free(rec, &err), 0);
}

static size_t count_text(const char *text, const char *what)
{
	size_t n = 0;

	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* A restart appends: the header is written once, into the new file only. */
static void test_header_once_over_two_opens(void **state)
{
	struct dir d;
	struct record_options opts = { .now_ms = T0 };

	(void)state;
	dir_make(&d);
	open_write_close(d.record, &opts, 100);
	open_write_close(d.record, &opts, 100); /* the second run's t_ms starts again */
	char *text = read_text_file(d.record);
	assert_string_equal(text, HEADER "2026-12-03T10:15:42.223Z,100,web,*,1000.0,100,0,,,,1,0,\n"
					 "2026-12-03T10:15:42.223Z,100,web,*,1000.0,100,0,,,,1,0,\n");
	free(text);
	/* an empty file (made by logrotate's create, or touch) gets the header too */
	write_text(d.record, "");
	open_write_close(d.record, &opts, 200);
	text = read_text_file(d.record);
	assert_int_equal(strncmp(text, HEADER "2026-", strlen(HEADER) + 5), 0);
	free(text);
	assert_int_equal(dir_remove(&d), 1); /* nothing moved aside */
}

/* A file of an older version or another program is moved aside whole, never appended to or
 * overwritten; a second one moved in the same second gets a name of its own. */
static void test_other_header_moved_aside(void **state)
{
	static const char old[] = "t_ms,partition,mbps,mb_max,mb_min,valid,estimated,event\n"
				  "100,web,1.0,100,0,1,0,\n";
	/* The version before domains: the same columns but for the domain, in another order. */
	static const char before_domains[] = "t_ms,time,partition,mbps,mb_max,mb_min,valid,estimated,event\n"
					     "100,2026-12-03T10:15:42.123Z,web,1.0,100,0,1,0,\n";
	static const char other[] = "date,temperature\n2026-12-01,4\n";
	struct dir d;
	char aside[160], second[160];
	struct record_options opts = { .now_ms = T0 };

	(void)state;
	dir_make(&d);
	snprintf(aside, sizeof(aside), "%s.20261203T101542Z", d.record);
	snprintf(second, sizeof(second), "%s.20261203T101542Z-1", d.record);
	write_text(d.record, old);
	unsigned long warnings = log_count(LOG_LEVEL_WARNING);
	open_write_close(d.record, &opts, 100);
	assert_int_equal(log_count(LOG_LEVEL_WARNING), warnings + 1); /* the log says so */
	char *text = read_text_file(aside);
	assert_non_null(text);
	assert_string_equal(text, old);
	free(text);
	text = read_text_file(d.record);
	assert_int_equal(strncmp(text, HEADER "2026-", strlen(HEADER) + 5), 0);
	assert_int_equal(count_text(text, "\n"), 2);
	free(text);

	write_text(d.record, other);
	open_write_close(d.record, &opts, 100);
	text = read_text_file(second);
	assert_non_null(text);
	assert_string_equal(text, other);
	free(text);
	text = read_text_file(aside); /* the first one is still there, untouched */
	assert_string_equal(text, old);
	free(text);

	/* our header without the simulator's column is another header too: the columns differ */
	opts.with_truth = true;
	open_write_close(d.record, &opts, 100);
	text = read_text_file(d.record);
	assert_int_equal(strncmp(text, HEADER_SIM, strlen(HEADER_SIM)), 0);
	free(text);

	/* a file of the version before domains is moved aside too, and still reads as it was */
	char third[160];
	struct record_file *file;
	struct err err = { "" };
	snprintf(third, sizeof(third), "%s.20261203T101542Z-3", d.record);
	write_text(d.record, before_domains);
	opts.with_truth = false;
	open_write_close(d.record, &opts, 100);
	text = read_text_file(third);
	assert_non_null(text);
	assert_string_equal(text, before_domains);
	free(text);
	assert_int_equal(record_file_new(third, &file, &err), 0);
	assert_int_equal(file->sample_count, 1);
	assert_int_equal(file->samples[0].domain, 0); /* a total */
	record_file_free(file);
	assert_int_equal(dir_remove(&d), 5);
}

/* What a crash leaves (a row cut short, no line break) is ended before the next row, and the
 * product's reader skips it and says where it was. */
static void test_cut_row_is_ended(void **state)
{
	struct dir d;
	struct record_options opts = { .now_ms = T0, .with_truth = true };
	struct record_file *file;
	struct err err = { "" };

	(void)state;
	dir_make(&d);
	write_text(d.record, HEADER_SIM "2026-12-03T10:15:42.223Z,100,web,*,1000.0,100,0,,,,1,0,,1000.0\n"
					"2026-12-03T10:15:42.323Z,200,web,*,10");
	open_write_close(d.record, &opts, 100);
	char *text = read_text_file(d.record);
	assert_non_null(strstr(text, "\n2026-12-03T10:15:42.323Z,200,web,*,10\n2026-12-03T10:15:42.223Z,100,web,*,"));
	free(text);
	assert_int_equal(record_file_new(d.record, &file, &err), 0);
	assert_int_equal(file->sample_count, 2);
	assert_int_equal(file->cut_rows, 1);
	assert_int_equal(file->first_cut_line, 3);
	record_file_free(file);

	/* cut inside a quoted event: the quote is closed too, or the next rows would be swallowed */
	write_text(d.record, HEADER_SIM "2026-12-03T10:15:42.223Z,100,web,*,,40,5,,,,0,0,\"throttle: victim \"\"we");
	open_write_close(d.record, &opts, 300);
	open_write_close(d.record, &opts, 400);
	assert_int_equal(record_file_new(d.record, &file, &err), 0);
	assert_int_equal(file->sample_count, 2);
	assert_true(file->samples[0].t_ms == 300 && file->samples[1].t_ms == 400);
	assert_int_equal(file->cut_rows, 1);
	assert_int_equal(file->first_cut_line, 2);
	record_file_free(file);
	assert_int_equal(dir_remove(&d), 1);
}

/* Per file: how many rows each t_ms has (every one must be a whole tick of `partitions`), the
 * first and last t_ms. */
static void check_whole_ticks(const char *path, unsigned partitions, uint64_t *first, uint64_t *last)
{
	struct record_file *file;
	struct err err = { "" };
	char *text = read_text_file(path);

	assert_non_null(text);
	assert_int_equal(strncmp(text, HEADER, strlen(HEADER)), 0);
	assert_int_equal(count_text(text, "t_ms,"), 1);
	free(text);
	if (record_file_new(path, &file, &err) < 0)
		fail_msg("%s", err.text);
	assert_true(file->sample_count > 0);
	assert_int_equal(file->sample_count % partitions, 0);
	assert_int_equal(file->cut_rows, 0);
	for (size_t i = 0; i < file->sample_count; i += partitions)
		for (unsigned k = 0; k < partitions; k++)
			assert_int_equal(file->samples[i + k].t_ms, file->samples[i].t_ms);
	*first = file->samples[0].t_ms;
	*last = file->samples[file->sample_count - 1].t_ms;
	record_file_free(file);
}

/* At the cap the file moves to PATH.1 between two ticks: both files hold whole ticks, none passes
 * the cap, PATH.1 is replaced by the next rotation, and the ticks run on from one file to the next. */
static void test_cap_rotates_at_tick_boundary(void **state)
{
	struct dir d;
	struct record_options opts = { .now_ms = T0, .max_bytes = 1000 };
	struct record *rec;
	struct err err = { "" };
	struct stat st;

	(void)state;
	dir_make(&d);
	assert_int_equal(record_new(d.record, &opts, &rec, &err), 0);
	for (uint64_t t = 100; t <= 3000; t += 100) {
		write_tick(rec, t, 3);
		assert_int_equal(record_end_tick(rec, &err), 0);
		assert_int_equal(stat(d.record, &st), 0);
		assert_true(st.st_size <= 1000);
	}
	assert_int_equal(record_free(rec, &err), 0);
	assert_int_equal(stat(d.rotated, &st), 0);
	assert_true(st.st_size <= 1000);

	uint64_t first_older, last_older, first, last;
	check_whole_ticks(d.rotated, 3, &first_older, &last_older);
	check_whole_ticks(d.record, 3, &first, &last);
	assert_true(first == last_older + 100); /* nothing lost between them */
	assert_true(last == 3000);
	assert_true(first_older > 100); /* the first PATH.1 was replaced by a later one */
	assert_int_equal(dir_remove(&d), 2);
}

/* A tick larger than the cap still goes whole into a file of its own. */
static void test_tick_larger_than_the_cap(void **state)
{
	struct dir d;
	struct record_options opts = { .now_ms = T0, .max_bytes = 100 };
	struct record *rec;
	struct err err = { "" };
	uint64_t first, last;

	(void)state;
	dir_make(&d);
	assert_int_equal(record_new(d.record, &opts, &rec, &err), 0);
	write_tick(rec, 100, 4);
	assert_int_equal(record_end_tick(rec, &err), 0);
	write_tick(rec, 200, 4);
	assert_int_equal(record_free(rec, &err), 0);
	check_whole_ticks(d.rotated, 4, &first, &last);
	assert_true(first == 100 && last == 100);
	check_whole_ticks(d.record, 4, &first, &last);
	assert_true(first == 200 && last == 200);
	assert_int_equal(dir_remove(&d), 2);
}

/* Only regular files are checked and moved: /dev/null stays /dev/null. */
static void test_not_a_regular_file(void **state)
{
	struct record_options opts = { .now_ms = T0 };
	struct stat st;

	(void)state;
	open_write_close("/dev/null", &opts, 100);
	open_write_close("/dev/null", &opts, 200);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
}

static void test_unwritable_path(void **state)
{
	struct record *rec;
	struct err err = { "" };

	(void)state;
	assert_true(record_new("/nonexistent/dir/run.csv", &(struct record_options){ 0 }, &rec, &err) < 0);
	assert_non_null(
		strstr(err.text, "cannot open record file /nonexistent/dir/run.csv: No such file or directory"));
}

/* A symbolic link at the record's path is not followed, dangling or not: the open is refused saying
 * so, and nothing is written or created where it leads (before, whoever could write the record's
 * directory had mpamd, as root, append to any file). */
static void test_symbolic_link_not_followed(void **state)
{
	struct dir d;
	struct record *rec;
	struct err err = { "" };
	char victim[128], elsewhere[128];

	(void)state;
	dir_make(&d);
	snprintf(victim, sizeof(victim), "%s/victim", d.path);
	snprintf(elsewhere, sizeof(elsewhere), "%s/made-through-the-link", d.path);
	write_text(victim, "precious\n");
	assert_int_equal(symlink(victim, d.record), 0);
	assert_int_equal(record_new(d.record, &(struct record_options){ .now_ms = T0 }, &rec, &err), -ELOOP);
	assert_non_null(strstr(err.text, "it is a symbolic link, which mpamd does not follow"));
	char *text = read_text_file(victim);
	assert_string_equal(text, "precious\n");
	free(text);

	assert_int_equal(unlink(d.record), 0);
	assert_int_equal(symlink(elsewhere, d.record), 0);
	assert_int_equal(record_new(d.record, &(struct record_options){ .now_ms = T0 }, &rec, &err), -ELOOP);
	assert_int_equal(access(elsewhere, F_OK), -1);
	assert_int_equal(unlink(d.record), 0);
	assert_int_equal(dir_remove(&d), 1);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* The files mpamd creates, the record and the new one begun at a rotation, are RECORD_FILE_MODE
 * (0644) whatever the umask (before, 0666 less the umask: 0666 under umask 0); a file already there
 * keeps its mode. */
static void test_mode_whatever_the_umask(void **state)
{
	static const mode_t masks[] = { 0, 022, 077 };
	struct record_options opts = { .now_ms = T0, .max_bytes = 100 };
	mode_t old = umask(0);

	(void)state;
	for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		struct dir d;
		struct record *rec;
		struct err err = { "" };
		dir_make(&d);
		umask(masks[i]);
		assert_int_equal(record_new(d.record, &opts, &rec, &err), 0);
		write_tick(rec, 100, 4);
		assert_int_equal(record_end_tick(rec, &err), 0);
		write_tick(rec, 200, 4); /* past the cap: the next file is begun */
		assert_int_equal(record_free(rec, &err), 0);
		assert_int_equal(mode_of(d.rotated), 0644);
		assert_int_equal(mode_of(d.record), 0644);

		assert_int_equal(chmod(d.record, 0600), 0);
		open_write_close(d.record, &(struct record_options){ .now_ms = T0 }, 300);
		assert_int_equal(mode_of(d.record), 0600);
		assert_int_equal(dir_remove(&d), 2);
	}
	umask(old);
}

TEST_MAIN({
	cmocka_unit_test(test_rows_and_quoting),
	cmocka_unit_test(test_tests_reader_checks_time),
	cmocka_unit_test(test_header_once_over_two_opens),
	cmocka_unit_test(test_other_header_moved_aside),
	cmocka_unit_test(test_cut_row_is_ended),
	cmocka_unit_test(test_cap_rotates_at_tick_boundary),
	cmocka_unit_test(test_tick_larger_than_the_cap),
	cmocka_unit_test(test_not_a_regular_file),
	cmocka_unit_test(test_unwritable_path),
	cmocka_unit_test(test_symbolic_link_not_followed),
	cmocka_unit_test(test_mode_whatever_the_umask),
})
