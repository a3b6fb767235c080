/* The escalation actuator: a partition's CPU quota through its cgroup (libcgroup), for when a
 * best-effort partition stays over budget at the hardware's lowest bandwidth setting. */
#ifndef MPAMD_BACKENDS_CGROUP_CPU_H
#define MPAMD_BACKENDS_CGROUP_CPU_H

#include "core/base/error.h"

/* Sets the quota of cgroup `path` (relative to the cpu hierarchy) to `pct` percent of one CPU;
 * 0 removes the limit. Works with cgroup v1 (cpu.cfs_quota_us) and v2 (cpu.max). */
int cgroup_cpu_set_quota(const char *path, unsigned pct, struct err *err);

#endif
