/* The placement actuator: every thread of a partition's cgroup, VM or pids goes into the place the
 * control made for it, through the control's thread placer (resctrl: the group's tasks file). A
 * reconcile lists the partition's threads and writes those its group does not hold; a task the
 * kernel reports is written at once when it is a partition's. Where the control has no placer
 * (MPAM over MMIO, the simulator) the threads are counted, never placed, and the log says so once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cgroup/cgroup_ops.h"
#include "backends/cgroup/placement.h"
#include "core/base/grow.h"
#include "core/base/log.h"

static struct placement *placement_of(struct actuator *a)
{
	return (struct placement *)a;
}

static void placement_free(struct actuator *base)
{
	struct placement *a = placement_of(base);

	if (!a)
		return;
	for (size_t i = 0; i < a->slot_cap; i++) {
		free(a->slots[i].path);
		free(a->slots[i].status);
	}
	free(a->slots);
	free(a->ids);
	free(a->tree);
	vm_list_fini(&a->vms);
	name_index_fini(&a->paths);
	name_index_fini(&a->pids);
	free(a);
}

/* An explicit cgroup_root must be a cgroup directory; without one, a host with no cgroups still runs
 * (partitions with pids are placed; those with a cgroup or vm say why they are not). */
static int open_tree(struct placement *a, const char *root, struct err *err)
{
	struct err why = { "" };

	a->tree = calloc(1, sizeof(*a->tree));
	if (!a->tree)
		return err_set(err, -ENOMEM, "out of memory");
	int r = cgroup_tree_open(root, NULL, a->tree, &why);
	if (r == 0)
		return 0;
	free(a->tree);
	a->tree = NULL;
	if (root)
		return err_set(err, r, "%s", why.text);
	snprintf(a->tree_error, sizeof(a->tree_error), "%s", why.text);
	return 0;
}

static int placement_open(const struct config *config, const struct control_shared *shared, struct actuator **ret,
			  struct err *err)
{
	struct placement *a = calloc(1, sizeof(*a));

	if (!a)
		return err_set(err, -ENOMEM, "out of memory");
	a->base.ops = &actuator_placement_ops;
	a->config = config;
	a->placer = shared->placer;
	a->cannot_place = shared->cannot_place ? shared->cannot_place : "the control has no way to place tasks";
	name_index_init(&a->paths);
	name_index_init(&a->pids);
	int r = open_tree(a, config->global.cgroup_root, err);
	if (r < 0) {
		placement_free(&a->base);
		return r;
	}
	*ret = &a->base;
	return 0;
}

static struct placed *open_slot(struct placement *a, size_t index)
{
	return index < a->slot_cap && a->slots[index].config ? &a->slots[index] : NULL;
}

/* One thread into partition `index`'s group; a thread that has exited meanwhile is no miss. */
static void place_one(struct placement *a, size_t index, pid_t tid)
{
	struct placed *pl = &a->slots[index];
	struct err why = { "" };
	int r = a->placer->place(a->placer->ctx, index, tid, &why);

	if (r == 0) {
		pl->status->placements++;
		return;
	}
	if (r == -ESRCH)
		return;
	pl->status->misses++;
	/* Said at the 1st, 2nd, 4th, 8th... miss: a kernel that refuses every thread cannot flood the log. */
	if ((pl->status->misses & (pl->status->misses - 1)) == 0)
		log_error("partition %s: thread %d stays outside its group (%llu miss(es) so far): %s",
			  pl->config->name, (int)tid, (unsigned long long)pl->status->misses, why.text);
	snprintf(pl->status->reason, ERR_TEXT_MAX, "%s", why.text);
}

/* The ids of a->ids that `members` (sorted) does not hold are placed. */
static void place_missing(struct placement *a, size_t index, const pid_t *members, size_t count)
{
	size_t m = 0;

	for (size_t i = 0; i < a->id_count; i++) {
		while (m < count && members[m] < a->ids[i])
			m++;
		if (m == count || members[m] != a->ids[i])
			place_one(a, index, a->ids[i]);
	}
}

static void tell_cannot_place(struct placement *a, const struct placed *pl)
{
	if (a->told_cannot_place)
		return;
	a->told_cannot_place = true;
	log_warning("backend = %s cannot place tasks (%s): partition %s's threads, and every other partition's, are "
		    "counted, not placed",
		    a->config->global.backend, a->cannot_place, pl->config->name);
}

static int placement_reconcile(struct actuator *base, size_t index, struct err *err)
{
	struct placement *a = placement_of(base);
	struct placed *pl = open_slot(a, index);
	pid_t *members = NULL;
	size_t count = 0;

	if (!pl || !pl->status)
		return 0;
	placement_resolve(a, index);
	int r = placement_list(a, index, err);
	if (r < 0)
		return r;
	pl->status->tasks = a->id_count;
	pl->status->places = a->placer != NULL;
	if (!a->placer) {
		tell_cannot_place(a, pl);
		return 0;
	}
	if (a->id_count == 0)
		return 0;
	if ((r = a->placer->members(a->placer->ctx, index, &members, &count, err)) < 0)
		return r;
	place_missing(a, index, members, count);
	free(members);
	return 0;
}

