#include "backends/sim/sim_host.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/sim/sim_config.h"
#include "backends/sim/traffic.h"
#include "backends/mpam/mpam_regs.h"

struct sim_host {
	const struct config *config;  /* outlives the host */
	const struct sim_config *sim; /* its [sim] section */
	struct msc_model **mscs;
	size_t msc_count;
	size_t partition_count;
	double capacity_mbps;
	uint64_t start_ns, last_ns, interval_ns;
	struct traffic_rng rng;
	uint64_t demand_tick; /* the tick demand[] holds, UINT64_MAX before the first */
	double *demand;	      /* per partition, MB/s, noise applied */
	double *cpu_share;    /* per partition: the part of its demand its CPU quota lets it issue (1: all) */
	double *residual;     /* per MSC x partition: bytes not yet handed to the model */
	double *span_bytes;   /* per partition, served during the current advance */
	double *span_demand;  /* per partition, bytes demanded during the current advance */
	double *truth;	      /* per partition, MB/s over the last advance */
	double *ipc;	      /* per partition, the IPC model's value over the last advance */
	struct traffic_request *requests;
	double *served;
};

static void model_params_from_config(const struct sim_config *s, struct msc_model_params *p)
{
	msc_model_params_default(p);
	p->partid_max = (uint16_t)s->partid_max;
	p->num_mon = (uint16_t)s->monitors;
	p->scale = (uint8_t)s->scale;
	p->has_long = s->counter_bits != 31;
	p->lwd = s->counter_bits == 63;
	p->bwa_wd = (uint8_t)s->bwa_wd;
	p->nrdy_ticks = s->nrdy_ticks;
	p->nrdy_hw = s->nrdy == SIM_NRDY_HARDWARE;
	p->iidr = s->iidr;
}

void sim_host_free(struct sim_host *h)
{
	if (!h)
		return;
	for (size_t i = 0; h->mscs && i < h->msc_count; i++)
		msc_model_free(h->mscs[i]);
	free(h->mscs);
	free(h->demand);
	free(h->cpu_share);
	free(h->residual);
	free(h->span_bytes);
	free(h->span_demand);
	free(h->truth);
	free(h->ipc);
	free(h->requests);
	free(h->served);
	free(h);
}

static bool alloc_arrays(struct sim_host *h)
{
	size_t n = h->partition_count ? h->partition_count : 1;

	h->mscs = calloc(h->msc_count, sizeof(*h->mscs));
	h->demand = calloc(n, sizeof(*h->demand));
	h->cpu_share = calloc(n, sizeof(*h->cpu_share));
	h->residual = calloc(n * h->msc_count, sizeof(*h->residual));
	h->span_bytes = calloc(n, sizeof(*h->span_bytes));
	h->span_demand = calloc(n, sizeof(*h->span_demand));
	h->truth = calloc(n, sizeof(*h->truth));
	h->ipc = calloc(n, sizeof(*h->ipc));
	h->requests = calloc(n, sizeof(*h->requests));
	h->served = calloc(n, sizeof(*h->served));
	for (size_t i = 0; h->cpu_share && i < n; i++)
		h->cpu_share[i] = 1.0;
	for (size_t i = 0; h->ipc && i < h->partition_count; i++)
		h->ipc[i] = sim_partition_of(h->config, &h->config->partitions[i])->ipc; /* nothing squeezed yet */
	return h->mscs && h->demand && h->cpu_share && h->residual && h->span_bytes && h->span_demand && h->truth &&
	       h->ipc && h->requests && h->served;
}

int sim_host_new(const struct config *config, uint64_t start_ns, struct sim_host **ret, struct err *err)
{
	struct sim_host *h = calloc(1, sizeof(*h));
	struct msc_model_params params;

	if (!h)
		return err_set(err, -ENOMEM, "out of memory");
	h->config = config;
	h->sim = sim_config_of(config);
	if (!h->sim) {
		free(h);
		return err_set(err, -EINVAL, "the configuration was loaded without the simulator's keys");
	}
	h->msc_count = h->sim->mscs;
	h->partition_count = config->partition_count;
	h->capacity_mbps = h->sim->capacity_mbps;
	h->start_ns = h->last_ns = start_ns;
	h->interval_ns = (uint64_t)config->global.interval_ms * 1000000u;
	h->demand_tick = UINT64_MAX;
	traffic_rng_seed(&h->rng, h->sim->seed);
	if (!alloc_arrays(h)) {
		sim_host_free(h);
		return err_set(err, -ENOMEM, "out of memory");
	}
	model_params_from_config(h->sim, &params);
	for (size_t i = 0; i < h->msc_count; i++) {
		if (msc_model_new(&params, &h->mscs[i]) < 0) {
			sim_host_free(h);
			return err_set(err, -ENOMEM, "out of memory for simulated MSC %zu", i);
		}
	}
	*ret = h;
	return 0;
}

