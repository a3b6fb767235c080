/* The resctrl backend against the FUSE resctrl emulator, through the very system calls it makes in
 * production: each profile's group lifecycle, adoption, schemata, tasks and CPUs, counter rates
 * against the traffic model, counter assignment, and every injected fault. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/resctrl/resctrl_ops.h"
#include "core/engine/domain_limits.h"
#include "core/engine/registry.h"
#include "core/engine/compose.h"
#include "core/config/config.h"
#include "core/base/counter.h"
#include "core/base/log.h"
#include "tests/util/emu_runner.h"
#include "tests/util/log_capture.h"
#include "tests/util/testutil.h"

#define TICK_NS 100000000ull

struct rig {
	struct emu *emu;
	char config_path[64];
	struct config *config;
	struct clock clock;
	struct composition hw; /* what the engine composes from the config: resctrl control and monitor */
	bool open;
	struct sample samples[64 * 4];
	uint64_t now;
};

/* Writes `body` (sections after [global]) to a temp config pointing at the emulator. */
static void write_config(struct rig *rig, const char *body)
{
	snprintf(rig->config_path, sizeof(rig->config_path), "/tmp/mpamd-resctrl-test-XXXXXX");
	int fd = mkstemp(rig->config_path);
	assert_true(fd >= 0);
	dprintf(fd, "[global]\nbackend = resctrl\ninterval_ms = 100\nresctrl_root = %s\n%s", emu_root(rig->emu), body);
	close(fd);
}

static void load_config(struct rig *rig)
{
	struct diag_list diags;

	diag_list_init(&diags, rig->config_path);
	int r = config_load_path(rig->config_path, engine_default_schema(), NULL, &rig->config, &diags);
	diag_print(&diags, stderr);
	diag_list_fini(&diags);
	assert_int_equal(r, 0);
}

/* Starts the emulator with `profile` and `extra` arguments (may be NULL) on the traffic of `body`, and
 * loads the config. */
static void rig_start_args(struct rig *rig, const char *profile, const char *const *extra, const char *body)
{
	char sim_path[] = "/tmp/mpamd-resctrl-sim-XXXXXX";
	int fd = mkstemp(sim_path);

	memset(rig, 0, sizeof(*rig));
	assert_true(fd >= 0);
	dprintf(fd, "[global]\ninterval_ms = 100\n%s", body);
	close(fd);
	assert_int_equal(emu_start(profile, sim_path, extra, &rig->emu), 0);
	unlink(sim_path);
	assert_int_equal(emu_ctl(rig->emu, "clock manual"), 0);
	write_config(rig, body);
	load_config(rig);
	rig->now = 1000 * TICK_NS;
}

static void rig_start(struct rig *rig, const char *profile, const char *body)
{
	rig_start_args(rig, profile, NULL, body);
}

/* The backend's clock is the rig's: the emulator's is stepped by hand, and a counter read is timed
 * on the clock the backend was given. */
static int rig_open(struct rig *rig, struct err *err)
{
	clock_init_simulated(&rig->clock, rig->now);
	int r = composition_open(&engine_registry_default, rig->config, &rig->clock, &rig->hw, err);

	rig->open = r == 0;
	return r;
}

static int rig_apply(struct rig *rig, size_t i, const struct partition_limits *want, struct partition_limits *eff,
		     struct err *err)
{
	return rig->hw.control_ops->apply(rig->hw.control, i, want, eff, err);
}

/* Opens every partition and applies its configured limits; returns how many failed. */
static size_t rig_open_partitions(struct rig *rig, char *first_error, size_t len)
{
	size_t failed = 0;

	for (size_t i = 0; i < rig->config->partition_count; i++) {
		const struct partition_config *p = &rig->config->partitions[i];
		struct partition_limits want = { .mb_max = p->goals.mb_max,
						 .mb_min = p->goals.mb_min,
						 .l3_cbm = p->goals.l3_cbm },
					eff;
		struct partition_ref ref;
		struct err err = { "" };
		int r = composition_partition_open(&rig->hw, i, p, &ref, &err);
		if (r == 0)
			r = rig_apply(rig, i, &want, &eff, &err);
		if (r < 0 && failed++ == 0 && first_error)
			snprintf(first_error, len, "%s", err.text);
	}
	return failed;
}

/* Opens the backend and every partition, each of which must open. */
static void rig_open_all(struct rig *rig)
{
	struct err err = { "" };
	char first[512] = "";

	if (rig_open(rig, &err) < 0)
		fail_msg("open: %s", err.text);
	if (rig_open_partitions(rig, first, sizeof(first)) != 0)
		fail_msg("opening the partitions: %s", first);
}

/* rig_start, then rig_open_all. */
static void rig_start_open(struct rig *rig, const char *profile, const char *body)
{
	rig_start(rig, profile, body);
	rig_open_all(rig);
}

/* The path of `relative` in the emulator's mount, in `path` (at least PATH_MAX bytes). */
static char *rig_path(const struct rig *rig, const char *relative, char *path)
{
	snprintf(path, PATH_MAX, "%s/%s", emu_root(rig->emu), relative);
	return path;
}

static void rig_mkdir(const struct rig *rig, const char *relative)
{
	char path[PATH_MAX];

	assert_int_equal(mkdir(rig_path(rig, relative, path), 0755), 0);
}

static void rig_rmdir(const struct rig *rig, const char *relative)
{
	char path[PATH_MAX];

	assert_int_equal(rmdir(rig_path(rig, relative, path)), 0);
}

static void rig_close_backend(struct rig *rig)
{
	if (rig->open)
		composition_close(&rig->hw);
	rig->open = false;
}

static void rig_stop(struct rig *rig)
{
	rig_close_backend(rig);
	config_free(rig->config);
	unlink(rig->config_path);
	assert_int_equal(emu_stop(rig->emu), 0);
}

/* One tick: the emulator's clock and the backend's timestamps move together. */
static void rig_tick(struct rig *rig)
{
	struct err err = { "" };

	assert_int_equal(emu_ctl(rig->emu, "advance 100"), 0);
	rig->now += TICK_NS;
	clock_advance_to(&rig->clock, rig->now);
	assert_int_equal(composition_read(&rig->hw, rig->now, rig->samples, &err), 0);
}

static double rate_of(const struct rig *rig, size_t partition, bool *valid)
{
	double mbps = 0;

	*valid = true;
	for (unsigned d = 0; d < rig->hw.domain_count; d++) {
		const struct sample *s = &rig->samples[partition * rig->hw.domain_count + d];
		if (s->state == SAMPLE_INVALID)
			*valid = false;
		else
			mbps += counter_rate_mbps(s->bytes, s->elapsed_ns);
	}
	return mbps;
}

static char *read_group_file(struct rig *rig, const char *group, const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/%s", emu_root(rig->emu), group, file);
	return read_text_file(path);
}

static void assert_file_contains(struct rig *rig, const char *group, const char *file, const char *text)
{
	char *content = read_group_file(rig, group, file);

	assert_non_null(content);
	if (!strstr(content, text))
		fail_msg("%s/%s is:\n%s\nwithout '%s'", group, file, content, text);
	free(content);
}

static const char *const two_vms = "[sim]\ncapacity_mbps = 20000\n"
				   "[partition \"web\"]\nmb_max = 100\nl3_cbm = 0x7f0\nsim_demand = 4000\n"
				   "[partition \"batch\"]\nmb_max = 55\nl3_cbm = 0x00f\nsim_demand = 30000\n";

