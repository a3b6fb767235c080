/* classes = shared on the resctrl emulator through the engine: more partitions than CLOSIDs all open,
 * each a monitoring group with its own RMID (so its own measured rate) inside a class group that
 * partitions of equal mb_max share; a partition moved to another class keeps a continuous count
 * (rename), or, where the rename is refused, gets a new group, its tasks moved, and one invalid sample
 * for the new baseline. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/resctrl/resctrl.h"
#include "core/ctl/json_text.h"
#include "core/engine/engine.h"
#include "core/engine/engine_snapshot.h"
#include "tests/util/emu_runner.h"
#include "tests/util/engine_util.h"
#include "tests/util/log_capture.h"
#include "tests/util/record_reader.h"
#include "tests/util/testutil.h"

#define MAX_PARTITIONS 64

struct classes_run {
	struct emu *emu;
	char dir[64], config[96], traffic[96], record[96];
	struct engine *engine;
	struct log_capture log;
	pid_t pids[MAX_PARTITIONS];
	size_t count;
	unsigned stop_at;
	/* At tick move_at, partition 0 gets mb_max = move_to; then each tick is checked. */
	unsigned move_at;
	const char *move_to;
	/* What partition 0 showed at each tick after the move. */
	unsigned checked, invalid, jumps;
	uint64_t last_bytes;
	bool bytes_went_back;
	char invalid_reason[256];
	/* From tick settle_at on, each partition's class is watched, and a change counted. */
	unsigned settle_at, class_changes;
	unsigned settled_class[MAX_PARTITIONS];
};

/* The mb_max of partition i: nine distinct values, each shared by several partitions. */
static unsigned mb_max_of(size_t i)
{
	return 10 + 10 * (unsigned)(i % 9);
}

static void body_of(struct classes_run *run, char *buf, size_t len)
{
	size_t used = 0;

	for (size_t i = 0; i < run->count && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used,
					 "[partition \"p%02zu\"]\npids = %d\nmb_max = %u\nsim_demand = 100\n", i,
					 (int)run->pids[i], mb_max_of(i));
}

/* As body_of, with domain 1 another ceiling: 63 pairs in all. */
static void per_domain_body_of(struct classes_run *run, char *buf, size_t len)
{
	size_t used = 0;

	for (size_t i = 0; i < run->count && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used,
					 "[partition \"p%02zu\"]\npids = %d\nmb_max = %u,1=%u\nsim_demand = 100\n", i,
					 (int)run->pids[i], mb_max_of(i), 20 + 10 * (unsigned)(i % 7));
}

typedef void body_fn(struct classes_run *run, char *buf, size_t len);

static void run_start_with(struct classes_run *run, size_t count, const char *const *emu_args, const char *mode,
			   body_fn *body_writer)
{
	static char body[MAX_PARTITIONS * 128];

	memset(run, 0, sizeof(*run));
	run->count = count;
	for (size_t i = 0; i < count; i++)
		run->pids[i] = spawn_kept_sleeper();
	snprintf(run->dir, sizeof(run->dir), "/tmp/mpamd-classes-XXXXXX");
	assert_non_null(mkdtemp(run->dir));
	snprintf(run->config, sizeof(run->config), "%s/mpamd.ini", run->dir);
	snprintf(run->traffic, sizeof(run->traffic), "%s/traffic.ini", run->dir);
	snprintf(run->record, sizeof(run->record), "%s/record.csv", run->dir);
	body_writer(run, body, sizeof(body));
	assert_int_equal(write_text_file(run->traffic, "[global]\ninterval_ms = 10\n%s", body), 0);
	assert_int_equal(emu_start("intel", run->traffic, emu_args, &run->emu), 0);
	assert_int_equal(write_text_file(run->config,
					 "[global]\nbackend = resctrl\ninterval_ms = 10\nresctrl_root = %s\n"
					 "classes = %s\nrecord = %s\n%s",
					 emu_root(run->emu), mode, run->record, body),
			 0);
}

static void run_start_mode(struct classes_run *run, size_t count, const char *const *emu_args, const char *mode)
{
	run_start_with(run, count, emu_args, mode, body_of);
}

static void run_start(struct classes_run *run, size_t count, const char *const *emu_args)
{
	run_start_mode(run, count, emu_args, "shared");
}

