/* What a domain carries when neither the hardware nor the configuration says: learned from the totals
 * the partitions use there, tick by tick (capacity_learner.c states the rule).
 *
 * Until the domain shows saturation the figure is a lower bound (the highest total seen) and the
 * policies take it as learned; once it has shown saturation the figure is the capacity, and the
 * policies take it as known. */
#ifndef MPAMD_CORE_ENGINE_CAPACITY_LEARNER_H
#define MPAMD_CORE_ENGINE_CAPACITY_LEARNER_H

#include <stdbool.h>

/* Totals averaged for the peak: one noisy sample does not set it. */
#define CAPACITY_SMOOTH_TICKS 3

/* What the domain carried this tick, as the learner needs it. */
struct capacity_tick {
	bool valid;	       /* every open partition had a valid sample there */
	double total_mbps;     /* all partitions there */
	double guarantee_mbps; /* the partitions with a guarantee there */
	double best_effort_mbps;
	bool guarantee_short; /* one of them, with traffic there, is short of its guarantee (not idle) */
};

/* What saturation was seen as (CAPACITY_NONE: not yet). */
enum capacity_evidence {
	CAPACITY_NONE,
	CAPACITY_SHIFT,	    /* the guaranteed partitions lost what the others gained at the peak, or took it */
	CAPACITY_CONTENDED, /* a guarantee short while best-effort partitions ran, at the peak */
	CAPACITY_RECORD,    /* the peak came from the record of earlier runs (capacity_seed) */
};

struct capacity_learner {
	double peak_mbps; /* the highest mean of CAPACITY_SMOOTH_TICKS valid totals in a row (0: none yet) */
	double recent[CAPACITY_SMOOTH_TICKS];
	unsigned recent_count, recent_next;
	unsigned samples;	  /* valid ticks seen */
	unsigned contended_ticks; /* consecutive ticks contended at the peak */
	bool last_valid;
	double last_guarantee_mbps, last_other_mbps;
	bool guarantee_seen; /* guaranteed traffic was seen here: its capacity matters to the guarantees */
	enum capacity_evidence evidence;
	double evidence_mbps; /* the total when saturation was first seen */
};

/* One tick. Returns true on the tick saturation is first seen (for the engine to say so). */
bool capacity_learn(struct capacity_learner *l, const struct capacity_tick *t);

/* Starts from `mbps`, the most the domain carried in the record of earlier runs (a lower bound, as
 * the peak is): taken as the capacity from the first tick, and raised by any higher total seen. */
void capacity_seed(struct capacity_learner *l, double mbps);

/* Saturation seen (or the record's peak given): the peak is the capacity. */
static inline bool capacity_established(const struct capacity_learner *l)
{
	return l->evidence != CAPACITY_NONE;
}

/* What the evidence was, for people. */
const char *capacity_evidence_text(enum capacity_evidence e);

#endif
