/* See emu_rename.h. */
#include "emu_rename.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu_counters.h"
#include "emu_ids.h"
#include "emu_state.h"
#include "emu_threads.h"

/* kernfs_to_rdtgroup(): whether the kernel finds a kernfs priv it takes for a group. info/, its
 * resource directories and event_configs have none (NULL, or a parent that is info/ itself), nor do
 * the files directly in info/. A file in info/<RES> and the directory event_configs/<EVENT> (and its
 * file) do: the resource's and the event's structures, which the kernel then reads as a group; the
 * emulator answers there as for a group that is neither a MON group nor a mon_groups. */
static bool has_group(const struct emu_node *n)
{
	switch (n->kind) {
	case EMU_N_INFO:
	case EMU_N_INFO_RES:
	case EMU_N_EVENT_CONFIGS:
		return false;
	case EMU_N_FILE:
		return n->dir != EMU_N_INFO;
	case EMU_N_GROUP:
	case EMU_N_MON_GROUPS:
	case EMU_N_MON_DATA:
	case EMU_N_MON_DOMAIN:
	case EMU_N_EVENT_CONFIG:
	default:
		return true;
	}
}

/* rdtgroup_rename()'s checks after rdt_last_cmd_clear(): 0 or -EPERM with its message. */
static int check_move(struct emu *e, const struct emu_node *src, const struct emu_node *dst_dir, const char *new_name)
{
	if (src->kind == EMU_N_FILE) {
		emu_status_printf(&e->status, "Source and destination must be directories");
		return -EPERM;
	}
	if (src->kind != EMU_N_GROUP || !src->group->is_mon) {
		emu_status_printf(&e->status, "Source must be a MON group\n");
		return -EPERM;
	}
	if (dst_dir->kind != EMU_N_MON_GROUPS || strcmp(new_name, "mon_groups") == 0) {
		emu_status_printf(&e->status, "Destination must be a mon_groups subdirectory\n");
		return -EPERM;
	}
	/* The CPUs a MON group monitors belong to its parent, so no other parent can have them. */
	if (!emu_cpumask_empty(&src->group->cpus) && src->group->parent != dst_dir->group) {
		emu_status_printf(&e->status, "Cannot move a MON group that monitors CPUs\n");
		return -EPERM;
	}
	return 0;
}

/* What (new PARTID, same PMG) means on MPAM: see emu_rename.h. */
static void reparent_on_mpam(struct emu *e, struct emu_group *g, struct emu_group *old_parent)
{
	emu_rmid_reparented(e, g);
	emu_threads_regroup(e, g, old_parent);
	for (unsigned d = 0; d < e->prof.domains; d++)
		for (int ev = 0; ev < EMU_EVT_COUNT; ev++)
			if (emu_profile_has_event(&e->prof, (enum emu_event)ev))
				g->mon[d].forced[ev] =
					ev != EMU_EVT_LLC && e->assign.enabled ? EMU_CNT_UNASSIGNED : EMU_CNT_ZERO;
}

int emu_rename(struct emu *e, const struct emu_node *src, const struct emu_node *dst_dir, const char *new_name)
{
	if (!has_group(src) || !has_group(dst_dir))
		return -ENOENT;
	emu_status_clear(&e->status);
	int r = check_move(e, src, dst_dir, new_name);
	if (r)
		return r;
	struct emu_group *g = src->group, *old_parent = g->parent, *new_parent = dst_dir->group;
	/* kernfs_rename_ns(): the same place is nothing to do; a name taken there is EEXIST. */
	if (old_parent == new_parent && strcmp(g->name, new_name) == 0)
		return 0;
	if (emu_find_mon(new_parent, new_name))
		return -EEXIST;
	char *name = strdup(new_name);
	if (!name)
		return -ENOMEM;
	free(g->name);
	g->name = name;
	/* mongrp_reparent(): nothing more when only the name changes. */
	if (old_parent != new_parent) {
		emu_mon_reparent(g, new_parent);
		if (e->prof.rmid_depends_on_closid)
			reparent_on_mpam(e, g, old_parent);
	}
	emu_traffic_bind(e); /* demand goes by name */
	return 0;
}
