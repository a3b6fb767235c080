/* The proc connector against this machine's kernel (CONFIG_PROC_EVENTS): a thread's start, its new
 * name and its exit arrive as events with its ids; a socket buffer too small for what happens makes
 * the kernel drop events (ENOBUFS), which the reader says, and the socket keeps working; without
 * CAP_NET_ADMIN it cannot be opened, and says why. Skipped (77) where it cannot be opened at all. */
#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "backends/cgroup/proc_connector.h"
#include "tests/util/test_main.h"

#define SKIP 77

struct seen {
	pid_t tid;
	bool fork, comm, exit;
	char comm_text[TASK_COMM_LEN];
	pid_t fork_tgid;
};

static void note(void *ctx, const struct task_event *ev)
{
	struct seen *s = ctx;

	if (ev->tid != s->tid)
		return;
	if (ev->kind == TASK_EVENT_FORK) {
		s->fork = true;
		s->fork_tgid = ev->tgid;
	} else if (ev->kind == TASK_EVENT_COMM) {
		s->comm = true;
		memcpy(s->comm_text, ev->comm, sizeof(s->comm_text));
	} else if (ev->kind == TASK_EVENT_EXIT) {
		s->exit = true;
	}
}

static sem_t started;
static pid_t started_tid;

static void *named_thread(void *arg)
{
	(void)arg;
	started_tid = (pid_t)syscall(SYS_gettid);
	sem_post(&started);
	prctl(PR_SET_NAME, "CPU 3/KVM");
	return NULL;
}

/* A thread that names itself as QEMU names a vCPU, and has ended: its id. */
static pid_t named_thread_run(void)
{
	pthread_t t;

	sem_init(&started, 0, 0);
	assert_int_equal(pthread_create(&t, NULL, named_thread, NULL), 0);
	sem_wait(&started);
	pthread_join(t, NULL);
	return started_tid;
}

static struct proc_connector *open_or_skip(int rcvbuf)
{
	struct proc_connector *pc = NULL;
	struct err err = { "" };

	if (proc_connector_open(rcvbuf, &pc, &err) < 0) {
		fprintf(stderr, "cannot test the proc connector here: %s\n", err.text);
		exit(SKIP);
	}
	return pc;
}

/* Drains until `done` says so, for at most ~5 s (the events are queued before the calls return). */
static void drain_until(struct proc_connector *pc, struct seen *s, bool (*done)(const struct seen *))
{
	struct err err = { "" };
	bool lost = false;

	for (int i = 0; i < 500 && !done(s); i++) {
		assert_true(proc_connector_drain(pc, note, s, &lost, &err) >= 0);
		if (!done(s))
			usleep(10000);
	}
}

static bool all_three(const struct seen *s)
{
	return s->fork && s->comm && s->exit;
}

static void test_thread_events(void **state)
{
	struct proc_connector *pc = open_or_skip(0);
	struct seen s = { 0 };

	(void)state;
	s.tid = named_thread_run();
	drain_until(pc, &s, all_three);
	assert_true(s.fork);
	assert_int_equal(s.fork_tgid, getpid());
	assert_true(s.comm);
	assert_string_equal(s.comm_text, "CPU 3/KVM");
	assert_true(s.exit);
	assert_true(proc_connector_fd(pc) >= 0);
	proc_connector_free(pc);
}

static void *quick(void *arg)
{
	return arg;
}

static bool forked(const struct seen *s)
{
	return s->fork;
}

/* A buffer of the smallest size and a burst of threads it cannot hold: the kernel drops events and
 * the reader says so; what comes after is read as usual. */
static void test_overrun_is_said(void **state)
{
	struct proc_connector *pc = open_or_skip(1);
	struct err err = { "" };
	bool lost = false;
	pthread_t t;

	(void)state;
	for (int i = 0; i < 400; i++) {
		assert_int_equal(pthread_create(&t, NULL, quick, NULL), 0);
		pthread_join(t, NULL);
	}
	assert_true(proc_connector_drain(pc, NULL, NULL, &lost, &err) >= 0);
	assert_true(lost);

	struct seen s = { .tid = named_thread_run() };
	drain_until(pc, &s, forked);
	assert_true(s.fork);
	proc_connector_free(pc);
}

/* The effective capabilities without CAP_NET_ADMIN (the permitted set keeps it): as a service
 * without it in its bounding set. */
static int drop_net_admin(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	data[CAP_NET_ADMIN / 32].effective &= ~(1u << (CAP_NET_ADMIN % 32));
	return syscall(SYS_capset, &hdr, data) < 0 ? -errno : 0;
}

static void test_without_capability(void **state)
{
	(void)state;
	proc_connector_free(open_or_skip(0));
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct proc_connector *pc = NULL;
		struct err err = { "" };
		if (drop_net_admin() < 0)
			_exit(2);
		int r = proc_connector_open(0, &pc, &err);
		_exit(r == -EPERM && strstr(err.text, "CAP_NET_ADMIN") ? 0 : 1);
	}
	int status;
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static long read_rmem_max(void)
{
	FILE *f = fopen("/proc/sys/net/core/rmem_max", "r");
	long v = -1;

	if (f && fscanf(f, "%ld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

/* A burst of starts must wait in the buffer, not be dropped: root gets the size it asks for even
 * past net.core.rmem_max (the kernel keeps twice the asked size for its own bookkeeping). */
static void test_buffer_past_rmem_max(void **state)
{
	(void)state;
	long rmem_max = read_rmem_max();
	if (rmem_max <= 0 || rmem_max > (1L << 28))
		skip();
	int want = (int)rmem_max + (1 << 20), got = 0;
	socklen_t len = sizeof(got);
	struct proc_connector *pc = open_or_skip(want);

	assert_int_equal(getsockopt(proc_connector_fd(pc), SOL_SOCKET, SO_RCVBUF, &got, &len), 0);
	proc_connector_free(pc);
	assert_true((long)got >= 2L * want);
}

TEST_MAIN({
	cmocka_unit_test(test_thread_events),
	cmocka_unit_test(test_overrun_is_said),
	cmocka_unit_test(test_without_capability),
	cmocka_unit_test(test_buffer_past_rmem_max),
})
