/* Learning what a domain carries from what it carried (docs/mpamd.ini.5, capacity_mbps, says the same).
 *
 * The figure is the peak: the highest mean of CAPACITY_SMOOTH_TICKS valid totals in a row (a mean, so
 * that a counter's noise does not set it). Alone it is only a lower bound: while nobody saturates the
 * domain it is what the partitions happened to want, and a guard judging saturation against it would
 * find every host saturated. The peak becomes the capacity once the domain shows it is saturated
 * there, by one of two signs:
 *  - shift: at the peak, the guaranteed partitions' rate there moved by CAPACITY_SHIFT_FRACTION of
 *    itself (and CAPACITY_SHIFT_MIN of the peak) while the other partitions' moved the other way by at
 *    least half as much: the total stayed where it was and the partitions traded bandwidth, which is
 *    what a full domain does (a neighbour starting takes what a guaranteed partition loses; a
 *    neighbour cut gives it back);
 *  - contended: for CAPACITY_CONTENDED_TICKS ticks in a row, after CAPACITY_WARMUP_TICKS of
 *    measurements, a guaranteed partition with traffic there was short of its guarantee while
 *    best-effort partitions used at least CAPACITY_BEST_EFFORT_SHARE of the domain, at the peak: the
 *    domain is contended (this is the case of a guaranteed partition squeezed from the first tick,
 *    which no shift shows).
 * A guaranteed partition that is short only because it wants less can give the second sign on a host
 * that is not full. The peak is then too low, and the guard's first cut for that partition does not
 * raise its rate: the guard takes it as wanting less and gives its neighbours their bandwidth back.
 * A too-low figure mends itself, since every total above it raises the peak, and one seen saturating
 * the domain is at most the counters' noise above the truth.
 * A learner may also start from the record of earlier runs (capacity_seed): the most the domain
 * carried there, over CAPACITY_SMOOTH_TICKS ticks in a row, is a lower bound of the same kind, taken
 * as the capacity from the first tick, since it is what this host carried under its own load; a
 * record of a host never near full gives a figure too low, which mends itself as above. */
#include "core/engine/capacity_learner.h"

#include <math.h>

#define CAPACITY_WARMUP_TICKS	   10
#define CAPACITY_AT_PEAK	   0.95 /* a total within 5% of the peak is at it: counters jitter by a few percent */
#define CAPACITY_SHIFT_FRACTION	   0.15 /* beyond the few percent a partition's rate jitters by tick to tick */
#define CAPACITY_SHIFT_MIN	   0.05
#define CAPACITY_SHIFT_TAKEN	   0.5
#define CAPACITY_CONTENDED_TICKS   3
#define CAPACITY_BEST_EFFORT_SHARE 0.05

static double recent_mean(const struct capacity_learner *l)
{
	double sum = 0;

	for (unsigned i = 0; i < l->recent_count; i++)
		sum += l->recent[i];
	return l->recent_count ? sum / l->recent_count : 0;
}

static void note_total(struct capacity_learner *l, double total)
{
	l->recent[l->recent_next] = total;
	l->recent_next = (l->recent_next + 1) % CAPACITY_SMOOTH_TICKS;
	if (l->recent_count < CAPACITY_SMOOTH_TICKS)
		l->recent_count++;
	l->peak_mbps = fmax(l->peak_mbps, recent_mean(l));
	l->samples++;
}

/* The guaranteed partitions and the others traded bandwidth at an unchanged total (see the file
 * comment). */
static bool shifted(const struct capacity_learner *l, const struct capacity_tick *t)
{
	double other = t->total_mbps - t->guarantee_mbps;
	double moved = t->guarantee_mbps - l->last_guarantee_mbps, answered = other - l->last_other_mbps;

	if (!l->last_valid || fabs(moved) < CAPACITY_SHIFT_FRACTION * l->last_guarantee_mbps ||
	    fabs(moved) < CAPACITY_SHIFT_MIN * l->peak_mbps)
		return false;
	return moved * answered < 0 && fabs(answered) >= CAPACITY_SHIFT_TAKEN * fabs(moved);
}

static bool contended(const struct capacity_learner *l, const struct capacity_tick *t)
{
	return l->samples >= CAPACITY_WARMUP_TICKS && t->guarantee_short &&
	       t->best_effort_mbps >= CAPACITY_BEST_EFFORT_SHARE * t->total_mbps;
}

bool capacity_learn(struct capacity_learner *l, const struct capacity_tick *t)
{
	if (!t->valid) {
		l->last_valid = false;
		l->contended_ticks = 0;
		return false;
	}
	note_total(l, t->total_mbps);
	l->guarantee_seen |= t->guarantee_mbps > 0;
	bool at_peak = t->total_mbps > 0 && t->total_mbps >= CAPACITY_AT_PEAK * l->peak_mbps;
	enum capacity_evidence seen = CAPACITY_NONE;

	l->contended_ticks = at_peak && contended(l, t) ? l->contended_ticks + 1 : 0;
	if (at_peak && shifted(l, t))
		seen = CAPACITY_SHIFT;
	else if (l->contended_ticks >= CAPACITY_CONTENDED_TICKS)
		seen = CAPACITY_CONTENDED;
	l->last_valid = true;
	l->last_guarantee_mbps = t->guarantee_mbps;
	l->last_other_mbps = t->total_mbps - t->guarantee_mbps;
	if (seen == CAPACITY_NONE || capacity_established(l))
		return false;
	l->evidence = seen;
	l->evidence_mbps = t->total_mbps;
	return true;
}

void capacity_seed(struct capacity_learner *l, double mbps)
{
	if (!(mbps > l->peak_mbps))
		return;
	l->peak_mbps = mbps;
	if (capacity_established(l))
		return;
	l->evidence = CAPACITY_RECORD;
	l->evidence_mbps = mbps;
}

const char *capacity_evidence_text(enum capacity_evidence e)
{
	switch (e) {
	case CAPACITY_RECORD:
		return "the most the domain carried in the record of earlier runs";
	case CAPACITY_SHIFT:
		return "the guaranteed partitions and their neighbours traded bandwidth at that total";
	case CAPACITY_CONTENDED:
		return "a guarantee was short while best-effort partitions ran at that total";
	case CAPACITY_NONE:
		break;
	}
	return "no saturation seen yet";
}
