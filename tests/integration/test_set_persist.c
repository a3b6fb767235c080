/* mpamctl set --persist: the settings are written to persist_dir's file of the partition and last
 * across a restart of mpamd (on the simulator), a plain set does not, and a reload of the same file
 * keeps the other sets of the partition. What cannot be persisted is refused with nothing written and
 * nothing changed: a partition of an included file or of a template, no persist_dir, an unknown key,
 * a value the file's other keys would refuse at the next start, a directory mpamd cannot write. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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
#include "tests/util/demo_daemon.h"
#include "tests/util/engine_util.h"
#include "tests/util/mpamctl_run.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

#define TICKS 3

struct rig {
	char dir[64], config[96], persist[96], web_file[128];
	struct engine *engine;
	struct demo_daemon daemon;
};

/* The main file: web (mb_min 10, mb_max 80) and batch; vm from an included file; `global` in [global]. */
static void rig_files(struct rig *rig, const char *global)
{
	char included[128];

	if (!rig->dir[0])
		make_test_dir(rig->dir, sizeof(rig->dir), "set-persist");
	snprintf(rig->config, sizeof(rig->config), "%s/mpamd.ini", rig->dir);
	snprintf(rig->persist, sizeof(rig->persist), "%s/persist", rig->dir);
	snprintf(rig->web_file, sizeof(rig->web_file), "%s/web.ini", rig->persist);
	snprintf(included, sizeof(included), "%s/vm.conf", rig->dir);
	write_file(included, "[partition \"vm\"]\nsim_demand = 1000\n");
	write_file(rig->config,
		   "[global]\nbackend = sim\ninterval_ms = 100\ninclude = %s\n%s\n"
		   "[sim]\nmscs = 2\ncapacity_mbps = 10000\n"
		   "[partition \"web\"]\nclass = latency-critical\nmb_min = 10\nmb_max = 80\nsim_demand = 3000\n"
		   "[partition \"batch\"]\nclass = best-effort\nsim_demand = 18000\n",
		   included, global);
}

static void rig_engine(struct rig *rig)
{
	struct engine_options opts = { .ticks = TICKS, .sim_clock = true, .config_path = rig->config };
	struct err err = { "" };
	struct config *config = load_config_file(rig->config);

	assert_non_null(config);
	if (engine_new(config, &opts, &rig->engine, &err) < 0)
		fail_msg("engine_new: %s", err.text);
}

static void rig_open(struct rig *rig)
{
	char global[160];

	memset(rig, 0, sizeof(*rig));
	rig_files(rig, "");
	snprintf(global, sizeof(global), "persist_dir = %s", rig->persist);
	rig_files(rig, global);
	rig_engine(rig);
}

static int teardown(void **state)
{
	struct rig *rig = *state;

	engine_free(rig->engine);
	demo_daemon_cleanup(&rig->daemon);
	return remove_tree(rig->dir);
}

static int setup(void **state)
{
	static struct rig rig;

	memset(&rig, 0, sizeof(rig));
	*state = &rig;
	return 0;
}

/* What the file gave partition `name`, and the sets since (an engine that has not reloaded). */
static const struct partition_config *config_of(struct engine *e, const char *name)
{
	const struct partition_config *p = config_find_partition(engine_config(e), name);

	assert_non_null(p);
	return p;
}

/* A number of the row list shows for partition `name` (the goals with every set). */
static double listed(struct engine *e, const char *name, const char *key)
{
	json_t *row = engine_list_row(e, name);

	assert_non_null(row);
	double v = json_number_value(json_object_get(row, key));
	json_decref(row);
	return v;
}

static int set(struct rig *rig, bool persist, const char *name, const char *setting, json_t **ret, struct err *err)
{
	const char *settings[] = { setting };

	*ret = NULL;
	return persist ? engine_set_persist(rig->engine, name, settings, 1, "test", ret, err)
		       : engine_set(rig->engine, name, settings, 1, "test", ret, err);
}

static void set_ok(struct rig *rig, bool persist, const char *name, const char *setting)
{
	struct err err = { "" };
	json_t *result;

	if (set(rig, persist, name, setting, &result, &err) < 0)
		fail_msg("set %s %s: %s", name, setting, err.text);
	json_decref(result);
}

/* The file is written and named, the reply says it lasts; the engine started again from the file
 * (what a restart reads) has it, and not the plain set. */
