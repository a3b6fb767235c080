/* mpamctl set through the engine against the resctrl emulator (Intel profile: MB in steps of 10,
 * an 11-bit L3 mask, no minimum bandwidth) and the simulator: what the hardware took is reported,
 * what it cannot hold is refused before anything changes, a set is its own event and never looks
 * like an outside change. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/config/config.h"
#include "core/engine/engine.h"
#include "core/engine/engine_snapshot.h"
#include "core/engine/registry.h"
#include "tests/util/emu_runner.h"
#include "tests/util/engine_util.h"
#include "tests/util/log_capture.h"
#include "tests/util/record_reader.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

static const char *const vms = "[sim]\ncapacity_mbps = 20000\n"
			       "[partition \"web\"]\nclass = latency-critical\nsim_demand = 4000\n"
			       "[partition \"batch\"]\nclass = best-effort\nsim_demand = 15000\nl3_cbm = 0x00f\n";

struct rig {
	struct emu *emu;
	struct engine *engine;
	char config_path[64];
};

static struct config *load(const char *path)
{
	struct config *config = load_config_file(path);

	assert_non_null(config);
	return config;
}

static void rig_open_opts(struct rig *rig, const char *global, const char *partitions,
			  const struct engine_options *opts)
{
	struct err err = { "" };

	snprintf(rig->config_path, sizeof(rig->config_path), "/tmp/mpamd-set-test-XXXXXX");
	int fd = mkstemp(rig->config_path);
	assert_true(fd >= 0);
	dprintf(fd, "[global]\ninterval_ms = 20\n%s%s%s", global, vms, partitions);
	close(fd);
	if (engine_new(load(rig->config_path), opts, &rig->engine, &err) < 0)
		fail_msg("engine_new: %s", err.text);
}

static void rig_open_with(struct rig *rig, const char *global, const char *partitions, uint64_t ticks)
{
	struct engine_options opts = { .ticks = ticks };

	rig_open_opts(rig, global, partitions, &opts);
}

static void rig_open(struct rig *rig, const char *global, uint64_t ticks)
{
	rig_open_with(rig, global, "", ticks);
}

static void rig_emu(struct rig *rig, const char *const *extra, const char *partitions)
{
	char sim_path[] = "/tmp/mpamd-set-sim-XXXXXX";
	int fd = mkstemp(sim_path);

	memset(rig, 0, sizeof(*rig));
	assert_true(fd >= 0);
	dprintf(fd, "[global]\ninterval_ms = 20\n%s%s", vms, partitions);
	close(fd);
	assert_int_equal(emu_start("intel", sim_path, extra, &rig->emu), 0);
	unlink(sim_path);
}

static void rig_resctrl(struct rig *rig, uint64_t ticks)
{
	char global[256];

	rig_emu(rig, NULL, "");
	snprintf(global, sizeof(global), "backend = resctrl\nresctrl_root = %s\n", emu_root(rig->emu));
	rig_open(rig, global, ticks);
}

static void rig_close(struct rig *rig)
{
	engine_free(rig->engine);
	unlink(rig->config_path);
	if (rig->emu)
		assert_int_equal(emu_stop(rig->emu), 0);
}

static bool event_logged(const struct engine *e, const char *text)
{
	const struct event_log *log = engine_events(e);

	for (size_t i = 0; i < log->count; i++)
		if (strstr(log->items[i].text, text))
			return true;
	return false;
}

static void expect_refusal(struct engine *e, const char *setting, const char *words)
{
	const char *settings[] = { setting };
	struct err err = { "" };
	json_t *result = NULL;

	if (engine_set(e, "batch", settings, 1, "uid 0", &result, &err) == 0)
		fail_msg("set %s was accepted", setting);
	if (!strstr(err.text, words))
		fail_msg("set %s: '%s' lacks '%s'", setting, err.text, words);
	assert_null(result);
}

static void test_set_reports_what_the_hardware_took(void **state)
{
	const char *settings[] = { "mb_max=25" };
	struct err err = { "" };
	json_t *result = NULL;
	struct rig rig;

	(void)state;
	rig_resctrl(&rig, 5);
	struct engine *e = rig.engine;
	if (engine_set(e, "batch", settings, 1, "uid 0", &result, &err) < 0)
		fail_msg("set: %s", err.text);
	/* In force when set answers, as the hardware holds it: the nearest 10% step (a tie goes down). */
	json_t *rounded = json_array_get(json_object_get(result, "rounded"), 0);
	assert_string_equal(json_string_value(json_object_get(rounded, "key")), "mb_max");
	assert_true(json_number_value(json_object_get(rounded, "requested")) == 25);
	assert_true(json_number_value(json_object_get(rounded, "in_force")) == 20);
	assert_string_equal(json_string_value(json_object_get(rounded, "steps")), "10% steps from 10%");
	assert_int_equal(engine_partition(e, 1)->mb_max, 20);
	char path[256];
	snprintf(path, sizeof(path), "%s/mpamd-batch/schemata", emu_root(rig.emu));
	assert_true(wait_for_text(path, "MB:0=20;1=20", 0));
	assert_true(event_logged(e, "set: mb_max=25 by uid 0"));
	assert_non_null(strstr(json_string_value(json_object_get(result, "lasts")), "until mpamd restarts"));
	json_decref(result);

	/* The ticks after it neither undo it nor call it an outside change. */
	assert_int_equal(engine_run(e, &err), 0);
	assert_false(event_logged(e, "changed outside"));
	assert_int_equal(engine_partition(e, 1)->mb_max, 20);
	rig_close(&rig);
}