static void test_intel_lifecycle_schemata_and_rates(void **state)
{
	struct rig rig;

	(void)state;
	rig_start_open(&rig, "intel", two_vms);
	/* MB rounds down to the step of 10: 55% becomes 50%, on every domain. */
	assert_file_contains(&rig, "mpamd-batch", "schemata", "MB:0=50;1=50");
	assert_file_contains(&rig, "mpamd-batch", "schemata", "L3:0=f;1=f");
	assert_file_contains(&rig, "mpamd-web", "schemata", "L3:0=7f0;1=7f0");
	assert_int_equal(rig.hw.domain_count, 2);
	rig_tick(&rig); /* baselines */
	for (int t = 0; t < 20; t++) {
		rig_tick(&rig);
		bool valid;
		double web = rate_of(&rig, 0, &valid);
		assert_true(valid);
		assert_true(fabs(web - 4000) < 40); /* within 1% of the demand the emulator served */
		double batch = rate_of(&rig, 1, &valid);
		assert_true(valid);
		assert_true(fabs(batch - 20000) < 200); /* 50% of each domain's 20000 MB/s, two domains */
	}
	rig_stop(&rig);
}

/* A daemon preempted between a tick's start and its counter reads (a busy host, a long tick) reads
 * the counters late; the rate is the bytes over the time between the two reads, never over the time
 * between the ticks' starts. Here every other tick's reads come 60 ms after its start: timed by the
 * ticks, web's 1000 MB/s would alternate between 625 and 2500 MB/s. Real time, so a wide margin. */
static void test_late_reads_are_timed_when_read(void **state)
{
	struct rig rig;
	struct err err = { "" };
	const uint64_t late_ns = 60 * 1000000ull, apart_ns = 100 * 1000000ull;

	(void)state;
	rig_start_open(&rig, "intel", "[partition \"web\"]\nsim_demand = 1000\n");
	clock_init_monotonic(&rig.clock); /* the backend times its reads in real time, as the daemon's */
	assert_int_equal(emu_ctl(rig.emu, "clock real"), 0);
	for (int t = 0; t < 8; t++) {
		uint64_t now = clock_monotonic_ns();
		struct timespec gap = { 0, (long)apart_ns };
		assert_int_equal(composition_read(&rig.hw, now - (t % 2 ? late_ns : 0), rig.samples, &err), 0);
		bool valid;
		double web = rate_of(&rig, 0, &valid);
		if (t >= 1 && !(valid && fabs(web - 1000) < 200))
			fail_msg("tick %d: web measured %.0f MB/s (valid %d), its demand is 1000", t, web, valid);
		nanosleep(&gap, NULL);
	}
	rig_stop(&rig);
}

static void test_adoption_after_restart_rewrites_nothing(void **state)
{
	struct rig rig;
	struct err err = { "" };

	(void)state;
	rig_start_open(&rig, "intel", two_vms);
	rig_close_backend(&rig);
	/* If the restarted backend wrote any schemata, that write would fail and apply would report it. */
	assert_int_equal(emu_ctl(rig.emu, "fail_next_write EIO schemata"), 0);
	rig_open_all(&rig);
	assert_file_contains(&rig, "mpamd-batch", "schemata", "MB:0=50;1=50");
	/* The armed fault is still there: the next real change meets it. */
	struct partition_limits want = { .mb_max = 30 }, eff;
	assert_int_equal(rig_apply(&rig, 1, &want, &eff, &err), -EIO);
	assert_non_null(strstr(err.text, "mpamd-batch: writing schemata 'MB:0=30;1=30'"));
	rig_stop(&rig);
}

/* Another tool rewrites a group's schemata: the next apply sees it, puts the limits back, and says so. */
static void test_outside_change_is_undone(void **state)
{
	struct rig rig;
	struct err err = { "" };
	struct partition_limits want = { .mb_max = 55, .l3_cbm = 0x00f }, eff;
	char path[512];

	(void)state;
	rig_start_open(&rig, "intel", two_vms);
	assert_int_equal(rig_apply(&rig, 1, &want, &eff, &err), 0);
	assert_false(eff.changed_outside); /* nothing changed since mpamd's own write */
	snprintf(path, sizeof(path), "%s/mpamd-batch/schemata", emu_root(rig.emu));
	FILE *f = fopen(path, "w");
	fputs("MB:0=90;1=90\n", f);
	fclose(f);
	assert_file_contains(&rig, "mpamd-batch", "schemata", "MB:0=90;1=90");
	assert_int_equal(rig_apply(&rig, 1, &want, &eff, &err), 0);
	assert_true(eff.changed_outside);
	assert_file_contains(&rig, "mpamd-batch", "schemata", "MB:0=50;1=50");
	rig_stop(&rig);
}

static void test_groups_of_others_are_untouched(void **state)
{
	struct rig rig;

	(void)state;
	rig_start(&rig, "intel", two_vms);
	rig_mkdir(&rig, "someone-else");
	char *before = read_group_file(&rig, "someone-else", "schemata");
	rig_open_all(&rig);
	char *after = read_group_file(&rig, "someone-else", "schemata");
	assert_string_equal(before, after);
	free(before);
	free(after);
	rig_stop(&rig);
}

static void test_tasks_and_cpus(void **state)
{
	struct rig rig;
	struct err err = { "" };
	char body[512];
	pid_t alive = spawn_sleeper(), dead = spawn_sleeper();

	(void)state;
	kill(dead, SIGKILL);
	waitpid(dead, NULL, 0);
	snprintf(body, sizeof(body), "[partition \"web\"]\npids = %d %d\ncpus = 1-2\n", (int)dead, (int)alive);
	rig_start(&rig, "intel", body);
	assert_int_equal(rig_open(&rig, &err), 0);
	/* The task that exited is skipped, the live one moved. */
	assert_int_equal(rig_open_partitions(&rig, NULL, 0), 0);
	char line[32];
	snprintf(line, sizeof(line), "%d\n", (int)alive);
	assert_file_contains(&rig, "mpamd-web", "tasks", line);
	assert_file_contains(&rig, "mpamd-web", "cpus_list", "1-2");
	/* What `mpamctl show` gives as the task count: the lines of the tasks file. */
	size_t tasks = 0;
	assert_int_equal(rig.hw.control_ops->partition_tasks(rig.hw.control, 0, &tasks), 0);
	assert_int_equal(tasks, 1);
	kill(alive, SIGKILL);
	waitpid(alive, NULL, 0);
	rig_stop(&rig);
}

