#include "cli/check_host_overcommit.h"

#include <stdio.h>
#include <string.h>

#include "backends/sim/sim_config.h"
#include "core/engine/registry.h"

/* Where a domain's capacity comes from, for the messages. */
#define FROM_CONFIG    "capacity_mbps"
#define FROM_SIMULATOR "[sim] capacity_mbps"

/* Room for a list of partitions and values in a message; a longer one ends in "...". */
#define NAMES_MAX 512

static uint64_t every_domain(unsigned count)
{
	return count >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << count) - 1;
}

static bool simulated_backend(const struct config *config)
{
	const struct control_ops *ops = engine_registry_control(&engine_registry_default, config->global.backend);

	return ops && ops->simulated;
}

static void add_domain(struct overcommit_domains *ret, uint32_t id, double capacity, const char *source)
{
	for (unsigned k = 0; k < ret->count; k++)
		if (ret->at[k].id == id)
			return;
	if (ret->count < OVERCOMMIT_DOMAINS_MAX)
		ret->at[ret->count++] = (struct overcommit_domain){ id, capacity, capacity > 0 ? source : NULL };
}

void overcommit_domains_of_config(const struct config *config, struct overcommit_domains *ret)
{
	const struct global_config *g = &config->global;
	const struct sim_config *sim = sim_config_of(config);

	memset(ret, 0, sizeof(*ret));
	if (sim && simulated_backend(config)) {
		/* The simulator knows what its MSCs carry, and that one is what mpamd takes. */
		ret->known = ret->simulated = true;
		for (unsigned m = 0; m < sim->mscs; m++)
			add_domain(ret, m, sim->capacity_mbps, FROM_SIMULATOR);
		return;
	}
	/* One domain standing for every domain no mb_min names (goals are checked on it alone), then the
	 * ones partitions name. */
	ret->at[ret->count++] =
		(struct overcommit_domain){ UINT32_MAX, g->capacity_mbps, g->capacity_mbps ? FROM_CONFIG : NULL };
	for (size_t i = 0; i < config->partition_count; i++) {
		const struct domain_values *at = &config->partitions[i].goals.mb_min_at;
		for (uint32_t v = 0; v < at->count; v++)
			add_domain(ret, at->at[v].domain,
				   domain_values_get(&g->capacity_mbps_at, at->at[v].domain, g->capacity_mbps),
				   FROM_CONFIG);
	}
}

/* The domains goals are checked over: the host's, or from the file alone the first, standing for any. */
static unsigned goal_domains(const struct overcommit_domains *doms)
{
	return doms->known ? doms->count : 1;
}

/* ---- the domains a partition uses ---- */

static uint64_t partition_domains(const struct config *config, const struct overcommit_domains *doms,
				  const struct partition_config *p)
{
	const struct sim_partition_config *sp = doms->simulated ? sim_partition_of(config, p) : NULL;
	uint64_t mask = 0;

	if (!sp || !sp->domains)
		return every_domain(goal_domains(doms));
	for (unsigned k = 0; k < doms->count; k++)
		if (sim_partition_uses_domain(sp, doms->at[k].id))
			mask |= UINT64_C(1) << k;
	return mask;
}

/* "domain 0", "domains 0, 1"; from the file alone, "every domain" for the one standing for any. */
static void domains_text(const struct overcommit_domains *doms, uint64_t mask, char *buf, size_t len)
{
	size_t used = 0;
	unsigned n = 0;

	if (!doms->known && (mask & 1)) {
		snprintf(buf, len, "%s", doms->count > 1 ? "every domain no mb_min names" : "every domain");
		return;
	}
	for (unsigned k = 0; k < doms->count; k++)
		n += (mask >> k) & 1;
	used = (size_t)snprintf(buf, len, "domain%s ", n == 1 ? "" : "s");
	for (unsigned k = 0, first = 1; k < doms->count && used < len; k++) {
		if (!((mask >> k) & 1))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%u", first ? "" : ", ", doms->at[k].id);
		first = 0;
	}
}

/* ---- a sum of MB/s goals over a set of domains ---- */

/* One kind of goal in MB/s: its key and its value on a partition (0: none). */
struct mbps_goal {
	const char *key;
	uint32_t (*of)(const struct partition_config *p);
	const char *what_then; /* what mpamd does about it, for the warning */
	/* For two kinds together: each kind alone; warned of only where each is there and fits alone
	 * (one over alone has its own warning). */
	const struct mbps_goal *alone[2];
};

