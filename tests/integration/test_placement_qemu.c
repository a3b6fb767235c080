/* Placement of real QEMU guests (tests/util/qemu_guest.h: TCG, paused, QMP) on this machine's real
 * cgroups, with the resctrl emulator: QMP's query-cpus-fast, as libvirt reads it, is the judge of
 * which threads are vCPUs, and the emulator's tasks file is what mpamd placed.
 *
 * - vm = NAME with threads = vcpu, on cgroup v2 and v1: a guest started while mpamd runs, in a
 *   machined-style scope, has exactly its vCPU threads ("CPU n/TCG") in the group, before any
 *   reconcile (the proc connector did it: the VM's exec, its threads' names); each vCPU QMP adds
 *   later (device_add, -smp N,maxcpus=M) joins them the same way;
 * - [vm-template]: the guest's partition appears with its vCPUs, a vCPU added is placed, and the
 *   partition and its group go when the guest stops and its scope goes;
 * - thread=single: the one "ALL CPUs/TCG" thread is the vCPU;
 * - no debug-threads=on: nothing names the vCPUs, so every thread of the guest is placed and the log
 *   says why once, with the fix.
 *
 * Every wait is on a condition, checked at each tick, with a deadline of many seconds: a loaded
 * machine makes it slower, not wrong. Skipped, with the reason, without qemu-system-x86_64, root or
 * the cgroup hierarchy. */
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

#include "backends/shared/threads.h"
#include "core/engine/engine.h"
#include "tests/util/emu_runner.h"
#include "tests/util/log_capture.h"
#include "tests/util/place_run.h"
#include "tests/util/qemu_guest.h"
#include "tests/util/testutil.h"

#define UNIFIED "/sys/fs/cgroup/unified"
#define V1_CPU	"/sys/fs/cgroup/cpu"
#define SKIP	77
/* What one step (a guest starting, a vCPU being placed, a partition going) may take, in ticks of
 * 100 ms: far more than it takes, so that only a step that never happens fails. */
#define STEP_TICKS 300
#define MAX_TICKS  3000

enum step {
	STEP_START,  /* the guest is started at tick 2 */
	STEP_BOOT,   /* until QMP answers */
	STEP_PLACED, /* until the group holds what it should */
	STEP_GONE,   /* the guest has stopped: until its partition is gone */
	STEP_DONE,
};

struct qrun {
	struct place_run p; /* first: a script's place_run is its qrun */
	struct qemu_guest guest;
	struct qemu_guest_options opts;
	const char *cgroup;  /* where the guest starts, made then (as machined makes a VM's scope) */
	const char *group;   /* the partition's resctrl group */
	const char *vm;	     /* a template's partition, which goes with the guest; NULL: none */
	bool all_threads;    /* every thread of the guest belongs in the group, not only the vCPUs */
	unsigned adds;	     /* vCPUs to add once the first are placed */
	bool no_reconcile;   /* the placing must be the events' (no reconcile may have run) */
	size_t keep_cgroups; /* what stays when the guest's scope goes */
	enum step step;
	uint64_t step_at;
	struct place_counts at_start; /* at the first tick */
	pid_t want[QEMU_GUEST_MAX_VCPU * 4];
	size_t want_count;
	unsigned placed_steps;	/* how many times the group came to hold what it should */
	struct log_capture log; /* the engine's log while it runs */
};

static struct qrun *current;

#define note_failure(run, ...) place_run_fail(&(run)->p, __VA_ARGS__)

static int teardown(void **state)
{
	(void)state;
	if (!current)
		return 0;
	qemu_guest_stop(&current->guest);
	if (current->log.saved_stderr >= 0) { /* the test failed while its log was caught: show it */
		log_capture_end(&current->log);
		char *text = read_text_file(current->log.path);
		fprintf(stderr, "%s", text ? text : "");
		free(text);
	}
	log_capture_free(&current->log);
	place_run_fini(&current->p);
	free(current);
	current = NULL;
	return 0;
}

/* A run in the hierarchy at `hierarchy`; skips the test, saying why, when this host cannot give one
 * or has no QEMU. */
