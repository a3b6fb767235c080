/* classes = shared on the resctrl emulator's Linux 7.3 MPAM host (mpam73: 32 PARTIDs with 2 PMGs each,
 * an RMID being a PMG of its PARTID): a class has one monitoring id besides its own group's. Six
 * partitions of two ceilings make two classes; in each, one partition has a monitoring group and is
 * measured, and the other two are put in the class's own group: open, limited by their class, and
 * their samples invalid with the reason, never the class group's count (which is the whole class's). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/engine/engine.h"
#include "core/engine/engine_snapshot.h"
#include "tests/util/emu_runner.h"
#include "tests/util/engine_util.h"
#include "tests/util/log_capture.h"
#include "tests/util/testutil.h"

#define PARTITIONS 6

struct mpam_run {
	struct emu *emu;
	char dir[64], config[96], traffic[96];
	struct engine *engine;
	struct log_capture log;
	pid_t pids[PARTITIONS];
	unsigned stop_at;
	/* At tick move_at, partition `mover` gets mb_max = move_to (0: no move). */
	unsigned move_at, move_to;
	size_t mover;
	/* At tick drop_at (0: never), a reload without partition `dropped`. */
	unsigned drop_at;
	size_t dropped;
};

/* Two ceilings, 25% and 50%, alternating. */
static unsigned mb_max_of(size_t i)
{
	return i % 2 ? 50 : 25;
}

/* The partitions' sections, but for `skip` (PARTITIONS: none). */
static void body_of(const struct mpam_run *run, size_t skip, char *body, size_t len)
{
	size_t used = 0;

	body[0] = '\0';
	for (size_t i = 0; i < PARTITIONS; i++)
		if (i != skip)
			used += (size_t)snprintf(body + used, len - used,
						 "[partition \"p%02zu\"]\npids = %d\nmb_max = %u\nsim_demand = 100\n",
						 i, (int)run->pids[i], mb_max_of(i));
}

static int write_config(const struct mpam_run *run, size_t skip)
{
	char body[PARTITIONS * 128];

	body_of(run, skip, body, sizeof(body));
	return write_text_file(run->config,
			       "[global]\nbackend = resctrl\ninterval_ms = 10\nresctrl_root = %s\nclasses = shared\n%s",
			       emu_root(run->emu), body);
}

static void run_start(struct mpam_run *run, const char *const *emu_args)
{
	char body[PARTITIONS * 128];

	memset(run, 0, sizeof(*run));
	for (size_t i = 0; i < PARTITIONS; i++)
		run->pids[i] = spawn_kept_sleeper();
	body_of(run, PARTITIONS, body, sizeof(body));
	snprintf(run->dir, sizeof(run->dir), "/tmp/mpamd-mpam-classes-XXXXXX");
	assert_non_null(mkdtemp(run->dir));
	snprintf(run->config, sizeof(run->config), "%s/mpamd.ini", run->dir);
	snprintf(run->traffic, sizeof(run->traffic), "%s/traffic.ini", run->dir);
	assert_int_equal(write_text_file(run->traffic, "[global]\ninterval_ms = 10\n%s", body), 0);
	assert_int_equal(emu_start("mpam73", run->traffic, emu_args, &run->emu), 0);
	assert_int_equal(write_config(run, PARTITIONS), 0);
}

static void on_tick(void *ctx, struct engine *e)
{
	struct mpam_run *run = ctx;
	uint64_t t = engine_ticks_done(e);

	if (run->move_to && t == run->move_at) {
		char setting[32], name[8];
		const char *settings[] = { setting };
		struct err err = { "" };
		snprintf(setting, sizeof(setting), "mb_max=%u", run->move_to);
		snprintf(name, sizeof(name), "p%02zu", run->mover);
		if (engine_set(e, name, settings, 1, NULL, NULL, &err) < 0)
			fail_msg("set: %s", err.text);
	}
	if (run->drop_at && t == run->drop_at) {
		struct err err = { "" };
		if (write_config(run, run->dropped) < 0 || engine_reload(e, &err) < 0)
			fail_msg("reload: %s", err.text);
	}
	if (t >= run->stop_at)
		engine_stop(e);
}

static void run_stop(struct mpam_run *run)
{
	engine_free(run->engine);
	log_capture_free(&run->log);
	kill_sleepers(NULL);
	unlink(run->config);
	unlink(run->traffic);
	rmdir(run->dir);
	assert_int_equal(emu_stop(run->emu), 0);
}

static bool has_own_group(struct mpam_run *run, unsigned cls, size_t i)
{
	char path[128];

	snprintf(path, sizeof(path), "mpamd-c%u/mon_groups/mpamd-p%02zu", cls, i);
	return emu_group_exists(run->emu, path);
}

