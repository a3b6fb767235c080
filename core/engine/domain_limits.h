/* From a partition's goals to the limits of each of a control's domains: its per-domain values
 * (mb_max = 0=30,1=100) where it has them, one value for every other domain. The engine, `mpamctl
 * check-config --host` and `set` resolve them alike. */
#ifndef MPAMD_CORE_ENGINE_DOMAIN_LIMITS_H
#define MPAMD_CORE_ENGINE_DOMAIN_LIMITS_H

#include "backends/contracts/control.h"

/* Every domain `values` names is one of the control's: 0, or -EINVAL saying which is not and which
 * there are (`key` names the setting: "mb_max"). */
int domain_ids_check(const struct control_caps *caps, const struct domain_values *values, const char *key,
		     struct err *err);
/* The same for a partition's mb_max and mb_min. */
int domain_limits_check(const struct control_caps *caps, const struct partition_goals *g, struct err *err);
/* Fills `l`'s per-domain MB limits over the control's domains: g's per-domain values where it has
 * them, mb_max and mb_min elsewhere (its own, or what the policies decided for every domain), each
 * on a rung of its domain's ladders (control_snap_limits); the scalars become the summary. Nothing
 * per domain on a control without domains. */
void domain_limits_fill(const struct control_caps *caps, const struct partition_goals *g, double mb_max, double mb_min,
			struct partition_limits *l);
/* The same before the rungs: what the configuration asks of each domain (`mpamctl check-config --host`
 * says how each is rounded). */
void domain_limits_asked(const struct control_caps *caps, const struct partition_goals *g, double mb_max, double mb_min,
			 struct partition_limits *l);
/* The configured ceiling and minimum on domain d (an index into caps->domains; past them, the
 * control-wide ladders and the goal's own value), as rungs. */
double domain_goal_max(const struct control_caps *caps, const struct partition_goals *g, unsigned d);
double domain_goal_min(const struct control_caps *caps, const struct partition_goals *g, unsigned d);

/* g with its limits in percent on every domain of the control: g itself where they are percents;
 * else buf's goals with MB/s values converted by each domain's ladder (AMD's units know their MB/s) or
 * [global] capacity_mbps (more than a domain carries is 100%). NULL, -ENODATA and why where a
 * domain's capacity is unknown; -EINVAL where mb_min ends above mb_max. */
const struct partition_goals *domain_goals_pct(const struct control_caps *caps, const struct global_config *gc,
					       const struct partition_goals *g, struct partition_goals_buf *buf,
					       struct err *err);
/* A partition's configured goals as the control would hold them: checked (domain_limits_check), in
 * percent (domain_goals_pct, into buf) and filled into `l` (domain_limits_fill) with their own mb_max
 * and mb_min. The goals in percent, or NULL and why where they do not fit the host (`l` untouched). */
const struct partition_goals *domain_limits_configured(const struct control_caps *caps, const struct global_config *gc,
						       const struct partition_goals *goals,
						       struct partition_goals_buf *buf, struct partition_limits *l,
						       struct err *err);

#endif
