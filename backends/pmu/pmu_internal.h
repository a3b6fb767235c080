/* Shared by the perf sampler's files (backends/pmu). */
#ifndef MPAMD_BACKENDS_PMU_PMU_INTERNAL_H
#define MPAMD_BACKENDS_PMU_PMU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "backends/contracts/pmu.h"
#include "backends/perf/perf_event.h"
#include "backends/pmu/pmu_config.h"

/* ---- pmu_counter.c: one event on one target (a cgroup, or several pids), as deltas ---- */

struct pmu_counter {
	struct perf_group **groups; /* one per pid, or one for the cgroup */
	struct perf_count **prev;   /* the last read of each group, perf_group_cpus() entries */
	struct perf_count **cur;
	size_t count;
	bool primed; /* a first read set the baselines */
};

/* Opens `ev` on each pid (cgroup_fd < 0), or on cgroup_fd on every online CPU. */
int pmu_counter_open(struct pmu_counter *c, const struct perf_event_desc *ev, int cgroup_fd, const pid_t *pids,
		     size_t pid_count, struct err *err);
/* Opens `ev` system-wide on its PMU's CPUs (an uncore event). */
int pmu_counter_open_cpus(struct pmu_counter *c, const struct perf_event_desc *ev, struct err *err);
void pmu_counter_close(struct pmu_counter *c);
/* The delta since the last read; not counted on the first read, or when it never ran. */
int pmu_counter_read(struct pmu_counter *c, struct pmu_count *ret, struct err *err);

/* ---- pmu_events.c: which event counts each role ---- */

struct pmu_role_event {
	bool present;	 /* a configured event, or a default this host has */
	bool configured; /* from [pmu], not a default */
	struct perf_event_desc desc;
	char note[PMU_REASON_MAX]; /* why a role has no event, or why it failed to open */
};

/* Resolves each role's event (the configured one, else the default: cycles, instructions, a core
 * PMU's stall_backend) and checks that a task event opens (a probe on the daemon itself; uncore
 * events are not probed). A default that does not resolve or open is a notice in `note`; a configured
 * event that does not is an error. */
int pmu_events_resolve(struct perf_sysfs *sysfs, const struct pmu_config *config, struct pmu_role_event *roles,
		       struct err *err);
void pmu_events_clear(struct pmu_role_event *roles);

#endif
