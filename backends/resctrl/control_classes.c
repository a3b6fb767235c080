/* classes = shared on resctrl: each class is a control group PREFIXc<N> (a CLOSID) holding the class's
 * limits, and each partition a monitoring group CLASS/mon_groups/PREFIX<name> with an RMID of its own,
 * so every partition is measured by itself while partitions with equal limits share a CLOSID. The
 * engine decides which partition is in which class (core/engine/engine_classes.c); this file makes the
 * class groups, writes their schemata and moves partitions between them.
 *
 * A move renames the monitoring group into the new class's mon_groups (Linux 6.2 on): its RMID, its
 * counts and its tasks go with it, so its count continues. Where a rename cannot keep the counts (Arm
 * MPAM: resctrl_rename_keeps_counts) or the kernel refuses it, a new monitoring group is made in the
 * new class, the tasks are moved there and the old group is removed: its count starts afresh, which
 * the engine's monitors are told (CLASS_MOVE_ANEW), so no sample spans the two groups.
 *
 * On Arm MPAM an RMID is a PMG of its group's PARTID (drivers/resctrl/mpam_resctrl.c rmid_idx_encode;
 * fs/resctrl/monitor.c resctrl_find_free_rmid takes only the CLOSID's own): a class has PMG_MAX + 1
 * monitoring ids, often 2, one its own group's. A partition whose monitoring group the kernel refuses
 * for want of one is put in its class's group itself: open and limited by its class, but measured
 * only as part of it. That group's mon_data counts the class group and all its monitoring groups
 * (fs/resctrl/monitor.c mon_event_count), so it is never the partition's: partition_ref.unmeasured
 * says why, and no monitor is given the partition. MMIO monitors cannot tell it apart either: they
 * too count by PARTID and PMG. A move of such a partition is a task move; its removal removes nothing
 * (the class group is the class's) and leaves its tasks in the class group, as the rmdir of a
 * monitoring group does (the kernel moves them to the parent), until the class is released. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "backends/resctrl/control_resctrl_internal.h"
#include "core/base/grow.h"
#include "core/base/log.h"
#include "core/config/config.h"

static struct resctrl_control *rc_of(struct control *c)
{
	return (struct resctrl_control *)c;
}

bool resctrl_rename_keeps_counts(const struct resctrl_info *info)
{
	struct utsname u;

	/* A real mount is the running kernel's: its architecture says. */
	if (info->is_resctrl_mount && uname(&u) == 0)
		return !strcmp(u.machine, "x86_64") || !strcmp(u.machine, "i686") || !strcmp(u.machine, "i386");
	/* Otherwise what the files tell: Intel's MB has a thread_throttle_mode, AMD's is in absolute
	 * units; MPAM has neither. */
	return info->thread_throttle_mode[0] != '\0' || info->mb_units == MB_ABSOLUTE;
}

/* The class groups of an earlier mount are gone with it: their directories are let go. */
static void forget_old_mount(struct resctrl_control *rc)
{
	if (rc->class_mounts == rc->fs->mounts)
		return;
	for (size_t c = 0; c < rc->classes_cap; c++)
		resctrl_group_close(&rc->classes[c]);
	rc->class_mounts = rc->fs->mounts;
}

static int grow_classes(struct resctrl_control *rc, unsigned cls, struct err *err)
{
	size_t first;

	if (cls < rc->classes_cap)
		return 0;
	if (array_grow((void **)&rc->classes, &rc->classes_cap, (size_t)cls + 1, sizeof(*rc->classes), &first) < 0)
		return err_set(err, -ENOMEM, "out of memory for class %u", cls);
	for (size_t c = first; c < rc->classes_cap; c++)
		rc->classes[c] = (struct resctrl_group){ .dirfd = -1, .hw_id = -1 };
	return 0;
}