static uint32_t guarantee_of(const struct partition_config *p)
{
	return p->goals.class == CLASS_LATENCY_CRITICAL ? p->goals.guarantee_mbps : 0;
}

static uint32_t target_of(const struct partition_config *p)
{
	return p->goals.target_mbps;
}

static uint32_t guarantee_or_target_of(const struct partition_config *p)
{
	return guarantee_of(p) + target_of(p);
}

static const struct mbps_goal goals[] = {
	{ "guarantee_mbps",
	  guarantee_of,
	  "mpamd shares their minimums latency-critical first, in proportion to guarantee, and logs an "
	  "overcommit event (OVERCOMMIT in mpamd.ini(5))",
	  { NULL, NULL } },
	{ "target_mbps",
	  target_of,
	  "mpamd shares the domain guarantees first, then by weight, each target up to itself, and logs an "
	  "overcommit event (OVERCOMMIT in mpamd.ini(5))",
	  { NULL, NULL } },
	{ "guarantee_mbps and target_mbps",
	  guarantee_or_target_of,
	  "mpamd serves the guarantees first and shares what they leave among the targets by weight, each up to "
	  "its target, and logs an overcommit event (OVERCOMMIT in mpamd.ini(5))",
	  { &goals[0], &goals[1] } },
};

/* The goal's sum over the partitions that use only domains of `mask`, and "db 12000, web 10000". */
static double goal_sum(const struct config *config, const struct overcommit_domains *doms, const struct mbps_goal *goal,
		       uint64_t mask, char *names, size_t len)
{
	double sum = 0;
	size_t used = 0;

	names[0] = '\0';
	for (size_t i = 0; i < config->partition_count; i++) {
		const struct partition_config *p = &config->partitions[i];
		uint32_t v = goal->of(p);
		if (!v || (partition_domains(config, doms, p) & ~mask))
			continue;
		sum += v;
		if (used < len)
			used += (size_t)snprintf(names + used, len - used, "%s%s %u", used ? ", " : "", p->name, v);
	}
	return sum;
}

/* The capacity of the domains of `mask` together; 0 when one of them is not known (*unknown: the
 * first such). */
static double mask_capacity(const struct overcommit_domains *doms, uint64_t mask, const char **source,
			    const struct overcommit_domain **unknown)
{
	double sum = 0;

	*unknown = NULL;
	*source = NULL;
	for (unsigned k = 0; k < doms->count; k++) {
		if (!((mask >> k) & 1))
			continue;
		if (!(doms->at[k].capacity_mbps > 0)) {
			*unknown = &doms->at[k];
			return 0;
		}
		sum += doms->at[k].capacity_mbps;
		*source = doms->at[k].source;
	}
	return sum;
}

/* A goal of two kinds on `mask` is news: each kind is there and fits `capacity` alone. */
static bool both_fit_alone(const struct config *config, const struct overcommit_domains *doms,
			   const struct mbps_goal *goal, uint64_t mask, double capacity)
{
	char names[NAMES_MAX];

	for (size_t k = 0; k < 2; k++) {
		double sum = goal_sum(config, doms, goal->alone[k], mask, names, sizeof(names));
		if (!(sum > 0) || sum > capacity)
			return false;
	}
	return true;
}

