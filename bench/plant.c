/* The bench's host double (see plant.h). */
#include "bench/plant.h"

#include <stdlib.h>
#include <string.h>

#include "backends/mpam/mpam_regs.h"

const struct plant_curve plant_linear = { .name = "linear", .n = 0 };

/* Intel MBA as resctrl.rst and measurements describe it: strongly concave, so most of the
 * bandwidth is gone before half the setting is. */
const struct plant_curve plant_concave = {
	.name = "concave",
	.n = 3,
	.pct = { 10, 30, 50 },
	.frac = { 0.35, 0.75, 0.90 },
};

int plant_init(struct plant *pl, const struct plant_setup *setup, const struct policy_chain *chain, size_t cap)
{
	memset(pl, 0, sizeof(*pl));
	pl->setup = *setup;
	pl->chain = chain;
	pl->cap = cap;
	pl->parts = calloc(cap, sizeof(*pl->parts));
	pl->dec = calloc(cap, sizeof(*pl->dec));
	pl->demand = calloc(cap, sizeof(*pl->demand));
	pl->domain = calloc(cap, sizeof(*pl->domain));
	pl->truth = calloc(cap, sizeof(*pl->truth));
	pl->req = calloc(cap, sizeof(*pl->req));
	pl->served = calloc(cap, sizeof(*pl->served));
	pl->work = calloc(cap, sizeof(*pl->work));
	pl->members = calloc(cap, sizeof(*pl->members));
	pl->sub_parts = calloc(cap, sizeof(*pl->sub_parts));
	pl->sub_dec = calloc(cap, sizeof(*pl->sub_dec));
	traffic_rng_seed(&pl->rng, setup->seed);
	pl->host = (struct policy_host){
		.interval_ms = 100,
		.gran_pct = setup->gran_pct ? setup->gran_pct : 1,
		.min_pct = setup->min_pct ? setup->min_pct : 1,
		.has_mb_min = setup->has_mb_min,
		.cpus = 16,
	};
	if (!pl->parts || !pl->dec || !pl->demand || !pl->domain || !pl->truth || !pl->req || !pl->served ||
	    !pl->work || !pl->members || !pl->sub_parts || !pl->sub_dec || setup->domains == 0 ||
	    setup->domains > PLANT_MAX_DOMAINS) {
		plant_free(pl);
		return -1;
	}
	return 0;
}

void plant_free(struct plant *pl)
{
	free(pl->parts);
	free(pl->dec);
	free(pl->demand);
	free(pl->domain);
	free(pl->truth);
	free(pl->req);
	free(pl->served);
	free(pl->work);
	free(pl->members);
	free(pl->sub_parts);
	free(pl->sub_dec);
	memset(pl, 0, sizeof(*pl));
}

/* The setting the hardware keeps: MBW_MAX's read-back percentage, or the step at or below it. */
static unsigned in_force_max(const struct plant *pl, unsigned pct)
{
	unsigned gran = pl->host.gran_pct, floor_pct = pl->host.min_pct;

	if (pl->setup.bwa_wd)
		return mpam_mbw_max_to_percent(mpam_mbw_max_from_percent(pct, pl->setup.bwa_wd), pl->setup.bwa_wd);
	if (pct < 100)
		pct = pct / gran * gran;
	return pct < floor_pct ? floor_pct : pct;
}

static double curve_at(const struct plant_curve *c, double pct)
{
	double x0 = 0, y0 = 0;

	for (size_t k = 0; k <= c->n; k++) {
		double x1 = k < c->n ? c->pct[k] : 100, y1 = k < c->n ? c->frac[k] : 1;
		if (pct <= x1)
			return y0 + (y1 - y0) * (pct - x0) / (x1 - x0);
		x0 = x1;
		y0 = y1;
	}
	return 1;
}

double plant_fraction(const struct plant *pl, unsigned pct)
{
	double share = pct / 100.0;

	if (pl->setup.bwa_wd)
		share = mpam_mbw_max_fraction(mpam_mbw_max_from_percent(pct, pl->setup.bwa_wd), pl->setup.bwa_wd);
	return curve_at(pl->setup.curve ? pl->setup.curve : &plant_linear, 100 * share);
}

static double min_fraction(const struct plant *pl, unsigned pct)
{
	if (!pl->setup.has_mb_min || pct == 0)
		return 0;
	if (pl->setup.bwa_wd)
		return mpam_mbw_min_fraction(mpam_mbw_min_from_percent(pct, pl->setup.bwa_wd), pl->setup.bwa_wd);
	return pct / 100.0;
}

