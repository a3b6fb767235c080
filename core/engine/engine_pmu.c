/* PMU counts beside bandwidth: the sampler's deltas become each partition's IPC and stall ratio (in
 * its status and in the policies' state), "not counted" kept apart from 0. */
#include <stdio.h>

#include "core/base/log.h"
#include "core/engine/engine_internal.h"

void engine_pmu_open(struct engine *e, size_t index)
{
	struct engine_partition *ep = &e->slots.partitions[index];
	struct err err = { "" };

	ep->status.pmu_reason = NULL; /* it may be a text the sampler frees as it adds the partition */
	engine_text_free(&ep->pmu_reason);
	if (!e->hw.pmu.ops)
		return;
	if (composition_pmu_add(&e->hw, index, &ep->ref, &err) < 0) {
		engine_text_set(&ep->pmu_reason, err.text);
		log_warning("partition %s: PMU events not counted: %s", ep->config->name, err.text);
	} else if (err.text[0]) {
		log_info("partition %s: %s", ep->config->name, err.text);
	}
}

static void pmu_status(struct engine *e, size_t index)
{
	struct engine_partition *ep = &e->slots.partitions[index];
	struct partition_status *st = &ep->status;
	struct policy_partition *pp = &e->policy.partitions[index];

	st->pmu_open = st->open && e->slots.pmu[index].open;
	st->ipc_valid = st->pmu_open && pmu_sample_ipc(&e->slots.pmu[index], &st->ipc);
	st->stall_valid = st->pmu_open && pmu_sample_stall_ratio(&e->slots.pmu[index], &st->stall_ratio);
	if (!st->ipc_valid)
		st->ipc = 0;
	if (!st->stall_valid)
		st->stall_ratio = 0;
	const char *sampled = e->slots.pmu[index].reason;
	st->pmu_reason =
		ep->pmu_reason && ep->pmu_reason[0] ? ep->pmu_reason : (sampled && sampled[0] ? sampled : NULL);
	if (!e->hw.pmu.ops)
		st->pmu_reason = "PMU counting is off";
	pp->ipc_valid = st->ipc_valid;
	pp->ipc = st->ipc;
	pp->stall_valid = st->stall_valid;
	pp->stall_ratio = st->stall_ratio;
}

void engine_pmu_tick(struct engine *e, uint64_t now_ns)
{
	size_t n = e->slots.count;

	composition_read_pmu(&e->hw, now_ns, e->slots.pmu, n);
	for (size_t i = 0; i < n; i++)
		if (e->slots.partitions[i].used)
			pmu_status(e, i);
}