/* Class `cls`'s group, made (or adopted) when it is not open: 0, -ENOSPC without a CLOSID or RMID. */
static int class_group(struct resctrl_control *rc, unsigned cls, struct resctrl_group **ret, struct err *err)
{
	char name[RESCTRL_GROUP_PATH_MAX];
	int r;

	forget_old_mount(rc);
	if (rc->fs->rootfd < 0)
		return err_set(err, -ENODEV, "resctrl is not mounted at %s", rc->fs->root);
	if ((r = grow_classes(rc, cls, err)) < 0)
		return r;
	struct resctrl_group *g = &rc->classes[cls];
	*ret = g;
	if (g->dirfd >= 0)
		return 0;
	struct resctrl_room room = resctrl_control_room(rc);
	snprintf(name, sizeof(name), "%sc%u", rc->config->global.group_prefix, cls);
	r = resctrl_group_open(rc->fs->rootfd, name, &room, g, NULL, err);
	resctrl_counts_opened(rc, g, true, r);
	if (r < 0)
		return r;
	log_info("class %u: %s resctrl group %s", cls, g->created ? "created" : "adopted", name);
	return 0;
}

static int class_share(struct control *c, struct err *err)
{
	struct resctrl_control *rc = rc_of(c);

	(void)err;
	rc->shared = true;
	rc->class_mounts = rc->fs->mounts;
	return 0;
}

static void class_room(struct control *c, bool recount, struct class_room *ret)
{
	struct resctrl_control *rc = rc_of(c);
	struct resctrl_room room = { 0 };

	if (recount)
		resctrl_counts_forget(rc);
	if (rc->fs->rootfd >= 0)
		room = resctrl_control_room(rc);

	*ret = (struct class_room){ .left = room.closids_left,
				    .monitors_counted = room.rmids_counted,
				    .monitors_name = "RMIDs",
				    .monitors = room.rmids,
				    .monitors_used = room.rmids - room.rmids_left };
	for (size_t cls = 0; cls < rc->classes_cap; cls++)
		ret->held += rc->classes[cls].dirfd >= 0;
}

static void class_set(struct control *c, size_t index, unsigned cls)
{
	struct resctrl_control *rc = rc_of(c);
	struct err err = { "" };

	/* Out of memory here, the slot opens in class 0 (partition_open then says it is out of memory). */
	if (resctrl_control_grow(rc, index, &err) == 0)
		rc->class_of[index] = cls;
}

/* What apply fails with when the class's group went (removed by someone else, resctrl remounted). */
static bool group_gone(int r)
{
	return r == -ENOENT || r == -ENODEV || r == -ESTALE || r == -ENOTCONN;
}

static int class_apply(struct control *c, unsigned cls, const struct partition_limits *limits,
		       struct partition_limits *effective, struct err *err)
{
	struct resctrl_control *rc = rc_of(c);
	struct resctrl_group *g;
	int r = class_group(rc, cls, &g, err);

	if (r == 0)
		r = resctrl_group_apply(rc->fs->rootfd, &rc->fs->info, g, limits, effective, NULL, err);
	if (group_gone(r) && rc->fs->rootfd >= 0) {
		/* Made again: its partitions' groups went with it, which the engine finds when it reads them. */
		resctrl_group_close(g);
		r = class_group(rc, cls, &g, err);
		if (r == 0)
			r = resctrl_group_apply(rc->fs->rootfd, &rc->fs->info, g, limits, effective, NULL, err);
	}
	return r;
}