/* `count` partitions sharing classes on 256 RMIDs, p00 moved to mb_max = 20 at tick move_at. */
static void run_start_moving(struct classes_run *run, size_t count, unsigned move_at, unsigned stop_at)
{
	static const char *const args[] = { "--rmids", "256", NULL };

	run_start(run, count, args);
	run->move_at = move_at;
	run->move_to = "20";
	run->stop_at = stop_at;
}

static void move_first(struct classes_run *run, struct engine *e)
{
	char setting[32];
	const char *settings[] = { setting };
	struct err err = { "" };

	snprintf(setting, sizeof(setting), "mb_max=%s", run->move_to);
	if (engine_set(e, "p00", settings, 1, NULL, NULL, &err) < 0)
		fail_msg("set: %s", err.text);
}

/* After the move: is p00's sample valid, its rate no more than its demand allows (100 MB/s, with the
 * emulator's noise), its count going forward? */
static void check_first(struct classes_run *run, const struct partition_status *st)
{
	run->checked++;
	if (!st->valid) {
		run->invalid++;
		snprintf(run->invalid_reason, sizeof(run->invalid_reason), "%s", st->reason ? st->reason : "");
	} else if (st->mbps > 300) {
		run->jumps++;
	}
	if (st->bytes_total < run->last_bytes)
		run->bytes_went_back = true;
	run->last_bytes = st->bytes_total;
}

static void on_tick(void *ctx, struct engine *e)
{
	struct classes_run *run = ctx;
	uint64_t t = engine_ticks_done(e);

	if (run->move_to && t == run->move_at)
		move_first(run, e);
	if (run->move_to && t > run->move_at)
		check_first(run, engine_partition(e, 0));
	if (run->move_to && t == run->move_at)
		run->last_bytes = engine_partition(e, 0)->bytes_total;
	for (size_t i = 0; run->settle_at && t >= run->settle_at && i < run->count; i++) {
		unsigned c = engine_partition(e, i)->class_id;
		run->class_changes += t > run->settle_at && c != run->settled_class[i];
		run->settled_class[i] = c;
	}
	if (t >= run->stop_at)
		engine_stop(e);
}

static void run_engine(struct classes_run *run)
{
	engine_run_file_captured(run->config, on_tick, run, &run->log, &run->engine);
}

static void run_stop(struct classes_run *run)
{
	engine_free(run->engine);
	log_capture_free(&run->log);
	kill_sleepers(NULL);
	unlink(run->config);
	unlink(run->traffic);
	unlink(run->record);
	rmdir(run->dir);
	assert_int_equal(emu_stop(run->emu), 0);
}

/* mpamd's control groups at the emulator's root (directories under the prefix with a schemata). */
static unsigned count_class_groups(struct classes_run *run)
{
	DIR *dir = opendir(emu_root(run->emu));
	struct dirent *d;
	unsigned count = 0;

	assert_non_null(dir);
	while ((d = readdir(dir))) {
		char file[512];
		struct stat st;
		snprintf(file, sizeof(file), "%s/%s/schemata", emu_root(run->emu), d->d_name);
		count += !strncmp(d->d_name, "mpamd-", 6) && stat(file, &st) == 0;
	}
	closedir(dir);
	return count;
}

/* The monitoring group of partition i in class c. */
static bool member_group_exists(struct classes_run *run, unsigned c, size_t i)
{
	char path[128];

	snprintf(path, sizeof(path), "mpamd-c%u/mon_groups/mpamd-p%02zu", c, i);
	return emu_group_exists(run->emu, path);
}

/* p00 was moved once (its event saying `how`, NULL: anything), and across the move had `invalid`
 * invalid samples, no jump, and a count that never went back. */
static void expect_one_move(struct classes_run *run, const char *how, unsigned invalid)
{
	const char *moved[] = { "partition p00: class: moved from class", how, NULL };

	assert_int_equal(log_capture_count(&run->log, moved), 1);
	if (run->invalid != invalid || run->jumps || run->bytes_went_back)
		fail_msg("p00 across its move: %u invalid (%s), %u jumps, count went back: %d", run->invalid,
			 run->invalid_reason, run->jumps, run->bytes_went_back);
}

/* 60 partitions on 16 CLOSIDs with 256 RMIDs: every one opens and is measured by itself; the nine
 * distinct mb_max values make nine classes, each partition in the one of its mb_max; p00 moved from
 * 10% to 20% (p01's class) by set keeps a continuous count. */
