/* The groups under group_prefix are mpamd's pool, on the resctrl emulator through the engine: what an
 * earlier run or configuration left there is removed at start and at a reload (a group mpamd adopted
 * never is, nor one without the prefix), and a partition that finds no room waits for room to be freed
 * rather than asking every tick (a mkdir bound to fail would write over last_cmd_status each time). */
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

#include "core/engine/engine.h"
#include "tests/util/emu_runner.h"
#include "tests/util/engine_util.h"
#include "tests/util/log_capture.h"
#include "tests/util/testutil.h"

struct pool_run {
	struct emu *emu;
	char dir[64], config[96], traffic[96];
	struct engine *engine;
	struct log_capture log;
	unsigned stop_at; /* ticks */
	/* At tick `act_at`, act(run) runs once (0: never); the test's checks at each tick after it. */
	unsigned act_at;
	void (*act)(struct pool_run *run, struct engine *e);
	long opened_at; /* the tick the watched slot was first seen open after act_at (-1: never) */
	size_t watch;
};

/* "[partition "pNN"]" sections for partitions from..to-1, with `extra` lines each. */
static void partitions(char *buf, size_t len, unsigned from, unsigned to, const char *extra)
{
	size_t used = strlen(buf);

	for (unsigned i = from; i < to && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "[partition \"p%02u\"]\n%s", i, extra);
}

