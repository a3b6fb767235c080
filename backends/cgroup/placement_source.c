/* Where a partition's threads are: its cgroup (looked for in the hierarchies in order), its VM's scope
 * (found again in each scan: its number changes at every start), every thread of its pids, with
 * threads = vcpu only QEMU's vCPU threads. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cgroup/placement.h"
#include "backends/shared/threads.h"
#include "core/base/clock.h"
#include "core/base/grow.h"
#include "core/base/log.h"

/* Partitions reconciled one after the other share one scan of the VMs. */
#define VM_SCAN_AGE_NS 100000000ull

/* Appends `what` and `text` to the status's source, cut at its end. */
static void source_add(struct placed *pl, const char *what, const char *text)
{
	char *out = pl->status->source;
	size_t used = strlen(out);

	snprintf(out + used, PLACEMENT_SOURCE_MAX - used, "%s%s", what, text);
}

bool placement_has_source(const struct partition_config *p)
{
	return p->cgroup || p->vm || p->pid_count;
}

void placement_describe(struct placed *pl)
{
	const struct partition_config *p = pl->config;
	char pid[16];

	pl->status->source[0] = '\0';
	if (p->cgroup)
		source_add(pl, "cgroup ", p->cgroup);
	if (p->vm)
		source_add(pl, "vm ", p->vm);
	for (size_t i = 0; i < p->pid_count; i++) {
		snprintf(pid, sizeof(pid), "%d", (int)p->pids[i]);
		source_add(pl, i ? "," : pl->status->source[0] ? " + pids " : "pids ", pid);
	}
	pl->status->has_source = true;
	pl->status->found = !p->cgroup && !p->vm; /* pids need no finding */
}

static const struct vm_found *find_vm(struct placement *a, const char *name)
{
	uint64_t now = clock_monotonic_ns();
	struct err err = { "" };

	if (!a->vms_scanned_ns || now - a->vms_scanned_ns > VM_SCAN_AGE_NS) {
		vm_list_fini(&a->vms);
		if (vm_scan(a->tree, &a->vms, &err) < 0)
			log_error("listing VMs: %s", err.text);
		a->vms_scanned_ns = now;
	}
	return vm_list_find(&a->vms, name);
}

/* Its cgroup's or VM's path and hierarchy: 0, or -ENOENT and why in status.reason. */
static int locate(struct placement *a, struct placed *pl, char **ret_path, size_t *ret_h)
{
	const struct partition_config *p = pl->config;

	if (!a->tree) {
		snprintf(pl->status->reason, ERR_TEXT_MAX, "no cgroup hierarchy: %.400s", a->tree_error);
		return -ENOENT;
	}
	if (p->vm) {
		const struct vm_found *v = find_vm(a, p->vm);
		if (!v) {
			snprintf(pl->status->reason, ERR_TEXT_MAX,
				 "VM %.255s is not running (no scope of it in %.200s)", p->vm,
				 a->tree->hierarchies[0].dir);
			return -ENOENT;
		}
		*ret_h = v->hierarchy;
		*ret_path = strdup(v->path);
		return *ret_path ? 0 : -ENOMEM;
	}
	int h = cgroup_tree_find(a->tree, p->cgroup);
	if (h < 0) {
		snprintf(pl->status->reason, ERR_TEXT_MAX, "cgroup %.200s is not there (looked in %.200s%s)", p->cgroup,
			 a->tree->hierarchies[0].dir, a->tree->count > 1 ? " and the other hierarchies" : "");
		return -ENOENT;
	}
	*ret_h = (size_t)h;
	*ret_path = strdup(p->cgroup);
	return *ret_path ? 0 : -ENOMEM;
}

void placement_resolve(struct placement *a, size_t slot)
{
	struct placed *pl = &a->slots[slot];
	char *path = NULL;
	size_t h = 0;

	if (!pl->config->cgroup && !pl->config->vm)
		return;
	bool found = locate(a, pl, &path, &h) == 0;
	bool same = path && pl->path && !strcmp(path, pl->path) && h == pl->hierarchy;
	if (same)
		free(path);
	else
		placement_path_set(a, slot, path, h);
	pl->status->found = found;
	if (!found && !pl->told_missing)
		log_info("partition %s: %s; its threads are placed when it appears", pl->config->name,
			 pl->status->reason);
	if (found && pl->told_missing) {
		log_info("partition %s: %s is there now (%s)", pl->config->name, pl->status->source, path);
		pl->status->reason[0] = '\0'; /* why it was not found; a refused write says why again */
	}
	pl->told_missing = !found;
}