static void test_sixty_partitions_share_classes(void **state)
{
	struct classes_run run;

	(void)state;
	run_start_moving(&run, 60, 20, 40);
	run_engine(&run);
	struct engine *e = run.engine;
	for (size_t i = 0; i < 60; i++) {
		const struct partition_status *st = engine_partition(e, i);
		if (!st->open || st->failed)
			fail_msg("p%02zu is not open: %s", i, st->reason ? st->reason : "");
		if (!st->valid || st->mbps <= 0)
			fail_msg("p%02zu has no measured rate of its own: %s", i, st->reason ? st->reason : "");
		assert_true(st->in_class);
		assert_true(member_group_exists(&run, st->class_id, i));
	}
	assert_true(count_class_groups(&run) <= 15);
	assert_int_equal(count_class_groups(&run), 9);
	for (size_t i = 1; i < 60; i++)
		for (size_t j = 1; j < i; j++)
			if ((mb_max_of(i) == mb_max_of(j)) !=
			    (engine_partition(e, i)->class_id == engine_partition(e, j)->class_id))
				fail_msg("p%02zu (mb_max %u) and p%02zu (mb_max %u): classes %u and %u", i,
					 mb_max_of(i), j, mb_max_of(j), engine_partition(e, i)->class_id,
					 engine_partition(e, j)->class_id);
	/* p00 now asks for p01's 20% and is in p01's class, its count unbroken across the move. */
	assert_int_equal(engine_partition(e, 0)->class_id, engine_partition(e, 1)->class_id);
	assert_true(member_group_exists(&run, engine_partition(e, 0)->class_id, 0));
	assert_true(run.checked >= 15);
	expect_one_move(&run, NULL, 0);
	for (size_t i = 1; i < 9; i++) {
		char group[32], mb[32];
		snprintf(group, sizeof(group), "mpamd-c%u", engine_partition(e, i)->class_id);
		snprintf(mb, sizeof(mb), "MB:0=%u;1=%u", mb_max_of(i), mb_max_of(i));
		if (!emu_group_file_has(run.emu, group, "schemata", mb))
			fail_msg("%s does not hold %s for p%02zu", group, mb, i);
	}
	run_stop(&run);
}

/* A rename the kernel refuses: the partition gets a new group in its new class and its tasks move
 * there; that tick's sample is invalid with a reason (the new baseline), and the count goes on. */
/* Forty partitions wanting 40 distinct pairs of ceilings in 15 classes: quantised. What a class holds
 * is mpamd's own rounding, so no partition is "restored" as if another tool had changed its limits,
 * and with wants that stand still no partition moves once all are placed. */
static void test_quantised_partitions_hold_still(void **state)
{
	const char *args[] = { "--rmids", "256", NULL };
	const char *restored[] = { "changed outside mpamd", NULL };
	struct classes_run run;

	(void)state;
	run_start_with(&run, 40, args, "shared", per_domain_body_of);
	run.settle_at = 10;
	run.stop_at = 40;
	run_engine(&run);
	assert_true(count_class_groups(&run) <= 15);
	for (size_t i = 0; i < run.count; i++)
		if (!engine_partition(run.engine, i)->open)
			fail_msg("p%02zu is not open: %s", i, engine_partition(run.engine, i)->reason);
	assert_int_equal(log_capture_count(&run.log, restored), 0);
	assert_int_equal(run.class_changes, 0);
	run_stop(&run);
}

/* Sixty partitions wanting 60 distinct pairs of ceilings in 15 classes, all opening at start: each
 * opening is only placed, and the first tick's step places them all, so no partition is carried from
 * class to class while the others open (the plan made again at every opening moved the same
 * partitions to and fro: at 1000 partitions, 20,491 renames before the second tick), and the groups
 * are not counted again at every opening. */
static void test_openings_move_nobody_twice(void **state)
{
	const char *args[] = { "--rmids", "256", NULL };
	struct classes_run run;

	(void)state;
	unsigned long listed_before, listed_after;

	run_start_with(&run, 60, args, "shared", per_domain_body_of);
	run.stop_at = 1;
	assert_int_equal(emu_listings(run.emu, &listed_before), 0);
	run_engine(&run);
	assert_int_equal(emu_listings(run.emu, &listed_after), 0);
	/* The groups are counted (every group's directory listed) when the room is asked, not once per
	 * partition opening: 60 openings walking 16 groups each listed over 1000 directories. */
	if (listed_after - listed_before > 100)
		fail_msg("%lu directories listed for 60 partitions opening", listed_after - listed_before);
	assert_true(count_class_groups(&run) <= 15);
	for (size_t i = 0; i < run.count; i++) {
		char who[80];
		snprintf(who, sizeof(who), "partition p%02zu: class: moved from class", i);
		const char *moved[] = { who, NULL };
		if (!engine_partition(run.engine, i)->open)
			fail_msg("p%02zu is not open: %s", i, engine_partition(run.engine, i)->reason);
		if (log_capture_count(&run.log, moved) > 1)
			fail_msg("p%02zu moved %u times by the end of the first tick", i,
				 log_capture_count(&run.log, moved));
	}
	run_stop(&run);
}

