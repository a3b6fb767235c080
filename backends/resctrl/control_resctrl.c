/* backend = resctrl: one control group per partition under the resctrl root, named group_prefix +
 * the partition's name, created or adopted; its tasks and CPUs; MB and L3 schemata. With classes =
 * shared a partition is a monitoring group in a class group instead (control_classes.c). */
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backends/resctrl/control_resctrl_internal.h"
#include "backends/resctrl/resctrl.h"
#include "backends/resctrl/resctrl_ops.h"
#include "core/base/grow.h"
#include "core/base/log.h"
#include "core/base/name_index.h"

/* Room for slot `index`: a partition added after the start gets a group like the others. */
int resctrl_control_grow(struct resctrl_control *rc, size_t index, struct err *err)
{
	size_t first = rc->slots, ours_cap = rc->slots, class_cap = rc->slots, unmeasured_cap = rc->slots;

	if (index < rc->slots)
		return 0;
	if (index == SIZE_MAX ||
	    array_grow((void **)&rc->groups, &rc->slots, index + 1, sizeof(*rc->groups), &first) < 0 ||
	    array_grow((void **)&rc->ours, &ours_cap, rc->slots, sizeof(*rc->ours), NULL) < 0 ||
	    array_grow((void **)&rc->class_of, &class_cap, rc->slots, sizeof(*rc->class_of), NULL) < 0 ||
	    array_grow((void **)&rc->unmeasured, &unmeasured_cap, rc->slots, sizeof(*rc->unmeasured), NULL) < 0)
		return err_set(err, -ENOMEM, "out of memory for partition slot %zu", index);
	for (size_t i = first; i < rc->slots; i++)
		rc->groups[i].dirfd = -1;
	return 0;
}

static struct resctrl_control *rc_of(struct control *c)
{
	return (struct resctrl_control *)c;
}

static void rc_free(struct control *c)
{
	struct resctrl_control *rc = rc_of(c);

	if (!rc)
		return;
	for (size_t i = 0; rc->groups && i < rc->slots; i++)
		resctrl_group_close(&rc->groups[i]);
	free(rc->groups);
	free(rc->ours);
	for (size_t i = 0; rc->unmeasured && i < rc->slots; i++)
		free(rc->unmeasured[i]);
	free(rc->unmeasured);
	resctrl_classes_free(rc);
	name_index_fini(&rc->adopted);
	resctrl_fs_free(rc->fs);
	free(rc);
}

static int open_control(const struct config *config, bool ask_kernel, struct control **ret, struct err *err)
{
	struct resctrl_control *rc = calloc(1, sizeof(*rc));
	size_t n = config->partition_count;

	if (!rc)
		return err_set(err, -ENOMEM, "out of memory");
	rc->base.ops = &control_resctrl_ops;
	rc->config = config;
	name_index_init(&rc->adopted);
	int r = resctrl_control_grow(rc, n ? n - 1 : 0, err);
	if (r == 0)
		r = resctrl_fs_new(config->global.resctrl_root, ask_kernel, &rc->fs, err);
	if (r < 0) {
		rc_free(&rc->base);
		return r;
	}
	*ret = &rc->base;
	return 0;
}

/* Linux's MPAM driver leaves MBW_MAX.HARDLIM clear and offers no way to set it: through resctrl an
 * mb_max is always soft (drivers/resctrl/mpam_devices.c writes MBW_MAX without HARDLIM). Said once at
 * start, so that mb_max_mode = hard never reads as if it held here. */
static void say_soft_limits(const struct config *config, const struct resctrl_info *info)
{
	if (config->global.mb_max_mode == MB_MAX_HARD && info->mb_present &&
	    info->mb_ladder.kind == LADDER_RESCTRL_MPAM)
		log_warning("resctrl: mb_max_mode = hard is for MSCs mpamd programs: through resctrl the kernel's "
			    "MPAM driver keeps every mb_max soft (HARDLIM clear), so a partition over its mb_max "
			    "still gets bandwidth nobody within theirs wants");
}

static int rc_open(const struct config *config, struct clock *clock, struct control **ret, struct err *err)
{
	(void)clock;
	int r = open_control(config, true, ret, err);

	if (r == 0)
		say_soft_limits(config, &rc_of(*ret)->fs->info);
	return r;
}

