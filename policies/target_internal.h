/* The target controller's search over rungs (internal to policies/; see policies/target.c for the
 * controller as a whole and policies/target_search.c for the search). */
#ifndef MPAMD_POLICIES_TARGET_INTERNAL_H
#define MPAMD_POLICIES_TARGET_INTERNAL_H

#include "policies/policy.h"

/* What the search of one partition works with this tick. */
struct target_search {
	const struct ladder *ladder; /* the rungs of the domains it uses */
	double target;		     /* MB/s */
	double lo, hi;		     /* the rungs it may use: hardware floor or mb_min, and mb_max */
	bool hold_up;		     /* escalation is active: the ceiling must not rise */
};

/* Moves to `next` on a new target or a change of regime, measured at `from_mbps` under the limit it
 * leaves (0: none measured), and starts a new search there. */
void target_search_start(struct target_memory *m, const struct target_search *s, double next, double from_mbps);

/* One valid sample y (MB/s) of the partition under the controller's ceiling; may move out_pct and
 * say why in d. */
void target_search_sample(struct target_memory *m, const struct target_search *s, double y, struct policy_decision *d);

#endif
