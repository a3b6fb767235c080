/* Which partition a task the kernel reported belongs to: the cgroup /proc/TID/cgroup puts it in,
 * looked up with each of its parents in an index of the partitions' paths (the deepest partition
 * cgroup holding it wins), else the partition whose pids hold its process. One small read of /proc
 * per event. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backends/cgroup/placement.h"

void placement_index(struct placement *a)
{
	char key[CGROUP_PATH_MAX + 32];

	if (!a->paths_dirty)
		return;
	name_index_fini(&a->paths);
	a->hierarchies_used = 0;
	for (size_t i = 0; i < a->slot_cap; i++) {
		const struct placed *pl = &a->slots[i];
		if (!pl->open || !pl->path)
			continue;
		snprintf(key, sizeof(key), "%zu\t%s", pl->hierarchy, pl->path);
		if (name_index_add(&a->paths, key, i) == -ENOMEM)
			return; /* dirty still: tried again at the next event */
		a->hierarchies_used |= 1u << pl->hierarchy;
	}
	a->paths_dirty = false;
}

/* The partition whose path is `path` or the nearest parent of it, in hierarchy h. */
static long match_path(struct placement *a, size_t h, char *path)
{
	char key[CGROUP_PATH_MAX + 32];
	size_t slot;

	for (;;) {
		snprintf(key, sizeof(key), "%zu\t%s", h, path);
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

	placement_index(a);
	if (!a->hierarchies_used || cgroup_read_task(NULL, tid, text, sizeof(text)) < 0)
		return -1;
	for (size_t h = 0; h < a->tree->count; h++) {
		if (!(a->hierarchies_used & (1u << h)) ||
		    cgroup_path_in(&a->tree->hierarchies[h], text, path, sizeof(path)))
			continue;
		long slot = match_path(a, h, path);
		if (slot >= 0)
			return slot;
	}
	return -1;
}

static long match_pids(const struct placement *a, pid_t tgid)
{
	for (size_t i = 0; a->with_pids && i < a->slot_cap; i++) {
		const struct placed *pl = &a->slots[i];
		for (size_t k = 0; pl->open && k < pl->config->pid_count; k++)
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

bool placement_is_vcpu(pid_t tid, const char *comm)
{
	char path[64], name[TASK_COMM_LEN + 2];

	if (comm)
		return vm_vcpu_thread(comm);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n <= 0)
		return false;
	name[n] = '\0';
	return vm_vcpu_thread(name);
}
