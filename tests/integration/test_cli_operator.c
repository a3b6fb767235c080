/* What a new operator meets on a host of six VMs (the simulator): a `list` that fits a terminal and a
 * --wide one with everything, events with their wall-clock time in every view, the same exit code
 * from every command when mpamd is down, a refusal that names what the user lacks (tried as uid
 * 65534 through setpriv), and "did you mean" for a misspelt partition name. */
#include <grp.h>
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "cli/event_time.h"
#include "core/base/rfc3339.h"
#include "tests/util/mpamctl_run.h"
#include "tests/util/testutil.h"

#define WAIT_MS	     10000
#define USERS_GID    "100" /* a group uid 65534 is not in (Debian's "users") */
#define LIST_COLUMNS 100

static const char six_vms[] = "[global]\nbackend = sim\ninterval_ms = 100\n\n"
			      "[sim]\nmscs = 2\ncapacity_mbps = 10000\nmonitors = 4\ncounter_bits = 31\nseed = 42\n\n"
			      "[partition \"vm-web-frontend\"]\nclass = latency-critical\nguarantee_mbps = 6000\n"
			      "sim_demand = 3000\n\n"
			      "[partition \"vm-batch-etl\"]\nclass = best-effort\nsim_demand = 18000\n\n"
			      "[partition \"vm-tenant-a\"]\ntarget_mbps = 2500\nsim_demand = 4000\n\n"
			      "[partition \"vm-tenant-b\"]\nmb_max = 40\nsim_demand = 4000\n\n"
			      "[partition \"vm-db-primary\"]\nclass = latency-critical\nguarantee_mbps = 3000\n"
			      "sim_demand = 2000\n\n"
			      "[partition \"vm-cache\"]\nsim_demand = 1000\n";

static char dir[64], sock[96];
static int daemon_pid;
static int64_t started_ms;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#define ctl(...)	mpamctl_run(NULL, sock, __VA_ARGS__, NULL)
#define ctl_nobody(...) mpamctl_run("", sock, __VA_ARGS__, NULL)
#define ctl_json(...)	mpamctl_json(sock, __VA_ARGS__)

static void expect_has(const char *text, const char *words)
{
	if (!strstr(text, words))
		fail_msg("lacks '%s':\n%s", words, text);
}

static int group_setup(void **state)
{
	char config[128], log_path[128];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/mpamd-operator-XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, 0755) < 0) /* uid 65534 reaches the socket */
		return -1;
	snprintf(sock, sizeof(sock), "%s/mpamd.sock", dir);
	snprintf(config, sizeof(config), "%s/six.ini", dir);
	snprintf(log_path, sizeof(log_path), "%s/mpamd.log", dir);
	FILE *f = fopen(config, "w");
	if (!f || fputs(six_vms, f) < 0 || fclose(f) != 0)
		return -1;
	started_ms = now_ms();
	char *argv[] = { MPAMD, "-c", config, "-f", "--socket", sock, NULL };
	daemon_pid = spawn_background(argv, log_path);
	if (daemon_pid <= 0 || !wait_for_text(log_path, "ready:", WAIT_MS))
		return -1;
	/* the throttle of vm-tenant-a comes from the target controller's first measured tick */
	return wait_for_text(log_path, "partition vm-tenant-a: throttle", WAIT_MS) ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	kill_daemon(&daemon_pid);
	return remove_tree(dir);
}

/* ---- list ---- */

static size_t longest_line(const char *text)
{
	size_t longest = 0;

	for (const char *line = text; *line;) {
		size_t n = strcspn(line, "\n");
		longest = n > longest ? n : longest;
		line += n + (line[n] == '\n');
	}
	return longest;
}

static void test_list_fits_and_wide_has_everything(void **state)
{
	(void)state;
	struct run_result r = ctl("list");
	assert_int_equal(r.exit_code, 0);
	if (longest_line(r.out) > LIST_COLUMNS)
		fail_msg("a line of 'list' is %zu columns:\n%s", longest_line(r.out), r.out);
	/* the header's columns, in order (their widths follow the data) */
	const char *at = r.out;
	static const char *const header[] = { "NAME ",	   " CLASS ",  " STATE ",   " MB/S ",
					      " MAX/MIN ", " TARGET ", " GUARANTEE" };
	for (size_t i = 0; i < sizeof(header) / sizeof(header[0]); i++) {
		at = strstr(at, header[i]);
		if (!at || at > r.out + strcspn(r.out, "\n"))
			fail_msg("the header lacks '%s' in its place:\n%s", header[i], r.out);
	}
	expect_has(r.out, "vm-tenant-b      default           open");
	expect_has(r.out, "  39.84/0  "); /* mb_max/mb_min merged; 40% is held as MBW_MAX band 102/256 */
	run_result_fini(&r);

	/* -w and --wide: every field, one column each, however wide */
	const char *wide_forms[] = { "--wide", "-w" };
	for (size_t i = 0; i < 2; i++) {
		r = ctl("list", wide_forms[i]);
		assert_int_equal(r.exit_code, 0);
		expect_has(r.out, "MB_MIN  MB_MAX");
		expect_has(r.out, "RETRY_IN_S  ATTEMPTS");
		assert_true(longest_line(r.out) > LIST_COLUMNS);
		run_result_fini(&r);
	}
	/* --json is the daemon's reply, as before */
	json_t *list = ctl_json("list", NULL);
	json_t *first = json_array_get(json_object_get(list, "partitions"), 0);
	assert_non_null(json_object_get(first, "attempts"));
	assert_non_null(json_object_get(first, "mb_max"));
	assert_null(json_object_get(first, "max/min"));
	json_decref(list);
	/* only list takes --wide */
	r = ctl("show", "vm-cache", "--wide");
	assert_int_equal(r.exit_code, 2);
	run_result_fini(&r);
}