/* "KEY=   ...VALUE", `len` characters in all (the blanks before a value are let be). */
static const char *padded(char *buf, size_t len, const char *key, const char *value)
{
	size_t used = (size_t)snprintf(buf, len, "%s=", key);

	memset(buf + used, ' ', len - 1 - used - strlen(value));
	snprintf(buf + len - 1 - strlen(value), strlen(value) + 1, "%s", value);
	return buf;
}

/* A set is one line in the log, naming who asked, also when it says more than an event holds (the
 * event then counts the settings, the log line lists them). Before, each set was logged twice: once
 * per setting, then again as its event. */
static void test_set_logged_once(void **state)
{
	const char *two[] = { "mb_max=25", "mb_min=5" };
	char wide[EVENT_TEXT_MAX + 32];
	const char *long_one[] = { padded(wide, sizeof(wide), "mb_max", "30") };
	struct log_capture log;
	struct err err = { "" };
	struct rig rig = { 0 };

	(void)state;
	rig_open(&rig, "backend = sim\n", 0);
	struct engine *e = rig.engine;
	log_capture_begin(&log);
	int set_two = engine_set(e, "batch", two, 2, "uid 7 (pid 42)", NULL, &err);
	int set_long = set_two < 0 ? set_two : engine_set(e, "batch", long_one, 1, "uid 0 (pid 43)", NULL, &err);
	log_capture_end(&log);
	if (set_long < 0)
		fail_msg("set: %s", err.text);
	assert_int_equal(log_capture_count(&log, (const char *const[]){ "mb_max=25", NULL }), 1);
	assert_int_equal(log_capture_count(&log, (const char *const[]){ "mb_min=5", NULL }), 1);
	assert_int_equal(log_capture_count(&log, (const char *const[]){ "partition batch: set: mb_max=25 mb_min=5 by "
									"uid 7 (pid 42)",
									NULL }),
			 1);
	assert_int_equal(log_capture_count(&log, (const char *const[]){ wide, "by uid 0 (pid 43)", NULL }), 1);
	assert_int_equal(log_capture_count(&log, (const char *const[]){ "set", NULL }), 2);
	assert_true(event_logged(e, "set: mb_max=25 mb_min=5 by uid 7 (pid 42)"));
	assert_true(event_logged(e, "set: 1 setting by uid 0 (pid 43) (listed in the log)"));
	assert_int_equal(engine_config(e)->partitions[1].goals.mb_max, 30);
	log_capture_free(&log);
	rig_close(&rig);
}