static void *parked(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

/* The threads /proc lists for `pid`. */
static size_t thread_count(pid_t pid)
{
	char dir[64];
	size_t n = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* Waits until `pid` has at least `want` threads. */
static void wait_for_threads(pid_t pid, size_t want)
{
	for (int tries = 0; tries < 2000; tries++) {
		if (thread_count(pid) >= want)
			return;
		usleep(1000);
	}
	fail_msg("child %d did not start %zu threads", (int)pid, want);
}

/* How many of pid's threads the group's tasks file does not list; *threads counts them all. */
static size_t threads_missing(struct rig *rig, const char *group, pid_t pid, size_t *threads)
{
	char path[512], line[300];
	size_t missing = 0;

	snprintf(path, sizeof(path), "%s/%s/tasks", emu_root(rig->emu), group);
	char *text = read_text_file(path), *tasks = malloc(strlen(text ? text : "") + 2);
	assert_non_null(text);
	assert_non_null(tasks);
	sprintf(tasks, "\n%s", text); /* every id between newlines */
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	*threads = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(line, sizeof(line), "\n%s\n", e->d_name);
		missing += strstr(tasks, line) == NULL;
		(*threads)++;
	}
	if (d)
		closedir(d);
	if (missing)
		print_message("tasks of %s: '%s'\n", group, text);
	free(tasks);
	free(text);
	return missing;
}

/* A child whose main thread makes `threads` parked threads as fast as it can, then writes a byte to
 * `done` unless it is -1; returns once /proc lists `listed` threads of it. */
static pid_t spawn_parked_threads(int threads, int done, size_t listed)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		for (int i = 0; i < threads; i++) {
			pthread_t t;
			pthread_attr_t attr;
			pthread_attr_init(&attr);
			pthread_attr_setstacksize(&attr, 64 * 1024);
			if (pthread_create(&t, &attr, parked, NULL))
				_exit(1);
		}
		if (done >= 0 && write(done, "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	wait_for_threads(pid, listed);
	return pid;
}

/* The tasks file moves one thread per id: every thread of a pids process must land in the group. */
static void test_every_thread_of_a_pid(void **state)
{
	struct rig rig;
	char body[256];
	size_t threads;
	pid_t vm = spawn_parked_threads(3, -1, 4); /* a main thread and three more */

	(void)state;
	snprintf(body, sizeof(body), "[partition \"vm\"]\npids = %d\n", (int)vm);
	rig_start_open(&rig, "intel", body);
	size_t missing = threads_missing(&rig, "mpamd-vm", vm, &threads);
	/* Clean up before asserting, so a failure leaves no process or mount behind. */
	kill(vm, SIGKILL);
	waitpid(vm, NULL, 0);
	rig_stop(&rig);
	assert_int_equal(threads, 4);
	assert_int_equal(missing, 0);
}

#define SPAWNED_THREADS 400

/* Threads a process makes while mpamd moves it: those made by a thread already moved start in the
 * group (the kernel copies the maker's group), those made before their maker was moved stay where it
 * was, and mpamd lists the threads again until it finds them all in the group. */
static void test_threads_made_during_the_move(void **state)
{
	struct rig rig;
	char body[256];
	size_t threads;
	int done[2];

	(void)state;
	assert_int_equal(pipe(done), 0);
	pid_t maker = spawn_parked_threads(SPAWNED_THREADS, done[1], 20); /* returns once it has made some */
	snprintf(body, sizeof(body), "[partition \"vm\"]\npids = %d\n", (int)maker);
	rig_start_open(&rig, "intel", body);
	char c;
	assert_int_equal(read(done[0], &c, 1), 1);
	size_t missing = threads_missing(&rig, "mpamd-vm", maker, &threads);
	kill(maker, SIGKILL);
	waitpid(maker, NULL, 0);
	close(done[0]);
	close(done[1]);
	rig_stop(&rig);
	assert_int_equal(threads, SPAWNED_THREADS + 1);
	assert_int_equal(missing, 0);
}

static void test_out_of_closids_fails_one_partition(void **state)
{
	struct rig rig;
	struct err err = { "" };
	char body[4096], first[512] = "";
	int used = 0;

	(void)state;
	/* 16 CLOSIDs, the default group holds one: the 16th partition cannot have a group. mpamd sees it
	 * before the mkdir, which would only write "Out of CLOSIDs" over last_cmd_status. */
	for (int i = 0; i < 16; i++)
		used += snprintf(body + used, sizeof(body) - (size_t)used, "[partition \"p%02d\"]\nsim_demand = 100\n",
				 i);
	rig_start(&rig, "intel", body);
	assert_int_equal(rig_open(&rig, &err), 0);
	assert_int_equal(rig_open_partitions(&rig, first, sizeof(first)), 1);
	if (!strstr(first, "cannot create resctrl group mpamd-p15: no CLOSID left (resctrl has 16: the default group, "
			   "15 existing control group(s) hold them)"))
		fail_msg("%s", first);
	assert_false(emu_group_file_has(rig.emu, "info", "last_cmd_status", "Out of CLOSIDs"));
	rig_tick(&rig);
	rig_tick(&rig);
	bool valid;
	assert_true(fabs(rate_of(&rig, 0, &valid) - 100) < 1);
	assert_true(valid);
	rate_of(&rig, 15, &valid);
	assert_false(valid);
	rig_stop(&rig);
}

static void test_faults_surface_and_others_continue(void **state)
{
	struct rig rig;
	struct err err = { "" };
	struct partition_limits want = { .mb_max = 70 }, eff;

	(void)state;
	rig_start_open(&rig, "intel", two_vms);
	rig_tick(&rig);
	/* A counter that reads Unavailable or Error makes that sample invalid, with the reason. */
	assert_int_equal(emu_ctl(rig.emu, "counter mpamd-web 1 mbm_total_bytes unavailable"), 0);
	rig_tick(&rig);
	assert_int_equal(rig.samples[0 * 2 + 1].state, SAMPLE_INVALID);
	assert_non_null(strstr(rig.samples[0 * 2 + 1].reason, "Unavailable"));
	assert_int_equal(rig.samples[0 * 2 + 0].state, SAMPLE_MEASURED);
	bool valid;
	rate_of(&rig, 1, &valid);
	assert_true(valid);
	assert_int_equal(emu_ctl(rig.emu, "counter mpamd-web 1 mbm_total_bytes error"), 0);
	rig_tick(&rig);
	assert_non_null(strstr(rig.samples[1].reason, "Error"));
	assert_int_equal(emu_ctl(rig.emu, "counter mpamd-web 1 mbm_total_bytes ok"), 0);
	/* A schemata write the kernel refuses carries last_cmd_status; the other group is unaffected. */
	assert_int_equal(emu_ctl(rig.emu, "fail_next_write EINVAL schemata"), 0);
	assert_int_equal(rig_apply(&rig, 0, &want, &eff, &err), -EINVAL);
	assert_non_null(strstr(err.text, "mpamd-web"));
	assert_int_equal(rig_apply(&rig, 1, &want, &eff, &err), 0);
	assert_int_equal(eff.mb_max, 70);
	/* The mount disappears: reads fail as invalid samples, not as a crash or a zero. */
	assert_int_equal(emu_ctl(rig.emu, "vanish"), 0);
	rig.now += TICK_NS;
	clock_advance_to(&rig.clock, rig.now);
	composition_read(&rig.hw, rig.now, rig.samples, &err);
	for (int i = 0; i < 4; i++)
		assert_int_equal(rig.samples[i].state, SAMPLE_INVALID);
	rig_stop(&rig);
}

/* A group removed behind mpamd's back: its counter files, kept open, answer ENODEV as kernfs does for
 * a removed node. Its samples are invalid and say the file is gone; the other group keeps its rates. */
static void test_removed_group_counters_say_gone(void **state)
{
	struct rig rig;

	(void)state;
	rig_start_open(&rig, "intel", two_vms);
	rig_tick(&rig);
	rig_tick(&rig);
	rig_rmdir(&rig, "mpamd-web");
	rig_tick(&rig);
	for (unsigned d = 0; d < 2; d++) {
		assert_int_equal(rig.samples[0 * 2 + d].state, SAMPLE_INVALID);
		assert_non_null(strstr(rig.samples[0 * 2 + d].reason, "counter file gone"));
		assert_int_equal(rig.samples[1 * 2 + d].state, SAMPLE_MEASURED);
	}
	rig_stop(&rig);
}

/* A byte count that goes down is never a wrap: Linux 7.3 prints EBUSY as 0, and a reset restarts the
 * count. Each is an invalid sample with its reason; measuring resumes from a new baseline. */
static void test_counter_backwards_is_not_a_rate(void **state)
{
	static const char *const faults[] = { "zero", "reset" };
	struct rig rig;
	struct err err = { "" };
	char cmd[96];

	(void)state;
	for (size_t f = 0; f < 2; f++) {
		rig_start(&rig, "intel", two_vms);
		assert_int_equal(rig_open(&rig, &err), 0);
		assert_int_equal(rig_open_partitions(&rig, NULL, 0), 0);
		rig_tick(&rig);
		rig_tick(&rig);
		assert_int_equal(rig.samples[0].state, SAMPLE_MEASURED);
		snprintf(cmd, sizeof(cmd), "counter mpamd-web 0 mbm_total_bytes %s", faults[f]);
		assert_int_equal(emu_ctl(rig.emu, cmd), 0);
		rig_tick(&rig);
		if (rig.samples[0].state != SAMPLE_INVALID)
			fail_msg("%s: a count that went down gave a sample of %llu bytes", faults[f],
				 (unsigned long long)rig.samples[0].bytes);
		assert_non_null(strstr(rig.samples[0].reason, f == 0 ? "reads 0" : "backwards"));
		assert_int_equal(rig.samples[1].state, SAMPLE_MEASURED); /* the other domain is unaffected */
		snprintf(cmd, sizeof(cmd), "counter mpamd-web 0 mbm_total_bytes ok");
		assert_int_equal(emu_ctl(rig.emu, cmd), 0);
		for (int t = 0; t < 3; t++)
			rig_tick(&rig);
		assert_int_equal(rig.samples[0].state, SAMPLE_MEASURED);
		bool valid;
		double mbps = rate_of(&rig, 0, &valid);
		assert_true(valid && mbps > 0 && mbps < 1e6);
		rig_stop(&rig);
	}
}

/* A body of `capacity` MB/s and `vms` partitions vm0, vm1, ... whose demands are `step`, 2 x `step`,
 * ... MB/s. */
static void vms_body(char *body, size_t size, int capacity, int vms, int step)
{
	int used = snprintf(body, size, "[sim]\ncapacity_mbps = %d\n", capacity);

	for (int i = 0; i < vms; i++)
		used += snprintf(body + used, size - (size_t)used, "[partition \"vm%d\"]\nsim_demand = %d\n", i,
				 step * (i + 1));
}

static void test_amd_counter_assignment_rotates(void **state)
{
	struct rig rig;
	char body[4096];

	(void)state;
	vms_body(body, sizeof(body), 50000, 6, 1000);
	rig_start_open(&rig, "amd", body);
	unsigned measured[6] = { 0 }, estimated[6] = { 0 };
	for (int t = 0; t < 60; t++) {
		rig_tick(&rig);
		for (size_t p = 0; p < 6; p++) {
			bool valid;
			double mbps = rate_of(&rig, p, &valid);
			if (!valid)
				continue;
			if (fabs(mbps - 1000.0 * (double)(p + 1)) > 0.05 * 1000.0 * (double)(p + 1))
				fail_msg("vm%zu: %.1f MB/s at tick %d", p, mbps, t);
			bool est = rig.samples[p * 2].state == SAMPLE_ESTIMATED;
			measured[p] += !est;
			estimated[p] += est;
		}
	}
	for (size_t p = 0; p < 6; p++) {
		if (measured[p] < 5 || estimated[p] < 5)
			fail_msg("vm%zu measured %u estimated %u", p, measured[p], estimated[p]);
	}
	rig_stop(&rig);
}

/* Linux 7.3 MPAM: counters only through fixed counter assignment, here one per domain for 12 groups,
 * on a monitoring resource named MB (mon_data/mon_MB_NN, mbm_MB_assignments): every partition is
 * measured within 5% of the traffic model, the rotation's gaps flagged as estimates, never as zero. */
static void test_mpam73_one_counter_per_domain_rotates(void **state)
{
	static const char *const extra[] = { "--counters", "1", "--mon-resource", "MB", NULL };
	enum {
		VMS = 12,
		TICKS = 150
	};
	struct rig rig;
	char body[4096];

	(void)state;
	vms_body(body, sizeof(body), 100000, VMS, 500);
	rig_start_args(&rig, "mpam73", extra, body);
	rig_open_all(&rig);
	assert_string_equal(rig.hw.domains[0].name, "MB_00");
	unsigned measured[VMS] = { 0 }, estimated[VMS] = { 0 };
	for (int t = 0; t < TICKS; t++) {
		rig_tick(&rig);
		for (size_t p = 0; p < VMS; p++) {
			bool valid;
			double mbps = rate_of(&rig, p, &valid), want = 500.0 * (double)(p + 1);
			if (!valid)
				continue;
			if (fabs(mbps - want) > 0.05 * want)
				fail_msg("vm%zu: %.1f MB/s at tick %d, the model serves %.0f", p, mbps, t, want);
			bool est = false;
			for (unsigned d = 0; d < rig.hw.domain_count; d++)
				est |= rig.samples[p * rig.hw.domain_count + d].state == SAMPLE_ESTIMATED;
			measured[p] += !est;
			estimated[p] += est;
		}
	}
	for (size_t p = 0; p < VMS; p++)
		if (measured[p] == 0 || estimated[p] == 0 || measured[p] + estimated[p] < TICKS / 2)
			fail_msg("vm%zu: %u measured, %u estimated of %d ticks", p, measured[p], estimated[p], TICKS);
	rig_stop(&rig);
}

/* Counters assigned in turn, and one partition with a guarantee: it keeps a counter on every domain
 * from its first turn on (the pools are made at the first read, after it asked), and is measured
 * every tick; the others share the one counter left per domain. */
static void test_guarantee_holder_keeps_an_assigned_counter(void **state)
{
	static const char *const extra[] = { "--counters", "3", "--mon-resource", "MB", NULL };
	enum {
		VMS = 6,
		TICKS = 60
	};
	struct rig rig;
	char body[4096];

	(void)state;
	vms_body(body, sizeof(body), 100000, VMS, 500);
	strcat(body, "[partition \"web\"]\nsim_demand = 4000\nclass = latency-critical\nguarantee_mbps = 3000\n");
	rig_start_args(&rig, "mpam73", extra, body);
	rig_open_all(&rig);
	unsigned measured[VMS + 1] = { 0 };
	for (int t = 0; t < TICKS; t++) {
		rig_tick(&rig);
		for (size_t p = 0; t >= 10 && p <= VMS; p++) {
			bool all = true;
			for (unsigned d = 0; d < rig.hw.domain_count; d++)
				all &= rig.samples[p * rig.hw.domain_count + d].state == SAMPLE_MEASURED;
			measured[p] += all;
		}
	}
	if (measured[VMS] != TICKS - 10)
		fail_msg("web (guarantee) measured %u of %d ticks", measured[VMS], TICKS - 10);
	for (size_t p = 0; p < VMS; p++)
		if (measured[p] == 0)
			fail_msg("vm%zu never measured", p);
	rig_stop(&rig);
}

/* The reads of the emulator's counters that waited for a monitor not ready yet. */
static unsigned long nrdy_waits(struct rig *rig)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/.emu_ctl", emu_root(rig->emu));
	char *text = read_text_file(path);
	const char *at = text ? strstr(text, "\nnrdy_waits ") : NULL;
	unsigned long n = at ? strtoul(at + strlen("\nnrdy_waits "), NULL, 10) : ULONG_MAX;
	free(text);
	return n;
}

/* Linux 7.3 MPAM: a counter's first read after its assignment waits for the MSC's not-ready time (here
 * 50 ms, half a tick) with resctrl's lock held. While counters rotate, mpamd reads a counter it has
 * just assigned only at the next tick, so no read of its ever waits, and every partition is still
 * measured in turn. */
static void test_mpam73_new_counter_read_next_tick(void **state)
{
	static const char *const extra[] = { "--counters", "1", "--nrdy-ms", "50", NULL };
	struct rig rig;
	char body[4096];

	(void)state;
	vms_body(body, sizeof(body), 100000, 4, 1000);
	rig_start_args(&rig, "mpam73", extra, body);
	rig_open_all(&rig);
	unsigned measured[4] = { 0 };
	for (int t = 0; t < 40; t++) {
		rig_tick(&rig);
		for (size_t p = 0; p < 4; p++)
			measured[p] += rig.samples[p * rig.hw.domain_count].state == SAMPLE_MEASURED;
	}
	unsigned long waits = nrdy_waits(&rig);
	rig_stop(&rig);
	assert_int_equal(waits, 0);
	for (size_t p = 0; p < 4; p++)
		if (measured[p] < 3)
			fail_msg("vm%zu measured %u times in 40 ticks", p, measured[p]);
}

static void test_mpam_without_counters_records_nothing_as_zero(void **state)
{
	struct rig rig;

	(void)state;
	rig_start_open(&rig, "mpam", "[partition \"web\"]\nmb_max = 61\nsim_demand = 1000\n");
	assert_int_equal(rig.hw.domain_count, 0);
	/* 61% is the rung of the band whose top is 62.5% (BWA_WD 5), which the kernel shows as 63. */
	char *schemata = read_group_file(&rig, "mpamd-web", "schemata");
	assert_non_null(strstr(schemata, "MB:0=63"));
	free(schemata);
	rig_stop(&rig);
}

/* The daemon end to end on the emulator: the record file of the simulator, without sim_mbps. */
/* The warnings opening the `profile` emulator's control logs with mb_max_mode = `mode`. */
static unsigned long warnings_opening(const char *profile, const char *mode)
{
	char body[128];
	struct rig rig;
	struct err err = { "" };

	snprintf(body, sizeof(body), "mb_max_mode = %s\n[partition \"web\"]\nsim_demand = 1000\n", mode);
	rig_start(&rig, profile, body);
	unsigned long before = log_count(LOG_LEVEL_WARNING);
	if (rig_open(&rig, &err) < 0)
		fail_msg("open: %s", err.text);
	unsigned long said = log_count(LOG_LEVEL_WARNING) - before;
	rig_stop(&rig);
	return said;
}

/* Through resctrl Linux's MPAM driver keeps every mb_max soft: mb_max_mode = hard is said not to hold
 * there; Intel's MB has no such choice and nothing is said. */
static void test_hard_mode_is_said_soft_through_resctrl(void **state)
{
	(void)state;
	assert_int_equal(warnings_opening("mpam", "hard"), warnings_opening("mpam", "soft") + 1);
	assert_int_equal(warnings_opening("intel", "hard"), warnings_opening("intel", "soft"));
}

/* mpamd in the foreground on the rig's config for `ticks` ticks, recording to `record` unless NULL:
 * its exit code; what it said is in *r, which the caller finishes. */
static int run_mpamd(struct rig *rig, int ticks, char *record, struct run_result *r)
{
	char ticks_arg[16];

	snprintf(ticks_arg, sizeof(ticks_arg), "%d", ticks);
	char *argv[] = { MPAMD,	    "-c",      rig->config_path, "-f",	 "--no-socket",
			 "--ticks", ticks_arg, "--record",	 record, NULL };
	if (!record)
		argv[7] = NULL; /* no --record */
	assert_int_equal(run_command(argv, r), 0);
	return r->exit_code;
}

static void test_mpamd_records_against_the_emulator(void **state)
{
	struct rig rig;
	char record[] = "/tmp/mpamd-resctrl-record-XXXXXX";

	(void)state;
	close(mkstemp(record));
	rig_start(&rig, "intel", two_vms);
	assert_int_equal(emu_ctl(rig.emu, "clock real"), 0);
	struct run_result r;
	if (run_mpamd(&rig, 5, record, &r) != 0)
		fail_msg("mpamd: %s", r.err);
	char *csv = read_text_file(record);
	assert_non_null(strstr(csv, "time,t_ms,partition,domain,mbps,mb_max,mb_min,mb_max_mbps,guarantee_mbps,target_"
				    "mbps,valid,estimated,event\n"));
	assert_non_null(strstr(csv, ",web,"));
	assert_non_null(strstr(csv, ",batch,"));
	assert_non_null(strstr(csv, ",50,0,,,,1,0,")); /* batch: MB 50%, measured, no goals */
	free(csv);
	run_result_fini(&r);
	unlink(record);
	rig_stop(&rig);

	/* Without any bandwidth counter (MPAM on Linux 7.1, no [msc]) every row is invalid, never 0. */
	rig_start(&rig, "mpam", "[partition \"web\"]\nsim_demand = 1000\n");
	assert_int_equal(emu_ctl(rig.emu, "clock real"), 0);
	assert_int_equal(run_mpamd(&rig, 3, record, &r), 0);
	assert_non_null(strstr(r.err, "no bandwidth counters"));
	csv = read_text_file(record);
	assert_non_null(strstr(csv, ",web,*,,100,0,,,,0,0,\n"));
	assert_null(strstr(csv, ",1,0,\n"));
	free(csv);
	run_result_fini(&r);
	unlink(record);
	rig_stop(&rig);
}

/* Puts `lines` into [global], right after the backend key of the rig's config file. */
static void add_global_lines(struct rig *rig, const char *lines)
{
	char *cfg = read_text_file(rig->config_path);
	char *at = strstr(cfg, "backend = resctrl\n");
	FILE *f = fopen(rig->config_path, "w");

	assert_non_null(at);
	fprintf(f, "%.*s%s%s", (int)(at - cfg), cfg, lines, at);
	fclose(f);
	free(cfg);
}

/* Beside resctrl on an MPAM host the kernel's MPAM driver owns the MSCs' monitor selector: mpamd does
 * not read them over MMIO and says why and what instead. monitor = auto leaves bandwidth unmeasured,
 * monitor = mmio is a start-up error. */
static void test_mmio_monitors_refused_beside_the_kernel(void **state)
{
	struct rig rig;
	struct run_result r;
	const char *msc = "[msc \"l3\"]\nbase = 0x7f000000\nsize = 0x4000\n[partition \"web\"]\nmb_max = 50\n";

	(void)state;
	rig_start(&rig, "mpam", msc);
	assert_int_equal(emu_ctl(rig.emu, "clock real"), 0);
	assert_int_equal(run_mpamd(&rig, 2, NULL, &r), 0);
	assert_non_null(strstr(r.err, "no bandwidth counters"));
	assert_non_null(strstr(r.err, "MMIO monitoring refused: resctrl is the control"));
	assert_non_null(strstr(r.err, "MSMON_CFG_MON_SEL"));
	assert_non_null(strstr(r.err, "monitor = resctrl on Linux 7.3+"));
	assert_non_null(strstr(r.err, "mmio_beside_kernel = yes)"));
	assert_null(strstr(r.err, "/dev/mem")); /* refused before any window is mapped */
	assert_file_contains(&rig, "mpamd-web", "schemata", "MB:0=47");
	run_result_fini(&r);
	add_global_lines(&rig, "monitor = mmio\n");
	assert_int_equal(run_mpamd(&rig, 2, NULL, &r), 1);
	assert_non_null(strstr(r.err, "MMIO monitoring refused: resctrl is the control"));
	assert_non_null(strstr(r.err, "disables MPAM until reboot"));
	assert_non_null(strstr(r.err, "on 7.1/7.2, which have none, set mmio_beside_kernel = yes"));
	run_result_fini(&r);
	rig_stop(&rig);
}

/* With mmio_beside_kernel = yes, monitor = auto on an Arm host whose /dev/mem cannot be mapped: control
 * still works, and the log says why bandwidth is not measured. (This machine has no /dev/mem, like a
 * kernel without CONFIG_DEVMEM.) With monitor = mmio the same is a start-up error. */
static void test_auto_monitors_degrade_without_devmem(void **state)
{
	struct rig rig;
	struct run_result r;
	const char *msc = "[msc \"l3\"]\nbase = 0x7f000000\nsize = 0x4000\n[partition \"web\"]\nmb_max = 50\n";

	(void)state;
	if (access("/dev/mem", F_OK) == 0)
		skip();
	rig_start(&rig, "mpam", msc);
	assert_int_equal(emu_ctl(rig.emu, "clock real"), 0);
	add_global_lines(&rig, "mmio_beside_kernel = yes\n");
	assert_int_equal(run_mpamd(&rig, 2, NULL, &r), 0);
	assert_non_null(strstr(r.err, "mmio_beside_kernel = yes: MMIO monitoring beside the kernel"));
	assert_non_null(strstr(r.err, "monitor = auto: cannot read MSC monitors"));
	assert_non_null(strstr(r.err, "/dev/mem does not exist"));
	/* 50% is 48 in steps of 4, which Linux 7.1's MPAM glue shows as its band, 47. */
	assert_file_contains(&rig, "mpamd-web", "schemata", "MB:0=47");
	run_result_fini(&r);
	/* Asked for explicitly, the MSC monitors are required. */
	add_global_lines(&rig, "monitor = mmio\n");
	assert_int_equal(run_mpamd(&rig, 2, NULL, &r), 1);
	assert_non_null(strstr(r.err, "msc \"l3\": cannot map /dev/mem"));
	run_result_fini(&r);
	rig_stop(&rig);
}

/* One write(2) of text to an existing file: 0 or -errno. */
static int put_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, strlen(text));
	int r = n < 0 ? -errno : 0;
	close(fd);
	return r;
}

