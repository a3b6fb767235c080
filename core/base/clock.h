/* Time for the engine and the simulator. The real clock is CLOCK_MONOTONIC (the engine waits on a
 * timerfd); the simulated clock jumps straight to the next deadline, so thousands of ticks run in
 * well under a second while the simulator sees exactly the timestamps it would see in real time. */
#ifndef MPAMD_CORE_CLOCK_H
#define MPAMD_CORE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct clock;

struct clock_ops {
	uint64_t (*now_ns)(struct clock *clock);
};

struct clock {
	const struct clock_ops *ops;
	uint64_t sim_now_ns; /* used by the simulated clock only */
	bool simulated;
};

void clock_init_monotonic(struct clock *clock);
/* Starts at `start_ns` (use a non-zero start so that 0 never means "now"). */
void clock_init_simulated(struct clock *clock, uint64_t start_ns);

static inline uint64_t clock_now(struct clock *clock)
{
	return clock->ops->now_ns(clock);
}

/* CLOCK_MONOTONIC in nanoseconds: the real clock's reading, for code that has no struct clock. */
uint64_t clock_monotonic_ns(void);

/* Milliseconds since the Unix epoch on CLOCK_REALTIME: what a person reads on a wall clock, for
 * timestamps such as the record file's time column, never for intervals (it may step). */
uint64_t clock_wall_ms(void);

/* Simulated clock only: jumps to `deadline_ns` (real time is waited for with a timerfd). */
static inline void clock_advance_to(struct clock *clock, uint64_t deadline_ns)
{
	if (clock->simulated && deadline_ns > clock->sim_now_ns)
		clock->sim_now_ns = deadline_ns;
}

#endif