/* mpamd keeps its count of the groups between rechecks, moved by its own mkdirs and rmdirs: the
 * groups another tool makes meanwhile are in status's count of the RMIDs by the next recheck (every
 * 10 ticks). Three partitions of three ceilings: the default group, 3 classes, 3 monitoring groups
 * and the other tool's 4 hold 11 of 20. */
static void on_tick_another_tool(void *ctx, struct engine *e)
{
	struct classes_run *run = ctx;
	char path[160];

	if (engine_ticks_done(e) == 3)
		for (int i = 0; i < 4; i++) {
			snprintf(path, sizeof(path), "%s/mon_groups/other%d", emu_root(run->emu), i);
			if (mkdir(path, 0755) < 0)
				fail_msg("%s: %s", path, strerror(errno));
		}
	if (engine_ticks_done(e) >= run->stop_at)
		engine_stop(e);
}

static void test_other_tools_groups_counted_at_recheck(void **state)
{
	struct classes_run run;
	const char *const args[] = { "--rmids", "20", NULL };

	(void)state;
	run_start(&run, 3, args);
	run.stop_at = 25;
	engine_run_file_captured(run.config, on_tick_another_tool, &run, &run.log, &run.engine);
	json_t *status = engine_snapshot_status(run.engine);
	json_t *classes = json_object_get(status, "classes");
	assert_int_equal(json_integer_value(json_object_get(classes, "used")), 3);
	assert_int_equal(json_integer_value(json_object_get(classes, "monitors_used")), 11);
	assert_int_equal(json_integer_value(json_object_get(classes, "monitors_left")), 9);
	json_decref(status);
	run_stop(&run);
}

/* Hosts with many RMIDs (the class bench's 1024-RMID rows): the emulator gives 1024, and 300 monitoring
 * groups, past the 256 it once stopped at, each take one. */
static void test_a_thousand_rmids(void **state)
{
	const char *args[] = { "--rmids", "1024", NULL };
	struct emu *emu;
	char path[160];

	(void)state;
	assert_int_equal(emu_start("intel", NULL, args, &emu), 0);
	assert_true(emu_group_file_has(emu, "info/L3_MON", "num_rmids", "1024"));
	for (unsigned i = 0; i < 300; i++) {
		snprintf(path, sizeof(path), "%s/mon_groups/m%u", emu_root(emu), i);
		if (mkdir(path, 0755) < 0)
			fail_msg("monitoring group %u: %s", i, strerror(errno));
	}
	assert_int_equal(emu_stop(emu), 0);
}

static void test_refused_rename_moves_the_tasks(void **state)
{
	struct classes_run run;

	(void)state;
	run_start_moving(&run, 3, 10, 25);
	assert_int_equal(emu_ctl(run.emu, "fail_rename EPERM mpamd-p00 1 refused by the test"), 0);
	run_engine(&run);
	struct engine *e = run.engine;
	const struct partition_status *st = engine_partition(e, 0);
	char tasks[32];

	assert_true(st->open && st->valid);
	assert_int_equal(st->class_id, engine_partition(e, 1)->class_id);
	assert_true(member_group_exists(&run, st->class_id, 0));
	snprintf(tasks, sizeof(tasks), "%d\n", (int)run.pids[0]);
	char path[128];
	snprintf(path, sizeof(path), "mpamd-c%u/mon_groups/mpamd-p00", st->class_id);
	assert_true(emu_group_file_has(run.emu, path, "tasks", tasks));
	expect_one_move(&run, "in a new group", 1);
	const char *parts[] = { "moving its tasks to a new group instead", NULL };
	assert_int_equal(log_capture_count(&run.log, parts), 1);
	run_stop(&run);
}

