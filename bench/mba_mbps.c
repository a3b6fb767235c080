/* The kernel's mba_MBps rule (fs/resctrl/monitor.c: mbm_bw_count() and update_mba_bw()), faithfully,
 * as a policy_fn:
 *
 *   - It acts once per MBA_MBPS_PERIOD_MS (every 1000 / interval_ms ticks), on the bandwidth of the
 *     period: the byte count over the period divided by 2^20, an integer in MiB/s (u32).
 *   - user_bw is the schemata value in MiB/s. Our target_mbps is in MB/s (10^6 bytes/s), so the bench
 *     gives the kernel the same physical target: user_bw = target_mbps * 10^6 / 2^20, rounded. (An
 *     operator who typed the MB/s figure into the schemata would get 4.9% more.)
 *   - cur_msr_val is the throttle the kernel last wrote (100 at mount); min_bw and bw_gran are the
 *     hardware's min_bandwidth and bandwidth_gran (host->min_pct and host->gran_pct). Then:
 *       if (cur_msr_val > min_bw && user_bw < cur_bw)            new = cur_msr_val - bw_gran;
 *       else if (cur_msr_val < 100 &&
 *                user_bw > cur_bw * (cur_msr_val + min_bw) / cur_msr_val) new = cur_msr_val + bw_gran;
 *       else leave it.
 *     All in u32 arithmetic, as in the kernel.
 *
 * Two guards the kernel does not need on x86 (min_bw = bw_gran = 10 there) but MPAM steps do: a
 * reported min_bandwidth of 0 (BWA_WD 8 rounds 100/256 to 0) is taken as 1, so the throttle never
 * reaches 0 and the prediction never divides by it; and the new value is clamped to [min_bw, 100]
 * when bw_gran does not divide 100 (BWA_WD 4: 7% steps).
 *
 * State between ticks lives in the partition's target_memory, which this chain does not otherwise
 * use (policy_target is not in it): out_pct is cur_msr_val, mean_mbps and hold accumulate the period's
 * samples.
 *
 * The kernel runs the rule on each domain against that domain's MiB/s value. The bench gives it the
 * partition's total against its target_mbps, and its throttle on every domain, so that both
 * controllers hold the same figure (on a host whose partitions are spread evenly over the domains,
 * the same as a per-domain value of target / domains). */
#include "bench/mba_mbps.h"

#include <math.h>
#include <stdint.h>

#define MAX_MBA_BW 100u
#define MIB	   1048576.0
#define MB	   1000000.0

static const policy_fn mba_fns[] = { policy_static, policy_mba_mbps };

const struct policy_chain policy_chain_mba_mbps = {
	.name = "mba_MBps",
	.fns = mba_fns,
	.count = sizeof(mba_fns) / sizeof(mba_fns[0]),
};

static unsigned period_ticks(const struct policy_host *h)
{
	unsigned ticks = h->interval_ms ? MBA_MBPS_PERIOD_MS / h->interval_ms : 1;

	return ticks ? ticks : 1;
}

/* min_bandwidth and bandwidth_gran as resctrl shows them for the host's ladder: the kernel's
 * controller works in those percents (on MPAM, Linux's conversion of BWA_WD). */
static void resctrl_steps(const struct ladder *l, uint32_t *min_bw, uint32_t *gran)
{
	*min_bw = *gran = 1;
	if (!l)
		return;
	if (l->kind == LADDER_PERCENT) {
		*min_bw = l->min ? l->min : 1;
		*gran = l->gran;
	} else if (l->kind == LADDER_MPAM_MAX || l->kind == LADDER_RESCTRL_MPAM) {
		uint32_t min = ladder_kernel_mpam_min(l->bwa_wd);
		*min_bw = min ? min : 1;
		*gran = ladder_kernel_mpam_gran(l->bwa_wd);
	}
}

/* update_mba_bw(): one step of bw_gran, down when over, up when the prediction stays under. */
static uint32_t update_mba_bw(uint32_t cur_msr_val, uint32_t cur_bw, uint32_t user_bw, uint32_t min_bw,
			      uint32_t bw_gran)
{
	uint32_t new_msr_val;

	if (cur_msr_val > min_bw && user_bw < cur_bw)
		new_msr_val = cur_msr_val > bw_gran ? cur_msr_val - bw_gran : min_bw;
	else if (cur_msr_val < MAX_MBA_BW && (user_bw > (cur_bw * (cur_msr_val + min_bw) / cur_msr_val)))
		new_msr_val = cur_msr_val + bw_gran;
	else
		return cur_msr_val;
	/* Clamped (see above): bw_gran need not divide 100 on MPAM. */
	if (new_msr_val > MAX_MBA_BW)
		new_msr_val = MAX_MBA_BW;
	return new_msr_val < min_bw ? min_bw : new_msr_val;
}

static void set_every_domain(const struct policy_host *h, struct policy_decision *d, double pct)
{
	d->mb_max = pct;
	for (unsigned dom = 0; d->mb_max_at && dom < h->domain_count; dom++)
		d->mb_max_at[dom] = pct;
}

static void mba_one(const struct policy_host *h, struct policy_partition *p, struct policy_decision *d)
{
	struct target_memory *m = p->target; /* its state, in the target controller's memory */

	if (!p->open || p->goals->target_mbps == 0 || !m) {
		if (m)
			*m = (struct target_memory){ 0 };
		return;
	}
	if (!m->out_pct)
		m->out_pct = MAX_MBA_BW; /* mba_MBps starts unthrottled */
	if (p->valid) {
		m->mean_mbps += p->mbps; /* the period's bytes, as MB/s per tick */
		m->n++;
	}
	if (h->tick % period_ticks(h) == 0 && m->n > 0) {
		/* mbm_bw_count(): bytes over the (1 s) period / SZ_1M */
		uint64_t bytes = (uint64_t)(m->mean_mbps / m->n * MB);
		uint32_t cur_bw = (uint32_t)(bytes / (uint64_t)MIB);
		uint32_t user_bw = (uint32_t)lround(p->goals->target_mbps * MB / MIB);
		uint32_t min_bw, gran, cur = (uint32_t)m->out_pct;
		resctrl_steps(h->max_ladder, &min_bw, &gran);
		uint32_t next = update_mba_bw(cur, cur_bw, user_bw, min_bw, gran);
		if (next != cur)
			policy_event(d, "%s: mba_MBps %u MiB/s vs %u MiB/s: MB %u%% -> %u%%",
				     next < cur ? "throttle" : "restore", cur_bw, user_bw, cur, next);
		m->out_pct = next;
		m->mean_mbps = 0;
		m->n = 0;
	}
	set_every_domain(h, d, m->out_pct);
}

void policy_mba_mbps(const struct policy_host *host, struct policy_partition *parts, size_t count,
		     struct policy_decision *decisions)
{
	for (size_t i = 0; i < count; i++)
		mba_one(host, &parts[i], &decisions[i]);
}
