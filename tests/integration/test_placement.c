/* Placement on this machine's real cgroups (v2 and v1) with the resctrl emulator, whose tasks files
 * follow the kernel's thread rules and take this host's real thread ids: a multithreaded process in a
 * partition's cgroup has every thread in its group, a thread it starts later lands there within one
 * tick through the proc connector and within one reconcile period without it, threads = vcpu takes
 * only the threads QEMU names "CPU n/KVM", and a machined-style VM scope made under a private
 * cgroup_root becomes a [vm-template] partition with the template's limits, and its group goes with
 * the scope. In process, counted in ticks (the on_tick hook), never in wall-clock sleeps.
 *
 * The workers are this program run again (--worker): the child moves itself into its cgroup and then
 * executes, as libvirt starts QEMU, so the kernel reports it where it belongs. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/engine/engine.h"
#include "tests/util/emu_runner.h"
#include "tests/util/engine_util.h"
#include "tests/util/place_run.h"

#define REPORT_MS 10000
#define MAX_IDS	  64
#define UNIFIED	  "/sys/fs/cgroup/unified"
#define V1_CPU	  "/sys/fs/cgroup/cpu"

/* ---- the worker: a process whose threads come and go on command ---- */

struct named_thread {
	sem_t ready;
	pid_t tid;
	char name[16];
};

static void *thread_body(void *arg)
{
	struct named_thread *t = arg;

	if (t->name[0])
		prctl(PR_SET_NAME, t->name); /* as QEMU names a vCPU thread after it starts it */
	t->tid = (pid_t)syscall(SYS_gettid);
	sem_post(&t->ready);
	for (;;)
		pause();
	return NULL;
}

static void worker_thread(int report, const char *name)
{
	static struct named_thread threads[MAX_IDS];
	static size_t used;
	pthread_t id;

	if (used == MAX_IDS)
		_exit(3);
	struct named_thread *t = &threads[used++];
	sem_init(&t->ready, 0, 0);
	snprintf(t->name, sizeof(t->name), "%s", name);
	if (pthread_create(&id, NULL, thread_body, t) != 0)
		_exit(4);
	sem_wait(&t->ready);
	dprintf(report, "T %d\n", (int)t->tid);
}

/* --worker CMD_FD REPORT_FD THREADS: reports its own id and each thread's, "R" when they run; then
 * 't' starts a thread, 'v' a thread named as QEMU names a vCPU, 'q' ends it. */
static int worker_main(char **argv)
{
	int cmd = atoi(argv[2]), report = atoi(argv[3]), threads = atoi(argv[4]);
	char c;

	dprintf(report, "T %d\n", (int)getpid());
	for (int i = 0; i < threads; i++)
		worker_thread(report, "");
	dprintf(report, "R\n");
	while (read(cmd, &c, 1) == 1) {
		if (c == 'q')
			break;
		worker_thread(report, c == 'v' ? "CPU 1/KVM" : "");
		dprintf(report, "R\n");
	}
	return 0;
}

struct worker {
	pid_t pid;
	int cmd, report;
};

/* The ids the worker reports up to its next "R", appended to ids. */
static void worker_read(struct worker *w, pid_t *ids, size_t *count)
{
	char line[64];
	size_t used = 0;

	for (;;) {
		struct pollfd p = { .fd = w->report, .events = POLLIN };
		assert_int_equal(poll(&p, 1, REPORT_MS), 1);
		ssize_t n = read(w->report, line + used, 1);
		assert_int_equal(n, 1);
		if (line[used] != '\n') {
			assert_true(++used < sizeof(line));
			continue;
		}
		line[used] = '\0';
		used = 0;
		if (!strcmp(line, "R"))
			return;
		assert_true(*count < MAX_IDS);
		ids[(*count)++] = (pid_t)atoi(line + 2);
	}
}

/* A worker with `threads` threads, in cgroup `dir`: it moves itself there, then executes. */
static void worker_start(struct worker *w, const char *dir, int threads, pid_t *ids, size_t *count)
{
	int cmd[2], report[2];
	char self[512];

	assert_int_equal(pipe(cmd), 0);
	assert_int_equal(pipe(report), 0);
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(len > 0);
	self[len] = '\0';
	w->pid = fork();
	assert_true(w->pid >= 0);
	if (w->pid == 0) {
		char a[16], b[16], n[16];
		if (place_run_enter(dir) < 0)
			_exit(2);
		close(cmd[1]);
		close(report[0]);
		snprintf(a, sizeof(a), "%d", cmd[0]);
		snprintf(b, sizeof(b), "%d", report[1]);
		snprintf(n, sizeof(n), "%d", threads);
		execl(self, self, "--worker", a, b, n, (char *)NULL);
		_exit(1);
	}
	close(cmd[0]);
	close(report[1]);
	w->cmd = cmd[1];
	w->report = report[0];
	worker_read(w, ids, count);
}

