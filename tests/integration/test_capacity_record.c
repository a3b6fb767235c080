/* The capacity of resctrl's MB domains from mpamd's own record file (the resctrl emulator, no
 * capacity_mbps, no ACPI HMAT): started with the record of an earlier run, each domain starts from
 * the most it carried there, status says `record`, and the guarantees are enforced from the first
 * tick (the guard programs a guaranteed partition's minimum at once); without one they are not. A
 * record of another host's domains, or one that is not a readable record (a FIFO, a link to
 * /dev/zero, a malformed line), is named in the log and not used: never a hang, never a figure. The
 * rotated PATH.1 is read too, and check-config --host says the same. */
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
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

#include "core/config/config.h"
#include "core/engine/engine.h"
#include "core/engine/engine_snapshot.h"
#include "tests/util/capacity_rig.h"
#include "tests/util/emu_runner.h"
#include "tests/util/engine_util.h"
#include "tests/util/log_capture.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

static const char *const partitions = "[partition \"web\"]\nclass = latency-critical\nguarantee_mbps = 6000\n"
				      "sim_demand = 4000\n"
				      "[partition \"batch\"]\nclass = best-effort\nsim_demand = 15000\n";

#define HEADER \
	"time,t_ms,partition,domain,mbps,mb_max,mb_min,mb_max_mbps,guarantee_mbps,target_mbps,valid,estimated,event\n"

static int setup(void **state)
{
	return capacity_rig_setup(state, RESCTRL_EMU, "record-capacity", partitions);
}

static void close_engine(struct capacity_rig *rig)
{
	engine_free(rig->engine);
	rig->engine = NULL;
	log_capture_free(&rig->log);
}

static const char *config_text(struct capacity_rig *rig, const char *record)
{
	static char text[1024];

	snprintf(text, sizeof(text), "[global]\nbackend = resctrl\nresctrl_root = %s\ninterval_ms = 20\n%s%s\n%s",
		 emu_root(rig->emu), record ? "record = " : "", record ? record : "", partitions);
	return text;
}

/* The engine with the record at `record` (NULL: none), its opening's log caught. */
static void open_engine(struct capacity_rig *rig, const char *record, uint64_t ticks)
{
	struct engine_options opts = { .ticks = ticks };
	struct err err = { "" };

	close_engine(rig);
	struct config *config = config_from_text(config_text(rig, record));
	log_capture_begin(&rig->log);
	int r = engine_new(config, &opts, &rig->engine, &err);
	log_capture_end(&rig->log);
	if (r < 0)
		fail_msg("engine_new: %s", err.text);
}

static void run(struct capacity_rig *rig)
{
	struct err err = { "" };

	if (engine_run(rig->engine, &err) < 0)
		fail_msg("engine_run: %s", err.text);
}

static const char *source_in_status(struct capacity_rig *rig, unsigned d, char *buf, size_t len)
{
	json_t *status = engine_snapshot_status(rig->engine);
	json_t *dom = json_array_get(json_object_get(status, "domains"), d);

	snprintf(buf, len, "%s", json_string_value(json_object_get(dom, "capacity_source")));
	json_decref(status);
	return buf;
}

/* Domain d's source, the same in the engine and in status. */
static void expect_source(struct capacity_rig *rig, unsigned d, const char *source)
{
	char buf[32];

	assert_string_equal(engine_domain_capacity_source(rig->engine, d), source);
	assert_string_equal(source_in_status(rig, d, buf, sizeof(buf)), source);
}

/* status's word on the guarantees: "enforced", or why not. */
static bool status_enforced(struct capacity_rig *rig)
{
	json_t *status = engine_snapshot_status(rig->engine);
	bool enforced = !strcmp(json_string_value(json_object_get(status, "guarantees")), "enforced");

	json_decref(status);
	return enforced;
}

/* A run of the emulator leaves a record; the next run starts from it. */
static void test_a_record_of_an_earlier_run_gives_the_capacity(void **state)
{
	struct capacity_rig *rig = *state;
	bool learned;

	open_engine(rig, rig->record, 40);
	run(rig);
	double carried[2] = { engine_domain_capacity(rig->engine, 0, &learned),
			      engine_domain_capacity(rig->engine, 1, &learned) };
	assert_true(carried[0] > 0 && carried[1] > 0);

	open_engine(rig, rig->record, 3);
	for (unsigned d = 0; d < 2; d++) {
		double mbps = engine_domain_capacity(rig->engine, d, &learned);
		expect_source(rig, d, "record");
		assert_true(learned); /* a lower bound, as a learned figure is */
		/* the most over 3 ticks in a row: at most the earlier run's learned peak (which counts its first ticks too), but for the
		 * record's rounding to 0.1 MB/s */
		assert_true(mbps > 0 && mbps <= carried[d] + 0.1);
	}
	assert_null(engine_guarantees_pending(rig->engine));
	assert_int_equal(
		log_capture_count(&rig->log, (const char *const[]){ "domain 0", "from the record", rig->record, NULL }),
		1);
	assert_true(status_enforced(rig));
	run(rig);
	assert_true(status_enforced(rig)); /* test_protect_learned shows the guard acting from the first ticks */
}

/* Without a record: nothing known, the guarantees pending, no minimum for web. */
static void test_without_a_record_the_guarantees_wait(void **state)
{
	struct capacity_rig *rig = *state;

	open_engine(rig, NULL, 3);
	expect_source(rig, 0, "none");
	assert_non_null(engine_guarantees_pending(rig->engine));
	assert_false(status_enforced(rig));
	run(rig);
	assert_false(status_enforced(rig));
	expect_source(rig, 0, "learned");
}

