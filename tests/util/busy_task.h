/* What the PMU counting tests count: a child that burns CPU with a few voluntary context switches,
 * and the cgroup directories they make for it; and how they run (skipped without perf_event). */
#ifndef MPAMD_TESTS_UTIL_BUSY_TASK_H
#define MPAMD_TESTS_UTIL_BUSY_TASK_H

#include <stddef.h>
#include <sys/types.h>

struct CMUnitTest;

/* The busy task and the cgroup a test made, undone by busy_task_teardown. */
extern pid_t busy_child;
extern char busy_cgroup_dir[512];

/* A forked child spinning until killed; aborts the test when fork fails. */
pid_t busy_task_spawn(void);
/* Kills and reaps *pid when it is running, and sets it to -1. */
void busy_task_stop(pid_t *pid);
/* Removes the cgroup directory `dir` (retrying while the kernel still holds it busy) and empties
 * the string; a no-op for "". */
void cgroup_dir_remove(char *dir);
/* CLOCK_MONOTONIC in seconds. */
double monotonic_s(void);
/* The CPU time process `pid` (one thread) has had, in ms, from /proc/PID/schedstat (the scheduler's
 * own sum, which task-clock counts too); -1 when it cannot be read. */
double task_cpu_ms(pid_t pid);
/* Fails the test unless `counted_ms` of task-clock over `wall` seconds is the `cpu_ms` the scheduler
 * says the child ran between the same reads (cpu_ms < 0: not known, compared with the wall only).
 * Not a share of the wall time: under load a busy child may get little of a CPU. */
void expect_task_cpu_time(double counted_ms, double cpu_ms, double wall);

/* Makes the cgroup busy_cgroup_dir (its path set by the caller), starts busy_child and moves it
 * there; skips the test (cmocka's skip) when the host allows neither. */
void busy_task_in_cgroup(void);
/* A test's teardown: busy_child stopped, busy_cgroup_dir removed. */
int busy_task_teardown(void **state);
/* Runs the group, or says why not and returns 77 (skipped) on a kernel without perf_event. */
int busy_task_run_perf_tests(const char *name, const struct CMUnitTest *tests, size_t count);

#endif