/* A new thread ('t') or vCPU-named thread ('v'): its id. */
static pid_t worker_spawn(struct worker *w, char kind)
{
	pid_t ids[MAX_IDS];
	size_t count = 0;

	assert_int_equal(write(w->cmd, &kind, 1), 1);
	worker_read(w, ids, &count);
	assert_int_equal(count, 1);
	return ids[0];
}

static void worker_stop(struct worker *w)
{
	if (w->pid <= 0)
		return;
	kill(w->pid, SIGKILL);
	waitpid(w->pid, NULL, 0);
	close(w->cmd);
	close(w->report);
	w->pid = 0;
}

/* ---- a run: the shared part (tests/util/place_run.h), the workers and what the scripts saw ---- */

struct run {
	struct place_run p; /* first: a script's place_run is its run */
	struct worker workers[4];
	size_t worker_count;
	/* the script's state */
	pid_t ids[MAX_IDS];
	size_t id_count;
	pid_t later;
	uint64_t asked_at, placed_at;
	bool connector_on; /* as status said while it ran */
};

static struct run *current;

#define note_failure(run, ...) place_run_fail(&(run)->p, __VA_ARGS__)

static struct run *run_of(struct place_run *p)
{
	return (struct run *)p;
}

static int teardown(void **state)
{
	(void)state;
	if (!current)
		return 0;
	for (size_t i = 0; i < current->worker_count; i++)
		worker_stop(&current->workers[i]);
	place_run_fini(&current->p);
	free(current);
	current = NULL;
	return 0;
}

/* A run whose private cgroup subtree is in the hierarchy mounted at `hierarchy`; NULL (skipped) when
 * this host cannot give one. */
static struct run *run_new(const char *hierarchy)
{
	struct run *run = calloc(1, sizeof(*run));

	assert_non_null(run);
	current = run;
	return place_run_init(&run->p, hierarchy) ? run : NULL;
}

static bool group_holds(const struct run *run, const char *group, pid_t tid)
{
	return place_run_holds(&run->p, group, tid);
}

static bool group_holds_all(const struct run *run, const char *group, const pid_t *ids, size_t count)
{
	return place_run_holds_all(&run->p, group, ids, count);
}

/* ---- a process, then a thread it starts later ---- */

/* Tick 1: the worker that ran before mpamd has every thread in the group. Then it starts a thread from
 * a thread taken out of the group:
 * at tick 3 with the proc connector; without it right after a reconcile, the worst moment. The thread
 * must be in the group `within` ticks later, and not before: with the connector one tick (the
 * reconcile is a minute away), without it the next reconcile, reconcile_ms later. */
static uint64_t within;

static void later_thread_script(struct place_run *p, uint64_t t)
{
	struct run *run = run_of(p);
	static uint64_t last_reconciles;
	struct place_counts counts = place_run_counts(run->p.engine);
	bool reconciled = t > 1 && counts.reconciles > last_reconciles;

	last_reconciles = counts.reconciles;
	if (t == 1)
		run->connector_on = counts.connector;
	if (t == 1 && !group_holds_all(run, "mpamd-app", run->ids, run->id_count))
		return note_failure(run, "tick 1: not every thread of the worker is in the group");
	if (!run->asked_at && t >= 3 && (run->connector_on || reconciled)) {
		/* A thread starts in its creator's group (the kernel copies the creator's CLOSID and RMID at
		 * clone), so for mpamd to have one to place, its creator (the worker's main thread) is first
		 * moved out of the group, as another tool might. */
		char root_tasks[256], line[32];
		snprintf(root_tasks, sizeof(root_tasks), "%s/tasks", emu_root(run->p.emu));
		snprintf(line, sizeof(line), "%d\n", (int)run->ids[0]);
		int fd = open(root_tasks, O_WRONLY);
		if (fd < 0 || write(fd, line, strlen(line)) != (ssize_t)strlen(line))
			note_failure(run, "cannot move thread %d out of the group", (int)run->ids[0]);
		if (fd >= 0)
			close(fd);
		run->later = worker_spawn(&run->workers[0], 't');
		run->asked_at = t;
		if (group_holds(run, "mpamd-app", run->later))
			note_failure(run, "thread %d was in the group before mpamd placed it", (int)run->later);
		return;
	}
	if (run->later && !run->placed_at && group_holds(run, "mpamd-app", run->later))
		run->placed_at = t;
	if (run->asked_at && t == run->asked_at + within && run->placed_at != t)
		note_failure(run, "thread %d started at tick %llu is placed at tick %llu, not %llu", (int)run->later,
			     (unsigned long long)run->asked_at, (unsigned long long)run->placed_at,
			     (unsigned long long)t);
}

