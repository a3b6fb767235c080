/* The policies' view of domains (internal to policies/): one way to reach a partition's figures, its
 * memory and its decision on domain d, whether the host has domain arrays or is one domain of totals
 * (see policy.h). Each policy calls policy_domains_prepare first. */
#ifndef MPAMD_POLICIES_DOMAINS_H
#define MPAMD_POLICIES_DOMAINS_H

#include <stdio.h>

#include "policies/policy.h"

static inline unsigned pol_domains(const struct policy_host *h)
{
	return h->domain_count && h->domains ? h->domain_count : 1;
}

/* " on domain N" for an event on a host of several domains (`domains`), "" on a host of one. */
static inline void pol_where(unsigned domains, unsigned d, char *buf, size_t len)
{
	if (domains > 1)
		snprintf(buf, len, " on domain %u", d);
	else
		buf[0] = '\0';
}

static inline struct policy_domain *pol_dom(struct policy_partition *p, unsigned d)
{
	return &p->domains[d];
}

static inline const struct policy_domain *pol_cdom(const struct policy_partition *p, unsigned d)
{
	return &p->domains[d];
}

/* A partition's domains and a decision's limits, as arrays indexed by domain: for a pass over every
 * domain of a partition (a decision's rows are its arrays, or its scalars on a host without them). */
static inline struct policy_domain *pol_doms(struct policy_partition *p)
{
	return p->domains;
}

static inline double *dec_max_row(struct policy_decision *x)
{
	return x->mb_max_at ? x->mb_max_at : &x->mb_max;
}

static inline double *dec_min_row(struct policy_decision *x)
{
	return x->mb_min_at ? x->mb_min_at : &x->mb_min;
}

static inline const double *dec_min_row_of(const struct policy_decision *x)
{
	return x->mb_min_at ? x->mb_min_at : &x->mb_min;
}

static inline double *dec_max(struct policy_decision *x, unsigned d)
{
	return x->mb_max_at ? &x->mb_max_at[d] : &x->mb_max;
}

static inline double *dec_min(struct policy_decision *x, unsigned d)
{
	return x->mb_min_at ? &x->mb_min_at[d] : &x->mb_min;
}

static inline double dec_max_of(const struct policy_decision *x, unsigned d)
{
	return x->mb_max_at ? x->mb_max_at[d] : x->mb_max;
}

static inline double dec_min_of(const struct policy_decision *x, unsigned d)
{
	return x->mb_min_at ? x->mb_min_at[d] : x->mb_min;
}

/* Domain d of the host; on a host without domain arrays, the host itself. */
static inline struct policy_host_domain host_dom(const struct policy_host *h, unsigned d)
{
	if (h->domain_count && h->domains)
		return h->domains[d];
	return (struct policy_host_domain){ .capacity_mbps = h->capacity_mbps,
					    .capacity_learned = h->capacity_learned,
					    .total_mbps = h->total_mbps,
					    .total_valid = h->total_valid };
}

/* MB/s a ceiling of pct lets through on a domain of `capacity`, and back; 0 when it is unknown. */
static inline double dom_mbps_of_pct(double capacity, double pct)
{
	return capacity > 0 ? pct * capacity / 100 : 0;
}

static inline double dom_pct_of_mbps(double capacity, double mbps)
{
	return capacity > 0 ? mbps * 100 / capacity : 0;
}

/* On a host without domain arrays, each partition's one domain takes its scalar figures (its memory
 * is kept). */
static inline void policy_domains_prepare(const struct policy_host *h, struct policy_partition *parts, size_t count)
{
	if (h->domain_count && h->domains)
		return;
	for (size_t i = 0; i < count; i++) {
		struct policy_partition *p = &parts[i];
		struct policy_domain *one = &p->domains[0];
		one->cfg_max = p->cfg_max;
		one->cfg_min = p->cfg_min;
		one->valid = p->valid;
		one->estimated = p->estimated;
		one->mbps = p->mbps;
		one->mb_max = p->mb_max;
		one->mb_min = p->mb_min;
	}
}

#endif