static struct qrun *qrun_new(const char *hierarchy)
{
	if (!qemu_guest_available()) {
		fprintf(stderr,
			"skipped: %s is not installed (Debian: qemu-system-x86, which scripts/install-deps "
			"installs)\n",
			QEMU_GUEST_PROGRAM);
		skip();
	}
	struct qrun *run = calloc(1, sizeof(*run));
	assert_non_null(run);
	current = run;
	run->log.saved_stderr = -1;
	if (!place_run_init(&run->p, hierarchy)) {
		fprintf(stderr, "skipped: needs root and a writable cgroup hierarchy at %s\n", hierarchy);
		skip();
	}
	run->opts = (struct qemu_guest_options){ .dir = run->p.dir, .smp = 2 };
	return run;
}

/* ---- what the group should hold ---- */

/* The threads the group should hold now: the vCPUs QMP names, or every thread of the guest. */
static void refresh_want(struct qrun *run)
{
	pid_t *tids;
	size_t count;
	struct err err = { "" };

	if (!run->all_threads) {
		run->want_count = qemu_guest_vcpus(&run->guest, run->want, QEMU_GUEST_MAX_VCPU);
		return;
	}
	if (process_threads(NULL, run->guest.pid, &tids, &count, &err) < 0)
		fail_msg("the guest's threads: %s", err.text);
	assert_true(count <= sizeof(run->want) / sizeof(run->want[0]));
	memcpy(run->want, tids, count * sizeof(*tids));
	run->want_count = count;
	free(tids);
}

/* Whether the group holds exactly what it should; what differs in `diff` when it does not. */
static bool group_as_wanted(struct qrun *run, char *diff, size_t len)
{
	pid_t *members;
	long n = place_run_members(&run->p, run->group, &members);
	size_t used = 0;

	diff[0] = '\0';
	if (n < 0) {
		snprintf(diff, len, "there is no group %s", run->group);
		return false;
	}
	for (size_t i = 0; i < run->want_count; i++)
		if (!thread_ids_have(members, (size_t)n, run->want[i]) && used < len)
			used += (size_t)snprintf(diff + used, len - used, " missing %d", (int)run->want[i]);
	for (long i = 0; i < n; i++)
		if (!thread_ids_have(run->want, run->want_count, members[i]) && used < len)
			used += (size_t)snprintf(diff + used, len - used, " extra %d", (int)members[i]);
	free(members);
	return diff[0] == '\0';
}

/* Each thread of `ids` is named `prefix`...`suffix`: what the test means to give mpamd is what QEMU
 * made. */
static void expect_names(const pid_t *ids, size_t count, const char *prefix, const char *suffix)
{
	for (size_t i = 0; i < count; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)ids[i]);
		char *comm = read_text_file(path);
		size_t len = comm ? strcspn(comm, "\n") : 0, n = strlen(suffix);
		if (!comm || strncmp(comm, prefix, strlen(prefix)) || len < n || strncmp(comm + len - n, suffix, n))
			fail_msg("thread %d is named %s, not %s...%s", (int)ids[i], comm ? comm : "(gone)", prefix,
				 suffix);
		free(comm);
	}
}

/* ---- the script: start, wait for QMP, wait for placement (again after each vCPU added), stop ---- */

static void next_step(struct qrun *run, enum step step, uint64_t t)
{
	run->step = step;
	run->step_at = t;
}

static void on_booted(struct qrun *run, uint64_t t)
{
	pid_t vcpus[QEMU_GUEST_MAX_VCPU];
	size_t count = qemu_guest_vcpus(&run->guest, vcpus, QEMU_GUEST_MAX_VCPU);

	if (count != (run->opts.single_thread ? 1 : run->opts.smp))
		return note_failure(run, "QMP lists %zu vCPU thread(s) for -smp %u", count, run->opts.smp);
	refresh_want(run);
	if (run->opts.no_thread_names)
		expect_names(run->want, run->want_count, "qemu-system-x86", "");
	else if (run->opts.single_thread)
		expect_names(vcpus, count, "ALL CPUs/TCG", "");
	else
		expect_names(vcpus, count, "CPU ", "/TCG");
	next_step(run, STEP_PLACED, t);
}