/* The worker in cgroup app (under the run's root) before mpamd starts. */
static void start_app_worker(struct run *run, int threads)
{
	const char *app = place_run_cgroup(&run->p, "app");

	worker_start(&run->workers[run->worker_count++], app, threads, run->ids, &run->id_count);
	assert_int_equal(run->id_count, (size_t)threads + 1);
}

enum connector_case {
	CONNECTOR_ON,
	CONNECTOR_OFF,	  /* proc_connector = no */
	CONNECTOR_DENIED, /* proc_connector = yes without CAP_NET_ADMIN */
};

/* by_pid: the partition names the worker by its pid, not its cgroup. */
static void check_later_thread_of(const char *hierarchy, enum connector_case how, bool explicit_root, bool by_pid)
{
	struct run *run = run_new(hierarchy);
	bool connector = how == CONNECTOR_ON;
	const char *key = how == CONNECTOR_OFF ? "no" : "yes";

	if (!run)
		skip();
	start_app_worker(run, 3);
	if (by_pid)
		place_run_config(&run->p,
				 "cgroup_root = %s\nproc_connector = %s\nreconcile_ms = %u\n"
				 "[partition \"app\"]\npids = %d\n",
				 run->p.root, key, connector ? 60000 : 300, (int)run->workers[0].pid);
	else if (explicit_root)
		place_run_config(&run->p,
				 "cgroup_root = %s\nproc_connector = %s\nreconcile_ms = %u\n"
				 "[partition \"app\"]\ncgroup = app\n",
				 run->p.root, key, connector ? 60000 : 300);
	else /* the host's hierarchies, searched in order */
		place_run_config(&run->p, "proc_connector = %s\nreconcile_ms = %u\n[partition \"app\"]\ncgroup = %s\n",
				 key, connector ? 60000 : 300, strrchr(run->p.root, '/') + 1);
	within = connector ? 1 : 3; /* one tick; or reconcile_ms 300 at 100 ms a tick */
	run->p.script = later_thread_script;
	place_run_engine(&run->p, 12);
	/* Without the capability: one warning says so, and the reconcile does the work. A busy machine
	 * may make the kernel drop events: said once too, and counted in status. */
	unsigned long dropped = place_run_counts(run->p.engine).events_lost ? 1 : 0;
	assert_int_equal(run->p.warnings, (how == CONNECTOR_DENIED ? 1 : 0) + dropped);
	if (!run->placed_at)
		fail_msg("the later thread was never placed");
	json_t *row = engine_list_row(run->p.engine, "app");
	assert_non_null(row);
	assert_int_equal(json_integer_value(json_object_get(row, "misses")), 0);
	/* by pid the control puts the process's threads in at open: mpamd places the later one */
	assert_true(json_integer_value(json_object_get(row, "placements")) >= (by_pid ? 1 : 5));
	json_decref(row);
	assert_int_equal(run->connector_on, connector);
}

static void check_later_thread(const char *hierarchy, enum connector_case how, bool explicit_root)
{
	check_later_thread_of(hierarchy, how, explicit_root, false);
}

/* A process named by its pid: its new thread's event finds it in the index of the partitions' pids. */
static void test_v2_connector_pids(void **state)
{
	(void)state;
	check_later_thread_of(UNIFIED, CONNECTOR_ON, true, true);
}

static void test_v2_connector(void **state)
{
	(void)state;
	check_later_thread(UNIFIED, CONNECTOR_ON, true);
}

static void test_v2_reconcile_only(void **state)
{
	(void)state;
	check_later_thread(UNIFIED, CONNECTOR_OFF, true);
}

static void test_v1_connector(void **state)
{
	(void)state;
	check_later_thread(V1_CPU, CONNECTOR_ON, true);
}

static void test_v1_reconcile_only(void **state)
{
	(void)state;
	check_later_thread(V1_CPU, CONNECTOR_OFF, true);
}

/* Without cgroup_root: the cgroup is looked for in the host's hierarchies, v2 first. */
static void test_host_hierarchies(void **state)
{
	(void)state;
	check_later_thread(UNIFIED, CONNECTOR_ON, false);
}

/* CAP_NET_ADMIN out of the effective set for one test (the permitted set keeps it, so the teardown
 * can raise it again): as a service whose bounding set lacks it. */