static void test_a_persisted_set_lasts_and_a_plain_one_does_not(void **state)
{
	struct rig *rig = *state;
	struct err err = { "" };
	json_t *result;

	rig_open(rig);
	set_ok(rig, false, "batch", "mb_max=30");
	assert_int_equal(set(rig, true, "web", "mb_max=40", &result, &err), 0);
	assert_string_equal(json_string_value(json_object_get(result, "persisted")), rig->web_file);
	assert_non_null(strstr(json_string_value(json_object_get(result, "lasts")), "across reloads and restarts"));
	json_decref(result);
	assert_true(config_of(rig->engine, "web")->goals.mb_max == 40);
	char *text = read_text_file(rig->web_file);
	assert_non_null(strstr(text, "[partition \"web\"]\nmb_max = 40\n"));
	free(text);

	engine_free(rig->engine);
	rig->engine = NULL;
	rig_engine(rig);
	assert_true(config_of(rig->engine, "web")->goals.mb_max == 40);
	assert_true(config_of(rig->engine, "web")->goals.mb_min == 10);
	assert_true(config_of(rig->engine, "batch")->goals.mb_max == 100);
}

/* A reload of a file that did not change keeps the partition's other sets: its entry is the same as
 * what the file said, persisted keys included. */
static void test_a_reload_keeps_the_other_sets(void **state)
{
	struct rig *rig = *state;
	struct err err = { "" };

	rig_open(rig);
	set_ok(rig, false, "web", "target_mbps=2000");
	set_ok(rig, true, "web", "mb_max=40");
	set_ok(rig, true, "web", "weight=7"); /* the file keeps mb_max */
	assert_int_equal(engine_reload(rig->engine, &err), 0);
	assert_true(listed(rig->engine, "web", "target_mbps") == 2000);
	assert_true(listed(rig->engine, "web", "weight") == 7);
	assert_true(config_of(rig->engine, "web")->goals.mb_max == 40); /* the reloaded file's */
	char *text = read_text_file(rig->web_file);
	assert_non_null(strstr(text, "mb_max = 40\nweight = 7\n"));
	free(text);
}

/* Refused with err's message holding `says`, nothing written, the partition as it was. */
static void expect_refused(struct rig *rig, const char *name, const char *setting, const char *says)
{
	struct err err = { "" };
	json_t *result;
	const struct partition_config *p = config_find_partition(engine_config(rig->engine), name);
	double before = p ? p->goals.mb_max : 0;
	char path[160];

	assert_true(set(rig, true, name, setting, &result, &err) < 0);
	assert_null(result);
	if (!strstr(err.text, says))
		fail_msg("'%s' lacks '%s'", err.text, says);
	snprintf(path, sizeof(path), "%s/%s.ini", rig->persist, name);
	assert_int_equal(access(path, F_OK), -1);
	assert_true(!p || p->goals.mb_max == before);
}

static void test_what_cannot_be_persisted_is_refused(void **state)
{
	struct rig *rig = *state;

	rig_open(rig);
	expect_refused(rig, "vm", "mb_max=40", "partition vm is defined in a file the include key names");
	expect_refused(rig, "web", "mb_maxx=40", "did you mean 'mb_max'");
	expect_refused(rig, "web", "cgroup=x", "cgroup cannot be changed at run time");
	/* Allowed now (no mb_min after a plain set), refused at the next start with the file's mb_min 10. */
	set_ok(rig, false, "web", "mb_min=none");
	expect_refused(rig, "web", "mb_max=5", "with the file's other keys of web, as the next start would read them");
	expect_refused(rig, "nosuch", "mb_max=5", "no partition named 'nosuch'");
}

static void test_without_persist_dir_it_is_refused(void **state)
{
	struct rig *rig = *state;

	memset(rig, 0, sizeof(*rig));
	rig_files(rig, "");
	snprintf(rig->persist, sizeof(rig->persist), "%s/persist", rig->dir);
	rig_engine(rig);
	expect_refused(rig, "web", "mb_max=40", "no persist_dir in [global]");
}

/* A VM's partition, made by a template: the change belongs in the template. */
static void test_a_templates_partition_is_refused(void **state)
{
	struct rig *rig = *state;
	struct err err = { "" };
	const char *origins[] = { NULL, NULL, NULL, "vms" };

	rig_open(rig);
	char text[1024];
	snprintf(
		text, sizeof(text),
		"[global]\nbackend = sim\ninterval_ms = 100\npersist_dir = %s\n[sim]\nmscs = 2\ncapacity_mbps = 10000\n"
		"[partition \"web\"]\nclass = latency-critical\nmb_min = 10\nmb_max = 80\nsim_demand = 3000\n"
		"[partition \"batch\"]\nclass = best-effort\nsim_demand = 18000\n"
		"[partition \"vm\"]\nsim_demand = 1000\n[partition \"guest\"]\nsim_demand = 1000\n",
		rig->persist);
	assert_int_equal(engine_apply_desired(rig->engine, config_from_text(text), origins, NULL, &err), 0);
	expect_refused(rig, "guest", "mb_max=40", "made by [vm-template \"vms\"]");
}

