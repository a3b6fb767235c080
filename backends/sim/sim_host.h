/* The simulated host: [sim] mscs register models, and the traffic that flows through them.
 *
 * Time is the engine's clock. Each call to sim_host_advance moves traffic forward to `now`: demand
 * comes from each partition's sim_demand profile (ticks of interval_ms since the start), the
 * bandwidth each partition gets on each MSC follows the traffic model and the MBW_MAX/MBW_MIN the
 * driver programmed into that MSC's registers, and the served bytes drive the MSC's monitors.
 * Same config and seed, same run. */
#ifndef MPAMD_BACKENDS_SIM_SIM_HOST_H
#define MPAMD_BACKENDS_SIM_SIM_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "backends/sim/msc_model.h"
#include "core/base/error.h"
#include "core/config/model.h"

/* Share of each partition's traffic that is reads (the rest are writes), for RWBW filtering. */
#define SIM_READ_PERCENT 70
/* Where the simulated MSC windows appear, MPAM_MSC_PAGE_SIZE apart, for messages and discover. */
#define SIM_MSC_BASE 0x7f000000ull

struct sim_host;

int sim_host_new(const struct config *config, uint64_t start_ns, struct sim_host **ret, struct err *err);
void sim_host_free(struct sim_host *host);

size_t sim_host_msc_count(const struct sim_host *host);
struct msc_model *sim_host_msc(struct sim_host *host, size_t index);

/* Slot `index` carries the traffic of `p` (its sim_demand, its PARTID) from now on: the control calls it
 * when it opens a partition, so one added or changed by a reload has its traffic too. The slots of
 * the file's partitions carry theirs from the start; NULL: none (a closed partition, whose
 * configuration may be gone). -ENOMEM (err may be NULL for NULL, which never fails). */
int sim_host_partition_set(struct sim_host *host, size_t index, const struct partition_config *p, struct err *err);

/* Runs the traffic up to `now_ns` (no-op when now is not later than the last call). */
void sim_host_advance(struct sim_host *host, uint64_t now_ns);

/* The part of partition `index`'s demand it can still issue under a CPU quota (1: all of it); the
 * simulator's CPU-quota actuator sets it, so escalation shows in the traffic. */
void sim_host_set_cpu_share(struct sim_host *host, size_t index, double share);

/* Bandwidth partition `index` was served, summed over MSCs, during the span of the last advance; and
 * on MSC `msc` alone. */
double sim_host_truth_mbps(const struct sim_host *host, size_t index);
double sim_host_msc_truth_mbps(const struct sim_host *host, size_t index, size_t msc);

/* Partition `index`'s IPC during the span of the last advance, from the IPC model (sim_config.h) and
 * what it was served of what it demanded; its sim_ipc before the first advance. */
double sim_host_ipc(const struct sim_host *host, size_t index);

#endif
