/* The cpus and cpus_list files: which CPUs default to a group's CLOSID/RMID. The default group owns
 * every CPU no other CTRL_MON group has; a MON group may only take CPUs of its parent. */
#ifndef MPAMD_TESTS_RESCTRL_EMU_CPUS_H
#define MPAMD_TESTS_RESCTRL_EMU_CPUS_H

#include "emu_node.h"

emu_show_fn emu_cpus_show;
emu_show_fn emu_cpus_list_show;
emu_write_fn emu_cpus_write;
emu_write_fn emu_cpus_list_write;
/* rmdir: a CTRL_MON group's CPUs go back to the default group (a MON group's stay with its parent). */
void emu_cpus_group_removed(struct emu *e, struct emu_group *g);

#endif