static int class_release(struct control *c, unsigned cls, struct err *err)
{
	struct resctrl_control *rc = rc_of(c);

	if (cls >= rc->classes_cap || rc->classes[cls].dirfd < 0)
		return 0;
	struct resctrl_group *g = &rc->classes[cls];
	resctrl_group_close(g);
	if (!g->created || rc->fs->rootfd < 0)
		return 0; /* adopted: left as it was */
	resctrl_counts_removed(rc, true);
	if (unlinkat(rc->fs->rootfd, g->name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return err_set(err, -errno, "cannot remove class group %s: %s", g->name, strerror(errno));
	log_info("class %u: removed resctrl group %s (no partition is in it)", cls, g->name);
	return 0;
}

/* CLASS/mon_groups/LEAF (LEAF: PREFIX<name>): 0, or -ENAMETOOLONG (a class name and a partition name
 * within the configuration's limits always fit). */
static int member_path(const struct resctrl_group *cls, const char *leaf, char *buf, size_t len, struct err *err)
{
	int n = snprintf(buf, len, "%s/mon_groups/%s", cls->name, leaf);

	if (n < 0 || (size_t)n >= len)
		return err_set(err, -ENAMETOOLONG, "%s/mon_groups/%s: too long", cls->name, leaf);
	return 0;
}

const char *resctrl_class_unmeasured(const struct resctrl_control *rc, size_t index)
{
	return index < rc->slots && rc->unmeasured[index] && rc->unmeasured[index][0] ? rc->unmeasured[index] : NULL;
}

void resctrl_class_measured(struct resctrl_control *rc, size_t index)
{
	if (index < rc->slots && rc->unmeasured[index])
		rc->unmeasured[index][0] = '\0';
}

/* Slot `index`'s reason buffer, had before its group changes, so that what the slot holds is always
 * told (a class group taken for the partition's own would be removed with it): 0 or -ENOMEM. */
static int unmeasured_buffer(struct resctrl_control *rc, size_t index, struct err *err)
{
	if (!rc->unmeasured[index] && !(rc->unmeasured[index] = calloc(1, RESCTRL_UNMEASURED_MAX)))
		return err_set(err, -ENOMEM, "out of memory");
	return 0;
}

/* Slot `index` (its buffer had) is in its class's group because of `why`, or ("") in its own. */
static void set_unmeasured(struct resctrl_control *rc, size_t index, const char *why)
{
	snprintf(rc->unmeasured[index], RESCTRL_UNMEASURED_MAX, "%s", why);
}

/* A monitoring group refused for want of an RMID (-ENOSPC: none left by mpamd's count; -EAGAIN: the
 * kernel's "Out of RMIDs" where the count showed some) on a host whose RMIDs are per CLOSID (MPAM:
 * where a rename cannot keep counts, the RMID is a PMG of the PARTID). RMIDs in limbo are -EBUSY: they
 * come back, so that stays a refusal, as does any elsewhere, where RMIDs are one pool for all groups
 * and the class's own group has none more to offer. */
static bool class_has_no_pmg(const struct resctrl_control *rc, int r)
{
	return (r == -ENOSPC || r == -EAGAIN) && !resctrl_rename_keeps_counts(&rc->fs->info);
}

/* `g` is class group `cg` itself, with a directory of its own (closed with the partition's group). */
static int seat_in_class_group(const struct resctrl_group *cg, struct resctrl_group *g, struct err *err)
{
	int fd = fcntl(cg->dirfd, F_DUPFD_CLOEXEC, 0);

	if (fd < 0)
		return err_set(err, -errno, "%s: %s", cg->name, strerror(errno));
	*g = *cg;
	g->dirfd = fd;
	g->created = false; /* the class's, never the partition's to remove */
	return 0;
}

/* Partition `name`'s group in class `cls` (`cg`): a monitoring group of its own, or where the class's
 * PARTID has no PMG left for one, the class's group itself, `why` (RESCTRL_UNMEASURED_MAX bytes) then
 * saying so ("" otherwise). `again`: it is in the class's group already and asks for a group of its
 * own once more: 1, and nothing done, when there is still no PMG for one (or none out of limbo). */
static int open_in_class(struct resctrl_control *rc, const char *name, unsigned cls, const struct resctrl_group *cg,
			 struct resctrl_group *g, char *why, bool again, struct err *err)
{
	char leaf[RESCTRL_GROUP_PATH_MAX], path[RESCTRL_GROUP_PATH_MAX], partid[32];
	struct err refused = { "" };
	int r;

	why[0] = '\0';
	snprintf(leaf, sizeof(leaf), "%s%s", rc->config->global.group_prefix, name);
	if ((r = member_path(cg, leaf, path, sizeof(path), err)) < 0)
		return r;
	struct resctrl_room room = resctrl_control_room(rc);
	r = resctrl_mon_group_open(rc->fs->rootfd, path, cg->dirfd, &room, g, &refused);
	resctrl_counts_opened(rc, g, false, r);
	if (again && (class_has_no_pmg(rc, r) || r == -EBUSY)) { /* -EBUSY: every free one is in limbo */
		log_debug("partition %s: still no PMG for a group of its own in class %u: %s", name, cls, refused.text);
		return 1;
	}
	if (class_has_no_pmg(rc, r)) {
		if (cg->hw_id >= 0)
			snprintf(partid, sizeof(partid), "PARTID %ld", cg->hw_id);
		else
			snprintf(partid, sizeof(partid), "its PARTID");
		snprintf(why, RESCTRL_UNMEASURED_MAX,
			 "measured only as part of class %u: %s has no PMG left for a group of its own", cls, partid);
		log_warning("partition %s: %s; in class group %s, limited by its class, %s", name, refused.text,
			    cg->name, why);
		return seat_in_class_group(cg, g, err);
	}
	if (r < 0)
		return err_set(err, r, "%s", refused.text);
	log_info("partition %s: %s resctrl monitoring group %s", name, g->created ? "created" : "adopted", path);
	g->hw_id = cg->hw_id; /* its traffic carries its class's CLOSID (on MPAM the PARTID) */
	return 0;
}

int resctrl_class_member_open(struct resctrl_control *rc, size_t index, const struct partition_config *p,
			      struct resctrl_group *g, struct err *err)
{
	char why[RESCTRL_UNMEASURED_MAX];
	struct resctrl_group *cg;
	unsigned cls = rc->class_of[index];
	int r;

	if (p->cpus)
		return err_set(err, -EOPNOTSUPP,
			       "cpus: a partition in a class (classes = shared) is a monitoring group, which can "
			       "only monitor CPUs its class's group has, and class groups have none; use "
			       "classes = own for a partition with cpus");
	if ((r = unmeasured_buffer(rc, index, err)) < 0 || (r = class_group(rc, cls, &cg, err)) < 0)
		return r;
	if ((r = open_in_class(rc, p->name, cls, cg, g, why, false, err)) < 0)
		return r;
	/* Set only now: until a group replaces it, the one the slot had is told by what it was. */
	set_unmeasured(rc, index, why);
	if (p->pid_count && (r = resctrl_group_add_tasks(rc->fs->rootfd, g, p->pids, p->pid_count, NULL, err)) < 0)
		return r;
	return 0;
}

/* The tasks of slot `index`'s group `g` into `fresh`. Its own group: all it lists, and on failure
 * those that moved go back, so the partition stays whole where it was. Its class's group lists the
 * class's tasks, not only the partition's: its configured pids move now, the threads placement finds
 * for it (cgroup, vm) at placement's next pass, which puts in its group what is not there. */
static int move_tasks(struct resctrl_control *rc, size_t index, struct resctrl_group *g, struct resctrl_group *fresh,
		      const struct partition_config *p, struct err *err)
{
	int rootfd = rc->fs->rootfd;

	if (resctrl_class_unmeasured(rc, index))
		return p->pid_count ? resctrl_group_add_tasks(rootfd, fresh, p->pids, p->pid_count, NULL, err) : 0;
	int r = resctrl_group_move_tasks(rootfd, g, fresh, err);
	if (r < 0 && fresh->has_parent) { /* a class group would give the class's tasks back too */
		struct err ignored = { "" };
		resctrl_group_move_tasks(rootfd, fresh, g, &ignored);
	}
	return r;
}

/* A new group in the class (or the class's own, when its PARTID has no PMG left), the tasks moved
 * there, the old group removed when it was the partition's own. `again` (open_in_class): nothing
 * changes, CLASS_MOVE_CONTINUES, when there is still no PMG. */
static int move_anew(struct resctrl_control *rc, size_t index, unsigned cls, struct resctrl_group *cg,
		     struct partition_ref *ref, bool again, struct err *err)
{
	struct resctrl_group *g = &rc->groups[index], fresh = { .dirfd = -1 };
	char why[RESCTRL_UNMEASURED_MAX];
	int rootfd = rc->fs->rootfd;
	int r = unmeasured_buffer(rc, index, err);

	if (r == 0 && (r = open_in_class(rc, ref->config->name, cls, cg, &fresh, why, again, err)) == 1)
		return CLASS_MOVE_CONTINUES;
	if (r == 0)
		r = move_tasks(rc, index, g, &fresh, ref->config, err);
	if (r < 0) {
		if (fresh.created && unlinkat(rootfd, fresh.name, AT_REMOVEDIR) == 0)
			resctrl_counts_removed(rc, false);
		resctrl_group_close(&fresh);
		return r;
	}
	/* A group that was its class's is not the partition's to remove. */
	bool own_made = rc->ours[index] && !resctrl_class_unmeasured(rc, index);
	if (own_made && unlinkat(rootfd, g->name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		log_warning("cannot remove resctrl group %s after its tasks moved to %s: %s", g->name, fresh.name,
			    strerror(errno));
	else if (own_made)
		resctrl_counts_removed(rc, false);
	set_unmeasured(rc, index, why);
	resctrl_group_close(g);
	*g = fresh;
	g->hw_id = cg->hw_id;
	rc->ours[index] = fresh.created;
	*ref = (struct partition_ref){ .config = ref->config,
				       .group = g->name,
				       .group_dirfd = g->dirfd,
				       .hw_id = g->hw_id,
				       .unmeasured = resctrl_class_unmeasured(rc, index) };
	return CLASS_MOVE_ANEW;
}

static int class_move(struct control *c, size_t index, unsigned cls, struct partition_ref *ref, struct err *err)
{
	struct resctrl_control *rc = rc_of(c);
	char path[RESCTRL_GROUP_PATH_MAX];
	struct resctrl_group *cg;
	int r;

	if (index >= rc->slots || rc->groups[index].dirfd < 0)
		return err_set(err, -ENOENT, "partition %zu is not open", index);
	if ((r = class_group(rc, cls, &cg, err)) < 0)
		return r;
	struct resctrl_group *g = &rc->groups[index];
	const char *leaf = strrchr(g->name, '/');
	if ((r = member_path(cg, leaf ? leaf + 1 : g->name, path, sizeof(path), err)) < 0)
		return r;
	/* In its class's group for want of a PMG, and asking again (control.h) */
	bool again = rc->class_of[index] == cls && resctrl_class_unmeasured(rc, index);
	rc->class_of[index] = cls;
	if (resctrl_rename_keeps_counts(&rc->fs->info) && !again) {
		struct err why = { "" };
		char from[RESCTRL_GROUP_PATH_MAX];
		snprintf(from, sizeof(from), "%s", g->name);
		if ((r = resctrl_mon_group_rename(rc->fs->rootfd, g, path, cg->dirfd, &why)) == 0) {
			g->hw_id = ref->hw_id = cg->hw_id;
			return CLASS_MOVE_CONTINUES;
		}
		log_warning("%s: %s; moving its tasks to a new group instead (its count starts again)", from, why.text);
	}
	return move_anew(rc, index, cls, cg, ref, again, err);
}

int resctrl_classes_keep(const struct resctrl_control *rc, struct name_index *keep)
{
	for (size_t c = 0; c < rc->classes_cap; c++)
		if (rc->classes[c].dirfd >= 0 && name_index_add(keep, rc->classes[c].name, c) == -ENOMEM)
			return -ENOMEM;
	return 0;
}

int resctrl_classes_tidy(struct resctrl_control *rc, const struct name_index *keep, struct err *err)
{
	int removed = 0, first_error = 0;

	for (size_t c = 0; c < rc->classes_cap; c++) {
		if (rc->classes[c].dirfd < 0)
			continue;
		struct err one = { "" };
		int r = resctrl_pool_tidy_mon(rc->fs->rootfd, rc->classes[c].name, rc->config->global.group_prefix,
					      keep, &one);
		removed += r > 0 ? r : 0;
		if (r < 0 && !first_error)
			first_error = err_set(err, r, "%s", one.text);
	}
	return removed ? removed : first_error;
}

void resctrl_classes_free(struct resctrl_control *rc)
{
	for (size_t c = 0; rc->classes && c < rc->classes_cap; c++)
		resctrl_group_close(&rc->classes[c]);
	free(rc->classes);
	free(rc->class_of);
}

const struct control_class_ops resctrl_class_ops = {
	.share = class_share,
	.room = class_room,
	.set_class = class_set,
	.apply = class_apply,
	.move = class_move,
	.release = class_release,
};