/* classes = auto with more partitions than CLOSIDs shares them; with 20 RMIDs, 10 partitions find none
 * (the default group, 9 class groups and 10 monitoring groups hold them): each of those says so, and
 * the others are measured as ever. status counts the classes and RMIDs. */
static void test_out_of_rmids(void **state)
{
	struct classes_run run;
	const char *const args[] = { "--rmids", "20", NULL };

	(void)state;
	run_start_mode(&run, 20, args, "auto");
	run.stop_at = 15;
	run_engine(&run);
	struct engine *e = run.engine;
	unsigned open = 0, failed = 0;
	for (size_t i = 0; i < 20; i++) {
		const struct partition_status *st = engine_partition(e, i);
		if (st->open) {
			open++;
			if (!st->valid || st->mbps <= 0)
				fail_msg("p%02zu is open but not measured: %s", i, st->reason ? st->reason : "");
		} else if (st->failed && st->reason && strstr(st->reason, "no RMID left")) {
			failed++;
		} else {
			fail_msg("p%02zu: %s", i, st->reason ? st->reason : "neither open nor out of RMIDs");
		}
	}
	assert_int_equal(open, 10);
	assert_int_equal(failed, 10);
	json_t *status = engine_snapshot_status(e);
	json_t *classes = json_object_get(status, "classes");
	assert_true(json_is_object(classes));
	assert_int_equal(json_integer_value(json_object_get(classes, "used")), 9);
	assert_int_equal(json_integer_value(json_object_get(classes, "left")), 6);
	assert_string_equal(json_string_value(json_object_get(classes, "monitors_name")), "RMIDs");
	assert_int_equal(json_integer_value(json_object_get(classes, "monitors_used")), 20);
	assert_int_equal(json_integer_value(json_object_get(classes, "monitors_left")), 0);
	/* nine distinct ceilings in fifteen classes: every partition holds what it asked */
	assert_int_equal(json_integer_value(json_object_get(classes, "members")), 10);
	assert_true(json_is_real(json_object_get(classes, "deviation_pp")));
	assert_true(json_real_value(json_object_get(classes, "deviation_pp")) == 0.0);
	json_decref(status);
	json_t *row = engine_list_row(e, "p03");
	assert_int_equal(json_integer_value(json_object_get(row, "hw_class")), engine_partition(e, 3)->class_id);
	assert_true(json_is_number(json_object_get(row, "mb_max_asked")));
	json_decref(row);
	run_stop(&run);
}

/* A retry refused for want of room as before (here: a reload, which tries failed partitions at once)
 * is not logged again at error level: ten partitions out of RMIDs say so once each. */
static void on_tick_reload(void *ctx, struct engine *e)
{
	struct classes_run *run = ctx;
	struct err err = { "" };

	if (engine_ticks_done(e) == 5 && engine_reload(e, &err) < 0)
		fail_msg("reload: %s", err.text);
	if (engine_ticks_done(e) >= run->stop_at)
		engine_stop(e);
}

static void test_out_of_rmids_said_once(void **state)
{
	struct classes_run run;
	const char *const args[] = { "--rmids", "20", NULL };
	const char *said[] = { "error: partition p", "no RMID left", NULL };

	(void)state;
	run_start_mode(&run, 20, args, "auto");
	run.stop_at = 10;
	engine_run_file_captured(run.config, on_tick_reload, &run, &run.log, &run.engine);
	assert_int_equal(log_capture_count(&run.log, said), 10);
	for (size_t i = 0; i < run.count; i++) {
		const struct partition_status *st = engine_partition(run.engine, i);
		assert_true(st->open || (st->failed && st->reason && strstr(st->reason, "no RMID left")));
	}
	run_stop(&run);
}

