/* The guard's IPC signal. Bandwidth alone does not tell whether a latency-critical partition
 * suffers: one without a guarantee, or one that gets it, can still stall on a memory system its
 * best-effort neighbours saturate. Its IPC tells.
 *
 * Each latency-critical partition with ipc_guard = F keeps a baseline of its IPC: an EWMA over the
 * counted ticks in which it was not held back, neither low nor on a saturated host while best-effort
 * partitions use bandwidth (else, as the guard gives bandwidth back step by step, the baseline would
 * follow the IPC down and the drop would never show). It is low in a tick when its IPC is more than F below the
 * baseline while best-effort partitions use bandwidth (without them its neighbours are not the
 * cause). Low for GUARD_IPC_LOW_TICKS ticks in a row, it is a victim: the guard cuts the best-effort
 * partitions as it does for a bandwidth victim, taking the same share of their use as the share of
 * IPC it lost, and the count starts again so that the cut shows before the next one. While it is
 * low the guard gives nothing back; once its IPC is back within F it does, as after any cut.
 *
 * A tick in which its IPC was not counted (ipc_valid false) changes nothing: not the baseline, not
 * the count. A cut that did not raise its IPC by GUARD_IPC_HELP_FRACTION of the baseline by the time
 * it is a victim again means its neighbours were not the cause (its workload changed): its IPC
 * becomes the baseline and nobody is cut for it. */
#include "policies/guard_ipc.h"

/* A tenth of each unsqueezed tick: the baseline follows a phase change within a few seconds at the
 * default interval, and a three-tick drop does not move it (low ticks are not learned). */
#define GUARD_IPC_BASELINE_WEIGHT 0.1
/* A cut helped if the IPC rose by 2% of the baseline: less is sample noise. */
#define GUARD_IPC_HELP_FRACTION 0.02

static bool guarded(const struct policy_partition *p)
{
	return p->open && p->goals->class == CLASS_LATENCY_CRITICAL && p->goals->ipc_guard > 0;
}

static bool neighbours_use_bandwidth(const struct policy_partition *parts, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (parts[i].open && parts[i].goals->class == CLASS_BEST_EFFORT && parts[i].valid && parts[i].mbps > 0)
			return true;
	return false;
}

static double drop_of(const struct policy_partition *p)
{
	const struct guard_ipc_memory *m = &p->guard_ipc;

	return m->baseline > 0 ? 1 - p->ipc / m->baseline : 0;
}

/* Low for long enough: a victim, unless the last cut for it did not help. */
static void judge_low(struct policy_partition *p, struct policy_decision *d)
{
	struct guard_ipc_memory *m = &p->guard_ipc;

	if (m->low_ticks < GUARD_IPC_LOW_TICKS)
		return;
	if (m->before_cut > 0 && p->ipc < m->before_cut + GUARD_IPC_HELP_FRACTION * m->baseline) {
		policy_event(d,
			     "release: %s's IPC %.2f did not rise when neighbours were cut: its baseline is now %.2f",
			     p->name, p->ipc, p->ipc);
		m->baseline = p->ipc;
		m->low_ticks = 0;
		m->before_cut = 0;
		return;
	}
	m->victim = true;
}

static void watch_one(struct policy_partition *p, bool neighbours, bool saturated, struct policy_decision *d)
{
	struct guard_ipc_memory *m = &p->guard_ipc;

	m->victim = false;
	if (!p->ipc_valid || !(p->ipc >= 0))
		return; /* not counted: neither signal nor baseline */
	bool low = neighbours && drop_of(p) > p->goals->ipc_guard;
	if (!low) {
		m->low_ticks = 0;
		m->before_cut = 0;
		if (neighbours && saturated && m->baseline > 0)
			return; /* contended: within the fraction, but not what it gets on its own */
		m->baseline =
			m->baseline > 0 ? m->baseline + GUARD_IPC_BASELINE_WEIGHT * (p->ipc - m->baseline) : p->ipc;
		return;
	}
	m->low_ticks++;
	judge_low(p, d);
}

void guard_ipc_watch(struct policy_partition *parts, size_t count, bool saturated, struct policy_decision *decisions)
{
	bool neighbours = neighbours_use_bandwidth(parts, count);

	for (size_t i = 0; i < count; i++) {
		if (guarded(&parts[i]))
			watch_one(&parts[i], neighbours, saturated, &decisions[i]);
		else
			parts[i].guard_ipc = (struct guard_ipc_memory){ 0 }; /* off, or no longer latency-critical */
	}
}

static double best_effort_mbps(const struct policy_partition *parts, size_t count)
{
	double sum = 0;

	for (size_t i = 0; i < count; i++)
		if (parts[i].open && parts[i].goals->class == CLASS_BEST_EFFORT && parts[i].valid)
			sum += parts[i].mbps;
	return sum;
}

struct guard_ipc_view guard_ipc_assess(const struct policy_partition *parts, size_t count)
{
	struct guard_ipc_view v = { 0 };

	for (size_t i = 0; i < count; i++) {
		const struct policy_partition *p = &parts[i];
		if (!guarded(p))
			continue;
		v.watching = v.watching || p->guard_ipc.baseline > 0;
		v.low = v.low || p->guard_ipc.low_ticks > 0;
		if (p->guard_ipc.victim && drop_of(p) > v.drop) {
			v.victim = p;
			v.drop = drop_of(p);
		}
	}
	if (v.victim)
		v.need_mbps = v.drop * best_effort_mbps(parts, count);
	return v;
}

void guard_ipc_note_cut(struct policy_partition *parts, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		struct guard_ipc_memory *m = &parts[i].guard_ipc;
		if (!m->victim)
			continue;
		m->before_cut = parts[i].ipc > 0 ? parts[i].ipc : 1e-9;
		m->low_ticks = 0;
	}
}
