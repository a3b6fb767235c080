#include "backends/sim/sim_host.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/sim/burst.h"
#include "backends/sim/mb_curve.h"
#include "backends/sim/sim_config.h"
#include "backends/sim/traffic.h"
#include "backends/mpam/mpam_regs.h"

struct sim_host {
	const struct config *config;  /* outlives the host */
	const struct sim_config *sim; /* its [sim] section */
	struct msc_model **mscs;
	size_t msc_count;
	size_t partition_count; /* slots the arrays below hold */
	/* Per slot: the partition whose traffic it carries (the file's at the start, then what the
	 * control opened there: a partition added or changed by a reload); NULL: none. */
	const struct partition_config **parts;
	double capacity_mbps;
	uint64_t start_ns, last_ns, interval_ns;
	struct traffic_rng rng;
	struct traffic_rng measure_rng; /* measure_noise_pct's own sequence */
	uint64_t demand_tick;		/* the tick demand[] holds, UINT64_MAX before the first */
	double *demand;			/* per partition, MB/s, noise applied */
	double *demand_now;		/* per partition, MB/s on each of its MSCs in the current segment (bursts) */
	const struct sim_partition_config **part; /* per partition: its sim_* keys */
	double *cpu_share;	/* per partition: the part of its demand its CPU quota lets it issue (1: all) */
	double *residual;	/* per MSC x partition: bytes served short of a whole one */
	double *measure_gain;	/* per MSC x partition: this tick's measurement noise, the factor counted */
	double *count_residual; /* per MSC x partition: bytes counted short of a whole one */
	double *msc_bytes;	/* per MSC x partition: served during the current advance */
	double *msc_truth;	/* per MSC x partition: MB/s over the last advance */
	double *span_bytes;	/* per partition, served during the current advance */
	double *span_demand;	/* per partition, bytes demanded during the current advance */
	double *truth;		/* per partition, MB/s over the last advance */
	double *ipc;		/* per partition, the IPC model's value over the last advance */
	struct traffic_request *requests;
	struct traffic_share *work; /* traffic_serve's */
	double *served;
	/* The share of capacity each band of MBW_MAX lets through (the plant's curve applied) and each
	 * band of MBW_MIN guarantees, worked out once: a band is the field >> band_shift. */
	double *max_of_band, *min_of_band;
	unsigned band_shift;
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
	p->has_min = s->mbw_min;
	p->max_lim = (uint8_t)s->max_lim;
	p->has_prop = s->mbw_prop;
	p->bwpbm_wd = (uint16_t)s->mbw_pbm_bits;
	p->has_partid_nrw = s->partid_nrw > 0;
	p->intpartid_max = (uint16_t)(s->partid_nrw ? s->partid_nrw - 1 : 0);
	p->limit_delay_ticks = s->delay_ticks;
}

/* What the [sim] preload keys say an earlier owner left, on every MSC (sim_check made sure each fits). */
static int preload(const struct sim_config *s, struct msc_model *model)
{
	int r = 0;

	for (unsigned i = 0; r == 0 && i < s->preload_mbw_prop.count; i++) {
		const struct sim_preload *p = &s->preload_mbw_prop.at[i];
		r = msc_model_preload_mbw_prop(model, p->partid, sim_preload_stridem1(p->value, s->bwa_wd));
	}
	for (unsigned i = 0; r == 0 && i < s->preload_mbw_pbm.count; i++)
		r = msc_model_preload_mbw_pbm(model, s->preload_mbw_pbm.at[i].partid, s->preload_mbw_pbm.at[i].value);
	return r;
}

/* The arrays laid out [MSC][slot]. */
#define PER_MSC_ARRAYS 5
static double **per_msc_array(struct sim_host *h, size_t which)
{
	double **arrays[PER_MSC_ARRAYS] = { &h->residual, &h->count_residual, &h->measure_gain, &h->msc_bytes,
					    &h->msc_truth };

	return arrays[which];
}

void sim_host_free(struct sim_host *h)
{
	if (!h)
		return;
	for (size_t i = 0; h->mscs && i < h->msc_count; i++)
		msc_model_free(h->mscs[i]);
	free(h->mscs);
	free(h->parts);
	free(h->demand);
	free(h->demand_now);
	free(h->part);
	free(h->cpu_share);
	for (size_t a = 0; a < PER_MSC_ARRAYS; a++)
		free(*per_msc_array(h, a));
	free(h->span_bytes);
	free(h->span_demand);
	free(h->truth);
	free(h->ipc);
	free(h->requests);
	free(h->work);
	free(h->served);
	free(h->max_of_band);
	free(h->min_of_band);
	free(h);
}

