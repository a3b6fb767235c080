/* The domains the engine reports and the policies decide on.
 *
 * Limits are set in the control's domains (resctrl MB domains, MSCs with bandwidth controls) and rates
 * measured in the monitors' domains. Each monitor domain says which control domain it measures (an
 * id space and an id: resctrl domain ids, MSC positions). When every monitor domain finds its control
 * domain (or the control has a single domain, which then has them all), the engine's domains are
 * the control's: a partition's rate on domain d is the sum of the monitor domains that measure it,
 * its limits there are the control's, and the policies decide per domain. Otherwise (resctrl's
 * domains beside MSCs read over MMIO, whose correspondence nothing tells) the engine's domains are
 * the monitors', for reporting only: the policies work on the totals and limits are the same on
 * every domain, but for values the configuration gives a domain of its own. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/contracts/ground_truth.h"
#include "core/base/counter.h"
#include "core/base/log.h"
#include "core/engine/domain_limits.h"
#include "core/engine/engine_internal.h"

static void map_per_domain(struct engine *e)
{
	const struct composition *c = &e->hw;

	e->domains.count = c->caps.domain_count < ENGINE_MAX_DOMAINS ? c->caps.domain_count : ENGINE_MAX_DOMAINS;
	for (unsigned d = 0; d < e->domains.count; d++) {
		e->domains.dom[d] = (struct engine_dom){ .control = (int)d, .known_mbps = NAN };
		snprintf(e->domains.dom[d].name, sizeof(e->domains.dom[d].name), "%u", c->caps.domains[d].id);
		snprintf(e->domains.dom[d].what, sizeof(e->domains.dom[d].what), "%s", c->caps.domains[d].name);
	}
	for (unsigned m = 0; m < c->domain_count; m++)
		e->domains.dom[composition_control_domain(c, m)].monitors |= UINT64_C(1) << m;
	for (unsigned d = 0; d < e->domains.count; d++) {
		uint64_t monitors = e->domains.dom[d].monitors;
		bool one = monitors && !(monitors & (monitors - 1));
		e->domains.dom[d].only_monitor = one ? __builtin_ctzll(monitors) : -1;
	}
	e->domains.per_domain = true;
}

static void map_monitors_only(struct engine *e)
{
	const struct composition *c = &e->hw;

	e->domains.count = c->domain_count;
	for (unsigned m = 0; m < c->domain_count; m++) {
		e->domains.dom[m] = (struct engine_dom){
			.control = -1, .monitors = UINT64_C(1) << m, .only_monitor = (int)m, .known_mbps = NAN
		};
		snprintf(e->domains.dom[m].name, sizeof(e->domains.dom[m].name), "%s", c->domains[m].name);
		snprintf(e->domains.dom[m].what, sizeof(e->domains.dom[m].what), "counters %s", c->domains[m].name);
	}
	e->domains.per_domain = false;
}

void engine_domains_map(struct engine *e)
{
	const struct composition *c = &e->hw;
	bool matched = c->caps.domain_count > 0;

	for (unsigned m = 0; m < c->domain_count && matched; m++)
		matched = composition_control_domain(c, m) >= 0;
	if (matched) {
		map_per_domain(e);
		engine_capacity_probe(e);
		return;
	}
	map_monitors_only(e);
	if (c->caps.domain_count > 1 && c->domain_count)
		log_info("the bandwidth counters' domains (%s...) cannot be matched to the %s control's %u domains: "
			 "the policies work on each partition's total, with the same limits on every domain",
			 c->domains[0].name, c->control_ops->name, c->caps.domain_count);
}

int engine_check_goal_domains(const struct engine *e, const struct partition_goals *g, struct err *err)
{
	return domain_limits_check(&e->hw.caps, g, err);
}

int engine_check_capacity_domains(const struct engine *e, const struct config *config, struct err *err)
{
	int r = domain_ids_check(&e->hw.caps, &config->global.capacity_mbps_at, "capacity_mbps", err);

	if (r == 0 && config->global.capacity_mbps_at.count && !e->domains.per_domain)
		r = err_set(
			err, -EINVAL,
			"capacity_mbps has per-domain values, but the bandwidth counters' domains cannot be matched "
			"to the control's here: give one value for every domain");
	return r;
}

/* The configured mb_max and mb_min on control domain `control` (its own value, else the partition's). */
/* What monitor domain m can carry: what the hardware says, else the configuration's. */
double engine_monitor_capacity(const struct engine *e, unsigned m)
{
	const struct engine_domain *md = &e->hw.domains[m];

	return md->capacity_mbps > 0 ? md->capacity_mbps : (double)e->gens.config->global.capacity_mbps;
}