static void test_set_refuses_what_the_host_cannot_hold(void **state)
{
	struct rig rig;

	(void)state;
	rig_resctrl(&rig, 0);
	struct engine *e = rig.engine;
	expect_refusal(e, "l3_cbm=0x801", "outside cbm_mask 0x7ff");
	expect_refusal(e, "mb_min=10", "no minimum-bandwidth control");
	/* MB/s where nothing says what a domain carries (Intel's MB is in percent, no capacity_mbps) */
	expect_refusal(e, "mb_max=6000MB/s", "mb_max = 6000MB/s: what domain 0 carries is not known");
	expect_refusal(e, "mb_max=0", "0% would stop all traffic");
	expect_refusal(e, "mb_max=100.5", "at most 100");
	/* Nothing of a refused set is kept. */
	assert_int_equal(engine_config(e)->partitions[1].goals.l3_cbm, 0x00f);
	assert_int_equal(engine_config(e)->partitions[1].goals.mb_min, 0);
	assert_false(event_logged(e, "set:"));

	const char *twice[] = { "mb_max=20", "target_mbps=100", "mb_max=30" };
	struct err err = { "" };
	assert_int_equal(engine_set(e, "batch", twice, 3, NULL, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.text, "mb_max is given twice"));
	assert_int_equal(engine_config(e)->partitions[1].goals.mb_max, 100);
	rig_close(&rig);
}

/* A partition whose configured limits the host cannot hold fails alone, before a group is made. */
static void test_open_refuses_a_mask_the_host_rejects(void **state)
{
	char sim_path[] = "/tmp/mpamd-set-sim-XXXXXX", global[256];
	struct rig rig = { 0 };
	struct err err = { "" };
	int fd = mkstemp(sim_path);

	(void)state;
	dprintf(fd, "[global]\ninterval_ms = 20\n%s", vms);
	close(fd);
	assert_int_equal(emu_start("intel", sim_path, NULL, &rig.emu), 0);
	unlink(sim_path);
	snprintf(rig.config_path, sizeof(rig.config_path), "/tmp/mpamd-set-test-XXXXXX");
	fd = mkstemp(rig.config_path);
	snprintf(global, sizeof(global), "backend = resctrl\nresctrl_root = %s\n", emu_root(rig.emu));
	dprintf(fd, "[global]\ninterval_ms = 20\n%s%s[partition \"odd\"]\nl3_cbm = 0x801\n", global, vms);
	close(fd);
	struct engine_options opts = { 0 };
	assert_int_equal(engine_new(load(rig.config_path), &opts, &rig.engine, &err), 0);
	assert_true(engine_partition(rig.engine, 0)->open);
	assert_true(engine_partition(rig.engine, 1)->open);
	assert_false(engine_partition(rig.engine, 2)->open);
	char path[256];
	snprintf(path, sizeof(path), "%s/mpamd-odd", emu_root(rig.emu));
	assert_int_equal(access(path, F_OK), -1);
	rig_close(&rig);
}

static void test_set_clears_a_key_with_none(void **state)
{
	const char *set[] = { "guarantee_mbps=3000", "mb_min=10" }, *clear[] = { "guarantee_mbps=none", "mb_min=none" };
	struct err err = { "" };
	struct rig rig = { 0 };

	(void)state;
	rig_open(&rig, "backend = sim\n", 0);
	struct engine *e = rig.engine;
	if (engine_set(e, "web", set, 2, NULL, NULL, &err) < 0)
		fail_msg("set: %s", err.text);
	assert_int_equal(engine_config(e)->partitions[0].goals.guarantee_mbps, 3000);
	assert_int_equal(engine_partition(e, 0)->mb_min, 10);
	if (engine_set(e, "web", clear, 2, NULL, NULL, &err) < 0)
		fail_msg("clear: %s", err.text);
	assert_int_equal(engine_config(e)->partitions[0].goals.guarantee_mbps, 0);
	assert_int_equal(engine_partition(e, 0)->mb_min, 0);
	rig_close(&rig);
}

