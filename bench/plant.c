/* The bench's host double (see plant.h). */
#include "bench/plant.h"

#include <stdlib.h>
#include <string.h>

#include "backends/contracts/control.h"

static const policy_fn target_fns[] = { policy_static, policy_target };
const struct policy_chain plant_target_chain = { "target", target_fns, sizeof(target_fns) / sizeof(target_fns[0]) };
static const policy_fn guard_fns[] = { policy_static, policy_guard, policy_share };
const struct policy_chain plant_guard_chain = { "guard", guard_fns, sizeof(guard_fns) / sizeof(guard_fns[0]) };

const struct mb_curve plant_linear = { .count = 0 };

/* Intel MBA as resctrl.rst and measurements describe it: strongly concave, so most of the
 * bandwidth is gone before half the setting is. */
const struct mb_curve plant_concave = {
	.count = 3,
	.points = { { 10, 0.35 }, { 30, 0.75 }, { 50, 0.90 } },
};

static size_t cells(const struct plant *pl)
{
	return pl->cap * (pl->setup.domains ? pl->setup.domains : 1);
}

int plant_init(struct plant *pl, const struct plant_setup *setup, const struct policy_chain *chain, size_t cap)
{
	memset(pl, 0, sizeof(*pl));
	pl->setup = *setup;
	pl->chain = chain;
	pl->cap = cap;
	pl->parts = calloc(cap, sizeof(*pl->parts));
	pl->targets = calloc(cap, sizeof(*pl->targets));
	pl->dec = calloc(cap, sizeof(*pl->dec));
	pl->goals = calloc(cap, sizeof(*pl->goals));
	pl->demand = calloc(cap, sizeof(*pl->demand));
	pl->domain = calloc(cap, sizeof(*pl->domain));
	pl->truth = calloc(cap, sizeof(*pl->truth));
	pl->truth_at = calloc(cells(pl), sizeof(*pl->truth_at));
	pl->measured = calloc(cells(pl), sizeof(*pl->measured));
	pl->pdom = calloc(cells(pl), sizeof(*pl->pdom));
	pl->dec_max = calloc(cells(pl), sizeof(*pl->dec_max));
	pl->dec_min = calloc(cells(pl), sizeof(*pl->dec_min));
	pl->max_at = calloc(cells(pl), sizeof(*pl->max_at));
	pl->min_at = calloc(cells(pl), sizeof(*pl->min_at));
	pl->max_ring = calloc(cells(pl) * (PLANT_MAX_DELAY + 1), sizeof(*pl->max_ring));
	pl->min_ring = calloc(cells(pl) * (PLANT_MAX_DELAY + 1), sizeof(*pl->min_ring));
	pl->policy_work = calloc(cap, sizeof(*pl->policy_work));
	pl->req = calloc(cap, sizeof(*pl->req));
	pl->served = calloc(cap, sizeof(*pl->served));
	pl->serve_work = calloc(cap, sizeof(*pl->serve_work));
	pl->members = calloc(cap, sizeof(*pl->members));
	pl->last_at = calloc(cells(pl), sizeof(*pl->last_at));
	pl->seen = calloc(cap, sizeof(*pl->seen));
	pl->monitored = calloc(cap, sizeof(*pl->monitored));
	traffic_rng_seed(&pl->rng, setup->seed);
	if (setup->units_max) {
		ladder_units(1, setup->units_max, setup->mbps_per_unit, &pl->max_ladder);
		ladder_percent(1, 0, &pl->min_ladder);
	} else if (setup->bwa_wd) {
		ladder_mpam_max(setup->bwa_wd, &pl->max_ladder);
		ladder_mpam_min(setup->bwa_wd, &pl->min_ladder);
	} else {
		ladder_percent(setup->gran_pct ? setup->gran_pct : 1, setup->min_pct ? setup->min_pct : 1,
			       &pl->max_ladder);
		ladder_percent(1, 0, &pl->min_ladder);
	}
	if (!setup->has_mb_min)
		pl->min_ladder = (struct ladder){ .kind = LADDER_NONE };
	pl->host = (struct policy_host){
		.interval_ms = 100,
		.max_ladder = &pl->max_ladder,
		.min_ladder = &pl->min_ladder,
		.has_mb_min = setup->has_mb_min,
		.cpus = 16,
	};
	if (!pl->parts || !pl->targets || !pl->dec || !pl->goals || !pl->demand || !pl->domain || !pl->truth ||
	    !pl->truth_at || !pl->measured || !pl->pdom || !pl->dec_max || !pl->dec_min || !pl->max_at || !pl->min_at ||
	    !pl->policy_work || !pl->serve_work || !pl->req || !pl->served || !pl->members || !pl->max_ring ||
	    !pl->min_ring || !pl->last_at || !pl->seen || !pl->monitored || setup->delay > PLANT_MAX_DELAY ||
	    setup->domains == 0 || setup->domains > PLANT_MAX_DOMAINS) {
		plant_free(pl);
		return -1;
	}
	return 0;
}

