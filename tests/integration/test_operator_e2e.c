/* Every daemon command of mpamctl through the control socket against the simulated demo host
 * (etc/demo.ini), as an operator uses them: status, list, show, set (and that the following ticks
 * record what it set), metrics, reload (which brings the file's values back); and a local user who
 * is neither root nor in group mpamd, who may read everything and change nothing. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
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

#include "tests/util/demo_daemon.h"
#include "tests/util/mpamctl_run.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

#define WAIT_MS 10000

static struct demo_daemon demo;

/* mpamctl ARGS... as root, or as uid/gid 65534 (nobody) with no supplementary group. */
#define ctl_as(nobody, ...) mpamctl_run((nobody) ? "" : NULL, demo.sock, __VA_ARGS__)
#define ctl_json(...)	    mpamctl_json(demo.sock, __VA_ARGS__)

/* Whether `show`'s events hold one with this action and a reason that begins with `reason`; releases
 * `show`. */
static bool has_event(json_t *show, const char *action, const char *reason)
{
	json_t *ev;
	size_t i;
	bool found = false;

	json_array_foreach(json_object_get(show, "events"), i, ev) {
		const char *a = json_string_value(json_object_get(ev, "action"));
		const char *r = json_string_value(json_object_get(ev, "reason"));
		found |= a && r && !strcmp(a, action) && !strncmp(r, reason, strlen(reason));
	}
	json_decref(show);
	return found;
}

static void expect_ok(struct run_result r, const char *words)
{
	if (r.exit_code != 0 || (words && !strstr(r.out, words)))
		fail_msg("exit %d, stdout lacks '%s':\n%s\nstderr:\n%s", r.exit_code, words ? words : "", r.out, r.err);
	run_result_fini(&r);
}

/* The column of `name` in the record's header. */
static int column_of(const char *header, const char *name)
{
	int col = 0;

	for (const char *p = header; *p && *p != '\n'; col++) {
		size_t n = strcspn(p, ",\n");
		if (n == strlen(name) && !strncmp(p, name, n))
			return col;
		p += n + (p[n] == ',');
	}
	return -1;
}

/* The field `col` of a CSV line without quoted fields before it. */
static double field(const char *line, int col)
{
	for (int c = 0; c < col; c++) {
		line = strchr(line, ',');
		if (!line)
			return -1;
		line++;
	}
	return strtod(line, NULL);
}

/* Whether a record row of `partition` with mb_max = `mb_max` was written after the first `from`
 * bytes of the file. */
static bool recorded_after(size_t from, const char *partition, double mb_max)
{
	char *text = read_text_file(demo.record);
	bool found = false;

	if (!text)
		return false;
	int part = column_of(text, "partition"), max = column_of(text, "mb_max");
	assert_true(part >= 0 && max >= 0);
	for (char *line = strchr(text + from, '\n'); line && line[1] && !found; line = strchr(line + 1, '\n')) {
		const char *row = line + 1, *name = row;
		for (int c = 0; c < part && name; c++)
			name = strchr(name, ',') ? strchr(name, ',') + 1 : NULL;
		if (name && !strncmp(name, partition, strlen(partition)) && name[strlen(partition)] == ',')
			found = field(row, max) == mb_max;
	}
	free(text);
	return found;
}

static bool wait_recorded(size_t from, const char *partition, double mb_max)
{
	for (int waited = 0; waited < WAIT_MS; waited += 50) {
		if (recorded_after(from, partition, mb_max))
			return true;
		usleep(50000);
	}
	return false;
}

static size_t record_size(void)
{
	struct stat st;

	return stat(demo.record, &st) == 0 ? (size_t)st.st_size : 0;
}

static void test_operator_session(void **state)
{
	(void)state;
	demo_daemon_start(&demo, "e2e", true);
	assert_int_equal(chmod(demo.dir, 0755), 0);		      /* nobody reaches the socket */
	assert_true(wait_for_text(demo.record, ",tenant,", WAIT_MS)); /* a tick has measured */
	usleep(300000);

	/* Reading. */
	expect_ok(ctl_as(false, "status", NULL), "backend: sim");
	json_t *status = ctl_json("status", NULL);
	assert_int_equal(json_integer_value(json_object_get(status, "partitions")), 3);
	json_decref(status);
	expect_ok(ctl_as(false, "list", NULL), "tenant");
	json_t *web = ctl_json("show", "web");
	assert_string_equal(json_string_value(json_object_get(web, "class")), "latency-critical");
	assert_int_equal(json_array_size(json_object_get(web, "domains")), 2);
	json_decref(web);
	expect_ok(ctl_as(false, "metrics", NULL), "mpamd_partition_bandwidth_bytes_per_second{partition=\"web\"");

	/* Changing: set is in force at once and in the next ticks' record, and a reload of
	 * an unchanged file keeps it. */
	size_t before = record_size();
	json_t *set = NULL;
	{
		struct run_result r = ctl_as(false, "set", "web", "mb_max=60", "--json", NULL);
		json_error_t error;
		if (r.exit_code != 0 || !(set = json_loads(r.out, 0, &error)))
			fail_msg("set: exit %d\n%s%s", r.exit_code, r.out, r.err);
		run_result_fini(&r);
	}
	double in_force = json_number_value(json_object_get(json_object_get(set, "in_force"), "mb_max"));
	assert_true(in_force >= 59.5 && in_force <= 60.5); /* the nearest MPAM band: 60.16% at BWA_WD 8 */
	json_decref(set);
	if (!wait_recorded(before, "web", in_force))
		fail_msg("no record row of web with mb_max %g after the set", in_force);
	assert_true(has_event(ctl_json("show", "web"), "set", "mb_max=60 by uid 0 (pid "));
	before = record_size();
	/* The file's entry for web did not change: a reload keeps what set did (a changed entry wins). */
	expect_ok(ctl_as(false, "reload", NULL), "configuration reloaded");
	if (!wait_recorded(before, "web", in_force))
		fail_msg("no record row of web still at mb_max %g after a reload of the same file", in_force);

	/* Another local user: reads everything, changes nothing. */
	expect_ok(ctl_as(true, "status", NULL), "backend: sim");
	expect_ok(ctl_as(true, "list", NULL), "batch");
	expect_ok(ctl_as(true, "show", "tenant", NULL), "target_mbps");
	expect_ok(ctl_as(true, "metrics", NULL), "mpamd_build_info");
	struct run_result r = ctl_as(true, "set", "batch", "mb_max=10", NULL);
	assert_int_equal(r.exit_code, 1);
	assert_non_null(strstr(r.err, "'set' is not allowed: peer uid 65534"));
	run_result_fini(&r);
	r = ctl_as(true, "reload", NULL);
	assert_int_equal(r.exit_code, 1);
	assert_non_null(strstr(r.err, "not allowed"));
	run_result_fini(&r);
	assert_true(recorded_after(0, "batch", 100));
	assert_false(recorded_after(record_size() > 4096 ? record_size() - 4096 : 0, "batch", 10));

	demo_daemon_stop(&demo);
}

/* The teardown leaves no mpamd and no directory behind, after a failed assertion too. */
TEST_MAIN({
	cmocka_unit_test_prestate_setup_teardown(test_operator_session, NULL, demo_daemon_teardown, &demo),
})
