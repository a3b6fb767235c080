/* MBWU monitors of one MSC: program them and read them every tick, with NRDY, overflow status and
 * long counters handled. Who holds which monitor, and the rotation and extrapolation when partitions
 * outnumber monitors, is core/counter_pool.c's job. */
#ifndef MPAMD_BACKENDS_MMIO_MONITORS_H
#define MPAMD_BACKENDS_MMIO_MONITORS_H

#include <stddef.h>
#include <stdint.h>

#include "backends/contracts/monitor.h"
#include "backends/mmio/msc.h"

struct msc_monitors;

/* Each monitor's settings (MSMON_CFG_MBWU_FLT, and CTL where it is not read on every tick) are read
 * back once in this many reads, staggered over the monitors: another agent's change that leaves
 * the count going forwards and ready is seen within this many ticks. */
#define MSC_MONITORS_CHECK_TICKS 16u

/* Monitors of `msc` (its monitor RIS), sized for `partitions` partition indices at first
 * (msc_monitors_add grows it for a higher index). Fails with
 * -EOPNOTSUPP when the MSC has no MBWU monitors. */
int msc_monitors_new(struct msc *msc, size_t partitions, struct msc_monitors **ret, struct err *err);
void msc_monitors_free(struct msc_monitors *mons);

/* Starts measuring partition `index`, which runs as `partid`. */
int msc_monitors_add(struct msc_monitors *mons, size_t index, uint16_t partid, struct err *err);

/* Partition `index` keeps a monitor while they rotate (counter_pool_keep); -ENOSPC when all but one
 * are kept already. */
int msc_monitors_keep(struct msc_monitors *m, size_t index, bool keep, struct err *err);

/* Stops measuring partition `index`. */
void msc_monitors_remove(struct msc_monitors *mons, size_t index);

/* Reads every monitor at `now_ns` and writes one sample per partition index to
 * out[index * stride]; indices never added get SAMPLE_INVALID. Then rotates monitors if needed. */
void msc_monitors_read(struct msc_monitors *mons, uint64_t now_ns, struct sample *out, size_t stride);

/* How many partitions are being measured and whether monitors rotate. */
bool msc_monitors_rotating(const struct msc_monitors *mons);

#endif