/* The sum over the monitor domains that measure domain d of what the hardware says (with `hardware`)
 * or of what is known at all; 0 when one of them is not known, or none measures it. */
static double monitors_capacity(const struct engine *e, unsigned d, bool hardware)
{
	double sum = 0;

	for (unsigned m = 0; m < e->hw.domain_count; m++) {
		if (!(e->domains.dom[d].monitors >> m & 1))
			continue;
		double c = hardware ? e->hw.domains[m].capacity_mbps : engine_monitor_capacity(e, m);
		if (!(c > 0))
			return 0;
		sum += c;
	}
	return sum;
}

/* The configured figure: the domain's own capacity_mbps value, else the one for every domain (summed
 * over the monitor domains that measure it); 0 when none is configured. */
static double configured_capacity(const struct engine *e, unsigned d)
{
	const struct engine_dom *dom = &e->domains.dom[d];
	const struct global_config *g = &e->gens.config->global;
	double sum = 0;

	if (dom->control >= 0 && domain_values_has(&g->capacity_mbps_at, e->hw.caps.domains[dom->control].id))
		return domain_values_get(&g->capacity_mbps_at, e->hw.caps.domains[dom->control].id, 0);
	if (!dom->monitors || !g->capacity_mbps)
		return dom->control >= 0 ? g->capacity_mbps : 0;
	for (unsigned m = 0; m < e->hw.domain_count; m++)
		sum += (e->domains.dom[d].monitors >> m & 1) ? (double)g->capacity_mbps : 0;
	return sum;
}

/* In the order of trust: capacity_mbps, the monitors' own figure, ACPI HMAT's. */
double engine_dom_known_capacity_from(const struct engine *e, unsigned d, const char **ret_source)
{
	double c = configured_capacity(e, d);
	const char *source = "configured";

	if (!(c > 0)) {
		c = monitors_capacity(e, d, true);
		source = "hardware";
	}
	if (!(c > 0)) {
		c = e->domains.dom[d].hmat_mbps;
		source = "hmat";
	}
	if (ret_source)
		*ret_source = c > 0 ? source : NULL;
	return c > 0 ? c : 0;
}

double engine_dom_known_capacity(const struct engine *e, unsigned d)
{
	return engine_dom_known_capacity_from(e, d, NULL);
}

void engine_domains_begin_tick(struct engine *e)
{
	for (unsigned d = 0; d < e->domains.count; d++) {
		struct engine_dom *dom = &e->domains.dom[d];
		double known = engine_dom_known_capacity(e, d);
		dom->known_changed = !(known == dom->known_mbps); /* NAN: the first tick after the map */
		dom->known_mbps = known;
	}
}

/* What ceiling `mb_max` lets through on domain d, in MB/s: AMD's units say it themselves, elsewhere
 * the domain's capacity where known (0 where not). */
static double ceiling_mbps(const struct engine *e, unsigned d, double mb_max)
{
	int c = e->domains.dom[d].control;
	const struct ladder *l = c >= 0 ? control_max_ladder(&e->hw.caps, (unsigned)c) : &e->hw.caps.max_ladder;
	double capacity = e->domains.dom[d].known_mbps;

	if (ladder_exists(l))
		return ladder_mbps(l, ladder_snap(l, mb_max, LADDER_NEAREST), capacity);
	return mb_max / 100.0 * capacity;
}

/* The limits in force on domain d: the control's for its domain, else the partition's; their MB/s
 * worked out again only where the ceiling or the domain's capacity moved (`was_max`, `was_mbps`: the
 * last tick's ceiling and its MB/s). In a shared class the ceiling it asked there is another: the
 * class holds mpamd's rounding of it. */
