/* The most each domain of a record carried (core/report/record_peaks.c) and mpamd's reading of its
 * own record and PATH.1 for it (core/report/record_history.c): per tick the sum of the partitions'
 * valid rates, a tick with an invalid one not counted, the mean over a window of consecutive ticks of
 * one run; files of another host's domains, malformed or not regular, named and not used. */
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

#include "core/report/record_history.h"
#include "core/report/record_peaks.h"
#include "tests/util/engine_util.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

#define HEADER "time,t_ms,partition,domain,mbps,mb_max,mb_min,valid\n"

/* Rows "t_ms,partition,domain,mbps" (mbps empty: not valid), one per line. */
static char *with_header(const char *rows)
{
	static char text[4096];
	char *out = text;
	size_t left = sizeof(text);
	int n = snprintf(out, left, HEADER);

	for (const char *line = rows; *line;) {
		const char *end = strchr(line, '\n');
		unsigned t;
		char partition[16], domain[16], mbps[32] = "";
		assert_true(sscanf(line, "%u,%15[^,],%15[^,],%31[^\n]", &t, partition, domain, mbps) >= 3);
		out += n;
		left -= (size_t)n;
		n = snprintf(out, left, "2026-01-01T00:00:00.000Z,%u,%s,%s,%s,100,0,%d\n", t, partition, domain,
			     mbps[0] ? mbps : "", mbps[0] ? 1 : 0);
		line = end ? end + 1 : line + strlen(line);
	}
	return text;
}

static struct record_file *read_rows(const char *rows)
{
	const char *text = with_header(rows);
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	struct record_file *file = NULL;
	struct err err = { "" };

	assert_non_null(in);
	if (record_file_new_from_stream(in, "run.csv", &file, &err) < 0)
		fail_msg("%s", err.text);
	fclose(in);
	return file;
}

/* A record of these rows and its peaks over `window` ticks. */
struct peaks_of_rows {
	struct record_file *file;
	struct record_peaks peaks;
};

static void peaks_read(struct peaks_of_rows *p, const char *rows, unsigned window)
{
	struct err err = { "" };

	p->file = read_rows(rows);
	assert_int_equal(record_peaks_of_file(p->file, window, &p->peaks, &err), 0);
}

static void peaks_done(struct peaks_of_rows *p)
{
	record_peaks_fini(&p->peaks);
	record_file_free(p->file);
}

static const char *const ticks = "100,a,0,9000\n100,b,0,1000\n100,b,1,3000\n"
				 "200,a,0,8000\n200,b,0,1000\n200,b,1,7000\n"
				 "300,a,0,\n300,b,0,9999\n300,b,1,2000\n" /* a not valid on 0: no total there */
				 "400,a,0,9000\n400,b,0,3000\n400,b,1,3000\n";

static void test_the_most_in_one_tick(void **state)
{
	struct peaks_of_rows p;

	(void)state;
	peaks_read(&p, ticks, 1);
	assert_int_equal(p.peaks.ticks, 4);
	assert_true(record_peaks_of_domain(&p.peaks, p.file, "0") == 12000); /* tick 400, never 9999 + 0 */
	assert_true(record_peaks_of_domain(&p.peaks, p.file, "1") == 7000);
	assert_true(record_peaks_of_domain(&p.peaks, p.file, "") == 0); /* no total rows */
	assert_true(record_peaks_of_domain(&p.peaks, p.file, "2") == -1);
	peaks_done(&p);
}

/* Over two ticks in a row: tick 300 has no total on domain 0, so 200 and 400 are not a window. */
static void test_a_window_of_consecutive_ticks(void **state)
{
	struct peaks_of_rows p;

	(void)state;
	peaks_read(&p, ticks, 2);
	assert_true(record_peaks_of_domain(&p.peaks, p.file, "0") == 9500); /* (10000 + 9000) / 2 */
	assert_true(record_peaks_of_domain(&p.peaks, p.file, "1") == 5000); /* (3000 + 7000) / 2 */
	peaks_done(&p);
}

/* t_ms going back begins a new run: no window spans two runs. */
static void test_no_window_across_runs(void **state)
{
	struct peaks_of_rows p;

	(void)state;
	peaks_read(&p, "100,a,0,1000\n200,a,0,9000\n100,a,0,9000\n200,a,0,1000\n", 2);
	assert_int_equal(p.file->run_count, 2);
	assert_true(record_peaks_of_domain(&p.peaks, p.file, "0") == 5000); /* never (9000 + 9000) / 2 */
	peaks_done(&p);
}

struct dir {
	char path[64], record[96], older[100];
};

static void make_dir(struct dir *d)
{
	make_test_dir(d->path, sizeof(d->path), "record-peaks");
	snprintf(d->record, sizeof(d->record), "%s/record.csv", d->path);
	snprintf(d->older, sizeof(d->older), "%s.1", d->record);
}