void plant_free(struct plant *pl)
{
	for (size_t i = 0; pl->dec && i < pl->cap; i++)
		policy_decision_clear(&pl->dec[i]);
	free(pl->parts);
	free(pl->targets);
	free(pl->dec);
	free(pl->goals);
	free(pl->demand);
	free(pl->domain);
	free(pl->truth);
	free(pl->truth_at);
	free(pl->measured);
	free(pl->pdom);
	free(pl->dec_max);
	free(pl->dec_min);
	free(pl->max_at);
	free(pl->min_at);
	free(pl->max_ring);
	free(pl->min_ring);
	free(pl->policy_work);
	free(pl->req);
	free(pl->served);
	free(pl->serve_work);
	free(pl->members);
	free(pl->last_at);
	free(pl->seen);
	free(pl->monitored);
	memset(pl, 0, sizeof(*pl));
}

/* What the curve lets through at the rung pct (what the hardware enforces there). */
double plant_fraction(const struct plant *pl, double pct)
{
	if (pl->setup.units_max) /* the setting's bandwidth as a share of the domain */
		pct = pct / 100 * pl->setup.units_max * pl->setup.mbps_per_unit / pl->setup.capacity_mbps * 100;
	return mb_curve_fraction(pl->setup.curve ? pl->setup.curve : &plant_linear, pct > 100 ? 100 : pct);
}

static double min_fraction(const struct plant *pl, double pct)
{
	return pl->setup.has_mb_min ? pct / 100.0 : 0;
}

double plant_max_at(const struct plant *pl, size_t i, unsigned d)
{
	return pl->max_at[i * pl->setup.domains + d];
}

double plant_decided_max_at(const struct plant *pl, size_t i, unsigned d)
{
	return pl->setup.per_domain ? pl->dec_max[i * pl->setup.domains + d] : pl->dec[i].mb_max;
}

/* What the hardware keeps of a decision on domain d (its rungs, as the engine snaps them); the
 * partition's summary is the highest. */
static void apply(struct plant *pl, size_t i, unsigned d, double mb_max, double mb_min)
{
	size_t at = i * pl->setup.domains + d;

	pl->max_at[at] = control_snap_max(&pl->max_ladder, mb_max);
	pl->min_at[at] = pl->setup.has_mb_min ? control_snap_min(&pl->min_ladder, mb_min) : 0;
	size_t slot = (pl->host.tick % (PLANT_MAX_DELAY + 1)) * cells(pl) + at;
	pl->max_ring[slot] = pl->max_at[at];
	pl->min_ring[slot] = pl->min_at[at];
}

/* The limits the traffic obeys this tick: those decided `delay` ticks before the last decision (the
 * first ones until there were that many). */
static double obeyed(const struct plant *pl, const double *ring, const double *now, size_t at)
{
	uint64_t decided = pl->host.tick; /* the tick of the last decision */
	if (pl->setup.delay == 0)
		return now[at];
	uint64_t t = decided >= pl->setup.delay ? decided - pl->setup.delay : 0;
	return ring[(t % (PLANT_MAX_DELAY + 1)) * cells(pl) + at];
}

/* The configured limits as the engine gives them to the policies: rungs. */
static void snap_goals(struct plant *pl, size_t i)
{
	struct policy_partition *p = &pl->parts[i];

	p->cfg_max = control_snap_max(&pl->max_ladder, p->goals->mb_max);
	p->cfg_min = pl->setup.has_mb_min ? control_snap_min(&pl->min_ladder, p->goals->mb_min) : 0;
}

static void summarise_limits(struct plant *pl, size_t i)
{
	struct policy_partition *p = &pl->parts[i];

	p->mb_max = p->mb_min = 0;
	for (unsigned d = 0; d < pl->setup.domains; d++) {
		size_t at = i * pl->setup.domains + d;
		p->mb_max = pl->max_at[at] > p->mb_max ? pl->max_at[at] : p->mb_max;
		p->mb_min = pl->min_at[at] > p->mb_min ? pl->min_at[at] : p->mb_min;
	}
}

size_t plant_add(struct plant *pl, const char *name, enum partition_class class, unsigned domain,
		 struct plant_demand demand)
{
	size_t i = pl->n++;