size_t sim_host_msc_count(const struct sim_host *h)
{
	return h->msc_count;
}

struct msc_model *sim_host_msc(struct sim_host *h, size_t index)
{
	return index < h->msc_count ? h->mscs[index] : NULL;
}

void sim_host_set_cpu_share(struct sim_host *h, size_t index, double share)
{
	if (index < h->partition_count)
		h->cpu_share[index] = share < 0 ? 0 : (share > 1 ? 1 : share);
}

double sim_host_truth_mbps(const struct sim_host *h, size_t index)
{
	return index < h->partition_count ? h->truth[index] : 0.0;
}

double sim_host_ipc(const struct sim_host *h, size_t index)
{
	return index < h->partition_count ? h->ipc[index] : 0.0;
}

static void update_demand(struct sim_host *h, uint64_t tick)
{
	if (tick == h->demand_tick)
		return;
	h->demand_tick = tick;
	for (size_t i = 0; i < h->partition_count; i++) {
		double base = demand_profile_at(sim_partition_demand(h->config, &h->config->partitions[i]), tick);
		h->demand[i] = traffic_noisy_demand(base, h->sim->noise_pct, &h->rng) * h->cpu_share[i];
	}
}

/* One MSC for dt_ns at the current demand: limits come from the MSC's own registers. */
static void serve_msc(struct sim_host *h, size_t m, uint64_t dt_ns)
{
	struct msc_model *model = h->mscs[m];
	unsigned wd = h->sim->bwa_wd;

	for (size_t i = 0; i < h->partition_count; i++) {
		uint16_t partid = h->config->partitions[i].partid;
		h->requests[i] = (struct traffic_request){
			.demand_mbps = h->demand[i] / (double)h->msc_count, /* memory is interleaved */
			.max_fraction = mpam_mbw_max_fraction(msc_model_mbw_max(model, 0, partid), wd),
			.min_fraction = mpam_mbw_min_fraction(msc_model_mbw_min(model, 0, partid), wd),
		};
	}
	traffic_serve(h->requests, h->partition_count, h->capacity_mbps, h->served);
	for (size_t i = 0; i < h->partition_count; i++) {
		double *residual = &h->residual[m * h->partition_count + i];
		double bytes = h->served[i] * (double)dt_ns / 1e3 + *residual;
		double whole = floor(bytes);
		*residual = bytes - whole;
		uint64_t total = (uint64_t)whole;
		uint64_t reads = total * SIM_READ_PERCENT / 100;
		msc_model_count(model, 0, h->config->partitions[i].partid, 0, reads, total - reads);
		h->span_bytes[i] += whole;
		h->span_demand[i] += h->requests[i].demand_mbps * (double)dt_ns / 1e3;
	}
}

void sim_host_advance(struct sim_host *h, uint64_t now_ns)
{
	if (now_ns <= h->last_ns)
		return;
	memset(h->span_bytes, 0, h->partition_count * sizeof(*h->span_bytes));
	memset(h->span_demand, 0, h->partition_count * sizeof(*h->span_demand));
	for (uint64_t t = h->last_ns; t < now_ns;) {
		uint64_t tick = (t - h->start_ns) / h->interval_ns;
		uint64_t boundary = h->start_ns + (tick + 1) * h->interval_ns;
		uint64_t end = now_ns < boundary ? now_ns : boundary;
		update_demand(h, tick);
		for (size_t m = 0; m < h->msc_count; m++) {
			serve_msc(h, m, end - t);
			if (end == boundary)
				msc_model_tick(h->mscs[m]);
		}
		t = end;
	}
	for (size_t i = 0; i < h->partition_count; i++) {
		double span_ns = (double)(now_ns - h->last_ns);
		h->truth[i] = h->span_bytes[i] * 1e3 / span_ns;
		h->ipc[i] = sim_ipc_model(sim_partition_of(h->config, &h->config->partitions[i]),
					  h->span_demand[i] * 1e3 / span_ns, h->truth[i]);
	}
	h->last_ns = now_ns;
}
