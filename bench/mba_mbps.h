/* The kernel's software controller for MBA (resctrl mounted with -o mba_MBps), as a policy, so the
 * bench can run it on the same simulated scenarios as mpamd's own controller. */
#ifndef MPAMD_BENCH_MBA_MBPS_H
#define MPAMD_BENCH_MBA_MBPS_H

#include "policies/policy.h"

/* The kernel runs its controller once per second (MBM_OVERFLOW_INTERVAL). */
#define MBA_MBPS_PERIOD_MS 1000

/* Partitions with a target_mbps are held to it by the kernel's rule; the others keep their
 * configured limits (the kernel's default MiB/s value, U32_MAX, never throttles). */
void policy_mba_mbps(const struct policy_host *host, struct policy_partition *parts, size_t count,
		     struct policy_decision *decisions);

/* static, then mba_MBps. */
extern const struct policy_chain policy_chain_mba_mbps;

#endif