struct hammer {
	char path[512];
	volatile bool stop;
};

/* Another process's monitoring agent, in effect: reads a group's counter in a loop. */
static void *read_counter_loop(void *arg)
{
	struct hammer *h = arg;

	while (!h->stop)
		free(read_text_file(h->path));
	return NULL;
}

/* The error of a refused write quotes last_cmd_status as it was right after the write, or says the
 * kernel gave none: it never guesses a cause. */
static void assert_reason_or_none(const char *error, const char *reason)
{
	if (strstr(error, reason))
		return;
	if (!strstr(error, "(kernel gave no reason: last_cmd_status was empty)") || strstr(error, "domain id"))
		fail_msg("error: %s", error);
}

/* A refused write is explained by info/last_cmd_status, which Linux 7.2 keeps until the next command
 * and 7.3 clears on any access to a group's file, a counter read included: mpamd reads it right after
 * the write, so that the kernel's reason is in the error on both, and says so when it is empty. */
static void check_write_reasons(const char *kernel)
{
	const char *const extra[] = { "--kernel", kernel, "--possible-cpus", "8", NULL };
	struct rig rig;
	struct err err = { "" };
	struct partition_limits want = { .l3_cbm = 0x0ff }, eff;
	char first[512] = "";

	/* CPU 5 is possible but not online (4 of 8): the kernel refuses the cpus_list write. */
	rig_start_args(&rig, "intel", extra,
		       "[partition \"web\"]\ncpus = 5\n[partition \"batch\"]\nsim_demand = 100\n");
	/* Another tool's exclusive group holds 0x00f: a mask over it is refused by the kernel itself. */
	char path[PATH_MAX];
	assert_int_equal(put_text(rig_path(&rig, "schemata", path), "L3:0=7f0;1=7f0\n"), 0);
	rig_mkdir(&rig, "other");
	assert_int_equal(put_text(rig_path(&rig, "other/schemata", path), "L3:0=00f;1=00f\n"), 0);
	assert_int_equal(put_text(rig_path(&rig, "other/mode", path), "exclusive\n"), 0);
	assert_int_equal(rig_open(&rig, &err), 0);
	assert_int_equal(rig_open_partitions(&rig, first, sizeof(first)), 1);
	if (!strstr(first, "mpamd-web: writing cpus_list: Invalid argument (last_cmd_status: Can only assign online "
			   "CPUs)"))
		fail_msg("Linux %s: %s", kernel, first);
	assert_int_equal(rig_apply(&rig, 1, &want, &eff, &err), -EINVAL);
	if (!strstr(err.text, "(last_cmd_status: Overlaps with exclusive group)"))
		fail_msg("Linux %s: %s", kernel, err.text);
	/* A refusal the kernel gives no message for. */
	want.l3_cbm = 0x7f0;
	assert_int_equal(emu_ctl(rig.emu, "fail_next_write EINVAL mpamd-batch/schemata"), 0);
	assert_int_equal(rig_apply(&rig, 1, &want, &eff, &err), -EINVAL);
	assert_non_null(strstr(err.text, "(kernel gave no reason: last_cmd_status was empty)"));
	assert_null(strstr(err.text, "domain id"));
	/* Another reader of a group file at the same time may empty it first on 7.3: the error then says
	 * there was none, never something else. */
	struct hammer h = { .stop = false };
	pthread_t reader;
	snprintf(h.path, sizeof(h.path), "%s/mpamd-batch/mon_data/mon_L3_00/mbm_total_bytes", emu_root(rig.emu));
	assert_int_equal(pthread_create(&reader, NULL, read_counter_loop, &h), 0);
	want.l3_cbm = 0x0ff;
	for (int i = 0; i < 20; i++) {
		assert_int_equal(rig_apply(&rig, 1, &want, &eff, &err), -EINVAL);
		assert_reason_or_none(err.text, "(last_cmd_status: Overlaps with exclusive group)");
	}
	h.stop = true;
	pthread_join(reader, NULL);
	rig_stop(&rig);
}