/* ---- the daemon, through mpamctl ---- */

static void daemon_start(struct rig *rig, const char *const *prefix)
{
	char *argv[16];
	size_t n = 0;

	make_test_dir(rig->daemon.dir, sizeof(rig->daemon.dir), "set-persist-daemon");
	snprintf(rig->daemon.sock, sizeof(rig->daemon.sock), "%s/mpamd.sock", rig->daemon.dir);
	snprintf(rig->daemon.log, sizeof(rig->daemon.log), "%s/mpamd.log", rig->daemon.dir);
	for (; prefix && prefix[n]; n++)
		argv[n] = (char *)prefix[n];
	const char *rest[] = { MPAMD, "-c", rig->config, "-f", "--socket", rig->daemon.sock, NULL };
	for (size_t i = 0; rest[i]; i++)
		argv[n++] = (char *)rest[i];
	argv[n] = NULL;
	rig->daemon.pid = spawn_background(argv, rig->daemon.log);
	assert_true(rig->daemon.pid > 0);
	assert_true(wait_for_text(rig->daemon.log, "ready:", DEMO_WAIT_MS));
}

static void daemon_restart(struct rig *rig)
{
	demo_daemon_stop(&rig->daemon);
	remove_tree(rig->daemon.dir);
	daemon_start(rig, NULL);
}

static double configured_mb_max(struct rig *rig, const char *name)
{
	json_t *show = mpamctl_json(rig->daemon.sock, "show", name);
	double v = json_number_value(json_object_get(json_object_get(show, "config"), "mb_max"));

	json_decref(show);
	return v;
}

static void test_the_daemon_keeps_a_persisted_set_across_a_restart(void **state)
{
	struct rig *rig = *state;

	rig_open(rig);
	daemon_start(rig, NULL);
	struct run_result r = mpamctl_run(NULL, rig->daemon.sock, "set", "--persist", "web", "mb_max=40", NULL);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(strstr(r.out, "lasts across reloads and restarts: persisted in"));
	assert_non_null(strstr(r.out, rig->web_file));
	run_result_fini(&r);
	r = mpamctl_run(NULL, rig->daemon.sock, "set", "batch", "mb_max=30", NULL);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(strstr(r.out, "lasts until a reload"));
	assert_non_null(strstr(r.out, "or until mpamd restarts"));
	run_result_fini(&r);
	/* Refused, with the daemon's reason and exit 1. */
	r = mpamctl_run(NULL, rig->daemon.sock, "set", "-p", "vm", "mb_max=40", NULL);
	assert_int_equal(r.exit_code, 1);
	assert_non_null(strstr(r.err, "not in the main file"));
	run_result_fini(&r);

	daemon_restart(rig);
	assert_true(configured_mb_max(rig, "web") == 40);
	assert_true(configured_mb_max(rig, "batch") == 100);
	demo_daemon_stop(&rig->daemon);
}

/* persist_dir on a read-only mount (under systemd: outside ReadWritePaths): refused, naming why. */
static void test_a_read_only_persist_dir_is_refused(void **state)
{
	struct rig *rig = *state;

	if (geteuid() != 0)
		skip(); /* a private read-only bind mount needs root */
	rig_open(rig);
	assert_int_equal(mkdir(rig->persist, 0755), 0);
	char script[512];
	snprintf(script, sizeof(script), "mount --bind %s %s && mount -o remount,ro,bind %s %s && exec \"$0\" \"$@\"",
		 rig->persist, rig->persist, rig->persist, rig->persist);
	const char *prefix[] = { "/usr/bin/unshare", "-m", "sh", "-c", script, NULL };
	daemon_start(rig, prefix);
	struct run_result r = mpamctl_run(NULL, rig->daemon.sock, "set", "--persist", "web", "mb_max=40", NULL);
	assert_int_equal(r.exit_code, 1);
	assert_non_null(strstr(r.err, "Read-only file system"));
	assert_non_null(strstr(r.err, "mpamd cannot write persist_dir"));
	assert_non_null(strstr(r.err, "nothing was changed"));
	run_result_fini(&r);
	assert_true(configured_mb_max(rig, "web") == 80);
	demo_daemon_stop(&rig->daemon);
}

#define persist_test(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

TEST_MAIN({
	persist_test(test_a_persisted_set_lasts_and_a_plain_one_does_not),
	persist_test(test_a_reload_keeps_the_other_sets),
	persist_test(test_what_cannot_be_persisted_is_refused),
	persist_test(test_without_persist_dir_it_is_refused),
	persist_test(test_a_templates_partition_is_refused),
	persist_test(test_the_daemon_keeps_a_persisted_set_across_a_restart),
	persist_test(test_a_read_only_persist_dir_is_refused),
})
