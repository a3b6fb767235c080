#include "core/clock.h"

#include <errno.h>
#include <time.h>

static uint64_t monotonic_now(struct clock *clock)
{
	struct timespec ts;

	(void)clock;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int monotonic_sleep_until(struct clock *clock, uint64_t deadline_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(deadline_ns / 1000000000u),
			       .tv_nsec = (long)(deadline_ns % 1000000000u) };

	(void)clock;
	int r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	return r == 0 ? 0 : -r;
}

static const struct clock_ops monotonic_ops = { monotonic_now, monotonic_sleep_until };

static uint64_t simulated_now(struct clock *clock)
{
	return clock->sim_now_ns;
}

static int simulated_sleep_until(struct clock *clock, uint64_t deadline_ns)
{
	if (deadline_ns > clock->sim_now_ns)
		clock->sim_now_ns = deadline_ns;
	return 0;
}

static const struct clock_ops simulated_ops = { simulated_now, simulated_sleep_until };

void clock_init_monotonic(struct clock *clock)
{
	*clock = (struct clock){ .ops = &monotonic_ops };
}

void clock_init_simulated(struct clock *clock, uint64_t start_ns)
{
	*clock = (struct clock){ .ops = &simulated_ops, .sim_now_ns = start_ns, .simulated = true };
}
