/* The host's threads as the kernel's resctrl sees them: each is in one group, the default group at
 * first, and a thread or process created later starts in its creator's group, because the kernel
 * copies the creator's CLOSID and RMID at clone (kernel/fork.c dup_task_struct: arch_dup_task_struct
 * copies the task_struct, whose closid and rmid fields hold them on x86, include/linux/sched.h; on arm64
 * the MPAM PARTID and PMG are in its thread_info, mpam_partid_pmg, copied the same way).
 *
 * The emulator does not see clone: it finds new threads by listing the proc root (PROC/<pid>/task/<tid>)
 * whenever a tasks file is read or written, and places each new one in the group its creator is in
 * at that moment, before any move is applied, so a thread made before a move stays where it was. The
 * creator is taken to be the process's main thread for a thread, and the parent process's main thread
 * (PPid, /proc/<pid>/stat) for a process: /proc does not tell which thread called clone. Threads are
 * placed in the order they started, so a new process's own new threads follow it. */
#ifndef MPAMD_TESTS_RESCTRL_EMU_THREADS_H
#define MPAMD_TESTS_RESCTRL_EMU_THREADS_H

#include <stdbool.h>
#include <sys/types.h>

struct emu;
struct emu_group;
struct emu_task;

/* Brings the table up to date with the proc root: exited threads leave it (and a reused id is a new
 * thread), new ones join their creator's group. 0 or -ENOMEM. */
int emu_threads_sync(struct emu *e);
/* The thread with id `tid` as last synced, NULL when it is not known. */
struct emu_task *emu_threads_find(struct emu *e, pid_t tid);
/* Whether thread `tid` exists under the proc root now. */
bool emu_thread_exists(const struct emu *e, pid_t tid);
/* rmdir: the threads of g (for a CTRL_MON group, also those of its MON groups) go to dest. */
void emu_threads_regroup(struct emu *e, struct emu_group *g, struct emu_group *dest);
void emu_threads_fini(struct emu *e);

#endif
