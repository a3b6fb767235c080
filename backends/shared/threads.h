/* The threads of a process, as /proc lists them. The kernel's task files (resctrl `tasks`, cgroup v1
 * `tasks`) move one thread per id written, so a multithreaded process (every VM: vCPUs, I/O threads)
 * is placed only when each of its thread ids is. */
#ifndef MPAMD_BACKENDS_SHARED_THREADS_H
#define MPAMD_BACKENDS_SHARED_THREADS_H

#include <stddef.h>
#include <sys/types.h>

#include "core/base/error.h"

/* Every thread id of process `pid` under `proc_root` (NULL: /proc), in *ret (malloc'ed, caller frees)
 * and *ret_count (>= 1). -ESRCH when the process does not exist (any more); -ENOMEM. */
int process_threads(const char *proc_root, pid_t pid, pid_t **ret, size_t *ret_count, struct err *err);

#endif