static void test_write_reasons_on_72_and_73(void **state)
{
	(void)state;
	check_write_reasons("7.2");
	check_write_reasons("7.3");
}

static void expect_check_host(struct rig *rig, bool refused, ...);
static void rig_reload_with(struct rig *rig, const char *global_lines);

/* An AMD host with 64 L3 domains (one per CCX): per-domain limits named for more than 16 of them, one
 * schemata write for all, every counter file, assignable counters of each domain, all measured. */
static void test_many_domains(void **state)
{
	static const char *const domains[] = { "--domains", "64", NULL };
	char body[2048] = "[sim]\ncapacity_mbps = 64000\n[partition \"web\"]\nsim_demand = 6400\nmb_max = 50";
	struct rig rig;
	struct err err = { "" };
	char first[512] = "";

	(void)state;
	for (unsigned d = 40; d < 64; d++)
		snprintf(body + strlen(body), sizeof(body) - strlen(body), ",%u=25", d);
	strcat(body, "\n[partition \"batch\"]\nsim_demand = 12800\n");
	rig_start_args(&rig, "amd", domains, body);
	assert_int_equal(rig_open(&rig, &err), 0);
	assert_int_equal(rig.hw.domain_count, 64);
	assert_int_equal(rig_open_partitions(&rig, first, sizeof(first)), 0);
	/* Each domain's limit, as the engine gives it. */
	const struct partition_config *web_config = &rig.config->partitions[0];
	struct partition_limits want = { 0 }, eff;
	domain_limits_fill(&rig.hw.caps, &web_config->goals, web_config->goals.mb_max, 0, &want);
	assert_int_equal(rig_apply(&rig, 0, &want, &eff, &err), 0);
	/* 50% and 25% of AMD's 2048 units. */
	assert_file_contains(&rig, "mpamd-web", "schemata", "MB:0=1024;1=1024;");
	assert_file_contains(&rig, "mpamd-web", "schemata", ";39=1024;40=512;");
	assert_file_contains(&rig, "mpamd-web", "schemata", ";63=512\n");
	for (int t = 0; t < 4; t++)
		rig_tick(&rig);
	bool valid;
	double web = rate_of(&rig, 0, &valid);
	assert_true(valid);
	double batch = rate_of(&rig, 1, &valid);
	assert_true(valid);
	if (fabs(web - 6400) > 64 || fabs(batch - 12800) > 128)
		fail_msg("web %.0f MB/s, batch %.0f MB/s over 64 domains", web, batch);
	rig_stop(&rig);
}

