/* backend = resctrl and monitor = resctrl: the kernel's resctrl filesystem (Intel RDT, AMD PQoS,
 * Arm MPAM on Linux 7.1+), at the configuration's resctrl_root. */
#ifndef MPAMD_BACKENDS_RESCTRL_RESCTRL_OPS_H
#define MPAMD_BACKENDS_RESCTRL_RESCTRL_OPS_H

#include <jansson.h>

#include "backends/contracts/control.h"
#include "backends/contracts/monitor.h"

/* One control group per partition: schemata, tasks, CPUs. */
extern const struct control_ops control_resctrl_ops;
/* The groups' MBM counter files (mon_data), with counter assignment where the kernel has it. */
extern const struct monitor_ops monitor_resctrl_ops;

#endif
