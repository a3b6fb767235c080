/* How long the engine's ticks take and how late they begin: the last one and the worst since start,
 * which `status` reports. Kept apart from anything else measured around the tick. */
#ifndef MPAMD_CORE_ENGINE_TICK_STATS_H
#define MPAMD_CORE_ENGINE_TICK_STATS_H

#include <stdint.h>

struct tick_stats {
	uint64_t last_ns; /* how long the last tick took */
	uint64_t max_ns;  /* the longest tick since start */
	uint64_t late_ns; /* how long after its deadline the last tick began (0 on simulated time) */
};

static inline void tick_stats_record(struct tick_stats *t, uint64_t late_ns, uint64_t duration_ns)
{
	t->last_ns = duration_ns;
	t->late_ns = late_ns;
	if (duration_ns > t->max_ns)
		t->max_ns = duration_ns;
}

#endif
