/* mpamd killed with SIGKILL at random moments, 50 times in a row, on the resctrl emulator: while it
 * opens the mount, creates groups, moves tasks, writes limits, or ticks. After every kill:
 *  - resctrl holds mpamd's groups and nothing else (none leaked, none twice);
 *  - once the host was set up, the limits, the task and the CPUs are what the file says, and no
 *    restart wrote anything (the emulator counts every write, mkdir and rmdir that succeeded);
 *  - the record file, appended to by every run, parses, goes forward in time, has every partition
 *    on every tick, and its only gaps are the restarts: the last row before a kill is at most a few
 *    ticks before it.
 * The moments come from a seed, printed (MPAMD_RESTART_SEED repeats a run). */
#include <dirent.h>
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/util/emu_runner.h"
#include "tests/util/engine_util.h"
#include "tests/util/record_reader.h"
#include "tests/util/testutil.h"
#include "tests/util/test_main.h"

#define RUNS	      50
#define INTERVAL_MS   20
#define STARTUP_MS    60  /* half the kills fall in the first 60 ms: opening the mount, groups, tasks */
#define RUNNING_MS    400 /* the others anywhere up to 400 ms: ticking */
#define WAIT_MS	      10000
#define KILL_SLACK_MS 1000 /* a tick may be late on a loaded machine; a lost second of rows is not */

struct host {
	char dir[64], config[96], traffic[96], record[96], log[96];
	struct emu *emu;
	pid_t task;   /* a's process */
	pid_t daemon; /* the running mpamd, 0 when none */
};

static struct host host;

static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int teardown(void **state)
{
	(void)state;
	if (host.daemon > 0) {
		kill(host.daemon, SIGKILL);
		wait_exit(host.daemon, WAIT_MS);
	}
	emu_stop(host.emu);
	if (host.task > 0) {
		kill(host.task, SIGKILL);
		waitpid(host.task, NULL, 0);
	}
	remove_tree(host.dir);
	memset(&host, 0, sizeof(host));
	return 0;
}

/* ---- what resctrl holds ---- */

static bool file_has(const char *group, const char *file, const char *text)
{
	return emu_group_file_has(host.emu, group, file, text);
}

/* The directories at the root that are not resctrl's own: each must be one of mpamd's groups. */
static void check_no_stray_groups(int run)
{
	DIR *dir = opendir(emu_root(host.emu));
	struct dirent *d;

	assert_non_null(dir);
	while ((d = readdir(dir))) {
		if (d->d_type != DT_DIR || d->d_name[0] == '.' || !strcmp(d->d_name, "info") ||
		    !strcmp(d->d_name, "mon_groups") || !strcmp(d->d_name, "mon_data"))
			continue;
		if (strcmp(d->d_name, "mpamd-a") && strcmp(d->d_name, "mpamd-b") && strcmp(d->d_name, "mpamd-c"))
			fail_msg("after kill %d: resctrl has a group mpamd did not ask for: %s", run, d->d_name);
	}
	closedir(dir);
}

/* Everything as the file says: the groups, their limits, a's task, b's CPU. */
static bool set_up(void)
{
	char pid[24];

	snprintf(pid, sizeof(pid), "%d\n", (int)host.task);
	return file_has("mpamd-a", "schemata", "MB:0=60;1=60\n") && file_has("mpamd-a", "tasks", pid) &&
	       file_has("mpamd-b", "schemata", "MB:0=30;1=30\n") && file_has("mpamd-b", "cpus_list", "2\n") &&
	       file_has("mpamd-c", "schemata", "L3:0=f0;1=f0\n") && file_has("mpamd-c", "schemata", "MB:0=80;1=80\n");
}

static unsigned long changes(void)
{
	unsigned long n = 0;

	assert_int_equal(emu_changes(host.emu, &n), 0);
	return n;
}

/* ---- the runs ---- */

static void start_host(void)
{
	snprintf(host.dir, sizeof(host.dir), "/tmp/mpamd-restart-%d-XXXXXX", (int)getpid());
	assert_non_null(mkdtemp(host.dir));
	snprintf(host.config, sizeof(host.config), "%s/mpamd.ini", host.dir);
	snprintf(host.traffic, sizeof(host.traffic), "%s/traffic.ini", host.dir);
	snprintf(host.record, sizeof(host.record), "%s/run.csv", host.dir);
	snprintf(host.log, sizeof(host.log), "%s/mpamd.log", host.dir);
	host.task = spawn_sleeper();
	assert_true(host.task > 0);
	char parts[512];
	snprintf(parts, sizeof(parts),
		 "[partition \"a\"]\nmb_max = 60\npids = %d\nsim_demand = 1000\n"
		 "[partition \"b\"]\nmb_max = 30\ncpus = 2\nsim_demand = 2000\n"
		 "[partition \"c\"]\nmb_max = 80\nl3_cbm = 0xf0\nsim_demand = 500\n",
		 (int)host.task);
	write_file(host.traffic, "[global]\ninterval_ms = %d\n%s", INTERVAL_MS, parts);
	assert_int_equal(emu_start("intel", host.traffic, NULL, &host.emu), 0);
	write_file(host.config, "[global]\nbackend = resctrl\ninterval_ms = %d\nresctrl_root = %s\n%s", INTERVAL_MS,
		   emu_root(host.emu), parts);
}

static pid_t spawn_mpamd(void)
{
	char *argv[] = { MPAMD, "-c", host.config, "-f", "--no-socket", "--record", host.record, NULL };

	unlink(host.log);
	pid_t pid = spawn_background(argv, host.log);
	assert_true(pid > 0);
	return pid;
}

/* How long after its start run `run` is killed: the even runs (the first among them) in start-up, the
 * odd ones later, as drawn. */