/* ---- events ---- */

/* Every event has an RFC 3339 time between the daemon's start and now; returns the first one's. */
static char *check_event_times(json_t *events)
{
	json_t *ev;
	size_t i;

	assert_true(json_array_size(events) > 0);
	json_array_foreach(events, i, ev) {
		const char *time = json_string_value(json_object_get(ev, "time"));
		struct err err = { { 0 } };
		int64_t ms;
		if (!time || rfc3339_parse_ms(time, &ms, &err) < 0)
			fail_msg("event %zu has no RFC 3339 time: %s", i, time ? time : "(none)");
		assert_true(time[strlen(time) - 1] == 'Z');
		assert_true(ms >= started_ms - 1000 && ms <= now_ms() + 1000);
	}
	return strdup(json_string_value(json_object_get(json_array_get(events, 0), "time")));
}

static void test_events_have_wall_clock_times(void **state)
{
	char local[EVENT_TIME_TEXT_MAX], line[256];

	(void)state;
	json_t *status = ctl_json("status", NULL);
	char *first = check_event_times(json_object_get(status, "events"));
	const char *who =
		json_string_value(json_object_get(json_array_get(json_object_get(status, "events"), 0), "partition"));
	snprintf(line, sizeof(line), "%s", who);
	json_decref(status);
	json_t *show = ctl_json("show", "vm-tenant-a");
	char *tenant = check_event_times(json_object_get(show, "events"));
	json_decref(show);

	/* text: a TIME column in local time, first, where the tick count was */
	struct run_result r = ctl("status");
	assert_true(event_time_text(first, time(NULL), local, sizeof(local)));
	expect_has(r.out, "events:\n  TIME      TICK  PARTITION");
	char row[300];
	snprintf(row, sizeof(row), "\n  %s ", local);
	expect_has(r.out, row);
	run_result_fini(&r);
	r = ctl("show", "vm-tenant-a");
	expect_has(r.out, "events:\n  TIME      TICK  PARTITION    ACTION");
	run_result_fini(&r);

	/* top: the newest event of the partition, with its time */
	setenv("COLUMNS", "200", 1);
	r = ctl("top", "--once");
	unsetenv("COLUMNS");
	assert_int_equal(r.exit_code, 0);
	json_t *again = ctl_json("show", "vm-tenant-a");
	json_t *events = json_object_get(again, "events");
	/* top showed the newest event when it ran: the last one show lists now, or one just before it
	 * when the partition had another event in between (a loaded machine) */
	bool found = false;
	for (size_t k = json_array_size(events); k > 0 && k + 3 > json_array_size(events) && !found; k--) {
		json_t *e = json_array_get(events, k - 1);
		const char *when = json_string_value(json_object_get(e, "time"));
		const char *action = json_string_value(json_object_get(e, "action"));
		assert_non_null(action);
		assert_true(event_time_text(when, time(NULL), local, sizeof(local)));
		snprintf(row, sizeof(row), "%s %s: ", local, action);
		found = strstr(r.out, row) != NULL;
	}
	if (!found)
		fail_msg("top shows none of the newest events of vm-tenant-a:\n%s", r.out);
	json_decref(again);
	run_result_fini(&r);
	free(first);
	free(tenant);
}

/* ---- exit codes ---- */

static void expect_exit(int code, struct run_result r, const char *what)
{
	if (r.exit_code != code)
		fail_msg("%s: exit %d, expected %d\nstdout:\n%s\nstderr:\n%s", what, r.exit_code, code, r.out, r.err);
	run_result_fini(&r);
}