static void limits_on(const struct engine *e, const struct engine_partition *ep, unsigned d, double was_max,
		      double was_mbps, struct domain_status *ds)
{
	int c = e->domains.dom[d].control;

	ds->mb_max = c >= 0 ? slot_limits_max_at(&ep->effective, (unsigned)c) : ep->status.mb_max;
	ds->mb_min = c >= 0 ? slot_limits_min_at(&ep->effective, (unsigned)c) : ep->status.mb_min;
	if (ep->status.in_class)
		ds->mb_max_asked = c >= 0 ? slot_limits_max_at(&ep->applied, (unsigned)c) : ep->applied.mb_max;
	else
		ds->mb_max_asked = ds->mb_max;
	/* A cleared row (a slot just filled) has 0, which is never kept: 0 may be what it lets through. */
	if (was_max == ds->mb_max && was_mbps > 0 && !e->domains.dom[d].known_changed)
		ds->mb_max_mbps = was_mbps;
	else
		ds->mb_max_mbps = ceiling_mbps(e, d, ds->mb_max);
}

/* The rate on a domain that one monitor domain measures: its sample as it is, the sum of one (most
 * hosts: an MSC, a resctrl domain, each measuring its own), without a sum's bookkeeping. */
static inline void rate_of_one(struct domain_status *ds, const struct sample *s, double mbps, bool open,
			       const char *closed_reason)
{
	bool valid = open && s->state != SAMPLE_INVALID;

	ds->valid = valid;
	ds->estimated = s->state == SAMPLE_ESTIMATED;
	ds->mbps = valid ? mbps : 0;
	ds->reason = !open ? closed_reason : s->state == SAMPLE_INVALID ? s->reason : NULL;
}

/* The rate on a domain that several monitor domains measure, or none: their sum. */
static void rate_of_sum(struct domain_status *ds, const struct sample *row, const double *rates, uint64_t monitors,
			bool open, const char *closed_reason)
{
	struct sample_sum sum = { .valid = open && monitors, .reason = monitors ? NULL : "no counters on this domain" };

	for (uint64_t left = monitors; left; left &= left - 1) { /* its monitor domains' bits */
		unsigned m = (unsigned)__builtin_ctzll(left);
		sample_sum_add(&sum, &row[m], rates[m]);
	}
	/* Every field anew (field by field: a whole-struct literal costs twice the stores). */
	ds->valid = sum.valid;
	ds->estimated = sum.estimated;
	ds->mbps = sum.valid ? sum.mbps : 0;
	ds->reason = open ? sum.reason : closed_reason;
}

void engine_domains_summarise(struct engine *e, size_t index, const double *rates)
{
	const struct engine_partition *ep = &e->slots.partitions[index];
	const struct sample *row = &e->slots.samples[index * e->hw.domain_count];
	const struct ground_truth *truth = e->hw.shared.truth;
	struct domain_status *statuses = &e->domains.status[index * e->domains.count];
	bool open = ep->status.open;
	const char *closed_reason = ep->status.reason;

	for (unsigned d = 0; d < e->domains.count; d++) {
		const struct engine_dom *dom = &e->domains.dom[d];
		struct domain_status *ds = &statuses[d];
		double was_max = ds->mb_max, was_mbps = ds->mb_max_mbps;
		if (dom->only_monitor >= 0)
			rate_of_one(ds, &row[dom->only_monitor], rates[dom->only_monitor], open, closed_reason);
		else
			rate_of_sum(ds, row, rates, dom->monitors, open, closed_reason);
		ds->guard_judged = ds->guard_short = false;
		limits_on(e, ep, d, was_max, was_mbps, ds);
		int control = dom->control;
		ds->truth_mbps = truth && control >= 0 ? truth->domain_mbps(truth->ctx, index, (unsigned)control) : 0;
	}
}

/* The policies' copy of a partition's configured limits on each domain. */
void engine_domains_config(struct engine *e, size_t slot)
{
	struct partition_goals_buf buf;
	const struct partition_goals *g = engine_goals_pct(e, &e->slots.partitions[slot].config->goals, &buf);

	for (unsigned d = 0; e->domains.per_domain && d < e->domains.count; d++) {
		struct policy_domain *pd = &e->policy.domains[slot * e->domains.count + d];
		pd->cfg_max = domain_goal_max(&e->hw.caps, g, (unsigned)e->domains.dom[d].control);
		pd->cfg_min = domain_goal_min(&e->hw.caps, g, (unsigned)e->domains.dom[d].control);
	}
}

unsigned engine_domain_count(const struct engine *e)
{
	return e->domains.count;
}

const char *engine_domain_name(const struct engine *e, unsigned d)
{
	return e->domains.dom[d].name;
}

const struct domain_status *engine_partition_domain(const struct engine *e, size_t index, unsigned d)
{
	return &e->domains.status[index * e->domains.count + d];
}
