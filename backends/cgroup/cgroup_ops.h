/* Actuators on a partition's cgroup: the CPU quota (escalation). */
#ifndef MPAMD_BACKENDS_CGROUP_CGROUP_OPS_H
#define MPAMD_BACKENDS_CGROUP_CGROUP_OPS_H

#include "backends/contracts/actuator.h"

extern const struct actuator_ops actuator_cpu_quota_ops;

#endif
