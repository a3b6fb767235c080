/* The guard's IPC signal (internal to policies/): a latency-critical partition with ipc_guard whose
 * IPC stays well below its own baseline while best-effort partitions use bandwidth is a victim of
 * its neighbours, whatever its bandwidth says. See policies/guard_ipc.c. */
#ifndef MPAMD_POLICIES_GUARD_IPC_H
#define MPAMD_POLICIES_GUARD_IPC_H

#include "policies/policy.h"

/* Three ticks low in a row: one or two can be a phase of the workload or a noisy sample. */
#define GUARD_IPC_LOW_TICKS 3

struct guard_ipc_view {
	const struct policy_partition *victim; /* the one furthest below its baseline, NULL: none */
	double drop;			       /* its drop below its baseline, a fraction */
	double need_mbps;		       /* what to take from best-effort partitions: drop x their use */
	bool low;			       /* some guarded partition is low, victim or not yet: do not give back */
	bool watching;			       /* some guarded partition has a baseline: a ceiling that squeezed it
						* is worth remembering */
};

/* Updates every guarded partition's baseline and low-tick count from this tick's IPC, and judges
 * whether the last cut made for it raised its IPC (events go to its own decision). `saturated`: the
 * host's bandwidth is used up, so an IPC that is not low is still not learned as the baseline. */
void guard_ipc_watch(struct policy_partition *parts, size_t count, bool saturated, struct policy_decision *decisions);

struct guard_ipc_view guard_ipc_assess(const struct policy_partition *parts, size_t count);

/* The guard cut for the IPC victims: each waits GUARD_IPC_LOW_TICKS again before the next cut. */
void guard_ipc_note_cut(struct policy_partition *parts, size_t count);

#endif
