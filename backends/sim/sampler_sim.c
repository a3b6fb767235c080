/* The simulator's PMU sampler: each partition's cycles, instructions and stalls from the simulated
 * host's IPC model. Every partition runs one core at SIM_CORE_GHZ while the interval lasts, so cycles
 * are that rate times the interval, instructions are the model's IPC times the cycles, and stalls are
 * the cycles the shortfall cost it (the part of its sim_ipc it lost). It needs no cgroup or pids: the
 * simulated tasks are the partition's demand. */
#include <errno.h>
#include <stdlib.h>

#include "core/base/grow.h"

#include "backends/sim/sim_config.h"
#include "backends/sim/sim_host.h"
#include "backends/sim/sim_ops.h"

/* A 2 GHz core: the order of a server core's clock; only the ratios matter to mpamd. */
#define SIM_CORE_GHZ 2.0

struct sim_sampler_partition {
	bool added;
	const struct partition_config *config; /* what it was added as (its sim_ipc) */
	bool primed;			       /* a read since add set its baseline */
};

struct sim_sampler {
	struct pmu_sampler base;
	const struct config *config;
	struct sim_host *host;
	struct sim_sampler_partition *parts; /* per slot */
	size_t count;			     /* slots it has room for */
	bool has_last;
	uint64_t last_ns; /* the previous read (when has_last) */
};

static struct sim_sampler *ss_of(struct pmu_sampler *s)
{
	return (struct sim_sampler *)s;
}

static void ss_free(struct pmu_sampler *sampler)
{
	struct sim_sampler *s = ss_of(sampler);

	if (!s)
		return;
	free(s->parts);
	free(s);
}

static int ss_open(const struct config *config, const struct control_shared *shared, struct pmu_sampler **ret,
		   struct err *err)
{
	struct sim_sampler *s;

	if (!shared || !shared->sim)
		return err_set(err, -ENODEV, "the simulated PMU needs the simulated host (backend = sim)");
	if (!(s = calloc(1, sizeof(*s))))
		return err_set(err, -ENOMEM, "out of memory");
	if (array_grow((void **)&s->parts, &s->count, config->partition_count ? config->partition_count : 1,
		       sizeof(*s->parts), NULL) < 0) {
		free(s);
		return err_set(err, -ENOMEM, "out of memory");
	}
	s->base.ops = &pmu_sampler_sim_ops;
	s->config = config;
	s->host = shared->sim;
	*ret = &s->base;
	return 0;
}

static int ss_add(struct pmu_sampler *sampler, size_t index, const struct partition_ref *ref, struct err *err)
{
	struct sim_sampler *s = ss_of(sampler);
	/* A ref made by hand (tests) may not say: the file's partition of that slot, at the start. */
	const struct partition_config *p = ref->config				? ref->config
					   : index < s->config->partition_count ? &s->config->partitions[index]
										: NULL;

	if (!p)
		return err_set(err, -EINVAL, "partition %zu: no configuration to find its sim_ipc in", index);
	if (index == SIZE_MAX || array_grow((void **)&s->parts, &s->count, index + 1, sizeof(*s->parts), NULL) < 0)
		return err_set(err, -ENOMEM, "out of memory for partition slot %zu", index);
	s->parts[index] = (struct sim_sampler_partition){ .added = true, .config = p };
	return 0;
}

static void ss_remove(struct pmu_sampler *sampler, size_t index)
{
	struct sim_sampler *s = ss_of(sampler);

	if (index < s->count)
		s->parts[index] = (struct sim_sampler_partition){ .added = false };
}

static struct pmu_count counted(double value)
{
	return (struct pmu_count){ .counted = true, .value = value, .running_pct = 100 };
}

static void read_partition(struct sim_sampler *s, size_t i, uint64_t span_ns, struct pmu_sample *out)
{
	struct sim_sampler_partition *sp = &s->parts[i];

	*out = (struct pmu_sample){ .open = sp->added };
	if (!sp->added || !sp->primed || span_ns == 0) {
		sp->primed = sp->added;
		return; /* not added, or its baseline: nothing counted yet */
	}
	double base = sim_partition_of(s->config, sp->config)->ipc;
	double ipc = sim_host_ipc(s->host, i);
	double cycles = SIM_CORE_GHZ * (double)span_ns;
	out->counts[PMU_ROLE_CYCLES] = counted(cycles);
	out->counts[PMU_ROLE_INSTRUCTIONS] = counted(ipc * cycles);
	out->counts[PMU_ROLE_STALLS] = counted(base > 0 ? cycles * (1 - ipc / base) : 0);
}

static int ss_read(struct pmu_sampler *sampler, uint64_t now_ns, struct pmu_sample *out, size_t count, struct err *err)
{
	struct sim_sampler *s = ss_of(sampler);
	uint64_t span_ns = s->has_last && now_ns > s->last_ns ? now_ns - s->last_ns : 0;

	(void)err;
	sim_host_advance(s->host, now_ns); /* the monitors have usually run it there already */
	for (size_t i = 0; i < count; i++) {
		if (i < s->count)
			read_partition(s, i, span_ns, &out[i]);
		else
			out[i] = (struct pmu_sample){ .open = false };
	}
	s->has_last = true;
	s->last_ns = now_ns;
	return 0;
}

static json_t *ss_describe(struct pmu_sampler *sampler)
{
	(void)sampler;
	return json_pack("{s:s,s:f,s:s}", "sampler", "sim", "core_ghz", SIM_CORE_GHZ, "model",
			 "ipc = sim_ipc * (1 - sim_ipc_sensitivity * (1 - served / demanded))");
}

const struct pmu_sampler_ops pmu_sampler_sim_ops = {
	.name = "sim",
	.simulated = true,
	.config_ext = NULL, /* its keys are the simulator's (sim_ipc, sim_ipc_sensitivity) */
	.open = ss_open,
	.free = ss_free,
	.add = ss_add,
	.remove = ss_remove,
	.read = ss_read,
	.describe = ss_describe,
};
