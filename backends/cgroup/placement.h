/* The placement actuator's parts (not a public API): per partition, where its threads are (its cgroup,
 * its VM's scope, its pids) and what placing them did; which partition a reported task belongs to. */
#ifndef MPAMD_BACKENDS_CGROUP_PLACEMENT_H
#define MPAMD_BACKENDS_CGROUP_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/cgroup/cgroup_tree.h"
#include "backends/cgroup/vm_scope.h"
#include "backends/contracts/actuator.h"
#include "core/base/name_index.h"

/* One partition as placement knows it. */
struct placed {
	const struct partition_config *config; /* NULL: the slot is not open */
	char *path;	  /* its cgroup or VM's scope as last found; NULL when not found (or it has none) */
	size_t hierarchy; /* of path, in the actuator's tree */
	bool told_missing;
	bool told_unnamed; /* that a QEMU of it has no thread names (threads = vcpu) */
	/* Only for a partition that names its tasks (most name none: ~700 bytes each spared); NULL
	 * otherwise. */
	struct placement_status *status;
};

/* A thread the events placed lately: a thread reported more than once (its fork, then its exec or its
 * vCPU name) is written once. Forgotten when it exits, as its id may be given to another. */
#define PLACEMENT_RECENT 256

struct placement_recent {
	pid_t tid; /* 0: free */
	size_t slot;
};

struct placement {
	struct actuator base;
	const struct config *config;
	const struct thread_placer *placer; /* NULL: the control cannot place tasks; they are counted */
	const char *cannot_place;	    /* why not, from the control */
	bool told_cannot_place;
	struct cgroup_tree *tree; /* NULL when the host has no cgroup hierarchy */
	char tree_error[ERR_TEXT_MAX];
	struct vm_list vms; /* the last scan, shared by the partitions reconciled within VM_SCAN_AGE_NS */
	uint64_t vms_scanned_ns;
	struct placed *slots;
	size_t slot_cap;
	/* "HIERARCHY\tPATH" of every open partition's cgroup or scope -> its slot, kept as they move */
	struct name_index paths;
	unsigned hierarchy_users[CGROUP_HIERARCHIES]; /* partitions whose path is in hierarchy h */
	size_t with_pids, with_vcpu, with_paths;
	/* "TGID" of every pid an open partition names -> its slot: an event is matched in O(1), not by
	 * a look through every partition's pids (which, at a thousand partitions, was most of a tick on
	 * a host that forks often). pids_unindexed: a pid could not be added (out of memory), so the
	 * look goes through the partitions as before. */
	struct name_index pids;
	bool pids_unindexed;
	pid_t *ids; /* scratch for a reconcile */
	size_t id_count, id_cap;
	struct placement_recent recent[PLACEMENT_RECENT];
	size_t recent_next;
};

/* placement_source.c: where a partition's threads are */

/* placement_match.c: partition `slot`'s pids into the index (opened) or out of it. */
void placement_pids_index(struct placement *a, size_t slot, const struct partition_config *p, bool opened);

/* Whether partition `p` names its tasks (a cgroup, a VM or pids): only then has it a status. */
bool placement_has_source(const struct partition_config *p);
/* "cgroup PATH", "vm NAME", "pids 1,2", joined with " + ", into status->source. */
void placement_describe(struct placed *pl);
/* Finds the partition's cgroup or VM scope (pl->path, pl->hierarchy; NULL path when there is none),
 * saying once when it goes missing and when it is back. */
void placement_resolve(struct placement *a, size_t slot);
/* The program `tid` has just executed, in no partition's cgroup as they are known: it may be a VM
 * that started since the last reconcile (libvirt moves QEMU into the VM's scope, then executes it).
 * When its cgroup is a VM's scope that a partition's vm names, or a partition's cgroup that was not
 * there, that partition finds it now, so that the threads that follow are placed as they start.
 * true when one did. */
bool placement_follow(struct placement *a, pid_t tid);
/* Every thread the partition holds now (its cgroup or scope and the cgroups below that are not
 * another partition's, every pid's threads; vCPUs only with threads = vcpu), sorted and distinct, in
 * a->ids. 0 or -ENOMEM. */
int placement_list(struct placement *a, size_t slot, struct err *err);

/* placement_match.c: which partition a task is in */

/* Partition `slot`'s cgroup or scope is `path` (owned; NULL: none) in hierarchy `h` from now on:
 * the index of paths follows. */
void placement_path_set(struct placement *a, size_t slot, char *path, size_t h);
/* Whether `path` in hierarchy `h` is an open partition's cgroup or scope. */
bool placement_path_taken(const struct placement *a, size_t h, const char *path);
/* The open partition task `ev` belongs to: its cgroup's (the deepest partition cgroup holding it),
 * else the one whose pids hold its process. -1 when none, or the task is gone. */
long placement_match(struct placement *a, const struct task_event *ev);
/* Whether partition `slot` (threads = vcpu) takes thread `tid` named `comm` (NULL: as /proc names it):
 * a vCPU's, or any thread of a QEMU whose threads have no names (which the log says once per
 * partition, with the fix). */
bool placement_takes_vcpu(struct placement *a, size_t slot, pid_t tid, const char *comm);

#endif