static void write_text(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void write_text(const char *path, const char *fmt, ...)
{
	FILE *f = fopen(path, "w");
	va_list ap;

	assert_non_null(f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	assert_int_equal(fclose(f), 0);
}

static void write_config(struct pool_run *run, const char *body)
{
	write_text(run->config, "[global]\nbackend = resctrl\ninterval_ms = 10\nresctrl_root = %s\n%s",
		   emu_root(run->emu), body);
}

static void run_start(struct pool_run *run, const char *const *emu_args, const char *body)
{
	memset(run, 0, sizeof(*run));
	run->opened_at = -1;
	make_test_dir(run->dir, sizeof(run->dir), "pool");
	snprintf(run->config, sizeof(run->config), "%s/mpamd.ini", run->dir);
	snprintf(run->traffic, sizeof(run->traffic), "%s/traffic.ini", run->dir);
	write_text(run->traffic, "[global]\ninterval_ms = 10\n%s", body);
	assert_int_equal(emu_start("intel", run->traffic, emu_args, &run->emu), 0);
	write_config(run, body);
}

static void mkgroup(struct pool_run *run, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", emu_root(run->emu), name);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void on_tick(void *ctx, struct engine *e)
{
	struct pool_run *run = ctx;
	uint64_t t = engine_ticks_done(e);

	if (run->act && t == run->act_at)
		run->act(run, e);
	if (run->act && t > run->act_at && run->opened_at < 0 && engine_partition(e, run->watch)->open)
		run->opened_at = (long)t;
	if (t >= run->stop_at)
		engine_stop(e);
}

/* Runs the engine on the run's config for stop_at ticks, its log captured. */
static void run_engine(struct pool_run *run)
{
	struct engine_options opts = { .config_path = run->config, .on_tick = on_tick, .on_tick_ctx = run };
	struct err err = { "" };
	struct config *config = load_config_file(run->config);

	assert_non_null(config);
	log_capture_begin(&run->log);
	int r = engine_new(config, &opts, &run->engine, &err);
	if (r == 0)
		r = engine_run(run->engine, &err);
	log_capture_end(&run->log);
	if (r < 0)
		fail_msg("the engine stopped: %s", err.text);
}

static void run_stop(struct pool_run *run)
{
	engine_free(run->engine);
	log_capture_free(&run->log);
	unlink(run->config);
	unlink(run->traffic);
	rmdir(run->dir);
	assert_int_equal(emu_stop(run->emu), 0);
}

static unsigned log_lines(struct pool_run *run, const char *text)
{
	const char *parts[] = { text, NULL };

	return log_capture_count(&run->log, parts);
}

/* An earlier configuration's groups hold 12 of the 16 CLOSIDs: without tidying, 1 of the 3 new
 * partitions would open. They go at start; the partition's own group is adopted, another tool's
 * group (no prefix) stays. */
static void test_start_removes_what_no_partition_uses(void **state)
{
	struct pool_run run;
	char body[2048] = "", name[32];

	(void)state;
	partitions(body, sizeof(body), 0, 3, "mb_max = 50\n");
	run_start(&run, NULL, body);
	for (unsigned i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "mpamd-old%u", i);
		mkgroup(&run, name);
	}
	mkgroup(&run, "other");
	mkgroup(&run, "mpamd-p00");
	run.stop_at = 3;
	run_engine(&run);
	for (size_t i = 0; i < 3; i++)
		if (!engine_partition(run.engine, i)->open)
			fail_msg("p%02zu is not open: %s", i, engine_partition(run.engine, i)->reason);
	for (unsigned i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "mpamd-old%u", i);
		assert_false(emu_group_exists(run.emu, name));
	}
	assert_true(emu_group_exists(run.emu, "other"));
	assert_true(emu_group_file_has(run.emu, "mpamd-p01", "schemata", "MB:0=50;1=50"));
	assert_int_equal(log_lines(&run, "removed resctrl group mpamd-old"), 12);
	run_stop(&run);
}

/* 18 partitions on 16 CLOSIDs: 3 find none. Each says so once in 40 ticks (it waits for room, with
 * the longest pause), and no mkdir doomed to fail reaches the kernel's last_cmd_status. */
static void test_no_room_is_said_once_and_not_retried(void **state)
{
	struct pool_run run;
	char body[4096] = "";

	(void)state;
	partitions(body, sizeof(body), 0, 18, "sim_demand = 100\n");
	run_start(&run, NULL, body);
	run.stop_at = 40;
	run_engine(&run);
	unsigned failed = 0;
	for (size_t i = 0; i < 18; i++)
		failed += engine_partition(run.engine, i)->failed;
	assert_int_equal(failed, 3);
	assert_int_equal(log_lines(&run, "no CLOSID left"), 3);
	assert_int_equal(log_lines(&run, "trying again when room is freed"), 3);
	assert_false(emu_group_file_has(run.emu, "info", "last_cmd_status", "Out of CLOSIDs"));
	run_stop(&run);
}

static void remove_first(struct pool_run *run, struct engine *e)
{
	(void)run;
	engine_partition_remove(e, 0);
}

/* A partition removed frees its group's CLOSID: the one waiting for room opens at the next tick, not
 * after the pause of a minute. */
static void test_removal_wakes_the_waiting(void **state)
{
	struct pool_run run;
	char body[4096] = "";

	(void)state;
	partitions(body, sizeof(body), 0, 16, "sim_demand = 100\n");
	run_start(&run, NULL, body);
	run.act_at = 5;
	run.act = remove_first;
	run.watch = 15;
	run.stop_at = 10;
	run_engine(&run);
	if (run.opened_at != 6)
		fail_msg("p15 opened at tick %ld: %s", run.opened_at, engine_partition(run.engine, 15)->reason);
	assert_false(emu_group_exists(run.emu, "mpamd-p00"));
	assert_true(emu_group_exists(run.emu, "mpamd-p15"));
	run_stop(&run);
}

/* A reload tidies too: a group left under the prefix meanwhile (by an earlier mpamd of this prefix)
 * goes, so the partition the reload adds finds its room; the group a partition adopted stays after
 * that partition is removed (mpamd did not make it). */
static void reload_without_p00(struct pool_run *run, struct engine *e)
{
	char body[4096] = "";
	struct err err = { "" };

	partitions(body, sizeof(body), 1, 15, "sim_demand = 100\n");
	write_config(run, body);
	mkgroup(run, "mpamd-stray"); /* the last CLOSID */
	if (engine_reload(e, &err) < 0)
		fail_msg("reload: %s", err.text);
}

static void test_reload_tidies_but_spares_the_adopted(void **state)
{
	struct pool_run run;
	char body[4096] = "";

	(void)state;
	partitions(body, sizeof(body), 0, 14, "sim_demand = 100\n");
	run_start(&run, NULL, body);
	mkgroup(&run, "mpamd-p00"); /* adopted by p00 */
	run.act_at = 5;
	run.act = reload_without_p00;
	run.stop_at = 10;
	run_engine(&run);
	assert_true(emu_group_exists(run.emu, "mpamd-p00"));
	assert_false(emu_group_exists(run.emu, "mpamd-stray"));
	assert_true(emu_group_exists(run.emu, "mpamd-p14"));
	for (size_t i = 0; i < engine_partition_count(run.engine); i++)
		if (engine_partition(run.engine, i)->failed)
			fail_msg("slot %zu failed: %s", i, engine_partition(run.engine, i)->reason);
	run_stop(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_removes_what_no_partition_uses),
		cmocka_unit_test(test_no_room_is_said_once_and_not_retried),
		cmocka_unit_test(test_removal_wakes_the_waiting),
		cmocka_unit_test(test_reload_tidies_but_spares_the_adopted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
