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