	pl->parts[i] = (struct policy_partition){
		.name = name,
		.goals = &pl->goals[i],
		.open = true,
		.target = &pl->targets[i], /* each may be given a target_mbps at any tick */
	};
	pl->goals[i] = (struct partition_goals){ .class = class, .mb_max = 100, .weight = 100 };
	pl->demand[i] = demand;
	pl->domain[i] = domain < pl->setup.domains || domain == PLANT_ALL_DOMAINS ? domain : 0;
	for (unsigned d = 0; d < pl->setup.domains; d++) {
		apply(pl, i, d, 100, 0);
		for (unsigned k = 0; k <= PLANT_MAX_DELAY; k++) { /* in force since ever */
			pl->max_ring[k * cells(pl) + i * pl->setup.domains + d] = pl->max_at[i * pl->setup.domains + d];
			pl->min_ring[k * cells(pl) + i * pl->setup.domains + d] = pl->min_at[i * pl->setup.domains + d];
		}
	}
	summarise_limits(pl, i);
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

/* Its demand on domain `dom`: all of it where it is pinned, an even share when it is spread. */
static double demand_on(const struct plant *pl, size_t i, unsigned dom)
{
	if (pl->domain[i] == PLANT_ALL_DOMAINS)
		return plant_demand_now(pl, i) / pl->setup.domains;
	return pl->domain[i] == dom ? plant_demand_now(pl, i) : 0;
}

static void serve_domain(struct plant *pl, unsigned dom)
{
	size_t k = 0;

	for (size_t i = 0; i < pl->n; i++) {
		double demand = demand_on(pl, i, dom);
		pl->truth_at[i * pl->setup.domains + dom] = 0;
		if (!(demand > 0))
			continue;
		pl->members[k] = i;
		pl->req[k++] = (struct traffic_request){
			.demand_mbps = demand,
			.max_fraction =
				plant_fraction(pl, obeyed(pl, pl->max_ring, pl->max_at, i * pl->setup.domains + dom)),
			.min_fraction =
				min_fraction(pl, obeyed(pl, pl->min_ring, pl->min_at, i * pl->setup.domains + dom)),
		};
	}
	traffic_serve(pl->req, k, pl->setup.capacity_mbps, pl->serve_work, pl->served);
	for (size_t j = 0; j < k; j++) {
		pl->truth_at[pl->members[j] * pl->setup.domains + dom] = pl->served[j];
		pl->truth[pl->members[j]] += pl->served[j];
	}
}

/* The capacity the policies see: the known figure, or the highest valid total seen (slot `slot`). */
static void judge_capacity(struct plant *pl, size_t slot, double capacity, double total, double *ret, bool *ret_learned)
{
	if (total > pl->learned_mbps[slot])
		pl->learned_mbps[slot] = total;
	*ret_learned = !pl->setup.capacity_known;
	*ret = pl->setup.capacity_known ? capacity : pl->learned_mbps[slot];
}

/* Each domain's figures and each partition's view of it, when the policies decide per domain. */
static void fill_domains(struct plant *pl)
{
	const double *measured = pl->measured;
	unsigned nd = pl->setup.domains;

	for (unsigned d = 0; d < nd; d++) {
		struct policy_host_domain *hd = &pl->host_doms[d];
		*hd = (struct policy_host_domain){ .total_valid = true,
						   .max_ladder = &pl->max_ladder,
						   .min_ladder = &pl->min_ladder };
		for (size_t i = 0; i < pl->n; i++) {
			struct policy_domain *pd = &pl->pdom[i * nd + d];
			pd->cfg_max = pl->parts[i].cfg_max;
			pd->cfg_min = pl->parts[i].cfg_min;
			pd->valid = pl->parts[i].valid;
			pd->estimated = pl->parts[i].estimated;
			pd->mbps = measured[i * nd + d];
			hd->total_valid &= pd->valid;
			pd->mb_max = pl->max_at[i * nd + d];
			pd->mb_min = pl->min_at[i * nd + d];
			hd->total_mbps += pd->mbps;
		}
		judge_capacity(pl, d, pl->setup.capacity_mbps, hd->total_mbps, &hd->capacity_mbps,
			       &hd->capacity_learned);
	}
	pl->host.domain_count = nd;
	pl->host.domains = pl->host_doms;
	pl->host.work = pl->policy_work;
	for (size_t i = 0; i < pl->n; i++) {
		pl->parts[i].domains = &pl->pdom[i * nd];
		pl->dec[i].mb_max_at = &pl->dec_max[i * nd];
		pl->dec[i].mb_min_at = &pl->dec_min[i * nd];
		for (unsigned d = 0; d < nd; d++) {
			pl->dec_max[i * nd + d] = pl->parts[i].cfg_max;
			pl->dec_min[i * nd + d] = pl->parts[i].cfg_min;
		}
	}
}

/* Partition i's traffic goes to domain d. */
static bool on_domain(const struct plant *pl, size_t i, unsigned d)
{
	return pl->domain[i] == PLANT_ALL_DOMAINS || pl->domain[i] == d;
}

/* A guaranteed partition keeps its counter, as counter_pool_keep keeps one (at most monitors - 1 of
 * them, in order, so that one counter still rotates). */
static bool keeps_counter(const struct plant *pl, size_t i, size_t *kept)
{
	if (!(pl->parts[i].goals->guarantee_mbps > 0) || *kept + 1 >= pl->setup.monitors)
		return false;
	++*kept;
	return true;
}

/* Which partitions have a counter this tick: all of them unless counters rotate (see plant.h), and
 * then those that keep one, and the next of the others in turn from the cursor, as many as the
 * counters left. */
static void choose_monitored(struct plant *pl)
{
	size_t m = pl->setup.monitors, kept = 0, rotating = 0;

	for (size_t i = 0; i < pl->n; i++) {
		pl->monitored[i] = !m || m >= pl->n || keeps_counter(pl, i, &kept);
		rotating += !pl->monitored[i];
	}
	if (!rotating)
		return;
	size_t free_counters = m - kept, rank = 0;
	for (size_t i = 0; i < pl->n; i++)
		if (!pl->monitored[i])
			pl->monitored[i] = (rank++ + rotating - pl->cursor % rotating) % rotating < free_counters;
	pl->cursor = (pl->cursor + free_counters) % rotating;
}

/* Partition i's sample this tick: measured (served rate and noise), else its last measurement
 * repeated, estimated, or none before its first. */
static void sample(struct plant *pl, size_t i)
{
	struct policy_partition *p = &pl->parts[i];
	unsigned nd = pl->setup.domains;
	bool measure = pl->monitored[i];

	p->mbps = 0;
	for (unsigned d = 0; d < nd; d++) {
		/* one noise draw per domain it is on, whatever it was served or measured: the same
		 * sequence whatever the demand and the rotation */
		double noise = on_domain(pl, i, d) ? pl->setup.noise * traffic_rng_symmetric(&pl->rng) : 0;
		size_t at = i * nd + d;
		if (measure)
			pl->last_at[at] = pl->truth_at[at] * (1 + noise);
		pl->measured[at] = measure || pl->seen[i] ? pl->last_at[at] : 0;
		p->mbps += pl->measured[at];
	}
	p->valid = measure || pl->seen[i];
	p->estimated = !measure && p->valid;
	pl->seen[i] |= measure;
}

void plant_tick(struct plant *pl)
{
	unsigned nd = pl->setup.domains;
	double total = 0;
	bool all_valid = true;

	memset(pl->truth, 0, pl->n * sizeof(*pl->truth));
	for (unsigned dom = 0; dom < nd; dom++)
		serve_domain(pl, dom);
	pl->host.tick++;
	choose_monitored(pl);
	for (size_t i = 0; i < pl->n; i++) {
		struct policy_partition *p = &pl->parts[i];
		sample(pl, i);
		p->domains = &pl->pdom[i * nd]; /* its domains' view, or its one domain's (policy.h) */
		p->smoothed_mbps = p->mbps;
		total += p->mbps;
		all_valid &= p->valid;
		snap_goals(pl, i);
		policy_decision_clear(&pl->dec[i]);
		pl->dec[i] = (struct policy_decision){ .mb_max = p->cfg_max, .mb_min = p->cfg_min };
	}
	pl->host.total_mbps = total;
	pl->host.total_valid = all_valid;
	judge_capacity(pl, nd, pl->setup.capacity_mbps * nd, total, &pl->host.capacity_mbps,
		       &pl->host.capacity_learned);
	if (pl->setup.per_domain)
		fill_domains(pl);
	for (size_t f = 0; f < pl->chain->count; f++)
		pl->chain->fns[f](&pl->host, pl->parts, pl->n, pl->dec);
	for (size_t i = 0; i < pl->n; i++) {
		for (unsigned d = 0; d < nd; d++)
			if (pl->setup.per_domain)
				apply(pl, i, d, pl->dec_max[i * nd + d], pl->dec_min[i * nd + d]);
			else
				apply(pl, i, d, pl->dec[i].mb_max, pl->dec[i].mb_min);
		summarise_limits(pl, i);
		pl->parts[i].cpu_quota_pct = pl->dec[i].cpu_quota_pct;
	}
}
