/* The resctrl control's state, shared by its files (not a public API): control_resctrl.c (a group per
 * partition) and control_classes.c (classes = shared: partitions are monitoring groups in classes). */
#ifndef MPAMD_BACKENDS_RESCTRL_CONTROL_RESCTRL_INTERNAL_H
#define MPAMD_BACKENDS_RESCTRL_CONTROL_RESCTRL_INTERNAL_H

#include "backends/contracts/control.h"
#include "backends/resctrl/resctrl.h"
#include "core/base/name_index.h"

#define RESCTRL_UNMEASURED_MAX 160

struct resctrl_control {
	struct control base;
	const struct config *config;
	struct resctrl_fs *fs;
	struct resctrl_group *groups; /* per slot; dirfd -1 when not open */
	/* Per slot: the group was made by this mpamd, so a removal may delete it. Kept across a close and
	 * an open again of the same slot (which adopts the group it made). */
	bool *ours;
	size_t slots; /* of groups and ours */
	/* The groups this mpamd adopted (they existed before it opened them): never removed, not even
	 * when the pool is tidied after their partitions went. */
	struct name_index adopted;
	unsigned planned_groups; /* new groups the plans so far would create */
	struct thread_placer placer;
	/* classes = shared (control_classes.c): partitions are monitoring groups in class groups. */
	bool shared;
	unsigned *class_of; /* per slot (of `slots`): the class its group opens in */
	/* Per slot: why its group is its class's own (control_classes.c, Arm MPAM: the class's PARTID has
	 * no PMG left for a monitoring group of its own), "" when it has a group of its own. The text the
	 * partition's samples give (partition_ref.unmeasured): each slot's buffer (RESCTRL_UNMEASURED_MAX
	 * bytes, NULL until first needed) stays where it is while slots are added, as that pointer must. */
	char **unmeasured;
	struct resctrl_group *classes; /* per class: its control group, dirfd -1 when not made */
	size_t classes_cap;
	unsigned class_mounts; /* fs->mounts when the class groups were opened */
	/* With classes shared, what resctrl_control_room counted (a walk of every group's directory:
	 * thousands of system calls with a thousand monitoring groups) is kept and moved by the groups
	 * mpamd makes and removes, so that a thousand partitions opening are not a thousand walks. It is
	 * counted again when the engine asks the room (class_room, at least every few ticks), after a
	 * refused or failed mkdir (another tool's groups), a tidy, a class removed or a remount. */
	struct {
		bool known;
		unsigned mounts; /* fs->mounts when counted */
		unsigned groups, rmid_holders;
	} counted;
};

/* Room for slot `index` in every per-slot array: 0 or -ENOMEM and why. */
int resctrl_control_grow(struct resctrl_control *rc, size_t index, struct err *err);
/* What the groups there (and those planned) leave for a new one. */
struct resctrl_room resctrl_control_room(struct resctrl_control *rc);
/* Group `g` was opened with the room resctrl_control_room gave (r: what the open returned): one made
 * by mpamd holds an RMID more (a control group a CLOSID too); a failure other than that room's own
 * "no room" (-ENOSPC) has the groups counted again. */
void resctrl_counts_opened(struct resctrl_control *rc, const struct resctrl_group *g, bool control_group, int r);
/* mpamd removed a group: a monitoring group's RMID is free (or in limbo, which the kernel's answer to
 * the next mkdir tells); a control group takes its monitoring groups with it: counted again. */
void resctrl_counts_removed(struct resctrl_control *rc, bool control_group);
/* The groups are counted again before the next room is given (the engine asked, or a tidy). */
void resctrl_counts_forget(struct resctrl_control *rc);

/* ---- control_classes.c ---- */

extern const struct control_class_ops resctrl_class_ops;

/* Partition `index` (`p`) as a monitoring group of the class set_class gave it, its tasks moved in. */
int resctrl_class_member_open(struct resctrl_control *rc, size_t index, const struct partition_config *p,
			      struct resctrl_group *g, struct err *err);
/* Slot `index` is in its class's own group (not measured by itself): its reason, else NULL. */
const char *resctrl_class_unmeasured(const struct resctrl_control *rc, size_t index);
/* Slot `index` has a group of its own again (or none): its reason goes. */
void resctrl_class_measured(struct resctrl_control *rc, size_t index);
/* The class groups open now, added to `keep` (paths); -ENOMEM. */
int resctrl_classes_keep(const struct resctrl_control *rc, struct name_index *keep);
/* Each open class group's monitoring groups under the prefix that `keep` does not name, removed. */
int resctrl_classes_tidy(struct resctrl_control *rc, const struct name_index *keep, struct err *err);
void resctrl_classes_free(struct resctrl_control *rc);

#endif
