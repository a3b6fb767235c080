/* The host's threads as the kernel's resctrl sees them: each is in one group, the default group at
 * first, and a thread or process created later starts in its creator's group, because the kernel
 * copies the creator's CLOSID and RMID at clone (kernel/fork.c dup_task_struct: arch_dup_task_struct
 * copies the task_struct, whose closid and rmid fields hold them on x86, include/linux/sched.h; on arm64
 * the MPAM PARTID and PMG are in its thread_info, mpam_partid_pmg, copied the same way).
 *
 * The emulator does not see clone: it finds new threads and processes in the proc root whenever a tasks
 * file is read or written, before a move is applied, and places each in the group its creator is in
 * at that moment, so a thread made before a move stays where it was. The creator is taken to be the
 * process's main thread for a thread, and the parent process's main thread (PPid, /proc/<pid>/stat) for
 * a process: /proc does not say which thread called clone. A new process's own threads follow it.
 *
 * Only processes with a thread outside the default group are followed thread by thread (emu_threads.c):
 * a look costs one listing of the proc root, plus the stat file of each process not seen before. */
#ifndef MPAMD_TESTS_RESCTRL_EMU_THREADS_H
#define MPAMD_TESTS_RESCTRL_EMU_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct emu;
struct emu_group;
struct emu_task;

/* Brings the table up to date with the proc root: exited threads leave it (and a reused id is a new
 * thread), new ones join their creator's group. 0 or -ENOMEM. */
int emu_threads_sync(struct emu *e);
/* The thread with id `tid` as last synced, NULL when it is not followed (then, if it exists, it is in
 * the default group). */
struct emu_task *emu_threads_find(struct emu *e, pid_t tid);
/* The entry of thread `tid` (NULL in *ret when it does not exist), following its process from now on:
 * its threads the table does not hold are in the default group. 0 or -ENOMEM. */
int emu_threads_adopt(struct emu *e, pid_t tid, struct emu_task **ret);
/* Every thread under the proc root, sorted (*ret malloc'ed). 0 or -ENOMEM. */
int emu_threads_all(const struct emu *e, pid_t **ret, size_t *ret_count);
/* Whether thread `tid` exists under the proc root now. */
bool emu_thread_exists(const struct emu *e, pid_t tid);
/* rmdir: the threads of g (for a CTRL_MON group, also those of its MON groups) go to dest. */
void emu_threads_regroup(struct emu *e, struct emu_group *g, struct emu_group *dest);
void emu_threads_fini(struct emu *e);

#endif