/* io_alloc, enabled, holds the highest CLOSID; with CDP the L3 has half the CLOSIDs: on an x86 host with
 * 16, that leaves 6 for mpamd's groups. check-config --host counts both, and the partition mkdir then
 * refuses says why. */
static void test_io_alloc_and_cdp_count(void **state)
{
	static const char *const extra[] = { "--cdp", "--io-alloc", NULL };
	struct rig rig;
	struct err err = { "" };
	char body[1024] = "", first[512] = "", path[PATH_MAX];

	(void)state;
	for (int i = 1; i <= 7; i++)
		snprintf(body + strlen(body), sizeof(body) - strlen(body), "[partition \"p%d\"]\nl3_cbm = 0x0f0\n", i);
	rig_start_args(&rig, "intel", extra, body);
	assert_int_equal(put_text(rig_path(&rig, "info/L3CODE/io_alloc", path), "1\n"), 0);
	expect_check_host(&rig, true,
			  "partition p7: refused: cannot create resctrl group mpamd-p7: no CLOSID left (resctrl has "
			  "8: the default group, io_alloc, 0 existing control group(s) and 6 new group(s)",
			  "(2 held by the default group and the kernel)", "at most 6 partitions", "L3CODE:0=f0;1=f0",
			  "L3DATA:0=f0;1=f0", NULL);
	assert_int_equal(rig_open(&rig, &err), 0);
	assert_int_equal(rig.hw.caps.partitions_max, 8);
	assert_int_equal(rig.hw.caps.partitions_reserved, 2);
	assert_int_equal(rig_open_partitions(&rig, first, sizeof(first)), 1);
	if (!strstr(first, "no CLOSID left (resctrl has 8: the default group, io_alloc, 6 existing control group(s) "
			   "hold them)"))
		fail_msg("%s", first);
	assert_file_contains(&rig, "mpamd-p6", "schemata", "L3DATA:0=f0;1=f0\nL3CODE:0=f0;1=f0\n");
	rig_stop(&rig);
}

