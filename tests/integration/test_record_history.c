/* The record file as a history, with mpamd run as the operator runs it: runs appended under one
 * header, logrotate's way (mv, then SIGHUP; by hand and with the shipped logrotate file) giving a
 * complete old file and a new one, mpamd's own rotation at record_max_bytes, and a file removed or
 * unwritable while mpamd runs (shown in status and metrics, and begun again). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdbool.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/base/clock.h"
#include "tests/util/record_reader.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

#define WAIT_MS 5000

#define HEADER                                                                                                        \
	"time,t_ms,partition,domain,mbps,mb_max,mb_min,mb_max_mbps,guarantee_mbps,target_mbps,valid,estimated,event," \
	"sim_mbps,ipc"

struct files {
	char dir[64];
	char config[96], record[96], log[96], moved[96], pidfile[96];
	int pid;	  /* the daemon a test started, killed by teardown when the test failed on the way */
	char mounted[96]; /* a small disk a test mounted, unmounted by teardown; "" for none */
};

static int setup(void **state)
{
	struct files *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	make_test_dir(f->dir, sizeof(f->dir), "history");
	snprintf(f->config, sizeof(f->config), "%s/mpamd.ini", f->dir);
	snprintf(f->record, sizeof(f->record), "%s/run.csv", f->dir);
	snprintf(f->log, sizeof(f->log), "%s/mpamd.log", f->dir);
	snprintf(f->moved, sizeof(f->moved), "%s/run.csv.1", f->dir);
	snprintf(f->pidfile, sizeof(f->pidfile), "%s/mpamd.pid", f->dir);
	*state = f;
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* The daemon if it still runs, then everything the test and mpamd left, and the directory. */
static int teardown(void **state)
{
	struct files *f = *state;

	if (f->pid > 0) {
		kill(f->pid, SIGKILL);
		wait_exit(f->pid, WAIT_MS);
	}
	if (f->mounted[0])
		mount_end(f->mounted);
	int r = nftw(f->dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	free(f);
	return r;
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
	struct files *f = *state;
	struct record_line *rows = NULL;
	char header[256];

	run_sim(f, "20");
	run_sim(f, "30");
	char *text = read_text_file(f->record);
	assert_non_null(text);
	assert_int_equal(count_text(text, "t_ms,"), 1);
	free(text);
	assert_int_equal(record_read(f->record, header, sizeof(header), &rows), (20 + 30) * 3);
	assert_string_equal(header, HEADER);
	check_run(rows, 20 * 3);
	check_run(rows + 20 * 3, 30 * 3);
	/* the second run started after the first one did */
	assert_true(rows[60].time_ms - (int64_t)rows[60].t_ms >= rows[0].time_ms - (int64_t)rows[0].t_ms);
	free(rows);
}

/* Each row carries its partition's goals as etc/demo.ini configures them (web a guarantee of 6000
 * MB/s, tenant a target of 2500, batch neither): empty where there is none, never 0; and a domain
 * row none, the goals being the partition's total (the simulator is no mba_MBps controller). */
static void test_rows_carry_the_goals(void **state)
{
	struct files *f = *state;
	struct record_line *rows = NULL;
	char header[256];
	size_t domain_rows = 0;

	run_sim(f, "10");
	long n = record_read_all(f->record, header, sizeof(header), &rows);
	assert_true(n > 30);
	for (long i = 0; i < n; i++) {
		const struct record_line *r = &rows[i];
		bool total = !strcmp(r->domain, "*");
		bool web = !strcmp(r->partition, "web"), tenant = !strcmp(r->partition, "tenant");
		domain_rows += !total;
		if (r->has_guarantee != (total && web) || r->has_target != (total && tenant))
			fail_msg("row %ld (%s, domain %s): guarantee %s, target %s", i, r->partition, r->domain,
				 r->has_guarantee ? "set" : "empty", r->has_target ? "set" : "empty");
		if (r->has_guarantee)
			assert_true(r->guarantee_mbps == 6000);
		if (r->has_target)
			assert_true(r->target_mbps == 2500);
	}
	assert_true(domain_rows > 0);
	free(rows);
}

static void write_file(const char *path, const char *text)
{
	FILE *out = fopen(path, "w");

	assert_non_null(out);
	fputs(text, out);
	assert_int_equal(fclose(out), 0);
}

/* The simulator on real time, 20 ms ticks; and the partitions the tests run on it. */
#define SIM_20MS      "[global]\nbackend = sim\ninterval_ms = 20\n[sim]\ncapacity_mbps = 10000\n"
#define WEB	      "[partition \"web\"]\nsim_demand = 3000\n"
#define WEB_AND_BATCH WEB "[partition \"batch\"]\nsim_demand = 9000\n"

/* mpamd on real time, 20 ms ticks, recording to `record`. */
static int start_daemon(struct files *f, const char *record)
{
	char *argv[] = { MPAMD,	     "-c",	     f->config,	   "-f",       "--no-socket",
			 "--record", (char *)record, "--pid-file", f->pidfile, NULL };

	write_file(f->config, SIM_20MS WEB_AND_BATCH);
	f->pid = spawn_background(argv, f->log);
	assert_true(f->pid > 0);
	assert_true(wait_for_text(f->log, "ready:", WAIT_MS));
	return f->pid;
}

static void stop_daemon(struct files *f)
{
	kill(f->pid, SIGTERM);
	assert_int_equal(wait_exit(f->pid, WAIT_MS), 0);
	f->pid = 0;
}

/* Polls until `path` has a header and at least `rows` rows. */
static bool wait_for_rows(const char *path, long rows)
{
	for (int waited = 0; waited < WAIT_MS; waited += 20) {
		struct record_line *lines = NULL;
		char header[256];
		if (access(path, F_OK) == 0) {
			long n = record_read(path, header, sizeof(header), &lines);
			free(lines);
			if (n >= rows)
				return true;
		}
		usleep(20000);
	}
	return false;
}

/* A file mpamd no longer writes: whole rows, one header, each tick's two rows together, and no
 * change a while later. */
static long check_complete(const char *path, struct record_line **rows)
{
	char header[256];
	char *before = read_text_file(path);

	assert_non_null(before);
	assert_true(before[strlen(before) - 1] == '\n');
	assert_int_equal(count_text(before, "t_ms,"), 1);
	long n = record_read(path, header, sizeof(header), rows);
	assert_true(n > 0 && n % 2 == 0);
	assert_string_equal(header, HEADER);
	usleep(100000); /* five ticks */
	char *after = read_text_file(path);
	assert_string_equal(after, before);
	free(before);
	free(after);
	return n;
}

/* logrotate without copytruncate: the file is moved, mpamd gets SIGHUP and begins a new one with
 * its header; the moved one is complete, and the run goes on in the new file where it left off. */
static void test_sighup_after_mv_begins_a_new_file(void **state)
{
	struct files *f = *state;
	struct record_line *old_rows = NULL, *new_rows = NULL;
	char header[256];

	uint64_t started = clock_wall_ms();
	int pid = start_daemon(f, f->record);
	assert_true(wait_for_rows(f->record, 10));
	assert_int_equal(rename(f->record, f->moved), 0);
	kill(pid, SIGHUP);
	assert_true(wait_for_text(f->log, "reopened", WAIT_MS));
	assert_true(wait_for_rows(f->record, 10));
	long old_count = check_complete(f->moved, &old_rows);
	long new_count = record_read(f->record, header, sizeof(header), &new_rows);
	stop_daemon(f);
	uint64_t stopped = clock_wall_ms();

	assert_true(new_count >= 10);
	assert_string_equal(header, HEADER);
	/* one run across both files: t_ms and the wall clock go on from the moved file's last row */
	assert_true(new_rows[0].t_ms > old_rows[old_count - 1].t_ms);
	assert_true(new_rows[0].time_ms >= old_rows[old_count - 1].time_ms);
	assert_true(old_rows[0].time_ms >= (int64_t)started && new_rows[new_count - 1].time_ms <= (int64_t)stopped);
	for (long i = 1; i < old_count; i++)
		assert_true(old_rows[i].time_ms >= old_rows[i - 1].time_ms);
	for (long i = 1; i < new_count; i++)
		assert_true(new_rows[i].time_ms >= new_rows[i - 1].time_ms);
	free(old_rows);
	free(new_rows);
}

static json_t *ctl_json(const char *socket, const char *command)
{
	char *argv[] = { MPAMCTL, "--socket", (char *)socket, "--json", (char *)command, NULL };
	struct run_result r;

	assert_int_equal(run_command(argv, &r), 0);
	assert_int_equal(r.exit_code, 0);
	json_t *reply = json_loads(r.out, 0, NULL);
	run_result_fini(&r);
	assert_non_null(reply);
	return reply;
}

/* Polls status until its record's "ok" is `ok`; returns that record object (a new reference). */
static json_t *wait_record_state(const char *socket, bool ok)
{
	for (int waited = 0; waited < WAIT_MS; waited += 20) {
		json_t *status = ctl_json(socket, "status");
		json_t *record = json_incref(json_object_get(status, "record"));
		json_decref(status);
		if (json_is_boolean(json_object_get(record, "ok")) && json_is_true(json_object_get(record, "ok")) == ok)
			return record;
		json_decref(record);
		usleep(20000);
	}
	fail_msg("the record never became %s", ok ? "ok" : "failing");
	return NULL;
}

static double metric(const char *socket, const char *name)
{
	json_t *reply = ctl_json(socket, "metrics");
	const char *text = json_string_value(json_object_get(reply, "text"));
	char line[128];

	assert_non_null(text);
	snprintf(line, sizeof(line), "\n%s ", name);
	const char *at = strstr(text, line);
	double v = at ? strtod(at + strlen(line), NULL) : -1;
	json_decref(reply);
	return v;
}

/* mpamd on SIM_20MS and `partitions`, its socket `socket`, recording to `record`; returns once the
 * record holds 4 rows. */
static void start_recording(struct files *f, const char *partitions, const char *socket, const char *record)
{
	char *argv[] = { MPAMD, "-c", f->config, "-f", "--socket", (char *)socket, "--record", (char *)record, NULL };
	char config[512];

	snprintf(config, sizeof(config), SIM_20MS "%s", partitions);
	write_file(f->config, config);
	f->pid = spawn_background(argv, f->log);
	assert_true(f->pid > 0);
	assert_true(wait_for_rows(record, 4));
}

/* The record file while mpamd runs: removed, it is begun again at once; its directory gone, the
 * rows are lost and that shows in status (ok false, why, errors_total) and metrics (mpamd_record_ok
 * 0, mpamd_record_errors_total), the log says it once, a SIGHUP does not stop it, and once the
 * directory is back the rows start again by themselves, which status, metrics and the log (once)
 * say too. Before, a removed file was written on unseen, and a failed write or reopen stopped the
 * recording, with only a log line, until the next SIGHUP. */
static void test_record_failure_shows_and_heals(void **state)
{
	struct files *f = *state;
	char sub[128], gone[128], record[160], socket[128];

	snprintf(sub, sizeof(sub), "%s/sub", f->dir);
	snprintf(gone, sizeof(gone), "%s/gone", f->dir);
	snprintf(record, sizeof(record), "%s/run.csv", sub);
	snprintf(socket, sizeof(socket), "%s/mpamd.sock", f->dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	start_recording(f, WEB_AND_BATCH, socket, record);

	assert_int_equal(unlink(record), 0);
	assert_true(wait_for_rows(record, 4));
	assert_true(wait_for_text(f->log, "was removed or replaced while mpamd wrote it: a new one is begun", 0));

	assert_int_equal(rename(sub, gone), 0);
	json_t *rec = wait_record_state(socket, false);
	assert_non_null(strstr(json_string_value(json_object_get(rec, "error")), "No such file or directory"));
	assert_string_equal(json_string_value(json_object_get(rec, "path")), record);
	json_decref(rec);
	assert_int_equal(metric(socket, "mpamd_record_ok"), 0);
	assert_true(metric(socket, "mpamd_record_errors_total") > 0);
	kill(f->pid, SIGHUP);
	assert_true(wait_for_text(f->log, "reloaded", WAIT_MS));
	usleep(200000); /* ten more ticks lost */
	char *log = read_text_file(f->log);
	assert_int_equal(count_text(log, "the rows of each tick are lost until it works again"), 1);
	free(log);
	assert_int_equal(kill(f->pid, 0), 0); /* still running */

	assert_int_equal(mkdir(sub, 0755), 0);
	assert_true(wait_for_rows(record, 4)); /* no SIGHUP: tried again by itself */
	json_decref(wait_record_state(socket, true));
	assert_int_equal(metric(socket, "mpamd_record_ok"), 1);
	log = read_text_file(f->log);
	assert_int_equal(count_text(log, "written again, after"), 1);
	free(log);
	stop_daemon(f);
}

/* A full disk: each tick's rows are lost, which shows in status (ok false, why) and metrics
 * (mpamd_record_ok 0, errors_total growing) while the loop goes on; once space is freed the rows
 * start again by themselves, and status and metrics say so. Before, a full disk stopped the recording
 * with a log line only, until the next SIGHUP. */
static void test_full_disk_shows_and_heals(void **state)
{
	struct files *f = *state;
	char disk[96], record[128], filler[128], socket[128];
	static const char block[4096];

	snprintf(disk, sizeof(disk), "%s/disk", f->dir);
	snprintf(record, sizeof(record), "%s/run.csv", disk);
	snprintf(filler, sizeof(filler), "%s/filler", disk);
	snprintf(socket, sizeof(socket), "%s/mpamd.sock", f->dir);
	assert_int_equal(mkdir(disk, 0755), 0);
	int r = small_disk_begin(disk, 1024 * 1024);
	if (r < 0) {
		print_message("no tmpfs of our own here (%s): skipped\n", strerror(-r));
		skip();
	}
	snprintf(f->mounted, sizeof(f->mounted), "%s", disk);
	start_recording(f, WEB, socket, record);

	int fd = open(filler, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	while (write(fd, block, sizeof(block)) > 0)
		;
	assert_int_equal(errno, ENOSPC);
	close(fd);
	json_t *rec = wait_record_state(socket, false);
	assert_non_null(strstr(json_string_value(json_object_get(rec, "error")), "No space left on device"));
	json_decref(rec);
	assert_int_equal(metric(socket, "mpamd_record_ok"), 0);
	double lost = metric(socket, "mpamd_record_errors_total");
	assert_true(lost > 0);
	usleep(100000);
	assert_true(metric(socket, "mpamd_record_errors_total") > lost); /* every tick, and the loop goes on */

	assert_int_equal(unlink(filler), 0);
	json_decref(wait_record_state(socket, true)); /* no SIGHUP: tried again by itself */
	assert_int_equal(metric(socket, "mpamd_record_ok"), 1);
	assert_true(wait_for_text(f->log, "written again, after", WAIT_MS));
	stop_daemon(f);
	mount_end(disk);
	f->mounted[0] = '\0';
}

/* [global] record_max_bytes through mpamd: the file never passes the cap, PATH.1 holds whole ticks
 * and the ticks go on in PATH where PATH.1 ends. */
static void test_record_max_bytes_rotates(void **state)
{
	struct files *f = *state;
	char text[512], older[128];
	struct record_line *rows = NULL, *older_rows = NULL;
	char header[256];
	struct stat st;

	snprintf(older, sizeof(older), "%s.1", f->record);
	snprintf(text, sizeof(text),
		 "[global]\nbackend = sim\nrecord = %s\nrecord_max_bytes = 64K\n[sim]\ncapacity_mbps = 10000\n"
		 "[partition \"web\"]\nsim_demand = 3000\n[partition \"batch\"]\nsim_demand = 9000\n",
		 f->record);
	write_file(f->config, text);
	struct run_result r;
	char *argv[] = { MPAMD, "-c", f->config, "-f", "--no-socket", "--sim-clock", "--ticks", "3000", NULL };
	assert_int_equal(run_command(argv, &r), 0);
	if (r.exit_code != 0)
		fail_msg("mpamd exited %d:\n%s", r.exit_code, r.err);
	assert_non_null(strstr(r.err, "would pass record_max_bytes = 65536: moved to"));
	run_result_fini(&r);
	assert_int_equal(stat(f->record, &st), 0);
	assert_true(st.st_size <= 65536);
	assert_int_equal(stat(older, &st), 0);
	assert_true(st.st_size <= 65536 && st.st_size > 65536 - 1024); /* full, but for less than a tick */
	long n = record_read(f->record, header, sizeof(header), &rows);
	long n_older = record_read(older, header, sizeof(header), &older_rows);
	assert_true(n > 0 && n % 2 == 0 && n_older > 0 && n_older % 2 == 0);
	for (long i = 0; i < n_older; i += 2)
		assert_int_equal(older_rows[i].t_ms, older_rows[i + 1].t_ms);
	for (long i = 0; i < n; i += 2)
		assert_int_equal(rows[i].t_ms, rows[i + 1].t_ms);
	assert_int_equal(rows[0].t_ms, older_rows[n_older - 1].t_ms + 100);
	assert_int_equal(rows[n - 1].t_ms, 3000 * 100);
	free(rows);
	free(older_rows);
}

/* `text` with every `from` replaced by `to`; malloc'ed. */
static char *replace_all(const char *text, const char *from, const char *to)
{
	size_t n = count_text(text, from);
	char *out = malloc(strlen(text) + n * strlen(to) + 1), *o = out;

	assert_non_null(out);
	for (const char *hit; (hit = strstr(text, from)); text = hit + strlen(from)) {
		memcpy(o, text, (size_t)(hit - text));
		o = stpcpy(o + (hit - text), to);
	}
	strcpy(o, text);
	return out;
}

/* The shipped etc/logrotate.d/mpamd, run by logrotate on a running mpamd, with its paths pointed at
 * this test's files (and a unit name no host has, so that it signals through the pid file). */
static void test_shipped_logrotate_config(void **state)
{
	struct files *f = *state;
	char conf[128], status[128], *argv[] = { "/usr/sbin/logrotate", "-f", "-s", status, conf, NULL };

	if (access(argv[0], X_OK) != 0)
		skip(); /* scripts/install-deps installs it */
	snprintf(conf, sizeof(conf), "%s/logrotate.conf", f->dir);
	snprintf(status, sizeof(status), "%s/logrotate.status", f->dir);
	char *shipped = read_text_file(MPAMD_SOURCE_DIR "/etc/logrotate.d/mpamd");
	assert_non_null(shipped);
	char *a = replace_all(shipped, "/var/log/mpamd/record.csv", f->record);
	char *b = replace_all(a, "/run/mpamd/mpamd.pid", f->pidfile);
	char *text = replace_all(b, "mpamd.service", "mpamd-test-no-such-unit.service");
	assert_int_equal(count_text(text, f->record), 1);
	assert_int_equal(count_text(text, f->pidfile), 2);
	write_file(conf, text);
	free(shipped);
	free(a);
	free(b);
	free(text);

	start_daemon(f, f->record);
	assert_true(wait_for_rows(f->record, 10));
	struct run_result r;
	assert_int_equal(run_command(argv, &r), 0);
	if (r.exit_code != 0)
		fail_msg("logrotate exited %d:\n%s%s", r.exit_code, r.out, r.err);
	run_result_fini(&r);
	assert_true(wait_for_text(f->log, "reopened", WAIT_MS));
	assert_true(wait_for_rows(f->record, 10));

	size_t count = 0, rotated = 0;
	char **files = list_files(f->dir, "", &count);
	struct record_line *rows = NULL;
	for (size_t i = 0; i < count; i++) {
		const char *name = strrchr(files[i], '/') + 1;
		if (strncmp(name, "run.csv-", 8))
			continue;
		rotated++;
		check_complete(files[i], &rows);
		free(rows);
	}
	free_file_list(files, count);
	assert_int_equal(rotated, 1);
	stop_daemon(f);
}

TEST_MAIN({
	fixture_test(test_two_runs_append),
	fixture_test(test_rows_carry_the_goals),
	fixture_test(test_sighup_after_mv_begins_a_new_file),
	fixture_test(test_record_failure_shows_and_heals),
	fixture_test(test_full_disk_shows_and_heals),
	fixture_test(test_record_max_bytes_rotates),
	fixture_test(test_shipped_logrotate_config),
})