static void expect_schemata(struct rig *rig, const char *group, const char *line)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s/schemata", emu_root(rig->emu), group);
	if (!wait_for_text(path, line, 0)) {
		char *text = read_text_file(path);
		fail_msg("%s holds\n%s\nnot %s", path, text ? text : "(unreadable)", line);
	}
}

/* Per-domain limits: set takes them like the file (MB:0=30;1=100 in the group's schemata, each
 * domain's in force reported), the ticks after keep them, and a domain the host does not have is
 * refused, at set as at open, saying which domains there are. */
static void test_set_per_domain_limits(void **state)
{
	const char *pinned[] = { "mb_max=0=30,1=100" }, *unknown[] = { "mb_max=0=30,5=40" };
	struct err err = { "" };
	struct rig rig;

	(void)state;
	rig_resctrl(&rig, 5);
	struct engine *e = rig.engine;
	assert_int_equal(engine_domain_count(e), 2); /* the emulator's two L3 domains, measured and limited */
	assert_string_equal(engine_domain_name(e, 1), "1");
	if (engine_set(e, "batch", pinned, 1, NULL, NULL, &err) < 0)
		fail_msg("set: %s", err.text);
	expect_schemata(&rig, "mpamd-batch", "MB:0=30;1=100");
	assert_int_equal(engine_partition(e, 1)->mb_max, 100); /* the partition's: the highest */
	assert_int_equal(engine_run(e, &err), 0);
	assert_int_equal(engine_partition_domain(e, 1, 0)->mb_max, 30);
	assert_int_equal(engine_partition_domain(e, 1, 1)->mb_max, 100);
	assert_false(event_logged(e, "changed outside"));
	expect_schemata(&rig, "mpamd-batch", "MB:0=30;1=100");

	assert_int_equal(engine_set(e, "batch", unknown, 1, NULL, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.text, "mb_max names domain 5, which this host does not have (its domains: 0, 1)"));
	assert_int_equal(engine_config(e)->partitions[1].goals.mb_max_at.count, 2); /* as it was */
	rig_close(&rig);

	/* In the file: that partition alone fails, with the same reason. */
	rig_emu(&rig, NULL, "");
	char global[256];
	snprintf(global, sizeof(global), "backend = resctrl\nresctrl_root = %s\n", emu_root(rig.emu));
	rig_open_with(&rig, global, "[partition \"odd\"]\nmb_max = 2=50\n", 0);
	assert_true(engine_partition(rig.engine, 1)->open);
	assert_false(engine_partition(rig.engine, 2)->open);
	assert_non_null(strstr(engine_partition(rig.engine, 2)->reason, "mb_max names domain 2"));
	rig_close(&rig);
}

/* resctrl tells no capacity: capacity_mbps gives each domain its own (a value of its own, else the one
 * for every domain), the status reply says them, and a domain the host does not have is refused. */
static void test_capacity_per_domain(void **state)
{
	struct rig rig;
	char global[320];
	bool learned = true;

	(void)state;
	rig_emu(&rig, NULL, "");
	snprintf(global, sizeof(global), "backend = resctrl\nresctrl_root = %s\ncapacity_mbps = 9000,1=7000\n",
		 emu_root(rig.emu));
	rig_open(&rig, global, 3);
	struct err err = { "" };
	assert_int_equal(engine_run(rig.engine, &err), 0);
	assert_true(engine_domain_capacity(rig.engine, 0, &learned) == 9000 && !learned);
	assert_true(engine_domain_capacity(rig.engine, 1, &learned) == 7000 && !learned);
	rig_close(&rig);

	rig_emu(&rig, NULL, "");
	snprintf(global, sizeof(global), "backend = resctrl\nresctrl_root = %s\ncapacity_mbps = 3=7000\n",
		 emu_root(rig.emu));
	snprintf(rig.config_path, sizeof(rig.config_path), "/tmp/mpamd-set-test-XXXXXX");
	int fd = mkstemp(rig.config_path);
	dprintf(fd, "[global]\ninterval_ms = 20\n%s%s", global, vms);
	close(fd);
	struct engine_options opts = { 0 };
	assert_true(engine_new(load(rig.config_path), &opts, &rig.engine, &err) < 0);
	assert_non_null(strstr(err.text, "capacity_mbps names domain 3, which this host does not have"));
	rig.engine = NULL;
	rig_close(&rig);
}