static unsigned kill_after_ms(int run, unsigned *seed)
{
	unsigned r = (unsigned)rand_r(seed);

	return run % 2 == 0 ? r % STARTUP_MS : STARTUP_MS + r % (RUNNING_MS - STARTUP_MS);
}

/* ---- the record ---- */

/* Whether a kill fell after the tick at `t_ms` and before the one at `next_ms` (-1: no next tick). */
static bool kill_between(const int64_t *kills, int count, int64_t t_ms, int64_t next_ms)
{
	for (int k = 0; k < count; k++)
		if (kills[k] >= t_ms && (next_ms < 0 || kills[k] < next_ms))
			return true;
	return false;
}

/* The record goes forward in time, every tick has a row for each partition (but the last before a
 * kill: the kill may cut its write short, and the next start ends the cut row), and a row is never
 * more than KILL_SLACK_MS (and two ticks) older than the kill that followed it. Returns the longest
 * gap between two ticks, which straddles a restart. */
static int64_t check_record(const int64_t *kills, int count, int64_t *ret_longest_restart)
{
	struct record_line *rows = NULL;
	char header[256];
	long cut = 0, n = record_read_forgiving(host.record, header, sizeof(header), &rows, &cut);
	int64_t longest = 0;

	*ret_longest_restart = 0;
	if (n < 0)
		fail_msg("the record file does not parse");
	assert_true(n > 0);
	if (cut > count)
		fail_msg("%ld rows cut short by %d kills", cut, count);
	for (long i = 0, tick; i < n; i = tick) {
		for (tick = i; tick < n && rows[tick].time_ms == rows[i].time_ms;)
			tick++;
		int64_t next_ms = tick < n ? rows[tick].time_ms : -1;
		if (tick - i != 3 && !(tick - i < 3 && kill_between(kills, count, rows[i].time_ms, next_ms)))
			fail_msg("record row %ld: a tick with %ld rows for the 3 partitions", i, tick - i);
		if (next_ms >= 0 && next_ms < rows[i].time_ms)
			fail_msg("record row %ld: time goes back", tick);
		if (next_ms - rows[i].time_ms > longest)
			longest = next_ms - rows[i].time_ms;
	}
	/* Around each kill: the last row before it and the first after it. */
	long next = 0;
	for (int k = 0; k < count; k++) {
		long last = -1;
		while (next < n && rows[next].time_ms <= kills[k])
			last = next++;
		if (last < 0 || (k > 0 && rows[last].time_ms <= kills[k - 1]))
			continue; /* that run was killed before its first tick */
		if (kills[k] - rows[last].time_ms > KILL_SLACK_MS + 2 * INTERVAL_MS)
			fail_msg("kill %d: the last row is %lld ms before it: rows were lost", k,
				 (long long)(kills[k] - rows[last].time_ms));
		if (next < n && rows[next].time_ms - kills[k] > *ret_longest_restart)
			*ret_longest_restart = rows[next].time_ms - kills[k];
	}
	free(rows);
	return longest;
}

static void test_kill_9_at_random_moments(void **state)
{
	const char *env = getenv("MPAMD_RESTART_SEED");
	unsigned seed = env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL) ^ (unsigned)getpid();
	int64_t kills[RUNS];
	unsigned long changes_set_up = 0;
	int set_up_at = -1, before_first_tick = 0;
	int64_t started = wall_ms();

	(void)state;
	printf("seed %u (MPAMD_RESTART_SEED=%u repeats this run)\n", seed, seed);
	start_host();
	for (int run = 0; run < RUNS; run++) {
		host.daemon = spawn_mpamd();
		sleep_ms(kill_after_ms(run, &seed));
		kills[run] = wall_ms();
		kill(host.daemon, SIGKILL);
		if (wait_exit(host.daemon, WAIT_MS) != 128 + SIGKILL)
			fail_msg("run %d: mpamd ended before it was killed:\n%s", run, read_text_file(host.log));
		host.daemon = 0;
		before_first_tick += !wait_for_text(host.log, "ready:", 0);
		check_no_stray_groups(run);
		if (set_up_at < 0 && set_up()) {
			set_up_at = run;
			changes_set_up = changes();
		} else if (set_up_at >= 0 && (!set_up() || changes() != changes_set_up)) {
			fail_msg("kill %d: the host was set up after kill %d, and a restart changed it (%lu changes, "
				 "%lu then); log:\n%s",
				 run, set_up_at, changes(), changes_set_up, read_text_file(host.log));
		}
	}
	if (set_up_at < 0)
		fail_msg("no run got the host set up in %d runs", RUNS);

	/* A last one that is stopped, not killed, finds everything right too. */
	host.daemon = spawn_mpamd();
	assert_true(wait_for_text(host.log, "ready:", WAIT_MS));
	sleep_ms(10 * INTERVAL_MS);
	kill(host.daemon, SIGTERM);
	assert_int_equal(wait_exit(host.daemon, WAIT_MS), 0);
	host.daemon = 0;
	check_no_stray_groups(RUNS);
	assert_true(set_up());
	assert_int_equal(changes(), changes_set_up);

	int64_t longest_restart = 0;
	int64_t longest_gap = check_record(kills, RUNS, &longest_restart);
	printf("%d kills (%d before the first tick; host set up by run %d) in %.1f s; longest gap in the record "
	       "%lld ms, longest restart (kill to first row) %lld ms\n",
	       RUNS, before_first_tick, set_up_at, (double)(wall_ms() - started) / 1000, (long long)longest_gap,
	       (long long)longest_restart);
	teardown(NULL);
}

TEST_MAIN({
	cmocka_unit_test_teardown(test_kill_9_at_random_moments, teardown),
})