/* Rows of tick t_ms on domains 0 and 1, `mbps` on each. */
static void put_ticks(FILE *f, const char *domains[], unsigned count, unsigned ticks, double mbps)
{
	for (unsigned t = 1; t <= ticks; t++)
		for (unsigned d = 0; d < count; d++)
			fprintf(f, "2026-01-01T00:00:%02u.000Z,%u,web,%s,%.1f,100,0,,6000,,1,0,\n", t % 60, t * 20,
				domains[d], mbps);
}

static void write_record(const char *path, const char *domains[], unsigned count, double mbps)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(HEADER, f);
	put_ticks(f, domains, count, 5, mbps);
	fclose(f);
}

/* Only PATH.1 is there (rotated, the new file not begun yet): it is read. */
static void test_the_rotated_file_is_read(void **state)
{
	struct capacity_rig *rig = *state;
	char older[128];
	bool learned;

	snprintf(older, sizeof(older), "%s.1", rig->record);
	write_record(older, (const char *[]){ "*", "0", "1" }, 3, 9000);
	open_engine(rig, rig->record, 1);
	expect_source(rig, 0, "record");
	assert_true(engine_domain_capacity(rig->engine, 1, &learned) == 9000);
}

/* A record of another host's domains is named and not used. */
static void test_another_hosts_record_is_ignored(void **state)
{
	struct capacity_rig *rig = *state;

	write_record(rig->record, (const char *[]){ "*", "0", "1", "2" }, 4, 9000);
	open_engine(rig, rig->record, 1);
	expect_source(rig, 0, "none");
	assert_non_null(engine_guarantees_pending(rig->engine));
	assert_int_equal(log_capture_count(&rig->log, (const char *const[]){ "warning", rig->record, "another host",
									     "not used", NULL }),
			 1);
}

/* What is not a readable record, at `path` (the record or its PATH.1): a clear line, no figure, no
 * hang. */
static void expect_refused(struct capacity_rig *rig, const char *path, const char *why)
{
	open_engine(rig, rig->record, 1);
	expect_source(rig, 0, "none");
	if (log_capture_count(&rig->log, (const char *const[]){ "warning", path, why, "not used", NULL }) != 1)
		fail_msg("no warning with '%s'", why);
	close_engine(rig);
	unlink(path);
}

static void test_a_bad_record_is_named_and_ignored(void **state)
{
	struct capacity_rig *rig = *state;
	char older[128];

	snprintf(older, sizeof(older), "%s.1", rig->record);
	assert_int_equal(mkfifo(rig->record, 0600), 0);
	expect_refused(rig, rig->record, "a FIFO, not a regular file");
	/* PATH.1: mpamd refuses to write through a link at PATH itself */
	assert_int_equal(symlink("/dev/zero", older), 0);
	expect_refused(rig, older, "a character device, not a regular file");
	write_file(rig->record, HEADER "2026-01-01T00:00:00.000Z,20,web,0,12x,100,0,,,,1,0,\n");
	expect_refused(rig, rig->record, "record.csv:2: bad value in column mbps");
	write_file(rig->record, HEADER "2026-01-01T00:00:00.000Z,20,web,0,1e300,100,0,,,,1,0,\n"
				       "2026-01-01T00:00:00.020Z,40,web,0,1e300,100,0,,,,1,0,\n"
				       "2026-01-01T00:00:00.040Z,60,web,0,1e300,100,0,,,,1,0,\n"
				       "2026-01-01T00:00:00.040Z,60,web,1,1,100,0,,,,1,0,\n");
	expect_refused(rig, rig->record, "more than any capacity_mbps can be");
}

/* check-config --host reads the same file and names the source; no guarantee is then said to wait. */
static void test_check_config_names_the_record(void **state)
{
	struct capacity_rig *rig = *state;
	char config[128], empty[128];
	struct run_result r;

	write_record(rig->record, (const char *[]){ "*", "0", "1" }, 3, 9000);
	snprintf(config, sizeof(config), "%s/mpamd.ini", rig->dir);
	snprintf(empty, sizeof(empty), "%s/empty", rig->dir);
	mkdir(empty, 0755);
	write_file(config, "%s", config_text(rig, rig->record));
	assert_int_equal(run_command(ARGV(MPAMCTL, "check-config", "--host", "--sysfs-root", empty, config), &r), 0);
	if (!strstr(r.out, "capacity: domain 0 9000 MB/s (record), domain 1 9000 MB/s (record)"))
		fail_msg("%s", r.out);
	assert_null(strstr(r.out, "guarantee not enforced at first"));
	run_result_fini(&r);
	write_record(rig->record, (const char *[]){ "*", "0", "7" }, 3, 9000);
	assert_int_equal(run_command(ARGV(MPAMCTL, "check-config", "--host", "--sysfs-root", empty, config), &r), 0);
	assert_non_null(strstr(r.out, "capacity: domain 0 unknown (learned from the totals seen)"));
	assert_non_null(strstr(r.out, "guarantee not enforced at first"));
	assert_non_null(strstr(r.err, "warning: record file"));
	assert_non_null(strstr(r.err, "another host"));
	run_result_fini(&r);
}

#define record_test(f) cmocka_unit_test_setup_teardown(f, setup, capacity_rig_teardown)

TEST_MAIN({
	record_test(test_a_record_of_an_earlier_run_gives_the_capacity),
	record_test(test_without_a_record_the_guarantees_wait),
	record_test(test_the_rotated_file_is_read),
	record_test(test_another_hosts_record_is_ignored),
	record_test(test_a_bad_record_is_named_and_ignored),
	record_test(test_check_config_names_the_record),
})
