#include "core/engine/domain_limits.h"

#include <errno.h>
#include <stdio.h>

/* "0, 1" for messages. */
static void ids_text(const struct control_caps *caps, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned d = 0; d < caps->domain_count && used < len; d++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u", d ? ", " : "", caps->domains[d].id);
	if (!caps->domain_count)
		snprintf(buf, len, "none: no per-domain bandwidth limits on this host");
}

static bool has_id(const struct control_caps *caps, uint32_t id)
{
	for (unsigned d = 0; d < caps->domain_count; d++)
		if (caps->domains[d].id == id)
			return true;
	return false;
}

int domain_ids_check(const struct control_caps *caps, const struct domain_values *values, const char *key,
		     struct err *err)
{
	char ids[256];

	for (uint32_t i = 0; i < values->count; i++) {
		if (has_id(caps, values->at[i].domain))
			continue;
		ids_text(caps, ids, sizeof(ids));
		return err_set(err, -EINVAL, "%s names domain %u, which this host does not have (its domains: %s)", key,
			       values->at[i].domain, ids);
	}
	return 0;
}

int domain_limits_check(const struct control_caps *caps, const struct partition_goals *g, struct err *err)
{
	int r = domain_ids_check(caps, &g->mb_max_at, "mb_max", err);

	return r < 0 ? r : domain_ids_check(caps, &g->mb_min_at, "mb_min", err);
}

void domain_limits_fill(const struct control_caps *caps, const struct partition_goals *g, double mb_max, double mb_min,
			struct partition_limits *l)
{
	domain_limits_asked(caps, g, mb_max, mb_min, l);
	control_snap_limits(caps, l);
	limits_summarise(l);
}

/* Domain `id`'s own value where the configuration names it, else `all` (a decision need not be whole). */
static double value_at(const struct domain_values *v, uint32_t id, double all)
{
	return domain_values_has(v, id) ? domain_values_get(v, id, 0) : all;
}

void domain_limits_asked(const struct control_caps *caps, const struct partition_goals *g, double mb_max, double mb_min,
			 struct partition_limits *l)
{
	l->mb_max = mb_max;
	l->mb_min = mb_min;
	l->domain_count = caps->domain_count;
	for (unsigned d = 0; d < caps->domain_count; d++) {
		l->mb_max_at[d] = value_at(&g->mb_max_at, caps->domains[d].id, mb_max);
		l->mb_min_at[d] = value_at(&g->mb_min_at, caps->domains[d].id, mb_min);
	}
	limits_summarise(l);
}

double domain_goal_max(const struct control_caps *caps, const struct partition_goals *g, unsigned d)
{
	double pct =
		d < caps->domain_count ? domain_values_get(&g->mb_max_at, caps->domains[d].id, g->mb_max) : g->mb_max;

	return control_snap_max(control_max_ladder(caps, d), pct);
}

double domain_goal_min(const struct control_caps *caps, const struct partition_goals *g, unsigned d)
{
	double pct =
		d < caps->domain_count ? domain_values_get(&g->mb_min_at, caps->domains[d].id, g->mb_min) : g->mb_min;

	return control_snap_min(control_min_ladder(caps, d), pct);
}

/* d names one of the control's domains (past them: the control as a whole). */
static bool is_control_domain(const struct control_caps *caps, unsigned d)
{
	return d < caps->domain_count && d < CONTROL_MAX_DOMAINS;
}

/* What domain d of the control carries for MB/s limits: [global] capacity_mbps (its value for the
 * domain's id, else the one for every domain); 0 where unknown. Past the domains: the global value. */
static double configured_capacity(const struct control_caps *caps, const struct global_config *gc, unsigned d)
{
	if (is_control_domain(caps, d))
		return domain_values_get(&gc->capacity_mbps_at, caps->domains[d].id, gc->capacity_mbps);
	return gc->capacity_mbps;
}

/* One MB/s value on domain d as a percent of its full scale; -ENODATA and why where neither the
 * hardware's units nor capacity_mbps say what that is. */
