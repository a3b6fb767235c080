/* backend = sim: the MMIO control over simulated MSCs, the simulator's CPU-quota actuator and its PMU
 * sampler. */
#ifndef MPAMD_BACKENDS_SIM_SIM_OPS_H
#define MPAMD_BACKENDS_SIM_SIM_OPS_H

#include "backends/contracts/actuator.h"
#include "backends/contracts/control.h"
#include "backends/contracts/pmu.h"

extern const struct control_ops control_sim_ops;
/* Records the quotas the policies set and makes the simulated demand follow them. */
extern const struct actuator_ops actuator_sim_cpu_quota_ops;

/* Cycles, instructions and stalls from the simulator's IPC model. */
extern const struct pmu_sampler_ops pmu_sampler_sim_ops;

#endif
