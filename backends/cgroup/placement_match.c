/* Which partition a task the kernel reported belongs to: the cgroup /proc/TID/cgroup puts it in,
 * looked up with each of its parents in an index of the partitions' paths (the deepest partition
 * cgroup holding it wins), else the partition whose pids hold its process. One small read of /proc
 * per event. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cgroup/placement.h"
#include "backends/cgroup/qemu_threads.h"
#include "core/base/log.h"

static void path_key(char *key, size_t len, size_t h, const char *path)
{
	snprintf(key, len, "%zu\t%s", h, path);
}

void placement_path_set(struct placement *a, size_t slot, char *path, size_t h)
{
	struct placed *pl = &a->slots[slot];
	char key[CGROUP_PATH_MAX + 32];

	if (pl->path) {
		path_key(key, sizeof(key), pl->hierarchy, pl->path);
		name_index_remove(&a->paths, key, slot);
		a->hierarchy_users[pl->hierarchy]--;
		free(pl->path);
	}
	pl->path = path;
	pl->hierarchy = h;
	if (!path)
		return;
	a->hierarchy_users[h]++;
	path_key(key, sizeof(key), h, path);
	/* Taken already (a vm and a cgroup naming one scope): the first partition gets its events. */
	name_index_add(&a->paths, key, slot);
}

bool placement_path_taken(const struct placement *a, size_t h, const char *path)
{
	char key[CGROUP_PATH_MAX + 32];
	size_t slot;

	path_key(key, sizeof(key), h, path);
	return name_index_find(&a->paths, key, &slot) == 0;
}

/* The partition whose path is `path` or the nearest parent of it, in hierarchy h. */
static long match_path(struct placement *a, size_t h, char *path)
{
	char key[CGROUP_PATH_MAX + 32];
	size_t slot;

	for (;;) {
		path_key(key, sizeof(key), h, path);
		if (name_index_find(&a->paths, key, &slot) == 0)
			return (long)slot;
		char *slash = strrchr(path, '/');
		if (!slash)
			return -1;
		*slash = '\0';
	}
}

static long match_cgroup(struct placement *a, pid_t tid)
{
	char text[4096], path[CGROUP_PATH_MAX];

	/* No partition has a path: nothing to read /proc for, on every fork on the host. */
	if (!a->paths.count || cgroup_read_task(NULL, tid, text, sizeof(text)) < 0)
		return -1;
	for (size_t h = 0; h < a->tree->count; h++) {
		if (!a->hierarchy_users[h] || cgroup_path_in(&a->tree->hierarchies[h], text, path, sizeof(path)))
			continue;
		long slot = match_path(a, h, path);
		if (slot >= 0)
			return slot;
	}
	return -1;
}

void placement_pids_index(struct placement *a, size_t slot, const struct partition_config *p, bool opened)
{
	char key[24];

	for (size_t k = 0; k < p->pid_count; k++) {
		snprintf(key, sizeof(key), "%d", (int)p->pids[k]);
		if (!opened)
			name_index_remove(&a->pids, key, slot);
		else if (name_index_add(&a->pids, key, slot) == -ENOMEM)
			a->pids_unindexed = true;
		/* -EEXIST: another open partition names it (a configuration refuses that); the first keeps it */
	}
}

static long match_pids(const struct placement *a, pid_t tgid)
{
	char key[24];
	size_t slot;

	if (!a->with_pids)
		return -1;
	if (!a->pids_unindexed) {
		snprintf(key, sizeof(key), "%d", (int)tgid);
		return name_index_find(&a->pids, key, &slot) == 0 ? (long)slot : -1;
	}
	for (size_t i = 0; i < a->slot_cap; i++) {
		const struct placed *pl = &a->slots[i];
		for (size_t k = 0; pl->config && k < pl->config->pid_count; k++)
			if (pl->config->pids[k] == tgid)
				return (long)i;
	}
	return -1;
}

long placement_match(struct placement *a, const struct task_event *ev)
{
	long slot = a->tree ? match_cgroup(a, ev->tid) : -1;

	return slot >= 0 ? slot : match_pids(a, ev->tgid);
}

bool placement_takes_vcpu(struct placement *a, size_t slot, pid_t tid, const char *comm)
{
	struct placed *pl = &a->slots[slot];
	enum qemu_thread kind = qemu_thread_kind(tid, comm);

	if (kind == QEMU_THREAD_UNNAMED && !pl->told_unnamed) {
		pl->told_unnamed = true;
		log_warning("partition %s: threads = vcpu, but the QEMU of thread %d runs without -name "
			    "...,debug-threads=on, so its threads have no names and its vCPUs cannot be told apart: "
			    "every thread of it is placed (start QEMU with -name guest=NAME,debug-threads=on, as "
			    "libvirt does)",
			    pl->config->name, (int)tid);
	}
	return kind != QEMU_THREAD_OTHER;
}
