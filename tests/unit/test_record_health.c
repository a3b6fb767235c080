/* A record file that fails or vanishes while mpamd writes it: a file removed or moved away is begun
 * again at the next tick; a write that fails (the file size limit here, a full disk in life) or a
 * file that cannot be opened loses ticks, which the health counts and shows, and the file is tried
 * again at the next tick, then after 2, 4... up to RECORD_RETRY_MAX_TICKS ticks; the log says each
 * change of state once. Before, the first failure stopped the recording until a SIGHUP, and a
 * removed file was written on, unseen, with nothing in status or metrics. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/base/log.h"
#include "core/report/record.h"
#include "tests/util/log_capture.h"
#include "tests/util/testutil.h"

#define T0 1796292942123ull /* 2026-12-03T10:15:42.123Z */

struct dir {
	char path[64], sub[96], record[128], moved[128];
};

static struct dir d;

static int setup(void **state)
{
	(void)state;
	make_test_dir(d.path, sizeof(d.path), "record-health");
	snprintf(d.sub, sizeof(d.sub), "%s/sub", d.path);
	snprintf(d.record, sizeof(d.record), "%s/run.csv", d.sub);
	snprintf(d.moved, sizeof(d.moved), "%s/moved.csv", d.path);
	assert_int_equal(mkdir(d.sub, 0755), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return remove_tree(d.path);
}

/* Tick number `n`: one row at t_ms n * 100, ended. */
static int tick(struct record *rec, unsigned n, struct err *err)
{
	struct record_row row = {
		.t_ms = n * 100ull, .time_ms = T0 + n * 100ull, .partition = "web", .valid = true, .mbps = 1000
	};

	record_write(rec, &row);
	return record_end_tick(rec, err);
}

/* Ticks `first` to `last`, each of which returns `want`. */
static void ticks(struct record *rec, unsigned first, unsigned last, int want)
{
	struct err err = { "" };

	for (unsigned n = first; n <= last; n++)
		assert_int_equal(tick(rec, n, &err), want);
}

/* The record at d.record, its first tick written. */
static struct record *record_after_one_tick(void)
{
	struct record *rec = NULL;
	struct err err = { "" };

	assert_int_equal(record_new(d.record, &(struct record_options){ .now_ms = T0 }, &rec, &err), 0);
	assert_int_equal(tick(rec, 1, &err), 0);
	return rec;
}

/* The t_ms of the whole rows in `path`, skipping a row cut short (a failed write leaves one, ended
 * by the next open); and the file has one header. */
static size_t rows_of(const char *path, uint64_t *t_ms, size_t max)
{
	char *text = read_text_file(path);
	size_t kept = 0, headers = 0;

	assert_non_null(text);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long t;
		headers += !strncmp(line, "time,", 5);
		if (strstr(line, ",web,") && sscanf(strchr(line, ',') + 1, "%llu,", &t) == 1 && kept < max)
			t_ms[kept++] = t;
	}
	free(text);
	assert_int_equal(headers, 1);
	return kept;
}

/* Removed, then moved away: each time the next tick begins a new file with its header, nothing is
 * lost, and the log says it once (a warning per file begun again). */
static void test_removed_or_moved_file_begun_again(void **state)
{
	struct record *rec = record_after_one_tick();
	struct err err = { "" };
	uint64_t t[16];

	(void)state;
	unsigned long warnings = log_count(LOG_LEVEL_WARNING);
	assert_int_equal(unlink(d.record), 0);
	ticks(rec, 2, 4, 0);
	assert_int_equal(log_count(LOG_LEVEL_WARNING), warnings + 1);
	assert_int_equal(rows_of(d.record, t, 16), 3);
	assert_int_equal(t[0], 200);

	assert_int_equal(rename(d.record, d.moved), 0);
	ticks(rec, 5, 6, 0);
	assert_int_equal(log_count(LOG_LEVEL_WARNING), warnings + 2);
	assert_int_equal(rows_of(d.moved, t, 16), 3); /* whole, and no longer written */
	assert_int_equal(rows_of(d.record, t, 16), 2);
	assert_int_equal(t[0], 500);
	const struct record_health *h = record_health(rec);
	assert_true(h->ok);
	assert_int_equal(h->errors_total, 0);
	assert_int_equal(record_free(rec, &err), 0);
}

/* The directory goes away: every tick is lost and counted, the log says it once, status says why;
 * the file is tried again at ticks 2, 3, 5, 9, 17... (a wait that doubles), so once the directory is
 * back after tick 6 the rows start again at tick 9, and the log says that once too. */