/* Arm MPAM mounted with cdp (a CONFIG_EXPERT kernel): no MB resource, so an mb_max is refused rather
 * than dropped; and a group's traffic carries two PARTIDs, so monitor = mmio is refused. */
static void test_mpam_cdp(void **state)
{
	static const char *const extra[] = { "--cdp", "--debug", NULL };
	const char *body = "[msc \"l3\"]\nbase = 0x7f000000\nsize = 0x4000\n"
			   "[partition \"web\"]\nmb_max = 50\n[partition \"batch\"]\npartid = 2\nl3_cbm = 0xff\n";
	struct rig rig;

	(void)state;
	rig_start_args(&rig, "mpam73", extra, body);
	expect_check_host(&rig, true, "no MB control",
			  "partition web: refused: mb_max = 50%: resctrl has no MB resource here",
			  "partition batch: ok", NULL);
	rig_reload_with(&rig, "monitor = mmio\nmmio_beside_kernel = yes\n");
	expect_check_host(&rig, true, "partition batch: refused: monitor = mmio counts each group by its PARTID, but",
			  "is mounted with CDP: a group's traffic then carries two PARTIDs", NULL);
	rig_stop(&rig);
}

/* A group another tool made and removed again just now: with llc_occupancy monitored its RMID waits in
 * limbo until the limbo worker (each second) finds its occupancy below the threshold. */
static void make_and_remove(struct rig *rig, const char *name)
{
	rig_mkdir(rig, name);
	rig_rmdir(rig, name);
}

/* With every free RMID in limbo, mkdir fails with EBUSY "Out of RMIDs": the partition's error says what
 * that means, and opening it again once the worker freed the RMID works. check-config --host refuses
 * a group no RMID is left for. */
static void test_rmids_in_limbo(void **state)
{
	static const char *const two_rmids[] = { "--rmids", "2", NULL };
	struct rig rig;
	struct err err = { "" };
	char first[512] = "";

	(void)state;
	rig_start_args(&rig, "intel", two_rmids, "[partition \"web\"]\nmb_max = 50\n");
	make_and_remove(&rig, "other");
	assert_int_equal(rig_open(&rig, &err), 0);
	assert_int_equal(rig_open_partitions(&rig, first, sizeof(first)), 1);
	if (!strstr(first, "cannot create resctrl group mpamd-web: Device or resource busy (last_cmd_status: Out of "
			   "RMIDs): every free RMID is in limbo"))
		fail_msg("%s", first);
	assert_false(emu_group_exists(rig.emu, "mpamd-web"));
	assert_int_equal(emu_ctl(rig.emu, "advance 1000"), 0);
	assert_int_equal(rig_open_partitions(&rig, first, sizeof(first)), 0);
	rig_close_backend(&rig);
	/* Another tool's group now holds the other RMID: no RMID is left for a new one. */
	rig_rmdir(&rig, "mpamd-web");
	assert_int_equal(emu_ctl(rig.emu, "advance 1000"), 0);
	rig_mkdir(&rig, "other");
	expect_check_host(&rig, true,
			  "partition web: refused: cannot create resctrl group mpamd-web: no RMID left (resctrl has 2; "
			  "each control and monitoring group holds one",
			  NULL);
	rig_stop(&rig);
}

/* mpamd on a host whose free RMIDs are all in limbo at its start: the partition fails with the reason,
 * is tried again after a growing pause (never in a tight loop), and opens once the RMID is free. */
static void test_limbo_retry_backs_off(void **state)
{
	static const char *const two_rmids[] = { "--rmids", "2", NULL };
	struct rig rig;
	struct run_result r;

	(void)state;
	rig_start_args(&rig, "intel", two_rmids, "[partition \"web\"]\nmb_max = 50\n");
	assert_int_equal(emu_ctl(rig.emu, "clock real"), 0);
	make_and_remove(&rig, "other");
	if (run_mpamd(&rig, 30, NULL, &r) != 0)
		fail_msg("mpamd exit %d:\n%s", r.exit_code, r.err);
	if (!strstr(r.err, "every free RMID is in limbo") || !strstr(r.err, "trying again in"))
		fail_msg("mpamd said:\n%s", r.err);
	unsigned attempts = 0;
	for (const char *p = r.err; (p = strstr(p, "trying again in")) != NULL; p++)
		attempts++;
	/* 3 s of ticks: a pause that doubles from one tick tries at most 5 times before it opens. */
	if (attempts > 5)
		fail_msg("%u attempts:\n%s", attempts, r.err);
	assert_true(emu_group_exists(rig.emu, "mpamd-web"));
	run_result_fini(&r);
	rig_stop(&rig);
}

/* mpamctl check-config --host on the rig's config refuses it (exits non-zero) or not, as `refused`
 * says, and what it writes holds each of the strings that follow, a NULL after the last. */
static void expect_check_host(struct rig *rig, bool refused, ...)
{
	struct run_result r;
	char *argv[] = { MPAMCTL, "check-config", "--host", rig->config_path, NULL };

	assert_int_equal(run_command(argv, &r), 0);
	size_t len = strlen(r.out) + strlen(r.err) + 2;
	char *text = malloc(len);
	assert_non_null(text);
	snprintf(text, len, "%s\n%s", r.out, r.err);
	if ((r.exit_code != 0) != refused)
		fail_msg("check-config --host exits %d:\n%s", r.exit_code, text);
	run_result_fini(&r);
	va_list says;
	va_start(says, refused);
	for (const char *s; (s = va_arg(says, const char *)) != NULL;)
		if (!strstr(text, s))
			fail_msg("check-config --host says:\n%s\nwithout '%s'", text, s);
	va_end(says);
	free(text);
}

/* The rig's config with `global_lines` added (add_global_lines), loaded again. */
static void rig_reload_with(struct rig *rig, const char *global_lines)
{
	add_global_lines(rig, global_lines);
	config_free(rig->config);
	load_config(rig);
}

/* Hybrid monitoring on Linux 7.1/7.2 MPAM (backend = resctrl, monitor = mmio): the MBWU monitors count
 * a group by its PARTID, which resctrl shows only when mounted with -o debug (ctrl_hw_id). Without it
 * and without a partid key, check-config --host refuses the partition and says what to do, and so does
 * mpamd when it opens it, before making its group; a partid key, or the debug mount, is enough. */