/* classes = auto with no more partitions than CLOSIDs: a control group each, as ever. */
static void test_auto_with_enough_closids_keeps_own(void **state)
{
	struct classes_run run;

	(void)state;
	run_start_mode(&run, 3, NULL, "auto");
	run.stop_at = 5;
	run_engine(&run);
	for (size_t i = 0; i < 3; i++) {
		char group[32];
		snprintf(group, sizeof(group), "mpamd-p%02zu", i);
		assert_true(engine_partition(run.engine, i)->open);
		assert_false(engine_partition(run.engine, i)->in_class);
		assert_true(emu_group_file_has(run.emu, group, "schemata", "MB:"));
	}
	json_t *status = engine_snapshot_status(run.engine);
	assert_true(json_is_null(json_object_get(status, "classes")));
	json_decref(status);
	json_t *row = engine_list_row(run.engine, "p01"), *domain; /* no class: nothing asked of one */
	size_t d;
	assert_true(json_is_null(json_object_get(row, "mb_max_asked")));
	assert_true(json_array_size(json_object_get(row, "domains")) > 0);
	json_array_foreach(json_object_get(row, "domains"), d, domain) {
		json_t *asked = json_object_get(domain, "mb_max_asked");
		assert_true(asked && json_is_null(asked));
	}
	json_decref(row);
	char *record = read_text_file(run.record); /* a class each: the record has no class columns */
	assert_non_null(record);
	assert_null(strstr(record, "hw_class"));
	assert_null(strstr(record, "mb_max_asked"));
	free(record);
	run_stop(&run);
}

/* A move renames a monitoring group only where its RMID does not depend on its CLOSID: Intel and AMD;
 * on MPAM (an RMID is a PMG of its PARTID) the kernel's rename leaves the tasks behind, so mpamd moves
 * the tasks instead. */
static void test_rename_only_where_it_keeps_counts(void **state)
{
	static const char *const profiles[] = { "intel", "amd", "mpam73" };
	static const bool keeps[] = { true, true, false };

	(void)state;
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		struct emu *emu = NULL;
		struct resctrl_fs *fs = NULL;
		struct err err = { "" };
		assert_int_equal(emu_start(profiles[i], NULL, NULL, &emu), 0);
		if (resctrl_fs_new(emu_root(emu), false, &fs, &err) < 0)
			fail_msg("%s: %s", profiles[i], err.text);
		if (resctrl_rename_keeps_counts(&fs->info) != keeps[i])
			fail_msg("%s: a rename %s counts", profiles[i], keeps[i] ? "should keep" : "keeps no");
		resctrl_fs_free(fs);
		assert_int_equal(emu_stop(emu), 0);
	}
}

/* Quantisation: 20 partitions want 18 distinct (per-domain) ceilings on 15 classes. Each neighbour
 * pair in the rule's order (best-effort first, then protected; by domain 0, then domain 1) costs at
 * least 30 points to merge but three, which cost 10: those three merge (each holds its lower member's
 * ceilings, 30 points of deviation in all) and nothing else does. The latency-critical partition wants
 * what a best-effort one wants (a merge that would cost nothing) but keeps a class of its own. */
struct quant_want {
	unsigned at[2]; /* mb_max on domains 0 and 1 */
	unsigned group; /* the class it should end in: equal numbers share one */
	bool protected_;
};

static const struct quant_want quant_wants[] = {
	{ { 10, 100 }, 0, false },   { { 20, 50 }, 1, false },	{ { 20, 60 }, 1, false },    { { 30, 20 }, 2, false },
	{ { 30, 90 }, 3, false },    { { 40, 40 }, 4, false },	{ { 50, 40 }, 4, false },    { { 60, 80 }, 5, false },
	{ { 70, 30 }, 6, false },    { { 70, 100 }, 7, false }, { { 80, 60 }, 8, false },    { { 80, 70 }, 8, false },
	{ { 90, 20 }, 9, false },    { { 90, 50 }, 10, false }, { { 100, 10 }, 11, false },  { { 100, 40 }, 12, false },
	{ { 100, 100 }, 13, false }, { { 30, 90 }, 3, false },	{ { 100, 100 }, 13, false }, { { 80, 60 }, 14, true },
};
#define QUANT_COUNT  (sizeof(quant_wants) / sizeof(quant_wants[0]))
#define QUANT_GROUPS 15u

static void quant_body(struct classes_run *run, char *buf, size_t len)
{
	size_t used = 0;

	for (size_t i = 0; i < run->count && used < len; i++) {
		const struct quant_want *q = &quant_wants[i];
		used += (size_t)snprintf(buf + used, len - used,
					 "[partition \"p%02zu\"]\npids = %d\nmb_max = 0=%u,1=%u\nsim_demand = 100\n%s",
					 i, (int)run->pids[i], q->at[0], q->at[1],
					 q->protected_ ? "class = latency-critical\nguarantee_mbps = 1\n" : "");
	}
}

/* What class group `group` should hold on domain d: the highest want of its members if one is
 * protected, else the lowest. */