/* The VM whose scope holds a task, by the task's /proc/TID/cgroup `text`: true and its name. */
static bool task_vm(const struct cgroup_tree *t, const char *text, char *name, size_t len)
{
	char path[CGROUP_PATH_MAX];
	char *save;

	for (size_t h = 0; h < t->count; h++) {
		if (cgroup_path_in(&t->hierarchies[h], text, path, sizeof(path)))
			continue;
		for (char *dir = strtok_r(path, "/", &save); dir; dir = strtok_r(NULL, "/", &save))
			if (vm_scope_name(dir, true, name, len) || vm_scope_name(dir, false, name, len))
				return true;
	}
	return false;
}

/* Whether the task is in cgroup `cgroup` or below it, in some hierarchy. */
static bool task_below(const struct cgroup_tree *t, const char *text, const char *cgroup)
{
	char path[CGROUP_PATH_MAX];
	size_t n = strlen(cgroup);

	for (size_t h = 0; h < t->count; h++)
		if (!cgroup_path_in(&t->hierarchies[h], text, path, sizeof(path)) && !strncmp(path, cgroup, n) &&
		    (path[n] == '\0' || path[n] == '/'))
			return true;
	return false;
}

bool placement_follow(struct placement *a, pid_t tid)
{
	char text[4096], vm[VM_NAME_MAX + 1];
	bool found = false;

	if (!a->tree || !a->with_paths || cgroup_read_task(NULL, tid, text, sizeof(text)) < 0)
		return false;
	bool in_vm = task_vm(a->tree, text, vm, sizeof(vm));
	for (size_t i = 0; i < a->slot_cap; i++) {
		struct placed *pl = &a->slots[i];
		const struct partition_config *p = pl->config;
		/* A vm's scope may be new even when one was known: the VM has started again, with a new number. */
		bool its_vm = p && p->vm && in_vm && !strcmp(p->vm, vm);
		bool its_cgroup = p && p->cgroup && !pl->path && task_below(a->tree, text, p->cgroup);
		if (!its_vm && !its_cgroup)
			continue;
		a->vms_scanned_ns = 0; /* the scope is newer than the last scan */
		placement_resolve(a, i);
		found = found || pl->path != NULL;
	}
	return found;
}

/* A cgroup below a partition's that is another partition's belongs to that one. */
static bool other_partitions(void *ctx, size_t h, const char *path)
{
	return placement_path_taken(ctx, h, path);
}

static int add_pid_threads(struct placement *a, pid_t pid)
{
	pid_t *tids;
	size_t count;
	struct err why = { "" };
	int r = process_threads(NULL, pid, &tids, &count, &why);

	if (r == -ESRCH)
		return 0; /* it has exited; its threads went with it */
	if (r < 0)
		return r;
	r = array_grow((void **)&a->ids, &a->id_cap, a->id_count + count, sizeof(*a->ids), NULL);
	if (r == 0) {
		memcpy(a->ids + a->id_count, tids, count * sizeof(*tids));
		a->id_count += count;
	}
	free(tids);
	return r;
}

/* Sorted, each id once, and with threads = vcpu only the vCPUs. */
static void sort_and_filter(struct placement *a, size_t slot)
{
	bool vcpu_only = a->slots[slot].config->threads == THREADS_VCPU;
	size_t kept = 0;

	thread_ids_sort(a->ids, a->id_count);
	for (size_t i = 0; i < a->id_count; i++) {
		if (kept && a->ids[kept - 1] == a->ids[i])
			continue;
		if (vcpu_only && !placement_takes_vcpu(a, slot, a->ids[i], NULL))
			continue;
		a->ids[kept++] = a->ids[i];
	}
	a->id_count = kept;
}

int placement_list(struct placement *a, size_t slot, struct err *err)
{
	struct placed *pl = &a->slots[slot];
	int r = 0;

	a->id_count = 0;
	if (pl->path) {
		struct err why = { "" };
		r = cgroup_tree_threads(a->tree, pl->hierarchy, pl->path, other_partitions, a, &a->ids, &a->id_count,
					&a->id_cap, &why);
		if (r == -ENOENT) {
			r = 0; /* it went since it was found: the next reconcile says so */
			pl->status->found = false;
		} else if (r < 0) {
			return err_set(err, r, "%s", why.text);
		}
	}
	for (size_t i = 0; r == 0 && i < pl->config->pid_count; i++)
		r = add_pid_threads(a, pl->config->pids[i]);
	if (r < 0)
		return err_set(err, r, "out of memory listing the threads of partition %s", pl->config->name);
	sort_and_filter(a, slot);
	return 0;
}