static void test_every_command_exits_3_without_daemon(void **state)
{
	char gone[128];

	(void)state;
	snprintf(gone, sizeof(gone), "%s/no-such.sock", dir);
	expect_exit(3, mpamctl_run(NULL, gone, "status", NULL), "status");
	expect_exit(3, mpamctl_run(NULL, gone, "list", NULL), "list");
	expect_exit(3, mpamctl_run(NULL, gone, "list", "--wide", NULL), "list --wide");
	expect_exit(3, mpamctl_run(NULL, gone, "show", "vm-cache", NULL), "show");
	expect_exit(3, mpamctl_run(NULL, gone, "set", "vm-cache", "mb_max=10", NULL), "set");
	expect_exit(3, mpamctl_run(NULL, gone, "reload", NULL), "reload");
	expect_exit(3, mpamctl_run(NULL, gone, "metrics", NULL), "metrics");
	expect_exit(3, mpamctl_run(NULL, gone, "top", "--once", NULL), "top --once");
	expect_exit(3, mpamctl_run(NULL, gone, "top", NULL), "top without a terminal");
	expect_exit(3, mpamctl_run(NULL, gone, "--json", "status", NULL), "--json status");
	/* usage errors are 2 everywhere, daemon or not */
	expect_exit(2, mpamctl_run(NULL, gone, "top", "--bogus", NULL), "top --bogus");
	expect_exit(2, mpamctl_run(NULL, gone, "list", "--bogus", NULL), "list --bogus");
	expect_exit(2, mpamctl_run(NULL, gone, "show", NULL), "show without a name");
	expect_exit(2, mpamctl_run(NULL, gone, "--json", "top", "--once", NULL), "top --json");
}

/* ---- refusals that say what is missing ---- */

static void test_refusals_name_what_is_missing(void **state)
{
	char text[256];

	(void)state;
	/* set and reload: neither root nor in the socket's group */
	const char *mutating[][3] = { { "set", "vm-cache", "mb_max=10" }, { "reload", NULL, NULL } };
	for (size_t i = 0; i < 2; i++) {
		struct run_result r = ctl_nobody(mutating[i][0], mutating[i][1], mutating[i][2]);
		assert_int_equal(r.exit_code, 1);
		expect_has(r.err, "is not allowed: peer uid 65534");
		if (getgrnam("mpamd")) {
			expect_has(r.err,
				   "it needs root or group mpamd (the socket's group), and uid 65534 (nobody) is "
				   "not in it");
		} else {
			snprintf(text, sizeof(text), "only root may: socket %s has no group of its own", sock);
			expect_has(r.err, text);
		}
		run_result_fini(&r);
	}

	/* a directory on the way that uid 65534 cannot search */
	assert_int_equal(chmod(dir, 0700), 0);
	struct run_result r = ctl_nobody("status");
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(r.exit_code, 3);
	snprintf(text, sizeof(text), "directory %s (drwx------ root:", dir);
	expect_has(r.err, text);
	expect_has(r.err, "does not let uid 65534 (nobody) through to the socket");
	run_result_fini(&r);

	/* a socket for its group only: which group, and that this user is not in it */
	assert_int_equal(chown(sock, 0, (gid_t)atoi(USERS_GID)), 0);
	assert_int_equal(chmod(sock, 0660), 0);
	r = ctl_nobody("status");
	expect_has(r.err, "(srw-rw---- root:users) lets only its owner and group users connect, and uid 65534 "
			  "(nobody) is not in that group");
	expect_has(r.err, "usermod -aG users USER");
	assert_int_equal(r.exit_code, 3);
	run_result_fini(&r);
	/* in that group, the same user connects */
	r = mpamctl_run(USERS_GID, sock, "status", NULL);
	assert_int_equal(r.exit_code, 0);
	run_result_fini(&r);
	/* a socket for its owner alone */
	assert_int_equal(chmod(sock, 0600), 0);
	r = ctl_nobody("status");
	expect_has(r.err, "(srw------- root:users) does not let uid 65534 (nobody) connect");
	run_result_fini(&r);
	assert_int_equal(chown(sock, 0, 0), 0);
	assert_int_equal(chmod(sock, 0666), 0);
}

/* ---- names ---- */

static void test_misspelt_names_get_suggestions(void **state)
{
	(void)state;
	struct run_result r = ctl("show", "vm-tenant");
	assert_int_equal(r.exit_code, 1);
	expect_has(r.err, "no partition named 'vm-tenant'; did you mean 'vm-tenant-a' or 'vm-tenant-b'?");
	run_result_fini(&r);
	r = ctl("set", "VM-CACHE", "mb_max=10");
	assert_int_equal(r.exit_code, 1);
	expect_has(r.err, "did you mean 'vm-cache'?");
	run_result_fini(&r);
	r = ctl("--json", "show", "vm-db-primray");
	assert_int_equal(r.exit_code, 1);
	expect_has(r.out, "did you mean 'vm-db-primary'?");
	run_result_fini(&r);
	r = ctl("show", "hypervisor");
	expect_has(r.err, "no partition named 'hypervisor'; 'mpamctl list' shows the 6 partitions");
	run_result_fini(&r);
	/* a name that is there gets no suggestion whatever else fails */
	r = ctl("set", "vm-cache", "mb_max=1000");
	assert_int_equal(r.exit_code, 1);
	assert_null(strstr(r.err, "did you mean"));
	run_result_fini(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_fits_and_wide_has_everything),
		cmocka_unit_test(test_events_have_wall_clock_times),
		cmocka_unit_test(test_every_command_exits_3_without_daemon),
		cmocka_unit_test(test_refusals_name_what_is_missing),
		cmocka_unit_test(test_misspelt_names_get_suggestions),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