static int pct_of_mbps(const struct control_caps *caps, const struct global_config *gc, const char *key,
		       const struct ladder *l, unsigned d, double mbps, double *ret, struct err *err)
{
	if (mbps == 0) {
		*ret = 0;
		return 0;
	}
	if (ladder_pct_of_mbps(l, mbps, configured_capacity(caps, gc, d), ret) == 0) {
		*ret = *ret > LADDER_PCT_FULL ? LADDER_PCT_FULL : *ret;
		return 0;
	}
	char where[48] = "this host";
	if (is_control_domain(caps, d))
		snprintf(where, sizeof(where), "domain %u", caps->domains[d].id);
	return err_set(err, -ENODATA,
		       "%s = %gMB/s: what %s carries is not known (its bandwidth control is in percent of it): set "
		       "capacity_mbps in [global], or give %s in percent",
		       key, mbps, where, key);
}

/* One limit key (values, their value for every domain) in percent on every domain of the control,
 * the per-domain values written in `room` (DOMAIN_VALUES_MAX of them). */
static int limit_in_pct(const struct control_caps *caps, const struct global_config *gc, const char *key, bool is_max,
			double *all, struct domain_values *at, struct domain_value *room, struct err *err)
{
	struct domain_values mbps = *at;
	double every = *all;
	int r;

	*at = (struct domain_values){ .at = room };
	for (unsigned d = 0; d < caps->domain_count && d < DOMAIN_VALUES_MAX; d++) {
		const struct ladder *l = is_max ? control_max_ladder(caps, d) : control_min_ladder(caps, d);
		double pct;
		if ((r = pct_of_mbps(caps, gc, key, l, d, domain_values_get(&mbps, caps->domains[d].id, every), &pct,
				     err)) < 0)
			return r;
		at->at[at->count++] = (struct domain_value){ .domain = caps->domains[d].id, .value = pct };
	}
	if (caps->domain_count)
		return 0; /* every domain has its own; the value for all of them is not used */
	const struct ladder *l = is_max ? &caps->max_ladder : &caps->min_ladder;
	return pct_of_mbps(caps, gc, key, l, CONTROL_MAX_DOMAINS, every, all, err);
}

const struct partition_goals *domain_goals_pct(const struct control_caps *caps, const struct global_config *gc,
					       const struct partition_goals *g, struct partition_goals_buf *buf,
					       struct err *err)
{
	struct partition_goals *pct = &buf->goals;
	int r = 0;

	if (!g->mb_max_mbps && !g->mb_min_mbps)
		return g;
	*pct = *g; /* a view: the values not in MB/s stay g's */
	if (g->mb_max_mbps)
		r = limit_in_pct(caps, gc, "mb_max", true, &pct->mb_max, &pct->mb_max_at, buf->max_at, err);
	if (r == 0 && g->mb_min_mbps)
		r = limit_in_pct(caps, gc, "mb_min", false, &pct->mb_min, &pct->mb_min_at, buf->min_at, err);
	pct->mb_max_mbps = pct->mb_min_mbps = false;
	if (r < 0)
		return NULL;
	for (unsigned d = 0; d < caps->domain_count; d++) {
		double max = domain_values_get(&pct->mb_max_at, caps->domains[d].id, pct->mb_max);
		double min = domain_values_get(&pct->mb_min_at, caps->domains[d].id, pct->mb_min);
		if (min > max) {
			err_set(err, -EINVAL, "mb_min is above mb_max on domain %u (%g%% > %g%% of what it carries)",
				caps->domains[d].id, min, max);
			return NULL;
		}
	}
	return pct;
}

const struct partition_goals *domain_limits_configured(const struct control_caps *caps, const struct global_config *gc,
						       const struct partition_goals *goals,
						       struct partition_goals_buf *buf, struct partition_limits *l,
						       struct err *err)
{
	if (domain_limits_check(caps, goals, err) < 0)
		return NULL;
	const struct partition_goals *g = domain_goals_pct(caps, gc, goals, buf, err);
	if (g)
		domain_limits_fill(caps, g, g->mb_max, g->mb_min, l);
	return g;
}
