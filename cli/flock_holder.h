/* Who holds an flock(2) lock, as the kernel says (/proc/locks), and whether a process is an mpamd:
 * what the pid file and the instance locks trust, rather than the pid a file says. */
#ifndef MPAMD_CLI_FLOCK_HOLDER_H
#define MPAMD_CLI_FLOCK_HOLDER_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The process holding an flock on the file of `st` (dev and inode), or 0 when none does or
 * /proc/locks cannot be read. */
pid_t flock_holder(const struct stat *st);

/* Whether process `pid` is an mpamd (its /proc/PID/comm). */
bool process_is_mpamd(pid_t pid);

#endif
