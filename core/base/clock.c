#include "core/base/clock.h"

#include <time.h>

uint64_t clock_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t monotonic_now(struct clock *clock)
{
	(void)clock;
	return clock_monotonic_ns();
}

static const struct clock_ops monotonic_ops = { monotonic_now };

static uint64_t simulated_now(struct clock *clock)
{
	return clock->sim_now_ns;
}

static const struct clock_ops simulated_ops = { simulated_now };

void clock_init_monotonic(struct clock *clock)
{
	*clock = (struct clock){ .ops = &monotonic_ops };
}

void clock_init_simulated(struct clock *clock, uint64_t start_ns)
{
	*clock = (struct clock){ .ops = &simulated_ops, .sim_now_ns = start_ns, .simulated = true };
}

uint64_t clock_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}