/* Makes one per-slot array `n` long, zeroing what is new. */
static bool grow_one(void **array, size_t old, size_t n, size_t size)
{
	void *grown = realloc(*array, n * size);

	if (!grown)
		return false;
	memset((char *)grown + old * size, 0, (n - old) * size);
	*array = grown;
	return true;
}

/* An array laid out [MSC][slot] of `old` slots, laid out again for `n`: NULL when out of memory. */
static double *relayout(const double *a, size_t mscs, size_t old, size_t n)
{
	double *grown = calloc(n * (mscs ? mscs : 1), sizeof(*grown));

	for (size_t m = 0; grown && a && m < mscs; m++)
		memcpy(&grown[m * n], &a[m * old], old * sizeof(*grown));
	return grown;
}

/* Every per-slot array holds `n` slots; those laid out [MSC][slot] are laid out again last, so that a
 * failure leaves every array valid for partition_count slots. */
static bool grow_slots(struct sim_host *h, size_t n)
{
	double *laid_out[PER_MSC_ARRAYS] = { NULL };
	size_t old = h->partition_count;

	if (n <= old)
		return true;
	bool ok = grow_one((void **)&h->parts, old, n, sizeof(*h->parts)) &&
		  grow_one((void **)&h->demand, old, n, sizeof(*h->demand)) &&
		  grow_one((void **)&h->demand_now, old, n, sizeof(*h->demand_now)) &&
		  grow_one((void **)&h->part, old, n, sizeof(*h->part)) &&
		  grow_one((void **)&h->cpu_share, old, n, sizeof(*h->cpu_share)) &&
		  grow_one((void **)&h->span_bytes, old, n, sizeof(*h->span_bytes)) &&
		  grow_one((void **)&h->span_demand, old, n, sizeof(*h->span_demand)) &&
		  grow_one((void **)&h->truth, old, n, sizeof(*h->truth)) &&
		  grow_one((void **)&h->ipc, old, n, sizeof(*h->ipc)) &&
		  grow_one((void **)&h->requests, old, n, sizeof(*h->requests)) &&
		  grow_one((void **)&h->work, old, n, sizeof(*h->work)) &&
		  grow_one((void **)&h->served, old, n, sizeof(*h->served));
	for (size_t a = 0; ok && a < PER_MSC_ARRAYS; a++)
		ok = (laid_out[a] = relayout(*per_msc_array(h, a), h->msc_count, old, n)) != NULL;
	for (size_t a = 0; a < PER_MSC_ARRAYS; a++) {
		double **array = per_msc_array(h, a);
		free(ok ? *array : laid_out[a]);
		if (ok)
			*array = laid_out[a];
	}
	if (!ok)
		return false;
	for (size_t i = old; i < n; i++)
		h->cpu_share[i] = 1.0;
	for (size_t m = 0; m < h->msc_count; m++)
		for (size_t i = old; i < n; i++)
			h->measure_gain[m * n + i] = 1.0;
	h->partition_count = n;
	return true;
}

static bool alloc_arrays(struct sim_host *h)
{
	size_t n = h->config->partition_count ? h->config->partition_count : 1;

	h->mscs = calloc(h->msc_count ? h->msc_count : 1, sizeof(*h->mscs));
	if (!h->mscs || !grow_slots(h, n))
		return false;
	for (size_t i = 0; i < h->config->partition_count; i++) {
		h->parts[i] = &h->config->partitions[i];
		h->part[i] = sim_partition_of(h->config, h->parts[i]);
		h->ipc[i] = h->part[i]->ipc; /* nothing squeezed yet */
	}
	return true;
}

int sim_host_partition_set(struct sim_host *h, size_t index, const struct partition_config *p, struct err *err)
{
	if (!p && index >= h->partition_count)
		return 0; /* nothing there to forget */
	if (index == SIZE_MAX || !grow_slots(h, index + 1))
		return err_set(err, -ENOMEM, "out of memory for partition slot %zu", index);
	if (h->parts[index] != p) {
		h->part[index] = p ? sim_partition_of(h->config, p) : NULL;
		h->ipc[index] = p ? h->part[index]->ipc : 0.0;
	}
	h->parts[index] = p;
	return 0;
}

/* The largest share of capacity an MBW_MAX lets through: the top of its band, through the plant's
 * curve (mb_curve; linear by default). */