static unsigned quant_held(unsigned group, unsigned d)
{
	unsigned lo = 100, hi = 0;
	bool high = false;

	for (size_t i = 0; i < QUANT_COUNT; i++) {
		if (quant_wants[i].group != group)
			continue;
		high |= quant_wants[i].protected_;
		lo = quant_wants[i].at[d] < lo ? quant_wants[i].at[d] : lo;
		hi = quant_wants[i].at[d] > hi ? quant_wants[i].at[d] : hi;
	}
	return high ? hi : lo;
}

static unsigned higher(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

/* The record's rows of partition i at its last tick: its class, and on each domain what it asked
 * beside what its class holds (the total row: the highest of each). */
static void expect_record_of(const struct record_line *rows, long count, unsigned class_id, size_t i)
{
	const struct quant_want *q = &quant_wants[i];
	char name[16];
	unsigned seen = 0;

	snprintf(name, sizeof(name), "p%02zu", i);
	for (long r = count - 1; r >= 0 && rows[r].t_ms == rows[count - 1].t_ms; r--) {
		const struct record_line *row = &rows[r];
		if (strcmp(row->partition, name))
			continue;
		bool total = !strcmp(row->domain, "*");
		unsigned d = total ? 0 : (unsigned)atoi(row->domain);
		double held =
			total ? higher(quant_held(q->group, 0), quant_held(q->group, 1)) : quant_held(q->group, d);
		double asked = total ? higher(q->at[0], q->at[1]) : q->at[d];
		if (!row->in_class || row->class_id != class_id || !row->has_mb_max_asked)
			fail_msg("%s on domain %s: class %s%u (want c%u), asked %s", name, row->domain,
				 row->in_class ? "c" : "none ", row->class_id, class_id,
				 row->has_mb_max_asked ? "given" : "empty");
		if (row->mb_max != held || row->mb_max_asked != asked)
			fail_msg("%s on domain %s: mb_max %g asked %g, want %g asked %g", name, row->domain,
				 row->mb_max, row->mb_max_asked, held, asked);
		seen++;
	}
	assert_int_equal(seen, 3); /* the total and two domains */
}

/* The record of the quantised run: every partition's class and what it asked (p02, which asked 60 on
 * domain 1 and is held at p01's 50 there, among them), and mpamctl plot still draws such a file. */
static void expect_quantised_record(struct classes_run *run)
{
	struct record_line *rows;
	char header[256], svg[128];
	long count = record_read_all(run->record, header, sizeof(header), &rows);

	assert_true(count > 0);
	assert_non_null(strstr(header, ",hw_class,mb_max_asked,"));
	for (size_t i = 0; i < QUANT_COUNT; i++)
		expect_record_of(rows, count, engine_partition(run->engine, i)->class_id, i);
	assert_true(quant_wants[2].at[1] != quant_held(quant_wants[2].group, 1)); /* what the test rests on */
	free(rows);
	snprintf(svg, sizeof(svg), "%s/plot.svg", run->dir);
	expect_run(ARGV(MPAMCTL, "plot", run->record, "-o", svg, "-p", "p02"), 0, "");
	unlink(svg);
}

/* The domain rows of list (as jansson builds it, and as the control socket writes it) and of show:
 * on each domain mb_max is what the class holds there and mb_max_asked what the partition asked (p02
 * asked 60 on domain 1 and is held at 50 there). */
static void expect_domain_rows(json_t *domains, const char *how, size_t i)
{
	const struct quant_want *q = &quant_wants[i];

	assert_int_equal(json_array_size(domains), 2);
	for (unsigned d = 0; d < 2; d++) {
		json_t *row = json_array_get(domains, d);
		json_t *held = json_object_get(row, "mb_max"), *asked = json_object_get(row, "mb_max_asked");
		if (!json_is_number(held) || !json_is_number(asked) ||
		    json_number_value(held) != quant_held(q->group, d) || json_number_value(asked) != q->at[d])
			fail_msg("%s: p%02zu on domain %u: mb_max %g, mb_max_asked %s%g; want %u and %u", how, i, d,
				 json_number_value(held), json_is_number(asked) ? "" : "(not a number) ",
				 json_number_value(asked), quant_held(q->group, d), q->at[d]);
	}
}

static json_t *row_named(json_t *list, const char *name)
{
	json_t *row;
	size_t i;

	json_array_foreach(json_object_get(list, "partitions"), i, row)
		if (!strcmp(json_string_value(json_object_get(row, "name")), name))
			return row;
	fail_msg("no row of %s", name);
	return NULL;
}

static void expect_snapshot_asked(struct engine *e)
{
	struct engine_snapshot *s = engine_snapshot_take(e);
	struct json_text t = { 0 };
	json_error_t error;

	assert_non_null(s);
	assert_true(snapshot_list_text(s, &t));
	json_t *list = snapshot_list_json(s), *replied = json_loads(t.data, 0, &error);
	if (!replied)
		fail_msg("list's text is not JSON: %s", error.text);
	for (size_t i = 0; i < QUANT_COUNT; i++) {
		char name[16];
		snprintf(name, sizeof(name), "p%02zu", i);
		expect_domain_rows(json_object_get(row_named(list, name), "domains"), "list", i);
		expect_domain_rows(json_object_get(row_named(replied, name), "domains"), "list's reply", i);
		json_t *detail = snapshot_domain_rows_json(s, engine_snapshot_row(s, name), true);
		expect_domain_rows(detail, "show", i);
		json_decref(detail);
	}
	assert_true(quant_wants[2].at[1] != quant_held(quant_wants[2].group, 1)); /* what the test rests on */
	json_decref(list);
	json_decref(replied);
	json_text_fini(&t);
	engine_snapshot_unref(s);
}

static void test_more_ceilings_than_classes_are_quantised(void **state)
{
	struct classes_run run;
	const char *const args[] = { "--rmids", "256", NULL };
	unsigned deviation = 0;

	(void)state;
	run_start_with(&run, QUANT_COUNT, args, "shared", quant_body);
	run.stop_at = 30;
	run_engine(&run);
	struct engine *e = run.engine;
	assert_int_equal(count_class_groups(&run), QUANT_GROUPS);
	for (size_t i = 0; i < QUANT_COUNT; i++) {
		const struct partition_status *st = engine_partition(e, i);
		const struct quant_want *q = &quant_wants[i];
		char group[32], mb[32];
		if (!st->open || !st->in_class)
			fail_msg("p%02zu is not open in a class: %s", i, st->reason ? st->reason : "");
		for (size_t j = 0; j < i; j++)
			if ((q->group == quant_wants[j].group) != (st->class_id == engine_partition(e, j)->class_id))
				fail_msg("p%02zu (group %u) and p%02zu (group %u): classes %u and %u", i, q->group, j,
					 quant_wants[j].group, st->class_id, engine_partition(e, j)->class_id);
		/* What the kernel's file holds: best-effort never above its want, protected never below. */
		unsigned held[2] = { quant_held(q->group, 0), quant_held(q->group, 1) };
		snprintf(group, sizeof(group), "mpamd-c%u", st->class_id);
		snprintf(mb, sizeof(mb), "MB:0=%u;1=%u", held[0], held[1]);
		if (!emu_group_file_has(run.emu, group, "schemata", mb))
			fail_msg("%s does not hold %s for p%02zu", group, mb, i);
		for (unsigned d = 0; d < 2; d++) {
			if (q->protected_ ? held[d] < q->at[d] : held[d] > q->at[d])
				fail_msg("p%02zu wants %u on domain %u and is held at %u", i, q->at[d], d, held[d]);
			deviation += held[d] > q->at[d] ? held[d] - q->at[d] : q->at[d] - held[d];
		}
	}
	/* The three cheapest merges and no other. */
	assert_int_equal(deviation, 30);
	expect_snapshot_asked(e);
	expect_quantised_record(&run);
	run_stop(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_sixty_partitions_share_classes, kill_sleepers),
		cmocka_unit_test_teardown(test_quantised_partitions_hold_still, kill_sleepers),
		cmocka_unit_test_teardown(test_openings_move_nobody_twice, kill_sleepers),
		cmocka_unit_test_teardown(test_other_tools_groups_counted_at_recheck, kill_sleepers),
		cmocka_unit_test_teardown(test_refused_rename_moves_the_tasks, kill_sleepers),
		cmocka_unit_test_teardown(test_out_of_rmids, kill_sleepers),
		cmocka_unit_test_teardown(test_out_of_rmids_said_once, kill_sleepers),
		cmocka_unit_test_teardown(test_more_ceilings_than_classes_are_quantised, kill_sleepers),
		cmocka_unit_test_teardown(test_auto_with_enough_closids_keeps_own, kill_sleepers),
		cmocka_unit_test(test_rename_only_where_it_keeps_counts),
		cmocka_unit_test(test_a_thousand_rmids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
