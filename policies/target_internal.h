/* The target controller's search over rungs and the evidence it judges on (internal to policies/; see
 * policies/target.c for the controller as a whole, policies/target_search.c for the search and
 * policies/target_evidence.c for whether a move showed, the noise and a rung's mean). */
#ifndef MPAMD_POLICIES_TARGET_INTERNAL_H
#define MPAMD_POLICIES_TARGET_INTERNAL_H

#include "policies/policy.h"

/* A rung's mean covers at most the last 8 samples, so a slow drift still shows within a second. */
#define TARGET_MEAN_WINDOW 8
/* Holding, drift is judged on a mean that halves the weight of a sample every tick (about the last 3
 * samples): a change of regime shows in two or three ticks, not a whole window. */
#define TARGET_RECENT_WEIGHT 0.5
#define TARGET_RECENT_SPAN   3.0

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

/* What the controller holds: its budget while the targets and guarantees on its domains cannot all be
 * met, else its target (MB/s). */
static inline uint32_t target_goal(const struct policy_partition *p)
{
	return p->target && p->target->budget ? p->target->budget : p->goals->target_mbps;
}

/* Each target's budget this tick, and the event when they change (policies/target_share.c). */
void target_share(const struct policy_host *h, struct policy_partition *parts, size_t count,
		  struct policy_decision *decisions);

/* ---- the evidence (policies/target_evidence.c) ---- */

/* Whether sample y is the first under the limit in force since the last move (the samples before are
 * dropped); learns the actuation delay. */
bool target_move_shown(struct target_memory *m, double y);

/* While a move taken as not showing may still show (m->awaiting): catches it if sample y does. */
void target_late_show(struct target_memory *m, double y);

/* Adds sample y to the rung's mean, recent mean and the noise. */
void target_note_sample(struct target_memory *m, double y);

/* One sample's standard deviation at `level` (MB/s), and the standard error of the rung's mean. */
double target_sample_sigma(const struct target_memory *m, double level);
double target_mean_error(const struct target_memory *m);

#endif
