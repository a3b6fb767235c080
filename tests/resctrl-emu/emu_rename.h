/* rename(2) in the mount: a MON group moved to another CTRL_MON group's mon_groups, or renamed in its
 * own, as fs/resctrl/rdtgroup.c rdtgroup_rename() and mongrp_reparent() do it (Linux 6.2 on; the same
 * in 7.2 and 7.3).
 *
 * Refusals, in the kernel's order:
 *   - a source or destination in info/ with no group behind it (kernfs_to_rdtgroup() NULL): ENOENT,
 *     before rdtgroup_mutex, so last_cmd_status is left as it was;
 *   - then last_cmd_status is cleared, and:
 *   - a source that is a file: EPERM, "Source and destination must be directories" (the kernel's
 *     text has no newline);
 *   - a source that is not a MON group (a CTRL_MON group, mon_groups, mon_data...): EPERM,
 *     "Source must be a MON group\n";
 *   - a destination directory that is not a mon_groups, or the new name "mon_groups": EPERM,
 *     "Destination must be a mon_groups subdirectory\n";
 *   - a MON group with any CPU in its cpus moved to another parent (whatever the new parent's CPUs:
 *     the kernel does not compare them): EPERM, "Cannot move a MON group that monitors CPUs\n";
 *   - kernfs_rename(): a name the destination already holds: EEXIST, the status "ok".
 * Nothing checks the new parent's mode: an exclusive group takes MON groups like any other (the
 * pseudo-locked modes cannot be reached here, as the emulator refuses pseudo-locksetup).
 *
 * The move: the group goes to the end of its new parent's MON groups and takes the parent's CLOSID;
 * its RMID stays, and with it its counts, its assigned counters and its llc_occupancy, so a count
 * continues without a jump (its old parent's totals lose it and the new one's gain it, as each
 * CTRL_MON group's read adds its MON groups at the time). Its tasks go with it, and its open files
 * keep working under the new path.
 *
 * Where RMIDs depend on the CLOSID (MPAM: an RMID is a PMG within a PARTID, resctrl_arch_rmid_idx_encode()
 * = closid * (pmg_max + 1) + rmid) the kernel allows the move as well, and it breaks: the group keeps
 * its PMG under the new PARTID, so it now names the monitor of (new PARTID, PMG). The emulator shows
 * what follows from that:
 *   - rdt_move_group_tasks() looks for tasks with (new PARTID, PMG) (resctrl_arch_match_rmid() compares
 *     both on arm64), so the group's tasks keep their old PARTID and PMG: its old parent lists them,
 *     no MON group does, and the old parent's controls still apply to them;
 *   - its counts come from (new PARTID, PMG), which none of its tasks use: llc_occupancy reads 0, and
 *     with assigned counters (7.3) mbm_total_bytes reads "Unassigned" (mpam_resctrl.c
 *     resctrl_arch_cntr_read() finds no counter mapped to the new index). The emulator sets these
 *     through the same per-group states as the "counter" control command (.emu_ctl lists them);
 *   - the old index is never freed (leaked until unmount) and the group's rmdir frees the new one.
 * What the emulator does not show: where another group already has (new PARTID, PMG), the kernel's
 * renamed group reads and lists that group's counts and tasks too. */
#ifndef MPAMD_TESTS_RESCTRL_EMU_RENAME_H
#define MPAMD_TESTS_RESCTRL_EMU_RENAME_H

#include "emu_node.h"

/* src: the node renamed; dst_dir: the directory it goes to, under new_name. 0 or -errno. */
int emu_rename(struct emu *e, const struct emu_node *src, const struct emu_node *dst_dir, const char *new_name);

#endif
