/* The tasks file, thread by thread as in the kernel: each id written moves that one thread (a
 * process id moves only the process's main thread; 0 is the writing thread); ids are checked
 * against the proc root (--proc-root, default /proc), where PROC/TID exists for every live thread.
 * A group's list holds its threads, a CTRL_MON group's also those of its MON groups, and the
 * default group's every thread under PROC/<pid>/task/ that is in no other CTRL_MON group. Threads
 * that exit leave every list. Unlike the kernel, a thread or process created after a move starts
 * in the default group rather than in its creator's group (the emulator does not see clone). */
#ifndef MPAMD_TESTS_RESCTRL_EMU_TASKS_H
#define MPAMD_TESTS_RESCTRL_EMU_TASKS_H

#include "emu_node.h"

emu_show_fn emu_tasks_show;
emu_write_fn emu_tasks_write;
/* rmdir: the tasks of g (for a CTRL_MON group, also those of its MON groups) go to dest. */
void emu_tasks_regroup(struct emu *e, struct emu_group *g, struct emu_group *dest);
void emu_tasks_fini(struct emu *e);

#endif