static struct placement_recent *recent_find(struct placement *a, pid_t tid)
{
	for (size_t i = 0; i < PLACEMENT_RECENT; i++)
		if (a->recent[i].tid == tid)
			return &a->recent[i];
	return NULL;
}

static void placement_task_event(struct actuator *base, const struct task_event *ev)
{
	struct placement *a = placement_of(base);
	struct placement_recent *seen = recent_find(a, ev->tid);

	if (ev->kind == TASK_EVENT_EXIT) {
		if (seen)
			seen->tid = 0;
		return;
	}
	if (!a->placer || (ev->kind == TASK_EVENT_COMM && !a->with_vcpu))
		return;
	long slot = placement_match(a, ev);
	/* A VM starts with its program: its scope (or cgroup) is found then, and its threads placed as they
	 * come. */
	if (slot < 0 && ev->kind == TASK_EVENT_EXEC && placement_follow(a, ev->tid))
		slot = placement_match(a, ev);
	if (slot < 0 || (seen && seen->slot == (size_t)slot))
		return;
	const struct placed *pl = &a->slots[slot];
	if (pl->config->threads == THREADS_VCPU &&
	    !placement_takes_vcpu(a, (size_t)slot, ev->tid, ev->kind == TASK_EVENT_COMM ? ev->comm : NULL))
		return;
	uint64_t before = pl->status->placements;
	place_one(a, (size_t)slot, ev->tid);
	if (pl->status->placements != before) {
		a->recent[a->recent_next] = (struct placement_recent){ .tid = ev->tid, .slot = (size_t)slot };
		a->recent_next = (a->recent_next + 1) % PLACEMENT_RECENT;
	}
}

/* How many open partitions have pids, place vCPUs only, have a cgroup or VM: events skip what none
 * needs. */
static void count_kinds(struct placement *a, size_t slot, const struct partition_config *p, bool opened)
{
	bool pids = p->pid_count > 0, vcpu = p->threads == THREADS_VCPU && (p->cgroup || p->vm || p->pid_count);

	placement_pids_index(a, slot, p, opened);
	if (opened) {
		a->with_pids += pids;
		a->with_vcpu += vcpu;
		a->with_paths += p->vm || p->cgroup;
	} else {
		a->with_pids -= pids;
		a->with_vcpu -= vcpu;
		a->with_paths -= p->vm || p->cgroup;
	}
}

static void placement_partition_close(struct actuator *base, size_t index)
{
	struct placement *a = placement_of(base);
	struct placed *pl = open_slot(a, index);

	if (!pl)
		return;
	count_kinds(a, index, pl->config, false);
	placement_path_set(a, index, NULL, 0);
	free(pl->status);
	*pl = (struct placed){ .config = NULL };
	for (size_t i = 0; i < PLACEMENT_RECENT; i++) /* the slot may be given to another partition */
		if (a->recent[i].tid && a->recent[i].slot == index)
			a->recent[i].tid = 0;
}

/* The first reconcile right away: the threads already there are placed before the first tick. */
static int placement_partition_open(struct actuator *base, size_t index, const struct partition_ref *ref,
				    struct err *err)
{
	struct placement *a = placement_of(base);
	struct err why = { "" };

	if (index == SIZE_MAX || array_grow((void **)&a->slots, &a->slot_cap, index + 1, sizeof(*a->slots), NULL) < 0)
		return err_set(err, -ENOMEM, "out of memory for partition slot %zu", index);
	placement_partition_close(base, index);
	struct placed *pl = &a->slots[index];
	struct placement_status *status = NULL;
	if (placement_has_source(ref->config) && !(status = calloc(1, sizeof(*status))))
		return err_set(err, -ENOMEM, "out of memory for partition %s's placement", ref->config->name);
	*pl = (struct placed){ .config = ref->config, .status = status };
	if (status)
		placement_describe(pl);
	count_kinds(a, index, pl->config, true);
	if (placement_reconcile(base, index, &why) < 0) {
		snprintf(pl->status->reason, ERR_TEXT_MAX, "%s", why.text);
		log_error("partition %s: placing its threads: %s", pl->config->name, why.text);
	}
	return 0;
}

static const struct placement_status *placement_status_of(struct actuator *base, size_t index)
{
	struct placed *pl = open_slot(placement_of(base), index);

	return pl ? pl->status : NULL;
}

/* With every control: where it has no placer, threads are counted. */
const struct actuator_ops actuator_placement_ops = {
	.name = "placement",
	.any_control = true,
	.open = placement_open,
	.free = placement_free,
	.partition_open = placement_partition_open,
	.partition_close = placement_partition_close,
	.reconcile = placement_reconcile,
	.task_event = placement_task_event,
	.placement = placement_status_of,
};