/* A dry run asks the kernel nothing, not even what it refuses (AMD's MB maximum: mb_ladder.c). */
static int rc_open_to_plan(const struct config *config, struct clock *clock, struct control **ret, struct err *err)
{
	(void)clock;
	return open_control(config, false, ret, err);
}

static void rc_probe(struct control *c, struct control_caps *caps)
{
	const struct resctrl_info *info = &rc_of(c)->fs->info;

	memset(caps, 0, sizeof(*caps));
	caps->partitions_max = info->num_closids;
	caps->partitions_reserved = 1 + info->io_alloc; /* the default group's, io_alloc's */
	/* One MB resource: every domain holds the same ladder; none without MB (Arm MPAM mounted with
	 * cdp has none); resctrl has no minimum (no min_ladder). */
	if (info->mb_present && info->mb_units != MB_MBPS)
		caps->max_ladder = info->mb_ladder;
	caps->has_mb_min = false;
	caps->mb_kernel_mbps = info->mb_present && info->mb_units == MB_MBPS;
	caps->cbm_bits = info->l3.cbm_bits;
	/* The MB line's domains, in its order: limits are per domain in the same order. */
	for (unsigned i = 0; info->mb_present && i < info->mb_domain_count && i < CONTROL_MAX_DOMAINS; i++) {
		struct control_domain *d = &caps->domains[caps->domain_count++];
		d->id = info->mb_domain_ids[i];
		d->id_space = DOMAIN_SPACE_RESCTRL;
		snprintf(d->name, sizeof(d->name), "MB domain %u", info->mb_domain_ids[i]);
		d->max_ladder = caps->max_ladder;
	}
}

static struct resctrl_group *open_group_of(struct resctrl_control *rc, size_t index)
{
	return index < rc->slots && rc->groups[index].dirfd >= 0 ? &rc->groups[index] : NULL;
}

/* Placement's way in: a thread id written to the partition's group's tasks file. */
static int rc_place(void *ctx, size_t index, pid_t tid, struct err *err)
{
	struct resctrl_control *rc = ctx;
	struct resctrl_group *g = open_group_of(rc, index);

	if (!g)
		return err_set(err, -ENOENT, "partition %zu has no group open", index);
	return resctrl_group_place(rc->fs->rootfd, g, tid, err);
}

static int rc_members(void *ctx, size_t index, pid_t **ret, size_t *ret_count, struct err *err)
{
	struct resctrl_group *g = open_group_of(ctx, index);

	if (!g)
		return err_set(err, -ENOENT, "partition %zu has no group open", index);
	return resctrl_group_tasks(g, ret, ret_count, err);
}

static void rc_share(struct control *c, struct control_shared *ret)
{
	struct resctrl_control *rc = rc_of(c);

	rc->placer = (struct thread_placer){ .ctx = rc, .place = rc_place, .members = rc_members };
	ret->resctrl = rc->fs;
	ret->placer = &rc->placer;
}

/* While resctrl is not mounted (rootfd -1) a group can be neither made nor removed: the kernel
 * removed every group when it was unmounted. */
static int check_mounted(const struct resctrl_control *rc, struct err *err)
{
	if (rc->fs->rootfd >= 0)
		return 0;
	return err_set(err, -ENODEV, "resctrl is not mounted at %s: waiting for it to be mounted again", rc->fs->root);
}

/* Creates or adopts the partition's group and places its tasks and CPUs: done, or only planned. */
static int open_group(struct resctrl_control *rc, const struct partition_config *p, struct resctrl_group *g,
		      struct resctrl_plan *plan, struct err *err)
{
	int rootfd = rc->fs->rootfd;
	char name[sizeof(g->name)];
	struct resctrl_room room = plan ? plan->room : resctrl_control_room(rc);
	int r;

	snprintf(name, sizeof(name), "%s%s", rc->config->global.group_prefix, p->name);
	if ((r = resctrl_group_open(rootfd, name, &room, g, plan, err)) < 0)
		return r;
	if (!plan)
		log_info("partition %s: %s resctrl group %s", p->name, g->created ? "created" : "adopted", name);
	if (p->pid_count && (r = resctrl_group_add_tasks(rootfd, g, p->pids, p->pid_count, plan, err)) < 0)
		return r;
	if (p->cpus && (r = resctrl_group_set_cpus(rootfd, g, p->cpus, plan, err)) < 0)
		return r;
	return 0;
}

