/* Where perf finds a partition's cgroup: the directory of the hierarchy that has the perf_event
 * controller (a cgroup v1 mount with the perf_event option, else the v2 mount, where it is implicit). */
#ifndef MPAMD_BACKENDS_PMU_PMU_CGROUP_H
#define MPAMD_BACKENDS_PMU_PMU_CGROUP_H

#include <stddef.h>

#include "core/base/error.h"

#define PMU_MOUNTS_PATH "/proc/self/mounts"

/* The mount point of that hierarchy, read from `mounts` (NULL: PMU_MOUNTS_PATH) into buf. -ENOENT
 * when neither is mounted. */
int pmu_cgroup_root(const char *mounts, char *buf, size_t size, struct err *err);
/* Opens `cgroup` (relative to that root) as a directory for PERF_FLAG_PID_CGROUP: the fd, or a
 * negative errno and why (naming the directory). */
int pmu_cgroup_open(const char *mounts, const char *cgroup, struct err *err);

#endif
