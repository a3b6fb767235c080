/* What the PMU counting tests count: a child that burns CPU with a few voluntary context switches,
 * and the cgroup directories they make for it. */
#ifndef MPAMD_TESTS_UTIL_BUSY_TASK_H
#define MPAMD_TESTS_UTIL_BUSY_TASK_H

#include <sys/types.h>

/* A forked child spinning until killed; aborts the test when fork fails. */
pid_t busy_task_spawn(void);
/* Kills and reaps *pid when it is running, and sets it to -1. */
void busy_task_stop(pid_t *pid);
/* Removes the cgroup directory `dir` (retrying while the kernel still holds it busy) and empties
 * the string; a no-op for "". */
void cgroup_dir_remove(char *dir);
/* CLOCK_MONOTONIC in seconds. */
double monotonic_s(void);

#endif