static int rc_partition_open(struct control *c, size_t index, const struct partition_config *p,
			     struct partition_ref *ret, struct err *err)
{
	struct resctrl_control *rc = rc_of(c);
	int r = resctrl_control_grow(rc, index, err);

	if (r < 0)
		return r;
	struct resctrl_group *g = &rc->groups[index];
	resctrl_group_close(g); /* an open of an open slot starts again */
	if ((r = check_mounted(rc, err)) < 0)
		return r;
	if ((r = resctrl_check_partid_source(rc->fs, rc->config, p, err)) < 0)
		return r; /* before its group is made: nothing could count it */
	r = rc->shared ? resctrl_class_member_open(rc, index, p, g, err) : open_group(rc, p, g, NULL, err);
	if (r < 0)
		return r;
	const char *unmeasured = rc->shared ? resctrl_class_unmeasured(rc, index) : NULL;
	/* A partition in its class's group has no group of its own (its mkdir would have adopted it), so
	 * none it made earlier is left to remove; and it adopted nothing: the class group is the class's. */
	rc->ours[index] = unmeasured ? false : rc->ours[index] || g->created;
	if (!g->created && !unmeasured && name_index_add(&rc->adopted, g->name, index) == -ENOMEM)
		return err_set(err, -ENOMEM, "out of memory");
	/* On MPAM a group's CLOSID is the PARTID its traffic carries; resctrl shows it under -o debug. */
	*ret = (struct partition_ref){
		.config = p, .group = g->name, .group_dirfd = g->dirfd, .hw_id = g->hw_id, .unmeasured = unmeasured
	};
	return 0;
}

static void rc_partition_close(struct control *c, size_t index)
{
	struct resctrl_control *rc = rc_of(c);

	if (index < rc->slots)
		resctrl_group_close(&rc->groups[index]);
}