static void check_goal_on(const struct config *config, const struct overcommit_domains *doms,
			  const struct mbps_goal *goal, uint64_t mask, struct diag_list *diags)
{
	char names[NAMES_MAX], where[256];
	const char *source;
	const struct overcommit_domain *unknown;
	double sum = goal_sum(config, doms, goal, mask, names, sizeof(names));
	double capacity = mask_capacity(doms, mask, &source, &unknown);
	unsigned n = 0;

	for (size_t i = 0; i < config->partition_count; i++)
		n += goal->of(&config->partitions[i]) &&
		     !(partition_domains(config, doms, &config->partitions[i]) & ~mask);
	if (n < 2 && !(n == 1 && capacity > 0 && sum > capacity))
		return; /* one goal alone over its domain is as much overcommitted, and said too */
	if (goal->alone[0] && !both_fit_alone(config, doms, goal, mask, capacity))
		return;
	domains_text(doms, mask, where, sizeof(where));
	if (unknown && doms->known) {
		diag_add(diags, DIAG_WARNING, 0,
			 "%s of %s sum to %.0f MB/s on %s: not checked, the capacity of domain %u is not known (set "
			 "capacity_mbps)",
			 goal->key, names, sum, where, unknown->id);
		return;
	}
	if (!(capacity > 0) || sum <= capacity)
		return;
	if (doms->known)
		diag_add(diags, DIAG_WARNING, 0,
			 "%s of %s sum to %.0f MB/s on %s, over %s capacity of %.0f MB/s (%s): not all can be met; %s",
			 goal->key, names, sum, where, strchr(where, ',') ? "their" : "its", capacity, source,
			 goal->what_then);
	else
		diag_add(diags, DIAG_WARNING, 0,
			 "%s of %s sum to %.0f MB/s, over capacity_mbps = %.0f (MB/s a domain): where they share one "
			 "domain not all can be met (check-config --host checks this host's domains); %s",
			 goal->key, names, sum, capacity, goal->what_then);
}

/* Every set of domains a partition keeps to, and the whole host: a set whose partitions ask more than
 * it has (on the simulator a partition keeps to its sim_domains; elsewhere each uses every domain). */
static void check_goal(const struct config *config, const struct overcommit_domains *doms, const struct mbps_goal *goal,
		       struct diag_list *diags)
{
	uint64_t seen[OVERCOMMIT_DOMAINS_MAX + 1];
	size_t nseen = 0;

	seen[nseen++] = every_domain(goal_domains(doms));
	for (size_t i = 0; i < config->partition_count && nseen < OVERCOMMIT_DOMAINS_MAX + 1; i++) {
		uint64_t mask = partition_domains(config, doms, &config->partitions[i]);
		bool dup = false;
		for (size_t k = 0; k < nseen; k++)
			dup |= seen[k] == mask;
		if (goal->of(&config->partitions[i]) && !dup)
			seen[nseen++] = mask;
	}
	for (size_t k = nseen; k-- > 0;) /* the narrowest sets first: the host's comes last */
		check_goal_on(config, doms, goal, seen[k], diags);
}

/* ---- mb_min ---- */

/* Partition p's mb_min on domain `d` as a percent; -1 when it is MB/s and the capacity is not known. */
static double min_pct_on(const struct partition_config *p, const struct overcommit_domain *d)
{
	double v = domain_values_get(&p->goals.mb_min_at, d->id, p->goals.mb_min);

	if (!p->goals.mb_min_mbps || !v)
		return v;
	return d->capacity_mbps > 0 ? v * 100 / d->capacity_mbps : -1;
}

static void check_minimums_on(const struct config *config, const struct overcommit_domains *doms, unsigned k,
			      struct diag_list *diags)
{
	const struct overcommit_domain *d = &doms->at[k];
	char names[NAMES_MAX], where[64];
	size_t used = 0;
	double sum = 0;
	bool unchecked = false;

	names[0] = '\0';
	for (size_t i = 0; i < config->partition_count; i++) {
		const struct partition_config *p = &config->partitions[i];
		double pct = min_pct_on(p, d);
		unchecked |= pct < 0;
		if (pct <= 0)
			continue;
		sum += pct;
		if (used < sizeof(names))
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s %g%%", used ? ", " : "",
						 p->name, pct);
	}
	domains_text(doms, UINT64_C(1) << k, where, sizeof(where));
	if (unchecked && doms->known)
		diag_add(diags, DIAG_WARNING, 0,
			 "mb_min in MB/s on %s: not checked against 100%% of it, its capacity is not known (set "
			 "capacity_mbps)",
			 where);
	if (sum > 100)
		diag_add(diags, DIAG_WARNING, 0,
			 "mb_min of %s sum to %g%% on %s, over 100%%: mpamd programs them scaled to 100%%, "
			 "latency-critical first, in proportion to each (OVERCOMMIT in mpamd.ini(5))",
			 names, sum, where);
}

void check_overcommit(const struct config *config, const struct overcommit_domains *doms, struct diag_list *diags)
{
	for (unsigned k = 0; k < doms->count; k++)
		check_minimums_on(config, doms, k, diags);
	for (size_t g = 0; g < sizeof(goals) / sizeof(goals[0]); g++)
		check_goal(config, doms, &goals[g], diags);
}