static int set_net_admin(bool on)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2];
	uint32_t bit = 1u << (CAP_NET_ADMIN % 32);

	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	if (on)
		data[CAP_NET_ADMIN / 32].effective |= bit;
	else
		data[CAP_NET_ADMIN / 32].effective &= ~bit;
	return syscall(SYS_capset, &hdr, data) < 0 ? -errno : 0;
}

static int teardown_capability(void **state)
{
	set_net_admin(true);
	return teardown(state);
}

static void test_without_capability(void **state)
{
	(void)state;
	if (set_net_admin(false) < 0)
		skip();
	check_later_thread(UNIFIED, CONNECTOR_DENIED, true);
}

/* ---- a process started while mpamd runs ---- */

static void new_process_script(struct place_run *p, uint64_t t)
{
	struct run *run = run_of(p);

	if (t == 2) {
		worker_start(&run->workers[run->worker_count++], run->p.cgroups[1], 4, run->ids, &run->id_count);
		run->asked_at = t;
	} else if (run->asked_at && !run->placed_at && group_holds_all(run, "mpamd-app", run->ids, run->id_count)) {
		run->placed_at = t;
	}
	if (run->asked_at && t == run->asked_at + 2 && !run->placed_at)
		note_failure(run, "the process started at tick 2 does not have its %zu threads in the group at tick 4",
			     run->id_count);
}

static void test_new_process_within_two_ticks(void **state)
{
	(void)state;
	struct run *run = run_new(UNIFIED);
	if (!run)
		skip();
	place_run_cgroup(&run->p, "app"); /* cgroups[1] */
	place_run_config(&run->p, "cgroup_root = %s\nreconcile_ms = 60000\n[partition \"app\"]\ncgroup = app\n",
			 run->p.root);
	run->p.script = new_process_script;
	place_run_engine(&run->p, 8);
	assert_true(run->placed_at >= 3);
	assert_int_equal(run->id_count, 5);
}

/* ---- threads = vcpu ---- */

static void vcpu_script(struct place_run *p, uint64_t t)
{
	struct run *run = run_of(p);
	static pid_t vcpu, other;

	if (t == 1) {
		if (group_holds(run, "mpamd-vm", run->ids[0]))
			note_failure(run, "the emulator thread was placed with threads = vcpu");
		other = worker_spawn(&run->workers[0], 't');
		vcpu = worker_spawn(&run->workers[0], 'v');
	} else if (t == 2) {
		if (!group_holds(run, "mpamd-vm", vcpu))
			note_failure(run, "the vCPU thread is not in the group one tick after it took its name");
		if (group_holds(run, "mpamd-vm", other) || group_holds(run, "mpamd-vm", run->ids[0]))
			note_failure(run, "a thread that is no vCPU is in the group");
	}
}

static void test_vcpu_threads_only(void **state)
{
	(void)state;
	struct run *run = run_new(UNIFIED);
	if (!run)
		skip();
	const char *vm = place_run_cgroup(&run->p, "vm");
	worker_start(&run->workers[run->worker_count++], vm, 2, run->ids, &run->id_count);
	place_run_config(&run->p,
			 "cgroup_root = %s\nreconcile_ms = 60000\n[partition \"vm\"]\ncgroup = vm\nthreads = vcpu\n",
			 run->p.root);
	run->p.script = vcpu_script;
	place_run_engine(&run->p, 4);
	json_t *row = engine_list_row(run->p.engine, "vm");
	assert_int_equal(json_integer_value(json_object_get(row, "placements")), 1);
	json_decref(row);
}

/* ---- a VM that comes and goes, as machined lays it out ---- */

#define SCOPE	     "machine-qemu\\x2d7\\x2dtenant\\x2d1.scope"
#define VM_PARTITION "[partition \"web\"]\nmb_max = 90\n"
#define VM_TEMPLATE  "[vm-template \"tenants\"]\nmatch = tenant-*\nclass = best-effort\nmb_max = %u\n"

static long slot_of(struct engine *e, const char *name)
{
	for (size_t i = 0; i < engine_partition_count(e); i++)
		if (engine_partition(e, i)->name && !strcmp(engine_partition(e, i)->name, name))
			return (long)i;
	return -1;
}

/* The VM starts: newer libvirt puts its threads in libvirt/vcpu0 below the scope. */
static void vm_start(struct run *run)
{
	static const char *const dirs[] = { "", "/libvirt", "/libvirt/vcpu0" };
	const char *dir = NULL;

	for (size_t i = 0; i < 3; i++)
		dir = place_run_cgroup(&run->p, "machine.slice/" SCOPE "%s", dirs[i]);
	worker_start(&run->workers[run->worker_count++], dir, 2, run->ids, &run->id_count);
}