static bool in_tasks_of(struct mpam_run *run, const char *group, size_t i)
{
	char tasks[32];

	snprintf(tasks, sizeof(tasks), "%d\n", (int)run->pids[i]);
	return emu_group_file_has(run->emu, group, "tasks", tasks);
}

/* Partition i (asking `want`) is open in its class and limited by it; measured with a group of its
 * own, or in the class's group and marked: its sample invalid with the reason (`partid`: what it names,
 * the PARTID where resctrl shows it), also in status. */
static bool check_partition(struct mpam_run *run, size_t i, unsigned want, const char *partid)
{
	const struct partition_status *st = engine_partition(run->engine, i);
	char group[32], path[256], reason[96], name[8];
	unsigned held = 0;

	if (!st->open || st->failed || !st->in_class)
		fail_msg("p%02zu is not open in a class: %s", i, st->reason ? st->reason : "");
	snprintf(group, sizeof(group), "mpamd-c%u", st->class_id);
	snprintf(path, sizeof(path), "%s/%s/schemata", emu_root(run->emu), group);
	char *schemata = read_text_file(path);
	/* The kernel's rounding of the MBW_MAX fraction (BWA_WD 5): within a step of 100/32. */
	if (!schemata || sscanf(schemata, "MB:0=%u", &held) != 1 || held + 4 < want || held > want + 4)
		fail_msg("%s holds %s for p%02zu (mb_max %u)", group, schemata ? schemata : "nothing", i, want);
	free(schemata);
	if (has_own_group(run, st->class_id, i)) {
		if (!st->valid || st->mbps <= 0)
			fail_msg("p%02zu has a group of its own but no rate: %s", i, st->reason ? st->reason : "");
		return true;
	}
	snprintf(reason, sizeof(reason), "measured only as part of class %u: %s", st->class_id, partid);
	if (st->valid || !st->reason || !strstr(st->reason, reason))
		fail_msg("p%02zu in its class's group: valid %d, reason %s", i, st->valid,
			 st->reason ? st->reason : "");
	if (!in_tasks_of(run, group, i))
		fail_msg("p%02zu's task is not in %s", i, group);
	/* list (as status and show) says so: no rate, not a valid 0 */
	snprintf(name, sizeof(name), "p%02zu", i);
	json_t *row = engine_list_row(run->engine, name);
	assert_non_null(row);
	assert_true(json_is_null(json_object_get(row, "mbps")));
	assert_false(json_is_true(json_object_get(row, "valid")));
	if (!strstr(json_string_value(json_object_get(row, "reason")), reason))
		fail_msg("p%02zu's listed reason: %s", i, json_string_value(json_object_get(row, "reason")));
	json_decref(row);
	return false;
}

/* How many of partitions first, first + 2, ... (one ceiling) in the class of `first` have a group of
 * their own, each checked as check_partition does. */
static unsigned measured_in_class(struct mpam_run *run, size_t first, const char *partid)
{
	unsigned cls = engine_partition(run->engine, first)->class_id, measured = 0;

	for (size_t i = first; i < PARTITIONS; i += 2)
		if (engine_partition(run->engine, i)->class_id == cls)
			measured += check_partition(run, i, mb_max_of(i), partid);
	return measured;
}

static void test_partitions_past_the_pmgs_are_marked(void **state)
{
	struct mpam_run run;
	unsigned measured = 0;
	const char *const debug[] = { "--debug", NULL }; /* ctrl_hw_id shown: the reason names the PARTID */

	(void)state;
	run_start(&run, debug);
	run.stop_at = 20;
	engine_run_file_captured(run.config, on_tick, &run, &run.log, &run.engine);
	for (size_t i = 0; i < PARTITIONS; i++)
		measured += check_partition(&run, i, mb_max_of(i), "PARTID ");
	assert_int_equal(measured, 2); /* one PMG left in each of the two classes */
	for (size_t i = 2; i < PARTITIONS; i++)
		if (engine_partition(run.engine, i)->class_id != engine_partition(run.engine, i % 2)->class_id)
			fail_msg("p%02zu is not in the class of its ceiling", i);
	run_stop(&run);
}

/* The emulator's limbo as the kernel's with an RMID's cache lines gone at once: a removed group's PMG
 * is refused ("Out of RMIDs") until the next limbo check, a second after. */
static const char *const quick_limbo[] = { "--llc-half-life-ms", "0", NULL };
/* Ticks (10 ms) that cover a limbo check after a group's removal: the limbo's second, and a recheck. */
#define PAST_LIMBO_TICKS 150

/* p00 moved to mb_max 50% (p01's class, whose PMG p01 holds) at tick move_at, dropped by a reload at
 * drop_at (0: never), the run stopped at stop_at. */