static double max_fraction(const struct sim_host *h, uint16_t mbw_max)
{
	return mb_curve_fraction(&h->sim->mb_curve, 100 * mpam_mbw_max_fraction(mbw_max, h->sim->bwa_wd));
}

/* The fractions of every band, from the same functions the traffic model used per PARTID and tick:
 * BWA_WD implemented bits (1..16, as mpam_regs.c clamps it) make 2^BWA_WD bands. */
static bool make_band_tables(struct sim_host *h)
{
	unsigned wd = h->sim->bwa_wd < 1 ? 1 : (h->sim->bwa_wd > 16 ? 16 : h->sim->bwa_wd);
	size_t bands = (size_t)1 << wd;

	h->band_shift = 16 - wd;
	h->max_of_band = calloc(bands, sizeof(*h->max_of_band));
	h->min_of_band = calloc(bands, sizeof(*h->min_of_band));
	if (!h->max_of_band || !h->min_of_band)
		return false;
	for (size_t b = 0; b < bands; b++) {
		uint16_t field = (uint16_t)(b << h->band_shift);
		h->max_of_band[b] = max_fraction(h, field);
		h->min_of_band[b] = mpam_mbw_min_fraction(field, h->sim->bwa_wd);
	}
	return true;
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
	h->capacity_mbps = h->sim->capacity_mbps;
	h->start_ns = h->last_ns = start_ns;
	h->interval_ns = (uint64_t)config->global.interval_ms * 1000000u;
	h->demand_tick = UINT64_MAX;
	traffic_rng_seed(&h->rng, h->sim->seed);
	traffic_rng_seed(&h->measure_rng, traffic_measure_seed(h->sim->seed));
	if (!alloc_arrays(h) || !make_band_tables(h)) {
		sim_host_free(h);
		return err_set(err, -ENOMEM, "out of memory");
	}
	model_params_from_config(h->sim, &params);
	for (size_t i = 0; i < h->msc_count; i++) {
		int r = msc_model_new(&params, &h->mscs[i]);
		if (r == 0 && (r = preload(h->sim, h->mscs[i])) < 0)
			err_set(err, r, "simulated MSC %zu: a preload does not fit the MSC", i);
		else if (r < 0)
			err_set(err, r, "simulated MSC %zu: %s", i,
				r == -ENOMEM ? "out of memory" : "the [sim] keys make no MSC");
		if (r < 0) {
			sim_host_free(h);
			return r;
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

double sim_host_msc_truth_mbps(const struct sim_host *h, size_t index, size_t msc)
{
	return index < h->partition_count && msc < h->msc_count ? h->msc_truth[msc * h->partition_count + index] : 0.0;
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
		double base = h->part[i] ? demand_profile_at(&h->part[i]->demand, tick) : 0;
		h->demand[i] = traffic_noisy_demand(base, h->sim->noise_pct, &h->rng) * h->cpu_share[i];
	}
	for (size_t m = 0; h->sim->measure_noise_pct && m < h->msc_count * h->partition_count; m++)
		h->measure_gain[m] = traffic_noise_factor(h->sim->measure_noise_pct, &h->measure_rng);
}

/* Each partition's demand on each of its MSCs from t_ns (simulated time) on, into demand_now; returns
 * when the next burst edge falls (UINT64_MAX: none), where the segment must end. Memory is
 * interleaved evenly over the MSCs a partition uses (sim_domains, or all). */
static uint64_t segment_demand(struct sim_host *h, uint64_t t_ns)
{
	uint64_t edge = UINT64_MAX;

	for (size_t i = 0; i < h->partition_count; i++) {
		const struct sim_partition_config *sp = h->part[i];
		if (!sp) { /* an empty slot: no traffic */
			h->demand_now[i] = 0;
			continue;
		}
		unsigned domains = sim_partition_domain_count(sp, (unsigned)h->msc_count);
		uint64_t next = burst_next_edge(&sp->burst, t_ns);
		h->demand_now[i] = domains && burst_on(&sp->burst, t_ns) ? h->demand[i] / domains : 0;
		edge = next < edge ? next : edge;
	}
	return edge;
}

/* floor(bytes) for the byte counts here (never negative, far below 2^63): the same value, without a
 * call into libm. */
static double whole_part(double bytes)
{
	return bytes < 0x1p63 ? (double)(int64_t)bytes : floor(bytes);
}

/* The whole bytes of `bytes` plus what *residual kept of earlier ones; keeps the fraction left. */
static double whole_bytes(double bytes, double *residual)
{
	double sum = bytes + *residual, whole = whole_part(sum);

	*residual = sum - whole;
	return whole;
}

/* One MSC for dt_ns at the current demand: limits come from the MSC's own registers, so each MSC
 * applies the curve to whatever its own MBW_MAX holds. */
static void serve_msc(struct sim_host *h, size_t m, uint64_t dt_ns)
{
	struct msc_model *model = h->mscs[m];

	for (size_t i = 0; i < h->partition_count; i++) {
		uint16_t partid = h->parts[i] ? h->parts[i]->partid : 0;
		struct msc_model_limits lim;
		msc_model_traffic_limits(model, 0, partid, &lim);
		/* MBW_PROP and MBW_PBM left in force hold whatever MBW_MAX says, soft or hard. */
		double others = lim.prop_share < lim.pbm_share ? lim.prop_share : lim.pbm_share;
		double max = h->max_of_band[lim.mbw_max >> h->band_shift];
		h->requests[i] = (struct traffic_request){
			.demand_mbps =
				h->part[i] && sim_partition_uses_domain(h->part[i], (unsigned)m) ? h->demand_now[i] : 0,
			.max_fraction = max < others ? max : others,
			.min_fraction = h->min_of_band[lim.mbw_min >> h->band_shift],
			.soft = !lim.hardlim,
			.soft_ceiling_fraction = others,
		};
	}
	traffic_serve(h->requests, h->partition_count, h->capacity_mbps, h->work, h->served);
	for (size_t i = 0; i < h->partition_count; i++) {
		size_t at = m * h->partition_count + i;
		double served = h->served[i] * (double)dt_ns / 1e3;
		double whole = whole_bytes(served, &h->residual[at]);
		/* What the monitors see: the served bytes with this tick's measurement noise (a factor of
		 * 0.5..1.5, so the counter only ever grows). */
		uint64_t total = (uint64_t)whole_bytes(served * h->measure_gain[at], &h->count_residual[at]);
		uint64_t reads = total * SIM_READ_PERCENT / 100;
		if (h->parts[i])
			msc_model_count(model, 0, h->parts[i]->partid, 0, reads, total - reads);
		h->span_bytes[i] += whole;
		h->msc_bytes[at] += whole;
		h->span_demand[i] += h->requests[i].demand_mbps * (double)dt_ns / 1e3;
	}
}

/* Sets the demand of the segment that starts at t and returns where it ends: at `limit` (the next
 * tick boundary, or now), or earlier at a burst edge, so that the traffic model sees every change. */
static uint64_t segment_end(struct sim_host *h, uint64_t t, uint64_t limit)
{
	uint64_t since_start = t - h->start_ns;
	uint64_t edge = segment_demand(h, since_start);

	return edge != UINT64_MAX && edge - since_start < limit - t ? t + (edge - since_start) : limit;
}

void sim_host_advance(struct sim_host *h, uint64_t now_ns)
{
	if (now_ns <= h->last_ns)
		return;
	memset(h->span_bytes, 0, h->partition_count * sizeof(*h->span_bytes));
	memset(h->span_demand, 0, h->partition_count * sizeof(*h->span_demand));
	memset(h->msc_bytes, 0, h->msc_count * h->partition_count * sizeof(*h->msc_bytes));
	for (uint64_t t = h->last_ns; t < now_ns;) {
		uint64_t tick = (t - h->start_ns) / h->interval_ns;
		uint64_t boundary = h->start_ns + (tick + 1) * h->interval_ns;
		update_demand(h, tick);
		uint64_t end = segment_end(h, t, now_ns < boundary ? now_ns : boundary);
		for (size_t m = 0; m < h->msc_count; m++) {
			serve_msc(h, m, end - t);
			if (end == boundary)
				msc_model_tick(h->mscs[m]);
		}
		t = end;
	}
	for (size_t m = 0; m < h->msc_count * h->partition_count; m++)
		h->msc_truth[m] = h->msc_bytes[m] * 1e3 / (double)(now_ns - h->last_ns);
	for (size_t i = 0; i < h->partition_count; i++) {
		double span_ns = (double)(now_ns - h->last_ns);
		h->truth[i] = h->span_bytes[i] * 1e3 / span_ns;
		if (h->part[i])
			h->ipc[i] = sim_ipc_model(h->part[i], h->span_demand[i] * 1e3 / span_ns, h->truth[i]);
	}
	h->last_ns = now_ns;
}
