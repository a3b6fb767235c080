/* The threads of a process, as /proc lists them. The kernel's task files (resctrl `tasks`, cgroup v1
 * `tasks`) move one thread per id written, so a multithreaded process (every VM: vCPUs, I/O threads)
 * is placed only when each of its thread ids is. */
#ifndef MPAMD_BACKENDS_SHARED_THREADS_H
#define MPAMD_BACKENDS_SHARED_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/base/error.h"

/* Every thread id of process `pid` under `proc_root` (NULL: /proc), in *ret (malloc'ed, caller frees)
 * and *ret_count (>= 1). -ESRCH when the process does not exist (any more); -ENOMEM. */
int process_threads(const char *proc_root, pid_t pid, pid_t **ret, size_t *ret_count, struct err *err);

/* Appends the ids of a kernel task file (`file` under `dirfd`: resctrl's and cgroup v1's `tasks`,
 * cgroup v2's `cgroup.threads`, one id a line) to *ids (grown; *count and *cap kept), skipping what
 * is not a thread id. 0, or the negative errno of opening or reading it (-ENOMEM). */
int task_file_read(int dirfd, const char *file, pid_t **ids, size_t *count, size_t *cap);
/* Sorts thread ids ascending; whether sorted ids hold `tid`. */
void thread_ids_sort(pid_t *ids, size_t count);
bool thread_ids_have(const pid_t *sorted, size_t count, pid_t tid);

#endif