static void on_placed(struct qrun *run, uint64_t t)
{
	char why[256] = "";

	run->placed_steps++;
	/* on stdout: stderr is the engine's log, caught */
	printf("%s: the group holds what it should %llu tick(s) after the step began\n", run->opts.name,
	       (unsigned long long)(t - run->step_at));
	struct place_counts now = place_run_counts(run->p.engine);
	/* A kernel that dropped events (a busy machine) makes a reconcile, which may have placed them. */
	if (now.events_lost != run->at_start.events_lost)
		printf("%s: the kernel dropped events; a reconcile may have done the events' work\n", run->opts.name);
	else if (run->no_reconcile && now.reconciles != run->at_start.reconciles)
		return note_failure(run, "a reconcile ran before the threads were placed: the events did not do it");
	if (run->adds) {
		run->adds--;
		if (qemu_guest_add_vcpu(&run->guest, why, sizeof(why)) < 0)
			return note_failure(run, "QMP device_add of a vCPU: %s", why);
		refresh_want(run);
		expect_names(run->want, run->want_count, "CPU ", "/TCG");
		next_step(run, STEP_PLACED, t);
		return;
	}
	qemu_guest_stop(&run->guest);
	place_run_remove_cgroups(&run->p, run->keep_cgroups); /* as machined removes the scope */
	next_step(run, run->vm ? STEP_GONE : STEP_DONE, t);
}

static bool partition_exists(struct engine *e, const char *name)
{
	return engine_find(e, name, NULL) != NULL;
}

static void script(struct place_run *p, uint64_t t)
{
	struct qrun *run = (struct qrun *)p;
	char diff[256];

	if (t == 1)
		run->at_start = place_run_counts(p->engine);
	switch (run->step) {
	case STEP_START:
		if (t != 2)
			return;
		run->opts.cgroup = place_run_cgroup(p, "%s", run->cgroup);
		if (qemu_guest_start(&run->guest, &run->opts) < 0)
			return note_failure(run, "cannot start %s", QEMU_GUEST_PROGRAM);
		next_step(run, STEP_BOOT, t);
		return;
	case STEP_BOOT:
		if (qemu_guest_ready(&run->guest))
			on_booted(run, t);
		else if (t - run->step_at > STEP_TICKS)
			note_failure(run, "QMP did not answer in %u ticks", STEP_TICKS);
		return;
	case STEP_PLACED:
		if (group_as_wanted(run, diff, sizeof(diff)))
			on_placed(run, t);
		else if (t - run->step_at > STEP_TICKS)
			note_failure(run, "after %u ticks, group %s is not what it should be (%zu thread(s)):%s",
				     STEP_TICKS, run->group, run->want_count, diff);
		return;
	case STEP_GONE:
		if (!partition_exists(p->engine, run->vm) && !emu_group_exists(p->emu, run->group))
			next_step(run, STEP_DONE, t);
		else if (t - run->step_at > STEP_TICKS)
			note_failure(run,
				     "%u ticks after the guest stopped, its partition %s or group %s is still there",
				     STEP_TICKS, run->vm, run->group);
		return;
	case STEP_DONE:
		engine_stop(p->engine);
		return;
	}
}

static void run_guest(struct qrun *run)
{
	run->p.script = script;
	log_capture_begin(&run->log);
	place_run_engine(&run->p, MAX_TICKS);
	log_capture_end(&run->log);
	if (run->step != STEP_DONE)
		fail_msg("the guest's steps did not end in %u ticks", MAX_TICKS);
}

/* The lines of the log that say a guest's threads have no names, and what to do. */
static unsigned told_unnamed(const struct qrun *run)
{
	static const char *const said[] = { "debug-threads=on", "every thread of it is placed", NULL };

	return log_capture_count(&run->log, said);
}

/* ---- vm = NAME, threads = vcpu: at its start and for each vCPU added ---- */

#define SCOPE(name) "machine.slice/machine-qemu\\x2d4\\x2d" name ".scope"

/* A guest `name` started in machined's `scope`, with 2 vCPUs and then one more up to `maxcpus`, whose
 * partition's group is `group`. */
