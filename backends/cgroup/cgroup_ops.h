/* Actuators on a partition's tasks: the CPU quota of its cgroup (escalation), and placement of its
 * cgroup's, VM's and pids' threads in its group. */
#ifndef MPAMD_BACKENDS_CGROUP_CGROUP_OPS_H
#define MPAMD_BACKENDS_CGROUP_CGROUP_OPS_H

#include "backends/contracts/actuator.h"

extern const struct actuator_ops actuator_cpu_quota_ops;
extern const struct actuator_ops actuator_placement_ops;

#endif
