/* monitor = mmio: MPAM MBWU monitors over the MSC bus (see monitor_mbwu.c). */
#ifndef MPAMD_BACKENDS_MMIO_MBWU_MONITOR_H
#define MPAMD_BACKENDS_MMIO_MBWU_MONITOR_H

#include "backends/contracts/monitor.h"

extern const struct monitor_ops monitor_mbwu_ops;

#endif