/* Its partition is there, from the template, with the template's limit and the VM's threads. */
static void vm_check(struct run *run, uint64_t t, long *ret_slot)
{
	long slot = slot_of(run->p.engine, "tenant-1");
	const char *origin = slot >= 0 ? engine_partition_origin(run->p.engine, (size_t)slot) : NULL;

	*ret_slot = slot;
	if (!origin || strcmp(origin, "tenants"))
		return note_failure(run, "tick %llu: no partition tenant-1 from template tenants",
				    (unsigned long long)t);
	if (!emu_group_file_has(run->p.emu, "mpamd-tenant-1", "schemata", "MB:0=50;1=50"))
		return note_failure(run, "tenant-1's group does not have the template's mb_max");
	if (!group_holds_all(run, "mpamd-tenant-1", run->ids, run->id_count))
		return note_failure(run, "the VM's threads are not in its group");
}

/* A reload of the same file keeps the VM's partition; a template's new goal changes it in place. */
static void vm_reload(struct run *run, long slot)
{
	struct err err = { "" };

	if (engine_reload(run->p.engine, &err) < 0)
		return note_failure(run, "reload: %s", err.text);
	if (slot_of(run->p.engine, "tenant-1") != slot || !engine_partition_origin(run->p.engine, (size_t)slot))
		return note_failure(run, "a reload of the same file lost or moved the VM's partition");
	place_run_config(&run->p, "cgroup_root = %s\nreconcile_ms = 300\n" VM_PARTITION VM_TEMPLATE, run->p.root, 40);
	if (engine_reload(run->p.engine, &err) < 0)
		return note_failure(run, "reload: %s", err.text);
	if (slot_of(run->p.engine, "tenant-1") != slot ||
	    !emu_group_file_has(run->p.emu, "mpamd-tenant-1", "schemata", "MB:0=40;1=40"))
		return note_failure(run, "the template's new mb_max is not in force in place");
	if (!group_holds_all(run, "mpamd-tenant-1", run->ids, run->id_count))
		return note_failure(run, "the VM's threads left its group on a reload");
}

/* The VM stops: its process ends, its scope goes. */
static void vm_stop(struct run *run)
{
	worker_stop(&run->workers[--run->worker_count]);
	place_run_remove_cgroups(&run->p, 2); /* the root and machine.slice stay */
}

static void vm_script(struct place_run *p, uint64_t t)
{
	struct run *run = run_of(p);
	long slot;

	if (t == 2) {
		vm_start(run);
		run->asked_at = t;
	} else if (t == run->asked_at + 3) { /* reconcile_ms 300: three ticks */
		vm_check(run, t, &slot);
		if (!run->p.failure[0])
			vm_reload(run, slot);
		vm_stop(run);
		run->placed_at = t;
	} else if (run->placed_at && t == run->placed_at + 3) {
		if (emu_group_exists(run->p.emu, "mpamd-tenant-1"))
			note_failure(run, "the stopped VM's group is still there");
		if (slot_of(run->p.engine, "tenant-1") >= 0)
			note_failure(run, "the stopped VM's partition is still there");
		run->later = 1; /* done */
	}
}

static void test_vm_template_follows_scope(void **state)
{
	(void)state;
	struct run *run = run_new(UNIFIED);
	if (!run)
		skip();
	place_run_cgroup(&run->p, "machine.slice");
	place_run_config(&run->p, "cgroup_root = %s\nreconcile_ms = 300\n" VM_PARTITION VM_TEMPLATE, run->p.root, 50);
	run->p.script = vm_script;
	place_run_engine(&run->p, 14);
	assert_int_equal(run->later, 1);
	assert_true(emu_group_exists(run->p.emu, "mpamd-web"));
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "--worker"))
		return worker_main(argv);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_v2_connector, teardown),
		cmocka_unit_test_teardown(test_v2_connector_pids, teardown),
		cmocka_unit_test_teardown(test_v2_reconcile_only, teardown),
		cmocka_unit_test_teardown(test_v1_connector, teardown),
		cmocka_unit_test_teardown(test_v1_reconcile_only, teardown),
		cmocka_unit_test_teardown(test_host_hierarchies, teardown),
		cmocka_unit_test_teardown(test_without_capability, teardown_capability),
		cmocka_unit_test_teardown(test_new_process_within_two_ticks, teardown),
		cmocka_unit_test_teardown(test_vcpu_threads_only, teardown),
		cmocka_unit_test_teardown(test_vm_template_follows_scope, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
