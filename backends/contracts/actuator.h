/* The actuator contract: what the engine does to a partition's tasks other than bandwidth limits —
 * the CPU quota of its cgroup, and placement: every thread of its cgroup, VM or pids in the place the
 * control made for it (its resctrl group). The policies decide the quota (struct actuation); an
 * actuator carries it out and says whether it could.
 *
 * Placement is not decided per tick: it follows the tasks. The engine calls `reconcile` for every
 * partition when it opens and then every reconcile_ms, and `task_event` for each task the kernel
 * reports (the proc connector), so that a new thread lands in its group at once. */
#ifndef MPAMD_BACKENDS_CONTRACTS_ACTUATOR_H
#define MPAMD_BACKENDS_CONTRACTS_ACTUATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backends/contracts/control.h"
#include "core/base/error.h"
#include "core/config/model.h"

/* What the policies want done to a partition's tasks. */
struct actuation {
	unsigned cpu_quota_pct; /* percent of one CPU (200 = two CPUs); 0: unlimited */
};

/* A task the kernel reported (backends/cgroup/proc_connector.h). */
enum task_event_kind {
	TASK_EVENT_FORK, /* a new process or thread: `tid` (its process `tgid`) */
	TASK_EVENT_EXEC, /* `tid` runs a new program (the process may have moved cgroup since its fork) */
	TASK_EVENT_COMM, /* `tid` took the name `comm` (QEMU names a vCPU thread after starting it) */
	TASK_EVENT_EXIT, /* `tid` has exited (its id may be given to a new thread) */
};

#define TASK_COMM_LEN 16

struct task_event {
	enum task_event_kind kind;
	pid_t tid, tgid;
	char comm[TASK_COMM_LEN]; /* TASK_EVENT_COMM only */
};

#define PLACEMENT_SOURCE_MAX 160

/* What placement found and did for one partition (list, show, status and metrics report it). */
struct placement_status {
	bool has_source;     /* the partition names its tasks (cgroup, vm or pids) */
	bool places;	     /* the control can place tasks; false: they are only counted */
	bool found;	     /* its cgroup or VM's scope was there at the last reconcile */
	size_t tasks;	     /* threads it held at the last reconcile (its vCPUs only with threads = vcpu) */
	uint64_t placements; /* thread ids written into its group since it opened */
	uint64_t misses;     /* writes refused: the thread stayed outside (not one that exited) */
	char source[PLACEMENT_SOURCE_MAX]; /* "cgroup PATH", "vm NAME (PATH)", "pids 1,2" */
	char reason[ERR_TEXT_MAX];	   /* why the last write was refused or the scope is not found; "" */
};

struct actuator;

struct actuator_ops {
	const char *name;
	/* Takes the place of the real actuator of the same name beside a simulated control. */
	bool simulated;
	/* Composed with every control, simulated or not (placement: it says itself what it cannot do). */
	bool any_control;
	/* Whether this configuration wants it at all (NULL: always). */
	bool (*wanted)(const struct config *config);
	int (*open)(const struct config *config, const struct control_shared *shared, struct actuator **ret,
		    struct err *err);
	void (*free)(struct actuator *actuator);
	/* Partition `index`, as the control opened it, is managed from now on. */
	int (*partition_open)(struct actuator *actuator, size_t index, const struct partition_ref *ref,
			      struct err *err);
	/* Partition `index` is no longer managed (removed by a reload, or about to be opened again):
	 * the actuator forgets it, so the slot may be given to another partition. NULL: nothing kept. */
	void (*partition_close)(struct actuator *actuator, size_t index);
	/* Carries out `want` for partition `index`; on failure nothing is assumed to have changed. NULL:
	 * it carries out no actuation (placement). */
	int (*apply)(struct actuator *actuator, size_t index, const struct actuation *want, struct err *err);

	/* Placement (NULL in actuators that place nothing). */
	/* Every thread partition `index` should hold and does not is put in its group; counts refreshed.
	 * A failure is the partition's status reason, and the others carry on. */
	int (*reconcile)(struct actuator *actuator, size_t index, struct err *err);
	/* The kernel reported a task: placed at once when it belongs to an open partition. */
	void (*task_event)(struct actuator *actuator, const struct task_event *ev);
	/* What placement knows of partition `index`, or NULL when it is not open here. */
	const struct placement_status *(*placement)(struct actuator *actuator, size_t index);
};

/* Implementations embed this as their first member. */
struct actuator {
	const struct actuator_ops *ops;
};

#endif
