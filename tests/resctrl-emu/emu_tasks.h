/* The tasks file, thread by thread as in the kernel: each id written moves that one thread (a
 * process id moves only the process's main thread; 0 is the writing thread); ids are checked
 * against the proc root (--proc-root, default /proc), where PROC/TID exists for every live thread.
 * A group's list holds its threads, a CTRL_MON group's also those of its MON groups, and the
 * default group's every thread of the host in no other CTRL_MON group. Threads that exit leave
 * every list; new ones start in their creator's group (emu_threads.h). */
#ifndef MPAMD_TESTS_RESCTRL_EMU_TASKS_H
#define MPAMD_TESTS_RESCTRL_EMU_TASKS_H

#include "emu_node.h"

emu_show_fn emu_tasks_show;
emu_write_fn emu_tasks_write;

#endif