/* on_tick: the run below ends once vic is released and big has its whole ceiling back. */
static void stop_once_released(void *ctx, struct engine *e)
{
	(void)ctx;
	if (event_logged(e, "release: vic uses") && engine_find(e, "big", NULL)->mb_max >= 100)
		engine_stop(e);
}

/* The first run: the emulator tells no capacity, a victim wants 5000 of its 6000 MB/s on a
 * host that is not saturated (17000 of each domain's 20000 MB/s). Its capacity is learned per
 * domain, at first the total itself. A guarantee short beside best-effort traffic at that total is
 * taken as contention (it cannot be told from a squeeze without a cut): the guard's one cut does not
 * raise the victim's rate, so it is judged to want less and its neighbour gets its bandwidth back. */
static void test_no_false_alarm_with_a_learned_capacity(void **state)
{
	static const char *const more = "[partition \"vic\"]\nclass = latency-critical\nguarantee_mbps = 6000\n"
					"sim_demand = 5000\n"
					"[partition \"big\"]\nclass = best-effort\nsim_demand = 10000\n";
	struct rig rig;
	struct err err = { "" };
	char global[256];
	bool learned = false;

	(void)state;
	/* The emulator's traffic runs in real time and the guard waits for a cut to show before it judges
	 * it, so on a loaded machine the release comes later: the run ends when it has come, within 12 s. */
	struct engine_options opts = { .ticks = 600, .on_tick = stop_once_released };

	rig_emu(&rig, NULL, more);
	snprintf(global, sizeof(global), "backend = resctrl\nresctrl_root = %s\n", emu_root(rig.emu));
	rig_open_opts(&rig, global, more, &opts);
	assert_int_equal(engine_run(rig.engine, &err), 0);
	assert_int_equal(engine_domain_count(rig.engine), 2);
	assert_true(engine_domain_capacity(rig.engine, 0, &learned) > 0 && learned);
	assert_true(event_logged(rig.engine, "release: vic uses"));
	assert_true(engine_find(rig.engine, "big", NULL)->mb_max >= 100);
	rig_close(&rig);
}

/* The record of a run under mba_MBps: tenant's target_mbps on its total row and on each domain row
 * (the kernel holds it as every domain's ceiling), no goal on the others' rows. */
static void expect_recorded_target(const char *record)
{
	struct record_line *rows = NULL;
	char header[256];
	size_t tenant_domain_rows = 0;
	long n = record_read_all(record, header, sizeof(header), &rows);

	assert_true(n > 0);
	for (long i = 0; i < n; i++) {
		bool tenant = !strcmp(rows[i].partition, "tenant");
		if (rows[i].has_target != tenant || rows[i].has_guarantee)
			fail_msg("row %ld of %s (domain %s): target %s", i, rows[i].partition, rows[i].domain,
				 rows[i].has_target ? "set" : "empty");
		if (tenant)
			assert_true(rows[i].target_mbps == 3000);
		tenant_domain_rows += tenant && strcmp(rows[i].domain, "*");
	}
	assert_true(tenant_domain_rows >= 2 * 20);
	free(rows);
}

/* What the target `set` gives web after tick 3 did on the ticks after it. */
struct retarget {
	char failure[256];
	bool held_at_next; /* tick 4's event is the controller's first move */
	double mb_max_before, mb_max_next;
};