static void test_unopenable_file_retried_with_backoff(void **state)
{
	struct record *rec = record_after_one_tick();
	struct err err = { "" };
	uint64_t t[16];

	(void)state;
	char gone[128];
	snprintf(gone, sizeof(gone), "%s/gone", d.path);
	assert_int_equal(rename(d.sub, gone), 0);
	unsigned long errors = log_count(LOG_LEVEL_ERROR), infos = log_count(LOG_LEVEL_INFO);
	ticks(rec, 2, 6, -ENOENT);
	const struct record_health *h = record_health(rec);
	assert_false(h->ok);
	assert_int_equal(h->errors_total, 5);
	assert_non_null(strstr(h->error, "No such file or directory"));
	assert_int_equal(log_count(LOG_LEVEL_ERROR), errors + 1);
	json_t *status = record_status_json(rec);
	assert_false(json_is_true(json_object_get(status, "ok")));
	assert_int_equal(json_integer_value(json_object_get(status, "errors_total")), 5);
	assert_non_null(strstr(json_string_value(json_object_get(status, "error")), "cannot open record file"));
	json_decref(status);

	assert_int_equal(mkdir(d.sub, 0755), 0);
	ticks(rec, 7, 8, -ENOENT);
	ticks(rec, 9, 10, 0);
	assert_true(h->ok);
	assert_int_equal(h->errors_total, 7);
	assert_int_equal(log_count(LOG_LEVEL_ERROR), errors + 1);
	assert_int_equal(log_count(LOG_LEVEL_INFO), infos + 1);
	assert_int_equal(rows_of(d.record, t, 16), 2);
	assert_int_equal(t[0], 900);
	status = record_status_json(rec);
	assert_true(json_is_true(json_object_get(status, "ok")));
	assert_true(json_is_null(json_object_get(status, "error")));
	json_decref(status);
	assert_int_equal(record_free(rec, &err), 0);
}

/* A write that fails part-way (the file size limit, as a full disk would): the tick is lost and the
 * file closed; the next tick opens it again, ends the cut row and writes on. */
static void test_failed_write_closes_and_reopens(void **state)
{
	struct record *rec;
	struct err err = { "" };
	struct rlimit old, small;
	struct stat st;
	uint64_t t[16];

	(void)state;
	signal(SIGXFSZ, SIG_IGN); /* the write fails with EFBIG instead */
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	rec = record_after_one_tick();
	assert_int_equal(stat(d.record, &st), 0);
	small = (struct rlimit){ (rlim_t)st.st_size + 10, old.rlim_max };
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	unsigned long errors = log_count(LOG_LEVEL_ERROR);
	int r = tick(rec, 2, &err);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(r, -EFBIG);
	assert_non_null(strstr(err.text, "cannot write record file"));
	assert_false(record_health(rec)->ok);
	assert_int_equal(log_count(LOG_LEVEL_ERROR), errors + 1);
	assert_int_equal(tick(rec, 3, &err), 0);
	assert_true(record_health(rec)->ok);
	assert_int_equal(record_health(rec)->errors_total, 1);
	assert_int_equal(record_free(rec, &err), 0);
	assert_int_equal(rows_of(d.record, t, 16), 2); /* the cut row of tick 2 is skipped */
	assert_int_equal(t[0], 100);
	assert_int_equal(t[1], 300);
	signal(SIGXFSZ, SIG_DFL);
}

/* record_reopen (SIGHUP) to a path that cannot be opened fails the record, not the caller's loop;
 * it is tried again at the next tick, which writes once the path can be opened. */
static void test_failed_reopen_is_tried_again(void **state)
{
	struct record *rec;
	struct err err = { "" };
	char elsewhere[160];
	uint64_t t[16];

	(void)state;
	snprintf(elsewhere, sizeof(elsewhere), "%s/later/run.csv", d.path);
	rec = record_after_one_tick();
	assert_int_equal(record_reopen(rec, elsewhere, &(struct record_options){ .now_ms = T0 }, &err), -ENOENT);
	assert_false(record_health(rec)->ok);
	assert_int_equal(record_health(rec)->errors_total, 0); /* no tick lost yet */
	char later[128];
	snprintf(later, sizeof(later), "%s/later", d.path);
	assert_int_equal(mkdir(later, 0755), 0);
	assert_int_equal(tick(rec, 2, &err), 0);
	assert_true(record_health(rec)->ok);
	assert_int_equal(record_health(rec)->errors_total, 0);
	assert_int_equal(record_free(rec, &err), 0);
	assert_int_equal(rows_of(elsewhere, t, 16), 1);
	assert_int_equal(t[0], 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_removed_or_moved_file_begun_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unopenable_file_retried_with_backoff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_write_closes_and_reopens, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_reopen_is_tried_again, setup, teardown),
	};

	return cmocka_run_group_tests(tests, log_errors_only, NULL);
}