static struct qrun *machined_run(const char *hierarchy, const char *name, const char *scope, unsigned maxcpus,
				 const char *group)
{
	struct qrun *run = qrun_new(hierarchy);

	place_run_cgroup(&run->p, "machine.slice");
	run->cgroup = scope;
	run->opts.name = name;
	run->opts.maxcpus = maxcpus;
	run->adds = maxcpus - run->opts.smp;
	run->keep_cgroups = 2; /* the root and machine.slice */
	run->group = group;
	return run;
}

static void check_vm_vcpus(const char *hierarchy)
{
	struct qrun *run = machined_run(hierarchy, "guest", SCOPE("guest"), 4, "mpamd-g");

	run->no_reconcile = true;
	place_run_config(&run->p,
			 "cgroup_root = %s\nreconcile_ms = 600000\n[partition \"g\"]\nvm = guest\nthreads = vcpu\n",
			 run->p.root);
	run_guest(run);
	assert_int_equal(told_unnamed(run), 0);
	assert_int_equal(run->placed_steps, 3);
	assert_int_equal(run->want_count, 4);
	/* four vCPUs, one write each, none refused */
	json_t *row = engine_list_row(run->p.engine, "g");
	assert_non_null(row);
	assert_int_equal(json_integer_value(json_object_get(row, "misses")), 0);
	assert_int_equal(json_integer_value(json_object_get(row, "placements")), 4);
	json_decref(row);
}

static void test_vm_vcpus_v2(void **state)
{
	(void)state;
	check_vm_vcpus(UNIFIED);
}

static void test_vm_vcpus_v1(void **state)
{
	(void)state;
	check_vm_vcpus(V1_CPU);
}

/* ---- [vm-template]: the guest's own partition, from its start to its end ---- */

static void test_vm_template(void **state)
{
	(void)state;
	struct qrun *run = machined_run(UNIFIED, "tenant-1", SCOPE("tenant\\x2d1"), 3, "mpamd-tenant-1");

	run->vm = "tenant-1";
	place_run_config(&run->p,
			 "cgroup_root = %s\nreconcile_ms = 300\n[vm-template \"tenants\"]\nmatch = tenant-*\n"
			 "threads = vcpu\nmb_max = 50\n",
			 run->p.root);
	run_guest(run);
	assert_int_equal(told_unnamed(run), 0);
	assert_int_equal(run->placed_steps, 2);
}

/* A guest `name` that starts in cgroup vm, partition vm's with threads = vcpu; no reconcile. */
static struct qrun *cgroup_vm_run(const char *name)
{
	struct qrun *run = qrun_new(UNIFIED);

	run->cgroup = "vm";
	run->opts.name = name;
	run->keep_cgroups = 1;
	run->group = "mpamd-vm";
	place_run_config(&run->p,
			 "cgroup_root = %s\nreconcile_ms = 600000\n[partition \"vm\"]\ncgroup = vm\nthreads = vcpu\n",
			 run->p.root);
	return run;
}

/* ---- TCG with thread=single: one thread runs every vCPU ---- */

static void test_single_thread(void **state)
{
	(void)state;
	struct qrun *run = cgroup_vm_run("single");

	run->opts.single_thread = true;
	run_guest(run);
	assert_int_equal(run->want_count, 1);
	assert_int_equal(told_unnamed(run), 0);
}

/* ---- without debug-threads=on: every thread, and the log says why ---- */

static void test_unnamed_threads(void **state)
{
	static const char *const said[] = { "partition vm", "without -name ...,debug-threads=on", NULL };

	(void)state;
	struct qrun *run = cgroup_vm_run("unnamed");
	run->opts.no_thread_names = true;
	run->all_threads = true;
	run_guest(run);
	assert_int_equal(told_unnamed(run), 1);
	assert_int_equal(log_capture_count(&run->log, said), 1);
	assert_true(run->want_count > 1); /* more than the vCPUs: the main thread at least */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_vm_vcpus_v2, teardown),
		cmocka_unit_test_teardown(test_vm_vcpus_v1, teardown),
		cmocka_unit_test_teardown(test_vm_template, teardown),
		cmocka_unit_test_teardown(test_single_thread, teardown),
		cmocka_unit_test_teardown(test_unnamed_threads, teardown),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	/* ctest shows "skipped", never "passed", where no guest could be started */
	return failed || qemu_guest_available() ? failed : SKIP;
}
