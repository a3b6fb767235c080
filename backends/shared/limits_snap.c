/* control_snap_limits (backends/contracts/control.h): every limit on a rung of its domain's ladders. */
#include "backends/contracts/control.h"

double control_snap_max(const struct ladder *l, double pct)
{
	return ladder_exists(l) ? ladder_pct(l, ladder_snap(l, pct, LADDER_NEAREST)) : pct;
}

double control_snap_min(const struct ladder *l, double pct)
{
	if (pct <= 0 || !ladder_exists(l))
		return pct > 0 ? pct : 0;
	return ladder_pct(l, ladder_snap(l, pct, LADDER_UP));
}

void control_snap_limits(const struct control_caps *c, struct partition_limits *l)
{
	l->mb_max = control_snap_max(&c->max_ladder, l->mb_max);
	l->mb_min = control_snap_min(&c->min_ladder, l->mb_min);
	for (unsigned d = 0; d < l->domain_count && d < CONTROL_MAX_DOMAINS; d++) {
		l->mb_max_at[d] = control_snap_max(control_max_ladder(c, d), l->mb_max_at[d]);
		l->mb_min_at[d] = control_snap_min(control_min_ladder(c, d), l->mb_min_at[d]);
	}
}