static void test_hybrid_partids_need_debug_or_partid(void **state)
{
	const char *body = "[msc \"l3\"]\nbase = 0x7f000000\nsize = 0x4000\n"
			   "[partition \"web\"]\nmb_max = 50\n[partition \"batch\"]\npartid = 2\n";
	static const char *const debug[] = { "--debug", NULL };
	struct rig rig;
	struct control *control;
	struct clock clock;
	struct partition_ref ref;
	struct err err = { "" };

	(void)state;
	clock_init_monotonic(&clock);
	rig_start(&rig, "mpam", body);
	rig_reload_with(&rig, "monitor = mmio\nmmio_beside_kernel = yes\n");
	expect_check_host(&rig, true, "partition web: refused: monitor = mmio counts each group by its PARTID",
			  "mounted without -o debug", "mount -t resctrl -o debug resctrl", "set partid = N",
			  "partition batch: ok", NULL);
	assert_int_equal(control_resctrl_ops.open(rig.config, &clock, &control, &err), 0);
	assert_int_equal(control_resctrl_ops.partition_open(control, 0, &rig.config->partitions[0], &ref, &err),
			 -EOPNOTSUPP);
	assert_non_null(strstr(err.text, "partition web has no partid key: mount resctrl with -o debug"));
	assert_false(emu_group_exists(rig.emu, "mpamd-web")); /* refused before its group was made */
	/* batch gives its PARTID; resctrl cannot tell it (-1), the monitor takes the key. */
	assert_int_equal(control_resctrl_ops.partition_open(control, 1, &rig.config->partitions[1], &ref, &err), 0);
	assert_int_equal(ref.hw_id, -1);
	control_resctrl_ops.free(control);
	rig_stop(&rig);

	/* monitor = auto reads the MSCs only if it can map them: a note, not a refusal. */
	rig_start(&rig, "mpam", body);
	rig_reload_with(&rig, "monitor = auto\nmmio_beside_kernel = yes\n");
	expect_check_host(&rig, false, "monitor = auto reads the MSCs' MBWU monitors here if it can map them",
			  "mount -t resctrl -o debug", NULL);
	rig_stop(&rig);

	/* Mounted with -o debug, every group tells its PARTID. */
	rig_start_args(&rig, "mpam", debug, body);
	rig_reload_with(&rig, "monitor = mmio\nmmio_beside_kernel = yes\n");
	expect_check_host(&rig, false, NULL);
	assert_int_equal(control_resctrl_ops.open(rig.config, &clock, &control, &err), 0);
	assert_int_equal(control_resctrl_ops.partition_open(control, 0, &rig.config->partitions[0], &ref, &err), 0);
	assert_int_equal(ref.hw_id, 1); /* the first CLOSID after the default group's */
	control_resctrl_ops.free(control);
	rig_stop(&rig);

	/* With resctrl's own counters (monitor = resctrl, or auto on Linux 7.3) no PARTID is needed. */
	rig_start(&rig, "mpam73", body);
	expect_check_host(&rig, false, NULL);
	rig_stop(&rig);
}

/* pread64 calls strace counts while mpamd runs `ticks` ticks on the emulator. */
static unsigned long preads_for(struct rig *rig, int ticks)
{
	char trace[] = "/tmp/mpamd-strace-XXXXXX";
	char ticks_arg[8];
	struct run_result r;

	close(mkstemp(trace));
	snprintf(ticks_arg, sizeof(ticks_arg), "%d", ticks);
	/* LeakSanitizer cannot run under ptrace: in a sanitizer build the traced mpamd goes without it. */
	char *argv[] = {
		"/usr/bin/env",
		"ASAN_OPTIONS=detect_leaks=0",
		"/usr/bin/strace",
		"-f",
		"-qq",
		"-c",
		"-e",
		"trace=pread64",
		"-o",
		trace,
		MPAMD,
		"-c",
		rig->config_path,
		"-f",
		"-l",
		"warning",
		"--no-socket",
		"--ticks",
		ticks_arg,
		NULL,
	};
	assert_int_equal(run_command(argv, &r), 0);
	if (r.exit_code != 0)
		fail_msg("strace mpamd: %s", r.err);
	run_result_fini(&r);
	char *summary = read_text_file(trace);
	unlink(trace);
	assert_non_null(summary);
	char *line = strstr(summary, "pread64");
	assert_non_null(line);
	while (line > summary && line[-1] != '\n')
		line--;
	/* "% time  seconds  usecs/call  calls  errors syscall": calls is the 4th column. */
	double pct, secs;
	unsigned long usecs, calls = 0;
	assert_int_equal(sscanf(line, "%lf %lf %lu %lu", &pct, &secs, &usecs, &calls), 4);
	free(summary);
	return calls;
}

/* strace -c over real runs: one pread per counter per tick. The dynamic loader's own preads (ELF
 * headers of the libraries) are the same in both runs, so the difference counts mpamd's alone. */
static void test_one_read_syscall_per_counter_per_tick(void **state)
{
	struct rig rig;
	struct run_result probe = { 0 };

	(void)state;
	/* A container without ptrace rights cannot run strace at all: nothing to measure then. */
	char *check[] = { "/usr/bin/strace", "-o", "/dev/null", "/bin/true", NULL };
	if (run_command(check, &probe) < 0 || probe.exit_code != 0) {
		fprintf(stderr, "strace cannot trace here: %s", probe.err ? probe.err : "not installed\n");
		run_result_fini(&probe);
		skip();
	}
	run_result_fini(&probe);
	rig_start(&rig, "intel", two_vms);
	assert_int_equal(emu_ctl(rig.emu, "clock real"), 0);
	unsigned long short_run = preads_for(&rig, 2), long_run = preads_for(&rig, 7);
	printf("pread64: %lu calls for 2 ticks, %lu for 7 (2 groups x 2 domains)\n", short_run, long_run);
	assert_int_equal(long_run - short_run, 5 * 2 * 2);
	rig_stop(&rig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel_lifecycle_schemata_and_rates),
		cmocka_unit_test(test_late_reads_are_timed_when_read),
		cmocka_unit_test(test_adoption_after_restart_rewrites_nothing),
		cmocka_unit_test(test_groups_of_others_are_untouched),
		cmocka_unit_test(test_outside_change_is_undone),
		cmocka_unit_test(test_tasks_and_cpus),
		cmocka_unit_test(test_every_thread_of_a_pid),
		cmocka_unit_test(test_threads_made_during_the_move),
		cmocka_unit_test(test_out_of_closids_fails_one_partition),
		cmocka_unit_test(test_faults_surface_and_others_continue),
		cmocka_unit_test(test_counter_backwards_is_not_a_rate),
		cmocka_unit_test(test_removed_group_counters_say_gone),
		cmocka_unit_test(test_amd_counter_assignment_rotates),
		cmocka_unit_test(test_mpam73_one_counter_per_domain_rotates),
		cmocka_unit_test(test_guarantee_holder_keeps_an_assigned_counter),
		cmocka_unit_test(test_mpam73_new_counter_read_next_tick),
		cmocka_unit_test(test_mpam_without_counters_records_nothing_as_zero),
		cmocka_unit_test(test_mpamd_records_against_the_emulator),
		cmocka_unit_test(test_hard_mode_is_said_soft_through_resctrl),
		cmocka_unit_test(test_one_read_syscall_per_counter_per_tick),
		cmocka_unit_test(test_mmio_monitors_refused_beside_the_kernel),
		cmocka_unit_test(test_auto_monitors_degrade_without_devmem),
		cmocka_unit_test(test_hybrid_partids_need_debug_or_partid),
		cmocka_unit_test(test_write_reasons_on_72_and_73),
		cmocka_unit_test(test_rmids_in_limbo),
		cmocka_unit_test(test_io_alloc_and_cdp_count),
		cmocka_unit_test(test_mpam_cdp),
		cmocka_unit_test(test_many_domains),
		cmocka_unit_test(test_limbo_retry_backs_off),
	};
	return cmocka_run_group_tests(tests, log_errors_only, NULL);
}