static void retarget_web(void *ctx, struct engine *e)
{
	struct retarget *r = ctx;
	const char *settings[] = { "target_mbps=2000" };
	const struct partition_status *web = engine_find(e, "web", NULL);
	struct err err = { "" };

	if (engine_ticks_done(e) == 3) {
		r->mb_max_before = web->mb_max;
		if (engine_set(e, "web", settings, 1, NULL, NULL, &err) < 0)
			note_first(r->failure, sizeof(r->failure), "set: %s", err.text);
	} else if (engine_ticks_done(e) == 4) {
		r->held_at_next = web->event && strstr(web->event, "throttle: new target 2000 MB/s");
		r->mb_max_next = web->mb_max;
	}
}

/* Only a partition with a target has the target controller's memory: one that had none gets it with
 * the `set` that gives it a target, and is held from the next tick (without the memory the controller
 * would leave it alone). */
static void test_set_target_held_from_the_next_tick(void **state)
{
	struct retarget r = { .failure = "" };
	struct engine_options opts = { .ticks = 6, .sim_clock = true, .on_tick = retarget_web, .on_tick_ctx = &r };
	char text[512];
	struct err err = { "" };

	(void)state;
	snprintf(text, sizeof(text), "[global]\ninterval_ms = 20\nbackend = sim\n%s", vms);
	struct engine *e = engine_new_or_fail(config_from_text(text), &opts);
	expect_engine_ran("retarget", engine_run(e, &err), &err, r.failure);
	assert_true(r.held_at_next);
	assert_true(r.mb_max_before == 100);
	assert_true(r.mb_max_next < 100); /* 4000 MB/s of demand held toward 2000 */
	engine_free(e);
}

/* resctrl mounted with mba_MBps: the kernel's controller holds each group's MB/s. mpamd writes
 * target_mbps as that ceiling, runs no bandwidth loop of its own on top, and refuses what only its
 * own loop could hold (a percentage, a guarantee). */
static void test_kernel_mba_mbps_controller(void **state)
{
	static const char *const extra[] = { "--mba-mbps", NULL };
	static const char *const more = "[partition \"tenant\"]\ntarget_mbps = 3000\nsim_demand = 9000\n"
					"[partition \"capped\"]\nmb_max = 50\nsim_demand = 1000\n";
	const char *retarget[] = { "target_mbps=2000" },
		   *guarantee[] = { "class=latency-critical", "guarantee_mbps=100" };
	char global[256];
	struct err err = { "" };
	struct rig rig;

	char record[] = "/tmp/mpamd-set-record-XXXXXX";

	(void)state;
	close(mkstemp(record));
	rig_emu(&rig, extra, more);
	snprintf(global, sizeof(global), "backend = resctrl\nresctrl_root = %s\nrecord = %s\n", emu_root(rig.emu),
		 record);
	rig_open_with(&rig, global, more, 20);
	struct engine *e = rig.engine;
	assert_true(engine_partition(e, 0)->open);
	assert_true(engine_partition(e, 1)->open);
	assert_true(engine_partition(e, 2)->open);
	assert_false(engine_partition(e, 3)->open); /* mb_max = 50 is a percentage */
	expect_schemata(&rig, "mpamd-tenant", "MB:0=3000;1=3000");
	expect_schemata(&rig, "mpamd-batch", "MB:0=4294967295;1=4294967295");

	/* Twenty ticks later nothing of mpamd's own loop has touched MB: the target is the kernel's. */
	assert_int_equal(engine_run(e, &err), 0);
	expect_schemata(&rig, "mpamd-tenant", "MB:0=3000;1=3000");
	expect_schemata(&rig, "mpamd-batch", "MB:0=4294967295;1=4294967295");
	assert_false(event_logged(e, "throttle"));
	assert_false(event_logged(e, "changed outside"));
	expect_recorded_target(record);
	unlink(record);

	/* A new target goes to the kernel at once; a guarantee is refused. */
	assert_int_equal(engine_set(e, "tenant", retarget, 1, NULL, NULL, &err), 0);
	expect_schemata(&rig, "mpamd-tenant", "MB:0=2000;1=2000");
	assert_int_equal(engine_set(e, "web", guarantee, 2, NULL, NULL, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.text, "mba_MBps"));
	rig_close(&rig);
}

