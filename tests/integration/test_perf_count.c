/* Counting through perf_group and perf_delta on this machine: task-clock and context-switches of a
 * busy child, compared with `perf stat -p` over the same interval, and cgroup-mode counting on a
 * cgroup the test creates (v1 perf_event hierarchy, else cgroup v2), skipped when the kernel refuses. */
#include <errno.h>
#include <fcntl.h>
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/util/busy_task.h"

#include "backends/perf/perf_event.h"

static void resolve2(struct perf_event_desc ev[2])
{
	struct perf_sysfs *s;
	struct err err;

	assert_int_equal(perf_sysfs_new(NULL, &s, &err), 0);
	assert_int_equal(perf_resolve(s, "task-clock", &ev[0], &err), 0);
	assert_int_equal(perf_resolve(s, "context-switches", &ev[1], &err), 0);
	perf_sysfs_free(s);
}

/* perf stat -x, lines: value,unit,event,... ; -1 when perf did not print it. */
static double perf_value(const char *out, const char *event)
{
	char key[64];
	snprintf(key, sizeof(key), ",%s,", event);
	for (const char *line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *end = strchr(line, '\n');
		const char *hit = strstr(line, key);
		if (hit && (!end || hit < end)) {
			const char *comma = strchr(line, ',');
			const char *second = comma ? strchr(comma + 1, ',') : NULL;
			if (second == hit)
				return strtod(line, NULL);
		}
	}
	return -1;
}

static const char *find_perf(void)
{
	static const char *const candidates[] = { "/usr/bin/perf", NULL };
	for (size_t i = 0; candidates[i]; i++)
		if (access(candidates[i], X_OK) == 0 &&
		    system("/usr/bin/perf stat -e task-clock true >/dev/null 2>&1") == 0)
			return candidates[i];
	return NULL;
}

static void test_pid_counts_match_perf(void **state)
{
	struct perf_event_desc ev[2];
	struct perf_target t = { .kind = PERF_TARGET_PID };
	struct perf_group *g;
	struct perf_count before[2], after[2];
	struct err err;
	const char *perf = find_perf();
	char cmd[256], out[4096] = "";

	(void)state;
	resolve2(ev);
	busy_child = busy_task_spawn();
	t.pid = busy_child;
	if (perf_group_new(ev, 2, &t, &g, &err) < 0)
		fail_msg("perf_group_new: %s", err.text);
	assert_int_equal(perf_group_cpus(g), 1);
	usleep(100000);
	assert_int_equal(perf_group_read(g, before, &err), 0);
	double t0 = monotonic_s(), cpu0 = task_cpu_ms(busy_child);
	if (perf) {
		snprintf(cmd, sizeof(cmd), "%s stat -x, -e task-clock,context-switches -p %d sleep 2 2>&1", perf,
			 (int)busy_child);
		FILE *p = popen(cmd, "r");
		assert_non_null(p);
		size_t n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = '\0';
		pclose(p);
	} else {
		sleep(2);
	}
	assert_int_equal(perf_group_read(g, after, &err), 0);
	double wall = monotonic_s() - t0, cpu_ms = task_cpu_ms(busy_child) - cpu0;
	struct perf_delta clock = perf_delta_compute(&before[0], &after[0]);
	struct perf_delta cs = perf_delta_compute(&before[1], &after[1]);
	perf_group_free(g);
	assert_true(clock.counted);
	assert_true(cs.counted);
	double ours_ms = clock.value * ev[0].scale;
	printf("ours: task-clock %.1f msec, context-switches %.0f over %.3f s wall; the scheduler: %.1f ms\n", ours_ms,
	       cs.value, wall, cpu_ms);
	expect_task_cpu_time(ours_ms, cpu_ms, wall);
	if (!perf) {
		printf("perf cannot run here: comparison with perf stat skipped\n");
	} else {
		double perf_ms = perf_value(out, "task-clock"), perf_cs = perf_value(out, "context-switches");
		printf("perf stat -p: task-clock %.1f msec, context-switches %.0f\n%s", perf_ms, perf_cs, out);
		assert_true(perf_ms > 0);
		/* ours spans perf's start-up as well: loose tolerance */
		if (ours_ms < 0.8 * perf_ms || ours_ms > 1.2 * perf_ms * (wall / 2.0) + 50)
			fail_msg("task-clock: ours %.1f ms, perf %.1f ms", ours_ms, perf_ms);
		if (perf_cs >= 0 && (cs.value + 50 < 0.8 * perf_cs || cs.value > 1.2 * perf_cs * (wall / 2.0) + 50))
			fail_msg("context-switches: ours %.0f, perf %.0f", cs.value, perf_cs);
	}
	perf_event_desc_clear(&ev[0]);
	perf_event_desc_clear(&ev[1]);
}

