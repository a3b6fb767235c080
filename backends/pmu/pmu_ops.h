/* The PMU sampler over perf_event_open: [pmu] events per partition, on its cgroup (one event per CPU,
 * PERF_FLAG_PID_CGROUP) or its pids. Uncore events are counted host-wide on their PMU's CPUs only. */
#ifndef MPAMD_BACKENDS_PMU_PMU_OPS_H
#define MPAMD_BACKENDS_PMU_PMU_OPS_H

#include "backends/contracts/pmu.h"

extern const struct pmu_sampler_ops pmu_sampler_perf_ops;

/* Where the sampler looks for the cgroup mounts (tests); NULL: /proc/self/mounts. */
void pmu_sampler_perf_set_mounts(const char *path);

#endif