static const char *const domains[] = { "0", "1" };

/* The record and its rotated PATH.1: the most of both; a file not there is not noted. */
static void test_history_reads_the_rotated_file(void **state)
{
	struct dir d;
	struct record_history h;
	double mbps[2];

	(void)state;
	make_dir(&d);
	record_history_read(d.record, 1, domains, 2, mbps, &h);
	assert_int_equal(h.files, 0);
	assert_int_equal(h.note_count, 0);
	write_file(d.older, "%s", with_header("100,a,*,9000\n100,a,0,6000\n100,a,1,3000\n"));
	write_file(d.record, "%s", with_header("100,a,*,8000\n100,a,0,2000\n100,a,1,6000\n"));
	record_history_read(d.record, 1, domains, 2, mbps, &h);
	assert_int_equal(h.files, 2);
	assert_int_equal(h.ticks, 2);
	assert_true(mbps[0] == 6000 && mbps[1] == 6000 && h.total_mbps == 9000);
	assert_int_equal(remove_tree(d.path), 0);
}

/* Another host's domains (more, fewer, other names), a malformed line, a FIFO: each file named with
 * why, and not used. */
static void test_history_refuses_what_is_not_this_hosts(void **state)
{
	struct dir d;
	struct record_history h;
	double mbps[2];

	(void)state;
	make_dir(&d);
	write_file(d.older, "%s", with_header("100,a,0,6000\n100,a,1,3000\n100,a,2,3000\n"));
	write_file(d.record, "%s", with_header("100,a,0,6000\n"));
	record_history_read(d.record, 1, domains, 2, mbps, &h);
	assert_int_equal(h.files, 0);
	assert_int_equal(h.note_count, 2);
	assert_non_null(strstr(h.notes[0], d.older));
	assert_non_null(strstr(h.notes[0], "its domain '2' is not one of this host's"));
	assert_non_null(strstr(h.notes[1], "it has 1 domains, this host 2: a record of another host"));
	assert_true(mbps[0] == 0 && mbps[1] == 0);

	write_file(d.older, "%s", with_header("100,a,*,6000\n")); /* totals alone: a host of one domain */
	write_file(d.record, HEADER "2026-01-01T00:00:00.000Z,100,a,0,12x,100,0,1\n");
	record_history_read(d.record, 1, domains, 2, mbps, &h);
	assert_int_equal(h.note_count, 2);
	assert_non_null(strstr(h.notes[0], "no per-domain rows, and this host has 2 domains"));
	assert_non_null(strstr(h.notes[1], "record.csv:2: bad value in column mbps: '12x'"));
	record_history_read(d.record, 1, domains, 1, mbps, &h); /* a host of one domain takes the totals */
	assert_true(mbps[0] == 6000);

	unlink(d.record);
	unlink(d.older);
	assert_int_equal(mkfifo(d.record, 0600), 0);
	record_history_read(d.record, 1, domains, 2, mbps, &h);
	assert_int_equal(h.note_count, 1);
	assert_non_null(strstr(h.notes[0], "a FIFO, not a regular file"));
	assert_int_equal(remove_tree(d.path), 0);
}

static void count_sample(void *ctx, const struct record_file *file, const struct record_sample *s)
{
	(void)file;
	(void)s;
	++*(unsigned *)ctx;
}

/* The scan keeps no sample, hands each over, and reads no file past its limit. */
static void test_scan_keeps_nothing_and_stops_at_its_limit(void **state)
{
	struct dir d;
	struct record_file *file = NULL;
	struct err err = { "" };
	unsigned seen = 0;

	(void)state;
	make_dir(&d);
	write_file(d.record, "%s", with_header(ticks));
	assert_int_equal(record_file_scan(d.record, 4096, count_sample, &seen, &file, &err), 0);
	assert_int_equal(seen, 12);
	assert_int_equal(file->sample_count, 0);
	assert_int_equal(file->domain_count, 3);
	record_file_free(file);
	file = NULL;
	assert_int_equal(record_file_scan(d.record, 100, count_sample, &seen, &file, &err), -EFBIG);
	assert_null(file);
	assert_non_null(strstr(err.text, d.record));
	assert_non_null(strstr(err.text, "larger than 100"));
	assert_int_equal(remove_tree(d.path), 0);
}

TEST_MAIN({
	cmocka_unit_test(test_scan_keeps_nothing_and_stops_at_its_limit),
	cmocka_unit_test(test_the_most_in_one_tick),
	cmocka_unit_test(test_a_window_of_consecutive_ticks),
	cmocka_unit_test(test_no_window_across_runs),
	cmocka_unit_test(test_history_reads_the_rotated_file),
	cmocka_unit_test(test_history_refuses_what_is_not_this_hosts),
})