static void run_moving(struct mpam_run *run, unsigned stop_at, unsigned move_at, unsigned drop_at)
{
	run_start(run, quick_limbo);
	run->stop_at = stop_at;
	run->move_at = move_at;
	run->move_to = 50;
	run->drop_at = drop_at;
	run->dropped = 0;
	engine_run_file_captured(run->config, on_tick, run, &run->log, &run->engine);
}

/* A measured partition moved into a class with no PMG left: its tasks go to the new class's group, its
 * own group goes, and it is marked from then on; its old class keeps its limits for the others. */
static void test_moved_into_a_full_class(void **state)
{
	struct mpam_run run;

	(void)state;
	run_moving(&run, 10 + PAST_LIMBO_TICKS, 10, 0);
	struct engine *e = run.engine;
	const struct partition_status *st = engine_partition(e, 0);
	char group[32];

	if (st->class_id != engine_partition(e, 1)->class_id) {
		log_capture_pass_on(&run.log);
		fail_msg("p00 is in class %u, p01 in %u", st->class_id, engine_partition(e, 1)->class_id);
	}
	snprintf(group, sizeof(group), "mpamd-c%u", st->class_id);
	for (size_t i = 0; i < PARTITIONS; i++)
		check_partition(&run, i, i ? mb_max_of(i) : 50, "its PARTID has no PMG left");
	for (unsigned c = 0; c < 4; c++)
		assert_false(has_own_group(&run, c, 0));
	/* the PMG p00 gave back went to one of its old class's marked partitions, once out of limbo */
	assert_int_equal(measured_in_class(&run, 2, "its PARTID has no PMG left"), 1);
	assert_true(in_tasks_of(&run, group, 0));
	const char *moved[] = { "partition p00: class: moved from class", "not measured by itself", NULL };
	assert_int_equal(log_capture_count(&run.log, moved), 1);
	run_stop(&run);
}

/* The measured partition of a class removed by a reload: the PMG its group held goes to one of the
 * class's marked partitions once out of limbo, which is measured from then on; the other stays marked
 * (one PMG). */
static void test_a_freed_pmg_goes_to_a_marked_partition(void **state)
{
	struct mpam_run run;

	(void)state;
	run_start(&run, quick_limbo);
	run.stop_at = 10 + PAST_LIMBO_TICKS;
	run.drop_at = 10;
	run.dropped = 0;
	engine_run_file_captured(run.config, on_tick, &run, &run.log, &run.engine);
	if (measured_in_class(&run, 2, "its PARTID has no PMG left") != 1) {
		log_capture_pass_on(&run.log);
		fail_msg("p00's class has not one measured partition after p00 went");
	}
	assert_int_equal(measured_in_class(&run, 1, "its PARTID has no PMG left"), 1);
	const char *given[] = { "class: measured by itself again, in a group of its own", NULL };
	assert_int_equal(log_capture_count(&run.log, given), 1);
	run_stop(&run);
}

/* A partition in its class's group removed by a reload: the class group stays (its class's other
 * partitions are in it), the removed partition's task with it, as a monitoring group's rmdir would
 * leave it; the others are as they were. p00 made a group of its own before it was moved into p01's
 * full class: what it made is not what it holds now, which is not removed with it. */
static void test_removed_leaves_the_class_group(void **state)
{
	struct mpam_run run;

	(void)state;
	run_moving(&run, 20, 5, 10);
	unsigned cls = engine_partition(run.engine, 1)->class_id;
	char group[32];

	snprintf(group, sizeof(group), "mpamd-c%u", cls);
	assert_true(emu_group_exists(run.emu, group));
	assert_true(in_tasks_of(&run, group, 0));
	assert_true(has_own_group(&run, cls, 1));
	for (size_t p = 0; p < PARTITIONS; p++) {
		char name[8];
		snprintf(name, sizeof(name), "p%02zu", p);
		json_t *row = engine_list_row(run.engine, name);
		if (p == 0) {
			assert_null(row);
			continue;
		}
		assert_non_null(row);
		bool own = has_own_group(&run, (unsigned)json_integer_value(json_object_get(row, "hw_class")), p);
		if (!json_is_true(json_object_get(row, "open")) || json_is_true(json_object_get(row, "valid")) != own)
			fail_msg("%s: open %d, valid %d, a group of its own %d", name,
				 json_is_true(json_object_get(row, "open")),
				 json_is_true(json_object_get(row, "valid")), own);
		json_decref(row);
	}
	run_stop(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_partitions_past_the_pmgs_are_marked, kill_sleepers),
		cmocka_unit_test_teardown(test_moved_into_a_full_class, kill_sleepers),
		cmocka_unit_test_teardown(test_removed_leaves_the_class_group, kill_sleepers),
		cmocka_unit_test_teardown(test_a_freed_pmg_goes_to_a_marked_partition, kill_sleepers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