static void apply(struct plant *pl, size_t i, unsigned mb_max, unsigned mb_min)
{
	struct policy_partition *p = &pl->parts[i];

	p->mb_max = in_force_max(pl, mb_max);
	p->mb_min = pl->setup.has_mb_min ? mb_min : 0;
}

size_t plant_add(struct plant *pl, const char *name, enum partition_class class, unsigned domain,
		 struct plant_demand demand)
{
	size_t i = pl->n++;

	pl->parts[i] = (struct policy_partition){
		.name = name, .goals.class = class, .goals.mb_max = 100, .goals.weight = 100, .open = true
	};
	pl->demand[i] = demand;
	pl->domain[i] = domain < pl->setup.domains ? domain : 0;
	apply(pl, i, 100, 0);
	return i;
}

double plant_demand_now(const struct plant *pl, size_t i)
{
	const struct plant_demand *d = &pl->demand[i];

	if (!d->period)
		return d->base_mbps;
	double phase = (double)(pl->host.tick % d->period) / d->period;
	return phase < d->duty ? d->base_mbps : d->low_mbps;
}

static void serve_domain(struct plant *pl, unsigned dom)
{
	size_t k = 0;

	for (size_t i = 0; i < pl->n; i++) {
		if (pl->domain[i] != dom)
			continue;
		const struct policy_partition *p = &pl->parts[i];
		pl->members[k] = i;
		pl->req[k++] = (struct traffic_request){
			.demand_mbps = plant_demand_now(pl, i),
			.max_fraction = plant_fraction(pl, p->mb_max),
			.min_fraction = min_fraction(pl, p->mb_min),
		};
	}
	traffic_serve(pl->req, k, pl->setup.capacity_mbps, pl->work, pl->served);
	for (size_t j = 0; j < k; j++)
		pl->truth[pl->members[j]] = pl->served[j];
}

/* The host's view for one run of the chain over `count` partitions of total rate `total` with
 * capacity `capacity` (the learned figure: the highest total seen, slot `slot`). */
static void fill_host(struct plant *pl, size_t slot, double capacity, double total)
{
	if (total > pl->learned_mbps[slot])
		pl->learned_mbps[slot] = total;
	pl->host.total_mbps = total;
	pl->host.total_valid = true;
	pl->host.capacity_learned = !pl->setup.capacity_known;
	pl->host.capacity_mbps = pl->setup.capacity_known ? capacity : pl->learned_mbps[slot];
}

static void run_chain(struct plant *pl, struct policy_partition *parts, struct policy_decision *dec, size_t count)
{
	for (size_t f = 0; f < pl->chain->count; f++)
		pl->chain->fns[f](&pl->host, parts, count, dec);
}

static void decide_per_domain(struct plant *pl)
{
	for (unsigned dom = 0; dom < pl->setup.domains; dom++) {
		size_t k = 0;
		double total = 0;
		for (size_t i = 0; i < pl->n; i++) {
			if (pl->domain[i] != dom)
				continue;
			pl->members[k] = i;
			pl->sub_parts[k] = pl->parts[i];
			pl->sub_dec[k++] = pl->dec[i];
			total += pl->parts[i].mbps;
		}
		fill_host(pl, dom, pl->setup.capacity_mbps, total);
		run_chain(pl, pl->sub_parts, pl->sub_dec, k);
		for (size_t j = 0; j < k; j++) {
			pl->parts[pl->members[j]] = pl->sub_parts[j];
			pl->dec[pl->members[j]] = pl->sub_dec[j];
		}
	}
}

void plant_tick(struct plant *pl)
{
	double total = 0;

	for (unsigned dom = 0; dom < pl->setup.domains; dom++)
		serve_domain(pl, dom);
	pl->host.tick++;
	for (size_t i = 0; i < pl->n; i++) {
		struct policy_partition *p = &pl->parts[i];
		p->valid = true;
		p->mbps = pl->truth[i] * (1 + pl->setup.noise * traffic_rng_symmetric(&pl->rng));
		p->smoothed_mbps = p->mbps;
		total += p->mbps;
		pl->dec[i] = (struct policy_decision){ .mb_max = p->goals.mb_max, .mb_min = p->goals.mb_min };
	}
	if (pl->setup.per_domain) {
		decide_per_domain(pl);
	} else {
		fill_host(pl, pl->setup.domains, pl->setup.capacity_mbps * pl->setup.domains, total);
		run_chain(pl, pl->parts, pl->dec, pl->n);
	}
	for (size_t i = 0; i < pl->n; i++) {
		apply(pl, i, pl->dec[i].mb_max, pl->dec[i].mb_min);
		pl->parts[i].cpu_quota_pct = pl->dec[i].cpu_quota_pct;
	}
}
