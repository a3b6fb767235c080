/* The tasks file: moving tasks between groups (one pid or a comma list per write; 0 is the writer)
 * and listing them. A task the emulator was never told about is in the default group, but only
 * tasks written to some tasks file (or returned to a parent by rmdir) are listed: the emulator does
 * not scan the host's process list. Tasks that have exited are dropped when a list is read. */
#ifndef MPAMD_TESTS_RESCTRL_EMU_TASKS_H
#define MPAMD_TESTS_RESCTRL_EMU_TASKS_H

#include "emu_node.h"

emu_show_fn emu_tasks_show;
emu_write_fn emu_tasks_write;
/* rmdir: the tasks of g (for a CTRL_MON group, also those of its MON groups) go to dest. */
void emu_tasks_regroup(struct emu *e, struct emu_group *g, struct emu_group *dest);
void emu_tasks_fini(struct emu *e);

#endif