static int rc_partition_remove(struct control *c, size_t index, struct err *err)
{
	struct resctrl_control *rc = rc_of(c);

	if (index >= rc->slots)
		return 0;
	struct resctrl_group *g = &rc->groups[index];
	bool ours = rc->ours[index];
	bool in_class_group = resctrl_class_unmeasured(rc, index) != NULL;
	rc->ours[index] = false;
	resctrl_class_measured(rc, index);
	resctrl_group_close(g);
	if (in_class_group) {
		/* Its group is its class's: nothing of its own to remove. Its tasks stay in the class group,
		 * where a monitoring group's rmdir puts them too (the kernel moves them to the parent), until
		 * the class is released and its rmdir puts them in the default group. */
		log_info("resctrl group %s is its class's, not removed with a partition in it: that partition's "
			 "tasks stay there until the class is released",
			 g->name);
		return 0;
	}
	if (!g->name[0] || rc->fs->rootfd < 0)
		return 0; /* never made, or resctrl (and every group with it) went */
	if (!ours) {
		struct stat st;
		/* A group that was never made (its mkdir failed) has nothing to leave or remove. */
		if (fstatat(rc->fs->rootfd, g->name, &st, 0) == 0)
			log_info("resctrl group %s is left in place: mpamd adopted it, it did not create it", g->name);
		return 0;
	}
	/* rmdir gives the CLOSID and RMID back; the group's tasks go back to the default group. */
	if (unlinkat(rc->fs->rootfd, g->name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return err_set(err, -errno, "cannot remove resctrl group %s: %s", g->name, strerror(errno));
	resctrl_counts_removed(rc, !rc->shared);
	log_info("removed resctrl group %s", g->name);
	return 0;
}

/* What the pool keeps: the groups of the partitions in use, those open now, those adopted. */
static int keep_index(struct resctrl_control *rc, const char *const *keep, size_t count, struct name_index *ret)
{
	char name[sizeof(rc->groups[0].name)];
	int r = 0;

	name_index_init(ret);
	/* Shared: the partitions' groups are monitoring groups in the classes, which are kept while open
	 * (a control group named after a partition is an earlier configuration's). */
	if (rc->shared) {
		count = 0;
		r = resctrl_classes_keep(rc, ret);
	}
	for (size_t i = 0; i < count && r != -ENOMEM; i++) {
		snprintf(name, sizeof(name), "%s%s", rc->config->global.group_prefix, keep[i]);
		r = name_index_add(ret, name, i);
	}
	for (size_t i = 0; i < rc->slots && r != -ENOMEM; i++)
		if (rc->groups[i].dirfd >= 0)
			r = name_index_add(ret, rc->groups[i].name, i);
	for (size_t i = 0; i < rc->adopted.cap && r != -ENOMEM; i++)
		if (rc->adopted.slots[i].name)
			r = name_index_add(ret, rc->adopted.slots[i].name, i);
	return r == -ENOMEM ? -ENOMEM : 0;
}

static int rc_tidy(struct control *c, const char *const *keep, size_t count, struct err *err)
{
	struct resctrl_control *rc = rc_of(c);
	struct name_index index;

	if (rc->fs->rootfd < 0)
		return 0; /* unmounted: every group went with it */
	resctrl_counts_forget(rc);
	int r = keep_index(rc, keep, count, &index);
	if (r == 0)
		r = resctrl_pool_tidy(rc->fs->rootfd, rc->config->global.group_prefix, &index, err);
	if (r >= 0 && rc->shared) {
		int mon = resctrl_classes_tidy(rc, &index, err);
		r = mon < 0 ? (r ? r : mon) : r + mon; /* how many went, else the first error */
	}
	if (r == -ENOMEM)
		err_set(err, r, "out of memory");
	name_index_fini(&index);
	return r;
}

/* resctrl unmounted (every group went with it) and perhaps mounted again: the control and the monitor
 * share the mount, so both find the new root here. Asked every tick: when it went, the engine closes
 * every partition (the monitor's counter files, then the groups here), so that nothing holds the old
 * tree, and opens them again once this says resctrl is back. */
static int rc_recover(struct control *c, struct err *err)
{
	return resctrl_fs_reopen(rc_of(c)->fs, err);
}

static int rc_apply(struct control *c, size_t index, const struct partition_limits *limits,
		    struct partition_limits *effective, struct err *err)
{
	struct resctrl_control *rc = rc_of(c);

	if (index >= rc->slots || rc->groups[index].dirfd < 0)
		return err_set(err, -ENOENT, "partition %zu is not open", index);
	if (rc->shared)
		return err_set(err, -EOPNOTSUPP, "%s is in a class: its class holds its limits",
			       rc->groups[index].name);
	return resctrl_group_apply(rc->fs->rootfd, &rc->fs->info, &rc->groups[index], limits, effective, NULL, err);
}

/* The groups there, counted again unless classes are shared and the count is kept (see `counted`). */
static void count_groups(struct resctrl_control *rc)
{
	if (rc->shared && rc->counted.known && rc->counted.mounts == rc->fs->mounts)
		return;
	rc->counted.known = true;
	rc->counted.mounts = rc->fs->mounts;
	rc->counted.groups = resctrl_count_groups(rc->fs->rootfd);
	rc->counted.rmid_holders = resctrl_count_rmid_holders(rc->fs->rootfd);
}

void resctrl_counts_opened(struct resctrl_control *rc, const struct resctrl_group *g, bool control_group, int r)
{
	if (r < 0 && r != -ENOSPC)
		rc->counted.known = false;
	if (r < 0 || !g->created)
		return;
	rc->counted.groups += control_group;
	rc->counted.rmid_holders++;
}

void resctrl_counts_removed(struct resctrl_control *rc, bool control_group)
{
	if (control_group || !rc->counted.rmid_holders)
		rc->counted.known = false;
	else
		rc->counted.rmid_holders--;
}

void resctrl_counts_forget(struct resctrl_control *rc)
{
	rc->counted.known = false;
}

/* The CLOSIDs a new group may still take: resctrl's, less the default group's, every existing
 * control group's (mpamd's and other tools') and those of the groups planned before. */
static unsigned closids_left(struct resctrl_control *rc)
{
	unsigned used = rc->counted.groups + rc->planned_groups + rc->fs->info.io_alloc;
	unsigned total = rc->fs->info.num_closids;

	return used < total ? total - used : 0;
}

/* monitor = auto may read the MSCs here, and then could not count a partition whose PARTID nothing
 * tells: not a refusal, as the monitor may not be opened at all (mpamd then measures nothing). */
static void note_unknown_partid(struct resctrl_control *rc, struct resctrl_plan *plan)
{
	char advice[512];

	resctrl_partid_advice(rc->fs, advice, sizeof(advice));
	json_array_append_new(plan->notes, json_sprintf("monitor = auto reads the MSCs' MBWU monitors here if it "
							"can map them; they count a group by its PARTID, which "
							"nothing tells (no ctrl_hw_id, no partid key): %s",
							advice));
}

/* Likewise the RMIDs: every group holds one (mpamd's new ones too); those in limbo cannot be seen. */
static unsigned rmids_left(struct resctrl_control *rc)
{
	unsigned used = rc->counted.rmid_holders + rc->planned_groups;
	unsigned total = rc->fs->info.num_rmids;

	return used < total ? total - used : 0;
}

static int rc_plan(struct control *c, size_t index, const struct partition_config *p,
		   const struct partition_limits *limits, struct control_plan *ret, struct err *err)
{
	struct resctrl_control *rc = rc_of(c);
	struct resctrl_plan plan = {
		.root = rc->fs->root, .room = resctrl_control_room(rc), .writes = json_array(), .notes = json_array()
	};
	struct resctrl_group g = { .dirfd = -1 };
	int r = plan.writes && plan.notes ? 0 : err_set(err, -ENOMEM, "out of memory");

	(void)index;
	if (r == 0)
		r = resctrl_check_partid_source(rc->fs, rc->config, p, err);
	if (r == 0)
		r = open_group(rc, p, &g, &plan, err);
	if (r == 0)
		r = resctrl_group_apply(rc->fs->rootfd, &rc->fs->info, &g, limits, &ret->effective, &plan, err);
	if (r == 0 && g.created)
		rc->planned_groups++;
	if (r == 0 && resctrl_msc_may_count_groups(&rc->fs->info, rc->config) && resctrl_partid_unknown(rc->fs, p))
		note_unknown_partid(rc, &plan);
	if (r == 0 && (p->cgroup || p->vm))
		json_array_append_new(plan.notes,
				      json_sprintf("%s %s: its threads are placed in the group while mpamd runs, each "
						   "as it starts (not planned here)",
						   p->cgroup ? "cgroup" : "vm", p->cgroup ? p->cgroup : p->vm));
	resctrl_group_close(&g);
	ret->writes = plan.writes;
	ret->notes = plan.notes;
	if (r < 0)
		control_plan_fini(ret);
	return r;
}

struct resctrl_room resctrl_control_room(struct resctrl_control *rc)
{
	const struct resctrl_info *info = &rc->fs->info;

	count_groups(rc);
	return (struct resctrl_room){ .closids = info->num_closids,
				      .io_alloc = info->io_alloc,
				      .closids_left = closids_left(rc),
				      .rmids_counted = info->mon_present && info->num_rmids > 0,
				      .rmids = info->num_rmids,
				      .rmids_left = rmids_left(rc),
				      .mon_res = info->mon_res };
}

static int rc_validate(struct control *c, const struct partition_limits *limits, struct err *err)
{
	return resctrl_check_limits(&rc_of(c)->fs->info, limits, err);
}

static int rc_partition_tasks(struct control *c, size_t index, size_t *ret)
{
	struct resctrl_group *g = open_group_of(rc_of(c), index);
	struct err err = { "" };
	pid_t *ids;

	if (!g)
		return -ENOENT;
	int r = resctrl_group_tasks(g, &ids, ret, &err);
	if (r == 0)
		free(ids);
	return r;
}

static json_t *rc_describe(struct control *c)
{
	struct resctrl_control *rc = rc_of(c);

	return resctrl_info_to_json(&rc->fs->info, rc->config->global.resctrl_root);
}

const struct control_ops control_resctrl_ops = {
	.name = "resctrl",
	.description = "the kernel's resctrl file system (Intel RDT, AMD QoS, Arm MPAM)",
	.claims = resctrl_claim_root,
	.open = rc_open,
	.open_to_plan = rc_open_to_plan,
	.free = rc_free,
	.probe = rc_probe,
	.share = rc_share,
	.partition_open = rc_partition_open,
	.partition_close = rc_partition_close,
	.partition_remove = rc_partition_remove,
	.tidy = rc_tidy,
	.recover = rc_recover,
	.validate = rc_validate,
	.apply = rc_apply,
	.plan = rc_plan,
	.describe = rc_describe,
	.describe_print = resctrl_describe_print,
	.partition_tasks = rc_partition_tasks,
	.classes = &resctrl_class_ops,
};