/* Someone removes a partition's group: within a second mpamd makes it again, with its limits, says
 * so and measures it again; the others never notice. */
static void test_group_removed_behind_our_back_is_recreated(void **state)
{
	static const char *const more = "[partition \"tenant\"]\nmb_max = 30\nsim_demand = 1000\n";
	char global[256], dir_path[256];
	struct err err = { "" };
	struct rig rig;

	(void)state;
	rig_emu(&rig, NULL, more);
	snprintf(global, sizeof(global), "backend = resctrl\nresctrl_root = %s\n", emu_root(rig.emu));
	rig_open_with(&rig, global, more, 30);
	expect_schemata(&rig, "mpamd-tenant", "MB:0=30;1=30");
	snprintf(dir_path, sizeof(dir_path), "%s/mpamd-tenant", emu_root(rig.emu));
	assert_int_equal(rmdir(dir_path), 0);
	assert_int_equal(engine_run(rig.engine, &err), 0);
	expect_schemata(&rig, "mpamd-tenant", "MB:0=30;1=30");
	assert_true(event_logged(rig.engine, "recreate: its group had been removed outside mpamd"));
	assert_true(engine_partition(rig.engine, 2)->open);
	/* And measured again: the monitor's counter pools, made at the first read, take it back. */
	assert_true(engine_partition(rig.engine, 2)->valid);
	rig_close(&rig);
}

/* The group made again is resctrl's side only: the partition's PMU events (perf, on its tasks) go
 * on counting through it, as they did before the group went. */
static void test_recreated_group_keeps_its_pmu_counting(void **state)
{
	char more[160], global[512], dir_path[256];
	struct err err = { "" };
	struct rig rig;

	(void)state;
	snprintf(more, sizeof(more), "[partition \"tenant\"]\nmb_max = 30\nsim_demand = 1000\npids = %d\n",
		 (int)getpid());
	rig_emu(&rig, NULL, more);
	snprintf(global, sizeof(global),
		 "backend = resctrl\nresctrl_root = %s\n"
		 "[pmu]\nenabled = yes\ncycles = task-clock\ninstructions = context-switches\n",
		 emu_root(rig.emu));
	rig_open_with(&rig, global, more, 30);
	snprintf(dir_path, sizeof(dir_path), "%s/mpamd-tenant", emu_root(rig.emu));
	assert_int_equal(rmdir(dir_path), 0);
	assert_int_equal(engine_run(rig.engine, &err), 0);
	assert_true(event_logged(rig.engine, "recreate: its group had been removed outside mpamd"));
	assert_true(engine_partition(rig.engine, 2)->open);
	assert_true(engine_partition(rig.engine, 2)->pmu_open);
	rig_close(&rig);
}

TEST_MAIN({
	cmocka_unit_test(test_set_reports_what_the_hardware_took),
	cmocka_unit_test(test_set_logged_once),
	cmocka_unit_test(test_set_refuses_what_the_host_cannot_hold),
	cmocka_unit_test(test_open_refuses_a_mask_the_host_rejects),
	cmocka_unit_test(test_set_clears_a_key_with_none),
	cmocka_unit_test(test_set_target_held_from_the_next_tick),
	cmocka_unit_test(test_set_per_domain_limits),
	cmocka_unit_test(test_capacity_per_domain),
	cmocka_unit_test(test_no_false_alarm_with_a_learned_capacity),
	cmocka_unit_test(test_kernel_mba_mbps_controller),
	cmocka_unit_test(test_group_removed_behind_our_back_is_recreated),
	cmocka_unit_test(test_recreated_group_keeps_its_pmu_counting),
})
