/* A real QEMU guest for the placement tests: qemu-system-x86_64 under TCG (no KVM needed), paused
 * (-S) before its first instruction, with 64 MB, no devices and a QMP socket; about 26 MB and well
 * under a second to start. It is started in a cgroup the test made, as libvirt starts one: the child
 * moves itself there, then executes QEMU. QMP (one client, this one) says which threads are the
 * vCPUs (query-cpus-fast) and adds vCPUs (device_add up to maxcpus). Each guest dies with the test
 * (PR_SET_PDEATHSIG). */
#ifndef MPAMD_TESTS_UTIL_QEMU_GUEST_H
#define MPAMD_TESTS_UTIL_QEMU_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define QEMU_GUEST_PROGRAM  "qemu-system-x86_64"
#define QEMU_GUEST_MAX_VCPU 16

struct qemu_guest_options {
	const char *name;      /* -name guest=NAME */
	const char *cgroup;    /* the cgroup directory it starts in (a full path) */
	const char *dir;       /* where its QMP socket and its output go */
	unsigned smp, maxcpus; /* vCPUs at the start, and at most (device_add); maxcpus 0: smp */
	bool no_thread_names;  /* without debug-threads=on: every thread is named as the program */
	bool single_thread;    /* -accel tcg,thread=single: one thread runs every vCPU */
};

struct qemu_guest {
	pid_t pid; /* 0: not running */
	int qmp;   /* -1: not connected */
	char socket[108], log[128];
	char buf[65536]; /* QMP's replies, read up to here */
	size_t used;
	unsigned added; /* vCPUs device_add gave it */
};

/* Whether QEMU_GUEST_PROGRAM is on PATH. */
bool qemu_guest_available(void);

/* Starts the guest; returns at once (qemu_guest_ready tells when QMP answers). 0, or -errno. */
int qemu_guest_start(struct qemu_guest *g, const struct qemu_guest_options *o);
/* Whether QMP answers: connects when its socket is there, and negotiates. false while QEMU starts;
 * fails the test when QEMU has ended. */
bool qemu_guest_ready(struct qemu_guest *g);

/* The vCPUs' thread ids as QMP's query-cpus-fast gives them, each once, sorted: their count. Fails
 * the test on an error. */
size_t qemu_guest_vcpus(struct qemu_guest *g, pid_t *ids, size_t max);
/* A vCPU more: device_add of the first slot query-hotpluggable-cpus lists as empty. 0, or -1 with
 * QEMU's error in `why`. */
int qemu_guest_add_vcpu(struct qemu_guest *g, char *why, size_t why_len);

/* QMP quit, then waits for QEMU to end (SIGKILL when it does not); a guest not running is fine. */
void qemu_guest_stop(struct qemu_guest *g);
/* Its output so far (for a failure message), malloc'ed, or NULL. */
char *qemu_guest_output(const struct qemu_guest *g);

#endif