static void test_cgroup_counts(void **state)
{
	static const char *const roots[] = { "/sys/fs/cgroup/perf_event", "/sys/fs/cgroup/unified", "/sys/fs/cgroup" };
	const char *root = NULL;
	struct perf_event_desc ev[2];
	struct perf_count *before, *after;
	struct perf_group *g;
	struct err err;
	char path[320];

	(void)state;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]) && !root; i++) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", roots[i]);
		if (access(path, W_OK) == 0)
			root = roots[i];
	}
	if (!root) {
		printf("no writable perf_event cgroup hierarchy (v1 perf_event or v2): cgroup case skipped\n");
		skip();
	}
	snprintf(busy_cgroup_dir, sizeof(busy_cgroup_dir), "%s/mpamd-perf-test-%d", root, (int)getpid());
	busy_task_in_cgroup();
	resolve2(ev);
	int fd = open(busy_cgroup_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	struct perf_target t = { .kind = PERF_TARGET_CGROUP, .cgroup_fd = fd };
	if (perf_group_new(ev, 2, &t, &g, &err) < 0) {
		printf("the kernel refused cgroup events on %s: %s; cgroup case skipped\n", busy_cgroup_dir, err.text);
		close(fd);
		perf_event_desc_clear(&ev[0]);
		perf_event_desc_clear(&ev[1]);
		skip();
	}
	size_t ncpus = perf_group_cpus(g);
	before = calloc(ncpus * 2, sizeof(*before));
	after = calloc(ncpus * 2, sizeof(*after));
	assert_non_null(before);
	assert_non_null(after);
	assert_int_equal(perf_group_read(g, before, &err), 0);
	double t0 = monotonic_s(), cpu0 = task_cpu_ms(busy_child);
	usleep(1000000);
	assert_int_equal(perf_group_read(g, after, &err), 0);
	double wall = monotonic_s() - t0, cpu_ms = task_cpu_ms(busy_child) - cpu0;
	struct perf_delta clock = perf_delta_sum(before, after, ncpus, 2, 0);
	struct perf_delta cs = perf_delta_sum(before, after, ncpus, 2, 1);
	double ms = clock.value * ev[0].scale;
	printf("cgroup %s on %zu CPUs: task-clock %s%.1f msec, context-switches %.0f over %.3f s; the scheduler: %.1f "
	       "ms\n",
	       busy_cgroup_dir, ncpus, clock.counted ? "" : "<not counted> ", ms, cs.value, wall, cpu_ms);
	assert_true(clock.counted);
	expect_task_cpu_time(ms, cpu_ms, wall);
	perf_group_free(g);
	close(fd);
	free(before);
	free(after);
	perf_event_desc_clear(&ev[0]);
	perf_event_desc_clear(&ev[1]);
}

static void test_errors_carry_advice(void **state)
{
	struct perf_event_desc ev;
	struct perf_target t = { .kind = PERF_TARGET_PID, .pid = 0 };
	struct perf_group *g = NULL;
	struct err err;

	(void)state;
	memset(&ev, 0, sizeof(ev));
	snprintf(ev.name, sizeof(ev.name), "type99");
	ev.type = 99;
	int r = perf_group_new(&ev, 1, &t, &g, &err);
	printf("type 99: %d %s\n", r, err.text);
	assert_true(r == -ENOENT || r == -EACCES || r == -EINVAL);
	assert_null(g);
	assert_non_null(strstr(err.text, "type99"));
	t.pid = 0x7ffffff0; /* no such task */
	ev.type = 1;
	ev.config = 1;
	r = perf_group_new(&ev, 1, &t, &g, &err);
	assert_int_equal(r, -ESRCH);
	assert_non_null(strstr(err.text, "no such process"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_pid_counts_match_perf, busy_task_teardown),
		cmocka_unit_test_teardown(test_cgroup_counts, busy_task_teardown),
		cmocka_unit_test_teardown(test_errors_carry_advice, busy_task_teardown),
	};
	return busy_task_run_perf_tests("tests", tests, sizeof(tests) / sizeof(tests[0]));
}
